"""Edge-matching tiles: the c't files, an independent backtracker, generated boards, bad input."""

from __future__ import annotations

import csv
import os
import time
from collections.abc import Callable, Hashable
from pathlib import Path

import pytest
import yaml
from conftest import SPECS, built, checked_run, children_of, corpus_dir, run_one
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tiles_bruteforce import count, solved_boards
from typer.testing import CliRunner

from cpsolve.cli import app
from cpsolve.engines import SearchOptions, StopReason
from cpsolve.engines.base import breaking_parts
from cpsolve.engines.breaking import ChosenBy, choose
from cpsolve.engines.cpsat import CpSatEngine
from cpsolve.engines.tiles_dfs import TilesEngine, TilesEnumeration, TilesSearch
from cpsolve.engines.tiles_dfs.order import RACE_ORDER, fill_order, mirrored_orders, row_scan
from cpsolve.formats import read_puzzle
from cpsolve.generate import TileBoardRequest, planted_tiles, tiles_spec_text
from cpsolve.geometry import Cell
from cpsolve.limits import Deadline
from cpsolve.models import PuzzleModel
from cpsolve.models.packing import shape_cells
from cpsolve.run import RunOptions
from cpsolve.spec import ShapeSpec, Source
from cpsolve.symmetry import Solution, choose_breaking, first_sets
from cpsolve.workers import Forked

runner = CliRunner()
ENGINES = ("cpsat", "tiles-dfs")

FITS: dict[str, Callable[[Hashable, Hashable], bool]] = {
    "sum-zero": lambda a, b: a + b == 0,  # type: ignore[operator]
    "equal": lambda a, b: a == b,
}


def tiles_spec(
    tmp_path: Path, tiles: list[list[int]], board: tuple[int, int], match: object, border: str | int = "any"
) -> Path:
    path = tmp_path / "tiles.yaml"
    data = {"name": "t", "kind": "tiles", "board": list(board), "tiles": tiles, "match": match, "border": border}
    path.write_text(yaml.safe_dump(data))
    return path


# -- the c't 9-piece files ------------------------------------------------------------------


def ct_rows() -> list[dict[str, str]]:
    with (corpus_dir("9piece") / "counts.tsv").open() as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def test_ct_files_give_the_published_counts() -> None:
    rows = ct_rows()
    assert len(rows) == 4
    for row, engine in ((row, engine) for row in rows for engine in ENGINES):
        report = checked_run(corpus_dir("9piece") / row["puzzle"], RunOptions(show=0, engine=engine))
        assert report.counts.raw == int(row["raw"]), row["puzzle"]
        assert report.counts.unique == int(row["unique"]), row["puzzle"]
        assert report.counts.rotations == report.counts.unique  # tiles are never flipped


def test_ct_output_prints_every_class_with_the_centre_unturned() -> None:
    path = corpus_dir("9piece") / "yuu-asaka.txt"
    result = runner.invoke(app, ["run", str(path)])
    assert result.exit_code == 0, result.output
    grids = result.output.split("tile index | counter-clockwise turns:")[1:]
    assert len(grids) == 38
    for grid in grids:
        rows = [line for line in grid.splitlines() if "|" in line and line.strip()[0].isdigit()][:3]
        indexes = [int(v) for row in rows for v in row.split("|")[0].split()]
        turns = [int(v) for row in rows for v in row.split("|")[1].split()]
        assert sorted(indexes) == list(range(9))
        assert turns[4] == 0


def test_ct_file_turns_reproduce_the_shown_labels() -> None:
    path = corpus_dir("9piece") / "demopuzzle.txt"
    tiles = [list(map(int, line.split())) for line in path.read_text().splitlines() if line.strip()]
    puzzle = built(path)
    solution = next(iter(CpSatEngine().prepare(puzzle, None).enumerate(SearchOptions())))
    places = [place for row in puzzle.describe(solution)["board"] for place in row]
    assert sorted(place["tile"] for place in places) == list(range(9))
    for place in places:
        k = place["turns"]
        assert place["shown"] == [tiles[place["tile"]][(side + k) % 4] for side in range(4)]


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("1 2 3\n" * 9, ":1: a tile is 4 integers (top right bottom left), found 3"),
        ("1 2 3 x\n" + "1 2 3 4\n" * 8, ":1: 'x' is not an integer"),
        ("1 -1 2 -2\n" * 8, "the c't 9-piece format has 9 tiles, one per line; found 8"),
    ],
)
def test_bad_ct_file(tmp_path: Path, text: str, words: str) -> None:
    path = tmp_path / "bad.txt"
    path.write_text(text)
    result = runner.invoke(app, ["run", str(path)])
    assert result.exit_code == 2
    assert words in result.output
    assert "Traceback" not in result.output


