"""Benchmark: rlkit (torch and TensorFlow) beside Stable-Baselines3 with its RL-Zoo hyperparameters.

For every (algorithm, task) pair of the course and every seed, one worker of a process pool trains rlkit with
torch, rlkit with TensorFlow and Stable-Baselines3 one after another (the order rotates with the seed), so the
three runs of a seed share the machine's state and their time ratio is measured side by side. Each run:

* keeps its own default budget: rlkit's ``rlkit.train(algo, env=...)`` default, SB3's RL-Zoo ``n_timesteps``;
* is evaluated on one shared schedule (every ``EVAL_EVERY`` environment steps and after its last step) by one
  function, :func:`rlkit.evaluate.play_episodes`: 10 greedy episodes on seeds ``1_000_000 + 1_000 * seed + step``
  (rlkit's own evaluation, which SB3's callback repeats), the evaluation time counted inside the training time of
  both;
* records per evaluation the step, wall seconds, process CPU seconds and mean return, all from before the agent
  is built (frameworks are imported once per worker, before any clock starts).

Time to solve is the first evaluation at or above the threshold (CartPole 475, Acrobot -100, Pendulum -200);
training goes on to the budget, so the last evaluation is the final return. Every run uses one thread
(``torch.set_num_threads(1)`` for SB3 too, rlkit's own one-thread setting for both of its frameworks). Single-
threaded CPU time is the robust measure on a shared machine; wall time is reported beside it.

SB3 has no Rainbow: rlkit's Rainbow is compared with SB3's DQN and its zoo settings for the task, the very
run of the DQN pair for that seed (copied, marked ``"same_run_as": "dqn"``, rather than trained twice).

``--libraries`` runs only some of the three (e.g. SB3 once, while rlkit's defaults are still changing); with
``--append`` the runs already in the file are kept and skipped, ``--redo`` replaces those of the chosen
libraries. Each record keeps when it was measured and the load average around it.

    python -m benchmarks.comparisons.compare_sb3                                     # every pair, seeds 0-4
    python -m benchmarks.comparisons.compare_sb3 --pairs ppo:CartPole-v1 dqn:CartPole-v1 --workers 2
    python -m benchmarks.comparisons.compare_sb3 --append --pairs sac:Pendulum-v1     # add pairs to the results file
    python -m benchmarks.comparisons.compare_sb3 --append --libraries sb3              # SB3's runs only
    python -m benchmarks.comparisons.compare_sb3 --append --redo --libraries rlkit-torch rlkit-tf  # re-measure rlkit
    python -m benchmarks.comparisons.compare_sb3 --summarize                          # recompute the summary only
    python -m benchmarks.comparisons.compare_sb3 --table results                      # RESULTS.md's table of the file
    python -m benchmarks.comparisons.compare_sb3 --table steps --also more_seeds.json  # steps to solve, files joined

Needs the ``benchmark`` extra (``pip install -e '.[benchmark]'``: stable-baselines3). Summaries are the
interquartile mean over seeds with a 95% bootstrap interval (rliable's convention, computed here in numpy).
"""

from __future__ import annotations

import argparse
import datetime
import json
import multiprocessing
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

import rlkit
from course.pitfalls.statistics import iqm_ci
from rlkit import atomic, hardware
from rlkit.callbacks import Callback
from rlkit.envs import solve_threshold
from rlkit.evaluate import play_episodes
from rlkit.seeding import eval_seed

RESULTS = Path(__file__).parents[1] / "results" / "compare_sb3.json"
EVAL_EPISODES = 10

#: The measurement order: the pairs the issue quotes first, then continuous control, then the rest.
PAIRS = [
    ("ppo", "CartPole-v1"),
    ("dqn", "CartPole-v1"),
    ("ppo", "Pendulum-v1"),
    ("sac", "Pendulum-v1"),
    ("td3", "Pendulum-v1"),
    ("ddpg", "Pendulum-v1"),
    ("a2c", "CartPole-v1"),
    ("rainbow", "CartPole-v1"),
    ("dqn", "Acrobot-v1"),
    ("ppo", "Acrobot-v1"),
    ("a2c", "Acrobot-v1"),
    ("rainbow", "Acrobot-v1"),
]

