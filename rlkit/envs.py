"""Environments: creating them with clear errors, and stepping vector environments without fake transitions.

Two facts of gymnasium 1.x shape this module:

* ``step`` returns ``terminated`` and ``truncated`` separately. Only termination ends the return; a
  truncated episode (CartPole's 500-step time limit) must still bootstrap from the value of the observation
  it stopped in (claim C10). The runner keeps both flags apart.
* Vector environments reset a finished sub-environment on the *next* call to ``step`` (the default
  "next-step" autoreset). The observation returned with ``terminated | truncated`` is the true final
  observation; the following step ignores the action and returns the reset observation with reward 0.
  That step is not a transition of the environment, and :class:`EnvRunner` marks it ``valid=False`` so no
  buffer ever stores it.
"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import gymnasium as gym
import numpy as np

from rlkit.atari import is_atari, make_atari, register_optional_envs
from rlkit.env_checks import StepCheck
from rlkit.errors import RlkitError, did_you_mean

#: Returns that count as "solved" where the environment's spec has no ``reward_threshold``. MinAtar has no
#: official mark: 8 on Breakout (8 bricks a game) is the course's target for every seed of DQN's default run.
SOLVE_THRESHOLDS: dict[str, float] = {"Pendulum-v1": -200.0, "MinAtar/Breakout-v1": 8.0}


@dataclass(frozen=True)
class EnvSource:
    """Where a run's environments come from: a registered id, a callable that builds one, or copies of one
    instance, with keyword arguments and wrappers applied to every copy. ``name`` is what checkpoints,
    progress bars and the per-environment defaults know it by (the id, or the class name)."""

    name: str
    build: Callable[[], gym.Env]
    registered: bool = False
    reward_threshold: float | None = None
    #: Where training needs other wrappers than evaluation (Atari: a life loss ends a training episode and
    #: rewards are clipped, evaluation plays whole games), the builder of the training environments.
    training_build: Callable[[], gym.Env] | None = None

    def make(self, seed: int | None = None, training: bool = False) -> gym.Env:
        env = self.training_build() if training and self.training_build is not None else self.build()
        if seed is not None:
            env.action_space.seed(seed)
        return env


def env_source(
    env: str | gym.Env | Callable[..., gym.Env] | EnvSource,
    env_kwargs: dict | None = None,
    wrappers: Sequence[Callable[[gym.Env], gym.Env]] = (),
) -> EnvSource:
    """An :class:`EnvSource` for whatever ``env=`` was given, checked once before any training.

    A registered id is made with ``gymnasium.make(id, **env_kwargs)``; a callable is called with
    ``env_kwargs``; an instance is used as it is for the first copy and deep-copied for the others (vector
    environments and parallel evaluation need several). Environments that are not registered ids run through
    gymnasium's env checker; all must have the spaces rlkit's networks take (:func:`check_spaces`).
    """
    if isinstance(env, EnvSource):
        if env_kwargs or wrappers:
            raise RlkitError("env_kwargs and wrappers apply when the env is given by id, callable or instance")
        return env
    kwargs = dict(env_kwargs or {})
    wrappers = list(wrappers or [])
    for wrapper in wrappers:
        if not callable(wrapper):
            raise RlkitError(f"wrappers must be callables env -> env (e.g. a gymnasium wrapper class), got {wrapper!r}")
    training_build = None
    if isinstance(env, str):
        probe = make_env(env, **kwargs)  # one clear error for an unknown id, here
        threshold = solve_threshold(env)

        def build() -> gym.Env:
            return make_env(env, **kwargs)

        if is_atari(env):

            def training_build() -> gym.Env:
                made = make_env(env, training=True, **kwargs)
                for wrapper in wrappers:
                    made = wrapper(made)
                return made

        name, registered = env, True
    elif isinstance(env, gym.Env):
        if kwargs:
            raise RlkitError("env_kwargs cannot change an environment instance: pass its class or a callable")
        instance, copies = env, [0]

        def build() -> gym.Env:
            copies[0] += 1
            if copies[0] == 1:
                return instance
            try:
                return copy.deepcopy(instance)
            except Exception as exc:
                raise RlkitError(
                    f"a second copy of {type(instance).__name__} is needed (several environments, or parallel "
                    f"evaluation) but it cannot be deep-copied ({exc}): pass a callable that builds one instead"
                ) from None

        probe = copy.deepcopy(env) if _copyable(env) else None  # never step or close the user's instance
        name, registered = _name_of(env), False
        threshold = _spec_threshold(env)
    elif callable(env):

        def build() -> gym.Env:
            made = env(**kwargs)
            if not isinstance(made, gym.Env):
                raise RlkitError(f"env callable {env!r} returned {type(made).__name__}, not a gymnasium.Env")
            return made

        probe = build()
        name, registered = _name_of(probe), False
        threshold = _spec_threshold(probe)
    else:
        raise RlkitError(
            f"env must be a gymnasium id such as 'CartPole-v1', a gymnasium.Env, or a callable returning one; "
            f"got {type(env).__name__}"
        )
    if probe is None:  # an instance that cannot be copied: its spaces are checked, it is not stepped here
        check_spaces(env.observation_space, env.action_space, name)
    else:  # a copy of our own: wrapped as every copy will be, checked, stepped by gymnasium's checker, closed
        for wrapper in wrappers:
            probe = wrapper(probe)
        check_spaces(probe.observation_space, probe.action_space, name)  # first: the more useful message
        if not registered:
            check_with_gymnasium(probe, name)
        probe.close()
    if wrappers:
        bare = build

        def build() -> gym.Env:
            made = bare()
            for wrapper in wrappers:
                made = wrapper(made)
            return made

    return EnvSource(name, build, registered, threshold, training_build)


def _name_of(env: gym.Env) -> str:
    spec = getattr(env, "spec", None)
    return spec.id if spec is not None and spec.id else type(env.unwrapped).__name__


def _spec_threshold(env: gym.Env) -> float | None:
    spec = getattr(env, "spec", None)
    if spec is not None and spec.reward_threshold is not None:
        return float(spec.reward_threshold)
    return SOLVE_THRESHOLDS.get(_name_of(env))


def _copyable(env: gym.Env) -> bool:
    try:
        copy.deepcopy(env)
    except Exception:
        return False
    return True


def check_with_gymnasium(env: gym.Env, name: str) -> None:
    """gymnasium's env checker on a custom environment: its failures become one clear error."""
    from gymnasium.utils.env_checker import check_env

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # its advice is printed by gymnasium elsewhere; failures matter here
            check_env(env.unwrapped, skip_render_check=True)
    except Exception as exc:
        raise RlkitError(f"{name} fails gymnasium's env checker: {exc}") from None


