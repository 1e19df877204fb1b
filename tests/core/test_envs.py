from __future__ import annotations

import numpy as np
import pytest

from rlkit.envs import EnvRunner, make_env, make_vec_env, solve_threshold
from rlkit.errors import RlkitError


def test_unknown_env_gets_one_clear_error_with_a_suggestion():
    with pytest.raises(RlkitError, match="unknown environment 'CartPole-v9'.*Did you mean 'CartPole-v1'"):
        make_env("CartPole-v9")


def test_solve_thresholds_come_from_the_spec():
    assert solve_threshold("CartPole-v1") == 475.0
    assert solve_threshold("Acrobot-v1") == -100.0
    assert solve_threshold("Pendulum-v1") == -200.0


def test_runner_flags_autoreset_steps_and_keeps_truncation_apart(rng):
    # A 12-step time limit makes truncations frequent; random CartPole play makes terminations frequent.
    envs = make_vec_env("CartPole-v1", num_envs=3, seed=0, max_episode_steps=12)
    runner = EnvRunner(envs, seed=0)
    saw_truncation = saw_termination = False
    previous = None
    for _ in range(200):
        batch = runner.step(rng.integers(0, 2, size=3))
        if previous is not None:
            done_before = previous.terminated | previous.truncated
            # the step after a done is the autoreset step, and only that one is invalid
            np.testing.assert_array_equal(batch.valid, ~done_before)
            # valid transitions chain: this step starts where the previous one ended
            chained = ~done_before
            np.testing.assert_array_equal(batch.obs[chained], previous.next_obs[chained])
        saw_truncation |= bool((batch.truncated & ~batch.terminated & batch.valid).any())
        saw_termination |= bool((batch.terminated & batch.valid).any())
        previous = batch
    assert saw_truncation and saw_termination
    returns, lengths = runner.pop_episodes()
    # CartPole pays 1 per step, so each recorded return equals its length, at most the time limit
    assert len(returns) > 20
    np.testing.assert_array_equal(returns, lengths)
    assert lengths.max() <= 12
    runner.close()


def test_the_final_observation_of_a_truncated_episode_is_real():
    envs = make_vec_env("CartPole-v1", num_envs=1, seed=0, max_episode_steps=3)
    runner = EnvRunner(envs, seed=0)
    batches = [runner.step(np.array([0])) for _ in range(4)]
    assert batches[2].truncated[0] and batches[2].valid[0]
    assert not batches[3].valid[0]  # the reset step
    # the reset step's "next observation" is a fresh start, not a continuation of the final one
    assert not np.allclose(batches[3].next_obs, batches[2].next_obs)
    runner.close()


def test_float64_observations_leave_the_runner_as_float32():
    """MuJoCo's observations are float64: the runner casts them once, so acting and storing see float32."""
    import gymnasium as gym

    def float64_cartpole():
        env = gym.make("CartPole-v1")
        space = gym.spaces.Box(env.observation_space.low, env.observation_space.high, dtype=np.float64)
        return gym.wrappers.TransformObservation(env, lambda obs: obs.astype(np.float64), space)

    runner = EnvRunner(gym.vector.SyncVectorEnv([float64_cartpole, float64_cartpole]), seed=0)
    assert runner.obs.dtype == np.float32
    batch = runner.step(np.array([0, 1]))
    assert batch.obs.dtype == batch.next_obs.dtype == runner.obs.dtype == np.float32
    runner.close()


PHYSICS_IN_C = [("LunarLander-v3", "Box2D"), ("HalfCheetah-v5", "mujoco")]


def random_actions(envs, rng: np.random.Generator, count: int) -> list[np.ndarray]:
    """``count`` vector actions drawn from ``rng`` (the spaces' own generators are part of the state)."""
    space = envs.single_action_space
    if hasattr(space, "n"):
        return [rng.integers(0, space.n, envs.num_envs) for _ in range(count)]
    return [rng.uniform(space.low, space.high, (envs.num_envs, *space.shape)).astype(np.float32) for _ in range(count)]


def saved_and_restored(env_id: str, steps: int) -> tuple[EnvRunner, EnvRunner, np.random.Generator]:
    """A runner stepped ``steps`` times with random actions, and a fresh runner restored to its saved state."""
    from rlkit.envs import vector_env_state

    rng = np.random.default_rng(0)
    original = EnvRunner(make_vec_env(env_id, 2, seed=5, training=True), seed=5)
    for actions in random_actions(original.envs, rng, steps):
        original.step(actions)
    saved = (original.state_dict(), vector_env_state(original.envs))
    restored = EnvRunner(make_vec_env(env_id, 2, seed=5, training=True), seed=5)
    restored.restore(*saved)
    return original, restored, rng


