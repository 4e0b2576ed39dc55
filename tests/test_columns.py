"""Cells that the same placements cover, made one column (cpsolve/engines/exact_cover/columns.py):
the lowest-cell search over the columns makes the same placements and meets the same solutions as
over the cells, on drawn exact covers (against a brute force too) and BurrTools' rhombic and
tetra-octa examples."""

from __future__ import annotations

import dataclasses
import itertools
from typing import Any

import numpy as np
import pytest
from conftest import corpus_dir
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cpsolve.engines import DEFAULT
from cpsolve.engines.base import Part
from cpsolve.engines.exact_cover import columns, parts_for, search_for
from cpsolve.engines.exact_cover.columns import merged_columns
from cpsolve.engines.exact_cover.cover_search import CoverSearch
from cpsolve.formats import ReadOptions, read_puzzle
from cpsolve.models import CoverProblem

Found = tuple[int, list[tuple[int, ...]]]  # placements made, solutions (sorted atoms each, sorted)


def searched(problem: CoverProblem, parts: list[Part]) -> Found:
    """The lowest-cell search of every part: the placements it made and the solutions it met."""
    search = CoverSearch.of(problem)
    placements, found = 0, list[tuple[int, ...]]()
    for part in parts:
        for solutions, steps in search.run(part.forced, part.left_out, 1 << 40, 1024):
            placements += steps
            found.extend(tuple(sorted(solution)) for solution in solutions)
    return placements, sorted(found)


@st.composite
def covers_with_twin_cells(draw: st.DrawFn) -> CoverProblem:
    """An exact cover whose columns are each blown up into one to three cells (twins: the same
    atoms cover them), a column or two left alone with atoms of their own, the cells numbered and
    filled in a drawn order; pieces of at most two copies."""
    columns_wanted = draw(st.integers(2, 7))
    twins = [draw(st.integers(1, 3)) for _ in range(columns_wanted)]
    cells_of_column = np.split(np.arange(sum(twins)), np.cumsum(twins)[:-1])
    cells = sum(twins)
    pieces = draw(st.integers(1, 4))
    atoms: list[list[int]] = []
    atom_piece: list[int] = []
    for _ in range(draw(st.integers(1, 12))):
        chosen = draw(st.sets(st.integers(0, columns_wanted - 1), min_size=1, max_size=3))
        atoms.append(sorted(int(cell) for column in chosen for cell in cells_of_column[column]))
        atom_piece.append(draw(st.integers(0, pieces - 1)))
    if draw(st.booleans()):  # one cell of a column covered alone too: it no longer shares that column
        cell = int(draw(st.sampled_from(range(cells))))
        atoms.append([cell])
        atom_piece.append(draw(st.integers(0, pieces - 1)))
    renumber = draw(st.permutations(range(cells)))
    width = max(len(atom) for atom in atoms)
    atom_cells = np.full((len(atoms), width), -1, np.int64)
    for row, atom in enumerate(atoms):
        atom_cells[row, : len(atom)] = [renumber[cell] for cell in atom]
    bounds = tuple((draw(st.integers(0, 1)), 2) for _ in range(pieces))
    return CoverProblem(
        cells=cells,
        fill_order=tuple(draw(st.permutations(range(cells)))),
        atom_cells=atom_cells,
        atom_piece=np.array(atom_piece, np.int64),
        piece_bounds=bounds,
    )


def brute_force(problem: CoverProblem) -> list[tuple[int, ...]]:
    """Every set of atoms that covers each cell once within the pieces' bounds."""
    cells_of = [set(row[row >= 0].tolist()) for row in problem.atom_cells]
    found = []
    for size in range(1, problem.atoms + 1):
        for chosen in itertools.combinations(range(problem.atoms), size):
            covered = [cell for atom in chosen for cell in cells_of[atom]]
            if len(covered) != problem.cells or len(set(covered)) != problem.cells:
                continue
            copies = np.bincount(problem.atom_piece[list(chosen)], minlength=len(problem.piece_bounds))
            if all(low <= n <= high for n, (low, high) in zip(copies.tolist(), problem.piece_bounds, strict=True)):
                found.append(chosen)
    return sorted(found)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(covers_with_twin_cells())
def test_twin_cells_made_one_column_leave_the_search_as_it_was(problem: CoverProblem) -> None:
    merged = merged_columns(problem)
    whole = [Part(problem.forced, problem.excluded)]
    assert searched(merged, whole) == searched(problem, whole)
    assert searched(merged, whole)[1] == brute_force(problem)
    assert merged.cells <= problem.cells
    for row in merged.atom_cells:  # an atom covers each of its columns once
        covered = row[row >= 0].tolist()
        assert len(set(covered)) == len(covered)


def _corpus_problem(name: str, problem: str | None) -> tuple[CoverProblem, list[Part]]:
    puzzle = read_puzzle(corpus_dir("burrtools-grids") / name, ReadOptions(problem=problem))
    model = puzzle.model()[0]
    cover = model.cover_problem()
    assert cover is not None
    return cover, parts_for(cover, DEFAULT.choose_breaking(model).breaking)


@pytest.mark.parametrize(
    ("name", "problem", "cells", "merged"),
    [
        ("HexSticks.xmpuzzle", None, 2256, 480),  # rhombic dodecahedra
        ("PiecesOfEight.xmpuzzle", "3", 192, 48),
        ("FourPieceTetrahedron.xmpuzzle", None, 104, 60),  # tetrahedra and octahedra
    ],
)
def test_the_voxels_of_a_rhombic_or_tetra_octa_cell_are_one_column(
    name: str, problem: str | None, cells: int, merged: int
) -> None:
    cover, parts = _corpus_problem(name, problem)
    columns_of = merged_columns(cover)
    assert (cover.cells, columns_of.cells) == (cells, merged)
    assert searched(columns_of, parts) == searched(cover, parts)
    chosen = search_for(cover)
    assert isinstance(chosen, CoverSearch) and chosen.problem.cells == merged  # what a run searches


def test_cells_with_positions_or_that_may_stay_empty_are_left_as_they_are() -> None:
    """The box search lays cells out by their positions (cubes, spheres, prisms), and a hole is
    one cell: those problems come back unchanged."""
    cover, _ = _corpus_problem("HexSticks.xmpuzzle", None)
    with_positions = _replaced(cover, positions=tuple((cell, 0, 0) for cell in range(cover.cells)))
    assert merged_columns(with_positions) is with_positions
    with_holes = _replaced(cover, optional=frozenset({0}))
    assert merged_columns(with_holes) is with_holes


def test_cells_whose_keys_clash_are_compared_atom_by_atom(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keys that say nothing (every atom mixed to 0) put every cell covered as often in one group;
    comparing their atoms finds them different, and nothing is merged."""
    cover, _ = _corpus_problem("PiecesOfEight.xmpuzzle", "3")
    monkeypatch.setattr(columns, "_mixed", lambda atoms, seed: np.zeros(len(atoms), np.uint64))
    assert merged_columns(cover) is cover


def _replaced(problem: CoverProblem, **changes: Any) -> CoverProblem:
    return dataclasses.replace(problem, **changes)