#: The shared evaluation schedule, environment steps between evaluations (the same for all three runs).
EVAL_EVERY = {
    "dqn": 2_500,
    "rainbow": 2_500,
    "ppo": 5_000,
    "a2c": 5_000,
    "ddpg": 1_000,
    "td3": 1_000,
    "sac": 1_000,
}

#: RL-Zoo's settings, copied from DLR-RM/rl-baselines3-zoo at commit 22e3ff2450fd92033f7f032915e1f64894a09584
#: (2026-04-23): hyperparams/dqn.yml, ppo.yml, a2c.yml, ddpg.yml, td3.yml, sac.yml. "lin_X" is the zoo's
#: linear schedule from X to 0; ``normalize`` is VecNormalize; ``noise_std`` is Gaussian action noise.
ZOO_SOURCE = (
    "DLR-RM/rl-baselines3-zoo@22e3ff2450fd92033f7f032915e1f64894a09584 "
    "hyperparams/{dqn,ppo,a2c,ddpg,td3,sac}.yml (Rainbow: SB3's DQN with dqn.yml)"
)
_DQN_CARTPOLE = {
    "n_timesteps": 50_000, "learning_rate": 2.3e-3, "batch_size": 64, "buffer_size": 100_000,
    "learning_starts": 1000, "gamma": 0.99, "target_update_interval": 10, "train_freq": 256,
    "gradient_steps": 128, "exploration_fraction": 0.16, "exploration_final_eps": 0.04,
    "policy_kwargs": {"net_arch": [256, 256]},
}  # fmt: skip
_DQN_ACROBOT = {
    "n_timesteps": 100_000, "learning_rate": 6.3e-4, "batch_size": 128, "buffer_size": 50_000,
    "learning_starts": 0, "gamma": 0.99, "target_update_interval": 250, "train_freq": 4, "gradient_steps": -1,
    "exploration_fraction": 0.12, "exploration_final_eps": 0.1, "policy_kwargs": {"net_arch": [256, 256]},
}  # fmt: skip
_DETERMINISTIC_PENDULUM = {
    "n_timesteps": 20_000, "gamma": 0.98, "buffer_size": 200_000, "learning_starts": 10_000, "noise_std": 0.1,
    "gradient_steps": 1, "train_freq": 1, "learning_rate": 1e-3, "policy_kwargs": {"net_arch": [400, 300]},
}  # fmt: skip
ZOO: dict[tuple[str, str], dict] = {
    ("dqn", "CartPole-v1"): _DQN_CARTPOLE,
    ("rainbow", "CartPole-v1"): _DQN_CARTPOLE,
    ("dqn", "Acrobot-v1"): _DQN_ACROBOT,
    ("rainbow", "Acrobot-v1"): _DQN_ACROBOT,
    ("ppo", "CartPole-v1"): {
        "n_envs": 8, "n_timesteps": 100_000, "n_steps": 32, "batch_size": 256, "gae_lambda": 0.8, "gamma": 0.98,
        "n_epochs": 20, "ent_coef": 0.0, "learning_rate": "lin_0.001", "clip_range": "lin_0.2",
    },
    ("ppo", "Acrobot-v1"): {
        "normalize": True, "n_envs": 16, "n_timesteps": 1_000_000, "n_steps": 256, "gae_lambda": 0.94,
        "gamma": 0.99, "n_epochs": 4, "ent_coef": 0.0,
    },
    ("ppo", "Pendulum-v1"): {
        "n_envs": 4, "n_timesteps": 100_000, "n_steps": 1024, "gae_lambda": 0.95, "gamma": 0.9, "n_epochs": 10,
        "ent_coef": 0.0, "learning_rate": 1e-3, "clip_range": 0.2, "use_sde": True, "sde_sample_freq": 4,
    },
    ("a2c", "CartPole-v1"): {"n_envs": 8, "n_timesteps": 500_000, "ent_coef": 0.0},
    ("a2c", "Acrobot-v1"): {"normalize": True, "n_envs": 16, "n_timesteps": 500_000, "ent_coef": 0.0},
    ("ddpg", "Pendulum-v1"): _DETERMINISTIC_PENDULUM,
    ("td3", "Pendulum-v1"): _DETERMINISTIC_PENDULUM,
    ("sac", "Pendulum-v1"): {"n_timesteps": 20_000, "learning_rate": 1e-3},
}  # fmt: skip
SB3_CLASS = {"dqn": "DQN", "rainbow": "DQN", "ppo": "PPO", "a2c": "A2C", "ddpg": "DDPG", "td3": "TD3", "sac": "SAC"}
RUNS = [("rlkit", "torch"), ("rlkit", "tf"), ("sb3", "torch")]
#: ``--libraries`` names of the three runs.
LIBRARY_NAMES = {"rlkit-torch": ("rlkit", "torch"), "rlkit-tf": ("rlkit", "tf"), "sb3": ("sb3", "torch")}
#: The SB3 algorithm whose run an rlkit algorithm without an SB3 counterpart is compared with.
SB3_STAND_IN = {"rainbow": "dqn"}


