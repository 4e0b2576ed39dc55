"""`--stl`: each piece a closed, outward-wound mesh of the right volume (checked with trimesh),
shrunk by half the gap; what cannot be meshed or written refused in one line."""

from __future__ import annotations

from itertools import product
from pathlib import Path

import numpy as np
import pytest
from conftest import SPECS, corpus_dir
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import cpsolve
from cpsolve.cli import app
from cpsolve.errors import CpsolveError
from cpsolve.grids import CUBE, Grid, grid_named, solids
from cpsolve.models.base import Disassemblable
from cpsolve.stl import NECK_RADIUS, StlOptions, file_names, piece_mesh

trimesh = pytest.importorskip("trimesh")
runner = CliRunner()
Cell = tuple[int, int, int]


def mesh_of(cells: list[Cell], unit: float = 10.0, gap: float = 0.0, bevel: float = 0.0, grid: Grid = CUBE) -> object:
    vertices, triangles = piece_mesh(cells, StlOptions(unit, gap, bevel), grid)
    return trimesh.Trimesh(vertices, triangles, process=False)


@pytest.mark.parametrize(("gap", "bevel"), [(0.0, 1.0), (0.2, 1.0), (1.0, 2.5)])
def test_a_bevelled_cube_loses_its_edges_and_corners(gap: float, bevel: float) -> None:
    """A cube of side L with every edge cut b wide: 12 prisms b^2/2 by L, less what they share at
    the corners (24 pairs b^3/3, 8 triples b^3/4): L^3 - 6 L b^2 + 6 b^3."""
    mesh = mesh_of([(0, 0, 0)], gap=gap, bevel=bevel)
    assert_closed(mesh)
    side = 10 - gap
    assert mesh.volume == pytest.approx(side**3 - 6 * side * bevel**2 + 6 * bevel**3)  # type: ignore[attr-defined]


def _bevelled_volume(cells: list[Cell], sliver: float, bevel: float, points: int = 50) -> float:
    """The volume by counting: midpoints of a fine grid in each cube (50 a side: the slivers of the
    gaps tried are whole layers of it), kept where they are in the
    shrunk piece (as far from every cell outside it as the sliver, along every axis) and not in
    the cut of one of the cube's convex edges (both faces outside the piece: u + v > -bevel, where
    u and v say how far the point is beyond each face). Independent of the mesh."""
    inside = set(cells)
    steps = (np.arange(points) + 0.5) / points
    grid = np.stack(np.meshgrid(steps, steps, steps, indexing="ij"), axis=-1).reshape(-1, 3)
    kept = 0
    for cell in cells:
        keep = np.ones(len(grid), bool)
        for offset in product((-1, 0, 1), repeat=3):
            if offset == (0, 0, 0) or (cell[0] + offset[0], cell[1] + offset[1], cell[2] + offset[2]) in inside:
                continue
            near = np.ones(len(grid), bool)
            for axis, side in enumerate(offset):
                if side < 0:
                    near &= grid[:, axis] < sliver
                elif side > 0:
                    near &= grid[:, axis] > 1 - sliver
            keep &= ~near
        for first, second in ((0, 1), (0, 2), (1, 2)):
            for sign_first, sign_second in product((-1, 1), repeat=2):
                beside = [list(cell), list(cell)]
                beside[0][first] += sign_first
                beside[1][second] += sign_second
                if any(tuple(b) in inside for b in beside):
                    continue
                u = sign_first * (grid[:, first] - (1 - sliver if sign_first > 0 else sliver))
                v = sign_second * (grid[:, second] - (1 - sliver if sign_second > 0 else sliver))
                keep &= ~(u + v > -bevel)
        kept += int(keep.sum())
    return kept / points**3


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.tuples(st.integers(0, 2), st.integers(0, 1), st.integers(0, 1)), min_size=1, max_size=6, unique=True),
    st.sampled_from([(0.0, 1.0), (0.4, 1.5), (0.0, 3.0)]),
)
def test_every_bevelled_piece_is_closed_and_holds_what_counting_finds(
    cells: list[Cell], sizes: tuple[float, float]
) -> None:
    """Any cubes (touching along faces, edges or not at all): the mesh is closed and its volume is
    what counting points of the cut cubes gives, within the grid's error."""
    gap, bevel = sizes
    mesh = mesh_of(cells, gap=gap, bevel=bevel)
    assert_closed(mesh)
    counted = _bevelled_volume(cells, gap / 20, bevel / 10) * 1000
    assert mesh.volume == pytest.approx(counted, rel=0.02, abs=5)  # type: ignore[attr-defined]


