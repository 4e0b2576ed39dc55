"""Engines give the same counts; parts are disjoint and stream; a new engine slots in with one line;
`cpsolve bench` compares the engines and fails on any disagreement."""

from __future__ import annotations

import itertools
import json
import os
import shutil
import time
from collections.abc import Generator
from pathlib import Path

import pytest
import yaml
from conftest import SPECS, built, checked_run, no_solution_after_long, run_one
from typer.testing import CliRunner

from cpsolve import engines, parts, workers
from cpsolve.bench import BenchOptions, bench
from cpsolve.cli import app
from cpsolve.engines import Engine, Enumeration, Prepared, SearchOptions, StopReason
from cpsolve.engines.base import PartKey
from cpsolve.engines.chain_dfs import ChainWalkEngine
from cpsolve.engines.exact_cover import ExactCoverEngine, parts_for
from cpsolve.engines.TEMPLATE import TemplateEngine
from cpsolve.formats import read_puzzle
from cpsolve.generate import PackingRequest, packing_spec_text
from cpsolve.limits import NO_DEADLINE, Deadline
from cpsolve.models import BuildOptions, CoverProblem, PuzzleModel
from cpsolve.run import RunOptions
from cpsolve.symmetry import Breaking, Solution, choose_breaking
from cpsolve.workers import Sharing

runner = CliRunner()

EXACT_COVER_SPECS = [
    "soma.yaml",
    "cubissimo.yaml",
    "coffin.yaml",
    "foam_cube.yaml",
    "foam_colours.yaml",
    "t_tetracubes_6x6x2.yaml",
    pytest.param("pentominoes_6x10.yaml", marks=pytest.mark.slow),
]
PENTOMINOES = yaml.safe_load((SPECS / "pentominoes_6x10.yaml").read_text())


def pentomino_spec(tmp_path: Path, name: str, target: dict[str, object]) -> Path:
    data = {key: value for key, value in PENTOMINOES.items() if key not in ("expected", "slow")}
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(dict(data, name=name, target=target)))
    return path


@pytest.mark.parametrize(
    "name",
    [
        "tiles_frame_4x4.yaml",
        "tiles_strip_8x3.yaml",
        pytest.param("tiles_rectangle_4x3.yaml", marks=pytest.mark.slow),
        pytest.param("tiles_sum_zero_5x5.yaml", marks=pytest.mark.slow),  # CP-SAT: 48 s
    ],
)
def test_tiles_engines_agree(name: str) -> None:
    cpsat = checked_run(SPECS / name, RunOptions(show=0, engine="cpsat"))
    tiles = checked_run(SPECS / name, RunOptions(show=0, engine="tiles-dfs"))
    assert (tiles.counts, tiles.mismatches) == (cpsat.counts, [])
    assert tiles.solutions_enumerated == cpsat.solutions_enumerated  # the same breaking, the same canonical set


@pytest.mark.parametrize("name", EXACT_COVER_SPECS)
def test_engines_agree(name: str) -> None:
    cpsat = checked_run(SPECS / name, RunOptions(show=0, engine="cpsat"))
    exact = checked_run(SPECS / name, RunOptions(show=0, engine="exact-cover"))
    assert (cpsat.engine, exact.engine) == ("cpsat", "exact-cover")
    assert exact.counts == cpsat.counts
    assert exact.mismatches == cpsat.mismatches == []
    assert exact.solutions_enumerated == cpsat.solutions_enumerated  # the same breaking, the same canonical set


def test_plain_exact_cover_meets_every_raw_solution() -> None:
    report = checked_run(SPECS / "coffin.yaml", RunOptions(show=0, engine="exact-cover", symmetry_breaking=False))
    assert report.solutions_enumerated == report.counts.raw == 24


def test_exact_cover_parts_split_the_kept_first_atoms() -> None:
    puzzle = built(SPECS / "soma.yaml")
    problem = puzzle.cover_problem()
    assert problem is not None
    breaking = choose_breaking(puzzle.group, puzzle.breaking_candidates)
    assert breaking is not None
    parts = parts_for(problem, breaking)
    kept = [next(a for a in part.forced if a in breaking.first) for part in parts]
    assert len(kept) == len(set(kept)) == len(parts)  # each part forces a different first atom
    for part, atom in zip(parts, kept, strict=True):
        assert breaking.first - {atom} <= part.left_out
        assert set(breaking.forbidden) <= part.left_out


