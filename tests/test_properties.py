"""Invariants: turning or mirroring a puzzle's target (with its fixed pieces) changes no count."""

from __future__ import annotations

import dataclasses
import random
import tempfile
from pathlib import Path
from typing import Any
from unittest.mock import patch

import numpy as np
import pytest
import yaml
from conftest import SPECS, checked_run, corpus_dir
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from cpsolve import native
from cpsolve.arrays import ENTRY_BYTES, BoundedCache, stable_order
from cpsolve.cli import app
from cpsolve.errors import ModelTooBigError, SpecError
from cpsolve.formats import read_puzzle, read_puzzles
from cpsolve.geometry import (
    ISOMETRIES,
    ROTATIONS,
    canonical_and_mirror_shapes,
    canonical_shape,
    coloured_canonical,
    coloured_orientation_arrays,
    coloured_orientations,
    connected_components,
    mirror_shape,
    normalise,
    orientation_array,
    orientation_sizes,
    orientations,
    transform,
)
from cpsolve.grids import CUBE
from cpsolve.limits import KEPT_PLACEMENT_BYTES, NO_DEADLINE
from cpsolve.models.packing import placements
from cpsolve.models.packing import puzzle as puzzle_module
from cpsolve.models.packing.puzzle import PackingPuzzle, Piece, _moved_in_order
from cpsolve.render import draw_layers
from cpsolve.run import RunOptions
from cpsolve.spec import PackingSpec, Source
from cpsolve.symmetry import PieceBounds
from cpsolve.symmetry.target import _symmetry_arrays, target_symmetry_arrays

Cell3 = tuple[int, int, int]

SOMA = yaml.safe_load((SPECS / "soma.yaml").read_text())
FIGURE = [[x, y, z] for x in range(3) for y in range(3) for z in range(3)]
FIXED_T = [[0, 0, 0], [1, 0, 0], [2, 0, 0], [1, 1, 0]]  # leaves a mirror plane (x -> 2 - x)

cells_strategy = st.lists(
    st.tuples(st.integers(0, 2), st.integers(0, 2), st.integers(0, 2)), min_size=1, max_size=6, unique=True
)


@given(cells_strategy, st.sampled_from(ROTATIONS))
def test_canonical_shape_ignores_rotation(cells: list[tuple[int, int, int]], rotation: object) -> None:
    assert canonical_shape(transform(cells, rotation)) == canonical_shape(cells)  # type: ignore[arg-type]


@given(cells_strategy)
def test_orientations_are_closed(cells: list[tuple[int, int, int]]) -> None:
    shapes = set(orientations(cells))
    assert len(shapes) in (1, 2, 3, 4, 6, 8, 12, 24)
    for shape in shapes:
        assert set(orientations(shape)) == shapes
        assert normalise(shape) == shape


def _mapped_and_sorted(cells: list[Cell3], group: tuple[Any, ...]) -> list[tuple[Cell3, ...]]:
    """Each isometry's image of the cells, normalised, the distinct ones in the group's order:
    what `orientations` says it gives, worked out a cell at a time."""
    found: list[tuple[Cell3, ...]] = []
    for isometry in group:
        image = normalise(transform(cells, isometry))
        if image not in found:
            found.append(image)
    return found


@given(cells_strategy, st.sampled_from(ISOMETRIES), st.tuples(*[st.integers(-5, 5)] * 3), st.randoms())
def test_a_shapes_forms_are_its_images_whatever_the_order_and_place_of_its_cells(
    cells: list[Cell3], isometry: object, shift: Cell3, order: Any
) -> None:
    """The orientations, canonical and mirror forms and sizes are kept per normalised shape
    (geometry._forms): the same shape given turned, moved and with its cells in another order
    gets what its images give, each worked out on its own."""
    given_cells = [(x + shift[0], y + shift[1], z + shift[2]) for x, y, z in transform(cells, isometry)]  # type: ignore[arg-type]
    order.shuffle(given_cells)
    rotations = _mapped_and_sorted(given_cells, ROTATIONS)
    reflections = _mapped_and_sorted(given_cells, ISOMETRIES[len(ROTATIONS) :])
    assert orientations(given_cells) == rotations
    assert orientations(given_cells, ISOMETRIES) == _mapped_and_sorted(given_cells, ISOMETRIES)
    for group in (ROTATIONS, ISOMETRIES):
        made = orientation_array(given_cells, group)
        assert made.dtype == np.int64 and made.flags.writeable
        assert made.tolist() == [list(map(list, shape)) for shape in _mapped_and_sorted(given_cells, group)]
    assert canonical_shape(given_cells) == min(rotations)
    assert mirror_shape(given_cells) == min(reflections)
    sizes = [tuple(max(cell[axis] for cell in shape) + 1 for axis in range(3)) for shape in rotations]
    assert list(orientation_sizes(given_cells)) == sizes


