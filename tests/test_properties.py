"""Invariants: turning or mirroring a puzzle's target (with its fixed pieces) changes no count."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import yaml
from conftest import SPECS, checked_run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from cpsolve.cli import app
from cpsolve.formats import read_puzzle
from cpsolve.geometry import (
    ISOMETRIES,
    ROTATIONS,
    canonical_shape,
    coloured_canonical,
    coloured_orientation_arrays,
    coloured_orientations,
    normalise,
    orientation_sizes,
    orientations,
    transform,
)
from cpsolve.run import RunOptions
from cpsolve.spec import PackingSpec

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
    sizes = [tuple(max(c[axis] for c in shape) + 1 for axis in range(3)) for shape in orientations(cells)]
    assert list(orientation_sizes(cells)) == sizes
