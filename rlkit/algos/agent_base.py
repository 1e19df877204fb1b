"""What every agent shares: the learner behind it, weights in and out, and checkpoints with metadata."""

from __future__ import annotations

import importlib
from pathlib import Path

import numpy as np

from rlkit.checkpoints import (
    LAYOUT,
    keep_previous_state,
    previous_state_path,
    put_back_state,
    run_path,
    training_state_path,
)
from rlkit.errors import RlkitError, is_count
from rlkit.logger import History
from rlkit.version import __version__


class Agent:
    """Base of the agents: subclasses set ``algo``, implement ``refresh``/``act`` and ``checkpoint_extra``."""

    algo = "agent"
    #: Framework -> module holding the algorithm's ``Learner`` class (imported when an agent is made).
    learner_modules: dict[str, str] = {}

    @classmethod
    def learner_class(cls, framework: str):
        """The algorithm's learner for ``"torch"`` or ``"tf"``, importing that framework now."""
        return importlib.import_module(cls.learner_modules[framework]).Learner

    def __init__(self, learner, env_id: str, obs_dim: int, config) -> None:
        self.learner, self.env_id, self.obs_dim, self.config = learner, env_id, obs_dim, config
        #: One observation as the buffer stores it: a float32 vector, unless an agent reads images as they come
        #: (uint8 pixels, whose network scales them; ``rlkit/encoders.py``).
        self.obs_shape: tuple[int, ...] = (obs_dim,)
        self.obs_dtype = np.dtype(np.float32)
        #: What the agent trains and is evaluated on during training: its id, or the EnvSource of a custom env.
        self.training_env = env_id
        #: The training loop that built this agent (or continued it): ``learn`` goes on from there.
        self.loop = None

    def trained_on(self, env) -> Agent:
        """Remember the environment (id or :class:`~rlkit.envs.EnvSource`) the agent trains on; returns self."""
        self.training_env = env
        return self

    @property
    def framework(self) -> str:
        return self.learner.framework

    def refresh(self) -> list[np.ndarray]:
        """Copy the learner's weights into the numpy forward pass used for acting; return every array read
        (the learner's whole ``get_weights()``: the loop checks them for NaNs without reading them again)."""
        raise NotImplementedError

    def act(self, obs: np.ndarray, deterministic: bool = True):
        """Actions for a batch of observations (one action for a single observation); see the subclasses."""
        raise NotImplementedError

    def predict(self, observation: np.ndarray, state=None, episode_start=None, deterministic: bool = False):
        """Stable-Baselines3's signature, so SB3-style evaluation code runs on rlkit agents unchanged.

        Returns ``(actions, state)``; rlkit's policies keep no recurrent state, so ``state`` comes back as
        given (None) and ``episode_start`` is ignored. ``deterministic`` defaults to False as in SB3.
        """
        del episode_start
        return self.act(observation, deterministic=deterministic), state

    # --- what an export asks (rlkit.export): the agent knows its own post-processing ----------------------

    def export_plan(self):
        """The :class:`~rlkit.policy_plan.PolicyPlan`: what the exported graph computes around the network."""
        raise NotImplementedError(f"{type(self).__name__} does not describe its policy for export")

    def export_network(self):
        """The trained framework module that maps (normalised) observations to the plan's network output."""
        raise NotImplementedError(f"{type(self).__name__} does not describe its policy for export")

    def export_reference(self, obs: np.ndarray) -> np.ndarray:
        """The network output of the agent's own numpy path for a batch of raw observations: what an
        exported graph's ``output`` must match."""
        raise NotImplementedError(f"{type(self).__name__} does not describe its policy for export")

    def get_weights(self) -> list[np.ndarray]:
        return self.learner.get_weights()

    def set_weights(self, weights: list[np.ndarray]) -> None:
        self.learner.set_weights(weights)
        self.refresh()

    def end_training(self) -> None:
        """Called once when a training call reaches its last step, before the final evaluation: what the agent
        changes so that the policy evaluated, saved and returned is the one it should end with. Nothing here;
        DDPG and TD3 take their target actor with ``final_actor="target"`` (``rlkit/algos/ddpg/agent.py``)."""

    def snapshot(self):
        """Everything that defines the current policy, for :meth:`restore` (the best one seen in training)."""
        return self.get_weights()

    def restore(self, snapshot) -> None:
        self.set_weights(snapshot)

    def loop_state(self) -> dict:
        """What the agent keeps of a run in progress besides its learner (exploration noise, counters)."""
        return {}

    def load_loop_state(self, state: dict) -> None:
        """Put back what :meth:`loop_state` saved."""

    def learn(
        self,
        steps: int,
        progress: bool = True,
        callbacks=(),
        logdir: str | Path | None = None,
        stop_when_solved: bool = False,
        seed: int = 0,
        env=None,
    ):
        """Train for ``steps`` more environment steps and return the :class:`~rlkit.result.TrainResult`.

        An agent returned by ``rlkit.train`` (or restored with ``rlkit.train(resume=...)``) goes on from
        exactly where its run stopped: buffer, optimizer, schedules, environments and generators. An agent
        loaded from a plain checkpoint starts a new run (seeded by ``seed``) from its weights, on ``env`` (an
        id, instance or callable; default: the id it was trained on, which a custom environment has not).
        """
        if not is_count(steps):
            raise RlkitError(f"steps must be a positive int, got {steps!r}")
        from rlkit.algos import training
        from rlkit.envs import env_source, is_registered
        from rlkit.seeding import shifted

        if self.loop is None:
            if env is not None:
                self.trained_on(env_source(env))
            elif isinstance(self.training_env, str) and not is_registered(self.training_env):
                raise RlkitError(
                    f"this agent was trained on a custom environment, {self.training_env}: pass env= (the "
                    "environment, its class or a callable) to train it further"
                )
        elif env is not None:
            raise RlkitError("a run in progress goes on in its own environments: env= applies to a new run")
        loop = self.loop if self.loop is not None else self.new_loop(shifted(seed), steps)
        return training.drive(loop, loop.target(steps), logdir, progress, stop_when_solved, callbacks)

    def close(self) -> None:
        """End the run in progress: close its environments (a simulator's windows or processes) and forget it.

        Training leaves them open so that :meth:`learn` can go on; the agent still acts and saves after this.
        """
        if self.loop is not None:
            self.loop.envs.close()
            self.loop = None

    def new_loop(self, seed: int, plan: int, **options):
        """A fresh run of this agent's family loop (``loop_class``): new environments seeded by ``seed``, an
        empty buffer, the weights as they are; ``options`` go to the loop (the replay loop's buffer_class and
        exploration)."""
        from rlkit.envs import make_vec_env
        from rlkit.seeding import seed_all

        rng = seed_all(seed)
        envs = make_vec_env(self.training_env, self.config.num_envs, seed=seed, training=True)
        return self.loop_class(self, envs, seed, rng, plan, **options)

    def checkpoint_extra(self) -> dict:
        """Algorithm-specific metadata a checkpoint needs to rebuild the agent."""
        return {}

    def metadata(self) -> dict:
        """What a checkpoint records to rebuild this agent (:meth:`from_meta`), its weights aside."""
        return {
            "layout": LAYOUT,
            "rlkit_version": __version__,
            "algo": self.algo,
            "framework": self.framework,
            "env_id": self.env_id,
            "obs_dim": self.obs_dim,
            "config": self.config.to_dict(),
            **self.checkpoint_extra(),
        }

    @classmethod
    def from_meta(cls, meta: dict, device: str = "cpu") -> Agent:
        """A fresh agent (untrained weights) of the kind :meth:`metadata` describes, its learner on ``device``."""
        raise NotImplementedError

    @classmethod
    def from_checkpoint(cls, path: str | Path, meta: dict, device: str = "cpu") -> Agent:
        """The agent saved at ``path`` (``meta``: its metadata), its learner on ``device``."""
        agent = cls.from_meta(meta, device)
        agent.learner.load(path)
        agent.refresh()
        return agent

    def in_framework(self, framework: str) -> Agent:
        """The same agent with a learner of the other framework (or itself): the twins share one weight
        layout, so the weights carry over exactly. Export uses it to convert a torch policy with
        TensorFlow's tools (LiteRT)."""
        if framework == self.framework:
            return self
        twin = type(self).from_meta({**self.metadata(), "framework": framework})
        twin.set_weights(self.get_weights())
        return twin

    def save(self, path: str | Path, resumable: bool = False, replay_buffer: bool = True) -> Path:
        """Write the agent to ``path`` (.pt for torch, .keras or .weights.h5 for TensorFlow).

        ``resumable`` also writes the state of the run in progress next to it (``<path>.state.npz``:
        optimizer, targets, counters, environments, generators and, unless ``replay_buffer=False``, the replay
        buffer), so that ``rlkit.train(resume=path)`` continues it exactly.

        Both files are written atomically (:mod:`rlkit.atomic`), the weights file last: it is the checkpoint's
        manifest, so a crash leaves either the previous checkpoint or the new one, never a new file beside a
        half-written one. The two share a random ``state_id`` (in the weights' metadata and in the state), so a
        resume can tell a weights file from the state of another save (a state left beside a later plain save)
        and refuse it. Between the two renames the previous state stays beside them, hard-linked under a hidden
        name (:func:`previous_state_path`) until the new weights are in place, so that a kill between the
        renames leaves the previous unit whole: its weights, and its state under that name, which resume reads
        when the state's id is not the weights' one (an exception there puts the previous state back).
        """
        import uuid

        from rlkit.atomic import atomic_path

        path = Path(path)
        if resumable and self.loop is None:
            raise RlkitError("this agent has no run in progress to resume: train it first (rlkit.train)")
        meta = self.metadata()
        state_path, previous = training_state_path(path), previous_state_path(path)
        if resumable:
            meta["state_id"] = uuid.uuid4().hex
        kept = False
        try:
            with atomic_path(path) as weights:
                self.learner.save(weights, meta)
                if resumable:
                    from rlkit.state import save_state

                    tree = self.loop.state(replay_buffer=replay_buffer)
                    kept = keep_previous_state(state_path, previous)
                    save_state(state_path, {**tree, "state_id": meta["state_id"]})
                # rlkit.atomic's test hooks for this path act here: between the state's rename and the weights'
        except BaseException:
            if kept:  # the weights were not replaced: their own state goes back beside them
                put_back_state(previous, state_path)
            raise
        if not resumable:
            state_path.unlink(missing_ok=True)  # a state left by an earlier save belongs to other weights
        previous.unlink(missing_ok=True)  # the new unit is whole: the previous state is no longer needed
        return path

    def save_run(self, logdir: str | Path, history: History) -> Path:
        """Keep everything a training run produced in ``logdir``: its metrics and the agent it returns, with the
        run's state beside it, so that ``rlkit train ALGO --resume LOGDIR/agent.pt`` continues it; returns the
        agent's path."""
        history.save(Path(logdir) / "history.json")  # atomic, as the agent
        return self.save(run_path(self, logdir), resumable=self.loop is not None)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.framework}, {self.env_id}, hidden={self.config.hidden_sizes})"
