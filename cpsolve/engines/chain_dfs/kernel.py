"""The compiled inner loop of the chain engine (numba); imported only when numba is installed.

Cells are bits of one 64-bit board: bit x + a*(y + b*z) of the target's a x b x c bounding box.
The search lays the chain segment by segment; its whole state lives in arrays the caller owns,
so each call runs a bounded number of steps and returns, and the next call resumes where it left
off (the caller checks the clock and Ctrl-C in between).

State, per segment s: `directions[s]` the last direction tried for it (-1: none yet),
`heads[s]` the cell its first cube lies in, `boards[s]` the cells filled before it (cells of the
bounding box outside the target count as filled).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

Array = Any  # numpy arrays; numba compiles one version per dtype
Bits = Any  # a numpy uint64 holding one bit per cell (numba infers it; numpy's stubs cannot)

ZERO = np.uint64(0)
ONE = np.uint64(1)


@njit(cache=True)
def moved(cells: Bits, direction: int, inside: Array, shifts: Array) -> Bits:
    """The cells one step along a direction from the given cells, within the bounding box."""
    kept = cells & inside[direction]
    shift = shifts[direction]
    if shift > 0:
        return kept << np.uint64(shift)
    return kept >> np.uint64(-shift)


@njit(cache=True)
def no_dead_ends(free: Bits, head: int, inside: Array, shifts: Array) -> bool:
    """False when the free cells cannot all be filled by a path starting next to `head`.

    A free cell that touches at most one free cell (the head counts as free) can only hold the
    chain's last cube: two such cells, or one touching none, end the branch. What it saves is
    measured by `benchmarks/chain_walk.py`. A flood fill for connectivity on top was tried and cost
    more time than the placements it saved (King snake, every start: 20.9 million placements in
    1.47 s with this check alone, 19.2 million in 2.80 s with the flood fill as well).
    """
    open_cells = free | (ONE << np.uint64(head))
    at_least_one = ZERO
    at_least_two = ZERO
    for direction in range(6):
        neighbours = moved(open_cells, direction, inside, shifts)
        at_least_two |= at_least_one & neighbours
        at_least_one |= neighbours
    if free & ~at_least_one:
        return False
    ends = free & ~at_least_two
    return bool((ends & (ends - ONE)) == ZERO)


@njit(cache=True)
def walk(
    rays: Array,
    ray_ends: Array,
    inside: Array,
    shifts: Array,
    segments: Array,
    target: Bits,
    first_directions: Array,
    check_dead_ends: bool,
    directions: Array,
    heads: Array,
    boards: Array,
    depth: int,
    step_budget: int,
    found: Array,
) -> tuple[int, int, int]:
    """Continue the search from `depth`; return (depth, solutions written to `found`, steps).

    Returns when the tree is exhausted (depth -1), when `found` is full, or after `step_budget`
    segment placements. `rays[cell, d, n]` are the n - 1 cells after `cell` along direction d
    (0 when they leave the bounding box) and `ray_ends` the last of them; `first_directions[d]`
    says whether the first segment may go along d (symmetry breaking on the second cube).
    """
    last = segments.shape[0] - 1
    count = 0
    steps = 0
    while depth >= 0:
        if steps >= step_budget:
            return depth, count, steps
        head = heads[depth]
        board = boards[depth]
        length = segments[depth]
        direction = directions[depth] + 1
        advanced = False
        while direction < 6:
            # the first segment as the breaking allows; every later one perpendicular to the one before
            allowed = first_directions[direction] if depth == 0 else direction >> 1 != directions[depth - 1] >> 1
            ray = rays[head, direction, length]
            if not allowed or ray == ZERO or (ray & board) != ZERO:
                direction += 1
                continue
            steps += 1
            filled = board | ray
            end = ray_ends[head, direction, length]
            if depth == last:
                if (target & ~filled) == ZERO:
                    directions[depth] = direction
                    found[count, :] = directions
                    count += 1
                    if count == found.shape[0]:
                        return depth, count, steps  # resumes after this direction
                direction += 1
                continue
            if not check_dead_ends or no_dead_ends(target & ~filled, end, inside, shifts):
                advanced = True
                break
            direction += 1
        if advanced:
            directions[depth] = direction
            heads[depth + 1] = end
            boards[depth + 1] = board | rays[head, direction, length]
            depth += 1
            directions[depth] = -1
        else:
            directions[depth] = -1
            depth -= 1
    return depth, count, steps