# -- against the independent backtracker ------------------------------------------------------


@pytest.mark.parametrize(
    "name", ["tiles_bugs_3x3", "tiles_frame_4x4", pytest.param("tiles_rectangle_4x3", marks=pytest.mark.slow)]
)
def test_shipped_tiles_match_the_backtracker(name: str) -> None:
    data = yaml.safe_load((SPECS / f"{name}.yaml").read_text())
    match = data["match"]
    if isinstance(match, dict):
        partner = {a: b for a, b in match["pairs"]} | {b: a for a, b in match["pairs"]}
        fits: Callable[[Hashable, Hashable], bool] = lambda a, b: partner.get(a) == b  # noqa: E731
    else:
        fits = FITS[match]
    columns, rows = data["board"]
    expected = count(data["tiles"], columns, rows, fits, data["border"])
    for breaking, engine in ((breaking, engine) for breaking in (True, False) for engine in ENGINES):
        report = checked_run(SPECS / f"{name}.yaml", RunOptions(show=0, symmetry_breaking=breaking, engine=engine))
        assert report.counts.as_dict() == dict(zip(("raw", "rotations", "unique"), expected, strict=True))


boards = st.sampled_from([(2, 2), (3, 2), (2, 3), (1, 4)])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(boards, st.sampled_from(["sum-zero", "equal"]), st.integers(1, 3), st.randoms(use_true_random=False))
def test_random_boards_match_the_backtracker(
    tmp_path: Path, board: tuple[int, int], match: str, labels: int, rng: object
) -> None:
    columns, rows = board
    values = list(range(-labels, labels + 1)) if match == "sum-zero" else list(range(labels + 1))
    tiles = [[rng.choice(values) for _ in range(4)] for _ in range(columns * rows)]  # type: ignore[attr-defined]
    raw, rotations, unique = count(tiles, columns, rows, FITS[match])
    path = tiles_spec(tmp_path, tiles, board, match)
    if refused(path):
        assert raw == 0  # the label counts proved it
        return
    for breaking, engine in ((breaking, engine) for breaking in (True, False) for engine in ENGINES):
        report = checked_run(path, RunOptions(show=0, symmetry_breaking=breaking, engine=engine))
        assert report.counts.as_dict() == {"raw": raw, "rotations": rotations, "unique": unique}


def refused(path: Path) -> bool:
    """Whether cpsolve refuses the board as unsolvable by its label counts (exit code 2, one line)."""
    result = runner.invoke(app, ["run", str(path)])
    if result.exit_code == 2:
        assert "no solution: " in result.output or "fewer than the" in result.output, result.output
        assert len(result.output.strip().splitlines()) == 1
        return True
    assert result.exit_code == 0, result.output
    return False


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(boards, st.sampled_from([0, "any"]), st.randoms(use_true_random=False))
def test_pairs_rules_and_border_labels_match_the_backtracker(
    tmp_path: Path, board: tuple[int, int], border: int | str, rng: object
) -> None:
    """A rule under which a label fits several (no lookup by one label: the tables hold a tile
    under each label it fits), and a border label on the outline."""
    columns, rows = board
    pairs = [[1, 2], [1, 3], [2, 2], [0, 3]]
    tiles = [[rng.choice([0, 1, 2, 3]) for _ in range(4)] for _ in range(columns * rows)]  # type: ignore[attr-defined]
    tiles[0] = [0, 1, 2, 3]  # a pairs rule may name only labels that some tile shows
    partner = {(a, b) for a, b in pairs} | {(b, a) for a, b in pairs}
    path = tiles_spec(tmp_path, tiles, board, {"pairs": pairs}, border)
    if refused(path):
        return  # only a border label on too few edges is refused under a pairs rule
    raw, rotations, unique = count(tiles, columns, rows, lambda a, b: (a, b) in partner, border)
    for breaking, engine in ((breaking, engine) for breaking in (True, False) for engine in ENGINES):
        report = checked_run(path, RunOptions(show=0, symmetry_breaking=breaking, engine=engine))
        assert report.counts.as_dict() == {"raw": raw, "rotations": rotations, "unique": unique}


