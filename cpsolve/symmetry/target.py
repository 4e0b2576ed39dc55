"""Symmetries of a target, and which pieces a mirror turns into which.

Families build their atom permutations (see counting.py) from the cell maps found here, so what
"the same solution" means is decided in one place for all of them.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from math import prod
from typing import Any, Literal

import numpy as np

from cpsolve.arrays import ENTRY_BYTES, BoundedCache, cells_digest, read_only
from cpsolve.errors import ModelTooBigError
from cpsolve.geometry import (
    Cell,
    Colour,
    connected_components,
)
from cpsolve.grids import CUBE, Grid
from cpsolve.limits import KEPT_SYMMETRY_BYTES, MAX_SYMMETRIES, NO_DEADLINE, Deadline

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


def mirror_partners(
    shapes: Mapping[str, Sequence[Cell]],
    bounds: Mapping[str, PieceBounds],
    colours: Mapping[str, Sequence[Colour]] | None = None,
    grid: Grid = CUBE,
) -> dict[str, str] | None:
    """Which piece each piece becomes in a mirror, or None when a mirror changes the piece set.

    An achiral piece is its own partner; a chiral piece needs another piece of the mirror shape
    with the same bounds and group (Soma's two screws). Anything else means a reflected solution
    would use pieces the puzzle does not have, so reflections cannot count as symmetries.
    """
    paired = _pair_mirrors(shapes, colours, lambda first, second: bounds[first] == bounds[second], grid)
    if any(partner is None for partner in paired.values()):
        return None
    return {name: partner for name, partner in paired.items() if partner is not None}


def burrtools_mirror_partners(
    shapes: Mapping[str, Sequence[Cell]], colours: Mapping[str, Sequence[Colour]] | None = None, grid: Grid = CUBE
) -> dict[str, str | None]:
    """BurrTools' pairing: a chiral piece pairs with another piece of the mirror shape whatever
    their bounds; one that finds none has no partner (None)."""
    return _pair_mirrors(shapes, colours, lambda first, second: True, grid)


def _pair_mirrors(
    shapes: Mapping[str, Sequence[Cell]],
    colours: Mapping[str, Sequence[Colour]] | None,
    compatible: Callable[[str, str], bool],
    grid: Grid,
) -> dict[str, str | None]:
    if colours is not None:
        canon: Mapping[str, object] = {name: grid.coloured_canonical(shapes[name], colours[name]) for name in shapes}
    else:
        canon = {name: grid.canonical(cells) for name, cells in shapes.items()}
    partners: dict[str, str | None] = {}
    for name in sorted(shapes):
        if name in partners:
            continue
        wanted = (
            grid.mirror_canonical(shapes[name])
            if colours is None
            else grid.coloured_mirror(shapes[name], colours[name])
        )
        if wanted == canon[name]:
            partners[name] = name
            continue
        match = next(
            (
                other
                for other in sorted(shapes)
                if other not in partners and other != name and canon[other] == wanted and compatible(name, other)
            ),
            None,
        )
        partners[name] = match
        if match is not None:
            partners[match] = name
    return partners


@dataclass(frozen=True)
class SymmetryArrays:
    """All symmetries of a target as arrays over the cells in the order given (row s is one
    symmetry): `images[s, i]` is the index of the cell that cell i goes to, `mirrored[s, i]`
    whether cell i's part is reflected, `proper[s]` whether nothing is. Row 0 is the identity."""

    images: Any
    mirrored: Any
    proper: Any
    made: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)  # `products`, once found

    def __len__(self) -> int:
        return int(self.images.shape[0])

    @property
    def nbytes(self) -> int:
        return int(self.images.nbytes + self.mirrored.nbytes + self.proper.nbytes)

    def products(self, deadline: Deadline = NO_DEADLINE) -> tuple[list[int], list[tuple[int, int, int]]] | None:
        """How every symmetry is made from a few: the generators (rows), and for each other row
        but the identity `(row, generator, earlier)` with row = generator after earlier, in an
        order where `earlier` always comes first. A map of anything that follows the target's
        cells (the atoms) is then made for the generators alone and composed for the rest, a
        gather each instead of a look-up of every atom's image (PiecesOfEight's 432 placements of
        24 cells under 48 symmetries: 3 ms). None where a row reflects some parts and not others
        (parts turned separately): a placement's part decides its mirror there, and composing
        rows would not follow it. Found once for each arrays (they are kept for the target)."""
        if "products" not in self.made:
            self.made["products"] = self._products(deadline)
        found: tuple[list[int], list[tuple[int, int, int]]] | None = self.made["products"]
        return found

    def _products(self, deadline: Deadline) -> tuple[list[int], list[tuple[int, int, int]]] | None:
        images, mirrored = self.images, self.mirrored
        if not (mirrored == mirrored[:, :1]).all():
            return None
        flips = mirrored[:, 0]
        index = {(images[row].tobytes(), bool(flips[row])): row for row in range(len(self))}
        reached = np.zeros(len(self), bool)
        reached[0] = True
        generators: list[int] = []
        recipe: list[tuple[int, int, int]] = []
        for candidate in range(1, len(self)):
            if reached[candidate]:
                continue
            reached[candidate] = True
            generators.append(candidate)
            # every row reached so far times the new generator, then each new row times all of them
            work = [(np.flatnonzero(reached), [candidate])]
            while work:
                deadline.check("finding the target's symmetries")
                rows, by = work.pop()
                grown = []
                for generator in by:
                    made = images[generator][images[rows]]
                    flipped = flips[rows] ^ flips[generator]
                    for row, cells, flip in zip(rows.tolist(), made, flipped.tolist(), strict=True):
                        product = index.get((cells.tobytes(), flip))
                        if product is not None and not reached[product]:
                            reached[product] = True
                            recipe.append((product, generator, row))
                            grown.append(product)
                if grown:
                    work.append((np.array(grown, np.int64), list(generators)))
        return generators, recipe


