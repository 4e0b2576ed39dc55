"""Cells that exactly the same placements cover, made one column of the exact cover.

On BurrTools' rhombic and tetrahedra-octahedra grids a cell of the puzzle (a rhombic dodecahedron,
a tetrahedron) is several of its voxels, and every placement covers all of them or none: HexSticks'
2,256 voxels are 480 such columns, PiecesOfEight's 192 are 48. Covering one voxel of a column once
is covering each of them once, so the search over columns makes the same choices on boards a
fraction as wide. Numbered by the first of their cells in the fill order, the lowest open column is
the one holding the lowest open cell: the lowest-cell search's tree is the very same. Only cells
that must be filled are merged: a cell that may stay empty counts as one hole, and the cells of a
column would count as one.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from cpsolve.models import CoverProblem

SEEDS = (0x243F6A8885A308D3, 0x13198A2E03707344)  # two keys for each atom: see `_groups`


def merged_columns(problem: CoverProblem) -> CoverProblem:
    """The problem over columns of cells that the same placements cover (each column one cell of
    the result, numbered in fill order); the problem itself where none share (cubes, spheres,
    prisms, whose cells the box search lays out by their positions) or where a cell may stay empty."""
    if problem.optional or problem.positions or problem.atoms == 0:
        return problem
    cell_atoms, starts = _atoms_by_cell(problem)
    group = _groups(cell_atoms, starts)
    if group is None:
        return problem
    columns = int(group.max()) + 1
    if columns == problem.cells:
        return problem
    rank = np.empty(problem.cells, np.int64)
    rank[list(problem.fill_order)] = np.arange(problem.cells)
    first = np.full(columns, problem.cells, np.int64)
    np.minimum.at(first, group, rank)
    renumber = np.empty(columns, np.int64)
    renumber[np.argsort(first, kind="stable")] = np.arange(columns)
    column_of = np.append(renumber[group], -1)  # the padding (-1) looks itself up
    return dataclasses.replace(
        problem,
        cells=columns,
        fill_order=tuple(range(columns)),
        atom_cells=_distinct_in_rows(column_of[problem.atom_cells]),
    )


def _atoms_by_cell(problem: CoverProblem) -> tuple[Any, Any]:
    """Every cell's atoms, cell after cell (each cell's ascending), and where each cell's begin
    (cells + 1 entries)."""
    atoms, width = problem.atom_cells.shape
    cells = problem.atom_cells.ravel()
    covered = cells >= 0
    owner = np.repeat(np.arange(atoms, dtype=np.int64), width)[covered]
    cells = cells[covered]
    order = np.lexsort((owner, cells))
    counts = np.bincount(cells, minlength=problem.cells)
    return owner[order], np.concatenate(([0], np.cumsum(counts)))


def _groups(cell_atoms: Any, starts: Any) -> Any | None:
    """A group number for each cell, equal for cells whose atoms are the same; None if two cells
    with the same keys turn out to differ (then nothing is merged). A cell's keys are its number
    of atoms and two sums of a 64-bit mix of each; cells with equal keys are then compared atom by
    atom, so a clash of keys can only cost the merge, never a solution."""
    counts = np.diff(starts)
    nonempty = np.flatnonzero(counts)
    keys = [counts]
    for seed in SEEDS:
        summed = np.zeros(len(counts), np.uint64)
        if len(nonempty):
            summed[nonempty] = np.add.reduceat(_mixed(cell_atoms, seed), starts[nonempty])  # wraps around
        keys.append(summed)
    order = np.lexsort(keys[::-1])  # by count, then the sums
    changes = np.zeros(len(order), bool)
    changes[0] = True
    for key in keys:
        changes[1:] |= key[order[1:]] != key[order[:-1]]
    group = np.empty(len(order), np.int64)
    group[order] = np.cumsum(changes) - 1
    representative = order[changes]  # the first cell of each group, in that order
    own = np.repeat(np.arange(len(counts)), counts)
    offset = np.arange(len(cell_atoms)) - np.repeat(starts[:-1], counts)
    theirs = starts[representative[group[own]]] + offset
    return group if (cell_atoms[theirs] == cell_atoms).all() else None


def _mixed(atoms: Any, seed: int) -> Any:
    """A 64-bit mix of each atom number (splitmix64's finaliser)."""
    mixed = atoms.astype(np.uint64) + np.uint64(seed)
    mixed = (mixed ^ (mixed >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    mixed = (mixed ^ (mixed >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return mixed ^ (mixed >> np.uint64(31))


def _distinct_in_rows(rows: Any) -> Any:
    """Each row's distinct values (not -1), ascending, padded with -1 to the widest."""
    ordered = np.sort(rows, axis=1)
    repeated = np.zeros(ordered.shape, bool)
    repeated[:, 1:] = ordered[:, 1:] == ordered[:, :-1]
    kept = (ordered >= 0) & ~repeated
    width = max(int(kept.sum(axis=1).max(initial=0)), 1)
    out = np.full((rows.shape[0], width), -1, np.int64)
    row, place = np.nonzero(kept)
    slot = np.arange(len(row)) - np.repeat(np.cumsum(kept.sum(axis=1)) - kept.sum(axis=1), kept.sum(axis=1))
    out[row, slot] = ordered[row, place]
    return out
