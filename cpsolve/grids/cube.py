"""The cube grid (BurrTools' gridType 0): every integer triple a cube, the 48 isometries.

Its shapes take the fast paths of cpsolve.geometry, written for it before there were other grids;
the generic grid code gives the same answers (tests compare them).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

from cpsolve import geometry
from cpsolve.geometry import ISOMETRIES, ROTATIONS, STEPS, Cell, Colour, ColouredShape, Shape
from cpsolve.limits import NO_DEADLINE, Deadline

from .base import Grid, Step, Transform, transforms_of


class CubeGrid(Grid):
    name = "cube"
    burrtools = 0
    title = "cubes"
    neighbour_steps = STEPS
    steps = tuple(
        Step(f"{'+' if sum(vector) > 0 else '-'}{'xyz'[axis]}", vector, ((vector,),))
        for axis in range(3)
        for vector in (STEPS[2 * axis], STEPS[2 * axis + 1])
    )
    box_layout = True

    def _transforms(self) -> tuple[Transform, ...]:
        return transforms_of([iso.matrix for iso in ISOMETRIES])

    def normalise(self, cells: Sequence[Cell]) -> Shape:
        return geometry.normalise(cells)

    def orientations(self, cells: Sequence[Cell], mirrors: bool = False) -> list[Shape]:
        return geometry.orientations(cells, ISOMETRIES if mirrors else ROTATIONS)

    def orientation_array(self, cells: Sequence[Cell], mirrors: bool = False) -> Any:
        return geometry.orientation_array(cells, ISOMETRIES if mirrors else ROTATIONS)

    def coloured_orientations(
        self, cells: Sequence[Cell], colours: Sequence[Colour], mirrors: bool = False
    ) -> list[ColouredShape]:
        return geometry.coloured_orientations(cells, colours, ISOMETRIES if mirrors else ROTATIONS)

    def canonical(self, cells: Sequence[Cell]) -> Shape:
        return geometry.canonical_shape(cells)

    def mirror_canonical(self, cells: Sequence[Cell]) -> Shape:
        return geometry.mirror_shape(cells)

    def coloured_orientation_arrays(
        self, cells: Sequence[Cell], colours: Sequence[Colour]
    ) -> tuple[Any, list[tuple[Colour, ...]]]:
        return geometry.coloured_orientation_arrays(cells, colours)

    def coloured_images(
        self, cells: Sequence[Cell], colours: Sequence[Colour], mirrors: bool = False
    ) -> geometry.ColouredImages:
        return geometry.coloured_images(cells, colours, ISOMETRIES if mirrors else ROTATIONS)

    def coloured_canonical(self, cells: Sequence[Cell], colours: Sequence[Colour]) -> ColouredShape:
        return geometry.coloured_canonical(cells, colours)

    def coloured_mirror(self, cells: Sequence[Cell], colours: Sequence[Colour]) -> ColouredShape:
        return geometry.coloured_mirror(cells, colours)

    def self_maps(
        self,
        cells: Sequence[Cell],
        reflections: bool,
        labels: Mapping[Cell, Hashable] | None = None,
        deadline: Deadline = NO_DEADLINE,
    ) -> tuple[Any, list[bool]]:
        """The 24 (48) turns in blocks, the deadline read before and between them (48 images of
        the 100,000 cells a target may have took 1.7 s at once)."""
        deadline.check("finding the target's symmetries")
        maps, isometries = geometry.self_maps(cells, ISOMETRIES if reflections else ROTATIONS, labels, deadline)
        return maps, [iso.proper for iso in isometries]