class Curve:
    """The evaluations of one run: ``[step, wall s, CPU s, mean return]`` rows, clocks started at creation."""

    def __init__(self, env_id: str, seed: int, eval_every: int) -> None:
        self.env_id, self.seed, self.eval_every = env_id, seed, eval_every
        self.next_step, self.points = eval_every, []
        self.wall0, self.cpu0 = time.perf_counter(), time.process_time()

    def record(self, step: int, mean_return: float) -> None:
        self.points.append(
            [int(step), time.perf_counter() - self.wall0, time.process_time() - self.cpu0, float(mean_return)]
        )

    def evaluate(self, policy: Callable[[np.ndarray], np.ndarray], step: int) -> None:
        """rlkit's evaluation, with the episodes rlkit's own schedule would run at ``step``."""
        while self.next_step <= step:
            self.next_step += self.eval_every
        returns = play_episodes(policy, self.env_id, EVAL_EPISODES, seed=eval_seed(self.seed, step))
        self.record(step, float(returns.mean()))


class _Recorder(Callback):
    """rlkit side: record each of rlkit's own evaluations (same function, episodes and schedule) on the curve."""

    def __init__(self, curve: Curve) -> None:
        self.curve = curve

    def on_evaluation(self, run, mean_return: float) -> None:
        self.curve.record(run.step, mean_return)


def run_rlkit(
    algo: str, env_id: str, framework: str, seed: int, eval_every: int, max_steps: int | None
) -> tuple[Curve, int]:
    """rlkit's default call on ``env_id``: its own default budget (``max_steps`` instead, for smoke tests)."""
    curve = Curve(env_id, seed, eval_every)
    result = rlkit.train(
        algo, env=env_id, framework=framework, seed=seed, total_steps=max_steps, progress=False,
        eval_every=eval_every, eval_episodes=EVAL_EPISODES, callbacks=[_Recorder(curve)],
    )  # fmt: skip
    return curve, result.steps


def _zoo_value(value):
    """A zoo setting as SB3 takes it: "lin_X" becomes the linear schedule X * progress_remaining."""
    if isinstance(value, str) and value.startswith("lin_"):
        start = float(value[4:])
        return lambda progress_remaining: progress_remaining * start
    return value


