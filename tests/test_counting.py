"""cpsolve's counts against an independent brute-force counter, on puzzles that have traps."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any
from unittest.mock import patch

import numpy as np
import pytest
import yaml
from bruteforce import burrtools_unique, count
from conftest import CORPUS, SPECS, built, checked_run
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st
from test_box_search import model_of, small_packings

from cpsolve import native
from cpsolve.counting import Classifier, ClassStoreFull, SolutionClass, classes
from cpsolve.engines import SearchOptions
from cpsolve.engines.base import Part
from cpsolve.engines.exact_cover import CoverEnumeration, parts_for
from cpsolve.engines.exact_cover.cover_search import CoverSearch
from cpsolve.errors import CpsolveError
from cpsolve.formats import read_puzzle
from cpsolve.limits import NO_DEADLINE, Deadline
from cpsolve.models.packing import PackingModel
from cpsolve.models.packing.symmetries import PackingSymmetry
from cpsolve.run import RunOptions, run
from cpsolve.symmetry import ElementRows, FirstSet, Subgroup, SymmetryGroup, choose_breaking, first_sets
from cpsolve.symmetry.breaking import _orbit_firsts, _preserving, _retained, _SecondSets, _shares, _Stabilisers
from cpsolve.symmetry.target import SymmetryArrays, target_symmetry_arrays

SCREW = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 0, 1)]
SCREW_MIRROR = [(1, 0, 0), (0, 0, 0), (0, 1, 0), (1, 0, 1)]
V = [(0, 0, 0), (1, 0, 0), (0, 1, 0)]
L4 = [(0, 0, 0), (1, 0, 0), (2, 0, 0), (0, 1, 0)]
T4 = [(0, 0, 0), (1, 0, 0), (2, 0, 0), (1, 1, 0)]
DOMINO = [(0, 0, 0), (1, 0, 0)]


def box(x: int, y: int, z: int) -> list[tuple[int, int, int]]:
    return [(i, j, k) for i in range(x) for j in range(y) for k in range(z)]


# name -> (pieces: name -> (cells, least, most), target cells, symmetry)
CASES = {
    "chiral pair swapped by reflections": (
        {"A": (SCREW, 1, 1), "B": (SCREW_MIRROR, 1, 1), "D": (DOMINO, 2, 2), "V": (V, 0, 2)},
        box(2, 2, 3),
        "all",
    ),
    "ranges, mirror pair with equal bounds": (
        {"A": (SCREW, 0, 1), "B": (SCREW_MIRROR, 0, 1), "V": (V, 0, 4), "D": (DOMINO, 0, 3)},
        box(3, 2, 2),
        "all",
    ),
    "ranges, mirror pair with different bounds (BurrTools trap)": (
        {"A": (SCREW, 0, 1), "B": (SCREW_MIRROR, 0, 2), "V": (V, 0, 4), "D": (DOMINO, 0, 3)},
        box(3, 2, 2),
        "all",
    ),
    "chiral piece without its mirror": ({"A": (SCREW, 0, 2), "D": (DOMINO, 0, 6)}, box(2, 2, 3), "all"),
    "copies not told apart": ({"L": (L4, 2, 2), "D": (DOMINO, 2, 2)}, box(3, 2, 2), "all"),
    "rotations only": (
        {"A": (SCREW, 1, 1), "B": (SCREW_MIRROR, 1, 1), "V": (V, 0, 1), "D": (DOMINO, 0, 2)},
        box(3, 2, 2),
        "rotations",
    ),
    "no symmetry": ({"L": (L4, 1, 1), "V": (V, 1, 1), "D": (DOMINO, 1, 1)}, box(3, 3, 1), "none"),
    "18 T-tetracubes in 6x6x2": ({"T": (T4, 18, 18)}, box(6, 6, 2), "all"),
}


Pieces = dict[str, tuple[list[tuple[int, int, int]], int, int]]


def write_spec(tmp_path: Path, name: str, pieces: Pieces, target: list[tuple[int, int, int]], symmetry: str) -> Path:
    spec = {
        "name": name,
        "symmetry": symmetry,
        "pieces": {
            n: {"cells": [list(c) for c in cells], "min": lo, "max": hi} for n, (cells, lo, hi) in pieces.items()
        },
        "target": {"cells": [list(c) for c in target]},
    }
    path = tmp_path / "case.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("breaking", [True, False], ids=["breaking", "plain"])
def test_against_brute_force(tmp_path: Path, name: str, breaking: bool) -> None:
    pieces, target, symmetry = CASES[name]
    raw, rotations, unique = count(pieces, target, symmetry)
    assert raw > 0, "a case without solutions checks nothing"
    report = checked_run(
        write_spec(tmp_path, name, pieces, target, symmetry), RunOptions(show=0, symmetry_breaking=breaking)
    )
    assert report.counts.as_dict() == {"raw": raw, "rotations": rotations, "unique": unique}


def test_trap_case_is_a_real_trap() -> None:
    """With equal bounds a mirror merges classes; with different bounds it must not."""
    pieces, target, _ = CASES["ranges, mirror pair with equal bounds"]
    _, rotations, unique = count(pieces, target, "all")
    assert unique < rotations
    pieces, target, _ = CASES["ranges, mirror pair with different bounds (BurrTools trap)"]
    _, rotations, unique = count(pieces, target, "all")
    assert unique == rotations


def test_burrtools_mirror_rule_is_reported_beside_cpsolves(tmp_path: Path) -> None:
    """Where a chiral piece's partner has other bounds, cpsolve does not count reflections, but
    BurrTools merges a class with its mirror image whenever that image is a solution too."""
    pieces, target, symmetry = CASES["ranges, mirror pair with different bounds (BurrTools trap)"]
    for engine in ("cpsat", "exact-cover"):
        report = checked_run(write_spec(tmp_path, "trap", pieces, target, symmetry), RunOptions(show=0, engine=engine))
        assert report.counts.unique == count(pieces, target, symmetry)[2] == 95
        assert report.extra_counts == {"burrtools_unique": burrtools_unique(pieces, target)} == {"burrtools_unique": 56}
    pieces, target, symmetry = CASES["ranges, mirror pair with equal bounds"]
    report = checked_run(write_spec(tmp_path, "equal", pieces, target, symmetry))
    assert report.extra_counts == {}  # the rules agree: nothing more to report
    assert burrtools_unique(pieces, target) == report.counts.unique


class _EveryImageStored(Classifier):
    """The class store by the key of every valid image, as where parts turn on their own."""

    @property
    def _mirrors_are_one_coset(self) -> bool:
        return False


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_packings())
def test_classes_found_by_rotation_keys_are_those_found_by_every_image(data: dict[str, Any]) -> None:
    """A class stored under the least key of its rotation class (and its mirror image's) holds
    the same solutions, counts and orbit as one stored under every image's key; with the run's
    breaking too, the weights adding up."""
    try:
        puzzle = model_of(data)
    except CpsolveError:
        reject()
    problem = puzzle.cover_problem()
    assert problem is not None
    breaking = choose_breaking(puzzle.group, puzzle.breaking_candidates)
    search = CoverSearch.of(problem)
    for used, parts in ((None, [Part(problem.forced, problem.excluded)]), (breaking, parts_for(problem, breaking))):
        solutions = list(CoverEnumeration(search, parts, SearchOptions(), NO_DEADLINE))
        by_rotation, by_image = Classifier(puzzle.group, used), _EveryImageStored(puzzle.group, used)
        assert by_rotation._mirrors_are_one_coset
        for classifier in (by_rotation, by_image):
            classifier.add_batch(solutions)
            assert classifier.identity_problems() == []
        assert by_rotation.counts() == by_image.counts()
        assert sorted(by_rotation.classes, key=_described) == sorted(by_image.classes, key=_described)
        for classifier in (by_rotation, by_image):
            numbers = [classifier.class_index(solution) for solution in solutions]
            assert None not in numbers
            representatives = [classifier.class_index(c.representative) for c in classifier.classes]
            assert representatives == list(range(len(classifier.classes)))


def test_a_full_class_store_stops_at_the_class_that_would_pass_it_with_what_came_before_counted() -> None:
    """Where the store reaches its budget inside a batch, the solutions before the first of the
    class that does not fit are counted (raw_seen, the weights, their classes) and no other."""
    puzzle = built(SPECS / "soma.yaml")
    problem = puzzle.cover_problem()
    assert problem is not None
    solutions = list(CoverEnumeration(CoverSearch.of(problem), parts_for(problem, None), SearchOptions(), NO_DEADLINE))
    whole = Classifier(puzzle.group)
    whole.add_batch(solutions)
    numbers = [whole.class_index(solution) for solution in solutions]
    kept = len(whole.classes) - 1  # all but the last class met
    stop = numbers.index(kept)  # the first solution of the first class left out
    assert stop > kept  # members of the kept classes came before it: counted, not registered again
    prefix = Classifier(puzzle.group)
    prefix.add_batch(solutions[:stop])
    full = Classifier(puzzle.group, max_bytes=prefix.stored_bytes)
    with pytest.raises(ClassStoreFull):
        full.add_batch(solutions)
    assert (full.raw_seen, full.weight_seen, len(full.classes)) == (stop, stop, kept)
    assert [c.representative for c in full.classes] == [c.representative for c in whole.classes[:kept]]


def _described(solution_class: SolutionClass) -> tuple[Any, ...]:
    return (solution_class.representative, solution_class.valid_images, solution_class.stabiliser)


def _retained_one_stabiliser_at_a_time(option: FirstSet, second: list[int]) -> float:
    """The share `choose_breaking` ranks by, as the definition reads: for each kept atom of the
    first set, the second set's orbits under its stabiliser over the second set's size, or 1
    where that stabiliser does not map the second set onto itself."""
    share = 0.0
    for rep in option.kept:
        stabiliser = option.subgroup.fixing(rep)
        if not second or len(_preserving(stabiliser, second)) != len(stabiliser):
            share += 1.0
            continue
        share += len(np.unique(_orbit_firsts(np.asarray(second), stabiliser))) / len(second)
    return share / len(option.atoms)


@pytest.mark.parametrize(
    "path",
    [
        "burrtools-grids/HexSticks.xmpuzzle",  # 32 cells as candidate sets, each against every other
        "burrtools/SolidSixPieceBurrs.xmpuzzle",
        "t_tetracubes_6x6x2.yaml",  # no piece used once: cells
        "soma.yaml",
    ],
)
def test_second_sets_are_weighed_against_every_stabiliser_at_once_as_one_at_a_time(path: str) -> None:
    puzzle = built(SPECS / path if path.endswith(".yaml") else CORPUS / path)
    candidates = [list(candidate) for candidate in puzzle.breaking_candidates]
    options = first_sets(puzzle.group, candidates)
    assert options
    for option in options[:4]:
        stabilisers = _Stabilisers.of(option)
        for second in [[], *(c for index, c in enumerate(candidates) if index != option.index)]:
            assert _retained(option, stabilisers, second) == pytest.approx(
                _retained_one_stabiliser_at_a_time(option, second), abs=1e-12
            )


@pytest.mark.parametrize(
    "path",
    [
        "burrtools-grids/HexSticks.xmpuzzle",
        "burrtools-grids/PiecesOfEight.xmpuzzle",
        "soma.yaml",
        "kanoodle_pyramid.yaml",
        "tiles_frame_4x4.yaml",
    ],
)
def test_first_sets_are_the_candidates_kept_with_each_orbits_first_atom(path: str) -> None:
    """`first_sets` (each candidate's images looked up in a table of its atoms' places) gives each
    candidate that two or more valid elements map onto itself, with the elements that do
    (`_preserving`) and the first atom of each orbit (`_orbit_firsts`, sorted and searched)."""
    model = built(SPECS / path if path.endswith(".yaml") else CORPUS / path)
    group, candidates = model.group, model.breaking_candidates
    every = np.arange(group.order)
    valid = Subgroup(group.maps, every if group.is_valid is None else every[group.proper])
    expected = {}
    for index, first in enumerate(candidates):
        if first and len(subgroup := _preserving(valid, first)) >= 2:
            members = np.asarray(first, np.int64)
            firsts = _orbit_firsts(members, subgroup)
            expected[index] = (subgroup.rows.tolist(), [int(members[p]) for p in sorted(set(firsts.tolist()))])
    found = {o.index: (o.subgroup.rows.tolist(), list(o.kept)) for o in first_sets(group, candidates)}
    assert found == expected and expected


@pytest.mark.parametrize(
    "path",
    [
        "burrtools-grids/HexSticks.xmpuzzle",  # 26 first sets, each against 32 cell sets
        "burrtools-grids/PiecesOfEight.xmpuzzle",
        "burrtools/SolidSixPieceBurrs.xmpuzzle",
        "t_tetracubes_6x6x2.yaml",
        "kanoodle_pyramid.yaml",
    ],
)
def test_every_second_set_weighed_at_once_is_weighed_as_alone(path: str) -> None:
    """`_shares` (every second set's atoms side by side, one table look-up) gives each set the very
    share `_retained` gives it alone: the choice between them compares shares to 1e-12."""
    puzzle = built(SPECS / path if path.endswith(".yaml") else CORPUS / path)
    candidates = [*(list(candidate) for candidate in puzzle.breaking_candidates), []]  # and an empty one
    options = first_sets(puzzle.group, candidates)
    assert options
    seconds = _SecondSets.of(candidates, puzzle.group.maps.shape[1])
    for option in options:
        stabilisers = _Stabilisers.of(option)
        others = [index for index in range(len(candidates)) if index != option.index]
        assert seconds.at_once(len(stabilisers.rows))
        alone_then_each = [[], *(candidates[other] for other in others)]
        assert _shares(option, stabilisers, seconds, others) == [
            _retained(option, stabilisers, second) for second in alone_then_each
        ]


def _maps_one_placement_at_a_time(
    symmetry: PackingSymmetry, arrays: SymmetryArrays, mirror: Sequence[int], deadline: Deadline
) -> tuple[Any, Any]:
    """The atom maps as the definition reads: each placement's cells moved, sorted and looked up
    (-1 where that is none, and the symmetry then not whole)."""
    index = {cell: number for number, cell in enumerate(symmetry.puzzle.target)}
    cells = [[index[cell] for cell in placement.cells] for placement in symmetry.placements]
    maps: list[list[int]] = []
    for row, flags in zip(arrays.images.tolist(), arrays.mirrored.tolist(), strict=True):
        placed = zip(symmetry.placements, cells, strict=True)
        images = [symmetry._image_atom(placement, i, row, flags, mirror) for placement, i in placed]
        maps.append([-1 if image is None else image for image in images])
    atoms = np.array(maps, np.int64).reshape(len(arrays), len(symmetry.placements))
    return atoms, (atoms >= 0).all(axis=1)


@pytest.mark.parametrize(
    "path",
    [
        "burrtools/PelikanBurr.xmpuzzle",  # pieces of several lengths, one of 200 cells
        "burrtools/DraculasDentalDesaster.xmpuzzle",  # colours
        "burrtools/CubeInCage.xmpuzzle",  # optional cells
        "yass/figures/15_12_cube.soma",  # parts mirrored on their own
        "foam_colours.yaml",
        "kanoodle_pyramid.yaml",  # spheres
        "hexiamonds_rhombus.yaml",  # prisms
        "burrtools-grids/PiecesOfEight.xmpuzzle",  # rhombic: 48 symmetries made of a few
        "soma.yaml",  # mirror images, each piece swapped for its partner
    ],
)
def test_atom_maps_by_piece_length_are_each_placements_image(path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The symmetries as atom maps, computed for all placements of one length at once, equal
    those worked out one placement at a time."""
    source = SPECS / path if path.endswith(".yaml") else CORPUS / path
    batched = built(source)
    monkeypatch.setattr(PackingSymmetry, "_atom_maps", _maps_one_placement_at_a_time)
    one_at_a_time = built(source)
    assert [e.atom_map for e in batched.group.elements] == [e.atom_map for e in one_at_a_time.group.elements]
    assert batched.group.order == one_at_a_time.group.order >= 2 or "15_12" in path


@pytest.mark.parametrize(
    "path",
    ["soma.yaml", "kanoodle_pyramid.yaml", "burrtools-grids/PiecesOfEight.xmpuzzle", "yass/figures/15_12_cube.soma"],
)
def test_every_symmetry_is_made_from_the_generators_in_order(path: str) -> None:
    """`SymmetryArrays.products`: each row but the identity is a generator or, in turn, a
    generator after a row made before it (cell images and mirror flags alike); None where parts
    are mirrored on their own."""
    model = built(SPECS / path if path.endswith(".yaml") else CORPUS / path)
    assert isinstance(model, PackingModel)
    arrays = target_symmetry_arrays(
        model.puzzle.target,
        reflections=not all(element.proper for element in model.group.elements),
        separately=model.puzzle.separately,
        grid=model.puzzle.grid,
    )
    made = arrays.products()
    if "15_12" in path:
        assert made is None
        return
    assert made is not None
    generators, recipe = made
    assert len(generators) < len(arrays) // 2
    done = {0, *generators}
    for row, generator, earlier in recipe:
        assert generator in generators and earlier in done and row not in done
        assert (arrays.images[row] == arrays.images[generator][arrays.images[earlier]]).all()
        assert (arrays.mirrored[row] == arrays.mirrored[earlier] ^ arrays.mirrored[generator][0]).all()
        done.add(row)
    assert done == set(range(len(arrays)))


# -- the compiled orbits against the array operations ---------------------------------------------


@pytest.fixture(scope="module")
def shipped_groups() -> list[SymmetryGroup]:
    """Groups of the kinds a run meets: Soma's 48 elements (mirror images among them), the ball
    pyramid's 8, the pentominoes' box's 4, and Soma's 24 rotations alone (no mirror images)."""
    groups = [built(SPECS / name).group for name in ("soma.yaml", "kanoodle_pyramid.yaml", "pentominoes_6x10.yaml")]
    soma = groups[0]
    rotations = [element for element in soma.elements if element.proper]
    return [*groups, SymmetryGroup(tuple(rotations))]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(0, 3), st.integers(1, 8), st.integers(1, 80), st.integers(0, 2**32 - 1))
def test_the_compiled_orbits_are_the_array_operations_orbits(
    shipped_groups: list[SymmetryGroup], which: int, length: int, count: int, seed: int
) -> None:
    """Batches of sorted rows of atoms (solutions or not: the orbit is the same sum either way),
    some rows twice, some the image of another: the same least keys, mirror keys, distinct images
    and stabilisers from the kernel (numba's where no build is loaded) as from numpy; rows longer than
    the kernel's insertion sort takes (orbits_kernel.INSERTION_LONGEST) too."""
    group = shipped_groups[which]
    atoms_in_model = group.maps.shape[1]
    chooser = np.random.default_rng(seed)
    rows = np.sort(np.array([chooser.choice(atoms_in_model, length, replace=False) for _ in range(count)]), axis=1)
    images = np.sort(group.maps[chooser.integers(group.order, size=count)[:, None], rows], axis=1)
    batch = np.concatenate([rows, images, rows[: count // 2]])
    kernel = native.kernel(native.ORBITS)
    with patch.object(native, "built_kernel", lambda key: None):
        numpy_way = classes.rotation_orbits(group, batch)
    with patch.object(native, "built_kernel", lambda key: kernel):
        compiled_way = classes.rotation_orbits(group, batch)
    assert compiled_way == numpy_way


def test_a_packings_group_stays_arrays_until_its_elements_are_asked_for() -> None:
    """A packing run reads its group's maps, never its elements as tuples (PelikanBurr's 24 x
    3,601 were 1.9 ms of a run); asked for, they are the maps' rows with each one's properness,
    by index, slice and iteration, and a group given as those tuples classifies alike."""
    puzzle = read_puzzle(CORPUS / "burrtools/PelikanBurr.xmpuzzle")
    report = run(puzzle, RunOptions(show=0))
    model = puzzle.model()[0]
    group = model.group
    elements = group.elements
    assert report.counts.unique == 12 and report.identity_problems == []
    assert isinstance(elements, ElementRows) and "_made" not in vars(elements)
    expected = [(tuple(row), bool(flag)) for row, flag in zip(group.maps.tolist(), group.proper, strict=True)]
    assert [(e.atom_map, e.proper) for e in elements] == expected and len(elements) == group.order == 24
    assert [e.atom_map for e in elements[1:3]] == [row for row, _ in expected[1:3]]
    assert elements[-1].atom_map == expected[-1][0]
    as_tuples = SymmetryGroup(tuple(elements))
    assert (as_tuples.maps == group.maps).all() and (as_tuples.proper == group.proper).all()
    rng = np.random.default_rng(7)
    picked = [tuple(sorted(rng.choice(model.atom_count, 4, replace=False).tolist())) for _ in range(5)]
    images = sorted({tuple(sorted(row)) for atoms in picked for row in group.maps[:, list(atoms)].tolist()})
    counted = []
    for each in (group, as_tuples):
        classifier = Classifier(each)
        classifier.add_batch(images)
        counted.append((classifier.counts(), [c.stabiliser for c in classifier.classes]))
    assert counted[0] == counted[1] and 1 <= counted[0][0].unique <= len(picked)
