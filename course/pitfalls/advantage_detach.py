"""Claim C17: advantages must be detached, or the policy loss pushes gradients into the value network.

The experiment builds rlkit's own PPO and A2C learners (torch and TensorFlow, the same initial weights),
computes the advantages ``A = R - V(s)`` from the critic *inside* the computation graph, and takes the
gradient of the learner's own ``policy_loss`` alone with respect to the critic's outputs ``V(s_i)`` and
weights, with and without detaching ``A``:

* A2C's ``-mean(log pi(a|s) A)``: ``dL/dV(s_i) = log pi(a_i|s_i) / B < 0``, so a gradient step *raises* every
  V(s_i), most where the action taken was unlikely, whatever the sign of A;
* PPO's ``-mean(min(r A, clip(r) A))``: ``dL/dV(s_i) = c_i / B > 0`` with ``c_i = r_i`` or ``clip(r_i)``
  (whichever term the min picks), so a gradient step *lowers* every V(s_i), whatever the sign of A: the
  critic is trained to make every advantage larger;
* PPO with the advantages standardised per minibatch (rlkit's default): at ``r = 1`` (the first minibatch
  step of an update) the loss is ``-mean(A_std) = 0`` for any critic and no gradient reaches it; once the
  policy has moved (``r != 1``) one does.

Each is compared with the analytic value, with the value loss's own gradient on the same batch, and (torch)
with the change of V(s) after one small SGD step on the policy loss alone.
"""

from __future__ import annotations

import numpy as np

#: name -> (algorithm whose policy_loss is used, spread of log(pi_old / pi), standardise the advantages)
SETTINGS: dict[str, tuple[str, float, bool]] = {
    "A2C  -log pi * A": ("a2c", 0.0, False),
    "PPO  r = 1": ("ppo", 0.0, False),
    "PPO  r != 1": ("ppo", 0.3, False),
    "PPO  r = 1, standardised A": ("ppo", 0.0, True),
    "PPO  r != 1, standardised A": ("ppo", 0.3, True),
}