def run_sb3(
    algo: str, env_id: str, seed: int, eval_every: int, max_steps: int | None, overrides: dict | None = None
) -> tuple[Curve, int]:
    """SB3 with the zoo's settings for ``(algo, env_id)`` (``overrides`` replace some: a probe's), the zoo's
    budget (or ``max_steps`` when smaller)."""
    import stable_baselines3
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.noise import NormalActionNoise
    from stable_baselines3.common.vec_env import VecNormalize

    curve = Curve(env_id, seed, eval_every)
    settings = dict(ZOO[(algo, env_id)]) | (overrides or {})
    budget, n_envs = settings.pop("n_timesteps"), settings.pop("n_envs", 1)
    if max_steps is not None:
        budget = min(budget, max_steps)
    normalize, noise_std = settings.pop("normalize", False), settings.pop("noise_std", None)
    envs = make_vec_env(env_id, n_envs=n_envs, seed=seed)
    if normalize:  # the zoo passes the algorithm's gamma to VecNormalize
        envs = VecNormalize(envs, gamma=settings.get("gamma", 0.99))
    kwargs = {name: _zoo_value(value) for name, value in settings.items()}
    if noise_std is not None:
        actions = envs.action_space.shape[0]
        kwargs["action_noise"] = NormalActionNoise(np.zeros(actions), noise_std * np.ones(actions))
    model = getattr(stable_baselines3, SB3_CLASS[algo])("MlpPolicy", envs, seed=seed, device="cpu", **kwargs)

    def policy(obs: np.ndarray) -> np.ndarray:
        obs = envs.normalize_obs(obs) if normalize else obs  # the zoo evaluates with the training statistics
        return model.predict(obs, deterministic=True)[0]

    class Evaluate(BaseCallback):
        def _on_step(self) -> bool:
            if self.num_timesteps >= curve.next_step:
                curve.evaluate(policy, self.num_timesteps)
            return True

    model.learn(total_timesteps=budget, callback=Evaluate())
    if not curve.points or curve.points[-1][0] != model.num_timesteps:
        curve.evaluate(policy, model.num_timesteps)  # rlkit evaluates after its last step too
    return curve, int(model.num_timesteps)


def _init_worker() -> None:
    """One thread per run, frameworks imported before any clock starts.

    ``torch._dynamo`` too: building a ``torch.optim`` optimizer imports it (1.4 s of CPU, once per process), which
    SB3 does and rlkit's learners no longer do (``rlkit/algos/torch_adam.py``); imported here, that one-time cost
    falls on no run, not on whichever of a worker's runs happens to build the first optimizer.
    """
    import stable_baselines3  # noqa: F401
    import tensorflow  # noqa: F401
    import torch
    import torch._dynamo  # noqa: F401

    torch.set_num_threads(1)


def run_seed(task: tuple[str, str, int, int, int | None, list[tuple[str, str]]]) -> list[dict]:
    """The runs of one (algo, env, seed) (all three unless ``--libraries`` chose fewer), one after another in
    this worker; the order rotates with the seed so that no library always runs first."""
    algo, env_id, seed, eval_every, max_steps, chosen = task
    order = [run for run in RUNS[seed % 3 :] + RUNS[: seed % 3] if run in chosen]
    records = []
    for library, framework in order:
        load_before = os.getloadavg()[0]
        if library == "rlkit":
            curve, steps = run_rlkit(algo, env_id, framework, seed, eval_every, max_steps)
        else:
            curve, steps = run_sb3(algo, env_id, seed, eval_every, max_steps)
        records.append(_record(algo, env_id, library, framework, seed, curve, steps, load_before))
    return records


def _record(algo, env_id, library, framework, seed, curve: Curve, steps: int, load_before: float) -> dict:
    threshold = solve_threshold(env_id)
    solved = next((p for p in curve.points if p[3] >= threshold), None)
    return {
        "algo": algo, "env": env_id, "library": library, "framework": framework, "seed": seed, "steps": steps,
        "wall_s": curve.points[-1][1], "cpu_s": curve.points[-1][2], "final_return": curve.points[-1][3],
        "solved_at_step": None if solved is None else solved[0],
        "solved_wall_s": None if solved is None else solved[1],
        "solved_cpu_s": None if solved is None else solved[2],
        "load_before": load_before, "load_after": os.getloadavg()[0], "finished": now(), "machine": machine(),
        "curve": curve.points,
    }  # fmt: skip


