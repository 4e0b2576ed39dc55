"""What a page needs to draw and edit a grid's cells, made from the grid itself (one source: the
studio's page never restates a grid): which triples are cells, where a cell lies in space and what
solid it is, the cell across each face of each solid, how `layers` lay the cells out, the shifts
the lattice allows, and the turns and mirror the editor offers, applied here (`turned`).

Cells repeat with the grid's periods: a triple is a cell where its residue modulo `cell_period`
is one of `residues`; a cell's solid is that of its kind (its residue modulo `kind_period`),
moved by `real(cell - kind)` (`real`, a matrix: diagonal but on the hex grid, whose rows of
hexagons are offset); the cell across face f of a cell
of kind k is the cell plus `across[k][f]`. Every table is checked against the grid's own methods
(tests/test_grids.py).
"""

from __future__ import annotations

import functools
import itertools
import math
from typing import Any

import numpy as np

from cpsolve.errors import CpsolveError
from cpsolve.geometry import Cell
from cpsolve.limits import MAX_SHAPE_CELLS

from .base import Grid, Transform


def description(grid: Grid) -> dict[str, Any]:
    """The grid as the page reads it (see the module's docstring)."""
    return _description(grid)


@functools.cache
def _description(grid: Grid) -> dict[str, Any]:
    kinds = grid.cell_kinds()
    solids = None if grid.balls else [grid.solid(kind) for kind in kinds]
    return {
        "name": grid.name,
        "title": grid.title,
        "balls": grid.balls,
        "real": real_matrix(grid),
        "layer_solids": grid.layer_solids or len(kinds) > 1,
        "flat": grid.flat,
        "layer_columns": grid.layer_columns,
        "cell_period": list(grid.cell_period),
        "residues": residues(grid),
        "kind_period": list(grid.kind_period),
        "kinds": [list(kind) for kind in kinds],
        "solids": solids,
        "across": None if solids is None else across(grid),
        "neighbour_steps": [list(step) for step in grid.neighbour_steps],
        "from_layers": linear_map(lambda c: grid.from_layers(*c)),
        "to_layers": linear_map(grid.to_layers),
        "shifts": shifts(grid),
        "turns": sorted(editor_turns(grid)),
        "caption": grid.caption,
    }


def real_matrix(grid: Grid) -> list[list[float]]:
    """`real` as a matrix: a cell's point in space is this times the cell (it is linear)."""
    columns = grid.real(np.eye(3))  # row i: where the unit vector of axis i lies
    matrix: list[list[float]] = columns.T.tolist()
    return matrix


def residues(grid: Grid) -> list[list[int]]:
    """The residues modulo the grid's cell period of the cells a shape may be drawn with (an edge
    grid's segments, not its crossing marks)."""
    period = grid.cell_period
    candidates = np.array(list(itertools.product(*(range(p) for p in period))), np.int64)
    found: list[list[int]] = candidates[grid.given_mask(candidates)].tolist()
    return found


def linear_map(mapping: Any) -> list[list[float]]:
    """The matrix of a linear map of triples (the layer layout), read off the unit vectors
    through points where it is exact (the sphere grid's layers take halves of even sums, the
    triangular edge grids' thirds)."""
    origin = np.array(mapping((0, 0, 0)), float)
    columns = []
    for axis in range(3):
        unit = [0, 0, 0]
        unit[axis] = 6  # even and a multiple of 3: exact where a layout halves or takes thirds
        columns.append((np.array(mapping(tuple(unit)), float) - origin) / 6)
    matrix: list[list[float]] = np.array(columns).T.tolist()
    return matrix


def shifts(grid: Grid) -> dict[str, list[int]]:
    """The editor's shifts along x, y and z: the shortest lattice translation along each axis in
    the layers' layout (columns, rows, layers), in cells."""
    found = {}
    for name, axis in (("x", 0), ("y", 1), ("z", 2)):
        for steps in range(1, 13):
            unit = [0, 0, 0]
            unit[axis] = steps
            made = np.array(grid.from_layers(*unit), np.int64) - np.array(grid.from_layers(0, 0, 0), np.int64)
            if grid.in_lattice(made[None, :])[0]:
                found[name] = made.tolist()
                break
    return found


def editor_turns(grid: Grid) -> dict[str, Transform]:
    """The turns the editor offers (the grid's `editor_turns`: a quarter about each axis; on the
    triangular and hexagonal lattices a sixth about z and a half about x) and `mirror` (x to -x,
    or another mirror the grid has), as its transforms."""
    return _editor_turns(grid)


@functools.cache
def _editor_turns(grid: Grid) -> dict[str, Transform]:
    wanted = grid.editor_turns
    sample = _sample(grid)
    found: dict[str, Transform] = {}
    for name, (axis, degrees) in wanted.items():
        rotation = _rotation(axis, degrees)
        match = next((t for t in grid.rotations if _acts_as(grid, sample, t, rotation)), None)
        if match is not None:
            found[name] = match
    flip = np.diag([-1.0, 1.0, 1.0])
    mirrors = [t for t in grid.transforms if not t.proper]
    mirror = next((t for t in mirrors if _acts_as(grid, sample, t, flip)), mirrors[0] if mirrors else None)
    if mirror is not None:
        found["mirror"] = mirror
    return found


