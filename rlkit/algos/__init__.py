"""The algorithms. Each lives in its own package with the same four files:

``config.py`` (a documented dataclass), ``agent.py`` (the framework-neutral training loop), and the twin
update steps ``torch.py`` and ``tf.py``. Importing this package imports no deep-learning framework.
"""
