"""Every shipped spec gives its expected counts, with and without symmetry breaking."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import SPECS, checked_run, corpus_dir, run_one, spec_files

from cpsolve.counting import Counts
from cpsolve.engines import SearchOptions
from cpsolve.formats import puzzle_from_data, read_puzzle
from cpsolve.models.packing import Placement
from cpsolve.run import RunOptions


@pytest.mark.parametrize("path", spec_files())
def test_expected_counts(path: Path) -> None:
    spec = read_puzzle(path).loaded.spec
    if spec.expected is None:
        report = run_one(path, RunOptions(show=0, search=SearchOptions(first_only=True)))
        assert report.counts.raw >= 1
        return
    report = checked_run(path)
    assert report.mismatches == []
    for name, value in spec.expected.model_dump().items():
        if value is not None:
            assert getattr(report.counts, name) == value


def comparable_specs() -> list[Any]:
    """Specs with counts whose plain enumeration takes minutes at most.

    Left out: specs marked slow (pentominoes: CP-SAT enumerates its 9356 raw solutions for well
    over 20 minutes; the 4x4x4 snakes). Plain runs of more than 1000 raw solutions are slow.
    """
    params = []
    for param in spec_files():
        expected = read_puzzle(param.values[0]).loaded.spec.expected
        if expected is None or param.marks:
            continue
        slow = (expected.raw or 0) > 1000
        params.append(pytest.param(param.values[0], marks=[pytest.mark.slow] if slow else [], id=param.id))
    return params


@pytest.mark.parametrize("path", comparable_specs())
def test_breaking_agrees_with_plain_enumeration(path: Path) -> None:
    broken = checked_run(path, RunOptions(show=0, symmetry_breaking=True))
    plain = checked_run(path, RunOptions(show=0, symmetry_breaking=False))
    assert broken.counts == plain.counts
    # every raw solution once; a palindromic chain's foldings are met in both readings
    readings = 2 if any("reads the same from both ends" in note for note in plain.notes) else 1
    assert plain.solutions_enumerated == readings * plain.counts.raw
    assert broken.solutions_enumerated <= plain.solutions_enumerated


def test_soma_enumerates_at_most_two_per_class() -> None:
    report = checked_run(SPECS / "soma.yaml")
    assert report.counts == Counts(raw=11520, rotations=480, unique=240)
    assert report.solutions_enumerated <= 2 * 240


def test_without_a_piece_used_once_a_cells_placements_break_symmetry() -> None:
    """Eighteen copies of one T-tetracube, or BurrTools' SolidSixPieceBurrs (six of 25 pieces
    with ranges): no piece is in every solution once, but every solution covers a cell that must
    be filled exactly once. Breaking by that cell's placements enumerates fewer solutions and
    the counts stay those of the plain enumeration, orbit-stabiliser check included."""
    for path in (SPECS / "t_tetracubes_6x6x2.yaml", corpus_dir("burrtools") / "SolidSixPieceBurrs.xmpuzzle"):
        broken = checked_run(path)
        assert broken.breaking is not None and str(broken.breaking["set"]).startswith("cell (")
        assert broken.solutions_enumerated < broken.counts.raw
        assert broken.counts == checked_run(path, RunOptions(show=0, symmetry_breaking=False)).counts


def _placements_one_at_a_time(model: Any) -> list[Any]:
    """Every placement as the definition reads: each way each piece lies, moved by every
    translation the grid allows that takes its first cell onto a target cell, kept where every
    cell is in the target and every cell's colour fits the target cell's."""
    puzzle = model.puzzle
    target = set(puzzle.target)
    found = []
    for number, piece in enumerate(puzzle.pieces):
        grid = puzzle.grid
        lying: list[tuple[Any, Any]] = (
            [
                (tuple(c for c, _ in way), tuple(k for _, k in way))
                for way in grid.coloured_orientations(piece.cells, piece.colours)
            ]
            if piece.coloured
            else [(shape, None) for shape in grid.orientations(piece.cells)]
        )
        for shape, colours in lying:
            for anchor in sorted(target):
                shift = tuple(a - s for a, s in zip(anchor, shape[0], strict=True))
                if not puzzle.grid.in_lattice([shift])[0]:
                    continue
                cells = tuple(tuple(c + d for c, d in zip(cell, shift, strict=True)) for cell in shape)
                if not set(cells) <= target:
                    continue
                kinds = colours or (None,) * len(cells)
                if all(puzzle.colours_fit(k, puzzle.target_colours.get(c)) for c, k in zip(cells, kinds, strict=True)):
                    found.append(Placement(number, cells, colours))
    return found


COLOURED_PRISMS = {
    "name": "coloured prisms",
    "grid": "prism",
    "pieces": {
        "A": {"cells": [[0, 0, 0], [1, 0, 0], [2, 0, 0]], "colours": {"red": [[0, 0, 0]]}},
        "B": {"cells": [[0, 0, 0], [1, 0, 0], [2, 0, 0]], "colours": {"blue": [[1, 0, 0]]}},
        "C": {"cells": [[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0]]},
        "D": {"cells": [[0, 0, 0], [1, 0, 0]]},
    },
    "target": {
        "cells": [[x, y, 0] for y in range(2) for x in range(6)],
        "colours": {"red": [[0, 0, 0], [5, 1, 0]], "blue": [[2, 1, 0], [3, 0, 0]]},
    },
    "colour_rule": [["red", "red"], ["blue", "blue"]],
}


@pytest.mark.parametrize(
    "source",
    [
        "burrtools/PelikanBurr.xmpuzzle",  # pieces of several lengths
        "burrtools/CubeInCage.xmpuzzle",  # optional cells
        "yass/figures/003_dog.soma",
        "foam_colours.yaml",
        "kanoodle_pyramid.yaml",  # spheres: a lattice of translations
        "hexiamonds_rhombus.yaml",  # prisms
        "coloured prisms",  # colours on another grid: checked placement by placement
        "coloured cubes",  # colours on cubes: checked with the cells, all shifts at once
    ],
)
def test_placements_made_as_arrays_are_the_definitions(source: str) -> None:
    """The placements, found as arrays and made into cells only when asked for, are exactly those
    of every orientation at every allowed translation that fits the target and its colours,
    each once, piece by piece; a placement asked for again is the same object."""
    if source.startswith("coloured"):
        grid = "prism" if source == "coloured prisms" else "cube"
        model: Any = puzzle_from_data(dict(COLOURED_PRISMS, name=source, grid=grid)).model()[0]
    else:
        folder, _, name = source.rpartition("/")
        model = read_puzzle(corpus_dir(folder) / name if folder else SPECS / source).model()[0]
    made = list(model.placements)
    expected = _placements_one_at_a_time(model)
    assert len(made) == len(set(made)) == model.atom_count > 0
    assert set(made) == set(expected)
    assert [p.piece for p in made] == sorted(p.piece for p in made)
    assert model.placements[len(made) - 1] is made[-1] and model.placements[-1] is made[-1]
    with pytest.raises(IndexError):
        model.placements[len(made)]
