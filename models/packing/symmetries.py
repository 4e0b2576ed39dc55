"""The symmetries of a packing as maps of its atoms, and BurrTools' own mirror rule.

A symmetry of the target (a rotation, or with symmetry `all` a reflection that maps the piece set
onto itself, swapping mirror partners) maps every placement onto a placement; the maps are built
for whole blocks of symmetries at once, the placements of each length apart, from keys of their
sorted cells. Where cpsolve does not count a reflection but BurrTools would check it (its "mirror
paradox"), those maps are kept too, for the `burrtools_unique` count.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from cpsolve import native
from cpsolve.counting import Classifier
from cpsolve.errors import ModelTooBigError
from cpsolve.geometry import (
    Cell,
    Colour,
    connected_components,
)
from cpsolve.limits import (
    MAX_SYMMETRY_ENTRIES,
    Deadline,
)
from cpsolve.symmetry import (
    ElementRows,
    Solution,
    SymmetryArrays,
    SymmetryGroup,
    burrtools_mirror_partners,
    mirror_partners,
    target_symmetry_arrays,
)

from .placements import PlacementArrays
from .puzzle import PackingPuzzle, Placement

SYMMETRY_BLOCK_ENTRIES = 4_000_000  # array entries per block of symmetries mapped at once
# Where the atoms' images are composed from a few symmetries' (`SymmetryArrays.products`): from
# this many entries to look up (symmetries x placements x cells: each about 7 ns in the compiled
# kernel), in groups of at most a grid's own order. Making the recipe costs 0.1-0.7 ms (Bedlam's 24
# symmetries 0.13, PiecesOfEight's 48 0.5-0.6 for its 497,000 entries: 3.4 -> 1.5 ms, HexSticks'
# 24 of 2,256 cells 0.7); a yass figure of three parts turned separately
# has 96 rotations made of 6 generators, 0.6-0.8 ms to work out, where looking up its 19 placements
# under all 96 takes 0.12 ms.
COMPOSED_FROM_ENTRIES = 150_000
COMPOSED_AT_MOST = 240


def check_symmetry_size(symmetries: int, atoms: int, name: str) -> None:
    """Refuse before building the maps of every atom under every symmetry, when there are too many."""
    if symmetries * atoms > MAX_SYMMETRY_ENTRIES:
        raise ModelTooBigError(
            f"{name}: {symmetries:,} symmetries of {atoms:,} placements make {symmetries * atoms:,} entries to map;"
            f" cpsolve maps at most {MAX_SYMMETRY_ENTRIES:,} (symmetry: none still maps the rotations)"
        )


class PackingSymmetry:
    """The symmetry group of a packing's atoms; once `group` has run, `burrtools_mirrors` holds
    the mirror maps BurrTools would check where cpsolve counts no reflection."""

    def __init__(
        self,
        puzzle: PackingPuzzle,
        placements: Sequence[Placement],
        arrays: PlacementArrays,
        notes: list[str],
    ) -> None:
        self.puzzle = puzzle
        self.placements = placements
        self._placement_arrays = arrays
        self.atom_count = len(placements)
        self.notes = notes
        self.burrtools_mirrors: list[tuple[int, ...]] = []

    def group(self, fixed_atoms: list[int], deadline: Deadline) -> SymmetryGroup:
        """The target's symmetries that map the piece set and the pre-placed pieces onto
        themselves, as maps of the atoms; with symmetry `all`, the reflections where every piece
        has a mirror partner (else a note says why not, and BurrTools' own mirror maps are kept
        for its count)."""
        puzzle = self.puzzle
        shapes = {p.name: p.cells for p in puzzle.pieces}
        bounds = {p.name: p.bounds for p in puzzle.pieces}
        colours = {p.name: p.colours or (None,) * len(p.cells) for p in puzzle.pieces} if puzzle.coloured else None
        partners = mirror_partners(shapes, bounds, colours, puzzle.grid) if puzzle.symmetry == "all" else None
        if puzzle.symmetry == "all" and partners is None:
            self.notes.append("reflections are not symmetries here: a mirror image would need pieces the puzzle lacks")
        names = [p.name for p in puzzle.pieces]
        mirror = [names.index(partners[n]) for n in names] if partners else list(range(len(names)))
        labels = puzzle.cell_labels() if puzzle.optional or puzzle.target_colours else None
        arrays = target_symmetry_arrays(
            puzzle.target,
            reflections=partners is not None,
            separately=puzzle.separately,
            labels=labels,
            grid=puzzle.grid,
            deadline=deadline,
        )
        check_symmetry_size(len(arrays), self.atom_count, puzzle.name)
        maps, lands = self._atom_maps(arrays, mirror, deadline)
        fixed = np.array(sorted(fixed_atoms), np.int64)
        keeps_fixed = (np.sort(maps[:, fixed], axis=1) == fixed).all(axis=1)  # the pre-placed pieces stay
        kept = np.flatnonzero(lands & keeps_fixed)
        several_parts = puzzle.separately and len(connected_components(puzzle.target)) > 1
        is_valid = self.is_valid if several_parts and partners is not None else None
        if puzzle.symmetry == "all" and partners is None:
            self.burrtools_mirrors = self._burrtools_mirror_maps(shapes, colours, labels)
        return SymmetryGroup(
            ElementRows(maps[kept], np.asarray(arrays.proper[kept], bool)),
            unique_counts_raw=puzzle.symmetry == "none",
            is_valid=is_valid,
            cell_maps=np.asarray(arrays.images, np.int64)[kept],
        )

    def _burrtools_mirror_maps(
        self,
        shapes: Mapping[str, Sequence[Cell]],
        colours: Mapping[str, Sequence[Colour]] | None,
        labels: Mapping[Cell, tuple[bool, Colour]] | None,
    ) -> list[tuple[int, ...]]:
        """The target's mirror symmetries as atom maps with BurrTools' piece pairing (bounds not
        compared; -1 for a placement of a piece without partner), when BurrTools would check
        mirror images although cpsolve does not count them: every chiral piece has a partner
        of another count, or some piece has a range (its assembler then checks them always)."""
        puzzle = self.puzzle
        if puzzle.separately or puzzle.groups or puzzle.fixed:
            return []  # what BurrTools has no words for
        loose = burrtools_mirror_partners(shapes, colours, puzzle.grid)
        ranges = any(p.bounds.low != p.bounds.high for p in puzzle.pieces)
        if not ranges and any(partner is None for partner in loose.values()):
            return []
        names = [p.name for p in puzzle.pieces]
        mirror = [-1 if loose[n] is None else names.index(loose[n] or "") for n in names]
        arrays = target_symmetry_arrays(
            puzzle.target, reflections=True, separately=False, labels=labels, grid=puzzle.grid
        )
        index = {c: i for i, c in enumerate(puzzle.target)}
        cells = [[index[c] for c in p.cells] for p in self.placements]
        maps = []
        for row, flags, proper in zip(
            arrays.images.tolist(), arrays.mirrored.tolist(), arrays.proper.tolist(), strict=True
        ):
            if not proper:
                images = (
                    self._image_atom(p, i, row, flags, mirror) for p, i in zip(self.placements, cells, strict=True)
                )
                maps.append(tuple(-1 if image is None else image for image in images))
        return maps

    def burrtools_unique(self, classifier: Classifier) -> dict[str, int]:
        """`burrtools_unique`: the unique count by BurrTools' mirror rule, where it differs from
        cpsolve's (docs/formats.md, "BurrTools files"): two classes are one when a mirror image of one, with
        each piece swapped for its partner, is a solution in the other, bounds permitting."""
        mirrors = self.burrtools_mirrors
        if not mirrors:
            return {}
        parent = list(range(len(classifier.classes)))

        def root(number: int) -> int:
            while parent[number] != number:
                parent[number] = parent[parent[number]]
                number = parent[number]
            return number

        for number, solution_class in enumerate(classifier.classes):
            for atom_map in mirrors:
                image = tuple(sorted(atom_map[a] for a in solution_class.representative))
                if image[0] < 0 or not self.is_valid(image):
                    continue
                other = classifier.class_index(image)
                if other is not None:
                    parent[root(number)] = root(other)
        return {"burrtools_unique": len({root(n) for n in range(len(parent))})}

    def _atom_maps(self, arrays: SymmetryArrays, mirror: Sequence[int], deadline: Deadline) -> tuple[Any, Any]:
        """The atom each placement becomes under each symmetry (symmetries x placements), and
        whether the symmetry gives every placement an image (not so for a misshapen pre-placed
        piece: -1 there). Looked up for a few symmetries that make the others
        (`SymmetryArrays.products`) and composed for the rest, where every placement has an image
        under those few; else looked up for every symmetry. Kept as an array: the group's maps
        made from tuples again took 0.7 ms of PiecesOfEight's 13 ms run."""
        atoms = np.empty((len(arrays), len(self.placements)), np.int64)
        atoms[0] = np.arange(len(self.placements))
        entries = len(arrays) * self._placement_arrays.cells.size
        composed = 2 < len(arrays) <= COMPOSED_AT_MOST and entries >= COMPOSED_FROM_ENTRIES
        made = arrays.products(deadline) if composed else None
        if made is not None:
            generators, recipe = made
            direct = self._mapped_directly(arrays, np.array(generators, np.int64), mirror, deadline)
            if (direct >= 0).all():  # whole maps compose into whole maps
                atoms[generators] = direct
                for row, generator, earlier in recipe:
                    atoms[row] = atoms[generator][atoms[earlier]]
                return atoms, np.ones(len(arrays), bool)
        atoms[1:] = self._mapped_directly(arrays, np.arange(1, len(arrays)), mirror, deadline)
        return atoms, (atoms >= 0).all(axis=1)

    def _mapped_directly(
        self, arrays: SymmetryArrays, symmetries: Any, mirror: Sequence[int], deadline: Deadline
    ) -> Any:
        """The atom each placement becomes under each of the `symmetries` (rows of `arrays`),
        looked up (symmetries x placements, -1: none). Whole blocks of symmetries at once: the
        image cells sorted (their colours moved along), the piece swapped for its mirror partner
        where the cells' part is reflected, and the resulting rows looked up."""
        placed = self._placement_arrays
        outside = len(self.puzzle.target)
        atoms = np.empty((len(symmetries), len(self.placements)), np.int64)
        # int64 and bool once for every length (the types the compiled kernel's build recorded)
        chosen = SymmetryArrays(
            np.array(arrays.images[symmetries], np.int64),
            np.array(arrays.mirrored[symmetries], np.bool_),
            arrays.proper[symmetries],
        )
        lengths = (placed.cells < outside).sum(axis=1)
        of_lengths = np.flatnonzero(np.bincount(lengths)).tolist()  # np.unique would import numpy.ma: 6 ms
        compiled = native.built_kernel(native.ATOM_IMAGES)
        for length in of_lengths if len(symmetries) else []:
            rows = np.nonzero(lengths == length)[0]
            if compiled is not None:
                atoms[:, rows] = _compiled_images(compiled, placed, rows, length, chosen, mirror, deadline)
            else:
                atoms[:, rows] = _LengthGroup.of(placed, rows, length, outside).images(chosen, mirror, deadline)
        return atoms

    def _image_atom(
        self, placement: Placement, indexes: list[int], images: list[int], mirrored: list[bool], mirror: Sequence[int]
    ) -> int | None:
        """The atom a placement becomes under one symmetry, colours moving with their cells; None
        when that is no placement of the puzzle (or the piece has no mirror partner: -1)."""
        target = self.puzzle.target
        piece = mirror[placement.piece] if mirrored[indexes[0]] else placement.piece
        if piece < 0:
            return None
        key: tuple[int, tuple[Cell, ...], tuple[Colour, ...] | None]
        if placement.colours is None:
            key = (piece, tuple(sorted(target[images[i]] for i in indexes)), None)
        else:
            moved = sorted((target[images[i]], colour) for i, colour in zip(indexes, placement.colours, strict=True))
            key = (piece, tuple(c for c, _ in moved), tuple(colour for _, colour in moved))
        return self.atom_of.get(key)

    @functools.cached_property
    def atom_of(self) -> Mapping[tuple[int, tuple[Cell, ...], tuple[Colour, ...] | None], int]:
        """Each placement's atom by its piece, cells and colours: only the per-placement path
        asks (a 9x9x9 design of 76,000 placements spent 0.05 s hashing them on every build)."""
        return {(p.piece, p.cells, p.colours): i for i, p in enumerate(self.placements)}

    def is_valid(self, solution: Solution) -> bool:
        """Does this image use an allowed piece set? Needed when parts are mirrored on their own."""
        used = Counter(self._placement_arrays.pieces[list(solution)].tolist())
        pieces = self.puzzle.pieces
        if any(not p.bounds.low <= used[i] <= p.bounds.high for i, p in enumerate(pieces)):
            return False
        for name, (low, high) in self.puzzle.groups.items():
            if not low <= sum(used[i] for i, p in enumerate(pieces) if p.bounds.group == name) <= high:
                return False
        return True


