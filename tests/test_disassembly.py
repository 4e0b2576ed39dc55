"""`--disassemble`: the counts and levels of BurrTools, a brute-force check, plans that replay, the CLI."""

from __future__ import annotations

import csv
import importlib.util
import json
import os
import re
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from conftest import CORPUS, SPECS, checked_run, corpus_dir, peer, run_one
from disassembly_bruteforce import brute_force, replay
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from cpsolve.cli import app
from cpsolve.disassembly import AssembledPiece, Disassembler, Disassembly, Move, Outcome, PieceGroups, compiled
from cpsolve.engines import SearchOptions, StopReason
from cpsolve.geometry import Cell
from cpsolve.grids import CUBE, Grid, grid_named
from cpsolve.limits import Deadline
from cpsolve.models import PuzzleModel
from cpsolve.models.packing import PackingModel
from cpsolve.run import RunOptions
from cpsolve.symmetry import Solution

runner = CliRunner()


def _corpus_rows() -> list[Any]:
    table = CORPUS / "burrtools" / "counts.tsv"
    if not table.is_file():
        return [pytest.param(None, id="corpus-absent")]  # the test then skips, or fails under CI
    with table.open() as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    return [
        pytest.param(
            row, id=f"{row['file']}:{row['problem']}", marks=[pytest.mark.slow] if "SolidSix" in row["file"] else []
        )
        for row in rows
    ]


def _assembled(cells_of: Sequence[Sequence[Cell]], kinds: Sequence[str] | None = None) -> list[AssembledPiece]:
    names = [chr(ord("A") + n) for n in range(len(cells_of))]
    return [
        AssembledPiece(name, kinds[n] if kinds else name, tuple(cells))
        for n, (name, cells) in enumerate(zip(names, cells_of, strict=True))
    ]


class Found:
    """Each unique assembly of a run with its disassembly, as `--solutions` gets them."""

    def __init__(self) -> None:
        self.found: list[tuple[Solution, PackingModel, dict[str, Any]]] = []

    def __call__(self, solution: Solution, model: PuzzleModel, details: Any) -> None:
        assert isinstance(model, PackingModel)
        self.found.append((solution, model, dict(details)))


def _check_plans(found: Found, grid: Grid = CUBE) -> None:
    """Every plan that says an assembly comes apart replays on its cells."""
    for solution, model, details in found.found:
        disassembly = details["disassembly"]
        if disassembly["outcome"] != str(Outcome.APART):
            continue
        pieces = model.assembled(solution)
        plan = [_move(move, grid) for move in disassembly["plan"]]
        replay([p.cells for p in pieces], [p.label for p in pieces], plan, disassembly["stay_together"], grid)


def _move(data: dict[str, Any], grid: Grid = CUBE) -> Move:
    step = next(step for step in grid.steps if step.name == data["direction"])
    return Move(tuple(data["pieces"]), step.name, step.vector, data["distance"])


# -- BurrTools' corpus: the same counts and the same levels ------------------------------------------------


@pytest.mark.parametrize("row", _corpus_rows())
def test_corpus_counts_match_burrtools(row: dict[str, str]) -> None:
    """As many assemblies come apart as BurrTools says; one-piece assemblies come apart as well
    (BurrTools' command-line solver leaves them out of its count), and every plan replays."""
    path = corpus_dir("burrtools") / row["file"]
    found = Found()
    report = run_one(path, RunOptions(show=0, problem=row["problem"], disassemble=True), on_new_class=found)
    assert report.complete and report.identity_problems == []
    summary = report.disassembly
    assert summary is not None
    assert summary.checked == report.counts.unique == int(row["assemblies"])
    assert summary.undecided == 0
    assert summary.apart - summary.one_piece == int(row["disassemble"])
    assert summary.apart + summary.stuck == summary.checked
    assert summary.one_piece == (1 if "DemoPieceGenerator" in row["file"] else 0)
    _check_plans(found)


def _assemblies(path: Path, problem: str = "0") -> list[Sequence[AssembledPiece]]:
    """The pieces of each unique assembly of a file's problem, as --disassemble takes them apart."""
    found: list[Sequence[AssembledPiece]] = []

    def keep(solution: Solution, model: PuzzleModel, details: Any) -> None:
        assert isinstance(model, PackingModel)
        found.append(model.assembled(solution))

    run_one(path, RunOptions(show=0, problem=problem), on_new_class=keep)
    return found


