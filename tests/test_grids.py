"""The grids: each grid's invariants, the generic grid code against the cube grid's fast paths,
BurrTools' own examples of grids 1-4 against BurrTools' counts, puzzles made here against
`burrTxt`, specs on other grids, and bad input."""

from __future__ import annotations

import csv
import itertools
import random
import re
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from unittest.mock import patch

import numpy as np
import pytest
import yaml
from conftest import SPECS, checked_run, corpus_dir, peer
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from cpsolve import geometry
from cpsolve.cli import app
from cpsolve.geometry import Cell
from cpsolve.grids import BURRTOOLS_GRIDS, CUBE, GRIDS, Grid, grid_named
from cpsolve.grids import base as grid_base
from cpsolve.models.packing import placements
from cpsolve.run import RunOptions

runner = CliRunner()


def cells_near_origin(grid: Grid, reach: int = 8) -> Any:
    points = np.array(list(itertools.product(range(-reach, reach), repeat=3)), np.int64)
    return points[grid.cell_mask(points)]


# -- each grid's invariants -------------------------------------------------------------------------


@pytest.mark.parametrize("grid", GRIDS, ids=lambda g: g.name)
def test_transforms_and_translations_keep_the_grid(grid: Grid) -> None:
    cells = cells_near_origin(grid)
    assert (grid.unframe(grid.frame(cells)) == cells).all()
    assert grid.transforms[0].matrix == tuple(
        tuple(grid.scale * int(i == j) for j in range(3)) for i in range(3)
    )  # identity first
    assert len(grid.rotations) * 2 == len(grid.transforms)
    if grid.lands_always:
        for transform in grid.transforms:
            assert grid.cell_mask(grid.image(cells, transform)).all(), transform
    steps = np.array(list(itertools.product(range(-6, 7), repeat=3)), np.int64)
    if grid.flat:  # no translation takes a flat grid's cells off their layer
        steps = steps[steps[:, 2] == 0]
    for step in steps[grid.in_lattice(steps)]:
        assert grid.cell_mask(cells + step).all(), step


@pytest.mark.parametrize("grid", [g for g in GRIDS if g.lands_always], ids=lambda g: g.name)
def test_the_transforms_of_a_crystal_grid_are_a_group(grid: Grid) -> None:
    matrices = {t.matrix for t in grid.transforms}
    for first, second in itertools.product(grid.transforms, repeat=2):
        product = np.array(first.matrix) @ np.array(second.matrix)
        assert tuple(map(tuple, product.tolist())) in matrices


def test_group_sizes_are_burrtools() -> None:
    sizes = {grid.name: (len(grid.rotations), len(grid.transforms)) for grid in GRIDS}
    assert sizes == {
        "cube": (24, 48),
        "prism": (12, 24),
        "sphere": (120, 240),  # BurrTools' 120 turns, not a group: each piece keeps those that land
        "rhombic": (24, 48),
        "tetra-octa": (24, 48),
        # the flat polyforms: the plane's symmetries (8 of a square, 12 of a hexagon) as turns in
        # space, each with the layer as a mirror
        "triangle": (12, 24),
        "hex": (12, 24),
        "sticks": (8, 16),
        "trigs": (12, 24),
        "twigs": (12, 24),
    }


polycubes = st.sets(st.tuples(*[st.integers(0, 2)] * 3), min_size=1, max_size=7)


@settings(max_examples=60, deadline=None)
@given(polycubes, st.booleans())
def test_generic_grid_code_agrees_with_the_cube_fast_paths(cells: set[Cell], mirrors: bool) -> None:
    shape = sorted(cells)
    assert set(Grid.orientations(CUBE, shape, mirrors)) == set(CUBE.orientations(shape, mirrors))
    generic, generic_proper = Grid.self_maps(CUBE, shape, mirrors)
    fast, fast_proper = CUBE.self_maps(shape, mirrors)
    assert set(zip(map(tuple, generic.tolist()), generic_proper, strict=True)) == set(
        zip(map(tuple, fast.tolist()), fast_proper, strict=True)
    )  # the fast path keeps a map once per isometry that gives it, the generic one once