def check_spaces(observation_space: gym.Space, action_space: gym.Space, name: str) -> None:
    """rlkit's networks take flat vectors or images and one Discrete or Box action: say so for anything else."""
    supported = (
        "rlkit supports flat Box observations (shape (n,)), images (a Box of rank 3, channels first or last) "
        "and Discrete or Box actions"
    )
    if isinstance(observation_space, gym.spaces.Dict | gym.spaces.Tuple):
        raise RlkitError(
            f"{name} has {type(observation_space).__name__} observations: {supported}; flatten them with "
            "gymnasium.wrappers.FlattenObservation (wrappers=[FlattenObservation])"
        )
    if not isinstance(observation_space, gym.spaces.Box):
        raise RlkitError(f"{name} has observations {observation_space}: {supported}")
    rank = len(observation_space.shape)
    if rank == 2:
        raise RlkitError(
            f"{name} has observations of shape {observation_space.shape}: {supported}; give a grey image a "
            "channel axis (wrappers=[lambda env: gymnasium.wrappers.ReshapeObservation(env, (*shape, 1))]) or "
            "flatten it (FlattenObservation)"
        )
    if rank not in (1, 3):
        kind = "scalar observations" if rank == 0 else f"observations of rank {rank}"
        raise RlkitError(f"{name} has {kind} of shape {observation_space.shape}: {supported}")
    if not isinstance(action_space, gym.spaces.Discrete | gym.spaces.Box):
        raise RlkitError(f"{name} has actions {action_space}: {supported}")


