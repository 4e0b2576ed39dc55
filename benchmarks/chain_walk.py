"""What the chain engine's dead-end check is worth: segment placements and seconds, with and without.

Usage: python benchmarks/chain_walk.py [--repeat N] [--no-breaking] SPEC...
Times the enumeration alone (model built, compiled search loaded, symmetry breaking as in a run),
best of N, and prints one line per spec and setting: placements tried, solutions, seconds.
"""

from __future__ import annotations

import argparse
import time

from cpsolve.engines import SearchOptions
from cpsolve.engines.chain_dfs import ChainEnumeration, ChainWalkEngine
from cpsolve.formats import read_puzzle
from cpsolve.symmetry import choose_breaking


def measure(spec: str, check_dead_ends: bool, breaking_on: bool, repeat: int) -> tuple[int, int, float]:
    puzzle, _ = read_puzzle(spec).model()
    walk = puzzle.chain_walk()
    if walk is None:
        raise SystemExit(f"{spec}: not a chain")
    breaking = choose_breaking(puzzle.group, puzzle.breaking_candidates) if breaking_on else None
    best = float("inf")
    steps = solutions = 0
    for _ in range(repeat):
        enumeration = ChainEnumeration(walk, breaking, SearchOptions(), check_dead_ends=check_dead_ends)
        started = time.perf_counter()
        solutions = sum(1 for _ in enumeration)
        best = min(best, time.perf_counter() - started)
        steps = enumeration.steps
    return steps, solutions, best


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("specs", nargs="+")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-breaking", action="store_true", help="every start, every first direction")
    args = parser.parse_args()
    ChainWalkEngine().load()
    print(f"{'spec':40} {'dead-end check':>14} {'placements':>12} {'solutions':>9} {'seconds':>8}")
    for spec in args.specs:
        for check in (True, False):
            steps, solutions, seconds = measure(spec, check, not args.no_breaking, args.repeat)
            print(f"{spec:40} {'on' if check else 'off':>14} {steps:>12,} {solutions:>9} {seconds:>8.3f}")


if __name__ == "__main__":
    main()
