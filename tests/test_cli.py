"""The command line as a user meets it: exit codes, JSON fields, solution files, drawings."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import typer
import typer.main
import yaml
from conftest import SPECS, corpus_dir, no_solution_after_long
from typer.testing import CliRunner

from cpsolve.cli import app, command_line
from cpsolve.formats import read_puzzle
from cpsolve.models.packing import resolve
from cpsolve.spec import PackingSpec
from cpsolve.verify import verify_packing

runner = CliRunner()
JSON_FIELDS = {"name", "kind", "complete", "counts", "solutions_enumerated", "engine", "seconds"}


def test_run_prints_counts_time_and_a_drawing() -> None:
    result = runner.invoke(app, ["run", str(SPECS / "soma.yaml")])
    assert result.exit_code == 0, result.output
    assert "counts: raw 11520  rotations 480  unique 240  [complete]" in result.output
    assert "expected: raw 11520  rotations 480  unique 240: match" in result.output
    assert "orbit-stabiliser check: ok (48 symmetries)" in result.output
    assert "time: " in result.output
    axes, drawing = result.output.split("first solution:\n")[1].split("\n", 1)
    assert axes == "layers from z=0 (the bottom) up; in each, row y=0 first, x left to right"
    assert drawing.count("z=") == 3
    assert sorted(set(drawing) - set("z=012\n")) == sorted("VLTZABP")


def test_a_yass_figure_is_drawn_as_its_file_is_laid_out() -> None:
    """Top slice first and the back row first: the drawing's empty cells stand where the file's do."""
    figure = corpus_dir("yass") / "figures" / "15_12_cube.soma"
    result = runner.invoke(app, ["run", str(figure)])
    assert result.exit_code == 0, result.output
    axes, drawing = result.output.split("first solution:\n")[1].split("\n", 1)
    assert "from the top down and rows from the back, as in the figure's file" in axes
    slices = [block.splitlines()[1:] for block in drawing.strip().split("\n\n")]
    in_file = [block.splitlines() for block in figure.read_text().strip().split("\n\n")]
    assert [[[c == "." for c in row] for row in s] for s in slices] == [
        [[c == "." for c in row] for row in s] for s in in_file
    ]


def test_an_optional_cell_left_empty_is_explained() -> None:
    result = runner.invoke(app, ["run", str(corpus_dir("burrtools") / "CubeInCage.xmpuzzle")])
    assert result.exit_code == 0 and "_" in result.output.split("first solution:")[1]
    assert result.output.rstrip().endswith("_: an optional cell left empty")


def test_json_has_the_stable_fields() -> None:
    result = runner.invoke(app, ["run", str(SPECS / "coffin.yaml"), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert set(data) >= JSON_FIELDS
    assert data["counts"] == {"raw": 24, "rotations": 1, "unique": 1}
    assert data["complete"] is True
    assert data["engine"] == "exact-cover"  # auto: the coffin is a pure exact cover
    assert data["matches_expected"] is True


def test_engine_is_null_when_the_run_ended_before_any_engine_ran() -> None:
    result = runner.invoke(app, ["run", str(SPECS / "soma.yaml"), "--json", "--time-limit", "0"])
    data = json.loads(result.output)
    assert data["complete"] is False and data["stopped_by"] == "time limit"
    assert data["engine"] is None  # not "auto": no engine ran


def test_solutions_file_holds_verified_unique_solutions(tmp_path: Path) -> None:
    out = tmp_path / "solutions.jsonl"
    spec_path = SPECS / "t_tetracubes_6x6x2.yaml"
    result = runner.invoke(app, ["run", str(spec_path), "--solutions", str(out), "--show", "0"])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(lines) == 10
    loaded = read_puzzle(spec_path).loaded
    assert isinstance(loaded.spec, PackingSpec)
    puzzle = resolve(loaded.spec, loaded.source)
    shapes = {p.name: p.cells for p in puzzle.pieces}
    bounds = {p.name: (p.bounds.low, p.bounds.high) for p in puzzle.pieces}
    for line in lines:
        assert verify_packing(shapes, bounds, puzzle.target, line["pieces"]) == []


def test_show_draws_several() -> None:
    result = runner.invoke(app, ["run", str(SPECS / "foam_colours.yaml"), "--show", "3"])
    assert result.exit_code == 0
    assert "solution 3:" in result.output
    assert "legend: " in result.output


def test_max_solutions_marks_incomplete() -> None:
    result = runner.invoke(app, ["run", str(SPECS / "soma.yaml"), "--max-solutions", "3", "--json"])
    assert result.exit_code == 0
    data = json.loads(result.output)
    assert data["complete"] is False
    assert data["stopped_by"] == "max solutions"
    assert data["solutions_enumerated"] == 3
    assert data["matches_expected"] is None


def test_first_finds_one_of_the_hard_box() -> None:
    result = runner.invoke(app, ["run", str(SPECS / "t_tetracubes_6x6x6.yaml"), "--first", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["solutions_enumerated"] == 1
    assert data["stopped_by"] == "first solution"


def test_mismatch_exits_1(tmp_path: Path) -> None:
    spec = tmp_path / "wrong.yaml"
    spec.write_text((SPECS / "coffin.yaml").read_text().replace("raw: 24", "raw: 25"))
    result = runner.invoke(app, ["run", str(spec)])
    assert result.exit_code == 1
    assert "raw: expected 25, counted 24" in result.output


@pytest.mark.parametrize(
    "arguments",
    [["run", "--help"], ["run"], ["run", "--bogus", "x.yaml"], ["generate", "tiles", "--help"], ["schema", "extra"]],
)
def test_the_group_made_for_one_command_answers_as_the_whole_one(
    arguments: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """The program makes its group with only the command it runs (start-up): help, usage errors and
    exit codes are those of the whole group with every command made."""
    alone, whole = command_line(arguments), typer.main.get_group(app)
    assert list(alone.commands) == [arguments[0]] and len(whole.commands) > 5
    answers = []
    for group in (alone, whole):
        with pytest.raises(SystemExit) as ended:
            group.main(args=arguments, prog_name="cpsolve")
        answers.append((ended.value.code, capsys.readouterr()))
    assert answers[0] == answers[1] and answers[0][1].out + answers[0][1].err


def test_a_name_that_is_no_command_gets_the_whole_group() -> None:
    assert list(command_line(["nosuch"]).commands) == list(command_line(["--help"]).commands)
    assert "run" in command_line(["nosuch"]).commands


def test_the_listing_shows_each_command_without_making_its_options(capsys: pytest.CaptureFixture[str]) -> None:
    """`cpsolve --help` lists every command with its help, as the group of every command made does,
    but makes none of the run request's options (they import pydantic and the models)."""
    answers = []
    for group in (command_line(["--help"]), typer.main.get_group(app)):
        with pytest.raises(SystemExit):
            group.main(args=["--help"], prog_name="cpsolve")
        answers.append(capsys.readouterr().out)
    assert answers[0] == answers[1] and "run " in answers[0]
    listed = command_line(["--help"]).commands["run"]
    assert [param.name for param in listed.params] == []