_KEPT: BoundedCache[Hashable, SymmetryArrays] = BoundedCache(
    KEPT_SYMMETRY_BYTES, lambda arrays: arrays.nbytes, ENTRY_BYTES
)


def target_symmetry_arrays(
    target: Sequence[Cell],
    *,
    reflections: bool,
    separately: bool,
    labels: Mapping[Cell, Hashable] | None = None,
    grid: Grid = CUBE,
    deadline: Deadline = NO_DEADLINE,
) -> SymmetryArrays:
    """The maps of the target onto itself, as arrays; identity first (`deadline` checked as they
    are found). Kept by a digest of the target's cells in their order and its labels, with the
    options and the grid, so that the
    design search's candidates and a designer's next try share them (0.5 ms and 0.6 ms for the
    products of a 4x4x4 box's 48); read-only, as every caller shares them.

    With `separately`, each face-connected part is turned on its own (yass's rule) and the group
    is the product of the parts' groups, parts never swapped: row s combines, part by part, the
    options numbered by s in mixed radix (the last part fastest, as itertools.product). Arrays,
    because a figure of several parts has thousands of symmetries.
    """
    in_order = None if labels is None else [labels[cell] for cell in target]
    key = (cells_digest(target, in_order), labels is None, reflections, separately, grid)
    kept = _KEPT.get(key)
    if kept is None:
        kept = _symmetry_arrays(target, reflections, separately, labels, grid, deadline)
        read_only(kept.images, kept.mirrored, kept.proper)
        _KEPT.put(key, kept)
    return kept


def _symmetry_arrays(
    target: Sequence[Cell],
    reflections: bool,
    separately: bool,
    labels: Mapping[Cell, Hashable] | None,
    grid: Grid,
    deadline: Deadline,
) -> SymmetryArrays:
    parts = connected_components(target) if separately else [list(target)]
    index = {c: i for i, c in enumerate(target)} if separately else None  # else one part in the target's order
    per_part = []
    for part in parts:
        maps, proper_flags = grid.self_maps(part, reflections, labels, deadline)
        part_index = np.arange(len(part)) if index is None else np.array([index[c] for c in part], np.int64)
        part_proper = np.array(proper_flags, bool)
        per_part.append((part_index.tolist(), part_index[maps], part_proper))
    count = prod(len(p[2]) for p in per_part)
    if count > MAX_SYMMETRIES:
        raise ModelTooBigError(
            f"the target's {len(parts)} separate parts, each turned on its own, have {count:.3g} symmetries"
            f" together; cpsolve handles at most {MAX_SYMMETRIES:,} (parts: together turns them as one)"
        )
    choice = np.unravel_index(np.arange(count), [len(p[2]) for p in per_part])
    images = np.zeros((count, len(target)), dtype=np.int64)
    mirrored = np.zeros((count, len(target)), dtype=bool)
    proper = np.ones(count, dtype=bool)
    for (cells, part_images, part_proper), option in zip(per_part, choice, strict=True):
        images[:, cells] = part_images[option]
        mirrored[:, cells] = ~part_proper[option][:, None]
        proper &= part_proper[option]
    return SymmetryArrays(images, mirrored, proper)


def target_symmetries(
    target: Sequence[Cell],
    *,
    reflections: bool,
    separately: bool,
) -> list[CellSymmetry]:
    """The maps of the target onto itself as cell dictionaries; identity first."""
    arrays = target_symmetry_arrays(target, reflections=reflections, separately=separately)
    cells = list(target)
    return [
        CellSymmetry(
            images={c: cells[j] for c, j in zip(cells, row, strict=True)},
            mirrored=frozenset(c for c, m in zip(cells, flags, strict=True) if m),
            proper=bool(is_proper),
        )
        for row, flags, is_proper in zip(
            arrays.images.tolist(), arrays.mirrored.tolist(), arrays.proper.tolist(), strict=True
        )
    ]
