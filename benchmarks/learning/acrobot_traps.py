"""Benchmark: the Acrobot episodes a solved agent never finishes. Are they a greedy policy held in place, and
does the policy the actor-critic learned, sampled, finish them?

The endings passes on Acrobot-v1 (``endings.py``, thirty seeds per framework) left final agents whose twenty
greedy episodes include one or more at -500, the time limit, while their evaluations look solved. This script
trains the default call again and plays its final agent on the endings' own twenty episode seeds twice: greedy
(the mode of the policy, as every evaluation in the course) and sampled from the policy the actor-critic
trained (seeded; DQN's family has no sampled policy, so only greedy). Each episode that runs to the time
limit keeps how it spent its last :data:`TAIL` steps (its most common action and that action's share, the
lower link's mean speed), and the summary names it by how the links moved there: "held" when the lower link
all but stood still (a torque that holds the two links in a pose that never swings up), "spinning"
when it whirled around at :data:`SPINNING` rad/s or more without ever lifting the tip to the line.

TensorFlow's default runs repeated the endings passes' evaluations on the CPUs those passes met (not on every
CPU: ``RESULTS.md``, "Endings"), so each run records whether its greedy returns equal those the committed pass
recorded for it (``greedy_matches_committed``); torch's are, in effect, other seeds' runs on another CPU
(chapter 40), which is why the default configurations are TensorFlow's.

    python -m benchmarks.learning.acrobot_traps                    # A2C and PPO in TF, seeds 0-29: ~15 CPU min
    python -m benchmarks.learning.acrobot_traps --configs rainbow:tf --seeds 203 209 --out rainbow.json
    python -m benchmarks.learning.acrobot_traps --table            # the file's summary, as RESULTS.md shows it
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np

from benchmarks._results_file import check_sweep, provenance, run_into_file, seed_sweep_parser
from benchmarks.learning.endings import FINAL_EPISODES, FINAL_EVAL_SEED

RESULTS = Path(__file__).resolve().parents[1] / "results" / "acrobot_traps.json"
ENV = "Acrobot-v1"
THRESHOLD = -100.0
TIME_LIMIT = 500
#: The steps at the end of an episode whose motion names it, and the lower link's mean speed (rad/s) from
#: which it is "spinning" rather than "held" (the pass measured 0.2-0.3 rad/s held, 10.5 spinning).
TAIL, SPINNING = 100, 1.0
MODES = ("held", "spinning")
#: Where the committed endings passes keep each default configuration's runs of these seeds (TF's greedy
#: returns must match them).
COMMITTED_PASSES = {
    "a2c": ("endings_variants.json", "a2c_cartpole_acrobot_seeds_0_29_8b10543"),
    "ppo": ("endings_variants.json", "ppo_acrobot_seeds_0_29_edadec8"),
    "rainbow": ("endings.json", None),  # seeds 200-209, the defaults' own file
}
DEFAULT_CONFIGS = ["a2c:tf", "ppo:tf"]


def play(agent, seed_base: int, rng: np.random.Generator | None) -> list[dict]:
    """The final agent's :data:`FINAL_EPISODES` episodes from the endings' start states, played as the endings
    play them (``rlkit.evaluate.play_episodes``), greedy when ``rng`` is None, else sampled with it: each
    episode's return and, for one that hit the time limit, how it spent its tail (:func:`tail_record`)."""
    from rlkit.evaluate import play_episodes

    actions, lower_speed = [], []  # per step, every episode's action and the lower link's |velocity| before it

    def recording_policy(obs: np.ndarray) -> np.ndarray:
        act = agent.act(obs) if rng is None else agent.act(obs, deterministic=False, rng=rng)
        actions.append(np.asarray(act))
        lower_speed.append(np.abs(obs[:, 5]))
        return act

    returns = play_episodes(recording_policy, ENV, FINAL_EPISODES, seed_base)
    actions_by_episode, speed_by_episode = np.array(actions).T, np.array(lower_speed).T
    episodes = []
    for i, episode_return in enumerate(returns):
        episode = {"return": float(episode_return)}
        if episode_return <= -TIME_LIMIT:  # every step cost -1: the goal never reached
            episode |= tail_record(actions_by_episode[i, :TIME_LIMIT], speed_by_episode[i, :TIME_LIMIT])
        episodes.append(episode)
    return episodes


def tail_record(actions: np.ndarray, lower_speed: np.ndarray) -> dict:
    """How an episode that hit the time limit spent its last :data:`TAIL` steps: its most common action, that
    action's share of the steps, and the lower link's mean speed (rad/s)."""
    counts = np.bincount(actions[-TAIL:].astype(int))
    return {
        "top_action": int(counts.argmax()), "top_action_share": float(counts.max() / counts.sum()),
        "lower_link_speed": float(lower_speed[-TAIL:].mean()),
    }  # fmt: skip


def mode(episode: dict) -> str | None:
    """The name of an episode that hit the time limit, "held" or "spinning" (None: it reached the goal)."""
    if "lower_link_speed" not in episode:
        return None
    return "spinning" if episode["lower_link_speed"] >= SPINNING else "held"


