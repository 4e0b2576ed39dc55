"""The programs cpsolve is measured against, run side by side in `cpsolve bench --peers`.

../shared/peers/build.sh builds them from source: BurrTools' command-line solver `burrTxt` and
yass (`soma`). They are looked for in $CPSOLVE_PEERS, then in build.sh's default folder
~/.cache/cpsolve-peers; a peer that is not there is left out of the table.

- burrTxt runs on every packing BurrTools can express: a `.xmpuzzle` file as it is, a YAML spec
  written through cpsolve's own BurrTools writer (with its symmetry left to BurrTools' rule, so
  its count may mean something else, but the search is the same).
- yass runs on every `.soma` figure and every spec that is one (the seven Soma pieces in 27
  connected cells, written through formats/yass.py), twice, as its counts need: unique (`-c`)
  and raw (`-r -c`).

A peer's time is its whole process's wall time (a C++ program starts in about a millisecond);
cpsolve's is the run's `seconds` (file read to counts ready; the interpreter's start and the
engines' loading, once per bench, are left out).
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from cpsolve.errors import CpsolveError
from cpsolve.formats import burrtools, yass
from cpsolve.models import PuzzleModel
from cpsolve.models.packing import PackingModel

PEERS_ENV = "CPSOLVE_PEERS"
BURRTOOLS = "burrTxt"
YASS = "soma"
PROGRAMS = (YASS, BURRTOOLS)  # in the order bench shows their columns


@dataclass(frozen=True)
class PeerResult:
    """One peer's run of one puzzle: its wall time, the count it printed, or why it did not run."""

    program: str
    seconds: float | None = None
    count: int | None = None  # burrTxt: assemblies found; yass: unique solutions
    raw: int | None = None  # yass: solutions with rotations and mirror images
    note: str = ""  # why there is no time (timed out, cannot express the puzzle, failed)

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


def find(name: str) -> Path | None:
    """A peer program's path, or None when it has not been built."""
    for folder in (os.environ.get(PEERS_ENV), Path.home() / ".cache" / "cpsolve-peers"):
        if folder and (Path(folder) / name).is_file() and os.access(Path(folder) / name, os.X_OK):
            return Path(folder) / name
    return None


def available() -> list[str]:
    return [name for name in (BURRTOOLS, YASS) if find(name) is not None]


def run_peers(path: Path, model: PuzzleModel, problem: str | None, time_limit: float) -> list[PeerResult]:
    """Every built peer that can take the puzzle, each run once (at most `time_limit` seconds)."""
    results = []
    if find(YASS) is not None:
        if path.suffix.lower() == ".soma":
            results.append(_yass(path, time_limit))
        elif isinstance(model, PackingModel) and (figure := yass.figure_text(model.puzzle)) is not None:
            with tempfile.TemporaryDirectory(prefix="cpsolve-peer-") as folder:
                written = Path(folder) / "figure.soma"
                written.write_text(figure, encoding="utf-8")
                results.append(_yass(written, time_limit))
    if isinstance(model, PackingModel) and find(BURRTOOLS) is not None:
        results.append(_burrtools(path, model, problem, time_limit))
    return results


def _timed(command: list[str], time_limit: float) -> tuple[float | None, str, str]:
    """(wall seconds or None when the limit passed, stdout, why it failed)."""
    started = time.perf_counter()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=time_limit, check=False)
    except subprocess.TimeoutExpired:
        return None, "", f"stopped after {time_limit:g} s"
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        last = (done.stderr or done.stdout).strip().splitlines()[-1:] or [f"exit code {done.returncode}"]
        return None, done.stdout, f"failed: {last[0][:120]}"
    return seconds, done.stdout, ""


def _burrtools(path: Path, model: PackingModel, problem: str | None, time_limit: float) -> PeerResult:
    program = str(find(BURRTOOLS))
    if path.suffix.lower() == ".xmpuzzle":
        return _burrtxt([program, "-q", "-o", problem or "0", str(path)], time_limit)
    try:
        text = burrtools.puzzle_xml(model.puzzle, any_symmetry=True)
    except CpsolveError as error:
        return PeerResult(BURRTOOLS, note=str(error).split(": ", 1)[-1])
    with tempfile.TemporaryDirectory(prefix="cpsolve-peer-") as folder:
        written = Path(folder) / "puzzle.xmpuzzle"
        written.write_text(text, encoding="utf-8")
        return _burrtxt([program, "-q", str(written)], time_limit)


def _burrtxt(command: list[str], time_limit: float) -> PeerResult:
    seconds, output, note = _timed(command, time_limit)
    found = re.search(r"(\d+) assemblies", output)
    return PeerResult(BURRTOOLS, seconds, int(found.group(1)) if found else None, note=note)


def _yass(path: Path, time_limit: float) -> PeerResult:
    program = str(find(YASS))
    unique_seconds, unique_output, note = _timed([program, "-q", "-c", str(path)], time_limit)
    if unique_seconds is None:
        return PeerResult(YASS, note=note)
    raw_seconds, raw_output, note = _timed([program, "-q", "-r", "-c", str(path)], time_limit)
    if raw_seconds is None:
        return PeerResult(YASS, note=note)
    unique, raw = _solutions(unique_output), _solutions(raw_output)
    note = "" if unique is not None else (unique_output.strip().splitlines() or ["no count"])[-1][:120]
    return PeerResult(YASS, unique_seconds + raw_seconds, unique, raw, note)


def _solutions(output: str) -> int | None:
    """yass's count: "figure.soma: N solutions"; None when it refused the figure."""
    found = re.search(r"(\d+) solutions?\s*$", output.strip())
    return int(found.group(1)) if found else None
