"""The grids a puzzle can be built on, by name and by BurrTools' gridType number.

A grid is cells, the transformations a piece may take, the translations that keep the grid and
each cell's face neighbours (base.py); the packing family, the BurrTools format, the drawings
and the engines ask the puzzle's grid rather than assume cubes.
"""

from __future__ import annotations

from .base import Grid, Step, Transform
from .cube import CubeGrid
from .prism import PrismGrid
from .sphere import SphereGrid
from .subdivided import RhombicGrid, TetraOctaGrid

CUBE = CubeGrid()
GRIDS: tuple[Grid, ...] = (CUBE, PrismGrid(), SphereGrid(), RhombicGrid(), TetraOctaGrid())
GRID_NAMES = tuple(grid.name for grid in GRIDS)


def grid_named(name: str) -> Grid:
    """The grid of that name (names are checked where a spec is read)."""
    return next(grid for grid in GRIDS if grid.name == name)


def burrtools_grid(number: int) -> Grid | None:
    """The grid of BurrTools' gridType number, or None for a number BurrTools does not know."""
    return next((grid for grid in GRIDS if grid.burrtools == number), None)


__all__ = ["CUBE", "GRIDS", "GRID_NAMES", "Grid", "Step", "Transform", "burrtools_grid", "grid_named"]
