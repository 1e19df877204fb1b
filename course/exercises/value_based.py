"""Checks for the exercises of the value-based chapters (01, 10-15)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from course.exercises.base import ExerciseError, answer, exercise_check, known, name_the_mistake, scalar


@exercise_check
def check_bootstrap_mask(bootstrap_mask: Callable) -> None:
    """Check ``bootstrap_mask(terminated, truncated) -> float32 mask`` (chapter 01)."""
    terminated = np.array([False, True, False, True])
    truncated = np.array([False, False, True, True])
    result = bootstrap_mask(terminated, truncated)
    if result is None:
        raise ExerciseError("bootstrap_mask returned None: did you forget the `return`?")
    result = np.asarray(result)
    if result.shape != (4,):
        raise ExerciseError(f"expected one factor per transition, shape (4,); got {result.shape}.")
    if result.dtype != np.float32:
        raise ExerciseError(f"return float32 (the dtype of the rewards it multiplies), got {result.dtype}.")
    if result[2] == 0:
        raise ExerciseError(
            "transition 2 was truncated, not terminated: its last state still has a future, so it must keep "
            "bootstrapping (factor 1). Only `terminated` stops bootstrapping (claim C10)."
        )
    if not np.array_equal(result, [1, 0, 1, 0]):
        raise ExerciseError(f"expected [1, 0, 1, 0] (0 exactly where terminated), got {result.tolist()}.")


@exercise_check
def check_td_target(td_target: Callable) -> None:
    """Check ``td_target(rewards, next_q, terminated, gamma) -> targets`` (chapter 10).

    ``next_q`` holds the target network's Q-values of the next observation for every action, shape
    ``(B, n_actions)``; the answer is ``r + gamma * (1 - terminated) * max_a next_q`` of shape ``(B,)``.
    """
    rewards, next_q, terminated, gamma = td_target_inputs()
    expected = known("td_target")
    result = td_target(rewards, next_q, terminated, gamma)
    if result is None:
        raise ExerciseError("td_target returned None: did you forget the `return`?")
    result = np.asarray(result)
    if result.shape == (5, 5):
        raise ExerciseError(
            "your targets have shape (5, 5): a (B,) array met a (B, 1) one and broadcast to (B, B) without "
            "any error (claim C08). Take the max over actions without keepdims, so it has shape (B,)."
        )
    if result.shape == (5, 1):
        raise ExerciseError("your targets have shape (5, 1); DQN expects (5,): squeeze the action axis.")
    if result.shape != (5,):
        raise ExerciseError(f"your targets have shape {result.shape}; expected one target per sample, (5,).")
    done = terminated == 1
    if not np.allclose(result[done], rewards[done], atol=1e-6):
        raise ExerciseError(
            "at a terminal transition the target must be the reward alone: multiply the bootstrap term by "
            "(1 - terminated). (A truncated transition, by contrast, keeps its bootstrap.)"
        )
    if np.allclose(result, expected["undiscounted"], atol=1e-6):
        raise ExerciseError("the bootstrap term is not discounted: multiply it by gamma.")
    for reduction in ("mean", "min", "first"):
        if np.allclose(result, expected[reduction], atol=1e-6):
            raise ExerciseError(
                f"you used the {reduction} of the next Q-values; the target uses the best next action: max over axis 1."
            )
    if not np.allclose(result, expected["answer"], atol=1e-5):
        raise ExerciseError(
            "targets differ from r + gamma * (1 - terminated) * max_a Q(s', a): "
            f"got {result}, expected {expected['answer']}."
        )
    if td_target(rewards[:1], next_q[:1], terminated[:1], gamma).shape != (1,):
        raise ExerciseError(
            "with a batch of one, the result must still have shape (1,): avoid .squeeze() without an axis."
        )


def td_target_inputs() -> tuple:
    """The check's batch: 5 transitions (two terminal), 3 actions, gamma 0.9."""
    rng = np.random.default_rng(0)
    rewards = rng.normal(size=5).astype(np.float32)
    next_q = rng.normal(size=(5, 3)).astype(np.float32)
    return rewards, next_q, np.array([0, 0, 1, 0, 1], dtype=np.float32), 0.9


