"""Where a piece's orientations fit in a target, compiled (numba): every shift of every
orientation that the grid's translation lattice allows tried cell by cell, the placements written
with their cells already sorted.

The same placements, in the same order, as the array operations of models/packing/placements.py
(each orientation in turn, its shifts z slowest and x fastest), which stay where no build of the
kernels is loaded: on a 9x9x9 design of 76,000 placements those took 0.035 s (whole arrays of
shifts, a mask, then a sort of every placement's cells) and this 0.009 s (both timed side by side
in one process; the model as a whole: benchmarks/model_build.py). On the other grids a shift is a
multiple of the grid's `period` on each axis whose blocks summed over its `parity_axes` are even
(cpsolve.grids.base.Grid.in_lattice; the cube grid: every shift).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit


@njit(cache=True)
def _rooms(size: Any, shapes: Any) -> Any:
    """How many shifts along each axis keep each orientation (cells at 0 or above) in the box."""
    rooms = np.zeros((shapes.shape[0], 3), np.int64)
    for orientation in range(shapes.shape[0]):
        for axis in range(3):
            reach = 0
            for cell in range(shapes.shape[1]):
                reach = max(reach, shapes[orientation, cell, axis])
            rooms[orientation, axis] = max(0, size[axis] - reach)
    return rooms


@njit(cache=True)
def fitting(
    index: Any, size: Any, shapes: Any, checks: Any, codes: Any, allowed: Any, most: int, lattice: Any
) -> tuple[Any, Any, int]:
    """The placements of one piece: `index` each box place's target cell (-1: none; C order of a
    box of `size`), `shapes` the orientations (orientations x cells x 3), `checks` each cell's row
    of `allowed` (kind x place: where a cell of that kind may lie) and `codes` its colour code;
    `lattice` the grid's period on each axis, then 1 for each axis whose blocks count towards the
    parity that must be even (the cube grid's: 1, 1, 1, 0, 0, 0).

    Returns the target cells of each placement sorted (placements x cells, int32), their colour
    codes moved along and how many were found; stops once more than
    `most` are (the caller refuses the model then), so it never holds more than that."""
    orientations, length = shapes.shape[0], shapes.shape[1]
    rooms = _rooms(size, shapes)
    bound = 0
    for orientation in range(orientations):
        bound += rooms[orientation, 0] * rooms[orientation, 1] * rooms[orientation, 2]
    bound = min(bound, most + 1)
    cells = np.empty((bound, length), np.int32)
    colours = np.empty((bound, length), np.int16)
    strides = (size[1] * size[2], size[2], 1)
    offsets = np.empty(length, np.int64)  # the orientation's cells as place offsets, their rows
    kinds = np.empty(length, np.int64)  # of `allowed` and their colour codes, in the order of
    marks = np.empty(length, np.int64)  # their target cells at the first shift that fits
    found = 0
    for orientation in range(orientations):
        for cell in range(length):
            offsets[cell] = (
                shapes[orientation, cell, 0] * strides[0]
                + shapes[orientation, cell, 1] * strides[1]
                + shapes[orientation, cell, 2]
            )
            kinds[cell] = checks[orientation, cell]
            marks[cell] = codes[orientation, cell]
        arranged = False
        for z in range(0, rooms[orientation, 2], lattice[2]):
            for y in range(0, rooms[orientation, 1], lattice[1]):
                for x in range(0, rooms[orientation, 0], lattice[0]):
                    blocks = x // lattice[0] * lattice[3] + y // lattice[1] * lattice[4] + z // lattice[2] * lattice[5]
                    if blocks % 2 == 1:
                        continue
                    start = x * strides[0] + y * strides[1] + z
                    fits = True
                    for cell in range(length):
                        if not allowed[kinds[cell], start + offsets[cell]]:
                            fits = False
                            break
                    if not fits:
                        continue
                    if found == bound:
                        return cells, colours, found + 1
                    if not arranged:
                        _arrange(index, start, offsets, kinds, marks)
                        arranged = True
                    _sorted_row(index, start, offsets, marks, cells[found], colours[found])
                    found += 1
    return cells, colours, found


@njit(cache=True)
def _arrange(index: Any, start: int, offsets: Any, kinds: Any, marks: Any) -> None:
    """Put an orientation's cells in the order of their target cells at this shift: where the
    target's cells are numbered along the axes in some order (every format's are), they are then
    in order at every shift, and the sort of each placement only checks it."""
    order = np.argsort(index[start + offsets], kind="mergesort")
    offsets[:] = offsets[order].copy()
    kinds[:] = kinds[order].copy()
    marks[:] = marks[order].copy()


@njit(cache=True, inline="always")
def _sorted_row(index: Any, start: int, offsets: Any, codes: Any, row: Any, colours: Any) -> None:
    """One placement's target cells in increasing order, each cell's colour code along (an
    insertion sort: a piece's cells come in nearly the same order at every shift)."""
    for cell in range(offsets.shape[0]):
        value = index[start + offsets[cell]]
        code = codes[cell]
        k = cell
        while k > 0 and row[k - 1] > value:
            row[k] = row[k - 1]
            colours[k] = colours[k - 1]
            k -= 1
        row[k] = value
        colours[k] = code