@settings(max_examples=100, deadline=None)
@given(
    st.dictionaries(
        st.tuples(st.integers(-1, 2), st.integers(0, 3), st.integers(2, 3)), st.sampled_from("ab"), min_size=1
    ),
    st.booleans(),
    st.booleans(),
)
def test_a_cell_sets_self_maps_are_the_isometries_that_carry_it_onto_itself(
    labelled: dict[Cell, str], mirrors: bool, with_labels: bool
) -> None:
    """geometry.self_maps (the isometries tried only where they keep the box's size, images read
    by indexing) against each isometry applied cell by cell and the image moved back onto the
    set's least corner: the same maps, in the group's order, each cell to a cell of its label."""
    cells = sorted(labelled)
    group = geometry.ISOMETRIES if mirrors else geometry.ROTATIONS
    labels = labelled if with_labels else None
    maps, isometries = geometry.self_maps(cells, group, labels)
    index = {cell: i for i, cell in enumerate(cells)}
    low = [min(cell[axis] for cell in cells) for axis in range(3)]
    expected, expected_isometries = [], []
    for iso in group:
        image = [iso.apply(cell) for cell in cells]
        image_low = [min(cell[axis] for cell in image) for axis in range(3)]
        moved = [tuple(cell[axis] - image_low[axis] + low[axis] for axis in range(3)) for cell in image]
        if all(cell in index for cell in moved) and all(
            labels is None or labels[cell] == labels[image_cell]  # type: ignore[index]
            for cell, image_cell in zip(cells, moved, strict=True)
        ):
            expected.append([index[cell] for cell in moved])  # type: ignore[index]
            expected_isometries.append(iso)
    assert maps.tolist() == expected and isometries == expected_isometries


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(GRIDS), st.lists(st.tuples(*[st.integers(-3, 5)] * 3), min_size=1, max_size=8), st.booleans())
def test_orientations_at_once_are_each_transformations_image_normalised(
    grid: Grid, points: list[Cell], mirrors: bool
) -> None:
    """The orientations worked out for all transformations at once as arrays are, in the same
    order, the distinct normalised images of the shape under each transformation in turn."""
    cells: list[Cell] = sorted({p for p, ok in zip(points, grid.cell_mask(np.array(points)), strict=True) if ok})
    assume(cells)  # none of the points a cell of this grid
    array = np.array(cells, np.int64).reshape(-1, 3)
    one_at_a_time: dict[Any, None] = {}
    for transform in grid.group(mirrors):
        moved = grid.image(array, transform)
        if moved is not None:
            one_at_a_time.setdefault(grid.normalise(moved), None)
    assert Grid.orientations(grid, cells, mirrors) == list(one_at_a_time)


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(GRIDS), st.lists(st.tuples(*[st.integers(-3, 5)] * 3), min_size=1, max_size=8))
def test_a_canonical_form_is_the_least_orientation_however_the_shape_comes(grid: Grid, points: list[Cell]) -> None:
    """A shape's canonical form is its least orientation, the same (kept from an earlier call or
    not) with its cells in any order and, on the crystal grids, for each of its orientations (the
    sphere grid's turns need not compose into turns); its mirror's is the canonical form of its
    mirror image."""
    cells: list[Cell] = sorted({p for p, ok in zip(points, grid.cell_mask(np.array(points)), strict=True) if ok})
    assume(cells)
    orientations = Grid.orientations(grid, cells)
    least = min(orientations)
    assert grid.canonical(cells) == least
    assert grid.canonical(cells[::-1]) == grid.canonical(tuple(cells)) == least
    assert not grid.lands_always or all(grid.canonical(image) == least for image in orientations)
    with patch.object(grid_base, "KEPT_FORM_CELLS", 0):  # a shape too large to keep: worked out each time
        assert grid.canonical(cells[::-1]) == least
    mirror = grid.mirror_image(cells)
    assume(mirror is not None)
    mirrored = [(int(x), int(y), int(z)) for x, y, z in mirror.tolist()]
    assert grid.mirror_canonical(cells[::-1]) == grid.mirror_canonical(cells) == min(Grid.orientations(grid, mirrored))
    with patch.object(grid_base, "KEPT_FORM_CELLS", 0):
        assert grid.mirror_canonical(cells[::-1]) == min(Grid.orientations(grid, mirrored))


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(GRIDS), st.lists(st.tuples(*[st.integers(-9, 9)] * 3), max_size=12))
def test_layers_and_box_positions_of_an_array_are_each_cells(grid: Grid, points: list[Cell]) -> None:
    """A grid's layers and box positions of an array of cells, at once (on cubes the array
    itself), are `to_layers` and `box_position` of each cell."""
    cells = [p for p, ok in zip(points, grid.cell_mask(np.array(points, np.int64).reshape(-1, 3)), strict=True) if ok]
    array = np.array(cells, np.int64).reshape(-1, 3)
    assert [tuple(cell) for cell in grid.layers_of(array).tolist()] == [grid.to_layers(cell) for cell in cells]
    assert [tuple(cell) for cell in grid.box_positions(array).tolist()] == [grid.box_position(cell) for cell in cells]


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(GRIDS), st.lists(st.tuples(*[st.integers(-3, 5)] * 3), min_size=1, max_size=12), st.booleans())
def test_self_maps_at_once_are_each_transformations_map(grid: Grid, points: list[Cell], mirrors: bool) -> None:
    """A cell set's maps onto itself, found for a batch of transformations at once (each image's
    least and greatest coordinates by axis), are those found one transformation at a time: the
    image moved back to the set's lattice place, each cell looked up; on the sphere grid, whose
    turns need not compose into turns, those and their products."""
    cells: list[Cell] = sorted({p for p, ok in zip(points, grid.cell_mask(np.array(points)), strict=True) if ok})
    assume(cells)
    array = np.array(cells, np.int64).reshape(-1, 3)
    index = {cell: number for number, cell in enumerate(cells)}
    home = grid.lattice_shift(array)
    one_at_a_time = set()
    for transform in grid.group(mirrors):
        moved = grid.image(array, transform)
        if moved is None:
            continue
        images = [index.get(tuple(cell)) for cell in (moved - grid.lattice_shift(moved) + home).tolist()]
        if None not in images:
            one_at_a_time.add((tuple(images), transform.proper))
    maps, proper = grid.self_maps(cells, mirrors)
    found = set(zip(map(tuple, maps.tolist()), proper, strict=True))
    assert one_at_a_time <= found if not grid.lands_always else one_at_a_time == found


