"""RL-Baselines3-Zoo hyperparameter files, read with their own keys.

The zoo's files (``hyperparams/ppo.yml`` and its siblings) name Stable-Baselines3's arguments: ``n_envs``,
``n_steps``, ``batch_size`` as PPO's minibatch size, ``learning_rate: lin_7.3e-4`` for a rate that decays
linearly to 0, ``train_freq`` and ``target_update_interval`` in environment steps. :func:`translate` turns
one entry into rlkit's hyperparameters for the algorithm at hand, key by key, through the table :data:`KEYS`:

- a key keeps its meaning (its unit, what it counts, when it applies). Where rlkit counts differently, the
  value is converted when the two schedules coincide and refused when they do not: SB3's DQN copies its
  target every ``target_update_interval`` *environment* steps, rlkit's every ``target_update_every``
  *gradient* steps;
- a key with no rlkit equivalent (``frame_stack``, ``policy_kwargs`` with ``ortho_init=False``, ``use_sde``
  for an off-policy algorithm: rlkit's gSDE is PPO's and A2C's) is refused, naming the key, its value and
  what to write instead; one error lists every such key of the entry, so that a file is fixed in one pass;
- a key the entry does not name takes rlkit's default for the environment, not SB3's: an entry says what it
  sets, and rlkit's algorithms stay rlkit's (networks, initialisation, Adam, DQN's epsilon-greedy warm-up).

An entry is read in the zoo's dialect when it names a key only the zoo uses (``n_timesteps``, ``policy``,
``n_envs``...) or a ``lin_`` schedule; only then do the keys both libraries spell alike but read differently
take the zoo's meaning (``learning_rate: 1e-3`` is constant in the zoo, annealed by rlkit PPO's default
``anneal_lr``). An entry in rlkit's own keys (a run's ``config.yaml``) comes back as it is. rlkit's own keys
may sit beside the zoo's in one entry; a field that both set, to different values, is refused.
"""

from __future__ import annotations

import ast
import numbers
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any

from rlkit.errors import RlkitError, did_you_mean

#: SB3's algorithms, by family: which keys apply where.
ON_POLICY = frozenset({"PPO", "A2C"})
OFF_POLICY = frozenset({"DDPG", "TD3", "SAC"})
REPLAY = frozenset({"DQN"}) | OFF_POLICY
ANY = frozenset({"PPO", "A2C", "DQN", "DDPG", "TD3", "SAC"})

#: Keys rlkit itself writes in a run's ``config.yaml`` besides the hyperparameters (read by the command line).
RUN_KEYS = frozenset({"env", "framework", "seed", "total_steps"})

#: The keys of SB3's VecNormalize that rlkit's normalisation has, with the values it uses.
VEC_NORMALIZE_FIXED = {"clip_obs": 10.0, "clip_reward": 10.0, "epsilon": 1e-8}

#: What rlkit has no equivalent for whatever the algorithm: key -> why, and what to do instead.
NO_EQUIVALENT = {
    "use_sde_at_warmup": "gSDE's warm-up switch of SB3's off-policy algorithms; rlkit's gSDE is PPO's and A2C's "
    "only: drop the key",
    "frame_stack": "rlkit stacks no frames itself: drop the key and, in Python, pass "
    "wrappers=[lambda env: gymnasium.wrappers.FrameStackObservation(env, N)] to rlkit.train",
    "env_wrapper": "rlkit wraps no environment from a file: drop the key and pass the wrapper classes to "
    "rlkit.train(wrappers=[...]) in Python",
    "vec_env_wrapper": "rlkit wraps no vector environment from a file: drop the key",
    "env_kwargs": "environment arguments are not hyperparameters: drop the key and pass "
    "rlkit.train(env_kwargs={...}) in Python",
    "callback": "rlkit reads no callbacks from a file: drop the key and pass rlkit.train(callbacks=[...])",
    "monitor_kwargs": "rlkit records every episode itself: drop the key",
    "replay_buffer_class": "drop the key: rlkit's replay buffers are chosen by prioritized/n_step, or "
    "rlkit.train(buffer_class=...) in Python",
    "replay_buffer_kwargs": "drop the key: rlkit's replay buffers take prioritized, per_alpha and n_step",
}


