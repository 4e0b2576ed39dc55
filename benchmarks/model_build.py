"""Median seconds to build each problem's model (placements, symmetries, breaking candidates) and
its exact-cover form, the part of a run's `seconds` before any engine searches.

Usage: python benchmarks/model_build.py [--repeat N] [--fresh] FILE...
Each build reads the file again, so nothing built is reused; the first build of the process (which
fills the orientation caches) is left out. With --fresh, instead, each build is the first of a new
process (what a run's `seconds` pay): N processes per problem. Prints one line per problem:
placements, seconds, and (without --fresh) the median seconds to read the file into its spec.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time

from cpsolve import formats


def build_seconds(path: str, index: int, repeat: int) -> tuple[str, int, float, float | None]:
    """The problem's name, its placements, the median seconds to build its model and cover form,
    and the median seconds to read the file and load the problem's spec."""
    times, reads = [], []
    name, atoms = "", 0
    for _ in range(repeat + 1):
        started = time.perf_counter()
        puzzle = formats.read_puzzles(path)[index]
        _ = puzzle.loaded  # the spec, read from the file
        reads.append(time.perf_counter() - started)
        started = time.perf_counter()
        model, _ = puzzle.model()
        model.cover_problem()
        times.append(time.perf_counter() - started)
        name, atoms = puzzle.name, model.atom_count
    return name, atoms, statistics.median(times[1:]), statistics.median(reads[1:])


FIRST_BUILD = """
import json, sys, time
from cpsolve import formats
puzzle = formats.read_puzzles(sys.argv[1])[int(sys.argv[2])]
puzzle.loaded
started = time.perf_counter()
model, _ = puzzle.model()
model.cover_problem()
print(json.dumps([puzzle.name, model.atom_count, time.perf_counter() - started]))
"""


def first_build_seconds(path: str, index: int, repeat: int) -> tuple[str, int, float, float | None]:
    """As `build_seconds`, each build the first of a new process (its caches empty)."""
    runs = [
        json.loads(subprocess.run(
            [sys.executable, "-c", FIRST_BUILD, path, str(index)], capture_output=True, text=True, check=True
        ).stdout)
        for _ in range(repeat)
    ]  # fmt: skip
    return runs[0][0], runs[0][1], statistics.median(run[2] for run in runs), None


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("files", nargs="+")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--fresh", action="store_true", help="each build the first of a new process")
    args = parser.parse_args()
    measure = first_build_seconds if args.fresh else build_seconds
    print(f"{'problem':48} {'placements':>10} {'seconds':>8} {'read':>8}")
    for path in args.files:
        for index in range(len(formats.read_puzzles(path))):
            name, atoms, seconds, read = measure(path, index, args.repeat)
            shown = "" if read is None else f"{read:8.4f}"
            print(f"{name[:48]:48} {atoms:>10,} {seconds:>8.4f} {shown}")


if __name__ == "__main__":
    main()
