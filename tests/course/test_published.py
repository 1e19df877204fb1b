"""course.published: the published results chapter 60 sets beside the committed MuJoCo runs."""

from __future__ import annotations

from course.published import FINAL, PUBLISHED, READ_AT, beside_published, evaluation_at

RUN = {"framework": "tf", "seed": 1, "eval_steps": [50_000, 100_000, 250_000, 320_000],
       "eval_returns": [1.0, 2.0, 3.0, 5.0], "final_mean": 4.0}  # fmt: skip


def test_a_run_is_read_at_its_last_evaluation_at_or_before_the_step():
    assert evaluation_at(RUN, 100_000) == 2.0  # at the step itself
    assert evaluation_at(RUN, 300_000) == 3.0  # the last one before it
    assert evaluation_at(RUN, 10_000) is None  # none yet


def test_a_run_that_ended_before_the_step_has_no_value_there():
    """A 250,000-step run's last evaluation is not its return at 300,000 (a table would show it as one)."""
    ended = {**RUN, "eval_steps": RUN["eval_steps"][:3], "eval_returns": RUN["eval_returns"][:3]}
    assert evaluation_at(ended, 250_000) == 3.0
    assert evaluation_at(ended, 300_000) is None


def test_rows_set_each_run_and_each_published_result_at_the_same_steps():
    rows = beside_published([RUN], "ppo", "Hopper-v5")
    assert rows[0] == ("rlkit tf, seed 1", [2.0, 3.0, 4.0])  # 100k, 300k, the final agent
    published = rows[1:]
    assert len(published) == len(PUBLISHED["ppo", "Hopper-v5"])
    for (label, values), ref in zip(published, PUBLISHED["ppo", "Hopper-v5"], strict=True):
        assert ref.who in label and ref.read_from in label
        assert values == [ref.returns.get(step) for step in (*READ_AT, FINAL)]


def test_every_published_result_says_where_and_how_it_was_read():
    for results in PUBLISHED.values():
        for ref in results:
            assert ref.read_from in ("table", "curve data", "plot, by eye")
            assert "/" in ref.source and ref.note  # a repository and its file, and what differs
            assert set(ref.returns) <= {*READ_AT, FINAL}  # only the steps the table reads
