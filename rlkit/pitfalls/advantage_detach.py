"""Claim C17: advantages must be detached, or the policy loss pushes gradients into the value network.

The experiment computes advantages ``A = returns - V(s)`` from the critic inside the computation graph and
measures the gradient that the *policy* loss ``-mean(log pi(a|s) A)`` alone sends to the critic's weights,
with and without detaching A, in torch and TensorFlow.
"""

from __future__ import annotations

import numpy as np


def critic_gradient_from_policy_loss(seed: int = 0) -> dict[str, float]:
    """Norm of d(policy loss)/d(critic weights) with attached and detached advantages, per framework."""
    import keras
    import tensorflow as tf
    import torch

    rng = np.random.default_rng(seed)
    obs = rng.normal(size=(64, 4)).astype(np.float32)
    log_probs = np.log(rng.uniform(0.2, 0.8, size=64)).astype(np.float32)
    returns = rng.normal(size=64).astype(np.float32)
    results = {}

    torch.manual_seed(seed)
    critic = torch.nn.Sequential(torch.nn.Linear(4, 16), torch.nn.Tanh(), torch.nn.Linear(16, 1))
    for detach in (False, True):
        critic.zero_grad()
        advantages = torch.from_numpy(returns) - critic(torch.from_numpy(obs)).squeeze(-1)
        if detach:
            advantages = advantages.detach()
        loss = -(torch.from_numpy(log_probs) * advantages).mean()
        if loss.requires_grad:
            loss.backward()
        norm = sum(float((p.grad**2).sum()) for p in critic.parameters() if p.grad is not None) ** 0.5
        results[f"torch, {'detached' if detach else 'attached'}"] = norm

    keras.utils.set_random_seed(seed)
    critic_tf = keras.Sequential([keras.Input((4,)), keras.layers.Dense(16, activation="tanh"), keras.layers.Dense(1)])
    for detach in (False, True):
        with tf.GradientTape() as tape:
            advantages = returns - tf.squeeze(critic_tf(obs), -1)
            if detach:
                advantages = tf.stop_gradient(advantages)
            loss = -tf.reduce_mean(log_probs * advantages)
        grads = tape.gradient(loss, critic_tf.trainable_variables)
        norm = sum(float(tf.reduce_sum(g**2)) for g in grads if g is not None) ** 0.5
        results[f"tf, {'detached' if detach else 'attached'}"] = norm
    return results
