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
import sys
from pathlib import Path

#: A chapter is meant to run top to bottom in a fresh kernel in under two minutes.
CHAPTER_SECONDS = 120


def failed_cells(cells: list[dict]) -> list[tuple[int, str]]:
    """(index of the cell in the notebook, "ErrorName: message") of each code cell whose output is an error."""
    found = []
    for index, cell in enumerate(cells):
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                message = str(output.get("evalue", "")).strip().splitlines()
                found.append((index, f"{output.get('ename', 'Error')}: {message[0] if message else ''}"[:200]))
    return found


def executed_chapters(build: Path, chapters: list[Path]) -> dict[str, tuple[list[dict] | None, float | None]]:
    """Each chapter's executed cells and seconds, by name, as the book's execution cache holds them for the
    chapter's current content; (None, None) where the cache holds no execution of it (a kernel that died or
    timed out). Read from the cache, not from the build's copies: a cached chapter's copy has no outputs."""
    import nbformat
    from jupyter_cache import get_cache

    cache = get_cache(str(build / ".jupyter_cache"))
    found = {}
    for chapter in chapters:
        try:
            pk, notebook = cache.merge_match_into_notebook(nbformat.read(chapter, as_version=4))
        except KeyError:
            found[chapter.stem] = (None, None)
            continue
        seconds = cache.get_cache_record(pk).data.get("execution_seconds")
        found[chapter.stem] = (notebook.cells, seconds)
    return found


def report(build: Path, chapters: list[Path]) -> tuple[list[str], int]:
    """The report's lines and the number of failed cells (a chapter the cache holds no execution of counts as
    one)."""
    lines, failures, slow, total = [], 0, [], 0.0
    for name, (cells, seconds) in executed_chapters(build, chapters).items():
        rerun = f"      re-run this chapter alone: make chapter NB={name}"
        if cells is None:
            failures += 1
            lines += [f"  {name}: not executed (its kernel died or ran past the timeout)", rerun]
            continue
        total += seconds or 0.0
        if seconds is not None and seconds > CHAPTER_SECONDS:
            slow.append(f"  {name}: {seconds:.0f} s")
        for index, error in failed_cells(cells):
            failures += 1
            lines += [f"  {name}, cell {index}: {error}", rerun]
    head = [f"Executed {len(chapters)} chapters ({total / 60:.1f} min of execution, added up)."]
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
    parser.add_argument("--chapters", default="notebooks", type=Path, help="the folder of the chapters")
    parser.add_argument("--strict", action="store_true", help="exit with 1 when a cell failed")
    args = parser.parse_args(argv)
    lines, failures = report(args.build, sorted(args.chapters.glob("*.ipynb")))
    print("\n".join(lines))
    return 1 if args.strict and failures else 0


if __name__ == "__main__":
    sys.exit(main())
