"""Runs and batches as units: a real Dask scheduler and workers on 127.0.0.1 (the `dask` command
line tools), `--cluster local`, a worker killed mid-run, a checkpoint that survives kill -9.

Every count is compared with the serial run's."""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import SPECS, checked_run, children_of, corpus_dir
from typer.testing import CliRunner

from cpsolve.cli import app
from cpsolve.run import RunOptions

pytest.importorskip("distributed")
runner = CliRunner()
DASK = Path(sys.executable).parent / "dask"
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def scheduler(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, list[subprocess.Popen[bytes]]]]:
    """A scheduler and two single-threaded workers, separate processes, on 127.0.0.1 only."""
    folder = tmp_path_factory.mktemp("dask")
    address_file = folder / "scheduler.json"
    local = ["--host", "127.0.0.1", "--no-dashboard"]
    scheduler = [str(DASK), "scheduler", *local, "--port", "0", "--scheduler-file", str(address_file)]
    started = [subprocess.Popen(scheduler, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    deadline = time.monotonic() + 30
    while not address_file.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    address = json.loads(address_file.read_text())["address"]
    assert address.startswith("tcp://127.0.0.1:")
    worker = [str(DASK), "worker", address, *local, "--nthreads", "1", "--no-nanny"]
    started += [subprocess.Popen(worker, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for _ in range(2)]
    _wait_for_workers(address, 2)
    yield address, started[1:]
    for process in reversed(started):  # the workers first: without a scheduler they wait for one
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _wait_for_workers(address: str, count: int) -> None:
    from distributed import Client

    with Client(address, timeout=30) as client:  # type: ignore[no-untyped-call]
        client.wait_for_workers(count, timeout=60)


def cli(*arguments: str | Path) -> tuple[int, str]:
    result = runner.invoke(app, [str(a) for a in arguments])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.output


def counts(output: str) -> dict[str, Any]:
    return {key: json.loads(output)[key] for key in ("counts", "complete", "orbit_stabiliser_ok")}


def test_a_split_run_on_the_cluster_counts_as_the_serial_run(scheduler: tuple[str, Any]) -> None:
    address, _ = scheduler
    serial = checked_run(SPECS / "pentominoes_6x10.yaml", RunOptions(show=0, workers=1))
    code, output = cli("run", SPECS / "pentominoes_6x10.yaml", "--cluster", address, "--json", "--show", "0")
    assert code == 0
    assert counts(output) == {"counts": serial.counts.as_dict(), "complete": True, "orbit_stabiliser_ok": True}
    assert json.loads(output)["workers"] == 2


def test_a_count_without_listing_on_the_cluster_adds_up_its_parts(scheduler: tuple[str, Any], tmp_path: Path) -> None:
    """10x10 dominoes counted in parts (one per move that fills the first cell, per symmetry
    class) on the scheduler's workers, the file's content carried to them: Kasteleyn's number."""
    address, _ = scheduler
    board = tmp_path / "dominoes.yaml"
    board.write_text("pieces: {D: {cells: [[0, 0], [1, 0]], count: 50}}\ntarget: {box: [10, 10, 1]}\n")
    code, output = cli("run", board, "--count-only", "--cluster", address, "--json")
    assert code == 0
    data = json.loads(output)
    local = checked_run(board, RunOptions(show=0, count_only=True))
    assert counts(output) == {"counts": local.counts.as_dict(), "complete": True, "orbit_stabiliser_ok": True}
    assert data["counts"]["raw"] == 258_584_046_368 and data["workers"] == 2
    assert data["engine"] == "frontier"


def test_a_batch_on_the_cluster_gives_the_lines_of_the_local_batch(scheduler: tuple[str, Any], tmp_path: Path) -> None:
    address, _ = scheduler
    figures = corpus_dir("yass") / "figures"
    pattern = str(figures / "[a-c]*.soma")
    on_cluster, local = tmp_path / "cluster.jsonl", tmp_path / "local.jsonl"
    code_cluster, _ = cli("batch", pattern, "--out", on_cluster, "--cluster", address)
    code_local, _ = cli("batch", pattern, "--out", local, "--processes", "1")
    assert code_cluster == code_local
    assert _by_file(on_cluster) == _by_file(local)


def _by_file(results: Path) -> dict[str, Any]:
    kept = ("status", "counts", "error", "orbit_stabiliser_ok")
    return {line["file"]: {k: line.get(k) for k in kept} for line in map(json.loads, results.read_text().splitlines())}


def test_a_worker_killed_mid_run_loses_nothing(
    scheduler: tuple[str, list[subprocess.Popen[bytes]]], tmp_path: Path
) -> None:
    """The Bedlam cube in 54 parts on two workers; one is killed outright once a part is done."""
    address, workers = scheduler
    checkpoint = tmp_path / "bedlam.ckpt"
    command = [sys.executable, "-m", "cpsolve", "run", str(SPECS / "bedlam.yaml"), "--cluster", address, "--json"]
    run = subprocess.Popen(
        [*command, "--show", "0", "--checkpoint", str(checkpoint)], stdout=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 300
    while not (checkpoint.exists() and checkpoint.read_text().count("\n") >= 1):  # parts are out and running
        assert run.poll() is None and time.monotonic() < deadline
        time.sleep(0.05)
    workers[0].send_signal(signal.SIGKILL)
    output, _ = run.communicate(timeout=600)
    assert run.returncode == 0
    assert counts(output) == {
        "counts": {"raw": 460464, "rotations": 19186, "unique": 19186},
        "complete": True,
        "orbit_stabiliser_ok": True,
    }


def test_a_local_cluster_runs_and_batches(tmp_path: Path) -> None:
    code, output = cli("run", SPECS / "soma.yaml", "--cluster", "local", "--json", "--show", "0")
    assert code == 0
    assert counts(output)["counts"] == {"raw": 11520, "rotations": 480, "unique": 240}
    results = tmp_path / "results.jsonl"
    code, _ = cli("batch", SPECS / "coffin.yaml", SPECS / "cubissimo.yaml", "--out", results, "--cluster", "local")
    assert code == 0
    lines = [json.loads(line) for line in results.read_text().splitlines()]
    assert {Path(line["file"]).name: line["counts"]["unique"] for line in lines} == {
        "coffin.yaml": 1,
        "cubissimo.yaml": 138,
    }


def test_a_run_killed_by_kill_9_resumes_from_its_checkpoint(tmp_path: Path) -> None:
    checkpoint = tmp_path / "bedlam.checkpoint"
    command = [sys.executable, "-m", "cpsolve", "run", str(SPECS / "bedlam.yaml"), "--json", "--show", "0"]
    command += ["--checkpoint", str(checkpoint), "--workers", "2"]
    run = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and (not checkpoint.exists() or checkpoint.read_text().count("\n") < 10):
        time.sleep(0.05)
    run.send_signal(signal.SIGKILL)
    run.wait()
    recorded = checkpoint.read_text().count("\n")
    assert 10 <= recorded < 54  # stopped in the middle
    resumed = subprocess.run(command, capture_output=True, text=True, check=True)
    assert "Traceback" not in resumed.stderr
    assert counts(resumed.stdout) == {
        "counts": {"raw": 460464, "rotations": 19186, "unique": 19186},
        "complete": True,
        "orbit_stabiliser_ok": True,
    }
    assert checkpoint.read_text().count("\n") == 54  # each part once


def test_a_checkpoint_of_another_file_is_refused(tmp_path: Path) -> None:
    checkpoint = tmp_path / "not.checkpoint"
    checkpoint.write_text('{"something": "else"}\n')
    code, output = cli("run", SPECS / "soma.yaml", "--checkpoint", checkpoint)
    assert code == 2
    assert f"{checkpoint}:1: not a line of a cpsolve checkpoint" in output


def test_the_puzzle_given_as_checkpoint_is_refused_untouched(tmp_path: Path) -> None:
    puzzle = tmp_path / "soma.yaml"
    puzzle.write_text((SPECS / "soma.yaml").read_text().rstrip("\n"))  # no newline at the end
    before = puzzle.read_bytes()
    code, output = cli("run", puzzle, "--checkpoint", puzzle)
    assert code == 2 and "--checkpoint names the input file" in output  # refused before it is opened
    assert puzzle.read_bytes() == before
    other = tmp_path / "coffin.yaml"  # another puzzle given as the checkpoint: not a checkpoint's lines
    other.write_text((SPECS / "coffin.yaml").read_text())
    code, output = cli("run", puzzle, "--checkpoint", other)
    assert code == 2 and "not a line of a cpsolve checkpoint" in output
    assert other.read_text() == (SPECS / "coffin.yaml").read_text()


def test_an_unreachable_scheduler_is_a_one_line_error() -> None:
    code, output = cli("run", SPECS / "soma.yaml", "--cluster", "tcp://127.0.0.1:9")
    assert code == 2
    assert "cannot reach the scheduler" in output
    assert os.environ.get("DASK_SCHEDULER_ADDRESS") is None


TRIPOD = [[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0], [0, 1, 0], [0, 2, 0], [0, 0, 1]]  # no symmetry keeps it


def test_a_puzzle_without_a_split_says_that_it_ran_here(tmp_path: Path) -> None:
    """A target no symmetry keeps (a tripod with arms of 3, 2 and 1 cubes) has no symmetry
    breaking to split by, and CP-SAT splits by nothing else."""
    spec = tmp_path / "tripod.yaml"
    spec.write_text(json.dumps({"pieces": {"c": {"cells": [[0, 0, 0]], "count": 7}}, "target": {"cells": TRIPOD}}))
    checkpoint = tmp_path / "box.checkpoint"
    code, output = cli("run", spec, "--checkpoint", checkpoint, "--json", "--engine", "cpsat")
    assert code == 0
    assert "--cluster and --checkpoint not used" in " ".join(json.loads(output)["notes"])
    assert not checkpoint.exists()


def test_exact_cover_splits_a_search_without_symmetry_breaking_by_its_first_choices(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no symmetry to break, the exact-cover search is cut by the placements that fit the
    cell it fills first (every solution holds one): `--workers 2` shares it between two processes
    and `--checkpoint` records its parts, with the counts of one process. (A search this short
    is begun on one worker and shared once it proves long: here it is handed over after its
    first placement.)"""
    from cpsolve import parts
    from cpsolve.engines.exact_cover import cover_search

    monkeypatch.setattr(parts, "THREADS_AFTER_SECONDS", -1.0)
    monkeypatch.setattr(parts, "PARALLEL_AFTER_SECONDS", -1.0)
    monkeypatch.setattr(cover_search, "SPILL_STEP_BUDGET", 1)
    spec = tmp_path / "tripod.yaml"
    pieces = {"d": {"cells": [[0, 0, 0], [1, 0, 0]], "count": 3}, "m": {"cells": [[0, 0, 0]]}}
    spec.write_text(json.dumps({"pieces": pieces, "target": {"cells": TRIPOD}}))
    alone = checked_run(spec, RunOptions(show=0, workers=1))
    shared = checked_run(spec, RunOptions(show=0, workers=2))
    assert alone.breaking is None and alone.workers == 1 and alone.counts.raw > 1
    assert shared.workers == 2 and shared.counts == alone.counts
    checkpoint = tmp_path / "tripod.checkpoint"
    code, output = cli("run", spec, "--checkpoint", checkpoint, "--json")
    assert code == 0 and "not used" not in " ".join(json.loads(output)["notes"])
    assert json.loads(output)["counts"] == alone.counts.as_dict() and checkpoint.exists()


# -- addresses that are not a scheduler -------------------------------------------------------------


@pytest.mark.parametrize("address", ["notaurl", "tcp://", "ws://127.0.0.1:1", "file:///etc/passwd", "tcp://h:99999"])
def test_a_malformed_cluster_address_is_refused_in_one_line(address: str) -> None:
    for command in (["run", str(SPECS / "soma.yaml")], ["batch", str(SPECS / "coffin.yaml"), "--out", "/tmp/unused"]):
        result = runner.invoke(app, [*command, "--cluster", address])
        assert result.exit_code == 2 and "expected `local` or a Dask scheduler's address" in result.output
        assert len(result.output.splitlines()) == 1, result.output


def server(greeting: bytes | None) -> tuple[socket.socket, threading.Thread]:
    """A server on 127.0.0.1 that accepts and then sends `greeting` (None: nothing, ever)."""
    listening = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []

    def serve() -> None:
        with contextlib.suppress(OSError):
            while True:
                connection, _ = listening.accept()
                held.append(connection)
                if greeting is not None:
                    connection.sendall(greeting)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return listening, thread


@pytest.mark.parametrize(
    ("greeting", "most_seconds"),
    [(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n", 5.0), (None, 60.0)],
    ids=["a web server", "a server that never answers"],
)
def test_a_server_that_is_not_a_scheduler_is_refused(
    tmp_path: Path, greeting: bytes | None, most_seconds: float
) -> None:
    listening, _ = server(greeting)
    address = f"tcp://127.0.0.1:{listening.getsockname()[1]}"
    try:
        started = time.monotonic()
        result = runner.invoke(app, ["run", str(SPECS / "soma.yaml"), "--cluster", address])
        assert result.exit_code == 2 and "did not answer as a Dask scheduler" in result.output, result.output
        assert time.monotonic() - started < most_seconds
        out = tmp_path / "results.jsonl"
        result = runner.invoke(app, ["batch", str(SPECS / "coffin.yaml"), "--out", str(out), "--cluster", address])
        assert result.exit_code == 2 and "did not answer as a Dask scheduler" in result.output, result.output
    finally:
        listening.close()


def test_an_unreachable_scheduler_is_one_line_for_batch(tmp_path: Path) -> None:
    closed = socket.create_server(("127.0.0.1", 0))
    port = closed.getsockname()[1]
    closed.close()
    result = runner.invoke(
        app, ["batch", str(SPECS / "coffin.yaml"), "--out", str(tmp_path / "r.jsonl"), "--cluster", f"127.0.0.1:{port}"]
    )
    assert result.exit_code == 2 and "cannot reach the scheduler" in result.output, result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("after", [0.0, 0.3, 1.0])
def test_ctrl_c_while_a_local_cluster_starts_reports_and_exits_130(after: float) -> None:
    """Once the run has begun to start its LocalCluster (its first worker process exists), wherever
    the Ctrl-C lands (workers starting, parts running): exit 130 with the report, and nothing from
    Dask's exit handlers."""
    command = [sys.executable, "-m", "cpsolve", "run", str(SPECS / "bedlam.yaml"), "--cluster", "local", "--json"]
    process = subprocess.Popen([*command, "--workers", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not children_of(process.pid):  # the event: the cluster is being started
        assert process.poll() is None and time.monotonic() < deadline
        time.sleep(0.01)
    time.sleep(after)  # from the event on, every moment must give the same answer
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 130, err
    assert json.loads(out)["stopped_by"] == "interrupted"
    assert "Traceback" not in err and "AssertionError" not in err, err


def test_cluster_workers_read_the_file_with_the_runs_size_limit(tmp_path: Path) -> None:
    """A BurrTools file that expands past the default 8 MB, run with --max-file-size 16 on a
    cluster: each worker reads the content again within the run's limit, not the default one."""
    written = tmp_path / "soma.xmpuzzle"
    assert cli("convert", SPECS / "soma.yaml", written)[0] == 0
    text = gzip.decompress(written.read_bytes()).decode()
    padded = text.replace("<problems>", "<comment>" + "\n" * (9 * 2**20) + "</comment><problems>", 1)
    written.write_bytes(gzip.compress(padded.encode()))
    code, output = cli("run", written, "--max-file-size", "16", "--cluster", "local", "--workers", "1", "--json")
    assert code == 0, output
    assert json.loads(output)["counts"] == {"raw": 11520, "rotations": 480, "unique": 240}


def test_a_census_on_the_cluster_counts_as_the_walk_here(scheduler: tuple[str, Any], tmp_path: Path) -> None:
    """The census's parts carried to the scheduler's workers add up to the census of one process."""
    address, _ = scheduler
    code, output = cli("census", "chains", "--box", "2x3x4", "--cluster", address, "--json")
    here = json.loads(cli("census", "chains", "--box", "2x3x4", "--json")[1])
    assert code == 0
    on_cluster = json.loads(output)
    assert on_cluster["parts"] > here["parts"]
    assert {k: on_cluster[k] for k in ("chains", "one_solution", "most_solutions", "paths", "identity_ok")} == {
        k: here[k] for k in ("chains", "one_solution", "most_solutions", "paths", "identity_ok")
    }


def test_a_design_search_on_the_cluster_hands_back_its_designs(scheduler: tuple[str, Any], tmp_path: Path) -> None:
    """Each worker's search ends at its candidate budget and hands its designs back; the client
    writes them (the time limit only bounds a stuck cluster)."""
    address, _ = scheduler
    arguments = ["--box", "4x4x4", "--pieces", "6", "--sizes", "8-14", "--candidates", "10", "--designs", "0"]
    code, output = cli("design", *arguments, "--cluster", address, "--time-limit", "600", "--out", tmp_path, "--json")
    assert code == 0, output
    summary = json.loads(output)
    # one search per worker the scheduler has (an earlier test kills one of the two)
    assert summary["designs"] >= 2 and summary["checked"] in (10, 20)
    assert len(list(tmp_path.glob("*.xmpuzzle"))) == summary["designs"]
