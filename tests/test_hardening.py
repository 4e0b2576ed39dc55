"""Every input a user can give ends in an answer or a one-line refusal: no traceback, no hang, no
blown memory. One test (or a few cases) per kind of failure seen with hostile and odd inputs."""

from __future__ import annotations

import errno
import glob
import gzip
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import pytest
import yaml
from conftest import ROOT, SPECS, children_of, corpus_dir
from typer.testing import CliRunner

from cpsolve import formats, units
from cpsolve.cli import app
from cpsolve.errors import CpsolveError, OutputError
from cpsolve.files import write_file
from cpsolve.journal import Journal
from cpsolve.limits import MAX_WORKERS
from cpsolve.output import SolutionWriter
from cpsolve.run import RunOptions, run_file

runner = CliRunner()
SOMA = (SPECS / "soma.yaml").read_text()
SOMA_PIECES = "pieces:" + SOMA.split("pieces:")[1].split("target:")[0]


def cli(*arguments: str | Path) -> tuple[int, str]:
    result = runner.invoke(app, [str(a) for a in arguments])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    return result.exit_code, result.output


def refused(path: Path, words: str, *arguments: str) -> str:
    """Exit 2, every line naming the file, the expected words in the message."""
    started = time.perf_counter()
    code, output = cli("run", path, *arguments)
    assert code == 2, output
    assert words in output, output
    assert all(line.startswith(str(path)) for line in output.splitlines() if line), output
    assert time.perf_counter() - started < 5
    return output


def program(
    *arguments: str | Path, stdout: int | IO[str] = subprocess.PIPE, own_peak: bool = False
) -> subprocess.Popen[str]:
    """`python -m cpsolve ARGUMENTS` as a child process.

    With `own_peak`, the child is forked rather than vforked (a preexec function does that), so
    that os.wait4's ru_maxrss is its own peak: Linux carries a vforked child's parent's peak into
    the child's account across exec, and after a gigabyte-sized test in this pytest process every
    child measured a gigabyte (the CI of the stop before this one failed 11 tests on it)."""
    command = [sys.executable, "-m", "cpsolve", *map(str, arguments)]
    forked = (lambda: None) if own_peak else None
    return subprocess.Popen(command, stdout=stdout, stderr=subprocess.PIPE, text=True, preexec_fn=forked)


# -- a puzzle without solution is an answer ---------------------------------------------------------


NO_SOLUTION = {
    "soma_flat.yaml": f"name: flat\n{SOMA_PIECES}target: {{box: [9, 3]}}\n",
    "no_placement.yaml": "pieces:\n  A: {box: [3,1,1]}\n  B: {box: [1,1,1]}\ntarget: {box: [2,2,1]}\n",
    "flat_parts.soma": "oo.oo.oo.oo.oo.ooo\noo.oo.oo.oo.oo.ooo\n...............o..\n",  # yass: 0 solutions
}


@pytest.mark.parametrize("engine", ["auto", "cpsat", "exact-cover"])
@pytest.mark.parametrize("name", list(NO_SOLUTION))
def test_no_solution_reports_zero_on_every_engine(tmp_path: Path, name: str, engine: str) -> None:
    path = tmp_path / name
    path.write_text(NO_SOLUTION[name])
    code, output = cli("run", path, "--json", "--engine", engine)
    assert code == 0, output
    data = json.loads(output)
    assert data["counts"] == {"raw": 0, "rotations": 0, "unique": 0}
    assert data["complete"] is True and data["orbit_stabiliser_ok"] is True


def test_bench_counts_a_puzzle_without_solution(tmp_path: Path) -> None:
    (tmp_path / "flat.yaml").write_text(NO_SOLUTION["soma_flat.yaml"] + "expected: {raw: 0, rotations: 0, unique: 0}\n")
    code, output = cli("bench", tmp_path, "--json")
    assert code == 0, output
    (row,) = json.loads(output)["rows"]
    assert row["agree"] and {r["counts"]["raw"] for r in row["results"].values()} == {0}


# -- YAML -----------------------------------------------------------------------------------------

LAUGHS = "".join(
    f"{name}: &{name} [{', '.join([f'*{previous}'] * 9) if previous else ', '.join(['x'] * 9)}]\n"
    for previous, name in zip(["", *"abcdefgh"], "abcdefghi", strict=True)
)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (LAUGHS + "pieces: {A: {box: [1,1,1]}}\ntarget: {box: [1,1,1]}\n", "expands to more than 2,000,000 values"),
        (
            "x: &a [[0,0,0],[1,0,0]]\ny: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nz: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
            "w: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\nv: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\n"
            "u: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e,*e]\nt: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f,*f]\n"
            "pieces: {A: {cells: *g}}\ntarget: {box: [2,1]}\n",
            "expands to more than",
        ),
        ("pieces: " + "[" * 400 + "]" * 400 + "\ntarget: {box: [1,1]}\n", "nested more than 64 deep"),
        ("pieces: " + "{a: " * 300 + "1" + "}" * 300 + "\n", "nested more than 64 deep"),
        ("pieces:\n  A: {box: [1,1,1], count: " + "9" * 5000 + "}\ntarget: {box: [1,1]}\n", "a number of 5000 digits"),
        ("pieces:\n  ? [1, 2]\n  : {box: [1,1]}\ntarget: {box: [1,1]}\n", "a key must be a plain value"),
        (
            "pieces:\n  A: {cells: [[0,0,0],[1.0e+26,0,0]]}\ntarget: {box: [2,1]}\n",
            "pieces.A.cells.1.0: Unable to parse",
        ),
        ("pieces:\n  A: {cells: [[0,0,0],[1e30,0,0]]}\ntarget: {box: [2,1]}\n", "pieces.A.cells.1.0"),
        ("a: &x [*x]\n", "stands inside its own anchor's value"),
        ("pieces: {A: {box: [1,1]}}\ntarget: {box: [1,1]}\n\x00", "not valid YAML"),
    ],
)
def test_hostile_yaml(tmp_path: Path, text: str, words: str) -> None:
    path = tmp_path / "spec.yaml"
    path.write_text(text)
    refused(path, words)


def test_a_large_legal_file_is_read_once_in_proportion_to_its_size(tmp_path: Path) -> None:
    """A 1.5 MB board of 65,536 tiles: parsed once, and refused by the placement limit in seconds."""
    spec = tmp_path / "big.yaml"
    code, _ = cli("generate", "tiles", "--board", "256x256", "--labels", "300", "-o", spec)
    assert code == 0 and spec.stat().st_size > 10**6
    started = time.perf_counter()
    code, output = cli("run", spec)
    assert code == 2 and "more than --max-placements" in output
    assert time.perf_counter() - started < 10