@pytest.mark.parametrize("row", _corpus_rows())
def test_the_compiled_search_is_the_python_search_on_the_corpus(row: dict[str, str]) -> None:
    """Every unique assembly of every corpus problem: the compiled search and the Python one agree
    on the outcome, the level, every move of the plan and the positions looked at."""
    for pieces in _assemblies(corpus_dir("burrtools") / row["file"], row["problem"]):
        _both_searches(pieces)


def test_the_compiled_search_is_the_python_search_on_prisms() -> None:
    for name, problem, _ in PRISM_LEVELS:
        for pieces in _assemblies(corpus_dir("burrtools-grids") / name, problem):
            _both_searches(pieces, grid_named("prism"))


def test_the_compiled_search_grows_its_tables_and_resumes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tables far too small (positions, moves, the whole assembly's records) and a slice of work
    that ends after every position: the kernel asks for room and is called again, over and over,
    and finds what the Python search finds; a limit on positions stops both at the same count."""
    pytest.importorskip("numba")
    monkeypatch.setattr(compiled, "FIRST_POSITIONS", 2)
    monkeypatch.setattr(compiled, "FIRST_MOVES", 1)
    monkeypatch.setattr(compiled, "FIRST_RECORDS", 1)
    monkeypatch.setattr(compiled, "GAP_SLOTS", 4)
    monkeypatch.setattr(compiled, "SLICE_WORK", 1)
    pelikan = _assemblies(corpus_dir("burrtools") / "PelikanBurr.xmpuzzle")
    cage = _assemblies(corpus_dir("burrtools") / "CubeInCage.xmpuzzle")
    levels = {_both_searches(pieces).level for pieces in pelikan + cage[:12]}
    assert "98.2.4.2" in levels
    undecided = _both_searches(pelikan[0], max_positions=50)
    assert undecided.outcome is Outcome.UNDECIDED and undecided.positions == 51
    # the same in batches: every assembly resumed where the kernel asked for room or paused, and
    # one stopped by the limit on positions does not hold up the next
    mixed = [*pelikan[:3], cage[0], pelikan[0], *cage[1:4], [cage[0][0]]]
    alone = [Disassembler(compiled=False, max_positions=2_000).analyse(pieces) for pieces in mixed]
    assert {one.outcome for one in alone} == {Outcome.APART, Outcome.STUCK, Outcome.UNDECIDED}
    _batch_answers_as_alone(Disassembler(compiled=True, max_positions=2_000), mixed, alone)


def test_a_batch_on_threads_answers_each_assembly_as_one_thread_does(monkeypatch: pytest.MonkeyPatch) -> None:
    """Dracula's, Pelikan's and the cage's assemblies, mixed, taken apart on three threads (each its
    own kernel's tables, chunks of one taken in turn): every answer (outcome, level, plan,
    positions) as one thread gives it, and the chunks were taken by the disassembly's threads
    where the kernels let go of the GIL (a build of `cpsolve compile`; CI has one). How many of
    the threads got a chunk is the scheduler's business, not asserted."""
    pytest.importorskip("numba")
    from cpsolve import disassembly, native

    burrtools = corpus_dir("burrtools")
    mixed = [
        *_assemblies(burrtools / "DraculasDentalDesaster.xmpuzzle")[:9],
        *_assemblies(burrtools / "PelikanBurr.xmpuzzle")[:4],
        *_assemblies(burrtools / "CubeInCage.xmpuzzle")[:8],
    ]
    one_thread = Disassembler(compiled=True).analyse_all(mixed)
    workers: set[str] = set()
    plain = Disassembler._batch_on

    def noted(self: Disassembler, kernel: Any, *batch: Any) -> list[Disassembly]:
        workers.add(threading.current_thread().name)
        return plain(self, kernel, *batch)

    monkeypatch.setattr(Disassembler, "_batch_on", noted)
    monkeypatch.setattr(disassembly, "CHUNKS_PER_THREAD", 4)  # 21 assemblies: chunks of one
    three = Disassembler(compiled=True, threads=3).analyse_all(mixed)
    assert [(one.as_json(), one.positions, one.pieces) for one in three] == [
        (one.as_json(), one.positions, one.pieces) for one in one_thread
    ]
    if native.threads_run_apart():
        assert workers and all(name.startswith("cpsolve disassembly") for name in workers)
    elif os.environ.get("CI") == "true":
        pytest.fail("no build of the kernels under CI: `cpsolve compile` did not run")


def _answers(disassemblies: Sequence[Disassembly]) -> list[tuple[Any, int, int]]:
    return [(one.as_json(), one.positions, one.pieces) for one in disassemblies]


