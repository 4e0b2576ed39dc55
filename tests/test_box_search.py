"""The box search (fewest open neighbours, box_kernel.py) and the fewest-placements search
(fewest_kernel.py) against the lowest-cell search and an independent brute force; estimates; the
breaking chosen by estimated search size."""

from __future__ import annotations

import csv
import dataclasses
import itertools
import pickle
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any
from unittest.mock import patch

import numpy as np
import pytest
import yaml
from bruteforce import count
from burr_bruteforce import Piece, Target
from burr_bruteforce import count as count_with_holes
from conftest import SPECS, built, checked_run, corpus_dir, run_one
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st

from cpsolve import engines, native
from cpsolve.engines import SearchOptions, breaking
from cpsolve.engines.base import Part, PartKey, Spill
from cpsolve.engines.exact_cover import (
    CellChoice,
    CoverEnumeration,
    ExactCoverEngine,
    ExactCoverPrepared,
    Search,
    parts_for,
    search_for,
)
from cpsolve.engines.exact_cover.bitset_search import BitsetSearch
from cpsolve.engines.exact_cover.box_search import CHOOSE_AMONG, EVERY_OPEN_CELL, LOWEST, BoxSearch, Layout
from cpsolve.engines.exact_cover.cover_search import FEWEST, LOWEST_CELL, CoverSearch, fills_optional
from cpsolve.errors import CpsolveError
from cpsolve.formats import ReadOptions, read_puzzle
from cpsolve.generate import PackingRequest, packing_spec_text
from cpsolve.limits import NO_DEADLINE, Deadline
from cpsolve.models import FAMILIES, CoverProblem, PuzzleModel
from cpsolve.models.base import BuildOptions
from cpsolve.models.packing import PackingBuilder
from cpsolve.run import RunOptions
from cpsolve.spec import LoadedSpec, Source
from cpsolve.symmetry import Breaking, FirstSet, Solution, Subgroup, choose_breaking, first_sets

SHAPES: dict[str, list[tuple[int, int, int]]] = {
    "domino": [(0, 0, 0), (1, 0, 0)],
    "bar": [(0, 0, 0), (1, 0, 0), (2, 0, 0)],
    "vee": [(0, 0, 0), (1, 0, 0), (0, 1, 0)],
    "ell": [(0, 0, 0), (1, 0, 0), (2, 0, 0), (0, 1, 0)],
    "tee": [(0, 0, 0), (1, 0, 0), (2, 0, 0), (1, 1, 0)],
    "screw": [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 0, 1)],
    "tripod": [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)],
}


def model_of(data: dict[str, Any]) -> PuzzleModel:
    spec = FAMILIES.validate(data, Source("generated.yaml"))
    return PackingBuilder().build(LoadedSpec(spec, Source("generated.yaml")), BuildOptions())


def solutions(search: Search, parts: list[Part]) -> list[tuple[int, ...]]:
    return list(CoverEnumeration(search, parts, SearchOptions(), NO_DEADLINE))


@st.composite
def small_packings(draw: st.DrawFn) -> dict[str, Any]:
    """A 3-D target (a box with a few cells taken out) and pieces whose copies may vary."""
    size = draw(st.sampled_from([(2, 2, 2), (3, 2, 2), (2, 2, 3), (3, 3, 2)]))
    cells = [(x, y, z) for z in range(size[2]) for y in range(size[1]) for x in range(size[0])]
    removed = draw(st.sets(st.sampled_from(cells), max_size=2))
    target = [list(c) for c in cells if c not in removed]
    names = draw(st.lists(st.sampled_from(sorted(SHAPES)), min_size=1, max_size=3, unique=True))
    pieces = {}
    for name in names:
        least = draw(st.integers(0, 2))
        most = draw(st.integers(max(least, 1), 4))
        pieces[name] = {"cells": [list(c) for c in SHAPES[name]], "min": least, "max": most}
    pieces["cube"] = {"cells": [[0, 0, 0]], "min": 0, "max": draw(st.integers(0, 2))}
    return {"pieces": pieces, "target": {"cells": target}, "symmetry": "all"}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_packings())
def test_the_box_search_meets_the_same_solutions_as_the_lowest_cell_search(data: dict[str, Any]) -> None:
    try:
        puzzle = model_of(data)
    except CpsolveError:
        reject()  # the volumes cannot match: refused before any search
    problem = puzzle.cover_problem()
    assert problem is not None
    whole = [Part(problem.forced, problem.excluded)]
    expected = sorted(solutions(CoverSearch.of(problem), whole))
    for choose in (CHOOSE_AMONG, LOWEST, EVERY_OPEN_CELL):
        box = BoxSearch.of(problem, choose)
        assert box is not None
        assert sorted(solutions(box, whole)) == expected
    brute_raw = count(_bruteforce_pieces(data), [tuple(c) for c in data["target"]["cells"]])[0]
    assert len(expected) == brute_raw


def _lists_both_ways(problem: CoverProblem) -> None:
    """The placement lists from the build's kernels (numba's where no build is loaded: the pairs'
    neighbourhoods, the lists) and from the array operations: the same keys and placements, in
    the same order and types, for every choice of cell."""
    kernels = {key: native.kernel(key) for key in (native.BOX_LISTS, native.BOX_NEIGHBOURHOOD)}
    for choose in (CHOOSE_AMONG, LOWEST, EVERY_OPEN_CELL):
        with patch.object(native, "built_kernel", lambda key: None):
            numpy_way = BoxSearch.of(problem, choose)
        with patch.object(native, "built_kernel", kernels.get):
            compiled_way = BoxSearch.of(problem, choose)
        assert numpy_way is not None and compiled_way is not None
        for made, expected in ((compiled_way.keys, numpy_way.keys), (compiled_way.entry_atoms, numpy_way.entry_atoms)):
            assert made.dtype == expected.dtype
            assert np.array_equal(made, expected)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_packings())
def test_the_compiled_placement_lists_are_the_array_operations_lists(data: dict[str, Any]) -> None:
    try:
        problem = model_of(data).cover_problem()
    except CpsolveError:
        reject()
    assert problem is not None
    _lists_both_ways(problem)


@pytest.mark.parametrize(
    "name", ["soma.yaml", "tetrahexes_coin.yaml", "kanoodle_pyramid.yaml", "pentominoes_6x10.yaml"]
)
def test_the_compiled_placement_lists_are_the_array_operations_lists_on_shipped_puzzles(name: str) -> None:
    """Cubes, hexagons (axial cells), spheres and a flat board: every layout of the box."""
    problem = built(SPECS / name).cover_problem()
    assert problem is not None
    _lists_both_ways(problem)


def _bruteforce_pieces(data: dict[str, Any]) -> dict[str, tuple[list[tuple[int, int, int]], int, int]]:
    return {
        name: ([tuple(c) for c in piece["cells"]], piece["min"], piece["max"]) for name, piece in data["pieces"].items()
    }


@pytest.mark.parametrize("name", ["soma.yaml", "cubissimo.yaml", "coffin.yaml", "t_tetracubes_6x6x2.yaml"])
def test_the_box_search_parts_meet_the_same_solutions_as_the_lowest_cell_search(name: str) -> None:
    puzzle = built(SPECS / name)
    problem = puzzle.cover_problem()
    assert problem is not None
    parts = parts_for(problem, choose_breaking(puzzle.group, puzzle.breaking_candidates))
    box = search_for(problem)
    assert isinstance(box, BoxSearch)  # these targets extend in three directions
    assert sorted(solutions(box, parts)) == sorted(solutions(CoverSearch.of(problem), parts))


@pytest.mark.parametrize("name", ["tetrahexes_4x7.yaml", "tetrahexes_coin.yaml", "polyhexes_1234_diamond_ring.yaml"])
def test_the_box_search_takes_rows_of_hexagons_in_axial_cells_and_meets_the_same_solutions(name: str) -> None:
    """On the hex grid the box search lays cells out as their axial (q, r): a step along an axis
    is a neighbour (two diagonals are too, which only the placements checked whole see)."""
    puzzle = built(SPECS / name)
    problem = puzzle.cover_problem()
    assert problem is not None
    parts = parts_for(problem, choose_breaking(puzzle.group, puzzle.breaking_candidates))
    box = search_for(problem)
    assert isinstance(box, BoxSearch)
    assert sorted(solutions(box, parts)) == sorted(solutions(CoverSearch.of(problem), parts))


def test_boards_of_one_word_and_of_two_are_both_compared_above() -> None:
    """The kernel is compiled once for boxes of up to 64 cells (one word) and once for more."""
    for name, words in (("soma.yaml", 1), ("t_tetracubes_6x6x2.yaml", 2)):
        problem = built(SPECS / name).cover_problem()
        assert problem is not None
        box = search_for(problem)
        assert isinstance(box, BoxSearch)
        assert len(box.kernel_tables()[0]) == words


@pytest.mark.slow
@pytest.mark.parametrize("name", ["bedlam.yaml", "tetris_cube.yaml"])
def test_the_two_searches_meet_the_same_solutions_on_the_bedlam_and_tetris_cubes(name: str) -> None:
    """Where CP-SAT cannot finish, the lowest-cell search (about a minute each) checks the box
    search: the same solutions under the run's breaking, 19,186 and 9,839 of them."""
    puzzle = built(SPECS / name)
    problem = puzzle.cover_problem()
    assert problem is not None
    parts = parts_for(problem, engines.DEFAULT.choose_breaking(puzzle).breaking)
    box = search_for(problem)
    assert isinstance(box, BoxSearch)
    found = solutions(box, parts)
    assert len(found) == {"bedlam.yaml": 19186, "tetris_cube.yaml": 9839}[name]
    assert sorted(found) == sorted(solutions(CoverSearch.of(problem), parts))


