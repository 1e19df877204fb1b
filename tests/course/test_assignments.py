"""Every chapter exercise is an otter-grader assignment that grades as it should, without Docker.

For each assignment (built once by ``classroom.assign``, as ``make assignments`` does): the solution notebook
scores full marks and runs without an error; the unfilled student notebook runs top to bottom without an
error and scores zero; a submission with a known wrong answer (one of the mistakes its check explains)
loses exactly that exercise's points. One more submission passes the student-facing check but not the hidden
test, which is what the hidden tests are for. Grading goes through ``classroom.grade``, as ``make grade`` does.
"""

from __future__ import annotations

import csv
import shutil
import textwrap

import nbformat
import pytest

pytest.importorskip("otter", reason="the classroom extra (otter-grader) is part of .[all]")

from classroom import assign, grade  # noqa: E402

EXERCISES = assign.every_exercise()
POINTS = 2  # 1 for the chapter's check, 1 for the hidden test

# One wrong answer per exercise: a mistake its check names (the function keeps the stub's signature).
WRONG = {
    "bootstrap_mask": "return 1.0 - (terminated | truncated).astype(np.float32)",
    "td_target": "return rewards + gamma * (1 - terminated) * next_q.mean(axis=1)",
    "soft_update": "for t, o in zip(target, online):\n    t[...] = tau * t + (1 - tau) * o",
    "double_target": "return rewards + gamma * (1 - terminated) * next_q_target.max(axis=1)",
    "priority_weights": "p = priorities / priorities.sum()\nw = (len(p) * p[indices]) ** -beta\nreturn p, w / w.max()",
    "project": "return probs",
    "stack_at": "return frames[np.clip(np.arange(t - size + 1, t + 1), 0, None)]",  # crosses into the episode before
    "entropy_of_greedy_actions": (
        "p = np.bincount(q_values.argmax(axis=1), minlength=q_values.shape[1]) / len(q_values)\n"
        "p = p[p > 0]\nreturn float(-(p * np.log2(p)).sum())"
    ),
    "reward_to_go": "return np.cumsum(rewards[::-1])[::-1]",
    "policy_loss": "return -(log_probs * advantages).sum()",
    "clipped_surrogate": (
        "clipped = np.clip(ratio, 1 - clip, 1 + clip)\n"
        "return np.mean(np.maximum(ratio * advantages, clipped * advantages))"
    ),
    "gaussian_log_prob": (
        "z = (actions - mean) / np.exp(log_std)\nreturn -0.5 * z**2 - log_std - 0.5 * np.log(2 * np.pi)"
    ),
    "polyak_update": "return online",
    "smoothed_target_action": "return np.clip(target_action + sigma * noise, -1, 1)",
    "squashed_log_prob": (
        "z = (pre_tanh - mean) / np.exp(log_std)\nreturn (-0.5 * z**2 - log_std - 0.5 * np.log(2 * np.pi)).sum(1)"
    ),
    "first_crossing": (
        "reached = np.flatnonzero(returns > threshold)\nreturn int(steps[reached[0]]) if len(reached) else None"
    ),
    "seeded_rollout": (
        "env = gym.make('CartPole-v1')\nstarts, actions = [], []\nfor episode in range(3):\n"
        "    obs, _ = env.reset(seed=seed if episode == 0 else None)\n    starts.append(obs)\n    done = False\n"
        "    while not done:\n        actions.append(int(env.action_space.sample()))\n"
        "        obs, _, terminated, truncated, _ = env.step(actions[-1])\n        done = terminated or truncated\n"
        "return starts, actions"
    ),
    "standardize": "centred = x - x.mean()\nreturn centred / (torch.sqrt((centred**2).mean()) + 1e-8)",
    "to_env_units": "return squashed * high",
    "first_frame": (
        "env = gym.make(env_id, render_mode='rgb_array')\nenv.reset()\nframe = env.render()\nenv.close()\nreturn frame"
    ),
    # the capstone: an agent trained for one PPO rollout, far too short to land
    "land_the_lander": (
        "return rlkit.train('ppo', env='LunarLander-v3', seed=seed, total_steps=16_384, progress=False).agent"
    ),
}


