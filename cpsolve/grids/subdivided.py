"""The two grids BurrTools builds from cubes cut into parts, each part one voxel of a block:

- rhombic dodecahedra (gridType 3): a cube cut by its six diagonal planes into 24 tetrahedra,
  each a voxel on a face of a 5x5x5 block; a rhombic dodecahedron is a cube and the six pyramids
  of its neighbours (48 tetrahedra). Pieces move by whole blocks.
- tetrahedra and octahedra (gridType 4): a 3x3x3 block holds a regular tetrahedron (its centre
  voxel) and the four corner pieces around it (four of which make an octahedron); blocks of the
  two orientations alternate, so pieces move by blocks two at a time.

Both turn with the cube's 48 isometries about a block corner: in the frame 2x + 1 they are the
signed permutations.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cpsolve.geometry import ISOMETRIES, Cell

from . import solids
from .base import Grid, Transform, transforms_of


class SubdividedGrid(Grid):
    """A grid of parts of cubes: the cube's isometries about a block corner."""

    caption = "BurrTools' voxel layers from z=0 up (parts of cubes); in each, row y=0 first, x left to right"

    def _transforms(self) -> tuple[Transform, ...]:
        return transforms_of([iso.matrix for iso in ISOMETRIES])

    def real(self, cells: Any) -> Any:
        return np.asarray(cells, np.float64).reshape(-1, 3) / np.asarray(self.period, np.float64)

    def frame(self, cells: Any) -> Any:
        return 2 * np.asarray(cells, np.int64).reshape(-1, 3) + 1

    def unframe(self, points: Any) -> Any:
        return (np.asarray(points, np.int64).reshape(-1, 3) - 1) // 2


class RhombicGrid(SubdividedGrid):
    name = "rhombic"
    burrtools = 3
    title = "rhombic dodecahedra (24 tetrahedra a cube)"
    cell_rule = "each coordinate taken mod 5 and folded (4 -> 0, 3 -> 1) must give 0, 1 and 2 once each"
    period = (5, 5, 5)
    kind_period = (5, 5, 5)
    cell_period = (5, 5, 5)
    unit_name = "the side of the cube the rhombic grid cuts up"

    def solid(self, kind: Cell) -> list[solids.Face]:
        return solids.rhombic_part(kind)

    def cell_mask(self, cells: Any) -> Any:
        offsets = np.asarray(cells, np.int64).reshape(-1, 3) % 5
        folded = np.minimum(offsets, 4 - offsets)
        return (np.sort(folded, axis=1) == np.array([0, 1, 2])).all(axis=1)


class TetraOctaGrid(SubdividedGrid):
    name = "tetra-octa"
    burrtools = 4
    title = "tetrahedra and octahedra"
    cell_rule = (
        "in each 3x3x3 block its centre, or a corner with an even number of coordinates at 2 (mod 3)"
        " where the block numbers (x // 3 + y // 3 + z // 3) sum to an odd number, an odd number where even"
    )
    period = (3, 3, 3)
    parity_axes = (0, 1, 2)
    kind_period = (6, 6, 6)
    cell_period = (6, 6, 6)
    unit_name = "the side of the cube the tetra-octa grid cuts up"

    def solid(self, kind: Cell) -> list[solids.Face]:
        return solids.tetra_octa_part(kind)

    def cell_mask(self, cells: Any) -> Any:
        cells = np.asarray(cells, np.int64).reshape(-1, 3)
        block, offset = np.divmod(cells, 3)
        centre = (offset == 1).all(axis=1)
        corner = ((offset == 0) | (offset == 2)).all(axis=1)
        twos = (offset == 2).sum(axis=1)
        odd_block = block.sum(axis=1) % 2 == 1
        return centre | (corner & (twos % 2 == np.where(odd_block, 0, 1)))
