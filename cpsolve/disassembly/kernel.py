"""The disassembler's breadth-first search compiled (numba): one part of an assembly at a time,
the same positions, moves and order as the Python search in cpsolve.disassembly.

Everything lives in arrays the caller owns (cpsolve.disassembly.compiled):

- the pieces: their cells side by side (`cells`, `starts`), each cell's kind for the grid's steps
  (`kinds`); the steps: their vectors and the cells a unit passes (`passes`, `pass_counts`);
  each piece's bounding box with, per step, how far on its nearest cell is from each place in
  it (`piece_boxes`); each piece's shape, a number the same for every piece of those cells
  relative to its box and those kinds (`shape_of`, made by the caller); the cells are held once
  for each placement, and the first cells along each step (`fronts`, `front_starts`) once for
  each such row: `rows` says which row a piece is (pieces of one placement share it);
- the gaps between two pieces, remembered in an open addressing table keyed by their shapes and
  where the other's box lies from the mover's, whose entries are valid while their stamp is the
  table's generation (clearing it is one increment): kept from one assembly of a puzzle to the
  next, where the same pieces lie the same way (BurrTools' DraculasDentalDesaster: 9,449 gaps
  worked out when the table started empty at each of its 84 assemblies, 1,999 kept);
- the positions: one row per position (the pieces' offsets from the part's first piece), the
  position it was reached from and by which move, and an open addressing table of row numbers;
  rows are expanded in the order they were added, which is the breadth-first order;
- the moves of one position with the sets found so far and a stamped table of those known.

`take_apart_batch` takes whole assemblies apart one after another (in each the parts in the order
the Python side's recursion takes them, records of each part's moves in an array), where no piece
groups are; with them the Python side calls `expand` part by part. `expand` works through positions until the first part
comes free (FOUND), none is left (EXHAUSTED), a limit stops it (UNDECIDED), it has done a slice of
work (PAUSED: the caller looks at the clock and Ctrl-C and calls again), or an array is too small
(GROW_POSITIONS, GROW_MOVES: the caller grows it and calls again; the position is worked out
again, counted once).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from cpsolve.disassembly.codes import (
    ADDED,
    APART,
    BATCH_AT,
    BATCH_OPEN,
    CURSOR,
    DONE,
    EXHAUSTED,
    FOUND,
    FOUND_AT,
    FOUND_DIRECTION,
    FOUND_MASK,
    GAP_FILL,
    GAP_GENERATION,
    GROW_MOVES,
    GROW_POSITIONS,
    GROW_RECORDS,
    IN_PART,
    KNOWN_GENERATION,
    LOOKED_AT,
    PAUSED,
    RECORDS_END,
    SLICE,
    STUCK,
    UNDECIDED,
    WAITING,
    WORK,
)

FREE = 1 << 40  # the gap between two pieces that never meet along a direction (as in Python)
MIX = 0x9E3779B97F4A7C15 - (1 << 64)  # an odd 64-bit constant, as a signed int64
DE_BRUIJN = 0x03F79D71B4CB0A89
BIT_INDEX = np.zeros(64, np.int64)
for _index in range(64):
    BIT_INDEX[((DE_BRUIJN << _index) & ((1 << 64) - 1)) >> 58] = _index


@njit(cache=True, inline="always")
def _mixed(hash_value: Any, value: Any) -> Any:
    hash_value = (hash_value ^ value) * MIX
    return hash_value ^ (hash_value >> 29)


NOWHERE = 1 << 30  # in `ahead`: no cell of the piece further along the step, inside its box


@njit(cache=True)
def piece_boxes(cells: Any, starts: Any, vectors: Any) -> tuple[Any, Any, Any, Any]:
    """Each piece's bounding box (its low corner and sides), and for each step and each place in
    the box how many units on along the step the piece's nearest cell is (`ahead`, one flat array:
    piece p's table for step s starts at `bases[p] + s * volume`; NOWHERE if it leaves the box
    first). Gaps are then read off it, one look-up per cell of the other piece."""
    pieces = starts.shape[0] - 1
    steps = vectors.shape[0]
    corners = np.empty((pieces, 3), np.int64)
    sides = np.empty((pieces, 3), np.int64)
    bases = np.empty(pieces + 1, np.int64)
    bases[0] = 0
    for p in range(pieces):
        for axis in range(3):
            low = cells[starts[p], axis]
            high = low
            for c in range(starts[p], starts[p + 1]):
                low = min(low, cells[c, axis])
                high = max(high, cells[c, axis])
            corners[p, axis] = low
            sides[p, axis] = high - low + 1
        bases[p + 1] = bases[p] + steps * sides[p, 0] * sides[p, 1] * sides[p, 2]
    ahead = np.empty(bases[pieces], np.int32)
    for p in range(pieces):
        sx, sy, sz = sides[p, 0], sides[p, 1], sides[p, 2]
        volume = sx * sy * sz
        filled = np.zeros(volume, np.bool_)
        for c in range(starts[p], starts[p + 1]):
            x, y, z = cells[c, 0] - corners[p, 0], cells[c, 1] - corners[p, 1], cells[c, 2] - corners[p, 2]
            filled[(x * sy + y) * sz + z] = True
        for step in range(steps):
            vx, vy, vz = vectors[step, 0], vectors[step, 1], vectors[step, 2]
            table = ahead[bases[p] + step * volume : bases[p] + (step + 1) * volume]
            # each axis walked against the step, so that the place one step on is done first
            for i in range(sx):
                x = sx - 1 - i if vx > 0 else i
                for j in range(sy):
                    y = sy - 1 - j if vy > 0 else j
                    for k in range(sz):
                        z = sz - 1 - k if vz > 0 else k
                        here = (x * sy + y) * sz + z
                        if filled[here]:
                            table[here] = 0
                            continue
                        nx, ny, nz = x + vx, y + vy, z + vz
                        if 0 <= nx < sx and 0 <= ny < sy and 0 <= nz < sz:
                            on = table[(nx * sy + ny) * sz + nz]
                            table[here] = NOWHERE if on == NOWHERE else on + 1
                        else:
                            table[here] = NOWHERE
    return corners, sides, bases, ahead


@njit(cache=True)
def front_cells(cells: Any, starts: Any, kinds: Any, vectors: Any, passes: Any, pass_counts: Any, corners: Any,
                sides: Any, bases: Any, ahead: Any) -> tuple[Any, Any]:  # fmt: skip
    """For each piece and step, the cells that can be the first to meet another piece: where a
    unit passes only the place one step on (cubes), a cell with the piece's own cell there meets
    everything one unit after that cell does, so only the others count. `fronts[front_starts[p *
    steps + s]:front_starts[p * steps + s + 1]]`: piece p's for step s (indexes into `cells`)."""
    pieces = starts.shape[0] - 1
    steps = vectors.shape[0]
    fronts = np.empty(steps * cells.shape[0], np.int64)
    front_starts = np.zeros(pieces * steps + 1, np.int64)
    held = 0
    for p in range(pieces):
        sx, sy, sz = sides[p, 0], sides[p, 1], sides[p, 2]
        volume = sx * sy * sz
        for step in range(steps):
            vx, vy, vz = vectors[step, 0], vectors[step, 1], vectors[step, 2]
            for c in range(starts[p], starts[p + 1]):
                kind = kinds[c]
                simple = pass_counts[step, kind] == 1
                for axis in range(3):
                    simple = simple and passes[step, kind, 0, axis] == vectors[step, axis]
                x = cells[c, 0] - corners[p, 0] + vx
                y = cells[c, 1] - corners[p, 1] + vy
                z = cells[c, 2] - corners[p, 2] + vz
                inside = 0 <= x < sx and 0 <= y < sy and 0 <= z < sz
                if simple and inside and ahead[bases[p] + step * volume + (x * sy + y) * sz + z] == 0:
                    continue  # behind a cell of its own
                fronts[held] = c
                held += 1
            front_starts[p * steps + step + 1] = held
    return fronts, front_starts


