"""Triangular prisms (BurrTools' gridType 1): layers of triangles, one layer is a polyiamond.

BurrTools numbers the triangles of a layer by row y and by x along the row; triangle (x, y)
points up when x + y is even and shares its right edge with (x + 1, y). In the frame a triangle
is the sum of its three corners in the triangular lattice's own basis (3 x its centre), so that
the 12 turns of a hexagonal prism (and 12 more with a mirror) are integer matrices.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cpsolve.geometry import Cell

from . import solids
from .base import SIXTH_TURNS, Grid, Step, Transform, closure, transforms_of

TURN = ((0, -1, 0), (1, 1, 0), (0, 0, 1))  # 60 degrees about the prism axis

# The four directions a prism moves in, as BurrTools moves it: along the prisms' axis, and one
# unit along each of the three directions of the triangles' edges (x: along a row; u: up and to
# the right; v: up and to the left). Sliding in the layer, a triangle passes through the one of
# the other orientation beside it on the way: those cells, then where it ends, by kind of cell
# (0: pointing up, x + y even; 1: pointing down).
FORWARD: tuple[tuple[str, Cell, tuple[tuple[Cell, ...], tuple[Cell, ...]]], ...] = (
    ("z", (0, 0, 1), (((0, 0, 1),), ((0, 0, 1),))),
    ("x", (2, 0, 0), (((1, 0, 0), (2, 0, 0)), ((1, 0, 0), (2, 0, 0)))),
    ("u", (1, 1, 0), (((1, 0, 0), (1, 1, 0)), ((0, 1, 0), (1, 1, 0)))),
    ("v", (-1, 1, 0), (((-1, 0, 0), (-1, 1, 0)), ((0, 1, 0), (-1, 1, 0)))),
)


def _steps() -> tuple[Step, ...]:
    """Each direction and its reverse. Moving a cell back along v passes the cells that the cell
    it ends on passes going forward, but for the cell itself: those offsets less v, and -v."""
    steps = []
    for name, vector, passes in FORWARD:
        back = (-vector[0], -vector[1], -vector[2])
        reverse = tuple(
            tuple(sorted({(w[0] + back[0], w[1] + back[1], w[2] + back[2]) for w in kind} - {(0, 0, 0)} | {back}))
            for kind in passes
        )
        steps.extend([Step(f"+{name}", vector, passes), Step(f"-{name}", back, reverse)])
    return tuple(steps)


FLIP = ((0, 1, 0), (1, 0, 0), (0, 0, -1))  # half a turn about an axis in the layer
MIRROR = ((1, 0, 0), (0, 1, 0), (0, 0, -1))  # the layer as a mirror


class PrismGrid(Grid):
    name = "prism"
    burrtools = 1
    title = "triangular prisms"
    parity_axes = (0, 1)
    box_layout = True
    kind_period = (2, 2, 1)
    unit_name = "a prism's edge"
    editor_turns = SIXTH_TURNS
    caption = (
        "layers of triangles from z=0 up; in each, row y=0 first, x left to right, triangles alternating"
        " (x + y even: pointing to row y + 1)"
    )

    def real(self, cells: Any) -> Any:
        return np.asarray(cells, np.float64).reshape(-1, 3) * np.array([0.5, solids.HEIGHT, 1.0])

    def solid(self, kind: Cell) -> list[solids.Face]:
        return solids.triangle_prism(kind)

    def _transforms(self) -> tuple[Transform, ...]:
        return transforms_of(closure([np.array(TURN), np.array(FLIP), np.array(MIRROR)]))

    steps = _steps()

    def step_kind(self, cell: Cell) -> int:
        return (cell[0] + cell[1]) % 2

    def frame(self, cells: Any) -> Any:
        cells = np.asarray(cells, np.int64).reshape(-1, 3)
        x, y, z = cells[:, 0], cells[:, 1], cells[:, 2]
        down = (x + y) % 2
        corner = (x - y - down) // 2
        return np.stack([3 * corner + 1 + down, 3 * y + 1 + down, z], axis=1)

    def unframe(self, points: Any) -> Any:
        points = np.asarray(points, np.int64).reshape(-1, 3)
        a, b, z = points[:, 0], points[:, 1], points[:, 2]
        down = (a % 3 == 2).astype(np.int64)
        corner = (a - 1 - down) // 3
        y = (b - 1 - down) // 3
        return np.stack([2 * corner + y + down, y, z], axis=1)

    def neighbours(self, cell: Cell) -> list[Cell]:
        x, y, z = cell
        across = (x, y - 1, z) if (x + y) % 2 == 0 else (x, y + 1, z)
        return [(x - 1, y, z), (x + 1, y, z), across, (x, y, z - 1), (x, y, z + 1)]


class TriangleGrid(PrismGrid):
    """Flat polyiamonds: one layer of the prism grid's triangles, numbered as BurrTools numbers
    them (so a puzzle written to a BurrTools file is a layer of prisms), drawn as flat triangles.
    Its 12 rotations in space are the 12 symmetries of the plane's triangles: a piece turns over."""

    name = "triangle"
    title = "triangles (flat polyiamonds)"
    cell_rule = "z = 0: one layer of triangles"
    flat = True
    steps = ()
    caption = (
        "one layer of triangles: row y=0 first, x left to right, triangles alternating"
        " (x + y even: pointing to row y + 1)"
    )
    unit_name = "a triangle's side"

    def cell_mask(self, cells: Any) -> Any:
        return np.asarray(cells, np.int64).reshape(-1, 3)[:, 2] == 0

    def solid(self, kind: Cell) -> list[solids.Face]:
        return solids.triangle_tile(kind)
