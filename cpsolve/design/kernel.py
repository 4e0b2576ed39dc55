"""Whether a design's pieces have an assembly other than its cut's, compiled (numba).

The design search asks this of every candidate that comes apart, and nothing more: one assembly up
to the target's symmetries (the cut's own), or a second one. A whole run of cpsolve's pipeline
(spec, model, the breaking's choice, the search, the classes) answered it in 10-14 ms of Python for
a 4x4x4 box in six pieces; here one call makes the placements of a target of at most 64 cells as
bit masks, fills the lowest open cell with each piece that fits it, and compares each assembly
found with the images of the cut under the target's symmetries. The caller (cpsolve.design.check)
makes the arrays; every answer is the pipeline's (tests/test_design.py compares them).

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


@njit(cache=True, inline="always")
def _lowest(word: Any, bit_of: Any) -> int:
    return int(bit_of[((word & (~word + ONE)) * DE_BRUIJN) >> SHIFT])


@njit(cache=True, inline="always")
def _sorted_copy(row: Any) -> Any:
    out = row.copy()
    for place in range(1, len(out)):  # a few masks: insertion
        value = out[place]
        back = place
        while back > 0 and out[back - 1] > value:
            out[back] = out[back - 1]
            back -= 1
        out[back] = value
    return out


@njit(cache=True)
def _placements(where: Any, size: Any, rotations: Any, cells: Any) -> Any:
    """Every mask of the piece's cells turned by a rotation and moved inside the target, sorted, once each."""
    volume = size[0] * size[1] * size[2]
    found = np.empty(len(rotations) * volume, np.uint64)
    count = 0
    turned = np.empty_like(cells)
    for rotation in range(len(rotations)):
        matrix = rotations[rotation]
        for cell in range(len(cells)):
            for axis in range(3):
                turned[cell, axis] = (
                    matrix[axis, 0] * cells[cell, 0]
                    + matrix[axis, 1] * cells[cell, 1]
                    + matrix[axis, 2] * cells[cell, 2]
                )
        low = np.empty(3, np.int64)
        room = np.empty(3, np.int64)
        for axis in range(3):
            low[axis] = turned[:, axis].min()
            room[axis] = size[axis] - (turned[:, axis].max() - low[axis])
        for x in range(room[0]):
            for y in range(room[1]):
                for z in range(room[2]):
                    mask = ZERO
                    for cell in range(len(cells)):
                        at = where[
                            ((turned[cell, 0] - low[0] + x) * size[1] + turned[cell, 1] - low[1] + y) * size[2]
                            + turned[cell, 2]
                            - low[2]
                            + z
                        ]
                        if at < 0:
                            mask = ZERO
                            break
                        mask |= ONE << np.uint64(at)
                    if mask != ZERO:
                        found[count] = mask
                        count += 1
    ordered = np.sort(found[:count])
    kept = 0
    for place in range(len(ordered)):
        if place == 0 or ordered[place] != ordered[place - 1]:
            ordered[kept] = ordered[place]
            kept += 1
    return ordered[:kept]


@njit(cache=True)
def _among(rows: Any, row: Any) -> bool:
    """Whether `row` is one of the rows."""
    for element in range(rows.shape[0]):
        place = 0
        while place < len(row) and rows[element, place] == row[place]:
            place += 1
        if place == len(row):
            return True
    return False


@njit(cache=True)
def _holds(ordered: Any, mask: Any) -> bool:
    place = np.searchsorted(ordered, mask)
    return bool(place < len(ordered) and ordered[place] == mask)


