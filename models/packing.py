"""Packing: polycubes and polyominoes that fill a set of cells exactly.

One atom per de-duplicated placement (piece, cells); each target cell is covered by exactly one
placement; each piece is used within its bounds. Copies of a piece share its placements, so they
are never told apart.
"""

from __future__ import annotations

import difflib
import functools
import string
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from math import prod
from typing import TYPE_CHECKING, Any

import numpy as np

from cpsolve.counting import AtomSymmetry, Classifier, Solution, SymmetryGroup
from cpsolve.errors import CpsolveError, ModelTooBigError
from cpsolve.geometry import (
    Cell,
    Colour,
    Shape,
    as_cell,
    bounding_box,
    box_cells,
    coloured_orientations,
    connected_components,
    foam_rows,
    layer_cells,
    normalise,
    orientations,
)
from cpsolve.limits import (
    MAX_BOX_VOLUME,
    MAX_SHAPE_CELLS,
    MAX_SYMMETRY_ENTRIES,
    NO_DEADLINE,
    Deadline,
)
from cpsolve.render import draw_layers
from cpsolve.spec import LoadedSpec, PackingSpec, PieceSpec, ShapeSpec, Source
from cpsolve.symmetry import (
    PieceBounds,
    SymmetryArrays,
    burrtools_mirror_partners,
    mirror_partners,
    target_symmetry_arrays,
)

from .base import BuildOptions, Constraints, ConstraintsBuilder, CoverProblem, ModelBuilder, PuzzleModel

if TYPE_CHECKING:
    from cpsolve.disassembly import AssembledPiece, PieceGroups

Loc = tuple[str | int, ...]
SYMMETRY_BLOCK_ENTRIES = 4_000_000  # array entries per block of symmetries mapped at once
SHIFT_BLOCK = 262_144  # shifts of one orientation tested at once (each shift x cells x 3 integers)
CACHED_SHIFTS = 4_096  # shift arrays up to this size are kept for the next piece of the same size


@dataclass(frozen=True)
class Piece:
    name: str
    cells: Shape
    bounds: PieceBounds
    colours: tuple[Colour, ...] = ()  # one per cell, in the order of `cells`; empty: uncoloured
    disassembly_groups: tuple[tuple[str, int], ...] = ()  # (group, copies it may hold): --disassemble

    @property
    def coloured(self) -> bool:
        return any(colour is not None for colour in self.colours)


@dataclass(frozen=True)
class Placement:
    piece: int
    cells: tuple[Cell, ...]
    colours: tuple[Colour, ...] | None = None  # one per cell for a coloured piece, else None


@dataclass(frozen=True)
class PackingPuzzle:
    """A packing spec with every shape resolved to cells and every cross-field rule checked."""

    name: str
    pieces: tuple[Piece, ...]
    target: tuple[Cell, ...]
    fixed: tuple[tuple[str, tuple[Cell, ...]], ...]
    symmetry: str
    separately: bool
    groups: dict[str, tuple[int, int]]
    optional: frozenset[Cell] = frozenset()  # target cells that may stay empty
    target_colours: Mapping[Cell, str] = field(default_factory=dict)
    colour_rule: frozenset[tuple[str, str]] = frozenset()  # (piece colour, target colour) allowed
    max_holes: int | None = None

    @property
    def coloured(self) -> bool:
        """Colours matter only when the puzzle has some (as in BurrTools)."""
        return bool(self.target_colours) or any(p.coloured for p in self.pieces)

    def colours_fit(self, piece_colour: Colour, target_colour: Colour) -> bool:
        """An uncoloured cell fits anything; two colours fit when the rule lists the pair."""
        return piece_colour is None or target_colour is None or (piece_colour, target_colour) in self.colour_rule

    def cell_label(self, cell: Cell) -> tuple[bool, Colour]:
        """What a symmetry of the target must keep: optional or filled, and the colour."""
        return cell in self.optional, self.target_colours.get(cell)


# -- resolving a spec -------------------------------------------------------------------------


def too_many_cells(count: int, loc: Loc, source: Source) -> ModelTooBigError:
    return ModelTooBigError(source.problem(loc, f"{count:,} cells; cpsolve builds at most {MAX_SHAPE_CELLS:,}"))


def shape_cells(shape: ShapeSpec, loc: Loc, source: Source) -> list[Cell]:
    """The cells a shape spec describes; duplicates and empty shapes are errors. The number of
    cells is checked against MAX_SHAPE_CELLS before they are built."""
    if shape.cells is not None:
        if len(shape.cells) > MAX_SHAPE_CELLS:
            raise too_many_cells(len(shape.cells), (*loc, "cells"), source)
        cells = [as_cell(c) for c in shape.cells]
        duplicates = [c for c, n in Counter(cells).items() if n > 1]
        if duplicates:
            raise source.error((*loc, "cells"), f"cell {list(duplicates[0])} is given twice")
        return cells
    if shape.box is not None:
        if prod(shape.box) > MAX_SHAPE_CELLS:
            raise too_many_cells(prod(shape.box), (*loc, "box"), source)
        return box_cells(shape.box, shape.hollow)
    if shape.tile is not None:
        return layer_cells([shape.tile])
    if shape.ring is not None:
        return layer_cells([foam_rows(shape.ring)])
    layers = [layer.splitlines() if isinstance(layer, str) else layer for layer in shape.layers or []]
    filled = sum(len(row) - row.count(".") - row.count(" ") for layer in layers for row in layer)
    if filled > MAX_SHAPE_CELLS:
        raise too_many_cells(filled, (*loc, "layers"), source)
    cells = layer_cells(layers)
    if not cells:
        raise source.error((*loc, "layers"), "no filled cells ('.' and ' ' are empty)")
    return cells