@settings(max_examples=80, deadline=None)
@given(
    st.sampled_from([grid for grid in GRIDS if grid is not CUBE]),
    st.lists(st.tuples(*[st.integers(-2, 3)] * 3), min_size=1, max_size=6),
    st.lists(st.tuples(*[st.integers(0, 9)] * 3), min_size=1, max_size=400),
)
def test_placements_of_every_orientation_at_once_are_each_orientations_alone(
    grid: Grid, points: list[Cell], target_points: list[Cell]
) -> None:
    """On the grids other than cubes every orientation of a piece is placed at once (on a widened
    box, or for large arrays those with the same room in the target together): both give the
    placements, in order, that the definition gives one orientation at a time: every shift of the
    lattice (z slowest, x fastest) from the target box's low lattice corner that puts each cell
    of the orientation on the target."""
    cells = sorted({p for p, ok in zip(points, grid.cell_mask(np.array(points)), strict=True) if ok})
    target = sorted({p for p, ok in zip(target_points, grid.cell_mask(np.array(target_points)), strict=True) if ok})
    assume(cells and target)
    shapes = grid.orientation_array(cells)
    assume(len(shapes))
    box = placements._Box.of(target, grid)
    at_once, orientation = placements._all_fitting_placements(shapes, box, grid)
    index = {cell: number for number, cell in enumerate(target)}
    low = np.asarray(grid.lattice_shift(target), np.int64) - 2 * np.asarray(grid.period, np.int64)
    high = np.asarray(target, np.int64).max(axis=0)
    expected: list[tuple[list[int], int]] = []
    for number, shape in enumerate(shapes.tolist()):
        for dz, dy, dx in itertools.product(*(range(0, int(high[a] - low[a]) + 1) for a in (2, 1, 0))):
            if not grid.in_lattice(np.array([[dx, dy, dz]]))[0]:
                continue
            moved = [(x + dx + int(low[0]), y + dy + int(low[1]), z + dz + int(low[2])) for x, y, z in shape]
            if all(cell in index for cell in moved):
                expected.append(([index[cell] for cell in moved], number))
    by_room, room_orientation = placements._fitting_by_room(np.asarray(shapes, np.int64), box, lattice=grid)
    for found, lying in ((at_once, orientation), (by_room, room_orientation)):
        assert found.tolist() == [placed for placed, _ in expected]
        assert lying.tolist() == [number for _, number in expected]