@pytest.mark.parametrize("shape_bytes", [16 * 2**20, 1], ids=["one numbering", "a new numbering every batch"])
def test_kernels_kept_from_earlier_disassemblers_answer_as_new_ones(
    monkeypatch: pytest.MonkeyPatch, shape_bytes: int
) -> None:
    """Disassemblers one after another in one process (the studio's requests) borrow the kernels
    the earlier ones gave back, with the gaps those worked out: Pelikan's, then Dracula's, then
    both with the cage's on three threads, each answer (outcome, plan, positions) as kernels that
    knew nothing give it. With a new numbering of the shapes at every batch (the numbering's
    bound at one byte) a kernel must forget the gaps it knew by the old numbers."""
    pytest.importorskip("numba")
    burrtools = corpus_dir("burrtools")
    pelikan = _assemblies(burrtools / "PelikanBurr.xmpuzzle")[:6]
    dracula = _assemblies(burrtools / "DraculasDentalDesaster.xmpuzzle")[:12]
    mixed = [*dracula[:5], *pelikan[:3], *_assemblies(burrtools / "CubeInCage.xmpuzzle")[:6]]
    monkeypatch.setattr(compiled, "KEPT_KERNELS", compiled.KeptKernels(0))  # keeps nothing
    fresh = [_answers(Disassembler(compiled=True, threads=threads).analyse_all(batch))
             for batch, threads in ((pelikan, 1), (dracula, 1), (mixed, 3))]  # fmt: skip
    kept = compiled.KeptKernels(2**30)
    monkeypatch.setattr(compiled, "KEPT_KERNELS", kept)
    monkeypatch.setattr(compiled, "KEPT_SHAPE_BYTES", shape_bytes)
    lent: list[Any] = []
    for (batch, threads), answers in zip(((pelikan, 1), (dracula, 1), (mixed, 3)), fresh, strict=True):
        disassembler = Disassembler(compiled=True, threads=threads)
        assert _answers(disassembler.analyse_all(batch)) == answers
        lent.append(list(disassembler._kernels))
        disassembler.release()
    assert lent[1][0] is lent[0][0]  # Dracula's disassembler had Pelikan's kernel
    assert kept.idle() == len(lent[2]) >= 1


def test_a_batch_holds_each_placement_once_and_answers_as_with_every_piece_apart() -> None:
    """A model hands out one cells object per placement and Dracula's 84 assemblies share 31: a
    batch holds their cells and first cells once each, every piece reading its placement's row,
    and answers each assembly (outcome, plan, positions) as the same batch with every piece's
    cells a copy of its own."""
    pytest.importorskip("numba")
    dracula = _assemblies(corpus_dir("burrtools") / "DraculasDentalDesaster.xmpuzzle")
    apart = [[AssembledPiece(p.label, p.kind, tuple(list(p.cells))) for p in pieces] for pieces in dracula]
    shared, copied = Disassembler(compiled=True), Disassembler(compiled=True)
    assert _answers(shared.analyse_all(dracula)) == _answers(copied.analyse_all(apart))
    every_cell = sum(len(p.cells) for pieces in dracula for p in pieces)
    placements = {id(p.cells): p.cells for pieces in dracula for p in pieces}
    held = len(shared._kernels[0].geometry[0])
    assert held == sum(len(cells) for cells in placements.values()) < every_cell
    assert len(copied._kernels[0].geometry[0]) == every_cell


def test_a_kernel_is_lent_to_one_disassembler_at_a_time_and_given_back_once() -> None:
    """Two disassemblers alive at once never share a kernel; one given back twice (released, then
    let go) is kept once; given back, it holds nothing of the run's pieces; kernels past the
    bound on their gap tables' bytes are let go."""
    pytest.importorskip("numba")
    pair = _assembled([[(0, 0, 0)], [(1, 0, 0)]])
    kept = compiled.KeptKernels(2**30)
    first = Disassembler(compiled=True)
    original = compiled.KEPT_KERNELS
    compiled.KEPT_KERNELS = kept
    try:
        first.analyse(pair)
        kernel = first._kernels[0]
        first.release()
        del first  # its finalizer gives back the list release emptied
        assert kept.idle() == 1 and not kernel._cells_arrays and not kernel._shape_of_cells
        second, third = Disassembler(compiled=True), Disassembler(compiled=True)
        second.analyse(pair)
        third.analyse(pair)
        assert second._kernels[0] is kernel and third._kernels[0] is not kernel
        assert kept.idle() == 0
    finally:
        compiled.KEPT_KERNELS = original
    small = compiled.KeptKernels(kernel.gap_bytes)
    small.give_back([second._kernels[0], third._kernels[0]])
    assert small.idle() == 1


