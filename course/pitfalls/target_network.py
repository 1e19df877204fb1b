"""Claims C05, C03, C36 and C14: how a target network is updated, copied and aliased, in both frameworks.

Each function builds a small DQN learner (:mod:`rlkit.algos.dqn`), does one thing to its online and target
networks, and reports what really happened to the numbers, so a chapter can assert on it:

* C05: a soft update written as ``target = tau * online + (1 - tau) * target`` inside a loop only rebinds
  a Python name; the network keeps its initial weights (:func:`rebinding_update_moves_target`).
* C03 and C36: what ``state_dict()``, ``load_state_dict``, ``copy.deepcopy``, Keras ``set_weights`` and
  ``trainable`` copy or share (:func:`torch_copy_semantics`, :func:`keras_copy_semantics`,
  :func:`deepcopy_costs`).
* C14: the TD loss on a fixed batch under different target updates (:func:`loss_trace`), and the lag of a
  Polyak or periodically copied target behind a moving signal (:func:`target_lag`).
"""

from __future__ import annotations

import copy
import importlib

import numpy as np

from rlkit.algos.dqn import DQNConfig
from rlkit.algos.dqn.agent import learner_class
from rlkit.buffers import ReplayBuffer
from rlkit.envs import EnvRunner, make_vec_env

OBS_DIM, N_ACTIONS = 4, 2  # CartPole's sizes: the learners here never see an environment unless asked


def still_target_config(**overrides) -> DQNConfig:
    """A config whose learner never moves its target by itself, so an experiment decides what moves it."""
    return DQNConfig(target_update="hard", target_update_every=10**9, **overrides)


def random_batch(rng: np.random.Generator, batch_size: int = 64) -> dict[str, np.ndarray]:
    """A batch that satisfies DQN's contract, with CartPole's sizes."""
    return {
        "obs": rng.normal(size=(batch_size, OBS_DIM)).astype(np.float32),
        "actions": rng.integers(0, N_ACTIONS, size=batch_size),
        "rewards": np.ones(batch_size, np.float32),
        "next_obs": rng.normal(size=(batch_size, OBS_DIM)).astype(np.float32),
        "terminated": (rng.random(batch_size) < 0.05).astype(np.float32),
    }


def target_weights(learner) -> list[np.ndarray]:
    """The target network's weights as numpy copies, in either framework."""
    if learner.framework == "torch":
        return [p.detach().numpy().copy() for p in learner.target_q.parameters()]
    return [np.array(w) for w in learner.target_q.get_weights()]


def rebinding_soft_update(learner, tau: float) -> None:
    """The soft update of claim C05, as it is often written: it runs without error and changes nothing.

    In torch the loop variable ``target`` is rebound to a new tensor; in TF the list of new tensors is bound
    to a name. Neither writes into the network: that needs ``target.lerp_(online, tau)`` (in place, under
    ``no_grad``) or ``target.assign(...)``, as ``polyak_update`` in ``rlkit/algos/torch_parts.py`` and
    ``tf_parts.py`` does.
    """
    if learner.framework == "torch":
        for target, online in zip(learner.target_q.parameters(), learner.q.parameters(), strict=True):
            target = tau * online.detach() + (1 - tau) * target  # noqa: F841 -- the bug being taught
    else:
        targets = learner.target_q.weights
        targets = [tau * o + (1 - tau) * t for o, t in zip(learner.q.weights, targets, strict=True)]  # noqa: F841


def rebinding_update_moves_target(framework: str, steps: int = 50, tau: float = 0.05, seed: int = 0) -> dict:
    """Train ``steps`` gradient steps with the rebinding update and, separately, with rlkit's in-place one.

    Returns how far each target moved from its initial weights (max absolute change) and how far the online
    network moved, so the frozen target is visible as a 0.
    """
    rng = np.random.default_rng(seed)
    batches = [random_batch(rng) for _ in range(steps)]
    parts = importlib.import_module(f"rlkit.algos.{framework}_parts")  # the learner's in-place update
    moved = {}
    for name in ("rebinding", "in place"):
        learner = learner_class(framework)(OBS_DIM, N_ACTIONS, still_target_config(), seed)
        initial_target, initial_online = target_weights(learner), learner.get_weights()
        for batch in batches:
            learner.update(batch)
            if name == "rebinding":
                rebinding_soft_update(learner, tau)
            else:
                parts.polyak_update([learner.target_q], [learner.q], tau)
        moved[name] = _max_change(initial_target, target_weights(learner))
        moved["online"] = _max_change(initial_online, learner.get_weights())
    return moved


def _max_change(before: list[np.ndarray], after: list[np.ndarray]) -> float:
    return max(float(np.abs(a - b).max()) for a, b in zip(before, after, strict=True))


def torch_copy_semantics(seed: int = 0) -> dict[str, bool]:
    """What torch's copying calls share with the online network, each checked by one gradient step after it.

    ``state_dict()`` returns the parameters' own tensors (detached views, no copy): a "best weights" kept
    that way moves on with training. ``load_state_dict`` copies values into the target's own tensors.
    ``copy.deepcopy`` copies everything, including whether parameters require gradients.
    """
    rng = np.random.default_rng(seed)
    learner = learner_class("torch")(OBS_DIM, N_ACTIONS, still_target_config(), seed)
    first = next(learner.q.parameters())
    before = first.detach().clone()
    kept = next(iter(learner.q.state_dict().values()))
    kept_clone = kept.clone()
    learner.sync_target()  # target.load_state_dict(online.state_dict())
    deep = copy.deepcopy(learner.q)
    learner.update(random_batch(rng))

    def follows(tensor) -> bool:
        return not bool((tensor.detach() == before).all())

    return {
        "online moved": follows(first),
        "state_dict() follows training": follows(kept),
        "state_dict() clone follows training": follows(kept_clone),
        "load_state_dict target follows training": follows(next(learner.target_q.parameters())),
        "deepcopy follows training": follows(next(deep.parameters())),
        "deepcopy requires grad": next(deep.parameters()).requires_grad,
    }


