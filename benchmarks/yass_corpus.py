"""All yass corpus figures in one process: total seconds and agreement with yass's counts.

Usage: python benchmarks/yass_corpus.py [--no-symmetry-breaking] [CORPUS_DIR]
CORPUS_DIR defaults to ../shared/corpus/yass beside the checkout.
"""

from __future__ import annotations

import csv
import sys
import time
from pathlib import Path

from cpsolve.errors import CpsolveError
from cpsolve.run import RunOptions, run


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    corpus = Path(args[0]) if args else Path(__file__).resolve().parents[2] / "shared" / "corpus" / "yass"
    options = RunOptions(show=0, symmetry_breaking="--no-symmetry-breaking" not in sys.argv)
    with (corpus / "counts.tsv").open() as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    agree = refused = 0
    started = time.perf_counter()
    for row in rows:
        try:
            report = run(corpus / "figures" / row["figure"], options)
        except CpsolveError:
            refused += bool(row["error"])
            continue
        agree += (report.counts.unique, report.counts.raw) == (int(row["unique"] or -1), int(row["raw"] or -1))
    seconds = time.perf_counter() - started
    print(f"{len(rows)} figures, {agree} counts agree with yass, {refused} refused as yass does, {seconds:.1f} s")


if __name__ == "__main__":
    main()