# ------------------------------------------------------------------------------------------------ summaries


def median_with_unsolved(values: list[float | None]) -> float | None:
    """Median counting an unsolved run as slower than every solved one; None when half or more never solved."""
    ordered = sorted(np.inf if v is None else v for v in values)
    median = float(np.median(ordered))
    return None if not np.isfinite(median) else median


def summarize(runs: list[dict]) -> list[dict]:
    """Per (algo, env, library, framework): final-return IQM with its CI, solved count, medians of time and
    steps to solve, and (all seeds solved) the IQM of CPU time to solve with its CI; then the SB3/rlkit ratios."""
    groups: dict[tuple, list[dict]] = {}
    for run in runs:
        groups.setdefault((run["algo"], run["env"], run["library"], run["framework"]), []).append(run)
    rows = []
    for (algo, env_id, library, framework), group in sorted(groups.items()):
        final = np.array([r["final_return"] for r in group])
        row = {
            "algo": algo, "env": env_id, "library": library, "framework": framework, "seeds": len(group),
            "solved": sum(r["solved_at_step"] is not None for r in group),
            "final_return_iqm_ci": iqm_ci(final),
            "median_steps_to_solve": median_with_unsolved([r["solved_at_step"] for r in group]),
            "median_cpu_s_to_solve": median_with_unsolved([r["solved_cpu_s"] for r in group]),
            "median_wall_s_to_solve": median_with_unsolved([r["solved_wall_s"] for r in group]),
            "median_cpu_s_total": float(np.median([r["cpu_s"] for r in group])),
            "median_wall_s_total": float(np.median([r["wall_s"] for r in group])),
            "budget_steps": int(max(r["steps"] for r in group)),
        }  # fmt: skip
        if row["solved"] == len(group):
            row["cpu_s_to_solve_iqm_ci"] = iqm_ci(np.array([r["solved_cpu_s"] for r in group]))
        rows.append(row)
    sb3_rows = {(r["algo"], r["env"]): r for r in rows if r["library"] == "sb3"}
    for row in rows:  # SB3's median over rlkit's: above 1 means rlkit is faster
        sb3 = sb3_rows.get((row["algo"], row["env"]))
        for measure in ("cpu_s_to_solve", "wall_s_to_solve", "steps_to_solve", "cpu_s_total", "wall_s_total"):
            mine, theirs = row[f"median_{measure}"], None if sb3 is None else sb3[f"median_{measure}"]
            row[f"sb3_over_this_{measure}"] = None if mine is None or theirs is None else theirs / mine
    return rows