def make_env(env_id: str | EnvSource, seed: int | None = None, training: bool = False, **kwargs) -> gym.Env:
    """``gymnasium.make`` with one clear error for unknown ids, and the action space seeded.

    The observation space is not reset here: pass ``seed`` to the first ``reset`` (the runner does).
    MinAtar and Atari ids (``MinAtar/Breakout-v1``, ``ALE/Pong-v5``) are registered on first use, and an
    Atari game gets the standard preprocessing (:func:`rlkit.atari.make_atari`): ``training`` ends its
    episodes at a life loss and clips its rewards, evaluation (the default) plays whole games for their score.
    """
    if isinstance(env_id, EnvSource):
        return env_id.make(seed, training)
    if not isinstance(env_id, str):
        raise RlkitError(f"env must be a gymnasium id such as 'CartPole-v1', got {env_id!r}")
    register_optional_envs(env_id)
    try:
        env = make_atari(env_id, training=training, **kwargs) if is_atari(env_id) else gym.make(env_id, **kwargs)
    except gym.error.Error as exc:
        hint = did_you_mean(env_id, gym.envs.registry.keys())
        raise RlkitError(f"unknown environment '{env_id}' ({exc}).{hint}") from None
    if seed is not None:
        env.action_space.seed(seed)
    return env


def make_vec_env(
    env_id, num_envs: int = 1, seed: int | None = None, training: bool = False, **kwargs
) -> gym.vector.VectorEnv:
    """A synchronous vector of ``num_envs`` copies (sub-environment ``i``'s action space seeded ``seed + i``).

    ``env_id`` is anything :func:`env_source` takes: an id, an :class:`EnvSource`, an instance or a callable;
    ``training`` asks for the training environments where they differ from evaluation's (Atari).
    Synchronous beats asynchronous for classic-control tasks: a CartPole step costs microseconds, far less
    than sending it to another process.
    """
    if not isinstance(num_envs, int) or num_envs < 1:
        raise RlkitError(f"num_envs must be a positive int, got {num_envs!r}")
    if isinstance(env_id, str):
        make_env(env_id, **kwargs).close()  # fail here, once, with a clear message for an unknown id
        fns = [
            (lambda i=i: make_env(env_id, None if seed is None else seed + i, training, **kwargs))
            for i in range(num_envs)
        ]
    else:
        source = env_source(env_id, kwargs)
        fns = [(lambda i=i: source.make(None if seed is None else seed + i, training)) for i in range(num_envs)]
    envs = gym.vector.SyncVectorEnv(fns)
    if seed is not None:
        envs.action_space.seed(seed)
    return envs


def is_registered(env_id: str) -> bool:
    """Whether gymnasium knows ``env_id`` (a custom environment's class name is no id)."""
    try:
        gym.spec(env_id)
    except gym.error.Error:
        return False
    return True


def env_name(env) -> str:
    """What a run calls its environment: the id, or an :class:`EnvSource`'s name."""
    return env.name if isinstance(env, EnvSource) else str(env)


def solve_threshold(env_id) -> float | None:
    """The return at which ``env_id`` counts as solved (its spec's ``reward_threshold``), if any."""
    if isinstance(env_id, EnvSource):
        return env_id.reward_threshold
    register_optional_envs(env_id)
    spec = gym.spec(env_id)
    if spec.reward_threshold is not None:
        return float(spec.reward_threshold)
    return SOLVE_THRESHOLDS.get(env_id)


def space_info(space: gym.Space) -> dict:
    """The numbers a network needs from a space: ``{'discrete': True, 'n': 2}`` or ``{'shape': (3,), ...}``."""
    if isinstance(space, gym.spaces.Discrete):
        return {"discrete": True, "n": int(space.n)}
    if isinstance(space, gym.spaces.Box):
        return {"discrete": False, "shape": tuple(space.shape), "low": space.low, "high": space.high}
    raise RlkitError(f"rlkit supports Discrete and Box spaces, got {space}")


def as_float32(obs: np.ndarray) -> np.ndarray:
    """Observations as float32, cast once where they leave the environment.

    MuJoCo's observations are float64; the networks, buffers and exports all work in float32. Left as they
    come, a float64 batch would reach the numpy acting path (float64 matrix products, twice the cost, a policy
    that differs in the last bits from the one trained) and be cast again at every store.
    """
    return obs.astype(np.float32) if obs.dtype == np.float64 else obs


