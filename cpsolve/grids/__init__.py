"""The grids a puzzle can be built on, by name and by BurrTools' gridType number.

BurrTools' five grids, then the polyform grids it has not (triangle: flat polyiamonds; hex:
polyhexes and hexagonal prisms; sticks, trigs, twigs: the square, triangular and hexagonal
grids' edges, cpsolve.grids.edges). A grid is cells, the transformations a piece may take, the
translations that keep the grid and each cell's face neighbours (base.py); the packing family,
the BurrTools format, the drawings and the engines ask the puzzle's grid rather than assume
cubes.
"""

from __future__ import annotations

from .base import Grid, Step, Transform
from .cube import CubeGrid
from .edges import HexagonEdges, SquareEdges, TriangleEdges
from .hexagon import HexGrid
from .prism import PrismGrid, TriangleGrid
from .sphere import SphereGrid
from .subdivided import RhombicGrid, TetraOctaGrid

CUBE = CubeGrid()
# BurrTools' five (in its gridType order, which `burrtools_grid` reads first), then the flat
# polyforms' grids BurrTools has not: one line a grid
GRIDS: tuple[Grid, ...] = (
    CUBE,
    PrismGrid(),
    SphereGrid(),
    RhombicGrid(),
    TetraOctaGrid(),
    TriangleGrid(),
    HexGrid(),
    SquareEdges(),
    TriangleEdges(),
    HexagonEdges(),
)
GRID_NAMES = tuple(grid.name for grid in GRIDS)
BURRTOOLS_GRIDS = GRIDS[:5]  # the grids of BurrTools' own files, by gridType


def grid_named(name: str) -> Grid:
    """The grid of that name (names are checked where a spec is read)."""
    return next(grid for grid in GRIDS if grid.name == name)


def burrtools_grid(number: int) -> Grid | None:
    """The grid of BurrTools' gridType number, or None for a number BurrTools does not know."""
    return next((grid for grid in GRIDS if grid.burrtools == number), None)


__all__ = [
    "BURRTOOLS_GRIDS",
    "CUBE",
    "GRIDS",
    "GRID_NAMES",
    "Grid",
    "Step",
    "Transform",
    "burrtools_grid",
    "grid_named",
]