def assert_closed(mesh: object) -> None:
    """Watertight (every edge joins two faces), wound one way, normals out (positive volume), no
    face twice."""
    assert mesh.is_watertight and mesh.is_winding_consistent and mesh.volume > 0  # type: ignore[attr-defined]
    faces = [tuple(sorted(face)) for face in mesh.faces.tolist()]  # type: ignore[attr-defined]
    assert len(faces) == len(set(faces))


@pytest.mark.parametrize(
    ("cells", "volume"),
    [
        ([(0, 0, 0)], 9.8**3),  # one cube, 10 mm, shrunk 0.1 mm on each side
        ([(0, 0, 0), (1, 0, 0), (2, 0, 0)], 29.8 * 9.8 * 9.8),  # a bar: shrunk at its ends only
        ([(0, 0, 0), (1, 0, 0), (0, 1, 0)], 9.8 * 29.8 * 9.8),  # an L: the concave corner keeps a notch
    ],
)
def test_a_gap_shrinks_each_piece_by_half_of_it_on_every_side(cells: list[Cell], volume: float) -> None:
    mesh = mesh_of(cells, gap=0.2)
    assert_closed(mesh)
    assert mesh.volume == pytest.approx(volume)  # type: ignore[attr-defined]
    assert mesh.bounds.tolist()[0] == pytest.approx([0.1, 0.1, 0.1])  # type: ignore[attr-defined]


def test_without_a_gap_the_cubes_make_the_piece_and_no_face_lies_inside() -> None:
    cube = [(x, y, z) for x, y, z in product(range(2), repeat=3)]
    mesh = mesh_of(cube)
    assert_closed(mesh)
    assert mesh.volume == pytest.approx(8000)  # type: ignore[attr-defined]
    assert len(mesh.faces) == 6 * 4 * 2  # type: ignore[attr-defined]  # 24 outer squares, two triangles each


@st.composite
def polycubes(draw: st.DrawFn) -> list[Cell]:
    """A face-connected piece grown cell by cell (cubes may also touch along edges only)."""
    cells = [(0, 0, 0)]
    for _ in range(draw(st.integers(0, 9))):
        base = draw(st.sampled_from(cells))
        axis, side = draw(st.integers(0, 2)), draw(st.sampled_from([-1, 1]))
        grown = list(base)
        grown[axis] += side
        if tuple(grown) not in cells:
            cells.append((grown[0], grown[1], grown[2]))
    return cells


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(polycubes(), st.sampled_from([0.1, 0.5, 2.0]))
def test_every_shrunk_piece_is_closed_and_smaller_than_its_cubes(cells: list[Cell], gap: float) -> None:
    mesh = mesh_of(cells, gap=gap)
    assert_closed(mesh)
    shrunk = (10 - gap) ** 3  # a piece holds at least its cubes' cores
    assert len(cells) * shrunk - 1e-6 <= mesh.volume <= len(cells) * 1000 + 1e-6  # type: ignore[attr-defined]
    assert bodies(mesh.faces.tolist()) == 1  # type: ignore[attr-defined]  # still one piece


def bodies(faces: list[list[int]]) -> int:
    """Surfaces made of faces that share corners (union-find; trimesh's own needs scipy)."""
    parent: dict[int, int] = {}

    def root(vertex: int) -> int:
        while parent.setdefault(vertex, vertex) != vertex:
            vertex = parent[vertex]
        return vertex

    for a, b, c in faces:
        parent[root(b)] = root(a)
        parent[root(c)] = root(a)
    return len({root(vertex) for face in faces for vertex in face})


def cli(*arguments: str | Path) -> tuple[int, str]:
    result = runner.invoke(app, [str(a) for a in arguments])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.output


def test_run_writes_one_closed_mesh_per_piece_of_the_solution_asked_for(tmp_path: Path) -> None:
    folder = tmp_path / "soma"
    code, output = cli("run", SPECS / "soma.yaml", "--stl", folder, "--solution", "2", "--stl-unit", "20")
    assert code == 0, output
    files = sorted(folder.iterdir())
    assert [f.name for f in files] == ["1-V.stl", "2-L.stl", "3-T.stl", "4-Z.stl", "5-A.stl", "6-B.stl", "7-P.stl"]
    meshes = [trimesh.load(f) for f in files]
    for mesh in meshes:
        assert_closed(mesh)
    assert sum(m.volume for m in meshes) == pytest.approx(27 * 20**3)  # the pieces fill the 3x3x3 cube
    assembled = trimesh.util.concatenate(meshes)
    assert assembled.bounds.tolist() == [[0, 0, 0], [60, 60, 60]]


