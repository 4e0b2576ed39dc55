"""The 64-bit word constants the exact-cover kernels share, in a module without numba: the Python
side reads `BIT_OF` too, and a run that loads the kernels' ahead-of-time build (cpsolve.native)
never imports numba."""

from __future__ import annotations

from typing import Any

import numpy as np

BOX_BITS = 128  # the box search's board: two 64-bit words
ZERO = np.uint64(0)
ONE = np.uint64(1)
DE_BRUIJN = np.uint64(0x03F79D71B4CB0A89)
SHIFT = np.uint64(58)
NO_COUNTS = np.zeros(0, np.int64)  # the room check's tables where no cell may stay empty (never read)


def _de_bruijn_table() -> Any:
    """bit_of[(b * DE_BRUIJN) >> 58] = i for b = 2**i: the index of a lone set bit in a few operations."""
    table = np.zeros(64, np.int64)
    for bit in range(64):
        table[((1 << bit) * int(DE_BRUIJN) & (2**64 - 1)) >> 58] = bit
    return table


BIT_OF = _de_bruijn_table()
