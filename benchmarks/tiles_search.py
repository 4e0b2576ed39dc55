"""The tiles engine's fill orders side by side: placements, seconds and placements per second.

Usage: python benchmarks/tiles_search.py [--boards 10x10,12x12] [--seeds 1,2,3,4,5] [--orders rows,frame]
           [--cap SECONDS] [--labels 17] [--frame-labels 5] [--count] [--no-grow] [--no-race] [SPEC...]

For each planted board (made as `cpsolve generate tiles --border 0`, with the given labels and
seed) and each spec given, and each fill order: the search for a first solution (symmetry
breaking as in a run), stopped at the cap; specs with `expected` counts (every spec with --count)
are enumerated in full. A search for one solution races the order's mirror images as a run does
(`--no-race`: the order alone).
Times the search alone (model built, compiled search loaded). One line per board and order.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from cpsolve.engines import SearchOptions
from cpsolve.engines.base import breaking_parts
from cpsolve.engines.tiles_dfs import TilesEngine, TilesEnumeration, TilesSearch
from cpsolve.engines.tiles_dfs.order import ORDERS
from cpsolve.formats import read_puzzle
from cpsolve.generate import TileBoardRequest, parse_board, tiles_spec_text
from cpsolve.limits import Deadline
from cpsolve.models import PuzzleModel
from cpsolve.symmetry import choose_breaking


def measure(
    puzzle: PuzzleModel, order: str, first: bool, cap: float, grow: bool = True, race: bool = True
) -> tuple[int, int, float, bool]:
    """(placements, solutions, seconds, finished) of one search."""
    board = puzzle.edge_matching()
    assert board is not None
    breaking = choose_breaking(puzzle.group, puzzle.breaking_candidates)
    search = TilesSearch(board, order, grow, race_order=order)
    if not race:
        search.raced_orders = search.raced_orders[:1]
    enumeration = TilesEnumeration(
        search, breaking_parts(breaking), SearchOptions(first_only=first), Deadline.after(cap)
    )
    started = time.perf_counter()
    solutions = sum(1 for _ in enumeration)
    seconds = time.perf_counter() - started
    return enumeration.steps, solutions, seconds, enumeration.stopped_by is None or solutions > 0


def planted(board: str, labels: int, frame_labels: int, seed: int, directory: Path) -> Path:
    columns, rows = parse_board(board)
    request = TileBoardRequest(columns, rows, labels, 0, frame_labels, "equal", seed)
    path = directory / f"planted_{board}_{seed}.yaml"
    path.write_text(tiles_spec_text(request))
    return path


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("specs", nargs="*")
    parser.add_argument("--boards", default="")
    parser.add_argument("--seeds", default="1,2,3,4,5")
    parser.add_argument("--orders", default="rows,frame,spiral", help=f"of {', '.join(ORDERS)}")
    parser.add_argument("--labels", type=int, default=17)
    parser.add_argument("--frame-labels", type=int, default=5)
    parser.add_argument("--cap", type=float, default=60.0)
    parser.add_argument("--count", action="store_true", help="enumerate every spec in full")
    parser.add_argument("--no-grow", action="store_true", help="the fill order as it stands after a part's own tile")
    parser.add_argument("--no-race", action="store_true", help="a search for one solution in the order alone")
    args = parser.parse_args()
    TilesEngine().load()
    orders = args.orders.split(",")
    with tempfile.TemporaryDirectory() as temporary:
        paths = [Path(spec) for spec in args.specs]
        for board in filter(None, args.boards.split(",")):
            seeds = [int(seed) for seed in args.seeds.split(",")]
            paths += [planted(board, args.labels, args.frame_labels, seed, Path(temporary)) for seed in seeds]
        print(f"{'puzzle':34} {'order':>7} {'mode':>5} {'placements':>14} {'found':>6} {'seconds':>8} {'M/s':>6}")
        rates: dict[str, list[float]] = {order: [] for order in orders}
        for path in paths:
            read = read_puzzle(str(path))
            puzzle, _ = read.model()
            first = read.find_one and not args.count
            for order in orders:
                steps, solutions, seconds, finished = measure(
                    puzzle, order, first, args.cap, not args.no_grow, not args.no_race
                )
                rate = steps / seconds / 1e6 if seconds else 0.0
                rates[order].append(rate)
                shown = f"{seconds:8.2f}" if finished else f"{'>' + format(args.cap, 'g'):>8}"
                mode = "first" if first else "count"
                print(f"{path.name:34} {order:>7} {mode:>5} {steps:>14,} {solutions:>6} {shown} {rate:6.1f}")
        for order, values in rates.items():
            if values:
                print(f"median placements per second, {order}: {statistics.median(values):.1f} M")


if __name__ == "__main__":
    main()
