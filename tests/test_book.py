"""The book builds with warnings treated as errors.

The chapters are executed once by nbval (``make test``), so this build does not execute them again: it uses a
copy of ``_config.yml`` with execution off. ``make book`` builds the reader's book with executed chapters.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(
    shutil.which("jupyter-book", path=str(Path(sys.executable).parent)) is None,
    reason="jupyter-book is not installed",
)
def test_book_builds_without_warnings(tmp_path):
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    config["execute"]["execute_notebooks"] = "off"
    config_path = tmp_path / "_config.yml"
    config_path.write_text(yaml.safe_dump(config))
    jupyter_book = Path(sys.executable).parent / "jupyter-book"
    result = subprocess.run(
        [
            str(jupyter_book),
            "build",
            str(ROOT),
            "--config",
            str(config_path),
            "--path-output",
            str(tmp_path),
            "-W",
            "--keep-going",
        ],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert result.returncode == 0, result.stdout[-5000:] + result.stderr[-5000:]
    html = tmp_path / "_build" / "html"
    assert (html / "notebooks" / "10_dqn.html").is_file()
    page = (html / "notebooks" / "10_dqn.html").read_text()
    assert "sd-tab-set" in page and page.count("td_targets") >= 2  # rlkit's own source, in tabs
    assert "colab.research.google.com" in page  # the launch button
