"""House rules of the chapters, checked without running them (nbval runs them: see the Makefile)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def tags(notebook: dict) -> set[str]:
    return {tag for cell in notebook["cells"] for tag in cell.get("metadata", {}).get("tags", [])}


def test_every_notebook_is_in_the_table_of_contents():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = {chapter["file"] for part in toc["parts"] for chapter in part["chapters"]}
    assert {f"notebooks/{p.stem}" for p in NOTEBOOKS} <= files


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_stored_without_outputs(path):
    for cell in load(path)["cells"]:
        if cell["cell_type"] == "code":
            assert cell["outputs"] == [] and cell["execution_count"] is None, f"{path.name} has outputs"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_first_cell_installs_rlkit_only_on_colab(path):
    first = "".join(load(path)["cells"][0]["source"])
    assert 'if "google.colab" in sys.modules' in first and "pip install" in first


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_exercise_solutions_are_tagged_and_checked(path):
    cells = load(path)["cells"]
    for index, cell in enumerate(cells):
        if "solution" in cell.get("metadata", {}).get("tags", []):
            assert "hide-cell" in cell["metadata"]["tags"], "solutions are hidden in the book"
            assert "check_" in "".join(cells[index + 1]["source"]), "a check follows each solution"


def test_claims_covered_by_the_book_are_tagged_and_in_the_ledger():
    claim_tags = set().union(*(tags(load(p)) for p in NOTEBOOKS))
    claim_tags = {t.removeprefix("claim-") for t in claim_tags if t.startswith("claim-")}
    assert {"C08", "C30"} <= claim_tags
    ledger = (ROOT / "book" / "claims.md").read_text()
    for claim in claim_tags:
        assert f"| {claim} |" in ledger, f"{claim} is settled in a chapter but missing from book/claims.md"
