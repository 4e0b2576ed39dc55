"""Invariants: turning or mirroring a puzzle's target (with its fixed pieces) changes no count."""

from __future__ import annotations

from pathlib import Path

import yaml
from conftest import SPECS, checked_run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cpsolve.geometry import ISOMETRIES, ROTATIONS, canonical_shape, normalise, orientations, transform
from cpsolve.run import RunOptions

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
