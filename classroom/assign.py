"""Otter-grader assignments from the chapters: ``python -m classroom.assign`` (``make assignments``).

Every chapter with an exercise becomes one assignment in ``_build/assignments/<chapter>/``:

- ``source/<chapter>.ipynb``, the instructor's notebook in otter's format (question, solution, tests);
- ``student/<chapter>.ipynb``, the notebook students get: the exercise's prose, its stub and its check;
- ``autograder/``, with ``autograder.zip`` (the hidden tests live only there) and the solution notebook.

An assignment holds the exercise and what it needs (imports, prose), not the whole chapter, and links to
the chapter for the rest: grading executes a submission top to bottom, and the chapters train agents for a
minute or two, while an assignment runs in a few seconds. Each exercise is worth 2 points: 1 for the
chapter's ``check_*`` (the feedback students see) and 1 for a hidden test that compares the student's
function with the chapter's reference solution on inputs the check never shows (``classroom.hidden_tests``).
"""

from __future__ import annotations

import argparse
import inspect
import re
import shutil
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import nbformat
import yaml

from classroom import compare
from classroom.hidden_tests import HIDDEN, HiddenGrade

ROOT = Path(__file__).resolve().parents[1]
SOLUTION_TAG = "solution"
#: Open-ended assignments that take longer than a chapter may (they train an agent): notebooks of their own,
#: laid out as a chapter's exercise, never run by the book's tests, built and graded like the chapters'.
CAPSTONES = ROOT / "classroom" / "capstones"


@dataclass(frozen=True)
class Exercise:
    """One chapter's exercise, read from its stub, check and solution cells."""

    chapter: str  # notebook stem, e.g. "10_dqn"
    title: str  # the chapter's title
    heading: str  # what the exercise asks for, from its "## Exercise: ..." heading
    name: str  # the function the student writes
    check: str  # the course.exercises function that checks it
    prose: str  # the exercise's markdown, from its "## Exercise" heading on
    stub: str  # the stub cell, as students get it
    reference: str  # the chapter's solution, defining `name` (no check call, no further experiments)
    imports: list[str]  # import lines the stub and the solution rely on
    source: str  # the notebook it comes from, relative to the repository's root


def read_exercise(path: Path) -> Exercise | None:
    """The exercise of the chapter at ``path``, or None if it has none; see the layout that
    tests/book/test_notebooks_static.py enforces (stub, check, solution tagged ``solution``)."""
    cells = nbformat.read(path, as_version=4).cells
    solutions = [i for i, cell in enumerate(cells) if SOLUTION_TAG in cell.metadata.get("tags", [])]
    if not solutions:
        return None
    if len(solutions) > 1:
        raise ValueError(f"{path.name}: expected one exercise per chapter, found {len(solutions)} solution cells")
    index = solutions[0]
    stub, check_cell, solution = (cell.source for cell in cells[index - 2 : index + 1])
    name = re.search(r"^def (\w+)\(", stub, re.MULTILINE).group(1)
    check = re.search(rf"^(check_\w+)\({name}\)$", check_cell, re.MULTILINE).group(1)
    call = f"{check}({name}_solution, strict=True)"
    if call not in solution:
        raise ValueError(f"{path.name}: the solution cell does not end with `{call}`")
    reference = solution.split(call)[0].rstrip() + "\n"
    reference = re.sub(rf"\b{name}_solution\b", name, reference)
    prose = next(
        (
            cell.source[cell.source.index("## Exercise") :]
            for cell in reversed(cells[: index - 2])
            if cell.cell_type == "markdown" and "## Exercise" in cell.source
        ),
        None,
    )
    if prose is None:
        raise ValueError(f"{path.name}: no markdown cell with an '## Exercise' heading before the stub")
    title = next(cell.source.splitlines()[0].lstrip("# ") for cell in cells if cell.cell_type == "markdown")
    imports = [line for line in (stub + "\n" + reference).splitlines() if re.match(r"(import|from) \w", line)]
    heading = prose.splitlines()[0].removeprefix("## Exercise").lstrip(": ") or "exercise"
    imports = list(dict.fromkeys(imports))
    source = path.resolve().relative_to(ROOT).as_posix() if path.resolve().is_relative_to(ROOT) else path.name
    return Exercise(path.stem, title, heading, name, check, prose, stub, reference, imports, source)


