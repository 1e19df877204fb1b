"""rlkit beside Stable-Baselines3 with its RL-Zoo hyperparameters, and the floor the environments put under
both (``python -m benchmarks.comparisons.<script>``)."""
