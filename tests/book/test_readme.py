"""The README runs as written: its fenced python and bash blocks, in order, with small budgets.

A reader copies the README's snippets into one Python session and one terminal at the repository's root.
This test does the same, so that a snippet that names a file no earlier one wrote, evaluates an agent on a
task it was not trained on, or uses a name nothing defined fails here, naming the README's block and line:

- python blocks run in one interpreter and one namespace (the reader's session), fed block by block in
  README order between the bash lines, compiled with README.md's own line numbers;
- bash lines run one at a time in one folder, a temporary stand-in for the repository's root: it links the
  folders the README's commands read (``tests/``, ``benchmarks/``), and every file a snippet writes lands
  in it. ``rlkit`` and ``python`` at the start of a line are this interpreter (``python -m rlkit``), so the
  checkout under test runs, not whatever ``rlkit`` is first on the PATH;
- budgets shrink as a reader would shrink them (:func:`shrink_python`, :func:`shrink_bash`): a budget the
  README names is divided by ``SCALE``, a run it starts without one gets ``BUDGETS[algo]``;
- a line that matches a pattern of ``SKIPPED`` does not run (each says why); every other line does, so a new
  README line is tested unless it is listed there.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import re
import select
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
FENCE = re.compile(r"^```(?P<lang>python|bash)\n(?P<body>.*?)^```$", re.MULTILINE | re.DOTALL)

#: Lines the test cannot run: pattern -> why. Checked against each line without its comment.
SKIPPED = {
    r"^make (book|test)\b": "builds .venv and the whole book, or runs the whole suite (this test is in it)",
    r"^tensorboard\b": "serves until stopped",
    r"--device cuda\b|device=\"cuda": "needs a GPU",
    r"\bworkers=|--workers\b|ray_address=|--ray-address\b": "starts Ray actors, or joins a running Ray cluster",
    r"^python -m benchmarks\.learning\.sweep\b": "runs its seeds x settings as Ray tasks, minutes on every core",
}
#: Steps a run gets where its line names no budget: a few rollouts, or (replay algorithms) half the random
#: play before their first update. The updates themselves are the other tests' subject; here every call, file
#: and name of the snippets is.
BUDGETS = {"dqn": 500, "rainbow": 500, "ppo": 2_048, "a2c": 1_024, "ddpg": 500, "td3": 500, "sac": 500}
#: In Python, PPO's passes 10,240, the step of the checkpoint the README resumes (``SaveCheckpoints(every=10_000)``
#: saves at the first update at or after 10,000: PPO's 256-step rollouts reach it at 10,240).
PYTHON_BUDGETS = {**BUDGETS, "ppo": 12_288}
#: A budget the README names is divided by this, which keeps the order of budgets: a run resumed to 100,000
#: steps still goes past the 50,000 it was trained for (500 and 1,000 here).
SCALE = 100
#: Steps of a continued run, ``agent.learn(N)``.
LEARN_STEPS = 2_048
#: The longest one line or python block may take, in seconds (a hung snippet fails instead of hanging).
LINE_TIMEOUT = 300

TRAIN_CALL = re.compile(r"(?P<call>\brlkit\.train\(\"(?P<algo>[\w-]+)\".*?)\)(?P<rest>\s*(#.*)?)$")
CLI_TRAIN = re.compile(r"^rlkit train (?P<algo>[\w-]+)\b")
COMMENT = re.compile(r"\s+#.*$|^#.*$")


@dataclass
class Line:
    """One line of a README block: where it is, what it says, and why it is skipped (None: it runs)."""

    number: int
    text: str
    skipped: str | None


@dataclass
class Block:
    """A fenced block: its language, its number among the README's blocks (from 1) and its lines."""

    lang: str
    index: int
    lines: list[Line]

    def where(self, line: Line) -> str:
        return f"README.md line {line.number} ({self.lang} block {self.index})"


def skip_reason(text: str) -> str | None:
    """Why ``text`` does not run (the first ``SKIPPED`` pattern it matches, comment aside), or None."""
    code = COMMENT.sub("", text).strip()
    return next((why for pattern, why in SKIPPED.items() if re.search(pattern, code)), None)


def blocks(text: str) -> list[Block]:
    """The python and bash blocks of a markdown text, each line with its line number in the text."""
    found = []
    for index, match in enumerate(FENCE.finditer(text), start=1):
        first = text.count("\n", 0, match.start("body")) + 1
        lines = [
            Line(first + offset, line, skip_reason(line)) for offset, line in enumerate(match["body"].splitlines())
        ]
        found.append(Block(match["lang"], index, lines))
    return found


