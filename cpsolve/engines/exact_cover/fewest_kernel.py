"""The compiled exact-cover search that fills the open cell the fewest placements fit (numba);
imported only when numba is installed.

Dancing links' choice of column (Knuth's S heuristic), kept on arrays instead of links: each
cell that must be filled counts the live placements that cover it (optional cells are never
chosen, so none is counted: on the 9x9x9 designs of `cpsolve generate packing --inside`, 92 %
of the placements' cells are optional, and counting them took half the search, 2.91 -> 1.41 s
on one; benchmarks/exact_cover_search.py). Placing a placement decides its cells and kills
every live placement that shares a cell with it, and every placement of a piece whose copies are
all used. Each kill is pushed on a stack, with the cell counts it lowers, and undone in reverse
on the way back, so the choice of the next column is one pass over the counts. The columns
chosen are the cells that must be filled and the pieces used exactly once; for the chosen one
every live placement covering it is tried, so every solution holds exactly one of them.

Optional cells are never chosen (dancing links' secondary columns): once every chosen column is
decided, the placements still alive cover optional cells only, and every set of them that fits
together is tried, each set once, in increasing placement order (a level of that phase tries
the placements after the one the level before placed); each such set whose pieces reach their
least counts, with at most `max_holes` optional cells left empty, is a solution. Deciding each
optional cell in turn (filled, or a hole) instead made a search of every way to leave each
empty. Piece groups are not taken here (the lowest-cell kernel takes them).

A placement on optional cells only (on those 9x9x9 designs two in three: they lie inside the
box) is never killed: it is in no cell's column, only in its piece's, after the others, and is
checked where it is tried (its cells open, a copy of its piece left). Its piece's count keeps it
as if it were alive, which can only make that column look dearer than it is; the counts of the
cells that must be filled stay exact. Killing such placements was most of the search: on one of
those designs (40 pieces, 4 solutions) 412 million entries of optional cells' columns read and
78 million kills, 64 million of them such placements. Without: the same 51,170 placements, the
search 3.22-3.25 -> 1.23 s (40 pieces seed 2: 6.7-6.9 -> 3.0 s, the 8x8x8 design 0.137 -> 0.072
s, the flat 9x9 0.016-0.017 -> 0.013 s; benchmarks/exact_cover_search.py --search "short side",
two rounds each).
Where such placements are few, the exact count of their pieces is worth more than the kills
saved: on BurrTools' CubeInCage (a third of its placements; the last piece often goes inside
the cage, so its column is tested placement by placement) the search took 0.53 -> 0.74 ms, on
Prisgon (8 %) its placements 146 -> 200. So they are left unkilled only where they are at least
OPTIONAL_ONLY_SHARE of all: on small designs from 45 % up (`cpsolve generate packing --shell
1`, 6x6x6 to 9x9x9, and flat ones) the search took the same time or less (the 9x9 flat design
16.7 -> 13.2 ms, a 7x7x7 one 0.42 -> 0.20 ms; medians of 40 runs, a throwaway script), and
CubeInCage 0.51 -> 0.54 ms (the tests that pass over them).

Measured on the Kanoodle pyramid (spheres, 55 cells, 1,646 placements): the lowest-cell order
makes 1,694 million placements, this choice 1.5 million (benchmarks/exact_cover_search.py).

Where one copy is left in all (the last piece), every solution of the level ends there: each
live placement of the chosen column is a solution exactly when it covers every open cell that
must be filled and leaves at most `max_holes` optional cells empty, so it is tested from its
counts and written, not placed (LAST_COPY; counted as a placement all the same). On the 9x9
flat design of 21,644 assemblies most placements are such: its search 0.070 -> 0.028 s.

A part of a split search (its first placements given) starts from the state before them and
places them as levels with one choice each (FORCED), so that a part costs no recount of every
column (tens of milliseconds on a 9x9x9 design, as much as a small part's whole search).

State per depth d: `cells[d]` the column level d decides (-1: not chosen yet; OPTIONAL_PHASE: a
level of the last phase; FORCED: a level placing a given atom), `positions[d]` the next entry of
its column to try (in the last phase: the next placement), `chosen[d]` the placement made there,
`marks[d]` the stack height before it and, where `saved` has rows, `saved[d]` the counts
before it: undoing a placement then copies them back instead of raising the count of each
column of each atom it killed, thousands on a 9x9x9 design (its search 1.13 -> 0.92 s, the 8x8x8
one 0.18 -> 0.15 s). Like cover_kernel.py it places at most a given number of
placements per call and resumes where it left off.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from .cover_kernel import (
    MUST,
    NEED,
    OPEN_OPTIONAL,
    ROOM,
    hopeless,
    least_counts_met,
    recount,
    room_and_need,
    write_found,
)
from .fewest_codes import FORCED, LAST_COPY, OPTIONAL_PHASE

KILLED_PER_STEP = 16  # placements a slice may kill per placement of its budget (cover_kernel.EXAMINED_PER_STEP)

Array = Any
# Placements on optional cells only are left unkilled (checked where tried) where they are at
# least this share of all: see the module's docstring.
OPTIONAL_ONLY_SHARE = 0.4


@njit(cache=True)
def column_lists(
    ranks: Array,
    atom_piece: Array,
    uncounted: Array,
    atom_start: Array,
    counted_end: Array,
    atom_columns: Array,
    column_start: Array,
    column_atoms: Array,
    run_end: Array,
    counted_start: Array,
    counted_columns: Array,
    optional_only: Array,
) -> int:
    """Fill the search's columns from the atoms' cells (`ranks`: fill ranks, -1 where a row is
    shorter; `uncounted`: per cell, whether it is optional; piece p's column is cells + p): each
    atom's counted columns in its row's order with its piece's column last among them, then its
    optional cells; whether each atom lies on optional cells only, where such atoms are at least
    OPTIONAL_ONLY_SHARE of all (`optional_only`, else all False: such an atom is in no cell's
    column, and in its piece's column after the others); each column's atoms in increasing order
    otherwise, and for each entry where its column's run of atoms of one piece
    ends (`run_end`); the counted columns again, packed (`counted_start`, `counted_columns`: a
    kill reads nothing else, and a killed atom is anywhere in the table). Returns the counted
    columns made. Two passes over the rows, where numpy's version (cumulative sums, a scatter and
    an argsort of 1.6 million entries on a 9x9x9 design) took 0.05-0.2 s of each such run."""
    atoms, width = ranks.shape
    cells = uncounted.shape[0]
    column_start[:] = 0
    total = 0
    found_only = 0
    for atom in range(atoms):  # first: each column's length, each atom's start and counted end
        atom_start[atom] = total
        counted = 1  # the piece's column
        for place in range(width):
            cell = ranks[atom, place]
            if cell >= 0:
                if not uncounted[cell]:
                    counted += 1
                total += 1
                column_start[cell + 1] += 1
        optional_only[atom] = counted == 1
        found_only += counted == 1
        column_start[atom_piece[atom] + cells + 1] += 1
        total += 1
        counted_end[atom] = atom_start[atom] + counted
    atom_start[atoms] = total
    if found_only < OPTIONAL_ONLY_SHARE * atoms:
        optional_only[:] = False
    for atom in range(atoms):  # one on optional cells only is never killed: in no cell's list
        if optional_only[atom]:
            for place in range(width):
                if ranks[atom, place] >= 0:
                    column_start[ranks[atom, place] + 1] -= 1
    for column in range(column_start.shape[0] - 1):
        column_start[column + 1] += column_start[column]
    next_of = column_start[:-1].copy()
    for atom in range(atoms):  # then each atom's columns, and the atom into each column's list
        counted_at = atom_start[atom]
        optional_at = counted_end[atom]
        for place in range(width):
            cell = ranks[atom, place]
            if cell < 0:
                continue
            if uncounted[cell]:
                atom_columns[optional_at] = cell
                optional_at += 1
            else:
                atom_columns[counted_at] = cell
                counted_at += 1
            if not optional_only[atom]:
                column_atoms[next_of[cell]] = atom
                next_of[cell] += 1
        atom_columns[counted_at] = atom_piece[atom] + cells
    for last in range(2):  # each piece's column: the atoms that are killed first, then the others
        for atom in range(atoms):
            if optional_only[atom] == (last == 1):
                piece_column = atom_piece[atom] + cells
                column_atoms[next_of[piece_column]] = atom
                next_of[piece_column] += 1
    for column in range(column_start.shape[0] - 1):  # where each entry's run of one piece ends
        end = column_start[column + 1]
        for index in range(end - 1, column_start[column] - 1, -1):
            same = index + 1 < end and atom_piece[column_atoms[index + 1]] == atom_piece[column_atoms[index]]
            run_end[index] = run_end[index + 1] if same else index + 1
    packed = 0
    for atom in range(atoms):
        counted_start[atom] = packed
        for index in range(atom_start[atom], counted_end[atom]):
            counted_columns[packed] = atom_columns[index]
            packed += 1
    counted_start[atoms] = packed
    return packed


@njit(cache=True)
def live_counts(alive: Array, counted_start: Array, counted_columns: Array, count: Array) -> None:
    """Each counted column's live atoms (count is zeroed first; an optional cell's stays 0: the
    search never reads it)."""
    count[:] = 0
    for atom in range(alive.shape[0]):
        if alive[atom]:
            for index in range(counted_start[atom], counted_start[atom + 1]):
                count[counted_columns[index]] += 1


@njit(cache=True, inline="always")
def _kill(
    atom: int,
    alive: Array,
    count: Array,
    counted_start: Array,
    counted_columns: Array,
    stack: Array,
    top: int,
) -> int:
    """Kill a live atom: it no longer counts for its cells that must be filled nor for its piece's
    column (optional cells are never chosen: their counts are not kept)."""
    alive[atom] = False
    stack[top] = atom
    for index in range(counted_start[atom], counted_start[atom + 1]):
        count[counted_columns[index]] -= 1
    return top + 1


@njit(cache=True)
def _fits(
    atom: int, atom_start: Array, atom_cells: Array, decided: Array, left: Array, atom_piece: Array, pieces_column: int
) -> bool:
    """Whether an atom on optional cells only (never killed) may be placed now: a copy of its
    piece left and none of its cells decided. Called only for such atoms that are alive: the
    search writes `alive[a] and (not optional_only[a] or _fits(...))` out where it tries atoms (an
    inlined function holding the test made the search 50 % slower on BurrTools' PelikanBurr)."""
    if left[atom_piece[atom]] <= 0:
        return False
    for index in range(atom_start[atom], atom_start[atom + 1]):
        cell = atom_cells[index]
        if cell < pieces_column and decided[cell]:
            return False
    return True


@njit(cache=True)
def _choose(decided: Array, count: Array, optional: Array, once: Array, left: Array) -> int:
    """The column with the fewest ways to decide it: an open cell that must be filled (lowest
    rank first among equals), or a piece used exactly once and not yet placed (column cells +
    piece, counted in the same array); -2 when some column has none (a dead end); -1 when every
    such column is decided."""
    cells = decided.shape[0]
    best = -1
    best_ways = 1 << 60
    for cell in range(cells):
        if decided[cell] or optional[cell]:
            continue
        ways = count[cell]
        if ways == 0:
            return -2
        if ways < best_ways:
            best, best_ways = cell, ways
    for piece in range(once.shape[0]):
        if once[piece] and left[piece] > 0:
            ways = count[cells + piece]
            if ways == 0:
                return -2
            if ways < best_ways:
                best, best_ways = cells + piece, ways
    return best


@njit(cache=True)
def _copies(left: Array) -> int:
    total = 0
    for copies in left:
        total += copies
    return total


@njit(cache=True)
def _undecided(decided: Array, optional: Array) -> tuple[int, int]:
    """The open cells that must be filled, and the open optional cells."""
    must = 0
    holes = 0
    for cell in range(decided.shape[0]):
        if not decided[cell]:
            if optional[cell]:
                holes += 1
            else:
                must += 1
    return must, holes


@njit(cache=True)
def _volumes(left: Array, atom_start: Array, cell_start: Array, column_atoms: Array, pieces_column: int) -> Array:
    """Each piece's cells (those of any of its placements: its column's first atom's row, less
    the piece's own column; 0 for a piece with none)."""
    volume = np.zeros(left.shape[0], np.int64)
    for piece in range(left.shape[0]):
        first = cell_start[pieces_column + piece]
        if first < cell_start[pieces_column + piece + 1]:
            atom = column_atoms[first]
            volume[piece] = atom_start[atom + 1] - atom_start[atom] - 1
    return volume


@njit(cache=True)
def _copies_left(left: Array) -> bool:
    for copies in left:  # noqa: SIM110 (numba takes no generator expression)
        if copies > 0:
            return True
    return False


@njit(cache=True)
def _complete(decided: Array, optional: Array, least: Array, most: Array, left: Array, max_holes: int) -> bool:
    """Whether the placements made are a solution: every piece placed at least its least number
    of times, and at most `max_holes` optional cells left empty (the cells that must be filled
    are, when no column is left to choose)."""
    if not least_counts_met(left, least, most):
        return False
    holes = 0
    for cell in range(decided.shape[0]):
        if optional[cell] and not decided[cell]:
            holes += 1
    return holes <= max_holes


@njit(cache=True)
def search(
    atom_start: Array,
    counted_start: Array,
    counted_columns: Array,
    atom_cells: Array,
    cell_start: Array,
    column_atoms: Array,
    run_end: Array,
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
    forced: Array,
    saved: Array,
    optional_only: Array,
) -> tuple[int, int, int]:
    """Continue the search from `depth`; return (depth, solutions written to `found`, placements).

    Cells are numbered in fill order, a column per cell and then one per piece (column cells +
    p); an atom's "cells" in `atom_cells[atom_start[a]:atom_start[a + 1]]` are its board cells
    and its piece's column, the first of them (packed again in
    `counted_columns[counted_start[a]:counted_start[a + 1]]`) the ones whose `count` it adds to,
    `column_atoms[cell_start[c]:cell_start[c + 1]]` the atoms in column c, `run_end[i]` where the
    run of one piece's atoms that entry i is in ends in its column.
    `once[p]`: piece p is used exactly once (its column is chosen like a cell's). `top_of[0]` is
    the stack's height (kept between calls). Levels 0 .. len(forced) - 1 place `forced` (a
    part's atoms; the part is empty when one is dead by then); solutions hold them.
    `optional_only[a]`: atom a lies on optional cells only and is never killed (checked where it
    is tried); empty where column_lists left none so."""
    pieces_column = optional.shape[0]
    atoms = alive.shape[0]
    unkilled = optional_only.shape[0] > 0  # a loop-invariant test first: 10 % off CubeInCage's search, which has none
    written = 0
    steps = 0
    killed = 0  # placements killed: a slice is bounded by them too (each costs about a placement)
    top = top_of[0]
    volume = _volumes(left, atom_start, cell_start, column_atoms, pieces_column)
    tally = np.zeros(4, np.int64)  # the room left (cover_kernel.hopeless): optional cells open at the end are its holes
    tally[MUST], tally[OPEN_OPTIONAL] = _undecided(decided, optional)
    tally[ROOM], tally[NEED] = room_and_need(left, least, most, volume)
    while depth >= 0:
        exhausted = False  # this level has nothing (more) to try: back up
        if cells[depth] == -1 and depth < forced.shape[0]:
            cells[depth] = FORCED
            positions[depth] = 0
        elif cells[depth] == -1:
            # -2: a dead end, where the copies left have no room (cover_kernel.hopeless) or a column no placement
            cell = -2 if hopeless(tally, 0, max_holes) else _choose(decided, count, optional, once, left)
            if cell == -1:  # the last phase: placements on optional cells only, in increasing order
                if _complete(decided, optional, least, most, left, max_holes):
                    if written == found.shape[0]:
                        top_of[0] = top
                        return depth, written, steps
                    write_found(found, found_length, written, chosen, depth)
                    written += 1
                if _copies_left(left):
                    cells[depth] = OPTIONAL_PHASE
                    after = depth > 0 and cells[depth - 1] == OPTIONAL_PHASE
                    positions[depth] = chosen[depth - 1] + 1 if after else 0
                else:  # every copy placed: no placement is alive, and looking for one scans them all
                    exhausted = True
            elif cell < 0:
                exhausted = True
            else:
                cells[depth] = cell if _copies(left) > 1 else LAST_COPY - cell
                positions[depth] = cell_start[cell]
        if not exhausted:
            if steps >= step_budget or killed >= step_budget * KILLED_PER_STEP:
                top_of[0] = top
                return depth, written, steps
            cell = cells[depth]
            index = positions[depth]
            atom = -1
            if cell <= LAST_COPY:  # each live atom of the column ends the search: tested, not placed
                must, holes = _undecided(decided, optional)
                end = cell_start[LAST_COPY - cell + 1]
                while index < end:
                    if steps >= step_budget or written == found.shape[0]:
                        positions[depth] = index
                        top_of[0] = top
                        return depth, written, steps
                    atom = column_atoms[index]
                    index += 1
                    if not (
                        alive[atom]
                        and (
                            not unkilled
                            or not optional_only[atom]
                            or _fits(atom, atom_start, atom_cells, decided, left, atom_piece, pieces_column)
                        )
                    ):
                        continue
                    steps += 1  # as many placements as placing each would make
                    counted = counted_start[atom + 1] - counted_start[atom]
                    covered = counted - 1  # its cells that must be filled
                    if covered == must and holes - (atom_start[atom + 1] - atom_start[atom] - counted) <= max_holes:
                        chosen[depth] = atom
                        write_found(found, found_length, written, chosen, depth + 1)
                        written += 1
                positions[depth] = index
                atom = -1
            elif cell == FORCED:
                if index == 0 and (
                    alive[forced[depth]]
                    and (
                        not unkilled
                        or not optional_only[forced[depth]]
                        or _fits(forced[depth], atom_start, atom_cells, decided, left, atom_piece, pieces_column)
                    )
                ):
                    atom = forced[depth]
            elif cell == OPTIONAL_PHASE:
                while index < atoms and not (
                    alive[index]
                    and (
                        not unkilled
                        or not optional_only[index]
                        or _fits(index, atom_start, atom_cells, decided, left, atom_piece, pieces_column)
                    )
                ):
                    index += 1
                if index < atoms:
                    atom = index
            else:
                end = cell_start[cell + 1]
                while index < end and not (
                    alive[column_atoms[index]]
                    and (
                        not unkilled
                        or not optional_only[column_atoms[index]]
                        or _fits(column_atoms[index], atom_start, atom_cells, decided, left, atom_piece, pieces_column)
                    )
                ):
                    index += 1
                if index < end:
                    atom = column_atoms[index]
            if atom >= 0:
                positions[depth] = index + 1
                chosen[depth] = atom
                marks[depth] = top
                if saved.shape[0] > 0:
                    saved[depth, :] = count
                steps += 1
                before = top
                for at in range(atom_start[atom], atom_start[atom + 1]):
                    covered = atom_cells[at]
                    if covered >= pieces_column:
                        continue  # the piece's column: emptied below when no copy is left
                    decided[covered] = True
                    run = cell_start[covered]
                    end = cell_start[covered + 1]
                    while run < end:  # run by run of one piece's atoms: a piece whose copies are used has none alive
                        after = run_end[run]
                        if left[atom_piece[column_atoms[run]]] > 0:
                            for other in range(run, after):
                                if alive[column_atoms[other]]:
                                    top = _kill(column_atoms[other], alive, count, counted_start, counted_columns,
                                                stack, top)  # fmt: skip
                        run = after
                piece = atom_piece[atom]
                recount(piece, counted_start[atom + 1] - counted_start[atom] - 1, 1, tally, volume, least, most, left)
                left[piece] -= 1
                if left[piece] == 0:
                    for other in range(cell_start[pieces_column + piece], cell_start[pieces_column + piece + 1]):
                        if unkilled and optional_only[column_atoms[other]]:
                            break  # the rest are never killed (listed last)
                        if alive[column_atoms[other]]:
                            top = _kill(column_atoms[other], alive, count, counted_start, counted_columns, stack, top)
                killed += top - before
                depth += 1
                cells[depth] = -1
                continue
        cells[depth] = -1
        depth -= 1
        if depth >= 0:
            top = _undo(depth, alive, count, decided, left, stack, top, chosen, marks, saved, counted_start,
                        counted_columns, atom_start, atom_cells, atom_piece, pieces_column)  # fmt: skip
            atom = chosen[depth]  # its cells that must be filled: its counted columns less its piece's
            recount(atom_piece[atom], counted_start[atom + 1] - counted_start[atom] - 1, -1, tally, volume, least,
                    most, left)  # fmt: skip
    top_of[0] = top
    return depth, written, steps


@njit(cache=True, inline="always")
def _undo(
    depth: int,
    alive: Array,
    count: Array,
    decided: Array,
    left: Array,
    stack: Array,
    top: int,
    chosen: Array,
    marks: Array,
    saved: Array,
    counted_start: Array,
    counted_columns: Array,
    atom_start: Array,
    atom_cells: Array,
    atom_piece: Array,
    pieces_column: int,
) -> int:
    """Take back the placement made at `depth`: revive what it killed, newest first, and the
    counts as they were (copied back where the level saved them, else raised kill by kill)."""
    snapshots = saved.shape[0] > 0
    while top > marks[depth]:
        top -= 1
        atom = stack[top]
        alive[atom] = True
        if not snapshots:
            for index in range(counted_start[atom], counted_start[atom + 1]):
                count[counted_columns[index]] += 1
    if snapshots:
        count[:] = saved[depth, :]
    atom = chosen[depth]
    for index in range(atom_start[atom], atom_start[atom + 1]):
        if atom_cells[index] < pieces_column:
            decided[atom_cells[index]] = False
    left[atom_piece[atom]] += 1
    return top
