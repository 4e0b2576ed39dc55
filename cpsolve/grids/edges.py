"""Edge grids: polysticks (the square grid's edges), polytrigs (the triangular grid's) and
polytwigs (the hexagonal grid's). A piece is a set of unit segments between points of a lattice.

Every cell is a point of a fine lattice with the lattice's points `spacing` apart: a segment is
its middle; a piece's crossing marks (below) lie within a third of a segment of their point. The
frame is that fine lattice in the lattice's own basis, so the grid's symmetries (8 of a square,
12 of a hexagon, each turned over by a half turn in space) are integer matrices, as on the other
grids, and a piece moves by the lattice's translations.

Whether two pieces may cross at a point where both pass through it is the spec's choice
(`crossing`); the published puzzles forbid it. At a point, two pieces cross where two segments of
one separate two of the other around the point. A piece claims the crossing marks of each pair of
its segments at a point that could be so separated (`crossing_marks`), the target holds every
mark as an optional cell, and an optional cell is covered at most once: two pieces cross nowhere.
On the square grid the one mark of a point is the point itself, claimed by a piece running
straight through it (as Knuth's and Puzzler's exact covers do it); on the triangular grid a point
has thirteen: one for two straight runs crossing, twelve for the ways a turn can be crossed (by a
straight run or by another turn). On the hexagonal
grid three segments meet at a point, so no two pieces can cross and no mark is made.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

import numpy as np

from cpsolve.geometry import Cell
from cpsolve.limits import MAX_SHAPE_CELLS

from . import solids
from .base import SIXTH_TURNS, Grid, Transform, closure, transforms_of
from .prism import FLIP, MIRROR, TURN

LAYER_STEP = 3  # the triangular edge grids' drawings: a character every third fine-lattice step
STICK_WIDTH = 0.16  # a segment's thickness as drawn, in segment lengths
QUARTER = ((0, -1, 0), (1, 0, 0), (0, 0, 1))  # 90 degrees about z
SQUARE_FLIP = ((1, 0, 0), (0, -1, 0), (0, 0, -1))  # half a turn about x: a flat piece turned over
SQUARE_TURNS: Mapping[str, tuple[int, float]] = MappingProxyType({"z": (2, 90.0), "x": (0, 180.0)})  # and over
Vector = tuple[int, int]


class EdgeGrid(Grid):
    """What the three edge grids share: segments, their crossing marks, drawing them as bars."""

    edges = True
    flat = True
    layer_solids = True
    spacing = 2  # the fine lattice's steps between two points of the lattice
    # the unit steps from a point, counter-clockwise from along +x, in the lattice's basis
    directions: tuple[Vector, ...] = ()
    crossing_possible = True  # two pieces can cross at a point (not where only three segments meet)
    unit_name = "a segment's length"

    # -- the cells in the frame ------------------------------------------------------------------

    def _residue_kind(self, points: Any) -> Any:
        """Per point of the frame: 0 not a cell, 1 a segment, 2 a crossing mark."""
        points = np.asarray(points, np.int64).reshape(-1, 3)
        kind = np.zeros(len(points), np.int64)
        table = self._residue_table()
        inside = points[:, 2] == 0
        residues = points[:, :2] % self.spacing
        kind[inside] = table[residues[inside, 0], residues[inside, 1]]
        return kind

    def _residue_table(self) -> Any:
        table = np.zeros((self.spacing, self.spacing), np.int64)
        half = self.spacing // 2
        for dx, dy in self.directions:
            table[(half * dx) % self.spacing, (half * dy) % self.spacing] = 1
        for dx, dy in self._mark_offsets():
            table[dx % self.spacing, dy % self.spacing] = 2
        return table

    def _mark_offsets(self) -> list[Vector]:
        return [(0, 0)]

    def _vertex_ok(self, points: Any) -> Any:
        """Whether lattice points (n, 2, in the lattice's basis) are points of the grid."""
        return np.ones(len(points), bool)

    def cell_mask(self, cells: Any) -> Any:
        """Segments and crossing marks (what a model holds); a spec gives segments only."""
        points = self.frame(cells)
        kind = self._residue_kind(points)
        ok = kind > 0
        segments = kind == 1
        if segments.any():
            ends = self._ends(points[segments])
            ok[segments] = self._vertex_ok(ends[:, 0]) & self._vertex_ok(ends[:, 1])
        marks = kind == 2
        if marks.any():
            ok[marks] = self._vertex_ok(self._nearest_point(points[marks]))
        return ok

    def given_mask(self, cells: Any) -> Any:
        points = self.frame(cells)
        return self.cell_mask(cells) & (self._residue_kind(points) == 1)

    def _ends(self, middles: Any) -> Any:
        """The two end points (lattice basis) of segments given by their middles in the frame:
        the middle less half the segment's direction, and that plus the direction."""
        middles = np.asarray(middles, np.int64)[:, :2]
        half = self.spacing // 2
        steps = np.zeros((len(middles), 2), np.int64)
        residues = middles % self.spacing
        for dx, dy in self.directions[: len(self.directions) // 2]:
            match = (residues[:, 0] == (half * dx) % self.spacing) & (residues[:, 1] == (half * dy) % self.spacing)
            steps[match] = (dx, dy)
        start = (middles - half * steps) // self.spacing
        return np.stack([start, start + steps], axis=1)

    def _nearest_point(self, marks: Any) -> Any:
        """The lattice point a crossing mark belongs to (within a third of a segment of it)."""
        return np.floor_divide(np.asarray(marks, np.int64)[:, :2] + self.spacing // 2, self.spacing)

    # -- what a spec writes ----------------------------------------------------------------------

    def stick_cells(self, start: Sequence[int], end: Sequence[int]) -> list[Cell] | str:
        """The segments of a straight run from one lattice point to another, or what is wrong."""
        delta = (end[0] - start[0], end[1] - start[1])
        length = math.gcd(abs(delta[0]), abs(delta[1]))
        unit = (delta[0] // length, delta[1] // length) if length else (0, 0)
        if not length or unit not in self.directions:
            return f"from {list(start)} to {list(end)} is not a straight run along the {self.name} grid's lines"
        if length > MAX_SHAPE_CELLS:
            return f"from {list(start)} to {list(end)} is {length:,} segments; a shape has at most {MAX_SHAPE_CELLS:,}"
        half = self.spacing // 2
        middles = [
            (
                self.spacing * (start[0] + k * unit[0]) + half * unit[0],
                self.spacing * (start[1] + k * unit[1]) + half * unit[1],
                0,
            )
            for k in range(length)
        ]
        cells = [tuple(int(v) for v in cell) for cell in self.unframe(np.array(middles, np.int64)).tolist()]
        made: list[Cell] = [(c[0], c[1], c[2]) for c in cells]
        if not self.given_mask(np.array(made, np.int64)).all():
            return f"from {list(start)} to {list(end)} runs off the {self.name} grid's lines"
        return made

    # -- crossings -------------------------------------------------------------------------------

    def crossing_marks(self, cells: Sequence[Cell]) -> list[Cell]:
        """The crossing marks a set of segments claims: at each of its points, for each way
        around the point that two of its segments there could separate two of another piece's
        (a set of four directions, of which it holds two that alternate with the other two)."""
        if not self.crossing_possible or not cells:
            return []
        points = self.frame(np.asarray(cells, np.int64).reshape(-1, 3))
        ends = self._ends(points)
        index = {direction: number for number, direction in enumerate(self.directions)}
        around: dict[Vector, set[int]] = {}
        for first, second in ends.tolist():
            step = (second[0] - first[0], second[1] - first[1])
            around.setdefault((first[0], first[1]), set()).add(index[step])
            around.setdefault((second[0], second[1]), set()).add(index[(-step[0], -step[1])])
        marks: set[tuple[int, int]] = set()
        count = len(self.directions)
        for point, held in around.items():
            if len(held) < 2:
                continue
            for four in itertools.combinations(range(count), 4):
                if {four[0], four[2]} <= held or {four[1], four[3]} <= held:
                    dx, dy = self._mark_of(four)
                    marks.add((self.spacing * point[0] + dx, self.spacing * point[1] + dy))
        if not marks:
            return []
        frame = np.array([(x, y, 0) for x, y in sorted(marks)], np.int64)
        return [(int(c[0]), int(c[1]), int(c[2])) for c in self.unframe(frame).tolist()]

    def _mark_of(self, four: tuple[int, ...]) -> Vector:
        """Where the mark of four directions lies, as an offset from its point in the frame."""
        return (0, 0)

    # -- how it looks ----------------------------------------------------------------------------

    def solid(self, kind: Cell) -> list[solids.Face]:
        points = self.frame(np.array([kind], np.int64))
        if self._residue_kind(points)[0] != 1:
            return []  # a crossing mark is not drawn
        ends = self._ends(points)[0] * self.spacing
        start, end = self.real(self.unframe(np.array([[*ends[0], 0], [*ends[1], 0]], np.int64)))
        (x0, y0, _), (x1, y1, _) = start, end
        return solids.stick((float(x0), float(y0)), (float(x1), float(y1)), STICK_WIDTH)


class SquareEdges(EdgeGrid):
    """Polysticks: cells (x, y) with x + y odd are segments ((1, 0) the one from point (0, 0) to
    (1, 0)), points are (even, even), as the ASCII drawings of polysticks are laid out."""

    name = "sticks"
    title = "polysticks (the edges of a square grid)"
    cell_rule = "a segment: x + y odd, z = 0"
    period = (2, 2, 1)
    kind_period = (2, 2, 1)
    cell_period = (2, 2, 1)
    directions = ((1, 0), (0, 1), (-1, 0), (0, -1))
    editor_turns = SQUARE_TURNS
    caption = (
        "polysticks drawn as they look: '-' and '|' the segments, on the columns and rows between the points"
        " ('+' or any other character on a point is not read); cells are [x, y] with x + y odd"
    )

    def real(self, cells: Any) -> Any:
        return np.asarray(cells, np.float64).reshape(-1, 3) * np.array([0.5, 0.5, 1.0])

    def _transforms(self) -> tuple[Transform, ...]:
        return transforms_of(closure([np.array(QUARTER), np.array(SQUARE_FLIP), np.array(MIRROR)]))

    def layer_character(self, place: Cell, mark: str | None) -> str:
        """A drawing as polysticks are drawn: `-` and `|` the segments, `+` the points."""
        x, y, _ = place
        if x % 2 == 0 and y % 2 == 0:
            return "+"
        if mark is None or (x + y) % 2 == 0:
            return " "
        return "-" if x % 2 == 1 else "|"

    def drawn_cells(self, drawn: Sequence[Cell]) -> list[Cell] | str:
        """The segments of a drawing: the characters between points; those on points are read
        as decoration."""
        return [(x, y, 0) for x, y, layer in drawn if (x + y) % 2 == 1 and layer == 0]


class TriangleEdges(EdgeGrid):
    """Polytrigs: the triangular lattice's points (a, b) lie at a + b / 2 along x and b rows up;
    a cell is (2A + B, B) for its point (A, B) of the fine lattice, six steps to a segment, so
    that a row of cells is a row in space."""

    name = "trigs"
    title = "polytrigs (the edges of a triangular grid)"
    cell_rule = "a segment's middle: x - y even, (x - y) / 2 and y three times odd or even by the segment"
    spacing = 6
    period = (6, 6, 1)
    parity_axes = (0, 1)
    kind_period = (12, 12, 1)
    cell_period = (12, 12, 1)
    directions = ((1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1))
    editor_turns = SIXTH_TURNS
    caption = (
        "polytrigs drawn as they look, '-', '\\' and '/' the segments between the points '+' (each row of points"
        " half a step right of the one above); or sticks between points [a, b] of the triangular lattice"
    )

    def real(self, cells: Any) -> Any:
        return np.asarray(cells, np.float64).reshape(-1, 3) * np.array([1 / 12, math.sqrt(3) / 12, 1.0])

    def _transforms(self) -> tuple[Transform, ...]:
        return transforms_of(closure([np.array(TURN), np.array(FLIP), np.array(MIRROR)]))

    def frame(self, cells: Any) -> Any:
        cells = np.asarray(cells, np.int64).reshape(-1, 3)
        return np.stack([(cells[:, 0] - cells[:, 1]) // 2, cells[:, 1], cells[:, 2]], axis=1)

    def cell_mask(self, cells: Any) -> Any:
        cells = np.asarray(cells, np.int64).reshape(-1, 3)
        return super().cell_mask(cells) & ((cells[:, 0] - cells[:, 1]) % 2 == 0)

    def unframe(self, points: Any) -> Any:
        points = np.asarray(points, np.int64).reshape(-1, 3)
        return np.stack([2 * points[:, 0] + points[:, 1], points[:, 1], points[:, 2]], axis=1)

    def _mark_offsets(self) -> list[Vector]:
        units = list(self.directions)
        turns = [(units[k][0] + units[(k + 1) % 6][0], units[k][1] + units[(k + 1) % 6][1]) for k in range(6)]
        return [(0, 0), *units, *turns]

    def from_layers(self, column: int, row: int, layer: int) -> Cell:
        """A drawing's characters a third of the fine lattice apart: a row of the drawing is a
        row of points or the segments between two rows (`layer_character`)."""
        return (LAYER_STEP * column, LAYER_STEP * row, layer)

    def to_layers(self, cell: Cell) -> Cell:
        return (cell[0] // LAYER_STEP, cell[1] // LAYER_STEP, cell[2])

    def layer_character(self, place: Cell, mark: str | None) -> str:
        """Drawn as polytrigs are drawn: `-` along a row, `\\` and `/` the two slants (rows of
        the drawing run down the page as y grows), `+` the points."""
        cell = self.from_layers(*place)
        points = self.frame(np.array([cell], np.int64))
        kind = self._residue_kind(points)[0]
        if not (points[0, :2] % self.spacing).any() and self._vertex_ok(points[:, :2] // self.spacing)[0]:
            return "+"  # a point of the grid (on twigs: a hexagon's corner, which has no crossing mark)
        if mark is None or kind != 1:
            return " "
        ends = self._ends(points)[0]
        step = (int(ends[1][0] - ends[0][0]), int(ends[1][1] - ends[0][1]))
        return {(1, 0): "-", (0, 1): "\\", (-1, 1): "/"}[step]

    def drawn_cells(self, drawn: Sequence[Cell]) -> list[Cell] | str:
        """The segments of a drawing: the characters where a segment's middle is; the others
        (points, anything) are decoration."""
        cells = [self.from_layers(*place) for place in drawn]
        if not cells:
            return []
        given = self.given_mask(np.array(cells, np.int64))
        return [cell for cell, ok in zip(cells, given.tolist(), strict=True) if ok]

    def _mark_of(self, four: tuple[int, ...]) -> Vector:
        """The two directions left out name the mark: opposite ones, the point itself (any two
        straight runs cross); side by side, between them; one apart, the one between."""
        left = sorted(set(range(6)) - set(four))
        first, second = left
        gap = second - first
        if gap == 3:
            return (0, 0)
        if gap in (1, 5):
            low = first if gap == 1 else second
            a, b = self.directions[low], self.directions[(low + 1) % 6]
            return (a[0] + b[0], a[1] + b[1])
        middle = (first + 1) % 6 if gap == 2 else (second + 1) % 6
        return self.directions[middle]


class HexagonEdges(TriangleEdges):
    """Polytwigs: the hexagonal grid's edges, the triangular lattice's segments between points
    that are not a hexagon's centre (a - b a multiple of 3 is a centre: (0, 0) is one)."""

    name = "twigs"
    title = "polytwigs (the edges of a hexagonal grid)"
    cell_rule = "a segment of the hexagonal grid: both its end points [a, b] with a - b not a multiple of 3"
    period = (18, 6, 1)
    kind_period = (36, 12, 1)
    cell_period = (36, 12, 1)
    crossing_possible = False
    caption = (
        "polytwigs drawn as they look, '-', '\\' and '/' the hexagons' edges between their corners '+'; or sticks"
        " between the corners, points [a, b] of the triangular lattice with a - b not a multiple of 3"
    )

    def _vertex_ok(self, points: Any) -> Any:
        points = np.asarray(points, np.int64).reshape(-1, 2)
        return (points[:, 0] - points[:, 1]) % 3 != 0

    def _mark_offsets(self) -> list[Vector]:
        return []
