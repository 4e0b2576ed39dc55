"""The polyform grids (cpsolve.grids: hex, triangle, sticks, trigs, twigs) against an independent
brute force (tests/polyform_bruteforce.py) on small boards, the shipped polyform specs against
their encodings on BurrTools' grids, and what a user gets wrong told in one line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polyform_bruteforce as brute
import pytest
import yaml
from conftest import SPECS, checked_run, peer
from typer.testing import CliRunner

from cpsolve.cli import app
from cpsolve.formats import read_puzzle
from cpsolve.grids import grid_named
from cpsolve.models.packing.puzzle import resolve
from cpsolve.run import RunOptions
from cpsolve.spec import PackingSpec

runner = CliRunner()
ANY_STEP = lambda by: True  # noqa: E731 - every lattice translation keeps these grids


def _counted(tmp_path: Path, spec: dict[str, Any]) -> tuple[int, int, int]:
    path = tmp_path / "puzzle.yaml"
    path.write_text(yaml.safe_dump(spec))
    counts = checked_run(path).counts
    return counts.raw, counts.rotations, counts.unique


def _expected(
    pieces: list[tuple[str, brute.Shape]], board: brute.Shape, maps: Any, step: Any = ANY_STEP, basis: Any = None
) -> tuple[int, int, int]:
    found = brute.solutions(pieces, board, maps, step, basis)
    unique = brute.classes(found, board, maps)
    return len(found), unique, unique  # flat pieces turn over by a turn in space: rotations = unique


def _hexagon_cells(shape: brute.Shape) -> list[list[int]]:
    return [list(next(iter(unit))) for unit in sorted(shape, key=sorted)]


def _triangle_cells(shape: brute.Shape) -> list[list[int]]:
    """A triangle by its corners as the triangle grid numbers it (BurrTools' prism layer)."""
    cells = []
    for unit in shape:
        total = (sum(p[0] for p in unit), sum(p[1] for p in unit))
        down = int(total[0] % 3 == 2)
        a, b = (total[0] - 1 - down) // 3, (total[1] - 1 - down) // 3
        cells.append([2 * a + b + down, b])
    return sorted(cells)


def _sticks(shape: brute.Shape) -> list[list[int]]:
    return sorted([*min(unit), *max(unit)] for unit in shape)


def _spec(
    grid: str, pieces: list[tuple[str, brute.Shape]], board: brute.Shape, write: Any, **more: Any
) -> dict[str, Any]:
    field = "sticks" if grid_named(grid).edges else "cells"
    counted: dict[str, int] = {}
    for name, _ in pieces:
        counted[name] = counted.get(name, 0) + 1
    shapes = dict(pieces)
    return {
        "name": "small polyform board",
        "grid": grid,
        "pieces": {name: {field: write(shapes[name]), "count": count} for name, count in counted.items()},
        "target": {field: write(board)},
        **more,
    }


def test_tetrahexes_in_a_parallelogram_as_the_brute_force_counts(tmp_path: Path) -> None:
    """The seven tetrahexes in the 4x7 parallelogram: Puzzler's 9, the brute force's, cpsolve's."""
    maps = brute.triangular_maps()
    neighbours = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1)]

    def around(shape: brute.Shape) -> list[brute.Unit]:
        return [frozenset([(p[0] + d[0], p[1] + d[1])]) for unit in shape for p in unit for d in neighbours]

    pieces = [(f"h{n}", shape) for n, shape in enumerate(brute.grown(around, 4, frozenset([(0, 0)]), maps))]
    assert len(pieces) == 7
    board = brute.hexagons((q, r) for q in range(7) for r in range(4))
    expected = _expected(pieces, board, maps)
    assert expected[1] == 9
    assert _counted(tmp_path, _spec("hex", pieces, board, _hexagon_cells)) == expected