def test_a_batch_past_its_deadline_leaves_the_assembly_it_is_in_and_those_after_undecided(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The clock is looked at between slices of a batch's work: once the deadline has passed, the
    assembly being taken apart and every one after it are undecided, those before answered."""
    pytest.importorskip("numba")
    monkeypatch.setattr(compiled, "SLICE_WORK", 1)  # a slice ends after each position
    pelikan = _assemblies(corpus_dir("burrtools") / "PelikanBurr.xmpuzzle")[:4]
    alone = [Disassembler(compiled=False).analyse(pieces) for pieces in pelikan]
    looks = {"count": 0, "most": alone[0].positions + 10}  # a look before the batch, one a position

    class AfterLooks(Deadline):
        def passed(self) -> bool:  # passes early in the second assembly
            looks["count"] += 1
            return looks["count"] > looks["most"]

    answers = Disassembler(compiled=True, deadline=AfterLooks()).analyse_all(pelikan)
    first_undecided = next(n for n, one in enumerate(answers) if one.outcome is Outcome.UNDECIDED)
    assert first_undecided >= 1
    assert [one.as_json() for one in answers[:first_undecided]] == [one.as_json() for one in alone[:first_undecided]]
    assert all(one.outcome is Outcome.UNDECIDED for one in answers[first_undecided:])
    assert answers[first_undecided].positions > 0 and all(one.positions == 0 for one in answers[first_undecided + 1 :])


def _burrtools_levels(path: Path) -> list[str]:
    printed = subprocess.run([str(peer("burrTxt")), "-d", str(path)], capture_output=True, text=True, timeout=600)
    return re.findall(r"^level: ([0-9.]+)$", printed.stdout, flags=re.MULTILINE)


@pytest.mark.parametrize(
    "name",
    [
        "AlPackino",
        "CubeInCage",
        "DemoPieceGenerator",
        "DraculasDentalDesaster",
        "PelikanBurr",
        pytest.param("SolidSixPieceBurrs", marks=pytest.mark.slow),
    ],
)
def test_levels_match_burrtools(name: str) -> None:
    """The levels of the assemblies that come apart are the ones burrTxt -d prints (BurrTools'
    notation, and the same choice among equally short separations)."""
    path = corpus_dir("burrtools") / f"{name}.xmpuzzle"
    theirs = _burrtools_levels(path)
    found = Found()
    run_one(path, RunOptions(show=0, disassemble=True), on_new_class=found)
    levels = [d["disassembly"]["level"] for _, _, d in found.found if d["disassembly"]["outcome"] == str(Outcome.APART)]
    ours = [level for level in levels if level != "0"]  # burrTxt leaves out the one-piece assembly
    assert Counter(ours) == Counter(theirs)


def test_published_levels() -> None:
    """Two levels the puzzle world quotes: Pelikan 98 moves to the first piece, the cage's 4.9.3."""
    levels = {}
    for name in ("PelikanBurr", "CubeInCage"):
        report = run_one(corpus_dir("burrtools") / f"{name}.xmpuzzle", RunOptions(show=0, disassemble=True))
        assert report.disassembly is not None
        levels[name] = report.disassembly.highest_level
    assert levels == {"PelikanBurr": "98.2.4.2", "CubeInCage": "4.9.3"}


# -- brute force on random small assemblies ---------------------------------------------------------------


@st.composite
def small_assemblies(draw: st.DrawFn, most_pieces: int, most_layers: int) -> list[list[Cell]]:
    """A small box with each cell given to one of 2-4 pieces or left empty (pieces need not be
    connected: a rigid body is all the model needs, and loose bits interlock readily)."""
    size = (draw(st.integers(1, 3)), draw(st.integers(1, 3)), draw(st.integers(1, most_layers)))
    count = draw(st.integers(2, most_pieces))
    cells = [(x, y, z) for x in range(size[0]) for y in range(size[1]) for z in range(size[2])]
    owners = draw(st.lists(st.integers(-1, count - 1), min_size=len(cells), max_size=len(cells)))
    pieces: list[list[Cell]] = [[] for _ in range(count)]
    for cell, owner in zip(cells, owners, strict=True):
        if owner >= 0:
            pieces[owner].append(cell)
    pieces = [piece for piece in pieces if piece]
    if len(pieces) < 2:
        pieces = [[cells[0]], [cells[-1]]] if len(cells) > 1 else [[(0, 0, 0)], [(1, 0, 0)]]
    return pieces


def _both_searches(pieces: Sequence[AssembledPiece], grid: Grid = CUBE, **limits: Any) -> Disassembly:
    """The compiled search and the Python one: the same outcome, level, plan and positions looked at."""
    python = Disassembler(grid=grid, compiled=False, **limits).analyse(pieces)
    if importlib.util.find_spec("numba") is None:
        return python
    compiled = Disassembler(grid=grid, compiled=True, **limits).analyse(pieces)
    assert (compiled.as_json(), compiled.positions) == (python.as_json(), python.positions)
    return compiled


def _agrees_with_brute_force(pieces: list[list[Cell]], grid: Grid = CUBE) -> None:
    result = _both_searches(_assembled(pieces), grid)
    apart, first = brute_force(pieces, grid)
    assert result.comes_apart == apart
    if apart:
        assert result.separation is not None
        assert len(result.separation.moves) == first
        labels = [chr(ord("A") + n) for n in range(len(pieces))]
        replay(pieces, labels, result.plan(), result.separation.groups(), grid)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_assemblies(most_pieces=3, most_layers=2))
