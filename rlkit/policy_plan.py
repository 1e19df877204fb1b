"""What an exported policy computes around its network, as the agent describes it.

An agent knows its own post-processing (argmax, tanh and rescaling, clipping, observation normalisation), so
:mod:`rlkit.export` asks the agent for its plan (``agent.export_plan()``) instead of checking which family
it belongs to: a new algorithm exports by answering the same three questions (see
:class:`rlkit.algos.agent_base.Agent`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class PolicyPlan:
    """What the exported graph computes around the network, read off the agent (numpy arrays, float32).

    ``kind``: "argmax" (DQN, discrete actor-critic), "tanh" (DDPG, TD3, SAC: squash, then rescale to
    [low, high]) or "clip" (Gaussian actor-critic). ``columns``: how many leading network outputs the action
    uses (SAC's actor also outputs log stds). ``support``: C51's atoms (expected Q = softmax(logits) @ support).
    """

    obs_dim: int
    kind: str
    columns: int
    obs_mean: np.ndarray | None = None
    obs_std: np.ndarray | None = None
    obs_clip: float = 0.0
    low: np.ndarray | None = None
    high: np.ndarray | None = None
    support: np.ndarray | None = None