@given(st.lists(st.lists(st.tuples(*[st.integers(-4, 4)] * 3), min_size=1, max_size=7, unique=True), max_size=6))
def test_many_pieces_canonical_and_mirror_forms_at_once_are_each_ones_own(pieces: list[list[Cell3]]) -> None:
    """The design search's forms of a cut's pieces, worked out together by size: each piece's
    canonical and mirror shape, in the order given (pieces of one size and of others mixed)."""
    assert canonical_and_mirror_shapes(pieces) == [(canonical_shape(p), mirror_shape(p)) for p in pieces]


def moved_spec(tmp_path: Path, iso_index: int, shift: tuple[int, int, int], target: list[list[int]]) -> Path:
    iso = ISOMETRIES[iso_index]

    def move(cells: list[list[int]]) -> list[list[int]]:
        return [[a + b for a, b in zip(iso.apply(tuple(c)), shift, strict=True)] for c in cells]  # type: ignore[arg-type]

    spec = dict(SOMA, expected=None, target={"cells": move(target), "fixed": {"T": move(FIXED_T)}})
    path = tmp_path / f"moved{iso_index}.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(0, 47), st.tuples(st.integers(-3, 3), st.integers(-3, 3), st.integers(-3, 3)))
def test_moving_the_target_keeps_every_count(tmp_path: Path, iso_index: int, shift: tuple[int, int, int]) -> None:
    options = RunOptions(show=0)
    reference = checked_run(moved_spec(tmp_path, 0, (0, 0, 0), FIGURE), options)
    moved = checked_run(moved_spec(tmp_path, iso_index, shift, FIGURE), options)
    assert reference.counts.raw > 0
    assert moved.counts == reference.counts


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.text(min_size=1, max_size=12), min_size=2, max_size=2, unique=True), st.text(max_size=20))
def test_what_cpsolve_writes_as_burrtools_it_reads_back(tmp_path: Path, names: list[str], title: str) -> None:
    """Any piece and puzzle names: written as a BurrTools file and read back with the same names
    and counts, or refused in one line (names with control characters, which XML cannot hold)."""
    folder = Path(tempfile.mkdtemp(dir=tmp_path))  # one per example: hypothesis reuses tmp_path
    spec = folder / "spec.yaml"
    pieces = {names[0]: {"cells": [[0, 0], [1, 0]]}, names[1]: {"cells": [[0, 0]], "count": 2}}
    spec.write_text(yaml.safe_dump({"name": title or "untitled", "pieces": pieces, "target": {"box": [2, 2]}}))
    written = folder / "spec.xmpuzzle"
    result = CliRunner().invoke(app, ["convert", str(spec), str(written)])
    if result.exit_code == 2:
        assert "holds control characters" in result.output and len(result.output.splitlines()) == 1, result.output
        assert not written.exists()
        return
    assert result.exit_code == 0, result.output
    back = read_puzzle(written).loaded.spec
    assert isinstance(back, PackingSpec) and set(back.pieces) == set(names)
    assert checked_run(written).counts == checked_run(spec).counts


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.tuples(st.integers(-3, 3), st.integers(-3, 3), st.integers(-3, 3)),
            st.sampled_from([None, "red", "blue", "a"]),
        ),
        min_size=1,
        max_size=10,
        unique_by=lambda item: item[0],
    ),
    st.sampled_from([ROTATIONS, ISOMETRIES]),
)
def test_coloured_orientations_are_each_maps_image_sorted(piece: list[tuple[Cell3, str | None]], group: object) -> None:
    """The arrays behind coloured_orientations give what mapping, normalising and sorting each
    cell with its colour by hand gives, in the group's order, each image once; the canonical
    form is the least of them."""
    cells = [cell for cell, _ in piece]
    colours = [colour for _, colour in piece]
    by_hand: dict[object, None] = {}
    for iso in group:  # type: ignore[attr-defined]
        moved = [iso.apply(cell) for cell in cells]
        low = [min(cell[axis] for cell in moved) for axis in range(3)]
        shifted = [(x - low[0], y - low[1], z - low[2]) for x, y, z in moved]
        by_hand.setdefault(tuple(sorted(zip(shifted, colours, strict=True), key=lambda i: (i[0], i[1] or ""))), None)
    assert coloured_orientations(cells, colours, group) == list(by_hand)  # type: ignore[arg-type]
    rotations = coloured_orientations(cells, colours, ROTATIONS)
    assert coloured_canonical(cells, colours) == min(rotations, key=lambda s: [(c, k or "") for c, k in s])
    arrays, ways = coloured_orientation_arrays(cells, colours, group)  # type: ignore[arg-type]
    shapes: list[Any] = list(by_hand)
    assert arrays.tolist() == [[list(c) for c, _ in shape] for shape in shapes]
    assert ways == [tuple(k for _, k in shape) for shape in shapes]
    assert not arrays.flags.writeable  # kept with the images for the next run: never to be changed
    again, _ = coloured_orientation_arrays(cells, colours, group)  # type: ignore[arg-type]
    assert again.tolist() == arrays.tolist()
    sizes = [tuple(max(c[axis] for c in shape) + 1 for axis in range(3)) for shape in orientations(cells)]
    assert list(orientation_sizes(cells)) == sizes