def turned(grid: Grid, cells: list[Cell], how: str) -> list[Cell]:
    """The cells turned (or mirrored) as the editor asks, kept where they were: moved back by the
    lattice translation that puts their least corner where the shape's was."""
    transform = editor_turns(grid).get(how)
    if transform is None:
        raise CpsolveError(f"the {grid.name} grid has no turn {how!r}; it has {', '.join(sorted(editor_turns(grid)))}")
    if not cells:
        return []
    if len(cells) > MAX_SHAPE_CELLS:
        raise CpsolveError(f"a shape of {len(cells):,} cells is past the {MAX_SHAPE_CELLS:,} a shape may have")
    array = np.asarray(cells, np.int64).reshape(-1, 3)
    if not grid.cell_mask(array).all():
        raise CpsolveError(f"not every triple is a cell of the {grid.name} grid")
    image = grid.image(array, transform)
    if image is None:
        raise CpsolveError(f"the turn {how!r} does not land this shape on the {grid.name} grid")
    moved = image - grid.lattice_shift(image) + grid.lattice_shift(array)
    return [(int(x), int(y), int(z)) for x, y, z in moved.tolist()]


def across(grid: Grid) -> list[list[list[int]]]:
    """Per kind, per face of its solid, the step from a cell of that kind to the cell that shares
    the face (found by the face's corners among the cells around it)."""
    kinds = grid.cell_kinds()
    if grid.edges:  # sticks share no faces: a click on one adds nothing beside it (the layer view adds)
        return [[[0, 0, 0] for _ in grid.solid(kind)] for kind in kinds]
    reach = list(grid.kind_period)  # a face's other cell lies within a period of its own
    window = np.array(
        list(itertools.product(*(range(-r, r + p) for r, p in zip(reach, grid.kind_period, strict=True))))
    )
    cells = window[grid.cell_mask(window)]
    solids = [grid.solid(kind) for kind in kinds]
    owner: dict[tuple[tuple[float, ...], ...], list[Cell]] = {}
    for (number, origin), cell in zip(grid.placed_cells(cells.tolist()), cells.tolist(), strict=True):
        for face in solids[number]:
            owner.setdefault(_face_key(face, origin), []).append((cell[0], cell[1], cell[2]))
    steps = []
    for number, kind in enumerate(kinds):
        here = []
        for face in solids[number]:
            other = [cell for cell in owner.get(_face_key(face, (0.0, 0.0, 0.0)), []) if cell != kind]
            here.append([other[0][axis] - kind[axis] for axis in range(3)] if other else [0, 0, 0])
        steps.append(here)
    return steps


def _face_key(face: list[tuple[float, float, float]], origin: Any) -> tuple[tuple[float, ...], ...]:
    """A face as the set of its corners in space (rounded), its kind's solid moved to `origin`."""
    shift = np.asarray(origin, float)
    return tuple(sorted(tuple(round(float(v), 6) for v in np.asarray(corner) + shift) for corner in face))


def _rotation(axis: int, degrees: float) -> Any:
    angle = math.radians(degrees)
    c, s = round(math.cos(angle), 12), round(math.sin(angle), 12)
    first, second = [a for a in range(3) if a != axis]
    matrix = np.eye(3)
    matrix[first, first], matrix[first, second], matrix[second, first], matrix[second, second] = c, -s, s, c
    return matrix


def _sample(grid: Grid) -> Any:
    """A few cells that no symmetry but the identity keeps, to tell transforms apart by (cells a
    shape may be drawn with; on a flat grid, all in its layer)."""
    kinds = np.array([kind for kind in grid.cell_kinds() if grid.given_mask(np.array([kind]))[0]], np.int64)
    period = np.array(grid.cell_period, np.int64) * np.array(grid.kind_period, np.int64)
    last = [3, 1, 0] if grid.flat else [0, 0, 3]
    picks = [kinds[0], kinds[0] + period * [1, 0, 0], kinds[0] + period * [0, 2, 0], kinds[0] + period * last]
    return np.array(picks, np.int64)


def centres(grid: Grid, cells: Any) -> Any:
    """Where the cells' solids (or balls) are centred in space."""
    if grid.balls:
        return grid.real(cells)
    middle = _middles(grid)
    return np.array(
        [np.asarray(origin) + middle[kind] for kind, origin in grid.placed_cells(np.asarray(cells).tolist())]
    )


@functools.cache
def _middles(grid: Grid) -> list[Any]:
    """The centre of each kind's solid."""
    return [
        np.mean(np.array(corners), axis=0)
        if (corners := [c for face in grid.solid(kind) for c in face])
        else grid.real(np.array([kind]))[0]  # an edge grid's crossing mark is not drawn: its point
        for kind in grid.cell_kinds()
    ]


def _acts_as(grid: Grid, sample: Any, transform: Transform, wanted: Any) -> bool:
    """Whether a transform of the grid turns the sample in space as `wanted` does (up to a shift)."""
    image = grid.image(sample, transform)
    if image is None:
        return False
    before = centres(grid, sample)
    after = centres(grid, image)
    expected = before @ wanted.T
    return bool(np.allclose(after - after.mean(axis=0), expected - expected.mean(axis=0), atol=1e-9))