def test_the_api_saves_the_same_meshes(tmp_path: Path) -> None:
    result = cpsolve.solve(SPECS / "coffin.yaml")
    written = result.save_stl(tmp_path / "coffin", gap=0.3, bevel=0.8)
    assert written and all(path.suffix == ".stl" for path in written)
    for path in written:
        assert_closed(trimesh.load(path))
    with pytest.raises(CpsolveError, match="holds 1 unique solution, from 1"):
        result.save_stl(tmp_path / "other", number=2)


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        (["--stl-unit", "0"], "option stl_unit (--stl-unit) = 0: expected 0.01 to 10000"),
        (["--stl-unit", "-3"], "option stl_unit (--stl-unit) = -3: expected 0.01 to 10000"),
        (["--stl-unit", "inf"], "option stl_unit (--stl-unit) = inf: expected a finite number"),
        (["--stl-unit", "1e39"], "(--stl-unit) = 1e+39: expected 0.01 to 10000"),
        (["--stl-unit", "1e-300"], "(--stl-unit) = 1e-300: expected 0.01 to 10000"),
        (["--stl-unit", "nan"], "(--stl-unit) = nan: expected a finite number"),
        (["--stl-gap", "inf"], "--stl-gap"),
        (["--stl-gap", "10"], "--stl-gap: from 0 to less than a cube's side (10 mm)"),
        (["--stl-bevel", "5"], "--stl-bevel: from 0 to less than half a shrunk cube's side (5 mm)"),
        (["--stl-gap", "2", "--stl-bevel", "4"], "--stl-bevel: from 0 to less than half a shrunk cube's side (4 mm)"),
        (["--stl-bevel", "-1"], "--stl-bevel"),
        (["--count-only"], "needs the solutions listed"),
    ],
)
def test_sizes_a_printer_cannot_take_are_refused_in_one_line(tmp_path: Path, arguments: list[str], said: str) -> None:
    code, output = cli("run", SPECS / "soma.yaml", "--stl", tmp_path / "out", *arguments)
    assert code == 2 and said in output and output.strip().count("\n") == 0
    assert not (tmp_path / "out").exists()


def test_what_has_no_pieces_or_no_folder_is_refused(tmp_path: Path) -> None:
    code, output = cli("run", SPECS / "tiles_bugs_3x3.yaml", "--stl", tmp_path / "out")
    assert code == 2 and "a tiles puzzle has no pieces" in output
    a_file = tmp_path / "taken.stl"
    a_file.write_text("not a folder")
    code, output = cli("run", SPECS / "coffin.yaml", "--stl", a_file)
    assert code == 2 and "takes a folder" in output and a_file.read_text() == "not a folder"
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    code, output = cli("run", SPECS / "coffin.yaml", "--stl", locked / "pieces")
    if code == 0:  # running as root: the folder's mode does not stop it
        assert any((locked / "pieces").iterdir())
    else:
        assert code == 2 and "cannot make the folder for --stl" in output


def test_file_names_are_the_pieces_labels_numbered() -> None:
    assert file_names(["A", "B"]) == ["1-A.stl", "2-B.stl"]
    assert file_names(["../x", "", *"abcdefghij"])[:2] == ["01-_x.stl", "02-piece.stl"]


# -- BurrTools' other grids ------------------------------------------------------------------------


def solid_volume(faces: list[solids.Face]) -> float:
    """A convex cell's volume from its outward faces (fanned into triangles, divergence theorem):
    independent of the meshing, which fuses hulls."""
    total = 0.0
    for face in faces:
        corners = np.asarray(face)
        for i in range(1, len(corners) - 1):
            total += float(np.dot(corners[0], np.cross(corners[i], corners[i + 1]))) / 6
    return total


def cells_volume(grid: Grid, cells: list[Cell]) -> float:
    volumes = [solid_volume(grid.solid(kind)) for kind in grid.cell_kinds()]
    return sum(volumes[kind] for kind, _ in grid.placed_cells(cells))