def test_symmetry_none_counts_raw(tmp_path: Path) -> None:
    path = tiles_spec(tmp_path, [[0, 0, 0, 0]] * 3 + [[1, 0, 0, 0]], (2, 2), "equal")
    path.write_text(path.read_text() + "symmetry: none\n")
    report = checked_run(path)
    # the odd tile goes in any of 4 corners, turned so that its 1 faces out on one of 2 sides
    assert report.counts.as_dict() == {"raw": 8, "rotations": 2, "unique": 8}


# -- generated boards ---------------------------------------------------------------------------


def test_generated_board_is_reproducible_and_solvable(tmp_path: Path) -> None:
    request = TileBoardRequest(4, 4, labels=3, border=0, frame_labels=2, seed=7)
    assert tiles_spec_text(request) == tiles_spec_text(request)
    assert tiles_spec_text(request) != tiles_spec_text(TileBoardRequest(4, 4, labels=3, border=0, frame_labels=2))
    path = tmp_path / "planted.yaml"
    result = runner.invoke(app, ["generate", "tiles", "--board", "4x4", "--labels", "3", "--border", "0",
                                 "--frame-labels", "2", "--seed", "7", "-o", str(path)])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert path.read_text() == tiles_spec_text(request)
    assert "cpsolve generate tiles --board 4x4 --labels 3 --border 0 --frame-labels 2 --seed 7" in path.read_text()
    report = checked_run(path)
    assert report.counts.raw >= 1


def test_generated_tiles_keep_the_planted_labels() -> None:
    tiles = planted_tiles(TileBoardRequest(5, 3, labels=4, match="sum-zero", seed=3))
    assert len(tiles) == 15
    inner = [v for tile in tiles for v in tile]
    assert all(1 <= abs(v) <= 4 for v in inner)
    framed = planted_tiles(TileBoardRequest(5, 5, labels=4, border=0, frame_labels=2, seed=3))
    assert sum(tile.count(0) for tile in framed) == 4 * 5  # every outer edge, none inside
    assert {v for tile in framed for v in tile} <= set(range(7))


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--board", "8by8", "--labels", "3"], "--board must look like 8x8"),
        (["--board", "4x4", "--labels", "3", "--frame-labels", "2"], "--frame-labels needs --border"),
        (["--board", "4x4", "--labels", "3", "--match", "pairs"], "--match must be equal or sum-zero"),
    ],
)
def test_bad_generate_arguments(args: list[str], words: str) -> None:
    result = runner.invoke(app, ["generate", "tiles", *args])
    assert result.exit_code == 2
    assert words in result.output


# -- bad specs ------------------------------------------------------------------------------------

GOOD = """\
name: tiny
kind: tiles
board: [2, 1]
match: sum-zero
tiles:
  - [1, 2, 3, 4]
  - [0, 0, -2, 0]
"""


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        (
            GOOD.replace("[1, 2, 3, 4]", "[1, 2, 3]"),
            6,
            "tiles.0: a tile has 4 labels (top, right, bottom, left), found 3",
        ),
        (GOOD.replace("board: [2, 1]", "board: [3, 1]"), 3, "board: a 3x1 board has 3 places but 2 tiles are given"),
        (GOOD.replace("sum-zero", "same"), 4, "match: Input should be 'sum-zero' or 'equal'"),
        (GOOD.replace("[1, 2, 3, 4]", "[a, 2, 3, 4]"), 6, "tiles.0: match sum-zero needs integer labels, found 'a'"),
        (
            GOOD.replace("match: sum-zero", "match:\n  pairs: [[1, 2], [3, 9]]"),
            5,
            "match.pairs.1: label 9 is on no tile",
        ),
        (GOOD + "border: 7\n", 8, "border: no tile shows the border label 7"),
        (GOOD.replace("board: [2, 1]", "board: [0, 1]"), 3, "board.0: Input should be greater than or equal to 1"),
    ],
)
def test_bad_tiles_spec(tmp_path: Path, text: str, line: int, words: str) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text(text)
    result = runner.invoke(app, ["run", str(spec)])
    assert result.exit_code == 2, result.output
    assert words in result.output, result.output
    assert result.output.startswith(f"{spec}:{line}:"), result.output
    assert "Traceback" not in result.output


# -- foam face-tile notations -----------------------------------------------------------------


def piece_cells(shape: str) -> set[Cell]:
    spec = ShapeSpec.model_validate(yaml.safe_load(shape))
    return set(shape_cells(spec, ("pieces", "F"), Source("foam.yaml")))