def _batch(seed: int, size: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {
        "obs": rng.normal(size=(size, 4)).astype(np.float32),
        "actions": rng.integers(0, 2, size=size).astype(np.int64),
        "returns": rng.normal(size=size).astype(np.float32),
        "log_ratio_noise": rng.normal(size=size).astype(np.float32),  # log(pi_old / pi) per unit of spread
    }


def _learners(algo: str, framework: str, seed: int):
    import importlib

    from rlkit.algos.a2c import A2CConfig
    from rlkit.algos.ppo import PPOConfig

    config = (PPOConfig if algo == "ppo" else A2CConfig)()
    module = importlib.import_module(f"rlkit.algos.{algo}.{framework}")
    return module.Learner(4, 2, True, config, seed), config.clip_range


def predicted_value_gradient(
    algo: str, log_probs: np.ndarray, ratio: np.ndarray, advantages: np.ndarray, clip: float
) -> np.ndarray:
    """dL/dV(s_i) for un-standardised advantages A = R - V: ``log pi / B`` (A2C), ``c_i / B`` (PPO)."""
    size = len(advantages)
    if algo == "a2c":
        return log_probs / size
    clipped = np.clip(ratio, 1 - clip, 1 + clip)
    return np.where(ratio * advantages <= clipped * advantages, ratio, clipped) / size


def critic_gradient_from_policy_loss(seed: int = 0, size: int = 64, sgd_step: float = 0.01) -> dict:
    """Per framework, setting and detach: dL/dV(s), the critic-weight gradient norms, and (torch) the mean
    change of V(s) after an SGD step of ``sgd_step`` on the policy loss alone. See the module docstring."""
    import tensorflow as tf
    import torch

    from rlkit.algos.actor_critic import tf as nets_tf
    from rlkit.algos.actor_critic import torch as nets_torch
    from rlkit.algos.actor_critic.tf import sample_std

    batch = _batch(seed, size)
    results: dict = {"torch": {}, "tf": {}}
    tf_learners = {algo: _learners(algo, "tf", seed) for algo in ("a2c", "ppo")}  # never stepped: reused
    for name, (algo, spread, standardise) in SETTINGS.items():
        for detach in (False, True):
            key = f"{name}, {'detached' if detach else 'attached'}"

            learner, clip = _learners(algo, "torch", seed)
            obs, actions = torch.from_numpy(batch["obs"]), torch.from_numpy(batch["actions"])
            returns = torch.from_numpy(batch["returns"])
            log_probs = nets_torch.log_prob_entropy(learner.model, obs, actions)[0]
            old_log_probs = log_probs.detach() + spread * torch.from_numpy(batch["log_ratio_noise"])
            values = nets_torch.critic_values(learner.model, obs)
            values.retain_grad()
            advantages = returns - values
            if detach:
                advantages = advantages.detach()
            if standardise:  # as the learners' loss does
                advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
            loss = learner.policy_loss(log_probs, old_log_probs, advantages, torch.tensor(clip))[0]
            value_loss = (
                learner.config.vf_coef * 0.5 * ((nets_torch.critic_values(learner.model, obs) - returns) ** 2).mean()
            )
            critic = list(learner.critic.parameters())
            grads = torch.autograd.grad(loss, [values, *critic], allow_unused=True)
            dl_dv = np.zeros(size) if grads[0] is None else grads[0].numpy().astype(np.float64)
            norm = sum(float((g**2).sum()) for g in grads[1:] if g is not None) ** 0.5
            value_norm = sum(float((g**2).sum()) for g in torch.autograd.grad(value_loss, critic)) ** 0.5
            with torch.no_grad():
                before = nets_torch.critic_values(learner.model, obs).clone()
                for p, g in zip(critic, grads[1:], strict=True):
                    if g is not None:
                        p -= sgd_step * g
                change = float((nets_torch.critic_values(learner.model, obs) - before).mean())
            ratio = np.exp((log_probs - old_log_probs).detach().numpy().astype(np.float64))
            predicted = predicted_value_gradient(
                algo, log_probs.detach().numpy(), ratio, (returns - before).numpy(), clip
            )
            results["torch"][key] = {
                "dl_dv": dl_dv, "critic_grad_norm": norm, "value_loss_grad_norm": value_norm,
                "mean_value_change": change, "ratio": ratio,
                "predicted_dl_dv": None if (detach or standardise) else predicted,
            }  # fmt: skip

            learner_tf, clip = tf_learners[algo]
            obs_tf, actions_tf = tf.constant(batch["obs"]), tf.constant(batch["actions"])
            with tf.GradientTape() as tape:
                log_probs_tf = nets_tf.log_prob_entropy(learner_tf.model, obs_tf, actions_tf)[0]
                old_tf = tf.stop_gradient(log_probs_tf) + spread * batch["log_ratio_noise"]
                values_tf = nets_tf.critic_values(learner_tf.model, obs_tf)
                advantages_tf = batch["returns"] - values_tf
                if detach:
                    advantages_tf = tf.stop_gradient(advantages_tf)
                if standardise:
                    advantages_tf = (advantages_tf - tf.reduce_mean(advantages_tf)) / (sample_std(advantages_tf) + 1e-8)
                loss_tf = learner_tf.policy_loss(log_probs_tf, old_tf, advantages_tf, tf.constant(clip))[0]
            critic_tf = learner_tf.critic.trainable_variables
            grads_tf = tape.gradient(loss_tf, [values_tf, *critic_tf])
            results["tf"][key] = {
                "dl_dv": np.zeros(size) if grads_tf[0] is None else grads_tf[0].numpy().astype(np.float64),
                "critic_grad_norm": sum(float(tf.reduce_sum(g**2)) for g in grads_tf[1:] if g is not None) ** 0.5,
            }
    return results