@settings(max_examples=80, deadline=None)
@given(st.sets(st.tuples(*[st.integers(-3, 4)] * 3), min_size=1, max_size=12), st.booleans())
def test_cube_orientations_at_once_are_each_isometrys_image_normalised(cells: set[Cell], mirrors: bool) -> None:
    """The cube grid's fast path, every isometry at once as arrays, gives in the same order the
    distinct normalised images under each isometry in turn."""
    group = geometry.ISOMETRIES if mirrors else geometry.ROTATIONS
    shape = sorted(cells)
    one_at_a_time = dict.fromkeys(geometry.normalise(geometry.transform(shape, iso)) for iso in group)
    assert geometry.orientations(shape, group) == list(one_at_a_time)


@settings(max_examples=80, deadline=None)
@given(
    st.dictionaries(
        st.tuples(*[st.integers(-3, 4)] * 3), st.sampled_from([None, "red", "blue"]), min_size=1, max_size=10
    ),
    st.booleans(),
)
def test_coloured_cube_orientations_at_once_are_each_isometrys_image(
    painted: dict[Cell, str | None], mirrors: bool
) -> None:
    """Coloured shapes too: in the same order, each isometry's image moved to the origin with
    its colours carried along, sorted by cell."""
    group = geometry.ISOMETRIES if mirrors else geometry.ROTATIONS
    cells, colours = list(painted), list(painted.values())
    one_at_a_time: dict[Any, None] = {}
    for iso in group:
        moved = geometry.transform(cells, iso)
        low = [min(cell[axis] for cell in moved) for axis in range(3)]
        shifted = [(x - low[0], y - low[1], z - low[2]) for x, y, z in moved]
        one_at_a_time.setdefault(tuple(sorted(zip(shifted, colours, strict=True), key=lambda item: item[0])), None)
    assert geometry.coloured_orientations(cells, colours, group) == list(one_at_a_time)


@settings(max_examples=80, deadline=None)
@given(
    st.sampled_from([grid for grid in GRIDS if grid is not CUBE]),  # the cube's: above
    st.lists(st.tuples(st.tuples(*[st.integers(-3, 5)] * 3), st.sampled_from([None, "red", "blue"])), max_size=10),
    st.booleans(),
)
def test_coloured_orientations_on_the_other_grids_are_each_transformations_image(
    grid: Grid, painted: list[tuple[Cell, str | None]], mirrors: bool
) -> None:
    """On every grid but the cube's a coloured shape's orientations, worked out for all transformations at once,
    are in the same order each transformation's image at its normal place with the colours
    carried along, sorted by cell; its canonical form is the least of them under rotations, cell
    by cell then colour (none first)."""
    colour_of = {cell: colour for cell, colour in painted if grid.is_cell(cell)}
    assume(colour_of)
    cells, colours = list(colour_of), list(colour_of.values())
    array = np.array(cells, np.int64).reshape(-1, 3)
    one_at_a_time: dict[Any, None] = {}
    for transform in grid.group(mirrors):
        moved = grid.image(array, transform)
        if moved is not None:
            shifted = [tuple(cell) for cell in (moved - grid.lattice_shift(moved)).tolist()]
            one_at_a_time.setdefault(tuple(sorted(zip(shifted, colours, strict=True), key=lambda item: item[0])), None)
    assert grid.coloured_orientations(cells, colours, mirrors) == list(one_at_a_time)
    rotated = grid.coloured_orientations(cells, colours)
    assert grid.coloured_canonical(cells[::-1], colours[::-1]) == min(
        rotated, key=lambda shape: [(cell, colour or "") for cell, colour in shape]
    )
    arrays, ways = grid.coloured_orientation_arrays(cells, colours)
    assert [
        tuple(zip(map(tuple, way), named, strict=True)) for way, named in zip(arrays.tolist(), ways, strict=True)
    ] == rotated