@exercise_check
def check_soft_update(soft_update: Callable) -> None:
    """Check ``soft_update(target_weights, online_weights, tau) -> None`` (chapter 11).

    Both arguments are lists of numpy arrays; the function must move every target array ``tau`` of the way
    towards its online array *in place* (the caller keeps its list and sees no return value).
    """
    initial, online, tau = soft_update_inputs()
    target = [array.copy() for array in initial]
    returned = soft_update(target, online, tau)
    if all(np.array_equal(t, i) for t, i in zip(target, initial, strict=True)):
        hint = " It returned new arrays instead, which the caller never looks at." if returned is not None else ""
        raise ExerciseError(
            f"the target arrays did not change.{hint} A name rebound to `tau * online + (1 - tau) * target` "
            "never reaches the caller's arrays (claim C05). Write into them: `target[...] = ...` or "
            "`target += tau * (online - target)`."
        )
    stored = known("soft_update")
    expected, swapped = [stored["answer 0"], stored["answer 1"]], [stored["swapped 0"], stored["swapped 1"]]
    if all(np.allclose(t, s) for t, s in zip(target, swapped, strict=True)):
        raise ExerciseError("tau and 1 - tau are swapped: the target keeps 1 - tau of itself and takes tau of online.")
    if not np.allclose(target[0], expected[0]):
        raise ExerciseError(
            f"first array: expected {np.round(expected[0], 4).tolist()}, got {np.round(target[0], 4).tolist()}."
        )
    if not np.allclose(target[1], expected[1]):
        raise ExerciseError("the first array is right but the second is not: update every array in the list.")


def soft_update_inputs() -> tuple:
    """The check's weights: (target arrays, online arrays, tau), two arrays each."""
    rng = np.random.default_rng(7)
    online = [rng.normal(size=(3, 2)), rng.normal(size=2)]
    return [rng.normal(size=(3, 2)), rng.normal(size=2)], online, 0.1


@exercise_check
def check_double_target(double_target: Callable) -> None:
    """Check ``double_target(rewards, next_q_online, next_q_target, terminated, gamma) -> (B,)`` (chapter 12).

    Double DQN: the online network picks a' = argmax_a Q_online(s', a), the target network values it:
    r + gamma (1 - terminated) Q_target(s', a').
    """
    expected = known("double_target")
    result = answer("double_target", double_target(*double_target_inputs()), (5,))
    mistakes = {
        "vanilla": "that is the vanilla target: let the *online* network choose the action.",
        "online values": "the online network chooses a', but the *target* network values it.",
        "no terminal": "no bootstrap at a terminal transition: multiply by (1 - terminated) (row 3).",
    }
    name_the_mistake(result, expected, mistakes)
    if not np.allclose(result, expected["answer"]):
        raise ExerciseError(f"expected {np.round(expected['answer'], 4).tolist()}, got {np.round(result, 4).tolist()}.")


def double_target_inputs() -> tuple:
    """The check's batch: (rewards, next_q_online, next_q_target, terminated, gamma), row 3 terminal."""
    rng = np.random.default_rng(6)
    rewards, terminated = rng.normal(size=5), np.array([0.0, 0.0, 1.0, 0.0, 0.0])
    return rewards, rng.normal(size=(5, 3)), rng.normal(size=(5, 3)), terminated, 0.9


