"""A solution's pieces as STL meshes for 3-D printing (`cpsolve run --stl DIR`).

A piece is a set of unit cubes. Its surface is every face of a cube whose neighbour across it is
not in the piece, so no face lies inside the piece and the mesh is closed. With a gap, each piece
is shrunk by half the gap on every side, as BurrTools does so that printed pieces slide: the
points at least that far (along every axis) from all cells outside the piece. That shape is a
union of blocks on a finer grid, three per cube along each axis (a sliver, the middle, a
sliver), where a sliver block is kept only when the cells it reaches towards are in the piece; a
concave corner keeps a small notch, and cubes that touch only along an edge come apart, so every
edge of the mesh joins exactly two faces. Faces are whole cells of that grid, so neighbouring
faces share their corners (no cracks), and each is wound so that its normal points out.

With a bevel, every convex edge of the (shrunk) piece is cut at 45 degrees, the cut `bevel`
wide on each of its two faces, as BurrTools' export offers: for each cube and each of its edges
whose two faces are on the outside, a prism along that edge is taken away (manifold3d's
booleans, which keep the result closed). Prisms of cubes in a row meet, so a long edge is cut
in one straight line; concave edges are left alone; where three cut edges meet, the corner is
cut by all three.

On BurrTools' other grids a cell is a solid of cpsolve.grids.solids. Prisms, and the tetrahedra
that the rhombic and tetra-octa grids cut a cube into, are convex: a piece is the union of its
cells' hulls (manifold3d's booleans fuse the faces two cells share, so none lies inside), and a
gap takes away from it every point nearer than half the gap to the outside: the erosion by the
hull of the cells' face normals, each scaled to half the gap, which moves every face of the piece
in by exactly that (on a convex corner the faces simply meet further in; a concave one keeps the
small solid's shape). Balls of the sphere grid touch at one point only, so a ball piece is its
balls joined by a neck (NECK_RADIUS) along each pair of neighbours, as BurrTools' sphere export
joins them; a gap makes the balls smaller (never thinner than the necks, so a ball piece never
comes apart). A piece of solids thinner than the gap somewhere would come apart there, and is
refused. Bevels are the cube grid's alone (BurrTools bevels cubes only).

Each piece keeps its place in the assembly (a viewer that opens them all shows the solution);
coordinates are millimetres, `unit` to a cell (a cube's side, a ball's diameter, a prism's
edge, the cube that the rhombic and tetra-octa grids cut up). The meshes are written by trimesh
(the `stl` extra), which the tests also use to check that each is watertight, wound consistently
and of the expected volume.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import product
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from cpsolve.errors import CpsolveError, OutOfTimeError, OutputError
from cpsolve.files import write_file
from cpsolve.geometry import Cell
from cpsolve.grids import CUBE, Grid, solids
from cpsolve.limits import DEFAULT_UNIT_MM, MAX_UNIT_MM, MIN_UNIT_MM, NO_DEADLINE, Deadline
from cpsolve.models import PuzzleModel
from cpsolve.models.base import Disassemblable
from cpsolve.symmetry import Solution
from cpsolve.workers import STOPPED, Forked, cores, fork_available

NECK_RADIUS = 0.25  # of a ball piece's necks, in ball diameters: clear of every other piece's balls (docs/pictures.md)
BALL_SEGMENTS = 32  # a ball's mesh: a geodesic sphere this many segments round (512 triangles)
NECK_SEGMENTS = 24  # points round each end of a neck


@dataclass(frozen=True)
class StlOptions:
    """Millimetres to a cube's side, the gap between neighbouring pieces (each piece shrinks by
    half of it on every side), and how wide the cut of each convex edge is on its faces."""

    unit: float = DEFAULT_UNIT_MM
    gap: float = 0.0
    bevel: float = 0.0

    def check(self, grid: Grid = CUBE) -> None:
        """Refuse sizes a printer cannot take on the grid, in one line."""
        cell = grid.unit_name
        if not MIN_UNIT_MM <= self.unit <= MAX_UNIT_MM:  # inf and nan too: vertices a printer can take
            raise CpsolveError(
                f"--stl-unit: {cell} in millimetres, from {MIN_UNIT_MM:g} to {MAX_UNIT_MM:g}, not {self.unit}"
            )
        if grid.balls:  # a ball at least as thick as its necks
            most = self.unit * (1 - 2 * NECK_RADIUS)
            if not 0 <= self.gap < most:
                raise CpsolveError(
                    f"--stl-gap: from 0 to less than {most:g} mm (balls of {self.unit:g} mm, thicker than their necks),"
                    f" not {self.gap}"
                )
        elif not 0 <= self.gap < self.unit:
            raise CpsolveError(f"--stl-gap: from 0 to less than {cell} ({self.unit:g} mm), not {self.gap}")
        if grid is not CUBE and self.bevel:
            raise CpsolveError(
                f"--stl-bevel: only cubes' edges are bevelled (as in BurrTools), not the {grid.name} grid's"
            )
        half_side = (self.unit - self.gap) / 2  # two cuts on one face of a shrunk cube may not cross
        if not 0 <= self.bevel < half_side:
            raise CpsolveError(
                f"--stl-bevel: from 0 to less than half a shrunk cube's side ({half_side:g} mm), not {self.bevel}"
            )


def piece_mesh(cells: Sequence[Cell], options: StlOptions = StlOptions(), grid: Grid = CUBE) -> tuple[Any, Any]:
    """The piece's surface: vertices (millimetres, float64, n x 3) and triangles (int64, m x 3,
    each wound counter-clockwise seen from outside)."""
    if grid is not CUBE:
        solid = _balls(cells, grid, options) if grid.balls else _solids(cells, grid, options)
        mesh = solid.to_mesh64()
        return np.asarray(mesh.vert_properties, np.float64)[:, :3] * options.unit, np.asarray(mesh.tri_verts, np.int64)
    inside = set(cells)
    sliver = options.gap / 2 / options.unit  # in cubes
    if not sliver:  # the cubes themselves, on their own grid
        corners, triangles = _surface(inside)
        vertices = corners.astype(np.float64)
    else:
        blocks = set()
        for cell in inside:
            for offsets in product((0, 1, 2), repeat=3):
                if _kept(cell, offsets, inside):
                    blocks.add((3 * cell[0] + offsets[0], 3 * cell[1] + offsets[1], 3 * cell[2] + offsets[2]))
        lines, triangles = _surface(blocks)
        vertices = lines // 3 + np.array([0.0, sliver, 1.0 - sliver])[lines % 3]
    if options.bevel:
        vertices, triangles = _bevelled(inside, vertices, triangles, sliver, options.bevel / options.unit)
    return vertices * options.unit, triangles


def _solids(cells: Sequence[Cell], grid: Grid, options: StlOptions) -> Any:
    """A piece of convex cells (in grid units): their hulls fused, eroded by half the gap."""
    import manifold3d

    kinds = [grid.solid(kind) for kind in grid.cell_kinds()]  # each kind's faces
    points = [np.array([corner for face in faces for corner in face]) for faces in kinds]
    placed = grid.placed_cells(cells)
    # an edge grid's crossing marks have no solid: only its sticks are printed. The corners are
    # rounded to a nanometre of a unit, so that cells whose solids touch share their corners
    # exactly and fuse (hexagons' corners at irrational heights missed by a last bit)
    hulls = [
        manifold3d.Manifold.hull_points(np.round(points[kind] + origin, 9))
        for kind, origin in placed
        if len(points[kind])
    ]
    piece = manifold3d.Manifold.batch_boolean(hulls, manifold3d.OpType.Add)
    if not options.gap:
        return piece
    normals = np.array([solids.face_normal(face) for faces in kinds for face in faces])
    reach = options.gap / 2 / options.unit
    eroder = manifold3d.Manifold.hull_points(np.concatenate([normals, -normals]) * reach)
    return _whole(piece.minkowski_difference(eroder), len(piece.decompose()), options)


def _balls(cells: Sequence[Cell], grid: Grid, options: StlOptions) -> Any:
    """A ball piece (in ball diameters): each ball, shrunk by half the gap, and a neck of
    NECK_RADIUS between each two that touch (their centres one apart)."""
    import manifold3d

    centres = grid.real(np.asarray(cells, np.int64))
    radius = solids.BALL_RADIUS - options.gap / 2 / options.unit
    parts = [manifold3d.Manifold.sphere(radius, BALL_SEGMENTS).translate(tuple(centre)) for centre in centres.tolist()]
    for first, second in _touching(centres):
        parts.append(manifold3d.Manifold.hull_points(_neck(centres[first], centres[second])))
    return manifold3d.Manifold.batch_boolean(parts, manifold3d.OpType.Add)  # a ball stays thicker than its necks


def _touching(centres: Any) -> list[tuple[int, int]]:
    """The pairs of balls whose centres are one diameter apart, found among the balls of the unit
    boxes next to each one's (every pair compared was 2.9 s of a 1,600-ball piece)."""
    points = centres.tolist()
    boxes: dict[tuple[int, ...], list[int]] = {}
    corners = np.floor(centres).astype(np.int64).tolist()
    for ball, corner in enumerate(corners):
        boxes.setdefault(tuple(corner), []).append(ball)
    pairs = []
    for ball, (x, y, z) in enumerate(corners):
        for dx, dy, dz in product((-1, 0, 1), repeat=3):
            for other in boxes.get((x + dx, y + dy, z + dz), ()):
                if other > ball and abs(math.dist(points[ball], points[other]) - 1) < 1e-9:
                    pairs.append((ball, other))
    return sorted(pairs)


