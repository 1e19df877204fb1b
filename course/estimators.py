"""Policy-gradient estimators, in numpy, for the REINFORCE chapter.

A linear softmax policy ``pi(a|s) = softmax(s @ W)`` has a closed-form score
function, ``grad_W log pi(a|s) = outer(s, onehot(a) - pi(.|s))``, so the whole
REINFORCE family fits in a few lines of numpy and its gradient estimates can be
sampled thousands of times to measure their mean and variance.

The objective is the discounted return from the start, ``J = E[sum_t gamma^t r_t]``.
Its gradient is ``E[sum_t grad log pi(a_t|s_t) Psi_t]`` for each of the three
textbook weights (:data:`ESTIMATORS`), so each of them, computed from one episode, is
an unbiased estimate of ``grad J``:

* ``"return"``: ``Psi_t = G_0``, the episode's whole discounted return
  (Williams' REINFORCE);
* ``"reward_to_go"``: ``Psi_t = gamma^t G_t`` with
  ``G_t = sum_{k >= t} gamma^(k - t) r_k``: the rewards before t do not depend on
  a_t, and the ``gamma^t`` turns the return from t into its share of the return from
  0;
* ``"baseline"``: ``Psi_t = gamma^t (G_t - b_t)``, where ``b_t`` is the mean ``G_t``
  of the *other* episodes of the batch still running at step t (leave-one-out:
  independent of this episode, so it adds no bias).

Two shortcuts found in most code are kept, as :data:`VARIANTS`, to measure what they
estimate instead:

* ``"reward_to_go_no_gamma_t"``: ``Psi_t = G_t``. Its mean is
  ``sum_t E[grad log pi(a_t|s_t) G_t]``, which is not ``grad J`` (late steps count as
  much as early ones); Nota and Thomas (2020) show it is in general not the gradient
  of any objective.
* ``"baseline_batch_mean"``: ``Psi_t = gamma^t (G_t - b_t)`` with ``b_t`` the mean
  over the whole batch, the episode itself included. Then
  ``G_t - b_t = (1 - 1/n_t) (G_t - b_t^loo)`` with ``n_t`` the episodes running at
  step t, so its mean is ``grad J`` shrunk by ``1/n_t``: a bias of order 1/N.

:class:`RandomMDP` is a small tabular problem whose ``grad J`` (and the shortcut's
target) can be computed exactly, which lets :func:`measure_bias` compare each
estimator's sample mean with the truth.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rlkit.envs import make_vec_env

ESTIMATORS = ("return", "reward_to_go", "baseline")
VARIANTS = ("reward_to_go_no_gamma_t", "baseline_batch_mean")


@dataclass
class Episode:
    obs: np.ndarray
    actions: np.ndarray
    rewards: np.ndarray


class LinearSoftmaxPolicy:
    """``pi(a|s) = softmax(s @ W)`` with a closed-form score function."""

    def __init__(
        self, obs_dim: int, n_actions: int, weights: np.ndarray | None = None
    ) -> None:
        self.weights = (
            np.zeros((obs_dim, n_actions))
            if weights is None
            else np.asarray(weights, dtype=np.float64)
        )

    def probs(self, obs: np.ndarray) -> np.ndarray:
        logits = obs @ self.weights
        logits -= logits.max(axis=-1, keepdims=True)
        e = np.exp(logits)
        return e / e.sum(axis=-1, keepdims=True)

    def sample(self, obs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        cumulative = self.probs(obs).cumsum(axis=-1)
        return (
            (rng.random((len(obs), 1)) > cumulative)
            .sum(axis=-1)
            .clip(max=self.weights.shape[1] - 1)
        )

    def score(self, obs: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """grad_W log pi(a|s) for each row: shape (T, obs_dim, n_actions)."""
        onehot = np.eye(self.weights.shape[1])[actions]
        return obs[:, :, None] * (onehot - self.probs(obs))[:, None, :]


def collect_episodes(
    policy: LinearSoftmaxPolicy, env_id: str, episodes: int, seed: int
) -> list[Episode]:
    """Run ``episodes`` complete episodes side by side in a vector env
    (one per sub-environment)."""
    envs = make_vec_env(env_id, episodes, seed=seed)
    rng = np.random.default_rng(seed)
    obs, _ = envs.reset(seed=seed)
    running = np.ones(episodes, dtype=bool)
    trace_obs, trace_actions, trace_rewards, trace_running = [], [], [], []
    while running.any():
        actions = policy.sample(obs, rng)
        next_obs, rewards, terminated, truncated, _ = envs.step(actions)
        trace_obs.append(obs)
        trace_actions.append(actions)
        trace_rewards.append(rewards)
        trace_running.append(running.copy())
        running &= ~(terminated | truncated)
        obs = next_obs
    envs.close()
    alive = np.array(trace_running)
    return [
        Episode(np.array(trace_obs)[alive[:, i], i],
                np.array(trace_actions)[alive[:, i], i],
                np.array(trace_rewards)[alive[:, i], i])
        for i in range(episodes)
    ]  # fmt: skip


def rewards_to_go(rewards: np.ndarray, gamma: float) -> np.ndarray:
    """G_t = sum_{k >= t} gamma^(k - t) r_k for one episode."""
    returns = np.zeros(len(rewards))
    running = 0.0
    for t in reversed(range(len(rewards))):
        running = rewards[t] + gamma * running
        returns[t] = running
    return returns


def step_weights(
    to_go: np.ndarray,
    alive: np.ndarray,
    estimator: str,
    gamma: float,
    batch_size: int,
) -> np.ndarray:
    """Psi_t of every step of every episode, shape (E, T), from the padded
    rewards-to-go G_t (0 after the end).

    Baselines use the episodes of the same batch: consecutive groups of
    ``batch_size`` episodes.
    """
    episodes, steps = to_go.shape
    discount = gamma ** np.arange(steps)
    if estimator == "return":
        return np.where(alive, to_go[:, :1], 0.0)
    if estimator == "reward_to_go":
        return discount * to_go
    if estimator == "reward_to_go_no_gamma_t":
        return to_go
    if episodes % batch_size:
        raise ValueError(
            f"{episodes} episodes do not split into batches of {batch_size}"
        )
    g, running = (
        to_go.reshape(-1, batch_size, steps),
        alive.reshape(-1, batch_size, steps),
    )
    total, count = g.sum(axis=1, keepdims=True), running.sum(axis=1, keepdims=True)
    # leave one out: the other running episodes' mean G_t
    if estimator == "baseline":
        others = count - running
        baseline = np.where(others > 0, (total - g) / np.maximum(others, 1), 0.0)
    else:
        # "baseline_batch_mean": every running episode of the batch, this one
        # included
        baseline = total / np.maximum(count, 1)
    return (discount * np.where(running, g - baseline, 0.0)).reshape(episodes, steps)


def gradient_estimates(
    policy: LinearSoftmaxPolicy,
    episodes: list[Episode],
    estimator: str,
    gamma: float,
    batch_size: int | None = None,
) -> np.ndarray:
    """One flattened gradient estimate per episode, shape (episodes,
    obs_dim * n_actions).

    ``estimator`` is one of :data:`ESTIMATORS` or :data:`VARIANTS`; the baselines are
    computed within consecutive batches of ``batch_size`` episodes (default: all of
    them form one batch).
    """
    if estimator not in ESTIMATORS + VARIANTS:
        raise ValueError(
            f"estimator must be one of {ESTIMATORS + VARIANTS}, got {estimator!r}"
        )
    steps = max(len(e.rewards) for e in episodes)
    to_go, alive = (
        np.zeros((len(episodes), steps)),
        np.zeros((len(episodes), steps), dtype=bool),
    )
    for i, episode in enumerate(episodes):
        to_go[i, : len(episode.rewards)] = rewards_to_go(episode.rewards, gamma)
        alive[i, : len(episode.rewards)] = True
    weights = step_weights(
        to_go, alive, estimator, gamma, batch_size or len(episodes)
    )
    return np.array(
        [
            (policy.score(e.obs, e.actions) * w[: len(e.rewards), None, None])
            .sum(axis=0)
            .ravel()
            for e, w in zip(episodes, weights, strict=True)
        ]
    )


def relative_variance(estimates: np.ndarray) -> float:
    """Total variance of the estimates divided by the squared norm of their mean
    (scale-free)."""
    mean = estimates.mean(axis=0)
    return float(estimates.var(axis=0).sum() / (mean @ mean))


class RandomMDP:
    """A small random tabular MDP with a fixed horizon: exact gradients to compare
    the estimators with.

    States are fed to the policy as one-hot vectors, so a
    :class:`LinearSoftmaxPolicy` with ``obs_dim = n_states`` is a tabular softmax
    policy. Rewards are deterministic, ``R[s, a]``; every episode lasts ``horizon``
    steps.
    """

    def __init__(
        self,
        n_states: int = 5,
        n_actions: int = 2,
        horizon: int = 100,
        seed: int = 0,
    ) -> None:
        rng = np.random.default_rng(seed)
        self.n_states, self.n_actions, self.horizon = n_states, n_actions, horizon
        # P[s, a, s']
        self.transitions = rng.dirichlet(
            np.full(n_states, 0.5), size=(n_states, n_actions)
        )
        self.rewards = rng.normal(size=(n_states, n_actions))
        self.start = np.full(n_states, 1.0 / n_states)

    def sample_episodes(
        self, policy: LinearSoftmaxPolicy, episodes: int, seed: int
    ) -> list[Episode]:
        """``episodes`` independent episodes, sampled side by side."""
        rng = np.random.default_rng(seed)
        eye = np.eye(self.n_states)
        states = rng.choice(self.n_states, size=episodes, p=self.start)
        all_states, all_actions = [], []
        cumulative = self.transitions.cumsum(axis=-1)
        for _ in range(self.horizon):
            actions = policy.sample(eye[states], rng)
            all_states.append(states), all_actions.append(actions)
            u = rng.random((episodes, 1))
            states = (
                (u > cumulative[states, actions])
                .sum(axis=-1)
                .clip(max=self.n_states - 1)
            )
        s, a = np.array(all_states).T, np.array(all_actions).T
        return [
            Episode(eye[s[i]], a[i], self.rewards[s[i], a[i]])
            for i in range(episodes)
        ]

    def exact(
        self, policy: LinearSoftmaxPolicy, gamma: float
    ) -> dict[str, np.ndarray | float]:
        """``J``, ``grad J`` and ``sum_t E[grad log pi(a_t|s_t) G_t]``
        (the no-gamma^t target), exactly.

        Backward: ``Q_t(s, a) = R(s, a) + gamma sum_s' P(s'|s, a) V_{t+1}(s')``;
        forward: ``d_t``, the distribution of ``s_t``. Then
        ``E[grad log pi(a_t|s_t) G_t] = sum_s d_t(s) pi(.|s) (Q_t(s, .) - V_t(s))``
        (row s of the tabular gradient), and ``grad J`` weighs the term of step t by
        ``gamma^t``.
        """
        pi = policy.probs(np.eye(self.n_states))
        q = np.zeros((self.horizon, self.n_states, self.n_actions))
        next_value = np.zeros(self.n_states)
        for t in reversed(range(self.horizon)):
            q[t] = self.rewards + gamma * self.transitions @ next_value
            next_value = (pi * q[t]).sum(axis=-1)
        d, per_step = self.start.copy(), []
        for t in range(self.horizon):
            advantage = q[t] - (pi * q[t]).sum(axis=-1, keepdims=True)
            per_step.append(d[:, None] * pi * advantage)
            d = np.einsum("s,sa,sap->p", d, pi, self.transitions)
        per_step = np.array(per_step)
        discount = gamma ** np.arange(self.horizon)
        return {
            "objective": float(self.start @ next_value),
            "gradient": np.einsum("t,tsa->sa", discount, per_step).ravel(),
            "no_gamma_t": per_step.sum(axis=0).ravel(),
        }


def measure_bias(
    mdp: RandomMDP,
    policy: LinearSoftmaxPolicy,
    gamma: float = 0.99,
    episodes: int = 20_000,
    batch_size: int = 8,
    seed: int = 0,
) -> dict[str, dict]:
    """Each estimator's sample mean against ``grad J`` (and against what it truly
    estimates), exactly known.

    ``episodes`` are split into batches of ``batch_size`` (the baselines' batches).
    The standard error of each component is that of the mean of the per-batch means
    (episodes of a batch share their baseline, so they are not independent; batches
    are). ``z_truth`` and ``z_target`` are the largest over components of
    ``|mean - target| / standard error``, against ``grad J`` and against the
    estimator's own target: about 2-3 by chance for an unbiased estimator of that
    target (10 components). ``along_truth`` is the mean's projection on ``grad J`` in
    units of ``grad J`` (1 when unbiased), with its standard error.
    """
    exact = mdp.exact(policy, gamma)
    truth = exact["gradient"]
    targets = {
        "return": truth, "reward_to_go": truth, "baseline": truth,
        "reward_to_go_no_gamma_t": exact["no_gamma_t"],
        # fixed horizon: every episode runs to the end
        "baseline_batch_mean": (1 - 1 / batch_size) * truth,
    }  # fmt: skip
    sample = mdp.sample_episodes(policy, episodes, seed)
    results = {}
    for name in ESTIMATORS + VARIANTS:
        estimates = gradient_estimates(policy, sample, name, gamma, batch_size)
        batch_means = estimates.reshape(-1, batch_size, estimates.shape[1]).mean(
            axis=1
        )
        mean = batch_means.mean(axis=0)
        stderr = batch_means.std(axis=0, ddof=1) / np.sqrt(len(batch_means))
        # 1 for an unbiased estimator, on average
        along_truth = batch_means @ truth / (truth @ truth)
        results[name] = {
            "mean": mean,
            "stderr": stderr,
            "z_truth": float(np.max(np.abs(mean - truth) / stderr)),
            "z_target": float(np.max(np.abs(mean - targets[name]) / stderr)),
            "relative_error": float(
                np.linalg.norm(mean - truth) / np.linalg.norm(truth)
            ),
            "along_truth": float(along_truth.mean()),
            "along_truth_stderr": float(
                along_truth.std(ddof=1) / np.sqrt(len(along_truth))
            ),
            "relative_variance": relative_variance(estimates),
        }
    return {"truth": truth, "targets": targets, "estimators": results}


def reinforce(
    env_id: str = "CartPole-v1",
    estimator: str = "baseline",
    iterations: int = 60,
    episodes_per_iteration: int = 16,
    learning_rate: float = 0.01,
    gamma: float = 0.99,
    seed: int = 0,
) -> np.ndarray:
    """Train a linear softmax policy with REINFORCE; returns the mean episode return
    of every iteration."""
    probe = make_vec_env(env_id, 1)
    policy = LinearSoftmaxPolicy(
        probe.single_observation_space.shape[0], int(probe.single_action_space.n)
    )
    probe.close()
    history = []
    for iteration in range(iterations):
        episodes = collect_episodes(
            policy,
            env_id,
            episodes_per_iteration,
            seed=seed * 100_000 + iteration * 100,
        )
        history.append(np.mean([e.rewards.sum() for e in episodes]))
        gradient = gradient_estimates(policy, episodes, estimator, gamma).mean(
            axis=0
        )
        policy.weights += learning_rate * gradient.reshape(policy.weights.shape)
    return np.array(history)
