"""Where each piece can go: every de-duplicated placement (piece, cells, colours) in the target,
found with whole arrays of shifts at once and kept as arrays (piece, sorted cell indexes, colour
codes), from which the searches' atoms and the symmetries' atom maps are made. A placement as
cells (`Placement`) is made only when asked for (`PlacementList`): a 9x9x9 design of 76,000
placements spent 0.21 s of its 0.48 s model making them into tuples and 0.22 s more making the
tuples back into arrays. On cubes, where a build of the compiled kernels is loaded (`cpsolve
compile`), a compiled pass finds them instead (cpsolve/grids/fitting_kernel.py: the same arrays,
that design's model 0.094-0.10 s -> 0.054-0.057 s in fresh processes); without one, or on the
other grids, the array operations here.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from math import prod
from typing import Any, overload

import numpy as np

from cpsolve import native
from cpsolve.arrays import ENTRY_BYTES, BoundedCache, cells_digest, read_only
from cpsolve.errors import ModelTooBigError
from cpsolve.geometry import (
    Cell,
    Colour,
    Shape,
    bounding_box,
    cell_array,
    coloured_orientation_ranks,
    orientation_sizes,
)
from cpsolve.grids import CUBE, Grid
from cpsolve.limits import (
    KEPT_PLACEMENT_BYTES,
    MAX_BOX_VOLUME,
    MAX_PLACEMENT_CELLS,
    NO_DEADLINE,
    Deadline,
)
from cpsolve.symmetry import PieceBounds

from .puzzle import PackingPuzzle, Piece, Placement

_ByColour = tuple[Any, dict[Colour, int]]  # where a cell of each colour may lie (kind x place), each colour's kind
SHIFT_BLOCK = 262_144  # box places looked up at once for one orientation (shifts x cells)
# on a grid other than cubes, one room's look-ups in `_fitting_by_room` cost about as much as
# looking up this many places at once (2026-12-05, rhombic pieces: ~0.1 ms a room, ~10 ns a
# place; DiagonalCube's 46-52k places in 12-24 rooms 0.6 ms at once, 1.7-2.7 by room; the
# stellations' 190-390k in 6-12 rooms 1.8-3.5 ms at once, 1.6-2.2 by room)
ROOM_PLACES = 10_000
CACHED_SHIFTS = 4_096  # shift arrays up to this size are kept for the next piece of the same size
_Found = tuple[Any, Any | None]  # a piece's placements as a block keeps them: cells, colours (read-only)


def _found_bytes(found: _Found) -> int:
    cells, colours = found
    return int(cells.nbytes) + (0 if colours is None else int(colours.nbytes))


def placement_store() -> BoundedCache[Hashable, _Found]:
    """An empty store of pieces' placements in their targets, bounded by their bytes."""
    return BoundedCache(KEPT_PLACEMENT_BYTES, _found_bytes, ENTRY_BYTES)


# Each piece's placements in a target, kept by a warm process (the studio, a batch, the design
# search) by content: a designer who changes one piece has only that piece's placements found again.
KEPT_PLACEMENTS = placement_store()


@dataclass(frozen=True)
class _Box:
    """The target in a box: each place's target cell index (-1: not the target), flat in C order,
    so that a shape at every shift is one look-up of flat places (shift + offset of each cell) and
    gives the placements' target cells at once. On another grid than cubes the box starts at a
    lattice point two periods below the target's block (two, so that blocks that alternate keep
    their parity), so that every allowed translation of a normalised shape (cells at or above 0)
    is a shift of at least 0."""

    index: Any  # int32, one per place
    size: tuple[int, int, int]
    strides: Any  # int64 (3,): a cell's place is cell @ strides

    @staticmethod
    def of(target: Sequence[Cell], lattice_of: Grid = CUBE) -> _Box:
        cells = np.array(target, dtype=np.int64).reshape(-1, 3)
        low = cells.min(axis=0)
        if lattice_of is not CUBE:
            low = lattice_of.lattice_shift(cells) - 2 * np.array(lattice_of.period)
        x, y, z = (int(side) for side in cells.max(axis=0) - low + 1)
        strides = np.array([y * z, z, 1], np.int64)
        index = np.full(x * y * z, -1, np.int32)
        index[(cells - low) @ strides] = np.arange(len(cells), dtype=np.int32)
        return _Box(index, (x, y, z), strides)


