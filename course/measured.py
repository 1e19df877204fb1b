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


def late_evaluations_solved(runs: list[dict]) -> tuple[int, int]:
    """How many of the runs' greedy evaluations after half of each run's budget reached the run's task
    threshold, of how many.

    Ten final agents can barely tell a configuration that ends solved 7 times in 10 from one that does 9 times
    (their 95% intervals overlap widely). A run's late evaluations sample the same question, whether the agent
    at a late step is solved, ten or so times per run: pooled over ten runs, about a hundred samples, so a
    variant that holds its solve can be told from one that swings in and out of it by the same seeds.
    """
    from rlkit.envs import solve_threshold

    solved = total = 0
    for run in runs:
        threshold = solve_threshold(run["env"])
        late = [
            value
            for step, value in zip(run["eval_steps"], run["eval_returns"], strict=True)
            if step > run["budget"] / 2
        ]
        solved += sum(value >= threshold for value in late)
        total += len(late)
    return solved, total


def late_share(runs: list[dict]) -> float:
    """:func:`late_evaluations_solved` as a share: how often a learner holds its solve late in its runs."""
    solved, total = late_evaluations_solved(runs)
    return solved / total