def test_the_box_search_and_the_lowest_cell_search_agree_on_the_yass_corpus() -> None:
    corpus = corpus_dir("yass")
    with (corpus / "counts.tsv").open() as handle:
        figures = [row["figure"] for row in csv.DictReader(handle, delimiter="\t") if not row["error"]]
    compared = 0
    for figure in figures:
        puzzle = built(corpus / "figures" / figure)
        problem = puzzle.cover_problem()
        assert problem is not None
        parts = parts_for(problem, choose_breaking(puzzle.group, puzzle.breaking_candidates))
        box = BoxSearch.of(problem, CHOOSE_AMONG)
        if box is None:  # a box of more than 128 cells (a long snake): the lowest-cell search runs it
            continue
        assert sorted(solutions(box, parts)) == sorted(solutions(CoverSearch.of(problem), parts)), figure
        compared += 1
    assert compared >= 150


def test_the_search_is_chosen_by_the_shape_of_the_target() -> None:
    solid, flat = search_for(_problem("soma.yaml")), search_for(_problem("pentominoes_6x10.yaml"))
    assert isinstance(solid, BoxSearch) and solid.choose == CHOOSE_AMONG  # 3-D: fewest open neighbours
    assert isinstance(flat, BoxSearch) and flat.choose == LOWEST  # flat: the lowest open cell
    assert isinstance(search_for(_problem("foam_colours.yaml")), CoverSearch)  # optional cells, groups
    assert checked_run(SPECS / "pentominoes_6x10.yaml").as_json()["cell_choice"] == "lowest"
    assert checked_run(SPECS / "soma.yaml").search == {"cell_choice": str(CellChoice.FEWEST_NEIGHBOURS)}
    report = checked_run(SPECS / "t_tetracubes_6x6x2.yaml")
    assert report.as_json()["cell_choice"] == "fewest-neighbours"


def _problem(name: str) -> CoverProblem:
    problem = built(SPECS / name).cover_problem()
    assert problem is not None
    return problem


def test_a_target_beyond_128_cells_of_box_takes_the_lowest_cell_search() -> None:
    assert Layout.of([(x, y, z) for x in range(6) for y in range(6) for z in range(4)]) is None  # 144 cells
    assert Layout.of([(x, y, z) for x in range(4) for y in range(4) for z in range(8)]) is not None  # 128


def test_the_box_layout_finds_each_cells_neighbours() -> None:
    cells = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1), (2, 2, 1)]
    layout = Layout.of(cells)
    assert layout is not None and layout.three_d
    bit = dict(zip(cells, layout.bit_of_cell.tolist(), strict=True))
    for stride, valid in zip(layout.strides.tolist(), layout.valid, strict=True):
        has = {c for c in cells if (int(valid[bit[c] >> 6]) >> (bit[c] & 63)) & 1}
        expected = {c for c in cells if any(bit.get(o) == bit[c] + stride for o in cells if _adjacent(c, o))}
        assert has == expected


def _adjacent(a: Sequence[int], b: Sequence[int]) -> bool:
    return sum(abs(p - q) for p, q in zip(a, b, strict=True)) == 1


@pytest.mark.parametrize(
    ("path", "kind"),
    [(SPECS / "soma.yaml", BoxSearch), (corpus_dir("burrtools") / "SolidSixPieceBurrs.xmpuzzle", BitsetSearch)],
    ids=["box", "bit sets"],
)
def test_first_choices_split_a_part_into_disjoint_parts_that_make_it_whole(path: Path, kind: type) -> None:
    puzzle = built(path)
    problem = puzzle.cover_problem()
    assert problem is not None
    box = search_for(problem)
    assert isinstance(box, kind)
    (part, *_) = parts_for(problem, choose_breaking(puzzle.group, puzzle.breaking_candidates))
    choices = box.first_choices(part.forced, part.left_out)
    assert choices and len(choices) == len(set(choices))
    split = [s for atom in choices for s in solutions(box, [Part((*part.forced, atom), part.left_out)])]
    assert len(split) == len(set(split))
    assert sorted(split) == sorted(solutions(box, [part]))


def test_finer_parts_come_largest_first_and_are_the_first_choices_of_each_kept_atom() -> None:
    puzzle = built(SPECS / "soma.yaml")
    breaking = choose_breaking(puzzle.group, puzzle.breaking_candidates)
    prepared = ExactCoverEngine().prepare(puzzle, breaking)
    keys = prepared.part_keys(16)
    box = search_for(puzzle.cover_problem() or _problem("soma.yaml"))
    assert isinstance(box, BoxSearch)
    expected: set[tuple[int, ...]] = set()
    for part in parts_for(box.problem, breaking):
        choices = box.first_choices(part.forced, part.left_out)
        assert choices is not None
        expected.update((part.forced[-1], atom) for atom in choices)
    assert set(keys) == expected and len(keys) == len(expected)
    sizes = []
    for key in keys:
        (part,) = parts_for(box.problem, breaking, key)
        sizes.append(box.estimate_part(part.forced, part.left_out, 64))
    assert sizes == sorted(sizes, reverse=True) and sizes[0] > sizes[-1]


@pytest.mark.parametrize(("name", "deepest"), [("soma.yaml", 3), ("kanoodle_pyramid.yaml", 2)], ids=["box", "bit sets"])
def test_parts_split_level_by_level_stay_disjoint_and_whole(name: str, deepest: int) -> None:
    """Many workers (a cluster) ask for many parts: the split goes deeper than one level."""
    puzzle = built(SPECS / name)
    breaking = choose_breaking(puzzle.group, puzzle.breaking_candidates)
    prepared = ExactCoverEngine().prepare(puzzle, breaking)
    keys = prepared.part_keys(400)
    assert len(keys) >= 400 and max(len(key) for key in keys) >= deepest
    found = [s for key in keys for batch in prepared.enumerate(SearchOptions(), part=key).batches() for s in batch]
    whole = [s for batch in prepared.enumerate(SearchOptions()).batches() for s in batch]
    assert len(found) == len(set(found)) and sorted(found) == sorted(whole)


@pytest.mark.parametrize("name", ["coffin.yaml", "kanoodle_pyramid.yaml"], ids=["box", "bit sets"])
def test_a_full_board_has_no_first_choices(name: str) -> None:
    problem = _problem(name)
    box = search_for(problem)
    (solution, *_) = solutions(box, [Part(problem.forced, problem.excluded)])
    assert box.first_choices(solution, frozenset()) is None
    assert box.first_choices((solution[0], solution[0]), frozenset()) == []  # a placement twice clashes


# -- estimates -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "kind"), [("soma.yaml", BoxSearch), ("kanoodle_pyramid.yaml", BitsetSearch)], ids=["box", "bit sets"]
)
def test_the_estimate_is_close_to_the_placements_the_search_makes(name: str, kind: type) -> None:
    """Knuth's estimator is unbiased: with many probes it lands near the true size of the search
    first placing each kept placement of the run's first set (as the estimate sees them: without
    the breaking's left-out placements); the same seed, the same estimate."""
    puzzle = built(SPECS / name)
    problem = puzzle.cover_problem()
    assert problem is not None
    search = search_for(problem)
    assert isinstance(search, BoxSearch | BitsetSearch) and isinstance(search, kind)
    (option, *_) = first_sets(puzzle.group, puzzle.breaking_candidates)
    parts = [Part((*problem.forced, r), frozenset()) for r in option.kept]  # as the estimate sees them
    enumeration = CoverEnumeration(search, parts, SearchOptions(), NO_DEADLINE)
    list(enumeration)
    actual = enumeration.steps + len(option.kept)  # the kept atoms themselves are placements too
    estimate = search.estimate(option.kept, probes=20_000, seed=7)
    assert 0.8 * actual < estimate < 1.25 * actual, (estimate, actual)
    assert search.estimate([], probes=100) == 0.0
    assert search.estimate(option.kept, 64, seed=3) == search.estimate(option.kept, 64, seed=3)


def test_estimates_are_repeatable_and_differ_by_seed() -> None:
    box = search_for(_problem("soma.yaml"))
    assert isinstance(box, BoxSearch)
    roots = list(range(0, 40))
    assert box.estimate(roots, 64, seed=3) == box.estimate(roots, 64, seed=3)


class StubEstimator:
    """Sizes given per set of kept atoms; records what was asked."""

    def __init__(self, sizes: dict[tuple[int, ...], float]) -> None:
        self.sizes = sizes
        self.asked: list[int] = []

    def __call__(self, roots: Sequence[int], probes: int) -> float:
        self.asked.append(probes)
        return self.sizes[tuple(roots)]


def _option(index: int, kept: tuple[int, ...]) -> FirstSet:
    return FirstSet(index, kept, Subgroup(np.zeros((2, 1), np.int64), np.arange(2)), kept)