@dataclass(frozen=True)
class _LengthGroup:
    """The placements of one length (cells sorted, padding cut off) and their keys sorted, so
    that each is moved and looked up at its own width: Pelikan's cage pads every placement to
    200 cells, and sorting and comparing 200 columns for pieces of 40 took most of its model."""

    rows: Any  # the placements of this length
    cells: Any
    colours: Any | None
    pieces: Any
    radix: int
    sorted_keys: Any
    order: Any

    @staticmethod
    def of(placed: PlacementArrays, rows: Any, length: int, outside: int) -> _LengthGroup:
        cells = placed.cells[rows, :length]
        colours = None if placed.colours is None else placed.colours[rows, :length]
        pieces = placed.pieces[rows]
        radix = outside + 1
        piece_count = int(placed.pieces.max()) + 1
        fits = colours is None and piece_count * radix**length < 2**62
        codes = _row_keys(pieces, cells, colours, radix if fits else 0)
        order = np.argsort(codes, kind="stable")
        return _LengthGroup(rows, cells, colours, pieces, radix if fits else 0, codes[order], order)

    def images(self, arrays: SymmetryArrays, mirror: Sequence[int], deadline: Deadline) -> Any:
        """The atom each of the group's placements becomes under each symmetry (-1: none), whole
        blocks of symmetries at once: the image cells sorted (their colours moved along), the
        piece swapped for its mirror partner where the cells' part is reflected, the rows looked up."""
        mirror_of = np.asarray(mirror, dtype=self.pieces.dtype)[self.pieces]
        block = max(1, SYMMETRY_BLOCK_ENTRIES // max(self.cells.size, 1))
        found = np.full((len(arrays), len(self.rows)), -1, np.int64)
        for start in range(0, len(arrays), block):
            moved = arrays.images[start : start + block][:, self.cells].astype(self.cells.dtype)
            colours = None
            if self.colours is None:
                moved.sort(axis=2)
            else:
                order = np.argsort(moved, axis=2, kind="stable")
                moved = np.take_along_axis(moved, order, axis=2)
                colours = np.take_along_axis(np.broadcast_to(self.colours, moved.shape), order, axis=2)
            reflected = arrays.mirrored[start : start + block][:, self.cells[:, 0]]
            pieces = np.where(reflected, mirror_of, self.pieces)
            codes = _row_keys(pieces, moved, colours, self.radix)
            position = np.minimum(np.searchsorted(self.sorted_keys, codes), len(self.sorted_keys) - 1)
            hit = self.sorted_keys[position] == codes
            found[start : start + block] = np.where(hit, self.rows[self.order[position]], -1)
            deadline.check("mapping placements under the symmetries")
        return found


def _compiled_images(
    kernel: Any,
    placed: PlacementArrays,
    rows: Any,
    length: int,
    arrays: SymmetryArrays,
    mirror: Sequence[int],
    deadline: Deadline,
) -> Any:
    """`_LengthGroup.images` by the compiled kernel (cpsolve/symmetry/images_kernel.py): the atom
    each placement of one length becomes under each symmetry, -1 for none; blocks of symmetries
    as there, so that the clock is looked at between them. Every array is a new writeable int64
    one (or bool; `arrays` made so once by the caller), the types `load_compiled_images` recorded
    for the build."""
    cells = np.ascontiguousarray(placed.cells[rows, :length], np.int64)
    given = placed.colours
    colours = np.zeros_like(cells) if given is None else np.ascontiguousarray(given[rows, :length], np.int64)
    pieces = np.ascontiguousarray(placed.pieces[rows], np.int64)
    mirror_of = np.array(mirror, np.int64)[pieces]
    images, mirrored = arrays.images, arrays.mirrored
    atoms = np.array(rows, np.int64)
    found = np.empty((len(arrays), len(rows)), np.int64)
    block = max(1, SYMMETRY_BLOCK_ENTRIES // max(cells.size, 1))
    for start in range(0, len(arrays), block):
        end = start + block
        kernel(images[start:end], mirrored[start:end], cells, colours, pieces, mirror_of, atoms, found[start:end])
        deadline.check("mapping placements under the symmetries")
    return found


def load_compiled_images() -> None:
    """Map one placement under one symmetry, so that `cpsolve compile` records the compiled
    kernel's call (cpsolve.native) in the types `_compiled_images` gives it."""
    kernel = native.kernel(native.ATOM_IMAGES)
    one = np.zeros((1, 1), np.int64)
    kernel(one, np.zeros((1, 1), np.bool_), one.copy(), one.copy(), *np.zeros((3, 1), np.int64), one.copy())


def _row_keys(pieces: Any, cells: Any, colours: Any | None, radix: int) -> Any:
    """One key per placement (the last axis of cells and colours: one placement's), equal only
    for equal placements: one integer in mixed radix where `radix` is given (small pieces in
    small targets: fastest), else the row of numbers compared as bytes (big burr pieces)."""
    if radix:
        width = cells.shape[-1]
        weights = radix ** np.arange(width - 1, -1, -1, dtype=np.int64)
        return pieces.astype(np.int64) * radix**width + cells.astype(np.int64) @ weights
    parts = [pieces[..., None], cells] if colours is None else [pieces[..., None], cells, colours]
    rows = np.ascontiguousarray(np.concatenate(parts, axis=-1).astype(cells.dtype))
    return rows.view(np.dtype((np.void, rows.shape[-1] * rows.itemsize)))[..., 0]
