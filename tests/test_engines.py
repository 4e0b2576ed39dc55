"""Engines give the same counts; `cpsolve bench` compares them and fails on any disagreement."""

from __future__ import annotations

import json
import pickle
import shutil
from pathlib import Path

import pytest
from conftest import SPECS, checked_run
from typer.testing import CliRunner

from cpsolve import chain_dfs
from cpsolve.cli import app
from cpsolve.counting import choose_breaking
from cpsolve.engine import SearchOptions
from cpsolve.exact_cover import sub_problems
from cpsolve.parallel import _PREPARED, Part, kept_first_atoms, solve_part
from cpsolve.run import RunOptions, build_model, load_puzzle, run

runner = CliRunner()

EXACT_COVER_SPECS = [
    "soma.yaml",
    "cubissimo.yaml",
    "coffin.yaml",
    "foam_cube.yaml",
    pytest.param("pentominoes_6x10.yaml", marks=pytest.mark.slow),
]


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


def test_sub_problems_split_the_kept_first_atoms() -> None:
    loaded, build = load_puzzle(SPECS / "soma.yaml")
    puzzle = build_model(loaded, build)
    rows = puzzle.exact_cover()
    assert rows is not None
    breaking = choose_breaking(puzzle.group, puzzle.breaking_candidates)
    assert breaking is not None
    parts = sub_problems(rows, breaking)
    kept = [next(a for a in part.rows if a in breaking.first) for part in parts]
    assert len(kept) == len(set(kept)) == len(parts)  # each part forces a different first atom
    for part in parts:
        assert sum(1 for a in part.rows if a in breaking.first) == 1
        assert not set(part.rows) & set(breaking.forbidden)


def test_auto_takes_cpsat_where_no_special_engine_can() -> None:
    assert checked_run(SPECS / "foam_colours.yaml").engine == "cpsat"  # groups and ranges
    assert checked_run(SPECS / "t_tetracubes_6x6x2.yaml").engine == "cpsat"  # 18 copies of one piece
    assert checked_run(SPECS / "tiles_bugs_3x3.yaml").engine == "cpsat"
    assert checked_run(SPECS / "snake_standard.yaml").engine == "chain-dfs"
    assert checked_run(SPECS / "soma.yaml").engine == "exact-cover"


def test_auto_falls_back_to_cpsat_when_an_engine_is_not_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(chain_dfs, "available", lambda: False)
    assert checked_run(SPECS / "snake_standard.yaml").engine == "cpsat"
    result = runner.invoke(app, ["run", str(SPECS / "snake_standard.yaml"), "--engine", "chain-dfs"])
    assert result.exit_code == 2
    assert 'the chain-dfs engine is not installed: pip install "cpsolve[chain-dfs]"' in result.output


def test_exact_cover_stops_at_the_first_solution() -> None:
    report = run(SPECS / "soma.yaml", RunOptions(show=0, engine="exact-cover", search=SearchOptions(first_only=True)))
    assert not report.complete
    assert report.stopped_by == "first solution"
    assert report.counts.unique == 1


@pytest.mark.parametrize(
    ("spec", "engine", "words"),
    [
        ("snake_standard.yaml", "exact-cover", "the exact-cover engine takes only packings"),
        ("soma.yaml", "chain-dfs", "the chain-dfs engine takes only chains"),
        ("soma.yaml", "dlx", "unknown engine 'dlx'; expected one of cpsat, exact-cover, chain-dfs, auto"),
    ],
)
def test_engine_errors(spec: str, engine: str, words: str) -> None:
    result = runner.invoke(app, ["run", str(SPECS / spec), "--engine", engine])
    assert result.exit_code == 2
    assert words in result.output


def bench_dir(tmp_path: Path, *names: str) -> Path:
    for name in names:
        shutil.copy(SPECS / name, tmp_path / name)
    return tmp_path


def test_bench_table(tmp_path: Path) -> None:
    names = ("coffin.yaml", "tiles_bugs_3x3.yaml", "snake_standard.yaml")
    result = runner.invoke(app, ["bench", str(bench_dir(tmp_path, *names))])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].split()[:3] == ["puzzle", "mode", "raw/rotations/unique"]
    rows = {line.split()[0]: line.split() for line in lines[1:] if line.split()[0] in names}
    assert rows["coffin.yaml"][1:4] == ["count", "24/1/1", "yes"]
    assert rows["coffin.yaml"][5] == "exact-cover" and rows["coffin.yaml"][7].endswith("x")  # a ratio
    assert rows["snake_standard.yaml"][5] == "chain-dfs"
    assert rows["tiles_bugs_3x3.yaml"][5:7] == ["-", "-"]  # CP-SAT alone
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


def test_bench_missing_path() -> None:
    result = runner.invoke(app, ["bench", "no/such/dir"])
    assert result.exit_code == 2
    assert "no/such/dir: no such file or directory" in result.output


# -- --workers: disjoint sub-problems in separate processes ----------------------------------------

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
def test_workers_give_the_serial_counts(name: str, engine: str) -> None:
    serial = checked_run(SPECS / name, RunOptions(show=0, engine=engine))
    parallel = checked_run(SPECS / name, RunOptions(show=0, engine=engine, workers=2))
    assert parallel.counts == serial.counts
    assert parallel.solutions_enumerated == serial.solutions_enumerated
    assert parallel.engine == serial.engine == engine


def test_a_part_is_plain_data_that_any_process_can_solve() -> None:
    """A worker that never saw the parent's model builds it from the part alone."""
    path = SPECS / "soma.yaml"
    loaded, build = load_puzzle(path)
    puzzle = build_model(loaded, build)
    breaking = choose_breaking(puzzle.group, puzzle.breaking_candidates)
    assert breaking is not None
    parts = [Part(str(path), "cpsat", build, atom) for atom in kept_first_atoms(breaking)]
    assert pickle.loads(pickle.dumps(parts)) == parts
    _PREPARED.clear()
    solutions = [s for part in parts for s in solve_part(part).solutions]
    assert len(solutions) == len(set(solutions)) == 240  # disjoint, and together the serial run


def test_workers_respect_the_time_limit() -> None:
    options = RunOptions(show=0, engine="cpsat", workers=2, search=SearchOptions(time_limit=1.0))
    report = run(SPECS / "pentominoes_6x10.yaml", options)
    assert not report.complete
    assert report.stopped_by == "time limit"
    assert report.seconds < 20