def chapter_url(source: str) -> str:
    """Where a student reads the whole notebook (``source``, relative to the repository's root): on the branch
    the book's launch buttons use."""
    repository = yaml.safe_load((ROOT / "_config.yml").read_text())["repository"]
    return f"{repository['url']}/blob/{repository['branch']}/{source}"


def _raw(text: str) -> nbformat.NotebookNode:
    return nbformat.v4.new_raw_cell(text)


def _function_source(function) -> str:
    return textwrap.dedent(inspect.getsource(function))


def public_test(exercise: Exercise) -> str:
    """The test students can run too: the chapter's check, where "not attempted" fails."""
    return (
        '""" # BEGIN TEST CONFIG\npoints: 1\n""" # END TEST CONFIG\n'
        f"def test_{exercise.name}_check({exercise.name}):\n"
        f"    from course.exercises import {exercise.check}\n\n"
        f"    {exercise.check}({exercise.name}, strict=True)\n"
    )


def hidden_test(exercise: Exercise) -> str:
    """The autograder's test: the student's function against the chapter's solution on fresh inputs (or, for an
    open-ended exercise, graded on inputs the check never shows)."""
    hidden = HIDDEN[exercise.name]
    if isinstance(hidden, HiddenGrade):
        module, function = hidden.grader.split(":")
        body = f"from {module} import {function}\n\n{function}({exercise.name})"
        return (
            '""" # BEGIN TEST CONFIG\nhidden: true\npoints: 1\n""" # END TEST CONFIG\n'
            f"def test_{exercise.name}_hidden({exercise.name}):\n" + textwrap.indent(body, "    ") + "\n"
        )
    reference = exercise.reference.replace(f"def {exercise.name}(", "def reference(")
    body = "\n".join(
        [
            *exercise.imports,
            "import numpy as np",
            "",
            reference,
            _function_source(hidden.cases).replace(f"def {hidden.cases.__name__}(", "def cases("),
            _function_source(compare.compare_with_reference),
            f"compare_with_reference({exercise.name}, reference, cases(np.random.default_rng({hidden.seed})), "
            f"gradients={hidden.gradients})",
        ]
    )
    return (
        '""" # BEGIN TEST CONFIG\nhidden: true\npoints: 1\n""" # END TEST CONFIG\n'
        f"def test_{exercise.name}_hidden({exercise.name}):\n" + textwrap.indent(body, "    ") + "\n"
    )


def source_notebook(exercise: Exercise, install_cell: str) -> nbformat.NotebookNode:
    """The instructor's notebook in otter-assign's format for one exercise."""
    config = {
        "name": exercise.chapter,  # otter refuses a submission made for another assignment
        "init_cell": False,  # students need no otter: the chapter's check is their feedback
        "check_all_cell": False,
        "export_cell": False,  # the submission is the .ipynb itself
        "run_tests": False,  # CI grades the solution notebook with otter run instead (tests/course/test_assignments.py)
        "tests": {"ok_format": False},
        "generate": {"show_stdout": True, "pdf": False},
    }
    # imports stay in both versions; the stub is the students' prompt, the chapter's solution the answer
    shared = "".join(f"{line}\n" for line in exercise.imports)
    prompt = "\n".join(line for line in exercise.stub.splitlines() if line not in exercise.imports).strip()
    answer = "\n".join(line for line in exercise.reference.splitlines() if line not in exercise.imports).strip()
    solution = (
        f'{shared}\n""" # BEGIN PROMPT\n{prompt}\n"""; # END PROMPT\n'
        f"# BEGIN SOLUTION NO PROMPT\n{answer}\n# END SOLUTION\n"
    )
    cells = [
        _raw("# ASSIGNMENT CONFIG\n" + yaml.safe_dump(config, sort_keys=False)),
        nbformat.v4.new_markdown_cell(
            f"# {exercise.title}: {exercise.heading}\n\n"
            f"This is the exercise of [{exercise.title}]({chapter_url(exercise.source)}); read the whole notebook "
            "for the ideas and the experiments behind it. Fill in the function below until its check passes, "
            "then save the notebook and hand it in. It is graded on the check you see and on hidden tests "
            "with other inputs."
        ),
        nbformat.v4.new_code_cell(install_cell),
        nbformat.v4.new_code_cell(f"import numpy as np\n\nfrom course.exercises import {exercise.check}"),
        _raw(f"# BEGIN QUESTION\nname: {exercise.name}\ncheck_cell: false"),
        nbformat.v4.new_markdown_cell(exercise.prose),
        _raw("# BEGIN SOLUTION"),
        nbformat.v4.new_code_cell(solution),
        _raw("# END SOLUTION"),
        _raw("# BEGIN TESTS"),
        nbformat.v4.new_code_cell(public_test(exercise)),
        nbformat.v4.new_code_cell(hidden_test(exercise)),
        _raw("# END TESTS"),
        _raw("# END QUESTION"),
        nbformat.v4.new_code_cell(f"{exercise.check}({exercise.name})"),
    ]
    notebook = nbformat.v4.new_notebook(cells=cells)
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return notebook


