"""Where a design candidate's check goes, in one warm process: the cut taken apart and the compiled
cut check that counts its assemblies up to two (what `cpsolve design --goal unique` does for each
candidate that comes apart, before any design is written); beside them, for comparison, the spec of
its pieces made into a puzzle and the whole run that answered before (and still does where the
compiled check cannot: no numba, a target past 64 cells, a search past its budget).

Usage: python benchmarks/design_checks.py [--box 4x4x4] [--pieces 6] [--sizes 8-14] [--cuts N] [--seed S]

N random cuts (default 150) of the box, as the search's first step makes them; each is checked
once after one warm-up check. Prints the median milliseconds of each part and the candidates a
second that the check's two parts allow (the command itself also writes and confirms every design
it finds).
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
    parts: dict[str, list[float]] = {
        "taken apart": [],
        "cut check (compiled)": [],
        "spec to puzzle": [],
        "whole run to two": [],
    }
    for number, cut in enumerate(cuts):
        started = time.perf_counter()
        checker.disassembler.analyse([AssembledPiece(f"P{n}", f"P{n}", piece) for n, piece in enumerate(cut, 1)])
        taken = time.perf_counter()
        fast = checker.cuts.assemblies(cut)
        checked = time.perf_counter()
        formats.puzzle_from_data(spec_of(cut, request))
        made = time.perf_counter()
        solved = checker.solved_assemblies(cut)
        ran = time.perf_counter()
        if fast is not None and solved is not None and fast != solved:
            raise SystemExit(f"the cut check says {fast}, a whole run {solved}: {cut}")
        if number:  # the first fills the caches
            for name, seconds in zip(
                parts, (taken - started, checked - taken, made - checked, ran - made), strict=True
            ):
                parts[name].append(seconds)
    medians = {name: statistics.median(times) for name, times in parts.items()}
    for name, seconds in medians.items():
        print(f"{name:24} {seconds * 1e3:7.2f} ms")
    check = medians["taken apart"] + medians["cut check (compiled)"]
    before = medians["taken apart"] + medians["whole run to two"]
    print(
        f"{arguments.cuts} cuts: {1 / check:.0f} candidates a second from the medians ({1 / before:.0f} by whole runs)"
    )


if __name__ == "__main__":
    main()
