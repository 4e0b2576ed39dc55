"""How a grid's cells look: the solids each grid's cells are (a grid says which: `Grid.solid`,
`Grid.real`, `Grid.kind_period`, `Grid.balls`), for the page, the PNG and the STL meshes.

Cells of a grid repeat: a cell's solid is the solid of its `kind` (its coordinates modulo the
grid's `kind_period`) moved by `grid.real(cell - kind)`, since `real` is linear. So a picture
carries the faces of each kind once and, per cell, a kind and an origin. Faces are listed with
their corners counter-clockwise seen from outside, so a drawing can tell the faces turned away.
Spheres are drawn as balls (`BALL_RADIUS`), not faces.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from cpsolve.geometry import Cell

Point = tuple[float, float, float]
Face = list[Point]
BALL_RADIUS = 0.5  # touching balls are one unit apart
HEIGHT = math.sqrt(3) / 2  # of a triangle of unit sides
TILE_HEIGHT = 0.25  # a flat polyform's tile, in its cells' edges


def triangle_prism(cell: Cell) -> list[Face]:
    """The prism grid's cell `cell` (below its kind period): the triangle of its layer, a unit high."""
    return _prism(_triangle(cell))


def triangle_tile(cell: Cell) -> list[Face]:
    """The triangle grid's cell: the prism grid's triangle as a flat tile."""
    return _prism(_triangle(cell), TILE_HEIGHT)


def hexagon_prism() -> list[Face]:
    """The hex grid's cell: a hexagon one unit across its sides (corners up and down, rows of
    them along x), centred on its cell's point, a unit high."""
    radius = 1 / math.sqrt(3)
    corners = [
        (radius * math.cos(math.radians(30 + 60 * k)), radius * math.sin(math.radians(30 + 60 * k))) for k in range(6)
    ]
    return _prism(corners)


def stick(start: tuple[float, float], end: tuple[float, float], width: float) -> list[Face]:
    """An edge grid's segment: a bar `width` thick from one end point to the other, run on by half
    its width at each end so that bars meeting at a corner join."""
    (x0, y0), (x1, y1) = start, end
    length = math.hypot(x1 - x0, y1 - y0)
    along = ((x1 - x0) / length * width / 2, (y1 - y0) / length * width / 2)
    across = (-along[1], along[0])
    ends = [(x0 - along[0], y0 - along[1]), (x1 + along[0], y1 + along[1])]
    corners = [
        (ends[0][0] - across[0], ends[0][1] - across[1]),
        (ends[1][0] - across[0], ends[1][1] - across[1]),
        (ends[1][0] + across[0], ends[1][1] + across[1]),
        (ends[0][0] + across[0], ends[0][1] + across[1]),
    ]
    return _prism(corners, width)


def box() -> list[Face]:
    """The cube grid's cell: the unit cube."""
    return _box()


def rhombic_part(kind: Cell) -> list[Face]:
    """The rhombic grid's cell `kind`: a tetrahedron of a cube cut by its six diagonal planes."""
    return _tetrahedron(_rhombic_corners(kind))


def tetra_octa_part(kind: Cell) -> list[Face]:
    """The tetra-octa grid's cell `kind`: a tetrahedron of a 3x3x3 block's cube."""
    return _tetrahedron(_tetra_octa_corners(kind))


def _triangle(cell: Cell) -> list[tuple[float, float]]:
    x, y = cell[0], cell[1]
    left, bottom = x / 2, y * HEIGHT
    if (x + y) % 2 == 0:  # pointing up: the base below
        return [(left, bottom), (left + 1, bottom), (left + 0.5, bottom + HEIGHT)]
    return [(left, bottom + HEIGHT), (left + 0.5, bottom), (left + 1, bottom + HEIGHT)]