class Refused(Exception):
    """A key that cannot be translated; its message says why and what to write instead."""


@dataclass
class Entry:
    """One entry being translated: the algorithm, rlkit's defaults for the environment, what is set so far.

    ``settings`` holds rlkit's fields as translated (and the entry's own rlkit keys), ``origin`` the key that
    set each one, so that a field set twice to different values is refused naming both keys.
    """

    algo: str | None
    sb3: str | None
    raw: dict[str, Any]
    defaults: dict[str, Any]
    settings: dict[str, Any] = field(default_factory=dict)
    origin: dict[str, str] = field(default_factory=dict)

    def value(self, name: str) -> Any:
        """An rlkit field as the run will see it: set by this entry, else rlkit's default for the env."""
        return self.settings.get(name, self.defaults.get(name))

    def count(self, name: str) -> int:
        """A count field (``num_envs``, ``train_every``...) that a translation computes with."""
        return _count(self.value(name), f"computed from {name}, which must be a whole number")

    @property
    def name(self) -> str:
        return (self.algo or "this algorithm").upper()


@dataclass(frozen=True)
class Key:
    """One zoo key: the SB3 algorithms that have it, its translation into rlkit's fields, and whether that
    translation depends on the algorithm (``learning_rate`` does, ``gamma`` does not)."""

    algos: frozenset[str]
    translate: Callable[[Any, Entry], dict[str, Any]]
    needs_algo: bool = True


def _number(value: Any, what: str) -> float:
    """A YAML number (int or float, not a bool), or Refused saying what was expected."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return float(value)
    raise Refused(f"must be {what}")


def _count(value: Any, what: str) -> int:
    """A whole number (``1e5`` included, as the zoo writes ``!!float 1e5``), or Refused."""
    number = _number(value, what)
    if not number.is_integer():
        raise Refused(f"must be {what}")
    return int(number)


def _schedule(value: Any) -> tuple[float, bool]:
    """``(initial value, decays linearly to 0)`` of a zoo schedule: a number, or ``lin_X``."""
    if isinstance(value, str) and value.startswith("lin_"):
        try:
            return float(value.removeprefix("lin_")), True
        except ValueError:
            pass
    if isinstance(value, str):
        raise Refused("must be a number (constant) or lin_X (X decaying linearly to 0 over training)")
    return _number(value, "a number (constant) or lin_X (X decaying linearly to 0 over training)"), False


def _python_literal(text: str) -> Any:
    """The value of the zoo's Python snippets (``"dict(net_arch=[64, 64], activation_fn=nn.ReLU)"``),
    read without running them: literals, ``dict(...)`` calls, and names such as ``nn.ReLU`` as strings.

    The zoo passes these strings to ``eval``; reading only literals keeps a hyperparameter file from running
    code on the reader's machine.
    """

    def read(node: ast.AST) -> Any:
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
            number = read(node.operand)
            if isinstance(number, numbers.Real) and not isinstance(number, bool):
                return -number if isinstance(node.op, ast.USub) else number
        if isinstance(node, ast.List | ast.Tuple):
            return [read(item) for item in node.elts]
        if isinstance(node, ast.Dict) and None not in node.keys:
            return {read(key): read(item) for key, item in zip(node.keys, node.values, strict=True)}
        if _is_dict_call(node):
            return {keyword.arg: read(keyword.value) for keyword in node.keywords}
        if isinstance(node, ast.Name):
            return node.id
        if isinstance(node, ast.Attribute):
            return f"{read(node.value)}.{node.attr}"
        raise Refused(f"holds {ast.unparse(node)!r}, which is not a literal rlkit can read; write it as one")

    try:
        tree = ast.parse(" ".join(text.split()), mode="eval")
    except SyntaxError:
        raise Refused('is not a Python literal such as "dict(net_arch=[64, 64])"') from None
    return read(tree.body)


def _is_dict_call(node: ast.AST) -> bool:
    """``dict(a=1, b=2)``: keywords only (``dict(**other)`` and ``dict(pairs)`` are not literals)."""
    is_call = isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict"
    return is_call and not node.args and all(keyword.arg for keyword in node.keywords)


def _mapping(value: Any) -> dict[str, Any]:
    """A zoo mapping written as YAML or as a Python string (``"{'norm_obs': True}"``, ``"dict(...)"``)."""
    if isinstance(value, str):
        value = _python_literal(value)
    if not isinstance(value, dict):
        raise Refused("must be a mapping, e.g. dict(net_arch=[64, 64])")
    return value


# --- the translations, one per key ----------------------------------------------------------------------


def _total_steps(value: Any, entry: Entry) -> dict[str, Any]:
    return {"total_steps": _count(value, "a whole number of environment steps (rlkit's total_steps)")}


def _policy(value: Any, entry: Entry) -> dict[str, Any]:
    """rlkit's networks are MLPs on flat observations: SB3's MlpPolicy, nothing else."""
    if value == "MlpPolicy":
        return {}
    raise Refused("rlkit's networks are MLPs on flat observations (MlpPolicy) and have no other policy class")


def _same(name: str) -> Callable[[Any, Entry], dict[str, Any]]:
    """A key that means in rlkit what it means in SB3, under rlkit's name ``name`` (its type checked there)."""
    return lambda value, entry: {name: value}


