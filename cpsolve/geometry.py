"""Voxel geometry shared by every puzzle family.

Everything here is a pure function on tuples so that placements, symmetries and canonical forms
are computed the same way whichever family asks. An isometry is a signed permutation of the
three axes; the 24 with determinant +1 are the proper rotations a physical piece can make, the
other 24 add a mirror.
"""

from __future__ import annotations

import functools
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain, permutations, product
from typing import Any

import numpy as np

from cpsolve.arrays import read_only
from cpsolve.limits import NO_DEADLINE, Deadline

Cell = tuple[int, int, int]
Shape = tuple[Cell, ...]


@dataclass(frozen=True, order=True)
class Isometry:
    """A linear map x -> (signs[i] * x[axes[i]])_i of the cubic lattice."""

    axes: tuple[int, int, int]
    signs: tuple[int, int, int]

    @property
    def proper(self) -> bool:
        """True for a rotation, False for a map that includes a mirror."""
        return permutation_sign(self.axes) * self.signs[0] * self.signs[1] * self.signs[2] == 1

    def apply(self, cell: Cell) -> Cell:
        a, s = self.axes, self.signs
        return (s[0] * cell[a[0]], s[1] * cell[a[1]], s[2] * cell[a[2]])

    @property
    def matrix(self) -> list[list[int]]:
        """The map as a 3x3 matrix M, image = M x."""
        rows = [[0, 0, 0], [0, 0, 0], [0, 0, 0]]
        for row, (axis, sign) in enumerate(zip(self.axes, self.signs, strict=True)):
            rows[row][axis] = sign
        return rows


def permutation_sign(axes: Sequence[int]) -> int:
    inversions = sum(1 for i in range(3) for j in range(i + 1, 3) if axes[i] > axes[j])
    return -1 if inversions % 2 else 1


IDENTITY = Isometry((0, 1, 2), (1, 1, 1))
ISOMETRIES: tuple[Isometry, ...] = tuple(
    sorted(
        (
            Isometry((axes[0], axes[1], axes[2]), (signs[0], signs[1], signs[2]))
            for axes in permutations(range(3))
            for signs in product((1, -1), repeat=3)
        ),
        key=lambda iso: (not iso.proper, iso != IDENTITY, iso),
    )
)
ROTATIONS: tuple[Isometry, ...] = tuple(iso for iso in ISOMETRIES if iso.proper)
MIRROR = Isometry((0, 1, 2), (-1, 1, 1))


def as_cell(coords: Sequence[int]) -> Cell:
    """Accept 2-D or 3-D coordinates; 2-D cells lie in the layer z = 0."""
    if len(coords) == 2:
        return (coords[0], coords[1], 0)
    return (coords[0], coords[1], coords[2])


def as_cells(given: Iterable[Sequence[int]]) -> list[Cell]:
    """`as_cell` of each, in one comprehension: a call a cell was most of turning a BurrTools
    file's colours into cells (DraculasDentalDesaster: 5,900 a run)."""
    return [(c[0], c[1], c[2] if len(c) == 3 else 0) for c in given]


def cell_array(cells: Sequence[Cell]) -> Any:
    """Cells as an (n, 3) int64 array, read through one flat iterator: numpy's conversion of a
    list of tuples takes twice as long (HexSticks' 2,256 target cells, 0.4 ms, on every run)."""
    return np.fromiter(chain.from_iterable(cells), np.int64, count=3 * len(cells)).reshape(-1, 3)


def per_axis(images: Any, reduce: Any) -> Any:
    """`reduce` (np.min or np.max) of each image's coordinates on each axis (images x n x 3 ->
    images x 3), one strided reduction per axis: numpy's reduction over the middle axis of the
    whole array took 2-3 ms of HexSticks' 2,256 cells under 48 transformations, these 0.1-0.4 ms."""
    flat = images.reshape(len(images), -1)
    return np.stack([reduce(flat[:, axis::3], axis=1) for axis in range(3)], axis=1)


def normalise(cells: Iterable[Cell]) -> Shape:
    """Translate so that the minimum of each coordinate is 0 and sort: equal shapes compare equal."""
    cells = tuple(cells)
    xs, ys, zs = zip(*cells, strict=True)
    low_x, low_y, low_z = min(xs), min(ys), min(zs)
    return tuple(sorted((x - low_x, y - low_y, z - low_z) for x, y, z in cells))


