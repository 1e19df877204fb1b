"""Swap the replay buffer DQN's training loop builds, for one ``with`` block (claims C09 and C11).

The loop calls :func:`rlkit.algos.dqn.agent.make_buffer` when it starts; an experiment that wants a
different buffer replaces that function for the duration of its run and leaves the loop itself untouched.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

import rlkit.algos.dqn.agent as dqn_agent
from rlkit.buffers import ReplayBuffer


@contextlib.contextmanager
def swapped_dqn_buffer(make_buffer: Callable[..., ReplayBuffer]) -> Iterator[None]:
    """Inside this block, DQN's loop gets its buffer from ``make_buffer(config, obs_dim, seed)``."""
    original = dqn_agent.make_buffer
    dqn_agent.make_buffer = make_buffer
    try:
        yield
    finally:
        dqn_agent.make_buffer = original
