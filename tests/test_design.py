"""Design search: cuts of a target into pieces that make a puzzle with one assembly that comes
apart, or a high level; every design written is checked again by cpsolve and by BurrTools."""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from bruteforce import count, rotation_class
from conftest import peer
from typer.testing import CliRunner

import cpsolve
from cpsolve import native
from cpsolve.cli import app
from cpsolve.design import (
    Checker,
    DesignRequest,
    design_key,
    first_moves,
    free_slides,
    moved_cell,
    random_cut,
)
from cpsolve.design import check as cut_check
from cpsolve.design.check import CutChecker
from cpsolve.errors import CpsolveError
from cpsolve.limits import NO_DEADLINE

runner = CliRunner()


def box(a: int, b: int, c: int) -> tuple[tuple[int, int, int], ...]:
    return tuple((x, y, z) for z in range(c) for y in range(b) for x in range(a))


def connected(cells: set[tuple[int, int, int]]) -> bool:
    start = next(iter(cells))
    seen, todo = {start}, [start]
    while todo:
        x, y, z = todo.pop()
        for near in ((x + 1, y, z), (x - 1, y, z), (x, y + 1, z), (x, y - 1, z), (x, y, z + 1), (x, y, z - 1)):
            if near in cells and near not in seen:
                seen.add(near)
                todo.append(near)
    return len(seen) == len(cells)


def valid(cut: tuple[tuple[tuple[int, int, int], ...], ...], request: DesignRequest) -> bool:
    cells = [cell for piece in cut for cell in piece]
    empty = set(request.target) - set(cells)
    return (
        len(cut) == request.pieces
        and len(cells) == len(set(cells)) == len(request.target) - request.holes
        and empty <= set(request.inside)
        and all(request.smallest <= len(piece) <= request.largest and connected(set(piece)) for piece in cut)
    )


@pytest.mark.parametrize("holes", [0, 4])
def test_cuts_and_moves_keep_pieces_connected_within_their_sizes(holes: int) -> None:
    request = DesignRequest(box(4, 4, 4), 6, 6, 14, holes=holes)
    rng = random.Random(3)
    cuts = [cut for cut in (random_cut(request, rng) for _ in range(60)) if cut is not None]
    assert len(cuts) > 30 and all(valid(cut, request) for cut in cuts)
    cut = cuts[0]
    changed = 0
    for _ in range(400):
        moved = moved_cell(cut, request, rng)
        if moved is not None:
            assert valid(moved, request)
            changed += moved != cut
            cut = moved
    assert changed > 50


def cuts_of(request: DesignRequest, seed: int, tries: int) -> list[tuple[tuple[tuple[int, int, int], ...], ...]]:
    rng = random.Random(seed)
    return [cut for cut in (random_cut(request, rng) for _ in range(tries)) if cut is not None]


@pytest.mark.parametrize(
    ("sides", "pieces", "sizes", "seed"),
    [((2, 3, 3), 3, (4, 8), 1), ((2, 2, 3), 3, (3, 5), 4), ((2, 3, 3), 4, (3, 6), 8), ((2, 2, 4), 4, (2, 5), 3)],
)
def test_the_compiled_cut_check_counts_as_the_independent_counter(
    sides: tuple[int, int, int], pieces: int, sizes: tuple[int, int], seed: int
) -> None:
    """One assembly up to symmetry or more, and with one the raw count (the cut's distinct images:
    |G| / |stabiliser|), as tests/bruteforce.py counts them: copies of a shape as one piece taken
    so often, a reflection only where the pieces are their own mirror set."""
    request = DesignRequest(box(*sides), pieces, *sizes)
    checker = CutChecker(request.target, ())
    answers = set()
    for cut in cuts_of(request, seed, 12):
        shapes: dict[object, tuple[list[tuple[int, int, int]], int, int]] = {}
        for piece in cut:
            cells, copies, _ = shapes.get(rotation_class(list(piece)), (list(piece), 0, 0))
            shapes[rotation_class(list(piece))] = (cells, copies + 1, copies + 1)
        raw, _, unique = count({f"S{n}": shape for n, shape in enumerate(shapes.values())}, list(request.target))
        answer = checker.answer(cut)
        assert answer is not None
        assert answer.assemblies == min(unique, 2)
        assert answer.raw == (raw if unique == 1 else None)
        answers.add(answer.assemblies)
    assert answers == {1, 2}


