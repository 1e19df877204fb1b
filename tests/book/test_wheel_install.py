"""The chapters run from outside the repository with rlkit and course installed from the built wheel, as on Colab.

Colab installs the package (the chapters' first cell) and runs a chapter whose working directory is not the
repository, so nothing may rely on files that only a checkout has. The test builds the wheel, installs it into
a fresh virtual environment that reuses this environment's packages (a ``.pth`` line, so nothing is
downloaded and the editable install of the checkout is not seen), and executes two chapters in a temporary
folder with that environment's Python.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
CHAPTERS = ["00_setup.ipynb", "01_environments_and_contracts.ipynb"]  # the shortest; 01 has an exercise


def run(*command, cwd: Path) -> str:
    # without PYTHONPATH: a checkout on it (PYTHONPATH=. in a worktree) would be imported instead of the wheel
    environment = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=600, env=environment)
    assert done.returncode == 0, f"{' '.join(map(str, command))} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


@pytest.fixture(scope="module")
def wheel_python(tmp_path_factory) -> Path:
    """The Python of a fresh venv with the built wheel (and its colab extra) installed."""
    build, source = tmp_path_factory.mktemp("wheel"), tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "README.md"):  # a copy: setuptools writes build/ into the tree it builds
        shutil.copy(ROOT / name, source / name)
    for package in ("rlkit", "course"):  # the library and the chapters' code: one wheel installs both
        shutil.copytree(ROOT / package, source / package, ignore=shutil.ignore_patterns("__pycache__"))
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w", build, source, cwd=build)
    (wheel,) = build.glob("*.whl")
    environment = tmp_path_factory.mktemp("venv")
    venv.create(environment, with_pip=False)
    python = environment / "bin" / "python"
    purelib = Path(run(python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))", cwd=build).strip())
    (purelib / "reuse_test_environment.pth").write_text(sysconfig.get_path("purelib") + "\n")
    # --no-index: every requirement, the colab extra's too, must already be met by this environment's pins
    run(python, "-m", "pip", "install", "--quiet", "--no-index", f"{wheel}[colab]", cwd=build)
    return python


def test_the_wheel_is_what_a_chapter_imports_outside_the_repository(wheel_python, tmp_path):
    code = (
        "import rlkit, course; from course.exercises.base import known; known('td_target'); "
        "print(rlkit.__file__); print(course.__file__)"
    )
    output = run(wheel_python, "-c", code, cwd=tmp_path)  # the checks' stored numbers are in the wheel
    locations = [Path(line.strip()) for line in output.splitlines()]
    assert len(locations) == 2, output  # rlkit, then course: both packages come with the one wheel
    for location in locations:
        assert location.is_relative_to(wheel_python.parents[1]), location
        assert not location.is_relative_to(ROOT), location


EXECUTE = """
import sys, nbformat, nbclient
notebook = nbformat.read(sys.argv[1], as_version=4)
notebook.cells.append(nbformat.v4.new_code_cell(
    "import course, rlkit\\nprint('rlkit from', rlkit.__file__)\\nprint('course from', course.__file__)"
))
nbclient.NotebookClient(notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": "."}}).execute()
nbformat.write(notebook, "run.ipynb")
"""


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_a_chapter_runs_from_the_installed_wheel(wheel_python, chapter, tmp_path):
    shutil.copy(ROOT / "notebooks" / chapter, tmp_path / chapter)
    run(wheel_python, "-c", EXECUTE, chapter, cwd=tmp_path)  # a cell's error fails the run
    executed = nbformat.read(tmp_path / "run.ipynb", as_version=4)
    printed = executed.cells[-1].outputs[0]["text"]
    for package in ("rlkit", "course"):  # the kernel ran the wheel's rlkit and course
        location = printed.split(f"{package} from ")[1].splitlines()[0].strip()
        assert Path(location).is_relative_to(wheel_python.parents[1]), location
    if chapter.startswith("01_"):
        assert "is not attempted yet" in json.dumps(executed.cells)  # Run all went past the unfilled stub
