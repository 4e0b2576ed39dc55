"""Whether a design's pieces have an assembly other than its cut's, compiled (numba).

The design search asks this of every candidate that comes apart, and nothing more: one assembly up
to the target's symmetries (the cut's own), or a second one. A whole run of cpsolve's pipeline
(spec, model, the breaking's choice, the search, the classes) answered it in 10-14 ms of Python for
a 4x4x4 box in six pieces; here one call makes the placements of a target of at most 128 cells as
bit masks (two 64-bit words, the low and the high, as the box search's board), fills the lowest
open cell with each piece that fits it, and compares each assembly found with the images of the cut
under the target's symmetries. The caller
(cpsolve.design.check) makes the arrays; every answer is the pipeline's (tests/test_design.py
compares them).

Pieces are not told apart from their copies: a piece whose cut lies among another's placements is
that piece's shape, and the search places shapes, each as often as it comes. An assembly is then
the set of its pieces' masks; its images under the symmetries are the cut's class. Reflections are
among the maps: the image of the cut under one is an assembly of these pieces only where the piece
set is its own mirror image, which is when cpsolve's `symmetry: all` counts the reflection.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from cpsolve.design.codes import ANOTHER, ONLY_THE_CUT, OVER_BUDGET
from cpsolve.engines.exact_cover.bits import DE_BRUIJN, ONE, SHIFT, ZERO
from cpsolve.grids.fitting_kernel import fitting


@njit(cache=True, inline="always")
def _lowest(word: Any, bit_of: Any) -> int:
    return int(bit_of[((word & (~word + ONE)) * DE_BRUIJN) >> SHIFT])


@njit(cache=True, inline="always")
def _lowest_of(lo: Any, hi: Any, bit_of: Any) -> int:
    """The lowest bit of a two-word mask (which is not empty)."""
    if lo != ZERO:
        return _lowest(lo, bit_of)
    return 64 + _lowest(hi, bit_of)


@njit(cache=True, inline="always")
def _set(mask: Any, bit: int) -> None:
    """Bit `bit` (0-127) of the two-word mask (a row of two words) set."""
    if bit < 64:
        mask[0] |= ONE << np.uint64(bit)
    else:
        mask[1] |= ONE << np.uint64(bit - 64)


@njit(cache=True, inline="always")
def _before(rows: Any, one: int, other: int) -> bool:
    """Whether mask row `one` comes before row `other` (low word first)."""
    return bool(rows[one, 0] < rows[other, 0] or (rows[one, 0] == rows[other, 0] and rows[one, 1] < rows[other, 1]))


@njit(cache=True)
def _sort_rows(rows: Any) -> None:
    """The rows (masks) sorted in place: a few of them, insertion."""
    for place in range(1, len(rows)):
        lo, hi = rows[place, 0], rows[place, 1]
        back = place
        while back > 0 and (rows[back - 1, 0] > lo or (rows[back - 1, 0] == lo and rows[back - 1, 1] > hi)):
            rows[back] = rows[back - 1]
            back -= 1
        rows[back, 0] = lo
        rows[back, 1] = hi


@njit(cache=True)
def _placements(where: Any, size: Any, shapes: Any, allowed: Any) -> Any:
    """Every placement of a piece turned as `shapes` (its images under the rotations, each at the
    origin) in the target, as the placement finder finds them (cpsolve.grids.fitting_kernel), made
    masks (rows of two words), sorted, once each (a turn that gives the piece again, again)."""
    plain = np.zeros((shapes.shape[0], shapes.shape[1]), np.int64)  # no colours: one kind, no codes
    lattice = np.array([1, 1, 1, 0, 0, 0], np.int64)  # the cube grid: every shift
    cells, _, count = fitting(where, size, shapes, plain, plain, allowed, shapes.shape[0] * len(where), lattice)
    found = np.zeros((count, 2), np.uint64)
    for row in range(count):
        for cell in range(cells.shape[1]):
            _set(found[row], int(cells[row, cell]))
    found = found[:count]
    order = np.argsort(found[:, 1], kind="mergesort")
    order = order[np.argsort(found[order, 0], kind="mergesort")]  # by the low word, then the high
    kept = np.empty((count, 2), np.uint64)
    held = 0
    for place in range(count):
        row = order[place]
        if held == 0 or found[row, 0] != kept[held - 1, 0] or found[row, 1] != kept[held - 1, 1]:
            kept[held] = found[row]
            held += 1
    return kept[:held]


@njit(cache=True)
def _holds(ordered: Any, lo: Any, hi: Any) -> bool:
    """Whether the sorted rows hold the mask (lo, hi): a binary search."""
    start, end = 0, len(ordered)
    while start < end:
        middle = (start + end) // 2
        if ordered[middle, 0] < lo or (ordered[middle, 0] == lo and ordered[middle, 1] < hi):
            start = middle + 1
        else:
            end = middle
    return bool(start < len(ordered) and ordered[start, 0] == lo and ordered[start, 1] == hi)


@njit(cache=True)
def _among(images: Any, assembly: Any) -> bool:
    """Whether the assembly (sorted mask rows) is one of the images."""
    for element in range(images.shape[0]):
        same = True
        for piece in range(assembly.shape[0]):
            if images[element, piece, 0] != assembly[piece, 0] or images[element, piece, 1] != assembly[piece, 1]:
                same = False
                break
        if same:
            return True
    return False


@njit(cache=True)
def _orbit_least(listed: Any, maps: Any, proper: Any, bit_of: Any) -> Any:
    """The placements (sorted rows) that are the least of their orbit under the rotations."""
    kept = np.empty_like(listed)
    held = 0
    image = np.zeros(2, np.uint64)
    for row in range(len(listed)):
        least = True
        for element in range(len(maps)):
            if proper[element] != 1:
                continue
            image[0] = ZERO
            image[1] = ZERO
            for word in range(2):
                mask = listed[row, word]
                while mask != ZERO:
                    bit = _lowest(mask, bit_of) + 64 * word
                    mask &= mask - ONE
                    _set(image, maps[element, bit])
            if image[0] < listed[row, 0] or (image[0] == listed[row, 0] and image[1] < listed[row, 1]):
                least = False
                break
        if least:
            kept[held] = listed[row]
            held += 1
    return kept[:held]


@njit(cache=True)
def other_assembly(
    where: Any,
    size: Any,
    allowed: Any,
    cells: Any,
    turned: Any,
    starts: Any,
    optional: Any,
    holes: int,
    maps: Any,
    proper: Any,
    bit_of: Any,
    budget: int,
) -> tuple[int, int]:
    """(ONLY_THE_CUT, ANOTHER or OVER_BUDGET; with ONLY_THE_CUT the raw count: the cut's
    distinct images that are assemblies of these pieces).

    where: the bit of each place of the target's bounding box (x slowest), -1 off the target; size:
    the box's sides; allowed: `where >= 0` as one row (the placement finder's); cells, starts: each
    piece's cells as cut, in the box's coordinates, and `turned` their images under the 24
    rotations, each piece's at the origin (geometry.images_at_origin); optional: 1 for each bit that
    may stay empty, of which `holes` do; maps: per symmetry of the target, the bit each bit goes to,
    and `proper` 1 for a rotation; bit_of: the de Bruijn table (cpsolve.engines.exact_cover.bits).

    A shape of one copy (the one with most placements) is limited to the least placement of each
    orbit under the rotations, as the engines' symmetry breaking does: every class of assemblies
    has one with it so (turn an assembly until that piece's placement is its orbit's least), so a
    class other than the cut's is still found, in a search up to the group's order smaller."""
    pieces = len(starts) - 1
    bits = maps.shape[1]
    full = np.zeros(2, np.uint64)
    for bit in range(bits):
        _set(full, bit)
    planted = np.zeros((pieces, 2), np.uint64)
    for piece in range(pieces):
        for cell in range(starts[piece], starts[piece + 1]):
            _set(planted[piece], where[(cells[cell, 0] * size[1] + cells[cell, 1]) * size[2] + cells[cell, 2]])
    # the shapes: a piece whose cut is a placement of an earlier piece is a copy of it
    shape_of = np.empty(pieces, np.int64)
    placements: list[Any] = []
    for piece in range(pieces):
        shape_of[piece] = -1
        for shape in range(len(placements)):
            if _holds(placements[shape], planted[piece, 0], planted[piece, 1]):
                shape_of[piece] = shape
                break
        if shape_of[piece] < 0:
            shape_of[piece] = len(placements)
            turns = np.ascontiguousarray(turned[:, starts[piece] : starts[piece + 1], :])
            placements.append(_placements(where, size, turns, allowed))
    shapes = len(placements)
    left = np.zeros(shapes, np.int64)
    for piece in range(pieces):
        left[shape_of[piece]] += 1
    # the cut's class: its masks under every symmetry, each image sorted
    images = np.zeros((len(maps), pieces, 2), np.uint64)
    for element in range(len(maps)):
        for piece in range(pieces):
            for word in range(2):
                mask = planted[piece, word]
                while mask != ZERO:
                    bit = _lowest(mask, bit_of) + 64 * word
                    mask &= mask - ONE
                    _set(images[element, piece], maps[element, bit])
        _sort_rows(images[element])
    # the raw count: the distinct images that are assemblies of these pieces (a rotation's always;
    # a reflection's where the piece set is its own mirror set)
    raw = 0
    for element in range(len(maps)):
        valid = proper[element] == 1
        if not valid:
            counts = np.zeros(shapes, np.int64)
            valid = True
            for piece in range(pieces):
                shape = 0
                while shape < shapes and not _holds(
                    placements[shape], images[element, piece, 0], images[element, piece, 1]
                ):
                    shape += 1
                if shape == shapes:
                    valid = False
                    break
                counts[shape] += 1
            for shape in range(shapes):
                valid = valid and counts[shape] == left[shape]
        if valid and _among(images[:element], images[element]):
            valid = False  # an image met before
        raw += valid
    # the breaking: a shape of one copy, most placements first, limited to its orbits' least
    limited = -1
    for shape in range(shapes):
        if left[shape] == 1 and (limited < 0 or len(placements[shape]) > len(placements[limited])):
            limited = shape
    if limited >= 0:
        placements[limited] = _orbit_least(placements[limited], maps, proper, bit_of)
    # each shape's placements by their lowest bit: the cell the search fills is always one's lowest
    first = np.zeros((shapes, bits + 1), np.int64)
    total = 0
    for shape in range(shapes):
        total += len(placements[shape])
    by_cell = np.empty((total, 2), np.uint64)
    at = 0
    for shape in range(shapes):
        counts = np.zeros(bits, np.int64)
        listed = placements[shape]
        for row in range(len(listed)):
            counts[_lowest_of(listed[row, 0], listed[row, 1], bit_of)] += 1
        first[shape, 0] = at
        for bit in range(bits):
            first[shape, bit + 1] = first[shape, bit] + counts[bit]
        filled = first[shape, :bits].copy()
        for row in range(len(listed)):
            low = _lowest_of(listed[row, 0], listed[row, 1], bit_of)
            by_cell[filled[low]] = listed[row]
            filled[low] += 1
        at = first[shape, bits]
    # the search: fill the lowest open bit with a shape that has copies left, or leave it a hole
    depth_cell = np.zeros(pieces + holes + 1, np.int64)
    depth_shape = np.zeros(pieces + holes + 1, np.int64)
    depth_next = np.zeros(pieces + holes + 1, np.int64)
    depth_mask = np.zeros((pieces + holes + 1, 2), np.uint64)
    covered = np.zeros(2, np.uint64)
    assembly = np.zeros((pieces, 2), np.uint64)
    holes_made = 0
    depth = 0
    tried = 0
    depth_cell[0] = 0  # bit 0 is a target cell: every bit below `bits` is
    depth_next[0] = first[0, 0]
    while depth >= 0:
        cell = depth_cell[depth]
        moved = False
        while depth_shape[depth] <= shapes:
            shape = depth_shape[depth]
            if shape == shapes:  # after every placement: the cell left empty
                depth_shape[depth] += 1
                if optional[cell] and holes_made < holes:
                    depth_mask[depth, 0] = ZERO
                    depth_mask[depth, 1] = ZERO
                    _set(covered, cell)
                    holes_made += 1
                    moved = True
                    break
                continue
            if left[shape] == 0 or depth_next[depth] >= first[shape, cell + 1]:
                depth_shape[depth] += 1
                if depth_shape[depth] < shapes:
                    depth_next[depth] = first[depth_shape[depth], cell]
                continue
            row = depth_next[depth]
            depth_next[depth] += 1
            if by_cell[row, 0] & covered[0] == ZERO and by_cell[row, 1] & covered[1] == ZERO:
                tried += 1
                depth_mask[depth] = by_cell[row]
                covered[0] |= by_cell[row, 0]
                covered[1] |= by_cell[row, 1]
                left[shape] -= 1
                moved = True
                break
        if not moved:  # every choice tried: back to the depth above, undoing its choice
            depth -= 1
            if depth >= 0:
                if depth_mask[depth, 0] == ZERO and depth_mask[depth, 1] == ZERO:
                    holes_made -= 1
                    if depth_cell[depth] < 64:
                        covered[0] &= ~(ONE << np.uint64(depth_cell[depth]))
                    else:
                        covered[1] &= ~(ONE << np.uint64(depth_cell[depth] - 64))
                else:
                    covered[0] &= ~depth_mask[depth, 0]
                    covered[1] &= ~depth_mask[depth, 1]
                    left[depth_shape[depth]] += 1
            continue
        if tried > budget:
            return OVER_BUDGET, 0
        if covered[0] == full[0] and covered[1] == full[1]:
            placed = 0
            for level in range(depth + 1):
                if depth_mask[level, 0] != ZERO or depth_mask[level, 1] != ZERO:
                    assembly[placed] = depth_mask[level]
                    placed += 1
            _sort_rows(assembly)
            if not _among(images, assembly):
                return ANOTHER, 0
            depth += 1
            depth_shape[depth] = shapes + 1  # nothing to try there: back up, undoing the last choice
            continue
        depth += 1
        depth_cell[depth] = _lowest_of(full[0] & ~covered[0], full[1] & ~covered[1], bit_of)
        depth_shape[depth] = 0
        depth_next[depth] = first[0, depth_cell[depth]]
    return ONLY_THE_CUT, raw