def _neck(start: Any, end: Any) -> Any:
    """Points round both ends of a neck from one ball's centre to the other's."""
    along = (end - start) / np.linalg.norm(end - start)
    across = np.cross(along, [1.0, 0.0, 0.0] if abs(along[0]) < 0.9 else [0.0, 1.0, 0.0])
    across /= np.linalg.norm(across)
    other = np.cross(along, across)
    turns = np.linspace(0, 2 * np.pi, NECK_SEGMENTS, endpoint=False)
    ring = NECK_RADIUS * (np.outer(np.cos(turns), across) + np.outer(np.sin(turns), other))
    return np.concatenate([ring + start, ring + end])


class GapTooWide(CpsolveError):
    """The gap takes a piece away, or cuts it in two, where it is thinner than the gap."""


def _whole(solid: Any, parts: int, options: StlOptions) -> Any:
    """The shrunk piece, refused when the gap took it away or cut it in two (`parts`: the bodies
    it had before)."""
    if solid.is_empty() or len(solid.decompose()) > parts:
        raise GapTooWide(
            f"--stl-gap: {options.gap:g} mm cuts a piece apart (it is thinner than the gap there); use a smaller gap"
        )
    return solid


def _bevelled(inside: set[Cell], vertices: Any, triangles: Any, sliver: float, bevel: float) -> tuple[Any, Any]:
    """The piece (in cubes) with a prism along each convex edge taken away (manifold3d)."""
    import manifold3d

    solid = manifold3d.Manifold(manifold3d.Mesh64(np.asarray(vertices, np.float64), np.asarray(triangles, np.uint32)))
    prisms = [manifold3d.Manifold.hull_points(points) for points in _edge_prisms(inside, sliver, bevel)]
    if prisms:
        solid = manifold3d.Manifold.batch_boolean([solid, *prisms], manifold3d.OpType.Subtract)
    mesh = solid.to_mesh64()
    return np.asarray(mesh.vert_properties, np.float64)[:, :3], np.asarray(mesh.tri_verts, np.int64)