def markdown_table(summary: list[dict]) -> str:
    """The summary as the Markdown table of ``benchmarks/RESULTS.md``, pairs in the order of :data:`PAIRS`."""
    label = {("rlkit", "torch"): "rlkit torch", ("rlkit", "tf"): "rlkit TF", ("sb3", "torch"): "SB3"}

    def number(value, spec: str) -> str:
        return "-" if value is None else format(value, spec)

    def place(row: dict) -> tuple[int, int]:
        return PAIRS.index((row["algo"], row["env"])), RUNS.index((row["library"], row["framework"]))

    lines = [
        "| pair | run | solved | median steps to solve | median CPU s to solve | median wall s to solve "
        "| final return IQM [95% CI] | budget steps | CPU s whole run | SB3 / this, CPU s to solve |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in sorted(summary, key=place):
        point, low, high = row["final_return_iqm_ci"]
        sb3 = "" if row["library"] == "sb3" else number(row["sb3_over_this_cpu_s_to_solve"], ".2f")
        stand_in = " (its DQN run)" if row["library"] == "sb3" and row["algo"] in SB3_STAND_IN else ""
        lines.append(
            f"| {row['algo'].upper()}, {row['env']} | {label[row['library'], row['framework']]}{stand_in} "
            f"| {row['solved']}/{row['seeds']} | {number(row['median_steps_to_solve'], ',.0f')} "
            f"| {number(row['median_cpu_s_to_solve'], '.1f')} | {number(row['median_wall_s_to_solve'], '.1f')} "
            f"| {point:.0f} [{low:.0f}, {high:.0f}] | {row['budget_steps']:,} | {row['median_cpu_s_total']:.1f} "
            f"| {sb3} |"
        )
    return "\n".join(lines)


def readme_table(summary: list[dict]) -> str:
    """The short table of the README: per pair and run, seeds solved, median steps and CPU s to solve."""
    cells: dict[tuple, dict[tuple, str]] = {}
    for row in summary:
        steps, cpu = row["median_steps_to_solve"], row["median_cpu_s_to_solve"]
        text = f"{row['solved']}/{row['seeds']}" + ("" if cpu is None else f", {steps:,.0f} steps, {cpu:.1f} s")
        cells.setdefault((row["algo"], row["env"]), {})[row["library"], row["framework"]] = text
    lines = ["| algorithm, task | rlkit torch | rlkit TF | SB3, RL-Zoo settings |", "|---|---|---|---|"]
    for algo, env_id in PAIRS:
        if (algo, env_id) in cells and all(run in cells[algo, env_id] for run in RUNS):
            name = f"{algo.upper()}, {env_id} ({solve_threshold(env_id):g})"
            lines.append(f"| {name} | " + " | ".join(cells[algo, env_id][run] for run in RUNS) + " |")
    return "\n".join(lines)


def steps_table(runs: list[dict]) -> str:
    """Steps to solve over every seed ``runs`` hold (several files' runs may be joined): per pair, the seeds,
    each run's median steps to its first solving evaluation (an unsolved run counted as slower than every
    solved one) and how many final returns ended below the threshold. Issue 33's sample-efficiency measure, for
    which five seeds are too few; steps do not depend on the machine's speed, so sittings may be joined. Rainbow
    is left out: its SB3 row would be a copy of DQN's (:func:`with_stand_ins`), not a zoo setting of its own."""
    summary = summarize(runs)
    cells: dict[tuple, dict[tuple, str]] = {}
    for row in summary:
        steps = "never" if row["median_steps_to_solve"] is None else f"{row['median_steps_to_solve']:,.0f}"
        below = sum(
            r["final_return"] < solve_threshold(row["env"])
            for r in runs
            if (r["algo"], r["env"], r["library"], r["framework"])
            == (row["algo"], row["env"], row["library"], row["framework"])
        )
        cells.setdefault((row["algo"], row["env"]), {})[row["library"], row["framework"]] = (
            f"{steps} ({row['seeds']} seed{'s' * (row['seeds'] != 1)}, {below} ended below)"
        )
    lines = ["| algorithm, task | rlkit torch | rlkit TF | SB3, RL-Zoo settings |", "|---|---|---|---|"]
    for algo, env_id in PAIRS:
        if algo in SB3_STAND_IN or (algo, env_id) not in cells:
            continue
        name = f"{algo.upper()}, {env_id}"
        lines.append(f"| {name} | " + " | ".join(cells[algo, env_id].get(run, "-") for run in RUNS) + " |")
    return "\n".join(lines)


def _versions() -> dict[str, str | None]:
    return {"rlkit": rlkit.__version__, **hardware.versions(extra=("stable-baselines3",))}


def machine() -> str:
    return f"{platform.system()} {platform.machine()}, {os.cpu_count()} logical CPUs ({hardware.cpu_model()})"


def machines(commands: list[dict]) -> str:
    """The machines the file's sittings ran on, in order, once each: a file appended to on another machine says
    so (each command and each run also names its own)."""
    named = [command.get("machine", "a machine not recorded") for command in commands]
    return "; ".join(dict.fromkeys(named)) or machine()


def portable(arguments: list[str]) -> list[str]:
    """The command's arguments as the results file keeps them: a path inside the repository relative to it,
    one outside it by its file name only (the file travels with the code; this machine's folders do not)."""
    root = Path(__file__).resolve().parents[2]
    kept = []
    for argument in arguments:
        path = Path(argument)
        if path.is_absolute():
            argument = str(path.relative_to(root)) if path.is_relative_to(root) else path.name
        kept.append(argument)
    return kept


#: What a measurement runs: the library, the course's package and the benchmark scripts, but not the results
#: they write (a pass that adds runs to a results file must not mark the next pass's stamp).
MEASURED_PATHS = ("rlkit", "course", "benchmarks", ":(exclude)benchmarks/results")


def commit(root: Path | None = None) -> str | None:
    """The git commit of the code being measured (the repository at ``root``, default this one), with
    "+changes" when the work tree differs from it in :data:`MEASURED_PATHS` (an edit, a new file), if known."""
    root = root or Path(__file__).resolve().parents[2]
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True)
        status = ["git", "status", "--porcelain", "--", *MEASURED_PATHS]
        dirty = subprocess.run(status, cwd=root, capture_output=True, text=True)
    except OSError:
        return None
    if head.returncode != 0:
        return None
    return head.stdout.strip() + ("+changes" if dirty.stdout.strip() else "")