def _shifts(x: int, y: int, z: int) -> Any:
    """All shifts (dx, dy, dz) in a box of that size, z slowest and x fastest."""
    if x * y * z <= CACHED_SHIFTS:
        return _cached_shifts(x, y, z)
    return np.indices((z, y, x)).reshape(3, -1)[::-1].T.copy()


@functools.lru_cache(maxsize=64)  # at most 64 arrays of at most 4,096 shifts: 6 MB
def _cached_shifts(x: int, y: int, z: int) -> Any:
    """All shifts (dx, dy, dz) in a box of that size, z slowest and x fastest (cached: every
    orientation of every piece of a figure asks for one of a few sizes)."""
    return np.indices((z, y, x)).reshape(3, -1)[::-1].T.copy()


def _fitting_by_room(
    shapes: Any,
    box: _Box,
    allowed: Any | None = None,
    codes: Any | None = None,
    lattice: Grid = CUBE,
    reach: Any | None = None,
) -> tuple[Any, Any]:
    """The placements of each orientation (an array: orientations x cells x 3: the target cell
    indexes of every shift of it that lies inside the target, z slowest and x fastest, on a grid
    other than cubes only the shifts its lattice allows), one after the other, and the
    orientation of each placement: the orientations that have the same room in the box (most of
    a piece's) are tried together, on the same shifts (one call per orientation:
    a coloured 9x9x9 design's 720 took 5 ms more of its 0.09 s model; PiecesOfEight's 192 on the
    rhombic lattice a fifth of its model). `codes`: each orientation's cells' colour codes, with
    `allowed` (on cubes); `reach`: each orientation's highest cell on each axis, where known."""
    count, length = shapes.shape[0], shapes.shape[1]
    reach = shapes.max(axis=1) if reach is None else reach
    rooms = np.maximum(0, np.array(box.size, np.int64) - reach).tolist()
    offsets = shapes @ box.strides  # orientations x cells
    by_room: dict[tuple[int, int, int], list[int]] = {}
    for number, (x, y, z) in enumerate(rooms):
        if x and y and z:
            by_room.setdefault((x, y, z), []).append(number)
    found: list[list[Any]] = [[] for _ in range(count)]
    for room, members in by_room.items():
        together = offsets[members][:, None, :]  # members x 1 x cells
        colour_codes = None if codes is None else codes[members][:, None, :]
        for starts in _room_shifts(room, box, lattice, max(1, SHIFT_BLOCK // (length * len(members)))):
            places = starts[None, :, None] + together
            indexes = box.index[places]
            inside = indexes >= 0 if allowed is None else allowed[colour_codes, places]
            fits = inside.all(axis=2)
            for row, number in enumerate(members):
                found[number].append(indexes[row][fits[row]])
    empty = np.zeros((0, length), np.int32)
    return _one_after_another([np.concatenate(placed) if placed else empty for placed in found])


def _room_shifts(room: tuple[int, int, int], box: _Box, lattice: Grid, most: int) -> Iterator[Any]:
    """The places of every shift within `room`, z slowest and x fastest, in blocks of about `most`:
    on cubes `_starts`' layers, on another grid the lattice's shifts."""
    if lattice is CUBE:
        yield from _starts(room, box, most)
        return
    shifts = _lattice_shift_array(room, lattice) @ box.strides
    for first in range(0, len(shifts), most):
        yield shifts[first : first + most]


def _starts(room: tuple[int, int, int], box: _Box, most: int) -> Iterator[Any]:
    """The places of the shifts to try on cubes, z slowest and x fastest, in blocks of whole
    layers of about `most`, so that no more than that are made at once."""
    x, y, z = room
    layers_at_once = max(1, most // (x * y))
    for first in range(0, z, layers_at_once):
        yield _shifts(x, y, min(layers_at_once, z - first)) @ box.strides + first * int(box.strides[2])


@functools.lru_cache(maxsize=64)
def _lattice_shift_array(room: Cell, lattice: Grid) -> Any:
    """The lattice's shifts below `room`, z slowest and x fastest (cached: a piece's orientations
    ask for a few sizes)."""
    x, y, z = (np.arange(0, size, step) for size, step in zip(room, lattice.period, strict=True))
    laid_out = np.empty((len(z), len(y), len(x), 3), np.int64)  # z slowest, x fastest
    laid_out[..., 0], laid_out[..., 1], laid_out[..., 2] = x, y[:, None], z[:, None, None]
    shifts = laid_out.reshape(-1, 3)
    return shifts[lattice.in_lattice(shifts)]


def _all_fitting_placements(shapes: Any, box: _Box, lattice_of: Grid = CUBE) -> tuple[Any, Any]:
    """The placements of each of a piece's orientations (all of one size; `_fitting_by_room`),
    one after the other, and the orientation of each placement; all at once where the arrays stay
    small (the yass corpus builds thousands of these, a non-cube grid's design dozens with many
    rooms each: one array operation instead of one per orientation or room)."""
    cells = np.asarray(shapes, np.int64).reshape(len(shapes), -1, 3)  # orientations x cells x 3
    if lattice_of is CUBE:
        if len(cells) * box.index.size * cells.shape[1] > SHIFT_BLOCK:
            return _fitting_by_room(cells, box)
        return _fitting_at_once(cells, box, _shifts(*box.size), cells.max(axis=(0, 1)))
    shifts = _lattice_shift_array(box.size, lattice_of)
    reach = cells.max(axis=1)  # once for both ways (24 rhombic sticks: 60-120 us here)
    rooms = len(set(map(tuple, reach.tolist())))  # (np.unique's axis: 0.4 ms)
    if len(cells) * len(shifts) * cells.shape[1] > min(SHIFT_BLOCK, ROOM_PLACES * rooms):
        return _fitting_by_room(cells, box, lattice=lattice_of, reach=reach)
    return _fitting_at_once(cells, box, shifts, reach.max(axis=0))


def _fitting_at_once(cells: Any, box: _Box, shifts: Any, highest: Any) -> tuple[Any, Any]:
    """Every orientation (orientations x cells x 3, cells at or above 0) at every shift (z
    slowest, x fastest) in one look-up, on a box widened by the shapes' reach so that every
    shift's places lie in it; the placements by orientation, then in shift order, as
    `_fitting_by_room` gives them. `highest`: the shapes' highest cell on each axis."""
    wide = tuple(int(side) for side in np.array(box.size) + highest)
    index = np.full(wide, -1, np.int32)
    index[: box.size[0], : box.size[1], : box.size[2]] = box.index.reshape(box.size)
    strides = np.array([wide[1] * wide[2], wide[2], 1], np.int64)
    indexes = index.reshape(-1)[(shifts @ strides)[None, :, None] + (cells @ strides)[:, None, :]]
    lying, where = np.nonzero((indexes >= 0).all(axis=2))  # by orientation, then in shift order
    return indexes[lying, where], lying


def _one_after_another(found: Sequence[Any]) -> tuple[Any, Any]:
    """Each orientation's placements (placements x cells) one after the other, and the
    orientation of each."""
    return np.concatenate(found), np.repeat(np.arange(len(found)), [len(placed) for placed in found])


def candidate_count(pieces: Sequence[Piece], box_size: Cell, grid: Grid = CUBE) -> int:
    """How many shifts placement generation will test: checked against the limit first."""
    total = 0
    for piece in pieces:
        sizes = orientation_sizes(piece.cells) if grid is CUBE else _grid_orientation_sizes(piece.cells, grid)
        for size in sizes:
            total += prod(-(-max(0, box_size[i] - size[i] + 1) // grid.period[i]) for i in range(3))
    return total


def _grid_orientation_sizes(cells: Shape, grid: Grid) -> list[Cell]:
    shapes = grid.orientation_array(cells)
    sizes = (shapes.max(axis=1) - shapes.min(axis=1) + 1).tolist() if len(shapes) else []
    return [(int(x), int(y), int(z)) for x, y, z in sizes]


def placement_arrays(
    puzzle: PackingPuzzle,
    colour_code: Mapping[str, int],
    max_atoms: int,
    deadline: Deadline = NO_DEADLINE,
    extra: Sequence[Placement] = (),
    kept: BoundedCache[Hashable, _Found] | None = None,
) -> PlacementArrays:
    """Every placement of every piece, in piece order, then orientation order, then shift order
    (z slowest, x fastest), as arrays (`colour_code` numbers the colours from 1); then `extra`.
    Each piece's are taken from `kept` (by default what the process keeps: `KEPT_PLACEMENTS`)
    where the same piece was placed in the same target before."""
    kept = KEPT_PLACEMENTS if kept is None else kept
    target = set(puzzle.target)
    box_size = bounding_box(target)
    if prod(box_size) > MAX_BOX_VOLUME:
        raise ModelTooBigError(
            f"{puzzle.name}: the target spans a box of {prod(box_size):,} cells"
            f" ({' x '.join(map(str, box_size))}); cpsolve handles at most {MAX_BOX_VOLUME:,}"
        )
    tested = [candidate_count([piece], box_size, puzzle.grid) for piece in puzzle.pieces]
    for piece, shifts in zip(puzzle.pieces, tested, strict=True):
        if shifts * len(piece.cells) > MAX_PLACEMENT_CELLS:  # testing them holds their cells (shipped: 200,640)
            raise _too_many_cells(puzzle, shifts, len(piece.cells))
    candidates = sum(tested)
    if candidates > 20 * max_atoms:
        raise ModelTooBigError(
            f"{puzzle.name}: {candidates:,} candidate placements to test (limit {20 * max_atoms:,});"
            " use a smaller target or raise --max-placements"
        )
    finder = _Finder(puzzle, colour_code)
    blocks: list[_Block] = []
    found = cells_found = 0
    for index, piece in enumerate(puzzle.pieces):
        room = (MAX_PLACEMENT_CELLS - cells_found) // max(1, len(piece.cells))  # what the result may hold
        block = finder.block(index, piece, min(max_atoms - found, room), kept)
        if block is None:
            raise _too_many(puzzle, max_atoms) if room >= max_atoms - found else _too_many_cells(puzzle)
        blocks.append(block)
        found += len(block.cells)
        cells_found += block.cells.size
        if found > max_atoms:
            raise _too_many(puzzle, max_atoms)
        if cells_found > MAX_PLACEMENT_CELLS:
            raise _too_many_cells(puzzle)
        deadline.check("finding placements")
    blocks.extend(_given_blocks(extra, puzzle.target, colour_code))
    return PlacementArrays.joined(blocks, len(puzzle.target), coloured=bool(colour_code))


class _Finder:
    """Finds one piece's placements at a time for `placement_arrays`, or takes them from what the
    process kept: the target's box, where each colour may lie and the compiled finder are made
    only when a piece has to be placed anew (a designer's next try with one piece changed places
    that piece alone)."""

    def __init__(self, puzzle: PackingPuzzle, colour_code: Mapping[str, int]) -> None:
        self.puzzle = puzzle
        self.colour_code = colour_code

    @functools.cached_property
    def target_key(self) -> Hashable:
        """What a piece's placements depend on besides the piece: the target's cells in order and
        their colours, the colour rule, the grid."""
        puzzle = self.puzzle
        colours = list(map(puzzle.target_colours.get, puzzle.target)) if puzzle.target_colours else None
        rule = cells_digest((), [tuple(sorted(puzzle.colour_rule))])  # its pairs digested as one label
        return (cells_digest(puzzle.target, colours), rule, puzzle.grid)

    @functools.cached_property
    def box(self) -> _Box:
        return _Box.of(self.puzzle.target, self.puzzle.grid)

    @functools.cached_property
    def by_colour(self) -> _ByColour | None:
        puzzle = self.puzzle
        return _allowed(puzzle, self.box) if puzzle.coloured and puzzle.grid is CUBE else None

    @functools.cached_property
    def compiled(self) -> _CompiledFitting | None:
        return _CompiledFitting.of(self.puzzle, self.box, self.by_colour, self.colour_code)

    def key(self, piece: Piece) -> Hashable:
        """The piece's cells in order, each with its colour and the code it is written with
        (numbered over the whole puzzle), in the target's key."""
        code = self.colour_code.get
        labels = [(name, code(name, 0) if name else 0) for name in piece.colours] if piece.coloured else None
        return (self.target_key, cells_digest(piece.cells, labels))

    def block(self, number: int, piece: Piece, most: int, kept: BoundedCache[Hashable, _Found]) -> _Block | None:
        """Piece `number`'s placements; None when there are more than `most` (the limits)."""
        key = self.key(piece)
        found = kept.get(key)
        if found is not None:
            return _Block(number, *found)
        block = self._placed(number, piece, most)
        if block is not None:
            block = _Block(number, _own(block.cells), None if block.colours is None else _own(block.colours))
            kept.put(key, (block.cells, block.colours))
        return block

    def _placed(self, number: int, piece: Piece, most: int) -> _Block | None:
        compiled = self.compiled
        if compiled is not None and compiled.takes(piece):
            return compiled.block(number, piece, most)
        indexes, _, codes = _piece_placements(self.puzzle, piece, self.box, self.by_colour, self.colour_code)
        return _Block.of(number, indexes, codes)


def _own(array: Any) -> Any:
    """The array read-only, in memory of its own: the compiled finder's are views of arrays sized
    for every shift it tried, which a cache keeping the view would keep whole."""
    owned = array.copy() if array.base is not None else array
    read_only(owned)
    return owned


@dataclass(frozen=True)
class _CompiledFitting:
    """Placements found by the compiled kernel (cpsolve/grids/fitting_kernel.py), on the cube grid
    where a build of the kernels is loaded; the same blocks as `_piece_placements` and
    `_Block.of`, a quarter of the time on 9x9x9 designs."""

    fitting: Any
    box: _Box
    size: Any  # int64 (3,)
    allowed: Any  # bool, kind x place: where a cell of each kind may lie (kind 0: uncoloured)
    kind_of: Mapping[Colour, int]  # each colour's row of `allowed`
    colour_code: Mapping[str, int]
    grid: Grid
    lattice: Any  # int64 (6,): the grid's period, then its parity axes (fitting_kernel.fitting)

    @staticmethod
    def of(
        puzzle: PackingPuzzle, box: _Box, by_colour: _ByColour | None, colour_code: Mapping[str, int]
    ) -> _CompiledFitting | None:
        """The compiled finder where a build is loaded: on every grid for pieces without colours
        (HexSticks' rhombic placements 4-5 ms by the array operations), on cubes for coloured ones."""
        fitting = native.built_kernel(native.FITTING)
        if fitting is None:
            return None
        uncoloured: _ByColour = ((box.index >= 0)[None].copy(), {None: 0})
        allowed, kind_of = by_colour if by_colour is not None else uncoloured
        size = np.array(box.size, np.int64)
        grid = puzzle.grid
        lattice = np.array([*grid.period, *(int(axis in grid.parity_axes) for axis in range(3))], np.int64)
        return _CompiledFitting(fitting, box, size, allowed, kind_of, colour_code, grid, lattice)

    def takes(self, piece: Piece) -> bool:
        """Whether the kernel finds this piece's placements: coloured pieces on cubes only (on
        the other grids colours move with the grid's own turns: `_piece_placements`)."""
        return self.grid is CUBE or not piece.coloured

    def block(self, number: int, piece: Piece, most: int) -> _Block | None:
        """The piece's placements; None when there are more than `most`."""
        if piece.coloured:  # the cube grid's (`takes`)
            kept, ranks, names = coloured_orientation_ranks(piece.cells, piece.colours)
            shapes = np.array(kept, np.int64)  # a writeable copy of the kept images, as recorded
            checks = np.array([self.kind_of[name] for name in names], np.int64)[ranks]
            codes = np.array([self.colour_code.get(name or "", 0) for name in names], np.int64)[ranks]
        else:
            shapes = np.array(self.grid.orientation_array(piece.cells), np.int64)  # a writeable copy, as recorded
            checks = codes = np.zeros(shapes.shape[:2], np.int64)
        shapes = np.ascontiguousarray(shapes, np.int64)
        cells, colours, found = self.fitting(
            self.box.index, self.size, shapes, checks, codes, self.allowed, most, self.lattice
        )
        if found > most:
            return None
        return _Block(number, cells[:found], colours[:found] if piece.coloured else None)


def _colour_codes(ways: Sequence[Sequence[Colour]], colour_code: Mapping[str, int]) -> Any:
    """Each cell's colour code (0: uncoloured), way by way (int64, ways x cells)."""
    return np.array([[colour_code.get(colour or "", 0) for colour in way] for way in ways], np.int64)


def _too_many_cells(puzzle: PackingPuzzle, candidates: int = 0, largest: int = 0) -> ModelTooBigError:
    """The placements' cells together would pass what cpsolve keeps (MAX_PLACEMENT_CELLS)."""
    tested = f" ({candidates:,} candidate placements of a piece of {largest:,} cells)" if candidates else ""
    return ModelTooBigError(
        f"{puzzle.name}: the placements would hold more than {MAX_PLACEMENT_CELLS:,} cells in all{tested};"
        " use smaller pieces or a smaller target"
    )


def _too_many(puzzle: PackingPuzzle, max_atoms: int) -> ModelTooBigError:
    return ModelTooBigError(
        f"{puzzle.name}: more than {max_atoms:,} placements (limit --max-placements {max_atoms:,});"
        " use a smaller target or raise the limit"
    )


def _piece_placements(
    puzzle: PackingPuzzle, piece: Piece, box: _Box, by_colour: _ByColour | None, colour_code: Mapping[str, int]
) -> tuple[Any, Any, Any | None]:
    """Every placement of one piece (its target cell indexes: placements x cells, in the
    orientations' order), the orientation of each, and for a coloured piece each placement's
    cells' colour codes (`colour_code`); a coloured piece's placements only where each cell's
    colour fits the target cell's."""
    if not piece.coloured:
        indexes, orientation = _all_fitting_placements(puzzle.grid.orientation_array(piece.cells), box, puzzle.grid)
        return indexes, orientation, None
    images = puzzle.grid.coloured_images(piece.cells, piece.colours)
    shapes, ranks = images.ranked()
    codes = np.array([colour_code.get(name or "", 0) for name in images.names], np.int64)[ranks]
    if by_colour is not None:
        allowed, kind = by_colour
        kinds = np.array([kind[name] for name in images.names], np.int64)[ranks]
        indexes, orientation = _fitting_by_room(shapes, box, allowed, kinds)
        return indexes, orientation, codes[orientation]
    indexes, orientation = _all_fitting_placements(shapes, box, puzzle.grid)
    fits = _fits_by_target_cell(puzzle, images.names)  # name rank x target cell
    keep = fits[ranks[orientation], indexes].all(axis=1)
    return indexes[keep], orientation[keep], codes[orientation[keep]]


def _fits_by_target_cell(puzzle: PackingPuzzle, names: Sequence[Colour]) -> Any:
    """Whether a cell of each colour (rows, `names`' order) may lie on each target cell: the rule
    asked once for each pair of a piece's colour and a target colour, not once a target cell
    (a rhombic piece's colours checked per orientation and cell were a fifth of BrokenSticks'
    model)."""
    target_names = sorted({colour for colour in puzzle.target_colours.values()})
    on_cell = {name: number + 1 for number, name in enumerate(target_names)}  # 0: an uncoloured target cell
    kind = np.array([on_cell.get(puzzle.target_colours.get(cell, ""), 0) for cell in puzzle.target], np.int64)
    pairs = np.array(
        [[puzzle.colours_fit(name, target) for target in (None, *target_names)] for name in names], bool
    ).reshape(len(names), len(target_names) + 1)
    return pairs[:, kind]


def _allowed(puzzle: PackingPuzzle, box: _Box) -> _ByColour:
    """Where a piece's cell of each colour may lie (colour code x place; code 0: uncoloured,
    anywhere in the target), so that colours are checked with the cells, all shifts at once: a
    9x9x9 design with five colours spent 1 s of its 2 s model in a colour check per placement."""
    colours = sorted({colour for piece in puzzle.pieces for colour in piece.colours or () if colour is not None})
    code: dict[Colour, int] = {None: 0} | {colour: number + 1 for number, colour in enumerate(colours)}
    allowed = np.repeat((box.index >= 0)[None], len(code), axis=0)
    place_of = np.flatnonzero(box.index >= 0)[np.argsort(box.index[box.index >= 0])]  # each target cell's place
    index = {cell: number for number, cell in enumerate(puzzle.target)}
    places_of: dict[str, list[int]] = {}  # the target's places of each colour: a rule is asked once a pair
    for cell, target_colour in puzzle.target_colours.items():
        places_of.setdefault(target_colour, []).append(index[cell])
    for target_colour, places in places_of.items():
        for colour, number in code.items():
            if number and not puzzle.colours_fit(colour, target_colour):
                allowed[number, place_of[places]] = False
    return allowed, code


def misshapen_fixed(puzzle: PackingPuzzle) -> list[Placement]:
    """Pre-placed cells that are not a copy of their piece, kept as an extra placement.

    Only yass figures get here (specs refuse them): yass fills such cells with the piece's name
    anyway and checks only their number.
    """
    names = [p.name for p in puzzle.pieces]
    grid = puzzle.grid
    return [
        Placement(names.index(name), cells)
        for name, cells in puzzle.fixed
        if grid.normalise(cells) not in grid.orientations(puzzle.pieces[names.index(name)].cells)
    ]


@dataclass(frozen=True)
class PlacementArrays:
    """Every placement as arrays: its piece, its target cell indexes sorted, their colours. The
    searches' atoms and the symmetries' atom maps (symmetries.py) are made from these with array
    operations instead of a sort and a dictionary look-up per placement (the yass corpus spent
    most of its time there)."""

    cells: Any  # placements x longest piece: target cell indexes, sorted, padded with len(target)
    colours: Any | None  # the same shape: colour codes of those cells (0: none); None: uncoloured
    pieces: Any

    @staticmethod
    def joined(blocks: Sequence[_Block], outside: int, coloured: bool) -> PlacementArrays:
        """The blocks' placements one after the other (`outside`: the target's size, the padding)."""
        width = max((block.cells.shape[1] for block in blocks), default=1)
        small = np.int16 if outside < 2**15 - 1 else np.int32
        count = sum(len(block.cells) for block in blocks)
        cells = np.full((count, width), outside, dtype=small)
        colours = np.zeros((count, width), dtype=small) if coloured else None
        pieces = np.zeros(count, dtype=small)
        start = 0
        for block in blocks:
            end, length = start + len(block.cells), block.cells.shape[1]
            cells[start:end, :length] = block.cells
            if colours is not None and block.colours is not None:
                colours[start:end, :length] = block.colours
            pieces[start:end] = block.piece
            start = end
        return PlacementArrays(cells, colours, pieces)


@dataclass(frozen=True)
class _Block:
    """Placements of one piece: each one's target cell indexes sorted, their colour codes moved
    along (None: an uncoloured piece)."""

    piece: int
    cells: Any
    colours: Any | None

    @staticmethod
    def of(piece: int, indexes: Any, codes: Any | None) -> _Block:
        """`indexes`: placements x cells, each in its orientation's cell order; `codes` the same
        shape, or one row for all."""
        order = np.argsort(indexes, axis=1, kind="stable")
        colours = None if codes is None else np.take_along_axis(np.broadcast_to(codes, indexes.shape), order, axis=1)
        return _Block(piece, np.take_along_axis(indexes, order, axis=1), colours)


def _given_blocks(
    placements: Sequence[Placement], target: Sequence[Cell], colour_code: Mapping[str, int]
) -> list[_Block]:
    """Placements given as cells (a yass figure's misshapen pre-placed pieces) as blocks to join."""
    index = {cell: number for number, cell in enumerate(target)} if placements else {}
    return [
        _Block.of(
            p.piece,
            np.array([[index[cell] for cell in p.cells]], np.int64),
            None if p.colours is None else _colour_codes([p.colours], colour_code)[0],
        )
        for p in placements
    ]


class PlacementList(Sequence[Placement]):
    """The placements as cells, each made when it is first asked for: drawings, pre-placed pieces
    and CP-SAT's constraints ask for some; the searches and the symmetries read the arrays."""

    def __init__(self, arrays: PlacementArrays, puzzle: PackingPuzzle, colour_code: Mapping[str, int]) -> None:
        self.arrays = arrays
        self.target = puzzle.target
        self.coloured = [piece.coloured for piece in puzzle.pieces]
        self.colour_names: dict[int, Colour] = {number: name for name, number in colour_code.items()}
        self.made: dict[int, Placement] = {}

    def __len__(self) -> int:
        return int(self.arrays.pieces.shape[0])

    @overload
    def __getitem__(self, atom: int) -> Placement: ...

    @overload
    def __getitem__(self, atoms: slice) -> list[Placement]: ...

    def __getitem__(self, atom: int | slice) -> Placement | list[Placement]:
        if isinstance(atom, slice):
            return [self[a] for a in range(len(self))[atom]]
        made = self.made.get(atom)  # drawings ask for a solution's placements again and again
        if made is None:
            atom = range(len(self))[atom]  # IndexError past the end, as a list
            made = self.made.get(atom) or self._make(atom)
            self.made[atom] = made
        return made

    def _make(self, atom: int) -> Placement:
        """The placement's cells sorted by coordinates (as its orientation lists them), colours along."""
        outside = len(self.target)
        cells = [self.target[i] for i in self.arrays.cells[atom].tolist() if i < outside]
        piece = int(self.arrays.pieces[atom])
        if not self.coloured[piece] or self.arrays.colours is None:
            return Placement(piece, tuple(sorted(cells)))
        codes = self.arrays.colours[atom].tolist()[: len(cells)]
        pairs = sorted(zip(cells, (self.colour_names.get(code) for code in codes), strict=True))
        return Placement(piece, tuple(cell for cell, _ in pairs), tuple(colour for _, colour in pairs))


def fill_order(target: Sequence[Cell], grid: Grid = CUBE) -> tuple[int, ...]:
    """The target's cells (indexes) in the order a search fills them: along the shortest side of
    the bounding box first, then the next, the longest last. Measured on pentominoes 6x10 with
    the exact-cover search: filling along the short side first takes far fewer placements than
    along the long side (benchmarks/exact_cover_search.py). On a grid of blocks (rhombic,
    tetra-octa) block by block, each block's parts before the next block's."""
    layered = grid.layers_of(cell_array(target))  # on spheres: square layers
    blocks = layered // np.asarray(grid.period, np.int64)
    size = (blocks.max(axis=0) - blocks.min(axis=0) + 1).tolist() if len(blocks) else [1, 1, 1]
    axes = sorted(range(3), key=lambda axis: (-size[axis], -axis))  # slowest first; ties: z, y, x
    # the blocks along those axes, then the cells: lexsort's keys run from the least significant,
    # and it is stable, as sorting the cells' indexes by those tuples was (HexSticks' 2,256 cells
    # by a key function each: 6 % of its model)
    keys = [layered[:, axis] for axis in reversed(axes)] + [blocks[:, axis] for axis in reversed(axes)]
    return tuple(np.lexsort(keys).tolist())


def load_compiled_fitting() -> None:
    """Find the placements of a small coloured puzzle and of an uncoloured one, so that `cpsolve
    compile` records the compiled placement finder's calls (cpsolve.native) in the types a run
    makes."""
    bounds = PieceBounds(1, 1)
    corner = ((0, 0, 0), (1, 0, 0), (0, 1, 0))
    coloured = PackingPuzzle(
        "warm-up",
        (Piece("A", corner, bounds, ("red", None, "blue")), Piece("B", ((0, 0, 0),), bounds)),
        ((0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0)),
        (),
        "rotations",
        False,
        {},
        target_colours={(0, 0, 0): "red"},
        colour_rule=frozenset({("red", "red"), ("blue", "red")}),
    )
    plain = dataclasses.replace(coloured, pieces=(Piece("A", corner, bounds), Piece("B", ((0, 0, 0),), bounds)))
    for puzzle in (coloured, plain):
        code = {name: number for number, name in enumerate(("blue", "red"), 1)} if puzzle.coloured else {}
        placement_arrays(puzzle, code, 1_000)