def keras_copy_semantics(seed: int = 0) -> dict[str, bool]:
    """What Keras shares, checked by one gradient step: ``set_weights`` before or after ``trainable = False``,
    and a target that is the online model under a second name."""
    rng = np.random.default_rng(seed)
    config = still_target_config()
    result = {}
    for order in ("trainable=False, then set_weights", "set_weights, then trainable=False"):
        learner = learner_class("tf")(OBS_DIM, N_ACTIONS, config, seed)
        learner.target_q.trainable = True
        if order.startswith("trainable"):
            learner.target_q.trainable = False
            learner.target_q.set_weights(learner.q.get_weights())
        else:
            learner.target_q.set_weights(learner.q.get_weights())
            learner.target_q.trainable = False
        before = target_weights(learner)[0]
        learner.update(random_batch(rng))
        result[f"{order}: target follows training"] = not np.allclose(target_weights(learner)[0], before)
    learner = learner_class("tf")(OBS_DIM, N_ACTIONS, config, seed)
    alias = learner.q  # "target = online": one model, two names
    before = np.array(alias.get_weights()[0])
    learner.update(random_batch(rng))
    result["alias (target = online) follows training"] = not np.allclose(alias.get_weights()[0], before)
    return result


def deepcopy_costs(seed: int = 0) -> dict[str, int | bool]:
    """What ``copy.deepcopy`` of a trained online network copies, against a fresh target filled by
    ``load_state_dict``: the bytes of tensors each holds (parameters plus any ``.grad``), whether the copy's
    parameters still require gradients, and whether deepcopy can copy a module holding an autograd graph."""
    import torch

    rng = np.random.default_rng(seed)
    learner = learner_class("torch")(OBS_DIM, N_ACTIONS, DQNConfig(hidden_sizes=(256, 256)), seed)
    learner.update(random_batch(rng))  # leaves .grad on every online parameter, as after any training step

    def tensor_bytes(module: torch.nn.Module) -> int:
        tensors = [*module.parameters(), *(p.grad for p in module.parameters() if p.grad is not None)]
        return sum(t.numel() * t.element_size() for t in tensors)

    deep = copy.deepcopy(learner.q)
    learner.sync_target()  # load_state_dict into a network built separately
    learner.q.last_output = learner.q(torch.zeros(1, OBS_DIM))  # a tensor with its graph, kept on the module
    try:
        copy.deepcopy(learner.q)
        graph_copied = True
    except RuntimeError:  # only graph leaves support deepcopy
        graph_copied = False
    return {
        "online (parameters + .grad)": tensor_bytes(learner.q),
        "deepcopy": tensor_bytes(deep),
        "load_state_dict": tensor_bytes(learner.target_q),
        "deepcopy requires grad": next(deep.parameters()).requires_grad,
        "deepcopy copies a graph": graph_copied,
    }


def transitions_of_random_play(env_id: str = "CartPole-v1", steps: int = 5_000, seed: int = 0) -> ReplayBuffer:
    """A replay buffer filled by ``steps`` of uniform-random play (autoreset steps left out)."""
    envs = make_vec_env(env_id, 1, seed=seed)
    runner, buffer = EnvRunner(envs, seed=seed), ReplayBuffer(steps, envs.single_observation_space.shape, seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        step = runner.step(rng.integers(0, envs.single_action_space.n, size=1))
        valid = step.valid
        buffer.add(step.obs[valid], step.actions[valid], step.rewards[valid], step.next_obs[valid],
                   step.terminated[valid])  # fmt: skip
    runner.close()
    return buffer


def loss_trace(
    buffer: ReplayBuffer, framework: str = "torch", steps: int = 300, seed: int = 0, **target_update
) -> np.ndarray:
    """The TD loss of every gradient step on one fixed batch of ``buffer``'s transitions.

    ``target_update`` sets DQNConfig's ``target_update``, ``target_update_every`` and ``tau``. On a fixed
    batch the loss falls while the target stands still and jumps when it moves, which makes each update
    rule's signature visible: a saw-tooth for periodic copies, a smooth curve for small Polyak steps.
    """
    config = DQNConfig(**target_update)
    learner = learner_class(framework)(OBS_DIM, N_ACTIONS, config, seed)
    batch = buffer.sample(256)
    return np.array([learner.update(batch)["loss"] for _ in range(steps)])


def target_lag(signal: np.ndarray, tau: float | None = None, period: int | None = None) -> np.ndarray:
    """How a target follows an online ``signal``: Polyak averaging with ``tau`` or a copy every ``period``
    steps (exactly one of the two). Each Polyak step moves the target tau of the way, so it lags about
    1 / tau steps behind; a periodic copy lags period / 2 steps on average."""
    if (tau is None) == (period is None):
        raise ValueError("give exactly one of tau (Polyak) and period (hard copies)")
    target, current = np.empty_like(signal), float(signal[0])
    for step, value in enumerate(signal):
        if tau is not None:
            current += tau * (value - current)
        elif step % period == 0:
            current = float(value)
        target[step] = current
    return target
