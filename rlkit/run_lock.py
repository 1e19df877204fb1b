"""One live run per logdir: a lock file names the process that writes there, and a run's files are not
overwritten by the next one by accident.

Two runs on one logdir interleave their files: ``config.yaml`` says one seed, ``agent.pt`` is the other's, the
TensorBoard series mix. So a run takes ``LOGDIR/rlkit.lock`` (its pid and host, as JSON) before its first
step and removes it at its end. The lock is created complete or not at all (written under a temporary name and
hard-linked to its place, which fails when the name exists), so a reader never sees half of one. A lock whose
process is gone (a run killed with SIGKILL, a machine that rebooted) is stale and taken over, by one process
only: several that find it stale at once race for a claim file named after the stale lock's content (created
exclusively), and only its creator removes the lock, after checking it is still that one, and creates its own.
A lock held on another host (a shared file system) cannot be checked from here (its pid is another machine's):
it is refused, naming the host and pid, unless the new run overwrites the logdir (``overwrite``).

A logdir that already holds a run (its ``config.yaml``, written at every run's start) is refused as well, unless
the new run resumes a checkpoint of that logdir or asks to ``overwrite`` it: then the old run's files (events,
history, config, agent, checkpoints) are removed first, so that nothing of it is mixed into the new one.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import socket
import time
from collections.abc import Iterator
from pathlib import Path

from rlkit.atomic import pause_hook
from rlkit.errors import RlkitError

#: The lock file's name in the logdir.
LOCK = "rlkit.lock"
#: What a run writes in its logdir (removed by ``overwrite``), by exact name: anything else there is left alone,
#: so a logdir of ``"."`` never loses a project's ``agent.py`` or its own ``config.yaml``.
RUN_FILES = (
    "config.yaml", "history.json", "events.out.tfevents.*", "checkpoints", "agent.pt", "agent.keras",
    "agent.weights.h5", "agent.pt.state.npz", "agent.keras.state.npz", "agent.weights.h5.state.npz",
    ".agent.pt.previous.state.npz", ".agent.keras.previous.state.npz", ".agent.weights.h5.previous.state.npz",
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


def _refuse_live(logdir: Path, lock: dict, what: str, overwrite: bool = False) -> None:
    """Raise when ``lock`` (a lock file's record) belongs to a run that may still be running: a live process on
    this host, or any process on another host (unless ``overwrite``: the user says that run is over)."""
    pid, host = lock.get("pid"), lock.get("host")
    since = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(lock.get("started", 0)))
    if host == socket.gethostname() and isinstance(pid, int) and pid != os.getpid() and alive(pid):
        raise RlkitError(
            f"the logdir '{logdir}' is in use by a live run (pid {pid} on {host}, since {since}): two runs in one "
            f"logdir mix their files; wait for it to end or stop it (kill {pid}), or choose another {what}"
        )
    if host != socket.gethostname() and host is not None and not overwrite:
        raise RlkitError(
            f"the logdir '{logdir}' is in use by a run on another host ({host}, pid {pid}, since {since}), which "
            f"cannot be checked from here: choose another {what}; if you know that run is over, pass "
            f"overwrite=True (--overwrite) to replace it, or delete '{logdir / LOCK}' to resume it"
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


def _read(lock: Path) -> bytes | None:
    try:
        return lock.read_bytes()
    except FileNotFoundError:
        return None


def _record(content: bytes) -> dict:
    try:
        found = json.loads(content)
    except ValueError:
        return {}  # unreadable: nobody's, taken over
    return found if isinstance(found, dict) else {}


def _acquire(logdir: Path, temporary: Path, what: str, overwrite: bool) -> None:
    """Put ``temporary`` (this run's record) in place as the lock: at once where there is none, else by taking
    over a stale one (:func:`_take_over`); raises where a run that may be live holds it."""
    lock = logdir / LOCK
    for _ in range(100):  # each round ends in a lock of ours, a refusal, or a lock that changed under us
        try:
            _create(temporary, lock)
            return
        except FileExistsError:
            pass
        content = _read(lock)
        if content is None:  # released or taken over between the two calls: look again
            continue
        _refuse_live(logdir, _record(content), what, overwrite)
        pause_hook(LOCK)  # the test hook: every racer has judged the lock stale before any takes it over
        if _take_over(lock, content, temporary):
            return
        time.sleep(0.02)  # another process is taking it over: its lock, live, is refused next round
    raise RlkitError(
        f"the stale lock '{lock}' could not be taken over: another process keeps claiming it (a file "
        f"'.{LOCK}.takeover-*' beside it); if no other run is starting in '{logdir}', a takeover was cut short: "
        f"delete that file and '{lock}', and start again"
    )


def _take_over(lock: Path, stale: bytes, temporary: Path) -> bool:
    """Replace the lock whose content is ``stale`` by ``temporary``; False where another process got there
    first. Without the claim, two processes that both judged the lock stale would each replace it and both run:
    the claim (one name per stale lock, created exclusively) lets one of them through, and the check under it
    leaves alone a lock that is no longer the stale one (taken over before the claim, by a process done with it).
    """
    claim = lock.with_name(f".{LOCK}.takeover-{hashlib.sha256(stale).hexdigest()[:16]}")
    try:
        _create(temporary, claim)
    except FileExistsError:
        return False
    try:
        if _read(lock) != stale:
            return False
        lock.unlink()
        try:
            _create(temporary, lock)  # exclusive still: a run that found no lock in between has it
        except FileExistsError:
            return False
        return True
    finally:
        claim.unlink(missing_ok=True)


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
        _acquire(logdir, temporary, what, overwrite)
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