def test_ring_and_tile_mean_the_same_piece() -> None:
    rows = ["#.###", "####.", ".###.", ".###.", ".#..."]
    layers = piece_cells("{layers: [" + str(rows) + "]}")
    assert len(layers) == 9 + 6
    assert piece_cells("{tile: " + str(rows) + "}") == layers
    assert piece_cells('{ring: "10111 0000 0010 001"}') == layers


@pytest.mark.parametrize(
    ("shape", "words"),
    [
        ('{ring: "1011100000010001"}', None),
        ('{ring: "10111 0000 0010 00"}', "a ring is 16 characters 0 or 1"),
        ('{ring: "10111 0000 0010 002"}', "a ring is 16 characters 0 or 1"),
        ('{tile: ["#.###", "####.", ".#.#.", ".###.", ".#..."]}', "the 3x3 centre must be solid: row 3, column 3"),
        ('{tile: ["#.###", "####."]}', "a foam tile is 5 rows of 5 characters"),
    ],
)
def test_foam_notation_errors(tmp_path: Path, shape: str, words: str | None) -> None:
    spec = tmp_path / "foam.yaml"
    spec.write_text(f"name: foam\npieces:\n  F: {shape}\ntarget:\n  box: [5, 5, 1]\n")
    result = runner.invoke(app, ["validate", str(spec)])
    if words is None:
        assert result.exit_code == 2  # a valid piece, but 9 + 6 cells cannot fill 25
        assert "pieces have 15 cells but the target has 25" in result.output
        return
    assert result.exit_code == 2
    assert f"{spec}:3: pieces.F" in result.output
    assert words in result.output


class CountingDeadline(Deadline):
    """A deadline that never passes and counts how often building looked at it."""

    def __init__(self) -> None:
        super().__init__(None)
        object.__setattr__(self, "looks", 0)

    def check(self, doing: str) -> None:
        object.__setattr__(self, "looks", self.looks + 1)  # type: ignore[attr-defined]


def test_building_a_large_board_looks_at_the_deadline_often(tmp_path: Path) -> None:
    """A 22x22 board took 10 s to build, looking at the time limit twice: now at every place, at
    every 65,536 atoms of each board turn and while the constraints are made (it is a promise
    about time tested without the clock: how often the deadline is looked at)."""
    spec = tmp_path / "board.yaml"
    spec.write_text(tiles_spec_text(TileBoardRequest(22, 22, 10, 0, 0, "equal", 1)))
    deadline = CountingDeadline()
    model = read_puzzle(spec).model(deadline=deadline)[0]
    assert deadline.looks >= 22 * 22 + 4  # type: ignore[attr-defined]
    looked = deadline.looks  # type: ignore[attr-defined]
    model.constraints(deadline)
    assert deadline.looks > looked  # type: ignore[attr-defined]


# -- the border label, and the race for one solution ---------------------------------------------


def planted_board(rng: object, columns: int, rows: int, inner_labels: list[int]) -> list[list[int]]:
    """A solved board cut into its tiles, each turned at random and the tiles shuffled: the border
    label 0 on every outline edge, each inner edge a label drawn from `inner_labels`."""
    draw = rng.choice  # type: ignore[attr-defined]
    across = {(x, y): draw(inner_labels) for x in range(columns - 1) for y in range(rows)}
    down = {(x, y): draw(inner_labels) for x in range(columns) for y in range(rows - 1)}
    tiles = []
    for y in range(rows):
        for x in range(columns):
            top = down.get((x, y - 1), 0)
            right = across.get((x, y), 0)
            bottom = down.get((x, y), 0)
            left = across.get((x - 1, y), 0)
            turn = rng.randrange(4)  # type: ignore[attr-defined]
            tiles.append([top, right, bottom, left][turn:] + [top, right, bottom, left][:turn])
    rng.shuffle(tiles)  # type: ignore[attr-defined]
    return tiles


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from([(2, 2), (3, 2), (2, 3), (3, 3), (4, 2)]), st.booleans(), st.randoms(use_true_random=False))
def test_border_label_inside_or_only_on_the_outline_matches_the_backtracker(
    tmp_path: Path, board: tuple[int, int], inside: bool, rng: object
) -> None:
    """Where tiles show the border label exactly as often as the outline has edges, no tile may
    turn one inwards (the model leaves those atoms out); where they show it more often, some lie
    inside. Both engines, with and without breaking, count what the backtracker counts."""
    columns, rows = board
    tiles = planted_board(rng, columns, rows, [0, 1, 2] if inside else [1, 2])
    path = tiles_spec(tmp_path, tiles, board, "equal", 0)
    model = built(path)
    borders = sum(tile.count(0) for tile in tiles)
    assert model.border_inside == (borders > 2 * (columns + rows))  # type: ignore[attr-defined]
    raw, rotations, unique = count(tiles, columns, rows, FITS["equal"], 0)
    assert raw >= 1
    for breaking, engine in ((breaking, engine) for breaking in (True, False) for engine in ENGINES):
        report = checked_run(path, RunOptions(show=0, symmetry_breaking=breaking, engine=engine))
        assert report.counts.as_dict() == {"raw": raw, "rotations": rotations, "unique": unique}