def _edge_prisms(inside: set[Cell], sliver: float, bevel: float) -> list[Any]:
    """For each cube and each edge whose two faces are outside the piece, the corners of a prism
    along it (one cube long) that holds the cut: in (u, v), how far a point is beyond the two
    faces, the piece is u, v <= 0 and the cut u + v >= -bevel. The prism reaches `reach` beyond
    each face, into cells that are not the piece's, and a triangle of that size into the cell
    across the edge, whose own edge, if it is the piece's, is cut wider anyway."""
    reach = bevel / 2
    section = [(-bevel - reach, reach), (reach, -bevel - reach), (reach, 0.0), (0.0, reach)]
    prisms = []
    for cell in inside:
        for first, second in ((0, 1), (0, 2), (1, 2)):
            along = 3 - first - second
            for sign_first, sign_second in product((-1, 1), repeat=2):
                if _beside(cell, first, sign_first) in inside or _beside(cell, second, sign_second) in inside:
                    continue
                face_first = cell[first] + (1 - sliver if sign_first > 0 else sliver)
                face_second = cell[second] + (1 - sliver if sign_second > 0 else sliver)
                points = []
                for u, v in section:
                    for end in (cell[along], cell[along] + 1):
                        point = [0.0, 0.0, 0.0]
                        point[first] = face_first + sign_first * u
                        point[second] = face_second + sign_second * v
                        point[along] = end
                        points.append(point)
                prisms.append(np.array(points, np.float64))
    return prisms


