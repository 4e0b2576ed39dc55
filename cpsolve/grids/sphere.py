"""Spheres (BurrTools' gridType 2): balls at the integer triples with an even sum, a face-centred
cubic close packing in which each ball touches 12 others.

Layers of constant z are square layers of balls (neighbours at (+-1, +-1, 0)), each sitting in
the hollows of the one below: a ball pyramid is its levels. A piece is turned by the 120
rotations whose matrices have entries 0, +-1, +-1/3 or +-2/3 (240 with a mirror), as BurrTools
does, and a turn counts for a piece only where it lands every ball on a lattice position: that is
how a flat piece of a square layer also lies in the slanted planes of a pyramid.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from cpsolve.geometry import Cell

from . import solids  # noqa: F401  (the shapes a grid's cells are: balls here)
from .base import Grid, Transform, transforms_of

SCALE = 3


def _turns() -> list[Any]:
    """The orthogonal matrices (times 3) with rows a permutation of (3, 0, 0) or (1, 2, 2), signed."""
    rows = np.array(
        sorted(
            {
                tuple(value * sign for value, sign in zip(order, signs, strict=True))
                for base in ((SCALE, 0, 0), (1, 2, 2))
                for order in itertools.permutations(base)
                for signs in itertools.product((1, -1), repeat=3)
            }
        ),
        np.int64,
    )
    found: list[Any] = []
    for first in rows:
        for second in rows[rows @ first == 0]:  # the rows are all of length 3
            third = np.cross(first, second) // SCALE  # the third row of a rotation; its negative, a mirror
            found.extend(np.array([first, second, sign * third]) for sign in (1, -1))
    return found


class SphereGrid(Grid):
    name = "sphere"
    burrtools = 2
    title = "spheres (face-centred cubic packing)"
    cell_rule = "x + y + z must be even"
    parity_axes = (0, 1, 2)
    scale = SCALE
    lands_always = False
    fewest_first = True
    box_layout = True
    balls = True
    cell_period = (2, 2, 2)
    unit_name = "a ball's diameter"
    caption = (
        "square layers of balls from the bottom up, each ball above the hollow between four below;"
        " in each, row 0 first, column 0 left"
    )
    neighbour_steps = tuple(
        (dx, dy, dz)
        for dx, dy, dz in itertools.product((-1, 0, 1), repeat=3)
        if abs(dx) + abs(dy) + abs(dz) == 2  # the 12 touching balls
    )

    def real(self, cells: Any) -> Any:
        return np.asarray(cells, np.float64).reshape(-1, 3) * math.sqrt(0.5)

    def _transforms(self) -> tuple[Transform, ...]:
        return transforms_of(_turns(), SCALE)

    def from_layers(self, column: int, row: int, layer: int) -> Cell:
        """Ball puzzles are printed as square layers, each ball of a layer above sitting in the
        hollow of four below: ball (column, row) of layer k lies over the square whose corner is
        ball (column, row) of layer k - 1. Neighbours in a printed row are (1, 1, 0) apart."""
        return (column - row, column + row + layer, layer)

    def to_layers(self, cell: Cell) -> Cell:
        x, y, z = cell
        return ((x + y - z) // 2, (y - z - x) // 2, z)

    def cell_mask(self, cells: Any) -> Any:
        return np.asarray(cells, np.int64).reshape(-1, 3).sum(axis=1) % 2 == 0