def now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", nargs="+", default=[f"{a}:{e}" for a, e in PAIRS], metavar="ALGO:ENV")
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2, 3, 4])
    parser.add_argument(
        "--workers", type=int, default=1, help="processes in the pool (each runs one seed's three runs)"
    )
    parser.add_argument("--max-steps", type=int, default=None, help="every run's budget (smoke tests only)")
    parser.add_argument("--eval-every", type=int, default=None, help="one schedule for every pair (smoke tests only)")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--append", action="store_true", help="keep the runs already in --out, skip those pairs/seeds")
    parser.add_argument("--summarize", action="store_true", help="only recompute the summary of --out")
    parser.add_argument(
        "--table",
        choices=["results", "readme", "steps"],
        help="print --out's summary as a table: RESULTS.md's, the README's, or steps to solve (with --also)",
    )
    parser.add_argument(
        "--also", nargs="+", type=Path, default=[], metavar="FILE", help="--table steps: join these files' runs"
    )
    parser.add_argument(
        "--libraries", nargs="+", default=list(LIBRARY_NAMES), choices=list(LIBRARY_NAMES), help="runs to make"
    )
    parser.add_argument("--redo", action="store_true", help="with --append: replace the chosen libraries' runs")
    args = parser.parse_args()
    if args.redo and not args.append:
        parser.error("--redo replaces runs kept by --append; give both")
    pairs = []
    for text in args.pairs:
        algo, _, env_id = text.partition(":")
        if (algo, env_id) not in ZOO:
            parser.error(f"--pairs takes ALGO:ENV among {', '.join(f'{a}:{e}' for a, e in PAIRS)}; got {text!r}")
        pairs.append((algo, env_id))

    if args.also and args.table != "steps":
        parser.error("--also joins other files' runs for --table steps only")
    if args.table == "steps":
        files = [args.out, *args.also]
        print(steps_table([run for path in files for run in json.loads(path.read_text())["runs"]]))
        return
    if args.table:
        table = {"results": markdown_table, "readme": readme_table}[args.table]
        print(table(summarize(json.loads(args.out.read_text())["runs"])))
        return
    previous = json.loads(args.out.read_text()) if (args.append or args.summarize) and args.out.exists() else {}
    commands = previous.get("commands", [])
    chosen = [LIBRARY_NAMES[name] for name in args.libraries]
    schedule = {algo: args.eval_every or every for algo, every in EVAL_EVERY.items()}
    runs, todo = plan(previous.get("runs", []), pairs, args.seeds, chosen, redo=args.redo)
    tasks = [(algo, env_id, seed, schedule[algo], args.max_steps, which) for algo, env_id, seed, which in todo]
    if not args.summarize:
        commands.append(
            {"command": "python -m benchmarks.comparisons.compare_sb3 " + " ".join(portable(sys.argv[1:])),
             "started": now(), "rlkit_commit": commit(), "machine": machine(),
             "load_average_at_start": os.getloadavg()}
        )  # fmt: skip

    def write() -> None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        measured = f"{commands[0]['started'] if commands else 'unknown'} to " + now()
        document = {
            "measured": previous["measured"] if args.summarize else measured, "grid": PAIRS,
            "machine": machines(commands), "versions": _versions(), "commands": commands, "zoo_source": ZOO_SOURCE,
            "thresholds": {env: solve_threshold(env) for _, env in PAIRS},
            "eval_every": schedule, "eval_episodes": EVAL_EPISODES,
            "max_steps": args.max_steps, "summary": summarize(runs) if runs else [], "runs": runs,
        }  # fmt: skip
        atomic.write_text(args.out, json.dumps(document, indent=1) + "\n")  # a kill keeps the last whole file

    if tasks and not args.summarize:
        context = multiprocessing.get_context("spawn")
        with context.Pool(args.workers, initializer=_init_worker) as pool:
            for records in pool.imap_unordered(run_seed, tasks):
                runs.extend(records)
                for r in records:
                    print(
                        f"{r['algo']:>7} {r['env']:<12} {r['library']:>5} {r['framework']:<5} seed {r['seed']}: "
                        f"final {r['final_return']:8.1f}, solved at {r['solved_at_step']} steps / "
                        f"{r['solved_cpu_s']} CPU s; {r['steps']:,} steps in {r['wall_s']:.1f} s wall, "
                        f"{r['cpu_s']:.1f} s CPU",
                        flush=True,
                    )
                write()
    runs = with_stand_ins(runs)
    write()


