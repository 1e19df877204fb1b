"""The check the committed results files share: measured on today's defaults (with each run's own ``--set``
overrides, for the files of variants) and budgets."""

from __future__ import annotations

import dataclasses
import json

#: Settings added after some committed files were measured, each with the value that leaves a run as it was
#: (the adding commit's ``UNCHANGED_BY`` entry in test_freshness.py says how that was checked): a run recorded
#: before the field existed ran as one with it at that value. 9972ceb: gSDE, off. DDPG and TD3 ending on
#: their online actor (``final_actor``, tests/algorithms/test_final_actor.py: the runs agree up to their end).
#: ee959ae: A2C's optimiser, Adam (RMSprop's two settings unused with it).
ADDED_SETTINGS = {
    "use_sde": False, "sde_sample_freq": -1, "final_actor": "online",
    "optimizer": "adam", "rmsprop_alpha": 0.99, "rmsprop_eps": 1e-5,
}  # fmt: skip


def assert_measured_on_todays_defaults(runs: list[dict], file_name: str) -> None:
    """Each run's resolved settings equal the defaults its (algorithm, task) resolves to today with the run's
    overrides applied, and its budget the default budget (a rollout's worth of steps over it at most: a run
    ends on a whole rollout). A changed default makes the committed runs another algorithm's (or a variant
    of another), which the chapters would still show."""
    from rlkit.registry import algorithm

    for run in runs:
        entry = algorithm(run["algo"])
        config = dataclasses.replace(entry.config_class.for_env(run["env"]), **run["overrides"])
        today = json.loads(json.dumps(dataclasses.asdict(config)))
        then = {**ADDED_SETTINGS, **run["settings"]}
        changed = {name: (then.get(name), value) for name, value in today.items() if then.get(name) != value}
        assert not changed, f"{run['algo']} on {run['env']}: defaults changed since {file_name}, (then, now): {changed}"
        rollout = run["settings"]["num_envs"] * run["settings"].get("num_steps", 1)
        assert 0 <= run["budget"] - entry.budget(run["env"]) < rollout, (
            f"{run['algo']} on {run['env']}: the budget changed"
        )