# -- the compiled placement finder against the array operations ------------------------------------

COLOURS = st.sampled_from([None, "red", "blue"])
PIECE_CELLS = st.lists(
    st.tuples(st.tuples(st.integers(0, 2), st.integers(0, 2), st.integers(0, 1)), COLOURS),
    min_size=1,
    max_size=5,
    unique_by=lambda cell: cell[0],
)
TARGET_CELLS = st.lists(
    st.tuples(st.tuples(st.integers(0, 4), st.integers(0, 3), st.integers(0, 2)), COLOURS),
    min_size=1,
    max_size=40,
    unique_by=lambda cell: cell[0],
)


def _placements_both_ways(puzzle: PackingPuzzle, most: int) -> list[Any]:
    """placement_arrays through the array operations and through the compiled kernel (numba's where
    no build is loaded): each its arrays, or the error it raised."""
    colour_code = {"blue": 1, "red": 2} if puzzle.coloured else {}
    answers: list[Any] = []
    for compiled in (False, True):
        finder = native.kernel(native.FITTING) if compiled else None
        with patch.object(native, "built_kernel", lambda key, finder=finder: finder):
            try:
                # a store of its own: one way is compared with the other only if neither takes what the other kept
                found = placements.placement_arrays(puzzle, colour_code, most, kept=placements.placement_store())
                answers.append((found.cells.tolist(), found.pieces.tolist(), _listed(found.colours)))
            except ModelTooBigError as error:
                answers.append(str(error))
    return answers


def _listed(array: Any | None) -> Any:
    return None if array is None else array.tolist()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(PIECE_CELLS, min_size=1, max_size=3),
    TARGET_CELLS,
    st.sets(st.sampled_from([("red", "red"), ("blue", "blue"), ("red", "blue")])),
    st.sampled_from([1, 5, 40, 10_000]),
)
def test_the_compiled_placement_finder_finds_what_the_array_operations_find(
    pieces: list[list[tuple[Cell3, str | None]]],
    target: list[tuple[Cell3, str | None]],
    rule: set[tuple[str, str]],
    most: int,
) -> None:
    """The same placements in the same order, cells sorted and colours along, coloured or not, a
    target numbered in any order; the same refusal past --max-placements."""
    bounds = PieceBounds(1, 1)
    puzzle = PackingPuzzle(
        "drawn",
        tuple(
            Piece(f"P{n}", tuple(cell for cell, _ in cells), bounds, tuple(colour for _, colour in cells))
            for n, cells in enumerate(pieces)
        ),
        tuple(cell for cell, _ in target),
        (),
        "rotations",
        False,
        {},
        target_colours={cell: colour for cell, colour in target if colour is not None},
        colour_rule=frozenset(rule),
    )
    numpy_way, compiled_way = _placements_both_ways(puzzle, most)
    assert compiled_way == numpy_way


