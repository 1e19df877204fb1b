"""n-step transitions against a slow reference built from whole episodes, with terminations and truncations."""

from __future__ import annotations

import numpy as np
import pytest

from rlkit.errors import RlkitError
from rlkit.nstep import NStepFolder


def reference(episodes: list[dict], n: int, gamma: float) -> dict:
    """Every n-step transition of whole recorded episodes, computed directly, keyed by its first observation."""
    out = {}
    for episode in episodes:
        rewards, length = episode["rewards"], len(episode["rewards"])
        for t in range(length):
            k = min(n, length - t)
            ret = sum(gamma**i * rewards[t + i] for i in range(k))
            at_end = t + k == length
            terminated = episode["terminated"] and at_end
            next_obs = episode["next_obs"][t + k - 1]
            out[episode["obs"][t]] = (episode["actions"][t], ret, next_obs, terminated, gamma**k)
    return out


def simulate(n: int, gamma: float, num_envs: int = 3, steps: int = 200, seed: int = 0):
    """Random vector-env steps (observation = a step counter) with ends, next-step autoreset flags and both."""
    rng = np.random.default_rng(seed)
    folder = NStepFolder(n, gamma, num_envs)
    emitted, episodes = {}, []
    current = [{"obs": [], "actions": [], "rewards": [], "next_obs": []} for _ in range(num_envs)]
    autoreset = np.zeros(num_envs, dtype=bool)
    for counter in range(steps):
        obs = counter + np.arange(num_envs) * 10_000  # unique per step and env: a key for the comparison
        next_obs = obs + 1
        actions = rng.integers(0, 4, num_envs)
        rewards = np.round(rng.normal(size=num_envs), 3)
        ends = rng.random(num_envs)
        terminated, truncated = ends < 0.05, (ends >= 0.05) & (ends < 0.1)
        valid = ~autoreset
        batch = folder.step(obs[:, None], actions, rewards, next_obs[:, None], terminated, truncated, valid)
        if batch is not None:
            for row in range(len(batch["rewards"])):
                emitted[int(batch["obs"][row, 0])] = (
                    int(batch["actions"][row]), float(batch["rewards"][row]), int(batch["next_obs"][row, 0]),
                    bool(batch["terminated"][row]), float(batch["discounts"][row]),
                )  # fmt: skip
        for env in np.flatnonzero(valid):
            episode = current[env]
            for key, value in (("obs", obs), ("actions", actions), ("rewards", rewards), ("next_obs", next_obs)):
                episode[key].append(int(value[env]) if key != "rewards" else float(value[env]))
            if terminated[env] or truncated[env]:
                episodes.append({**episode, "terminated": bool(terminated[env])})
                current[env] = {"obs": [], "actions": [], "rewards": [], "next_obs": []}
        autoreset = terminated | truncated
    # episodes still running at the end: their full windows were emitted, the rest waits in the folder
    for env, episode in enumerate(current):
        length = len(episode["rewards"])
        for t in range(length - n + 1):
            emitted.pop(episode["obs"][t])
        assert len(folder.pending[env]) == min(length, n - 1)
    return emitted, episodes


@pytest.mark.parametrize("n", [1, 3, 5])
def test_matches_the_reference_at_terminations_and_truncations(n):
    emitted, episodes = simulate(n, gamma=0.9)
    expected = reference(episodes, n, gamma=0.9)
    assert len(episodes) > 20 and emitted.keys() == expected.keys()
    for start, (action, ret, next_obs, terminated, discount) in expected.items():
        got = emitted[start]
        assert got[0] == action and got[2] == next_obs and got[3] == terminated, (start, got, expected[start])
        assert got[1] == pytest.approx(ret, abs=1e-5) and got[4] == pytest.approx(discount, rel=1e-6)


def test_one_step_is_the_plain_transition():
    folder = NStepFolder(1, 0.99, 2)
    batch = folder.step(
        np.zeros((2, 3)), np.array([0, 1]), np.array([1.0, 2.0]), np.ones((2, 3)),
        np.array([True, False]), np.array([False, False]), np.array([True, True]),
    )  # fmt: skip
    np.testing.assert_allclose(batch["rewards"], [1.0, 2.0])
    np.testing.assert_allclose(batch["discounts"], [0.99, 0.99])
    np.testing.assert_array_equal(batch["terminated"], [1.0, 0.0])


def test_a_bad_horizon_is_refused():
    with pytest.raises(RlkitError, match="positive int"):
        NStepFolder(0, 0.99, 1)
