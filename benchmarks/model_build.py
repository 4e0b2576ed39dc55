"""Median seconds to build each problem's model (placements, symmetries, breaking candidates) and
its exact-cover form, the part of a run's `seconds` before any engine searches.

Usage: python benchmarks/model_build.py [--repeat N] FILE...
Each build reads the file again, so nothing built is reused; the first build of the process (which
fills the orientation caches) is left out. Prints one line per problem: placements, seconds.
"""

from __future__ import annotations

import argparse
import statistics
import time

from cpsolve import formats


def build_seconds(path: str, index: int, repeat: int) -> tuple[str, int, float]:
    """The problem's name, its placements and the median seconds to build its model and cover form."""
    times = []
    name, atoms = "", 0
    for _ in range(repeat + 1):
        puzzle = formats.read_puzzles(path)[index]
        started = time.perf_counter()
        model, _ = puzzle.model()
        model.cover_problem()
        times.append(time.perf_counter() - started)
        name, atoms = puzzle.name, model.atom_count
    return name, atoms, statistics.median(times[1:])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("files", nargs="+")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(f"{'problem':48} {'placements':>10} {'seconds':>8}")
    for path in args.files:
        for index in range(len(formats.read_puzzles(path))):
            name, atoms, seconds = build_seconds(path, index, args.repeat)
            print(f"{name[:48]:48} {atoms:>10,} {seconds:>8.4f}")


if __name__ == "__main__":
    main()