def exercises(notebooks: Path) -> list[Exercise]:
    """Every exercise of the notebooks in ``notebooks``, in their order."""
    found = [read_exercise(path) for path in sorted(notebooks.glob("*.ipynb"))]
    return [exercise for exercise in found if exercise is not None]


def every_exercise() -> list[Exercise]:
    """The chapters' exercises, then the capstones' (:data:`CAPSTONES`)."""
    return exercises(ROOT / "notebooks") + exercises(CAPSTONES)


def make_assignment(chapter: Path, destination: Path) -> Path:
    """Write the source notebook of one chapter's assignment and run otter assign on it; return its folder."""
    from otter.assign import main as otter_assign

    exercise = read_exercise(chapter)
    if exercise is None:
        raise ValueError(f"{chapter.name} has no exercise (no cell tagged {SOLUTION_TAG!r})")
    if exercise.name not in HIDDEN:
        raise KeyError(f"{chapter.name}: classroom/hidden_tests.py has no hidden test for {exercise.name}")
    install_cell = nbformat.read(chapter, as_version=4).cells[0].source
    folder = destination / exercise.chapter
    source = folder / "source" / f"{exercise.chapter}.ipynb"
    source.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(source_notebook(exercise, install_cell), source)
    otter_assign(str(source), str(folder / "dist"), no_pdfs=True, no_run_tests=True)
    for part in ("autograder", "student"):
        target = folder / part
        if target.exists():
            shutil.rmtree(target)
        (folder / "dist" / part).rename(target)
    (folder / "dist").rmdir()
    (zip_file,) = (folder / "autograder").glob("*.zip")  # otter stamps the name with the time
    zip_file.rename(folder / "autograder" / "autograder.zip")
    return folder


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m classroom.assign", description=__doc__.splitlines()[0])
    parser.add_argument("--notebooks", type=Path, default=ROOT / "notebooks", help="folder of the chapters")
    parser.add_argument("--out", type=Path, default=ROOT / "_build" / "assignments", help="output folder")
    parser.add_argument(
        "chapters",
        nargs="*",
        help="chapter or capstone stems (default: every chapter with an exercise, every capstone)",
    )
    args = parser.parse_args(argv)
    paths = {path.stem: path for folder in (args.notebooks, CAPSTONES) for path in sorted(folder.glob("*.ipynb"))}
    found = exercises(args.notebooks) + exercises(CAPSTONES)
    for stem in args.chapters:
        if stem not in paths:
            parser.error(f"no chapter or capstone named {stem!r}; there are: {', '.join(sorted(paths))}")
    for stem in args.chapters or [exercise.chapter for exercise in found]:
        folder = make_assignment(paths[stem], args.out)
        print(f"{stem}: {folder / 'student' / (stem + '.ipynb')} and {folder / 'autograder' / 'autograder.zip'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
