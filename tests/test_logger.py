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


def test_silent_logger_prints_nothing(capsys):
    logger = Logger(100, progress=False)
    logger.advance(50)
    logger.close()
    assert capsys.readouterr().err == ""
