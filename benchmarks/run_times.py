"""Median `seconds` of `cpsolve run` (spec loaded -> counts ready) over repeated runs.

Usage: python benchmarks/run_times.py [--repeat N] [--engine E] [--workers N] SPEC...
Each run is a fresh `cpsolve run --json` process, so model building is included every time and
nothing is cached between runs. Prints one line per spec: seconds (median), counts, enumerated.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys


def measure(spec: str, repeat: int, extra: list[str]) -> tuple[float, dict[str, int], int]:
    seconds = []
    data: dict = {}
    for _ in range(repeat):
        output = subprocess.run(
            [sys.executable, "-m", "cpsolve", "run", spec, "--json", "--show", "0", *extra],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        data = json.loads(output)
        seconds.append(data["seconds"])
    return statistics.median(seconds), data["counts"], data["solutions_enumerated"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("specs", nargs="+")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--engine", default="auto")
    parser.add_argument("--workers", default="1")
    args = parser.parse_args()
    extra = ["--engine", args.engine, "--workers", args.workers]
    print(f"{'spec':40} {'seconds':>8}  counts (raw/rotations/unique), enumerated")
    for spec in args.specs:
        median, counts, enumerated = measure(spec, args.repeat, extra)
        print(f"{spec:40} {median:8.3f}  {counts['raw']}/{counts['rotations']}/{counts['unique']}, {enumerated}")


if __name__ == "__main__":
    main()
