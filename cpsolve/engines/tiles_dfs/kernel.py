"""The compiled inner loop of the tiles search (numba); imported only when numba is installed.

The board is filled place by place in a fixed order. At each depth the labels already fixed
around the place (by tiles placed earlier, or by the board's edge, the "wall" label) pick its
candidates from a table: `table[start[c, a, b] : stop[c, a, b]]` are the orientations whose two
keyed sides fit labels a and b, for the depth's pair of keyed sides c. Up to two further fixed
sides are checked one by one. Copies of a kind are counted in `left`, so a kind is placed, never
one copy of it rather than another.

The whole state lives in arrays the caller owns, so each call runs a bounded number of
placements and returns, and the next call resumes where it left off (the caller looks at the
clock and Ctrl-C in between). Per depth d: `cursor[d]` the next table entry to try (-1: the
depth is not entered yet), `stop_at[d]` the end of its candidates, `chosen[d]` the orientation
placed there (-1: none); `placed[p]` the labels of the tile at place p (read only for places
already filled).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

Array = Any  # numpy arrays; numba compiles one version per dtype


@njit(cache=True)
def _facing(placed: Array, neighbour: int, side: int, wall: int) -> int:
    """The label that side `side` of a place faces: the neighbour's opposite side, or the wall."""
    if neighbour < 0:
        return wall
    return int(placed[neighbour, (side + 2) & 3])


@njit(cache=True)
def fill(
    order: Array,
    combo: Array,
    key_side: Array,
    key_place: Array,
    check_side: Array,
    check_place: Array,
    start: Array,
    stop: Array,
    table: Array,
    shown: Array,
    kind_of: Array,
    fits: Array,
    banned: Array,
    left: Array,
    placed: Array,
    cursor: Array,
    stop_at: Array,
    chosen: Array,
    depth: int,
    step_budget: int,
    found: Array,
) -> tuple[int, int, int]:
    """Continue the search from `depth`; return (depth, solutions written to `found`, placements).

    Returns when the tree is exhausted (depth -1), when `found` is full (each row: the orientation
    at each depth), or after `step_budget` placements. `key_side[d, k]` and `check_side[d, k]`
    are sides (0 top, 1 right, 2 bottom, 3 left; -1 none) whose neighbour `key_place[d, k]` /
    `check_place[d, k]` (-1: the wall) is already fixed; `fits[a, b]`: label a may face label b,
    the last label being the wall.
    """
    wall = fits.shape[0] - 1
    last = order.shape[0] - 1
    count = 0
    steps = 0
    while depth >= 0:
        if steps >= step_budget:
            return depth, count, steps
        place = order[depth]
        if cursor[depth] < 0:
            first = 0
            second = 0
            if key_side[depth, 0] >= 0:
                first = _facing(placed, key_place[depth, 0], key_side[depth, 0], wall)
            if key_side[depth, 1] >= 0:
                second = _facing(placed, key_place[depth, 1], key_side[depth, 1], wall)
            cursor[depth] = start[combo[depth], first, second]
            stop_at[depth] = stop[combo[depth], first, second]
        elif chosen[depth] >= 0:  # back from the depth below: take the tile away
            left[kind_of[chosen[depth]]] += 1
            chosen[depth] = -1
        i = cursor[depth]
        end = stop_at[depth]
        taken = -1
        while i < end:  # the candidate test, as in `probe`: a function (inlined or not) cost 5x
            o = table[i]
            i += 1
            if left[kind_of[o]] == 0 or banned[place, o]:
                continue
            fitting = True
            for k in range(2):
                side = check_side[depth, k]
                if side < 0:
                    break
                if not fits[shown[o, side], _facing(placed, check_place[depth, k], side, wall)]:
                    fitting = False
                    break
            if fitting:
                taken = o
                break
        cursor[depth] = i
        if taken < 0:
            cursor[depth] = -1
            depth -= 1
            continue
        steps += 1
        if depth == last:
            chosen[depth] = taken
            found[count, :] = chosen
            chosen[depth] = -1
            count += 1
            if count == found.shape[0]:
                return depth, count, steps  # resumes after this tile
            continue
        left[kind_of[taken]] -= 1
        chosen[depth] = taken
        for side in range(4):
            placed[place, side] = shown[taken, side]
        depth += 1
        cursor[depth] = -1
    return depth, count, steps


@njit(cache=True)
def probe(
    order: Array,
    combo: Array,
    key_side: Array,
    key_place: Array,
    check_side: Array,
    check_place: Array,
    start: Array,
    stop: Array,
    table: Array,
    shown: Array,
    kind_of: Array,
    fits: Array,
    banned: Array,
    copies: Array,
    placed: Array,
    probes: int,
    seed: int,
) -> float:
    """Knuth's estimate of the placements `fill` would make from depth 0: the mean over `probes`
    random paths of the sum, over the depths a path reaches, of the product of the candidates
    counted at each depth above (each counted exactly as `fill` takes them). Reproducible: the
    paths follow a xorshift generator started from `seed`."""
    wall = fits.shape[0] - 1
    candidates = np.empty(table.shape[0], np.int64)
    left = copies.copy()
    state = np.uint64(seed * 2654435761 + 1)
    total = 0.0
    for _ in range(probes):
        left[:] = copies
        width = 1.0
        for depth in range(order.shape[0]):
            place = order[depth]
            first = 0
            second = 0
            if key_side[depth, 0] >= 0:
                first = _facing(placed, key_place[depth, 0], key_side[depth, 0], wall)
            if key_side[depth, 1] >= 0:
                second = _facing(placed, key_place[depth, 1], key_side[depth, 1], wall)
            count = 0
            for i in range(start[combo[depth], first, second], stop[combo[depth], first, second]):
                o = table[i]  # the candidate test, as in `fill`: a function cost the probes 12x
                if left[kind_of[o]] == 0 or banned[place, o]:
                    continue
                fitting = True
                for k in range(2):
                    side = check_side[depth, k]
                    if side < 0:
                        break
                    if not fits[shown[o, side], _facing(placed, check_place[depth, k], side, wall)]:
                        fitting = False
                        break
                if fitting:
                    candidates[count] = o
                    count += 1
            if count == 0:
                break
            width *= count
            total += width
            state ^= state << np.uint64(13)
            state ^= state >> np.uint64(7)
            state ^= state << np.uint64(17)
            taken = candidates[int(state % np.uint64(count))]
            left[kind_of[taken]] -= 1
            for side in range(4):
                placed[place, side] = shown[taken, side]
    return total / probes