@exercise_check
def check_priority_weights(priority_weights: Callable) -> None:
    """Check ``priority_weights(priorities, indices, alpha, beta) -> (probabilities, weights)`` (chapter 13).

    Prioritized replay samples transition i with P(i) = p_i^alpha / sum_k p_k^alpha (``probabilities``: all N
    transitions) and weights the loss of each sampled transition j by w_j = (N P(j))^-beta, divided by the
    largest weight *in the sampled batch* (``weights``: one per entry of ``indices``), as rlkit's
    :class:`~rlkit.buffers.PrioritizedReplayBuffer` does. N cancels in that ratio, so using the batch size
    instead gives the same answer.
    """
    priorities, indices, alpha, beta = priority_weights_inputs()
    expected = known("priority_weights")
    result = priority_weights(priorities, indices, alpha, beta)
    if not isinstance(result, tuple) or len(result) != 2:
        raise ExerciseError("return a pair: (probabilities, weights).")
    if np.shape(result[1]) == priorities.shape:
        raise ExerciseError("return one weight per sampled index (shape (5,)), not one per stored transition.")
    probs, got = answer("probabilities", result[0], (6,)), answer("weights", result[1], (5,))
    if np.allclose(probs, expected["no alpha"]):
        raise ExerciseError("raise the priorities to the power alpha before normalising them.")
    if not np.allclose(probs, expected["probabilities"]):
        raise ExerciseError(f"probabilities should be {np.round(expected['probabilities'], 4).tolist()}.")
    mistakes = {
        "unnormalised weights": "divide the weights by the largest weight in the batch, so the largest is 1.",
        "buffer-normalised weights": "that divides by the largest weight over the whole buffer (OpenAI baselines' "
        "choice); here, as in rlkit, divide by the largest weight among the sampled indices.",
        "inverse weights": "the exponent is -beta: rarely sampled transitions get the *larger* weights.",
    }
    name_the_mistake(got, expected, mistakes)
    if not np.allclose(got, expected["weights"]):
        raise ExerciseError(f"weights should be {np.round(expected['weights'], 4).tolist()}.")


def priority_weights_inputs() -> tuple:
    """(priorities, indices, alpha, beta): a batch with a repeat, without the least likely transition (0)."""
    return np.array([0.1, 1.0, 4.0, 0.5, 2.0, 0.8]), np.array([2, 4, 1, 4, 3]), 0.6, 0.4


@exercise_check
def check_categorical_projection(project: Callable) -> None:
    """Check ``project(probs, rewards, discounts, support) -> (B, N)`` (chapter 14): C51's projection of
    r + discount * Z back onto the support, with ``discounts`` 0 at terminal transitions."""
    expected = known("project")["answer"]
    result = answer("project", project(*project_inputs()), (5, 11))
    if not np.allclose(result.sum(axis=1), 1.0, atol=1e-5):
        raise ExerciseError(
            f"each row must sum to 1, got {np.round(result.sum(axis=1), 4).tolist()}: mass is lost (clip the "
            "shifted atoms to [v_min, v_max]? an atom landing exactly on a grid point keeps all its mass?)."
        )
    if not np.allclose(result[3], expected[3], atol=1e-5):
        raise ExerciseError("at a terminal transition (discount 0) all mass belongs at r = -3 (row 4).")
    if not np.allclose(result, expected, atol=1e-5):
        wrong = np.flatnonzero(~np.isclose(result, expected, atol=1e-5).all(axis=1)) + 1
        raise ExerciseError(f"row(s) {wrong.tolist()} differ from the paper's projection.")


def project_inputs() -> tuple:
    """(probs, rewards, discounts, support): row 2 lands on atoms, row 3 beyond v_max, row 4 is terminal."""
    from rlkit.distributional import categorical_support, softmax

    rng = np.random.default_rng(5)
    support = categorical_support(-10.0, 10.0, 11)  # atoms 2 apart
    probs = softmax(rng.normal(size=(5, 11)))
    return probs, np.array([1.0, 2.0, 30.0, -3.0, 0.5]), np.array([0.9, 1.0, 0.9, 0.0, 0.5]), support


@exercise_check
def check_action_entropy(entropy_of_greedy_actions: Callable) -> None:
    """Check ``entropy_of_greedy_actions(q_values) -> float`` (chapter 15): the entropy in nats of how often
    each action is the argmax over a batch of Q-values of shape (batch, n_actions)."""
    cases, stored = entropy_inputs(), known("entropy_of_greedy_actions")
    for name, q_values in cases.items():
        result = scalar("entropy_of_greedy_actions", entropy_of_greedy_actions(q_values.copy()), "the batch's entropy")
        expected, softmax_entropy = float(stored[f"answer: {name}"]), float(stored[f"softmax: {name}"])
        if np.isnan(result):
            raise ExerciseError(
                f"{name}: got nan. An action that is never chosen has frequency 0 and adds 0 "
                "to the entropy: leave it out of the sum rather than computing 0 * log(0)."
            )
        if name == "two actions, half each" and np.isclose(result, 1.0):
            raise ExerciseError(
                "you measured bits (log2); use the natural log, so two equally likely actions give ln 2."
            )
        if not np.isclose(expected, softmax_entropy) and np.isclose(result, softmax_entropy):
            raise ExerciseError(
                "that is the entropy of a softmax over Q-values; count how often each action is the argmax."
            )
        if not np.isclose(result, expected, atol=1e-6):
            raise ExerciseError(f"{name}: expected {expected + 0.0:.4f} nats, got {result:.4f}.")


