"""The compiled helpers every kernel shares (numba; imported only by kernels):

- :mod:`.rng_jit`: the counter-based random streams (Philox4x32-10), the twin of
  :mod:`simulate.core.rng`;
- :mod:`.bits`: bit tricks on card masks (popcount, lowest set bit);
- :mod:`.work_sharing`: how the threads of a parallel kernel share out the games (an atomic
  counter of blocks).
"""

from .cache import install

install()
