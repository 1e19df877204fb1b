"""Reading a hyperparameter file (``rlkit train --config FILE``, :func:`load_yaml`): rlkit's own YAML, the
``config.yaml`` a run writes, or an RL-Zoo file in the zoo's own keys.

Apart from :mod:`rlkit.hyperparams` (types, flags and the YAML a run writes) because reading the zoo's keys
needs every algorithm's config (:mod:`rlkit.zoo_yaml`), which sits above them.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from rlkit.errors import RlkitError
from rlkit.zoo_yaml import translate


def load_yaml(path: str | Path, env_id: str | None = None, algo: str | None = None) -> dict[str, Any]:
    """Settings from a YAML file: a flat mapping, or the RL-Zoo layout keyed by environment id.

    In the RL-Zoo layout (every value a mapping: no hyperparameter is one) the entry for ``env_id`` is used
    (default CartPole-v1). An entry in the zoo's own keys (``n_timesteps``, ``n_envs``, ``policy_kwargs``,
    ``learning_rate: lin_7.3e-4``...) is translated into ``algo``'s hyperparameters by
    :func:`rlkit.zoo_yaml.translate`, or refused naming each key rlkit has no equivalent for. A
    ``config.yaml`` that rlkit wrote for a run reads back as it was: its ``algo`` must be the command's, and
    its ``env``, ``framework``, ``seed`` and ``total_steps`` come back under those keys for the caller to use
    where the command line names none. Numbers are read as YAML 1.2 reads them (``3e-4`` is a float, where
    YAML 1.1 would make it a string).
    """
    import yaml

    path = Path(path)
    if not path.is_file():
        raise RlkitError(f"hyperparameter file '{path}' does not exist")
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=_yaml12_loader()) or {}
    except yaml.YAMLError as exc:
        raise RlkitError(f"'{path}' is not valid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise RlkitError(f"'{path}' must hold a mapping of hyperparameters, not {type(data).__name__}")
    wanted = env_id or data.get("env") or "CartPole-v1"
    if data and all(isinstance(value, dict) for value in data.values()):
        wanted = env_id or "CartPole-v1"
        if wanted not in data:
            raise RlkitError(f"'{path}' has settings for {', '.join(map(str, data))}, not for {wanted}")
        data = dict(data[wanted])
    written_for = data.pop("algo", None)
    if written_for is not None and algo is not None and str(written_for).lower() != algo.lower():
        raise RlkitError(f"'{path}' was written for algo {written_for!r}, not {algo!r}")
    return translate(data, algo, str(wanted), f"'{path}'")


@cache
def _yaml12_loader():
    """PyYAML's safe loader with YAML 1.2's float rule: ``1e-3`` and ``3E5`` are numbers, not strings."""
    import re as regex

    import yaml

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_implicit_resolver(
        "tag:yaml.org,2002:float",
        regex.compile(r"^[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9_]+)[eE][-+]?[0-9]+$"),
        list("-+0123456789."),
    )
    return Loader