def test_a_flat_ball_piece_lies_in_the_slanted_planes_too() -> None:
    """Three balls in a row and a bend of 120 degrees: the octahedral turns alone do not take the
    bend into every plane it can lie in; BurrTools' 120 turns do."""
    sphere = grid_named("sphere")
    bend = [(0, 0, 0), (1, 1, 0), (1, 2, 1)]  # steps (1, 1, 0) then (0, 1, 1): 120 degrees apart
    octahedral = [t for t in sphere.rotations if all(v % 3 == 0 for row in t.matrix for v in row)]
    assert len(octahedral) == 24
    images = [sphere.image(np.array(bend), t) for t in octahedral]
    by_cube_turns = {sphere.normalise([tuple(c) for c in image.tolist()]) for image in images if image is not None}
    assert len(sphere.orientations(bend)) > len(by_cube_turns)

    def distances(shape: list[Cell] | tuple[Cell, ...]) -> list[int]:
        return sorted(sum((a - b) ** 2 for a, b in zip(p, q, strict=True)) for p, q in itertools.combinations(shape, 2))

    assert all(distances(shape) == distances(bend) for shape in sphere.orientations(bend))  # turned, not bent


def test_sphere_layers_are_square_layers_with_each_level_in_the_hollows() -> None:
    sphere = grid_named("sphere")
    pyramid = [sphere.from_layers(x, y, z) for z in range(3) for y in range(3 - z) for x in range(3 - z)]
    assert all(sphere.is_cell(c) for c in pyramid)
    top = sphere.from_layers(0, 0, 2)
    touching = [c for c in pyramid if sum((a - b) ** 2 for a, b in zip(c, top, strict=True)) == 2]
    assert len(touching) == 4  # the top ball sits on four
    assert all(
        sphere.to_layers(sphere.from_layers(x, y, z)) == (x, y, z) for x, y, z in itertools.product(range(4), repeat=3)
    )


# -- BurrTools' examples of grids 1 to 4 ------------------------------------------------------------


def grid_rows() -> list[dict[str, str]]:
    with (corpus_dir("burrtools-grids") / "counts.tsv").open() as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def test_every_burrtools_grid_example_gives_burrtools_assemblies() -> None:
    rows = grid_rows()
    assert len(rows) == 20
    assert {row["grid"] for row in rows} == {"1", "2", "3", "4"}
    for row in rows:
        path = corpus_dir("burrtools-grids") / row["file"]
        report = checked_run(path, RunOptions(show=0, problem=row["problem"]))
        assert report.counts.unique == int(row["assemblies"]), row


# -- puzzles made here, against burrTxt -------------------------------------------------------------


def random_puzzle(grid: Grid, seed: int, size: int) -> dict[str, object]:
    """A target of `size` cells of the grid near the origin, cut at random into 4 to 6 pieces
    (grown cell by cell from random seeds; a piece need not be face-connected, BurrTools' pieces
    need not be either)."""
    chooser = random.Random(seed)
    near = cells_near_origin(grid, 6)
    centre = near[np.argmin(np.abs(near - near.mean(axis=0)).sum(axis=1))]
    order = np.argsort(np.abs(near - centre).sum(axis=1) + np.array([chooser.random() for _ in near]))
    target: list[Cell] = [(int(near[i][0]), int(near[i][1]), int(near[i][2])) for i in order[:size]]
    pieces_wanted = chooser.randint(4, 6)
    owner: dict[Cell, int] = {cell: n for n, cell in enumerate(chooser.sample(target, pieces_wanted))}
    while len(owner) < len(target):
        cell = chooser.choice([c for c in target if c not in owner])
        nearest = min(owner, key=lambda c: (sum(abs(a - b) for a, b in zip(c, cell, strict=True)), chooser.random()))
        owner[cell] = owner[nearest]
    pieces = {
        f"P{n}": {"cells": [list(c) for c in sorted(c for c in target if owner[c] == n)]} for n in range(pieces_wanted)
    }
    return {
        "name": f"random {grid.name} {seed}",
        "grid": grid.name,
        "pieces": pieces,
        "target": {"cells": [list(c) for c in target]},
    }


def burrtools_assemblies(path: Path) -> int:
    output = subprocess.run([str(peer("burrTxt")), "-q", str(path)], capture_output=True, text=True, timeout=600)
    found = re.search(r"(\d+) assemblies", output.stdout)
    assert found is not None, output.stdout + output.stderr
    return int(found.group(1))


@pytest.mark.parametrize("grid", [g for g in BURRTOOLS_GRIDS if g is not CUBE], ids=lambda g: g.name)
def test_puzzles_made_here_count_as_burrtools_counts(tmp_path: Path, grid: Grid) -> None:
    sizes = {"prism": 14, "sphere": 14, "rhombic": 60, "tetra-octa": 30}
    for seed in range(3):
        spec = tmp_path / f"{grid.name}{seed}.yaml"
        spec.write_text(yaml.safe_dump(random_puzzle(grid, seed, sizes[grid.name])))
        written = tmp_path / f"{grid.name}{seed}.xmpuzzle"
        result = runner.invoke(app, ["convert", str(spec), str(written)])
        assert result.exit_code == 0, result.output
        report = checked_run(spec)
        ours = report.extra_counts.get("burrtools_unique", report.counts.unique)
        assert report.counts.raw > 0
        assert ours == burrtools_assemblies(written), (grid.name, seed)


