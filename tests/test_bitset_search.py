"""The bit-parallel search (bitset_search.py, bitset_kernel.py): the same solutions as the
lowest-cell search and the brute force, where it is chosen, and its estimate (its parts, disjoint
and whole, and its estimate against the placements it makes are tested with the box search's in
test_box_search.py)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from bruteforce import count
from conftest import SPECS, built, checked_run, corpus_dir
from hypothesis import HealthCheck, given, reject, settings
from test_box_search import _bruteforce_pieces, model_of, small_packings, solutions

from cpsolve import native
from cpsolve.engines.base import Part
from cpsolve.engines.exact_cover import (
    BITSET_SIZE_PROBES,
    BITSET_THREADS_PLACEMENTS,
    ExactCoverEngine,
    parts_for,
    search_for,
)
from cpsolve.engines.exact_cover.bitset_search import MAX_ATOMS, BitsetSearch, takes
from cpsolve.engines.exact_cover.box_search import CHOOSE_AMONG, LOWEST, BoxSearch
from cpsolve.engines.exact_cover.cover_search import CoverSearch
from cpsolve.errors import CpsolveError
from cpsolve.formats import read_puzzle
from cpsolve.limits import Deadline
from cpsolve.models import CoverProblem
from cpsolve.run import RunOptions, prepare
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


# -- estimates -----------------------------------------------------------------------------------


def _distinct_cubes(count: int) -> CoverProblem:
    """`count` cells in a row, each filled by one of `count` single cubes used once: at each level
    every open cell and every piece left has as many live placements, so every path down the
    search's tree sees the same counts (count, count - 1, ... 1)."""
    cells, pieces = np.meshgrid(np.arange(count), np.arange(count))
    return CoverProblem(
        cells=count,
        fill_order=tuple(range(count)),
        atom_cells=cells.reshape(-1, 1).astype(np.int64),
        atom_piece=pieces.reshape(-1).astype(np.int64),
        piece_bounds=((1, 1),) * count,
        positions=tuple((x, 0, 0) for x in range(count)),
    )


def test_the_estimate_is_exact_where_every_path_sees_the_same_counts() -> None:
    """Knuth's estimate on a tree of one shape is its size, on any path: four cubes in four cells,
    the search first placing one of cell 0's four placements, 4 + 4*3 + 4*3*2 + 4*3*2*1 = 64
    placements, which is what the search itself makes."""
    problem = _distinct_cubes(4)
    search = BitsetSearch(problem)
    roots = search.first_choices((), frozenset())
    assert roots is not None and len(roots) == 4
    for seed in (1, 2, 99):
        assert search.estimate(roots, probes=5, seed=seed) == 64.0
    made = sum(steps for _, steps in search.run((), frozenset(), 10**6, 1024))
    assert made == 64
    assert search.estimate([], probes=10) == 0.0


def test_it_takes_threads_only_for_a_search_estimated_long(monkeypatch: pytest.MonkeyPatch) -> None:
    """Threads slowed the bit-parallel search's short runs (SolidSixPieceBurrs 0.069 -> 0.083 s):
    by default a run takes every core only from BITSET_THREADS_PLACEMENTS estimated placements.
    The estimate is made, the breaking set still the one of fewest kept atoms. (Parts on threads
    need a build whose kernels let go of the GIL: said to be loaded, so that the rule is tested
    with numba's kernels too.)"""
    monkeypatch.setattr(native, "threads_run_apart", lambda: True)
    for path in (SPECS / "kanoodle_pyramid.yaml", SOLID_SIX):
        prepared = prepare(read_puzzle(path), RunOptions(engine="exact-cover"), Deadline.after(None))
        assert isinstance(prepared.compiled.search, BitsetSearch)  # type: ignore[attr-defined]
        choice = prepared.choice.as_json()
        assert choice is not None and choice["chosen_by"] == "fewest kept atoms"
        estimate = choice["estimated_placements"]
        assert 0 < estimate < BITSET_THREADS_PLACEMENTS
        assert prepared.compiled.capabilities(2).default_workers == 1
        prepared.compiled.estimated_placements = BITSET_THREADS_PLACEMENTS
        assert prepared.compiled.capabilities(2).default_workers == 2
    estimator = ExactCoverEngine().search_estimator(built(SOLID_SIX))
    assert estimator is not None and estimator.size_probes == BITSET_SIZE_PROBES and not estimator.steady
