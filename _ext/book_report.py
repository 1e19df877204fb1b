"""What the last ``make book`` executed: each chapter's time, and every cell that failed on this machine.

The book is built with ``allow_errors: true`` (``_config.yml``), so a cell that fails on a reader's machine
shows its error in the page instead of leaving the reader with no book at all. This report, printed at the
end of ``make book``, is where such a failure is not missed: it lists each failed cell with its error and the
command that re-runs that one chapter. ``make test`` (CI) still fails on any of them: nbval runs every cell.

Usage: ``python _ext/book_report.py [BUILD_FOLDER]`` (default ``_build``); exit status 0 either way, unless
``--strict`` is given, then 1 when a cell failed.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

#: A chapter is meant to run top to bottom in a fresh kernel in under two minutes.
CHAPTER_SECONDS = 120


def failed_cells(notebook: Path) -> list[tuple[int, str]]:
    """(index of the cell in the notebook, "ErrorName: message") of each code cell whose output is an error."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    found = []
    for index, cell in enumerate(cells):
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                message = str(output.get("evalue", "")).strip().splitlines()
                found.append((index, f"{output.get('ename', 'Error')}: {message[0] if message else ''}"[:200]))
    return found


def execution_seconds(build: Path) -> dict[str, float]:
    """Seconds each chapter's last execution took, by notebook name, from the book's execution cache."""
    try:
        from jupyter_cache import get_cache
    except ImportError:
        return {}
    folder = build / ".jupyter_cache"
    if not folder.is_dir():
        return {}
    records = get_cache(str(folder)).list_cache_records()
    return {Path(record.uri).stem: float(record.data.get("execution_seconds", 0.0)) for record in records}


def report(build: Path) -> tuple[list[str], int]:
    """The report's lines and the number of failed cells."""
    executed = sorted((build / "jupyter_execute").rglob("*.ipynb"))
    seconds = execution_seconds(build)
    lines, failures, slow = [], 0, []
    for notebook in executed:
        name = notebook.stem
        if name in seconds and seconds[name] > CHAPTER_SECONDS:
            slow.append(f"  {name}: {seconds[name]:.0f} s")
        for index, error in failed_cells(notebook):
            failures += 1
            lines.append(f"  {name}, cell {index}: {error}")
            lines.append(f"      re-run this chapter alone: make chapter NB={name}")
    total = sum(seconds.values())
    head = [f"Executed {len(executed)} chapters ({total / 60:.1f} min of execution in the cache)."]
    if slow:
        head += [f"Chapters over {CHAPTER_SECONDS} s on this machine:", *slow]
    if failures:
        head += [f"{failures} cell(s) failed on this machine; their errors are shown in the book's pages:"]
    else:
        head += ["Every cell ran without an error."]
    return head + lines, failures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build", nargs="?", default="_build", type=Path)
    parser.add_argument("--strict", action="store_true", help="exit with 1 when a cell failed")
    args = parser.parse_args(argv)
    lines, failures = report(args.build)
    print("\n".join(lines))
    return 1 if args.strict and failures else 0


if __name__ == "__main__":
    sys.exit(main())