#: The most actions of one episode that :class:`EnvRunner` keeps to play again on a resume. An environment
#: without a time limit can run one episode for a whole budget, and its record would grow with it (about 120
#: bytes a step in memory, and in every checkpoint); past this length the record is dropped, and a resume from
#: inside that episode goes on from a fresh environment's physics, with a warning. Playing 100,000 steps
#: again costs seconds (Box2D and MuJoCo step in 50-200 us without the learner).
MAX_RECORDED_ACTIONS = 100_000

_NO_RETURNS = np.zeros(0, dtype=np.float64)
_NO_LENGTHS = np.zeros(0, dtype=np.int64)


@dataclass
class Transitions:
    """One vector step as arrays over sub-environments; ``valid`` is False for autoreset steps."""

    obs: np.ndarray
    actions: np.ndarray
    rewards: np.ndarray
    next_obs: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    valid: np.ndarray


@dataclass
class EnvRunner:
    """Steps a gymnasium 1.x vector env, tracks episode returns, and flags autoreset steps as invalid.

    ``step(actions)`` returns :class:`Transitions`; the completed episodes since the last call are in
    ``pop_episodes()`` as ``(returns, lengths)`` arrays.
    """

    envs: gym.vector.VectorEnv
    seed: int | None = None
    check: bool = True  # environment faults named at each step (rlkit.env_checks); False for the benchmark
    max_recorded_actions: int = MAX_RECORDED_ACTIONS  # per episode in progress, to play again on a resume
    obs: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        n = self.envs.num_envs
        subenvs = getattr(self.envs, "envs", [])  # a synchronous vector env's; another kind keeps its own
        #: The sub-environments whose physics lives in C: each one's episode in progress is recorded (its wrapper
        #: chain's generators before its reset, the reset's seed, every action since) so that a resumed run can
        #: play it again to where it was saved (:meth:`restore`); None for the others.
        self._episodes: list[dict | None] = [
            {"start": episode_start(env), "seed": None if self.seed is None else self.seed + i, "actions": []}
            if keeps_state_in_c(env) else None
            for i, env in enumerate(subenvs)
        ]  # fmt: skip
        self._recording = any(episode is not None for episode in self._episodes)
        obs, _ = self.envs.reset(seed=self.seed)
        self.obs = as_float32(obs)
        self._autoreset = np.zeros(n, dtype=bool)
        self._ep_return = np.zeros(n, dtype=np.float64)
        self._ep_length = np.zeros(n, dtype=np.int64)
        self._done_returns: list[float] = []
        self._done_lengths: list[int] = []
        self.steps = 0  # environment steps, for the messages of :class:`~rlkit.env_checks.StepCheck`
        self._checks = StepCheck(self.envs) if self.check else None
        if self._checks is not None:
            self._checks.check_sources(0)  # the reset's observations, before any step converts them

    def state_dict(self) -> dict:
        """The current observations and the episodes in progress (plain data): where a resumed run goes on."""
        from rlkit.state import object_state

        names = ("obs", "steps", "_autoreset", "_ep_return", "_ep_length", "_done_returns", "_done_lengths")
        episodes = [
            None if episode is None else {**episode, "actions": np.asarray(episode["actions"])}
            for episode in self._episodes
        ]
        # in object_state's form: a list with one entry per environment (rlkit.distributed joins blocks' lists)
        return {**object_state(self, names=names), "_episodes": {"value": episodes, "tuple": False}}

    def load_state_dict(self, state: dict) -> None:
        from rlkit.state import restore_object

        if "_episodes" not in state:  # saved before rlkit recorded episodes in progress: none to play again
            unknown = {"start": None, "seed": None, "actions": []}
            self._episodes = [None if episode is None else dict(unknown) for episode in self._episodes]
        restore_object(self, state)
        self._episodes = [
            None if episode is None else {**episode, "actions": list(episode["actions"])} for episode in self._episodes
        ]

    def restore(self, state: dict, envs_state: dict) -> None:
        """Continue a saved run exactly: the environments' state (:func:`restore_vector_env_state`), this
        runner's, and each episode in progress of a physics kept in C played again from its recorded start, its
        wrapper chain then set to the saved state. Refused, by name, when the replay does not end on the saved
        observation (an environment that does not repeat itself for the same seed and actions). A state saved
        before the runner kept these records goes on with a warning: that episode from a fresh world."""
        restore_vector_env_state(self.envs, envs_state)  # checks the count; a replayed chain gets it again below
        self.load_state_dict(state)
        for i, (env, episode) in enumerate(zip(self.envs.envs, self._episodes, strict=True)):
            if episode is None:
                continue
            if episode["start"] is None:
                why = (
                    f"had run more than {episode['dropped_after']:,} steps, past the record rlkit keeps to play it "
                    "again (an environment without a time limit?)"
                    if "dropped_after" in episode
                    else "was saved without the record to play it again (a checkpoint from before rlkit kept one)"
                )
                warnings.warn(
                    f"sub-environment {i}'s episode in progress {why}: it goes on from a fresh environment's "
                    "physics, not the saved one; the episodes after it are exact again",
                    stacklevel=2,
                )
                continue
            restore_episode_start(env, episode["start"])
            obs, _ = env.reset(seed=episode["seed"])
            for action in episode["actions"]:
                obs, *_ = env.step(action)
            if not np.array_equal(as_float32(np.asarray(obs)), self.obs[i]):
                raise RlkitError(
                    f"sub-environment {i} ({env.spec.id if env.spec else type(env.unwrapped).__name__}) did not "
                    f"repeat its episode in progress: {len(episode['actions'])} recorded actions from the same "
                    "start ended on another observation than the saved one, so this run cannot continue exactly"
                )
            restore_chain(env, envs_state["envs"][i])  # and what the replay need not repeat (a space's generator)

    def step(self, actions: np.ndarray) -> Transitions:
        self.steps += len(self._autoreset)
        for i, episode in enumerate(self._episodes if self._recording else ()):
            if episode is None:
                continue
            if self._autoreset[i]:  # this step resets it (the action is ignored): a new episode starts
                self._episodes[i] = {"start": episode_start(self.envs.envs[i]), "seed": None, "actions": []}
            elif len(episode["actions"]) >= self.max_recorded_actions:  # too long to keep: see MAX_RECORDED_ACTIONS
                dropped = len(episode["actions"])
                self._episodes[i] = {"start": None, "seed": None, "actions": [], "dropped_after": dropped}
            elif episode["start"] is not None:
                episode["actions"].append(np.array(actions[i]))  # a copy: the caller may reuse its array
        try:
            next_obs, rewards, terminated, truncated, _ = self.envs.step(actions)
        except (ValueError, TypeError) as exc:
            blamed = None if self._checks is None else self._checks.failed(self.steps, actions, exc)
            if blamed is None:
                raise
            raise blamed from exc
        if self._checks is not None:
            self._checks.check(self.steps, next_obs, rewards, terminated, truncated)
            self._checks.check_sources(self.steps)
        valid = ~self._autoreset
        self._ep_return += np.where(valid, rewards, 0.0)
        self._ep_length += valid
        done = (terminated | truncated) & valid
        if done.any():
            self._done_returns.extend(self._ep_return[done].tolist())
            self._done_lengths.extend(self._ep_length[done].tolist())
            self._ep_return[done] = 0.0
            self._ep_length[done] = 0
        self._autoreset = terminated | truncated
        next_obs = as_float32(next_obs)
        batch = Transitions(self.obs, actions, rewards, next_obs, terminated, truncated, valid)
        self.obs = next_obs
        return batch

    def pop_episodes(self) -> tuple[np.ndarray, np.ndarray]:
        """Returns and lengths of the episodes completed since the last call (empty arrays if none)."""
        if not self._done_returns:
            return _NO_RETURNS, _NO_LENGTHS
        returns = np.asarray(self._done_returns, dtype=np.float64)
        lengths = np.asarray(self._done_lengths, dtype=np.int64)
        self._done_returns, self._done_lengths = [], []
        return returns, lengths

    def close(self) -> None:
        self.envs.close()