@pytest.mark.parametrize(
    ("sides", "pieces", "sizes", "holes", "seed"),
    [
        ((3, 3, 4), 5, (5, 9), 0, 3),
        ((3, 3, 3), 5, (4, 7), 1, 6),
        ((2, 3, 4), 4, (4, 8), 0, 8),
        ((5, 5, 3), 8, (6, 12), 0, 1),
    ],
)
def test_the_compiled_cut_check_answers_as_a_whole_run(
    sides: tuple[int, int, int], pieces: int, sizes: tuple[int, int], holes: int, seed: int
) -> None:
    """Bigger targets and holes (inside cells that may stay empty): the kernel's answer is the
    pipeline's full count (no limit on solutions), its raw count too; 5x5x3 is past one 64-bit
    word (75 cells)."""
    from cpsolve import formats
    from cpsolve.design import spec_of
    from cpsolve.engines.base import SearchOptions
    from cpsolve.options import RunOptions
    from cpsolve.run import run

    request = DesignRequest(box(*sides), pieces, *sizes, holes=holes)
    checker = Checker(request, NO_DEADLINE)
    answers = set()
    for cut in cuts_of(request, seed, 12):
        report = run(formats.puzzle_from_data(spec_of(cut, request)), RunOptions(search=SearchOptions(), workers=1))
        assert report.complete and not report.identity_problems
        answer = checker.cuts.answer(cut)
        assert answer is not None
        assert answer.assemblies == min(report.counts.unique, 2)
        assert answer.raw == (report.counts.raw if report.counts.unique == 1 else None)
        assert checker.assemblies(cut) == answer.assemblies
        answers.add(answer.assemblies)
    assert answers == {1, 2}


