"""Atomic writes: a file (or folder) rlkit writes is either the old one or the whole new one, never half of each.

Every writer gets a temporary name in the destination's own folder (so the final ``os.replace`` stays on one
file system, where it is atomic), writes there, flushes the data to disk, and only then renames it into place.
A crash, a kill or an exception before the rename leaves the previous file as it was; an exception removes the
temporary file. The temporary name keeps the destination's suffix (``.name.tmp-<pid>.keras``): Keras refuses to
write a ``.keras`` archive or a ``.weights.h5`` file under any other name.

Test hooks, set only by the fault-injection tests: when the environment variable ``RLKIT_TEST_KILL_BEFORE_REPLACE``
holds a glob (``fnmatch``) that matches a destination's file name, the process kills itself with SIGKILL after
the temporary file is complete and before it is renamed, the worst moment for a crash. When
``RLKIT_TEST_PAUSE_BEFORE_REPLACE`` matches, the process prints ``rlkit test hook: paused before replacing
NAME`` to stderr and sleeps ``RLKIT_TEST_PAUSE_SECONDS`` (default 2) at that moment instead, so that a test can
signal it there; :mod:`rlkit.run_lock` pauses the same way between judging a lock stale and taking it over.
"""

from __future__ import annotations

import contextlib
import fnmatch
import itertools
import os
import shutil
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path

#: The test hooks (see the module's docstring).
KILL_HOOK = "RLKIT_TEST_KILL_BEFORE_REPLACE"
PAUSE_HOOK = "RLKIT_TEST_PAUSE_BEFORE_REPLACE"
#: Suffixes of more than one part that a temporary name must keep whole.
_LONG_SUFFIXES = (".weights.h5", ".state.npz")
_counter = itertools.count()


def temporary_name(path: str | Path) -> Path:
    """A hidden name beside ``path``, unique to this process and call, ending with ``path``'s suffix."""
    path = Path(path)
    suffix = next((s for s in _LONG_SUFFIXES if path.name.endswith(s)), path.suffix)
    return path.with_name(f".{path.name}.tmp-{os.getpid()}-{next(_counter)}{suffix}")


@contextlib.contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """Yield a temporary path to write ``path``'s new content to; on success it replaces ``path`` whole.

    Works for a file or a folder (a SavedModel): a folder that already exists is moved aside first and
    removed only after the new one is in place.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = temporary_name(path)
    try:
        yield temporary
        if not temporary.exists():
            raise FileNotFoundError(f"the writer of '{path}' wrote nothing to its temporary file '{temporary}'")
        _sync(temporary)
        _test_hook(path)
        _replace(temporary, path)
    except BaseException:
        _remove(temporary)
        raise
    _sync_folder(path.parent)


def write_bytes(path: str | Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically."""
    with atomic_path(path) as temporary:
        temporary.write_bytes(data)
    return Path(path)


def write_text(path: str | Path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    return write_bytes(path, text.encode("utf-8"))


def _replace(temporary: Path, path: Path) -> None:
    if temporary.is_dir() and path.is_dir():
        aside = temporary_name(path.with_name(path.name + ".old"))
        os.replace(path, aside)
        os.replace(temporary, path)
        shutil.rmtree(aside, ignore_errors=True)
    else:
        os.replace(temporary, path)


def _sync(path: Path) -> None:
    """Flush ``path`` (every file of a folder) to disk, so the rename never publishes unwritten data."""
    files = [p for p in path.rglob("*") if p.is_file()] if path.is_dir() else [path]
    for file in files:
        with open(file, "rb") as handle:
            os.fsync(handle.fileno())


def _sync_folder(folder: Path) -> None:
    """Flush the folder entry of the rename (POSIX; Windows cannot open a folder and needs no flush)."""
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


def _remove(path: Path) -> None:
    if path.is_dir():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def _test_hook(path: Path) -> None:
    pattern = os.environ.get(KILL_HOOK)
    if pattern and fnmatch.fnmatch(path.name, pattern):
        os.kill(os.getpid(), signal.SIGKILL)
    pause_hook(path.name)


def pause_hook(name: str) -> None:
    """The pause of the test hook (see the module's docstring) where ``name`` matches; nothing otherwise. A
    signal whose handler only notes it lets the sleep go on (PEP 475); one that raises ends it there."""
    pattern = os.environ.get(PAUSE_HOOK)
    if pattern and fnmatch.fnmatch(name, pattern):
        print(f"rlkit test hook: paused before replacing {name}", file=sys.stderr, flush=True)
        time.sleep(float(os.environ.get("RLKIT_TEST_PAUSE_SECONDS", "2")))
