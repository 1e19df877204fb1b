"""RLKIT_SEED_OFFSET reaches every seed: a run, an evaluation and seed_everything at offset k are exactly those of
seed + k at offset 0, and no chapter seeds a generator around it (``make book-shifted`` relies on both)."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import numpy as np
import pytest

import rlkit
from rlkit.seeding import SEED_OFFSET_VARIABLE, seed_offset, shifted

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"

#: Calls that turn a number into random state without going through rlkit, when that number is a literal.
RAW_SEEDING = re.compile(
    r"(default_rng|np\.random\.seed|random\.seed|manual_seed|set_seed|RandomState|space\.seed)\(\s*\d"
    r"|reset\(seed=\s*\d"
)


def test_the_offset_is_read_from_the_environment_and_checked(monkeypatch):
    monkeypatch.delenv(SEED_OFFSET_VARIABLE, raising=False)
    assert seed_offset() == 0 and shifted(5) == 5
    monkeypatch.setenv(SEED_OFFSET_VARIABLE, "3")
    assert seed_offset() == 3 and shifted(5) == 8
    for bad in ("-1", "two", "1.5"):
        monkeypatch.setenv(SEED_OFFSET_VARIABLE, bad)
        with pytest.raises(rlkit.RlkitError, match="RLKIT_SEED_OFFSET must be a non-negative integer"):
            shifted(0)


def test_seed_everything_and_evaluate_are_shifted(monkeypatch):
    monkeypatch.setenv(SEED_OFFSET_VARIABLE, "4")
    rng = rlkit.seed_everything(1)
    shifted_draws = (random.random(), np.random.random(), rng.random())
    policy = lambda obs: (obs[:, 2] > 0).astype(np.int64)  # noqa: E731  (a pole-following controller)
    shifted_returns = rlkit.evaluate(policy, "CartPole-v1", episodes=3, seed=10)
    monkeypatch.setenv(SEED_OFFSET_VARIABLE, "0")
    rng = rlkit.seed_everything(5)
    assert shifted_draws == (random.random(), np.random.random(), rng.random())
    np.testing.assert_array_equal(shifted_returns, rlkit.evaluate(policy, "CartPole-v1", episodes=3, seed=14))
    assert not np.array_equal(shifted_returns, rlkit.evaluate(policy, "CartPole-v1", episodes=3, seed=10))


def _run(seed: int) -> dict:
    pytest.importorskip("torch")
    result = rlkit.train("dqn", framework="torch", seed=seed, total_steps=1_500, learning_starts=500, progress=False)
    return {name: result.history.series(name)[1].tolist() for name in ("episode_return", "eval_return", "loss")}


def test_a_run_at_offset_k_is_the_run_of_seed_plus_k(monkeypatch):
    monkeypatch.setenv(SEED_OFFSET_VARIABLE, "2")
    at_offset = _run(0)
    monkeypatch.setenv(SEED_OFFSET_VARIABLE, "0")
    assert at_offset == _run(2)  # training episodes, losses and the evaluation episodes (seeded from the run)
    assert at_offset != _run(0)


def test_no_chapter_seeds_a_generator_past_the_offset():
    found = []
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        for index, cell in enumerate(json.loads(path.read_text(encoding="utf-8"))["cells"]):
            if cell["cell_type"] != "code":
                continue
            for line in "".join(cell["source"]).splitlines():
                if RAW_SEEDING.search(line) and "shifted(" not in line:
                    found.append(f"{path.name}, cell {index}: {line.strip()}")
    assert not found, "seed these through rlkit.seeding.shifted (RLKIT_SEED_OFFSET):\n" + "\n".join(found)


def test_the_raw_seeding_pattern_catches_what_it_names():
    for line in ("np.random.default_rng(0)", "env.reset(seed=3)", "torch.manual_seed(1)", "random.seed(2)"):
        assert RAW_SEEDING.search(line), line
    for line in ("np.random.default_rng(seed)", "env.reset(seed=seed)", "rlkit.train('dqn', seed=0)"):
        assert not RAW_SEEDING.search(line), line