def test_polyiamonds_in_a_parallelogram_as_the_brute_force_counts(tmp_path: Path) -> None:
    """Two each of the three tetriamonds in a 4x3 parallelogram of 24 triangles."""
    maps = brute.triangular_maps()

    def around(shape: brute.Shape) -> list[brute.Unit]:
        near = []
        for unit in shape:
            for a in range(-1, 2):
                for b in range(-1, 2):
                    low = min(unit)
                    for down in (False, True):
                        other = brute.triangle(low[0] + a, low[1] + b, down)
                        if len(other & unit) == 2:
                            near.append(other)
        return near

    forms = brute.grown(around, 4, brute.triangle(0, 0, False), maps)
    assert len(forms) == 3
    pieces = [(f"t{n}", shape) for n, shape in enumerate(forms) for _ in range(2)]
    board = frozenset(brute.triangle(a, b, down) for a in range(4) for b in range(3) for down in (False, True))
    expected = _expected(pieces, board, maps)
    assert expected[0] > 0
    assert _counted(tmp_path, _spec("triangle", pieces, board, _triangle_cells)) == expected


def _free_sticks(size: int, maps: Any, steps: list[brute.Point], keep: Any = lambda p: True) -> list[brute.Shape]:
    def around(shape: brute.Shape) -> list[brute.Unit]:
        ends = {p for unit in shape for p in unit}
        return [
            frozenset([p, (p[0] + d[0], p[1] + d[1])]) for p in ends for d in steps if keep((p[0] + d[0], p[1] + d[1]))
        ]

    first = next(
        frozenset([p, (p[0] + d[0], p[1] + d[1])]) for p in [(1, 0)] for d in steps if keep((p[0] + d[0], p[1] + d[1]))
    )
    return brute.grown(around, size, first, maps)


@pytest.mark.parametrize("distick", [0, 1])
def test_polysticks_in_a_rectangle_as_the_brute_force_counts(tmp_path: Path, distick: int) -> None:
    """A distick and the five tristicks on the 17 segments of a 3x2 rectangle of squares, no two
    crossing; and crossing allowed."""
    maps = brute.square_maps()
    steps = [(1, 0), (0, 1), (-1, 0), (0, -1)]
    twos, threes = _free_sticks(2, maps, steps), _free_sticks(3, maps, steps)
    assert (len(twos), len(threes)) == (2, 5)
    pieces = [("d", twos[distick]), *((f"t{n}", shape) for n, shape in enumerate(threes))]
    board = brute.segments(
        [((x, y), (x + 1, y)) for x in range(3) for y in range(3)]
        + [((x, y), (x, y + 1)) for x in range(4) for y in range(2)]
    )
    expected = _expected(pieces, board, maps, basis=brute.SQUARE_BASIS)
    assert _counted(tmp_path, _spec("sticks", pieces, board, _sticks)) == expected
    crossing = _expected(pieces, board, maps)
    assert _counted(tmp_path, _spec("sticks", pieces, board, _sticks, crossing="allowed")) == crossing
    assert crossing[0] >= expected[0]


def test_polytrigs_in_a_hexagon_as_the_brute_force_counts(tmp_path: Path) -> None:
    """Two each of the three ditrigs on the 12 segments of a hexagon of side 1, where six meet at
    the centre: no two crossing (a turn can be crossed there, not only two straight runs), and
    crossing allowed."""
    maps = brute.triangular_maps()
    steps = [(1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1)]
    twos = _free_sticks(2, maps, steps)
    assert len(twos) == 3
    pieces = [(f"d{n}", shape) for n, shape in enumerate(twos) for _ in range(2)]
    rim = [(1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1)]
    board = brute.segments([((0, 0), p) for p in rim] + [(rim[k], rim[(k + 1) % 6]) for k in range(6)])
    forbidden = _expected(pieces, board, maps, basis=brute.TRIANGULAR_BASIS)
    allowed = _expected(pieces, board, maps)
    assert forbidden[0] < allowed[0]
    assert _counted(tmp_path, _spec("trigs", pieces, board, _sticks)) == forbidden
    assert _counted(tmp_path, _spec("trigs", pieces, board, _sticks, crossing="allowed")) == allowed