@pytest.mark.parametrize(("env_id", "module"), PHYSICS_IN_C, ids=[env for env, _ in PHYSICS_IN_C])
def test_a_physics_kept_in_c_goes_on_exactly_after_a_restore(env_id, module):
    """Box2D's world and MuJoCo's MjData are out of the saved state's reach: the runner plays each episode in
    progress again from its recorded start, so the restored environments step on exactly as the saved ones
    (LunarLander's episodes end and restart before the save, HalfCheetah's at its 1,000-step limit after it)."""
    pytest.importorskip(module)
    original, restored, rng = saved_and_restored(env_id, 990)
    for actions in random_actions(original.envs, rng, 30):
        a, b = original.step(actions), restored.step(actions)
        for name in ("next_obs", "rewards", "terminated", "truncated", "valid"):
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    assert original.pop_episodes()[0].tolist() == restored.pop_episodes()[0].tolist()


def test_a_replay_that_ends_elsewhere_is_refused_by_name():
    """An environment that does not repeat its episode for the same start and actions cannot continue exactly:
    here the recorded actions were altered, and the restore says so instead of going on from another state."""
    pytest.importorskip("Box2D")
    from rlkit.envs import vector_env_state

    original, _, _ = saved_and_restored("LunarLander-v3", 40)
    state = original.state_dict()
    episode = state["_episodes"]["value"][1]
    episode["actions"] = (episode["actions"] + 1) % 4
    restored = EnvRunner(make_vec_env("LunarLander-v3", 2, seed=5, training=True), seed=5)
    with pytest.raises(RlkitError, match=r"sub-environment 1 \(LunarLander-v3\) did not repeat its episode"):
        restored.restore(state, vector_env_state(original.envs))


def assert_exact_after_the_episodes_in_progress(restored: EnvRunner, rng: np.random.Generator) -> None:
    """Once every episode in progress at a restore has ended (LunarLander's end within 1,000 steps), the runner's
    records are whole again: a second restore from its state steps on exactly as it does."""
    from rlkit.envs import vector_env_state

    for actions in random_actions(restored.envs, rng, 1_000):
        restored.step(actions)
    again = EnvRunner(make_vec_env("LunarLander-v3", 2, seed=5, training=True), seed=5)
    again.restore(restored.state_dict(), vector_env_state(restored.envs))
    for actions in random_actions(restored.envs, rng, 20):
        np.testing.assert_array_equal(restored.step(actions).next_obs, again.step(actions).next_obs)


def test_a_state_saved_before_episodes_were_recorded_goes_on_with_a_warning_then_exactly():
    """A checkpoint written before the runner kept its records cannot replay the episodes in progress: the
    restore says so, and from the next episode on the records (and a later restore) are exact again."""
    pytest.importorskip("Box2D")
    from rlkit.envs import vector_env_state

    original, _, rng = saved_and_restored("LunarLander-v3", 40)
    state = original.state_dict()
    del state["_episodes"]
    restored = EnvRunner(make_vec_env("LunarLander-v3", 2, seed=5, training=True), seed=5)
    with pytest.warns(UserWarning, match="saved without the record to play it again"):
        restored.restore(state, vector_env_state(original.envs))
    assert_exact_after_the_episodes_in_progress(restored, rng)


def test_an_episode_longer_than_the_record_is_dropped_and_a_resume_says_so():
    """An environment without a time limit could grow an episode's record for a whole budget: past
    ``max_recorded_actions`` the runner drops it (memory and checkpoints stay bounded), a restore from inside
    that episode warns instead of replaying, and the next episodes are recorded and exact again."""
    pytest.importorskip("Box2D")
    from rlkit.envs import vector_env_state

    rng = np.random.default_rng(0)
    original = EnvRunner(make_vec_env("LunarLander-v3", 2, seed=5, training=True), seed=5, max_recorded_actions=30)
    for actions in random_actions(original.envs, rng, 40):  # both episodes in progress are past 30 steps
        original.step(actions)
    state = original.state_dict()
    assert [len(episode["actions"]) for episode in state["_episodes"]["value"]] == [0, 0]
    restored = EnvRunner(make_vec_env("LunarLander-v3", 2, seed=5, training=True), seed=5, max_recorded_actions=30)
    with pytest.warns(UserWarning, match="had run more than 30 steps, past the record rlkit keeps"):
        restored.restore(state, vector_env_state(original.envs))
    restored.max_recorded_actions = 1_000  # LunarLander's time limit: every episode from here on is kept whole
    assert_exact_after_the_episodes_in_progress(restored, rng)
