"""One live run per logdir: a lock file names the process that writes there, and a run's files are not
overwritten by the next one by accident.

Two runs on one logdir interleave their files: ``config.yaml`` says one seed, ``agent.pt`` is the other's, the
TensorBoard series mix. So a run takes ``LOGDIR/rlkit.lock`` (its pid and host, as JSON) before its first
step and removes it at its end. The lock is created complete or not at all (written under a temporary name and
hard-linked to its place, which fails when the name exists), so a reader never sees half of one. A lock whose
process is gone (a run killed with SIGKILL, a machine that rebooted) is stale and taken over; a lock held on
another host cannot be checked from here and is refused with the way to remove it by hand.

A logdir that already holds a run (its ``config.yaml``, written at every run's start) is refused as well, unless
the new run resumes a checkpoint of that logdir or asks to ``overwrite`` it: then the old run's files (events,
history, config, agent, checkpoints) are removed first, so that nothing of it is mixed into the new one.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import time
from collections.abc import Iterator
from pathlib import Path

from rlkit.errors import RlkitError

#: The lock file's name in the logdir.
LOCK = "rlkit.lock"
#: What a run writes in its logdir (removed by ``overwrite``), by exact name: anything else there is left alone,
#: so a logdir of ``"."`` never loses a project's ``agent.py`` or its own ``config.yaml``.
RUN_FILES = (
    "config.yaml", "history.json", "events.out.tfevents.*", "checkpoints", "agent.pt", "agent.keras",
    "agent.weights.h5", "agent.pt.state.npz", "agent.keras.state.npz", "agent.weights.h5.state.npz",
)  # fmt: skip


def holder(logdir: Path) -> dict | None:
    """The pid, host and start of the run that holds ``logdir``'s lock; None when there is no lock."""
    try:
        return json.loads((logdir / LOCK).read_text())
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return {}  # unreadable: nobody's, taken over


def alive(pid: int) -> bool:
    """Whether a process with ``pid`` runs on this host (signal 0 checks without sending anything)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        return True
    return True


def _refuse_live(logdir: Path, lock: dict, what: str) -> None:
    pid, host = lock.get("pid"), lock.get("host")
    since = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(lock.get("started", 0)))
    if host == socket.gethostname() and isinstance(pid, int) and pid != os.getpid() and alive(pid):
        raise RlkitError(
            f"the logdir '{logdir}' is in use by a live run (pid {pid} on {host}, since {since}): two runs in one "
            f"logdir mix their files; wait for it to end or stop it (kill {pid}), or choose another {what}"
        )
    if host != socket.gethostname() and host is not None:
        raise RlkitError(
            f"the logdir '{logdir}' is in use by a run on another host ({host}, pid {pid}, since {since}), which "
            f"cannot be checked from here: choose another {what}, or delete '{logdir / LOCK}' if that run is over"
        )


def _check_finished(logdir: Path, resume, overwrite: bool, what: str) -> None:
    if not (logdir / "config.yaml").is_file() or overwrite:
        return
    if resume is not None and Path(logdir).resolve() in Path(resume).resolve().parents:
        return  # the run of this logdir goes on
    raise RlkitError(
        f"the logdir '{logdir}' already holds a run (its config.yaml): a new run there would mix its files with "
        f"that one's; continue it with resume (--resume {logdir / 'agent.pt'} or one of its checkpoints), choose "
        f"another {what}, or pass overwrite=True (--overwrite) to replace it"
    )


def remove_run(logdir: Path) -> None:
    """Delete the files a run wrote in ``logdir`` (see :data:`RUN_FILES`), before a run that overwrites it;
    nothing at all unless the logdir's ``config.yaml`` is an rlkit run's (it names the run's ``algo``)."""
    config = logdir / "config.yaml"
    if config.is_file() and not config.read_text(encoding="utf-8", errors="replace").startswith("algo:"):
        return
    for pattern in RUN_FILES:
        for path in logdir.glob(pattern):
            shutil.rmtree(path) if path.is_dir() else path.unlink()


def _create(temporary: Path, lock: Path) -> None:
    """Put ``temporary`` in place as ``lock`` unless ``lock`` exists (FileExistsError): a hard link makes it
    appear whole; where the file system has none, an exclusive create written at once is the fallback."""
    try:
        os.link(temporary, lock)
    except FileExistsError:
        raise
    except OSError:
        descriptor = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        with os.fdopen(descriptor, "w") as file:
            file.write(temporary.read_text())


@contextlib.contextmanager
def locked(
    logdir: str | Path | None, resume=None, overwrite: bool = False, what: str = "logdir"
) -> Iterator[Path | None]:
    """Hold ``logdir`` for the run inside the block (nothing when it is None), refusing it before any work when
    a live run holds it or, unless ``resume`` is a checkpoint of it or ``overwrite``, when it holds a run."""
    if logdir is None:
        yield None
        return
    logdir = Path(logdir)
    logdir.mkdir(parents=True, exist_ok=True)
    lock = logdir / LOCK
    record = {"pid": os.getpid(), "host": socket.gethostname(), "started": time.time()}
    temporary = logdir / f".{LOCK}.tmp-{os.getpid()}"
    temporary.write_text(json.dumps(record))
    try:
        try:
            _create(temporary, lock)
        except FileExistsError:
            _refuse_live(logdir, holder(logdir) or {}, what)
            os.replace(temporary, lock)  # stale: taken over
            if holder(logdir) != record:  # another run took it over at the same moment
                _refuse_live(logdir, holder(logdir) or {}, what)
    finally:
        temporary.unlink(missing_ok=True)
    try:
        _check_finished(logdir, resume, overwrite, what)
        if overwrite and resume is None:
            remove_run(logdir)
        yield logdir
    finally:
        if holder(logdir) == record:
            lock.unlink(missing_ok=True)
