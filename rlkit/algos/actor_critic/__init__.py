"""What A2C and PPO share: the config fields, the batch contract, the actor-critic networks (twins in
``torch.py`` / ``tf.py``) and the numpy training loop (``agent.py``: :class:`RolloutLoop`). Each algorithm
adds only its policy loss (``rlkit/algos/a2c``, ``rlkit/algos/ppo``)."""
