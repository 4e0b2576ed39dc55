"""The compiled exact-cover search that fills the open cell the fewest placements fit (numba);
imported only when numba is installed.

Dancing links' choice of column (Knuth's S heuristic), kept on arrays instead of links: each
cell counts the live placements that cover it. Placing a placement decides its cells and kills
every live placement that shares a cell with it, and every placement of a piece whose copies are
all used; leaving an optional cell empty (a hole) kills the placements that cover it. Each kill
is pushed on a stack, with the cell counts it lowers, and undone in reverse on the way back, so
the choice of the next cell is one pass over the counts. For the chosen cell every live
placement covering it is tried, then, for an optional cell, the hole: every solution is met
exactly once. Piece groups are not taken here (the lowest-cell kernel takes them).

Measured on the Kanoodle pyramid (spheres, 55 cells, 1,646 placements): the lowest-cell order
makes 1,694 million placements, this choice 1.5 million (benchmarks/exact_cover_search.py).

State per depth d: `cells[d]` the cell level d decides (-1: not chosen yet), `positions[d]` the
next entry of its column to try (one past the column: the hole; two past: done), `chosen[d]` the
placement made there (-1: a hole), `marks[d]` the stack height before it. Like cover_kernel.py it
places at most a given number of placements per call and resumes where it left off.
"""

from __future__ import annotations

from typing import Any

from numba import njit

Array = Any


@njit(cache=True, inline="always")
def _kill(atom: int, alive: Array, count: Array, atom_start: Array, atom_cells: Array, stack: Array, top: int) -> int:
    """Kill a live atom: it no longer counts for its cells nor for its piece's column."""
    alive[atom] = False
    stack[top] = atom
    for index in range(atom_start[atom], atom_start[atom + 1]):
        count[atom_cells[index]] -= 1
    return top + 1


@njit(cache=True)
def _choose(decided: Array, count: Array, optional: Array, hole_allowed: bool, once: Array, left: Array) -> int:
    """The column with the fewest ways to decide it: an open cell (lowest rank first among
    equals), or a piece used exactly once and not yet placed (column cells + piece, counted in
    the same array); -2 when some column has none (a dead end); -1 when every cell is decided."""
    cells = decided.shape[0]
    best = -1
    best_ways = 1 << 60
    for cell in range(cells):
        if decided[cell]:
            continue
        ways = count[cell] + (1 if optional[cell] and hole_allowed else 0)
        if ways == 0:
            return -2
        if ways < best_ways:
            best, best_ways = cell, ways
    if best < 0:
        return -1
    for piece in range(once.shape[0]):
        if once[piece] and left[piece] > 0:
            ways = count[cells + piece]
            if ways == 0:
                return -2
            if ways < best_ways:
                best, best_ways = cells + piece, ways
    return best