def test_the_compiled_placement_finder_sorts_each_placement_in_a_target_numbered_out_of_order() -> None:
    """A full box whose cells are numbered in a shuffled order: the order of a piece's cells at one
    shift is not their order at the next, so each placement is sorted on its own."""
    box = [(x, y, z) for x in range(5) for y in range(4) for z in range(3)]
    random.Random(7).shuffle(box)
    bounds = PieceBounds(1, 1)
    corner = ((0, 0, 0), (1, 0, 0), (2, 0, 0), (0, 1, 0), (0, 0, 1))
    puzzle = PackingPuzzle(
        "shuffled",
        (Piece("L", corner, bounds, ("red", None, None, "blue", None)), Piece("I", corner[:3], bounds)),
        tuple(box),
        (),
        "rotations",
        False,
        {},
        target_colours={cell: "red" for cell in box[::3]},
        colour_rule=frozenset({("red", "red"), ("blue", "red")}),
    )
    numpy_way, compiled_way = _placements_both_ways(puzzle, 10_000)
    assert len(numpy_way[0]) > 100
    assert compiled_way == numpy_way


@pytest.mark.parametrize(
    "name",
    [
        "HexSticks.xmpuzzle",  # rhombic
        "PiecesOfEight.xmpuzzle",  # rhombic, six problems
        "Bermuda.xmpuzzle",  # triangular prisms
        "BallRoom.xmpuzzle",  # spheres
        "FourPieceTetrahedron.xmpuzzle",  # tetra-octa
    ],
)
def test_the_compiled_placement_finder_finds_on_every_grid_what_the_array_operations_find(name: str) -> None:
    """On the other grids only the shifts of the grid's lattice move a piece (multiples of its
    period whose blocks' parity is even): the kernel finds the same placements in the same order
    as the array operations, every problem of the corpus's files of each grid."""
    for puzzle in read_puzzles(corpus_dir("burrtools-grids") / name):
        packing = puzzle.model()[0].puzzle  # type: ignore[attr-defined]
        assert packing.grid.name != "cube" and not any(piece.coloured for piece in packing.pieces)
        numpy_way, compiled_way = _placements_both_ways(packing, 1_000_000)
        assert compiled_way == numpy_way and len(numpy_way[0]) > 0


# -- the compiled symmetry images against the array operations ------------------------------------

SMALL_PIECES = st.lists(
    st.tuples(st.tuples(st.integers(0, 2), st.integers(0, 1), st.integers(0, 1)), st.sampled_from([None, "red"])),
    min_size=1,
    max_size=4,
    unique_by=lambda cell: cell[0],
)


def _group_both_ways(path: Path, problem: int = 0) -> list[Any]:
    """The symmetry group of a problem in `path` as maps of its atoms, made through the array
    operations and through the compiled kernel (numba's where no build is loaded)."""
    answers = []
    for compiled in (False, True):
        kernel = native.kernel(native.ATOM_IMAGES) if compiled else None
        built = native.built_kernel

        def images_kernel(key: native.Kernel, kernel: Any = kernel, built: Any = built) -> Any:
            return kernel if key == native.ATOM_IMAGES else built(key)

        with patch.object(native, "built_kernel", images_kernel):
            group = read_puzzles(path)[problem].model()[0].group
        answers.append((group.maps.tolist(), group.proper.tolist()))
    return answers


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(SMALL_PIECES, min_size=1, max_size=3),
    st.tuples(st.integers(1, 4), st.integers(1, 4), st.integers(1, 3)),
    st.sampled_from(["all", "rotations"]),
    st.sampled_from(["none", "layers", "scattered"]),
    st.integers(0, 2**16),
    st.booleans(),
)
def test_the_compiled_symmetry_images_map_atoms_as_the_array_operations_do(
    pieces: list[list[tuple[Cell3, str | None]]],
    size: tuple[int, int, int],
    symmetry: str,
    colouring: str,
    seed: int,
    partnered: bool,
) -> None:
    """Pieces (chiral ones among them, some coloured, the first one's mirror image too where
    `partnered`, so that a reflection swaps the two) in a box whose cells are coloured not at all,
    by layer (the symmetries that keep the layers stay) or at random: every symmetry's map of the
    atoms the same."""
    if partnered:
        pieces = [*pieces, [((-x, y, z), colour) for (x, y, z), colour in pieces[0]]]
    box = [[x, y, z] for x in range(size[0]) for y in range(size[1]) for z in range(size[2])]
    chooser = random.Random(seed)
    red = {
        "none": [],
        "layers": [cell for cell in box if cell[2] == 0],
        "scattered": [cell for cell in box if chooser.random() < 0.4],
    }[colouring]
    spec: dict[str, Any] = {
        "symmetry": symmetry,
        "pieces": {
            f"P{n}": {
                "cells": [list(cell) for cell, _ in cells],
                "colours": (
                    {"red": [list(cell) for cell, colour in cells if colour]} if any(c for _, c in cells) else {}
                ),
                "min": 0,
            }
            for n, cells in enumerate(pieces)
        },
        "target": {"cells": box, "colours": {"red": red} if red else {}},
    }
    if red and any(colour for cells in pieces for _, colour in cells):
        spec["colour_rule"] = [["red", "red"]]
    else:
        spec["target"].pop("colours")
        for piece in spec["pieces"].values():
            piece.pop("colours")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "drawn.yaml"
        path.write_text(yaml.safe_dump(spec))
        numpy_way, compiled_way = _group_both_ways(path)
    assert compiled_way == numpy_way


