"""The packages stay light, rlkit stays below course, and the dependency lists stay in sync."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def test_import_rlkit_imports_no_framework():
    code = (
        "import sys, rlkit; rlkit.make_env('CartPole-v1'); print('torch' in sys.modules, 'tensorflow' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


def test_import_course_imports_no_framework():
    code = "import sys, course, course.exercises; print('torch' in sys.modules, 'tensorflow' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every import in a file, at any depth (a function's lazy import too); a relative
    import is resolved against the file's package."""
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{parent}.{base}" if base else parent
            found += [(node.lineno, base)] + [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
    return found


def test_the_library_never_imports_the_course():
    """course imports rlkit, never the reverse: rlkit is the library a reader trains with, and course holds what
    only the chapters need. A statement ``import course`` anywhere in rlkit (a lazy one in a function too)
    would make the library depend on the book's code."""
    found = [
        f"{path.relative_to(ROOT)}:{line}: imports {module}"
        for path in sorted((ROOT / "rlkit").rglob("*.py"))
        for line, module in imported_modules(path)
        if module == "course" or module.startswith("course.")
    ]
    assert not found, "rlkit imports the course package:\n" + "\n".join(found)


def test_the_library_reads_no_file_of_the_repository():
    """An installed rlkit has no repository around it (Colab, a wheel): no module of rlkit finds files from its
    own location (``Path(__file__).parents[1] / "benchmarks"``); the benchmarks' committed results are read by
    course.measured, and package data would go through importlib.resources."""
    found = [
        f"{path.relative_to(ROOT)}:{node.lineno}: uses __file__"
        for path in sorted((ROOT / "rlkit").rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Name) and node.id == "__file__"
    ]
    assert not found, "rlkit locates files from its own path:\n" + "\n".join(found)


def _normalise(requirement: str) -> str:
    return re.sub(r"\s+", "", requirement).lower()


def test_environment_yml_lists_the_same_pip_requirements_as_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = set(project["dependencies"])
    for extra, requirements in project["optional-dependencies"].items():
        if extra != "all":
            wanted |= set(requirements)
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip_block = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    # Binder builds the environment before the repository is there: rlkit itself comes from postBuild
    assert not [r for r in pip_block if r.startswith("-e")]
    listed = {r for r in pip_block if not r.startswith("-")}  # pip options (the torch CPU index) are not packages
    assert {_normalise(r) for r in listed} == {_normalise(r) for r in wanted}
    python = next(d for d in env["dependencies"] if isinstance(d, str) and d.startswith("python"))
    assert python.startswith("python=3.11")


def test_torch_is_pinned_exactly():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert "torch==2.13.0" in project["optional-dependencies"]["torch"]
