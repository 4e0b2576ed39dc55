"""What every grid is: cells, the ways a piece may turn, the translations that keep the grid.

A grid's cells are integer triples in BurrTools' voxel coordinates (so files convert both ways),
not every triple need be a cell (`is_cell`). `frame` moves cells into coordinates where each
transformation is one integer matrix (divided by `scale`), `unframe` back. A piece is moved only
by the grid's translation lattice: multiples of `period` on each axis whose sum over
`parity_axes` (in periods) is even, as BurrTools moves pieces.

Where a transformation of the frame maps every cell onto a cell (`lands_always`), a shape's image
is its cells' images. On the sphere grid it does not: BurrTools turns a piece by each of 120
rotations (240 with mirrors) and keeps those that land every ball on a lattice position, relative
to the first ball; `image` does the same.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np

from cpsolve.geometry import (
    Cell,
    Colour,
    ColouredImages,
    ColouredShape,
    Shape,
    cell_array,
    distinct_images,
    encoded,
    per_axis,
)
from cpsolve.limits import NO_DEADLINE, Deadline

from . import solids

# Cell images made at once when a target's symmetries are looked for (transformations x cells):
# a batch of them is about 25 MB per coordinate array.
IMAGED_CELLS = 1 << 20
# Canonical forms kept per grid (`Grid.canonical`, `Grid.mirror_canonical`, one table): of shapes
# of at most this many cells, this many, so that a long-lived studio holds at most about 80 MB of
# them (a cell's tuple is about 80 bytes, kept twice in an entry: the shape and its form); larger
# pieces are worked out each time.
KEPT_FORM_CELLS = 512
KEPT_FORMS = 1024

Matrix = tuple[tuple[int, int, int], tuple[int, int, int], tuple[int, int, int]]
# the editor's turns, name -> (axis, degrees): on cubes; on the triangular lattice sixths about z, and over
QUARTER_TURNS: Mapping[str, tuple[int, float]] = MappingProxyType({"x": (0, 90.0), "y": (1, 90.0), "z": (2, 90.0)})
SIXTH_TURNS: Mapping[str, tuple[int, float]] = MappingProxyType({"z": (2, 60.0), "x": (0, 180.0)})


@dataclass(frozen=True)
class Step:
    """One unit move of a piece along a direction (--disassemble): its name in a plan, the shift,
    and for each kind of cell (`Grid.step_kind`) the cells it passes through on the way, as
    offsets from where it starts, the place it ends on included."""

    name: str
    vector: Cell
    passes: tuple[tuple[Cell, ...], ...]


@dataclass(frozen=True)
class Transform:
    """A linear map of a grid's frame: image = matrix @ point / scale."""

    matrix: Matrix
    scale: int
    proper: bool


def matrix_of(rows: Any) -> Matrix:
    values = [tuple(int(v) for v in row) for row in np.asarray(rows).tolist()]
    return (values[0], values[1], values[2])  # type: ignore[return-value]


def transforms_of(matrices: Sequence[Any], scale: int = 1) -> tuple[Transform, ...]:
    """Transforms from integer matrices: identity first, the rotations, then those with a mirror."""
    identity = scale * np.eye(3, dtype=np.int64)
    keys = [matrix_of(m) for m in matrices]
    made = {key: Transform(key, scale, _determinant(key) > 0) for key in keys}
    return tuple(sorted(made.values(), key=lambda t: (not t.proper, t.matrix != matrix_of(identity), t.matrix)))


def _determinant(matrix: Matrix) -> int:
    """The determinant of an integer matrix, exactly: its sign tells a rotation (a turn keeps
    handedness, a mirror reverses it) from a mirror. In integers rather than numpy's LAPACK call,
    whose first use in a process cost the rhombic grid's 48 transformations 4 ms of a run."""
    (a, b, c), (d, e, f), (g, h, i) = matrix
    return a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)


