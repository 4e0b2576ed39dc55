"""What the exact-cover search costs: placements tried and seconds, by fill order, against xcover.

Usage: python benchmarks/exact_cover_search.py [--repeat N] [--xcover] SPEC...
Times the enumeration alone (model built, compiled search loaded, symmetry breaking as in a run),
best of N, for the fill order the model gives (the shortest side of the bounding box first) and
for plain target order (z, then y, then x). With --xcover, also xcover's dancing cells on the same
rows, where it is installed (`pip install xcover`; not a dependency of cpsolve).
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from collections.abc import Callable

import numpy as np

from cpsolve.counting import Breaking, choose_breaking
from cpsolve.engines import SearchOptions
from cpsolve.engines.exact_cover import CoverEnumeration, CoverSearch, ExactCoverEngine, parts_for
from cpsolve.limits import NO_DEADLINE
from cpsolve.models import CoverProblem, build_model
from cpsolve.run import load_puzzle


def best_of(repeat: int, work: Callable[[], int]) -> tuple[int, float]:
    best, result = float("inf"), 0
    for _ in range(repeat):
        started = time.perf_counter()
        result = work()
        best = min(best, time.perf_counter() - started)
    return result, best


def ours(problem: CoverProblem, breaking: Breaking | None, repeat: int) -> tuple[int, int, float]:
    search = CoverSearch.of(problem)
    steps = 0

    def work() -> int:
        nonlocal steps
        enumeration = CoverEnumeration(search, parts_for(problem, breaking), SearchOptions(), NO_DEADLINE)
        solutions = sum(1 for _ in enumeration)
        steps = enumeration.steps
        return solutions

    solutions, seconds = best_of(repeat, work)
    return steps, solutions, seconds


def xcover_time(problem: CoverProblem, breaking: Breaking | None, repeat: int) -> tuple[int, float]:
    """xcover's covers_bool on the same parts: cells and pieces as items, one row per atom; a part's
    forced atom is the only row left for its piece, so exact cover places it."""
    from xcover import covers_bool

    pieces = len(problem.piece_bounds)
    matrix = np.zeros((problem.atoms, problem.cells + pieces), dtype=bool)
    for atom in range(problem.atoms):
        cells = problem.atom_cells[atom]
        matrix[atom, cells[cells >= 0]] = True
        matrix[atom, problem.cells + problem.atom_piece[atom]] = True

    def work() -> int:
        solutions = 0
        for part in parts_for(problem, breaking):
            rows = [a for a in range(problem.atoms) if a not in part.left_out]
            solutions += sum(1 for _ in covers_bool(matrix[rows]))
        return solutions

    return best_of(repeat, work)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("specs", nargs="+")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--xcover", action="store_true", help="also time xcover on the same rows")
    args = parser.parse_args()
    ExactCoverEngine().load()
    print(f"{'spec':36} {'fill order':>14} {'placements':>12} {'solutions':>9} {'seconds':>8}")
    for spec in args.specs:
        loaded, build = load_puzzle(spec)
        puzzle = build_model(loaded, build)
        problem = puzzle.cover_problem()
        if problem is None:
            raise SystemExit(f"{spec}: not an exact cover")
        breaking = choose_breaking(puzzle.group, puzzle.breaking_candidates)
        target_order = dataclasses.replace(problem, fill_order=tuple(range(problem.cells)))
        for label, variant in (("short side", problem), ("z, y, x", target_order)):
            steps, solutions, seconds = ours(variant, breaking, args.repeat)
            print(f"{spec:36} {label:>14} {steps:>12,} {solutions:>9} {seconds:>8.3f}")
        if args.xcover:
            solutions, seconds = xcover_time(problem, breaking, args.repeat)
            print(f"{spec:36} {'xcover':>14} {'-':>12} {solutions:>9} {seconds:>8.3f}")


if __name__ == "__main__":
    main()