def run_one(task: tuple[str, int, int | None]) -> dict:
    """Train the default call to the end of its budget (``steps``: another budget); play its final agent
    greedy and, for an actor-critic, sampled (the sampler seeded with the run's seed)."""
    import rlkit

    config, seed, steps = task
    algo, framework = config.split(":")
    start = time.process_time()
    budget = {} if steps is None else {"total_steps": steps}
    result = rlkit.train(algo, env=ENV, framework=framework, seed=seed, progress=False, **budget)
    seed_base = FINAL_EVAL_SEED + 1_000 * seed
    greedy = play(result.agent, seed_base, None)
    sampler = None if algo in ("dqn", "rainbow") else np.random.default_rng(seed)  # DQN's policy is greedy
    return {
        "config": config, "seed": seed, "steps": int(result.steps), "greedy": greedy,
        "sampled": None if sampler is None else play(result.agent, seed_base, sampler),
        "greedy_matches_committed": None if steps else matches_committed(algo, framework, seed, greedy),
        "cpu_s": round(time.process_time() - start, 2),
    }  # fmt: skip


def matches_committed(algo: str, framework: str, seed: int, greedy: list[dict]) -> bool | None:
    """Whether the greedy returns equal the committed endings pass's final returns for this run (None: the
    pass has no such run)."""
    name, pass_name = COMMITTED_PASSES.get(algo, (None, None))
    if name is None:
        return None
    document = json.loads((RESULTS.parent / name).read_text())
    runs = document["runs"] if pass_name is None else document["passes"][pass_name]["runs"]
    for run in runs:
        if run["overrides"]:
            continue
        if (run["algo"], run["env"], run["framework"], run["seed"]) == (algo, ENV, framework, seed):
            return [episode["return"] for episode in greedy] == run["final_returns"]
    return None


def mean_return(episodes: list[dict] | None) -> float | None:
    return None if episodes is None else float(np.mean([episode["return"] for episode in episodes]))


def stuck(episodes: list[dict] | None, named: str | None = None) -> int:
    """Episodes that hit the time limit (of one mode, when given)."""
    return sum(mode(e) is not None and (named is None or mode(e) == named) for e in episodes or [])


def at_limit(runs: list[dict], kind: str) -> str:
    """The runs' ``kind`` ("greedy", "sampled") episodes at the time limit: "all (held, spinning)"."""
    held, spinning = (sum(stuck(run[kind], named) for run in runs) for named in MODES)
    return f"{held + spinning} ({held}, {spinning})"


def markdown_table(document: dict) -> str:
    """Per configuration: final agents solved greedy and sampled, the episodes at the time limit by mode, and
    the runs whose greedy returns repeat the committed endings pass; then one row per run that missed."""
    lines = [
        "| configuration | runs | greedy: solved | greedy: episodes at -500 (held, spinning) "
        "| sampled: solved | sampled: episodes at -500 (held, spinning) | greedy returns as committed |",
        "|---|---|---|---|---|---|---|",
    ]
    configs = sorted({run["config"] for run in document["runs"]}, key=lambda c: document["configs"].index(c))
    for config in configs:
        runs = [run for run in document["runs"] if run["config"] == config]
        greedy_solved = sum(mean_return(run["greedy"]) >= THRESHOLD for run in runs)
        has_sampled = runs[0]["sampled"] is not None
        sampled_solved = sum(mean_return(run["sampled"]) >= THRESHOLD for run in runs) if has_sampled else "-"
        compared = [run["greedy_matches_committed"] for run in runs if run["greedy_matches_committed"] is not None]
        matched = f"{sum(compared)} of {len(compared)}" if compared else "-"
        lines.append(
            f"| {config} | {len(runs)} | {greedy_solved} | {at_limit(runs, 'greedy')} "
            f"| {sampled_solved} | {at_limit(runs, 'sampled') if has_sampled else '-'} | {matched} |"
        )
    lines += ["", "| run that missed | greedy mean | greedy episodes at -500 | sampled mean |", "|---|---|---|---|"]
    for run in document["runs"]:
        greedy, sampled = mean_return(run["greedy"]), mean_return(run["sampled"])
        if greedy < THRESHOLD or (sampled is not None and sampled < THRESHOLD):
            modes = ", ".join(f"{stuck(run['greedy'], named)} {named}" for named in MODES)
            shown = "-" if sampled is None else f"{sampled:.2f}"
            lines.append(f"| {run['config']} seed {run['seed']} | {greedy:.2f} | {modes} | {shown} |")
    return "\n".join(lines)


def report(run: dict) -> str:
    greedy, sampled = mean_return(run["greedy"]), mean_return(run["sampled"])
    shown = "-" if sampled is None else f"{sampled:.1f}"
    at_limit = stuck(run["greedy"])
    return f"{run['config']} seed {run['seed']:>3}: greedy {greedy:.1f} ({at_limit} at -500), sampled {shown}"


def main() -> None:
    parser = seed_sweep_parser(__doc__, RESULTS)
    parser.set_defaults(seeds=list(range(30)))
    parser.add_argument("--configs", nargs="+", default=DEFAULT_CONFIGS, help="algo:framework, e.g. a2c:tf")
    parser.add_argument("--steps", type=int, default=None, help="environment steps per run (default: the budget)")
    args = parser.parse_args()
    if args.table:
        print(markdown_table(json.loads(args.out.read_text())))
        return
    check_sweep(parser, args)
    for config in args.configs:
        algo, _, framework = config.partition(":")
        if framework not in ("torch", "tf") or algo not in ("a2c", "ppo", "dqn", "rainbow"):
            parser.error(f"--configs takes a2c|ppo|dqn|rainbow:torch|tf, got {config!r}")
    document = {**provenance("benchmarks.learning.acrobot_traps"), "configs": args.configs, "runs": []}
    tasks = [(config, seed, args.steps) for config in args.configs for seed in args.seeds]

    def order(run: dict) -> tuple[int, int]:
        return args.configs.index(run["config"]), run["seed"]

    run_into_file(document, args.out, run_one, tasks, args.workers, order, report)
    print(markdown_table(document))


if __name__ == "__main__":
    main()
