"""The time limit holds where one step of work grows with the puzzle: each such step reads the
clock by the work it does, not by a count tuned on small puzzles. Deterministic: deadlines here
pass after a number of looks (or at once), never by the machine's speed."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from conftest import SPECS, built
from typer.testing import CliRunner

from cpsolve import cli, geometry
from cpsolve.cli import app
from cpsolve.counting import classes
from cpsolve.disassembly import AssembledPiece, Disassembler, Outcome
from cpsolve.engines import SearchOptions
from cpsolve.engines.base import StopReason
from cpsolve.engines.exact_cover.cover_search import BUDGET_WORDS, FEWEST, LOWEST_CELL, CoverSearch
from cpsolve.engines.frontier import counter
from cpsolve.errors import OutOfTimeError
from cpsolve.formats import read_puzzle
from cpsolve.grids import base, grid_named
from cpsolve.limits import Cancel, Deadline
from cpsolve.models.base import CoverProblem
from cpsolve.run import RunOptions, run
from cpsolve.stl import Pieces, StlOptions, stl_meshes

runner = CliRunner()


class AfterLooks(Deadline):
    """A deadline that passes once it has been looked at `most` times."""

    def __init__(self, most: int) -> None:
        super().__init__()
        self.most = most
        self.looks = 0

    def passed(self) -> bool:
        self.looks += 1
        return self.looks > self.most


def monominoes(tmp_path: Path, columns: int, rows: int) -> Path:
    path = tmp_path / "monominoes.yaml"
    path.write_text(f"pieces:\n  M: {{box: [1, 1], count: {columns * rows}}}\ntarget:\n  box: [{columns}, {rows}]\n")
    return path


def cover_problem(path: Path) -> CoverProblem:
    problem = read_puzzle(path).model()[0].cover_problem()
    assert problem is not None
    return problem


def test_boards_wider_than_the_lowest_cell_search_takes_the_fewest_placements_one(tmp_path: Path) -> None:
    """The lowest-cell search holds a full board per placement: 70x70 cells (77 words) go to the
    fewest-placements search, 60x60 (57 words) stay, and both list the one solution."""
    wide, narrow = (CoverSearch.of(cover_problem(monominoes(tmp_path, side, side))) for side in (70, 60))
    assert (wide.choose, narrow.choose) == (FEWEST, LOWEST_CELL)
    for search in (wide, narrow):
        found = [solution for solutions, _ in search.run([], frozenset(), 1_000_000, 4) for solution in solutions]
        assert len(found) == 1 and len(found[0]) == search.problem.cells


@pytest.mark.parametrize(("side", "choose"), [(60, LOWEST_CELL), (70, FEWEST)])
def test_a_slice_of_a_wide_board_places_fewer(tmp_path: Path, side: int, choose: int) -> None:
    """Each placement copies and scans a whole board (lowest cell) or every column (fewest), so a
    slice of a wide board is given fewer placements: no slice of these takes the whole budget."""
    search = CoverSearch.of(cover_problem(monominoes(tmp_path, side, side)))
    assert search.choose == choose
    budget = 2_000
    steps = [placed for _, placed in search.run([], frozenset(), budget, 4)]
    assert sum(steps) >= side * side  # every cell filled once
    words = search.target.shape[0]
    most = budget * BUDGET_WORDS // words if choose == LOWEST_CELL else budget // 10
    assert max(steps) <= most < budget


def test_target_symmetries_found_in_batches_are_those_found_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Kanoodle pyramid's symmetries on the sphere grid, its 240 turns in batches of one and
    all at once: the same maps; a deadline that has passed stops the batches."""
    cells = list(built(SPECS / "kanoodle_pyramid.yaml").puzzle.target)  # type: ignore[attr-defined]
    sphere = grid_named("sphere")
    at_once = sphere.self_maps(cells, True)
    monkeypatch.setattr(base, "IMAGED_CELLS", 1)
    one_by_one = sphere.self_maps(cells, True)
    assert np.array_equal(at_once[0], one_by_one[0]) and at_once[1] == one_by_one[1]
    assert len(at_once[1]) == 8
    deadline = AfterLooks(3)
    with pytest.raises(OutOfTimeError):
        sphere.self_maps(cells, True, deadline=deadline)
    assert deadline.looks == 4