def test_polytwigs_on_two_hexagons_as_the_brute_force_counts(tmp_path: Path) -> None:
    """The tritwigs, and a ditwig, on the 11 segments of two hexagons side by side."""
    maps = brute.triangular_maps()
    steps = [(1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1)]
    corner = lambda p: (p[0] - p[1]) % 3 != 0  # noqa: E731 - a hexagon's centre is no corner
    honeycomb = lambda by: (by[0] - by[1]) % 3 == 0  # noqa: E731 - the translations keeping it
    twos, threes = _free_sticks(2, maps, steps, corner), _free_sticks(3, maps, steps, corner)
    assert (len(twos), len(threes)) == (1, 3)
    pieces = [("d", twos[0]), *((f"t{n}", shape) for n, shape in enumerate(threes))]

    def ring(centre: brute.Point) -> list[tuple[brute.Point, brute.Point]]:
        corners = [(centre[0] + d[0], centre[1] + d[1]) for d in steps]
        return [(corners[k], corners[(k + 1) % 6]) for k in range(6)]

    board = brute.segments(ring((0, 0)) + ring((2, -1)))
    assert len(board) == 11
    expected = _expected(pieces, board, maps, honeycomb)
    assert expected[0] > 0
    assert _counted(tmp_path, _spec("twigs", pieces, board, _sticks)) == expected


# -- the shipped specs, natively and as the encodings that came before them ------------------------


def test_hexiamonds_on_the_triangle_grid_count_as_on_burrtools_prisms(tmp_path: Path) -> None:
    spec = yaml.safe_load((SPECS / "hexiamonds_rhombus.yaml").read_text())
    native = checked_run(SPECS / "hexiamonds_rhombus.yaml").counts
    spec["grid"] = "prism"
    path = tmp_path / "prisms.yaml"
    path.write_text(yaml.safe_dump(spec))
    assert checked_run(path).counts == native
    assert (native.raw, native.unique) == (624, 156)


def test_tetrahexes_count_as_balls_of_the_sphere_grid_in_one_plane(tmp_path: Path) -> None:
    """A hexagon (q, r) as the ball [q + r, -q, -r]: a plane of the close packing whose balls
    touch six others, as polyhexes were solved before the hex grid. Same counts, every board."""

    def balls(cells: Any) -> list[list[int]]:
        return [[q + r, -q, -r] for q, r, _ in cells]

    for stem in ("tetrahexes_4x7", "tetrahexes_coin"):
        loaded = read_puzzle(SPECS / f"{stem}.yaml").loaded
        assert isinstance(loaded.spec, PackingSpec)
        puzzle = resolve(loaded.spec, loaded.source)
        spec = {
            "name": stem,
            "grid": "sphere",
            "pieces": {p.name: {"cells": balls(p.cells)} for p in puzzle.pieces},
            "target": {"cells": balls(puzzle.target)},
        }
        path = tmp_path / f"{stem}.yaml"
        path.write_text(yaml.safe_dump(spec))
        assert checked_run(path).counts == checked_run(SPECS / f"{stem}.yaml").counts, stem


def test_a_polystick_cover_exported_for_knuth_counts_as_the_run(tmp_path: Path) -> None:
    """The crossing marks are secondary items: Knuth's dlx1 counts the run's raw solutions."""
    import subprocess

    maps = brute.square_maps()
    steps = [(1, 0), (0, 1), (-1, 0), (0, -1)]
    pieces = [
        ("d", _free_sticks(2, maps, steps)[1]),
        *((f"t{n}", s) for n, s in enumerate(_free_sticks(3, maps, steps))),
    ]
    board = brute.segments(
        [((x, y), (x + 1, y)) for x in range(3) for y in range(3)]
        + [((x, y), (x, y + 1)) for x in range(4) for y in range(2)]
    )
    path = tmp_path / "sticks.yaml"
    path.write_text(yaml.safe_dump(_spec("sticks", pieces, board, _sticks)))
    result = runner.invoke(app, ["convert", str(path), str(tmp_path / "sticks.dlx")])
    assert result.exit_code == 0, result.output
    counted = subprocess.run(
        [str(peer("dlx1"))], stdin=(tmp_path / "sticks.dlx").open(), capture_output=True, text=True, timeout=300
    )
    assert f"Altogether {checked_run(path).counts.raw} solutions" in counted.stderr + counted.stdout


