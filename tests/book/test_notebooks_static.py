"""House rules of the chapters, checked without running them (nbval runs them: see the Makefile)."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
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
    """On Colab the first cell installs the colab extra from the branch the launch button opens, so the
    notebook a reader runs and the library it installs are the same version."""
    first = "".join(load(path)["cells"][0]["source"])
    repository = yaml.safe_load((ROOT / "_config.yml").read_text())["repository"]
    extras = ",".join(["colab", *sorted(extras_the_chapter_needs(path))])
    assert 'if "google.colab" in sys.modules' in first
    assert f'%pip install -q "rlkit-course[{extras}] @ git+{repository["url"]}@{repository["branch"]}"' in first
    defined = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert set(extras.split(",")) <= set(defined)


# What Colab lacks, by the module a chapter imports, and the extra that installs it.
EXTRA_OF_MODULE = {
    "onnx": "export",
    "onnxruntime": "export",
    "rlkit.export": "export",
    "imageio_ffmpeg": "video",
    "moviepy": "video",
    "rlkit.video": "video",
    "ray": "ray",
    "rlkit.distributed": "ray",
}


# What Colab lacks, by the environments a chapter makes (gymnasium knows their ids without their engines).
EXTRA_OF_ENVIRONMENT = {
    "LunarLander": "box2d",
    "BipedalWalker": "box2d",
    "HalfCheetah": "mujoco",
    "Hopper": "mujoco",
    "Walker2d": "mujoco",
    "MinAtar/": "minatar",
    "ALE/": "atari",
}


def extras_the_chapter_needs(path) -> set[str]:
    """The optional extras (beyond ``colab``) whose packages the chapter's code imports or whose environments
    it makes."""
    code = "\n".join("".join(c["source"]) for c in load(path)["cells"] if c["cell_type"] == "code")
    environments = {extra for name, extra in EXTRA_OF_ENVIRONMENT.items() if re.search(rf"\b{re.escape(name)}", code)}
    imported = set(re.findall(r"^\s*(?:from|import)\s+([\w.]+)", code, re.MULTILINE))
    imported |= {
        f"{package}.{name}" for package, name in re.findall(r"^\s*from\s+([\w.]+)\s+import\s+(\w+)", code, re.M)
    }
    return environments | {
        extra
        for module in imported
        for prefix, extra in EXTRA_OF_MODULE.items()
        if module == prefix or module.startswith(prefix + ".")
    }


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_exercises_check_the_readers_function_and_the_solution_under_its_own_name(path):
    """Stub, check, solution: "Run all" checks the reader's stub (not attempted: a message, no error), and the
    hidden solution defines ``<name>_solution``, never the reader's name, and is checked with strict=True."""
    cells = load(path)["cells"]
    for index, cell in enumerate(cells):
        if "solution" not in cell.get("metadata", {}).get("tags", []):
            continue
        assert "hide-cell" in cell["metadata"]["tags"], "solutions are hidden in the book"
        stub, check, solution = ("".join(c["source"]) for c in cells[index - 2 : index + 1])
        name = re.search(r"^def (\w+)\(", stub, re.MULTILINE).group(1)
        assert "raise NotImplementedError" in stub, f"{path.name}: the cell before the check is {name}'s stub"
        call = re.search(rf"^(check_\w+)\({name}\)$", check, re.MULTILINE)
        assert call, f"{path.name}: the cell after {name}'s stub checks it"
        assert re.search(rf"^def {name}\(", solution, re.MULTILINE) is None, (
            f"{path.name}: the solution redefines {name}"
        )
        assert f"{call.group(1)}({name}_solution, strict=True)" in solution, path.name


def test_claims_covered_by_the_book_are_tagged_and_in_the_ledger():
    claim_tags = set().union(*(tags(load(p)) for p in NOTEBOOKS))
    claim_tags = {t.removeprefix("claim-") for t in claim_tags if t.startswith("claim-")}
    assert {"C08", "C30"} <= claim_tags
    ledger = (ROOT / "book" / "claims.md").read_text()
    for claim in claim_tags:
        assert f"| {claim} |" in ledger, f"{claim} is settled in a chapter but missing from book/claims.md"


VERDICT_IN_CHAPTER = re.compile(r"```\{admonition\} Verdict \((C\d\d)\):\s*([A-Za-z]+)")
VERDICT_IN_LEDGER = re.compile(r"^\| (C\d\d) \|.*\| \*\*([A-Za-z]+)\*\*", re.MULTILINE)
VERDICT_WORDS = {"true", "false", "partly", "unsettled"}  # unsettled: neither shown nor refuted, over the seeds stated


