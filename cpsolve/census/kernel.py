"""The compiled walk of the chain census (numba): every Hamiltonian path of a box from one prefix.

A chain that fills a box is a path through all its cells; reading the path cube by cube gives
the chain's joints (S where the path goes straight through a cube, C where it turns). So one walk
over the box's Hamiltonian paths counts the foldings of every chain at once, instead of one
search per chain. Cells are bits of one 64-bit board (bit x + a*(y + b*z)), as in the chain
engine, whose dead-end test this walk shares.

Per path found, a table keyed by its joints (bit i set: the (i+1)-th cube is a corner) adds one
to `counts[slot, PATHS]`; where the joints read the same backwards (a palindromic chain), it adds
the number of box symmetries that map the path onto itself read backwards (`TURNED`, and
`TURNED_PROPER` for the rotations among them): what Burnside's lemma needs to count that chain's
classes (cpsolve.census.chains). The table is open addressing over `table_keys`; `EMPTY` marks a
free slot (no joints value reaches it: at most 62 bits are used).

The walk's state lives in arrays the caller owns, so each call runs a bounded number of steps and
returns; the caller looks at the clock and grows the table in between.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from cpsolve.census.codes import PATHS, TURNED, TURNED_PROPER
from cpsolve.engines.chain_dfs.kernel import no_dead_ends

Array = Any  # numpy arrays
EMPTY = np.uint64(0xFFFFFFFFFFFFFFFF)
ONE = np.uint64(1)
ZERO = np.uint64(0)
GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True)
def _slot(table_keys: Array, key: Any) -> int:
    """The slot holding `key`, or the free slot where it goes (the table is never full)."""
    mask = table_keys.shape[0] - 1
    slot: int = int((key * GOLDEN) >> np.uint64(32)) & mask
    while table_keys[slot] != EMPTY and table_keys[slot] != key:
        slot = (slot + 1) & mask
    return slot


@njit(cache=True)
def _reversed(key: Any, width: int) -> Any:
    backwards = ZERO
    for bit in range(width):
        if (key >> np.uint64(bit)) & ONE:
            backwards |= ONE << np.uint64(width - 1 - bit)
    return backwards


@njit(cache=True)
def _symmetries_reversing(path: Array, images: Array, proper: Array) -> tuple[int, int]:
    """How many box symmetries map the path onto itself read backwards (all, and the rotations)."""
    last = path.shape[0] - 1
    found = 0
    rotations = 0
    for symmetry in range(images.shape[0]):
        maps = True
        for cube in range(last + 1):
            if images[symmetry, path[cube]] != path[last - cube]:
                maps = False
                break
        if maps:
            found += 1
            if proper[symmetry]:
                rotations += 1
    return found, rotations


@njit(cache=True)
def _record(path: Array, key: Any, width: int, images: Array, proper: Array, table_keys: Array, counts: Array) -> bool:
    """Count one path under its joints; True when it filled a new slot."""
    slot = _slot(table_keys, key)
    new: bool = table_keys[slot] == EMPTY
    table_keys[slot] = key
    counts[slot, PATHS] += 1
    if _reversed(key, width) == key:
        found, rotations = _symmetries_reversing(path, images, proper)
        counts[slot, TURNED] += found
        counts[slot, TURNED_PROPER] += rotations
    return new


@njit(cache=True)
def walk(
    inside: Array,
    shifts: Array,
    images: Array,
    proper: Array,
    path: Array,
    directions: Array,
    tried: Array,
    free: Array,
    keys: Array,
    depth: int,
    floor: int,
    step_budget: int,
    table_keys: Array,
    counts: Array,
    filled: int,
) -> tuple[int, int, int]:
    """Continue the walk from `depth`, never backing below `floor` (the unit's prefix); return
    (depth, steps, slots filled). Returns when the prefix's subtree is done (depth floor - 1),
    after `step_budget` steps, or when the table is three quarters full (it must then grow).

    Per depth i: `path[i]` the cell of the i-th cube, `directions[i]` the step into it, `tried[i]`
    the next direction to try out of it, `free[i]` the cells still empty, `keys[i]` the joints of
    cubes 1 .. i-1."""
    last = path.shape[0] - 1
    width = last - 1
    steps = 0
    limit = (table_keys.shape[0] * 3) // 4
    while depth >= floor:
        if steps >= step_budget or filled >= limit:
            return depth, steps, filled
        if depth == last:
            if _record(path, keys[depth], width, images, proper, table_keys, counts):
                filled += 1
            depth -= 1
            continue
        direction = tried[depth]
        if direction == 6:
            depth -= 1
            continue
        tried[depth] = direction + 1
        cell = path[depth]
        if not (inside[direction] >> np.uint64(cell)) & ONE:
            continue
        after = cell + shifts[direction]
        bit = ONE << np.uint64(after)
        if not free[depth] & bit:
            continue
        left = free[depth] & ~bit
        if left != ZERO and not no_dead_ends(left, after, inside, shifts):
            continue
        steps += 1
        key = keys[depth]
        if depth >= 1 and direction != directions[depth]:
            key |= ONE << np.uint64(depth - 1)
        depth += 1
        path[depth] = after
        directions[depth] = direction
        tried[depth] = 0
        free[depth] = left
        keys[depth] = key
    return depth, steps, filled


@njit(cache=True)
def rehash(old_keys: Array, old_counts: Array, table_keys: Array, counts: Array) -> None:
    """Move every entry of a full table into a larger empty one."""
    for slot in range(old_keys.shape[0]):
        if old_keys[slot] != EMPTY:
            moved = _slot(table_keys, old_keys[slot])
            table_keys[moved] = old_keys[slot]
            counts[moved, :] = old_counts[slot, :]