def test_a_file_past_the_size_limit_is_refused_unread(tmp_path: Path) -> None:
    spec = tmp_path / "comment.yaml"
    with spec.open("w") as handle:
        handle.write("# " + "x" * (9 * 2**20) + "\npieces: {A: {box: [1,1]}}\ntarget: {box: [1,1]}\n")
    refused(spec, "more than the limit of 8.0 MB (--max-file-size)")
    code, output = cli("run", spec, "--max-file-size", "10", "--json")
    assert code == 0 and json.loads(output)["counts"]["raw"] == 1


# -- files that are not regular files ---------------------------------------------------------------


def test_only_regular_files_are_read(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    refused(fifo, "not a regular file")
    for device, name in (("/dev/zero", "zero.yaml"), ("/dev/urandom", "random.soma")):
        link = tmp_path / name
        link.symlink_to(device)
        refused(link, "not a regular file")
    refused(tmp_path, "it is a directory")


def test_a_batch_says_which_files_it_passes_over(tmp_path: Path) -> None:
    """A FIFO (or a link to a device) in a folder given to batch is not read, and said so."""
    folder = tmp_path / "puzzles"
    folder.mkdir()
    shutil.copy(SPECS / "soma.yaml", folder / "soma.yaml")
    os.mkfifo(folder / "fifo.yaml")
    (folder / "zero.soma").symlink_to("/dev/zero")
    code, output = cli("batch", folder, "--out", tmp_path / "r.jsonl")
    assert code == 0, output
    for name in ("fifo.yaml", "zero.soma"):
        assert f"note: {folder / name}: passed over: not a regular file" in output
    assert len((tmp_path / "r.jsonl").read_text().splitlines()) == 1


# -- sizes ----------------------------------------------------------------------------------------


def test_a_thousand_cube_chain_is_refused_at_once(tmp_path: Path) -> None:
    spec = tmp_path / "long.yaml"
    spec.write_text(f"kind: chain\nchain: {{segments: {[10] * 111}}}\ntarget: {{box: [10, 10, 10]}}\n")
    output = refused(spec, "symmetries of 1,000,000 placements", "--time-limit", "5")
    assert "cpsolve maps at most" in output


@pytest.mark.parametrize(
    ("arguments", "words"),
    [
        (["--board", "300x300", "--labels", "5"], "cpsolve generates at most 65,536"),
        (["--board", "100000x100000", "--labels", "5"], "a side is at most 10,000 tiles"),
        (["--board", "8x8", "--labels", "99999999999"], "at most 10,000"),
        (["--board", "\u00b2x2", "--labels", "3"], "--board must look like 8x8"),
    ],
)
def test_generate_refuses_what_it_cannot_make(arguments: list[str], words: str) -> None:
    started = time.perf_counter()
    code, output = cli("generate", "tiles", *arguments)
    assert code == 2 and words in output
    assert time.perf_counter() - started < 1


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("pieces:\n  A: {box: [1,1,1], count: 40}\nparts: separately\ntarget:\n  cells: "
         + str([[3 * i, 0, 0] for i in range(40)]) + "\n", "separate parts, each turned on its own"),
        ("pieces:\n  A: {box: [1,1,1], count: 2}\ntarget:\n  cells: [[0,0,0], [999999,999999,999999]]\n",
         "the target spans a box of"),
        ("pieces:\n  A: {box: [1,1,1], count: 1000000}\ntarget:\n  box: [1000, 1000, 1]\n", "1,000,000 cells"),
    ],
)  # fmt: skip
def test_sizes_are_checked_before_the_work(tmp_path: Path, text: str, words: str) -> None:
    spec = tmp_path / "big.yaml"
    spec.write_text(text)
    refused(spec, words)


@pytest.mark.parametrize(
    ("spec", "extra", "limit"),
    [
        ("eternity/eternity_16x16.yaml", ["--first"], 2.0),
        ("", ["--engine", "cpsat"], 1.0),  # a 216-cube chain in a 6x6x6 box: building its model alone takes longer
    ],
)
def test_the_time_limit_covers_building_the_model(tmp_path: Path, spec: str, extra: list[str], limit: float) -> None:
    path = SPECS / spec if spec else tmp_path / "chain.yaml"
    if not spec:
        path.write_text(f"kind: chain\nchain: {{segments: {[6] * 43}}}\ntarget: {{box: [6, 6, 6]}}\n")
    started = time.perf_counter()
    code, output = cli("run", path, "--json", "--time-limit", str(limit), *extra)
    assert code == 0, output
    data = json.loads(output)
    assert (data["complete"], data["stopped_by"]) == (False, "time limit")
    assert time.perf_counter() - started < limit + 3


# -- c't files ------------------------------------------------------------------------------------


@pytest.mark.parametrize("word", ["--3", "+-3", "\u00b3", "9" * 5000, "0x10", "1e3", "\u0663"])
def test_ct_files_take_only_plain_integers(tmp_path: Path, word: str) -> None:
    path = tmp_path / "bad.txt"
    path.write_text(f"{word} 1 2 3\n" + "1 2 3 4\n" * 8)
    refused(path, "is not an integer")


# -- output ---------------------------------------------------------------------------------------


def test_solutions_on_a_full_disk_end_with_exit_2() -> None:
    code, output = cli("run", SPECS / "soma.yaml", "--solutions", "/dev/full")
    assert code == 2 and "/dev/full: cannot write solutions: No space left on device" in output


def test_a_failed_write_never_leaves_a_torn_line(tmp_path: Path) -> None:
    class FillsUp:
        """A file that takes 150 bytes, then has no space left (the last write half done)."""

        def __init__(self, path: Path) -> None:
            self.raw = path.open("wb", buffering=0)

        def write(self, data: bytes) -> int:
            room = 150 - self.raw.tell()
            if room <= 0:
                raise OSError(28, "No space left on device")
            return self.raw.write(data[:room]) or 0

        def truncate(self, size: int) -> int:
            return self.raw.truncate(size)

    from conftest import built

    puzzle = built(SPECS / "soma.yaml")
    out = tmp_path / "solutions.jsonl"
    handle = FillsUp(out)
    writer = SolutionWriter(out)
    writer.handle = handle  # type: ignore[assignment]
    solution = (0, 1)
    with pytest.raises(OutputError):
        for _ in range(10):
            writer(solution, puzzle, {})
    handle.raw.close()
    text = out.read_text()
    assert text.endswith("\n") and len(text.splitlines()) == writer.written >= 1
    assert all(json.loads(line)["class"] for line in text.splitlines())


