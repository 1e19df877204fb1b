"""The measurements a chapter reads instead of repeating them: the benchmark scripts' committed results files.

Some experiments take longer than a chapter may (minutes of CPU for ten seeds of five settings); their
script in ``benchmarks/`` writes a JSON file to ``benchmarks/results/``, committed with the code, and the
chapter reads it. Inside a checkout the file is read from there. On Colab only the packages are installed
(rlkit and course, not the repository's other folders), so the same file is read from the repository on GitHub.
This reader is course code, not rlkit's: the library never reads files of the repository.
"""

from __future__ import annotations

import json
import tempfile
import urllib.request
from pathlib import Path
from statistics import median

#: Where the results files live in a checkout: beside the course package.
RESULTS = Path(__file__).resolve().parents[1] / "benchmarks" / "results"
#: The same folder in the repository (the book's repository, branch main), for an installed package.
RESULTS_URL = "https://raw.githubusercontent.com/rlkit-course/rlkit/main/benchmarks/results/"


def committed_results(name: str) -> dict:
    """The results file ``name`` (e.g. ``"compare_sb3.json"``) of ``benchmarks/results``, from this checkout
    when there is one, else downloaded from the repository."""
    if Path(name).name != name or not name.endswith(".json"):
        raise ValueError(
            f"name is a file name in benchmarks/results ending in .json, e.g. 'compare_sb3.json'; got {name!r}"
        )
    local = RESULTS / name
    if local.exists():
        return json.loads(local.read_text())
    with urllib.request.urlopen(RESULTS_URL + name, timeout=30) as response:
        return json.load(response)


def committed_agent(name: str) -> Path:
    """The path of the trained agent ``name`` in ``benchmarks/results/agents`` (e.g. a benchmark run's final
    agent, for a chapter's video), or of a video recorded from one (``.mp4``, where rendering live would cost
    a chapter too long), from this checkout when there is one, else downloaded to a temporary folder. Load an
    agent with ``rlkit.load``."""
    if Path(name).name != name or not name.endswith((".pt", ".keras", ".mp4")):
        raise ValueError(
            f"name is a file name in benchmarks/results/agents ending in .pt, .keras or .mp4, e.g. "
            f"'dqn-LunarLander-v3-torch-seed2.pt'; got {name!r}"
        )
    local = RESULTS / "agents" / name
    if local.exists():
        return local
    path = Path(tempfile.mkdtemp(prefix="rlkit-agent-")) / name
    with urllib.request.urlopen(RESULTS_URL + "agents/" + name, timeout=30) as response:
        path.write_bytes(response.read())
    return path


def default_endings(algo: str, env: str) -> dict[str, dict]:
    """What the default ``rlkit.train`` call of ``algo`` on ``env`` gave in the committed endings benchmark
    (``benchmarks/learning/endings.py``: the default budget, ten seeds per framework that no test uses, each
    final agent played for 20 new episodes), per framework: its ``seeds``, ``budget``, the step at which each
    run first reached the task's threshold (``first_solved``, None for a run that never did), each final
    agent's mean return (``final_means``) and how many of them reached the threshold (``ended_solved``).
    Chapters print it beside their one live run, whose seed is one draw of these."""
    runs = [
        run
        for run in committed_results("endings.json")["runs"]
        if (run["algo"], run["env"]) == (algo, env) and not run["overrides"]
    ]
    if not runs:
        raise ValueError(f"endings.json has no default runs of {algo} on {env}")
    endings = {}
    for framework in sorted({run["framework"] for run in runs}, reverse=True):  # torch, then tf
        mine = sorted((run for run in runs if run["framework"] == framework), key=lambda run: run["seed"])
        endings[framework] = {
            "seeds": [run["seed"] for run in mine],
            "budget": mine[0]["budget"],
            "first_solved": [run["first_solved_at"] for run in mine],
            "final_means": [run["final_mean"] for run in mine],
            "ended_solved": sum(run["final_solved"] for run in mine),
        }
    return endings


def show_default_endings(algo: str, env: str) -> dict[str, dict]:
    """Print :func:`default_endings` one line per framework (the steps to the first crossing, each final agent's
    range and how many ended solved) and return it, for a chapter's asserts."""
    endings = default_endings(algo, env)
    for framework, ending in endings.items():
        firsts = [step for step in ending["first_solved"] if step is not None]
        finals, seeds = ending["final_means"], ending["seeds"]
        crossed = f"after {min(firsts):,} to {max(firsts):,} (median {median(firsts):,.0f})" if firsts else ""
        print(
            f"{algo} {framework:<5} seeds {seeds[0]}-{seeds[-1]}, {ending['budget']:,} steps: {len(firsts)} of "
            f"{len(seeds)} reached the threshold {crossed}; final agents {min(finals):.0f} to {max(finals):.0f}, "
            f"{ending['ended_solved']} of {len(seeds)} ended solved"
        )
    return endings


def late_share(runs: list[dict], threshold: float) -> float:
    """The share of the greedy evaluations after half of each run's budget that reached ``threshold``. A run
    makes about ten of them and has one final agent, so the share tells a learner that holds its solve from
    one that swings in and out of it, where ten final agents barely can."""
    late = [
        value
        for run in runs
        for step, value in zip(run["eval_steps"], run["eval_returns"], strict=True)
        if step > run["budget"] / 2
    ]
    return sum(value >= threshold for value in late) / len(late)