def chapter_verdicts() -> dict[str, tuple[str, str]]:
    """claim -> (verdict word of its admonition, chapter) for every verdict stated in a chapter."""
    verdicts = {}
    for path in NOTEBOOKS:
        for cell in load(path)["cells"]:
            if cell["cell_type"] == "markdown":
                for claim, word in VERDICT_IN_CHAPTER.findall("".join(cell["source"])):
                    assert claim not in verdicts, f"{claim} has a verdict in {verdicts[claim][1]} and {path.name}"
                    verdicts[claim] = (word.lower(), path.name)
    return verdicts


def test_every_verdict_in_the_ledger_is_the_chapters_verdict():
    """The ledger is the book's summary: its verdict word must be the one the chapter's experiment reached."""
    in_chapters = chapter_verdicts()
    in_ledger = {
        claim: word.lower() for claim, word in VERDICT_IN_LEDGER.findall((ROOT / "book" / "claims.md").read_text())
    }
    assert len(in_chapters) >= 30 and set(in_chapters) == set(in_ledger), (
        f"verdicts only in chapters: {sorted(set(in_chapters) - set(in_ledger))}, "
        f"only in the ledger: {sorted(set(in_ledger) - set(in_chapters))}"
    )
    for claim, (word, chapter) in in_chapters.items():
        assert word in VERDICT_WORDS, (
            f"{chapter}: the verdict of {claim} starts with {word!r}, not one of {VERDICT_WORDS}"
        )
        assert in_ledger[claim] == word, f"{claim}: the ledger says {in_ledger[claim]!r}, {chapter} says {word!r}"


def test_every_claim_tag_has_a_verdict_in_the_same_chapter():
    verdicts = chapter_verdicts()
    for path in NOTEBOOKS:
        for tag in tags(load(path)):
            if tag.startswith("claim-"):
                claim = tag.removeprefix("claim-")
                assert claim in verdicts and verdicts[claim][1] == path.name, f"{path.name}: {tag} has no verdict here"


def test_every_verdict_has_a_tagged_cell_that_checks_it():
    """A verdict's evidence is a cell a reader (and the book's search) can find by the claim's tag: a chapter
    that states a verdict carries the tag on a cell of its own."""
    tagged = {}
    for path in NOTEBOOKS:
        for tag in tags(load(path)):
            if tag.startswith("claim-"):
                tagged.setdefault(tag.removeprefix("claim-"), set()).add(path.name)
    verdicts = chapter_verdicts()
    untagged = {claim: chapter for claim, (_, chapter) in verdicts.items() if chapter not in tagged.get(claim, ())}
    assert not untagged, f"verdicts with no claim-tagged cell in their chapter: {untagged}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_jupyterlab_shows_every_function_of_the_tabs(path):
    """The tabs (literalinclude) render only in the built book; the side_by_side cell after them is what a
    JupyterLab or Colab reader sees, so it must show every function the tabs do."""
    cells = load(path)["cells"]
    for index, cell in enumerate(cells):
        source = "".join(cell["source"])
        if cell["cell_type"] != "markdown" or "{tab-set}" not in source or ":pyobject:" not in source:
            continue
        shown = "".join(cells[index + 1]["source"]) if index + 1 < len(cells) else ""
        assert "side_by_side(" in shown, f"{path.name}: cell {cell.get('id')} shows twin tabs, no side_by_side follows"
        for pyobject in set(re.findall(r":pyobject:\s*(\S+)", source)):
            assert re.search(rf"\.{re.escape(pyobject)}\b", shown), (
                f"{path.name}: the tabs of cell {cell.get('id')} include {pyobject}, side_by_side does not show it"
            )


ALGORITHM_CHAPTERS = [
    "10_dqn",
    "12_double_and_dueling",
    "14_distributional_and_rainbow",
    "20_policy_gradients",
    "21_a2c",
    "22_ppo",
    "30_ddpg",
    "31_td3",
    "32_sac",
]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_chapter_has_references_and_every_algorithm_its_pseudocode(path):
    headings = [
        line.strip()
        for cell in load(path)["cells"]
        if cell["cell_type"] == "markdown"
        for line in "".join(cell["source"]).splitlines()
        if line.startswith("#")
    ]
    assert "## References" in headings, f"{path.name} has no References section"
    if path.stem in ALGORITHM_CHAPTERS:
        assert "## Pseudocode" in headings, f"{path.name} is an algorithm chapter without a Pseudocode section"
