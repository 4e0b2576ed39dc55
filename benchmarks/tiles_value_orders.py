"""Would random restarts find a planted edge-matching board sooner? Placements to the first
solution when the tiles engine tries each place's candidates in a random order, once per seed.

Usage: python benchmarks/tiles_value_orders.py [--boards 10x10] [--seeds 1,2,3,4,5] [--orders 16]
           [--fill squares] [--cap SECONDS] [--estimate PATHS]

For each planted board (as `cpsolve generate tiles --border 0 --labels 17 --frame-labels 5`) the
search for one solution (the run's symmetry breaking, the fill order alone, not raced) is made
once with the candidates in the engine's order and then `--orders - 1` times with each bucket of
the candidate tables shuffled (numpy's generator, seeded 1, 2, ...). Restarts (or a portfolio of
random orders) pay only where these placements are heavy-tailed: where most orders find the
solution early and a few very late, a search cut off and begun again in another order wins. Where
the solution sits at a uniformly random point of a tree of fixed size, the mean is about the
median and half the tree is the expected cost whatever is restarted. Printed per board: the
placements of each order, then min, median, mean and max, and mean / median. `--estimate N`
also prints Knuth's estimate of the whole search (`TilesSearch.estimate`, N random paths, three
seeds of the estimate), against which half is the expected cost of any order.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from cpsolve.engines.base import Part, breaking_parts
from cpsolve.engines.tiles_dfs import STEP_BUDGET, TilesEngine, TilesSearch
from cpsolve.formats import read_puzzle
from cpsolve.symmetry import choose_breaking

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tiles_search import planted


def shuffled_candidates(search: TilesSearch, parts: list[Part], seed: int) -> None:
    """Each bucket of every candidate table the parts' plans use, put in a random order in place:
    the search reads the tables `tables()` keeps, so it then tries the candidates in that order."""
    for part in parts:
        search.plan([search.place_and_orientation[atom][0] for atom in part.forced])
    start, stop, table = search.tables()
    generator = np.random.default_rng(seed)
    for first, last in zip(start.ravel().tolist(), stop.ravel().tolist(), strict=True):
        if last - first > 1:
            table[first:last] = generator.permutation(table[first:last])


def placements_to_first(search: TilesSearch, parts: list[Part], cap: float) -> tuple[int, bool]:
    """Placements until the first solution (the parts one after the other), and whether it was
    found within `cap` seconds."""
    started = time.perf_counter()
    placements = 0
    for part in parts:
        for solutions, steps in search.run(part, STEP_BUDGET, 1):
            placements += steps
            if solutions:
                return placements, True
            if time.perf_counter() - started > cap:
                return placements, False
    return placements, False


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--boards", default="10x10")
    parser.add_argument("--seeds", default="1,2,3,4,5")
    parser.add_argument("--orders", type=int, default=16, help="value orders per board, the engine's first")
    parser.add_argument("--fill", default="squares", help="the fill order (of cpsolve.engines.tiles_dfs.order)")
    parser.add_argument("--labels", type=int, default=17)
    parser.add_argument("--frame-labels", type=int, default=5)
    parser.add_argument("--cap", type=float, default=60.0)
    parser.add_argument("--estimate", type=int, default=0, help="random paths of Knuth's estimate (0: none)")
    args = parser.parse_args()
    TilesEngine().load()
    with tempfile.TemporaryDirectory() as temporary:
        for board in filter(None, args.boards.split(",")):
            for seed in (int(seed) for seed in args.seeds.split(",")):
                path = planted(board, args.labels, args.frame_labels, seed, Path(temporary))
                puzzle, _ = read_puzzle(str(path)).model()
                tiles = puzzle.edge_matching()
                assert tiles is not None
                parts = breaking_parts(choose_breaking(puzzle.group, puzzle.breaking_candidates))
                if args.estimate:
                    search = TilesSearch(tiles, args.fill, race_order=args.fill)
                    roots = [part.forced[0] for part in parts]
                    estimates = [search.estimate(roots, args.estimate, seed) for seed in (1, 2, 3)]
                    print(f"{path.name}: the whole search estimated at {', '.join(f'{e:.2g}' for e in estimates)}")
                found: list[int] = []
                for order in range(args.orders):
                    search = TilesSearch(tiles, args.fill, race_order=args.fill)
                    if order:
                        shuffled_candidates(search, parts, order)
                    placements, finished = placements_to_first(search, parts, args.cap)
                    print(f"{path.name} order {order}: {placements:,} placements{'' if finished else ' (cut off)'}")
                    if finished:
                        found.append(placements)
                if len(found) < args.orders:
                    print(f"{path.name}: {args.orders - len(found)} of {args.orders} orders cut off at {args.cap:g} s")
                if found:
                    mean, median = statistics.mean(found), statistics.median(found)
                    print(
                        f"{path.name}: min {min(found):,} median {median:,.0f} mean {mean:,.0f} max {max(found):,}"
                        f" mean/median {mean / median:.2f}"
                    )


if __name__ == "__main__":
    main()