def entropy_inputs() -> dict[str, np.ndarray]:
    """The check's batches of Q-values, by the case each one is."""
    rng = np.random.default_rng(8)
    return {
        "one action always wins": np.tile([[0.0, 5.0, 1.0]], (8, 1)),
        "two actions, half each": np.array([[1.0, 0.0, -1.0]] * 4 + [[0.0, 1.0, -1.0]] * 4),
        "random Q-values": rng.normal(size=(64, 3)),
    }


@exercise_check
def check_stack_at(stack_at: Callable) -> None:
    """Check ``stack_at(frames, starts, t, size) -> (size, H, W)`` (chapter 16).

    ``frames`` holds one environment's frames in the order they came, ``starts[i]`` is True where frame ``i``
    is the first of an episode (the frame after a reset); the stack ending at frame ``t`` lists ``size``
    frames, oldest first, and where the episode is younger than ``size`` frames the slots before its first
    frame repeat that first frame (rlkit.atari's stacks after a reset).
    """
    # frame i is filled with the value i + 1, so every frame of a stack says where it came from (0: padding)
    frames = (np.arange(12, dtype=np.uint8) + 1)[:, None, None] * np.ones((1, 2, 3), dtype=np.uint8)
    starts = np.zeros(12, dtype=bool)
    starts[[0, 5, 7]] = True  # episodes of 5, 2 and 5 frames
    for t in (9, 4, 5, 6, 0, 11):
        result = stack_at(frames.copy(), starts.copy(), t, 4)
        if result is None:
            raise ExerciseError("stack_at returned None: did you forget the `return`?")
        result = np.asarray(result)
        if result.shape != (4, 2, 3):
            raise ExerciseError(f"expected a stack of 4 frames of 2x3 pixels, shape (4, 2, 3); got {result.shape}.")
        if result.dtype != frames.dtype:
            raise ExerciseError(f"keep the frames' dtype ({frames.dtype}: a stack of pixels), got {result.dtype}.")
        if not all(np.all(frame == frame.flat[0]) for frame in result):
            raise ExerciseError("each slot of the stack must be one whole frame: index frames along their first axis.")
        labels = result[:, 0, 0].astype(int) - 1  # the index of the frame in each slot
        first = int(np.flatnonzero(starts[: t + 1])[-1])  # the first frame of t's episode
        where = f"(the stack ending at frame {t}, whose episode began at frame {first})"
        if (labels < 0).any():
            raise ExerciseError(
                f"your stack holds zeros {where}: fill the slots before the episode's first frame with that first "
                "frame, as rlkit.atari does, not with zeros."
            )
        if labels[-1] != t:
            if labels[0] == t:
                raise ExerciseError(f"the newest frame must come last, the oldest first {where}: reverse your stack.")
            raise ExerciseError(f"the last slot must hold frame {t} itself {where}, got frame {labels[-1]}.")
        if labels.min() < first:
            raise ExerciseError(
                f"your stack reaches back to frame {labels.min()} {where}: that frame belongs to the episode before, "
                "which ended. A stack never mixes two episodes: stop at the episode's first frame."
            )
        steps = np.diff(labels)
        if (steps < 0).any() or (steps > 1).any():
            raise ExerciseError(f"the frames of a stack are consecutive, oldest first {where}; got frames {labels}.")
        if (steps == 0).any() and (labels[: np.flatnonzero(steps == 0)[-1] + 1] != first).any():
            raise ExerciseError(f"only the episode's first frame ({first}) may repeat {where}; got frames {labels}.")
