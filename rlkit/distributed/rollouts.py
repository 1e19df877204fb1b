"""The on-policy loop with its environments on Ray actors: the same rollouts, collected by ``workers`` processes.

Each :class:`RolloutWorker` holds a contiguous block of the run's ``num_envs`` environments (built and seeded
exactly as the single-process vector env builds those sub-environments) and a numpy copy of the actor. Once
per iteration the learner puts the weights and its generator into Ray's object store (one ``ray.put``: every
worker reads the same object), each worker steps its block for ``num_steps`` steps, and the learner stitches
the blocks back into the rollout the single-process loop would have collected, then learns from it with the
learner it always had. The data are equal bit for bit, not merely alike:

- the policy's noise and its forward pass: the single-process loop draws one array of noise for all
  environments per step from the run's generator, and multiplies one batch of all their observations
  through the actor. Every worker does both for the whole batch, its own rows in their place and zeros in
  the others, and keeps its rows: each environment gets the draw it would have got, and the same
  floating-point result too (a matrix product's rounding depends on the batch's shape and on the row's
  place in it, not on the other rows' values). The learner's generator then continues from where the
  workers' copies ended. The price: each worker computes the policy for all ``num_envs`` rows. gSDE's noise
  matrices (``use_sde``) are drawn the same way: every worker draws all ``num_envs`` of them when due.
- what depends on all environments at once (reward scaling, episode logging, callbacks) stays with the
  learner, which replays it step by step over the stitched rollout. Observation normalisation would have to
  as well, but the workers act on normalised observations at every step, so a run with ``normalize_obs``
  cannot be split this way and is refused.

A checkpoint saved resumable during a run on workers holds the state of the single-process run (the
blocks joined): ``rlkit.train(resume=...)`` continues it in one process, exactly.

A worker that dies (a lost node, ``ray.kill``) is replaced by a new one restored from the state of its
environments at the start of the iteration, and its block is collected again: the run goes on as if nothing
had happened, and the history counts the replacements (``worker_restarts``).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from rlkit.algos.actor_critic.agent import RolloutLoop
from rlkit.distributed.cluster import connect
from rlkit.envs import EnvRunner, Transitions, make_vec_env, vector_env_state
from rlkit.errors import RlkitError, is_count
from rlkit.hardware import configure_numpy
from rlkit.state import generator_state, restore_generator

#: Replacements of dead workers one iteration may need before the run gives up (a worker that dies every
#: time, e.g. out of memory on its node, is a fault to report, not to retry forever).
MAX_RESTARTS_PER_ITERATION = 3


class Weights:
    """A stand-in for the learner on a worker: the agent's ``refresh`` reads the broadcast weights from it."""

    framework = "numpy"

    def __init__(self, weights: list[np.ndarray]) -> None:
        self.weights = weights

    def get_weights(self) -> list[np.ndarray]:
        return self.weights


@dataclass
class WorkerSpec:
    """What a worker needs to rebuild its part of the run anywhere: the agent class and its settings, the
    environment, and which block of sub-environments (``first`` .. ``first + count - 1`` of ``total``)."""

    agent_class: type
    env: object
    env_id: str
    obs_dim: int
    action: dict
    config: object
    seed: int
    first: int
    count: int
    total: int


@dataclass
class Rollout:
    """One worker's block of a rollout: (T + 1, count, ...) raw observations, (T, count, ...) the rest, the
    episodes each step ended, the generator after the rollout and the worker's state after it."""

    obs: np.ndarray
    actions: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    valid: np.ndarray
    episodes: list[tuple[np.ndarray, np.ndarray]]
    rng: np.random.Generator
    state: dict