def test_an_earlier_solutions_file_survives_a_refused_input(tmp_path: Path) -> None:
    """Outputs are opened only once the input was read and built: a missing input or one that
    cannot be built leaves an earlier --solutions file as it was, and creates none."""
    previous = tmp_path / "prev.jsonl"
    previous.write_text('{"class":1}\n')
    wrong = tmp_path / "wrong.yaml"
    wrong.write_text(SOMA.replace("box: [3, 3, 3]", "box: [3, 3, 4]"))  # 27 cells of pieces, 36 of target
    for puzzle in (tmp_path / "missing.yaml", wrong):
        code, output = cli("run", puzzle, "--solutions", previous)
        assert code == 2, output
        assert previous.read_text() == '{"class":1}\n'
        code, _ = cli("run", puzzle, "--solutions", tmp_path / "new.jsonl")
        assert code == 2 and not (tmp_path / "new.jsonl").exists()
    empty = tmp_path / "none.jsonl"
    no_solution = tmp_path / "none.yaml"
    no_solution.write_text("pieces:\n  L: {cells: [[0,0],[1,0],[0,1]]}\ntarget: {cells: [[0,0],[1,0],[2,0]]}\n")
    assert cli("run", no_solution, "--solutions", empty)[0] == 0
    assert empty.read_text() == ""  # the run's answer: no solution


@pytest.mark.parametrize("flag", ["--solutions", "--html", "--png", "--xmpuzzle", "--checkpoint"])
def test_no_output_replaces_the_puzzle(tmp_path: Path, flag: str) -> None:
    """The file itself, another path to it, a symbolic link and a hard link to it: refused before
    anything runs, and the puzzle is left as it was."""
    spec = tmp_path / "soma.yaml"
    shutil.copy(SPECS / "soma.yaml", spec)
    (tmp_path / "link.yaml").symlink_to(spec)
    os.link(spec, tmp_path / "hard.yaml")
    for given in (spec, tmp_path / "." / "soma.yaml", tmp_path / "link.yaml", tmp_path / "hard.yaml"):
        code, output = cli("run", spec, flag, given)
        # a picture is refused for its name first: a .yaml is no image
        said = "expected a .png (or .jpg, JPEG) file, not .yaml" if flag == "--png" else f"{flag} names the input file"
        assert code == 2 and said in output, output
    (tmp_path / "link.png").symlink_to(spec)
    os.link(spec, tmp_path / "hard.png")
    for given in (tmp_path / "link.png", tmp_path / "hard.png"):
        code, output = cli("run", spec, "--png" if flag == "--png" else flag, given)
        assert code == 2 and f"{flag} names the input file" in output, output
    assert spec.read_text() == SOMA