def _prism(corners: Sequence[tuple[float, float]], height: float = 1.0) -> list[Face]:
    """The polygon (convex, its corners in order) raised to a prism `height` high."""
    low = [(x, y, 0.0) for x, y in corners]
    high = [(x, y, height) for x, y in corners]
    sides = len(corners)
    faces = [low, high] + [[low[i], low[(i + 1) % sides], high[(i + 1) % sides], high[i]] for i in range(sides)]
    return _outward(faces)


def _box() -> list[Face]:
    corners = [(float(x), float(y), float(z)) for x, y, z in itertools.product((0, 1), repeat=3)]
    faces = []
    for axis in range(3):
        for side in (0.0, 1.0):
            face = [c for c in corners if c[axis] == side]
            face[2], face[3] = face[3], face[2]  # around the square, not across it
            faces.append(face)
    return _outward(faces)


def _rhombic_corners(kind: Cell) -> list[Point]:
    """A cube cut by its six diagonal planes: the part at voxel `kind` of the 5x5x5 block has the
    cube's centre, the centre of the face where one coordinate is 0 or 4, and the two corners of
    that face's edge where another is 1 or 3 (the third, 2, runs along the edge)."""
    face_axis = next(a for a in range(3) if kind[a] in (0, 4))
    edge_axis = next(a for a in range(3) if kind[a] in (1, 3))
    along = 3 - face_axis - edge_axis
    centre: list[float] = [0.5, 0.5, 0.5]
    face = list(centre)
    face[face_axis] = 0.0 if kind[face_axis] == 0 else 1.0
    first, second = list(face), list(face)
    for corner in (first, second):
        corner[edge_axis] = 0.0 if kind[edge_axis] == 1 else 1.0
    first[along], second[along] = 0.0, 1.0
    return [_point(centre), _point(face), _point(first), _point(second)]


def _tetra_octa_corners(kind: Cell) -> list[Point]:
    """A 3x3x3 block is a cube: its centre voxel the regular tetrahedron on four of the cube's
    corners, each corner voxel the small tetrahedron on that corner and its three neighbours."""
    offset = [v % 3 for v in kind]
    if offset == [1, 1, 1]:
        block = [v // 3 for v in kind]
        odd = sum(block) % 2 == 1
        # the corner pieces sit where the coordinates have an even number of 2s in odd blocks:
        # the tetrahedron takes the other four corners
        corners = [c for c in itertools.product((0, 1), repeat=3) if (sum(c) % 2 == 0) != odd]
        return [_moved(c, block) for c in corners]
    block = [v // 3 for v in kind]  # a kind lies in one of the 2x2x2 blocks of the period
    corner = [v // 2 for v in offset]
    neighbours = [[1 - v if axis == a else v for axis, v in enumerate(corner)] for a in range(3)]
    return [_moved(corner, block)] + [_moved(n, block) for n in neighbours]


def _moved(corner: Sequence[int], block: Sequence[int]) -> Point:
    return (float(corner[0] + block[0]), float(corner[1] + block[1]), float(corner[2] + block[2]))


def _point(values: Sequence[float]) -> Point:
    return (float(values[0]), float(values[1]), float(values[2]))


def _tetrahedron(corners: Sequence[Point]) -> list[Face]:
    return _outward([[corners[i] for i in range(4) if i != left_out] for left_out in range(4)])


def _outward(faces: list[Face]) -> list[Face]:
    """Each face's corners turned counter-clockwise seen from outside the (convex) solid."""
    points = np.array([p for face in faces for p in face])
    middle = points.mean(axis=0)
    turned = []
    for face in faces:
        outward = np.dot(face_normal(face), np.mean(face, axis=0) - middle) > 0
        turned.append(face if outward else face[::-1])
    return turned


def face_normal(face: Face) -> Any:
    """The unit normal of a flat face, by the right hand round its corners (outward for the
    faces of a grid's `solid`)."""
    corners = np.asarray(face, np.float64)
    normal = np.cross(corners[1] - corners[0], corners[2] - corners[0])
    return normal / np.linalg.norm(normal)