# -- specs on other grids, and bad input ------------------------------------------------------------


def write_spec(tmp_path: Path, data: Mapping[str, object]) -> Path:
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


TRIANGLES = {
    "grid": "prism",
    "pieces": {"A": {"cells": [[0, 0], [1, 0]]}},
    "target": {"cells": [[0, 0], [1, 0], [2, 0], [3, 0]]},
}


def test_a_polyiamond_strip_counts_and_draws_its_layer(tmp_path: Path) -> None:
    data = {**TRIANGLES, "pieces": {"A": {"cells": [[0, 0], [1, 0]], "count": 2}}}
    result = runner.invoke(app, ["run", str(write_spec(tmp_path, data))])
    assert result.exit_code == 0, result.output
    assert "counts: raw 1  rotations 1  unique 1" in result.output  # copies are not told apart
    assert "triangles alternating" in result.output and "AABB" in result.output.replace("BBAA", "AABB")


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (
            {"grid": "hexagon"},
            "grid: Input should be 'cube', 'prism', 'sphere', 'rhombic', 'tetra-octa', 'triangle', 'hex',",
        ),
        (
            {"grid": "sphere", "target": {"cells": [[0, 0, 0], [1, 0, 0]]}},
            "target.cells: cell [1, 0, 0] is not a cell of the sphere grid (x + y + z must be even)",
        ),
        (
            {"grid": "rhombic", "pieces": {"A": {"cells": [[0, 0, 0]]}}},
            "pieces.A.cells: cell [0, 0, 0] is not a cell of the rhombic grid",
        ),
        ({"grid": "sphere", "parts": "separately"}, "parts: separately is for cube grids"),
        (
            {
                "grid": "sphere",
                "target": {"cells": [[0, 0, 0], [1, 1, 0]], "optional": [[2, 2, 0], [3, 0, 0], [4, 0, 0]]},
            },
            "target.optional.1: cell [3, 0, 0] is not a cell of the sphere grid (x + y + z must be even)",
        ),
    ],
)
def test_bad_grid_input_is_one_line_and_exit_2(tmp_path: Path, change: dict[str, object], words: str) -> None:
    data = {"pieces": {"A": {"cells": [[0, 0, 0], [1, 1, 0]]}}, "target": {"cells": [[0, 0, 0], [1, 1, 0]]}}
    result = runner.invoke(app, ["run", str(write_spec(tmp_path, {**data, **change}))])
    assert result.exit_code == 2, result.output
    assert words in result.output, result.output
    assert "Traceback" not in result.output


def test_disassembly_on_a_grid_without_moves_is_refused(tmp_path: Path) -> None:
    data = {
        "grid": "sphere",
        "pieces": {"A": {"cells": [[0, 0, 0], [1, 1, 0]]}},
        "target": {"cells": [[0, 0, 0], [1, 1, 0]]},
    }
    result = runner.invoke(app, ["run", "--disassemble", str(write_spec(tmp_path, data))])
    assert result.exit_code == 2, result.output
    assert "--disassemble: the sphere grid has no moves to take pieces apart with" in result.output


def test_a_file_in_latin_1_without_declaration_is_read_as_burrtools_does(tmp_path: Path) -> None:
    body = (
        '<?xml version="1.0"?>\n<puzzle version="2"><gridType type="1"/><shapes>'
        '<voxel x="2" y="1" z="1" type="0">##</voxel><voxel x="4" y="1" z="1" type="0">####</voxel></shapes>'
        '<problems><problem><shapes><shape id="0" count="2"/></shapes><result id="1"/></problem></problems>'
        "<comment>G\xf6tz</comment></puzzle>"
    )
    path = tmp_path / "latin.xmpuzzle"
    path.write_bytes(body.encode("latin-1"))
    result = runner.invoke(app, ["run", str(path)])
    assert result.exit_code == 0, result.output
    assert "unique 1" in result.output