@pytest.fixture(scope="module")
def assignments(tmp_path_factory):
    """Every assignment, built as `make assignments` builds them."""
    out = tmp_path_factory.mktemp("assignments")
    for exercise in EXERCISES:
        assign.make_assignment(assign.ROOT / exercise.source, out)
    return out


def submission(student_notebook, body: str, path):
    """The student notebook with its answer cell replaced by a function of the stub's signature and ``body``."""
    notebook = nbformat.read(student_notebook, as_version=4)
    (answer,) = [cell for cell in notebook.cells if "otter_answer_cell" in cell.metadata.get("tags", [])]
    (signature,) = [line for line in answer.source.splitlines() if line.startswith("def ")]
    answer.source = "\n".join(
        [line for line in answer.source.splitlines() if line.startswith(("import ", "from "))]
        + [signature, textwrap.indent(body, "    ")]
    )
    nbformat.write(notebook, path)
    return path


def test_every_exercise_has_an_assignment_with_a_hidden_test():
    from classroom.hidden_tests import HIDDEN

    assert len(EXERCISES) >= 16
    assert {exercise.name for exercise in EXERCISES} == set(HIDDEN) == set(WRONG)


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda exercise: exercise.chapter)
def test_assignment_grades_the_solution_the_unfilled_notebook_and_a_wrong_answer(exercise, assignments, tmp_path):
    folder = assignments / exercise.chapter
    student = folder / "student" / f"{exercise.chapter}.ipynb"
    assert "# BEGIN SOLUTION" not in student.read_text() and exercise.reference not in student.read_text()
    assert "compare_with_reference" not in student.read_text()  # the hidden test stays in the autograder

    solution = grade.grade_submission(folder / "autograder" / f"{exercise.chapter}.ipynb", assignments, debug=True)
    assert (solution.score, solution.possible, solution.error) == (POINTS, POINTS, ""), solution
    unfilled = grade.grade_submission(student, assignments, debug=True)  # debug: a cell's error fails grading
    assert (unfilled.score, unfilled.possible, unfilled.error) == (0, POINTS, ""), unfilled
    wrong = grade.grade_submission(submission(student, WRONG[exercise.name], tmp_path / "wrong.ipynb"), assignments)
    assert (wrong.score, wrong.possible, wrong.error) == (0, POINTS, ""), wrong


def test_the_hidden_test_grades_an_answer_that_only_fits_the_checks_cases(assignments, tmp_path, capsys):
    """A TD target that is right only for the check's batch of 5 passes the check and fails the hidden test;
    `make grade` prints the table and writes it as CSV."""
    student = assignments / "10_dqn" / "student" / "10_dqn.ipynb"
    folder = tmp_path / "submissions"
    folder.mkdir()
    shutil.copy(assignments / "10_dqn" / "autograder" / "10_dqn.ipynb", folder / "a_solution.ipynb")
    shutil.copy(student, folder / "b_unfilled.ipynb")
    fitted = "if len(rewards) != 5:\n    return rewards\nreturn rewards + gamma * (1 - terminated) * next_q.max(axis=1)"
    submission(student, fitted, folder / "c_fits_the_check.ipynb")
    assert grade.main([str(folder), "--assignments", str(assignments)]) == 0
    printed = capsys.readouterr().out
    assert "c_fits_the_check.ipynb  10_dqn      1 / 2" in printed, printed
    with (folder / "grades.csv").open() as file:
        rows = {row["submission"]: row for row in csv.DictReader(file)}
    assert [float(rows[name]["score"]) for name in sorted(rows)] == [2.0, 0.0, 1.0]
    assert float(rows["c_fits_the_check.ipynb"]["td_target"]) == 1.0


def test_grading_refuses_a_chapter_notebook_by_name(assignments):
    with pytest.raises(ValueError, match="no otter assignment name"):
        grade.grade_submission(assign.ROOT / "notebooks" / "10_dqn.ipynb", assignments)