def _key(run: dict) -> tuple:
    return run["algo"], run["env"], run["seed"], run["library"], run["framework"]


def plan(
    runs: list[dict], pairs: list[tuple[str, str]], seeds: list[int], chosen: list[tuple[str, str]], redo: bool
) -> tuple[list[dict], list[tuple]]:
    """The runs to keep and the work left: ``(algo, env, seed, [(library, framework), ...])`` for every pair and
    seed with a chosen run not yet in ``runs`` (``redo`` drops the chosen runs of those pairs and seeds first).
    A pair without an SB3 counterpart gets no SB3 work: :func:`with_stand_ins` copies its stand-in's run."""
    if redo:
        redone = {(algo, env_id, seed, *run) for algo, env_id in pairs for seed in seeds for run in chosen}
        runs = [r for r in runs if _key(r) not in redone]
    done = {_key(r) for r in runs}
    todo = []
    for algo, env_id in pairs:
        for seed in seeds:
            left = [run for run in chosen if (algo, env_id, seed, *run) not in done]
            left = [run for run in left if not (algo in SB3_STAND_IN and run[0] == "sb3")]
            if left:
                todo.append((algo, env_id, seed, left))
    return runs, todo


def with_stand_ins(runs: list[dict]) -> list[dict]:
    """``runs`` with, for each pair without an SB3 counterpart (Rainbow), a copy of its stand-in's SB3 run of the
    same task and seed, marked as such. Old copies are dropped first, so a re-measured stand-in run replaces
    its copy too and no copy is ever made twice; a seed whose stand-in run is not measured gets none."""
    runs = [r for r in runs if "same_run_as" not in r]
    copies = [
        {**r, "algo": algo, "same_run_as": stand_in}
        for algo, stand_in in SB3_STAND_IN.items()
        for r in runs
        if r["library"] == "sb3" and r["algo"] == stand_in and (algo, r["env"]) in PAIRS
    ]
    return runs + copies


if __name__ == "__main__":
    main()
