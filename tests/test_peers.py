"""`cpsolve bench --peers`: the peer programs side by side, their counts checked, and the writers
that let them read cpsolve's own specs."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from conftest import SPECS, checked_run, corpus_dir, peer
from typer.testing import CliRunner

from cpsolve import peers
from cpsolve.cli import app
from cpsolve.errors import CpsolveError
from cpsolve.formats import burrtools, read_puzzle, yass
from cpsolve.models.packing import resolve
from cpsolve.output import how_much_faster
from cpsolve.spec import PackingSpec
from cpsolve.words import plural

runner = CliRunner()


def packing(name: str) -> object:
    loaded = read_puzzle(SPECS / name).loaded
    assert isinstance(loaded.spec, PackingSpec)
    return resolve(loaded.spec, loaded.source)


def test_a_soma_spec_is_written_as_a_yass_figure_that_counts_the_same(tmp_path: Path) -> None:
    figure = yass.figure_text(packing("soma.yaml"))
    assert figure is not None
    path = tmp_path / "cube.soma"
    path.write_text(figure)
    report = checked_run(path)
    assert (report.counts.raw, report.counts.rotations, report.counts.unique) == (11520, 480, 240)


@pytest.mark.parametrize("name", ["pentominoes_6x10.yaml", "cubissimo.yaml", "bedlam.yaml"])
def test_only_soma_figures_are_written_for_yass(name: str) -> None:
    assert yass.figure_text(packing(name)) is None


def test_the_burrtools_writer_leaves_a_rotations_only_puzzle_to_burrtools_rule_only_when_asked() -> None:
    with pytest.raises(CpsolveError, match="symmetry: rotations"):
        burrtools.puzzle_xml(packing("bedlam.yaml"))
    text = burrtools.puzzle_xml(packing("bedlam.yaml"), any_symmetry=True)
    assert text.count("<voxel ") == 14  # thirteen pieces and the cube


def fake_peer(folder: Path, name: str, output: str) -> None:
    program = folder / name
    program.write_text(f"#!/bin/sh\necho '{output}'\n")
    program.chmod(program.stat().st_mode | stat.S_IXUSR)


def test_a_peer_that_counts_otherwise_is_a_problem(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check must be able to fail: a stand-in yass that reports a wrong count."""
    monkeypatch.setenv(peers.PEERS_ENV, str(tmp_path))
    monkeypatch.setenv("HOME", str(tmp_path))
    fake_peer(tmp_path, peers.YASS, "cube.soma: 7 solutions")
    result = runner.invoke(app, ["bench", str(SPECS / "soma.yaml"), "--engine", "exact-cover", "--peers", "--json"])
    assert result.exit_code == 1, result.output
    (row,) = json.loads(result.output)["rows"]
    assert row["peers"][0]["program"] == "soma" and row["peers"][0]["count"] == 7
    assert any("yass counts unique 7" in problem for problem in row["problems"])


def test_without_peers_the_table_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(peers.PEERS_ENV, str(tmp_path))
    monkeypatch.setenv("HOME", str(tmp_path))
    result = runner.invoke(app, ["bench", str(SPECS / "coffin.yaml"), "--engine", "exact-cover", "--peers"])
    assert result.exit_code == 0, result.output
    assert "burrTxt s" in result.output and "all counts agree" in result.output
    assert peers.available() == []


def test_a_peer_that_fails_or_runs_too_long_is_reported_not_fatal(tmp_path: Path) -> None:
    slow = tmp_path / "slow"
    slow.write_text("#!/bin/sh\nsleep 5\n")
    slow.chmod(slow.stat().st_mode | stat.S_IXUSR)
    seconds, _, note = peers._timed([str(slow)], 0.2)
    assert seconds is None and "stopped after 0.2 s" in note
    seconds, _, note = peers._timed(["/bin/sh", "-c", "echo broken >&2; exit 3"], 5)
    assert seconds is None and note == "failed: broken"


def test_bench_runs_both_peers_beside_cpsolve_where_they_are_built() -> None:
    yass_program, burrtxt = peer("soma"), peer("burrTxt")
    os.environ.setdefault(peers.PEERS_ENV, str(yass_program.parent))
    assert burrtxt.parent == yass_program.parent
    result = runner.invoke(app, ["bench", str(SPECS / "soma.yaml"), "--engine", "exact-cover", "--peers", "--json"])
    assert result.exit_code == 0, result.output
    (row,) = json.loads(result.output)["rows"]
    by_program = {p["program"]: p for p in row["peers"]}
    assert (by_program["soma"]["count"], by_program["soma"]["raw"]) == (240, 11520)
    assert by_program["burrTxt"]["count"] == 240
    assert all(p["seconds"] > 0 for p in row["peers"])
    assert row["agree"]


def test_bench_totals_per_peer_on_the_yass_figures() -> None:
    peer("soma")
    figures = corpus_dir("yass") / "figures"
    chosen = [str(figures / name) for name in ("003_dog.soma", "cube.soma", "l_cube.soma")]
    result = runner.invoke(app, ["bench", *chosen, "--engine", "exact-cover", "--peers"])
    assert result.exit_code == 0, result.output
    assert "soma: 3 puzzles in" in result.output


def test_a_burrtools_file_is_run_by_burrtxt_as_it_is_and_counts_agree() -> None:
    """burrTxt's count must equal cpsolve's by BurrTools' rule (96 for the cage,
    ../shared/corpus/burrtools); a file whose rule differs is checked in test_burrtools.py."""
    program = peer("burrTxt")
    os.environ.setdefault(peers.PEERS_ENV, str(program.parent))
    path = corpus_dir("burrtools") / "CubeInCage.xmpuzzle"
    result = runner.invoke(app, ["bench", str(path), "--engine", "exact-cover", "--peers", "--json"])
    assert result.exit_code == 0, result.output
    (row,) = json.loads(result.output)["rows"]
    (burrtxt,) = row["peers"]
    assert burrtxt["count"] == 96 == row["results"]["exact-cover"]["counts"]["unique"]
    assert row["agree"]


def test_bench_says_where_it_looked_for_peers_that_are_not_built(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(peers.PEERS_ENV, "/nowhere")
    monkeypatch.setenv("HOME", "/nowhere-either")
    result = runner.invoke(app, ["bench", str(SPECS / "coffin.yaml"), "--engine", "exact-cover", "--peers"])
    assert result.exit_code == 0, result.output
    assert "not built: burrTxt, soma; looked in $CPSOLVE_PEERS (/nowhere)" in result.output
    assert "bash ../shared/peers/build.sh DEST" in result.output
    header = next(line for line in result.output.splitlines() if line.startswith("puzzle"))
    assert header.endswith("    soma s  /ours  burrTxt s  /ours note")  # a column pair for each peer, then the notes
    assert "no peer built" in result.output


def test_wording_of_counts_and_ratios() -> None:
    assert (plural(1, "puzzle"), plural(2, "puzzle"), plural(1, "symmetry", "symmetries")) == (
        "1 puzzle",
        "2 puzzles",
        "1 symmetry",
    )
    assert how_much_faster(4.0, 1.0) == "cpsolve 4.0x faster"
    assert how_much_faster(0.2, 0.4) == "cpsolve 2.0x slower"  # was "0.5x faster"
    result = runner.invoke(app, ["run", str(SPECS / "coffin.yaml")])
    assert "1 solution enumerated" in result.output
