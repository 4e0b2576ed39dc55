"""What splitting a search into parts costs, and how even the parts are.

Usage: python benchmarks/parts.py [--wanted N] SPEC...

Prepares each puzzle as a run does (its engine and symmetry breaking, one process), asks for
N parts (`part_keys`; a run of W workers asks for 8 W), then searches each part alone, one after
the other. Prints the parts, how deep their keys go, the seconds the split took, the seconds of
all the parts together (set against one whole search: what the parts cost beyond it) and of the
largest (which bounds what any number of processes can reach), and the eight largest with their
solutions.
"""

from __future__ import annotations

import argparse
import dataclasses
import time

from cpsolve.engines import SearchOptions
from cpsolve.formats import read_puzzle
from cpsolve.limits import Deadline
from cpsolve.run import RunOptions, prepare


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("specs", nargs="+")
    parser.add_argument("--wanted", type=int, default=16, help="parts asked for (8 per worker in a run)")
    args = parser.parse_args()
    options = dataclasses.replace(RunOptions(), workers=1)
    for spec in args.specs:
        puzzle = read_puzzle(spec)
        compiled = prepare(puzzle, options, Deadline.after(None)).compiled
        started = time.perf_counter()
        keys = compiled.part_keys(args.wanted)
        split = time.perf_counter() - started
        sizes: list[tuple[float, int]] = []
        for key in keys:
            started = time.perf_counter()
            part = compiled.enumerate(SearchOptions(), Deadline.after(None), key)
            found = sum(len(batch) for batch in part.batches())
            sizes.append((time.perf_counter() - started, found))
        sizes.sort(reverse=True)
        depths = sorted({len(key) for key in keys})
        total = sum(seconds for seconds, _ in sizes)
        print(
            f"{spec}: {len(keys)} parts, keys of {depths} atoms; split {split:.3f} s,"
            f" parts {total:.2f} s in all, largest {sizes[0][0]:.2f} s"
        )
        print("  largest (seconds, solutions):", ", ".join(f"{s:.3f} {n}" for s, n in sizes[:8]))


if __name__ == "__main__":
    main()