# -- what a user gets wrong ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "spec, said",
    [
        (
            {"grid": "hex", "pieces": {"A": {"layers": [["# #", "#"]]}}, "target": {"layers": [["# #"]]}},
            "pieces.A.layers: layer 1, row 2, column 1: a hexagon half a hexagon from its row's others",
        ),
        (
            {"grid": "sticks", "pieces": {"A": {"sticks": [[0, 0, 1, 1]]}}, "target": {"sticks": [[0, 0, 1, 0]]}},
            "pieces.A.sticks.0: from [0, 0] to [1, 1] is not a straight run along the sticks grid's lines",
        ),
        (
            {"grid": "cube", "pieces": {"A": {"sticks": [[0, 0, 1, 0]]}}, "target": {"cells": [[0, 0]]}},
            "pieces.A.sticks: sticks are for the edge grids (sticks, trigs, twigs), not the cube grid",
        ),
        (
            {"grid": "twigs", "pieces": {"A": {"sticks": [[0, 0, 1, 0]]}}, "target": {"sticks": [[1, 0, 2, 0]]}},
            "pieces.A.sticks.0: from [0, 0] to [1, 0] runs off the twigs grid's lines",
        ),
        (
            {"grid": "sticks", "pieces": {"A": {"cells": [[0, 0]]}}, "target": {"cells": [[1, 0]]}},
            "pieces.A.cells: cell [0, 0, 0] is not a cell of the sticks grid (a segment: x + y odd, z = 0)",
        ),
        (
            {"grid": "trigs", "pieces": {"A": {"layers": [["#"]]}}, "target": {"sticks": [[0, 0, 1, 0]]}},
            "pieces.A.layers: no segments: they stand between the points ('.' and ' ' are empty)",
        ),
        (
            {"grid": "sticks", "pieces": {"A": {"sticks": [[0, 0, 200000, 0]]}}, "target": {"sticks": [[0, 0, 1, 0]]}},
            "pieces.A.sticks.0: from [0, 0] to [200000, 0] is 200,000 segments; a shape has at most 100,000",
        ),
        (
            {
                "grid": "sticks",
                "max_holes": 1,
                "pieces": {"A": {"sticks": [[0, 0, 1, 0]]}},
                "target": {"sticks": [[0, 0, 1, 0]]},
            },
            "max_holes: max_holes is not for an edge grid where pieces may not cross",
        ),
        (
            {"crossing": "allowed", "pieces": {"A": {"cells": [[0, 0]]}}, "target": {"cells": [[0, 0]]}},
            "crossing: crossing is for the edge grids (sticks, trigs, twigs), not the cube grid",
        ),
    ],
)
def test_a_polyform_spec_gone_wrong_is_one_line_and_exit_2(tmp_path: Path, spec: dict[str, Any], said: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump({"name": "bad", **spec}))
    result = runner.invoke(app, ["run", str(path)])
    assert result.exit_code == 2, result.output
    assert said in result.output
    assert len(result.output.strip().splitlines()) == 1


@pytest.mark.parametrize("stem", ["tetrahexes_4x7", "tetrahexes_coin", "hexiamonds_rhombus"])
def test_a_polyform_spec_written_back_counts_the_same(tmp_path: Path, stem: str) -> None:
    """`cpsolve convert` (and the studio's save) writes hexagons as rows of hexagons and reads
    them back as the same cells."""
    written = tmp_path / f"{stem}.yaml"
    result = runner.invoke(app, ["convert", str(SPECS / f"{stem}.yaml"), str(written)])
    assert result.exit_code == 0, result.output
    assert checked_run(written).counts == checked_run(SPECS / f"{stem}.yaml").counts


def test_polysticks_are_written_back_drawn_as_they_look(tmp_path: Path) -> None:
    maps = brute.square_maps()
    steps = [(1, 0), (0, 1), (-1, 0), (0, -1)]
    board = brute.segments(
        [((x, y), (x + 1, y)) for x in range(3) for y in range(3)]
        + [((x, y), (x, y + 1)) for x in range(4) for y in range(2)]
    )
    pieces = [
        ("d", _free_sticks(2, maps, steps)[0]),
        *((f"t{n}", s) for n, s in enumerate(_free_sticks(3, maps, steps))),
    ]
    spec = _spec("sticks", pieces, board, _sticks)
    grid = grid_named("sticks")
    runs = [grid.stick_cells(run[:2], run[2:]) for run in spec["target"].pop("sticks")]
    spec["target"]["cells"] = [
        list(cell) for run in runs if isinstance(run, list) for cell in run
    ]  # as the studio has them
    path = tmp_path / "sticks.yaml"
    path.write_text(yaml.safe_dump(spec))
    written = tmp_path / "written.yaml"
    assert runner.invoke(app, ["convert", str(path), str(written)]).exit_code == 0
    target = yaml.safe_load(written.read_text())["target"]
    assert target["layers"] == [["+-+-+-+", "| | | |", "+-+-+-+", "| | | |", "+-+-+-+"]]
    assert checked_run(written).counts == checked_run(path).counts


