"""Every problem of the BurrTools corpus, side by side: cpsolve and BurrTools' own solver, burrTxt.

Usage: python benchmarks/burrtools_corpus.py [--repeat N] [--burrtxt PATH] [--disassemble] [CORPUS_DIR]
CORPUS_DIR defaults to the BurrTools corpus beside the checkout (../shared/corpus/burrtools);
burrTxt to ~/.cache/cpsolve-peers/burrTxt (built by ../shared/peers/build.sh).

Each program runs as a fresh process N times (default 3); the table gives medians of the whole
process's wall time for both, cpsolve's own `seconds` (file read to counts, imports left out), the
assemblies each counts, and the ratio burrTxt / cpsolve (above 1: cpsolve faster).

With --disassemble both take every assembly apart (`cpsolve run --disassemble`, `burrTxt -d`):
the counts are then the assemblies that come apart (cpsolve's include a one-piece assembly,
which burrTxt leaves out), and cpsolve's `seconds` include the disassembly. A second table
gives the disassembly alone: cpsolve's part of its seconds, the positions it looked at and its
positions per second; burrTxt's part is its time with -d less its time without (medians of
whole processes), and its rate the same positions over that time (the two searches are breadth
first over the same positions, so the rate is an estimate, not BurrTools' own count).
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path


def timed(command: list[str]) -> tuple[float, str]:
    started = time.perf_counter()
    output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    return time.perf_counter() - started, output


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "corpus", nargs="?", default=str(Path(__file__).resolve().parents[2] / "shared/corpus/burrtools")
    )
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--burrtxt", default=str(Path.home() / ".cache/cpsolve-peers/burrTxt"))
    parser.add_argument("--disassemble", action="store_true", help="count the assemblies that come apart")
    args = parser.parse_args()
    ours_flags, their_flags = (["--disassemble"], ["-d"]) if args.disassemble else ([], [])
    corpus = Path(args.corpus)
    with (corpus / "counts.tsv").open() as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    print(
        f"{'problem':34} {'BurrTools':>9} {'cpsolve':>8} {'burrTxt s':>10}"
        f" {'cpsolve s':>10} {'seconds':>8} {'ratio':>6}" + ("  (disassembly s)" if args.disassemble else "")
    )
    disassembly_rows: list[str] = []
    for row in rows:
        path = str(corpus / row["file"])
        ours, theirs, seconds, taking_apart, plain = [], [], [], [], []
        positions = 0
        counted = assemblies = ""
        for _ in range(args.repeat):
            command = [sys.executable, "-m", "cpsolve", "run", path, "--problem", row["problem"], "--json"]
            wall, output = timed(command + ours_flags)
            data = json.loads(output)
            ours.append(wall)
            seconds.append(data["seconds"])
            if args.disassemble:
                counted = str(data["disassembly"]["comes_apart"])
                taking_apart.append(data["disassembly"]["seconds"])
                positions = data["disassembly"]["positions"]
                plain.append(timed([args.burrtxt, "-q", "-o", row["problem"], path])[0])
            else:
                counted = str(data["counts"]["unique"])
            wall, output = timed([args.burrtxt, "-q", "-o", row["problem"], *their_flags, path])
            theirs.append(wall)
            found = re.search(r"(\d+) solutions" if args.disassemble else r"(\d+) assemblies", output)
            assemblies = found.group(1) if found else "?"
        name = f"{row['file'].removesuffix('.xmpuzzle')}[{row['problem']}]"
        ratio = statistics.median(theirs) / statistics.median(ours)
        part = f"  ({statistics.median(taking_apart):.3f})" if args.disassemble else ""
        print(
            f"{name:34} {assemblies:>9} {counted:>8} {statistics.median(theirs):>10.3f}"
            f" {statistics.median(ours):>10.3f} {statistics.median(seconds):>8.3f} {ratio:>6.2f}{part}"
        )
        if args.disassemble:
            ours_part = statistics.median(taking_apart)
            their_part = max(0.0, statistics.median(theirs) - statistics.median(plain))
            disassembly_rows.append(
                f"{name:34} {positions:>10,} {ours_part:>10.3f} {_rate(positions, ours_part):>12}"
                f" {their_part:>10.3f} {_rate(positions, their_part):>12}"
                f" {statistics.median(theirs) / statistics.median(seconds):>8.2f}"
            )
    if disassembly_rows:
        print(
            f"\n{'disassembly alone':34} {'positions':>10} {'cpsolve s':>10} {'positions/s':>12}"
            f" {'burrTxt s':>10} {'positions/s':>12} {'-d/secs':>8}"
        )
        print("\n".join(disassembly_rows))


def _rate(positions: int, seconds: float) -> str:
    return f"{positions / seconds:,.0f}" if seconds > 0.001 else "-"


if __name__ == "__main__":
    main()