def _same_count(name: str) -> Callable[[Any, Entry], dict[str, Any]]:
    """A count under rlkit's name ``name``, read as a whole number now: other translations compute with it."""
    return lambda value, entry: {name: _count(value, "a whole number")}


def _learning_rate(value: Any, entry: Entry) -> dict[str, Any]:
    """SB3's one rate, constant or ``lin_`` (to 0 over training), as the algorithm's own rate and switch."""
    rate, decays = _schedule(value)
    if entry.sb3 in ON_POLICY:
        return {"learning_rate": rate, "anneal_lr": decays}
    if entry.sb3 == "DQN":
        return {"learning_rate": rate, "final_lr_fraction": 0.0 if decays else 1.0}
    if decays:
        raise Refused(f"rlkit's {entry.name} keeps its step sizes constant: write learning_rate: {rate}")
    # every network at SB3's one rate (SB3's SAC tunes its entropy coefficient at it too, as rlkit's)
    return {"learning_rate": rate}


def _normalize(value: Any, entry: Entry) -> dict[str, Any]:
    """SB3's VecNormalize (``true``, or its arguments as a mapping) as rlkit's two normalisation switches."""
    if isinstance(value, bool):
        options = {"norm_obs": value, "norm_reward": value}
    else:
        options = {"norm_obs": True, "norm_reward": True, **_mapping(value)}
    for name, fixed in VEC_NORMALIZE_FIXED.items():
        if name in options and options.pop(name) != fixed:
            raise Refused(f"rlkit's normalisation uses {name}={fixed}, and no other")
    if "gamma" in options and options.pop("gamma") != entry.value("gamma"):
        raise Refused(f"rlkit scales rewards with the algorithm's own gamma ({entry.value('gamma')})")
    unknown = sorted(set(options) - {"norm_obs", "norm_reward"})
    if unknown:
        raise Refused(f"rlkit's normalisation has no {', '.join(unknown)}")
    switches = {"normalize_obs": bool(options["norm_obs"]), "normalize_rewards": bool(options["norm_reward"])}
    if entry.sb3 in ON_POLICY:
        return switches
    if not any(switches.values()):
        return {}
    raise Refused(f"rlkit's {entry.name} normalises neither observations nor rewards: drop the key (PPO and A2C do)")


