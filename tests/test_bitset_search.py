"""The bit-parallel search (bitset_search.py, bitset_kernel.py): the same solutions as the
lowest-cell search and the brute force, and where it is chosen (its parts, disjoint and whole,
are tested with the box search's in test_box_search.py)."""

from __future__ import annotations

from typing import Any

import numpy as np
from bruteforce import count
from conftest import SPECS, built, checked_run, corpus_dir
from hypothesis import HealthCheck, given, reject, settings
from test_box_search import _bruteforce_pieces, model_of, small_packings, solutions

from cpsolve.engines.base import Part
from cpsolve.engines.exact_cover import parts_for, search_for
from cpsolve.engines.exact_cover.bitset_search import MAX_ATOMS, BitsetSearch, takes
from cpsolve.engines.exact_cover.box_search import CHOOSE_AMONG, LOWEST, BoxSearch
from cpsolve.engines.exact_cover.cover_search import CoverSearch
from cpsolve.errors import CpsolveError
from cpsolve.models import CoverProblem
from cpsolve.run import RunOptions
from cpsolve.symmetry import choose_breaking

SOLID_SIX = corpus_dir("burrtools") / "SolidSixPieceBurrs.xmpuzzle"


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_packings())
def test_the_bitset_search_meets_the_same_solutions_as_the_lowest_cell_search(data: dict[str, Any]) -> None:
    """Pieces of ranges (0 to 4 copies, some of none), once-only ones, a box with cells taken out:
    whole and in the parts of the run's breaking, each solution once, as many as the brute force."""
    try:
        puzzle = model_of(data)
    except CpsolveError:
        reject()  # the volumes cannot match: refused before any search
    problem = puzzle.cover_problem()
    assert problem is not None
    bitset = BitsetSearch.of(problem)
    assert bitset is not None
    whole = [Part(problem.forced, problem.excluded)]
    found = solutions(bitset, whole)
    assert len(found) == len(set(found))
    assert sorted(found) == sorted(solutions(CoverSearch.of(problem), whole))
    assert len(found) == count(_bruteforce_pieces(data), [tuple(c) for c in data["target"]["cells"]])[0]
    parts = parts_for(problem, choose_breaking(puzzle.group, puzzle.breaking_candidates))
    assert sorted(solutions(bitset, parts)) == sorted(solutions(CoverSearch.of(problem), parts))


def _problem(path: Any) -> CoverProblem:
    problem = built(path).cover_problem()
    assert problem is not None
    return problem


def test_it_takes_burrs_and_spheres_and_leaves_the_box_search_the_rest() -> None:
    """Chosen where it measured faster (docs/engines.md): a 3-D target too big for the box search
    (a burr) and balls; cubes in a small box keep the box search, flat boards the lowest cell."""
    assert isinstance(search_for(_problem(SOLID_SIX)), BitsetSearch)
    assert isinstance(search_for(_problem(SPECS / "kanoodle_pyramid.yaml")), BitsetSearch)
    soma, flat = search_for(_problem(SPECS / "soma.yaml")), search_for(_problem(SPECS / "pentominoes_6x10.yaml"))
    assert isinstance(soma, BoxSearch) and soma.choose == CHOOSE_AMONG
    assert isinstance(flat, BoxSearch) and flat.choose == LOWEST
    assert not takes(_problem(SPECS / "foam_colours.yaml"))  # optional cells and groups: not here
    assert checked_run(SPECS / "kanoodle_pyramid.yaml").as_json()["cell_choice"] == "fewest-placements"


def test_it_takes_no_more_placements_than_its_tables_hold() -> None:
    """Its clash table is placements x placements bits: beyond MAX_ATOMS another search runs."""

    def on_one_cell(atoms: int) -> CoverProblem:
        return CoverProblem(
            cells=1,
            fill_order=(0,),
            atom_cells=np.zeros((atoms, 1), np.int64),
            atom_piece=np.zeros(atoms, np.int64),
            piece_bounds=((0, 1),),
        )

    assert takes(on_one_cell(MAX_ATOMS)) and not takes(on_one_cell(MAX_ATOMS + 1)) and not takes(on_one_cell(0))


def test_solid_six_counts_on_one_worker_and_on_threads() -> None:
    """The corpus's counts through the run, its parts on one worker and on two threads."""
    for workers in (1, 2):
        report = checked_run(SOLID_SIX, RunOptions(show=0, workers=workers))
        assert (report.counts.rotations, report.counts.unique) == (1063, 588)
        assert report.as_json()["cell_choice"] == "fewest-placements"