def test_agrees_with_brute_force_on_prisms(pieces: list[list[Cell]]) -> None:
    """The same on the prism grid: a small box of triangles (x, y) in layers z, moved along the
    prisms' axis and the three directions of the triangles' edges, passing through the triangle
    beside them on the way."""
    _agrees_with_brute_force(pieces, grid_named("prism"))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_assemblies(most_pieces=3, most_layers=2))
def test_agrees_with_brute_force_on_hexagonal_prisms(pieces: list[list[Cell]]) -> None:
    """The same on the hex grid: a small parallelogram of hexagons (q, r) in layers z, moved up
    and along the three directions of the rows, passing over the two hexagons beside them."""
    _agrees_with_brute_force(pieces, grid_named("hex"))


PRISM_LEVELS = [
    ("Bermuda.xmpuzzle", "0", "1"),
    ("Prisgon.xmpuzzle", "0", "9.6.4.2.2.2.1.2"),
    ("Prisgon.xmpuzzle", "1", "9.5.1.1.2.2.2"),
]


@pytest.mark.parametrize(("name", "problem", "level"), PRISM_LEVELS)
def test_burrtools_prism_examples_come_apart_at_burrtools_levels(name: str, problem: str, level: str) -> None:
    """BurrTools' two prism examples: the levels `burrTxt -d` prints, and the plans replay."""
    found = Found()
    path = corpus_dir("burrtools-grids") / name
    report = run_one(path, RunOptions(show=0, problem=problem, disassemble=True), on_new_class=found)
    assert report.disassembly is not None and report.disassembly.highest_level == level
    _check_plans(found, grid_named("prism"))


def test_burrtools_prism_levels_are_burrtxt_s() -> None:
    for name, problem, level in PRISM_LEVELS:
        path = corpus_dir("burrtools-grids") / name
        output = subprocess.run(
            [str(peer("burrTxt")), "-d", "-o", problem, str(path)], capture_output=True, text=True, timeout=600
        ).stdout
        assert f"level: {level}" in output, (name, problem, output[-300:])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_assemblies(most_pieces=3, most_layers=2))
def test_agrees_with_brute_force(pieces: list[list[Cell]]) -> None:
    """Whether it comes apart, and the moves to the first part, as a search of every set of
    pieces over every distance finds; its plan replays on the cells."""
    _agrees_with_brute_force(pieces)


@pytest.mark.slow
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_assemblies(most_pieces=3, most_layers=3))
def test_agrees_with_brute_force_on_more(pieces: list[list[Cell]]) -> None:
    _agrees_with_brute_force(pieces)


# -- small cases made by hand ------------------------------------------------------------------------------

# Two interlocked rings: A's loop in the z=0 plane, B's loop in the y=1 plane through it.
RING_A: list[Cell] = [(x, y, 0) for x in range(3) for y in range(3) if (x, y) != (1, 1)]
RING_B: list[Cell] = [(x, 1, z) for x in range(1, 4) for z in range(-1, 2) if (x, z) != (2, 0)]


def test_interlocked_rings_are_stuck() -> None:
    assert brute_force([RING_A, RING_B]) == (False, None)
    result = Disassembler().analyse(_assembled([RING_A, RING_B]))
    assert result.outcome is Outcome.STUCK and result.level == "" and result.moves == 0


def test_a_piece_group_may_stay_together() -> None:
    """The rings stuck, and a third piece that comes off: with the rings in one group the
    assembly comes apart, the rings left together (as BurrTools' CubeInCage's cage)."""
    loose: list[Cell] = [(6, 6, 6)]
    pieces = _assembled([RING_A, RING_B, loose], kinds=["ring", "ring", "loose"])
    assert Disassembler().analyse(pieces).outcome is Outcome.STUCK
    grouped = Disassembler(PieceGroups({("cage", "ring"): 2})).analyse(pieces)
    assert grouped.comes_apart and grouped.level == "1"
    assert grouped.separation is not None and grouped.separation.groups() == [("A", "B")]
    too_small = Disassembler(PieceGroups({("cage", "ring"): 1})).analyse(pieces)
    assert too_small.outcome is Outcome.STUCK


