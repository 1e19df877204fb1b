"""The optional fields of a replay batch, filled with what they mean when absent.

Replay batches may carry ``discounts`` (the bootstrap discount of each transition: gamma^k for a k-step
one) and ``weights`` (prioritized replay's importance weights). A one-step, uniformly sampled batch needs
neither, so the learners of every replay-based algorithm accept it as it is and fill the defaults here, in
numpy, before their update: gamma and 1.
"""

from __future__ import annotations

import numpy as np


def with_defaults(batch: dict[str, np.ndarray], gamma: float) -> dict[str, np.ndarray]:
    """``batch`` with ``discounts`` = gamma (one-step transitions) and ``weights`` = 1 (uniform replay) where
    absent; the fields present are passed on untouched (no copies)."""
    shape = batch["rewards"].shape
    defaults = {"discounts": np.full(shape, gamma, np.float32), "weights": np.ones(shape, np.float32)}
    return {**{name: value for name, value in defaults.items() if name not in batch}, **batch}
