"""A committed results file measures the code of one commit: when a later commit changes that code, the file
describes code that no longer exists, and the chapters that read it would go on printing it.

Each file under this test names the code it measured (:data:`MEASURED_CODE`). Its records name the commit they
ran at (``rlkit_commit``, which ends in ``+changes`` when the work tree differed: such a run measured code no
commit holds, and is refused). Every later commit that touches the named paths must be listed in
:data:`UNCHANGED_BY` with the reason it leaves the measurement as it was (a comment, a test, a change whose
weights the fingerprint tool shows bit-identical); any other makes the file stale until it is re-measured.

The settings of a run are checked apart, against today's defaults (``tests/benchmarks/staleness.py``).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benchmarks" / "results"

#: The library code every training run goes through: each algorithm's learners and loops, the parts they train
#: with, rlkit's evaluation, and the thread and BLAS set-up.
LIBRARY = (
    "rlkit/algos", "rlkit/buffers.py", "rlkit/sum_tree.py", "rlkit/nstep.py", "rlkit/exploration.py",
    "rlkit/noise.py", "rlkit/normalize.py", "rlkit/advantages.py", "rlkit/batches.py", "rlkit/schedules.py",
    "rlkit/envs.py", "rlkit/evaluate.py", "rlkit/hardware.py", "rlkit/nets.py", "rlkit/distributional.py",
)  # fmt: skip

#: Each results file under this test, and the paths (from the repository's root) whose code it measured.
MEASURED_CODE: dict[str, tuple[str, ...]] = {
    # the library, and the script that trains SB3 beside it
    "compare_sb3.json": (*LIBRARY, "benchmarks/comparisons/compare_sb3.py"),
    # seeds 5-9 of the on-policy pairs, by the same script (issue 33's steps to solve over ten seeds)
    "compare_sb3_seeds_5_9.json": (*LIBRARY, "benchmarks/comparisons/compare_sb3.py"),
    # seeds 10-29 of PPO on CartPole, by the same script (its steps to solve over thirty seeds)
    "compare_sb3_ppo_cartpole_seeds_10_29.json": (*LIBRARY, "benchmarks/comparisons/compare_sb3.py"),
    # SB3's A2C with three optimisers (no rlkit learner): the script, the SB3 runner and evaluation it calls
    "sb3_a2c_optimizer.json": (
        "benchmarks/comparisons/sb3_a2c_optimizer.py", "benchmarks/comparisons/compare_sb3.py", "rlkit/evaluate.py"
    ),
    # the library, and the script that plays each final agent
    "endings.json": (*LIBRARY, "benchmarks/learning/endings.py"),
    # the library, and claim C13's sweep of epsilon schedules (chapter 11)
    "epsilon_schedules.json": (*LIBRARY, "benchmarks/learning/epsilon_schedules.py"),
    # the library, and claim C25's temperature runs (chapter 32)
    "sac_temperature.json": (
        *LIBRARY, "course/pitfalls/alpha_tape.py", "benchmarks/learning/sac_temperature.py"
    ),
    # the library, and claim C28's run and jerk measure (chapter 31)
    "td3_smoothing.json": (
        *LIBRARY, "course/pitfalls/action_smoothness.py", "benchmarks/learning/td3_smoothing.py"
    ),
    # the library, and claim C07's runs and over-estimation measure (chapter 12)
    "overestimation.json": (
        *LIBRARY, "course/pitfalls/overestimation.py", "benchmarks/learning/overestimation.py"
    ),
    # the library, and claim C11's replay buffers and runs (chapter 13)
    "replay_schemes.json": (
        *LIBRARY, "course/pitfalls/bucketed_replay.py", "benchmarks/learning/replay_schemes.py"
    ),
    # the library, and the chapters' margins measured over many seeds: claim C19's clip ranges (chapter 22) and
    # claim C16's health signals (chapter 15)
    "clip_range.json": (*LIBRARY, "benchmarks/learning/clip_range.py"),
    "health_signals.json": (*LIBRARY, "benchmarks/learning/health_signals.py"),
    # the library, and the final agents of Acrobot's endings played greedy and sampled (issue 33's misses)
    **{
        name: (*LIBRARY, "benchmarks/learning/endings.py", "benchmarks/learning/acrobot_traps.py")
        for name in ("acrobot_traps.json", "acrobot_traps_rainbow.json")
    },
    # the library, and LunarLander's final agents played for 100 episodes each (issue 30's mark): the trainer
    # of the runs it plays, the player and the mark
    **{
        name: (
            *LIBRARY, "benchmarks/learning/harder_tasks.py", "benchmarks/learning/lander_tails.py", "course/lander.py"
        )
        for name in ("lander_tails.json", "lander_tails_td3_online_actor.json", "lander_tails_td3_whole_replay.json")
    },
    # the library, and chapter 23's ablation runs
    "ppo_ablation.json": (*LIBRARY, "benchmarks/learning/ppo_ablation.py"),
    # the library, its low-precision casts, and the endings script that ran the bf16 pass (chapter 44)
    "precision_bf16.json": (*LIBRARY, "rlkit/precision.py", "benchmarks/learning/endings.py"),
    # per-step timings: the library, the learners' update timing, and the scripts (large_nets also times
    # torch with MKL told Intel through course/blas.py's preload)
    "large_nets.json": (
        *LIBRARY, "benchmarks/costs/update_cost.py", "benchmarks/costs/large_nets.py", "course/blas.py"
    ),
    "cnn_update.json": (*LIBRARY, "rlkit/encoders.py", "benchmarks/costs/cnn_update.py"),
    # chapter 43's growth ratios timed three ways (and with torch's kernels held to AVX2): the library's
    # networks, course/timing.py's steps, the script
    **dict.fromkeys(
        ["side_by_side.json", "side_by_side_avx2.json"],
        (*LIBRARY, "rlkit/encoders.py", "course/timing.py", "benchmarks/costs/side_by_side.py"),
    ),
    # torch's eager floor beside TF's step: the library, the learners' update timing, and the script
    "eager_floor.json": (*LIBRARY, "benchmarks/costs/update_cost.py", "benchmarks/costs/eager_floor.py"),
    # the library, the export paths, and the script that trains, exports and times the policies (chapter 42)
    "litert.json": (*LIBRARY, "rlkit/export.py", "benchmarks/costs/litert.py"),
    # the library, the image encoders and Atari/MinAtar wrappers, and the script of the MinAtar runs (chapter 16)
    "pixels.json": (*LIBRARY, "rlkit/encoders.py", "rlkit/atari.py", "benchmarks/learning/harder_tasks.py"),
    # the MinAtar variants, and chapter 60's LunarLander and MuJoCo runs, made by the same script
    **dict.fromkeys(
        [
            "harder_tasks.json", "pixels_unseen_seeds.json", "pixels_dueling.json", "pixels_hard_target_1k.json",
            "pixels_hard_target_10k.json", "pixels_ppo_lr_1e-3.json", "pixels_n_step_1.json",
        ],
        (*LIBRARY, "rlkit/encoders.py", "rlkit/atari.py", "benchmarks/learning/harder_tasks.py"),
    ),
}  # fmt: skip

#: Every other committed results file, and why it is not under this test: a file is either here or in
#: :data:`MEASURED_CODE`, so a new results file cannot escape the test unnoticed. "Stale" says what
#: re-measuring would cost on the 2-core machine the files were measured on.
NOT_UNDER_TEST: dict[str, str] = {
    "endings_variants.json": "tuning passes, kept as the record of what was tried, each at the commit it names",
    "harder_tasks_variants.json": "tuning passes, kept as the record of what was tried, each at the commit it names",
    "sb3_on_policy_xeon.json": "SB3 alone, measured on another machine (an Intel Xeon); it measures no rlkit code",
}  # fmt: skip

#: Commits after a file's measurement that touch its code without changing what it measured: commit -> why.
UNCHANGED_BY: dict[str, str] = {
    "ed0e1b8": "the chain walk of rlkit/envs.py's state functions written once; the same states: DQN LunarLander and "
    "SAC HalfCheetah runs bit-identical again, the restore tests pass (and fail with the start's generators dropped)",
    "d0e3af5": "a comment in rlkit/envs.py; no code changed",
    "3cf0473": "what EnvRunner records at an episode's start (generators only) and how; it steps nothing "
    "differently: DQN LunarLander and SAC HalfCheetah runs bit-identical to 12ae209's again",
    "2847bc6": "the order of EnvRunner.restore's steps (count check first); a run that never resumes is untouched",
    "7abdbae": "the runner's record of an episode's start (e09e4bf) is deep-copied; it records, changes no step",
    "e09e4bf": "the runner records each episode in progress of a physics kept in C and plays it again on a resume; "
    "a run that never resumes steps exactly as before (DQN and PPO on LunarLander, SAC on HalfCheetah, both "
    "frameworks: weights and episode returns bit-identical to 12ae209's), and so do classic-control runs, "
    "which record nothing. Five rows of harder_tasks.json were resumed (resumed_from: PPO HalfCheetah torch 0, "
    "SAC and TD3 Hopper torch 0 and 1): their episodes in progress went on from a fresh world, as RESULTS.md says; "
    "a re-measurement would give the uninterrupted runs",
    "93a33af": "lander_tails.py records each run's evaluation curve and trained_here beside what it recorded "
    "before; nothing it plays or computes changed (test_lander_tails.py)",
    "9c3ad48": "TF's actor-critic calls its traced functions through their concrete functions and assigns the "
    "learning rate inside the update; every loop reads the weights once per update: all 34 runs of "
    "tools/weights_fingerprint.py bit-identical before and after (AMD EPYC). CPU seconds of TF's A2C and PPO "
    "can only have fallen (RESULTS.md, 'How close eager torch can come to TF')",
    "5a27367": "a docstring in rlkit/algos/tf_parts.py; no code changed",
    "8d14b2a": "the actor's slice of the weights moved into OffPolicyAgent.actor_part, the same slice: "
    "off-policy equivalence, resume and export tests pass (69), test_final_actor too",
    "e70ded7": "a comment in rlkit/algos/td3/config.py points to where the 42585c7 runs now live; no code changed",
    "16a4d6a": "a comment in rlkit/algos/td3/config.py gives the measurement behind final_actor='target'; "
    "no code changed",
    "786bf61": "TD3 on LunarLanderContinuous-v3 ends on its target actor (final_actor='target'), and nothing else "
    "changes: only that task's TD3 final agents differ (the runs agree up to their last step, test_final_actor.py). "
    "The files holding such runs were re-measured at it (harder_tasks.json's and lander_tails.json's TD3 rows) or "
    "hold the online actor's on purpose, with final_actor='online' in their overrides (lander_tails_td3_online_actor"
    ".json, lander_tails_td3_whole_replay.json); no other file trains TD3 on LunarLanderContinuous",
    "5b027ce": "DDPG and TD3 gained final_actor, at 'online' by default: end_training does nothing then, and runs "
    "are the same up to their end either way (tests/algorithms/test_final_actor.py); no default changed",
    "52d0f7d": "a comment in rlkit/algos/a2c/config.py corrected; no code changed",
    "aa0cfcf": "PPO defaults for HalfCheetah-v5, a task no file here trains; every other task's settings unchanged",
    "a079be7": "PPO defaults for Hopper-v5 (HalfCheetah's written once for both), tasks no file here trains",
    "be33583": "C28's per-seed summary moved into course/ and its script's default seeds widened: runs unchanged",
    "ad63b1f": "endings.py lost its list of pairs not yet measured (the re-measured file holds them all)",
    "cbe4b52": "endings.py gained --readme, a sentence printed from the file; its runs unchanged",
    "44262c9": "TensorFlow's thread pools held to one thread again (TF's default pools since a9cb5c4): weights "
    "bit-identical on all 30 fingerprint runs, so steps, returns and evaluations stand; TF CPU seconds of whole "
    "runs moved by at most 15% (RESULTS.md, 'TensorFlow's threads'); the per-step cost files were re-measured",
    "82677eb": "a docstring of course/pitfalls/action_smoothness.py corrected; no code changed",
    "7e27ae8": "the results files' commit stamp checks more paths for uncommitted edits; nothing measured changed",
    "21e901a": "SAC's LunarLanderContinuous default became 3-step returns: no file under the test trains SAC there",
    "d93458e": "comments of DQN's and PPO's MinAtar defaults updated to the re-measured counts; no code changed",
    "7a21f01": "TD3 gained HalfCheetah defaults and budget: no file under the test trains TD3 there",
    "5187e74": "health_signals.py names its two entropy bounds (the same values); its runs and checks unchanged",
    "b2b810e": "the docstrings of clip_range.py and health_signals.py give their passes' times; no code changed",
    "d60a0a0": "health_signals.py names its over-seed checks once (the same names, the same bounds); runs unchanged",
    "aca352a": "SAC and TD3 gained Hopper defaults and budgets (HalfCheetah's settings, the same values, written "
    "once for both): no file under the test trains either on Hopper",
    "4e39499": "harder_tasks reads a milestone past a run's end as None: the MinAtar runs (500k, 1M steps) reach "
    "both milestones, and recomputing every committed pixels file changed nothing",
    "492eba5": "the text of rlkit report's MKL note and a docstring; no computation changed",
    "ce0a2cb": "SAC's LunarLanderContinuous default back to one-step targets: no file under the test trains SAC there",
    "c060f70": "SAC's LunarLanderContinuous default became 256x256 with 3-step returns: no file under the test trains "
    "SAC there",
    "3359670": "the preload library's build moved into one context manager: the same commands measure the same calls",
    "8b144d8": "SAC's LunarLanderContinuous default back to the class defaults: no file under the test trains "
    "SAC there",
    "cb3f8fd": "SAC's LunarLanderContinuous budget became 300,000 steps: no file under the test trains SAC there",
    "42585c7": "TD3 took 3-step returns and a 300,000-step budget on LunarLanderContinuous: only TD3 there changed, "
    "and harder_tasks.json's TD3 runs there were measured after it",
    "db95723": "a comment in rlkit/algos/td3/config.py: what TD3's LunarLanderContinuous defaults measured",
    "286aa19": "the same comment, with the unseen torch seeds",
    "3d574ef": "endings.py's table gained a column computed from the stored evaluations; no run or record changed",
    "f76d82b": "A2C on CartPole standardises observations and rewards: the runs it changes, endings.json's and "
    "compare_sb3.json's A2C CartPole runs, were re-measured after it; no other file trains A2C on CartPole",
    "a9eaa64": "PPO on Pendulum discounts with 0.98: the runs it changes, endings.json's and compare_sb3.json's PPO "
    "Pendulum runs and ppo_ablation.json, were re-measured at it; no other file trains PPO on Pendulum",
    "5bdbffa": "DQN on CartPole and Acrobot adds 3-step returns, prioritized replay and C51 (DQNConfig.env_defaults; "
    "every other task and algorithm unchanged): the runs it changes, the DQN runs of endings.json, compare_sb3.json "
    "and precision_bf16.json, were re-measured at it; the files of one DQN mechanism (epsilon_schedules.json, "
    "overestimation.json, replay_schemes.json, litert.json) train plain DQN since 561f771, the settings they measured",
    "561f771": "the scripts of epsilon_schedules.json, overestimation.json, replay_schemes.json and litert.json pin "
    "plain DQN (PLAIN_DQN), the defaults they were measured with; tests changed",
    "e29faac": "a comment in rlkit/algos/dqn/config.py gained the re-measured endings; no code changed",
    "06a3ec7": "compare_sb3.py records the machine of each sitting and run; what it measures and how is unchanged",
    "87d14ab": "endings.py's late-evaluation count moved to course/measured.py; what it trains and records is the same",
    "4ec1fd6": "compare_sb3.py imports its IQM and bootstrap from course/pitfalls/statistics.py, the same code",
    "9159214": "compare_sb3.py writes its file atomically; what it measures and records is unchanged",
    "f7a526c": "endings.py's table gained a column computed from the stored final returns; no run changed",
    "9972ceb": "gSDE added to A2C and PPO as an option (use_sde), off by default: default runs' weights and metrics "
    "bit-identical (tools/weights_fingerprint.py: a2c, a2c-pendulum, ppo, ppo-pendulum, ppo-minatar, both frameworks)",
    "d7187d5": "a comment in rlkit/algos/ppo/config.py names the discount of its numbers; no code changed",
    "6d65a7c": "TD3 on Pendulum adds 3-step returns (TD3Config.env_defaults; every other task and algorithm "
    "unchanged): the runs it changes, TD3's rows of endings.json and its pair in compare_sb3.json (all three "
    "libraries, one machine), were re-measured at it; td3_smoothing.json's runs pin n_step 1, the setting they "
    "measured",
    "7656879": "a comment in rlkit/algos/td3/agent.py names the largest first solve measured; no code changed",
    "2dbea08": "DQN on LunarLander-v3 adds 3-step returns, prioritized replay and C51 over -300..300, with a "
    "200,000-step budget (DQNConfig.env_defaults, DEFAULT_TOTAL_STEPS; Rainbow's budgets derive from it, and no file "
    "here trains Rainbow on LunarLander): the runs it changes, harder_tasks.json's DQN LunarLander runs, were "
    "re-measured at it; every other task and algorithm unchanged",
    "20176d9": "a comment in rlkit/algos/dqn/config.py gained the LunarLander default's measured endings; no code "
    "changed",
    "baf6c0a": "PPO on CartPole takes an entropy bonus of 0.01 and SAC on Pendulum a step size of 3e-3 after 100 "
    "random steps (env_defaults; every other task and algorithm unchanged): the runs they change, those of "
    "endings.json and precision_bf16.json and compare_sb3.json's PPO CartPole and SAC Pendulum pairs, were "
    "re-measured at it; sac_temperature.json's and litert.json's runs pin the settings they were measured with "
    "(course/pitfalls/alpha_tape.py, benchmarks/costs/litert.py); eager_floor.json times SAC's Pendulum step, "
    "whose operations the step size leaves as they were (2,758 recorded calls per 8 steps at 1e-3 and at 3e-3); no "
    "other file trains either",
    "f59099d": "the docstring of course/timing.py rewrapped; no code changed",
    "398daae": "a comment in rlkit/algos/dqn/config.py gained the endings re-measured on an AMD EPYC; no code changed",
    "48c9f2a": "the --runs help text of benchmarks/costs/side_by_side.py; no measurement changed",
    "485a9f0": "lander_tails.py's docstring and --evaluated help say the option takes its own files too; no code "
    "changed",
    "919d486": "harder_tasks.py grades a LunarLander agent through course/lander.py's passes_mark, the same mark "
    "(mean - std >= 200, moved to be written once); no run or record changed",
    "069d83e": "PPO on Pendulum explores with gSDE and leaves observations unnormalised (PPOConfig.env_defaults; the "
    "precision check's message names use_sde=False; every other task and algorithm unchanged): the runs it changes, "
    "endings.json's and compare_sb3.json's PPO Pendulum runs and compare_sb3_seeds_5_9.json's rlkit ones, were "
    "re-measured at it (endings' 20 equal to the pass that chose it); ppo_ablation.py pins the plain Gaussian it "
    "measured since 44b202d; no other file trains PPO on Pendulum",
    "44b202d": "compare_sb3.py gained a table (--table steps), ppo_ablation.py pins the settings its file measured "
    "and names them: no run or record changed",
    "0d06262": "PPO on Pendulum takes minibatches of 64 (PPOConfig.env_defaults; every other task and algorithm "
    "unchanged): the runs it changes, endings.json's, compare_sb3.json's and compare_sb3_seeds_5_9.json's PPO "
    "Pendulum rlkit runs, were re-measured at it (endings' 20 equal to the pass that chose it); ppo_ablation.py "
    "pins the 32 its file measured since a755f86; no other file trains PPO on Pendulum",
    "a755f86": "ppo_ablation.py pins the minibatches its file measured (32): no run or record changed",
    "beaa6e1": "a comment in rlkit/algos/ppo/agent.py names the budget's margin with minibatches of 64; no code "
    "changed",
    "91b9f54": "the docstring of compare_sb3.steps_table; no code changed",
    "fa10f83": "EnvRunner drops the replay record of an episode past 100,000 steps: every measured task ends its "
    "episodes sooner (time limits of 200-1,000 steps; the ALE's 27,000), so no run's steps changed",
    "ee959ae": "A2C's optimizer option, Adam the default (FusedAdam's methods moved into a base class, its step "
    "unchanged: test_torch_adam's bit-for-bit test passes); the zoo importer's use_rms_prop: no measured run changed",
    "e0c6b29": "compare_sb3.run_sb3 takes a probe's overrides; None gives every committed run its settings as before",
    "9e08cb3": "the docstring of sb3_a2c_optimizer.py names SB3's Adam epsilon; no code changed",
    "0a57df3": "A2C's CartPole default (RMSprop at 1e-3): the runs it changes, endings.json's and compare_sb3.json's "
    "and compare_sb3_seeds_5_9.json's A2C CartPole rlkit runs, were re-measured at it (endings' 20 equal to the pass "
    "that chose it); no other file trains A2C on CartPole at its defaults (loss_reduction pins the class's)",
    "a9703b5": "the optimizer fields move to ActorCriticConfig and PPO's twins build the optimizer as A2C's (Adam "
    "by default): tools/weights_fingerprint.py gave the same 34 fingerprints at 0a57df3 and a9703b5",
    "e8684ec": "the optimizer built by one function per framework, the torch optimizers' prologue shared: the same "
    "34 fingerprints as at 0a57df3 (tools/weights_fingerprint.py)",
    "bec62b0": "compare_sb3's median helper renamed public and reused by sb3_a2c_optimizer's table (the same table: "
    "its test against RESULTS.md passes); no run changed",
    "612f409": "PPO's CartPole default takes SB3's settings whole (env_defaults and its budget; every other task "
    "unchanged): the runs it changes, PPO CartPole's of endings.json, precision_bf16.json, clip_range.json and the "
    "rlkit runs of compare_sb3.json, compare_sb3_seeds_5_9.json and compare_sb3_ppo_cartpole_seeds_10_29.json, "
    "were re-measured at it; litert.json's runs pin the settings they were measured with (benchmarks/costs/"
    "litert.py); no other file trains PPO on CartPole at its defaults",
    "dd33507": "litert.py's MEASURED_WITH pins PPO's CartPole settings of its measurement (44262c9: vf_coef 0.5, "
    "Adam epsilon 1e-8, 60,000 steps, no entropy bonus), the default it replaces; no run changed",
}


def git(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)


def measured_at(document: dict) -> list[str]:
    """The commits a results file's records name: a sweep's provenance (in its own record or at the file's top)
    and passes, a comparison's commands."""
    records = [document.get("provenance", {}), *document.get("passes", []), *document.get("commands", [])]
    if "rlkit_commit" in document:  # a seed sweep's file records it at its top
        records.append(document)
    return [record.get("rlkit_commit") for record in records if record]


def later_changes(commit: str, paths: tuple[str, ...]) -> list[str]:
    """The commits after ``commit`` up to HEAD that touch ``paths`` and are not listed in :data:`UNCHANGED_BY`,
    as 'hash subject' lines."""
    log = git("log", "--format=%H %s", f"{commit}..HEAD", "--", *paths)
    assert log.returncode == 0, log.stderr
    return [line for line in log.stdout.splitlines() if not any(map(line.startswith, UNCHANGED_BY))]


@pytest.fixture(scope="module")
def history() -> None:
    if git("rev-parse", "--git-dir").returncode != 0:
        pytest.skip("not a git checkout: the history that dates the code is not here")
    if git("rev-parse", "--is-shallow-repository").stdout.strip() == "true":
        pytest.skip("a shallow clone: the commits the results files name may not be in it (git fetch --unshallow)")


@pytest.mark.parametrize("name", sorted(MEASURED_CODE))
def test_no_commit_since_the_measurement_changed_the_code_it_measured(name, history):
    document = json.loads((RESULTS / name).read_text())
    commits = measured_at(document)
    assert commits, f"{name} names no commit it was measured at"
    for commit in commits:
        assert commit is not None, f"{name} has a record that names no commit: re-measure it"
        assert not commit.endswith("+changes"), (
            f"{name} has a run measured on uncommitted code ({commit}): re-measure it from a clean checkout"
        )
        stale = later_changes(commit, MEASURED_CODE[name])
        assert not stale, (
            f"{name} was measured at {commit}; since then these commits changed the code it measures:\n  "
            + "\n  ".join(stale)
            + "\nre-measure it, or list a commit in UNCHANGED_BY with the reason it leaves the numbers as they were"
        )


def test_every_committed_results_file_is_under_the_test_or_says_why_not():
    committed = {path.name for path in RESULTS.glob("*.json")}
    unaccounted = committed - set(MEASURED_CODE) - set(NOT_UNDER_TEST)
    assert not unaccounted, f"results files neither under the freshness test nor in NOT_UNDER_TEST: {unaccounted}"
    assert not set(MEASURED_CODE) & set(NOT_UNDER_TEST), "a file is either under the test or not"
    assert not set(NOT_UNDER_TEST) - committed, "NOT_UNDER_TEST names a file that is not committed"


def test_the_paths_named_exist():
    for name, paths in MEASURED_CODE.items():
        assert (RESULTS / name).exists(), name
        missing = [path for path in paths if not (ROOT / path).exists()]
        assert not missing, f"{name}: {missing}"


def test_a_change_to_the_measured_code_after_the_commit_makes_the_file_stale(history):
    """The check can fail: measured at the commit before the one that made A2C's Acrobot default, the
    comparison's code has a later change."""
    a2c_default = git("log", "-1", "--format=%H", "-S", '"Acrobot-v1": {"normalize_obs": True', "--",
                      "rlkit/algos/a2c/config.py").stdout.strip()  # fmt: skip
    assert a2c_default, "the commit that gave A2C its Acrobot defaults is in the history"
    stale = later_changes(f"{a2c_default}~1", MEASURED_CODE["compare_sb3.json"])
    assert any(line.startswith(a2c_default) for line in stale), stale
    assert not later_changes("HEAD", MEASURED_CODE["compare_sb3.json"])
