"""Symmetries of a target, and which pieces a mirror turns into which.

Families build their atom permutations (see counting.py) from the cell maps found here, so what
"the same solution" means is decided in one place for all of them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import product
from typing import Literal

from cpsolve.geometry import (
    ISOMETRIES,
    ROTATIONS,
    Cell,
    Isometry,
    canonical_shape,
    connected_components,
    mirror_shape,
    self_symmetries,
)

SymmetryMode = Literal["all", "rotations", "none"]
PartsMode = Literal["together", "separately"]


@dataclass(frozen=True)
class CellSymmetry:
    """A map of the target onto itself.

    `mirrored` holds the cells whose part is reflected: a piece lying there becomes its mirror
    partner. With `parts: together` that is every cell or none.
    """

    images: Mapping[Cell, Cell]
    mirrored: frozenset[Cell]
    proper: bool


@dataclass(frozen=True)
class PieceBounds:
    """How many copies of a piece may be used, and the group it counts towards."""

    low: int
    high: int
    group: str | None = None


def mirror_partners(shapes: Mapping[str, Sequence[Cell]], bounds: Mapping[str, PieceBounds]) -> dict[str, str] | None:
    """Which piece each piece becomes in a mirror, or None when a mirror changes the piece set.

    An achiral piece is its own partner; a chiral piece needs another piece of the mirror shape
    with the same bounds and group (Soma's two screws). Anything else means a reflected solution
    would use pieces the puzzle does not have, so reflections cannot count as symmetries.
    """
    canon = {name: canonical_shape(cells) for name, cells in shapes.items()}
    partners: dict[str, str] = {}
    for name in sorted(shapes):
        if name in partners:
            continue
        wanted = mirror_shape(shapes[name])
        if wanted == canon[name]:
            partners[name] = name
            continue
        match = next(
            (
                other
                for other in sorted(shapes)
                if other not in partners and canon[other] == wanted and bounds[other] == bounds[name]
            ),
            None,
        )
        if match is None:
            return None
        partners[name], partners[match] = match, name
    return partners


def target_symmetries(
    target: Sequence[Cell],
    *,
    reflections: bool,
    separately: bool,
) -> list[CellSymmetry]:
    """The maps of the target onto itself; identity first.

    With `separately`, each face-connected part is turned on its own (yass's rule) and the group
    is the product of the parts' groups; parts are never swapped.
    """
    group: Sequence[Isometry] = ISOMETRIES if reflections else ROTATIONS
    parts = connected_components(target) if separately else [list(target)]
    per_part = []
    for part in parts:
        options = []
        for iso, shift in self_symmetries(part, group):
            options.append(({c: _moved(iso.apply(c), shift) for c in part}, iso.proper, part))
        per_part.append(options)
    symmetries = []
    for combination in product(*per_part):
        images: dict[Cell, Cell] = {}
        mirrored: set[Cell] = set()
        for part_images, proper, part in combination:
            images.update(part_images)
            if not proper:
                mirrored.update(part)
        symmetries.append(
            CellSymmetry(images=images, mirrored=frozenset(mirrored), proper=all(p for _, p, _ in combination))
        )
    return symmetries


def _moved(cell: Cell, shift: Cell) -> Cell:
    return (cell[0] + shift[0], cell[1] + shift[1], cell[2] + shift[2])