def vector_env_state(envs: gym.vector.SyncVectorEnv) -> dict:
    """The state of a synchronous vector env, as plain data (no pickle).

    Each sub-environment's wrapper chain (TimeLimit's step count, the physics' ``state``, the ``np_random``
    generators, the spaces' generators) and the vector env's own autoreset flags: all that classic-control
    tasks and most pure-Python environments hold. A physics kept in C (:func:`keeps_state_in_c`: Box2D,
    MuJoCo, the ALE) is not captured here: :class:`EnvRunner` records such an environment's episode in
    progress, and :meth:`EnvRunner.restore` plays it again.
    """
    from rlkit.state import object_state

    chains = [chain_state(env) for env in envs.envs]
    return {"vector": object_state(envs), "spaces": space_generators(envs), "envs": chains}


def space_generators(env) -> dict:
    """The generators of ``env``'s action and observation spaces (those that have one), as plain data."""
    from rlkit.state import generator_state

    found = {}
    for name in ("action_space", "observation_space"):
        rng = getattr(getattr(env, name, None), "_np_random", None)
        if rng is not None:
            found[name] = generator_state(rng)
    return found


def chain_state(env: gym.Env) -> list[dict]:
    """One environment's wrapper chain, outermost first, as plain data (each level's plain attributes and its
    spaces' generators)."""
    from rlkit.state import object_state

    return [{"attributes": object_state(level), "spaces": space_generators(level)} for level in wrapper_chain(env)]