def test_one_piece_comes_apart_with_no_move() -> None:
    result = Disassembler().analyse(_assembled([[(0, 0, 0), (1, 0, 0)]]))
    assert (result.comes_apart, result.level, result.moves, result.plan()) == (True, "0", 0, [])


def test_a_piece_in_a_tube_slides_out() -> None:
    """A rod in a closed-bottom tube leaves along +z only, in one move."""
    tube = [(x, y, z) for x in range(3) for y in range(3) for z in range(3) if (x, y) != (1, 1) or z == 0]
    rod = [(1, 1, 1), (1, 1, 2)]
    result = Disassembler().analyse(_assembled([tube, rod]))
    assert result.level == "1"
    assert [move.describe() for move in result.plan()] == ["take B out along +z"]


def test_words_of_a_move() -> None:
    assert Move(("A", "C"), "+x", (1, 0, 0), 2).describe() == "move A and C +x by 2"
    assert Move(("A", "B", "D"), "-z", (0, 0, -1), None).describe() == "take A, B and D out along -z"


def test_position_limit_leaves_it_undecided() -> None:
    report = run_one(
        corpus_dir("burrtools") / "PelikanBurr.xmpuzzle",
        RunOptions(show=0, disassemble=True, max_disassembly_positions=50),
    )
    assert report.disassembly is not None
    assert report.disassembly.undecided > 0 and report.disassembly.apart == 0


# -- runs and the command line ------------------------------------------------------------------------------


def test_pieces_of_one_copy_each_are_handed_over_as_the_general_way_names_and_orders_them() -> None:
    """A model whose pieces come once each makes each placement's piece once (its letter is its
    piece's): the same pieces, letters and order as worked out for each assembly afresh."""
    solutions: list[tuple[Solution, PuzzleModel]] = []
    run_one(
        SPECS / "soma.yaml",
        RunOptions(SearchOptions(max_solutions=20), show=0),
        on_new_class=lambda solution, model, _: solutions.append((solution, model)),
    )
    assert len(solutions) == 20
    for solution, model in solutions:
        assert isinstance(model, PackingModel)
        drawing = model.drawing
        assert drawing._one_copy_each
        made = drawing.assembled(solution)
        assert drawing.assembled(tuple(reversed(solution))) == made
        drawing._one_copy_each = False
        assert drawing.assembled(solution) == made
        drawing._one_copy_each = True


def test_packings_without_interlocking_come_apart_at_level_one() -> None:
    found = Found()
    report = checked_run(SPECS / "soma.yaml", RunOptions(show=0, disassemble=True))
    assert report.disassembly is not None
    assert (report.disassembly.apart, report.disassembly.highest_level) == (240, "1")
    run_one(
        SPECS / "pentominoes_6x10.yaml",
        RunOptions(SearchOptions(max_solutions=3), show=0, disassemble=True),
        on_new_class=found,
    )
    assert [d["disassembly"]["level"] for _, _, d in found.found] == ["1", "1", "1"]
    _check_plans(found)


def test_json_keeps_its_fields_and_adds_the_disassembly() -> None:
    plain = runner.invoke(app, ["run", str(SPECS / "soma.yaml"), "--json"])
    taken = runner.invoke(app, ["run", str(SPECS / "soma.yaml"), "--json", "--disassemble"])
    assert plain.exit_code == taken.exit_code == 0
    before, after = json.loads(plain.stdout), json.loads(taken.stdout)
    assert set(after) - set(before) == {"disassembly"}
    assert after["counts"] == before["counts"]
    assert after["disassembly"]["comes_apart"] == 240 and after["disassembly"]["checked"] == 240


def test_first_stops_at_the_first_assembly_that_comes_apart(tmp_path: Path) -> None:
    """Dracula's Dental Disaster: 1 of its 84 assemblies comes apart, and the search meets stuck
    ones first; --first keeps looking until one comes apart, then stops."""
    out = tmp_path / "found.jsonl"
    path = corpus_dir("burrtools") / "DraculasDentalDesaster.xmpuzzle"
    result = runner.invoke(app, ["run", str(path), "--disassemble", "--first", "--solutions", str(out)])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    outcomes = [line["disassembly"]["outcome"] for line in lines]
    assert outcomes[-1] == str(Outcome.APART) and outcomes.count(str(Outcome.APART)) == 1
    assert 1 < len(lines) < 84  # stuck ones first, and not the whole search
    assert "INCOMPLETE: stopped at the first solution" in result.stdout
    assert (
        f"disassembly: 1 of {len(lines)} assemblies come apart (one checked per class; highest level 3.5.16.6.4)"
        in result.stdout
    )