@pytest.mark.parametrize(
    ("name", "engine", "wanted"),
    [
        ("soma.yaml", "exact-cover", 1),
        ("soma.yaml", "exact-cover", 16),  # split further by the next cell's placements (box search)
        ("pentominoes_6x10.yaml", "exact-cover", 32),  # the same by the lowest cell
        ("soma.yaml", "cpsat", 16),
        ("snake_palindrome.yaml", "chain-dfs", 16),
        ("tiles_rectangle_4x3.yaml", "tiles-dfs", 1),
        ("tiles_rectangle_4x3.yaml", "tiles-dfs", 64),  # split further by the tiles of the next place
        ("tiles_frame_4x4.yaml", "tiles-dfs", 16),
    ],
)
def test_parts_are_disjoint_and_make_the_whole(name: str, engine: str, wanted: int) -> None:
    puzzle = built(SPECS / name)
    breaking = choose_breaking(puzzle.group, puzzle.breaking_candidates)
    prepared = engines.DEFAULT.named(engine).prepare(puzzle, breaking)
    whole = list(prepared.enumerate(SearchOptions()))
    keys = prepared.part_keys(wanted)
    assert len(keys) == len(set(keys))
    if engine in ("exact-cover", "tiles-dfs") and wanted > 1:
        assert len(keys) > len(prepared.part_keys(1))  # the kept atoms were too few: split finer
    parts = [list(prepared.enumerate(SearchOptions(), part=key)) for key in keys]
    in_parts = [solution for part in parts for solution in part]
    assert len(in_parts) == len(set(in_parts)) == len(whole)
    assert set(in_parts) == set(whole)


def test_auto_takes_the_special_engine_wherever_it_can() -> None:
    assert checked_run(SPECS / "foam_colours.yaml").engine == "exact-cover"  # groups and ranges
    assert checked_run(SPECS / "t_tetracubes_6x6x2.yaml").engine == "exact-cover"  # 18 copies of one piece
    assert checked_run(SPECS / "tiles_bugs_3x3.yaml").engine == "tiles-dfs"
    assert checked_run(SPECS / "snake_standard.yaml").engine == "chain-dfs"
    assert checked_run(SPECS / "soma.yaml").engine == "exact-cover"


def test_auto_falls_back_to_cpsat_when_an_engine_is_not_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ChainWalkEngine, "required_module", "a_module_that_is_not_installed")
    assert checked_run(SPECS / "snake_standard.yaml").engine == "cpsat"
    result = runner.invoke(app, ["run", str(SPECS / "snake_standard.yaml"), "--engine", "chain-dfs"])
    assert result.exit_code == 2
    assert 'the chain-dfs engine is not installed: pip install "cpsolve[chain-dfs]"' in result.output


def test_exact_cover_stops_at_the_first_solution() -> None:
    report = run_one(
        SPECS / "soma.yaml", RunOptions(show=0, engine="exact-cover", search=SearchOptions(first_only=True))
    )
    assert not report.complete
    assert report.stopped_by is StopReason.FIRST_SOLUTION
    assert report.counts.unique == 1


def test_exact_cover_honours_the_time_limit_without_any_solution(tmp_path: Path) -> None:
    """A puzzle without solution whose search learns that only after a long time (conftest)."""
    path = no_solution_after_long(tmp_path / "no_solution.yaml")
    started = time.perf_counter()
    report = run_one(path, RunOptions(show=0, engine="exact-cover", search=SearchOptions(time_limit=1.0)))
    assert time.perf_counter() - started < 30  # the limit's promise, with a margin for a busy machine
    assert (report.complete, report.stopped_by, report.solutions_enumerated) == (False, StopReason.TIME_LIMIT, 0)


def test_tiles_search_finds_a_planted_board_and_honours_the_time_limit(tmp_path: Path) -> None:
    """The planted 8x8 found with its solution checked; a planted 16x16 is far beyond a second's
    search, so the run stops by the time limit, well within the margin."""
    report = run_one(
        SPECS / "eternity" / "eternity_8x8.yaml",
        RunOptions(show=0, engine="tiles-dfs", search=SearchOptions(first_only=True)),
    )
    assert (report.stopped_by, report.counts.raw, report.identity_problems) == (StopReason.FIRST_SOLUTION, 4, [])
    started = time.perf_counter()
    report = run_one(
        SPECS / "eternity" / "eternity_16x16.yaml",
        RunOptions(show=0, engine="tiles-dfs", search=SearchOptions(time_limit=1.0)),
    )
    assert time.perf_counter() - started < 30  # the limit's promise, with a margin for a busy machine
    assert (report.complete, report.stopped_by, report.solutions_enumerated) == (False, StopReason.TIME_LIMIT, 0)