def test_the_compiled_symmetry_images_agree_on_every_grid() -> None:
    """Every problem of BurrTools' examples of every grid and of the corpus, and shipped specs on
    spheres, prisms and coloured cubes."""
    paths = [
        *sorted(corpus_dir("burrtools-grids").glob("*.xmpuzzle")),
        *sorted(corpus_dir("burrtools").glob("*.xmpuzzle")),
        *(SPECS / name for name in ("kanoodle_pyramid.yaml", "hexiamonds_rhombus.yaml", "foam_colours.yaml")),
    ]
    for path in paths:
        for problem in range(len(read_puzzles(path))):
            numpy_way, compiled_way = _group_both_ways(path, problem)
            assert compiled_way == numpy_way, (path.name, problem)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 2**40), max_size=300), st.sampled_from([1, 7, 2**16, 2**33]))
def test_the_stable_order_is_numpys_stable_argsort(keys: list[int], spread: int) -> None:
    """The radix sort of non-negative keys (16 bits at a time) orders them as numpy's stable sort
    does, equal keys in their order (many ties where the keys are folded into a few values)."""
    array = np.array(keys, np.int64) % spread
    assert np.array_equal(stable_order(array), np.argsort(array, kind="stable"))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(
    st.lists(st.tuples(st.integers(0, 3), st.integers(0, 2), st.integers(0, 1)), min_size=1, max_size=14, unique=True),
    st.booleans(),
    st.booleans(),
    st.randoms(use_true_random=False),
)
def test_a_targets_kept_symmetries_are_those_worked_out_again_for_its_cells_in_their_order(
    target: list[Cell3], reflections: bool, separately: bool, rng: random.Random
) -> None:
    """The arrays a warm process keeps for a target are the ones found afresh, for the cells in
    the order asked (the same cells in another order have their own), with labels part of the
    key; read-only, and their products those of fresh arrays."""
    assume(not separately or len(connected_components(target)) <= 2)  # else groups of 24^k symmetries
    shuffled = rng.sample(target, len(target))
    labels = {cell: rng.randrange(2) for cell in target}
    for cells, labelled in ((target, None), (shuffled, None), (target, labels)):
        kept = target_symmetry_arrays(cells, reflections=reflections, separately=separately, labels=labelled)
        fresh = _symmetry_arrays(cells, reflections, separately, labelled, CUBE, NO_DEADLINE)
        for name in ("images", "mirrored", "proper"):
            assert np.array_equal(getattr(kept, name), getattr(fresh, name)), name
            assert not getattr(kept, name).flags.writeable
        again = target_symmetry_arrays(cells, reflections=reflections, separately=separately, labels=labelled)
        assert again is kept
        assert kept.products() == fresh.products()