def test_the_default_is_left_only_for_a_clearly_smaller_search() -> None:
    default, slightly, clearly = _option(0, (1,)), _option(1, (2, 3)), _option(2, (4, 5, 6))
    near = StubEstimator({(1,): 1e6, (2, 3): 0.8e6, (4, 5, 6): 2e6})
    assert breaking._smallest(near, [default, slightly, clearly], NO_DEADLINE)[0] is default
    far = StubEstimator({(1,): 1e6, (2, 3): 0.5e6, (4, 5, 6): 2e6})
    assert breaking._smallest(far, [default, slightly, clearly], NO_DEADLINE)[0] is slightly
    assert max(far.asked) == breaking.FINAL_PROBES


def test_runs_report_the_breaking_and_how_it_was_chosen() -> None:
    small = checked_run(SPECS / "soma.yaml").as_json()["breaking"]
    assert small["set"] == "piece Z" and small["kept"] == 2
    assert small["chosen_by"] == "fewest kept atoms"  # a search this small is not worth choosing for
    assert small["estimated_placements"] > 0
    flat = checked_run(SPECS / "pentominoes_6x10.yaml").as_json()["breaking"]
    assert flat["chosen_by"] == "fewest kept atoms"  # flat: the estimates spread too widely to choose by
    assert flat["set"] == "piece X" and flat["estimated_placements"] > breaking.SMALL_SEARCH
    off = checked_run(SPECS / "soma.yaml", RunOptions(show=0, symmetry_breaking=False)).as_json()
    assert off["breaking"] is None


def test_without_numba_the_breaking_falls_back_to_the_fewest_kept_atoms(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ExactCoverEngine, "required_module", "a_module_that_is_not_installed")
    report = checked_run(SPECS / "soma.yaml", RunOptions(show=0, engine="cpsat"))
    assert report.as_json()["breaking"]["estimated_placements"] is None
    assert report.counts.unique == 240


@pytest.mark.parametrize(("name", "piece"), [("bedlam.yaml", "piece D"), ("tetris_cube.yaml", "piece yellow4")])
def test_the_estimate_chooses_the_sets_measured_best(name: str, piece: str) -> None:
    """The issue measured, by full searches: for Bedlam the symmetric X pentacube (D here, 2 kept),
    for the Tetris cube a hexacube (yellow4: 52 million placements against up to 289 million for
    the other pieces, docs/engines.md); the piece with the most placements was the worst."""
    choice = engines.DEFAULT.choose_breaking(built(SPECS / name))
    assert (choice.label, choice.chosen_by) == (piece, breaking.ChosenBy.ESTIMATE)


def test_a_time_limit_stops_the_box_search_within_moments() -> None:
    report = run_one(SPECS / "bedlam.yaml", RunOptions(show=0, workers=1, search=SearchOptions(time_limit=1.0)))
    assert not report.complete and report.stopped_by == "time limit"
    assert report.seconds < 30  # the limit's promise, with a margin for a busy machine
    assert report.identity_problems == []  # what was found is counted truly


BRUTE_FORCE_CELLS = 12  # larger targets took the brute force seconds each


@st.composite
def packings_with_holes(draw: st.DrawFn) -> dict[str, Any]:
    """small_packings with some target cells optional (and sometimes a hole limit)."""
    data = draw(small_packings())
    cells = [tuple(c) for c in data["target"]["cells"]]
    return _with_optional(draw, data, draw(st.sets(st.sampled_from(cells), max_size=3)))


def _with_optional(draw: st.DrawFn, data: dict[str, Any], optional: set[tuple[Any, ...]]) -> dict[str, Any]:
    """`data` with the `optional` cells of its target made optional, and sometimes a hole limit."""
    cells = [tuple(c) for c in data["target"]["cells"]]
    data["target"] = {"cells": [list(c) for c in cells if c not in optional], "optional": [list(c) for c in optional]}
    limited: bool = draw(st.booleans())
    if optional and limited:
        data["max_holes"] = draw(st.integers(0, len(optional)))
    return data


def _problem_of(data: dict[str, Any]) -> tuple[CoverProblem, Breaking | None]:
    """The cover problem of `data` (rejected where the volumes cannot match: refused before any
    search) and the run's breaking."""
    try:
        puzzle = model_of(data)
    except CpsolveError:
        reject()
    problem = puzzle.cover_problem()
    assert problem is not None
    return problem, choose_breaking(puzzle.group, puzzle.breaking_candidates)


def _searches_of(data: dict[str, Any]) -> tuple[CoverProblem, CoverSearch, CoverSearch, list[Part]]:
    """The cover problem of `data`, its lowest-cell and fewest-placements searches, and the parts
    of the run's breaking."""
    problem, breaking = _problem_of(data)
    lowest = CoverSearch.of(problem)
    parts = parts_for(problem, breaking)
    return problem, lowest, dataclasses.replace(lowest, choose=FEWEST), parts


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(packings_with_holes())
def test_every_search_meets_the_same_solutions_with_holes(data: dict[str, Any]) -> None:
    """The fewest-placements search and the box search (every cell choice, holes as a choice of
    their own) against the lowest-cell search, whole and in the parts of the run's breaking; and
    the count against the independent brute force."""
    _every_search_agrees(data)