def resolve(spec: PackingSpec, source: Source, require_fixed_copies: bool = True) -> PackingPuzzle:
    for name, piece in spec.pieces.items():
        if piece.group is not None and piece.group not in spec.groups:
            known = ", ".join(sorted(spec.groups)) or "none defined"
            raise source.error(("pieces", name, "group"), f"group {piece.group!r} is not in groups ({known})")
    for group in spec.groups:
        if not any(piece.group == group for piece in spec.pieces.values()):
            raise source.error(("groups", group), f"no piece belongs to group {group!r}; give pieces `group: {group}`")
    pieces = tuple(_piece(name, piece, source) for name, piece in spec.pieces.items())
    target = shape_cells(spec.target, ("target",), source)
    optional = set(_optional_in_layers(spec.target)) | {as_cell(c) for c in spec.target.optional}
    target_set = set(target) | optional
    target_colours = _colour_map(spec.target.colours, target_set, ("target", "colours"), source)
    fixed = _resolve_fixed(spec, pieces, target_set, source, require_fixed_copies)
    _check_volume(pieces, len(target_set) - len(optional), len(optional), source)
    groups = {name: (g.min, g.max if g.max is not None else 10**9) for name, g in spec.groups.items()}
    return PackingPuzzle(
        name=spec.name,
        pieces=pieces,
        target=tuple(sorted(target_set, key=lambda c: (c[2], c[1], c[0]))),
        fixed=fixed,
        symmetry=spec.symmetry,
        separately=spec.parts == "separately",
        groups=groups,
        optional=frozenset(optional),
        target_colours=target_colours,
        colour_rule=frozenset((piece, target) for piece, target in spec.colour_rule),
        max_holes=spec.max_holes,
    )


def _piece(name: str, piece: PieceSpec, source: Source) -> Piece:
    """A piece's cells moved to start at 0 on every axis, in order, with their colours."""
    cells = shape_cells(piece, ("pieces", name), source)
    colour_of = _colour_map(piece.colours, set(cells), ("pieces", name, "colours"), source)
    low = [min(c[i] for c in cells) for i in range(3)]
    moved = sorted(((c[0] - low[0], c[1] - low[1], c[2] - low[2]), colour_of.get(c)) for c in cells)
    colours = tuple(colour for _, colour in moved) if colour_of else ()
    groups = tuple(sorted(piece.disassembly_groups.items()))
    return Piece(name, tuple(c for c, _ in moved), PieceBounds(*piece.bounds(), piece.group), colours, groups)


def _colour_map(
    given: Mapping[str, Sequence[Sequence[int]]], cells: set[Cell], loc: Loc, source: Source
) -> dict[Cell, str]:
    colour_of: dict[Cell, str] = {}
    for colour, coloured in given.items():
        for index, coordinates in enumerate(coloured):
            cell = as_cell(coordinates)
            if cell not in cells:
                raise source.error((*loc, colour, index), f"cell {list(cell)} is not a cell of this shape")
            if cell in colour_of:
                raise source.error((*loc, colour, index), f"cell {list(cell)} already has colour {colour_of[cell]!r}")
            colour_of[cell] = colour
    return colour_of


def _optional_in_layers(target: ShapeSpec) -> list[Cell]:
    """Cells drawn '+' in a target's layers: they may stay empty."""
    if target.layers is None:
        return []
    layers = [layer.splitlines() if isinstance(layer, str) else layer for layer in target.layers]
    return [
        (x, y, z)
        for z, layer in enumerate(layers)
        for y, row in enumerate(layer)
        for x, char in enumerate(row)
        if char == "+"
    ]


