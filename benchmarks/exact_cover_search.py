"""What the exact-cover search costs: placements and seconds by search and cell choice, and by
symmetry-breaking set.

Usage: python benchmarks/exact_cover_search.py [--repeat N] [--limit S] [--search TEXT] [--breaking]
       [--xcover] SPEC...

Times the enumeration alone (model built, compiled searches loaded, symmetry breaking as a run
chooses it), best of N, one core, for

- the lowest-cell search (cover_search.py) filling the shortest side of the bounding box first,
  and filling in plain target order (z, then y, then x);
- the box search (box_search.py) filling the lowest open cell (short side first), and, where the
  target extends in all three directions, the cell with the fewest open neighbours: the first
  such cell (K=1), or among the first K the one with the fewest fitting placements (as runs do
  on cubes); and every open cell and piece used once compared;
- the bit-parallel search (bitset_search.py: every open cell and piece used once compared by
  population counts over bit sets, as runs do on spheres and on boxes too big for the box
  search), where it takes the problem (no cell may stay empty, no groups).

--search TEXT keeps only the searches whose label holds TEXT (say "K=8").

With --breaking, instead, every set that can break the symmetry in turn on the search a run
uses: its kept atoms, the estimate a run would make of it (4096 probes) and the placements and
seconds of the whole search under it, so that the estimate can be held against the truth. A
search stopped by --limit (seconds, default 120) shows `>` and the placements it made until then.
With --xcover, also xcover's dancing cells on the same rows where it is installed (`pip install
xcover`; not a dependency of cpsolve).
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from cpsolve.engines import DEFAULT as ENGINES
from cpsolve.engines import SearchOptions
from cpsolve.engines.breaking import FINAL_PROBES
from cpsolve.engines.exact_cover import CoverEnumeration, ExactCoverEngine, Search, parts_for, search_for
from cpsolve.engines.exact_cover.bitset_search import BitsetSearch
from cpsolve.engines.exact_cover.box_search import CHOOSE_AMONG, EVERY_OPEN_CELL, LOWEST, BoxSearch, Layout
from cpsolve.engines.exact_cover.cover_search import FEWEST, CoverSearch
from cpsolve.formats import read_puzzle
from cpsolve.limits import Deadline
from cpsolve.models import CoverProblem, PuzzleModel
from cpsolve.symmetry import Breaking, choose_breaking, first_sets


def best_of(repeat: int, work: Callable[[], int]) -> tuple[int, float]:
    best, result = float("inf"), 0
    for _ in range(repeat):
        started = time.perf_counter()
        result = work()
        best = min(best, time.perf_counter() - started)
    return result, best


@dataclass
class Timing:
    placements: int = 0
    solutions: int = 0
    seconds: float = 0.0
    complete: bool = True

    def row(self) -> str:
        placements = f"{'' if self.complete else '>'}{self.placements:,}"
        return f"{placements:>14} {self.solutions:>9} {self.seconds:>8.3f}"


def timed(search: Search, breaking: Breaking | None, repeat: int, limit: float) -> Timing:
    """The whole enumeration on one core, best of `repeat` (once if it hits `limit` seconds)."""
    timing = Timing(seconds=float("inf"))
    for _ in range(repeat):
        started = time.perf_counter()
        parts = parts_for(search.problem, breaking)
        enumeration = CoverEnumeration(search, parts, SearchOptions(), Deadline.after(limit))
        timing.solutions = sum(len(batch) for batch in enumeration.batches())
        timing.seconds = min(timing.seconds, time.perf_counter() - started)
        timing.placements, timing.complete = enumeration.steps, enumeration.complete
        if not timing.complete:
            break
    return timing


def searches(problem: CoverProblem) -> list[tuple[str, Search]]:
    """Every search that takes the problem, labelled."""
    target_order = dataclasses.replace(problem, fill_order=tuple(range(problem.cells)))
    short_side, z_y_x = CoverSearch.of(problem), CoverSearch.of(target_order)
    cover = "fewest-placements" if short_side.choose == FEWEST else "lowest-cell"  # as CoverSearch.of chooses
    found: list[tuple[str, Search | None]] = [
        (f"{cover}, short side", short_side),
        (f"{cover}, z y x", z_y_x),
        ("box, lowest cell", BoxSearch.of(problem, LOWEST)),
    ]
    layout = Layout.of(problem.positions) if problem.positions else None
    if layout is not None and layout.three_d:
        found.append(("box, fewest neighbours, K=1", BoxSearch.of(problem, 1)))
        found.append((f"box, fewest neighbours, K={CHOOSE_AMONG}", BoxSearch.of(problem, CHOOSE_AMONG)))
    if layout is not None:
        found.append(("box, every cell and piece", BoxSearch.of(problem, EVERY_OPEN_CELL)))
    found.append(("bit sets, every cell and piece", BitsetSearch.of(problem)))
    return [(label, search) for label, search in found if search is not None]


def compare_searches(
    spec: str, puzzle: PuzzleModel, problem: CoverProblem, repeat: int, limit: float, only: str
) -> None:
    breaking = ENGINES.choose_breaking(puzzle).breaking
    for label, search in searches(problem):
        if only not in label:
            continue
        print(f"{spec:32} {label:>28} {timed(search, breaking, repeat, limit).row()}")


def compare_breaking(spec: str, puzzle: PuzzleModel, problem: CoverProblem, repeat: int, limit: float) -> None:
    """Each breaking set on the run's search: estimated against measured placements."""
    search = search_for(problem)
    estimator = search.estimate if isinstance(search, BoxSearch | BitsetSearch) else None
    chosen = ENGINES.choose_breaking(puzzle)
    labels = puzzle.breaking_labels
    print(f"{spec}: a run chooses {chosen.label} ({chosen.chosen_by})")
    print(f"  {'set':24} {'kept':>5} {'estimated':>14} {'placements':>14} {'solutions':>9} {'seconds':>8}")
    for option in first_sets(puzzle.group, puzzle.breaking_candidates):
        breaking = choose_breaking(puzzle.group, puzzle.breaking_candidates, [option])
        estimate = "-" if estimator is None else f"{estimator(option.kept, FINAL_PROBES):,.0f}"
        label = labels[option.index] if option.index < len(labels) else f"candidate {option.index}"
        print(f"  {label:24} {len(option.kept):>5} {estimate:>14} {timed(search, breaking, repeat, limit).row()}")


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
    parser.add_argument("--search", default="", help="only the searches whose label holds this")
    parser.add_argument("--limit", type=float, default=120.0, help="seconds for each search")
    parser.add_argument("--breaking", action="store_true", help="instead, time every breaking set on the run's search")
    parser.add_argument("--xcover", action="store_true", help="also time xcover on the same rows")
    args = parser.parse_args()
    ExactCoverEngine().load()
    print(f"{'spec':32} {'search':>28} {'placements':>14} {'solutions':>9} {'seconds':>8}")
    for spec in args.specs:
        puzzle, _ = read_puzzle(spec).model()
        problem = puzzle.cover_problem()
        if problem is None:
            raise SystemExit(f"{spec}: not an exact cover")
        if args.breaking:
            compare_breaking(spec, puzzle, problem, args.repeat, args.limit)
            continue
        compare_searches(spec, puzzle, problem, args.repeat, args.limit, args.search)
        if args.xcover:
            solutions, seconds = xcover_time(problem, ENGINES.choose_breaking(puzzle).breaking, args.repeat)
            print(f"{spec:32} {'xcover':>28} {'-':>14} {solutions:>9} {seconds:>8.3f}")


if __name__ == "__main__":
    main()
