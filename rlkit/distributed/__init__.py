"""Beyond one process, on Ray: rollout workers for the on-policy loop and experiment sweeps as Ray tasks.

Ray is an optional extra (``pip install 'rlkit-course[ray]'``) and is imported only when one of these runs, so
``import rlkit`` and every single-process run stay as they are. The same code runs on the Ray that
:func:`connect` starts on this machine and on an existing cluster (``ray_address``): nothing here knows
which one it is on.
"""

from rlkit.distributed.cluster import connect, require_ray

__all__ = ["connect", "require_ray"]
