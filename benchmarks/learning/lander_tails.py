"""Benchmark: the LunarLander episodes a solved agent loses. How often does a final agent crash, and how
often would the Hugging Face course's mark (mean - std >= 200 over 20 episodes) pass the same agent on
another draw of 20 episodes?

Most final agents of the harder-tasks runs land in nearly every episode and still miss that mark: one crash
among twenty episodes (about -100 against about +270) lowers the mean by some 20 and lifts the standard
deviation past 70. Whether an agent passes is then a question of how often it crashes, which twenty
episodes cannot measure. This script plays a run's final agent for ``--episodes`` episodes, the first
twenty being the final evaluation's own (so ``first_20_as_evaluated`` checks that these are the returns the
run was judged by). A run that ``--evaluated`` (a harder-tasks results file) records, its final agent in
``--runs``, is played as it is; any other is trained first, there, through ``harder_tasks``' resumable runs
(``trained_here``). Either way the record keeps the run's evaluations (``eval_steps``, ``eval_returns``).
Each episode keeps how it ended, read from the environment's last step: "landed" (the lander came to rest:
+100); at the 1,000-step time limit, "on the pad" (at the pad's height between its flags, held there by an
engine that never lets it come to rest: no +100, but a return near 170, no loss) or "elsewhere" (hovering, or
down beside the pad, returns near 0); "crashed" (the body touched the ground: -100) or "flew off" (out of the
viewport: -100). The last three are the **lost** episodes.

Per run the summary gives the share of lost episodes with a 95% Wilson interval and the **chance of
the mark** (``course.lander.chance_of_mark``): the share of 10,000 bootstrap draws of 20 of the run's
episodes (with replacement, a fixed generator) whose mean - std reaches 200.

    python -m benchmarks.learning.lander_tails --configs td3:LunarLanderContinuous-v3 --seeds 0 1 2
    python -m benchmarks.learning.lander_tails --runs benchmarks/runs/harder_tasks --configs dqn:LunarLander-v3
    python -m benchmarks.learning.lander_tails --set buffer_size=300000 --configs td3:LunarLanderContinuous-v3 \
        --out td3_whole_replay.json                                      # a variant, in a file of its own
    python -m benchmarks.learning.lander_tails --table
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import gymnasium as gym
import numpy as np

from benchmarks._results_file import check_sweep, provenance, run_into_file, seed_sweep_parser
from benchmarks.learning.endings import FINAL_EPISODES, FINAL_EVAL_SEED, key, parse_configs
from benchmarks.learning.harder_tasks import RESULTS as HARDER_TASKS
from benchmarks.learning.harder_tasks import RUNS, run_folder
from benchmarks.learning.harder_tasks import run_one as train_run
from course.lander import chance_of_mark, passes_mark
from rlkit.cli import parse_settings

RESULTS = Path(__file__).resolve().parents[1] / "results" / "lander_tails.json"
OUTCOMES = ("landed", "on the pad", "elsewhere", "crashed", "flew off")
LOST = ("elsewhere", "crashed", "flew off")
#: The pad, in the observation's units: between the flags (|x| <= 0.2) and within 0.1 of its height (y = 0
#: where the legs touch it; 0.1 is about two thirds of a metre).
PAD_HALF_WIDTH, PAD_HEIGHT = 0.2, 0.1
#: LunarLander's reward on the step the lander comes to rest (a crash or a flight out of view pays -100).
LANDED = 100.0


class FirstEpisode(gym.Wrapper):
    """Keeps how the environment's first episode ended (return, steps, outcome); the vector environment
    that plays the episodes side by side resets it and steps on, and those later episodes are not kept."""

    def __init__(self, env: gym.Env) -> None:
        super().__init__(env)
        self.total, self.steps, self.ending = 0.0, 0, None

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        if self.ending is None:
            self.total, self.steps = self.total + float(reward), self.steps + 1
            if terminated or truncated:
                self.ending = {"return": self.total, "steps": self.steps, "outcome": outcome(obs, reward, terminated)}
        return obs, reward, terminated, truncated, info


def outcome(obs: np.ndarray, reward: float, terminated: bool) -> str:
    """How a LunarLander episode ended, from its last step (gymnasium's ``LunarLander.step``: +100 when the
    lander rests, -100 when its body touches the ground or its x leaves [-1, 1]; else the time limit, on the
    pad or elsewhere: observations 0 and 1 are x and y)."""
    if not terminated:
        on_pad = abs(float(obs[0])) <= PAD_HALF_WIDTH and float(obs[1]) < PAD_HEIGHT
        return "on the pad" if on_pad else "elsewhere"
    if reward == LANDED:
        return "landed"
    return "flew off" if abs(float(obs[0])) >= 1.0 else "crashed"


def play(agent, env: str, episodes: int, seed_base: int) -> list[dict]:
    """The agent's ``episodes`` greedy episodes from ``seed_base`` on, played as every evaluation in rlkit
    (``rlkit.evaluate.play_episodes``) with each sub-environment wrapped in :class:`FirstEpisode`."""
    from rlkit.envs import EnvSource, make_env
    from rlkit.evaluate import play_episodes

    wrapped: list[FirstEpisode] = []  # in sub-environment order: the vector environment builds them in turn

    def build() -> gym.Env:
        wrapped.append(FirstEpisode(make_env(env)))
        return wrapped[-1]

    returns = play_episodes(agent, EnvSource(env, build, registered=True), episodes, seed_base)
    endings = [each.ending for each in wrapped]
    if not np.allclose([ending["return"] for ending in endings], returns, rtol=0, atol=1e-9):
        raise RuntimeError("the wrapped episodes' returns differ from play_episodes': the recording is wrong")
    return endings


def wilson(lost: int, total: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson interval of a share ``lost / total`` (sound at 0 and at small counts, unlike p +- 2 se)."""
    share = lost / total
    centre = (share + z * z / (2 * total)) / (1 + z * z / total)
    half = z * np.sqrt(share * (1 - share) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return float(max(centre - half, 0.0)), float(min(centre + half, 1.0))


def measured_run(evaluated: Path, algo: str, env: str, framework: str, seed: int, overrides: dict) -> dict | None:
    """The run's record in ``evaluated``, a results file of runs with their final returns (harder_tasks', or
    this script's own, whose runs it trained; None: not there)."""
    if not evaluated.exists():
        return None
    for run in json.loads(evaluated.read_text())["runs"]:
        if key(run) == (algo, env, framework, seed) and run["overrides"] == overrides:
            return run
    return None


def run_one(task: tuple) -> dict:
    """Play the run's final agent: the one in ``runs`` when ``evaluated`` records the run (a finished run is
    not trained again), else trained there now (resumed from its checkpoint if one is there)."""
    import rlkit

    algo, env, framework, seed, steps, overrides, episodes, runs, evaluated = task
    start = time.process_time()
    folder = run_folder(runs, algo, env, framework, seed, overrides, steps)
    final = folder / f"final{'.pt' if framework == 'torch' else '.keras'}"
    record = measured_run(evaluated, algo, env, framework, seed, overrides) if final.exists() else None
    trained_here = record is None
    if trained_here:
        record = train_run((algo, env, framework, seed, steps, overrides, runs, 10_000, False, "cpu"))
    endings = play(rlkit.load(final), env, episodes, FINAL_EVAL_SEED + 1_000 * seed)
    returns = [ending["return"] for ending in endings]
    return {
        "algo": algo, "env": env, "framework": framework, "seed": seed, "overrides": overrides,
        "budget": record["budget"],
        "episodes": endings, "final_returns": record["final_returns"],
        "first_20_as_evaluated": returns[:FINAL_EPISODES] == record["final_returns"],
        # the run's evaluation curve: where a lost episode's agent came from (a run that fell at its end)
        "trained_here": trained_here, "eval_steps": record["eval_steps"], "eval_returns": record["eval_returns"],
        "cpu_s": round(time.process_time() - start, 2),
    }  # fmt: skip


def counts(run: dict) -> dict[str, int]:
    found = [episode["outcome"] for episode in run["episodes"]]
    return {name: found.count(name) for name in OUTCOMES}


def run_chance(run: dict) -> float:
    """:func:`chance_of_mark` over all the run's episodes (computed here, not stored: the file keeps only what
    was measured)."""
    return chance_of_mark([episode["return"] for episode in run["episodes"]])


def markdown_table(document: dict) -> str:
    """One row per run: the mark on the evaluated 20 episodes, the outcomes of all, the share lost with
    its interval, and the chance of the mark on another 20."""
    lines = [
        "| run | graded (its 20) | episodes | landed | on the pad | elsewhere | crashed | flew off "
        "| lost (95% interval) | mean | chance of the mark |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for run in sorted(document["runs"], key=key):
        found, total = counts(run), len(run["episodes"])
        lost = sum(found[name] for name in LOST)
        low, high = wilson(lost, total)
        first = bool(passes_mark(run["final_returns"]))
        mean = np.mean([episode["return"] for episode in run["episodes"]])
        lines.append(
            f"| {run['algo']} {run['env']} {run['framework']} seed {run['seed']} | {'yes' if first else 'no'} "
            f"| {total} | {' | '.join(str(found[name]) for name in OUTCOMES)} "
            f"| {lost / total:.1%} ({low:.1%}-{high:.1%}) | {mean:.1f} | {run_chance(run):.0%} |"
        )
    return "\n".join(lines)


def report(run: dict) -> str:
    found = counts(run)
    shown = ", ".join(f"{found[name]} {name}" for name in OUTCOMES)
    return f"{run['algo']} {run['framework']} seed {run['seed']}: {shown}; chance of the mark {run_chance(run):.0%}"


def main() -> None:
    parser = seed_sweep_parser(__doc__, RESULTS)
    parser.set_defaults(seeds=[0, 1, 2], workers=1)
    parser.add_argument("--configs", nargs="+", required=False, metavar="ALGO:ENV[:FRAMEWORK]")
    parser.add_argument("--episodes", type=int, default=100, help=f"episodes per final agent (>= {FINAL_EPISODES})")
    parser.add_argument("--steps", type=int, help="the budget (default: rlkit.train's for the task)")
    parser.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE", help="hyperparameter overrides")
    parser.add_argument("--runs", type=Path, default=RUNS, help="harder_tasks' run folders (trained there if absent)")
    parser.add_argument(
        "--evaluated", type=Path, default=HARDER_TASKS, help="a results file recording the runs in --runs"
    )
    args = parser.parse_args()
    check_sweep(parser, args)
    if args.table:
        print(markdown_table(json.loads(args.out.read_text())))
        return
    if not args.configs:
        parser.error("--configs: name the runs, e.g. td3:LunarLanderContinuous-v3")
    configs = parse_configs(args.configs)
    if any(not env.startswith("LunarLander") for _, env, _ in configs):
        parser.error("--configs: LunarLander-v3 or LunarLanderContinuous-v3 (the outcomes are the lander's)")
    if args.episodes < FINAL_EPISODES:
        parser.error(f"--episodes must be >= {FINAL_EPISODES}: the first {FINAL_EPISODES} are the evaluation's own")
    overrides = parse_settings(args.set)
    document = {
        **provenance("benchmarks.learning.lander_tails"), "episodes": args.episodes, "overrides": overrides, "runs": [],
    }  # fmt: skip
    tasks = [
        (*config, seed, args.steps, overrides, args.episodes, args.runs, args.evaluated)
        for config in configs
        for seed in args.seeds
    ]
    run_into_file(document, args.out, run_one, tasks, args.workers, key, report)
    print(markdown_table(document))


if __name__ == "__main__":
    main()
