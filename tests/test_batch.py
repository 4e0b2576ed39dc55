"""`cpsolve batch`: one line per puzzle, the counts of single runs, bad files on their line,
resuming after the batch was stopped or killed."""

from __future__ import annotations

import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import SPECS, corpus_dir, ctrl_c_as_each_run_ends, no_solution_after_long
from typer.testing import CliRunner

import cpsolve.batch
from cpsolve.batch import content_hash
from cpsolve.cli import app
from cpsolve.errors import EXIT_INTERRUPTED
from cpsolve.jobs import follow

runner = CliRunner()


def batch(*arguments: str | Path) -> tuple[int, str]:
    result = runner.invoke(app, ["batch", *map(str, arguments)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.output


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def puzzles(folder: Path) -> Path:
    """A good spec, one with no solution, one that is refused, and a yass figure."""
    folder.mkdir()
    shutil.copy(SPECS / "coffin.yaml", folder / "coffin.yaml")
    soma = (SPECS / "soma.yaml").read_text()
    (folder / "none.yaml").write_text(soma.split("target:")[0] + "target: {box: [9, 3, 1]}\nsymmetry: all\n")
    (folder / "bad.yaml").write_text("kind: packing\npieces: {A: {cells: [[0, 0, 0]]}}\ntarget: {box: [2, 1]}\n")
    (folder / "cube.soma").write_text("# the cube\n" + "\n\n".join(["***\n***\n***"] * 3) + "\n")
    return folder


def test_one_line_per_puzzle_with_status_hash_and_counts(tmp_path: Path) -> None:
    folder = puzzles(tmp_path / "puzzles")
    out = tmp_path / "results.jsonl"
    code, output = batch(folder, "--out", out, "--processes", "1")
    assert code == 2  # a file was refused; the others still ran
    found = {Path(line["file"]).name: line for line in lines(out)}
    assert set(found) == {"coffin.yaml", "none.yaml", "bad.yaml", "cube.soma"}
    assert found["coffin.yaml"]["status"] == "solved"
    assert found["coffin.yaml"]["counts"] == {"raw": 24, "rotations": 1, "unique": 1}
    assert found["coffin.yaml"]["sha256"] == content_hash(folder / "coffin.yaml")
    assert found["cube.soma"]["counts"] == {"raw": 11520, "rotations": 480, "unique": 240}
    assert found["none.yaml"]["status"] == "no solution"
    assert found["bad.yaml"]["status"] == "refused"
    assert "bad.yaml:2: pieces: the pieces have 1 cells but the target has 2" in found["bad.yaml"]["error"]
    assert "4 problems: 2 solved, 1 no solution, 0 incomplete, 0 failed, 1 refused" in output


def test_a_file_of_several_problems_gives_a_line_for_each(tmp_path: Path) -> None:
    out = tmp_path / "results.jsonl"
    code, _ = batch(corpus_dir("burrtools") / "DemoMirrorParadox.xmpuzzle", "--out", out, "--processes", "1")
    assert code == 0
    assert [(line["problem"], line["counts"]["unique"]) for line in lines(out)] == [("0", 1), ("1", 1)]


def test_a_rerun_skips_what_is_done_and_runs_what_changed(tmp_path: Path) -> None:
    folder = puzzles(tmp_path / "puzzles")
    out = tmp_path / "results.jsonl"
    batch(folder, "--out", out, "--processes", "1")
    first = out.read_text()
    code, output = batch(folder, "--out", out)
    assert out.read_text() == first
    # the exit code reports the whole batch: bad.yaml was refused in the first run
    assert "0 problems" in output and "4 files skipped" in output and code == 2
    assert "(already in the results: 1 refused among them)" in output
    (folder / "bad.yaml").unlink()
    coffin = folder / "coffin.yaml"
    coffin.write_text(coffin.read_text().replace("raw: 24", "raw: 25"))  # new content, a wrong count
    code, output = batch(folder, "--out", out)
    assert code == 1  # the count differs from `expected`
    last = lines(out)[-1]
    assert (Path(last["file"]).name, last["status"]) == ("coffin.yaml", "failed")
    assert "2 files skipped" in output


def test_a_line_cut_short_is_dropped_and_its_puzzle_run_again(tmp_path: Path) -> None:
    folder = puzzles(tmp_path / "puzzles")
    out = tmp_path / "results.jsonl"
    batch(folder, "--out", out, "--processes", "1")
    whole = out.read_text().splitlines(keepends=True)
    out.write_text(whole[0] + whole[1][: len(whole[1]) // 2])  # killed while writing the second line
    _, output = batch(folder, "--out", out, "--processes", "2")
    assert "3 problems" in output and "1 file skipped" in output
    assert sorted(line["file"] for line in lines(out)) == sorted(json.loads(line)["file"] for line in whole)


def test_a_results_file_cpsolve_did_not_write_is_refused_untouched(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\nthe last line has no newline")
    code, output = batch(SPECS / "coffin.yaml", "--out", notes)
    assert code == 2 and f"{notes}:1: not a line of a cpsolve batch's results" in output
    assert notes.read_text() == "my notes\nthe last line has no newline"


def test_bad_arguments_are_one_line_refusals(tmp_path: Path) -> None:
    code, output = batch(tmp_path / "*.soma", "--out", tmp_path / "out.jsonl")
    assert code == 2 and "matches no file" in output
    spec = tmp_path / "coffin.yaml"
    shutil.copy(SPECS / "coffin.yaml", spec)
    code, output = batch(spec, "--out", spec)
    assert code == 2 and "--out names the input file" in output
    assert spec.read_text() == (SPECS / "coffin.yaml").read_text()


def test_a_killed_batch_resumes_and_gives_the_counts_of_yass() -> None:
    """The whole yass corpus in two processes, killed (SIGKILL) once some lines are written."""
    corpus = corpus_dir("yass")
    with (corpus / "counts.tsv").open() as handle:
        expected = {row["figure"]: row for row in csv.DictReader(handle, delimiter="\t")}
    out = Path(os.environ.get("TMPDIR", "/tmp")) / f"cpsolve-batch-{os.getpid()}.jsonl"
    out.unlink(missing_ok=True)
    command = [sys.executable, "-m", "cpsolve", "batch", str(corpus / "figures"), "--out", str(out)]
    try:
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and (not out.exists() or out.read_text().count("\n") < 20):
            time.sleep(0.05)
        process.send_signal(signal.SIGKILL)  # the batch's worker processes are left behind: they leave too
        process.wait()
        assert _gone(str(out), within=3.0)
        written = out.read_text().count("\n")
        assert 20 <= written < len(expected)  # killed in the middle
        finished = subprocess.run(command, capture_output=True, text=True, check=False)
        assert finished.returncode == 2  # yass's own refusals
        assert f"{written} files skipped" in finished.stdout
        results = lines(out)
    finally:
        out.unlink(missing_ok=True)
    by_figure = {Path(line["file"]).name: line for line in results}
    assert len(by_figure) == len(results) == len(expected)  # each once
    for figure, row in expected.items():
        line = by_figure[figure]
        if row["error"]:
            assert line["status"] == "refused", figure
        else:
            assert (line["counts"]["unique"], line["counts"]["raw"]) == (int(row["unique"]), int(row["raw"])), figure
            assert line["orbit_stabiliser_ok"] is True


def _gone(marker: str, within: float) -> bool:
    """True once no process has `marker` in its command line (forked workers keep their parent's)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        processes = [entry for entry in Path("/proc").iterdir() if entry.name.isdigit()]
        if not any(marker.encode() in _command_line(process) for process in processes):
            return True
        time.sleep(0.1)
    return False


def _command_line(process: Path) -> bytes:
    try:
        return (process / "cmdline").read_bytes()
    except OSError:  # it ended meanwhile
        return b""


@pytest.mark.parametrize("processes", ["1", "2"])
def test_ctrl_c_stops_a_batch_with_whole_lines_and_a_summary(tmp_path: Path, processes: str) -> None:
    """In one process too, where the run itself sees the Ctrl-C first: the batch stops, not the puzzle.
    The yass figures, then a puzzle whose search is long (conftest): the Ctrl-C always comes before the
    batch ends, however fast the machine (a busy one once read the file too late and the batch of
    figures alone had ended)."""
    out = tmp_path / "results.jsonl"
    figures = tmp_path / "figures"
    shutil.copytree(corpus_dir("yass") / "figures", figures)
    no_solution_after_long(figures / "zz_no_solution.yaml")
    command = [sys.executable, "-m", "cpsolve", "batch", str(figures), "--out", str(out), "--processes", processes]
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # as a terminal would have it
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (not out.exists() or out.read_text().count("\n") < 10):
        time.sleep(0.02)
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 130
    assert "interrupted: run again to go on" in stdout
    assert "Traceback" not in stderr
    written = lines(out)  # every line whole
    assert 10 <= len(written) <= 218 and not any("zz_no_solution" in line["file"] for line in written)
    assert _gone(str(out), within=3.0)


def test_a_puzzle_stopped_by_the_time_limit_runs_again_on_a_rerun(tmp_path: Path) -> None:
    folder = tmp_path / "puzzles"
    folder.mkdir()
    shutil.copy(SPECS / "bedlam.yaml", folder / "bedlam.yaml")  # seconds of search
    shutil.copy(SPECS / "coffin.yaml", folder / "coffin.yaml")
    out = tmp_path / "results.jsonl"
    assert batch(folder / "coffin.yaml", "--out", out)[0] == 0  # done, without a time limit
    for _ in range(2):
        code, output = batch(folder, "--out", out, "--time-limit", "0.5", "--processes", "1", "--slow")
        assert code == 0 and "1 file skipped" in output
    statuses = [(Path(line["file"]).name, line["status"]) for line in lines(out)]
    assert statuses == [
        ("coffin.yaml", "solved"),
        ("bedlam.yaml", "incomplete"),
        ("bedlam.yaml", "incomplete"),
    ]


def test_slow_specs_are_skipped_and_find_one_specs_found_as_bench_does(tmp_path: Path) -> None:
    """`cpsolve batch puzzle_specs` must end: a spec marked slow gets a `skipped` line unless
    --slow; a spec without expected counts runs to its first solution within the time limit; the
    summary says what was cut short."""
    folder = tmp_path / "puzzles"
    folder.mkdir()
    for name in ("t_tetracubes_6x6x6.yaml", "bedlam.yaml", "coffin.yaml"):
        shutil.copy(SPECS / name, folder / name)
    out = tmp_path / "results.jsonl"
    code, output = batch(folder, "--out", out, "--processes", "1")
    assert code == 0, output
    statuses = {Path(line["file"]).name: line["status"] for line in lines(out)}
    assert statuses == {"bedlam.yaml": "skipped", "coffin.yaml": "solved", "t_tetracubes_6x6x6.yaml": "skipped"}
    assert "skipped as slow: 2 (run them with --slow)" in output
    code, output = batch(folder, "--out", out, "--processes", "1", "--slow", "--time-limit", "1")
    assert code == 0, output
    latest = {Path(line["file"]).name: line for line in lines(out)}
    assert latest["t_tetracubes_6x6x6.yaml"]["status"] == "found"  # one solution, as bench's find-one
    assert latest["t_tetracubes_6x6x6.yaml"]["stopped_by"] == "first solution"
    assert latest["bedlam.yaml"]["status"] == "incomplete"  # its count takes seconds, not one
    assert "cut short" in output and "bedlam.yaml: time limit" in output


def designs(folder: Path) -> list[Path]:
    """AlPackino (one assembly, and it comes apart), PelikanBurr (12, one comes apart) and a
    tiles board (no pieces to take apart)."""
    burrtools = corpus_dir("burrtools")
    folder.mkdir()
    for name in ("AlPackino.xmpuzzle", "PelikanBurr.xmpuzzle"):
        shutil.copy(burrtools / name, folder / name)
    shutil.copy(SPECS / "tiles_bugs_3x3.yaml", folder / "tiles.yaml")
    return sorted(folder.iterdir())


def test_a_batch_takes_each_design_apart_and_keeps_the_ones_with_one_solution_that_comes_apart(
    tmp_path: Path,
) -> None:
    from cpsolve.batch import one_solution_that_comes_apart

    files = designs(tmp_path / "designs")
    out = tmp_path / "results.jsonl"
    code, output = batch(*files, "--out", out, "--processes", "1", "--disassemble")
    assert code == 2  # the tiles board cannot be taken apart: refused on its line, the others ran
    found = {Path(line["file"]).name: line for line in lines(out)}
    assert found["AlPackino.xmpuzzle"]["disassembly"]["comes_apart"] == 1
    assert found["PelikanBurr.xmpuzzle"]["counts"]["unique"] == 12
    assert found["PelikanBurr.xmpuzzle"]["disassembly"]["comes_apart"] == 1
    assert "--disassemble takes packing puzzles" in found["tiles.yaml"]["error"]
    assert [name for name, line in found.items() if one_solution_that_comes_apart(line)] == ["AlPackino.xmpuzzle"]
    assert "taken apart: 2 problems, 1 with exactly one solution that comes apart" in output
    if shutil.which("jq") is not None:  # the line the summary and docs/cluster.md give, as a user runs it
        query = "select(.counts.unique == 1 and .disassembly.comes_apart == 1) | .file"
        kept = subprocess.run(["jq", "-r", query, str(out)], capture_output=True, text=True, check=True).stdout
        assert [Path(name).name for name in kept.split()] == ["AlPackino.xmpuzzle"]


def test_a_batch_with_disassemble_runs_again_what_was_solved_without(tmp_path: Path) -> None:
    files = designs(tmp_path / "designs")[:1]
    out = tmp_path / "results.jsonl"
    assert batch(*files, "--out", out, "--processes", "1")[0] == 0
    assert "disassembly" not in lines(out)[0]
    assert batch(*files, "--out", out, "--processes", "1")[1].count("skipped (already in the results)") == 1
    code, _ = batch(*files, "--out", out, "--processes", "1", "--disassemble")
    assert code == 0 and lines(out)[-1]["disassembly"]["comes_apart"] == 1
    code, output = batch(*files, "--out", out, "--processes", "1", "--disassemble")
    assert "skipped (already in the results)" in output and len(lines(out)) == 2


def test_a_ctrl_c_as_a_puzzle_ends_stops_the_batch_there(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """In one process, a Ctrl-C that comes as a puzzle's run ends (its report already whole) still
    stops the batch: no line for that puzzle (it runs again), none after it (the refused file
    before it has its line). It was lost there, and the batch went on to its end (once in twenty
    batches under load, into a search of minutes)."""
    monkeypatch.setattr(cpsolve.batch, "follow", ctrl_c_as_each_run_ends(follow))
    out = tmp_path / "results.jsonl"
    code, output = batch(puzzles(tmp_path / "puzzles"), "--out", out, "--processes", "1")
    assert code == EXIT_INTERRUPTED and "interrupted: run again to go on" in output, output
    assert [(Path(line["file"]).name, line["status"]) for line in lines(out)] == [("bad.yaml", "refused")]
