"""Where a design candidate's check goes, in one warm process: the cut taken apart, the spec of its
pieces made into a puzzle, and the run that counts its assemblies up to two (what `cpsolve design
--goal unique` does for each candidate that comes apart, before any design is written).

Usage: python benchmarks/design_checks.py [--box 4x4x4] [--pieces 6] [--sizes 8-14] [--cuts N] [--seed S]

N random cuts (default 150) of the box, as the search's first step makes them; each is checked
once after one warm-up check. Prints the median milliseconds of each part and the candidates a
second that their sum allows (the command itself also writes and confirms every design it finds).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from cpsolve import formats
from cpsolve.design import Checker, DesignRequest, random_cut, spec_of
from cpsolve.disassembly import AssembledPiece
from cpsolve.geometry import box_cells
from cpsolve.kernels import load_every_kernel
from cpsolve.limits import NO_DEADLINE


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--box", default="4x4x4")
    parser.add_argument("--pieces", type=int, default=6)
    parser.add_argument("--sizes", default="8-14")
    parser.add_argument("--cuts", type=int, default=150)
    parser.add_argument("--seed", type=int, default=1)
    arguments = parser.parse_args()
    size = tuple(int(side) for side in arguments.box.split("x"))
    smallest, largest = (int(bound) for bound in arguments.sizes.split("-"))
    request = DesignRequest(tuple(box_cells(size)), arguments.pieces, smallest, largest)
    load_every_kernel()
    rng = random.Random(arguments.seed)
    cuts = []
    while len(cuts) < arguments.cuts + 1:
        cut = random_cut(request, rng)
        if cut is not None:
            cuts.append(cut)
    checker = Checker(request, NO_DEADLINE)
    parts: dict[str, list[float]] = {"taken apart": [], "spec to puzzle": [], "run to two assemblies": []}
    for number, cut in enumerate(cuts):
        started = time.perf_counter()
        checker.disassembler.analyse([AssembledPiece(f"P{n}", f"P{n}", piece) for n, piece in enumerate(cut, 1)])
        taken = time.perf_counter()
        formats.puzzle_from_data(spec_of(cut, request))
        made = time.perf_counter()
        checker.assemblies(cut)
        ran = time.perf_counter()
        if number:  # the first fills the caches
            for name, seconds in zip(parts, (taken - started, made - taken, ran - made), strict=True):
                parts[name].append(seconds)
    medians = {name: statistics.median(times) for name, times in parts.items()}
    for name, seconds in medians.items():
        print(f"{name:24} {seconds * 1e3:7.2f} ms")
    print(f"{arguments.cuts} cuts: {1 / sum(medians.values()):.0f} candidates a second from the medians")


if __name__ == "__main__":
    main()