@njit(cache=True)
def geometry_of(cells: Any, starts: Any, kinds: Any, vectors: Any, passes: Any, pass_counts: Any) -> tuple[Any, ...]:
    """An assembly's pieces as the search reads them: `piece_boxes`, then `front_cells`, in one
    call (each call from Python costs a few microseconds; a flat design made 21,644 assemblies)."""
    corners, sides, bases, ahead = piece_boxes(cells, starts, vectors)
    fronts, front_starts = front_cells(cells, starts, kinds, vectors, passes, pass_counts, corners, sides, bases, ahead)
    return corners, sides, bases, ahead, fronts, front_starts


@njit(cache=True, inline="always")
def _entering(start: Any, along: Any, low: Any, side: Any, first: Any, last: Any) -> tuple[Any, Any]:
    """Narrow the units k (first..last) at which start + k * along lies in low..low + side - 1."""
    high = low + side - 1
    if along == 0:
        if start < low or start > high:
            return np.int64(1), np.int64(0)
        return first, last
    if along == 1:  # the cube's steps: no division
        return max(first, low - start), min(last, high - start)
    if along == -1:
        return max(first, start - high), min(last, start - low)
    if along > 0:
        return max(first, -((start - low) // along)), min(last, (high - start) // along)
    return max(first, -((high - start) // -along)), min(last, (start - low) // -along)


@njit(cache=True)
def _pair_gaps(geometry: Any, mover: int, other: int, dx: int, dy: int, dz: int, out: Any) -> int:
    """How far `mover` can go along each step before a cell it passes is one of `other`'s (shifted
    by the offset): on unit k + 1 a cell c passes c + w + k * step for each of its passes w, so
    the gap is the fewest units from such a c + w, in `other`'s frame, to one of its cells along
    the step (read from `other`'s `ahead` table where the ray enters its box). Returns the work."""
    cells, _, kinds, vectors, passes, pass_counts, corners, sides, bases, ahead, fronts, front_starts = geometry[:12]
    rows = geometry[13]
    row = rows[mover]  # the mover's cells and first cells: its placement's
    sx, sy, sz = sides[other, 0], sides[other, 1], sides[other, 2]
    volume = sx * sy * sz
    steps = vectors.shape[0]
    work = 0
    for step in range(steps):
        vx, vy, vz = vectors[step, 0], vectors[step, 1], vectors[step, 2]
        table = bases[other] + step * volume
        gap = FREE
        for front in range(front_starts[row * steps + step], front_starts[row * steps + step + 1]):
            c = fronts[front]
            kind = kinds[c]
            for w in range(pass_counts[step, kind]):
                work += 1
                qx = cells[c, 0] + passes[step, kind, w, 0] - dx
                qy = cells[c, 1] + passes[step, kind, w, 1] - dy
                qz = cells[c, 2] + passes[step, kind, w, 2] - dz
                first, last = _entering(qx, vx, corners[other, 0], sx, np.int64(0), np.int64(FREE))
                first, last = _entering(qy, vy, corners[other, 1], sy, first, last)
                first, last = _entering(qz, vz, corners[other, 2], sz, first, last)
                if first > last or first >= gap:
                    continue
                x = qx + first * vx - corners[other, 0]
                y = qy + first * vy - corners[other, 1]
                z = qz + first * vz - corners[other, 2]
                on = ahead[table + (x * sy + y) * sz + z]
                if on != NOWHERE and first + on < gap:
                    gap = first + on
        out[step] = gap
    return work


@njit(cache=True, inline="always")
def _gap_slot(gap_keys: Any, gap_stamps: Any, generation: Any, mover: Any, other: Any, dx: Any, dy: Any,
              dz: Any) -> tuple[Any, bool]:  # fmt: skip
    """The gap table's slot for a pair at an offset: where it is held (True) or the empty slot
    it would take."""
    last = gap_keys.shape[0] - 1
    slot = _mixed(_mixed(_mixed(_mixed(_mixed(0, mover), other), dx), dy), dz) & last
    while gap_stamps[slot] == generation:
        if (
            gap_keys[slot, 0] == mover
            and gap_keys[slot, 1] == other
            and gap_keys[slot, 2] == dx
            and gap_keys[slot, 3] == dy
            and gap_keys[slot, 4] == dz
        ):
            return slot, True
        slot = (slot + 1) & last
    return slot, False


@njit(cache=True, inline="always")
def _bit_count(mask: Any) -> Any:
    count = 0
    while mask:
        mask &= mask - 1
        count += 1
    return count


@njit(cache=True, inline="always")
def _lowest_bit(bit: Any) -> Any:
    """The index of a single set bit (a de Bruijn sequence: each index a different top six bits)."""
    return BIT_INDEX[((bit * DE_BRUIJN) >> 58) & 63]


@njit(cache=True, inline="always")
def _set_closure(needs: Any, step: Any, piece: Any, most: Any) -> Any:
    """The pieces that must move with `piece` when each piece i takes `needs[step, i]` along
    (bit masks); 0 when they are more than `most`."""
    mask = np.int64(1) << piece
    todo = mask
    size = 1
    while todo:
        lowest = todo & -todo
        todo ^= lowest
        new = needs[step, _lowest_bit(lowest)] & ~mask
        if new:
            size += _bit_count(new)
            if size > most:
                return np.int64(0)
            mask |= new
            todo |= new
    return mask


@njit(cache=True, inline="always")
def _reach(gaps: Any, step: Any, count: Any, mask: Any) -> Any:
    """How far the pieces in mask can move together along the step before one meets a piece
    outside it."""
    reach = np.int64(FREE)  # typed as the gaps are: a literal here failed to type in some builds
    for i in range(count):
        if mask >> i & 1:
            for j in range(count):
                if gaps[step, i, j] < reach and not mask >> j & 1:
                    reach = gaps[step, i, j]
    return reach


@njit(cache=True, inline="always")
def _closure(gaps: Any, step: Any, count: Any, piece: Any, distance: Any, most: Any, stack: Any,
             base: Any) -> tuple[Any, Any]:  # fmt: skip
    """The pieces that must move with `piece` for it to move `distance` along the step (0 when
    more than `most`), and how far that set can move. `stack[base:]`: room for `count` pieces."""
    mask = np.int64(1) << piece
    moved = 1
    stack[base] = piece
    held = 1
    while held:
        held -= 1
        i = stack[base + held]
        for j in range(count):
            if gaps[step, i, j] < distance and not mask >> j & 1:
                moved += 1
                if moved > most:
                    return np.int64(0), np.int64(0)
                mask |= np.int64(1) << j
                stack[base + held] = j
                held += 1
    return mask, _reach(gaps, step, count, mask)


@njit(cache=True, inline="always")
def _known(keys: Any, stamps: Any, generation: Any, mask: Any, distance: Any, add: bool) -> bool:
    """Whether (mask, distance) is among the moves known; `add` puts it there when it is not."""
    last = keys.shape[0] - 1
    slot = _mixed(_mixed(0, mask), distance) & last
    while stamps[slot] == generation:
        if keys[slot, 0] == mask and keys[slot, 1] == distance:
            return True
        slot = (slot + 1) & last
    if add:
        stamps[slot] = generation
        keys[slot, 0] = mask
        keys[slot, 1] = distance
    return False


@njit(cache=True, inline="always")
def _position_slot(table: Any, positions: Any, row: Any, width: Any) -> tuple[Any, bool]:
    """The table slot of a position (its first `width` numbers: a row of `positions` may be wider
    than the part's): where it is held (True) or the empty slot it would take."""
    last = table.shape[0] - 1
    hash_value = np.int64(0)
    for k in range(width):
        hash_value = _mixed(hash_value, row[k])
    slot = hash_value & last
    while table[slot] >= 0:
        held = table[slot]
        same = True
        for k in range(width):
            if positions[held, k] != row[k]:
                same = False
                break
        if same:
            return slot, True
        slot = (slot + 1) & last
    return slot, False


@njit(cache=True)
def rehash(table: Any, positions: Any, added: int, width: int) -> None:
    """Fill an empty (all -1) table with the first `added` positions (`width` numbers each)."""
    for index in range(added):
        slot, _ = _position_slot(table, positions, positions[index], width)
        table[slot] = index


@njit(cache=True, inline="always")
def _matrix(geometry: Any, gap_keys: Any, gap_values: Any, gap_stamps: Any, gap_counters: Any, members: Any,
            positions: Any, index: Any, gaps: Any, meets: Any, touches: Any) -> Any:  # fmt: skip
    """One position's gaps (`gaps[d, i, j]`: how far piece i can move along step d with piece j
    held still) and, per step and piece, the pieces it ever meets and those it touches; returns
    the work done."""
    count = members.shape[0]
    steps = gaps.shape[0]
    corners, shape_of = geometry[6], geometry[12]
    for d in range(steps):
        for i in range(count):
            meets[d, i] = 0
            touches[d, i] = 0
            for j in range(count):
                gaps[d, i, j] = FREE
    work = 0
    for i in range(count):
        for j in range(i + 1, count):
            dx = positions[index, 3 * j] - positions[index, 3 * i]
            dy = positions[index, 3 * j + 1] - positions[index, 3 * i + 1]
            dz = positions[index, 3 * j + 2] - positions[index, 3 * i + 2]
            if 2 * gap_counters[GAP_FILL] > gap_keys.shape[0]:  # forget them all: a new generation
                gap_counters[GAP_GENERATION] += 1
                gap_counters[GAP_FILL] = 0
            generation = gap_counters[GAP_GENERATION]
            mover, other = members[i], members[j]
            # remembered by the two shapes and where the other's box lies from the mover's: the
            # same in every assembly that has these pieces so turned (`shape_of`)
            mover_shape, other_shape = shape_of[mover], shape_of[other]
            rx = dx + corners[other, 0] - corners[mover, 0]
            ry = dy + corners[other, 1] - corners[mover, 1]
            rz = dz + corners[other, 2] - corners[mover, 2]
            slot, held = _gap_slot(gap_keys, gap_stamps, generation, mover_shape, other_shape, rx, ry, rz)
            work += 1
            if not held:
                gap_stamps[slot] = generation
                gap_keys[slot, 0], gap_keys[slot, 1], gap_keys[slot, 2] = mover_shape, other_shape, rx
                gap_keys[slot, 3], gap_keys[slot, 4] = ry, rz
                gap_counters[GAP_FILL] += 1
                work += _pair_gaps(geometry, mover, other, dx, dy, dz, gap_values[slot])
            for direction in range(steps):
                gap = gap_values[slot, direction]
                if gap == FREE:
                    continue
                back = direction ^ 1  # the same gap, seen from j, in the opposite direction
                gaps[direction, i, j] = gap
                gaps[back, j, i] = gap
                meets[direction, i] |= np.int64(1) << j
                meets[back, j] |= np.int64(1) << i
                if gap == 0:
                    touches[direction, i] |= np.int64(1) << j
                    touches[back, j] |= np.int64(1) << i
    return work


@njit(cache=True, inline="always")
def _first_removal(meets: Any, count: Any) -> tuple[Any, Any]:
    """The first set of pieces that can move out arbitrarily far (single pieces first, then sets
    of up to half), with its step; (0, -1) when none can."""
    for direction in range(meets.shape[0]):
        for piece in range(count):
            if meets[direction, piece] == 0:
                return np.int64(1) << piece, direction
    for direction in range(meets.shape[0]):
        for piece in range(count):
            mask = _set_closure(meets, direction, piece, count // 2)
            if mask:
                return mask, direction
    return np.int64(0), -1


@njit(cache=True, inline="always")
def _moves(gaps: Any, touches: Any, count: Any, moves: Any, found: Any, known: Any, known_stamps: Any,
           counters: Any, max_moves: Any, scratch: Any) -> Any:  # fmt: skip
    """Every move from a position no part can leave, in the Python search's order, into `moves`
    (pieces, step, distance); the number of moves, -1 when more than `max_moves` (undecided),
    -2 when `moves` is too small. `scratch`: room for 2 * count + 1 numbers."""
    everyone = (np.int64(1) << count) - 1
    most = count // 2
    listed = 0
    work = 0
    for direction in range(gaps.shape[0]):
        generation = counters[KNOWN_GENERATION] + 1
        counters[KNOWN_GENERATION] = generation
        found_count = 0
        for piece in range(count):
            scratch[piece] = _set_closure(touches, direction, piece, most)
        for piece in range(count):
            distance = 1
            mask = scratch[piece]
            reach = _reach(gaps, direction, count, mask) if mask else 0
            while mask:
                if not _known(known, known_stamps, generation, mask, distance, True):
                    if listed == moves.shape[0]:
                        return -2
                    moves[listed, 0], moves[listed, 1], moves[listed, 2] = mask, direction, distance
                    listed += 1
                    before = found_count
                    work += before
                    for f in range(before):
                        other = found[f, 0]
                        union = mask | other
                        if found[f, 1] != distance or union in (mask, other, everyone):
                            continue
                        if _known(known, known_stamps, generation, union, distance, True):
                            continue
                        if listed == moves.shape[0]:
                            return -2
                        found[found_count, 0], found[found_count, 1] = union, distance
                        found_count += 1
                        moves[listed, 0], moves[listed, 1], moves[listed, 2] = union, direction, distance
                        listed += 1
                        if listed > max_moves:
                            return -1
                    found[found_count, 0], found[found_count, 1] = mask, distance
                    found_count += 1
                distance += 1
                if distance > reach:
                    mask, reach = _closure(gaps, direction, count, piece, distance, most, scratch, count)
    counters[WORK] += work
    return listed


@njit(cache=True)
def expand(geometry: Any, gap_keys: Any, gap_values: Any, gap_stamps: Any, gap_counters: Any, members: Any,
           positions: Any, came_from: Any, table: Any, moves: Any, found: Any, known: Any, known_stamps: Any,
           counters: Any, max_positions: int, max_moves: int, slice_work: int) -> int:  # fmt: skip
    """Expand positions in breadth-first order from `counters[CURSOR]`; see the module's doc for
    what it returns. `came_from[k]`: the position k was reached from, and the move (pieces,
    step, distance)."""
    vectors = geometry[3]
    count = members.shape[0]
    steps = vectors.shape[0]
    gaps = np.empty((steps, count, count), np.int64)
    meets = np.empty((steps, count), np.int64)
    touches = np.empty((steps, count), np.int64)
    scratch = np.empty(2 * count + 1, np.int64)
    width = 3 * count  # a row of `positions` may be wider (a batch's rows fit every part)
    child = np.empty(width, np.int32)
    counters[WORK] = 0
    while counters[CURSOR] < counters[ADDED]:
        index = counters[CURSOR]
        if counters[LOOKED_AT] + 1 > max_positions:
            counters[LOOKED_AT] += 1
            return UNDECIDED
        counters[WORK] += _matrix(geometry, gap_keys, gap_values, gap_stamps, gap_counters, members, positions, index,
                                  gaps, meets, touches)  # fmt: skip
        mask, direction = _first_removal(meets, count)
        if direction >= 0:
            counters[LOOKED_AT] += 1
            counters[FOUND_AT], counters[FOUND_MASK], counters[FOUND_DIRECTION] = index, mask, direction
            return FOUND
        listed = _moves(gaps, touches, count, moves, found, known, known_stamps, counters, max_moves, scratch)
        if listed == -2:
            return GROW_MOVES
        counters[LOOKED_AT] += 1
        if listed == -1:
            return UNDECIDED
        if 2 * (counters[ADDED] + listed) > table.shape[0] or counters[ADDED] + listed > positions.shape[0]:
            counters[LOOKED_AT] -= 1  # worked out again once the arrays have grown
            return GROW_POSITIONS
        for m in range(listed):
            mask, direction, distance = moves[m, 0], moves[m, 1], moves[m, 2]
            for k in range(width):
                child[k] = positions[index, k]
            shift = distance
            moving = mask
            if moving & 1:  # the first piece stays at the origin: the others move back instead
                moving = ~moving
                shift = -shift
            for i in range(1, count):
                if moving >> i & 1:
                    for axis in range(3):
                        child[3 * i + axis] += shift * vectors[direction, axis]
            slot, held = _position_slot(table, positions, child, width)
            if not held:
                added = counters[ADDED]
                for k in range(width):
                    positions[added, k] = child[k]
                came_from[added, 0], came_from[added, 1] = index, mask
                came_from[added, 2], came_from[added, 3] = direction, distance
                table[slot] = added
                counters[ADDED] = added + 1
        counters[CURSOR] = index + 1
        counters[WORK] += count * count * steps + listed
        if counters[WORK] >= slice_work:
            return PAUSED
    return EXHAUSTED


@njit(cache=True, inline="always")
def _members_of(part: Any, members: Any) -> Any:
    """The pieces of a part (a bit mask) written into `members` in order; how many."""
    count = 0
    for piece in range(members.shape[0]):
        if part >> piece & 1:
            members[count] = piece
            count += 1
    return count


@njit(cache=True)
def take_apart_batch(geometry: Any, gap_keys: Any, gap_values: Any, gap_stamps: Any, gap_counters: Any,
                     positions: Any, came_from: Any, table: Any, moves: Any, found: Any, known: Any,
                     known_stamps: Any, counters: Any, stack: Any, records: Any, first_piece: Any, outcomes: Any,
                     looked: Any, record_ends: Any, max_positions: int, max_moves: int,
                     slice_work: int) -> int:  # fmt: skip
    """Assemblies taken apart one after another, each whole (`_take_apart`): assembly a is the
    geometry's pieces first_piece[a] to first_piece[a + 1] - 1. For each, `outcomes[a]` is APART,
    STUCK or UNDECIDED (its positions or one position's moves past their limits), `looked[a]` the
    positions it looked at, and its records (one that comes apart: every part's, see
    `_take_apart`; else none) end at `record_ends[a]`, where the last one's ended. Returns DONE
    when every assembly is taken apart; PAUSED after a slice of work, GROW_POSITIONS, GROW_MOVES
    or GROW_RECORDS when an array is too small: the caller grows it, or looks at the clock, and
    calls again, which goes on where it stopped. The caller starts with BATCH_AT 0, BATCH_OPEN 0
    and RECORDS_END 0. A flat design's 21,644 assemblies, one call each, spent more in the calls
    and the records read back in Python than in this search."""
    assemblies = first_piece.shape[0] - 1
    counters[SLICE] = 0
    while counters[BATCH_AT] < assemblies:
        at = counters[BATCH_AT]
        offset = first_piece[at]
        pieces = first_piece[at + 1] - offset
        if counters[BATCH_OPEN] == 0:  # the whole assembly waits on the stack, where it lies
            stack[0, 0] = (np.int64(1) << pieces) - 1
            for k in range(1, 1 + 3 * pieces):
                stack[0, k] = 0
            counters[WAITING], counters[IN_PART], counters[LOOKED_AT] = 1, 0, 0
            counters[BATCH_OPEN] = 1
        status = _take_apart(geometry, gap_keys, gap_values, gap_stamps, gap_counters, positions, came_from, table,
                             moves, found, known, known_stamps, counters, stack, records, pieces, offset,
                             max_positions, max_moves, slice_work)  # fmt: skip
        if status not in (APART, STUCK, UNDECIDED):
            return status
        if status != APART:  # its records are not read: the next assembly's go in their place
            counters[RECORDS_END] = record_ends[at - 1] if at > 0 else 0
        outcomes[at], looked[at], record_ends[at] = status, counters[LOOKED_AT], counters[RECORDS_END]
        counters[BATCH_AT] = at + 1
        counters[BATCH_OPEN] = 0
        if counters[SLICE] >= slice_work:
            return PAUSED
    return DONE


@njit(cache=True)
def _take_apart(geometry: Any, gap_keys: Any, gap_values: Any, gap_stamps: Any, gap_counters: Any, positions: Any,
                came_from: Any, table: Any, moves: Any, found: Any, known: Any, known_stamps: Any, counters: Any,
                stack: Any, records: Any, pieces: int, offset: int, max_positions: int, max_moves: int,
                slice_work: int) -> int:  # fmt: skip
    """A whole assembly of `pieces` (the geometry's pieces from `offset` on) taken apart, part after
    part, as the Python side's recursion does it where no piece groups are (`_Search.take_apart`):
    each part's breadth-first search (`expand`), then the part left in place and after it the
    part taken out, each in turn; one piece is done.

    `stack[k]`: a part waiting, the bit mask of its pieces, then each piece's offset (3 numbers
    per piece of the assembly, where it lies after the moves that split it off); its last row
    holds the part being expanded. `records`, one after another in that order: a part's piece
    mask, its moves (their count, then pieces as a mask over the part's own pieces, step and
    distance, -1 for the last: out to infinity), and the offsets its pieces end at (3 per piece
    of the part, from its first). Returns APART when every part came apart, STUCK at the first
    that does not (nothing after it is looked at, as in Python), UNDECIDED at a limit; PAUSED
    after a slice of work, GROW_POSITIONS, GROW_MOVES or GROW_RECORDS when an array is too small
    (`take_apart_batch` says what the caller does)."""
    members = np.empty(pieces, np.int64)
    pieces_of = np.empty(pieces, np.int64)  # the part's pieces as the geometry numbers them
    expanding = stack.shape[0] - 1
    while True:
        if counters[IN_PART] == 0:
            if counters[WAITING] == 0:
                return APART
            counters[WAITING] -= 1
            top = counters[WAITING]
            part = stack[top, 0]
            count = _members_of(part, members)
            first = members[0]
            for i in range(count):
                for axis in range(3):
                    positions[0, 3 * i + axis] = (
                        stack[top, 1 + 3 * members[i] + axis] - stack[top, 1 + 3 * first + axis]
                    )
            came_from[0, 0], came_from[0, 1], came_from[0, 2], came_from[0, 3] = -1, 0, 0, 0
            table[:] = -1
            rehash(table, positions, 1, 3 * count)
            counters[ADDED], counters[CURSOR] = 1, 0
            counters[IN_PART] = 1
            stack[expanding, 0] = part
        part = stack[expanding, 0]
        count = _members_of(part, members)
        for i in range(count):
            pieces_of[i] = members[i] + offset
        status = expand(geometry, gap_keys, gap_values, gap_stamps, gap_counters, pieces_of[:count], positions,
                        came_from, table, moves, found, known, known_stamps, counters, max_positions, max_moves,
                        slice_work)  # fmt: skip
        counters[SLICE] += counters[WORK]
        if status in (EXHAUSTED, UNDECIDED):
            counters[IN_PART] = 0
            return STUCK if status == EXHAUSTED else UNDECIDED
        if status != FOUND:
            return status
        # the moves back to the start, then the record: piece mask, moves, where the pieces end
        found_at = counters[FOUND_AT]
        steps = 1
        at = found_at
        while at > 0:
            at = came_from[at, 0]
            steps += 1
        end = counters[RECORDS_END]
        if end + 2 + 3 * steps + 3 * count > records.shape[0]:
            counters[LOOKED_AT] -= 1  # the position is worked out again once the records have grown
            return GROW_RECORDS
        records[end], records[end + 1] = part, steps
        last = end + 2 + 3 * (steps - 1)
        records[last], records[last + 1], records[last + 2] = counters[FOUND_MASK], counters[FOUND_DIRECTION], -1
        at = found_at
        while at > 0:
            last -= 3
            records[last], records[last + 1], records[last + 2] = came_from[at, 1], came_from[at, 2], came_from[at, 3]
            at = came_from[at, 0]
        state = end + 2 + 3 * steps
        for k in range(3 * count):
            records[state + k] = positions[found_at, k]
        counters[RECORDS_END] = state + 3 * count
        counters[IN_PART] = 0
        # the part taken out waits below the part left in place, which is looked at first
        freed_bits = counters[FOUND_MASK]
        freed = np.int64(0)
        for i in range(count):
            if freed_bits >> i & 1:
                freed |= np.int64(1) << members[i]
        for side in (freed, part & ~freed):
            if side & (side - 1) == 0:
                continue  # one piece: nothing to take apart
            top = counters[WAITING]
            counters[WAITING] = top + 1
            stack[top, 0] = side
            for i in range(count):
                for axis in range(3):
                    stack[top, 1 + 3 * members[i] + axis] = positions[found_at, 3 * i + axis]
        if counters[SLICE] >= slice_work:
            return PAUSED