def _beside(cell: Cell, axis: int, side: int) -> Cell:
    moved = list(cell)
    moved[axis] += side
    return (moved[0], moved[1], moved[2])


def _surface(blocks: set[Cell]) -> tuple[Any, Any]:
    """The faces of a union of unit blocks that no other block covers: the corners as grid
    lines (int64, n x 3) and the triangles (int64, m x 3), wound to face out."""
    vertex_of: dict[tuple[int, int, int], int] = {}
    triangles: list[tuple[int, int, int]] = []
    for block in blocks:
        for axis, side in product(range(3), (-1, 1)):
            beyond = list(block)
            beyond[axis] += side
            if tuple(beyond) in blocks:
                continue
            corners = [_vertex(vertex_of, point) for point in _face(block, axis, side)]
            triangles += [(corners[0], corners[1], corners[2]), (corners[0], corners[2], corners[3])]
    lines = np.array(sorted(vertex_of, key=vertex_of.__getitem__), np.int64).reshape(-1, 3)
    return lines, np.array(triangles, np.int64).reshape(-1, 3)


def _kept(cell: Cell, offsets: Sequence[int], inside: set[Cell]) -> bool:
    """Whether a block of the finer grid is in the shrunk piece: every cell it reaches towards
    (one step down for a low sliver, up for a high one, and their combinations) is in the piece."""
    reach = [(0,) if offset == 1 else (0, offset - 1) for offset in offsets]
    return all((cell[0] + dx, cell[1] + dy, cell[2] + dz) in inside for dx, dy, dz in product(*reach))


def _face(block: Sequence[int], axis: int, side: int) -> list[tuple[int, int, int]]:
    """The four corners (lines of the finer grid) of a block's face on one side, in the order that
    makes its normal point that way: counter-clockwise seen from outside."""
    first, second = (axis + 1) % 3, (axis + 2) % 3  # first x second = axis, by the cyclic order
    corners = []
    for step_first, step_second in ((0, 0), (1, 0), (1, 1), (0, 1)):
        point = list(block)
        point[axis] += 1 if side > 0 else 0
        point[first] += step_first
        point[second] += step_second
        corners.append((point[0], point[1], point[2]))
    return corners if side > 0 else corners[::-1]


def _vertex(vertex_of: dict[tuple[int, int, int], int], point: tuple[int, int, int]) -> int:
    if point not in vertex_of:
        vertex_of[point] = len(vertex_of)
    return vertex_of[point]


def file_names(labels: Sequence[str]) -> list[str]:
    """One file name per piece from its label (as the text, the plan and the page name it),
    numbered in the assembly's order so that the files list as the pieces do."""
    width = len(str(len(labels)))
    safe = [re.sub(r"[^A-Za-z0-9_.-]+", "_", label).strip(".") or "piece" for label in labels]
    return [f"{n:0{width}d}-{name}.stl" for n, name in enumerate(safe, 1)]


class Pieces(NamedTuple):
    """A solution's pieces to print: the grid of their cells, and each piece's label (as the text
    drawing and the plan name it) and cells."""

    grid: Grid
    labelled: list[tuple[str, Sequence[Cell]]]