def test_a_border_label_only_on_the_outline_leaves_corner_tiles_to_the_corners() -> None:
    """A planted Eternity-style board: no atom turns a border edge inwards, so each corner tile has
    one atom per corner and the symmetry breaking of a search for one solution keeps one of them
    (one part, a corner first)."""
    path = SPECS / "eternity" / "eternity_8x8.yaml"
    model = built(path)
    placements = model.placements  # type: ignore[attr-defined]
    neighbours = model.neighbours  # type: ignore[attr-defined]
    assert not model.border_inside  # type: ignore[attr-defined]
    assert all(
        atom.shown[side] != 0 for atom in placements for side in range(4) if neighbours[atom.position][side] >= 0
    )
    choice = choose(model, [TilesEngine()], first_only=True)
    assert choice.kept == 1 and choice.label.startswith("tile ")
    (corner,) = [placements[a].position for a in breaking_parts(choice.breaking)[0].forced]
    assert corner in (0, 7, 56, 63)


@pytest.mark.parametrize(("board", "images"), [((4, 4), 8), ((5, 3), 4), ((3, 5), 4), ((1, 4), 2)])
def test_raced_orders_are_the_order_from_every_corner(board: tuple[int, int], images: int) -> None:
    columns, rows = board
    orders = mirrored_orders(row_scan(columns, rows), columns, rows)
    assert len(orders) == images == len({tuple(order) for order in orders})
    corners = {0, columns - 1, (rows - 1) * columns, columns * rows - 1}
    assert {order[0] for order in orders} == corners
    for order in orders:
        assert sorted(order) == list(range(columns * rows))
        shorter = min(columns, rows)  # each image still runs along the shorter side first
        line = order[:shorter]
        assert len({p % columns for p in line}) == 1 or len({p // columns for p in line}) == 1
    squares = mirrored_orders(fill_order(RACE_ORDER, columns, rows), columns, rows)
    assert len(squares) == images and {order[0] for order in squares} == corners


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(boards, st.integers(1, 3), st.randoms(use_true_random=False))
def test_the_race_for_one_solution_finds_one_where_there_is_one(
    tmp_path: Path, board: tuple[int, int], labels: int, rng: object
) -> None:
    """The race ends with a solution the backtracker knows of, or, on a board without one, as soon
    as the first order has searched the whole part (the placements of that order alone)."""
    columns, rows = board
    tiles = [[rng.choice(range(labels + 1)) for _ in range(4)] for _ in range(columns * rows)]  # type: ignore[attr-defined]
    path = tiles_spec(tmp_path, tiles, board, "equal")
    if refused(path):
        return
    model = built(path)
    solved = solved_boards(tiles, columns, rows, FITS["equal"])
    board_model = model.edge_matching()
    assert board_model is not None
    for part in breaking_parts(choose(model, [TilesEngine()], first_only=True).breaking):
        search = TilesSearch(board_model)
        raced = []
        for solutions, steps in search.race(part, 1_000_000):  # a run stops at the first solution
            raced.append(steps)
            if solutions:
                assert len(solutions) == 1 and shown_labels(model, solutions[0], columns * rows) in solved
                break
        else:
            alone = list(search.run(part, 1_000_000, 1024, search.raced_orders[0]))
            assert not any(solutions for solutions, _ in alone)
            assert sum(raced) == sum(steps for _, steps in alone)


def shown_labels(model: PuzzleModel, solution: Solution, places: int) -> tuple[tuple[Hashable, ...], ...]:
    """The labels each place shows in a solution, in reading order (the backtracker's record)."""
    by_place = {model.placements[a].position: model.placements[a].shown for a in solution}  # type: ignore[attr-defined]
    return tuple(by_place[place] for place in range(places))


def test_the_race_ends_with_the_same_solution_every_time() -> None:
    options = RunOptions(show=1, engine="tiles-dfs", search=SearchOptions(first_only=True))
    first = run_one(SPECS / "eternity" / "eternity_8x8.yaml", options)
    again = run_one(SPECS / "eternity" / "eternity_8x8.yaml", options)
    assert first.shown == again.shown and first.counts.raw == 4


@pytest.mark.parametrize("name", ["eternity/eternity_8x8.yaml", "tiles_frame_6x6.yaml"])
def test_the_race_on_two_processes_ends_with_the_solution_of_one(name: str) -> None:
    """In slices of 1,000 placements these boards are won in a later round by an order of either
    process (the 8x8 by the fourth order, the second process's, in round 6; the 6x6 by the first
    in round 11): the orders dealt out to two processes end with the very solution the race in
    one process ends with, whichever process reports first."""
    model = built(SPECS / name)
    board = model.edge_matching()
    assert board is not None
    (part,) = breaking_parts(choose(model, [TilesEngine()], first_only=True).breaking)
    search = TilesSearch(board)
    alone = next(solutions for solutions, _ in search.race(part, 1000) if solutions)
    shared = next(solutions for solutions, _ in search.race_on(Forked(2), part, 1000) if solutions)
    assert shared == alone
    report = run_one(
        SPECS / name, RunOptions(show=0, engine="tiles-dfs", workers=2, search=SearchOptions(first_only=True))
    )
    assert (report.workers, report.stopped_by, report.identity_problems) == (2, StopReason.FIRST_SOLUTION, [])


def test_the_race_on_two_processes_honours_the_time_limit_and_ends_its_processes() -> None:
    """A planted 16x16 is far beyond a second's search: the race on two processes stops by the
    time limit, well within the margin, and leaves no process behind. The deadline starts with
    the search (a run's would also hold the model's building, which a busy machine can make last
    it out before any process starts)."""
    model = built(SPECS / "eternity" / "eternity_16x16.yaml")
    board = model.edge_matching()
    assert board is not None
    parts = breaking_parts(choose(model, [TilesEngine()], first_only=True).breaking)
    search = TilesSearch(board)
    earlier = children_of(os.getpid())  # what earlier tests left (multiprocessing's resource tracker)
    started = time.perf_counter()
    enumeration = TilesEnumeration(search, parts, SearchOptions(first_only=True), Deadline.after(1.0), Forked(2))
    assert list(enumeration) == []
    assert time.perf_counter() - started < 30  # the limit's promise, with a margin for a busy machine
    assert (enumeration.stopped_by, enumeration.workers) == (StopReason.TIME_LIMIT, 2)
    assert enumeration.steps > 0
    assert children_of(os.getpid()) <= earlier


@pytest.mark.parametrize("name", ["tiles_frame_4x4.yaml", "tiles_rectangle_4x3.yaml", "tiles_strip_8x3.yaml"])
def test_the_tiles_estimate_is_near_the_search_it_estimates(name: str) -> None:
    """Knuth's estimate (20,000 paths) within 15 % of the placements the parts of each of the
    first breaking sets make (measured within 5 %), the same for the same seed."""
    model = built(SPECS / name)
    search = TilesSearch(model.edge_matching())  # type: ignore[arg-type]
    for option in first_sets(model.group, model.breaking_candidates)[:3]:
        breaking = choose_breaking(model.group, model.breaking_candidates, [option])
        placements = sum(steps for part in breaking_parts(breaking) for _, steps in search.run(part, 10**8, 1024))
        estimate = search.estimate(option.kept, 20_000)
        assert abs(estimate - placements) < 0.15 * placements
        assert search.estimate(option.kept, 20_000) == estimate


def test_counting_chooses_the_breaking_by_estimate_and_one_solution_by_fewest_kept() -> None:
    """The 6x6 frame board: counting takes the tile whose parts are estimated smallest (a corner
    tile's search is up to 1.5 times another's); a search for one solution races from a corner."""
    model = built(SPECS / "tiles_frame_6x6.yaml")
    counting = choose(model, [TilesEngine()])
    assert counting.chosen_by is ChosenBy.ESTIMATE and counting.estimated_placements is not None
    first = choose(model, [TilesEngine()], first_only=True)
    assert (first.chosen_by, first.kept) == (ChosenBy.FEWEST_KEPT, 1)
    small = built(SPECS / "tiles_bugs_3x3.yaml")
    assert TilesEngine().search_estimator(small) is None  # searched whole in milliseconds
