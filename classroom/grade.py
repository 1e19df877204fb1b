"""Grade a folder of submissions without Docker: ``python -m classroom.grade DIR`` (``make grade SUBMISSIONS=DIR``).

Each notebook names its assignment in its metadata (otter writes it into the student notebook), so one
folder may hold submissions to several assignments. Each is graded with ``otter run``'s Python API against
``_build/assignments/<assignment>/autograder/autograder.zip`` (``make assignments`` builds them), in this
environment: otter's non-containerized grading runs the submission's code with the grader's rights, so grade
on a machine, or in an account, that holds nothing a submission should not read. The table of scores is
printed and written as CSV (``DIR/grades.csv`` unless ``--csv`` says otherwise).
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ASSIGNMENTS = ROOT / "_build" / "assignments"


@dataclass(frozen=True)
class Grade:
    """The score of one submission, per question and in total."""

    submission: str
    assignment: str
    questions: dict[str, float]
    score: float
    possible: float
    error: str = ""  # why grading could not run the submission at all, if it could not


def assignment_of(notebook: Path) -> str:
    """The assignment a submission was made for, from the metadata otter assign wrote into the notebook."""
    metadata = json.loads(notebook.read_text(encoding="utf-8")).get("metadata", {})
    name = metadata.get("otter", {}).get("assignment_name")
    if not name:
        raise ValueError(
            f"{notebook} carries no otter assignment name in its metadata: grade the student notebooks that "
            "make assignments wrote (in _build/assignments/<chapter>/student/), not the chapters"
        )
    return name


def grade_submission(notebook: Path, assignments: Path = ASSIGNMENTS, *, debug: bool = False) -> Grade:
    """Execute one submission and run its public and hidden tests with otter; with ``debug`` an error in any
    cell of the submission raises instead of being graded as it is."""
    from otter.api import grade_submission as otter_grade

    assignment = assignment_of(notebook)
    autograder = assignments / assignment / "autograder" / "autograder.zip"
    if not autograder.exists():
        raise FileNotFoundError(f"no autograder for {assignment} at {autograder}: run `make assignments` first")
    results = otter_grade(str(notebook), str(autograder), quiet=True, debug=debug)
    questions = {name: float(results.get_score(name)) for name in results.test_files}
    error = repr(results.catastrophic_error) if results.has_catastrophic_failure() else ""
    return Grade(notebook.name, assignment, questions, float(results.total), float(results.possible), error)


def grade_folder(folder: Path, assignments: Path = ASSIGNMENTS) -> list[Grade]:
    """Grade every ``.ipynb`` in ``folder`` (not its subfolders), in name order."""
    notebooks = sorted(folder.glob("*.ipynb"))
    if not notebooks:
        raise FileNotFoundError(f"no submissions (*.ipynb) in {folder}")
    return [grade_submission(notebook, assignments) for notebook in notebooks]


def write_csv(grades: list[Grade], path: Path) -> None:
    """One row per submission: file, assignment, score, possible, one column per question, and the error
    that kept a submission from running at all (empty if none)."""
    questions = sorted({question for grade in grades for question in grade.questions})
    with path.open("w", newline="", encoding="utf-8") as file:
        writer = csv.writer(file)
        writer.writerow(["submission", "assignment", "score", "possible", *questions, "error"])
        for grade in grades:
            row = [grade.questions.get(question, "") for question in questions]
            writer.writerow([grade.submission, grade.assignment, grade.score, grade.possible, *row, grade.error])


def table(grades: list[Grade]) -> str:
    """The grades as an aligned text table."""
    rows = [("submission", "assignment", "score")]
    rows += [(g.submission, g.assignment, f"{g.score:g} / {g.possible:g}") for g in grades]
    widths = [max(len(row[column]) for row in rows) for column in range(3)]
    return "\n".join("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)) for row in rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m classroom.grade", description=__doc__.splitlines()[0])
    parser.add_argument("submissions", type=Path, help="folder of submitted notebooks")
    parser.add_argument("--assignments", type=Path, default=ASSIGNMENTS, help="where make assignments wrote them")
    parser.add_argument("--csv", type=Path, help="where to write the table (default: SUBMISSIONS/grades.csv)")
    args = parser.parse_args(argv)
    try:
        grades = grade_folder(args.submissions, args.assignments)
    except (FileNotFoundError, ValueError) as error:
        print(f"classroom.grade: error: {error}", file=sys.stderr)
        return 2
    path = args.csv or args.submissions / "grades.csv"
    write_csv(grades, path)
    print(table(grades))
    print(f"\nwrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
