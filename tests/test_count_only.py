"""Counting without listing (--count-only): the frontier counter and Burnside's lemma against
listing, an independent brute force and Kasteleyn's formula; the tally; parts; what is refused."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from decimal import Decimal, getcontext
from pathlib import Path
from typing import Any

import pytest
import yaml
from bruteforce import count
from conftest import SPECS, absent, built, checked_run, corpus_dir, run_one, spec_files
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from test_box_search import SHAPES, small_packings
from test_yass import corpus_rows
from typer.testing import CliRunner

from cpsolve.cli import app
from cpsolve.counting.burnside import conjugacy_classes
from cpsolve.engines import DEFAULT, SearchOptions, frontier
from cpsolve.engines.frontier import FRONTIER, Counter, CountUnit, cell_order
from cpsolve.engines.frontier import why_not as takes
from cpsolve.engines.frontier.counter import FrontierTooWide
from cpsolve.errors import SpecError
from cpsolve.formats import PuzzleFile, read_puzzle
from cpsolve.run import RunOptions

runner = CliRunner()
COUNTING = RunOptions(show=0, count_only=True)


def counted(path: Path | str, **changes: Any) -> Any:
    """A complete count-only run's report, its Burnside sums whole."""
    report = run_one(path, dataclasses.replace(COUNTING, **changes))
    assert report.complete, (report.stopped_by, report.notes)
    assert report.identity_problems == []
    assert report.counting is not None
    return report


