"""The lower layers of rlkit: buffers, envs, schedules, contracts, seeding, checkpoints, hyperparameters, the CLI."""