def check_meshable(model: PuzzleModel) -> Grid:
    """The grid of the puzzle's pieces; a puzzle without pieces refused in one line."""
    if not isinstance(model, Disassemblable):
        raise CpsolveError(f"{model.name}: --stl writes a packing's pieces; a {model.kind} puzzle has no pieces")
    return model.disassembly_grid()


def solution_pieces(model: PuzzleModel, solution: Solution) -> Pieces:
    """Each piece of a solution, on its grid."""
    grid = check_meshable(model)
    assert isinstance(model, Disassemblable)
    return Pieces(grid, [(piece.label, piece.cells) for piece in model.assembled(solution)])


def stl_files(pieces: Pieces, options: StlOptions, deadline: Deadline = NO_DEADLINE) -> list[tuple[str, bytes]]:
    """Each piece's file name (as --stl names it) and binary STL, every mesh made before any is
    handed back (a piece the gap cuts apart leaves nothing half-written). Raises OutOfTimeError
    once `deadline` passes (see `stl_meshes`)."""
    options.check(pieces.grid)
    meshes = stl_meshes(pieces, options, deadline)
    return list(zip(file_names([label for label, _ in pieces.labelled]), meshes, strict=True))


def write_stl(folder: Path, files: Sequence[tuple[str, bytes]]) -> tuple[list[Path], list[Path]]:
    """The pieces' files in `folder` (made if missing), each written whole or not at all
    (cpsolve.files). Returns the files written and those of them that replaced a file there."""
    if folder.exists() and not folder.is_dir():
        raise OutputError(f"{folder}: --stl takes a folder for the pieces' files; this is a file")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise OutputError(f"{folder}: cannot make the folder for --stl: {error.strerror}") from None
    written, replaced = [], []
    for name, data in files:
        path = folder / name
        if path.exists():
            replaced.append(path)
        write_file(path, data, "the piece's STL")
        written.append(path)
    return written, replaced


def stl_meshes(pieces: Pieces, options: StlOptions, deadline: Deadline = NO_DEADLINE) -> list[bytes]:
    """Each piece's binary STL. Under a deadline the pieces are meshed in forked processes (one a
    core), which are ended when it passes: one mesh is a single call into manifold3d that cannot be
    interrupted (a piece of 1,600 balls took 18 s), and a thousand bevelled cubes 12 s, both past a
    5 s limit when they were made in the run's process after it."""
    total = len(pieces.labelled)
    if deadline.at is None or not fork_available():
        made: list[bytes] = []
        for piece in pieces.labelled:
            deadline.check(f"making the pieces' meshes ({len(made)} of {total} made)")
            mesh = _one_stl(piece, options, pieces.grid)
            if isinstance(mesh, str):
                raise GapTooWide(mesh)
            made.append(mesh)
        return made
    deadline.check(f"making the pieces' meshes (0 of {total} made)")
    found: dict[int, bytes] = {}
    units = list(pieces.labelled)
    stream = Forked(min(cores(), total)).stream(
        lambda piece: iter([_one_stl(piece, options, pieces.grid)]), units, stop=deadline.passed
    )
    for index, item in stream:
        if item is STOPPED or deadline.passed():
            stream.close()  # the workers are ended with the stream
            raise OutOfTimeError(f"making the pieces' meshes ({len(found)} of {total} made)")
        if isinstance(item, bytes):
            found[index] = item
        elif isinstance(item, str):  # the one-line refusal of a piece the gap cuts apart
            raise GapTooWide(item)
    return [found[index] for index in range(total)]


def _one_stl(piece: tuple[str, Sequence[Cell]], options: StlOptions, grid: Grid) -> bytes | str:
    """One piece's binary STL, or the one-line message that refuses it (a str: it may come back
    from a forked process, where an exception would lose its kind)."""
    import trimesh

    label, cells = piece
    try:
        vertices, triangles = piece_mesh(cells, options, grid)
    except GapTooWide:
        return (
            f"--stl-gap: {options.gap:g} mm cuts piece {label} apart (it is thinner than the gap there);"
            " use a smaller gap"
        )
    data = trimesh.Trimesh(vertices, triangles, process=False).export(file_type="stl")
    assert isinstance(data, bytes)  # binary STL
    return data