# -- the shipped specs of other grids, against burrTxt ------------------------------------------------


@pytest.mark.parametrize(("name", "assemblies"), [("kanoodle_pyramid.yaml", 306), ("hexiamonds_rhombus.yaml", 156)])
def test_shipped_grid_specs_count_as_burrtools(tmp_path: Path, name: str, assemblies: int) -> None:
    report = checked_run(SPECS / name)
    assert report.counts.unique == assemblies
    written = tmp_path / "written.xmpuzzle"
    assert runner.invoke(app, ["convert", str(SPECS / name), str(written)]).exit_code == 0
    assert burrtools_assemblies(written) == assemblies


def test_the_flat_challenge_is_the_board_left_around_its_pre_placed_pieces(tmp_path: Path) -> None:
    """BurrTools has no pre-placed pieces: the same challenge as the cells left and the pieces left."""
    data = yaml.safe_load((SPECS / "kanoodle_challenge.yaml").read_text())
    report = checked_run(SPECS / "kanoodle_challenge.yaml")
    assert (report.counts.raw, report.counts.unique) == (1, 1)
    sphere = grid_named("sphere")
    board = [sphere.from_layers(x, y, 0) for y in range(5) for x in range(11)]
    taken = {tuple(cell) for cells in data["target"].pop("fixed").values() for cell in cells}
    data["pieces"] = {name: piece for name, piece in data["pieces"].items() if name not in "CFIJKL"}
    data["target"] = {"cells": [list(cell) for cell in board if cell not in taken]}
    data.pop("expected")
    left = write_spec(tmp_path, data)
    written = tmp_path / "left.xmpuzzle"
    assert runner.invoke(app, ["convert", str(left), str(written)]).exit_code == 0
    assert burrtools_assemblies(written) == checked_run(left).counts.unique == 1


@pytest.mark.parametrize("name", ["prism", "rhombic", "tetra-octa"])
def test_the_solids_of_a_grid_fill_space_once(name: str) -> None:
    """The solids of one period of cells, faces turned outward, add up to the period's volume:
    none turned inside out, none missing (the pictures draw these)."""
    grid = grid_named(name)
    period = grid.kind_period
    kinds = grid.cell_kinds()

    def volume(faces: list[list[tuple[float, float, float]]]) -> float:
        total = 0.0
        for face in faces:
            first = np.array(face[0])
            for second, third in itertools.pairwise(face[1:]):
                total += float(np.dot(first, np.cross(np.array(second), np.array(third)))) / 6
        return total

    volumes = [volume(grid.solid(kind)) for kind in kinds]
    assert min(volumes) > 0
    assert sum(volumes) == pytest.approx(float(np.prod(grid.real([period])[0])))


def test_a_solved_grid_puzzle_is_written_without_assemblies_and_says_so(tmp_path: Path) -> None:
    written = tmp_path / "solved.xmpuzzle"
    result = runner.invoke(app, ["run", str(SPECS / "hexiamonds_rhombus.yaml"), "--xmpuzzle", str(written)])
    assert result.exit_code == 0, result.output
    assert "with 0 assemblies (assemblies are written on the cube grid only" in result.output
    assert burrtools_assemblies(written) == 156


@pytest.mark.parametrize(
    ("name", "flat", "counts"),
    [("cube", True, [1, 1, 2, 5, 12]), ("prism", True, [1, 1, 1, 3, 4, 12]), ("cube", False, [1, 1, 2, 7])],
)
def test_neighbours_grow_the_known_shapes(name: str, flat: bool, counts: list[int]) -> None:
    """Grown cell by cell through the grid's neighbours and told apart by its rotations, the
    shapes of n cells are the published counts: polyominoes 1, 1, 2, 5, 12 (turned over, they are
    3-D), polyiamonds 1, 1, 1, 3, 4, 12, polycubes 1, 1, 2, 7 (mirror pairs as one: 8 without)."""
    grid = grid_named(name)
    shapes: set[tuple[Cell, ...]] = {((0, 0, 0),)}
    found = [1]
    for _ in counts[1:]:
        grown = set()
        for shape in shapes:
            for cell in shape:
                for near in grid.neighbours(cell):
                    bigger = [*shape, near]
                    in_a_layer = any(
                        len({c[axis] for c in bigger}) == 1 for axis in (range(3) if name == "cube" else [2])
                    )
                    if near not in shape and (not flat or in_a_layer):
                        grown.add(min(grid.canonical(bigger), grid.mirror_canonical(bigger)))
        shapes = grown
        found.append(len(shapes))
    assert found == counts
    cell = (3, 2, 1)
    assert all(cell in grid.neighbours(near) for near in grid.neighbours(cell))  # a symmetric relation


