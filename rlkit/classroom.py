"""Student versions of the chapters: ``python -m rlkit.classroom notebooks OUT`` (or ``make student``).

Every code cell tagged ``solution`` is removed; the exercise's stub cell and its ``check_*`` cell stay, so a
student's run stops at the check with its explanation until the stub is filled in. Outputs are cleared.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

SOLUTION_TAG = "solution"


def student_version(notebook: dict) -> dict:
    """A copy of a notebook (nbformat JSON) without solution cells and without outputs."""
    cells = []
    for cell in notebook["cells"]:
        if SOLUTION_TAG in cell.get("metadata", {}).get("tags", []):
            continue
        cell = dict(cell)
        if cell["cell_type"] == "code":
            cell["outputs"], cell["execution_count"] = [], None
        cells.append(cell)
    return {**notebook, "cells": cells}


def write_student_versions(source: Path, destination: Path) -> list[Path]:
    """Write the student version of every notebook in ``source`` to ``destination``; return the paths."""
    notebooks = sorted(source.glob("*.ipynb"))
    if not notebooks:
        raise FileNotFoundError(f"no notebooks in {source}")
    destination.mkdir(parents=True, exist_ok=True)
    written = []
    for path in notebooks:
        target = destination / path.name
        target.write_text(json.dumps(student_version(json.loads(path.read_text())), indent=1) + "\n")
        written.append(target)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rlkit.classroom", description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path, help="folder with the chapter notebooks")
    parser.add_argument("destination", type=Path, help="folder for the student versions")
    args = parser.parse_args(argv)
    try:
        written = write_student_versions(args.source, args.destination)
    except (FileNotFoundError, json.JSONDecodeError) as exc:
        print(f"rlkit.classroom: error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {len(written)} student notebooks to {args.destination}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