def _as_lists(found: placements.PlacementArrays) -> Any:
    return found.cells.tolist(), found.pieces.tolist(), _listed(found.colours)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(PIECE_CELLS, min_size=2, max_size=3),
    TARGET_CELLS,
    st.sets(st.sampled_from([("red", "red"), ("blue", "blue"), ("red", "blue")])),
    st.sampled_from([("blue", "red"), ("red", "blue")]),
    st.randoms(use_true_random=False),
)
def test_kept_placements_are_those_found_afresh_whatever_changed_around_a_piece(
    pieces: list[list[tuple[Cell3, str | None]]],
    target: list[tuple[Cell3, str | None]],
    rule: set[tuple[str, str]],
    numbering: tuple[str, str],
    rng: random.Random,
) -> None:
    """A warm process keeps each piece's placements in its target: taken again, with the pieces in
    another order, the colours numbered otherwise, a piece recoloured or the colour rule or the
    target's colours changed, the placements are those found in a process that kept nothing, and
    the kept arrays are read-only."""
    bounds = PieceBounds(1, 1)
    made = [
        Piece(f"P{n}", tuple(cell for cell, _ in cells), bounds, tuple(colour for _, colour in cells))
        for n, cells in enumerate(pieces)
    ]
    puzzle = PackingPuzzle(
        "kept",
        tuple(made),
        tuple(cell for cell, _ in target),
        (),
        "rotations",
        False,
        {},
        target_colours={cell: colour for cell, colour in target if colour is not None},
        colour_rule=frozenset(rule),
    )
    recoloured = Piece("R", made[0].cells, bounds, tuple("blue" if c == "red" else c for c in made[0].colours))
    variants = [
        puzzle,
        dataclasses.replace(puzzle, pieces=tuple(rng.sample(made, len(made)))),
        dataclasses.replace(puzzle, pieces=(recoloured, *made[1:])),
        dataclasses.replace(puzzle, colour_rule=frozenset({("red", "red"), ("blue", "red")} - rule)),
        dataclasses.replace(puzzle, target_colours={cell: "red" for cell, _ in target[::2]}),
    ]
    kept = placements.placement_store()
    for variant in variants * 2:
        colour_code = {name: number for number, name in enumerate(numbering, 1)} if variant.coloured else {}
        try:
            warm: Any = _as_lists(placements.placement_arrays(variant, colour_code, 10_000, kept=kept))
        except ModelTooBigError as error:
            warm = str(error)
        try:
            alone = placements.placement_store()
            fresh: Any = _as_lists(placements.placement_arrays(variant, colour_code, 10_000, kept=alone))
        except ModelTooBigError as error:
            fresh = str(error)
        assert warm == fresh
        numbering = numbering[::-1]
    assert len(kept) > 0
    for cells, colours in kept.values():
        assert not cells.flags.writeable and (colours is None or not colours.flags.writeable)


def test_a_designers_next_try_places_only_the_piece_that_changed(tmp_path: Path) -> None:
    """A puzzle run, one piece redrawn, run again in the same process: only that piece's
    placements are found anew, the others' taken from what the process kept, and the second
    run's counts are those of a process that kept nothing."""
    spec = yaml.safe_load((SPECS / "soma.yaml").read_text())
    spec.pop("expected", None)
    first = tmp_path / "first.yaml"
    first.write_text(yaml.safe_dump(spec))
    spec["pieces"]["V"] = {"cells": [[0, 0, 0], [1, 0, 0], [2, 0, 0]]}  # Cubissimo: the V made an I3
    second = tmp_path / "second.yaml"
    second.write_text(yaml.safe_dump(spec))
    placed: list[str] = []
    finding = placements._Finder._placed

    def counted(finder: Any, number: int, piece: Piece, most: int) -> Any:
        placed.append(piece.name)
        return finding(finder, number, piece, most)

    with patch.object(placements, "KEPT_PLACEMENTS", placements.placement_store()):
        with patch.object(placements._Finder, "_placed", counted):
            checked_run(first)
            placed.clear()
            warm = checked_run(second)
        assert placed == ["V"]
    with patch.object(placements, "KEPT_PLACEMENTS", placements.placement_store()):
        fresh = checked_run(second)
    assert warm.counts == fresh.counts and (warm.counts.raw, warm.counts.rotations) == (6624, 276)


def test_a_bounded_cache_lets_go_of_the_least_recently_used_past_its_bytes() -> None:
    """Values by size: the oldest unused go first, a value larger than the bound is not kept."""
    cache: BoundedCache[str, bytes] = BoundedCache(10, len)
    cache.put("a", b"1234")
    cache.put("b", b"1234")
    assert cache.get("a") == b"1234"  # now the most recently used
    cache.put("c", b"1234")
    assert (cache.get("a"), cache.get("b"), cache.get("c")) == (b"1234", None, b"1234")
    assert cache.held == 8
    cache.put("a", b"12")  # replaced, its bytes counted once
    assert cache.held == 6
    cache.put("big", b"x" * 11)
    assert cache.get("big") is None and len(cache) == 2