def test_a_cube_targets_symmetries_in_blocks_are_those_at_once_and_the_blocks_read_the_clock(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A 4x4x2 box's self-maps on the cube grid in blocks of one turn and all at once: the same
    maps; a deadline that passes stops between blocks (48 turns of 100,000 cells were one 1.7 s step)."""
    cells = list(built(SPECS / "soma.yaml").puzzle.target)  # type: ignore[attr-defined]
    cube = grid_named("cube")
    at_once = cube.self_maps(cells, True)
    monkeypatch.setattr(geometry, "SELF_MAP_BLOCK_ENTRIES", 1)
    one_by_one = cube.self_maps(cells, True)
    assert np.array_equal(at_once[0], one_by_one[0]) and at_once[1] == one_by_one[1] and len(at_once[1]) == 48
    deadline = AfterLooks(5)
    with pytest.raises(OutOfTimeError):
        cube.self_maps(cells, True, deadline=deadline)
    assert deadline.looks == 6


def test_classifying_a_batch_stops_between_chunks_once_the_deadline_passes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two dominoes in a 2x2 square: one solution given ten times as one batch in chunks of one;
    with a deadline that passes at its third look, the classes of the first three alone (a
    prefix; the rest not counted). A run cancelled as its first class arrives stops inside that
    batch (the classes of 3,000 long solutions took 5 s past the limit, read only between batches)."""
    spec = tmp_path / "dominoes.yaml"
    spec.write_text("pieces:\n  D: {box: [2, 1], count: 2}\ntarget: {box: [2, 2]}\n")
    model = built(spec)
    placements = model.placements  # type: ignore[attr-defined]
    solution = next(
        (a, b)
        for a in range(len(placements))
        for b in range(a + 1, len(placements))
        if len(set(placements[a].cells) | set(placements[b].cells)) == 4
    )
    monkeypatch.setattr(classes, "IMAGE_CHUNK_BYTES", 1)  # a chunk of one solution
    classifier = classes.Classifier(model.group)
    deadline = AfterLooks(2)
    found = classifier.add_batch([solution] * 10, deadline)
    assert len(found) == 3 and found[0] is not None and found[1:] == [None, None]
    assert classifier.raw_seen == 3 and deadline.looks == 3
    cancel = Cancel()
    report = run(
        read_puzzle(SPECS / "soma.yaml"), RunOptions(show=0), on_new_class=lambda *_: cancel.set(), cancel=cancel
    )
    assert report.stopped_by is StopReason.CANCELLED and report.counts.raw < 11520


def test_the_frontier_sorts_a_level_with_the_clock_read() -> None:
    """A level's sub-problems are split with a look at the clock every CHECK_EVERY of them."""
    states = {state: 1 for state in range(3 * counter.CHECK_EVERY)}
    waiting, open_states = counter._split(states, 1, Deadline())
    assert set(waiting) == {s for s in states if s & 1} and [s for s, _ in open_states] == [
        s for s in states if not s & 1
    ]
    deadline = AfterLooks(2)
    with pytest.raises(OutOfTimeError):
        counter._split(states, 1, deadline)
    assert deadline.looks == 3


def test_taking_apart_hundreds_of_pieces_reads_the_clock_every_position() -> None:
    """200 dominoes in a 20x10x2 block (searched in Python: more than 64 pieces): a position
    compares 20,000 pairs, so the clock is read at each one, and a deadline that passes at its
    first look leaves the assembly undecided after a position or two (not 256 of them)."""
    pieces = [
        AssembledPiece(f"D{x}.{y}", "D", ((2 * x, y, z), (2 * x + 1, y, z)))
        for x in range(10)
        for y in range(10)
        for z in range(2)
    ]
    answer = Disassembler(compiled=False, deadline=AfterLooks(1)).analyse(pieces)
    assert answer.outcome is Outcome.UNDECIDED
    assert answer.positions <= 2


def test_reading_the_file_counts_in_the_time_limit(tmp_path: Path) -> None:
    """A puzzle whose reading took longer than the limit stops before its model is built."""
    puzzle = read_puzzle(SPECS / "soma.yaml")
    puzzle.read_seconds = 5.0
    report = run(puzzle, RunOptions(show=0, search=SearchOptions(time_limit=4.0)))
    assert (report.complete, report.stopped_by.value if report.stopped_by else None) == (False, "time limit")
    assert report.solutions_enumerated == 0 and report.seconds >= 5.0


def test_meshes_stop_at_the_deadline_and_nothing_is_written(tmp_path: Path) -> None:
    """Pieces are meshed in forked processes under a deadline: one that has passed ends them with
    the count of meshes made; without one every piece is meshed."""
    cube = grid_named("cube")
    pieces = Pieces(cube, [(f"P{n}", ((n, 0, 0), (n, 1, 0))) for n in range(6)])
    assert len(stl_meshes(pieces, StlOptions())) == 6
    with pytest.raises(OutOfTimeError, match=r"meshes \(0 of 6 made\)"):
        stl_meshes(pieces, StlOptions(), Deadline.after(0.0))
    made = stl_meshes(pieces, StlOptions(), Deadline.after(3600.0))
    assert made == stl_meshes(pieces, StlOptions())


def test_stl_after_the_limit_says_so_and_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`--stl` when the run's limit passes while the meshes are made (the deadline of what the run
    left of it made one that has passed): the run's report, and one line instead of files."""

    def passed(time_limit: float | None, report: object) -> Deadline:
        assert time_limit is not None and 0 < time_limit <= 100
        return Deadline.after(0.0)

    monkeypatch.setattr(cli, "_left", passed)
    spec = monominoes(tmp_path, 3, 3)
    folder = tmp_path / "pieces"
    result = runner.invoke(app, ["run", str(spec), "--json", "--stl", str(folder), "--time-limit", "100"])
    assert result.exit_code == 0, result.output
    assert "no STL written: the time limit passed while making the pieces' meshes" in result.output
    assert not folder.exists()
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["name"] == "monominoes"
