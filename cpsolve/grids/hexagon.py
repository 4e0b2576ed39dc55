"""Hexagons (polyhexes), stacked as hexagonal prisms: a grid BurrTools does not have.

A cell is (q, r, z) in axial coordinates: q along a row of hexagons, r across the rows, z the
layer; the six neighbours in a layer are (q +- 1, r), (q, r +- 1), (q + 1, r - 1) and
(q - 1, r + 1), as Polyform Puzzler numbers them. In space row r lies half a hexagon further along
x than row r - 1 (x = q + r / 2), so the frame is the cells themselves and the 12 symmetries of a
hexagon (24 with the layer as a mirror) are the triangular lattice's integer matrices, the prism
grid's. A flat piece turned over is a half turn about an axis in the layer, a rotation: pieces
turn over freely, as the published polyhex puzzles assume.

`layers` draw rows of hexagons as they look: each row's hexagons on alternate columns, each row
half a hexagon (one column) right of the row above it; a drawing whose first hexagon is on an
odd column is moved one column left.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from cpsolve.geometry import Cell

from . import solids
from .base import SIXTH_TURNS, Grid, Step, Transform, closure, transforms_of
from .prism import FLIP, MIRROR, TURN

ROW_SHIFT = 0.5  # how far along x a row lies from the one before, in hexagons
ROW_HEIGHT = math.sqrt(3) / 2  # the distance between rows of hexagons one unit wide


def _steps() -> tuple[Step, ...]:
    """Slides of one hexagon along each of the three directions of its rows, and up: in the
    layer a hexagon passes over the two hexagons beside both where it starts and where it ends."""
    forward: tuple[tuple[str, Cell, tuple[Cell, ...]], ...] = (
        ("z", (0, 0, 1), ((0, 0, 1),)),
        ("q", (1, 0, 0), ((1, -1, 0), (0, 1, 0), (1, 0, 0))),
        ("r", (0, 1, 0), ((-1, 1, 0), (1, 0, 0), (0, 1, 0))),
        ("s", (-1, 1, 0), ((0, 1, 0), (-1, 0, 0), (-1, 1, 0))),
    )
    steps = []
    for name, vector, passes in forward:
        back = (-vector[0], -vector[1], -vector[2])
        reverse = tuple((-x, -y, -z) for x, y, z in passes)
        steps.extend([Step(f"+{name}", vector, (passes,)), Step(f"-{name}", back, (reverse,))])
    return tuple(steps)


class HexGrid(Grid):
    name = "hex"
    burrtools = None
    title = "hexagons (polyhexes; hexagonal prisms in layers)"
    unit_name = "a hexagon's width across its sides"
    caption = (
        "rows of hexagons, row r=0 first, each row one column (half a hexagon) right of the row above,"
        " hexagons on alternate columns; cells are axial [q, r, layer]"
    )
    parity_axes = ()
    neighbour_steps = ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (1, -1, 0), (-1, 1, 0), (0, 0, 1), (0, 0, -1))
    steps = _steps()
    layer_solids = True
    layer_columns = 2
    box_layout = True
    editor_turns = SIXTH_TURNS

    def real(self, cells: Any) -> Any:
        points = np.asarray(cells, np.float64).reshape(-1, 3)
        return points @ np.array([[1.0, 0.0, 0.0], [ROW_SHIFT, ROW_HEIGHT, 0.0], [0.0, 0.0, 1.0]])

    def solid(self, kind: Cell) -> list[solids.Face]:
        return solids.hexagon_prism()

    def _transforms(self) -> tuple[Transform, ...]:
        return transforms_of(closure([np.array(TURN), np.array(FLIP), np.array(MIRROR)]))

    def from_layers(self, column: int, row: int, layer: int) -> Cell:
        return ((column - row) // 2, row, layer)

    def to_layers(self, cell: Cell) -> Cell:
        q, r, z = cell
        return (2 * q + r, r, z)

    def box_position(self, cell: Cell) -> Cell:
        """The axial cell itself: one step along q or r is a neighbour (so are two diagonals)."""
        return cell

    def box_positions(self, cells: Any) -> Any:
        """The axial cells themselves, as `box_position` gives each."""
        return cells

    def layer_character(self, place: Cell, mark: str | None) -> str:
        """Between two hexagons of a row, a space."""
        return mark or ("." if (place[0] - place[1]) % 2 == 0 else " ")

    def drawn_cells(self, drawn: Sequence[Cell]) -> list[Cell] | str:
        """The hexagons of a drawing (column, row, layer): all on one parity of column + row (a
        drawing that starts on the odd columns moved one left), else what is wrong."""
        if not drawn:
            return []
        parity = (drawn[0][0] - drawn[0][1]) % 2
        for column, row, layer in drawn:
            if (column - row) % 2 != parity:
                return (
                    f"layer {layer + 1}, row {row + 1}, column {column + 1}: a hexagon half a hexagon from its"
                    " row's others (in rows of hexagons they stand on alternate columns)"
                )
        return [self.from_layers(column - parity, row, layer) for column, row, layer in drawn]