def test_entries_of_no_bytes_still_fill_a_bounded_cache() -> None:
    """Each entry counts its key and bookkeeping with its value: a store of placements kept for
    pieces that have none (empty arrays) lets the oldest go instead of growing without end."""
    store = placements.placement_store()
    empty = np.zeros((0, 4), np.int32)
    most = KEPT_PLACEMENT_BYTES // ENTRY_BYTES
    for number in range(most + 10):
        store.put(number, (empty, None))
    assert len(store) == most and store.held <= KEPT_PLACEMENT_BYTES
    assert store.get(0) is None and store.get(most + 9) is not None


def _drawn_cell_by_cell(cells: list[Cell3], label_of: dict[Cell3, str], top_first: bool) -> list[str]:
    """The layers' rows as the drawing's docstring says, one cell at a time: the reference."""
    low = [min(c[axis] for c in cells) for axis in range(3)]
    high = [max(c[axis] for c in cells) for axis in range(3)]
    width = max((len(label) for label in label_of.values()), default=1)
    rows = []
    for z in sorted(range(low[2], high[2] + 1), reverse=top_first):
        ys = sorted(range(low[1], high[1] + 1), reverse=top_first)
        for y in ys:
            drawn = [label_of.get((x, y, z), ".").rjust(width) for x in range(low[0], high[0] + 1)]
            rows.append(("" if width == 1 else " ").join(drawn))
    return rows


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(-3, 4), st.integers(-2, 3), st.integers(-1, 2)), min_size=1, max_size=40, unique=True
    ),
    st.lists(st.sampled_from(["A", "B", "_", "xy", "long"]), max_size=40),
    st.booleans(),
)
def test_a_drawing_writes_each_label_where_its_cell_is(cells: list[Cell3], labels: list[str], top_first: bool) -> None:
    """`draw_layers`, by arrays and by its loop for small targets, against a drawing made cell by
    cell: the same rows in the same order, labels right-aligned in columns when one is longer
    than a character, cells outside the target's box left out."""
    label_of = dict(zip(cells, labels, strict=False))
    label_of[(9, 9, 9)] = "Q"  # outside the target's box: not drawn
    for arrays_from in (0, 10**9):
        with patch("cpsolve.render.ARRAY_DRAWING_FROM", arrays_from):
            drawn = draw_layers(cells, label_of, top_first=top_first).splitlines()
        rows = [line for line in drawn[1:] if line and not line.startswith(("z=", "_:"))]
        assert rows == _drawn_cell_by_cell(cells, label_of, top_first), arrays_from


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.lists(
            st.tuples(st.integers(0, 3), st.integers(0, 2), st.integers(0, 2)), min_size=1, max_size=6, unique=True
        ),
        min_size=1,
        max_size=4,
    ),
    st.lists(st.tuples(st.integers(0, 3), st.integers(-4, 4), st.integers(-4, 4), st.integers(-4, 4)), max_size=12),
)
def test_the_disassemblers_tables_shared_by_a_shape_are_those_of_each_piece(
    shapes: list[list[Cell3]], copies: list[tuple[int, int, int, int]]
) -> None:
    """A batch's pieces of one shape share its box tables (`_boxes_and_fronts`): every piece's
    box, table and first cells along each step are those `geometry_of` finds piece by piece."""
    from cpsolve.disassembly.compiled import CompiledDisassembler

    pieces = [list(shape) for shape in shapes]
    for shape, dx, dy, dz in copies:
        pieces.append([(x + dx, y + dy, z + dz) for x, y, z in shapes[shape % len(shapes)]])
    disassembler = CompiledDisassembler(CUBE)
    cells = np.array([cell for piece in pieces for cell in piece], np.int64)
    starts = np.zeros(len(pieces) + 1, np.int64)
    starts[1:] = np.cumsum([len(piece) for piece in pieces])
    kinds = np.zeros(len(cells), np.int64)
    corners = np.minimum.reduceat(cells, starts[:-1], axis=0)
    shape_of = disassembler._shapes(pieces, cells, kinds, starts, corners)
    shared = disassembler._boxes_and_fronts(cells, starts, kinds, corners, shape_of)
    alone = native.kernel(native.DISASSEMBLY_GEOMETRY_OF)(
        cells, starts, kinds, disassembler.vectors, disassembler.passes, disassembler.pass_counts
    )
    corners_s, sides_s, bases_s, ahead_s, fronts_s, starts_s = shared
    corners_a, sides_a, bases_a, ahead_a, fronts_a, starts_a = alone
    assert np.array_equal(corners_s, corners_a) and np.array_equal(sides_s, sides_a)
    steps = len(disassembler.vectors)
    for piece in range(len(pieces)):
        volume = int(np.prod(sides_a[piece]))
        assert np.array_equal(
            ahead_s[bases_s[piece] : bases_s[piece] + steps * volume],
            ahead_a[bases_a[piece] : bases_a[piece] + steps * volume],
        )
        for step in range(steps):
            at = piece * steps + step
            assert (
                fronts_s[starts_s[at] : starts_s[at + 1]].tolist() == fronts_a[starts_a[at] : starts_a[at + 1]].tolist()
            )


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(-5, 5), st.integers(-5, 5), st.integers(-5, 5)), min_size=1, max_size=60, unique=True
    )
)
def test_a_pieces_cells_are_moved_and_sorted_alike_as_an_array_and_as_tuples(cells: list[Cell3]) -> None:
    """A piece's cells at the grid's normal place, sorted, and which given cell each one is: the
    array sort (large pieces) and Python's (small ones) agree, and with the normalised shape."""
    found = []
    for arrays_from in (0, 10**9):
        with patch("cpsolve.models.packing.puzzle.ARRAY_PIECE_FROM", arrays_from):
            found.append(_moved_in_order(list(cells), CUBE))
    assert found[0] == found[1]
    moved, order = found[0]
    assert moved == normalise(cells) and sorted(order) == list(range(len(cells)))