@njit(cache=True)
def search(
    atom_start: Array,
    atom_cells: Array,
    cell_start: Array,
    column_atoms: Array,
    atom_piece: Array,
    optional: Array,
    once: Array,
    least: Array,
    most: Array,
    max_holes: int,
    alive: Array,
    count: Array,
    decided: Array,
    left: Array,
    holes: Array,
    stack: Array,
    top_of: Array,
    cells: Array,
    positions: Array,
    chosen: Array,
    marks: Array,
    depth: int,
    step_budget: int,
    found: Array,
    found_length: Array,
) -> tuple[int, int, int]:
    """Continue the search from `depth`; return (depth, solutions written to `found`, placements).

    Cells are numbered in fill order, a column per cell and then one per piece (column cells +
    p); an atom's "cells" in `atom_cells[atom_start[a]:atom_start[a + 1]]` are its board cells
    and its piece's column, `column_atoms[cell_start[c]:cell_start[c + 1]]` the atoms in column c.
    `once[p]`: piece p is used exactly once (its column is chosen like a cell's). `top_of[0]` is
    the stack's height (kept between calls)."""
    pieces_column = optional.shape[0]
    written = 0
    steps = 0
    top = top_of[0]
    while depth >= 0:
        exhausted = False  # this level has nothing (more) to try: back up
        if cells[depth] < 0:
            cell = _choose(decided, count, optional, holes[0] < max_holes, once, left)
            if cell == -1:
                enough = True
                for piece in range(least.shape[0]):
                    if most[piece] - left[piece] < least[piece]:
                        enough = False
                if enough:
                    if written == found.shape[0]:
                        top_of[0] = top
                        return depth, written, steps
                    length = 0
                    for level in range(depth):
                        if chosen[level] >= 0:
                            found[written, length] = chosen[level]
                            length += 1
                    found_length[written] = length
                    written += 1
            if cell < 0:
                exhausted = True
            else:
                cells[depth] = cell
                positions[depth] = cell_start[cell]
        if not exhausted:
            if steps >= step_budget:
                top_of[0] = top
                return depth, written, steps
            cell = cells[depth]
            index = positions[depth]
            end = cell_start[cell + 1]
            while index < end and not alive[column_atoms[index]]:
                index += 1
            if index < end:
                atom = column_atoms[index]
                positions[depth] = index + 1
                chosen[depth] = atom
                marks[depth] = top
                steps += 1
                for at in range(atom_start[atom], atom_start[atom + 1]):
                    covered = atom_cells[at]
                    if covered >= pieces_column:
                        continue  # the piece's column: emptied below when no copy is left
                    decided[covered] = True
                    for other in range(cell_start[covered], cell_start[covered + 1]):
                        if alive[column_atoms[other]]:
                            top = _kill(column_atoms[other], alive, count, atom_start, atom_cells, stack, top)
                piece = atom_piece[atom]
                left[piece] -= 1
                if left[piece] == 0:
                    for other in range(cell_start[pieces_column + piece], cell_start[pieces_column + piece + 1]):
                        if alive[column_atoms[other]]:
                            top = _kill(column_atoms[other], alive, count, atom_start, atom_cells, stack, top)
                depth += 1
                cells[depth] = -1
                continue
            if index == end and cell < pieces_column and optional[cell] and holes[0] < max_holes:
                positions[depth] = end + 1
                chosen[depth] = -1
                marks[depth] = top
                steps += 1
                decided[cell] = True
                holes[0] += 1
                for other in range(cell_start[cell], end):
                    if alive[column_atoms[other]]:
                        top = _kill(column_atoms[other], alive, count, atom_start, atom_cells, stack, top)
                depth += 1
                cells[depth] = -1
                continue
        cells[depth] = -1
        depth -= 1
        if depth >= 0:
            top = _undo(
                depth,
                alive,
                count,
                decided,
                left,
                holes,
                stack,
                top,
                cells,
                chosen,
                marks,
                atom_start,
                atom_cells,
                atom_piece,
                pieces_column,
            )
    top_of[0] = top
    return depth, written, steps


@njit(cache=True, inline="always")
def _undo(
    depth: int,
    alive: Array,
    count: Array,
    decided: Array,
    left: Array,
    holes: Array,
    stack: Array,
    top: int,
    cells: Array,
    chosen: Array,
    marks: Array,
    atom_start: Array,
    atom_cells: Array,
    atom_piece: Array,
    pieces_column: int,
) -> int:
    """Take back the move made at `depth`: revive what it killed, newest first."""
    while top > marks[depth]:
        top -= 1
        atom = stack[top]
        alive[atom] = True
        for index in range(atom_start[atom], atom_start[atom + 1]):
            count[atom_cells[index]] += 1
    atom = chosen[depth]
    if atom >= 0:
        for index in range(atom_start[atom], atom_start[atom + 1]):
            if atom_cells[index] < pieces_column:
                decided[atom_cells[index]] = False
        left[atom_piece[atom]] += 1
    else:
        decided[cells[depth]] = False
        holes[0] -= 1
    return top