@njit(cache=True)
def other_assembly(
    where: Any,
    size: Any,
    rotations: Any,
    cells: Any,
    starts: Any,
    optional: Any,
    holes: int,
    maps: Any,
    bit_of: Any,
    budget: int,
) -> tuple[int, int]:
    """(ONLY_THE_CUT, ANOTHER or OVER_BUDGET; the assemblies found: the cut's distinct images
    where every one is).

    where: the bit of each place of the target's bounding box (x slowest), -1 off the target;
    size: the box's sides; rotations: the 24 proper 3x3 matrices; cells, starts: each piece's
    cells as cut, in the box's coordinates; optional: 1 for each bit that may stay empty, of
    which `holes` do; maps: per symmetry of the target, the bit each bit goes to; bit_of: the
    de Bruijn table (cpsolve.engines.exact_cover.bits)."""
    pieces = len(starts) - 1
    bits = maps.shape[1]
    full = ZERO
    optional_mask = ZERO
    for bit in range(bits):
        full |= ONE << np.uint64(bit)
        if optional[bit]:
            optional_mask |= ONE << np.uint64(bit)
    planted = np.zeros(pieces, np.uint64)
    for piece in range(pieces):
        for cell in range(starts[piece], starts[piece + 1]):
            planted[piece] |= ONE << np.uint64(
                where[(cells[cell, 0] * size[1] + cells[cell, 1]) * size[2] + cells[cell, 2]]
            )
    # the shapes: a piece whose cut is a placement of an earlier piece is a copy of it
    shape_of = np.empty(pieces, np.int64)
    placements: list[Any] = []
    for piece in range(pieces):
        shape_of[piece] = -1
        for shape in range(len(placements)):
            if _holds(placements[shape], planted[piece]):
                shape_of[piece] = shape
                break
        if shape_of[piece] < 0:
            shape_of[piece] = len(placements)
            placements.append(_placements(where, size, rotations, cells[starts[piece] : starts[piece + 1]]))
    shapes = len(placements)
    left = np.zeros(shapes, np.int64)
    for piece in range(pieces):
        left[shape_of[piece]] += 1
    # each shape's placements by their lowest bit: the cell the search fills is always one's lowest
    first = np.zeros((shapes, bits + 1), np.int64)
    total = 0
    for shape in range(shapes):
        total += len(placements[shape])
    by_cell = np.empty(total, np.uint64)
    at = 0
    for shape in range(shapes):
        counts = np.zeros(bits, np.int64)
        for mask in placements[shape]:
            counts[_lowest(mask, bit_of)] += 1
        first[shape, 0] = at
        for bit in range(bits):
            first[shape, bit + 1] = first[shape, bit] + counts[bit]
        filled = first[shape, :bits].copy()
        for mask in placements[shape]:
            low = _lowest(mask, bit_of)
            by_cell[filled[low]] = mask
            filled[low] += 1
        at = first[shape, bits]
    # the cut's class: its masks under every symmetry, each image sorted
    images = np.empty((len(maps), pieces), np.uint64)
    for element in range(len(maps)):
        image = np.zeros(pieces, np.uint64)
        for piece in range(pieces):
            mask = planted[piece]
            while mask != ZERO:
                bit = _lowest(mask, bit_of)
                mask &= mask - ONE
                image[piece] |= ONE << np.uint64(maps[element, bit])
        images[element] = _sorted_copy(image)
    # the search: fill the lowest open bit with a shape that has copies left, or leave it a hole
    depth_cell = np.zeros(pieces + holes + 1, np.int64)
    depth_shape = np.zeros(pieces + holes + 1, np.int64)
    depth_next = np.zeros(pieces + holes + 1, np.int64)
    depth_mask = np.zeros(pieces + holes + 1, np.uint64)
    covered = ZERO
    holes_made = 0
    depth = 0
    tried = 0
    found = 0
    depth_cell[0] = _lowest(full, bit_of)
    depth_shape[0] = 0
    depth_next[0] = first[0, depth_cell[0]]
    while depth >= 0:
        cell = depth_cell[depth]
        moved = False
        while depth_shape[depth] <= shapes:
            shape = depth_shape[depth]
            if shape == shapes:  # after every placement: the cell left empty
                depth_shape[depth] += 1
                if optional[cell] and holes_made < holes:
                    depth_mask[depth] = ZERO
                    covered |= ONE << np.uint64(cell)
                    holes_made += 1
                    moved = True
                    break
                continue
            if left[shape] == 0 or depth_next[depth] >= first[shape, cell + 1]:
                depth_shape[depth] += 1
                if depth_shape[depth] < shapes:
                    depth_next[depth] = first[depth_shape[depth], cell]
                continue
            mask = by_cell[depth_next[depth]]
            depth_next[depth] += 1
            if mask & covered == ZERO:
                tried += 1
                depth_mask[depth] = mask
                covered |= mask
                left[shape] -= 1
                moved = True
                break
        if not moved:  # every choice tried: back to the depth above, undoing its choice
            depth -= 1
            if depth >= 0:
                covered &= ~(depth_mask[depth] | (ONE << np.uint64(depth_cell[depth])))
                if depth_mask[depth] == ZERO:
                    holes_made -= 1
                else:
                    left[depth_shape[depth]] += 1
            continue
        if tried > budget:
            return OVER_BUDGET, found
        if covered == full:
            assembly = np.zeros(pieces, np.uint64)
            placed = 0
            for level in range(depth + 1):
                if depth_mask[level] != ZERO:
                    assembly[placed] = depth_mask[level]
                    placed += 1
            if not _among(images, _sorted_copy(assembly)):
                return ANOTHER, found + 1
            found += 1
            depth += 1
            depth_shape[depth] = shapes + 1  # nothing to try there: back up, undoing the last choice
            continue
        depth += 1
        depth_cell[depth] = _lowest(full & ~covered, bit_of)
        depth_shape[depth] = 0
        depth_next[depth] = first[0, depth_cell[depth]]
    return ONLY_THE_CUT, found