class RolloutWorker:
    """A block of the run's environments and a numpy actor; made a Ray actor by :class:`WorkerPool`."""

    def __init__(self, spec: WorkerSpec, weights: list[np.ndarray], state: dict | None = None) -> None:
        # the worker acts in numpy and builds no learner that would hold numpy's BLAS to RLKIT_THREADS (Ray's
        # OMP_NUM_THREADS=1 for a one-CPU actor happens to as well, but ignores RLKIT_THREADS)
        configure_numpy()
        self.spec = spec
        seed = spec.seed + spec.first  # sub-environment i of the whole run is seeded seed + i
        self.envs = make_vec_env(spec.env, spec.count, seed=seed, training=True)
        self.runner = EnvRunner(self.envs, seed=seed)
        if state is not None:
            self.runner.restore(state["runner"], state["envs"])
        self.learner = Weights(weights)
        self.agent = spec.agent_class(self.learner, spec.env_id, spec.obs_dim, spec.action, spec.config)

    def rollout(self, broadcast: tuple[list[np.ndarray], np.random.Generator], num_steps: int) -> Rollout:
        """Step the block ``num_steps`` times with the broadcast weights and generator, sampling the whole
        batch as the single-process loop would and acting with this block's rows."""
        weights, rng = broadcast
        self.learner.weights = weights
        self.agent.refresh()
        spec, agent, runner = self.spec, self.agent, self.runner
        rows = slice(spec.first, spec.first + spec.count)
        batch_obs = np.zeros((spec.total, spec.obs_dim), dtype=np.float32)  # the whole run's batch, other rows 0
        steps, episodes = [], []
        for t in range(num_steps):
            batch_obs[rows] = agent.obs_normalizer(runner.obs)
            agent.reset_noise(t, rng, spec.total)  # gSDE: every environment's matrices, as the loop draws them
            actions = agent.sample(batch_obs, rng)[rows]
            batch = runner.step(agent.to_env(actions))
            steps.append((batch.obs, actions, batch.rewards, batch.terminated, batch.truncated, batch.valid))
            episodes.append(runner.pop_episodes())
        obs, actions, rewards, terminated, truncated, valid = (np.stack(column) for column in zip(*steps, strict=True))
        obs = np.concatenate([obs, runner.obs[None]])
        return Rollout(obs, actions, rewards, terminated, truncated, valid, episodes, rng, self.state())

    def node(self) -> str:
        """The id of the Ray node this worker runs on: where the cluster put the block."""
        import ray

        return ray.get_runtime_context().get_node_id()

    def state(self) -> dict:
        """The block's environments and episode counters, enough to rebuild this worker exactly elsewhere."""
        return {"envs": vector_env_state(self.envs), "runner": self.runner.state_dict()}


class WorkerPool:
    """The run's workers as Ray actors, the last state of each, and their replacement when one dies."""

    def __init__(self, ray, specs: list[WorkerSpec], weights: list[np.ndarray]) -> None:
        self.ray, self.specs = ray, specs
        self.remote_class = ray.remote(RolloutWorker)
        self.states: list[dict | None] = [None] * len(specs)  # None: the worker's start, rebuilt from its seed
        self.actors = [self.start(i, weights) for i in range(len(specs))]
        self.restarts = 0

    def start(self, index: int, weights: list[np.ndarray]):
        """A new actor for block ``index``, from that block's last state. It holds one CPU (it keeps one busy
        while it steps), and the actors are spread over the cluster's nodes."""
        options = self.remote_class.options(num_cpus=1, scheduling_strategy="SPREAD")
        return options.remote(self.specs[index], weights, self.states[index])

    def rollouts(self, weights: list[np.ndarray], rng: np.random.Generator, num_steps: int) -> list[Rollout]:
        """Every block of one rollout, in order; a block whose worker died is collected again by a new one."""
        ray = self.ray
        broadcast = ray.put((weights, rng))  # once per iteration: each worker reads this one object
        pending = {actor.rollout.remote(broadcast, num_steps): i for i, actor in enumerate(self.actors)}
        results: list[Rollout | None] = [None] * len(self.actors)
        failures = 0
        while pending:
            [ready], _ = ray.wait(list(pending), num_returns=1)
            i = pending.pop(ready)
            try:
                results[i] = ray.get(ready)
            except ray.exceptions.RayActorError as exc:
                failures += 1
                if failures > MAX_RESTARTS_PER_ITERATION:
                    raise RlkitError(
                        f"rollout workers died {failures} times in one iteration (last: worker {i}); the run "
                        f"stops rather than learn from part of a rollout: {exc}"
                    ) from exc
                warnings.warn(f"rollout worker {i} died; a new one collects its block again", stacklevel=2)
                self.restarts += 1
                self.actors[i] = self.start(i, weights)
                pending[self.actors[i].rollout.remote(broadcast, num_steps)] = i
        self.states = [result.state for result in results]
        return results

    def current_states(self) -> list[dict]:
        """The state of every block now: as its last rollout left it, or asked of a worker that has none yet."""
        pairs = zip(self.actors, self.states, strict=True)
        return [self.ray.get(actor.state.remote()) if state is None else state for actor, state in pairs]

    def close(self) -> None:
        """End the actors (their processes go back to the cluster)."""
        for actor in self.actors:
            self.ray.kill(actor)
        self.actors = []


def blocks(num_envs: int, workers: int) -> list[tuple[int, int]]:
    """``(first, count)`` of each worker's block: ``num_envs`` split as evenly as possible, in order."""
    sizes = [len(part) for part in np.array_split(np.arange(num_envs), workers)]
    return [(sum(sizes[:i]), size) for i, size in enumerate(sizes)]