GRID_FILES = [
    ("prism", "Bermuda.xmpuzzle", "0"),
    ("rhombic", "PiecesOfEight.xmpuzzle", "0"),
    ("tetra-octa", "FourPieceTetrahedron.xmpuzzle", None),
]


def solved_pieces(path: Path, problem: str | None) -> tuple[Grid, list[list[Cell]]]:
    result = cpsolve.solve(path, first=True, **({"problem": problem} if problem else {}))
    collected = result.collected
    assert collected is not None and collected.model is not None and collected.solutions
    model = collected.model
    assert isinstance(model, Disassemblable)
    return model.disassembly_grid(), [list(piece.cells) for piece in model.assembled(collected.solutions[0])]


@pytest.mark.parametrize(("grid_name", "name", "problem"), GRID_FILES)
def test_pieces_of_convex_cells_are_closed_and_fill_their_cells(grid_name: str, name: str, problem: str | None) -> None:
    """Each piece of a solution on the prism, rhombic and tetra-octa grids: one closed body whose
    volume is its cells' (no face inside, none missing); with a gap, pieces that touched are the
    gap apart and each lost volume."""
    grid, pieces = solved_pieces(corpus_dir("burrtools-grids") / name, problem)
    assert grid.name == grid_name
    for cells in pieces:
        mesh = mesh_of(cells, grid=grid)
        assert_closed(mesh)
        assert bodies(mesh.faces.tolist()) == 1  # type: ignore[attr-defined]
        assert mesh.volume == pytest.approx(cells_volume(grid, cells) * 1000)  # type: ignore[attr-defined]
    assert_apart(grid, pieces, gap=1.0)


@pytest.mark.parametrize("stem", ["tetrahexes_4x7", "hexiamonds_rhombus", "tetrasticks_6x6"])
def test_flat_polyform_pieces_print_as_one_closed_body_each(stem: str) -> None:
    """Hexagons and triangles fill their cells' volume; sticks (bars run on past their ends to
    join at the corners, the crossing marks not printed) are one closed body a piece."""
    grid, pieces = solved_pieces(SPECS / f"{stem}.yaml", None)
    for cells in pieces:
        mesh = mesh_of(cells, grid=grid)
        assert_closed(mesh)
        assert bodies(mesh.faces.tolist()) == 1  # type: ignore[attr-defined]
        if not grid.edges:
            assert mesh.volume == pytest.approx(cells_volume(grid, cells) * 1000)  # type: ignore[attr-defined]
    if not grid.edges:  # two pieces' sticks meeting at a point overlap there, gap or not
        assert_apart(grid, pieces, gap=0.4)


def assert_apart(grid: Grid, pieces: list[list[Cell]], gap: float) -> None:
    """Pieces meshed with the gap: every two at least the gap apart (manifold3d's distance between
    the meshes as written), and each closed and smaller than without it."""
    import manifold3d

    shrunk = []
    for cells in pieces:
        mesh = mesh_of(cells, gap=gap, grid=grid)
        assert_closed(mesh)
        assert mesh.volume < mesh_of(cells, grid=grid).volume  # type: ignore[attr-defined]
        shrunk.append(
            manifold3d.Manifold(
                manifold3d.Mesh64(np.asarray(mesh.vertices), np.asarray(mesh.faces, np.uint32))  # type: ignore[attr-defined]
            )
        )
    closest = min(a.min_gap(b, 2 * gap) for i, a in enumerate(shrunk) for b in shrunk[i + 1 :])
    assert closest == pytest.approx(gap, rel=1e-6)  # pieces that touched face to face are exactly the gap apart


@pytest.mark.parametrize(
    ("grid_name", "cell", "inradius"),
    [
        ("prism", (0, 0, 0), 1 / (2 * np.sqrt(3))),  # a triangle of side 1: its incircle
        ("tetra-octa", (1, 1, 1), np.sqrt(2) / (2 * np.sqrt(6))),  # the regular tetrahedron of edge sqrt 2
    ],
)
def test_a_gap_moves_every_face_of_a_convex_cell_in_by_half_of_it(grid_name: str, cell: Cell, inradius: float) -> None:
    """A cell shrunk by half the gap on every face is the cell scaled about its incentre: a
    triangle's sides (and the prism's ends) or a tetrahedron's faces all move in by exactly that."""
    grid = grid_named(grid_name)
    mesh = mesh_of([cell], gap=0.6, grid=grid)
    assert_closed(mesh)
    whole = solid_volume(grid.solid(cell)) * 1000
    scale = (inradius - 0.03) / inradius  # half the gap, in units of 10 mm
    if grid_name == "prism":
        assert mesh.volume == pytest.approx(whole * scale**2 * (10 - 0.6) / 10)  # type: ignore[attr-defined]
    else:
        assert mesh.volume == pytest.approx(whole * scale**3)  # type: ignore[attr-defined]


