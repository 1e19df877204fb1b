"""One logger for every algorithm: metrics history in memory, TensorBoard files on disk, a progress bar.

The history is what notebooks plot and tests assert on; TensorBoard is for long runs; the progress bar is
for people waiting at a terminal. TensorBoard event files are written with the ``tensorboard`` package
alone, so logging never imports torch or TensorFlow.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import time
from pathlib import Path

import numpy as np
from tqdm import tqdm


class History:
    """Metric series keyed by name, each a list of ``(step, value)``; saved to and loaded from JSON."""

    def __init__(self, data: dict[str, list[list[float]]] | None = None) -> None:
        self._data: dict[str, list[list[float]]] = {k: [list(p) for p in v] for k, v in (data or {}).items()}

    def add(self, step: int, **metrics: float) -> None:
        for name, value in metrics.items():
            self._data.setdefault(name, []).append([int(step), float(value)])

    def series(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """``(steps, values)`` arrays of one metric."""
        if name not in self._data:
            raise KeyError(f"no metric '{name}' in history; recorded: {sorted(self._data)}")
        pairs = np.asarray(self._data[name], dtype=np.float64).reshape(-1, 2)
        return pairs[:, 0].astype(np.int64), pairs[:, 1]

    def last(self, name: str, default: float | None = None) -> float | None:
        return self._data[name][-1][1] if self._data.get(name) else default

    @property
    def names(self) -> list[str]:
        return sorted(self._data)

    def __contains__(self, name: str) -> bool:
        return name in self._data

    def __repr__(self) -> str:
        return f"History({', '.join(f'{k}[{len(v)}]' for k, v in sorted(self._data.items()))})"

    def to_dict(self) -> dict[str, list[list[float]]]:
        return {k: [list(p) for p in v] for k, v in self._data.items()}

    def save(self, path: str | Path) -> None:
        """Write the history as JSON, atomically (a crash keeps the previous file whole)."""
        from rlkit.atomic import write_text

        write_text(path, json.dumps(self._data))

    @classmethod
    def load(cls, path: str | Path) -> History:
        return cls(json.loads(Path(path).read_text()))


class _TensorBoardWriter:
    """Scalar and text summaries in TensorBoard's event-file format, written without TensorFlow.

    ``tensorboard``'s own ``EventFileWriter`` opens files through ``tensorboard.compat.tf``, which imports
    TensorFlow whenever it is installed (2-3 s and hundreds of MB, even in a torch run). Only the record
    framing (``RecordWriter``: length, masked CRC32C, payload) and the protobufs are needed, and neither
    imports TensorFlow, so the file is opened here with plain Python.
    """

    def __init__(self, logdir: str | Path) -> None:
        from tensorboard.compat.proto import event_pb2, summary_pb2
        from tensorboard.summary.writer.record_writer import RecordWriter

        self._event, self._summary = event_pb2.Event, summary_pb2.Summary
        Path(logdir).mkdir(parents=True, exist_ok=True)
        # The name TensorBoard looks for: events.out.tfevents.<time>.<host>; the pid keeps parallel runs apart.
        name = f"events.out.tfevents.{int(time.time()):010d}.{socket.gethostname()}.{os.getpid()}"
        self.path = Path(logdir) / name
        self._file = open(self.path, "wb")  # noqa: SIM115 - closed in close(), which Logger.close calls
        self._writer = RecordWriter(self._file)
        self._write(self._event(wall_time=time.time(), file_version="brain.Event:2"))

    def _write(self, event) -> None:
        self._writer.write(event.SerializeToString())

    def scalars(self, step: int, metrics: dict[str, float]) -> None:
        values = [self._summary.Value(tag=k, simple_value=float(v)) for k, v in metrics.items()]
        self._write(self._event(wall_time=time.time(), step=int(step), summary=self._summary(value=values)))

    def text(self, tag: str, text: str, step: int = 0) -> None:
        """A text summary (TensorBoard's Text tab renders it as markdown)."""
        from tensorboard.compat.proto import summary_pb2, tensor_pb2, tensor_shape_pb2

        tensor = tensor_pb2.TensorProto(
            dtype=7,  # DT_STRING
            string_val=[text.encode("utf-8")],
            tensor_shape=tensor_shape_pb2.TensorShapeProto(dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=1)]),
        )
        metadata = summary_pb2.SummaryMetadata(plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="text"))
        value = self._summary.Value(tag=tag, tensor=tensor, metadata=metadata)
        self._write(self._event(wall_time=time.time(), step=int(step), summary=self._summary(value=[value])))

    def flush(self) -> None:
        self._file.flush()

    def close(self) -> None:
        self._file.close()


class Logger:
    """Records metrics to a :class:`History`, optionally to TensorBoard, and drives a progress bar.

    ``progress=False`` silences the bar (tests, notebooks that train many runs). The bar shows the mean
    return of the last episodes, so a run that learns can be told from one that does not at a glance.
    """

    def __init__(
        self,
        total_steps: int,
        logdir: str | Path | None = None,
        progress: bool = True,
        description: str = "",
        history: History | None = None,
        initial_step: int = 0,
    ) -> None:
        self.history = History() if history is None else history  # a continued run keeps adding to its own
        self.logdir = None if logdir is None else Path(logdir)
        self.total_steps = total_steps
        self._tb = _TensorBoardWriter(logdir) if logdir is not None else None
        self._bar = tqdm(
            total=total_steps,
            desc=description,
            unit="step",
            disable=not progress,
            file=sys.stderr,
            mininterval=0.5,
            dynamic_ncols=True,
            initial=initial_step,
        )
        self._step = initial_step
        self._recent_returns: list[float] = []

    def log(self, step: int, **metrics: float) -> None:
        """Record metrics at an environment step."""
        self.history.add(step, **metrics)
        if self._tb is not None:
            self._tb.scalars(step, metrics)

    def text(self, tag: str, text: str) -> None:
        """A text note in TensorBoard (e.g. the run's resolved configuration as a markdown table)."""
        if self._tb is not None:
            self._tb.text(tag, text, self._step)

    def log_episodes(self, step: int, returns: np.ndarray, lengths: np.ndarray) -> None:
        """Record finished training episodes (one history point each)."""
        for ret, length in zip(returns, lengths, strict=True):
            self.log(step, episode_return=ret, episode_length=length)
        self._recent_returns = (self._recent_returns + list(returns))[-20:]

    def advance(self, step: int) -> None:
        """Move the progress bar to ``step``."""
        if step > self._step:
            self._bar.update(step - self._step)
            self._step = step
            if self._recent_returns and not self._bar.disable:
                postfix = {"return": f"{np.mean(self._recent_returns):.1f}"}
                if "eval_return" in self.history:
                    postfix["eval"] = f"{self.history.last('eval_return'):.1f}"
                self._bar.set_postfix(postfix, refresh=False)

    def close(self) -> None:
        self._bar.close()
        if self._tb is not None:
            self._tb.close()