def test_a_cut_check_over_its_budget_is_answered_by_a_whole_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each cut the kernel leaves undecided is answered by a whole run; after a trial of
    TRIAL_CALLS with most over the budget the kernel is not asked again."""
    request = DesignRequest(box(3, 3, 3), 6, 3, 6)
    checker = Checker(request, NO_DEADLINE)
    cuts = cuts_of(request, 2, 30)
    answers = [checker.assemblies(cut) for cut in cuts]
    assert len(cuts) > cut_check.TRIAL_CALLS and checker.cuts.usable
    monkeypatch.setattr(cut_check, "PLACEMENT_BUDGET", 1)
    trial = Checker(request, NO_DEADLINE)
    assert [trial.assemblies(cut) for cut in cuts] == answers
    assert trial.cuts.calls == cut_check.TRIAL_CALLS and not trial.cuts.usable
    staircase = [cell for n in range(26) for cell in ((n, n, n), (n + 1, n, n), (n + 1, n + 1, n))]  # connected
    assert not CutChecker(staircase, ()).usable  # 78 cells, but a bounding box of 27x27x26 places
    monkeypatch.setattr(native, "installed", lambda module: False)
    assert CutChecker(request.target, ()).answer(cuts[0]) is None  # no numba: every cut by a whole run


def test_a_filled_box_comes_apart_at_level_one_or_not_at_all() -> None:
    """In a box the pieces fill, a group that can move one step can slide all the way out (each
    cell ahead of it is its own or outside): the first piece never needs two moves. Why the level
    goal takes --holes."""
    request = DesignRequest(box(4, 4, 4), 4, 10, 22, goal="level")
    checker = Checker(request, NO_DEADLINE)
    rng = random.Random(5)
    levels = set()
    for _ in range(200):
        cut = random_cut(request, rng)
        if cut is not None:
            found = checker.check(cut)
            levels.add(first_moves(found.level) if found.comes_apart else None)
            assert not found.comes_apart or found.free > 0
    assert levels == {1, None}


def test_no_group_free_to_slide_out_is_a_level_of_two_or_more() -> None:
    """free_slides counts the groups that slide straight out; with none, a cut that comes apart
    needs two moves or more for its first piece, and with some, one."""
    request = DesignRequest(box(4, 4, 4), 4, 10, 22, goal="level", holes=4)
    checker = Checker(request, NO_DEADLINE)
    rng = random.Random(11)
    seen = set()
    cut = random_cut(request, rng)
    assert cut is not None
    for _ in range(3000):
        moved = moved_cell(cut, request, rng)
        if moved is None:
            continue
        found = checker.check(moved)
        if found.comes_apart:
            assert (found.free == 0) == (first_moves(found.level) >= 2), found
            seen.add(found.free == 0)
            if found.free <= checker.check(cut).free or rng.random() < 0.3:
                cut = moved
    assert True in seen and False in seen


def test_free_slides_of_two_bars_side_by_side() -> None:
    """Two 1x1x2 bars side by side: each slides out every way but towards the other: 5 each."""
    left = ((0, 0, 0), (0, 0, 1))
    right = ((1, 0, 0), (1, 0, 1))
    assert free_slides((left, right)) == 10
    # a cube between them: bars 5 each, the cube 4 (not along x), the cube with either bar 5,
    # the two bars without the cube 4 (not along x)
    assert free_slides((left, ((1, 0, 0),), ((2, 0, 0), (2, 0, 1)))) == 5 + 4 + 5 + 5 + 5 + 4


def run_design(folder: Path, *arguments: str) -> dict[str, object]:
    result = runner.invoke(app, ["design", "--out", str(folder), "--json", *arguments])
    assert result.exit_code == 0, result.output
    summary: dict[str, object] = json.loads(result.output)
    return summary


def records(folder: Path) -> list[dict[str, object]]:
    lines = [json.loads(line) for line in (folder / "designs.jsonl").read_text().splitlines()]
    return [line for line in lines if line["record"] == "design"]


UNIQUE = ["--box", "4x4x4", "--pieces", "6", "--sizes", "8-14", "--goal", "unique", "--designs", "3"]


def test_unique_designs_are_written_checked_and_a_second_run_adds_new_ones(tmp_path: Path) -> None:
    folder = tmp_path / "designs"
    summary = run_design(folder, *UNIQUE)
    assert summary["designs"] == 3 and summary["stopped_by"] == "designs"
    first = records(folder)
    assert [record["file"] for record in first] == ["001.xmpuzzle", "002.xmpuzzle", "003.xmpuzzle"]
    for record in first:
        assert (folder / str(record["page"])).stat().st_size > 1000
        result = cpsolve.solve(folder / str(record["file"]), disassemble=True)
        assert result.report.complete and not result.report.identity_problems
        assert result.report.counts.unique == 1 and record["counts"] == result.report.counts.as_dict()
        assert result.report.disassembly is not None and result.report.disassembly.apart == 1
        assert result.report.disassembly.highest_level == record["level"]
    assert run_design(folder, *UNIQUE)["held"] == 6
    every = records(folder)
    assert [record["number"] for record in every] == [1, 2, 3, 4, 5, 6]
    keys = {design_key(tuple(tuple(tuple(c) for c in piece) for piece in record["pieces"])) for record in every}  # type: ignore[attr-defined]
    assert len(keys) == 6


def test_the_summary_says_what_writing_the_designs_took(tmp_path: Path) -> None:
    """One worker searches in this process between the writes: the summary's search rate is its
    candidates over the time not spent writing; with two the searches overlap the writes, and no
    such rate is given."""
    one: dict[str, Any] = run_design(tmp_path / "one", *UNIQUE)
    assert 0 < one["writing_seconds"] <= one["seconds"]
    searching = one["checked"] / one["searching_per_second"]  # the seconds not spent writing
    assert one["searching_per_second"] >= one["per_second"]
    assert abs(searching - (one["seconds"] - one["writing_seconds"])) <= 0.011  # both rounded to 0.01 s
    two: dict[str, Any] = run_design(tmp_path / "two", *UNIQUE[:-1], "2", "--workers", "2")
    assert two["writing_seconds"] > 0 and two["searching_per_second"] is None
    text = runner.invoke(app, ["design", "--out", str(tmp_path / "text"), *UNIQUE[:-1], "1"])
    assert text.exit_code == 0 and "writing the designs" in text.output and "the search alone" in text.output


def test_the_same_seed_and_budget_find_the_same_designs(tmp_path: Path) -> None:
    arguments = [*UNIQUE[:-2], "--designs", "0", "--candidates", "12", "--seed", "4"]
    run_design(tmp_path / "a", *arguments)
    run_design(tmp_path / "b", *arguments)
    assert [r["pieces"] for r in records(tmp_path / "a")] == [r["pieces"] for r in records(tmp_path / "b")]
    assert len(records(tmp_path / "a")) >= 2


def test_a_level_search_with_holes_reaches_its_level(tmp_path: Path) -> None:
    summary = run_design(
        tmp_path,
        *["--box", "4x4x4", "--pieces", "4", "--sizes", "10-22", "--holes", "4", "--goal", "level"],
        *["--level", "2", "--designs", "1", "--candidates", "6000", "--seed", "1"],
    )
    assert summary["designs"] == 1
    (record,) = records(tmp_path)
    assert first_moves(str(record["level"])) >= 2


def test_two_workers_write_distinct_designs(tmp_path: Path) -> None:
    summary = run_design(tmp_path, *UNIQUE[:-1], "4", "--workers", "2")
    assert summary["designs"] == 4
    assert len({json.dumps(r["pieces"]) for r in records(tmp_path)}) == 4


def test_burrtools_finds_one_assembly_that_comes_apart_and_the_same_level(tmp_path: Path) -> None:
    if os.environ.get("CI") != "true" and not (Path(os.environ.get("CPSOLVE_PEERS", ".peers")) / "burrTxt").exists():
        pytest.skip("burrTxt is not built (../shared/peers/build.sh)")
    program = peer("burrTxt")
    run_design(tmp_path / "unique", *UNIQUE)
    for record in records(tmp_path / "unique"):
        path = tmp_path / "unique" / str(record["file"])
        printed = subprocess.run([str(program), "-q", "-d", str(path)], capture_output=True, text=True, timeout=300)
        assert re.search(r"\b1 assemblies and 1 solutions\b", printed.stdout), printed.stdout
    run_design(
        tmp_path / "level",
        *["--box", "4x4x4", "--pieces", "4", "--sizes", "10-22", "--holes", "4", "--goal", "level"],
        *["--level", "2", "--designs", "1", "--candidates", "6000", "--seed", "1"],
    )
    (record,) = records(tmp_path / "level")
    path = tmp_path / "level" / str(record["file"])
    printed = subprocess.run([str(program), "-d", str(path)], capture_output=True, text=True, timeout=300)
    assert record["level"] in re.findall(r"^level: ([0-9.]+)$", printed.stdout, flags=re.MULTILINE)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--box", "2x2x2", "--pieces", "6", "--sizes", "8-14"], "but the target has 8 to fill"),
        (["--box", "4x4x4", "--pieces", "0", "--sizes", "8-14"], "--pieces 0: a design has 2 to 40 pieces"),
        (["--box", "4x4x4", "--pieces", "6", "--sizes", "14-8"], "--sizes 14-8: give the smallest and largest"),
        (["--box", "4x4x4", "--pieces", "6", "--sizes", "eight"], "--sizes must look like 8-14"),
        (["--box", "4x4x4", "--pieces", "6", "--sizes", "8-14", "--goal", "fun"], "--goal fun: expected one of"),
        (["--box", "4x4x4", "--pieces", "4", "--sizes", "8-22", "--holes", "9"], "--holes 9: the target has 8 inside"),
        (["--pieces", "4", "--sizes", "8-14"], "give the target as --box (e.g. 4x4x4) or --target SPEC"),
        (["--box", "4x4x4", "--pieces", "4", "--sizes", "8-22", "--cluster", "local"], "--cluster needs --time-limit"),
    ],
)
def test_bad_design_input_is_one_line_and_exit_2(arguments: list[str], message: str, tmp_path: Path) -> None:
    result = runner.invoke(app, ["design", "--out", str(tmp_path / "out"), *arguments])
    assert result.exit_code == 2 and message in result.output, result.output
    assert len(result.output.strip().splitlines()) == 1


def test_a_folder_of_another_search_is_refused(tmp_path: Path) -> None:
    run_design(tmp_path, *UNIQUE[:-1], "1")
    other = runner.invoke(app, ["design", "--out", str(tmp_path), "--box", "4x4x4", "--pieces", "5", "--sizes", "8-14"])
    assert other.exit_code == 2 and "searched for another target, piece count, sizes, goal or number" in other.output
    holes = runner.invoke(app, ["design", "--out", str(tmp_path), *UNIQUE[:-1], "1", "--holes", "1"])
    assert holes.exit_code == 2 and "number of holes; give another --out folder" in holes.output


def test_a_folder_of_the_users_own_files_keeps_them(tmp_path: Path) -> None:
    """A folder that holds a user's 001.xmpuzzle and 001.html (a target read from it too): the
    first design written is 002, and the user's files are as they were."""
    (tmp_path / "001.xmpuzzle").write_bytes(b"the user's own puzzle")
    (tmp_path / "001.html").write_text("the user's own page")
    summary = run_design(tmp_path, *UNIQUE[:-1], "1")
    assert summary["designs"] == 1 and [r["file"] for r in records(tmp_path)] == ["002.xmpuzzle"]
    assert (tmp_path / "001.xmpuzzle").read_bytes() == b"the user's own puzzle"
    assert (tmp_path / "001.html").read_text() == "the user's own page"


