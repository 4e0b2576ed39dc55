"""Knuth's exact-cover programs and cpsolve on the very same cover, one core each.

Usage: python benchmarks/knuth_side_by_side.py [--repeat N] [--problem N] PUZZLE...

Each puzzle's exact cover is written as `cpsolve convert PUZZLE OUT.dlx` writes it, then counted
by Knuth's programs (dlx1 and ssxcc; dlx3 and ssmcc where the cover has item bounds: copies,
ranges, groups, a hole limit), whole processes, and by cpsolve with one worker (`--workers 1
--engine exact-cover`): without symmetry breaking, which enumerates every solution with the target
fixed as his programs do (the fair comparison), and with it (cpsolve's default, for context).
Every count is checked against cpsolve's raw. Medians of N runs (default 3) of each; cpsolve's
column is its report's `seconds` (file read to counts ready, without the process's start-up),
its whole process beside it. Knuth's programs are found as `cpsolve bench --peers` finds peers
($CPSOLVE_PEERS, then ~/.cache/cpsolve-peers; build them with ../shared/peers/build.sh DEST).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cpsolve import formats, peers
from cpsolve.convert import write_exact_cover
from cpsolve.formats.base import ReadOptions
from cpsolve.limits import DEFAULT_MAX_FILE_BYTES


def knuth(program: Path, cover: Path, repeat: int) -> tuple[float, int]:
    """The median seconds of `program < cover` and the count it prints."""
    seconds, count = [], -1
    for _ in range(repeat):
        started = time.perf_counter()
        with cover.open("rb") as given:
            done = subprocess.run([str(program)], stdin=given, capture_output=True, text=True, check=True)
        seconds.append(time.perf_counter() - started)
        said = next(line for line in done.stderr.splitlines() if line.startswith("Altogether"))
        count = int(said.split()[1])
    return statistics.median(seconds), count


def cpsolve(puzzle: str, problem: str | None, breaking: bool, repeat: int) -> tuple[float, float, int]:
    """The median of the report's seconds and of the whole process, and the raw count."""
    flags = ["--workers", "1", "--engine", "exact-cover", "--json", "--show", "0"]
    flags += [] if breaking else ["--no-symmetry-breaking"]
    flags += [] if problem is None else ["--problem", problem]
    seconds, wholes, raw = [], [], -1
    for _ in range(repeat):
        started = time.perf_counter()
        output = subprocess.run(
            [sys.executable, "-m", "cpsolve", "run", puzzle, *flags], capture_output=True, text=True, check=True
        ).stdout
        wholes.append(time.perf_counter() - started)
        report = json.loads(output)
        seconds.append(report["seconds"])
        raw = report["counts"]["raw"]
    return statistics.median(seconds), statistics.median(wholes), raw


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("puzzles", nargs="+")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--problem", default=None)
    arguments = parser.parse_args()
    print(
        f"{'puzzle':<34} {'raw':>10} {'program':>7} {'his s':>8} {'program':>7} {'his s':>8}"
        f" {'ours s':>8} {'whole s':>8} {'broken s':>8}  counts"
    )
    with tempfile.TemporaryDirectory() as folder:
        for puzzle in arguments.puzzles:
            (found,) = formats.read_puzzles(Path(puzzle), ReadOptions(DEFAULT_MAX_FILE_BYTES, arguments.problem))
            cover = Path(folder) / f"{Path(puzzle).stem}.dlx"
            bounded = "dlx3 or ssmcc" in write_exact_cover(found, cover)
            names = ("dlx3", "ssmcc") if bounded else ("dlx1", "ssxcc")
            programs = [peers.find(name) for name in names]
            if None in programs:
                sys.exit(f"{', '.join(names)}: not built; bash ../shared/peers/build.sh DEST, then CPSOLVE_PEERS=DEST")
            theirs = [knuth(program, cover, arguments.repeat) for program in programs if program is not None]
            ours, whole, raw = cpsolve(puzzle, arguments.problem, False, arguments.repeat)
            broken, _, _ = cpsolve(puzzle, arguments.problem, True, arguments.repeat)
            agree = "agree" if all(count == raw for _, count in theirs) else f"DIFFER: {[c for _, c in theirs]}"
            columns = "".join(f" {name:>7} {seconds:>8.3f}" for name, (seconds, _) in zip(names, theirs, strict=True))
            print(f"{Path(puzzle).name:<34} {raw:>10,}{columns} {ours:>8.3f} {whole:>8.3f} {broken:>8.3f}  {agree}")


if __name__ == "__main__":
    main()