def test_boards_of_too_many_labels_go_to_cpsat(tmp_path: Path) -> None:
    """Over 255 labels the tiles search's tables would grow with their square: auto takes CP-SAT."""
    path = tmp_path / "many_labels.yaml"
    result = runner.invoke(app, ["generate", "tiles", "--board", "16x16", "--labels", "2000", "-o", str(path)])
    assert result.exit_code == 0, result.output
    puzzle = built(path)
    board = puzzle.edge_matching()
    assert board is not None and board.labels > 255
    assert engines.DEFAULT.choose("auto", puzzle).name == "cpsat"


@pytest.mark.parametrize(
    ("spec", "engine", "words"),
    [
        ("snake_standard.yaml", "exact-cover", "the exact-cover engine takes only packings"),
        ("soma.yaml", "chain-dfs", "the chain-dfs engine takes only chains"),
        ("soma.yaml", "tiles-dfs", "the tiles-dfs engine takes only edge-matching tiles"),
        (
            "soma.yaml",
            "dlx",
            "option engine (--engine) = 'dlx': expected one of cpsat, exact-cover, chain-dfs, tiles-dfs,"
            " frontier, auto",
        ),
    ],
)
def test_engine_errors(spec: str, engine: str, words: str) -> None:
    result = runner.invoke(app, ["run", str(SPECS / spec), "--engine", engine])
    assert result.exit_code == 2
    assert words in result.output


# -- a new engine is one module and one registry line -------------------------------------------


class BruteForceEngine(Engine):
    """Tries every set of atoms of a small exact-cover packing; knows nothing of the other engines."""

    name = "brute-force"
    takes_what = "exact-cover packings of at most 50 placements"

    def takes(self, puzzle: PuzzleModel, auto: bool = False) -> bool:
        problem = puzzle.cover_problem()
        return problem is not None and problem.atoms <= 50

    def prepare(self, puzzle: PuzzleModel, breaking: Breaking | None, deadline: Deadline = NO_DEADLINE) -> Prepared:
        problem = puzzle.cover_problem()
        assert problem is not None
        return BruteForcePrepared(self, puzzle, breaking, problem)


class BruteForcePrepared(Prepared):
    def __init__(self, engine: Engine, puzzle: PuzzleModel, breaking: Breaking | None, problem: CoverProblem) -> None:
        super().__init__(engine, puzzle, breaking)
        self.problem = problem

    def enumerate(
        self,
        search: SearchOptions,
        deadline: Deadline = NO_DEADLINE,
        part: PartKey | None = None,
        sharing: Sharing | None = None,
    ) -> Enumeration:
        return BruteForceEnumeration(self, search, deadline, part)


class BruteForceEnumeration(Enumeration):
    def __init__(
        self, prepared: BruteForcePrepared, search: SearchOptions, deadline: Deadline, part: PartKey | None
    ) -> None:
        super().__init__(search, deadline)
        self.prepared = prepared
        self.part = part

    def __iter__(self) -> Generator[Solution, None, None]:
        problem, breaking = self.prepared.problem, self.prepared.breaking
        pieces = len(problem.piece_bounds)
        covers = [frozenset(int(c) for c in problem.atom_cells[a] if c >= 0) for a in range(problem.atoms)]
        for chosen in itertools.combinations(range(problem.atoms), pieces):
            used = sorted(int(problem.atom_piece[a]) for a in chosen)
            cells = [c for a in chosen for c in covers[a]]
            if used != list(range(pieces)) or sorted(cells) != list(range(problem.cells)):
                continue
            if breaking is not None and not self._kept(chosen, breaking):
                continue
            yield from self.take([chosen])
            if self.stopped_by is not None:
                return

    def _kept(self, chosen: tuple[int, ...], breaking: Breaking) -> bool:
        if set(chosen) & set(breaking.forbidden):
            return False
        if any(first in chosen and second in chosen for first, second in breaking.forbidden_pairs):
            return False
        return self.part is None or set(self.part) <= set(chosen)