def transform(cells: Iterable[Cell], iso: Isometry) -> list[Cell]:
    return [iso.apply(c) for c in cells]


def orientations(cells: Iterable[Cell], group: Sequence[Isometry] = ROTATIONS) -> list[Shape]:
    """The distinct normalised images of a shape under a group, in a stable order."""
    cells = tuple(cells)
    if cells and (group is ROTATIONS or group is ISOMETRIES):
        forms = _forms_of(cells)
        return list(forms.rotations if group is ROTATIONS else forms.isometries)
    return list(_orientations(cells, tuple(group)))


def orientation_array(cells: Sequence[Cell], group: Sequence[Isometry] = ROTATIONS) -> Any:
    """`orientations` as a new int64 array (orientations x cells x 3), for callers that compute
    on them (the placements): made from the kept images without tuples of cells."""
    if cells and (group is ROTATIONS or group is ISOMETRIES):
        return _forms_of(cells).array(proper_only=group is ROTATIONS)
    return np.array(orientations(cells, group), np.int64).reshape(-1, len(cells), 3)


@functools.lru_cache(maxsize=4096)
def _orientations(cells: tuple[Cell, ...], group: tuple[Isometry, ...]) -> tuple[Shape, ...]:
    """Cached: a run over many figures (the yass corpus) asks again and again for the same pieces.
    Every image at once as arrays, each image's cells encoded as one number and sorted: a cell at
    a time in Python took 35 ms of Dracula's 0.11 s model."""
    if not group:
        return ()
    return distinct_shapes(images_at_origin(cells, group))


class _Forms:
    """A shape's images under the 48 isometries, worked out once for all the forms asked of it:
    its orientations under rotations and under every isometry, its canonical and mirror forms and
    its orientations' sizes. The images are kept as rows of encoded cells (8 bytes a cell) and made
    tuples only when asked. Kept per normalised shape (`_forms`): a piece's cells come in whatever
    order and place its reader gives, and the design search asked again for each of a candidate's
    pieces under another key, 16 images made where 6 pieces needed 6 (5 ms of its 36 ms a
    candidate under the profiler)."""

    def __init__(self, shape: Shape) -> None:
        keys, self.base = encoded(images_at_origin(shape, ISOMETRIES))
        first = _first_of_each(keys)  # ascending: the rotations' (the first 24 images) come first
        self.rows = keys[first]
        self.proper = sum(1 for number in first if number < len(ROTATIONS))
        self.canonical, self.mirror = _least_forms(keys, self.base)

    def array(self, proper_only: bool) -> Any:
        return _decoded(self.rows[: self.proper] if proper_only else self.rows, self.base)

    @functools.cached_property
    def isometries(self) -> tuple[Shape, ...]:
        return tuple(tuple(map(tuple, cells)) for cells in _decoded(self.rows, self.base).tolist())

    @functools.cached_property
    def rotations(self) -> tuple[Shape, ...]:
        return self.isometries[: self.proper]

    @functools.cached_property
    def sizes(self) -> tuple[Cell, ...]:
        sizes = _decoded(self.rows[: self.proper], self.base).max(axis=1) + 1
        return tuple((int(x), int(y), int(z)) for x, y, z in sizes.tolist())


@functools.lru_cache(maxsize=4096)
def _forms(shape: Shape) -> _Forms:
    return _Forms(shape)


@functools.lru_cache(maxsize=4096)
def _forms_given(cells: tuple[Cell, ...]) -> _Forms:
    return _forms(normalise(cells))


def _forms_of(cells: Iterable[Cell]) -> _Forms:
    """The forms of the shape, by the cells as given first (a look-up of the same tuple costs a
    hash; normalising it, 8 us for 12 cells, was called 48 times a design candidate)."""
    return _forms_given(tuple(cells))


def images_at_origin(cells: Sequence[Cell], group: Sequence[Isometry]) -> Any:
    """The shape under every isometry of the group at once (images x cells x 3, cells in the
    given order), each moved so that its least coordinates are 0."""
    points = np.array(cells, np.int64).reshape(-1, 3)
    axes, signs = _group_arrays(tuple(group))
    moved = points[:, axes].transpose(1, 0, 2) * signs[:, None, :]
    return moved - moved.min(axis=1, keepdims=True)