def test_show_prints_the_plan_in_words() -> None:
    result = runner.invoke(app, ["run", str(corpus_dir("burrtools") / "CubeInCage.xmpuzzle"), "--disassemble"])
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert "disassembly: 1 of 96 assemblies come apart (one checked per class; highest level 4.9.3)" in text
    assert "comes apart: level 4.9.3, 16 moves" in text
    names = r"(Frame1|Frame2|S4|S5|S6)(\.[0-9]+)?"  # the file's own names, copies numbered
    assert re.search(rf"^ +1\. move {names} [+-][xyz] by 1$", text, flags=re.MULTILINE), text
    assert "stay together (a piece group)" in text


def test_other_families_are_refused_in_one_line() -> None:
    spec = SPECS / "snake_standard.yaml"
    result = runner.invoke(app, ["run", str(spec), "--disassemble"])
    assert result.exit_code == 2
    assert (
        result.output.strip()
        == f"{spec}: --disassemble takes packing puzzles (pieces to take apart), not a chain puzzle"
    )


def test_spec_groups_reach_the_disassembler(tmp_path: Path) -> None:
    """A YAML spec's `disassembly_groups`: the rings above and a cube beside them. The whole
    assembly never counts as a group (nothing would come apart), as in BurrTools."""
    cube: Cell = (-1, 0, 0)
    cells = [*RING_A, *RING_B, cube]
    low = [min(c[i] for c in cells) for i in range(3)]

    def moved(shape: Sequence[Cell]) -> list[list[int]]:
        return [[x - low[0], y - low[1], z - low[2]] for x, y, z in shape]

    def spec(groups: dict[str, int]) -> str:
        rings = {
            name: {"cells": moved(ring), "disassembly_groups": groups} for name, ring in (("A", RING_A), ("B", RING_B))
        }
        pieces = {**rings, "C": {"cells": moved([cube])}}
        return json.dumps({"name": "rings", "pieces": pieces, "target": {"cells": moved(cells)}})

    path = tmp_path / "rings.yaml"
    for groups, comes_apart in (({"chain": 1}, True), ({}, False)):
        path.write_text(spec(groups))
        report = run_one(path, RunOptions(show=0, disassemble=True))
        assert report.disassembly is not None and report.disassembly.checked >= 1
        assert report.disassembly.apart == (report.disassembly.checked if comes_apart else 0)


def test_a_cage_of_loose_cubes_ends_at_the_time_limit(tmp_path: Path) -> None:
    """Ten loose cubes shut in a cage: no assembly comes apart, and the unions of cubes that can
    move together grow as 2^cubes in each position. The time limit ends the run, analyses included."""
    shell = [
        [x, y, z] for x in range(6) for y in range(6) for z in range(3) if x in (0, 5) or y in (0, 5) or z in (0, 2)
    ]
    inside = [[x, y, 1] for x in range(1, 5) for y in range(1, 5)]
    spec = tmp_path / "cage.yaml"
    pieces = {"cage": {"cells": shell}, "c": {"cells": [[0, 0, 0]], "count": 10}}
    spec.write_text(json.dumps({"pieces": pieces, "target": {"cells": shell + inside, "optional": inside}}))
    started = time.monotonic()
    report = run_one(spec, RunOptions(show=0, disassemble=True, search=SearchOptions(time_limit=2.0)))
    assert time.monotonic() - started < 60  # the limit's promise, with a margin for a busy machine
    assert report.stopped_by is StopReason.TIME_LIMIT and report.disassembly is not None
    assert report.disassembly.apart == 0 and report.disassembly.undecided == report.disassembly.checked


