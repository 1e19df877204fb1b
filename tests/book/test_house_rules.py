"""Rules the book depends on, checked statically (no framework is imported, nothing trains).

- The torch and TensorFlow twins define the same functions in the same order: the chapters show them side by
  side and the reader compares them line by line.
- Learners that share code by copy, so that each algorithm's update reads whole in one file, keep their
  copies equal: A2C and PPO differ only in the policy loss; DDPG, TD3 and SAC share their plumbing methods.
- Every ``literalinclude`` with ``:pyobject:`` in a chapter names an object that exists in that file, so a
  renamed method cannot silently drop a code listing from the book.
- Every file a chapter includes fits the book's code column (85 characters) so that no listing scrolls
  sideways, and the 120-column ``ruff format`` pass is kept off exactly those files (pyproject.toml).
- No tracked file names a folder of the machine it was written on (a results file recording its command
  line, a notebook's saved traceback): the repository speaks only of itself.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TWIN_FOLDERS = sorted(path.parent for path in (ROOT / "rlkit" / "algos").glob("*/torch.py"))
LITERALINCLUDE = re.compile(r"```\{literalinclude\}\s+(?P<file>\S+)\n(?P<options>(?::[^\n]*\n)*)")


def definitions(path: Path) -> list[str]:
    """Top-level functions and classes, and the methods of each class, as ``Class.method``, in file order."""
    return [name for name, _ in definitions_with_lines(path)]


def definitions_with_lines(path: Path) -> list[tuple[str, int]]:
    """(name, first line) of each definition; the first line is that of the first decorator, if any."""
    names = []

    def first_line(node: ast.AST) -> int:
        return min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])

    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            names.append((node.name, first_line(node)))
        elif isinstance(node, ast.ClassDef):
            names.append((node.name, first_line(node)))
            names += [
                (f"{node.name}.{item.name}", first_line(item))
                for item in node.body
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
            ]
    return names


# The same thing under each framework's own name: a torch module's forward is a Keras layer's call, and a
# torch Linear layer is a Keras Dense layer.
TORCH_TO_TF = {"forward": "call", "NoisyLinear": "NoisyDense"}
# Keras-only hooks with no torch counterpart: serialisation and lazy building.
KERAS_ONLY = {"get_config", "from_config", "build"}
MARK = "# differs:"


def comparable(path: Path, framework: str) -> list[str]:
    """The definitions a reader compares across the twins, in order, under one naming.

    Left out: Keras-only hooks, and one-sided helpers marked by a ``# differs: why`` comment on the line
    right above them (the rule of STYLE.md: every place the frameworks truly differ says so).
    """
    lines = path.read_text(encoding="utf-8").splitlines()
    names, marked = [], set()
    for name, line in definitions_with_lines(path):
        if lines[line - 2].strip().startswith(MARK) or name.split(".")[0] in marked:
            marked.add(name)
            continue
        parts = name.split(".")
        if framework == "tf" and parts[-1] in KERAS_ONLY:
            continue
        if framework == "torch":
            parts = [TORCH_TO_TF.get(part, part) for part in parts]
        names.append(".".join(parts))
    return names


@pytest.mark.parametrize("folder", TWIN_FOLDERS, ids=lambda p: p.name)
def test_twins_define_the_same_functions_in_the_same_order(folder):
    torch_names = comparable(folder / "torch.py", "torch")
    tf_names = comparable(folder / "tf.py", "tf")
    assert torch_names == tf_names, (
        f"rlkit/algos/{folder.name}: torch.py and tf.py differ in what they define or in its order "
        f"(mark a truly one-sided helper with a '{MARK} why' comment right above it)\n"
        f"  torch.py only: {[n for n in torch_names if n not in tf_names]}\n"
        f"  tf.py only:    {[n for n in tf_names if n not in torch_names]}\n"
        f"  torch order: {torch_names}\n  tf order:    {tf_names}"
    )


def test_shared_parts_twins_define_the_same_functions_in_the_same_order():
    """rlkit/algos/torch_parts.py and tf_parts.py, the learners' shared pieces, are twins too."""
    algos = ROOT / "rlkit" / "algos"
    torch_names = comparable(algos / "torch_parts.py", "torch")
    tf_names = comparable(algos / "tf_parts.py", "tf")
    assert torch_names == tf_names, (
        f"torch_parts.py and tf_parts.py differ in what they define or in its order\n"
        f"  torch order: {torch_names}\n  tf order:    {tf_names}"
    )