def closure(generators: Sequence[Any]) -> list[Any]:
    """Every product of the given integer matrices (a finite group of them)."""
    found = {matrix_of(np.eye(3, dtype=np.int64)): np.eye(3, dtype=np.int64)}
    frontier = list(found.values())
    while frontier:
        grown = []
        for m in frontier:
            for g in generators:
                product = np.asarray(g) @ m
                key = matrix_of(product)
                if key not in found:
                    found[key] = product
                    grown.append(product)
        frontier = grown
    return list(found.values())


class Grid:
    """One of BurrTools' grids; subclasses give the cells, the frame and the transformations."""

    name: str = ""
    burrtools: int | None = 0  # BurrTools' gridType; None: a grid BurrTools has not
    title: str = ""  # for people: "spheres (face-centred cubic)"
    cell_rule: str = ""  # which triples are cells, for an error message ("" : every triple)
    period: Cell = (1, 1, 1)
    parity_axes: tuple[int, ...] = ()
    scale: int = 1
    lands_always: bool = True
    neighbour_steps: tuple[Cell, ...] = ()  # where every cell has the same neighbours
    # the moves of --disassemble, each next to its reverse (BurrTools' order); () where BurrTools
    # takes nothing apart either (spheres, rhombic, tetra-octa)
    steps: tuple[Step, ...] = ()
    caption: str = "layers from z=0 (the bottom) up; in each, row y=0 first, x left to right"
    # where the box search does not take a puzzle, the exact-cover search fills the cell the fewest
    # placements fit rather than the lowest: on the sphere grid (the Kanoodle pyramid on the
    # lowest-cell search took 4.9 s, on this one 0.78 s), not elsewhere (HexSticks 0.07 -> 0.12 s)
    fewest_first: bool = False
    # the box search may lay the cells out by `box_position` (`to_layers`, but the hex grid's
    # axial cells): its neighbours there (one step along an axis) are neighbours of the grid, or on
    # the prism grid of one of the two triangles, which only narrows which placements it looks at
    # first (every placement is still checked whole)
    box_layout: bool = False
    # how its cells look (cpsolve.grids.solids): cells whose coordinates agree modulo kind_period
    # are the same solid, moved; `balls`: its cells are balls, touching at one point, drawn and
    # printed as balls (joined by necks in a printed piece) rather than as solids with faces
    kind_period: Cell = (1, 1, 1)
    balls: bool = False
    # which triples are cells repeats with this period (the page tells cells by their residue)
    cell_period: Cell = (1, 1, 1)
    # what --stl-unit measures on this grid (its cells' unit edge in `real`)
    unit_name: str = "a cube's side"
    # the studio's layer view draws each cell as its solid seen from above, not as the square or
    # circle at its column and row (always where a grid has cells of several kinds)
    layer_solids: bool = False
    layer_columns: int = 1  # the columns of a `layers` row a cell takes (rows of hexagons: 2)
    # a piece is a set of segments (cpsolve.grids.edges), given as `sticks`
    edges: bool = False
    # its cells all lie in the layer z = 0 (flat polyforms): a translation off it leaves the grid
    flat: bool = False
    # the turns the studio's editor offers: name -> (axis, degrees)
    editor_turns: Mapping[str, tuple[int, float]] = QUARTER_TURNS

    @functools.cached_property
    def transforms(self) -> tuple[Transform, ...]:
        return self._transforms()

    def real(self, cells: Any) -> Any:
        """Where cells lie in space, unit edges (a ball's centre, a cube's low corner): linear in
        the cell coordinates."""
        return np.asarray(cells, np.float64).reshape(-1, 3)

    def solid(self, kind: Cell) -> list[solids.Face]:
        """The faces of the cell `kind` (a cell with coordinates below kind_period) in real space,
        each counter-clockwise seen from outside."""
        return solids.box()

    def cell_kinds(self) -> list[Cell]:
        """The cells of one kind period: every cell's solid is one of theirs, moved."""
        return list(self._cell_kinds)

    @functools.cached_property
    def _cell_kinds(self) -> tuple[Cell, ...]:
        """Worked out once, all at once (the twigs grid's 432 triples one at a time, asked for 44
        times by the page's description, took 1.5 s of the studio's start)."""
        period = self.kind_period
        kinds = np.array(list(itertools.product(range(period[0]), range(period[1]), range(period[2]))), np.int64)
        return tuple((int(x), int(y), int(z)) for x, y, z in kinds[self.cell_mask(kinds)].tolist())

    def placed_cells(self, cells: Sequence[Sequence[int]]) -> list[tuple[int, solids.Point]]:
        """Per cell, the number of its kind (in `cell_kinds`) and the point the kind's solid moves
        to (a ball's centre, kind 0, where the cells are balls)."""
        if not cells:
            return []
        array = np.asarray([cell[:3] for cell in cells], np.int64)
        if self.balls:
            return [(0, (c[0], c[1], c[2])) for c in self.real(array).tolist()]
        number = {kind: n for n, kind in enumerate(self.cell_kinds())}
        kinds = array % np.asarray(self.kind_period, np.int64)
        origins = self.real(array - kinds).tolist()
        return [
            (number[(int(k[0]), int(k[1]), int(k[2]))], (o[0], o[1], o[2]))
            for k, o in zip(kinds.tolist(), origins, strict=True)
        ]

    def _transforms(self) -> tuple[Transform, ...]:
        raise NotImplementedError

    @property
    def rotations(self) -> tuple[Transform, ...]:
        return tuple(t for t in self.transforms if t.proper)

    def group(self, mirrors: bool) -> tuple[Transform, ...]:
        return self.transforms if mirrors else self.rotations

    # -- cells and frame: a subclass overrides these ------------------------------------------

    def cell_mask(self, cells: Any) -> Any:
        """Whether each row of an (n, 3) integer array is a cell of the grid."""
        return np.ones(len(cells), bool)

    def frame(self, cells: Any) -> Any:
        return np.asarray(cells, np.int64)

    def unframe(self, points: Any) -> Any:
        return np.asarray(points, np.int64)

    def from_layers(self, column: int, row: int, layer: int) -> Cell:
        """The cell a character of a `layers` drawing stands for (column, row, layer)."""
        return (column, row, layer)

    def box_position(self, cell: Cell) -> Cell:
        """Where the box search lays a cell out (`box_layout`): as `layers` draw it."""
        return self.to_layers(cell)

    def layers_of(self, cells: Any) -> Any:
        """`to_layers` of each row of an (n, 3) int64 array, as such an array: on a grid that draws
        its cells where they are (cubes), the array itself. A call a cell was a millisecond of every
        DraculasDentalDesaster model (1,656 target cells, twice)."""
        if type(self).to_layers is Grid.to_layers:
            return cells
        return self._each(self.to_layers, cells)

    def box_positions(self, cells: Any) -> Any:
        """`box_position` of each row of an (n, 3) int64 array, as such an array."""
        if type(self).box_position is Grid.box_position:
            return self.layers_of(cells)
        return self._each(self.box_position, cells)

    @staticmethod
    def _each(move: Callable[[Cell], Cell], cells: Any) -> Any:
        """`move` of each row of an (n, 3) array, as such an array: a grid whose cells move apart."""
        moved = [move((x, y, z)) for x, y, z in cells.tolist()]
        return np.array(moved, np.int64).reshape(-1, 3)

    def drawn_cells(self, drawn: Sequence[Cell]) -> list[Cell] | str:
        """The cells of a `layers` drawing, given its filled characters' (column, row, layer),
        or what is wrong with it (the hex grid's rows of hexagons stand on alternate columns)."""
        return [self.from_layers(*place) for place in drawn]

    def layer_character(self, place: Cell, mark: str | None) -> str:
        """What a written `layers` drawing shows at (column, row, layer): the cell's mark (`#`,
        `+` optional) or `.` for an empty cell."""
        return mark or "."

    def given_mask(self, cells: Any) -> Any:
        """Whether each row of an (n, 3) array is a cell a spec may give: every cell, but on the
        edge grids, whose crossing marks the model adds (`crossing_marks`)."""
        return self.cell_mask(cells)

    def stick_cells(self, start: Sequence[int], end: Sequence[int]) -> list[Cell] | str:
        """The segments of a straight run between two lattice points (edge grids), or what is wrong."""
        return f"the {self.name} grid's shapes are cells, not sticks"

    def crossing_marks(self, cells: Sequence[Cell]) -> list[Cell]:
        """The cells a piece of these cells also claims so that no two pieces cross (edge grids)."""
        return []

    def to_layers(self, cell: Cell) -> Cell:
        """Where a cell is drawn in layers: (column, row, layer); inverse of `from_layers`."""
        return cell

    def step_kind(self, cell: Cell) -> int:
        """Which of a step's `passes` a cell takes (cells of one kind pass alike)."""
        return 0

    def neighbours(self, cell: Cell) -> list[Cell]:
        """The cells sharing a face with this one (balls: touching it); the rhombic and
        tetra-octa grids list none."""
        x, y, z = cell
        return [(x + dx, y + dy, z + dz) for dx, dy, dz in self.neighbour_steps]

    # -- what follows holds for every grid ------------------------------------------------------

    def is_cell(self, cell: Sequence[int]) -> bool:
        return bool(self.cell_mask(np.asarray([cell], np.int64).reshape(1, 3))[0])

    def lattice_shift(self, cells: Any) -> Any:
        """The lattice translation that moves a shape to its normal place: its least block at 0
        (and, where blocks alternate, at the first block of the right parity)."""
        return self._lattice_shifts(np.asarray(cells, np.int64).reshape(-1, 3).min(axis=0)[None, :])[0]

    def in_lattice(self, shifts: Any) -> Any:
        """Whether each row of an (n, 3) array is a translation the grid allows."""
        shifts = np.asarray(shifts, np.int64)
        period = np.asarray(self.period, np.int64)
        ok = (shifts % period == 0).all(axis=1)
        if self.parity_axes:
            blocks = shifts[:, list(self.parity_axes)] // period[list(self.parity_axes)]
            ok &= blocks.sum(axis=1) % 2 == 0
        return ok

    def normalise(self, cells: Sequence[Cell]) -> Shape:
        array = np.asarray(cells, np.int64).reshape(-1, 3)
        moved = array - self.lattice_shift(array)
        return tuple(sorted(map(tuple, moved.tolist())))

    def image(self, cells: Any, transform: Transform) -> Any | None:
        """The cells (same order) a transformation takes a shape to, or None where it does not
        land on the grid. Unnormalised."""
        points = self.frame(cells)
        turned = points @ np.asarray(transform.matrix, np.int64).T
        if transform.scale != 1:
            relative = turned - turned[0]
            if (relative % transform.scale).any():
                return None
            turned = relative // transform.scale + points[0]
        moved = self.unframe(turned)
        if not self.lands_always and not self.cell_mask(moved).all():
            return None
        return moved

    def orientations(self, cells: Sequence[Cell], mirrors: bool = False) -> list[Shape]:
        """The distinct normalised images of a shape, in a stable order."""
        return list(self._orientation_shapes(tuple(cells), mirrors))

    @functools.lru_cache(maxsize=4096)  # noqa: B019 - a grid lives as long as the program
    def _orientation_shapes(self, cells: tuple[Cell, ...], mirrors: bool) -> tuple[Shape, ...]:
        return tuple(tuple(map(tuple, image)) for image in self._orientation_array(cells, mirrors).tolist())

    def orientation_array(self, cells: Sequence[Cell], mirrors: bool = False) -> Any:
        """`orientations` as one array (orientations x cells x 3, each image's cells sorted), what
        placements and sizes are made from without a tuple a cell (HexSticks' pieces of 162-214
        voxels: 6 % of its model made tuples). Read-only: it is kept for the next call."""
        return self._orientation_array(tuple(cells), mirrors)

    @functools.lru_cache(maxsize=4096)  # noqa: B019 - a grid lives as long as the program
    def _orientation_array(self, cells: tuple[Cell, ...], mirrors: bool) -> Any:
        """`image` and `normalise` under every transformation at once, as arrays (the sphere
        grid's 240, one at a time, took 0.04 s of the Kanoodle pyramid's 0.07 s model)."""
        moved, lands = self.images(np.asarray(cells, np.int64).reshape(-1, 3), mirrors)
        moved = moved[lands]
        if len(moved):
            moved = distinct_images(moved - self._lattice_shifts(per_axis(moved, np.min))[:, None, :])
        moved.flags.writeable = False
        return moved

    def images(self, cells: Any, mirrors: bool, turns: slice = slice(None)) -> tuple[Any, Any]:
        """`image` of the cells (an (n, 3) array) under every transformation of the group at once
        (or those of `turns`, a slice of the group's order): (transformations x n x 3,
        unnormalised) and whether each lands on the grid (where it does not, its row is
        meaningless)."""
        points = self.frame(cells)
        matrices, scales = self._stacked(mirrors)
        matrices, scales = matrices[turns], scales[turns]
        turned = points @ matrices.transpose(0, 2, 1)  # transformations x n x 3 (einsum on integers: 5x slower)
        count, length = turned.shape[0], turned.shape[1]
        if (scales == 1).all():  # every grid but the sphere's: no division, every image whole
            lands = np.ones(count, bool)  # (dividing by 1 anyway was 3.7 ms of HexSticks' model)
        else:
            scale = scales[:, None, None]
            relative = turned - turned[:, :1, :]
            lands = ~(relative % scale).any(axis=(1, 2))
            turned = np.where(scale != 1, relative // scale + points[0], turned)
        moved = self.unframe(turned.reshape(-1, 3)).reshape(count, length, 3)
        if not self.lands_always:
            lands &= self.cell_mask(moved.reshape(-1, 3)).reshape(count, length).all(axis=1)
        return moved, lands

    @functools.lru_cache(maxsize=16)  # noqa: B019 - one per grid and `mirrors`
    def _stacked(self, mirrors: bool) -> tuple[Any, Any]:
        """The group's matrices (transformations x 3 x 3) and scales, for `_orientations`."""
        group = self.group(mirrors)
        return (
            np.array([transform.matrix for transform in group], np.int64).reshape(-1, 3, 3),
            np.array([transform.scale for transform in group], np.int64),
        )

    def _lattice_shifts(self, lows: Any) -> Any:
        """`lattice_shift` of many shapes at once, given each shape's least coordinates (rows)."""
        period = np.asarray(self.period, np.int64)
        blocks = np.floor_divide(lows, period)
        if self.parity_axes:
            odd = blocks[:, list(self.parity_axes)].sum(axis=1) % 2 == 1
            blocks[odd, self.parity_axes[0]] -= 1
        return blocks * period

    def coloured_orientations(
        self, cells: Sequence[Cell], colours: Sequence[Colour], mirrors: bool = False
    ) -> list[ColouredShape]:
        """The distinct normalised images of a coloured shape (colours move with their cells)."""
        images = self.coloured_images(cells, colours, mirrors)
        return list(images.shapes(images.rows))

    def coloured_images(
        self, cells: Sequence[Cell], colours: Sequence[Colour], mirrors: bool = False
    ) -> ColouredImages:
        """The distinct images of a coloured shape as rows of numbers, in the group's order, kept
        for the next call (its placements, its canonical form and its mirror's ask for them)."""
        return self._coloured_images(tuple(cells), tuple(colours), mirrors)

    @functools.lru_cache(maxsize=1024)  # noqa: B019 - a grid lives as long as the program
    def _coloured_images(self, cells: tuple[Cell, ...], colours: tuple[Colour, ...], mirrors: bool) -> ColouredImages:
        """Every transformation at once (`images`), then each image at its normal place: a
        coloured piece turned one transformation at a time, its cells sorted as tuples, was most of
        a model on the rhombic and tetra-octa grids (BrokenSticks: 0.66 of 1.3 s profiled)."""
        moved, lands = self.images(np.asarray(cells, np.int64).reshape(-1, 3), mirrors)
        moved = moved[lands]
        if len(moved):
            moved = moved - self._lattice_shifts(per_axis(moved, np.min))[:, None, :]
        return ColouredImages.of(moved, colours)

    def coloured_orientation_arrays(
        self, cells: Sequence[Cell], colours: Sequence[Colour]
    ) -> tuple[Any, list[tuple[Colour, ...]]]:
        """`coloured_orientations` under rotations as arrays: each way's cells (ways x cells x 3,
        sorted) and its cells' colours, what placements are made from."""
        return self.coloured_images(cells, colours).arrays()

    def canonical(self, cells: Sequence[Cell]) -> Shape:
        """The least orientation under rotations: two pieces are the same piece iff equal. Found
        among the images' sorted cell numbers, which compare as their cells do; kept for the
        next call, as the orientations are (a file's later problems and a studio's runs ask again
        for the same pieces), up to KEPT_FORM_CELLS cells."""
        return self._form(cells, mirrored=False)

    def mirror_image(self, cells: Sequence[Cell]) -> Any:
        mirror = next(t for t in self.transforms if not t.proper)
        return self.image(np.asarray(cells, np.int64).reshape(-1, 3), mirror)

    def mirror_canonical(self, cells: Sequence[Cell]) -> Shape:
        """The canonical form of the shape's mirror image (kept, as `canonical` is)."""
        return self._form(cells, mirrored=True)

    def _form(self, cells: Sequence[Cell], mirrored: bool) -> Shape:
        shape = tuple((x, y, z) for x, y, z in cells)
        return self._kept_form(shape, mirrored) if len(shape) <= KEPT_FORM_CELLS else self._worked_out(shape, mirrored)

    @functools.lru_cache(maxsize=KEPT_FORMS)  # noqa: B019 - a grid lives as long as the program
    def _kept_form(self, cells: tuple[Cell, ...], mirrored: bool) -> Shape:
        return self._worked_out(cells, mirrored)

    def _worked_out(self, cells: tuple[Cell, ...], mirrored: bool) -> Shape:
        if mirrored:
            cells = tuple((x, y, z) for x, y, z in self.mirror_image(cells).tolist())
        images = self._orientation_array(cells, False)
        if not len(images):
            raise ValueError(f"no orientation of {list(cells)} lies on the {self.name} grid")
        keys, _ = encoded(images)
        least = images[np.lexsort(keys.T[::-1])[0]]
        return tuple(map(tuple, least.tolist()))

    def coloured_canonical(self, cells: Sequence[Cell], colours: Sequence[Colour]) -> ColouredShape:
        return self.coloured_images(cells, colours).canonical

    def coloured_mirror(self, cells: Sequence[Cell], colours: Sequence[Colour]) -> ColouredShape:
        moved = [tuple(c) for c in self.mirror_image(cells).tolist()]
        return self.coloured_canonical(moved, colours)

    def self_maps(
        self,
        cells: Sequence[Cell],
        reflections: bool,
        labels: Mapping[Cell, Hashable] | None = None,
        deadline: Deadline = NO_DEADLINE,
    ) -> tuple[Any, list[bool]]:
        """The transformations, then a lattice shift, that carry a cell set onto itself (each cell
        onto one with the same label, where labels are given): for each, the index in `cells` of
        every cell's image (identity first), and whether it is proper. A map of the cells is kept
        once as a rotation and once as a reflection where both give it (a flat target's mirror in
        its own plane moves no cell but turns every piece over). Closed under composition (on the
        sphere grid a product of two of BurrTools' turns need not be one of them). The
        transformations are tried a batch at a time, `deadline` checked between batches: a
        300x300 layer of balls under all 240 turns at once took 2.1 GB and 12 s past a 5 s limit."""
        array = cell_array(cells)
        low = array.min(axis=0)
        size = array.max(axis=0) - low + 1
        where = np.full(tuple(size.tolist()), -1, np.int64)  # each cell's index, over the bounding box
        where[tuple((array - low).T)] = np.arange(len(array))
        codes: dict[Hashable, int] = {}
        label = np.array([codes.setdefault(labels[c], len(codes)) for c in cells]) if labels is not None else None
        home = self.lattice_shift(array) - low
        proper = [transform.proper for transform in self.group(reflections)]
        batch = max(1, IMAGED_CELLS // len(array))
        found: dict[tuple[bytes, bool], Any] = {}  # each map once, by its bytes (HexSticks' 2,256 cells)
        for first in range(0, len(proper), batch):
            deadline.check("finding the target's symmetries")
            # a batch of transformations at once (`images`, as `image` each), then the ones that land
            # on the cells, in the group's order (HexSticks' 48 one at a time: 5 % of its model)
            moved, lands = self.images(array, reflections, slice(first, first + batch))
            lows, highs = per_axis(moved, np.min), per_axis(moved, np.max)
            shifts = self._lattice_shifts(lows) - home
            lands &= ((lows - shifts >= 0) & (highs - shifts < size)).all(axis=1)
            moved -= shifts[:, None, :]
            for turn in np.flatnonzero(lands).tolist():
                images = where[tuple(moved[turn].T)]
                if (images < 0).any() or (label is not None and (label[images] != label).any()):
                    continue
                found.setdefault((images.tobytes(), proper[first + turn]), images)
        if self.lands_always:  # the maps of a set onto itself in a group are a group
            return _ordered(list(found.values()), [flag for _, flag in found])
        elements = _closed([(images, flag) for (_, flag), images in found.items()], deadline)
        return _ordered([images for images, _ in elements], [flag for _, flag in elements])


Element = tuple[Any, bool]  # a permutation of cells (an int64 array), and whether it is proper


def _closed(generators: list[Element], deadline: Deadline) -> list[Element]:
    """The elements and all their products, as arrays (tuples of a 90,000-cell layer's cells were
    4 s of Python)."""
    elements = {(permutation.tobytes(), flag): (permutation, flag) for permutation, flag in generators}
    frontier = list(elements.values())
    while frontier:
        deadline.check("finding the target's symmetries")
        grown = []
        for first, first_proper in frontier:
            for second, second_proper in generators:
                product = (second[first], first_proper == second_proper)
                key = (product[0].tobytes(), product[1])
                if key not in elements:
                    elements[key] = product
                    grown.append(product)
        frontier = grown
    return list(elements.values())


def _ordered(permutations: list[Any], proper: list[bool]) -> tuple[Any, list[bool]]:
    """The elements (permutations as arrays, and whether each is proper) as one array of
    permutations, the identity first, then the rotations, each part in the order given."""
    identity = np.arange(len(permutations[0]))
    first = [
        not (flag and np.array_equal(permutation, identity))
        for permutation, flag in zip(permutations, proper, strict=True)
    ]
    order = sorted(range(len(permutations)), key=lambda number: (first[number], not proper[number]))
    return np.stack([permutations[number] for number in order]).astype(np.int64), [proper[number] for number in order]