@functools.lru_cache(maxsize=64)
def _group_arrays(group: tuple[Isometry, ...]) -> tuple[Any, Any]:
    """The group's axes and signs as arrays, made once a group (read-only: shared by every call):
    made for each piece they were a third of `images_at_origin` on a design candidate's pieces."""
    axes = np.array([iso.axes for iso in group], np.int64).reshape(-1, 3)
    signs = np.array([iso.signs for iso in group], np.int64).reshape(-1, 3)
    axes.flags.writeable = signs.flags.writeable = False
    return axes, signs


def distinct_shapes(images: Any) -> tuple[Shape, ...]:
    """The distinct shapes among images of one shape (an array: images x cells x 3, no
    coordinate negative), each sorted, in the order first met, as tuples."""
    if not len(images):
        return ()
    return tuple(tuple(map(tuple, cells)) for cells in distinct_images(images).tolist())


def distinct_images(images: Any) -> Any:
    """`distinct_shapes` as an array (distinct images x cells x 3): each image's cells encoded as
    one number and sorted, so that images are compared as rows of numbers, not tuples of cells."""
    keys, base = encoded(images)
    return _decoded(keys[_first_of_each(keys)], base)


def orientation_sizes(cells: Sequence[Cell]) -> tuple[Cell, ...]:
    """The bounding box of each distinct orientation under rotations, in `orientations`' order,
    without making the orientations' cells (a coloured piece's placements never ask for them)."""
    return _forms_of(cells).sizes


def encoded(images: Any) -> tuple[Any, int]:
    """Each image's cells as numbers, sorted (images x cells), and the base they are written in: the
    numbers of two images compare as their cells do (no coordinate is negative)."""
    base = int(images.max()) + 1
    return np.sort((images[..., 0] * base + images[..., 1]) * base + images[..., 2], axis=1), base


def _first_of_each(keys: Any) -> list[int]:
    """The first image of each distinct row of `keys`, in the order met."""
    first: dict[tuple[int, ...], int] = {}
    for number, row in enumerate(map(tuple, keys.tolist())):
        first.setdefault(row, number)
    return list(first.values())