def methods(path: Path, class_name: str = "Learner") -> dict[str, str]:
    """The methods of ``class_name`` in ``path``, each as code without its docstring (``ast.unparse``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    (cls,) = [node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == class_name]
    found = {}
    for item in cls.body:
        if isinstance(item, ast.FunctionDef):
            body = item.body[1:] if ast.get_docstring(item) is not None else item.body
            found[item.name] = ast.unparse(ast.FunctionDef(**{**item.__dict__, "body": body or [ast.Pass()]}))
    return found


#: The off-policy learners' plumbing around the update: the same calls of torch_parts / tf_parts in each.
OFF_POLICY_PLUMBING = ("actions", "update", "update_many", "sync_targets", "get_weights", "target_weights",
                       "set_weights", "save", "load")  # fmt: skip


@pytest.mark.parametrize("framework", ["torch", "tf"])
def test_a2c_and_ppo_learners_differ_only_in_the_policy_loss(framework):
    a2c, ppo = (methods(ROOT / "rlkit" / "algos" / algo / f"{framework}.py") for algo in ("a2c", "ppo"))
    assert list(a2c) == list(ppo)
    differing = [name for name in a2c if a2c[name] != ppo[name]]
    assert differing == ["policy_loss"], f"A2C's and PPO's copies of {differing} drifted apart"


@pytest.mark.parametrize("framework", ["torch", "tf"])
def test_ddpg_td3_and_sac_share_their_plumbing_unchanged(framework):
    learners = {algo: methods(ROOT / "rlkit" / "algos" / algo / f"{framework}.py") for algo in ("ddpg", "td3", "sac")}
    for name in OFF_POLICY_PLUMBING:
        copies = {algo: found[name] for algo, found in learners.items()}
        assert len(set(copies.values())) == 1, f"{framework} {name} differs between {sorted(copies)}"


def includes() -> list[tuple[str, Path, list[str]]]:
    """(chapter, included file, option lines) for every literalinclude in the chapters."""
    found = []
    for chapter in sorted((ROOT / "notebooks").glob("*.ipynb")):
        cells = json.loads(chapter.read_text(encoding="utf-8"))["cells"]
        text = "\n".join("".join(cell["source"]) for cell in cells if cell["cell_type"] == "markdown")
        for match in LITERALINCLUDE.finditer(text + "\n"):
            target = (chapter.parent / match["file"]).resolve()
            found.append((chapter.name, target, match["options"].splitlines()))
    return found


def pyobject_includes() -> list[tuple[str, Path, str]]:
    """(chapter, included file, pyobject) for every pyobject literalinclude in the chapters."""
    return [
        (chapter, target, option.removeprefix(":pyobject:").strip())
        for chapter, target, options in includes()
        for option in options
        if option.startswith(":pyobject:")
    ]


def test_the_chapters_include_source_listings():
    assert len(pyobject_includes()) > 30


@pytest.mark.parametrize(
    "chapter,target,pyobject",
    pyobject_includes(),
    ids=lambda value: value if isinstance(value, str) else value.name if isinstance(value, Path) else None,
)
def test_every_pyobject_listing_exists(chapter, target, pyobject):
    assert target.is_file(), f"{chapter} includes {target.relative_to(ROOT)}, which does not exist"
    assert pyobject in definitions(target), f"{chapter} includes {pyobject} from {target.name}: no such object"


# The book's code column shows about 85 characters without scrolling sideways; 85 also lets the twins sit
# side by side in JupyterLab (course.show.side_by_side).
BOOK_COLUMNS = 85


def shown_files() -> list[Path]:
    """Every file of the repository that a chapter includes, each once."""
    return sorted({target for _, target, _ in includes() if target.is_relative_to(ROOT)})


def test_the_chapters_show_library_source():
    assert len(shown_files()) >= 20


@pytest.mark.parametrize("path", shown_files(), ids=lambda path: str(path.relative_to(ROOT)))
def test_every_shown_file_fits_the_book_column(path):
    too_long = [
        f"{path.relative_to(ROOT)}:{number}: {len(line)} characters"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if len(line) > BOOK_COLUMNS
    ]
    assert not too_long, (
        f"lines over the book's {BOOK_COLUMNS} columns (`make lint` formats this file with "
        f"--line-length {BOOK_COLUMNS}; wrap comments and docstrings by hand):\n" + "\n".join(too_long)
    )


def test_the_120_column_format_pass_leaves_exactly_the_shown_files_alone():
    """pyproject.toml's [tool.ruff.format] exclude must name the shown files, and nothing else: a shown
    file left out would be reflowed to 120 columns by ``ruff format``, and a file kept out that no chapter
    shows would escape formatting."""
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["ruff"]["format"]["exclude"]
    excluded = sorted({path.resolve() for pattern in patterns for path in ROOT.glob(pattern)})
    shown = shown_files()
    assert excluded == shown, (
        "pyproject.toml's [tool.ruff.format] exclude differs from the files the chapters include\n"
        f"  shown, not excluded: {[str(p.relative_to(ROOT)) for p in shown if p not in excluded]}\n"
        f"  excluded, not shown: {[str(p.relative_to(ROOT)) for p in excluded if p not in shown]}"
    )


MACHINE_PATH = re.compile(r"(?<![\w.~-])/(?:work|root|home|Users|tmp)/[\w.-]")


def tracked_text_files() -> list[Path]:
    """The files git tracks (every file under the root when this is not a git checkout), binaries skipped."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True)
    if listed.returncode == 0:
        paths = [ROOT / name for name in listed.stdout.split("\0") if name]
    else:
        paths = [p for p in ROOT.rglob("*") if p.is_file() and ".git" not in p.parts and ".venv" not in p.parts]
    texts = []
    for path in paths:
        if path.is_file() and b"\0" not in path.read_bytes()[:4096]:
            texts.append(path)
    return texts


def test_no_tracked_file_names_a_folder_of_this_machine():
    found = []
    for path in tracked_text_files():
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            if MACHINE_PATH.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:100]}")
    assert not found, "absolute paths of a machine in the repository:\n" + "\n".join(found)
