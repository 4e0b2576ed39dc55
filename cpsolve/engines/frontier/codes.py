"""What the compiled counter (frontier_kernel.py) and its Python side (frontier.py) share, in a module
without numba: a run that loads the kernels' ahead-of-time build (cpsolve.native) never imports
numba."""

import numpy as np

EMPTY = np.uint64(0xFFFFFFFFFFFFFFFF)
DONE, FULL, OVERFLOW = 0, 1, 2