class RayRolloutLoop(RolloutLoop):
    """:class:`~rlkit.algos.actor_critic.agent.RolloutLoop` with ``collect`` on ``workers`` Ray actors; the
    update, the schedules and the learner are the single-process loop's own."""

    def __init__(
        self, agent, envs, seed: int, rng, plan: int, workers: int = 2, ray_address: str | None = None
    ) -> None:
        config = agent.config
        if not is_count(workers) or workers > config.num_envs:
            raise RlkitError(f"workers must be an int in [1, num_envs={config.num_envs}], got {workers!r}")
        if config.normalize_obs:
            raise RlkitError(
                "normalize_obs=True updates the observation statistics with every step of every environment, "
                "and the workers act on normalised observations: a run on workers needs normalize_obs=False"
            )
        if getattr(agent, "image", None) is not None:
            raise RlkitError(
                "workers= rebuilds each worker's agent for flat observations, and this run reads images through "
                "convolutional encoders: train it in one process (without workers=)"
            )
        ray = connect(ray_address, purpose="workers=")
        cpus = ray.cluster_resources().get("CPU", 0)
        if workers > cpus:
            raise RlkitError(f"workers={workers} hold one CPU each, and the Ray cluster has {cpus:g}: add nodes or "
                             "use fewer workers (more environments per worker)")  # fmt: skip
        super().__init__(agent, envs, seed, rng, plan)
        envs.close()  # the workers hold the environments; these were needed for the spaces
        self.local_envs = envs
        specs = [
            WorkerSpec(type(agent), agent.training_env, agent.env_id, agent.obs_dim, agent.action, config, seed,
                       first, count, config.num_envs)
            for first, count in blocks(config.num_envs, workers)
        ]  # fmt: skip
        self.pool = WorkerPool(ray, specs, agent.learner.get_weights())
        self.envs = self.pool  # agent.close() ends the workers

    def collect(self, hooks) -> bool:
        """One rollout from the workers, replayed step by step into the buffer as if collected here."""
        restarts = self.pool.restarts
        parts = self.pool.rollouts(self.agent.learner.get_weights(), self.rng, self.agent.config.num_steps)
        ends = [generator_state(part.rng)["__generator__"] for part in parts]
        if any(end != ends[0] for end in ends):
            raise RlkitError("the workers' generators ended in different states: their noise was not the same")
        restore_generator(self.rng, generator_state(parts[0].rng))

        # the blocks side by side once, (T, num_envs, ...) each, rather than once per step and field
        fields = ("obs", "actions", "rewards", "terminated", "truncated", "valid")
        rollout = {name: np.concatenate([getattr(part, name) for part in parts], axis=1) for name in fields}
        normalize, stop = self.agent.obs_normalizer, False
        for t in range(self.agent.config.num_steps):
            obs = normalize(rollout["obs"][t], update=True)
            batch = Transitions(
                obs, rollout["actions"][t], rollout["rewards"][t], rollout["obs"][t + 1],
                rollout["terminated"][t], rollout["truncated"][t], rollout["valid"][t],
            )  # fmt: skip
            returns = np.concatenate([part.episodes[t][0] for part in parts])
            lengths = np.concatenate([part.episodes[t][1] for part in parts])
            stop = self.record(obs, batch.actions, batch, returns, lengths, hooks) or stop
        self.buffer.finish(normalize(rollout["obs"][self.agent.config.num_steps]))
        if self.pool.restarts > restarts:
            self.logger.log(self.step, worker_restarts=self.pool.restarts)
        return stop

    def common_state(self) -> dict:
        """The state of the single-process run with these environments: the workers' blocks joined in order,
        so that ``rlkit.train(resume=...)`` continues a run saved on workers in one process, exactly."""
        pool, self.envs = self.envs, self.local_envs  # the learner's side, with the (closed) local vector env
        try:
            state = super().common_state()
        finally:
            self.envs = pool
        blocks = self.pool.current_states()
        num_envs = self.agent.config.num_envs
        state["runner"] = joined([block["runner"] for block in blocks], num_envs)
        state["envs"] = {
            "vector": joined([block["envs"]["vector"] for block in blocks], num_envs),
            "spaces": state["envs"]["spaces"],
            "envs": [chain for block in blocks for chain in block["envs"]["envs"]],
        }
        return state


def joined(states: list[dict], num_envs: int) -> dict:
    """The :func:`~rlkit.state.object_state` of a vector env (or its runner) over all environments, from those
    of its blocks: arrays and lists, which hold one entry per environment, concatenated in block order;
    ``num_envs`` the total; anything else as the first block has it."""
    whole = {}
    for name, entry in states[0].items():
        value = entry.get("value")
        if name == "num_envs":
            value = num_envs
        elif isinstance(value, np.ndarray) and value.ndim > 0:
            value = np.concatenate([state[name]["value"] for state in states])
        elif isinstance(value, list):
            value = [item for state in states for item in state[name]["value"]]
        else:
            whole[name] = entry
            continue
        whole[name] = {**entry, "value": value}
    return whole