def _batch_size(value: Any, entry: Entry) -> dict[str, Any]:
    """PPO's minibatch size as a number of minibatches per rollout; the replay algorithms' batch as it is."""
    size = _count(value, "a whole number of transitions")
    if entry.sb3 != "PPO":
        return {"batch_size": size}
    rollout = entry.count("num_envs") * entry.count("num_steps")
    if size < 1 or rollout % size:
        raise Refused(
            f"rlkit cuts each rollout of num_envs x num_steps = {rollout} transitions into num_minibatches equal "
            f"minibatches: write a batch_size that divides {rollout}, or num_minibatches"
        )
    return {"num_minibatches": rollout // size}


def _clip_range(value: Any, entry: Entry) -> dict[str, Any]:
    clip, decays = _schedule(value)
    return {"clip_range": clip, "anneal_clip": decays}


def _clip_range_vf(value: Any, entry: Entry) -> dict[str, Any]:
    """rlkit clips the value change by the policy's own clip_range (``clip_value``), or not at all."""
    if value is None:
        return {"clip_value": False}
    raise Refused("rlkit clips the value function by clip_range itself: drop the key, or write clip_value: true")


def _use_sde(value: Any, entry: Entry) -> dict[str, Any]:
    """gSDE: PPO's and A2C's ``use_sde``, the same switch; SB3's off-policy algorithms have it, rlkit's not."""
    if not isinstance(value, bool):
        raise Refused("must be true or false")
    if entry.sb3 in ON_POLICY:
        return {"use_sde": value}
    if value is False:
        return {}
    raise Refused(f"rlkit's {entry.name} has no state-dependent exploration (gSDE; PPO and A2C have it): drop the key")


def _sde_sample_freq(value: Any, entry: Entry) -> dict[str, Any]:
    """gSDE's resampling interval in steps of each environment, as SB3 counts it (-1: once per rollout)."""
    if entry.sb3 in ON_POLICY:
        return {"sde_sample_freq": _count(value, "a whole number of steps")}
    raise Refused(f"gSDE's resampling interval; rlkit's {entry.name} has no gSDE (PPO and A2C have it): drop the key")


def _use_rms_prop(value: Any, entry: Entry) -> dict[str, Any]:
    """SB3's A2C steps with RMSprop unless told otherwise; rlkit's A2C has both (its ``optimizer``)."""
    if not isinstance(value, bool):
        raise Refused("must be true (RMSprop) or false (Adam)")
    return {"optimizer": "rmsprop" if value else "adam"}


def _rms_prop_eps(value: Any, entry: Entry) -> dict[str, Any]:
    return {"rmsprop_eps": _number(value, "a number (RMSprop's epsilon)")}


def _vf_coef(value: Any, entry: Entry) -> dict[str, Any]:
    """The value loss's weight, doubled: SB3 weighs the mean squared error of the values, rlkit (as CleanRL)
    half of it, so SB3's ``vf_coef: 0.5`` gives the critic the gradient of rlkit's ``vf_coef=1.0``."""
    return {"vf_coef": 2 * _number(value, "a number (the value loss's weight)")}


def _off(what: str) -> Callable[[Any, Entry], dict[str, Any]]:
    """A switch rlkit supports only off (``optimize_memory_usage: false``)."""

    def translate(value: Any, entry: Entry) -> dict[str, Any]:
        if value is False:
            return {}
        raise Refused(f"rlkit has no {what}: drop the key")

    return translate


def _train_freq(value: Any, entry: Entry) -> dict[str, Any]:
    """SB3 trains every ``train_freq`` vector steps (each ``n_envs`` transitions); rlkit counts transitions."""
    unit = "step"
    if isinstance(value, list | tuple) and len(value) == 2:
        value, unit = value
    if unit == "episode":
        raise Refused("rlkit trains every train_every environment steps, never per episode: write a number of steps")
    if unit != "step":
        raise Refused("must be a number of steps, or [N, 'step']")
    every = _count(value, "a whole number of environment steps")
    if every < 1:
        raise Refused("must be at least 1 step")
    return {"train_every": every * entry.count("num_envs")}


def _gradient_steps(value: Any, entry: Entry) -> dict[str, Any]:
    """SB3's ``-1`` is one gradient step per transition collected since the last burst."""
    steps = _count(value, "a whole number of gradient steps, or -1")
    if steps == -1:
        return {"gradient_steps": entry.count("train_every")}
    if steps < 1:
        raise Refused("rlkit trains at least one gradient step per burst; write -1 or a positive number")
    return {"gradient_steps": steps}


def _tau(value: Any, entry: Entry) -> dict[str, Any]:
    """The off-policy algorithms' Polyak rate after each gradient step, as in rlkit. SB3's DQN blends ``tau``
    at each target update instead (every ``target_update_interval`` environment steps): only its default, 1
    (a copy), has an rlkit equivalent, the hard copy that ``target_update_interval`` translates to."""
    if entry.sb3 != "DQN":
        return {"tau": value}
    if value == 1 and "target_update_interval" in entry.raw:
        return {}
    raise Refused(
        "SB3's DQN blends tau into its target every target_update_interval environment steps, which rlkit "
        "has not; write target_update_interval alone (a copy), or rlkit's target_update: polyak with tau"
    )


def _target_update_interval(value: Any, entry: Entry) -> dict[str, Any]:
    """SB3's DQN copies its target every ``interval`` environment steps; rlkit's hard copies count gradient
    steps. They coincide when the copies fall before every burst (interval <= train_every: the target
    starts each burst equal to the online network) or before every k-th burst from the first one."""
    if entry.sb3 == "SAC":
        if value == 1:
            return {}
        raise Refused("rlkit's SAC blends its targets after every gradient step (SB3's 1): drop the key")
    interval = _count(value, "a whole number of environment steps")
    envs, every = entry.count("num_envs"), entry.count("train_every")
    gradient_steps, starts = entry.count("gradient_steps"), entry.count("learning_starts")
    calls = max(interval // envs, 1)  # SB3 counts vector steps of num_envs transitions
    burst = every // envs
    copies_every = None
    if every % envs == 0 and calls <= burst:
        copies_every = gradient_steps
    elif every % envs == 0 and calls % burst == 0:
        first = burst * (starts // every + 1)  # SB3's first burst: the first one after learning_starts
        if first % calls == 0:
            copies_every = gradient_steps * (calls // burst)
    if copies_every is None:
        guess = max(1, round(interval * gradient_steps / every))
        raise Refused(
            f"SB3 copies the target every {interval} environment steps; rlkit's {entry.name} counts gradient "
            f"steps, and with bursts of {gradient_steps} gradient steps every {every} environment steps no count "
            f"gives the same copies: write target_update: hard with target_update_every (about {guess} gradient "
            "steps here) yourself, or drop the key for rlkit's Polyak averaging"
        )
    return {"target_update": "hard", "target_update_every": copies_every}


def _noise_type(value: Any, entry: Entry) -> dict[str, Any]:
    kinds = {"normal": "gaussian", "ornstein-uhlenbeck": "ou"}
    kind = value.strip() if isinstance(value, str) else value
    if kind not in kinds:
        raise Refused("rlkit's exploration noise is 'normal' (gaussian) or 'ornstein-uhlenbeck' (ou)")
    if "noise_std" not in entry.raw:
        raise Refused("the zoo needs noise_std beside noise_type: add it")
    return {"exploration": kinds[kind]}


def _noise_std(value: Any, entry: Entry) -> dict[str, Any]:
    """The noise's std in the [-1, 1] scaled action range (SB3 adds it there, as rlkit does)."""
    if "noise_type" not in entry.raw:
        raise Refused("without noise_type the zoo adds no noise at all; add noise_type: 'normal'")
    return {"exploration_noise": _number(value, "one number (the std of every action dimension)")}


def _sac_ent_coef(value: Any, entry: Entry) -> dict[str, Any]:
    """``auto`` (tuned from 1), ``auto_0.1`` (tuned from 0.1), or a fixed coefficient."""
    if isinstance(value, str) and value.startswith("auto"):
        start = value.removeprefix("auto").removeprefix("_") or "1.0"
        try:
            return {"auto_alpha": True, "alpha": float(start)}
        except ValueError:
            raise Refused("must be auto, auto_X (tuned from X) or a number") from None
    return {"auto_alpha": False, "alpha": _number(value, "auto, auto_X (tuned from X) or a number")}


def _ent_coef(value: Any, entry: Entry) -> dict[str, Any]:
    if entry.sb3 == "SAC":
        return _sac_ent_coef(value, entry)
    return {"ent_coef": value}


def _target_entropy(value: Any, entry: Entry) -> dict[str, Any]:
    if value == "auto":
        return {"target_entropy": None}  # rlkit's None is SB3's auto: -action_dim
    return {"target_entropy": _number(value, "auto or a number")}


def _net_arch(value: Any, entry: Entry) -> dict[str, Any]:
    """Layer widths: a list, or (actor-critic) separate ``pi``/``vf`` or ``pi``/``qf`` lists, which rlkit
    gives the same widths (``hidden_sizes``); SB3 before 1.8 wrapped that mapping in a list."""
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], dict):
        value = value[0]
    if isinstance(value, dict) and entry.sb3 != "DQN":
        critic = "vf" if entry.sb3 in ON_POLICY else "qf"
        if set(value) != {"pi", critic} or value["pi"] != value[critic]:
            raise Refused(
                f"net_arch={value}: rlkit's actor and critic have the same widths, hidden_sizes; "
                f"write one list, e.g. net_arch=[64, 64]"
            )
        value = value["pi"]
    if isinstance(value, list) and value and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        return {"hidden_sizes": tuple(value)}
    raise Refused(f"net_arch={value}: write the hidden layers' widths as one list, e.g. net_arch=[64, 64]")


def _activation_fn(value: Any, entry: Entry) -> dict[str, Any]:
    wanted = "Tanh" if entry.sb3 in ON_POLICY else "ReLU"
    if str(value).rsplit(".", 1)[-1] == wanted:
        return {}
    raise Refused(f"activation_fn={value}: rlkit's {entry.name} networks use nn.{wanted}, and no other")


def _log_std_init(value: Any, entry: Entry) -> dict[str, Any]:
    if entry.sb3 in ON_POLICY:
        return {"log_std_init": _number(value, "a number")}
    raise Refused(f"log_std_init={value}: SB3 uses it with gSDE, which rlkit's {entry.name} has not; drop it")


def _ortho_init(value: Any, entry: Entry) -> dict[str, Any]:
    if value is True and entry.sb3 in ON_POLICY:
        return {}
    raise Refused(f"ortho_init={value}: rlkit's actor-critic networks always start orthogonal; drop it")


def _n_critics(value: Any, entry: Entry) -> dict[str, Any]:
    critics = 1 if entry.sb3 == "DDPG" else 2
    if value == critics:
        return {}
    raise Refused(f"n_critics={value}: rlkit's {entry.name} has {critics}; drop it")


#: ``policy_kwargs`` entries rlkit reads, by name; any other is refused.
POLICY_KWARGS = {
    "net_arch": _net_arch,
    "activation_fn": _activation_fn,
    "log_std_init": _log_std_init,
    "ortho_init": _ortho_init,
    "n_critics": _n_critics,
}


def _policy_kwargs(value: Any, entry: Entry) -> dict[str, Any]:
    """SB3's network arguments; every one rlkit cannot honour is named in one refusal."""
    settings, reasons = {}, []
    for name, item in _mapping(value).items():
        try:
            if name not in POLICY_KWARGS:
                raise Refused(f"{name}={item}: rlkit's networks have no such option; drop it")
            settings.update(POLICY_KWARGS[name](item, entry))
        except Refused as refused:
            reasons.append(str(refused))
    if reasons:
        raise Refused("; ".join(reasons))
    return settings


def _refuse(reason: str) -> Callable[[Any, Entry], dict[str, Any]]:
    def translate(value: Any, entry: Entry) -> dict[str, Any]:
        raise Refused(reason)

    return translate


#: Every zoo key rlkit reads, in the order they are translated: a key whose translation reads another
#: field (PPO's ``batch_size`` reads ``num_envs`` and ``num_steps``) comes after the keys that set it.
KEYS: dict[str, Key] = {
    "n_timesteps": Key(ANY, _total_steps, needs_algo=False),
    "policy": Key(ANY, _policy, needs_algo=False),
    "n_envs": Key(ANY, _same_count("num_envs"), needs_algo=False),
    "gamma": Key(ANY, _same("gamma"), needs_algo=False),
    "n_steps": Key(ON_POLICY, _same_count("num_steps")),
    "n_epochs": Key(frozenset({"PPO"}), _same("epochs")),
    "learning_rate": Key(ANY, _learning_rate),
    "gae_lambda": Key(ON_POLICY, _same("gae_lambda")),
    "ent_coef": Key(ON_POLICY | {"SAC"}, _ent_coef),
    "vf_coef": Key(ON_POLICY, _vf_coef),
    "max_grad_norm": Key(ON_POLICY | {"DQN"}, _same("max_grad_norm")),
    "target_kl": Key(frozenset({"PPO"}), _same("target_kl")),
    "normalize_advantage": Key(ON_POLICY, _same("normalize_advantages")),
    "clip_range": Key(frozenset({"PPO"}), _clip_range),
    "clip_range_vf": Key(frozenset({"PPO"}), _clip_range_vf),
    "use_rms_prop": Key(frozenset({"A2C"}), _use_rms_prop),
    "rms_prop_eps": Key(frozenset({"A2C"}), _rms_prop_eps),
    "use_sde": Key(ON_POLICY | OFF_POLICY, _use_sde),
    "sde_sample_freq": Key(ON_POLICY | OFF_POLICY, _sde_sample_freq),
    "normalize": Key(ANY, _normalize),
    "policy_kwargs": Key(ANY, _policy_kwargs),
    "buffer_size": Key(REPLAY, _same("buffer_size")),
    "learning_starts": Key(REPLAY, _same_count("learning_starts")),
    "exploration_fraction": Key(frozenset({"DQN"}), _same("eps_fraction")),
    "exploration_initial_eps": Key(frozenset({"DQN"}), _same("eps_start")),
    "exploration_final_eps": Key(frozenset({"DQN"}), _same("eps_end")),
    "optimize_memory_usage": Key(REPLAY, _off("memory-optimised replay buffer (it stores next observations)")),
    "noise_type": Key(frozenset({"DDPG", "TD3"}), _noise_type),
    "noise_std": Key(frozenset({"DDPG", "TD3"}), _noise_std),
    "policy_delay": Key(frozenset({"TD3"}), _same("policy_delay")),
    "target_policy_noise": Key(frozenset({"TD3"}), _same("target_noise")),
    "target_noise_clip": Key(frozenset({"TD3"}), _same("target_noise_clip")),
    "target_entropy": Key(frozenset({"SAC"}), _target_entropy),
    "train_freq": Key(REPLAY, _train_freq),
    "gradient_steps": Key(REPLAY, _gradient_steps),
    "batch_size": Key(frozenset({"PPO"}) | REPLAY, _batch_size),
    "tau": Key(REPLAY, _tau),
    "target_update_interval": Key(frozenset({"DQN", "SAC"}), _target_update_interval),
    **{key: Key(ANY, _refuse(reason), needs_algo=False) for key, reason in NO_EQUIVALENT.items()},
}


def sb3_name(config_class: type) -> str | None:
    """The SB3 algorithm whose zoo file fits rlkit's ``config_class`` (Rainbow reads DQN's), or None."""
    from rlkit.algos.a2c.config import A2CConfig
    from rlkit.algos.ddpg.config import DDPGConfig
    from rlkit.algos.dqn.config import DQNConfig
    from rlkit.algos.ppo.config import PPOConfig
    from rlkit.algos.sac.config import SACConfig
    from rlkit.algos.td3.config import TD3Config

    pairs = ((PPOConfig, "PPO"), (A2CConfig, "A2C"), (DQNConfig, "DQN"), (SACConfig, "SAC"), (TD3Config, "TD3"))
    return next((name for base, name in (*pairs, (DDPGConfig, "DDPG")) if issubclass(config_class, base)), None)


def _every_field() -> set[str]:
    """The hyperparameters of every registered algorithm: with no algorithm named, a key that is any
    algorithm's own does not make an entry the zoo's."""
    from rlkit.registry import ALGORITHMS

    return {f.name for entry in ALGORITHMS.values() for f in fields(entry.config_class)}


def is_zoo_entry(entry: dict[str, Any], fields_of_algo: set[str]) -> bool:
    """Whether an entry speaks the zoo's dialect: a key only the zoo uses, or a ``lin_`` schedule."""
    only_zoo = any(key in KEYS and key not in fields_of_algo for key in entry)
    schedules = (entry.get(key) for key in ("learning_rate", "clip_range"))
    return only_zoo or any(isinstance(value, str) and value.startswith("lin_") for value in schedules)


def translate(entry: dict[str, Any], algo: str | None, env_id: str, source: str) -> dict[str, Any]:
    """rlkit's settings for one entry of a hyperparameter file (``source`` names it in errors).

    An entry in rlkit's own keys comes back as it is; one in the zoo's dialect is translated key by key (see
    the module's documentation), or refused with every untranslatable key, its value and what to write.
    """
    config_class = None
    if algo is not None:
        from rlkit.registry import config_class as lookup

        config_class = lookup(algo)
    fields_of_algo = {f.name for f in fields(config_class)} if config_class else _every_field()
    if not is_zoo_entry(entry, fields_of_algo):
        return dict(entry)
    defaults = config_class.for_env(env_id).to_dict() if config_class else {}
    state = Entry(algo, sb3_name(config_class) if config_class else None, dict(entry), defaults)
    refusals = []
    for key, value in entry.items():  # rlkit's own keys first: translations read them, and check against them
        if key not in KEYS and (key in fields_of_algo or key in RUN_KEYS or config_class is None):
            state.settings[key], state.origin[key] = value, key
        elif key not in KEYS:
            known = fields_of_algo | set(KEYS) | RUN_KEYS
            reason = f"neither an RL-Zoo key nor a {state.name} hyperparameter.{did_you_mean(key, known)}"
            refusals.append(f"{key}: {_shown(value)} — {reason}")
    for key, rule in KEYS.items():
        if key in entry:
            try:
                _merge(state, key, _apply(rule, entry[key], state))
            except Refused as refused:
                refusals.append(f"{key}: {_shown(entry[key])} — {refused}")
    if refusals:
        lines = "\n  ".join(refusals)
        raise RlkitError(
            f"{source} ({env_id}): RL-Zoo keys rlkit cannot read for {algo or 'any algorithm'}:\n  {lines}"
        )
    return state.settings


def _apply(rule: Key, value: Any, entry: Entry) -> dict[str, Any]:
    """The rule's translation, where it applies: a key of another SB3 algorithm is refused as such."""
    if entry.sb3 is None and rule.needs_algo and entry.algo is None:
        raise Refused("its meaning depends on the algorithm: name it (rlkit train ALGO, or load_yaml's algo=)")
    if entry.sb3 is None and rule.needs_algo:
        raise Refused(f"the zoo has no file for {entry.name}: write {entry.name}'s own hyperparameters instead")
    if entry.sb3 is not None and entry.sb3 not in rule.algos:
        raise Refused(f"not a hyperparameter of SB3's {entry.sb3} (rlkit's {entry.name} has no equivalent): drop it")
    return rule.translate(value, entry)


def _merge(entry: Entry, key: str, settings: dict[str, Any]) -> None:
    """Add a key's translation, refusing a field that another key of the entry sets to a different value."""
    for name, value in settings.items():
        if name in entry.settings and _plain(entry.settings[name]) != _plain(value):
            other, before = entry.origin[name], entry.settings[name]
            raise Refused(
                f"it sets {name}={value!r}, but {other}: {_shown(entry.raw[other])} sets {name}={before!r}; "
                "keep one of the two keys"
            )
    for name, value in settings.items():
        entry.settings[name], entry.origin[name] = value, key


def _plain(value: Any) -> Any:
    """A value compared as YAML reads it: a tuple of layer widths equals the same list."""
    return list(value) if isinstance(value, tuple) else value


def _shown(value: Any) -> str:
    """A value as the file has it, on one line (the zoo writes long policy_kwargs over several)."""
    return " ".join(repr(value).replace("\\n", " ").split())
