"""Experiment sweeps on Ray: every (setting, seed) of a grid as one Ray task, the results in one file.

A sweep is the embarrassingly parallel half of scaling: runs share nothing, so each is an ordinary
single-process :func:`rlkit.train` in a Ray task, placed on whichever node has a free CPU. Ray retries a
task whose process died (``max_retries``); a run that raises stops the sweep with its error, since a
results file missing some runs would read as if they had been done.
"""

from __future__ import annotations

import itertools
import json
import time
from pathlib import Path

from rlkit.distributed.cluster import connect
from rlkit.errors import RlkitError, is_count


def grid(values: dict[str, list]) -> list[dict]:
    """Every combination of the values of each setting, in order: ``{"a": [1, 2], "b": [3]}`` ->
    ``[{"a": 1, "b": 3}, {"a": 2, "b": 3}]`` (an empty grid is the one run with the defaults)."""
    for name, options in values.items():
        if not isinstance(options, list | tuple) or not options:
            raise RlkitError(f"a sweep's setting {name} needs a non-empty list of values, got {options!r}")
    names = list(values)
    return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*(values[n] for n in names))]


def run_one(algo: str, env: str, framework: str, seed: int, total_steps: int | None, setting: dict) -> dict:
    """One run of the sweep (the body of its Ray task): train, then what the results file keeps of it."""
    import ray

    from rlkit.api import train

    result = train(algo, env=env, framework=framework, seed=seed, total_steps=total_steps, progress=False,
                   **setting)  # fmt: skip
    return {
        "setting": setting,
        "seed": seed,
        "steps": result.steps,
        "final_eval_return": result.history.last("eval_return"),
        "solved_at_step": result.solved_at_step,
        "wall_time": result.wall_time,
        "node": ray.get_runtime_context().get_node_id(),
    }


def sweep(
    algo: str,
    settings: dict[str, list],
    seeds: list[int],
    env: str = "CartPole-v1",
    framework: str = "torch",
    total_steps: int | None = None,
    output: str | Path | None = None,
    ray_address: str | None = None,
    cpus_per_run: float = 1.0,
) -> dict:
    """Train ``algo`` for every combination of ``settings`` (name -> list of values) and every seed, each run a
    Ray task of ``cpus_per_run`` CPUs on this machine or the cluster at ``ray_address``; returns the sweep (its
    arguments and one record per run, in grid order) and writes it to ``output`` as JSON when given."""
    if not seeds or not all(is_count(seed, minimum=0) for seed in seeds):
        raise RlkitError(f"seeds must be a non-empty list of non-negative ints, got {seeds!r}")
    runs = grid(settings)
    ray = connect(ray_address, purpose="a sweep")
    task = ray.remote(num_cpus=cpus_per_run, scheduling_strategy="SPREAD")(run_one)
    start = time.perf_counter()
    refs = [task.remote(algo, env, framework, seed, total_steps, setting) for setting in runs for seed in seeds]
    records = ray.get(refs)
    results = {
        "algo": algo,
        "env": env,
        "framework": framework,
        "total_steps": total_steps,
        "settings": settings,
        "seeds": list(seeds),
        "cluster_cpus": ray.cluster_resources().get("CPU", 0.0),
        "wall_time": time.perf_counter() - start,
        "runs": records,
    }
    if output is not None:
        from rlkit.atomic import write_text

        write_text(output, json.dumps(results, indent=1))
    return results