def _colour_map_cell_by_cell(given: dict[str, list[list[int]]], cells: set[Cell3]) -> dict[Cell3, str] | str:
    """The reference: each coloured cell in the order given, the first that is not a cell of the
    shape or already has a colour named."""
    colour_of: dict[Cell3, str] = {}
    for colour, coloured in given.items():
        for index, (x, y, z) in enumerate(coloured):
            cell = (x, y, z)
            if cell not in cells:
                return f"colours.{colour}.{index}: cell {list(cell)} is not a cell of this shape"
            if cell in colour_of:
                return f"colours.{colour}.{index}: cell {list(cell)} already has colour {colour_of[cell]!r}"
            colour_of[cell] = colour
    return colour_of


SMALL_CELL = st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(0, 1))


@settings(max_examples=200, deadline=None)
@given(st.sets(SMALL_CELL, min_size=1, max_size=20), st.data())
def test_a_colour_map_made_by_whole_lists_names_the_first_cell_at_fault_as_the_cell_by_cell_one(
    cells: set[Cell3], data: st.DataObject
) -> None:
    """Each coloured cell's colour, or the error for the first cell in the order given that is not
    a cell of the shape or is coloured twice: the same as looking at one cell at a time."""
    mostly_the_shapes = st.sampled_from(sorted(cells)) | SMALL_CELL
    coloured = data.draw(
        st.dictionaries(st.sampled_from(["red", "blue", "green"]), st.lists(mostly_the_shapes, max_size=8), max_size=3)
    )
    given = {colour: [list(cell) for cell in listed] for colour, listed in coloured.items()}
    expected = _colour_map_cell_by_cell(given, cells)
    source = Source("drawn.yaml")
    try:
        found: dict[Cell3, str] | str = puzzle_module._colour_map(given, cells, ("colours",), source)
    except SpecError as error:
        found = str(error).removeprefix("drawn.yaml: ")
    assert found == expected


@settings(max_examples=100, deadline=None)
@given(st.sets(st.tuples(st.integers(-3, 9), st.integers(-3, 9), st.integers(-2, 4)), max_size=600))
def test_a_target_is_sorted_layer_by_layer_alike_as_an_array_and_as_tuples(cells: set[Cell3]) -> None:
    """By z, then y, then x: the array sort (large targets) and Python's (small ones) agree."""
    expected = tuple(sorted(cells, key=lambda c: (c[2], c[1], c[0])))
    for arrays_from in (0, 10**9):
        with patch.object(puzzle_module, "ARRAY_SORT_FROM", arrays_from):
            assert puzzle_module._layer_by_layer(cells) == expected