def test_validate_and_schema() -> None:
    result = runner.invoke(app, ["validate", str(SPECS / "soma.yaml")])
    assert result.exit_code == 0
    assert "688 placements, 48 symmetries" in result.output
    schema = json.loads(runner.invoke(app, ["schema"]).output)
    packing = schema["$defs"]["PackingSpec"]["properties"]
    assert {"pieces", "target", "symmetry", "parts", "expected", "groups"} <= set(packing)
    assert {"chain", "target"} <= set(schema["$defs"]["ChainSpec"]["properties"])


def test_no_solution_is_a_result(tmp_path: Path) -> None:
    spec = tmp_path / "none.yaml"
    spec.write_text("name: none\npieces:\n  L: {cells: [[0,0],[1,0],[0,1]]}\ntarget:\n  box: [3, 1]\n")
    result = runner.invoke(app, ["run", str(spec)])
    assert result.exit_code == 0
    assert "raw 0  rotations 0  unique 0" in result.output
    assert "no solution" in result.output


def pentominoes_in_a_box(tmp_path: Path) -> Path:
    """The twelve pentominoes in a 3x4x5 box: 31,520 raw solutions, minutes without breaking."""
    data = yaml.safe_load((SPECS / "pentominoes_6x10.yaml").read_text())
    data = {key: value for key, value in data.items() if key not in ("expected", "slow")}
    path = tmp_path / "box_3x4x5.yaml"
    path.write_text(yaml.safe_dump(dict(data, target={"box": [5, 4, 3]})))
    return path


def wait_for(happened: Callable[[], bool], process: subprocess.Popen[str], most: float = 300.0) -> None:
    """Wait until something has happened in the process (not for a time that depends on the
    machine's speed); fail if the process ends first or nothing happens for `most` seconds."""
    deadline = time.monotonic() + most
    while not happened():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "nothing happened"
        time.sleep(0.02)


def cpu_seconds(pid: int) -> float:
    """The processor time a process has used so far (user and system, from /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.parametrize(
    ("engine", "spec", "raw"),
    [
        ("cpsat", "", 31520),
        ("exact-cover", "", 31520),
        ("chain-dfs", "snake_4x4x4_second.yaml", 192),
    ],
)
def test_ctrl_c_ends_cleanly_with_what_was_found(tmp_path: Path, engine: str, spec: str, raw: int) -> None:
    path = SPECS / spec if spec else pentominoes_in_a_box(tmp_path)
    found = tmp_path / "found.jsonl"
    command = [sys.executable, "-m", "cpsolve", "run", str(path), "--no-symmetry-breaking", "--json"]
    process = subprocess.Popen(
        [*command, "--engine", engine, "--solutions", str(found)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    wait_for(lambda: found.exists() and found.read_text().count("\n") >= 1, process)  # a solution was found
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert out.strip(), err  # the report, with what was found
    data = json.loads(out)
    assert data["complete"] is False
    assert data["stopped_by"] == "interrupted"
    assert data["engine"] == engine
    assert 0 < data["solutions_enumerated"] < 4 * raw


def test_ctrl_c_stops_exact_cover_while_it_finds_nothing(tmp_path: Path) -> None:
    """A puzzle without solution and a long search (conftest.no_solution_after_long)."""
    path = no_solution_after_long(tmp_path / "no_solution.yaml")
    command = [sys.executable, "-m", "cpsolve", "run", str(path), "--json", "--engine", "exact-cover"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for(lambda: cpu_seconds(process.pid) >= 3.0, process)  # imported, built, deep in the search
    interrupted = time.monotonic()
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert time.monotonic() - interrupted < 10  # promised: about 0.1 s; a busy machine may take longer
    assert process.returncode == 130, err
    data = json.loads(out)
    assert (data["complete"], data["stopped_by"], data["solutions_enumerated"]) == (False, "interrupted", 0)
