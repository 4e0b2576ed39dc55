"""A packing spec resolved: every shape to cells, every rule between fields checked.

The pieces (cells, bounds, colours, disassembly groups), the target (cells, optional cells,
colours), pre-placed pieces and groups, with errors that name the spec's field and line.
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import repeat
from math import prod
from typing import Any, cast

import numpy as np

from cpsolve.errors import ModelTooBigError, SpecError
from cpsolve.geometry import (
    Cell,
    Colour,
    Shape,
    as_cell,
    as_cells,
    box_cells,
    cell_array,
    foam_rows,
    layer_cells,
)
from cpsolve.grids import CUBE, Grid, grid_named
from cpsolve.limits import (
    MAX_SHAPE_CELLS,
)
from cpsolve.spec import CellRows, PackingSpec, PieceSpec, ShapeSpec, Source
from cpsolve.symmetry import (
    PieceBounds,
)

Loc = tuple[str | int, ...]


@dataclass(frozen=True)
class Piece:
    name: str
    cells: Shape
    bounds: PieceBounds
    colours: tuple[Colour, ...] = ()  # one per cell, in the order of `cells`; empty: uncoloured
    disassembly_groups: tuple[tuple[str, int], ...] = ()  # (group, copies it may hold): --disassemble
    marks: int = 0  # how many of its cells are an edge grid's crossing marks, not segments

    @property
    def size(self) -> int:
        """The cells the piece fills (an edge grid's segments, not its crossing marks)."""
        return len(self.cells) - self.marks

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
    grid: Grid = CUBE

    @property
    def coloured(self) -> bool:
        """Colours matter only when the puzzle has some (as in BurrTools)."""
        return bool(self.target_colours) or any(p.coloured for p in self.pieces)

    def colours_fit(self, piece_colour: Colour, target_colour: Colour) -> bool:
        """An uncoloured cell fits anything; two colours fit when the rule lists the pair."""
        return piece_colour is None or target_colour is None or (piece_colour, target_colour) in self.colour_rule

    def cell_labels(self) -> dict[Cell, tuple[bool, Colour]]:
        """What a symmetry of the target must keep of each cell: optional or filled, and the
        colour (made by maps over the cells: a call a cell was 0.6 ms of DraculasDentalDesaster's
        model)."""
        target = self.target
        kept = zip(map(self.optional.__contains__, target), map(self.target_colours.get, target), strict=True)
        return dict(zip(target, kept, strict=True))


# -- resolving a spec -------------------------------------------------------------------------


def too_many_cells(count: int, loc: Loc, source: Source) -> ModelTooBigError:
    return ModelTooBigError(source.problem(loc, f"{count:,} cells; cpsolve builds at most {MAX_SHAPE_CELLS:,}"))


SHAPE_FIELDS = ("cells", "box", "tile", "ring", "layers", "sticks")


def shape_cells(shape: ShapeSpec, loc: Loc, source: Source, grid: Grid = CUBE) -> list[Cell]:
    """The cells a shape spec describes, each a cell of the grid; duplicates and empty shapes are
    errors. The number of cells is checked against MAX_SHAPE_CELLS before they are built."""
    cells = _spec_cells(shape, loc, source, grid)
    field = next(name for name in SHAPE_FIELDS if getattr(shape, name) is not None)
    valid = grid.given_mask(_array_of(shape.cells, cells))
    if not valid.all():
        cell = cells[int(np.argmin(valid))]
        raise source.error((*loc, field), f"cell {list(cell)} is not a cell of the {grid.name} grid ({grid.cell_rule})")
    return cells


def _cells_of(given: Sequence[Sequence[int]]) -> list[Cell]:
    """`as_cells`, in one call where a reader gave the cells from an array (`CellRows`, three
    coordinates each: DraculasDentalDesaster's 5,900 cells a cell at a time were a fifth of its resolve)."""
    if isinstance(given, CellRows):
        return cast(list[Cell], list(map(tuple, given)))
    return as_cells(given)


def _array_of(given: Sequence[Sequence[int]] | None, cells: list[Cell]) -> Any:
    """The cells as an (n, 3) array: the reader's own where it gave one for them."""
    return given.array if isinstance(given, CellRows) else cell_array(cells)


def _spec_cells(shape: ShapeSpec, loc: Loc, source: Source, grid: Grid) -> list[Cell]:
    if shape.cells is not None:
        if len(shape.cells) > MAX_SHAPE_CELLS:
            raise too_many_cells(len(shape.cells), (*loc, "cells"), source)
        cells = _cells_of(shape.cells)
        if len(set(cells)) != len(cells):  # counted only to name the first given twice
            duplicates = [c for c, n in Counter(cells).items() if n > 1]
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
    if shape.sticks is not None:
        return _stick_cells(shape.sticks, (*loc, "sticks"), source, grid)
    layers = [layer.splitlines() if isinstance(layer, str) else layer for layer in shape.layers or []]
    filled = sum(len(row) - row.count(".") - row.count(" ") for layer in layers for row in layer)
    if filled > MAX_SHAPE_CELLS:
        raise too_many_cells(filled, (*loc, "layers"), source)
    drawn = grid.drawn_cells(layer_cells(layers))
    if isinstance(drawn, str):
        raise source.error((*loc, "layers"), drawn)
    if not drawn:
        empty = "no segments: they stand between the points" if grid.edges else "no filled cells"
        raise source.error((*loc, "layers"), f"{empty} ('.' and ' ' are empty)")
    return drawn


def _stick_cells(sticks: Sequence[Sequence[int]], loc: Loc, source: Source, grid: Grid) -> list[Cell]:
    """The unit segments of a shape's straight runs, on an edge grid; each segment once."""
    if not grid.edges:
        raise source.error(loc, f"sticks are for the edge grids (sticks, trigs, twigs), not the {grid.name} grid")
    cells: list[Cell] = []
    for index, (x1, y1, x2, y2) in enumerate(sticks):
        run = grid.stick_cells((x1, y1), (x2, y2))
        if isinstance(run, str):
            raise source.error((*loc, index), run)
        cells.extend(run)
        if len(cells) > MAX_SHAPE_CELLS:
            raise too_many_cells(len(cells), loc, source)
    duplicates = [c for c, n in Counter(cells).items() if n > 1]
    if duplicates:
        raise source.error(loc, f"a segment (cell {list(duplicates[0])}) is given twice")
    return cells


def resolve(spec: PackingSpec, source: Source, require_fixed_copies: bool = True) -> PackingPuzzle:
    grid = grid_named(spec.grid)
    if grid is not CUBE and spec.parts == "separately":
        raise source.error(("parts",), f"parts: separately is for cube grids (yass's rule), not the {grid.name} grid")
    for name, piece in spec.pieces.items():
        if piece.group is not None and piece.group not in spec.groups:
            known = ", ".join(sorted(spec.groups)) or "none defined"
            raise source.error(("pieces", name, "group"), f"group {piece.group!r} is not in groups ({known})")
    for group in spec.groups:
        if not any(piece.group == group for piece in spec.pieces.values()):
            raise source.error(("groups", group), f"no piece belongs to group {group!r}; give pieces `group: {group}`")
    if spec.crossing == "allowed" and not grid.edges:
        raise source.error(
            ("crossing",), f"crossing is for the edge grids (sticks, trigs, twigs), not the {grid.name} grid"
        )
    marked = spec.crossing == "forbidden" and grid.edges
    if marked and spec.max_holes is not None:
        raise source.error(
            ("max_holes",),
            "max_holes is not for an edge grid where pieces may not cross: its crossing marks are optional",
        )
    pieces = tuple(_piece(name, piece, source, grid, marked) for name, piece in spec.pieces.items())
    target = shape_cells(spec.target, ("target",), source, grid)
    optional = set(optional_in_layers(spec.target, grid)) | set(_cells_of(spec.target.optional))
    drawn_optional = len(optional)
    if marked:  # where two pieces would cross, both claim one optional cell (cpsolve.grids.edges)
        optional |= set(grid.crossing_marks(target)) - set(target)
    ordered = sorted(optional)  # checked all at once: Dracula's 936 optional cells one by one took 3 ms
    valid = grid.cell_mask(np.asarray(ordered, np.int64).reshape(-1, 3))
    if not valid.all():
        index = int(np.argmin(valid))
        raise source.error(
            ("target", "optional", index),
            f"cell {list(ordered[index])} is not a cell of the {grid.name} grid ({grid.cell_rule})",
        )
    target_set = set(target) | optional
    target_colours = _colour_map(spec.target.colours, target_set, ("target", "colours"), source)
    fixed = _resolve_fixed(spec, pieces, target_set, source, require_fixed_copies, grid, marked)
    _check_colour_rule(spec, pieces, target_colours, source)
    _check_volume(pieces, len(target_set) - len(optional), drawn_optional, source)
    groups = {name: (g.min, g.max if g.max is not None else 10**9) for name, g in spec.groups.items()}
    return PackingPuzzle(
        name=spec.name,
        pieces=pieces,
        target=_layer_by_layer(target_set),
        fixed=fixed,
        symmetry=spec.symmetry,
        separately=spec.parts == "separately",
        groups=groups,
        optional=frozenset(optional),
        target_colours=target_colours,
        colour_rule=frozenset((piece, target) for piece, target in spec.colour_rule),
        max_holes=spec.max_holes,
        grid=grid,
    )


def _piece(name: str, piece: PieceSpec, source: Source, grid: Grid, marked: bool = True) -> Piece:
    """A piece's cells moved to the grid's normal place (on cubes: starting at 0 on every axis),
    in order, with their colours; on an edge grid with its crossing marks, where crossing is
    forbidden."""
    cells = shape_cells(piece, ("pieces", name), source, grid)
    marks = grid.crossing_marks(cells) if marked else []
    cells += marks
    colour_of = _colour_map(piece.colours, set(cells), ("pieces", name, "colours"), source) if piece.colours else {}
    moved, order = _moved_in_order(cells, grid, None if marks else piece.cells)
    colours = tuple(colour_of.get(cells[index]) for index in order) if colour_of else ()
    groups = tuple(sorted(piece.disassembly_groups.items()))
    bounds = PieceBounds(*piece.bounds(), piece.group)
    return Piece(name, moved, bounds, colours, groups, len(marks))


ARRAY_PIECE_FROM = 32  # cells from which a piece is moved and sorted as an array (4 cells: 63 us so, 75 as one)


def _moved_in_order(
    cells: list[Cell], grid: Grid, rows: Sequence[Sequence[int]] | None = None
) -> tuple[Shape, list[int]]:
    """The cells moved to the grid's normal place and sorted, and which given cell each is (the
    cells are distinct; `rows`: the spec's, where they are the same cells). A large piece by one
    array sort (Dracula's 150-cell pieces: 236 us a piece against 278 sorting tuples), a small
    one by Python's."""
    if len(cells) >= ARRAY_PIECE_FROM:
        given = _array_of(rows, cells)
        moved = given - grid.lattice_shift(given)
        order: list[int] = np.lexsort((moved[:, 2], moved[:, 1], moved[:, 0])).tolist()
        return tuple(map(tuple, moved[order].tolist())), order
    low = [int(v) for v in grid.lattice_shift(cells)]
    shifted = [(c[0] - low[0], c[1] - low[1], c[2] - low[2]) for c in cells]
    order = sorted(range(len(cells)), key=shifted.__getitem__)
    return tuple(shifted[index] for index in order), order


def _colour_map(
    given: Mapping[str, Sequence[Sequence[int]]], cells: set[Cell], loc: Loc, source: Source
) -> dict[Cell, str]:
    """Each coloured cell's colour. Made by whole lists and checked by counting and one subset
    test (Dracula's 2,880 coloured cells a cell at a time were a sixth of its resolve); where a
    check fails, `_first_colour_problem` names the first cell at fault."""
    colour_of: dict[Cell, str] = {}
    given_cells = 0
    for colour, coloured in given.items():
        listed = _cells_of(coloured)
        given_cells += len(listed)
        colour_of.update(zip(listed, repeat(colour)))
    if len(colour_of) != given_cells or not cells.issuperset(colour_of):
        raise _first_colour_problem(given, cells, loc, source)
    return colour_of


def _first_colour_problem(
    given: Mapping[str, Sequence[Sequence[int]]], cells: set[Cell], loc: Loc, source: Source
) -> SpecError:
    """The error for the first coloured cell, in the order given, that is not a cell of the shape
    or already has a colour."""
    colour_of: dict[Cell, str] = {}
    for colour, coloured in given.items():
        for index, cell in enumerate(as_cells(coloured)):
            if cell not in cells:
                return source.error((*loc, colour, index), f"cell {list(cell)} is not a cell of this shape")
            if cell in colour_of:
                return source.error((*loc, colour, index), f"cell {list(cell)} already has colour {colour_of[cell]!r}")
            colour_of[cell] = colour
    raise AssertionError("a colour map whose count or cells were wrong has no cell at fault")


ARRAY_SORT_FROM = 256  # cells from which the target is sorted as an array (lexsort) instead of by tuples


def _layer_by_layer(cells: set[Cell]) -> tuple[Cell, ...]:
    """The cells sorted by z, then y, then x: a large target by one array sort."""
    if len(cells) < ARRAY_SORT_FROM:
        return tuple(sorted(cells, key=lambda c: (c[2], c[1], c[0])))
    array = cell_array(list(cells))
    order = np.lexsort((array[:, 0], array[:, 1], array[:, 2]))
    return cast(tuple[Cell, ...], tuple(map(tuple, array[order].tolist())))


def _check_colour_rule(
    spec: PackingSpec, pieces: Sequence[Piece], target_colours: Mapping[Cell, str], source: Source
) -> None:
    """Each pair of the colour rule names a colour some piece's cell has, then one some target
    cell has: a pair that can never apply is a typo."""
    on_pieces = sorted({colour for piece in pieces for colour in piece.colours if colour})
    on_target = sorted(set(target_colours.values()))
    for index, (piece_colour, target_colour) in enumerate(spec.colour_rule):
        for colour, have, where, side in (
            (piece_colour, on_pieces, "piece", 0),
            (target_colour, on_target, "target", 1),
        ):
            if colour not in have:
                listed = ", ".join(have) or "none"
                raise source.error(
                    ("colour_rule", index, side), f"colour {colour!r} is on no {where} cell ({where} colours: {listed})"
                )


def optional_in_layers(target: ShapeSpec, grid: Grid) -> list[Cell]:
    """Cells drawn '+' in a target's layers: they may stay empty (read as the grid reads the
    whole drawing: rows of hexagons on odd columns move with the rest)."""
    if target.layers is None or grid.edges:  # an edge grid's drawing marks its points '+'
        return []
    layers = [layer.splitlines() if isinstance(layer, str) else layer for layer in target.layers]
    places = layer_cells(layers)
    cells = grid.drawn_cells(places)
    if isinstance(cells, str):  # the drawing's own reading says what is wrong
        return []
    plus = {
        (x, y, z)
        for z, layer in enumerate(layers)
        for y, row in enumerate(layer)
        for x, char in enumerate(row)
        if char == "+"
    }
    return [cell for place, cell in zip(places, cells, strict=True) if place in plus]


def _resolve_fixed(
    spec: PackingSpec,
    pieces: Sequence[Piece],
    target: set[Cell],
    source: Source,
    require_copies: bool,
    grid: Grid,
    marked: bool = True,
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
            placed: list[Cell] = [as_cell(c) for c in copy]  # type: ignore[arg-type]
            cells = tuple(sorted(placed + (grid.crossing_marks(placed) if marked else [])))
            outside = [c for c in cells if c not in target]
            if outside:
                if not grid.is_cell(outside[0]):  # as a piece's or the target's cell is refused
                    rule = f"is not a cell of the {grid.name} grid ({grid.cell_rule})"
                    raise source.error(loc, f"cell {list(outside[0])} {rule}")
                raise source.error(loc, f"cell {list(outside[0])} is outside the target")
            if used & set(cells):
                raise source.error(
                    loc, f"cell {list(sorted(used & set(cells))[0])} is already taken by another fixed piece"
                )
            if require_copies and grid.normalise(cells) not in grid.orientations(by_name[name].cells):
                raise source.error(loc, f"these {len(cells)} cells are not a rotation of piece {name!r}")
            used.update(cells)
            fixed.append((name, cells))
    return tuple(fixed)


def _check_volume(pieces: Sequence[Piece], filled: int, optional: int, source: Source) -> None:
    """The pieces must be able to fill every filled cell without needing more than every cell."""
    least = sum(p.size * p.bounds.low for p in pieces)
    most = sum(p.size * p.bounds.high for p in pieces)
    target = f"{filled}" if not optional else f"{filled} to {filled + optional}"
    if least == most and not filled <= least <= filled + optional:
        raise source.error(("pieces",), f"the pieces have {least} cells but the target has {target}")
    if least > filled + optional or most < filled:
        high = "unbounded" if most >= 10**9 else str(most)
        raise source.error(("pieces",), f"the pieces cover {least} to {high} cells but the target has {target}")
