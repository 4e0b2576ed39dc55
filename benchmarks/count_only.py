"""Counting without listing against listing: the `seconds` of `cpsolve run` (median of rounds).

    python benchmarks/count_only.py dominoes --sizes 8 10 12 14 16
    python benchmarks/count_only.py compare puzzle_specs/soma.yaml puzzle_specs/pentominoes_6x10.yaml
    python benchmarks/count_only.py boxes --boxes 6x6x2 6x6x3 6x6x4 --orders fill reverse --max-memory 16000

`dominoes`: square boards of dominoes counted on the frontier, each raw count checked against
Kasteleyn's product (tests/test_count_only.py computes it the same way). `compare`: each file
listed (auto engine), counted with `--count-only` (auto) and on the frontier (`--engine
frontier`). `boxes`: boxes of T-tetracubes counted in each cell order, with the widest level's
sub-problems (`widest_level` in the report) and the process's peak memory, so that a count
nobody has published is checked by two orders agreeing.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

from cpsolve.engines.frontier import FRONTIER
from cpsolve.formats import read_puzzle
from cpsolve.report import RunReport
from cpsolve.run import RunOptions, run

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from test_count_only import kasteleyn


def timed(path: Path, options: RunOptions, rounds: int) -> tuple[RunReport, float]:
    """The last report and the median `seconds` over the rounds."""
    reports = [run(read_puzzle(path), options) for _ in range(rounds)]
    return reports[-1], statistics.median(r.seconds for r in reports)


def dominoes(sizes: list[int], rounds: int) -> None:
    print(f"{'board':>7} {'raw':>32} {'unique':>30} {'seconds':>8}  Kasteleyn")
    with tempfile.TemporaryDirectory() as folder:
        for size in sizes:
            path = Path(folder) / f"dominoes_{size}.yaml"
            pieces = {"D": {"cells": [[0, 0], [1, 0]], "count": size * size // 2}}
            path.write_text(yaml.safe_dump({"pieces": pieces, "target": {"box": [size, size, 1]}}))
            report, seconds = timed(path, RunOptions(show=0, count_only=True), rounds)
            agrees = "agrees" if report.counts.raw == kasteleyn(size, size) else "DIFFERS"
            print(f"{size:>3}x{size:<3} {report.counts.raw:>32,} {report.counts.unique:>30,} {seconds:>8.3f}  {agrees}")


def compare(paths: list[Path], rounds: int) -> None:
    print(f"{'puzzle':32} {'raw/rotations/unique':>22} {'listing s':>10} {'count-only s':>13} {'frontier s':>11}")
    for path in paths:
        listed, listing = timed(path, RunOptions(show=0), rounds)
        tallied, counting = timed(path, RunOptions(show=0, count_only=True), rounds)
        framed, frontier = timed(path, RunOptions(show=0, count_only=True, engine=FRONTIER), rounds)
        assert listed.counts == tallied.counts == framed.counts, path
        counts = f"{listed.counts.raw}/{listed.counts.rotations}/{listed.counts.unique}"
        method = tallied.counting["method"] if tallied.counting else "-"
        print(f"{path.name:32} {counts:>22} {listing:>10.3f} {counting:>8.3f} ({method:5}) {frontier:>9.3f}")


def boxes(sizes: list[str], orders: list[str], max_memory: int) -> None:
    print(f"{'box':>7} {'order':>8} {'raw':>22} {'unique':>14} {'seconds':>8} {'widest level':>14} {'peak MB':>8}")
    with tempfile.TemporaryDirectory() as folder:
        for size in sizes:
            box = [int(side) for side in size.split("x")]
            path = Path(folder) / f"t_{size}.yaml"
            pieces = {"T": {"cells": [[0, 0], [1, 0], [2, 0], [1, 1]], "count": box[0] * box[1] * box[2] // 4}}
            path.write_text(yaml.safe_dump({"pieces": pieces, "target": {"box": box}}))
            for order in orders:
                options = RunOptions(show=0, count_only=True, count_order=order, max_class_bytes=max_memory * 2**20)
                report = run(read_puzzle(path), options)
                peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
                raw = f"{report.counts.raw:,}" if report.complete else f"({report.stopped_by})"
                widest = (report.counting or {}).get("widest_level") or 0
                print(
                    f"{size:>7} {order:>8} {raw:>22} {report.counts.unique:>14,} {report.seconds:>8.1f}"
                    f" {widest:>14,} {peak:>8,}"
                )


def main(arguments: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=["dominoes", "compare", "boxes"])
    parser.add_argument("paths", nargs="*", type=Path)
    parser.add_argument("--sizes", nargs="*", type=int, default=[8, 10, 12, 14])
    parser.add_argument("--boxes", nargs="*", default=["6x6x2"])
    parser.add_argument("--orders", nargs="*", default=["fill", "reverse"])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--max-memory", type=int, default=2048, help="MB, as cpsolve run --max-memory")
    given: Any = parser.parse_args(arguments)
    started = time.perf_counter()
    if given.what == "dominoes":
        dominoes(given.sizes, given.rounds)
    elif given.what == "compare":
        compare(given.paths, given.rounds)
    else:
        boxes(given.boxes, given.orders, given.max_memory)
    print(f"# {time.perf_counter() - started:.1f} s in all")


if __name__ == "__main__":
    main()
