"""The package stays light and its dependency lists stay in sync."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def test_import_rlkit_imports_no_framework():
    code = (
        "import sys, rlkit; rlkit.make_env('CartPole-v1'); print('torch' in sys.modules, 'tensorflow' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


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