def test_ball_pieces_are_their_balls_joined_by_necks() -> None:
    """Kanoodle's pieces, as the flat challenge's solution places them: each one closed body (the
    necks join balls that touch only at a point), holding its balls and no more than their necks
    besides; with a gap, the pieces the gap apart."""
    grid, pieces = solved_pieces(SPECS / "kanoodle_challenge.yaml", None)
    assert grid.name == "sphere"
    ball = 4 / 3 * np.pi * 5.0**3  # a ball of 10 mm across
    for cells in pieces:
        mesh = mesh_of(cells, grid=grid)
        assert_closed(mesh)
        assert bodies(mesh.faces.tolist()) == 1  # type: ignore[attr-defined]
        centres = grid.real(np.asarray(cells))
        distances = np.linalg.norm(centres[:, None] - centres[None], axis=2)
        necks = int(np.isclose(distances, 1).sum()) // 2
        neck = np.pi * (NECK_RADIUS * 10) ** 2 * 10  # a neck from centre to centre, at most
        assert 0.97 * len(cells) * ball <= mesh.volume <= len(cells) * ball + necks * neck  # type: ignore[attr-defined]
    assert_apart(grid, pieces, gap=1.0)


@pytest.mark.parametrize(
    ("spec", "arguments", "said"),
    [
        ("hexiamonds_rhombus.yaml", ["--stl-bevel", "1"], "--stl-bevel: only cubes' edges are bevelled"),
        ("kanoodle_challenge.yaml", ["--stl-gap", "5"], "--stl-gap: from 0 to less than 5 mm (balls of 10 mm"),
        ("hexiamonds_rhombus.yaml", ["--stl-gap", "9"], "--stl-gap: 9 mm cuts piece A apart"),
        ("kanoodle_challenge.yaml", ["--stl-unit", "0"], "(--stl-unit) = 0: expected 0.01 to 10000"),
    ],
)
def test_what_cannot_be_printed_on_a_grid_is_refused_in_one_line(
    tmp_path: Path, spec: str, arguments: list[str], said: str
) -> None:
    code, output = cli("run", SPECS / spec, "--first", "--stl", tmp_path / "out", *arguments)
    assert code == 2 and said in output and output.strip().count("\n") == 0, output
    assert not (tmp_path / "out").exists()


def test_run_writes_ball_pieces_that_fill_the_pyramid(tmp_path: Path) -> None:
    code, output = cli("run", SPECS / "kanoodle_pyramid.yaml", "--first", "--stl", tmp_path / "balls")
    assert code == 0, output
    files = sorted((tmp_path / "balls").iterdir())
    assert len(files) == 12
    meshes = [trimesh.load(f) for f in files]
    for mesh in meshes:
        assert_closed(mesh)
    grid, pieces = solved_pieces(SPECS / "kanoodle_pyramid.yaml", None)
    centres = grid.real(np.asarray([cell for cells in pieces for cell in cells])) * 10
    assert len(centres) == 55
    lows = np.min([mesh.bounds[0] for mesh in meshes], axis=0)
    highs = np.max([mesh.bounds[1] for mesh in meshes], axis=0)
    assert lows == pytest.approx(centres.min(axis=0) - 5, abs=0.01)  # the balls' outsides, 10 mm across
    assert highs == pytest.approx(centres.max(axis=0) + 5, abs=0.01)


@pytest.mark.parametrize("gap", [0.0, 2.0])
def test_balls_that_do_not_touch_are_printed_apart_without_a_neck(gap: float) -> None:
    """A piece's balls are joined only where they touch: two balls two diameters apart are two
    bodies in the piece's file, whatever the gap (a gap never cuts a ball piece)."""
    mesh = mesh_of([(0, 0, 0), (2, 2, 0)], gap=gap, grid=grid_named("sphere"))
    assert_closed(mesh)
    assert bodies(mesh.faces.tolist()) == 2  # type: ignore[attr-defined]
    radius = 5 - gap / 2
    assert mesh.volume == pytest.approx(2 * 4 / 3 * np.pi * radius**3, rel=0.03)  # type: ignore[attr-defined]