def test_a_registered_engine_runs_through_cpsolve_run(tmp_path: Path) -> None:
    spec = tmp_path / "small.yaml"
    spec.write_text(
        "name: small\npieces:\n  L: {cells: [[0,0],[1,0],[0,1]]}\n  I: {box: [3, 1]}\n"
        "  D: {box: [2, 1]}\n  O: {box: [1, 1]}\ntarget: {box: [3, 3]}\n"
    )
    registry = engines.DEFAULT.with_engine(BruteForceEngine())
    assert [engine.name for engine in registry.for_puzzle(built(spec))] == ["cpsat", "exact-cover", "brute-force"]
    for breaking in (True, False):
        options = RunOptions(show=0, symmetry_breaking=breaking)
        brute = checked_run(
            spec, RunOptions(show=0, symmetry_breaking=breaking, engine="brute-force", engines=registry)
        )
        assert brute.engine == "brute-force"
        assert brute.counts == checked_run(spec, options).counts
        assert brute.counts.raw > 0
    parted = checked_run(spec, RunOptions(show=0, engine="brute-force", workers=2, engines=registry))
    assert parted.counts == brute.counts and parted.workers == 2
    assert "brute-force" not in engines.DEFAULT.names()  # the default registry is left as it was


@pytest.mark.parametrize("name", ["coffin.yaml", pytest.param("soma.yaml", marks=pytest.mark.slow)])
def test_the_engine_template_works_as_it_stands(name: str) -> None:
    """engines/TEMPLATE.py is an engine to copy: on a registry of its own it gives the reference
    counts, with and without breaking, in parts, and stops at --first."""
    registry = engines.DEFAULT.with_engine(TemplateEngine())
    reference = checked_run(SPECS / name)
    for breaking in (True, False):
        options = RunOptions(show=0, symmetry_breaking=breaking, engine="template", engines=registry)
        assert checked_run(SPECS / name, options).counts == reference.counts
    parted = checked_run(SPECS / name, RunOptions(show=0, engine="template", workers=2, engines=registry))
    assert parted.counts == reference.counts
    first = run_one(
        SPECS / name, RunOptions(show=0, engine="template", engines=registry, search=SearchOptions(first_only=True))
    )
    assert first.stopped_by is StopReason.FIRST_SOLUTION and first.counts.raw >= 1


# -- bench ------------------------------------------------------------------------------------


def bench_dir(tmp_path: Path, *names: str) -> Path:
    for name in names:
        shutil.copy(SPECS / name, tmp_path / name)
    return tmp_path


def test_bench_table(tmp_path: Path) -> None:
    names = ("coffin.yaml", "tiles_bugs_3x3.yaml", "snake_standard.yaml")
    result = runner.invoke(app, ["bench", str(bench_dir(tmp_path, *names))])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("ratios: ref/other = the reference engine's seconds / the other engine's")
    assert lines[1].split()[:3] == ["puzzle", "mode", "raw/rotations/unique"]
    rows = {line.split()[0]: line.split() for line in lines[2:] if line.split()[0] in names}
    assert rows["coffin.yaml"][1:4] == ["count", "24/1/1", "yes"]
    assert rows["coffin.yaml"][5] == "exact-cover" and rows["coffin.yaml"][7].endswith("x")  # a ratio
    assert rows["snake_standard.yaml"][5] == "chain-dfs"
    assert rows["tiles_bugs_3x3.yaml"][5] == "tiles-dfs"
    assert lines[-1] == "all counts agree"


def test_bench_json_and_failure_on_a_wrong_expected_count(tmp_path: Path) -> None:
    bench_dir(tmp_path, "coffin.yaml")
    wrong = tmp_path / "coffin.yaml"
    wrong.write_text(wrong.read_text().replace("raw: 24", "raw: 25"))
    result = runner.invoke(app, ["bench", str(tmp_path), "--json"])
    assert result.exit_code == 1
    data = json.loads(result.output)
    assert data["ok"] is False
    (row,) = data["rows"]
    assert set(row["results"]) == {"cpsat", "exact-cover"}
    assert any("raw: expected 25, counted 24" in problem for problem in row["problems"])


