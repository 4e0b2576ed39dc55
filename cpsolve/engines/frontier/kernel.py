"""The frontier count compiled (numba): the same levels as cpsolve.engines.frontier.counter, in flat arrays.

A sub-problem at position i is two 64-bit words: the filled positions from i on (bit 0 is i) and
the resources with their guard bits, as the Python counter keeps them. A level is an open
addressing hash table of such pairs (linear probing; an empty slot holds all ones in its mask
word, which no mask of at most 63 positions is), each row the pair and its count in `limbs`
64-bit words. The
pair is compared whole, never trusted to its hash. A count that would carry out of its top limb
stops the level with OVERFLOW and the count starts again with one more limb, so counts are exact
at any size and small ones stay one word.

Moving on one position: a sub-problem whose bit 0 is set shifts right; one whose bit 0 is open
takes each move that fits (no filled position in its mask, no resource field borrowing its
guard), and the result shifts right. The kernel works through a level in slices of slots, so that
the caller looks at the clock and Ctrl-C between them, and stops with FULL before the table it
fills passes its load, so that the caller can grow it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from cpsolve.engines.frontier.codes import DONE, EMPTY, FULL, OVERFLOW

MIX_MASK = np.uint64(0x9E3779B97F4A7C15)
MIX_RESOURCES = np.uint64(0xC2B2AE3D27D4EB4F)


@njit(cache=True, inline="always")
def _slot(mask: Any, resources: Any, last: Any) -> Any:
    """The first slot to look at: the pair mixed so that every bit moves the low bits the table
    takes (masks differ mostly in their high bits; a plain product would leave those out)."""
    mixed = mask ^ (resources * MIX_RESOURCES)
    mixed ^= mixed >> np.uint64(33)
    mixed *= MIX_MASK
    mixed ^= mixed >> np.uint64(29)
    mixed *= MIX_RESOURCES
    mixed ^= mixed >> np.uint64(32)
    return mixed & last


@njit(cache=True)
def _add(table: Any, mask: Any, resources: Any, ways: Any) -> Any:
    """Add `ways` to the sub-problem's count in the table; (1 if it was new, 0 if not; overflowed).
    A table row is the mask, the resources and the count's limbs, side by side: one cache line
    read per look-up on the tables that matter (tens of megabytes)."""
    last = np.uint64(table.shape[0] - 1)
    slot = _slot(mask, resources, last)
    limbs = table.shape[1] - 2
    while True:
        held = table[slot, 0]
        if held == EMPTY:
            table[slot, 0] = mask
            table[slot, 1] = resources
            for limb in range(limbs):
                table[slot, 2 + limb] = ways[limb]
            return 1, False
        if held == mask and table[slot, 1] == resources:
            carry = np.uint64(0)
            for limb in range(limbs):
                before = table[slot, 2 + limb]
                total = before + ways[limb]
                next_carry = np.uint64(1) if total < before else np.uint64(0)
                total2 = total + carry
                if total2 < total:
                    next_carry = np.uint64(1)
                table[slot, 2 + limb] = total2
                carry = next_carry
            return 0, carry != np.uint64(0)
        slot = (slot + np.uint64(1)) & last


@njit(cache=True)
def step(
    table: Any,
    start: int,
    end: int,
    move_masks: Any,
    move_uses: Any,
    guards: Any,
    following: Any,
    held: int,
    most: int,
) -> Any:
    """Move the level's slots start .. end - 1 on by one position into the next table, which
    holds `held` sub-problems and may hold `most`. Returns (the slot it stopped at, held, status)."""
    moves = move_masks.size
    one = np.uint64(1)
    for slot in range(start, end):
        mask = table[slot, 0]
        if mask == EMPTY:
            continue
        if held + moves + 1 > most:
            return slot, held, FULL
        ways = table[slot, 2:]
        if mask & one:
            new, overflowed = _add(following, mask >> one, table[slot, 1], ways)
            held += new
            if overflowed:
                return slot, held, OVERFLOW
            continue
        for move in range(moves):
            cells = move_masks[move]
            if mask & cells:
                continue
            left = table[slot, 1] - move_uses[move]
            if left & guards != guards:
                continue
            new, overflowed = _add(following, (mask | cells) >> one, left, ways)
            held += new
            if overflowed:
                return slot, held, OVERFLOW
    return end, held, DONE


@njit(cache=True)
def rehash(table: Any, larger: Any) -> None:
    """Every sub-problem of one table into a larger one."""
    for slot in range(table.shape[0]):
        if table[slot, 0] != EMPTY:
            _add(larger, table[slot, 0], table[slot, 1], table[slot, 2:])
