"""Every shipped spec gives its expected counts, with and without symmetry breaking."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import SPECS, checked_run, corpus_dir, run_one, spec_files

from cpsolve.counting import Counts
from cpsolve.engines import SearchOptions
from cpsolve.formats import read_puzzle
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