def test_bench_skips_slow_specs_and_runs_find_one_specs(tmp_path: Path) -> None:
    bench_dir(tmp_path, "pentominoes_6x10.yaml")
    spec = tmp_path / "find_one.yaml"
    spec.write_text((SPECS / "coffin.yaml").read_text().split("expected:")[0])
    result = runner.invoke(app, ["bench", str(tmp_path), "--json"])
    assert result.exit_code == 0, result.output
    rows = {Path(r["source"]).name: r for r in json.loads(result.output)["rows"]}
    assert rows["pentominoes_6x10.yaml"]["skipped"].startswith("slow")
    assert rows["find_one.yaml"]["mode"] == "first"
    assert rows["find_one.yaml"]["results"]["cpsat"]["stopped_by"] == "first solution"


def test_bench_with_one_engine_skips_what_it_does_not_take(tmp_path: Path) -> None:
    bench_dir(tmp_path, "coffin.yaml", "snake_standard.yaml")
    result = runner.invoke(app, ["bench", str(tmp_path), "--engine", "exact-cover"])
    assert result.exit_code == 0, result.output
    rows = {line.split()[0]: line for line in result.output.splitlines()}
    assert "skipped: the exact-cover engine does not take it" in rows["snake_standard.yaml"]
    assert rows["coffin.yaml"].split()[1:6] == ["count", "24/1/1", "yes", "-", "exact-cover"]  # no CP-SAT run


def test_a_count_stopped_by_the_bench_limit_is_left_out_while_another_engine_completed() -> None:
    """CP-SAT needs about 30 s for pentominoes 6x10, exact cover a fraction of one (so 5 s
    separates them on a busy machine too)."""
    options = BenchOptions(include_slow=True, count_time_limit=5.0)
    (row,) = bench([SPECS / "pentominoes_6x10.yaml"], options)
    by_engine = {result.engine: result for result in row.results}
    assert by_engine["cpsat"].stopped_by is StopReason.TIME_LIMIT
    assert by_engine["exact-cover"].complete
    assert row.problems == []
    alone = BenchOptions(include_slow=True, count_time_limit=5.0, engine="cpsat")
    (row,) = bench([SPECS / "pentominoes_6x10.yaml"], alone)
    assert row.problems == ["cpsat: stopped by the time limit"]  # nothing complete to compare with


def test_bench_missing_path() -> None:
    result = runner.invoke(app, ["bench", "no/such/dir"])
    assert result.exit_code == 2
    assert "no/such/dir: no such file or directory" in result.output


# -- --workers: disjoint parts in separate processes -----------------------------------------------

PARALLEL_CASES = [
    ("soma.yaml", "cpsat"),
    ("soma.yaml", "exact-cover"),
    ("cubissimo.yaml", "exact-cover"),
    ("t_tetracubes_6x6x2.yaml", "cpsat"),
    ("snake_palindrome.yaml", "cpsat"),
    ("snake_palindrome.yaml", "chain-dfs"),
    ("snake_second.yaml", "chain-dfs"),
    ("tiles_frame_4x4.yaml", "cpsat"),
    ("foam_colours.yaml", "cpsat"),
]