@st.composite
def packings_with_many_holes(draw: st.DrawFn) -> dict[str, Any]:
    """small_packings with up to half the target's cells optional: where the searches back up
    once the copies left cannot fill the cells that must be filled (or leave too many empty)."""
    data = draw(small_packings())
    cells = [tuple(c) for c in data["target"]["cells"]]
    return _with_optional(draw, data, draw(st.sets(st.sampled_from(cells), max_size=len(cells) // 2)))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(packings_with_many_holes())
def test_every_search_meets_the_same_solutions_with_many_holes(data: dict[str, Any]) -> None:
    """As above, where many cells may stay empty."""
    _every_search_agrees(data)


def _every_search_agrees(data: dict[str, Any]) -> None:
    problem, lowest, fewest, parts = _searches_of(data)
    boxes = [BoxSearch.of(problem, choose) for choose in (CHOOSE_AMONG, LOWEST, EVERY_OPEN_CELL)]
    whole = [Part(problem.forced, problem.excluded)]
    for split in (whole, parts):
        expected = sorted(solutions(lowest, split))
        for other in (fewest, *boxes):
            assert other is not None
            assert sorted(solutions(other, split)) == expected
    optional = {tuple(cell) for cell in data["target"].get("optional", [])}
    if len(data["target"]["cells"]) + len(optional) > BRUTE_FORCE_CELLS:
        return
    target: Target = {tuple(cell): (tuple(cell) in optional, None) for cell in data["target"]["cells"]}
    target.update({cell: (True, None) for cell in optional})
    pieces: dict[str, Piece] = {
        name: ({tuple(cell): None for cell in piece["cells"]}, piece["min"], piece["max"])
        for name, piece in data["pieces"].items()
    }
    assert len(solutions(lowest, whole)) == count_with_holes(pieces, target, set(), data.get("max_holes"))[0]


FLAT_SHAPES: dict[str, list[tuple[int, int, int]]] = {
    **{name: SHAPES[name] for name in ("domino", "bar", "vee", "ell")},
    "square": [(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0)],
    "gapped": [(0, 0, 0), (2, 0, 0)],  # two cells apart: fills two cells that are each alone
    "diagonal": [(0, 0, 0), (1, 1, 0)],
    "split": [(0, 0, 0), (1, 0, 0), (3, 0, 0)],  # a pair and a cell apart from it
}


@st.composite
def flat_packings(draw: st.DrawFn) -> dict[str, Any]:
    """A board of one layer (a few cells taken out, some optional) and pieces that hold together
    or not, the small ones often used up: the lowest-cell search's islands (cells apart that no
    piece left can fill) are met often, and pieces that do not hold together fill them."""
    size = draw(st.sampled_from([(3, 3), (4, 3), (5, 2), (4, 4), (6, 2)]))
    cells = [(x, y, 0) for y in range(size[1]) for x in range(size[0])]
    removed = draw(st.sets(st.sampled_from(cells), max_size=3))
    target = [list(c) for c in cells if c not in removed]
    names = draw(st.lists(st.sampled_from(sorted(FLAT_SHAPES)), min_size=1, max_size=4, unique=True))
    pieces = {}
    for name in names:
        least = draw(st.integers(0, 2))
        pieces[name] = {
            "cells": [list(c) for c in FLAT_SHAPES[name]],
            "min": least,
            "max": draw(st.integers(max(least, 1), 4)),
        }
    pieces["cell"] = {"cells": [[0, 0, 0]], "min": 0, "max": draw(st.integers(0, 1))}
    data = {"pieces": pieces, "target": {"cells": target}, "symmetry": "all"}
    if draw(st.booleans()):
        return _with_optional(draw, data, draw(st.sets(st.sampled_from([tuple(c) for c in target]), max_size=4)))
    return data


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(flat_packings())
def test_the_lowest_cell_search_ends_a_branch_at_an_island_only_where_no_piece_left_fills_it(
    data: dict[str, Any],
) -> None:
    """The box search filling the lowest open cell (flat boards) against the lowest-cell search
    that never looks ahead, whole and in the run's parts, and the count against the brute force;
    pieces that do not hold together (two cells apart, diagonal) fill cells that are alone."""
    problem, lowest, _, parts = _searches_of(data)
    box = BoxSearch.of(problem, LOWEST)
    assert box is not None
    for split in ([Part(problem.forced, problem.excluded)], parts):
        assert sorted(solutions(box, split)) == sorted(solutions(lowest, split))
    whole = [Part(problem.forced, problem.excluded)]
    assert len(solutions(box, whole)) == _brute_force_count_of_flat(data)


def _brute_force_count_of_flat(data: dict[str, Any]) -> int:
    """The raw count of a flat packing (flat_packings) by the independent brute force."""
    optional = {tuple(cell) for cell in data["target"].get("optional", [])}
    target: Target = {tuple(cell): (False, None) for cell in data["target"]["cells"]}
    target.update({cell: (True, None) for cell in optional})
    pieces: dict[str, Piece] = {
        name: ({tuple(cell): None for cell in piece["cells"]}, piece["min"], piece["max"])
        for name, piece in data["pieces"].items()
    }
    return count_with_holes(pieces, target, set(), data.get("max_holes"))[0]


def _islands_by_definition(box: BoxSearch) -> Any:
    """BoxSearch.islands from its definition, placement by placement and cell by cell."""
    layout, problem = box.layout, box.problem
    bits = [{int(layout.bit_of_cell[c]) for c in row if c >= 0} for row in problem.atom_cells.tolist()]

    def neighbours(cell: int) -> set[int]:
        return {
            cell + int(s) for d, s in enumerate(layout.strides) if int(layout.valid[d][cell >> 6]) >> (cell & 63) & 1
        }

    expected = np.zeros((128, 7), np.uint64)
    for atom, covered in enumerate(bits):
        piece = np.uint64(1) << np.uint64(int(problem.atom_piece[atom]))
        for cell in covered:
            if not covered & neighbours(cell):
                expected[cell, 0] |= piece
            for d, stride in enumerate(layout.strides.tolist()):
                partner = cell + stride
                if partner not in neighbours(cell):
                    continue
                if not covered & ((neighbours(cell) | neighbours(partner)) - {cell, partner}):
                    expected[cell, 1 + d] |= piece
    return expected


@pytest.mark.parametrize("name", ["pentominoes_6x10.yaml", "hexiamonds_rhombus.yaml", "kanoodle_challenge.yaml"])
def test_the_islands_are_the_pieces_that_fill_a_cell_apart_as_defined(name: str) -> None:
    """On squares, triangles (where the box's directions are more than a triangle's neighbours)
    and balls in a layer; zeros for the searches that compare cells (they never read them)."""
    problem = built(SPECS / name).cover_problem()
    assert problem is not None
    box = BoxSearch.of(problem, LOWEST)
    assert box is not None
    assert (box.islands == _islands_by_definition(box)).all()
    compared = BoxSearch.of(problem, CHOOSE_AMONG)
    assert compared is not None and not compared.islands.any()


def test_islands_cut_the_pentominoes_tree_and_keep_every_solution() -> None:
    """Without islands (every piece said to fill any cell apart: nothing ends early) the same
    solutions in a larger tree: 2,455,939 placements against 1,921,237 with them
    (benchmarks/exact_cover_search.py)."""
    puzzle = built(SPECS / "pentominoes_6x10.yaml")
    problem = puzzle.cover_problem()
    assert problem is not None
    parts = parts_for(problem, choose_breaking(puzzle.group, puzzle.breaking_candidates))
    found, placements = {}, {}
    for looks_ahead in (True, False):
        box = BoxSearch.of(problem, LOWEST)
        assert box is not None
        if not looks_ahead:
            box.__dict__["islands"] = np.full((128, 7), ~np.uint64(0), np.uint64)  # the cached property, filled
        enumeration = CoverEnumeration(box, parts, SearchOptions(), NO_DEADLINE)
        found[looks_ahead] = sorted(enumeration)
        placements[looks_ahead] = enumeration.steps
    assert found[True] == found[False] and len(found[True]) == 2339
    assert placements[True] * 5 < placements[False] * 4


@st.composite
def flat_packings_of_single_pieces(draw: st.DrawFn) -> dict[str, Any]:
    """flat_packings where every piece comes at most once (some may be left out): the boards the
    lowest-cell search keeps as dead ends are searched for such pieces only."""
    data = draw(flat_packings())
    for piece in data["pieces"].values():
        piece["min"], piece["max"] = draw(st.integers(0, 1)), 1
    return data


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(flat_packings_of_single_pieces(), st.sampled_from([2, 8, 1 << 17]))
def test_boards_kept_as_dead_ends_cut_no_solution(data: dict[str, Any], rows: int) -> None:
    """The lowest-cell box search keeping the boards that led nowhere (in two rows, where every
    board pushes the last out; in a few; in as many as runs keep) against the same search keeping
    none and the lowest-cell search, whole and in the run's parts, and the count against the
    brute force."""
    problem, lowest, _, parts = _searches_of(data)
    box = BoxSearch.of(problem, LOWEST)
    assert box is not None and box.dead_end_rows > 0
    keeping, forgetting = dataclasses.replace(box, dead_end_rows=rows), dataclasses.replace(box, dead_end_rows=0)
    for split in ([Part(problem.forced, problem.excluded)], parts):
        expected = sorted(solutions(lowest, split))
        assert sorted(solutions(forgetting, split)) == expected
        assert sorted(solutions(keeping, split)) == expected
    whole = [Part(problem.forced, problem.excluded)]
    assert len(solutions(keeping, whole)) == _brute_force_count_of_flat(data)
    finer = _finer_parts(keeping, parts)  # one after another on one search: each takes up the last one's dead ends
    assert sorted(solution for part in finer for solution in solutions(keeping, [part])) == sorted(
        solutions(lowest, parts)
    )


def _finer_parts(box: BoxSearch, parts: list[Part]) -> list[Part]:
    """Each part split by the placements that fit the cell filled first, as runs split for
    workers (`ExactCoverPrepared.part_keys`)."""
    finer = []
    for part in parts:
        choices = box.first_choices(part.forced, part.left_out)
        if choices is None:
            finer.append(part)
        else:
            finer.extend(Part((*part.forced, atom), part.left_out) for atom in choices)
    return finer


def _pentominoes_lowest_cell() -> tuple[BoxSearch, list[Part]]:
    """Pentominoes 6x10's lowest-cell box search and the parts of a run's breaking."""
    puzzle = built(SPECS / "pentominoes_6x10.yaml")
    problem = puzzle.cover_problem()
    assert problem is not None
    box = BoxSearch.of(problem, LOWEST)
    assert box is not None
    return box, parts_for(problem, choose_breaking(puzzle.group, puzzle.breaking_candidates))


def test_the_finer_parts_of_a_kept_atom_take_up_each_others_dead_ends() -> None:
    """Pentominoes 6x10's 8 parts split into 138 and searched in turn on one search, as a worker
    does: 1,197,527 placements, as the 8 whole parts make (1,197,665); each with dead ends of its
    own 1,432,445. Pickled, a search leaves its dead ends behind."""
    box, parts = _pentominoes_lowest_cell()
    finer = _finer_parts(box, parts)
    placements = {}
    for shared in (True, False):
        found: list[Solution] = []
        placements[shared] = 0
        for part in finer:
            search = box if shared else dataclasses.replace(box)
            enumeration = CoverEnumeration(search, [part], SearchOptions(), NO_DEADLINE)
            found.extend(enumeration)
            placements[shared] += enumeration.steps
        assert len(found) == 2339
    assert placements[True] * 10 < placements[False] * 9
    assert box.kept.take(parts[-1].left_out) is not None  # the last part's dead ends were kept
    box.kept.keep(parts[-1].left_out, object())
    assert pickle.loads(pickle.dumps(box)).kept.take(parts[-1].left_out) is None


def test_dead_ends_cut_the_pentominoes_tree_and_keep_every_solution() -> None:
    """Pentominoes 6x10: 1,921,237 placements without dead ends kept, 1,197,665 with them
    (benchmarks/exact_cover_search.py); the same solutions."""
    box, parts = _pentominoes_lowest_cell()
    found, placements = {}, {}
    for rows in (box.dead_end_rows, 0):
        search = dataclasses.replace(box, dead_end_rows=rows)
        enumeration = CoverEnumeration(search, parts, SearchOptions(), NO_DEADLINE)
        found[rows], placements[rows] = sorted(enumeration), enumeration.steps
    assert found[box.dead_end_rows] == found[0] and len(found[0]) == 2339
    assert placements[box.dead_end_rows] * 3 < placements[0] * 2


def test_dead_ends_are_kept_only_where_a_board_and_the_pieces_left_fix_what_is_left() -> None:
    """Filling the lowest cell with every piece at most once: kept. With copies (the pieces left
    do not say how many), or filling the cell with fewest open neighbours (3-D, where it does not
    pay): not."""
    pentominoes = built(SPECS / "pentominoes_6x10.yaml").cover_problem()
    tetracubes = built(SPECS / "t_tetracubes_6x6x2.yaml").cover_problem()
    assert pentominoes is not None and tetracubes is not None
    kept = BoxSearch.of(pentominoes, LOWEST)
    in_3d = BoxSearch.of(pentominoes, CHOOSE_AMONG)
    copies = BoxSearch.of(tetracubes, LOWEST)
    assert kept is not None and in_3d is not None and copies is not None
    assert kept.dead_end_rows > 0 and in_3d.dead_end_rows == 0 and copies.dead_end_rows == 0


@st.composite
def mostly_optional_packings(draw: st.DrawFn) -> dict[str, Any]:
    """small_packings where at least half the target's cells may stay empty, every one of them in
    some: many placements lie on optional cells only."""
    data = draw(small_packings())
    shuffled = [tuple(c) for c in draw(st.permutations(data["target"]["cells"]))]
    return _with_optional(draw, data, set(shuffled[: draw(st.integers((len(shuffled) + 1) // 2, len(shuffled)))]))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mostly_optional_packings())
def test_placements_on_optional_cells_only_are_checked_where_they_are_tried(data: dict[str, Any]) -> None:
    """Where placements on optional cells only are at least OPTIONAL_ONLY_SHARE of all (two in
    three of a 9x9x9 design's: its search 3.2 -> 1.2 s), the fewest-placements search never kills
    one; it checks one where it tries it (its cells open, a copy of its piece left). Against the
    lowest-cell search, whole and in the run's parts, where such placements are most of the
    search or all of it; and a part's first choices are the atoms it could place (none whose
    cells a forced atom took)."""
    problem, lowest, fewest, parts = _searches_of(data)
    for split in ([Part(problem.forced, problem.excluded)], parts):
        assert sorted(solutions(fewest, split)) == sorted(solutions(lowest, split))
    for atom in range(min(problem.atoms, 8)):
        choices = fewest._fewest_choices((*problem.forced, atom), problem.excluded)
        taken = set(problem.atom_cells[atom].tolist()) - {-1}
        for other in choices or []:
            assert not taken & set(problem.atom_cells[other].tolist())


def test_the_fewest_placements_search_takes_the_sphere_grid_and_agrees_on_the_grid_examples() -> None:
    corpus = corpus_dir("burrtools-grids")
    for name, problem_number in (
        ("BallRoom.xmpuzzle", "2"),
        ("PiecesOfEight.xmpuzzle", "4"),
        ("Bermuda.xmpuzzle", "0"),
        ("Prisgon.xmpuzzle", "0"),
        ("DiagonalCube.xmpuzzle", "0"),
        ("FourPieceTetrahedron.xmpuzzle", "0"),
    ):
        puzzle = read_puzzle(corpus / name, ReadOptions(problem=problem_number)).model()[0]
        problem = puzzle.cover_problem()
        assert problem is not None
        lowest = dataclasses.replace(CoverSearch.of(problem), choose=LOWEST_CELL)
        fewest = dataclasses.replace(lowest, choose=FEWEST)
        parts = parts_for(problem, choose_breaking(puzzle.group, puzzle.breaking_candidates))
        expected = sorted(solutions(lowest, parts))
        assert sorted(solutions(fewest, parts)) == expected, name
        assert sorted(solutions(search_for(problem), parts)) == expected, name  # the box search where it takes it
    pyramid = search_for(_problem("kanoodle_pyramid.yaml"))  # balls in 3-D, every cell filled
    assert isinstance(pyramid, BitsetSearch)  # compares every open cell and piece, on bit sets
    flat = search_for(_problem("kanoodle_board.yaml"))  # one layer of balls: a board of squares
    assert isinstance(flat, BoxSearch) and flat.choose == LOWEST
    sphere = read_puzzle(corpus / "BallRoom.xmpuzzle").model()[0].cover_problem()
    assert sphere is not None and CoverSearch.of(sphere).choose == FEWEST


def test_on_spheres_comparing_every_cell_and_piece_meets_the_same_solutions_in_a_smaller_tree() -> None:
    """The Kanoodle pyramid: the box's six directions are half a ball's neighbours, so the run
    compares every open cell and the pieces used once (2.1 million placements with K = 8, 0.25
    million so; benchmarks/exact_cover_search.py), and meets the same solutions."""
    puzzle = built(SPECS / "kanoodle_pyramid.yaml")
    problem = puzzle.cover_problem()
    assert problem is not None
    parts = parts_for(problem, choose_breaking(puzzle.group, puzzle.breaking_candidates))
    placements = {}
    found = {}
    for choose in (CHOOSE_AMONG, EVERY_OPEN_CELL):
        box = BoxSearch.of(problem, choose)
        assert box is not None
        enumeration = CoverEnumeration(box, parts, SearchOptions(), NO_DEADLINE)
        found[choose] = sorted(enumeration)
        placements[choose] = enumeration.steps
    assert found[EVERY_OPEN_CELL] == found[CHOOSE_AMONG] and len(found[CHOOSE_AMONG]) > 300
    bitset = BitsetSearch.of(problem)  # what the run takes now: the same choice on bit sets
    assert bitset is not None
    assert sorted(CoverEnumeration(bitset, parts, SearchOptions(), NO_DEADLINE)) == found[CHOOSE_AMONG]
    assert placements[EVERY_OPEN_CELL] * 4 < placements[CHOOSE_AMONG]
    prepared = ExactCoverEngine().prepare(puzzle, choose_breaking(puzzle.group, puzzle.breaking_candidates))
    assert isinstance(prepared, ExactCoverPrepared)
    assert prepared.breaking is not None
    keys: list[tuple[int, ...]] = [(atom,) for atom in sorted(prepared.breaking.first)[:4]]
    assert keys and prepared._largest_first(keys) is keys  # no estimates where they are dear and unsteady


def test_the_fewest_placements_search_takes_targets_whose_pieces_fill_many_optional_cells() -> None:
    """CubeInCage's pieces fill 32 of its 39 optional cells whatever the solution: the
    fewest-placements search (582 placements against the lowest-cell search's 20,859). Twelve
    pentominoes in 6x11 with both end columns optional fill only 6: the box search, whose
    placements are cheaper (6.8 s against more than 21 s on that design)."""
    cage = read_puzzle(corpus_dir("burrtools") / "CubeInCage.xmpuzzle").model()[0].cover_problem()
    assert cage is not None and fills_optional(cage)
    chosen = search_for(cage)
    assert isinstance(chosen, CoverSearch) and chosen.choose == FEWEST
    data = yaml.safe_load((SPECS / "pentominoes_6x10.yaml").read_text())
    data["target"] = {"layers": [["+" + "#" * 9 + "+"] * 6]}
    data.pop("expected")
    pentominoes = model_of(data).cover_problem()
    assert pentominoes is not None and not fills_optional(pentominoes)
    flat = search_for(pentominoes)
    assert isinstance(flat, BoxSearch) and flat.choose == LOWEST and flat.max_holes == 6


@pytest.mark.parametrize(
    "path",
    [corpus_dir("burrtools") / "CubeInCage.xmpuzzle", SPECS / "kanoodle_challenge.yaml", SPECS / "foam_cube.yaml"],
)
def test_parts_of_the_fewest_placements_search_two_levels_deep_make_the_lowest_cell_search_whole(path: Any) -> None:
    """A part of the fewest-placements search starts from the state before its atoms (kept for
    the parts that share their left-out atoms) and places them as its first levels: the parts
    of two levels of first choices, with pre-placed pieces (the Kanoodle board) and without,
    meet each solution of the lowest-cell search exactly once."""
    puzzle = read_puzzle(path).model()[0]
    problem = puzzle.cover_problem()
    assert problem is not None
    fewest = dataclasses.replace(CoverSearch.of(problem), choose=FEWEST)
    lowest = dataclasses.replace(CoverSearch.of(problem), choose=LOWEST_CELL)
    most_keys, met = 0, 0
    for part in parts_for(problem, choose_breaking(puzzle.group, puzzle.breaking_candidates)):
        keys: list[tuple[int, ...]] = []
        for first in fewest.first_choices(part.forced, part.left_out) or []:
            second = fewest.first_choices((*part.forced, first), part.left_out)
            keys += [(*part.forced, first)] if second is None else [(*part.forced, first, atom) for atom in second]
        split = [s for key in keys for s in solutions(fewest, [Part(key, part.left_out)])]
        assert len(split) == len(set(split)) and sorted(split) == sorted(solutions(lowest, [part]))
        most_keys, met = max(most_keys, len(keys)), met + len(split)
    assert most_keys > 1 and met > 0


def test_a_fewest_placements_search_goes_on_every_core_only_once_it_proves_long(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fewest-placements search has no estimate: by default and with `--workers N` a run begins
    it in its own process (parts.BegunHere) and hands what it has left to every core (or the N
    asked for) once it has run PARALLEL_AFTER_SECONDS; a search that ends before never starts a
    process. Both ways the
    counts are one process's. Made deterministic here: the search is due after its first slice of
    one placement (or never), and the machine is said to have two cores."""
    from cpsolve import parts as running
    from cpsolve import workers
    from cpsolve.engines.exact_cover import cover_search
    from cpsolve.run import prepare

    design = tmp_path / "design.yaml"  # 3,336 placements, 24 solutions under a breaking of 24
    design.write_text(packing_spec_text(PackingRequest((5, 5, 5), 10, shell=1, inside=20, seed=2)))
    for path in (design, corpus_dir("burrtools") / "CubeInCage.xmpuzzle"):
        prepared = prepare(read_puzzle(path), RunOptions(engine="exact-cover"), Deadline.after(None))
        search = prepared.compiled.search  # type: ignore[attr-defined]
        assert isinstance(search, CoverSearch) and search.choose == FEWEST
        assert prepared.compiled.capabilities(3).default_workers == 3
    monkeypatch.setattr(workers, "cores", lambda: 2)
    monkeypatch.setattr(cover_search, "SPILL_STEP_BUDGET", 1)
    alone = checked_run(design, RunOptions(show=0, workers=1))
    assert alone.counts.raw > 1 and alone.breaking is not None
    for after, processes in ((1e9, 1), (-1.0, 2)):
        monkeypatch.setattr(running, "PARALLEL_AFTER_SECONDS", after)
        for asked in (0, 2):  # `--workers 2` too: a short search never starts the processes
            report = checked_run(design, RunOptions(show=0, workers=asked))
            assert report.workers == processes and report.counts == alone.counts


def _kept_counts_stay_exact(search: CoverSearch, snapshots: bool) -> int:
    """Run the fewest-placements kernel one placement a call; after each, every count it keeps (the
    cells that must be filled, the pieces' columns) equals the live placements in that column.
    Returns the placements made."""
    from cpsolve.engines.exact_cover.fewest_kernel import search as fewest

    start = search._fewest_state((), frozenset())
    assert start is not None
    alive, count, decided, left = start.alive, start.count, start.decided, start.left
    lists = search._lists
    kept = np.concatenate([~lists.optional, np.ones(len(left), bool)])
    cells = search.problem.cells + 1
    columns, positions, chosen, marks = (np.full(cells + 1, -1, np.int64), np.zeros(cells + 1, np.int64),
                                         np.full(cells + 1, -1, np.int64), np.zeros(cells + 1, np.int64))  # fmt: skip
    stack, top = np.zeros(search.problem.atoms, np.int64), np.zeros(1, np.int64)
    found, found_length = np.zeros((1, cells), np.int64), np.zeros(1, np.int64)
    saved = np.zeros((cells + 1 if snapshots else 0, len(count)), np.int64)  # counts copied back, or raised
    depth, placements, met = 0, 0, []
    while depth >= 0:
        depth, written, steps = fewest(lists.atom_start, lists.counted_start, lists.counted_columns,
                                       lists.atom_columns, lists.column_start, lists.column_atoms, lists.run_end,
                                       search.problem.atom_piece, lists.optional, lists.once, search.least, search.most,
                                       search.max_holes, alive, count, decided, left, stack, top, columns,
                                       positions, chosen, marks, depth, 1, found, found_length,
                                       start.forced, saved, lists.optional_only)  # fmt: skip
        placements += steps
        met += [tuple(sorted(found[0, : found_length[0]].tolist()))] * written
        running = np.concatenate(([0], np.cumsum(alive[lists.column_atoms])))
        live = running[lists.column_start[1:]] - running[lists.column_start[:-1]]
        assert (count[kept] == live[kept]).all()
    assert sorted(met) == sorted(solutions(search, [Part((), frozenset())]))  # stopped and resumed anywhere
    return placements


def test_the_fewest_placements_search_keeps_exact_counts_of_the_columns_it_chooses_from() -> None:
    """Optional cells are never chosen, so the kernel keeps no count of them (on 9x9x9 designs 92 %
    of the placements' cells are optional); the counts it keeps must stay exact through every
    placement and every undo, or a column would look dead (a solution lost) or cheap. Run one
    placement and one solution a call, it meets the solutions of one run, among them those of
    the last copy's column, which are tested without being placed (in a flat design most of its
    placements: 190 solutions in 241). Both ways of undoing: counts copied back from the level's
    snapshot, and raised kill by kill (where the snapshots would pass SNAPSHOT_ENTRIES)."""
    cage = read_puzzle(corpus_dir("burrtools") / "CubeInCage.xmpuzzle").model()[0].cover_problem()
    assert cage is not None
    search = CoverSearch.of(cage)
    assert search.choose == FEWEST and cage.optional
    assert _kept_counts_stay_exact(search, snapshots=True) > 500
    assert _kept_counts_stay_exact(search, snapshots=False) > 500
    flat = PackingRequest((7, 7, 1), pieces=6, shell=1, inside=8, colours=4, seed=4)
    design = model_of(yaml.safe_load(packing_spec_text(flat))).cover_problem()
    assert design is not None and design.optional
    for snapshots in (True, False):
        assert _kept_counts_stay_exact(dataclasses.replace(CoverSearch.of(design), choose=FEWEST), snapshots) > 200


def _columns_by_definition(search: CoverSearch) -> tuple[list[list[int]], list[int], list[list[int]]]:
    """The fewest-placements search's columns one atom at a time: each atom's columns (its cells
    that must be filled in its row's order, its piece's column, then its optional cells), how many
    of them are counted, and each column's atoms in increasing order, except that where atoms on
    optional cells only are at least OPTIONAL_ONLY_SHARE of all, each is in its piece's column
    alone, after the others."""
    problem = search.problem
    optional = set(np.flatnonzero(search._lists.optional).tolist())
    rows: list[list[int]] = []
    counted: list[int] = []
    columns: list[list[int]] = [[] for _ in range(problem.cells + len(search.least))]
    for row in search.ranks.tolist():
        cells = [cell for cell in row if cell >= 0]
        kept = [cell for cell in cells if cell not in optional]
        rows.append(kept + [problem.cells + int(problem.atom_piece[len(rows)])] + [c for c in cells if c in optional])
        counted.append(len(kept) + 1)
    from cpsolve.engines.exact_cover.fewest_kernel import OPTIONAL_ONLY_SHARE

    unkilled = counted.count(1) >= OPTIONAL_ONLY_SHARE * problem.atoms
    listed_last = [atom for atom in range(problem.atoms) if unkilled and counted[atom] == 1]
    for atom, row in enumerate(rows):
        if atom not in listed_last:
            for column in row:
                columns[column].append(atom)
    for atom in listed_last:
        columns[rows[atom][0]].append(atom)  # its piece's column (it has no other counted one)
    return rows, counted, columns


def test_the_fewest_placements_columns_are_made_as_defined() -> None:
    """The compiled `column_lists` and `live_counts` (which replaced numpy's sorts: 0.05-0.2 s of
    a 9x9x9 design's run) against the definition, on BurrTools' CubeInCage and a design with
    optional cells, colours and copies."""
    cage = read_puzzle(corpus_dir("burrtools") / "CubeInCage.xmpuzzle").model()[0].cover_problem()
    flat = PackingRequest((7, 7, 1), pieces=6, shell=1, inside=8, colours=4, seed=4)
    design = model_of(yaml.safe_load(packing_spec_text(flat))).cover_problem()
    for problem in (cage, design):
        assert problem is not None and problem.optional
        search = CoverSearch.of(problem)
        lists = search._lists
        atom_start, atom_columns, column_start, column_atoms = (lists.atom_start, lists.atom_columns,
                                                                lists.column_start, lists.column_atoms)  # fmt: skip
        rows, counted, columns = _columns_by_definition(search)
        assert [atom_columns[atom_start[a] : atom_start[a + 1]].tolist() for a in range(problem.atoms)] == rows
        assert np.diff(lists.counted_start).tolist() == counted
        unkilled = [kept == 1 for kept in counted] if problem is design else []  # most of its atoms; a third of
        assert lists.optional_only.tolist() == unkilled  # CubeInCage's: killed as any other there
        packed = [
            lists.counted_columns[lists.counted_start[a] : lists.counted_start[a + 1]].tolist()
            for a in range(problem.atoms)
        ]
        assert packed == [row[:kept] for row, kept in zip(rows, counted, strict=True)]
        run_end = lists.run_end
        assert [column_atoms[column_start[c] : column_start[c + 1]].tolist() for c in range(len(columns))] == columns
        piece_of = problem.atom_piece[column_atoms]
        for index in range(len(column_atoms)):  # a run: the entries of one piece, to the column's end at most
            column_end = int(column_start[np.searchsorted(column_start, index, side="right")])
            end = index
            while end < column_end and piece_of[end] == piece_of[index]:
                end += 1
            assert run_end[index] == end
        base = search._fewest_base((0,), frozenset({problem.atoms - 1}))  # one placed, one left out
        assert base is not None
        alive, count = base[0], base[1]
        kept = np.concatenate([~lists.optional, np.ones(len(search.least), bool)])
        live = [sum(bool(alive[atom]) for atom in atoms) for atoms in columns]
        assert count.tolist() == [ways if counted else 0 for ways, counted in zip(live, kept, strict=True)]
        assert 0 < alive.sum() < problem.atoms - 1


def _one_placement_a_slice(search: CoverSearch, whole: Part) -> Iterator[tuple[Any, Any, int, int, list[Solution]]]:
    """The whole search run one placement a slice: after each slice, its state (start, levels),
    the depth it stopped at, the placements made so far and the solutions found so far."""
    from cpsolve.engines.exact_cover.cover_search import found_solutions

    start = search._fewest_state(whole.forced, whole.left_out)
    assert start is not None
    levels = search._fewest_levels(64)
    own: list[Solution] = []
    depth, made = 0, 0
    while depth >= 0:
        depth, written, steps = search._fewest_slice(start, levels, depth, 1)
        made += steps
        own += found_solutions(start.held, levels.found, levels.found_length, written)
        yield start, levels, depth, made, own


def _handed_back_after(search: CoverSearch, whole: Part, after: int) -> tuple[list[Solution], list[PartKey]]:
    """The whole search run one placement a slice, handing work back once `after` placements are
    made: the solutions it still finds itself, and the keys it handed back."""
    own: list[Solution] = []
    handed: list[PartKey] = []
    for start, levels, depth, made, found in _one_placement_a_slice(search, whole):
        own = found
        if made >= after and depth >= 0 and not handed:
            handed = search._hand_back(start, levels, depth)
    return own, handed


def _fewest_search_of(design: PackingRequest) -> tuple[CoverProblem, CoverSearch, Part, list[tuple[int, ...]]]:
    """A generated design's problem, its fewest-placements search, the whole search as one part,
    and the solutions of that part, sorted."""
    problem = model_of(yaml.safe_load(packing_spec_text(design))).cover_problem()
    assert problem is not None
    search = dataclasses.replace(CoverSearch.of(problem), choose=FEWEST)
    whole = Part(problem.forced, problem.excluded)
    return problem, search, whole, sorted(solutions(search, [whole]))


def test_a_fewest_placements_part_hands_back_its_untried_placements_exactly() -> None:
    """A part that hands work back to an idle worker (`_hand_back`) gives away the untried live
    placements of its shallowest level that has some, and no longer searches them: handing back
    after a few placements or many, the part's own solutions and those of the parts handed back
    are the whole search's, none twice, with solutions on both sides in some cases."""
    designs = [
        PackingRequest((7, 7, 1), pieces=6, shell=1, inside=8, colours=4, seed=2),  # 18 solutions
        PackingRequest((5, 5, 1), pieces=5, seed=1),  # 24
    ]
    both_sides = 0
    for design in designs:
        problem, search, whole, expected = _fewest_search_of(design)
        for after in (1, 5, 20, 60):
            own, handed = _handed_back_after(search, whole, after)
            elsewhere = [found for key in handed for found in solutions(search, parts_for(problem, None, key))]
            assert sorted(own + elsewhere) == expected
            both_sides += bool(own) and bool(elsewhere)
    assert both_sides >= 3


def _stopped_after(search: CoverSearch, whole: Part, after: int) -> tuple[list[Solution], list[PartKey] | None]:
    """The whole search run one placement a slice and stopped once `after` placements are made
    (at the first slice end after that where it can be cut): the solutions it found, and the keys
    of the parts that make what it had left (None: it was never cut and ran to its end)."""
    own: list[Solution] = []
    for start, levels, depth, made, own in _one_placement_a_slice(search, whole):
        if made >= after and depth >= 0:
            rest = search._rest(start, levels, depth)
            if rest is not None:
                return own, rest
    return own, None


def test_a_fewest_placements_search_stopped_anywhere_leaves_its_rest_as_parts_exactly() -> None:
    """A search begun in this process that hands the rest to workers (`_rest`): stopped after 1 to
    400 placements (inside a column decided by a last copy too, where the slice ends while its
    entries are tested), its own solutions and those of the parts it leaves are the whole
    search's, none twice; on designs with optional cells, colours and several solutions."""
    designs = [
        PackingRequest((7, 7, 1), pieces=6, shell=1, inside=8, colours=4, seed=2),  # 18 solutions
        PackingRequest((5, 5, 1), pieces=5, seed=1),  # 24
        PackingRequest((4, 4, 3), pieces=5, shell=1, inside=2, colours=2, seed=3),
    ]
    cut, both_sides = 0, 0
    for design in designs:
        problem, search, whole, expected = _fewest_search_of(design)
        for after in (1, 2, 5, 20, 60, 400):
            own, rest = _stopped_after(search, whole, after)
            elsewhere = [found for key in rest or [] for found in solutions(search, parts_for(problem, None, key))]
            assert sorted(own + elsewhere) == expected, (design, after)
            cut += rest is not None
            both_sides += bool(own) and bool(elsewhere)
    assert cut >= 12 and both_sides >= 3


class _DueAtTheNthAsking(Spill):
    """A spill due the `nth` time it is asked (between two slices), whatever the clock."""

    def __init__(self, nth: int) -> None:
        super().__init__(after_seconds=0.0)
        self.asked = itertools.count(1)
        self.nth = nth

    def due(self) -> bool:
        return next(self.asked) >= self.nth


def test_a_search_begun_here_hands_over_the_rest_of_its_part_and_the_parts_not_begun() -> None:
    """`begun_here` runs the parts of the Soma cube's breaking (the fewest-placements search) one
    after the other until the spill is due (after 1 to 4,000 slices of one placement): its
    solutions and those of the parts in `spill.rest` (the running part's rest, then every part
    not begun) are the whole search's, none twice, also where it stops in a later part."""
    from cpsolve.engines.exact_cover import SpillingEnumeration
    from cpsolve.engines.exact_cover import cover_search as module

    puzzle = built(SPECS / "soma.yaml")
    problem = puzzle.cover_problem()
    assert problem is not None
    breaking = choose_breaking(puzzle.group, puzzle.breaking_candidates)
    search = dataclasses.replace(CoverSearch.of(problem), choose=FEWEST)
    every_part = parts_for(problem, breaking)
    expected = sorted(solutions(search, every_part))
    assert len(every_part) > 1
    later_parts = 0
    budget = module.SPILL_STEP_BUDGET
    module.SPILL_STEP_BUDGET = 1
    try:
        for slices in (1, 3, 40, 400, 4000, 10**9):  # its two parts take 3,855 and 504 placements
            spill = _DueAtTheNthAsking(slices)
            own = list(SpillingEnumeration(search, every_part, SearchOptions(), NO_DEADLINE, spill))
            rest = spill.rest or []
            elsewhere = [found for key in rest for found in solutions(search, parts_for(problem, breaking, key))]
            assert sorted(own + elsewhere) == expected, slices
            assert (spill.rest is None) == (slices == 10**9)
            later_parts += bool(rest) and rest[0][0] == every_part[1].forced[0]
    finally:
        module.SPILL_STEP_BUDGET = budget
    assert later_parts >= 1


def test_a_run_loads_the_compiled_variant_its_search_takes_before_its_clock() -> None:
    """The box search with holes (one word or two) or comparing every open cell, the
    fewest-placements search and the bit-parallel one are loaded by `load_for`, outside `seconds`,
    and only for puzzles whose search takes them: the run's search then compiles nothing new."""
    from cpsolve.engines.exact_cover import bitset_kernel, box_kernel, fewest_kernel

    data = yaml.safe_load((SPECS / "pentominoes_6x10.yaml").read_text())
    data["target"] = {"layers": [["+" + "#" * 9 + "+"] * 6]}
    data.pop("expected")
    cases = [
        (model_of(data), ("box", 2, True, False)),  # 66 cells
        (built(SPECS / "kanoodle_pyramid.yaml"), ("bitset", 0, False, False)),  # spheres, every cell filled
        (read_puzzle(corpus_dir("burrtools") / "CubeInCage.xmpuzzle").model()[0], ("fewest", 0, False, False)),
        (built(SPECS / "soma.yaml"), None),
    ]
    for puzzle, variant in cases:
        engine = ExactCoverEngine()
        engine.load(puzzle)
        assert engine.variants == ({variant} if variant else set())
        problem = puzzle.cover_problem()
        assert problem is not None
        search = search_for(problem)
        kinds = {"fewest": CoverSearch, "bitset": BitsetSearch}
        assert isinstance(search, kinds.get(variant[0], BoxSearch) if variant else BoxSearch)
        kernels = (
            box_kernel.search,
            fewest_kernel.search,
            fewest_kernel.column_lists,
            fewest_kernel.live_counts,
            bitset_kernel.search,
        )
        compiled = sum(len(kernel.signatures) for kernel in kernels)
        first = parts_for(problem, choose_breaking(puzzle.group, puzzle.breaking_candidates))[:1]
        enumeration = CoverEnumeration(search, first, SearchOptions(max_solutions=1), NO_DEADLINE)
        assert len(list(enumeration)) <= 1
        assert sum(len(kernel.signatures) for kernel in kernels) == compiled


def test_a_slice_is_bounded_by_the_candidates_looked_at_not_only_by_placements() -> None:
    """Where a cell's candidates clash by the thousand (big pieces on a big board) a slice of a
    few placements could look at millions of them, and Ctrl-C waited: the lowest-cell search also
    returns after EXAMINED_PER_STEP candidates per placement of its budget, and resumes where it
    stopped; the fewest-placements search after KILLED_PER_STEP kills per placement."""
    from cpsolve.engines.exact_cover.cover_kernel import EXAMINED_PER_STEP

    design = PackingRequest((3, 3, 2), pieces=3, seed=1)
    problem = model_of(yaml.safe_load(packing_spec_text(design))).cover_problem()
    assert problem is not None
    lowest = dataclasses.replace(CoverSearch.of(problem), choose=LOWEST_CELL)
    whole = [Part(problem.forced, problem.excluded)]
    expected = sorted(solutions(lowest, whole))
    fewest = dataclasses.replace(lowest, choose=FEWEST)
    for search, budget in ((lowest, 1), (fewest, 2)):
        slices = list(search.run(problem.forced, problem.excluded, budget, 16))
        assert sorted(s for found, _ in slices for s in found) == expected
        steps = [placements for _, placements in slices]
        assert all(placements <= budget for placements in steps)
        # bounded by placements alone, every slice but the last would make its whole budget
        assert any(placements < budget for placements in steps[:-1]), search.choose
    looking = [placements for _, placements in lowest.run(problem.forced, problem.excluded, 1, 16)]
    assert EXAMINED_PER_STEP * len(looking) >= sum(looking)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.lists(st.integers(0, 500), min_size=0, max_size=6, unique=True), min_size=0, max_size=8),
    st.lists(st.integers(501, 600), max_size=3, unique=True),
)
def test_the_solutions_a_slice_wrote_are_its_rows_with_the_forced_atoms_sorted(
    rows: list[list[int]], forced: list[int]
) -> None:
    """Rows of any lengths (a range of copies places fewer pieces), with what an earlier slice left
    past each row's length, and the part's forced atoms: each solution is exactly its row's atoms
    and the forced ones, sorted."""
    from cpsolve.engines.exact_cover.cover_search import found_solutions

    found = np.full((len(rows) + 2, 8), 999, np.int64)  # leftovers past every row's length
    lengths = np.zeros(len(rows) + 2, np.int64)
    for number, row in enumerate(rows):
        found[number, : len(row)] = row
        lengths[number] = len(row)
    expected = [tuple(sorted(forced + row)) for row in rows]
    assert found_solutions(forced, found, lengths, len(rows)) == expected


COPIES_DESIGN = """
pieces:
  A: {cells: [[0, 0, 0], [0, 0, 1], [1, 0, 0], [1, 0, 1]], count: 3}
  B: {cells: [[0, 0, 0], [0, 1, 0], [0, 1, 1], [1, 1, 0]], count: 3}
  C: {cells: [[0, 0, 0], [0, 0, 1], [1, 0, 0], [1, 1, 0]], count: 3}
target:
  cells: [[0, 0, 1], [0, 0, 2], [0, 1, 2], [0, 3, 1], [0, 3, 2], [1, 0, 2], [1, 1, 1], [1, 2, 1], [1, 2, 2],
    [1, 3, 0], [1, 3, 1], [1, 3, 2], [1, 3, 3], [2, 0, 1], [2, 0, 2], [2, 0, 3], [2, 1, 1], [2, 1, 2], [2, 2, 1],
    [2, 2, 2], [2, 2, 3], [2, 3, 0], [2, 3, 1], [2, 3, 2], [2, 3, 3], [3, 0, 1], [3, 1, 0], [3, 1, 1], [3, 2, 1],
    [3, 2, 2], [3, 3, 1], [3, 3, 2]]
  optional: [[0, 1, 1], [0, 2, 1], [0, 2, 2], [0, 3, 0], [0, 3, 3], [1, 0, 1], [1, 1, 0], [1, 1, 2], [1, 2, 0],
    [1, 2, 3], [2, 1, 0], [2, 1, 3], [2, 2, 0], [3, 0, 2], [3, 1, 2], [3, 3, 3]]
"""


def test_the_room_left_cuts_every_search_where_cells_may_stay_empty(tmp_path: Path) -> None:
    """Nine copies of three tetracubes in 32 fixed and 16 variable cells (made as
    benchmarks/copies_designs.py makes its designs, seed 3): the pieces fill 4 of the variable
    cells, so a branch that has filled a fifth can no longer fill the fixed ones. Backing up as
    soon as the copies left cannot fill the open fixed cells (or would leave too many variable
    ones empty) keeps every solution and cuts each search's placements (before -> after, the
    whole search, no breaking): the lowest cell 3,504,280 -> 426,565, fewest placements 106,613
    -> 19,016, the box search's best of 8 cells 416,411 -> 56,189, its lowest cell 2,648,373 ->
    380,721, every cell compared 384,090 -> 53,258."""
    problem = model_of(yaml.safe_load(COPIES_DESIGN)).cover_problem()
    assert problem is not None
    lowest = CoverSearch.of(problem)
    searches = {
        "lowest cell": (dataclasses.replace(lowest, choose=LOWEST_CELL), 3_504_280),
        "fewest placements": (dataclasses.replace(lowest, choose=FEWEST), 106_613),
        **{f"box {choose}": (BoxSearch.of(problem, choose), before) for choose, before in (
            (CHOOSE_AMONG, 416_411), (LOWEST, 2_648_373), (EVERY_OPEN_CELL, 384_090))},
    }  # fmt: skip
    whole = [Part(problem.forced, problem.excluded)]
    found = {}
    for name, (search, before) in searches.items():
        assert search is not None
        enumeration = CoverEnumeration(search, whole, SearchOptions(), NO_DEADLINE)
        found[name] = sorted(enumeration)
        assert enumeration.steps * 4 < before, name
    assert all(solutions == found["lowest cell"] for solutions in found.values())
    assert len(found["lowest cell"]) == 392
    design = tmp_path / "copies.yaml"
    design.write_text(COPIES_DESIGN)
    assert checked_run(design, RunOptions(show=0, engine="cpsat")).counts.raw == 392  # the reference agrees


# -- a search stopped where it stands (a run begun on one thread, handed to several) ---------------


class _DueAfter(Spill):
    """A spill due after a given number of slices (the run's is due after a time)."""

    def __init__(self, slices: int) -> None:
        super().__init__(0.0)
        self.slices = slices

    def due(self) -> bool:
        self.slices -= 1
        return self.slices < 0


def _cut_and_rest(search: Search, part: Part, breaking: Any, slices: int) -> list[Solution]:
    """The part searched one placement a slice until the spill is due, then the parts its rest
    names searched apart: what a run begun here and handed over meets."""
    problem = search.problem
    spill = _DueAfter(slices)
    met = [s for found, _ in search.run(part.forced, part.left_out, 1, 1024, spill) for s in found]
    own = part.forced[len(problem.forced) :]
    for key in spill.rest or []:
        assert key[: len(own)] == own  # every part of the rest lies within the part
        met += solutions(search, parts_for(problem, breaking, key))
    return met


def _cut_searches(problem: CoverProblem) -> list[Search]:
    """The searches that stop where they stand for a run begun here: the box search, the
    bit-parallel one and the lowest-cell one (the fewest-placements search has its own tests)."""
    box = BoxSearch.of(problem, CHOOSE_AMONG)
    assert box is not None
    return [box, BitsetSearch(problem), dataclasses.replace(CoverSearch.of(problem), choose=LOWEST_CELL)]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_packings())
def test_a_search_stopped_anywhere_leaves_exactly_what_it_had_not_searched(data: dict[str, Any]) -> None:
    """Stopped after any number of placements (`spill`), the part's solutions so far and those of
    the parts its rest names are the part's solutions, each once, on the box, bit-parallel and
    lowest-cell searches: the rest is what a run begun on one thread hands to several
    (cpsolve.parts.BegunHere)."""
    problem, breaking = _problem_of(data)
    for search in _cut_searches(problem):
        for part in parts_for(problem, breaking):
            whole = sorted(solutions(search, [part]))
            made = sum(steps for _, steps in search.run(part.forced, part.left_out, 10**6, 1024))
            for slices in {*range(0, made, max(1, made // 8)), made - 1, made}:  # nine cuts (every one: 76 s)
                assert sorted(_cut_and_rest(search, part, breaking, slices)) == whole


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        (SPECS / "kanoodle_pyramid.yaml", BitsetSearch),
        (SPECS / "soma.yaml", BoxSearch),
        (corpus_dir("burrtools-grids") / "HexSticks.xmpuzzle", CoverSearch),
    ],
    ids=["pyramid", "soma", "hexsticks"],
)
def test_a_puzzle_cut_anywhere_keeps_its_solutions(path: Path, kind: type) -> None:
    """The part of most solutions of the Kanoodle pyramid (the bit-parallel search), the Soma
    cube (the box search) and HexSticks (the lowest cell, over merged columns), cut at a spread
    of depths."""
    puzzle = built(path)
    given = puzzle.cover_problem()
    assert given is not None
    search = search_for(given)
    assert isinstance(search, kind)
    problem = search.problem
    breaking = choose_breaking(puzzle.group, puzzle.breaking_candidates)
    part = max(parts_for(problem, breaking), key=lambda part: len(solutions(search, [part])))
    whole = sorted(solutions(search, [part]))
    made = sum(steps for _, steps in search.run(part.forced, part.left_out, 10**6, 1024))
    assert len(whole) > 10 and made > 1000
    for slices in (0, 1, 7, made // 10, made // 3, made // 2, made - 1):
        met = _cut_and_rest(search, part, breaking, slices)
        assert len(met) == len(set(met)) and sorted(met) == whole


@pytest.mark.parametrize("kind", ["box", "lowest cell"])
def test_a_cell_left_empty_is_not_cut(kind: str) -> None:
    """A key names placements only: where the path of the box or lowest-cell search has left an
    optional cell empty, or has that still to try, it is not cut there (its rest is None) and goes
    on, to be cut at a later slice or to its end; cut or not, it meets the part's solutions once
    each."""
    problem = model_of(yaml.safe_load(packing_spec_text(PackingRequest((4, 4, 4), 8, shell=1, inside=4, seed=2))))
    problem_ = problem.cover_problem()
    assert problem_ is not None and problem_.optional
    lowest = dataclasses.replace(CoverSearch.of(problem_), choose=LOWEST_CELL)
    box = BoxSearch.of(problem_, CHOOSE_AMONG) if kind == "box" else lowest
    assert box is not None
    part = Part(problem_.forced, problem_.excluded)
    whole = sorted(solutions(box, [part]))
    made = sum(steps for _, steps in box.run(part.forced, part.left_out, 10**6, 1024))
    cut = []
    for slices in range(0, made, max(1, made // 8)):
        spill = _DueAfter(slices)
        met = [s for found, _ in box.run(part.forced, part.left_out, 1, 1024, spill) for s in found]
        cut.append(spill.slices == -1)  # cut when first due (else asked again after each later slice)
        for key in spill.rest or []:
            met += solutions(box, [Part((*problem_.forced, *key), problem_.excluded)])
        assert sorted(met) == whole
    assert whole and any(cut) and not all(cut)
