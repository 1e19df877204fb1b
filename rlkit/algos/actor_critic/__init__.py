"""What A2C and PPO share: the config fields, the batch contract and its :class:`~.config.Batch`, the
actor-critic networks and policy distributions (functions and a model, twins in ``torch.py`` / ``tf.py``) and
the numpy training loop (``agent.py``: :class:`RolloutLoop`). Each algorithm's whole update is its own
``Learner`` (``rlkit/algos/a2c``, ``rlkit/algos/ppo``)."""
