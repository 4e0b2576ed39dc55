"""All yass corpus figures in one process, side by side with yass: total seconds and agreement.

Usage: python benchmarks/yass_corpus.py [--repeat N] [--no-symmetry-breaking] [CORPUS_DIR]

CORPUS_DIR defaults to ../shared/corpus/yass beside the checkout. cpsolve runs every figure in
this process (library calls, as `cpsolve bench` does; the engines loaded first) and its counts are
checked against the corpus's counts.tsv. Where ../shared/peers/build.sh has built yass (`soma`,
found as `cpsolve bench --peers` finds it), yass runs the same figures in one process per count,
as its counts need: unique (`-c`) and raw (`-r -c`). Medians of N rounds, the two alternating.
"""

from __future__ import annotations

import argparse
import csv
import gc
import statistics
import subprocess
import time
from pathlib import Path

from cpsolve import peers
from cpsolve.engines import DEFAULT
from cpsolve.errors import CpsolveError
from cpsolve.formats import read_puzzle
from cpsolve.run import RunOptions, run


def ours(figures: list[Path], expected: dict[str, tuple[int, int] | None], breaking: bool) -> tuple[float, int, int]:
    """(seconds, figures whose counts agree, figures refused where yass refuses them)."""
    options = RunOptions(show=0, symmetry_breaking=breaking)
    agree = refused = 0
    started = time.perf_counter()
    for figure in figures:
        try:
            report = run(read_puzzle(figure), options, on_ready=gc.freeze)  # as `cpsolve bench` runs
        except CpsolveError:
            refused += expected[figure.name] is None
            continue
        agree += (report.counts.unique, report.counts.raw) == expected[figure.name]
    return time.perf_counter() - started, agree, refused


def theirs(program: Path, figures: list[Path]) -> float:
    """yass's wall time for its unique and its raw counts of every figure, one process each."""
    started = time.perf_counter()
    for flags in (["-c"], ["-r", "-c"]):
        subprocess.run([str(program), "-q", *flags, *map(str, figures)], capture_output=True, check=False)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("corpus", nargs="?", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-symmetry-breaking", action="store_true")
    args = parser.parse_args()
    corpus = args.corpus or Path(__file__).resolve().parents[2] / "shared" / "corpus" / "yass"
    with (corpus / "counts.tsv").open() as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    figures = [corpus / "figures" / row["figure"] for row in rows]
    expected = {row["figure"]: None if row["error"] else (int(row["unique"]), int(row["raw"])) for row in rows}
    DEFAULT.load_installed()
    gc.freeze()  # as a cpsolve process does once its libraries are loaded
    program = peers.find(peers.YASS)
    mine, yours = [], []
    agree = refused = 0
    for _ in range(args.repeat):
        seconds, agree, refused = ours(figures, expected, not args.no_symmetry_breaking)
        mine.append(seconds)
        if program is not None:
            yours.append(theirs(program, figures))
    line = f"{len(rows)} figures, {agree} counts agree with yass, {refused} refused as yass does"
    print(f"{line}; cpsolve {statistics.median(mine):.2f} s (median of {args.repeat})")
    if yours:
        ratio = statistics.median(mine) / statistics.median(yours)
        print(f"yass (-c, then -r -c, one process each) {statistics.median(yours):.2f} s; cpsolve / yass {ratio:.2f}")
    else:
        print("yass is not built (../shared/peers/build.sh): no side-by-side time")


if __name__ == "__main__":
    main()