def test_a_time_limit_ends_the_search_with_what_it_has(tmp_path: Path) -> None:
    summary = run_design(tmp_path, *UNIQUE[:-1], "0", "--time-limit", "0")
    assert summary["stopped_by"] == "time limit" and summary["designs"] == 0
    assert (tmp_path / "designs.jsonl").exists()


def test_a_target_from_a_spec(tmp_path: Path) -> None:
    spec = tmp_path / "l.yaml"
    spec.write_text(
        "pieces: {A: {cells: [[0, 0, 0]]}}\ntarget: {cells: [[0,0,0],[1,0,0],[2,0,0],[2,1,0],[2,2,0],[1,2,0]]}\n"
    )
    summary = run_design(tmp_path / "out", "--target", str(spec), "--pieces", "2", "--sizes", "3", "--designs", "1")
    assert summary["designs"] == 1
    with pytest.raises(CpsolveError, match="not one connected shape"):
        DesignRequest(((0, 0, 0), (2, 0, 0)), 2, 1, 1).check()


def test_a_level_no_cut_reaches_keeps_the_best_that_comes_apart(tmp_path: Path) -> None:
    arguments = ["--box", "4x4x4", "--pieces", "4", "--sizes", "10-22", "--holes", "4", "--goal", "level"]
    summary = run_design(tmp_path, *arguments, "--level", "30", "--candidates", "200")
    assert summary["below_level"] is True and summary["designs"] == 1 and summary["best_level"]
    (record,) = records(tmp_path)
    assert record["level"] == summary["best_level"] and 1 <= first_moves(str(record["level"])) < 30
    text = runner.invoke(
        app, ["design", "--out", str(tmp_path / "again"), *arguments, "--level", "30", "--candidates", "200"]
    )
    assert (
        "no design reached --level 30 within the limit; the best that comes apart is kept: 001.xmpuzzle" in text.output
    )


@pytest.mark.parametrize("workers", ["1", "2"])
def test_ctrl_c_ends_the_search_with_the_designs_written(tmp_path: Path, workers: str) -> None:
    """Interrupted once its first design is on disk: the summary, exit 130, every design kept."""
    import signal
    import sys
    import time

    command = [sys.executable, "-m", "cpsolve", "design", "--out", str(tmp_path), "--box", "4x4x4", "--pieces", "4"]
    command += ["--sizes", "10-22", "--holes", "4", "--goal", "level", "--designs", "0", "--workers", workers]
    started = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    results = tmp_path / "designs.jsonl"
    until = time.monotonic() + 300  # a bound for a stuck run, not a measure: the first design comes in about a second
    while time.monotonic() < until and started.poll() is None:
        if results.exists() and '"record": "design"' in results.read_text():
            break
        time.sleep(0.05)
    started.send_signal(signal.SIGINT)
    output, errors = started.communicate(timeout=120)
    assert started.returncode == 130, errors
    assert "new designs in" in output and "), interrupted" in output and "Traceback" not in errors
    kept = records(tmp_path)
    assert kept and all((tmp_path / str(record["file"])).exists() for record in kept)