@pytest.mark.parametrize(("name", "engine"), PARALLEL_CASES)
def test_workers_give_the_serial_counts(name: str, engine: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The counts of one worker on two; a search begun on one (cpsolve.parts.BegunHere) hands its
    rest over at once here, so that these short ones are split too."""
    from cpsolve import parts

    monkeypatch.setattr(parts, "THREADS_AFTER_SECONDS", -1.0)
    monkeypatch.setattr(parts, "PARALLEL_AFTER_SECONDS", -1.0)
    serial = checked_run(SPECS / name, RunOptions(show=0, engine=engine))
    parallel = checked_run(SPECS / name, RunOptions(show=0, engine=engine, workers=2))
    assert parallel.counts == serial.counts
    assert parallel.solutions_enumerated == serial.solutions_enumerated
    assert parallel.engine == serial.engine == engine
    puzzle = built(SPECS / name)
    breaking = choose_breaking(puzzle.group, puzzle.breaking_candidates)
    splits = breaking is not None and len({r for r, _ in breaking.weight}) > 1
    assert parallel.workers == (2 if splits else 1)  # a breaking that keeps one atom: no parts


def test_workers_stream_solutions_before_their_part_ends(tmp_path: Path) -> None:
    """The 12 pentominoes in a 3x4x5 box: parts of several seconds each, thousands of solutions."""
    box = read_puzzle(pentomino_spec(tmp_path, "box_3x4x5", {"box": [5, 4, 3]}))
    puzzle = box.model()[0]
    breaking = choose_breaking(puzzle.group, puzzle.breaking_candidates)
    prepared = ExactCoverEngine().prepare(puzzle, breaking)
    units = parts.units_of(prepared, box.file, None, prepared.part_keys(16), SearchOptions(), BuildOptions())
    split = parts.PartsEnumeration(prepared, units, workers.Forked(2), SearchOptions())
    solutions = iter(split)
    first = next(solutions)
    assert split.parts_done == 0  # a solution arrived while every part was still being searched
    assert len(first) == 12
    solutions.close()  # ends the workers
    assert not split.complete


def _hands_back_when_a_worker_waits(unit: str, sharing: workers.Sharing | None = None) -> Generator[str, None, None]:
    """Unit "long" waits (polling, up to a minute) until the other worker has done "short" and
    waits with nothing queued, then hands "handed" back; the others just say their name."""
    assert sharing is not None
    if unit == "long":
        waited = time.monotonic()
        while not sharing.wanted():
            assert time.monotonic() - waited < 60, "no worker came to wait"
            time.sleep(0.001)
        sharing.give(["handed"])
        assert not sharing.wanted()  # the handed-back unit counts as queued at once: no second give
    yield unit


def test_a_forked_unit_hands_work_back_to_a_waiting_worker() -> None:
    """With `grow`, a unit running in a forked worker sees another worker wait with nothing
    queued and hands work back; the stream makes units of it, appends them, announces them (GREW)
    and runs them like the others. Without `grow` a worker has no sharing at all."""
    units = ["long", "short"]
    events = list(workers.Forked(2).stream(_hands_back_when_a_worker_waits, units, lambda unit, work: list(work)))
    assert units == ["long", "short", "handed"]
    assert (0, workers.GREW) in events
    assert sorted(item for _, item in events if item not in (workers.DONE, workers.GREW)) == ["handed", "long", "short"]
    assert sorted(index for index, item in events if item == workers.DONE) == [0, 1, 2]
    with pytest.raises(RuntimeError, match="AssertionError"):
        list(workers.Forked(2).stream(_hands_back_when_a_worker_waits, ["long", "short"]))


def _dies(unit: str, sharing: workers.Sharing | None = None) -> Generator[str, None, None]:
    if unit == "dies":
        os._exit(1)
    yield unit


def test_a_worker_that_dies_while_the_others_wait_for_work_ends_the_stream() -> None:
    """Where units may be handed back, the workers wait for more until the stream ends them: one
    that dies mid-unit is an error at once, not a stream waiting for ever for its unit."""
    with pytest.raises(RuntimeError, match="a worker ended"):
        list(workers.Forked(2).stream(_dies, ["dies", "lives"], lambda unit, work: list(work)))


def test_a_design_searched_as_one_part_is_shared_by_two_workers(tmp_path: Path) -> None:
    """A planted 9x9x9 design (5 assemblies, about a second of search) given to two forked
    workers as one part: the fewest-placements search hands the untried placements of a level
    back to the idle worker while it runs (the second worker waits from the start), and the two
    find every solution of the search in one process, each once."""
    spec = tmp_path / "design.yaml"
    spec.write_text(packing_spec_text(PackingRequest((9, 9, 9), 40, shell=1, inside=100, colours=5, seed=1)))
    design = read_puzzle(spec)
    puzzle = design.model()[0]
    prepared = ExactCoverEngine().prepare(puzzle, None)
    alone = sorted(prepared.enumerate(SearchOptions()))
    units = parts.units_of(prepared, design.file, None, [()], SearchOptions(), BuildOptions())
    split = parts.PartsEnumeration(prepared, units, workers.Forked(2), SearchOptions())
    shared = list(split)
    assert len(alone) == 5 and sorted(shared) == alone
    assert split.complete and split.shared and split.parts_done == 1 + len(split.shared)


def test_workers_respect_the_time_limit() -> None:
    options = RunOptions(show=0, engine="cpsat", workers=2, search=SearchOptions(time_limit=1.0))
    report = run_one(SPECS / "pentominoes_6x10.yaml", options)
    assert not report.complete
    assert report.stopped_by is StopReason.TIME_LIMIT
    assert report.seconds < 20
