"""What DDPG, TD3 and SAC share in numpy: config, batch contract, agent and loop. Each learner is whole in its
own files (``rlkit/algos/<algo>/torch.py``, ``tf.py``); their shared pieces are in ``rlkit/algos/*_parts.py``."""