def _decoded(rows: Sequence[tuple[int, ...]] | Any, base: int) -> Any:
    """Rows of encoded cells (tuples or an array) back to cells (rows x cells x 3), all at once: a
    cell at a time in Python was most of a big piece's orientations (Dracula's 152-cell pieces)."""
    keys = np.array(rows, np.int64)
    return np.stack((keys // (base * base), keys // base % base, keys % base), axis=-1)


Colour = str | None  # a cell's colour; None: uncoloured
ColouredShape = tuple[tuple[Cell, Colour], ...]  # sorted by cell


def coloured_orientations(
    cells: Sequence[Cell], colours: Sequence[Colour], group: Sequence[Isometry] = ROTATIONS
) -> list[ColouredShape]:
    """The distinct normalised images of a coloured shape: two images with the same cells but the
    colours elsewhere are different ways to lie (a bar red at one end, turned end for end)."""
    return list(_coloured_orientations(tuple(cells), tuple(colours), tuple(group)))


@dataclass(frozen=True)
class ColouredImages:
    """The distinct images of a coloured shape, each a sorted row of numbers (a cell and its
    colour's rank in one): rows compare as the shapes do, cell by cell, then colour ("" for none
    first), so the least row is the canonical form without decoding the others. Every grid's
    coloured pieces are turned this way (the cube's by its isometries, the others' by their own
    matrices: `Grid.coloured_images`)."""

    rows: tuple[tuple[int, ...], ...]  # in the order first met
    base: int
    names: tuple[Colour, ...]  # by rank

    @staticmethod
    def of(moved: Any, colours: Sequence[Colour]) -> ColouredImages:
        """The distinct images among `moved` (images x cells x 3, each at its normal place, no
        coordinate negative; in the group's order), cell `i` of each coloured `colours[i]`."""
        names = sorted({colour or "" for colour in colours})  # "" (none) first; names are never empty
        if not len(moved):
            return ColouredImages((), 1, tuple(name or None for name in names))
        ranks = np.array([names.index(colour or "") for colour in colours], np.int64)
        base, kinds = int(moved.max()) + 1, len(names)
        keys = np.sort(((moved[..., 0] * base + moved[..., 1]) * base + moved[..., 2]) * kinds + ranks, axis=1)
        rows = tuple(dict.fromkeys(map(tuple, keys.tolist())))
        return ColouredImages(rows, base, tuple(name or None for name in names))

    def shape(self, row: tuple[int, ...]) -> ColouredShape:
        return self.shapes([row])[0]

    def arrays(self) -> tuple[Any, list[tuple[Colour, ...]]]:
        """Every image's cells (images x cells x 3) and its cells' colours, without making a tuple
        of each cell: what placements are made from."""
        cells, ranks = self.ranked()
        return cells, [tuple(map(self.names.__getitem__, row)) for row in ranks.tolist()]

    def ranked(self) -> tuple[Any, Any]:
        """Every image's cells (images x cells x 3) and each cell's colour as its index in `names`
        (images x cells): a number for each colour is then one look-up of a small table, not a
        dictionary look-up per cell (Dracula's nine 152-cell pieces: 33,000 of them). Worked out
        once and kept with the images (read-only): Dracula's pieces decoded afresh in every run
        were 2.8 ms of its 48."""
        return self._ranked

    @functools.cached_property
    def _ranked(self) -> tuple[Any, Any]:
        kinds = len(self.names)
        keys = np.array(self.rows, np.int64)
        if not len(keys):
            found = np.zeros((0, 0, 3), np.int64), np.zeros((0, 0), np.int64)
        else:
            found = _decoded(keys // kinds, self.base), keys % kinds
        read_only(*found)
        return found

    @functools.cached_property
    def canonical(self) -> ColouredShape:
        """The least image: the piece's canonical form (kept: the images are cached per piece, and
        a warm run asks each large piece's form and its mirror's again, 0.1 ms a decoding)."""
        return self.shape(min(self.rows))

    def shapes(self, rows: Sequence[tuple[int, ...]]) -> tuple[ColouredShape, ...]:
        kinds = len(self.names)
        keys = np.array(rows, np.int64)
        cells = _decoded(keys // kinds, self.base).tolist()
        named = (keys % kinds).tolist()
        return tuple(
            tuple(zip(map(tuple, shape), map(self.names.__getitem__, ranks), strict=True))
            for shape, ranks in zip(cells, named, strict=True)
        )


@functools.lru_cache(maxsize=1024)
def _coloured_images(
    cells: tuple[Cell, ...], colours: tuple[Colour, ...], group: tuple[Isometry, ...]
) -> ColouredImages:
    """Cached: a BurrTools file's large pieces are turned for their placements, their canonical
    forms and their mirror partners (Dracula: 0.25 s of its 0.30 s building, before any cache)."""
    return ColouredImages.of(images_at_origin(cells, group), colours)


@functools.lru_cache(maxsize=1024)
def _coloured_orientations(
    cells: tuple[Cell, ...], colours: tuple[Colour, ...], group: tuple[Isometry, ...]
) -> tuple[ColouredShape, ...]:
    if not group:
        return ()
    images = _coloured_images(cells, colours, group)
    return images.shapes(images.rows)


def coloured_images(
    cells: Sequence[Cell], colours: Sequence[Colour], group: Sequence[Isometry] = ROTATIONS
) -> ColouredImages:
    """The distinct images of a coloured shape under a group of isometries, kept for the next call."""
    return _coloured_images(tuple(cells), tuple(colours), tuple(group))


def coloured_orientation_arrays(
    cells: Sequence[Cell], colours: Sequence[Colour], group: Sequence[Isometry] = ROTATIONS
) -> tuple[Any, list[tuple[Colour, ...]]]:
    """`coloured_orientations` as arrays: each image's cells (images x cells x 3, sorted as the
    shapes are) and its cells' colours."""
    return _coloured_images(tuple(cells), tuple(colours), tuple(group)).arrays()


def coloured_orientation_ranks(cells: Sequence[Cell], colours: Sequence[Colour]) -> tuple[Any, Any, tuple[Colour, ...]]:
    """`coloured_orientation_arrays` under rotations with the colours as indexes (images x cells)
    into the names returned: for callers that turn each colour into a number."""
    images = _coloured_images(tuple(cells), tuple(colours), tuple(ROTATIONS))
    shapes, ranks = images.ranked()
    return shapes, ranks, images.names


def coloured_canonical(cells: Sequence[Cell], colours: Sequence[Colour]) -> ColouredShape:
    """The least coloured orientation under rotations, cell by cell then colour (none first):
    equal iff the same piece, colours and all."""
    return _coloured_images(tuple(cells), tuple(colours), tuple(ROTATIONS)).canonical


def coloured_mirror(cells: Sequence[Cell], colours: Sequence[Colour]) -> ColouredShape:
    """The canonical form of the shape's mirror image (kept for the next call: pairing mirror
    partners asks it of every large piece on every run, a cell at a time to reflect)."""
    return _coloured_mirror(tuple(cells), tuple(colours))


@functools.lru_cache(maxsize=1024)
def _coloured_mirror(cells: tuple[Cell, ...], colours: tuple[Colour, ...]) -> ColouredShape:
    return coloured_canonical(transform(cells, MIRROR), colours)


def canonical_shape(cells: Iterable[Cell]) -> Shape:
    """The least orientation under proper rotations: two pieces are the same piece iff equal."""
    return _forms_of(cells).canonical


def mirror_shape(cells: Iterable[Cell]) -> Shape:
    """The canonical shape of the piece's mirror image: the least of its images under the
    reflections (each is a rotation of the mirror image)."""
    return _forms_of(cells).mirror


def canonical_and_mirror_shapes(pieces: Sequence[Sequence[Cell]]) -> list[tuple[Shape, Shape]]:
    """`canonical_shape` and `mirror_shape` of each piece, worked out as `_Forms` does but kept
    nowhere and without the distinct orientations: for callers whose pieces are new each time
    (the design search's cuts, where each piece's forms, made and cached one at a time, took
    1.2 ms a design of six pieces)."""
    return [_least_forms(*encoded(images_at_origin(piece, ISOMETRIES))) if piece else ((), ()) for piece in pieces]


def _least_forms(keys: Any, base: int) -> tuple[Shape, Shape]:
    """The least image under the rotations (the first 24 rows of encoded images under
    ISOMETRIES) and under the reflections, as cells: the canonical and the mirror shape."""
    rows = keys.tolist()
    proper = len(ROTATIONS)
    return _cells_of_key(min(rows[:proper]), base), _cells_of_key(min(rows[proper:]), base)


def _cells_of_key(row: Sequence[int], base: int) -> Shape:
    return tuple((key // (base * base), key // base % base, key % base) for key in row)


# The six unit steps between face neighbours; steps d and d ^ 1 are opposite, d >> 1 is the axis.
STEPS: tuple[Cell, ...] = ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1))


def step(cell: Cell, direction: int) -> Cell:
    """The face neighbour of a cell along one of the six STEPS."""
    dx, dy, dz = STEPS[direction]
    return (cell[0] + dx, cell[1] + dy, cell[2] + dz)


def bounding_box(cells: Iterable[Cell]) -> Cell:
    """Size of the smallest box holding the cells (assumes non-empty input)."""
    points = cell_array(list(cells))
    low, high = points.min(axis=0).tolist(), points.max(axis=0).tolist()
    return (high[0] - low[0] + 1, high[1] - low[1] + 1, high[2] - low[2] + 1)


def box_cells(size: Sequence[int], hollow: bool = False) -> list[Cell]:
    """The cells of a box; hollow keeps only the cells on its surface."""
    sx, sy, sz = (*size, 1, 1)[:3]
    cells = []
    for z, y, x in product(range(sz), range(sy), range(sx)):
        inside = 0 < x < sx - 1 and 0 < y < sy - 1 and 0 < z < sz - 1
        if not (hollow and inside):
            cells.append((x, y, z))
    return cells


def layer_cells(layers: Sequence[Sequence[str]]) -> list[Cell]:
    """Cells drawn as layers (z = 0 first) of rows (y = row index) of characters (x)."""
    return [
        (x, y, z)
        for z, layer in enumerate(layers)
        for y, row in enumerate(layer)
        for x, char in enumerate(row)
        if char not in ". "
    ]


FOAM_SIZE = 5
SELF_MAP_BLOCK_ENTRIES = 800_000  # cells x isometries of one block of `self_maps`: 8 turns of 100,000 cells


def foam_ring_order() -> list[tuple[int, int]]:
    """(x, y) of a foam piece's 16 border cells, clockwise from the top-left corner (y = row)."""
    last = FOAM_SIZE - 1
    top = [(x, 0) for x in range(FOAM_SIZE)]
    right = [(last, y) for y in range(1, FOAM_SIZE)]
    bottom = [(x, last) for x in range(last - 1, -1, -1)]
    left = [(0, y) for y in range(last - 1, 0, -1)]
    return top + right + bottom + left


def foam_rows(ring: str) -> list[str]:
    """The five rows of a foam piece given by its border bits ('1' filled), solid 3x3 centre."""
    grid = [
        ["#" if 0 < x < FOAM_SIZE - 1 and 0 < y < FOAM_SIZE - 1 else "." for x in range(FOAM_SIZE)]
        for y in range(FOAM_SIZE)
    ]
    for (x, y), bit in zip(foam_ring_order(), ring, strict=True):
        grid[y][x] = "#" if bit == "1" else "."
    return ["".join(row) for row in grid]


def self_maps(
    cells: Sequence[Cell],
    group: Sequence[Isometry],
    labels: Mapping[Cell, Hashable] | None = None,
    deadline: Deadline = NO_DEADLINE,
) -> tuple[Any, list[Isometry]]:
    """The maps `iso` then a shift that carry a cell set onto itself (and each cell onto a cell
    with the same label, where labels are given: optional cells, colours): for each, the index in
    `cells` of every cell's image (one row per map, in the group's order), and the isometries.

    A symmetry of a finite set fixes its bounding box: only the isometries that carry the box's
    size onto itself are tried (Dracula's 17 x 12 x 8 target: one in six), each image read as the
    cells' offsets in the box, turned and flipped by indexing (integer matrix products in numpy
    are plain loops: 6 ms of Dracula's warm run). The group in blocks of isometries, the clock
    read between blocks (all 48 images of 100,000 cells took 1.7 s at once).
    """
    points = np.array(cells, np.int64).reshape(-1, 3)
    low = points.min(axis=0)
    size = points.max(axis=0) - low + 1
    where = np.full(tuple(size.tolist()), -1, np.int64)
    offsets = points - low
    where[tuple(offsets.T)] = np.arange(len(points))
    both = np.concatenate([offsets, size - 1 - offsets], axis=1)  # each axis as it is, then reversed
    label = None
    if labels is not None:
        codes: dict[Hashable, int] = {}
        label = np.array([codes.setdefault(labels[c], len(codes)) for c in cells], np.int64)
    sizes = size.tolist()
    fitting = [iso for iso in group if all(sizes[axis] == sizes[k] for k, axis in enumerate(iso.axes))]
    block = max(1, SELF_MAP_BLOCK_ENTRIES // max(1, len(points)))
    rows, kept = [np.zeros((0, len(points)), np.int64)], []
    for start in range(0, len(fitting), block):
        isometries = fitting[start : start + block]
        columns = np.array(
            [[axis + 3 * (sign < 0) for axis, sign in zip(iso.axes, iso.signs, strict=True)] for iso in isometries],
            np.int64,
        )
        moved = both[:, columns]  # cells x isometries x 3: each image at the box's corner
        targets = where[moved[..., 0], moved[..., 1], moved[..., 2]].T
        keeps = (targets >= 0).all(axis=1)
        if label is not None:
            keeps &= (label[np.maximum(targets, 0)] == label).all(axis=1)
        rows.append(targets[keeps])
        kept += [iso for iso, keep in zip(isometries, np.asarray(keeps, bool).tolist(), strict=True) if keep]
        deadline.check("finding the target's symmetries")
    return np.concatenate(rows), kept


def connected_components(cells: Iterable[Cell]) -> list[list[Cell]]:
    """Face-connected parts of a cell set, each sorted, ordered by their least cell."""
    remaining = set(cells)
    parts = []
    while remaining:
        start = min(remaining)
        remaining.discard(start)
        stack, part = [start], [start]
        while stack:
            x, y, z = stack.pop()
            for n in ((x + 1, y, z), (x - 1, y, z), (x, y + 1, z), (x, y - 1, z), (x, y, z + 1), (x, y, z - 1)):
                if n in remaining:
                    remaining.discard(n)
                    stack.append(n)
                    part.append(n)
        parts.append(sorted(part))
    return sorted(parts)


def dimension(cells: Iterable[Cell]) -> int:
    """0 for a point, 1 for cells on one line, 2 for one plane, else 3.

    Counting the axes along which the cells spread is exact for face-connected sets, which can
    only spread along an axis by stepping along it.
    """
    cells = list(cells)
    return sum(1 for i in range(3) if len({c[i] for c in cells}) > 1)