def scaled(match: re.Match) -> str:
    return str(max(1, int(match[2].replace("_", "")) // SCALE))


def shrink_python(text: str) -> str:
    """A python line with small budgets: ``total_steps=N`` divided by ``SCALE``, ``.learn(N)`` set to
    ``LEARN_STEPS``, and ``total_steps=PYTHON_BUDGETS[algo]`` added to an ``rlkit.train("algo", ...)`` call
    that names none (a resumed run included: it then trains to that total)."""
    text = re.sub(r"(total_steps=)([\d_]+)", lambda m: m[1] + scaled(m), text)
    text = re.sub(r"\.learn\([\d_]+\)", f".learn({LEARN_STEPS})", text)
    call = TRAIN_CALL.search(text)
    if call and "total_steps=" not in call["call"]:
        budget = PYTHON_BUDGETS[call["algo"]]
        text = f"{text[: call.end('call')]}, total_steps={budget}){call['rest']}"
    return text


def shrink_bash(text: str) -> str:
    """A bash line as the test runs it: its comment dropped, ``--steps N`` divided by ``SCALE``,
    ``--steps BUDGETS[algo]`` added to an ``rlkit train`` that names none (``--help`` aside), and ``rlkit``
    and ``python`` at its start made this interpreter."""
    text = COMMENT.sub("", text).strip()
    text = re.sub(r"(--steps )(\d[\d_]*)", lambda m: m[1] + scaled(m), text)
    train = CLI_TRAIN.match(text)
    if train and "--steps" not in text and "--help" not in text:
        text += f" --steps {BUDGETS[train['algo']]}"
    python = shlex.quote(sys.executable)
    return re.sub(r"^(rlkit|python)\b", lambda m: python + (" -m rlkit" if m[1] == "rlkit" else ""), text)


#: The reader's Python session: reads one block per line of stdin as JSON, runs it in one namespace, and
#: answers on the original stdout with one JSON line (the snippets' own prints go to stderr).
SESSION = r"""
import json, sys, traceback
reply, sys.stdout = sys.stdout, sys.stderr
namespace = {"__name__": "__main__"}
for request in sys.stdin:
    block = json.loads(request)
    try:
        exec(compile("\n" * (block["first"] - 1) + block["source"], "README.md", "exec"), namespace)
        answer = {"ok": True}
    except BaseException as exc:
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == "README.md"]
        answer = {"ok": False, "line": frames[-1].lineno if frames else None, "error": traceback.format_exc()}
    reply.write(json.dumps(answer) + "\n")
    reply.flush()
"""


class Reader:
    """One Python session and one terminal folder, running a README's blocks in order."""

    def __init__(self, folder: Path, log: Path) -> None:
        self.folder, self.log = folder, log
        paths = [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
        self.env = {
            **os.environ, "PYTHONPATH": os.pathsep.join(paths), "TF_CPP_MIN_LOG_LEVEL": "2",
            "PYTHONHASHSEED": "0", "MPLBACKEND": "Agg",
        }  # fmt: skip
        self.session: subprocess.Popen | None = None
        self.session_log = None
        self.timings: list[tuple[str, float]] = []

    def run(self, block: Block) -> None:
        """Run every line of ``block`` that is not skipped; AssertionError naming the line on a failure."""
        started = time.perf_counter()
        if block.lang == "python":
            self.run_python(block)
        else:
            for line in block.lines:
                if line.skipped is None and COMMENT.sub("", line.text).strip():
                    self.run_bash(block, line)
        self.timings.append((f"{block.lang} block {block.index}", time.perf_counter() - started))

    def run_python(self, block: Block) -> None:
        """The block's lines, budgets shrunk and skipped lines blanked (line numbers stay the README's)."""
        source = "\n".join("" if line.skipped else shrink_python(line.text) for line in block.lines)
        if not source.strip():
            return
        if self.session is None:
            self.session_log = self.log.open("a")
            self.session = subprocess.Popen(
                [sys.executable, "-c", SESSION], cwd=self.folder, env=self.env, text=True,
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.session_log,
            )  # fmt: skip
        self.session.stdin.write(json.dumps({"first": block.lines[0].number, "source": source}) + "\n")
        self.session.stdin.flush()
        ready, _, _ = select.select([self.session.stdout], [], [], LINE_TIMEOUT)
        answer = json.loads(self.session.stdout.readline() or "null") if ready else None
        if answer is None:
            where = f"README.md python block {block.index} (from line {block.lines[0].number})"
            raise AssertionError(f"{where} did not finish in {LINE_TIMEOUT} s or ended the session:\n{self.tail()}")
        if not answer["ok"]:
            line = next((line for line in block.lines if line.number == answer["line"]), block.lines[0])
            raise AssertionError(
                f"{block.where(line)} failed: {line.text.strip()}\nran: {shrink_python(line.text).strip()}\n"
                f"{answer['error'][-4000:]}"
            )

    def run_bash(self, block: Block, line: Line) -> None:
        command, started = shrink_bash(line.text), time.perf_counter()
        try:
            done = subprocess.run(
                command, shell=True, executable=shutil.which("bash"), cwd=self.folder, env=self.env,
                capture_output=True, text=True, timeout=LINE_TIMEOUT,
            )  # fmt: skip
        except subprocess.TimeoutExpired:
            raise AssertionError(f"{block.where(line)} did not finish in {LINE_TIMEOUT} s: {line.text}") from None
        if done.returncode != 0:
            raise AssertionError(
                f"{block.where(line)} failed with exit status {done.returncode}: {line.text.strip()}\n"
                f"ran: {command}\n{done.stdout[-2000:]}{done.stderr[-4000:]}"
            )
        self.timings.append((f"line {line.number}", time.perf_counter() - started))

    def tail(self) -> str:
        return self.log.read_text(errors="replace")[-4000:] if self.log.is_file() else ""

    def close(self) -> None:
        """End the session (at once when it hangs) and its log."""
        if self.session is not None:
            with contextlib.suppress(BrokenPipeError):
                self.session.stdin.close()
            try:
                self.session.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.session.kill()
                self.session.wait()
            self.session_log.close()


def run_readme(text: str, folder: Path) -> list[tuple[str, float]]:
    """Run a README's blocks in order in ``folder`` (the repository's stand-in); the seconds each took."""
    for name in ("tests", "benchmarks"):
        (folder / name).symlink_to(ROOT / name, target_is_directory=True)
    reader = Reader(folder, folder.parent / f"{folder.name}-session.log")
    try:
        for block in blocks(text):
            reader.run(block)
    finally:
        reader.close()
    return reader.timings


def test_the_readme_runs_as_written_with_small_budgets(tmp_path):
    for framework in ("torch", "tensorflow"):
        if importlib.util.find_spec(framework) is None:
            pytest.skip(f"the README's snippets train with torch and TensorFlow; {framework} is not installed")
    folder = tmp_path / "repository"
    folder.mkdir()
    started = time.perf_counter()
    timings = run_readme(README.read_text(encoding="utf-8"), folder)
    print(f"README snippets: {time.perf_counter() - started:.1f} s ({', '.join(f'{n} {s:.1f} s' for n, s in timings)})")
    assert (folder / "dqn.keras").is_file() and (folder / "runs" / "agent.pt").is_file()


def test_every_line_runs_unless_a_skip_pattern_names_it():
    """The README has blocks of both kinds, most of their lines run, and every skip pattern still matches a
    line (a stale one would hide the next line that happens to match it)."""
    found = blocks(README.read_text(encoding="utf-8"))
    assert {block.lang for block in found} == {"python", "bash"}
    lines = [line for block in found for line in block.lines if COMMENT.sub("", line.text).strip()]
    assert sum(line.skipped is None for line in lines) >= 20
    for pattern in SKIPPED:
        assert any(re.search(pattern, COMMENT.sub("", line.text).strip()) for line in lines), pattern


def test_budgets_shrink_as_a_reader_would():
    assert shrink_python('r = rlkit.train("sac", env="Pendulum-v1")   # (comment)') == (
        'r = rlkit.train("sac", env="Pendulum-v1", total_steps=500)   # (comment)'
    )
    nested = 'rlkit.train("ppo", callbacks=[SaveCheckpoints("ckpt", every=10_000)])'
    assert (
        shrink_python(nested)
        == 'rlkit.train("ppo", callbacks=[SaveCheckpoints("ckpt", every=10_000)], total_steps=12288)'
    )
    assert shrink_python('rlkit.train("dqn", total_steps=50_000)') == 'rlkit.train("dqn", total_steps=500)'
    assert shrink_python("more = result.agent.learn(20_000)  # go on") == "more = result.agent.learn(2048)  # go on"
    assert shrink_bash("rlkit train dqn --steps 100000 --save a.pt  # comment").endswith(
        " -m rlkit train dqn --steps 1000 --save a.pt"
    )
    assert shrink_bash("rlkit train ppo --config z.yml").endswith(" -m rlkit train ppo --config z.yml --steps 2048")
    assert shrink_bash("rlkit train dqn --help").endswith(" -m rlkit train dqn --help")
    assert shrink_bash("python -m benchmarks.learning.x") == f"{sys.executable} -m benchmarks.learning.x"


FAILING = """# A README

```python
import os
x = 1
print(undefined_name)
```

```bash
true
ls missing-file   # names a file no snippet wrote
```
"""


@pytest.mark.parametrize("broken,where", [("python", "README.md line 6 (python block 1)"),
                                          ("bash", "README.md line 11 (bash block 2)")])  # fmt: skip
def test_a_failing_line_fails_the_test_naming_its_block_and_line(tmp_path, broken, where):
    text = FAILING if broken == "python" else FAILING.replace("print(undefined_name)", "print(x)")
    folder = tmp_path / "repository"
    folder.mkdir()
    with pytest.raises(AssertionError) as caught:
        run_readme(text, folder)
    message = str(caught.value)
    assert message.startswith(where), message
    assert "NameError: name 'undefined_name'" in message if broken == "python" else "missing-file" in message