def test_generated_designs_with_holes_and_colours_come_apart_as_burrtools_says(tmp_path: Path) -> None:
    """Designs with cells that may stay empty, pieces reaching into them and colour rules
    (`cpsolve generate packing`, written as BurrTools files): the assemblies that come apart and
    their levels are the ones `burrTxt -d` prints."""
    from cpsolve.generate import PackingRequest, packing_spec_text

    designs = [
        PackingRequest((4, 4, 4), pieces=10, shell=1, inside=4, seed=1),  # 10 assemblies
        PackingRequest((4, 4, 4), pieces=8, shell=1, inside=4, colours=2, seed=2),
        PackingRequest((5, 5, 2), pieces=6, colours=2, seed=7),
    ]
    for number, design in enumerate(designs):
        spec, path = tmp_path / f"design{number}.yaml", tmp_path / f"design{number}.xmpuzzle"
        spec.write_text(packing_spec_text(design))
        converted = CliRunner().invoke(app, ["convert", str(spec), str(path)])
        assert converted.exit_code == 0, converted.output
        theirs = _burrtools_levels(path)
        found = Found()
        run_one(path, RunOptions(show=0, disassemble=True), on_new_class=found)
        outcomes = [details["disassembly"] for _, _, details in found.found]
        levels = [outcome["level"] for outcome in outcomes if outcome["outcome"] == str(Outcome.APART)]
        assert theirs and Counter(levels) == Counter(theirs), design
        _check_plans(found)


def _one_disassembler_for_all(assemblies: Sequence[Sequence[AssembledPiece]], grid: Grid = CUBE) -> None:
    """Assemblies taken apart one after another by one compiled disassembler (which keeps the
    gaps between shapes from one to the next), each answered as the Python search answers it alone."""
    if importlib.util.find_spec("numba") is None:
        pytest.skip("numba is not installed: no compiled disassembler")
    kept = Disassembler(grid=grid, compiled=True)
    answers = [Disassembler(grid=grid, compiled=False).analyse(pieces) for pieces in assemblies]
    for pieces, alone in zip(assemblies, answers, strict=True):
        after_others = kept.analyse(pieces)
        assert (after_others.as_json(), after_others.positions) == (alone.as_json(), alone.positions)
    _batch_answers_as_alone(Disassembler(grid=grid, compiled=True), assemblies, answers)


def _batch_answers_as_alone(
    disassembler: Disassembler, assemblies: Sequence[Sequence[AssembledPiece]], answers: Sequence[Disassembly]
) -> None:
    """`analyse_all`: the assemblies in batches of one kernel call each, every one answered (outcome,
    level, plan, positions) as `answers` says it is alone."""
    together = disassembler.analyse_all(assemblies)
    assert [(one.as_json(), one.positions, one.pieces) for one in together] == [
        (one.as_json(), one.positions, one.pieces) for one in answers
    ]


def test_gaps_kept_from_an_earlier_assembly_hold_only_where_the_pieces_lie_alike() -> None:
    """A cube in the notch of a U, then the same U and cube with the cube beside it: at their
    start the pieces have the same offsets, but the cube's box lies elsewhere from the U's, so
    the gaps of the first would send the cube out along +y where it comes out along +x."""
    frame = ((0, 0, 0), (1, 0, 0), (2, 0, 0), (0, 1, 0), (2, 1, 0))
    in_notch = [AssembledPiece("U", "U", frame), AssembledPiece("K", "K", ((1, 1, 0),))]
    beside = [AssembledPiece("U", "U", frame), AssembledPiece("K", "K", ((3, 1, 0),))]
    _one_disassembler_for_all([in_notch, beside])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(small_assemblies(most_pieces=4, most_layers=3), min_size=2, max_size=4))
def test_one_disassembler_answers_each_assembly_as_if_alone(assemblies: list[list[list[Cell]]]) -> None:
    _one_disassembler_for_all([_assembled(pieces) for pieces in assemblies])


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(small_assemblies(most_pieces=4, most_layers=3), min_size=2, max_size=5))
def test_with_piece_groups_a_batch_answers_each_assembly_as_the_python_search_alone(
    assemblies: list[list[list[Cell]]],
) -> None:
    """With piece groups each assembly is taken apart part by part, the pieces' tables made for
    the whole batch at once (`CompiledDisassembler.use_assembly`): every answer as the Python
    search gives it for that assembly alone, whatever came before it in the batch."""
    if importlib.util.find_spec("numba") is None:
        pytest.skip("numba is not installed: no compiled disassembler")
    groups = PieceGroups({("cage", "A"): 1, ("cage", "B"): 1})  # the first two pieces may stay together
    given = [_assembled(pieces) for pieces in assemblies]
    answers = [Disassembler(groups, compiled=False).analyse(pieces) for pieces in given]
    _batch_answers_as_alone(Disassembler(groups, compiled=True), given, answers)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(small_assemblies(most_pieces=3, most_layers=2), min_size=2, max_size=4))
def test_one_disassembler_answers_each_assembly_as_if_alone_on_prisms(assemblies: list[list[list[Cell]]]) -> None:
    _one_disassembler_for_all([_assembled(pieces) for pieces in assemblies], grid_named("prism"))