def _small_sticks(distick: int = 1) -> tuple[list[tuple[str, brute.Shape]], brute.Shape]:
    maps = brute.square_maps()
    steps = [(1, 0), (0, 1), (-1, 0), (0, -1)]
    board = brute.segments(
        [((x, y), (x + 1, y)) for x in range(3) for y in range(3)]
        + [((x, y), (x, y + 1)) for x in range(4) for y in range(2)]
    )
    twos, threes = _free_sticks(2, maps, steps), _free_sticks(3, maps, steps)
    return [("d", twos[distick]), *((f"t{n}", s) for n, s in enumerate(threes))], board


def test_cp_sat_holds_the_crossing_marks_as_the_exact_cover_does(tmp_path: Path) -> None:
    pieces, board = _small_sticks()
    path = tmp_path / "sticks.yaml"
    path.write_text(yaml.safe_dump(_spec("sticks", pieces, board, _sticks)))
    assert checked_run(path, RunOptions(show=0, engine="cpsat")).counts == checked_run(path).counts


def test_polysticks_count_as_their_encoding_on_the_cube_grid(tmp_path: Path) -> None:
    """Polysticks as they were solved before the edge grids: the square grid tripled, a unit
    segment the two cubes between its end points, a point's cube part of a piece that runs
    straight through it and optional in the target, colours keeping points on points. Same counts."""
    pieces, board = _small_sticks()

    def cubes(shape: brute.Shape) -> tuple[list[list[int]], list[list[int]]]:
        inner, points = [], []
        for unit in shape:
            (x0, y0), (x1, y1) = sorted(unit)
            inner += [[3 * x0 + k * (x1 - x0), 3 * y0 + k * (y1 - y0), 0] for k in (1, 2)]
        ends = [p for unit in shape for p in unit]
        for point in set(ends):
            around = [next(iter(unit - {point})) for unit in shape if point in unit]
            if len(around) == 2 and (around[0][0] + around[1][0], around[0][1] + around[1][1]) == (
                2 * point[0],
                2 * point[1],
            ):
                points.append([3 * point[0], 3 * point[1], 0])
        return inner, points

    spec_pieces = {}
    for name, shape in pieces:
        inner, points = cubes(shape)
        spec_pieces[name] = {"cells": inner + points, "colours": {"point": points} if points else {}}
    inner, _ = cubes(board)
    interior = [[3 * x, 3 * y, 0] for x in range(4) for y in range(3)]  # every point: a run passes edges too
    encoded = {
        "name": "tripled",
        "pieces": spec_pieces,
        "target": {"cells": inner + interior, "optional": interior, "colours": {"point": interior}},
        "colour_rule": [["point", "point"]],
    }
    path = tmp_path / "encoded.yaml"
    path.write_text(yaml.safe_dump(encoded))
    native = tmp_path / "native.yaml"
    native.write_text(yaml.safe_dump(_spec("sticks", pieces, board, _sticks)))
    assert checked_run(path).counts == checked_run(native).counts


def test_rows_of_hexagons_on_odd_columns_read_their_optional_hexagons_with_the_rest(tmp_path: Path) -> None:
    """A drawing that starts on an odd column moves one column left, its `+` hexagons with it:
    two dihexes in five hexagons, one of which may stay empty, as the same target in axial cells."""
    drawn = {"grid": "hex", "pieces": {"D": {"layers": [["# #"]], "count": 2}}}
    path = tmp_path / "drawn.yaml"
    path.write_text(yaml.safe_dump({"name": "drawn", **drawn, "target": {"layers": [[" # # +", "# #"]]}}))
    cells = {"cells": [[0, 0], [1, 0], [2, 0], [-1, 1], [0, 1]], "optional": [[2, 0]]}
    axial = tmp_path / "axial.yaml"
    axial.write_text(yaml.safe_dump({"name": "axial", **drawn, "target": cells}))
    assert checked_run(path).counts == checked_run(axial).counts
    assert checked_run(path).counts.raw > 0
