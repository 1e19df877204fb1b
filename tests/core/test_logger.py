from __future__ import annotations

import numpy as np
import pytest

from rlkit.logger import History, Logger


def test_history_records_series_and_round_trips_through_json(tmp_path):
    history = History()
    history.add(10, loss=1.0, q_mean=2.0)
    history.add(20, loss=0.5)
    steps, values = history.series("loss")
    np.testing.assert_array_equal(steps, [10, 20])
    np.testing.assert_array_equal(values, [1.0, 0.5])
    history.save(tmp_path / "h.json")
    assert History.load(tmp_path / "h.json").to_dict() == history.to_dict()
    with pytest.raises(KeyError, match="recorded: \\['loss', 'q_mean'\\]"):
        history.series("nope")


def test_logger_writes_tensorboard_events_readable_by_tensorboard(tmp_path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    logger = Logger(100, logdir=tmp_path, progress=False)
    logger.log(5, loss=0.25)
    logger.log_episodes(10, np.array([3.0, 4.0]), np.array([3, 4]))
    logger.close()
    events = EventAccumulator(str(tmp_path))
    events.Reload()
    assert [e.value for e in events.Scalars("loss")] == [0.25]
    assert [e.value for e in events.Scalars("episode_return")] == [3.0, 4.0]


def test_logging_to_tensorboard_imports_no_framework(tmp_path):
    """TensorBoard's own writer opens files through TensorFlow when it is installed: a torch run would pay
    seconds and hundreds of MB for it. rlkit's writer must not."""
    import subprocess
    import sys

    code = (
        "import sys; from rlkit.logger import Logger; "
        f"logger = Logger(10, logdir={str(tmp_path)!r}, progress=False); logger.log(1, loss=1.0); "
        "logger.text('config', 'lr 1e-3'); logger.close(); "
        "print(sorted(m for m in ('tensorflow', 'torch', 'keras') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
    assert len(list(tmp_path.glob("events.out.tfevents.*"))) == 1


def test_text_notes_are_readable_by_tensorboard(tmp_path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    logger = Logger(100, logdir=tmp_path, progress=False)
    logger.text("config", "| field | value |\n|---|---|\n| learning_rate | 0.001 |")
    logger.close()
    events = EventAccumulator(str(tmp_path))
    events.Reload()
    (note,) = events.Tensors("config")
    assert note.tensor_proto.string_val == [b"| field | value |\n|---|---|\n| learning_rate | 0.001 |"]
    assert events.summary_metadata["config"].plugin_data.plugin_name == "text"


def test_silent_logger_prints_nothing(capsys):
    logger = Logger(100, progress=False)
    logger.advance(50)
    logger.close()
    assert capsys.readouterr().err == ""