def wrapper_chain(env: gym.Env) -> list:
    """``env`` and every environment it wraps, outermost first (the order of the saved states)."""
    levels = [env]
    while hasattr(levels[-1], "env"):
        levels.append(levels[-1].env)
    return levels


def restore_chain(env: gym.Env, chain: list[dict]) -> None:
    """Put a :func:`chain_state` back into an environment built the same way."""
    from rlkit.state import restore_object

    for level, saved in zip(wrapper_chain(env), chain, strict=True):
        restore_object(level, saved["attributes"])
        restore_space_generators(level, saved["spaces"])


def restore_space_generators(env, saved: dict) -> None:
    """Put :func:`space_generators` back."""
    from rlkit.state import restore_generator

    for name, rng_state in saved.items():
        space = getattr(env, name)
        if space._np_random is None:
            space.seed(0)  # creates the generator, whose state is then replaced
        restore_generator(space._np_random, rng_state)


def episode_start(env: gym.Env) -> list[dict]:
    """What an episode's replay starts from: every generator of the wrapper chain (each level's own and its
    spaces'), as plain data, taken before the reset draws from them. The rest of the chain's state is the
    reset's to set (Box2D's and MuJoCo's tasks rebuild their world from the generator), and the replay checks
    that it did: a full :func:`chain_state`, copied, cost 300 us per episode on LunarLander, this about 20."""
    from rlkit.state import generator_state

    def generators(level) -> dict:
        return {name: generator_state(v) for name, v in vars(level).items() if isinstance(v, np.random.Generator)}

    return [{"generators": generators(level), "spaces": space_generators(level)} for level in wrapper_chain(env)]


def restore_episode_start(env: gym.Env, levels: list[dict]) -> None:
    """Put an :func:`episode_start` back: the chain's generators as they were before the episode's reset."""
    from rlkit.state import restore_generator

    for level, saved in zip(wrapper_chain(env), levels, strict=True):
        for name, rng_state in saved["generators"].items():
            restore_generator(getattr(level, name), rng_state)
        restore_space_generators(level, saved["spaces"])


def keeps_state_in_c(env: gym.Env) -> bool:
    """Whether the environment's physics lives in a C library, out of :func:`chain_state`'s reach: Box2D's world
    (LunarLander, BipedalWalker, CarRacing), MuJoCo's ``MjData``, the Arcade Learning Environment's emulator.
    A resumed run rebuilds such an environment's episode in progress by playing it again
    (:meth:`EnvRunner.restore`)."""
    module = type(env.unwrapped).__module__
    return module.startswith(("gymnasium.envs.box2d", "gymnasium.envs.mujoco", "ale_py"))


def restore_vector_env_state(envs: gym.vector.SyncVectorEnv, state: dict) -> None:
    """Put a :func:`vector_env_state` back into a vector env built the same way (same ids, same count)."""
    from rlkit.state import restore_object

    if len(state["envs"]) != envs.num_envs:
        raise RlkitError(f"the saved state has {len(state['envs'])} environments, this run {envs.num_envs}")
    restore_object(envs, state["vector"])
    restore_space_generators(envs, state["spaces"])
    for env, chain in zip(envs.envs, state["envs"], strict=True):
        restore_chain(env, chain)