def test_convert_and_outputs_never_leave_half_a_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An output is written beside its name and renamed when complete: a failure in the middle
    leaves the old file whole and no temporary file behind."""
    target = tmp_path / "out.html"
    target.write_text("the old page")

    def disk_full(descriptor: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", disk_full)
    with pytest.raises(OutputError, match="cannot write the page: No space left on device"):
        write_file(target, b"<html>" * 1000, "the page")
    assert target.read_text() == "the old page"
    assert [p.name for p in tmp_path.iterdir()] == ["out.html"]
    monkeypatch.undo()
    code, output = cli("run", SPECS / "coffin.yaml", "--html", tmp_path)  # a folder
    assert code == 2 and "cannot write the page: not a regular file" in output, output


@pytest.mark.parametrize(("spec", "code"), [("soma.yaml", 1), ("snake_4x4x4_second.yaml", 2)])
def test_a_full_stdout_is_reported(spec: str, code: int) -> None:
    """Complete counts that cannot be printed: exit 1; a run cut short as well: exit 2."""
    extra = [] if code == 1 else ["--time-limit", "0.001"]
    with open("/dev/full", "w") as full:
        process = program("run", SPECS / spec, *extra, stdout=full)
        _, err = process.communicate(timeout=60)
    assert process.returncode == code, err
    assert "cannot write the report to standard output: No space left on device" in err
    assert "Traceback" not in err


# -- signals --------------------------------------------------------------------------------------


@pytest.mark.parametrize("delay", [0.001, 0.02, 0.1, 0.3])
def test_ctrl_c_during_start_up_is_quiet(delay: float) -> None:
    """Ctrl-C while the command line, the library or the engine are being imported, or the model
    built. (Before cpsolve's first line runs, Python itself is starting; nothing can catch it there.)"""
    # an interval timer, not a thread: a thread slow to start on a busy machine took the Ctrl-C
    # inside this harness's own `Timer.start()`, before cpsolve's first line
    code = (
        "import os, signal, sys\n"
        "from cpsolve.entry import main\n"
        "signal.signal(signal.SIGALRM, lambda *_: os.kill(os.getpid(), signal.SIGINT))\n"
        f"signal.setitimer(signal.ITIMER_REAL, {delay})\n"
        f"sys.argv = ['cpsolve', 'run', {str(SPECS / 'pentominoes_6x10.yaml')!r}, '--engine', 'cpsat']\n"
        "main()\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert result.returncode == 130, result.stderr
    assert "Traceback" not in result.stderr and "KeyboardInterrupt" not in result.stderr


@pytest.mark.parametrize(("signal_raised", "code"), [("KeyboardInterrupt()", 130), ("Terminated()", 143)])
def test_a_signal_python_wrapped_in_another_error_during_start_up_is_quiet(signal_raised: str, code: int) -> None:
    """Python 3.11 hands on a Ctrl-C that lands while a class is made (a descriptor's
    `__set_name__`, as `import platform` makes `uname_result`) inside a RuntimeError; CI once
    met it 20 ms into start-up. The command line raising just that: exit 130 (143 for SIGTERM),
    no traceback. Another error with no signal behind it still ends with its traceback."""
    template = (
        "import sys\n"
        "import cpsolve.cli\n"
        "from cpsolve.errors import Terminated\n"
        "def broken(args):\n"
        "    try:\n"
        "        raise {raised}\n"
        "    except BaseException as error:\n"
        '        raise RuntimeError("Error calling __set_name__") from error\n'
        "cpsolve.cli.command_line = broken\n"
        "sys.argv = ['cpsolve', 'run', 'x.yaml']\n"
        "from cpsolve.entry import main\n"
        "main()\n"
    )
    code_run = template.format(raised=signal_raised)
    result = subprocess.run([sys.executable, "-c", code_run], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert result.returncode == code, result.stderr
    assert "Traceback" not in result.stderr and "RuntimeError" not in result.stderr
    plain = template.format(raised="ValueError('not a signal')")
    result = subprocess.run([sys.executable, "-c", plain], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert result.returncode == 1 and "RuntimeError" in result.stderr


def test_a_signal_after_the_report_keeps_exit_code_0(tmp_path: Path) -> None:
    """Ctrl-C and SIGTERM arriving while the process shuts down, after it printed the report."""
    code = (
        "import atexit, os, signal, sys\n"
        "atexit.register(lambda: (os.kill(os.getpid(), signal.SIGINT), os.kill(os.getpid(), signal.SIGTERM)))\n"
        f"sys.argv = ['cpsolve', 'run', {str(SPECS / 'coffin.yaml')!r}, '--json']\n"
        "from cpsolve.entry import main\nmain()\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["counts"]["raw"] == 24


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"


def started_workers(process: subprocess.Popen[str]) -> set[int]:
    """The worker processes of a run, once (at least) two have started; waits for that event."""
    deadline = time.monotonic() + 120
    while len(workers := children_of(process.pid)) < 2 and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    return workers


def test_sigterm_reports_and_leaves_no_worker_behind() -> None:
    process = program("run", SPECS / "pentominoes_6x10.yaml", "--engine", "cpsat", "--workers", "2", "--json")
    workers = started_workers(process)
    assert len(workers) >= 2  # the parts are running
    process.send_signal(signal.SIGTERM)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 143, err
    data = json.loads(out)
    assert (data["complete"], data["stopped_by"]) == (False, "terminated")
    deadline = time.monotonic() + 30
    while any(alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(alive(pid) for pid in workers)


def test_workers_leave_when_their_parent_is_killed() -> None:
    process = program("run", SPECS / "pentominoes_6x10.yaml", "--engine", "cpsat", "--workers", "2")
    workers = started_workers(process)
    process.kill()
    process.communicate(timeout=30)
    deadline = time.monotonic() + 30  # they look for their parent every 0.5 s; a busy machine may be slower
    while any(alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(alive(pid) for pid in workers)


# -- messages -------------------------------------------------------------------------------------


@pytest.mark.parametrize("piece", ["A[1]", "str", "int", "list[int]"])
def test_a_misspelt_field_is_named_under_its_own_piece(tmp_path: Path, piece: str) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text(f"pieces:\n  I: {{box: [1,1,1]}}\n  {piece!r}: {{box: [1,1,1], cont: 2}}\ntarget: {{box: [2,1]}}\n")
    refused(spec, f"spec.yaml:3: pieces.{piece}.cont: unknown field; did you mean 'count'?")


@pytest.mark.parametrize(
    ("groups", "line", "words"),
    [
        ("g: {min: 3, max: 1}", 4, "groups.g: min 3 is greater than max 1"),
        ("g: {min: 0, max: 1}\n  h: {min: 1}", 5, "groups.h: no piece belongs to group 'h'"),
    ],
)
def test_groups_that_cannot_mean_anything_are_refused(tmp_path: Path, groups: str, line: int, words: str) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        f"pieces:\n  A: {{box: [1,1,1], min: 0, max: 2, group: g}}\ngroups:\n  {groups}\ntarget: {{box: [1,1]}}\n"
    )
    refused(spec, f"spec.yaml:{line}: {words}")


def test_a_byte_order_mark_is_not_a_cell(tmp_path: Path) -> None:
    figure = tmp_path / "cube.soma"
    figure.write_bytes(b"\xef\xbb\xbf" + b"ooo\nooo\nooo\n\nooo\nooo\nooo\n\nooo\nooo\nooo\n")
    code, output = cli("run", figure, "--json")
    assert code == 0 and json.loads(output)["counts"]["unique"] == 240


def test_bench_reports_a_bad_spec_and_goes_on(tmp_path: Path) -> None:
    shutil.copy(SPECS / "coffin.yaml", tmp_path / "coffin.yaml")
    (tmp_path / "bad.yaml").write_text("pieces: {A: {boxx: [1,1]}}\ntarget: {box: [1,1]}\n")
    code, output = cli("bench", tmp_path, "--json")
    assert code == 2
    rows = {Path(row["source"]).name: row for row in json.loads(output)["rows"]}
    assert rows["coffin.yaml"]["agree"] and rows["coffin.yaml"]["results"]["cpsat"]["counts"]["raw"] == 24
    assert "pieces.A.boxx: unknown field" in rows["bad.yaml"]["refused"]
    code, output = cli("bench", tmp_path)
    assert code == 2 and "refused: " in output and "coffin.yaml" in output


def test_bench_on_an_empty_folder_is_an_error(tmp_path: Path) -> None:
    code, output = cli("bench", tmp_path)
    assert code == 2 and "no puzzle files" in output and "agree" not in output


def test_a_chain_in_a_one_cube_box(tmp_path: Path) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text('kind: chain\nchain: {joints: "S"}\ntarget: {box: [1,1,1]}\n')
    output = refused(spec, "a chain has at least 3 cubes; the target has 1 cells")
    assert "-1" not in output.replace(str(spec), "")  # pytest's own folder may be pytest-1


def test_name_is_optional(tmp_path: Path) -> None:
    spec = tmp_path / "two_dominoes.yaml"
    spec.write_text("pieces:\n  D: {box: [2, 1], count: 2}\ntarget: {box: [2, 2]}\n")
    code, output = cli("run", spec, "--json")
    assert code == 0 and json.loads(output)["name"] == "two_dominoes"


def test_a_key_with_a_line_break_stays_on_one_line(tmp_path: Path) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text(yaml.safe_dump({"pieces": {"A\nB": {"box": [1, 1], "cont": 1}}, "target": {"box": [1, 1]}}))
    output = refused(spec, "unknown field")
    assert len(output.splitlines()) == 1 and "A\\nB" in output


@pytest.mark.parametrize(
    ("name", "text", "words"),
    [
        ("big.soma", "o" * 3_000_000 + "\n", "the figure has 3000000 cells"),
        ("big.txt", "1 -1 2 -2\n" * 500_000, "found more than 9"),
    ],
)
def test_big_foreign_files_are_refused_without_building_them(tmp_path: Path, name: str, text: str, words: str) -> None:
    path = tmp_path / name
    path.write_text(text)
    refused(path, words)


def test_workers_are_capped_by_parts_and_cores_and_bounded() -> None:
    """Up to MAX_WORKERS asked for, a run uses what its parts and the cores can take; more (a
    cluster's parts are cut in advance per worker) are refused in one line."""
    code, output = cli("run", SPECS / "soma.yaml", "--engine", "exact-cover", "--workers", str(MAX_WORKERS), "--json")
    assert code == 0
    assert json.loads(output)["workers"] <= 4 * (os.cpu_count() or 1)
    code, output = cli("run", SPECS / "soma.yaml", "--workers", "100000")
    assert code == 2
    assert output.strip() == f"option workers (--workers) = 100000: expected 0 to {MAX_WORKERS}"


# -- what a terminal and a pipe get -----------------------------------------------------------------


def test_a_closed_pipe_is_not_an_error() -> None:
    """`cpsolve run ... --json | head -c 1`: the reader stopped reading; nothing on stderr, exit 0."""
    process = program("run", SPECS / "soma.yaml", "--json")
    assert process.stdout is not None
    assert process.stdout.read(1) == "{"
    process.stdout.close()
    _, err = process.communicate(timeout=60)
    assert (process.returncode, err) == (0, "")


def test_control_characters_in_names_are_escaped_on_the_terminal(tmp_path: Path) -> None:
    """A name that sets the window title and clears the screen is shown as escapes."""
    spec = tmp_path / "title.yaml"
    spec.write_text(SOMA.replace("name: Soma cube", 'name: "evil\\e]0;owned\\a\\e[2J"'))
    code, output = cli("run", spec)
    assert code == 0 and "\x1b" not in output and "\x07" not in output
    assert "evil\\x1b]0;owned\\x07\\x1b[2J" in output


@pytest.mark.parametrize("problem", ["²", "9" * 5000, "x" * 10_000])
def test_odd_problem_names_are_refused_in_one_line(problem: str) -> None:
    code, output = cli("run", corpus_dir("burrtools") / "PelikanBurr.xmpuzzle", "--problem", problem)
    assert code == 2 and "no problem" in output and len(output.splitlines()) == 1, output[:300]


@pytest.mark.parametrize("value", ["inf", "1e300", "nan"])
def test_sizes_and_times_beyond_reason_are_refused(value: str) -> None:
    for option in ("--max-file-size", "--time-limit"):
        code, output = cli("run", SPECS / "coffin.yaml", option, value)
        assert code == 2 and f"option {option[2:].replace('-', '_')} ({option})" in output, output
        assert len(output.strip().splitlines()) == 1, output


# -- BurrTools files that try to expand ---------------------------------------------------------------

SMALL_SHAPE = '<voxel x="1" y="1" z="1" type="0">#</voxel>'
ONE_PROBLEM = '<problem><shapes><shape id="0" count="1"/></shapes><result id="1"/></problem>'


def burrtools_file(shapes: str, problems: str, extra: str = "") -> bytes:
    text = f'<?xml version="1.0"?>\n<puzzle version="2">{extra}<shapes>{shapes}</shapes><problems>{problems}</problems>'
    return gzip.compress((text + "</puzzle>").encode())


HOSTILE_BURRTOOLS: dict[str, tuple[Callable[[], bytes], str | None]] = {
    # one shape of 100,000 voxels listed 10,000 times: 10^9 cells from a 1 KB file
    "one_shape_many_times": (
        lambda: burrtools_file(
            '<voxel x="100" y="100" z="10" type="0">' + "#" * 100_000 + "</voxel>" + SMALL_SHAPE,
            "<problem><shapes>" + '<shape id="0" count="1"/>' * 10_000 + '</shapes><result id="1"/></problem>',
        ),
        "cells in all; cpsolve reads at most",
    ),
    "100,000 entries": (
        lambda: burrtools_file(
            SMALL_SHAPE * 2,
            "<problem><shapes>" + '<shape id="0" count="1"/>' * 100_000 + '</shapes><result id="1"/></problem>',
        ),
        "shape entries; cpsolve reads at most",
    ),
    "8 MB of line breaks in a comment": (
        lambda: burrtools_file(SMALL_SHAPE * 2, ONE_PROBLEM, "<comment>" + "\n" * 8_000_000 + "</comment>"),
        None,
    ),
    "1.6 million &amp;": (
        lambda: burrtools_file(SMALL_SHAPE * 2, ONE_PROBLEM, "<comment>" + "&amp;" * 1_600_000 + "</comment>"),
        None,
    ),
    "a million &#10; in a voxel": (
        lambda: burrtools_file(
            '<voxel x="1" y="1" z="1" type="0">' + "&#10;" * 1_000_000 + "#</voxel>" + SMALL_SHAPE, ONE_PROBLEM
        ),
        None,
    ),
    "an unknown encoding": (
        lambda: b'<?xml version="1.0" encoding="x-nonsense"?><puzzle version="2"></puzzle>',
        "cannot read the XML's declared encoding",
    ),
    "a multi-byte encoding declared": (
        lambda: b'<?xml version="1.0" encoding="UTF-16"?><puzzle version="2"></puzzle>',
        "not valid XML",
    ),
    "a corrupt gzip body": (
        lambda: (lambda whole: whole[:20] + bytes(50) + whole[70:])(burrtools_file(SMALL_SHAPE * 2, ONE_PROBLEM)),
        "not a valid gzip file",
    ),
    "an empty 200^3 box": (
        lambda: burrtools_file(
            '<voxel x="200" y="200" z="200" type="0">' + "_" * 8_000_000 + "</voxel>" + SMALL_SHAPE,
            '<problem><shapes><shape id="1" count="1"/></shapes><result id="0"/></problem>',
        ),
        "the result shape is empty",
    ),
    "a full 200^3 box": (
        lambda: burrtools_file(
            '<voxel x="200" y="200" z="200" type="0">' + "#" * 8_000_000 + "</voxel>" + SMALL_SHAPE,
            '<problem><shapes><shape id="1" count="1"/></shapes><result id="0"/></problem>',
        ),
        "filled or variable voxels; cpsolve builds at most",
    ),
}


@pytest.mark.parametrize("name", list(HOSTILE_BURRTOOLS))
def test_burrtools_files_that_try_to_expand_end_in_seconds(tmp_path: Path, name: str) -> None:
    """Each answers or is refused in one line, in seconds and well under a gigabyte."""
    build, refusal = HOSTILE_BURRTOOLS[name]
    path = tmp_path / "hostile.xmpuzzle"
    path.write_bytes(build())
    started = time.monotonic()
    code, err, peak = measured_run(path)
    assert time.monotonic() - started < 120 and peak < 1024, (peak, err)
    assert "Traceback" not in err
    if refusal is None:
        assert code == 0, err
    else:
        assert code == 2 and refusal in err and len(err.splitlines()) == 1, err


def measured_run(path: Path) -> tuple[int, str, float]:
    """`cpsolve run PATH --json`: exit code, stderr, and the process's peak memory in MB, from
    os.wait4's accounting of that one child."""
    process = program("run", path, "--json", own_peak=True)
    assert process.stderr is not None and process.stdout is not None
    _, status, usage = os.wait4(process.pid, 0)
    err = process.stderr.read()
    process.stdout.close()
    process.stderr.close()
    return os.waitstatus_to_exitcode(status), err, usage.ru_maxrss / 1024


# -- checkpoints and results files that do not come back --------------------------------------------


def special_files(tmp_path: Path) -> list[Path]:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    (tmp_path / "to_zero").symlink_to("/dev/zero")
    return [Path("/dev/null"), Path("/dev/zero"), tmp_path, fifo, tmp_path / "to_zero"]


def test_checkpoints_and_results_must_be_regular_files(tmp_path: Path) -> None:
    """/dev/null, /dev/zero, a folder, a FIFO, a link to a device: refused at once in one line."""
    for given in special_files(tmp_path):
        code, output = cli("run", SPECS / "soma.yaml", "--checkpoint", given)
        assert code == 2 and "cannot use it for a cpsolve checkpoint" in output, (given, output)
        code, output = cli("batch", SPECS / "coffin.yaml", "--out", given)
        assert code == 2 and "cannot use it for a cpsolve batch's results" in output, (given, output)


def test_puzzles_named_that_are_no_files_get_a_line_and_no_wait(tmp_path: Path) -> None:
    fifo, out = tmp_path / "fifo.yaml", tmp_path / "results.jsonl"
    os.mkfifo(fifo)
    code, output = cli("batch", fifo, "/dev/zero", "--out", out, "--processes", "1")
    assert code == 2, output
    errors = [json.loads(line)["error"] for line in out.read_text().splitlines()]
    assert len(errors) == 2 and all("not a regular file" in error for error in errors), errors


def test_a_second_batch_or_run_on_a_file_in_use_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "results.jsonl"
    with Journal(out, "file", "a cpsolve batch's results"):  # as a batch running elsewhere holds it
        code, output = cli("batch", SPECS / "coffin.yaml", "--out", out)
        assert code == 2 and "another cpsolve is using this file now" in output
        assert out.read_text() == ""
    checkpoint = tmp_path / "run.checkpoint"
    with Journal(checkpoint, "unit", "a cpsolve checkpoint"):
        code, output = cli("run", SPECS / "soma.yaml", "--checkpoint", checkpoint)
        assert code == 2 and "another cpsolve is using this file now" in output
    assert cli("batch", SPECS / "coffin.yaml", "--out", out)[0] == 0  # free again


HOLDER_KILLED_WITH_A_CHILD = """
import os, signal, sys
from pathlib import Path
from cpsolve.journal import Journal
from cpsolve.limits import MAX_WORKERS
journal = Journal(Path(sys.argv[1]), "unit", "a cpsolve checkpoint")
child = os.fork()
if child == 0:  # as a forked worker, still busy when its run is killed (the test's pipes let go)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 1)
    os.dup2(null, 2)
    signal.pause()  # until the test kills it
print(child, flush=True)
os.kill(os.getpid(), 9)
"""


def test_a_killed_runs_file_is_free_while_its_forked_workers_still_run(tmp_path: Path) -> None:
    """A worker forked while the run held its checkpoint does not hold the file's lock: the run
    killed with kill -9 and started again at once is not refused (its workers take up to half a
    second to see their parent gone)."""
    checkpoint = tmp_path / "run.checkpoint"
    holder = subprocess.run(
        [sys.executable, "-c", HOLDER_KILLED_WITH_A_CHILD, str(checkpoint)], capture_output=True, text=True, cwd=ROOT
    )
    assert holder.returncode == -signal.SIGKILL, holder.stderr
    child = int(holder.stdout)
    try:
        os.kill(child, 0)  # the child still runs, its copies of the parent's descriptors open
        with Journal(checkpoint, "unit", "a cpsolve checkpoint"):
            pass
    finally:
        os.kill(child, signal.SIGKILL)


def checkpointed(tmp_path: Path) -> tuple[Path, list[dict[str, Any]]]:
    """A checkpoint of the Soma cube's finished parts, and its records."""
    checkpoint = tmp_path / "soma.checkpoint"
    code, output = cli("run", SPECS / "soma.yaml", "--checkpoint", checkpoint, "--workers", "1", "--json")
    assert code == 0, output
    return checkpoint, [json.loads(line) for line in checkpoint.read_text().splitlines()]


@pytest.mark.parametrize(
    "tamper",
    [
        lambda r: {**r, "solutions": [[10**9, *s[1:]] for s in r["solutions"]]},  # an atom far out of range
        lambda r: {**r, "solutions": [["a", "b"]]},  # strings
        lambda r: {**r, "solutions": [[[1, 2], [3]]]},  # nested lists
        lambda r: {**r, "solutions": []},  # nothing found in any part: counts of 0, "complete"
    ],
)
def test_a_tampered_checkpoint_is_not_believed(tmp_path: Path, tamper: Callable[[dict[str, Any]], Any]) -> None:
    checkpoint, records = checkpointed(tmp_path)
    checkpoint.write_text("".join(json.dumps(tamper(record)) + "\n" for record in records))
    code, output = cli("run", SPECS / "soma.yaml", "--checkpoint", checkpoint, "--workers", "1")
    assert code == 2 and "is not a finished part as cpsolve wrote it" in output and "Traceback" not in output


def test_a_recomputed_check_does_not_make_a_wrong_solution_true(tmp_path: Path) -> None:
    """Someone who rewrites the check too still gets a solution checked against the puzzle."""
    checkpoint, records = checkpointed(tmp_path)
    record = next(r for r in records if r["solutions"])
    wrong = [[*record["solutions"][0][:-1], record["solutions"][0][0]]]  # a piece twice, a piece missing
    forged = {"unit": record["unit"], "solutions": wrong, "check": units._check(record["unit"], wrong)}
    checkpoint.write_text(json.dumps(forged) + "\n")
    code, output = cli("run", SPECS / "soma.yaml", "--checkpoint", checkpoint, "--workers", "1")
    assert code == 2 and "records a solution that is none" in output, output


def test_a_line_nested_deep_or_a_full_disk_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    checkpoint = tmp_path / "deep.checkpoint"
    checkpoint.write_text('{"unit": ' + "[" * 100_000 + "\n")
    code, output = cli("run", SPECS / "soma.yaml", "--checkpoint", checkpoint)
    assert code == 2 and "not a line of a cpsolve checkpoint" in output
    journal = Journal(tmp_path / "full.jsonl", "file", "a cpsolve batch's results")

    def disk_full(descriptor: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", disk_full)
    with pytest.raises(OutputError, match="cannot write a cpsolve batch's results: No space left on device"):
        journal.append([{"file": "x"}])
    journal.close()


# -- patterns -----------------------------------------------------------------------------------------


def test_patterns_do_not_follow_links_into_loops(tmp_path: Path) -> None:
    """A link back to its own folder: the pattern ends with the one real file; `/**` is refused as
    too wide instead of walking the whole machine."""
    (tmp_path / "a").mkdir()
    shutil.copy(SPECS / "coffin.yaml", tmp_path / "a" / "coffin.yaml")
    (tmp_path / "a" / "back").symlink_to(tmp_path)
    assert formats.puzzle_files([f"{tmp_path}/**/*.yaml"]) == [tmp_path / "a" / "coffin.yaml"]
    out = tmp_path / "results.jsonl"
    code, output = cli("batch", f"{tmp_path}/**/*.yaml", "--out", out)
    assert code == 0 and len(out.read_text().splitlines()) == 1, output
    code, output = cli("bench", f"{tmp_path}/**/*.yaml", "--engine", "exact-cover")
    assert code == 0, output
    with pytest.raises(CpsolveError, match="looks at more than"):
        formats.puzzle_files(["/**/*.x"])


def test_a_listing_run_stops_at_its_memory_budget(tmp_path: Path) -> None:
    """400 dominoes in a 20x20x2 box (an 80-byte spec, classes without end): the run stops when the
    classes it keeps reach --max-memory, says so, and its counts are lower bounds."""
    spec = tmp_path / "dominoes.yaml"
    spec.write_text("pieces:\n  D: {box: [2, 1], count: 400}\ntarget: {box: [20, 20, 2]}\n")
    process = program("run", spec, "--json", "--show", "0", "--max-memory", "100", own_peak=True)
    assert process.stdout is not None and process.stderr is not None
    _, status, usage = os.wait4(process.pid, 0)
    data = json.loads(process.stdout.read())
    process.stdout.close()
    process.stderr.close()
    assert os.waitstatus_to_exitcode(status) == 0
    assert (data["complete"], data["stopped_by"]) == (False, "memory limit")
    assert data["counts"]["unique"] > 1000 and any("--max-memory 100 MB" in note for note in data["notes"])
    assert usage.ru_maxrss / 1024 < 1024  # MB: the model, the engine and the 100 MB of classes


@pytest.mark.parametrize("callback", ["garbage collector", "weak reference"])
def test_a_signal_inside_a_callback_is_not_lost(callback: str) -> None:
    """Dask registers garbage collector callbacks and importlib weak reference ones; an exception
    raised in one is printed as ignored and lost, so a SIGTERM (2 runs in 12) or a Ctrl-C during
    start-up (seen under load) landing there was lost. The signal comes again once it returned."""
    code = (
        "import gc, os, signal, time, weakref\n"
        "from cpsolve import entry\n"
        "from cpsolve.errors import Terminated\n"
        "entry.install_handlers()\n"
        "def inside(*args):\n"
        "    os.kill(os.getpid(), signal.SIGTERM)\n"
        "    sum(range(1000))  # the handler runs here, inside the callback\n"
        "class Thing: pass\n"
        "try:\n"
        + (
            "    gc.callbacks.append(lambda phase, info: phase == 'start' and inside())\n    gc.collect()\n"
            if callback == "garbage collector"
            else "    thing = Thing()\n    kept = weakref.ref(thing, inside)\n    del thing\n"
        )
        + "    deadline = time.monotonic() + 30\n"
        "    while time.monotonic() < deadline:\n"
        "        time.sleep(0.01)\n"
        "    print('lost')\n"
        "except Terminated:\n"
        "    print('raised once the callback returned')\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert result.stdout.strip() == "raised once the callback returned", result.stderr
    assert "ignored" not in result.stderr


def test_a_file_of_many_problems_is_parsed_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each of 5,000 problems parsed the whole file again (and kept every parse): now once."""
    from cpsolve.formats import burrtools

    problems = '<problem><shapes><shape id="0" count="1"/></shapes><result id="1"/></problem>' * 300
    path = tmp_path / "many.xmpuzzle"
    path.write_bytes(burrtools_file(SMALL_SHAPE * 2, problems))
    parsed: list[int] = []
    real = burrtools.read_puzzle

    def counted(*args: Any) -> Any:
        parsed.append(1)
        return real(*args)

    monkeypatch.setattr(burrtools, "read_puzzle", counted)
    reports = list(run_file(path, RunOptions(show=0)))
    assert len(reports) == 300 and all(r.counts.raw == 1 for r in reports) and len(parsed) == 1


def test_help_speaks_to_users() -> None:
    top = cli("--help")[1]
    assert "snake cubes" in top and "edge-matching" in top and "CP-SAT" not in top
    run_help = cli("run", "--help")[1]
    assert "gc.freeze" not in run_help and "measurement" not in run_help


@pytest.mark.parametrize(
    "command",
    [
        ["run"],
        ["validate"],
        ["bench"],
        ["batch"],
        ["convert"],
        ["design"],
        ["census", "chains"],
        ["generate", "tiles"],
        ["generate", "packing"],
        ["compile"],
        ["engines"],
        ["schema"],
    ],
)
def test_help_shows_no_python_types_braces_or_range_notation(command: list[str]) -> None:
    """Every command's help names values as a user types them: no `<list[str]>`, `<float range>`
    or `<str>` beside a name, no `{PUZZLE}` in the usage line, no `0.0<=x<=1000000000.0`."""
    code, text = cli(*command, "--help")
    assert code == 0, text
    assert not re.search(r"<[a-z][a-z ]*>|<list\[|\{[A-Z]+\}|x[<>]=", text), text
    assert re.match(rf"Usage: \S+ {' '.join(command)} \[OPTIONS\]", text), text


def test_patterns_match_what_glob_matches() -> None:
    """The pattern walker gives glob's answers, and a pattern without ** stays at its own depth
    (so '*.soma' in a large folder tree is not refused as too wide)."""
    for pattern in ("puzzle_specs/*.yaml", "puzzle_specs/**/*.yaml", "puzzle_specs/*/*.yaml", "puzzle_specs/eter*/*"):
        expected = sorted(Path(p) for p in glob.glob(str(ROOT / pattern), recursive=True))
        assert sorted(formats.puzzle_files([str(ROOT / pattern)])) == expected, pattern
    with pytest.raises(CpsolveError, match="matches no file"):
        formats.puzzle_files(["/*.no-such-suffix"])  # one level of the whole machine: no walk below it


# -- outputs that would lose a file (round three) ----------------------------------------------------


def test_stl_refuses_a_folder_where_the_input_has_a_pieces_name(tmp_path: Path) -> None:
    puzzle = tmp_path / "1-V.stl"
    puzzle.write_text((SPECS / "soma.yaml").read_text())
    code, output = cli("run", puzzle, "--stl", tmp_path)
    assert code == 2 and "--stl writes the pieces' files" in output and len(output.splitlines()) == 1, output
    assert puzzle.read_text() == (SPECS / "soma.yaml").read_text()  # the puzzle is as it was


@pytest.mark.parametrize(
    ("first", "second"),
    [("--solutions", "--html"), ("--html", "--png"), ("--checkpoint", "--solutions"), ("--checkpoint", "--html")],
)
def test_two_outputs_naming_one_file_are_refused_before_the_run(tmp_path: Path, first: str, second: str) -> None:
    target = tmp_path / "x"
    target.write_text("kept\n")
    code, output = cli("run", SPECS / "soma.yaml", first, target, second, tmp_path / "." / "x")
    assert code == 2 and "names the same file as" in output and len(output.splitlines()) == 1, output
    assert target.read_text() == "kept\n"


def test_an_output_where_stl_writes_a_piece_is_refused(tmp_path: Path) -> None:
    code, output = cli("run", SPECS / "soma.yaml", "--html", tmp_path / "1-V.stl", "--stl", tmp_path)
    assert code == 2 and "where --html is" in output, output
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize(
    "spec",
    [
        "name: m\npieces:\n  D: {cells: [[0,0],[1,0]], count: 2}\n  M: {cells: [[0,0]], max: 0}\n"
        "target: {box: [2, 2]}\n",
        "name: f\npieces:\n  D: {cells: [[0,0],[1,0]], count: 2}\n  F: {cells: [[0,0],[1,0]]}\n"
        "target: {box: [2, 3], fixed: {F: [[0,2,0],[1,2,0]]}}\n",
    ],
)
@pytest.mark.parametrize("extra", [["--workers", "2"], ["--count-only", "--workers", "2"], ["--checkpoint", "ck"]])
def test_a_split_run_with_a_left_out_piece_counts_as_one_process_does(
    tmp_path: Path, spec: str, extra: list[str]
) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(spec)
    arguments = [str(tmp_path / a) if a == "ck" else a for a in extra]
    one = run_file(path, RunOptions(show=0, workers=1))
    (alone,) = list(one)
    code, output = cli("run", path, "--json", *arguments)
    assert code == 0, output
    assert json.loads(output)["counts"] == alone.counts.as_dict()


def test_a_resumed_batch_exits_as_the_whole_batch_did(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "soma.yaml").write_text(SOMA)
    (folder / "bad.yaml").write_text("name: x\n")
    results = tmp_path / "r.jsonl"
    first, _ = cli("batch", folder, "--out", results)
    again, output = cli("batch", folder, "--out", results)
    assert first == again == 2, output
    assert "2 files skipped (already in the results: 1 refused among them)" in output


@pytest.mark.parametrize(
    ("command", "said"),
    [
        (["tiles", "--board", "1x65536", "--labels", "3"], "--board 1x65536: a side is at most 10,000 tiles"),
        (["tiles", "--board", "1000000x1", "--labels", "3"], "a side is at most 10,000 tiles"),
        (["tiles", "--board", "9" * 5000 + "x1", "--labels", "3"], "a side is at most 10,000 tiles"),
        (["packing", "--box", "32768x1x1", "--pieces", "2"], "--box 32768x1x1: a side is at most 10,000 cells"),
    ],
)
def test_generate_names_the_limit_a_size_passes(command: list[str], said: str) -> None:
    code, output = cli("generate", *command)
    assert code == 2 and said in output and len(output.strip().splitlines()) == 1, output


def test_a_burrtools_file_with_two_grids_is_refused(tmp_path: Path) -> None:
    text = (corpus_dir("burrtools") / "CubeInCage.xmpuzzle").read_bytes()
    import gzip

    xml = gzip.decompress(text).decode() if text[:2] == b"\x1f\x8b" else text.decode()
    doubled = xml.replace('<puzzle version="2">', '<puzzle version="2"><gridType type="0"/><gridType type="2"/>', 1)
    path = tmp_path / "two.xmpuzzle"
    path.write_text(doubled)
    code, output = cli("run", path)
    assert code == 2 and "a second <gridType>" in output and len(output.strip().splitlines()) == 1, output


@pytest.mark.parametrize(
    "spec",
    [
        "name: big\npieces:\n  P: {box: [3, 13, 23]}\n  M: {cells: [[0,0,0]], count: 96439}\n"
        "target: {box: [46, 46, 46]}\n",
        "generated",
    ],
)
def test_placements_whose_cells_would_take_gigabytes_are_refused_before_they_are_made(
    tmp_path: Path, spec: str
) -> None:
    """One 897-cell piece in a 46x46x46 box asked for 6.7 GB at once; so did a design cpsolve
    generates itself (32x32x32, 30 pieces). Both are refused in one line before any placement
    is made."""
    path = tmp_path / "big.yaml"
    if spec == "generated":
        code, text = cli("generate", "packing", "--box", "32x32x32", "--pieces", "30")
        assert code == 0
        path.write_text(text)
    else:
        path.write_text(spec)
    process = program("run", path)
    _, err = process.communicate(timeout=120)
    assert process.returncode == 2 and "the placements would hold more than 50,000,000 cells in all" in err, err
    assert len(err.strip().splitlines()) == 1


def test_a_pre_placed_balls_cell_of_the_wrong_parity_is_named_by_the_rule(tmp_path: Path) -> None:
    path = tmp_path / "parity.yaml"
    path.write_text(
        "name: parity\ngrid: sphere\npieces:\n  A: {cells: [[0,0,0],[1,1,0]]}\n  B: {cells: [[0,0,0],[1,1,0]]}\n"
        "target:\n  cells: [[0,0,0],[1,1,0],[2,0,0],[3,1,0]]\n  fixed: {A: [[1,0,0],[2,1,0]]}\n"
    )
    code, output = cli("run", path)
    assert code == 2 and "cell [1, 0, 0] is not a cell of the sphere grid (x + y + z must be even)" in output