def write(tmp_path: Path, name: str, data: dict[str, Any]) -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def dominoes(tmp_path: Path, columns: int, rows: int) -> Path:
    data = {
        "name": f"dominoes {columns}x{rows}",
        "pieces": {"D": {"cells": [[0, 0], [1, 0]], "count": columns * rows // 2}},
        "target": {"box": [columns, rows, 1]},
    }
    return write(tmp_path, f"dominoes_{columns}x{rows}", data)


def _cos(x: Decimal) -> Decimal:
    """cos(x) to the context's precision (Taylor series; x is at most pi here)."""
    total, term, n = Decimal(1), Decimal(1), 0
    while True:
        n += 2
        term = -term * x * x / (n * (n - 1))
        if abs(term) < Decimal(10) ** -(getcontext().prec + 2):
            return total
        total += term


def kasteleyn(columns: int, rows: int) -> int:
    """Domino tilings of a columns x rows board by Kasteleyn's product, in 80-digit decimals."""
    getcontext().prec = 80
    pi = Decimal("3.14159265358979323846264338327950288419716939937510582097494459230781640628620899")
    product = Decimal(1)
    for j in range(1, (columns + 1) // 2 + 1):
        for k in range(1, (rows + 1) // 2 + 1):
            a = _cos(pi * j / (columns + 1))
            b = _cos(pi * k / (rows + 1))
            product *= 4 * a * a + 4 * b * b
    return int(product.to_integral_value())


@pytest.mark.parametrize("size", [(2, 2), (4, 4), (6, 6), (8, 8), (10, 10), (12, 12), (14, 14), (5, 4), (9, 6)])
def test_domino_tilings_are_kasteleyns_numbers(tmp_path: Path, size: tuple[int, int]) -> None:
    report = counted(dominoes(tmp_path, *size))
    assert report.engine == FRONTIER
    assert report.counts.raw == kasteleyn(*size)
    if size == (8, 8):
        assert report.counts.raw == 12_988_816
    if size == (10, 10):
        assert report.counts.raw == 258_584_046_368


@pytest.mark.parametrize("size", [(2, 2), (4, 4), (4, 3), (6, 4), (6, 6)])
def test_domino_classes_by_burnside_equal_the_listed_classes(tmp_path: Path, size: tuple[int, int]) -> None:
    path = dominoes(tmp_path, *size)
    assert counted(path).counts == checked_run(path).counts


def test_every_symmetrys_fixed_count_is_the_listed_solutions_it_fixes() -> None:
    """Burnside's terms one by one: for each element, the frontier's count of the solutions it
    leaves unchanged equals the number of listed raw solutions it maps onto themselves."""
    path = SPECS / "t_tetracubes_6x6x2.yaml"
    model = built(path)
    engine = DEFAULT.named("exact-cover")
    engine.load()
    listed = list(engine.prepare(model, None).enumerate(SearchOptions()))
    assert len(listed) == 136
    counter = Counter(model, "fill")
    for element, symmetry in enumerate(model.group.elements):
        fixed = sum(1 for solution in listed if symmetry.apply(solution) == tuple(solution))
        assert counter.problem(element).count() == fixed


def test_conjugate_elements_fix_as_many_solutions() -> None:
    model = built(SPECS / "soma.yaml")
    classes = conjugacy_classes(model.group)
    assert sum(c.size for c in classes) == 48 and len(classes) == 10  # the cube's ten classes
    assert classes[0].size == 1  # the identity first
    counter = Counter(model, "fill")
    fixed = [counter.problem(element).count() for element in range(model.group.order)]
    representative_of: dict[tuple[int, ...], int] = {}
    maps = model.group.maps
    inverse = maps.argsort(axis=1)
    for g in range(48):
        for h in range(48):
            conjugate = tuple(maps[h][maps[g][inverse[h]]].tolist())
            representative_of.setdefault(conjugate, g)
    assert all(fixed[g] == fixed[representative_of[tuple(maps[g].tolist())]] for g in range(48))


def counting_specs() -> list[Any]:
    """Every shipped spec with counts; the slow ones (and the snakes of 4x4x4) behind the marker."""
    params = []
    for param in spec_files():
        expected = read_puzzle(param.values[0]).loaded.spec.expected
        if expected is not None:
            params.append(param)
    return params


@pytest.mark.parametrize("path", counting_specs())
def test_every_shipped_spec_counts_as_it_lists(path: Path) -> None:
    expected = read_puzzle(path).loaded.spec.expected
    assert expected is not None
    report = counted(path)
    for name, value in expected.model_dump().items():
        if value is not None:
            assert getattr(report.counts, name) == value


# every shipped packing with counts but the three large cubes of distinct pieces, which stop at
# the memory limit on the frontier (docs/counting.md)
FRONTIER_SPECS = [
    "t_tetracubes_6x6x2",
    "soma",
    "foam_cube",
    "foam_colours",
    "kanoodle_challenge",
    "cubissimo",
    "coffin",
    "pentominoes_6x10",
    "hexiamonds_rhombus",
]


@pytest.mark.parametrize("name", FRONTIER_SPECS)
def test_the_frontier_counts_distinct_pieces_as_listing_does(name: str) -> None:
    """`--engine frontier` takes packings of distinct pieces too (auto lists those: faster)."""
    path = SPECS / f"{name}.yaml"
    report = counted(path, engine=FRONTIER)
    assert report.engine == FRONTIER
    assert report.counts == checked_run(path).counts


@pytest.mark.parametrize("name", ["t_tetracubes_6x6x2", "soma", "cubissimo"])
def test_three_cell_orders_count_alike(name: str) -> None:
    path = SPECS / f"{name}.yaml"
    fill = counted(path, engine=FRONTIER)
    for order in ("reverse", "across"):
        other = counted(path, engine=FRONTIER, count_order=order)
        assert other.counts == fill.counts
        assert other.counting["symmetry_classes"] == fill.counting["symmetry_classes"]


def test_across_turns_the_two_faster_sides_of_the_fill_order() -> None:
    cover = built(SPECS / "t_tetracubes_6x6x2.yaml").cover_problem()
    assert cover is not None
    fill = [cover.positions[c] for c in cell_order(cover, "fill")]
    across = [cover.positions[c] for c in cell_order(cover, "across")]
    assert sorted(fill) == sorted(across) and fill != across
    assert [p[1] for p in fill] == [p[1] for p in across]  # the slowest side (y here) kept


def test_across_is_refused_where_cells_have_no_layers() -> None:
    rhombic = corpus_dir("burrtools-grids") / "HexSticks.xmpuzzle"
    code, output = cli("run", rhombic, "--count-only", "--engine", FRONTIER, "--count-order", "across")
    assert code == 2 and "needs a packing on a grid of layers" in output


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_packings())
def test_the_frontier_counts_as_the_brute_force(data: dict[str, Any]) -> None:
    """Random boxes with cells taken out and pieces with ranges of copies: the three counts by
    Burnside equal an independent brute force's classes."""
    pieces = {
        name: ([tuple(c) for c in piece["cells"]], piece["min"], piece["max"]) for name, piece in data["pieces"].items()
    }
    target = [tuple(c) for c in data["target"]["cells"]]
    raw, rotations, unique = count(pieces, target)
    report = run_in_memory(data, Path("generated.yaml"), engine=FRONTIER)
    assert (report.counts.raw, report.counts.rotations, report.counts.unique) == (raw, rotations, unique)


@st.composite
def packings_with_holes(draw: st.DrawFn) -> dict[str, Any]:
    """Flat boards with optional cells, a hole limit and a group: every resource the counter keeps."""
    columns, rows = draw(st.sampled_from([(3, 3), (4, 3), (4, 4), (5, 2)]))
    cells = [(x, y) for y in range(rows) for x in range(columns)]
    optional = draw(st.sets(st.sampled_from(cells), max_size=3))
    names = draw(st.lists(st.sampled_from(["domino", "bar", "vee", "ell"]), min_size=1, max_size=3, unique=True))
    pieces: dict[str, Any] = {}
    for name in names:
        pieces[name] = {"cells": [list(c[:2]) for c in SHAPES[name]], "min": 0, "max": draw(st.integers(1, 4))}
        if draw(st.booleans()):
            pieces[name]["group"] = "g"
    data: dict[str, Any] = {"pieces": pieces, "target": {"cells": [list(c) for c in cells]}}
    if optional:
        data["target"]["optional"] = [list(c) for c in sorted(optional)]
        if draw(st.booleans()):
            data["max_holes"] = draw(st.integers(0, len(optional)))
    if any("group" in p for p in pieces.values()):
        data["groups"] = {"g": {"min": draw(st.integers(0, 2)), "max": draw(st.integers(2, 5))}}
    return data


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(packings_with_holes())
def test_the_frontier_counts_holes_and_groups_as_listing_does(data: dict[str, Any]) -> None:
    listed = run_in_memory(data, Path("holes.yaml"), count_only=False)
    assert listed.complete and listed.identity_problems == []
    report = run_in_memory(data, Path("holes.yaml"), engine=FRONTIER)
    assert report.counts == listed.counts


def run_in_memory(data: dict[str, Any], path: Path, **changes: Any) -> Any:
    from cpsolve.formats import ReadOptions, puzzles
    from cpsolve.run import run

    content = yaml.safe_dump(data).encode()
    puzzle = puzzles(PuzzleFile(str(path), content), ReadOptions())[0]
    options = dataclasses.replace(COUNTING, **changes)
    try:
        report = run(puzzle, options)
    except SpecError:
        assume(False)  # drawn pieces that cannot fill the board: refused before any count, as they should be
        raise
    assert report.complete and report.identity_problems == []
    return report


@pytest.mark.parametrize("name", ["tiles_bugs_3x3", "tiles_frame_4x4", "snake_standard", "snake_palindrome"])
def test_other_families_are_tallied_without_keeping_solutions(name: str) -> None:
    path = SPECS / f"{name}.yaml"
    for breaking in (True, False):
        report = counted(path, symmetry_breaking=breaking)
        assert report.counting == {"method": "tally"} and report.shown == []
        assert report.counts == checked_run(path, RunOptions(show=0, symmetry_breaking=breaking)).counts


def yass_figures() -> list[Path]:
    """The yass corpus's figures that have counts (the others are refused, as tests/test_yass.py checks)."""
    rows = corpus_rows()
    if not rows:
        absent("the yass corpus is missing")
    return [corpus_dir("yass") / "figures" / row["figure"] for row in rows if not row["error"]]


def test_the_yass_corpus_tallies_as_it_lists() -> None:
    for figure in yass_figures():
        assert counted(figure).counts == checked_run(figure).counts, figure.name


def test_the_yass_corpus_counts_alike_listed_and_on_the_frontier() -> None:
    """Every figure the frontier takes (not those whose parts are mirrored on their own: yass's
    rule for figures of several parts, which the tally counts above) counted on it."""
    taken = 0
    for figure in yass_figures():
        if takes(built(figure)) is not None:
            continue
        taken += 1
        assert counted(figure, engine=FRONTIER).counts == checked_run(figure).counts, figure.name
    assert taken > 100  # 136 of the 203 when this was written


def test_parts_add_up_to_the_whole(tmp_path: Path) -> None:
    path = SPECS / "t_tetracubes_6x6x2.yaml"
    whole = counted(path)
    split = counted(path, workers=2)
    assert split.counts == whole.counts and split.workers == 2
    assert split.counting["symmetry_classes"] == whole.counting["symmetry_classes"]


def test_a_checkpoint_resumes_a_count(tmp_path: Path) -> None:
    path = dominoes(tmp_path, 8, 8)
    checkpoint = tmp_path / "count.jsonl"
    first = counted(path, checkpoint=checkpoint)
    lines = checkpoint.read_text().splitlines()
    assert first.counts.raw == 12_988_816 and lines
    assert all(json.loads(line)["count"].isdigit() for line in lines)
    again = counted(path, checkpoint=checkpoint)
    assert again.counts == first.counts
    assert checkpoint.read_text().splitlines() == lines  # every part was recorded: none ran again
    changed = tmp_path / "changed.jsonl"
    record = json.loads(lines[0])
    changed.write_text(json.dumps(dict(record, count=str(int(record["count"]) + 1))) + "\n")
    code, output = cli("run", path, "--count-only", "--checkpoint", changed)
    assert code == 2 and "is not a finished part" in output


def cli(*arguments: str | Path) -> tuple[int, str]:
    result = runner.invoke(app, [str(a) for a in arguments])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.output


@pytest.mark.parametrize(
    "flags",
    [["--solutions", "out.jsonl"], ["--show", "1"], ["--html", "page.html"], ["--png", "p.png"], ["--xmpuzzle", "x"]],
)
def test_what_needs_listing_is_refused_in_one_line(tmp_path: Path, flags: list[str]) -> None:
    flags = [flags[0], *(str(tmp_path / f) for f in flags[1:])] if flags[0] != "--show" else flags
    code, output = cli("run", SPECS / "soma.yaml", "--count-only", *flags)
    assert code == 2
    assert output.strip().count("\n") == 0 and "needs the solutions listed" in output


def test_show_0_asks_for_no_drawing_and_counts_as_count_only_does() -> None:
    code, output = cli("run", SPECS / "soma.yaml", "--count-only", "--show", "0", "--json")
    assert code == 0 and json.loads(output)["counts"] == {"raw": 11520, "rotations": 480, "unique": 240}


@pytest.mark.parametrize("flags", [["--first"], ["--max-solutions", "3"]])
def test_a_limit_on_listing_is_refused(flags: list[str]) -> None:
    code, output = cli("run", SPECS / "t_tetracubes_6x6x2.yaml", "--count-only", *flags)
    assert code == 2 and "--count-only counts every solution" in output


def test_disassembly_and_a_frontier_on_tiles_are_refused(tmp_path: Path) -> None:
    code, output = cli("run", SPECS / "soma.yaml", "--count-only", "--disassemble")
    assert code == 2 and "needs listing" in output
    code, output = cli("run", SPECS / "tiles_bugs_3x3.yaml", "--count-only", "--engine", FRONTIER)
    assert code == 2 and "frontier engine cannot count it" in output
    code, output = cli("run", SPECS / "soma.yaml", "--count-only", "--count-order", "sideways")
    assert code == 2 and "--count-order" in output


def test_a_frontier_past_the_memory_limit_stops_with_what_was_counted(tmp_path: Path) -> None:
    code, output = cli("run", SPECS / "t_tetracubes_6x6x6.yaml", "--count-only", "--max-memory", "1", "--json")
    data = json.loads(output)
    assert (data["complete"], data["stopped_by"]) == (False, "memory limit")
    assert any("past --max-memory 1 MB" in note and "--workers" in note for note in data["notes"])
    assert any("counted 0 of" in note and "shown as 0" in note for note in data["notes"])
    assert code == 0  # as a listing run that reached --max-memory: incomplete, said so, not an error


def test_the_counter_raises_past_its_budget() -> None:
    model = built(SPECS / "t_tetracubes_6x6x6.yaml")
    counter = Counter(model, "fill")
    with pytest.raises(FrontierTooWide):
        counter.problem(0).count(max_bytes=100_000)


def test_a_time_limit_stops_a_count() -> None:
    report = run_one(SPECS / "t_tetracubes_6x6x6.yaml", dataclasses.replace(COUNTING, search=_limit(0.0)))
    assert (report.complete, str(report.stopped_by)) == (False, "time limit")


def _limit(seconds: float) -> SearchOptions:
    return SearchOptions(time_limit=seconds)


def test_ctrl_c_stops_a_count_and_reports(tmp_path: Path) -> None:
    import signal

    from test_cli import wait_for

    command = [sys.executable, "-m", "cpsolve", "run", str(SPECS / "t_tetracubes_6x6x6.yaml"), "--count-only"]
    process = subprocess.Popen([*command, "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    from test_cli import cpu_seconds

    wait_for(lambda: cpu_seconds(process.pid) >= 2.0, process)  # built, deep in the count
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    data = json.loads(out)
    assert (data["complete"], data["stopped_by"], data["engine"]) == (False, "interrupted", FRONTIER)


def test_the_unit_id_names_the_part() -> None:
    file = PuzzleFile("a.yaml", b"x")
    one = CountUnit(file, None, 0, 1, "fill", None)
    assert one.id != dataclasses.replace(one, part=2).id != dataclasses.replace(one, order="reverse").id


@pytest.mark.parametrize("name", ["t_tetracubes_6x6x2", "soma", "cubissimo", "kanoodle_challenge", "coffin"])
def test_the_compiled_counter_counts_as_the_python_one(name: str) -> None:
    """Every symmetry's fixed count, compiled and in Python, from the whole and from each part."""
    model = built(SPECS / f"{name}.yaml")
    counter = Counter(model, "fill")
    assert counter.problem(0).compiles()  # the identity's (an orbit of placements may reach too far ahead)
    for element in range(model.group.order):
        problem = counter.problem(element)
        whole = problem.count(compiled=False)
        parts = counter.first_moves(element)
        assert sum(problem.count(start, compiled=False) for start in parts) == whole
        if problem.compiles():
            assert problem.count(compiled=True) == whole
            assert sum(problem.count(start, compiled=True) for start in parts) == whole


def test_the_compiled_counter_grows_its_limbs_past_64_bits(tmp_path: Path) -> None:
    """14x14 dominoes: 112,202,208,776,036,178,000,000 tilings, past one 64-bit limb."""
    problem = Counter(built(dominoes(tmp_path, 14, 14)), "fill").problem(0)
    assert problem.count(compiled=True) == problem.count(compiled=False) == kasteleyn(14, 14) > 2**64


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(packings_with_holes())
def test_the_compiled_counter_counts_holes_and_groups_as_the_python_one(data: dict[str, Any]) -> None:
    from cpsolve.formats import ReadOptions, puzzles

    try:
        model = puzzles(PuzzleFile("holes.yaml", yaml.safe_dump(data).encode()), ReadOptions())[0].model()[0]
    except SpecError:
        assume(False)
        raise
    counter = Counter(model, "reverse")
    for element in range(model.group.order):
        problem = counter.problem(element)
        assert problem.count(compiled=True) == problem.count(compiled=False)


def test_a_stopped_split_count_keeps_the_identitys_parts_as_a_lower_bound(tmp_path: Path) -> None:
    """Parts counted into a checkpoint, then a run that can count nothing more (a memory budget of
    one byte): raw is what the recorded part of the identity adds up to, and says so."""
    path = dominoes(tmp_path, 6, 6)
    checkpoint = tmp_path / "count.jsonl"
    whole = counted(path, checkpoint=checkpoint)
    first_part = checkpoint.read_text().splitlines()[0]
    checkpoint.write_text(first_part + "\n")
    report = run_one(path, dataclasses.replace(COUNTING, checkpoint=checkpoint, max_class_bytes=1))
    assert (report.complete, str(report.stopped_by)) == (False, "memory limit")
    assert 0 < report.counts.raw < whole.counts.raw == 6728
    assert report.counts.raw == int(json.loads(first_part)["count"])
    assert any("raw is at least" in note for note in report.notes)


@pytest.mark.parametrize("size", [2, 4])
def test_parts_add_up_where_two_orbits_fill_the_same_cells(tmp_path: Path, size: int) -> None:
    """Under a half turn of the 2x2 board, the two horizontal dominoes and the two vertical ones
    fill the same cells with the same pieces: two parts that reach one state, both kept."""
    model = built(dominoes(tmp_path, size, size))
    counter = Counter(model, "fill")
    repeated = 0
    for element in range(model.group.order):
        problem, parts = counter.problem(element), counter.first_moves(element)
        repeated += len(parts) - len(set(parts))
        assert sum(problem.count(start, compiled=False) for start in parts) == problem.count(compiled=False)
    assert repeated > 0 or size != 2


def test_progress_says_which_symmetry_and_cell_it_counts(tmp_path: Path) -> None:
    """What a terminal's progress line shows while a count runs (the hook the CLI's rich line reads)."""
    said: list[str] = []
    report = run_one(dominoes(tmp_path, 8, 8), COUNTING, on_progress=lambda event: said.append(event.doing))
    assert report.complete and said
    assert said[0].startswith("symmetry class 1 of 5: cell ") and "sub-problems" in said[0]
    assert any(line.startswith("symmetry class 5 of 5: cell 64,") for line in said)


def test_a_count_auto_chose_gives_way_to_listing_past_its_width(monkeypatch: pytest.MonkeyPatch) -> None:
    """`auto` counts the T-tetracubes' 6x6x2 box on the frontier; once its frontier passes the width
    at which it gives way (made 10 here) the run lists and tallies instead, with the same counts and
    a note that says why; asked for by name, the frontier counts on."""
    path = SPECS / "t_tetracubes_6x6x2.yaml"
    whole = counted(path)
    assert whole.engine == FRONTIER
    monkeypatch.setattr(frontier, "GIVE_WAY_STATES", 10)
    listed = checked_run(path, dataclasses.replace(COUNTING, workers=1))
    assert listed.engine == "exact-cover" and listed.counts == whole.counts
    assert any("listed and tallied the solutions instead" in note for note in listed.notes)
    asked = counted(path, engine=FRONTIER)
    assert asked.engine == FRONTIER and asked.counts == whole.counts


def test_alpackino_counts_by_listing_rather_than_filling_the_memory() -> None:
    """BurrTools' AlPackino: listed in a fraction of a second, while its frontier passes 10 million
    sub-problems by its 13th of 180 cells. --count-only gives BurrTools' one assembly."""
    report = checked_run(corpus_dir("burrtools") / "AlPackino.xmpuzzle", COUNTING)
    assert report.engine == "exact-cover"
    assert (report.counts.raw, report.counts.rotations, report.counts.unique) == (8, 1, 1)