def _resolve_fixed(
    spec: PackingSpec, pieces: Sequence[Piece], target: set[Cell], source: Source, require_copies: bool
) -> tuple[tuple[str, tuple[Cell, ...]], ...]:
    by_name = {p.name: p for p in pieces}
    fixed: list[tuple[str, tuple[Cell, ...]]] = []
    used: set[Cell] = set()
    for name, given in spec.target.fixed.items():
        loc: Loc = ("target", "fixed", name)
        if name not in by_name:
            close = difflib.get_close_matches(name, list(by_name), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else f"; pieces are {', '.join(by_name)}"
            raise source.error(loc, f"no piece named {name!r}{hint}")
        copies = given if given and isinstance(given[0][0], list) else [given]
        if len(copies) > by_name[name].bounds.high:
            raise source.error(
                loc, f"{len(copies)} copies fixed but the piece allows at most {by_name[name].bounds.high}"
            )
        for copy in copies:
            cells = tuple(sorted(as_cell(c) for c in copy))  # type: ignore[arg-type]
            outside = [c for c in cells if c not in target]
            if outside:
                raise source.error(loc, f"cell {list(outside[0])} is outside the target")
            if used & set(cells):
                raise source.error(
                    loc, f"cell {list(sorted(used & set(cells))[0])} is already taken by another fixed piece"
                )
            if require_copies and normalise(cells) not in orientations(by_name[name].cells):
                raise source.error(loc, f"these {len(cells)} cells are not a rotation of piece {name!r}")
            used.update(cells)
            fixed.append((name, cells))
    return tuple(fixed)


def _check_volume(pieces: Sequence[Piece], filled: int, optional: int, source: Source) -> None:
    """The pieces must be able to fill every filled cell without needing more than every cell."""
    least = sum(len(p.cells) * p.bounds.low for p in pieces)
    most = sum(len(p.cells) * p.bounds.high for p in pieces)
    target = f"{filled}" if not optional else f"{filled} to {filled + optional}"
    if least == most and not filled <= least <= filled + optional:
        raise source.error(("pieces",), f"the pieces have {least} cells but the target has {target}")
    if least > filled + optional or most < filled:
        high = "unbounded" if most >= 10**9 else str(most)
        raise source.error(("pieces",), f"the pieces cover {least} to {high} cells but the target has {target}")


# -- placements: small pure functions ------------------------------------------------------------


def occupancy(target: Iterable[Cell]) -> tuple[Any, Cell]:
    """The target as a boolean grid over its bounding box, and the box's low corner."""
    cells = np.array(list(target), dtype=np.int64)
    low = cells.min(axis=0)
    grid = np.zeros(tuple(cells.max(axis=0) - low + 1), dtype=bool)
    grid[tuple((cells - low).T)] = True
    return grid, (int(low[0]), int(low[1]), int(low[2]))


def _shifts(x: int, y: int, z: int) -> Any:
    """All shifts (dx, dy, dz) in a box of that size, z slowest and x fastest."""
    if x * y * z <= CACHED_SHIFTS:
        return _cached_shifts(x, y, z)
    return np.indices((z, y, x)).reshape(3, -1)[::-1].T.copy()


@functools.lru_cache(maxsize=1024)
def _cached_shifts(x: int, y: int, z: int) -> Any:
    """All shifts (dx, dy, dz) in a box of that size, z slowest and x fastest (cached: every
    orientation of every piece of a figure asks for one of a few sizes)."""
    return np.indices((z, y, x)).reshape(3, -1)[::-1].T.copy()


def fitting_shifts(shape: Shape, grid: Any, low: Cell) -> list[tuple[Cell, ...]]:
    """Every shift of a normalised shape that lies inside the target, z slowest and x fastest.

    All shifts are tested at once on the occupancy grid; a shifted sorted shape stays sorted.
    """
    cells = np.array(shape, dtype=np.int64)
    room = np.array(grid.shape) - cells.max(axis=0)
    if (room <= 0).any():
        return []
    x, y, z = (int(size) for size in room)
    layers_at_once = max(1, SHIFT_BLOCK // (x * y))
    found: list[tuple[Cell, ...]] = []
    for first in range(0, z, layers_at_once):
        shifts = _shifts(x, y, min(layers_at_once, z - first))
        if first:
            shifts = shifts + np.array([0, 0, first])
        moved = cells[None, :, :] + shifts[:, None, :]
        fits = grid[moved[..., 0], moved[..., 1], moved[..., 2]].all(axis=1)
        found.extend(tuple(map(tuple, p)) for p in (moved[fits] + np.array(low)).tolist())
    return found


def _all_fitting_shifts(shapes: Sequence[Shape], grid: Any, low: Cell) -> list[list[tuple[Cell, ...]]]:
    """`fitting_shifts` for each of a piece's orientations; all at once where the arrays stay
    small (the yass corpus builds thousands of these: one array operation instead of one per
    orientation), each on its own otherwise."""
    if not shapes:
        return []
    total = len(shapes) * grid.size * len(shapes[0])
    if total > SHIFT_BLOCK or len({len(shape) for shape in shapes}) != 1:
        return [fitting_shifts(shape, grid, low) for shape in shapes]
    cells = np.array(shapes, dtype=np.int64)  # orientations x cells x 3
    reach = cells.max(axis=(0, 1))
    padded = np.zeros(tuple(np.array(grid.shape) + reach), dtype=bool)
    padded[: grid.shape[0], : grid.shape[1], : grid.shape[2]] = grid
    shifts = _shifts(*grid.shape)
    moved = cells[:, None, :, :] + shifts[None, :, None, :]
    fits = padded[moved[..., 0], moved[..., 1], moved[..., 2]].all(axis=2)
    lying, where = np.nonzero(fits)  # by orientation, then in shift order (z slowest, x fastest)
    placed = (moved[lying, where] + np.array(low)).tolist()
    found: list[list[tuple[Cell, ...]]] = [[] for _ in shapes]
    for orientation, cells_of in zip(lying.tolist(), placed, strict=True):
        found[orientation].append(tuple(map(tuple, cells_of)))
    return found


def candidate_count(pieces: Sequence[Piece], box_size: Cell) -> int:
    """How many shifts placement generation will test: checked against the limit first."""
    total = 0
    for piece in pieces:
        for size in _orientation_sizes(piece.cells):
            total += prod(max(0, box_size[i] - size[i] + 1) for i in range(3))
    return total


@functools.lru_cache(maxsize=1024)
def _orientation_sizes(cells: Shape) -> tuple[Cell, ...]:
    """The bounding box of each orientation of a shape (cached: a corpus asks for the same pieces)."""
    return tuple(bounding_box(shape) for shape in orientations(cells))


def placements(puzzle: PackingPuzzle, max_atoms: int, deadline: Deadline = NO_DEADLINE) -> list[Placement]:
    target = set(puzzle.target)
    box_size = bounding_box(target)
    if prod(box_size) > MAX_BOX_VOLUME:
        raise ModelTooBigError(
            f"{puzzle.name}: the target spans a box of {prod(box_size):,} cells"
            f" ({' x '.join(map(str, box_size))}); cpsolve handles at most {MAX_BOX_VOLUME:,}"
        )
    candidates = candidate_count(puzzle.pieces, box_size)
    if candidates > 20 * max_atoms:
        raise ModelTooBigError(
            f"{puzzle.name}: {candidates:,} candidate placements to test (limit {20 * max_atoms:,});"
            " use a smaller target or raise --max-placements"
        )
    grid, low = occupancy(target)
    found: list[Placement] = []
    coloured = puzzle.coloured
    for index, piece in enumerate(puzzle.pieces):
        lying = piece_orientations(piece)
        shifts = _all_fitting_shifts([shape for shape, _ in lying], grid, low)
        for (_, colours), shifted in zip(lying, shifts, strict=True):
            if colours is None:
                found.extend(Placement(index, cells) for cells in shifted)
            else:
                found.extend(Placement(index, cells, colours) for cells in shifted)
            if coloured:
                found = [p for p in found if p.piece != index or _colours_fit(puzzle, p)]
            if len(found) > max_atoms:
                raise ModelTooBigError(
                    f"{puzzle.name}: more than {max_atoms:,} placements (limit --max-placements {max_atoms:,});"
                    " use a smaller target or raise the limit"
                )
        deadline.check("finding placements")
    return found


def piece_orientations(piece: Piece) -> list[tuple[Shape, tuple[Colour, ...] | None]]:
    """Each distinct way a piece can lie, with its cells' colours for a coloured piece."""
    if not piece.coloured:
        return [(shape, None) for shape in orientations(piece.cells)]
    return [
        (tuple(cell for cell, _ in shape), tuple(colour for _, colour in shape))
        for shape in coloured_orientations(piece.cells, piece.colours)
    ]


def _colours_fit(puzzle: PackingPuzzle, placement: Placement) -> bool:
    colours = placement.colours or (None,) * len(placement.cells)
    return all(
        puzzle.colours_fit(colour, puzzle.target_colours.get(cell))
        for cell, colour in zip(placement.cells, colours, strict=True)
    )


def misshapen_fixed(puzzle: PackingPuzzle) -> list[Placement]:
    """Pre-placed cells that are not a copy of their piece, kept as an extra placement.

    Only yass figures get here (specs refuse them): yass fills such cells with the piece's name
    anyway and checks only their number.
    """
    names = [p.name for p in puzzle.pieces]
    return [
        Placement(names.index(name), cells)
        for name, cells in puzzle.fixed
        if normalise(cells) not in orientations(puzzle.pieces[names.index(name)].cells)
    ]


# -- the model -----------------------------------------------------------------------------------


def check_symmetry_size(symmetries: int, atoms: int, name: str) -> None:
    """Refuse before building the maps of every atom under every symmetry, when there are too many."""
    if symmetries * atoms > MAX_SYMMETRY_ENTRIES:
        raise ModelTooBigError(
            f"{name}: {symmetries:,} symmetries of {atoms:,} placements make {symmetries * atoms:,} entries to map;"
            f" cpsolve maps at most {MAX_SYMMETRY_ENTRIES:,} (symmetry: none still maps the rotations)"
        )


@dataclass(frozen=True)
class PlacementKeys:
    """Every placement as one key (piece, its sorted target cell indexes, their colours), so that
    the image of all placements under a symmetry is found with a few array operations instead of
    a sort and a dictionary look-up per placement (the yass corpus spent most of its time there).

    The key is one integer in mixed radix where that fits in 63 bits (small pieces in small
    targets: fastest), else the row of numbers compared as bytes (BurrTools' big burr pieces).
    """

    cells: Any  # placements x longest piece: target cell indexes, sorted, padded with len(target)
    colours: Any | None  # the same shape: colour codes of those cells (0: none); None: uncoloured
    pieces: Any
    radix: int  # 0: keys are byte rows
    sorted_keys: Any
    order: Any

    @staticmethod
    def of(placements: Sequence[Placement], target: Sequence[Cell], colour_code: Mapping[str, int]) -> PlacementKeys:
        width = max((len(p.cells) for p in placements), default=1)
        cell_index = {c: i for i, c in enumerate(target)}
        small = np.int16 if len(target) < 2**15 - 1 else np.int32
        cells = np.full((len(placements), width), len(target), dtype=small)
        colours = np.zeros((len(placements), width), dtype=small) if colour_code else None
        for row, placement in enumerate(placements):
            if colours is None:
                cells[row, : len(placement.cells)] = sorted([cell_index[c] for c in placement.cells])
                continue
            given = placement.colours or (None,) * len(placement.cells)
            pairs = sorted(
                (cell_index[c], colour_code.get(k or "", 0)) for c, k in zip(placement.cells, given, strict=True)
            )
            cells[row, : len(pairs)] = [index for index, _ in pairs]
            colours[row, : len(pairs)] = [code for _, code in pairs]
        pieces = np.array([p.piece for p in placements], dtype=small)
        radix = len(target) + 1
        piece_count = int(pieces.max()) + 1 if len(pieces) else 1
        fits = colours is None and piece_count * radix**width < 2**62
        keys = PlacementKeys._keys(pieces, cells, colours, radix if fits else 0)
        order = np.argsort(keys, kind="stable")
        return PlacementKeys(cells, colours, pieces, radix if fits else 0, keys[order], order)

    def keys_of(self, pieces: Any, cells: Any, colours: Any | None) -> Any:
        return self._keys(pieces, cells, colours, self.radix)

    @staticmethod
    def _keys(pieces: Any, cells: Any, colours: Any | None, radix: int) -> Any:
        """Keys of placements (the last axis of cells and colours: one placement's)."""
        if radix:
            width = cells.shape[-1]
            weights = radix ** np.arange(width - 1, -1, -1, dtype=np.int64)
            return pieces.astype(np.int64) * radix**width + cells.astype(np.int64) @ weights
        parts = [pieces[..., None], cells] if colours is None else [pieces[..., None], cells, colours]
        rows = np.ascontiguousarray(np.concatenate(parts, axis=-1).astype(cells.dtype))
        return rows.view(np.dtype((np.void, rows.shape[-1] * rows.itemsize)))[..., 0]


class PackingModel(PuzzleModel):
    """A packing puzzle's atoms, symmetries and rules, plus what it takes to show solutions."""

    def __init__(self, puzzle: PackingPuzzle, options: BuildOptions, deadline: Deadline = NO_DEADLINE) -> None:
        self.puzzle = puzzle
        self.options = options
        self._cover: CoverProblem | None = None
        misshapen = misshapen_fixed(puzzle)
        self.placements = placements(puzzle, options.max_atoms, deadline) + misshapen
        self.atom_of = {(p.piece, p.cells, p.colours): i for i, p in enumerate(self.placements)}
        super().__init__(name=puzzle.name, kind="packing", atom_count=len(self.placements), group=SymmetryGroup(()))
        self.notes.extend(
            f"pre-placed {puzzle.pieces[p.piece].name!r} does not have that piece's shape; its cells count as used"
            for p in misshapen
        )
        self.fixed_atoms = self._fixed_atoms()
        self.colour_code = {name: n for n, name in enumerate(sorted(_colour_names(puzzle)), 1)}
        self._placement_keys = PlacementKeys.of(self.placements, puzzle.target, self.colour_code)
        self._burrtools_mirrors: list[tuple[int, ...]] = []
        unplaceable = self._unplaceable()
        if unplaceable:
            # no solution, whatever the symmetries: do not build them (a target of many separate
            # parts turned on their own can have millions)
            self.notes.append(f"piece {unplaceable!r} fits nowhere in the target: there is no solution")
            identity = AtomSymmetry(tuple(range(self.atom_count)), proper=True)
            self.group = SymmetryGroup((identity,), unique_counts_raw=puzzle.symmetry == "none")
        else:
            self.group = self._symmetry_group(self.fixed_atoms, deadline)
        self.search_rank = self._search_rank()
        singles = self._single_pieces(self.fixed_atoms)
        self.breaking_candidates = [atoms for _, atoms in singles]
        self.breaking_labels = [f"piece {puzzle.pieces[index].name}" for index, _ in singles]
        self.symbols = _symbols(puzzle.pieces)
        self._constraints: Constraints | None = None

    def _fixed_atoms(self) -> list[int]:
        """The placement of each pre-placed piece; with colours, the one colouring its cells allow."""
        if not self.puzzle.fixed:
            return []
        piece_index = {p.name: i for i, p in enumerate(self.puzzle.pieces)}
        by_cells: dict[tuple[int, tuple[Cell, ...]], list[int]] = {}
        for atom, placement in enumerate(self.placements):
            by_cells.setdefault((placement.piece, placement.cells), []).append(atom)
        atoms = []
        for name, cells in self.puzzle.fixed:
            found = by_cells.get((piece_index[name], cells), [])
            if len(found) != 1:
                why = "the colours do not fit the target there" if not found else "its colours fit in several ways"
                raise CpsolveError(f"{self.name}: pre-placed piece {name!r}: {why}")
            atoms.extend(found)
        return atoms

    def _unplaceable(self) -> str | None:
        """The first piece that must be used but has no placement at all, if any."""
        placed = {p.piece for p in self.placements}
        return next(
            (p.name for i, p in enumerate(self.puzzle.pieces) if p.bounds.low > 0 and i not in placed),
            None,
        )

    def constraints(self) -> Constraints:
        """Each target cell covered once, each piece within its bounds, groups within theirs."""
        if self._constraints is None:
            self._constraints = self._build_constraints()
        return self._constraints

    def _build_constraints(self) -> Constraints:
        puzzle = self.puzzle
        builder = ConstraintsBuilder(self.atom_count, self.options.max_terms)
        # each atom in the exactly-one of each of its cells, of its piece, and of its group
        builder.expect(sum(len(p.cells) + 2 for p in self.placements))
        by_piece: list[list[int]] = [[] for _ in puzzle.pieces]
        by_cell: dict[Cell, list[int]] = {c: [] for c in puzzle.target}
        for atom, placement in enumerate(self.placements):
            by_piece[placement.piece].append(atom)
            for cell in placement.cells:
                by_cell[cell].append(atom)
        for cell, cell_atoms in by_cell.items():
            if cell in puzzle.optional:
                builder.at_most_one(cell_atoms)
            else:
                builder.exactly_one(cell_atoms)
        if puzzle.max_holes is not None and puzzle.optional:
            covering = [(atom, sum(c in puzzle.optional for c in p.cells)) for atom, p in enumerate(self.placements)]
            weighted = [(atom, weight) for atom, weight in covering if weight]
            least = len(puzzle.optional) - puzzle.max_holes
            atoms, weights = (a for a, _ in weighted), (w for _, w in weighted)
            builder.weighted_sum_between(atoms, weights, least, len(puzzle.optional))
        for piece, piece_atoms in zip(puzzle.pieces, by_piece, strict=True):
            low, high = piece.bounds.low, min(piece.bounds.high, len(puzzle.target) // len(piece.cells))
            if low == high == 1:
                builder.exactly_one(piece_atoms)
            else:
                builder.sum_between(piece_atoms, low, high)
        for name, (low, high) in puzzle.groups.items():
            members = [
                a
                for piece, piece_atoms in zip(puzzle.pieces, by_piece, strict=True)
                if piece.bounds.group == name
                for a in piece_atoms
            ]
            builder.sum_between(members, low, min(high, len(members)))
        for atom in self.fixed_atoms:
            builder.clause((atom,))
        return builder.build(sorted(range(self.atom_count), key=self.search_rank.__getitem__))

    def _symmetry_group(self, fixed_atoms: list[int], deadline: Deadline) -> SymmetryGroup:
        puzzle = self.puzzle
        shapes = {p.name: p.cells for p in puzzle.pieces}
        bounds = {p.name: p.bounds for p in puzzle.pieces}
        colours = {p.name: p.colours or (None,) * len(p.cells) for p in puzzle.pieces} if puzzle.coloured else None
        partners = mirror_partners(shapes, bounds, colours) if puzzle.symmetry == "all" else None
        if puzzle.symmetry == "all" and partners is None:
            self.notes.append("reflections are not symmetries here: a mirror image would need pieces the puzzle lacks")
        names = [p.name for p in puzzle.pieces]
        mirror = [names.index(partners[n]) for n in names] if partners else list(range(len(names)))
        labels = {c: puzzle.cell_label(c) for c in puzzle.target} if puzzle.optional or puzzle.target_colours else None
        arrays = target_symmetry_arrays(
            puzzle.target, reflections=partners is not None, separately=puzzle.separately, labels=labels
        )
        check_symmetry_size(len(arrays), self.atom_count, puzzle.name)
        elements = []
        fixed = set(fixed_atoms)
        for atom_map, proper in zip(self._atom_maps(arrays, mirror, deadline), arrays.proper.tolist(), strict=True):
            if atom_map is not None and {atom_map[a] for a in fixed} == fixed:
                elements.append(AtomSymmetry(atom_map, proper))
        several_parts = puzzle.separately and len(connected_components(puzzle.target)) > 1
        is_valid = self._is_valid if several_parts and partners is not None else None
        if puzzle.symmetry == "all" and partners is None:
            self._burrtools_mirrors = self._burrtools_mirror_maps(shapes, colours, labels)
        return SymmetryGroup(tuple(elements), unique_counts_raw=puzzle.symmetry == "none", is_valid=is_valid)

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
        loose = burrtools_mirror_partners(shapes, colours)
        ranges = any(p.bounds.low != p.bounds.high for p in puzzle.pieces)
        if not ranges and any(partner is None for partner in loose.values()):
            return []
        names = [p.name for p in puzzle.pieces]
        mirror = [-1 if loose[n] is None else names.index(loose[n] or "") for n in names]
        arrays = target_symmetry_arrays(puzzle.target, reflections=True, separately=False, labels=labels)
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

    def extra_counts(self, classifier: Classifier) -> dict[str, int]:
        """`burrtools_unique`: the unique count by BurrTools' mirror rule, where it differs from
        cpsolve's (README, "BurrTools files"): two classes are one when a mirror image of one, with
        each piece swapped for its partner, is a solution in the other, bounds permitting."""
        mirrors = self._burrtools_mirrors
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
                if image[0] < 0 or not self._is_valid(image):
                    continue
                other = classifier.class_index(image)
                if other is not None:
                    parent[root(number)] = root(other)
        return {"burrtools_unique": len({root(n) for n in range(len(parent))})}

    def _atom_maps(
        self, arrays: SymmetryArrays, mirror: Sequence[int], deadline: Deadline
    ) -> list[tuple[int, ...] | None]:
        """The atom each placement becomes under each symmetry; None for a symmetry that leaves a
        placement without an image (a misshapen pre-placed piece). Whole blocks of symmetries at
        once: the image cells sorted (their colours moved along), the piece swapped for its mirror
        partner where the cells' part is reflected, and the resulting rows looked up."""
        keys = self._placement_keys
        if not self.placements:
            return [()] * len(arrays)
        outside = len(self.puzzle.target)  # the padding index maps to itself
        images = np.pad(arrays.images, ((0, 0), (0, 1)), constant_values=outside).astype(keys.cells.dtype)
        mirrored = np.pad(arrays.mirrored, ((0, 0), (0, 1)), constant_values=False)
        mirror_of = np.asarray(mirror, dtype=keys.pieces.dtype)[keys.pieces]
        block = max(1, SYMMETRY_BLOCK_ENTRIES // keys.cells.size)
        maps: list[tuple[int, ...] | None] = []
        for start in range(0, len(arrays), block):
            moved = images[start : start + block][:, keys.cells]
            colours = None
            if keys.colours is None:
                moved.sort(axis=2)
            else:
                order = np.argsort(moved, axis=2, kind="stable")
                moved = np.take_along_axis(moved, order, axis=2)
                colours = np.take_along_axis(np.broadcast_to(keys.colours, moved.shape), order, axis=2)
            pieces = np.where(mirrored[start : start + block][:, keys.cells[:, 0]], mirror_of, keys.pieces)
            codes = keys.keys_of(pieces, moved, colours)
            position = np.minimum(np.searchsorted(keys.sorted_keys, codes), len(keys.sorted_keys) - 1)
            found = (keys.sorted_keys[position] == codes).all(axis=1)  # a row each symmetry
            for atom_map, ok in zip(keys.order[position].tolist(), found.tolist(), strict=True):
                maps.append(tuple(atom_map) if ok else None)
            deadline.check("mapping placements under the symmetries")
        return maps

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

    def _is_valid(self, solution: Solution) -> bool:
        """Does this image use an allowed piece set? Needed when parts are mirrored on their own."""
        used = Counter(self.placements[a].piece for a in solution)
        pieces = self.puzzle.pieces
        if any(not p.bounds.low <= used[i] <= p.bounds.high for i, p in enumerate(pieces)):
            return False
        for name, (low, high) in self.puzzle.groups.items():
            if not low <= sum(used[i] for i, p in enumerate(pieces) if p.bounds.group == name) <= high:
                return False
        return True

    def cover_problem(self) -> CoverProblem:
        """The packing as exact cover: target cells (the optional ones may stay empty), placements,
        piece and group bounds. Pieces all of whose copies are pre-placed have no other placement.
        Built on the first call."""
        if self._cover is None:
            self._cover = self._cover_problem()
        return self._cover

    def _cover_problem(self) -> CoverProblem:
        puzzle, pieces = self.puzzle, self.puzzle.pieces
        keys = self._placement_keys
        atom_cells = np.where(keys.cells == len(self.puzzle.target), -1, keys.cells).astype(np.int64)
        atom_piece = keys.pieces.astype(np.int64)
        fixed_count = Counter(self.placements[a].piece for a in self.fixed_atoms)
        fixed = set(self.fixed_atoms)
        excluded = frozenset(
            a
            for a, p in enumerate(self.placements)
            if a not in fixed and fixed_count[p.piece] >= pieces[p.piece].bounds.high
        )
        most = [min(p.bounds.high, len(puzzle.target) // len(p.cells)) for p in pieces]
        group_names = sorted(puzzle.groups)
        group_of = {name: number for number, name in enumerate(group_names)}
        group_bounds = []
        for name in group_names:
            low, high = puzzle.groups[name]
            members = sum(m for m, p in zip(most, pieces, strict=True) if p.bounds.group == name)
            group_bounds.append((low, min(high, members)))
        index = {c: i for i, c in enumerate(puzzle.target)}
        return CoverProblem(
            cells=len(puzzle.target),
            fill_order=fill_order(puzzle.target),
            atom_cells=atom_cells,
            atom_piece=atom_piece,
            piece_bounds=tuple((p.bounds.low, m) for p, m in zip(pieces, most, strict=True)),
            forced=tuple(self.fixed_atoms),
            excluded=excluded,
            optional=frozenset(index[c] for c in puzzle.optional),
            max_holes=puzzle.max_holes,
            piece_group=tuple(group_of[p.bounds.group] if p.bounds.group else -1 for p in pieces)
            if group_names
            else (),
            group_bounds=tuple(group_bounds),
            positions=tuple(puzzle.target),
        )

    def _single_pieces(self, fixed_atoms: list[int]) -> list[tuple[int, list[int]]]:
        """Each piece used exactly once and not pre-placed, with its placements in search order."""
        fixed_pieces = {self.placements[a].piece for a in fixed_atoms}
        by_rank = sorted(range(self.atom_count), key=self.search_rank.__getitem__)
        of_piece: dict[int, list[int]] = {}
        for atom in by_rank:
            of_piece.setdefault(self.placements[atom].piece, []).append(atom)
        return [
            (index, of_piece.get(index, []))
            for index, piece in enumerate(self.puzzle.pieces)
            if piece.bounds.low == piece.bounds.high == 1 and index not in fixed_pieces
        ]

    def _search_rank(self) -> list[tuple[int, int]]:
        """Placements by their first target cell: branching then fills the target in order."""
        first_cell = self._placement_keys.cells[:, 0].tolist()  # each row's cells are sorted
        return [(cell, atom) for atom, cell in enumerate(first_cell)]

    def pieces_of(self, solution: Solution) -> dict[str, list[list[list[int]]]]:
        out: dict[str, list[list[list[int]]]] = {p.name: [] for p in self.puzzle.pieces}
        for atom in solution:
            placement = self.placements[atom]
            out[self.puzzle.pieces[placement.piece].name].append([list(c) for c in placement.cells])
        return {name: copies for name, copies in out.items() if copies}

    def describe(self, solution: Solution) -> dict[str, Any]:
        return {"pieces": self.pieces_of(solution)}

    def render(self, solution: Solution) -> str:
        return draw_layers(self.puzzle.target, self._symbol_of_cell(solution), self.legend())

    def _symbol_of_atom(self, solution: Solution) -> dict[int, str]:
        """Each placed piece's letter in the drawing: copies lettered in the order of their lowest cell."""
        symbol_of: dict[int, str] = {}
        copies_seen: Counter[int] = Counter()
        for atom in sorted(solution, key=lambda a: min(self.placements[a].cells)):
            piece = self.placements[atom].piece
            symbols = self.symbols[piece]
            symbol_of[atom] = symbols[copies_seen[piece] % len(symbols)]
            copies_seen[piece] += 1
        return symbol_of

    def _symbol_of_cell(self, solution: Solution) -> dict[Cell, str]:
        symbol_of: dict[Cell, str] = {}
        for atom, symbol in self._symbol_of_atom(solution).items():
            for cell in self.placements[atom].cells:
                symbol_of[cell] = symbol
        for cell in self.puzzle.optional - symbol_of.keys():
            symbol_of[cell] = "_"  # an optional cell left empty
        return symbol_of

    def assembled(self, solution: Solution) -> list[AssembledPiece]:
        """The solution's pieces for the disassembler, in the spec's piece order (the order moves
        are tried in), each named by its letter in the drawing."""
        from cpsolve.disassembly import AssembledPiece  # only --disassemble needs it

        symbol_of = self._symbol_of_atom(solution)
        atoms = sorted(solution, key=lambda a: (self.placements[a].piece, min(self.placements[a].cells)))
        names = [self.puzzle.pieces[self.placements[atom].piece].name for atom in atoms]
        labels = [symbol_of[atom] for atom in atoms]
        if len(set(labels)) < len(labels):  # more pieces than letters: the piece names, copies numbered
            copies = Counter(names)
            seen: Counter[str] = Counter()
            labels = []
            for name in names:
                seen[name] += 1
                labels.append(name if copies[name] == 1 else f"{name}.{seen[name]}")
        return [
            AssembledPiece(label, name, self.placements[atom].cells)
            for label, name, atom in zip(labels, names, atoms, strict=True)
        ]

    def piece_groups(self) -> PieceGroups:
        """The spec's `disassembly_groups`, for the disassembler."""
        from cpsolve.disassembly import PieceGroups

        pieces = self.puzzle.pieces
        return PieceGroups({(group, p.name): copies for p in pieces for group, copies in p.disassembly_groups})

    def legend(self) -> str:
        """Names the symbols where they are not simply the piece's one-letter name."""
        parts = [
            f"{piece.name}={''.join(symbols)}"
            for piece, symbols in zip(self.puzzle.pieces, self.symbols, strict=True)
            if symbols != [piece.name]
        ]
        return "legend: " + ", ".join(parts) if parts else ""


def _colour_names(puzzle: PackingPuzzle) -> set[str]:
    return {k for p in puzzle.pieces for k in p.colours if k} | set(puzzle.target_colours.values())


def fill_order(target: Sequence[Cell]) -> tuple[int, ...]:
    """The target's cells (indexes) in the order a search fills them: along the shortest side of
    the bounding box first, then the next, the longest last. Measured on pentominoes 6x10 with
    the exact-cover search: filling along the short side first takes far fewer placements than
    along the long side (README)."""
    size = bounding_box(target)
    axes = sorted(range(3), key=lambda axis: (-size[axis], -axis))  # slowest first; ties: z, y, x
    return tuple(sorted(range(len(target)), key=lambda i: tuple(target[i][axis] for axis in axes)))


def _symbols(pieces: Sequence[Piece]) -> list[list[str]]:
    """One character per piece (its name when that is one character), more for several copies.

    Copies get distinct characters so that the drawing shows where each one lies.
    """
    pool = [c for c in string.ascii_uppercase + string.ascii_lowercase + string.digits + "@%&+=*?!$<>^~"]
    taken = {p.name for p in pieces if len(p.name) == 1 and p.bounds.high == 1}
    free = iter([c for c in pool if c not in taken])
    symbols = []
    for piece in pieces:
        if piece.name in taken:
            symbols.append([piece.name])
        else:
            copies = min(piece.bounds.high, 64)
            symbols.append([next(free, "#") for _ in range(max(copies, 1))])
    return symbols


class PackingBuilder(ModelBuilder):
    kind = "packing"

    def build(self, loaded: LoadedSpec, options: BuildOptions, deadline: Deadline = NO_DEADLINE) -> PuzzleModel:
        assert isinstance(loaded.spec, PackingSpec)
        puzzle = resolve(loaded.spec, loaded.source, options.require_fixed_copies)
        return PackingModel(puzzle, options, deadline)