# -- the page's description of each grid (cpsolve.grids.drawing) ---------------------------------


@pytest.mark.parametrize("name", [grid.name for grid in GRIDS])
def test_the_pages_description_of_a_grid_is_the_grids_own(name: str) -> None:
    """Which triples are cells, the layers' layout both ways, each cell's kind and place, and the
    cell across each face of each solid: as the page reads them from the description, on 400
    random triples, equal to what the grid's own methods say."""
    from cpsolve.grids.drawing import description

    grid = grid_named(name)
    drawn = description(grid)
    chooser = random.Random(7)
    period, residues = drawn["cell_period"], {tuple(r) for r in drawn["residues"]}
    to_layers, from_layers = np.array(drawn["to_layers"]), np.array(drawn["from_layers"])
    kinds = [tuple(kind) for kind in drawn["kinds"]]
    for _ in range(400):
        triple = (chooser.randint(-15, 15), chooser.randint(-15, 15), chooser.randint(-15, 15))
        valid = tuple(v % p for v, p in zip(triple, period, strict=True)) in residues
        valid &= not drawn["flat"] or triple[2] == 0
        assert valid == bool(grid.given_mask(np.array([triple]))[0]), triple
        if not valid:
            continue
        layered = to_layers @ np.array(triple)
        assert tuple(round(float(v)) for v in layered) == grid.to_layers(triple)
        assert tuple(round(float(v)) for v in from_layers @ layered) == triple
        kind = tuple(v % p for v, p in zip(triple, drawn["kind_period"], strict=True))
        number, origin = grid.placed_cells([list(triple)])[0]
        assert kinds[number] == kind
        expected = np.array(drawn["real"]) @ (np.array(triple) - np.array(kind))
        assert np.allclose(origin, expected)
        if drawn["across"] is None:
            continue
        faces = drawn["solids"][number]
        for face, step in zip(faces, drawn["across"][number], strict=True):
            if grid.flat and not any(step):  # a flat tile's top and bottom, a stick's sides: no cell across
                continue
            other = tuple(v + s for v, s in zip(triple, step, strict=True))
            assert grid.is_cell(other) and other != triple
            other_number, other_origin = grid.placed_cells([list(other)])[0]
            mine = {tuple(np.round(np.array(c) + origin, 6)) for c in face}
            faces_there = drawn["solids"][other_number]
            theirs = [{tuple(np.round(np.array(c) + other_origin, 6)) for c in f} for f in faces_there]
            assert mine in theirs, (triple, step)


@pytest.mark.parametrize("name", [grid.name for grid in GRIDS])
def test_the_editors_turns_are_the_grids_and_keep_a_shape_where_it_was(name: str) -> None:
    """Each turn the editor offers lands a shape on the grid as one of the grid's own orientations
    of it, near where it was; a quarter turn four times (a sixth six, a half twice, the mirror
    twice) gives the shape back."""
    from cpsolve.grids.drawing import editor_turns, turned

    grid = grid_named(name)
    kinds = [kind for kind in grid.cell_kinds() if grid.given_mask(np.array([kind]))[0]]
    period = (grid.cell_period[0], grid.cell_period[1], 0 if grid.flat else grid.cell_period[2])
    far = tuple(v + 2 * p for v, p in zip(kinds[0], period, strict=True))
    shape: list[Cell] = sorted({(far[0], far[1], far[2]), *kinds[:3]})
    own = {grid.normalise(form) for form in grid.orientations(shape, mirrors=True)}
    repeats = {name: round(360 / degrees) for name, (_, degrees) in grid.editor_turns.items()} | {"mirror": 2}
    assert set(editor_turns(grid)) == set(repeats)
    for how, times in repeats.items():
        cells: list[Cell] = list(shape)
        for _ in range(times):
            cells = turned(grid, cells, how)
            assert all(grid.is_cell(cell) for cell in cells)
            assert grid.normalise(cells) in own
            assert np.abs(np.min(cells, axis=0) - np.min(shape, axis=0)).max() <= 2 * max(grid.kind_period)
        assert sorted(cells) == shape, how
