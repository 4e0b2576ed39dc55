"""The tiles engine (`tiles-dfs`): edge-matching boards filled place by place, compiled (numba).

Why an engine of its own: CP-SAT needs a boolean per label on every edge and spends tens of
microseconds on each decision, so it finds a planted 8x8 board in about a second and no 10x10
within a minute. A backtracker that looks each place's candidates up by the labels already fixed
around it places a tile in tens of nanoseconds (benchmarks/tiles_search.py), which is how the
edge-matching community's solvers work.

It takes the model's `edge_matching()` and the same symmetry breaking as CP-SAT: the search is
split into parts, one per kept atom of the first breaking set, whose tile is placed first; the
atoms the breaking leaves out are banned. It hands the same solutions (sorted atoms) to the same
classifier. The fill order is chosen by measurement (`ORDERS`, docs/engines.md).
"""

from __future__ import annotations

import functools
import heapq
import itertools
import sys
from collections.abc import Generator, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from cpsolve import native
from cpsolve.engines.base import (
    Capabilities,
    Engine,
    Enumeration,
    Part,
    PartKey,
    PartsInSlices,
    Prepared,
    SearchEstimator,
    SearchOptions,
    breaking_parts,
)
from cpsolve.limits import NO_DEADLINE, Deadline
from cpsolve.models import EdgeMatching, PuzzleModel
from cpsolve.symmetry import Breaking, Solution
from cpsolve.workers import DONE, Sharing, Workers

from .order import DEFAULT_ORDER, RACE_ORDER, fill_order, mirrored_orders

MAX_LABELS = 255  # the tables hold (labels + 1)^2 entries per pair of keyed sides
MAX_TABLE_ENTRIES = 16_000_000  # an orientation sits in one bucket per pair of labels its keyed sides fit
STEP_BUDGET = 1_000_000  # placements per compiled call: 20-40 ms, so the clock and Ctrl-C are seen within 0.1 s
FOUND_CAPACITY = 1024
SEARCH = "tiles search"  # the key of the model's search in `PuzzleModel.derived`
# placements below which the breaking set is not chosen by estimate: choosing took 0.02 s on 5x5
# and 6x6 boards, about what the search makes a million placements in
WORTH_CHOOSING = 2_000_000
# boards of fewer places are searched whole in milliseconds, and the first estimate alone cost the
# c't 3x3 boards a millisecond (0.0059 -> 0.0071 s)
FEWEST_PLACES_TO_ESTIMATE = 20
TOP, RIGHT, BOTTOM, LEFT = range(4)


RACE_PLACES = 100  # boards from this many places race a search for one solution on every core


class TilesEngine(Engine):
    name = "tiles-dfs"
    takes_what = f"edge-matching tiles with at most {MAX_LABELS} labels (and pairs rules of few partners)"
    required_module = "numba"
    extra = "tiles-dfs"

    def __init__(self) -> None:
        self.loaded = False

    def load(self, puzzle: PuzzleModel | None = None, every_variant: bool = False) -> None:
        """Load the compiled search: the build `cpsolve compile` made (cpsolve.native), else numba's
        (the very first use after installing compiles it into numba's cache, a few seconds, once)."""
        if self.loaded:
            return
        board = EdgeMatching(
            columns=1,
            rows=1,
            labels=1,
            shown=np.zeros((1, 4), np.int64),
            orientation_kind=np.zeros(1, np.int64),
            kind_copies=np.ones(1, np.int64),
            fits=np.ones((1, 1), np.bool_),
            on_border=np.ones(1, np.bool_),
            atom_of=np.zeros((1, 1), np.int64),
        )
        search = TilesSearch(board)
        list(TilesEnumeration(search, [Part((), frozenset())], SearchOptions()))
        search.estimate([0], 1)
        self.loaded = True

    def takes(self, puzzle: PuzzleModel, auto: bool = False) -> bool:
        board = puzzle.edge_matching()
        return board is not None and board.labels <= MAX_LABELS and table_entries(board) <= MAX_TABLE_ENTRIES

    def prepare(self, puzzle: PuzzleModel, breaking: Breaking | None, deadline: Deadline = NO_DEADLINE) -> Prepared:
        search = _search_of(puzzle)
        if search is None:
            raise ValueError(f"{puzzle.name}: not an edge-matching board")
        return TilesPrepared(self, puzzle, breaking, search)

    def search_estimator(self, puzzle: PuzzleModel) -> SearchEstimator | None:
        """Knuth's estimate on the tiles search, to choose the breaking set for counting: which
        tile's parts make the smallest search varies by board (the 6x6 frame board: 38.7 to 60.5
        million placements over its three corner tiles, 43.6 to 59.1 over others), and a search
        for one solution races other orders than the one estimated, so it keeps the fewest kept
        atoms (a corner tile in its corner)."""
        search = _search_of(puzzle)
        if search is None or search.board.places < FEWEST_PLACES_TO_ESTIMATE:
            return None
        return SearchEstimator(search.estimate, steady=True, for_first=False, worth_choosing=WORTH_CHOOSING)


def _search_of(puzzle: PuzzleModel) -> TilesSearch | None:
    """The model's search, made once and kept with the model (choosing the breaking and preparing
    the run both ask for it); None when the model is not an edge-matching board."""
    if SEARCH not in puzzle.derived:
        board = puzzle.edge_matching()
        puzzle.derived[SEARCH] = None if board is None else TilesSearch(board)
    search: TilesSearch | None = puzzle.derived[SEARCH]
    return search


def table_entries(board: EdgeMatching) -> int:
    """At most how many entries one table of two keyed sides holds: under a `pairs` rule a side
    fitting k labels puts its orientation in k buckets, so a rule where every label fits every
    other would make the tables quadratic in the labels (CP-SAT takes such boards)."""
    partners = int(board.fits.sum(axis=1).max(initial=0)) + 1  # and the wall
    return int(board.shown.shape[0]) * partners * partners


class AtomPlaces(Mapping[int, tuple[int, int]]):
    """Each atom's (place, orientation) on the board, read from arrays: a run asks for a few (its
    part's tiles), and a dictionary of all (5,748 on the planted 8x8 board) took a millisecond."""

    def __init__(self, atom_of: Any) -> None:
        places, orientations = np.nonzero(atom_of >= 0)
        atoms = atom_of[places, orientations]
        size = int(atoms.max()) + 1 if len(atoms) else 0
        self.place = np.full(size, -1, np.int64)
        self.orientation = np.full(size, -1, np.int64)
        self.place[atoms] = places
        self.orientation[atoms] = orientations

    def __getitem__(self, atom: int) -> tuple[int, int]:
        if not 0 <= atom < len(self.place) or self.place[atom] < 0:
            raise KeyError(atom)
        return int(self.place[atom]), int(self.orientation[atom])

    def __iter__(self) -> Iterator[int]:
        return iter(np.flatnonzero(self.place >= 0).tolist())

    def __len__(self) -> int:
        return int((self.place >= 0).sum())


@dataclass(frozen=True)
class Plan:
    """How one part is searched: the places in fill order and, per depth, which fixed sides pick
    the candidates (`combo`, `key_*`) and which are checked after (`check_*`)."""

    order: Any
    combo: Any
    key_side: Any
    key_place: Any
    check_side: Any
    check_place: Any


class TilesSearch:
    """The board compiled: the candidate tables for each pair of keyed sides, built when first
    needed, and the plan of each part."""

    def __init__(
        self, board: EdgeMatching, order_name: str = DEFAULT_ORDER, grow: bool = True, race_order: str = RACE_ORDER
    ) -> None:
        """`order_name` for enumerating, `race_order` for a search for one solution (its images are
        raced); `grow=False` (the fill order as it stands after a part's own tiles) only to measure
        what growing the board around them is worth (benchmarks/tiles_search.py)."""
        self.board = board
        self.order_name = order_name
        self.race_order = race_order
        self.grow = grow
        self.base_order = fill_order(order_name, board.columns, board.rows)
        columns, rows = board.columns, board.rows
        self.raced_orders = mirrored_orders(fill_order(race_order, columns, rows), columns, rows)
        wall = board.labels
        self.fits = np.zeros((wall + 1, wall + 1), np.bool_)
        self.fits[:wall, :wall] = board.fits
        self.fits[:wall, wall] = board.on_border
        self.fits[wall, :wall] = board.on_border
        self.combos: dict[tuple[int, int], int] = {}
        self._plans_from: dict[int, Plan] = {}
        self._buckets: list[tuple[Any, Any]] = []  # per combo: (start, stop) into its own entries
        self._entries: list[Any] = []
        self._tables: tuple[Any, Any, Any] | None = None
        # the plans read neighbours one at a time: as lists, not numpy scalars (a plan 0.75 ms)
        self._neighbour_lists: list[list[int]] = board.neighbours.tolist()
        self.place_and_orientation = AtomPlaces(board.atom_of)

    # -- plans --------------------------------------------------------------------------------

    def plan(self, first_places: Sequence[int], base: Sequence[int] | None = None) -> Plan:
        """The fill order (`base`, default the engine's) with `first_places` (a part's pre-placed
        tiles) first, and per depth the fixed sides: a neighbour placed earlier, or the board's edge
        where a border label is set. Sides facing a neighbour key the table before the wall, being
        the more selective."""
        base = self.base_order if base is None else base
        order = self.ordered_after(first_places, base) if self.grow else self._plain_after(first_places, base)
        depth_of = {place: depth for depth, place in enumerate(order)}
        depths = len(order)
        combo = np.zeros(depths, np.int64)
        key_side = np.full((depths, 2), -1, np.int64)
        key_place = np.full((depths, 2), -1, np.int64)
        check_side = np.full((depths, 2), -1, np.int64)
        check_place = np.full((depths, 2), -1, np.int64)
        neighbours = self._neighbour_lists
        for depth, place in enumerate(order):
            inner, outer = [], []
            for side in range(4):
                neighbour = neighbours[place][side]
                if neighbour >= 0 and depth_of[neighbour] < depth:
                    inner.append((side, neighbour))
                elif neighbour < 0 and not self.board.border_free:
                    outer.append((side, -1))
            fixed = inner + outer
            keys, checks = sorted(fixed[:2]), fixed[2:]
            for k, (side, neighbour) in enumerate(keys):
                key_side[depth, k], key_place[depth, k] = side, neighbour
            for k, (side, neighbour) in enumerate(checks):
                check_side[depth, k], check_place[depth, k] = side, neighbour
            combo[depth] = self._combo(tuple(side for side, _ in keys))
        return Plan(np.array(order, np.int64), combo, key_side, key_place, check_side, check_place)

    def _plain_after(self, first_places: Sequence[int], base: Sequence[int]) -> list[int]:
        first = [*dict.fromkeys(first_places)]
        return first + [p for p in base if p not in set(first)]

    def ordered_after(self, first_places: Sequence[int], base: Sequence[int]) -> list[int]:
        """`first_places`, then again and again the empty place with the most fixed sides (filled
        neighbours, and the wall where a border label is set), the fill order breaking ties.

        With a part's tile in a corner of a bordered board this is the row scan itself; with it in
        the middle of a board without border (where the symmetry breaking puts it), the board
        grows around it instead of starting from a far corner with no side fixed.
        """
        rank = {place: n for n, place in enumerate(base)}
        walls = 0 if self.board.border_free else 1
        fixed = [walls * sum(n < 0 for n in near) for near in self._neighbour_lists]
        order = [*dict.fromkeys(first_places)]
        filled = set(order)
        waiting = [(-fixed[p], rank[p], p) for p in range(self.board.places) if p not in filled]
        for place in order:
            self._fix_neighbours(place, filled, fixed, rank, waiting)
        heapq.heapify(waiting)
        while waiting:
            minus_fixed, _, place = heapq.heappop(waiting)
            if place in filled or -minus_fixed != fixed[place]:
                continue  # filled already, or an entry from before more of its sides were fixed
            order.append(place)
            filled.add(place)
            self._fix_neighbours(place, filled, fixed, rank, waiting)
        return order

    def _fix_neighbours(
        self, place: int, filled: set[int], fixed: list[int], rank: dict[int, int], waiting: list[tuple[int, int, int]]
    ) -> None:
        for neighbour in self._neighbour_lists[place]:
            if neighbour >= 0 and neighbour not in filled:
                fixed[neighbour] += 1
                heapq.heappush(waiting, (-fixed[neighbour], rank[neighbour], neighbour))

    def _combo(self, sides: tuple[int, ...]) -> int:
        """The table of the keyed sides (none, one or two, in side order), built when first asked."""
        padded = (*sides, -1, -1)
        pair = (padded[0], padded[1])
        if pair not in self.combos:
            self.combos[pair] = len(self.combos)
            self._add_table(pair)
            self._tables = None
        return self.combos[pair]

    def _add_table(self, pair: tuple[int, int]) -> None:
        """Bucket every orientation by the labels its keyed sides fit: an orientation whose side
        fits several labels (a `pairs` rule) sits in each of their buckets."""
        size = self.board.labels + 1
        fitting = [np.flatnonzero(self.fits[label]) for label in range(size)]
        buckets: list[list[int]] = [[] for _ in range(size * size)]
        for o, labels in enumerate(self.board.shown.tolist()):
            firsts = fitting[labels[pair[0]]] if pair[0] >= 0 else [0]
            seconds = fitting[labels[pair[1]]] if pair[1] >= 0 else [0]
            for a in firsts:
                for b in seconds:
                    buckets[a * size + b].append(o)
        lengths = np.array([len(bucket) for bucket in buckets], np.int64)
        stop = np.cumsum(lengths)
        self._buckets.append(((stop - lengths).reshape(size, size), stop.reshape(size, size)))
        self._entries.append(np.array([o for bucket in buckets for o in bucket], np.int64))

    def tables(self) -> tuple[Any, Any, Any]:
        """(start, stop, table) over every combo built so far, the entries of all in one array."""
        if self._tables is None:
            offsets = np.cumsum([0, *(len(entries) for entries in self._entries)])
            start = np.stack([s + offset for (s, _), offset in zip(self._buckets, offsets, strict=False)])
            stop = np.stack([s + offset for (_, s), offset in zip(self._buckets, offsets, strict=False)])
            self._tables = (start, stop, np.concatenate(self._entries))
        return self._tables

    # -- running -------------------------------------------------------------------------------

    def race(self, part: Part, step_budget: int) -> Iterator[tuple[list[Solution], int]]:
        """A search for one solution of the part: the part searched in each of `raced_orders` by
        turns, a slice each, until one of them finds a solution (its slice ends there) or ends
        (having searched the whole part: it has none). Slices are counted in placements, not
        time, so a board always ends with the same solution."""
        racing = [self._slices(part, step_budget, 1, order) for order in self.raced_orders]
        while True:
            for search in racing:
                solutions, steps, done = next(search)
                yield solutions, steps
                if done:
                    return

    def race_on(self, runners: Workers, part: Part, step_budget: int) -> Iterator[tuple[list[Solution], int]]:
        """`race` with the orders dealt out to the runners' processes (order k to process k mod n),
        each racing its own by the same turns: of what they report round by round, the solution of
        the earliest round, and in it of the first order, is `race`'s, so the run ends with the
        solution it would end with in one process, only sooner."""
        count = min(runners.workers, len(self.raced_orders))
        groups = [list(range(first, len(self.raced_orders), count)) for first in range(count)]
        stream = runners.stream(functools.partial(self._race_rounds, part, step_budget), groups)
        reported = [-1] * count  # the last round each process reported
        found: list[tuple[int, int, list[Solution]]] = []  # (round, order, its solution)
        try:
            for index, item in stream:
                if item is DONE:
                    reported[index] = sys.maxsize  # it found one (reported before) or the part has none
                    continue
                rounds, order, solutions, steps, exhausted = item
                yield [], steps
                if exhausted:
                    return  # one order searched the whole part: none has a solution to find
                reported[index] = rounds
                if solutions:
                    found.append((rounds, order, solutions))
                if found and min(reported) >= min(found)[0]:
                    yield min(found)[2], 0
                    return
        finally:
            stream.close()  # the other processes stop

    def _race_rounds(
        self, part: Part, step_budget: int, group: list[int]
    ) -> Iterator[tuple[int, int, list[Solution], int, bool]]:
        """One process's share of `race_on`: its orders by turns, a slice each per round, and
        per round (round, the order that found a solution or -1, that solution, placements,
        whether an order ended with nothing found)."""
        searches = [(order, self._slices(part, step_budget, 1, self.raced_orders[order])) for order in group]
        for rounds in itertools.count():
            placements = 0
            for order, search in searches:
                solutions, steps, done = next(search)
                placements += steps
                if solutions or done:
                    yield rounds, order, solutions, placements, not solutions
                    return
            yield rounds, -1, [], placements, False

    def run(
        self, part: Part, step_budget: int, capacity: int, base: Sequence[int] | None = None
    ) -> Iterator[tuple[list[Solution], int]]:
        """Each compiled slice's solutions (sorted atoms) and placements, until the part is done."""
        return ((solutions, steps) for solutions, steps, _ in self._slices(part, step_budget, capacity, base))

    def _slices(
        self, part: Part, step_budget: int, capacity: int, base: Sequence[int] | None
    ) -> Generator[tuple[list[Solution], int, bool], None, None]:
        """`run`'s slices, each with whether the part's search ended with it."""
        fill = native.kernel(native.TILES_FILL)

        board = self.board
        forced = [self.place_and_orientation[a] for a in part.forced]
        plan = self.plan([place for place, _ in forced], base)
        banned = self._banned(forced, part.left_out)
        start, stop, table = self.tables()
        depths = len(plan.order)
        left = board.kind_copies.copy()
        placed = np.zeros((board.places, 4), np.int64)
        cursor = np.full(depths, -1, np.int64)
        stop_at = np.zeros(depths, np.int64)
        chosen = np.full(depths, -1, np.int64)
        found = np.zeros((capacity, depths), np.int64)
        depth = 0
        while depth >= 0:
            depth, written, steps = fill(
                plan.order,
                plan.combo,
                plan.key_side,
                plan.key_place,
                plan.check_side,
                plan.check_place,
                start,
                stop,
                table,
                board.shown,
                board.orientation_kind,
                self.fits,
                banned,
                left,
                placed,
                cursor,
                stop_at,
                chosen,
                depth,
                step_budget,
                found,
            )
            atoms = board.atom_of[plan.order[None, :], found[:written]]
            yield [tuple(sorted(row)) for row in atoms.tolist()], steps, depth < 0

    def _banned(self, forced: list[tuple[int, int]], left_out: Iterable[int]) -> Any:
        """Per place and orientation, whether the part forbids it there: no atom (the border),
        left out, or another than the one forced at a forced place."""
        banned = self.board.atom_of < 0
        for atom in left_out:
            if atom in self.place_and_orientation:
                banned[self.place_and_orientation[atom]] = True
        for place, o in forced:
            kept = banned[place, o]
            banned[place, :] = True
            banned[place, o] = kept
        return banned

    def estimate(self, roots: Sequence[int], probes: int, seed: int = 1) -> float:
        """Placements of the search that first places one of `roots` (each kept atom of a breaking
        set, a part each), from `probes` random paths (Knuth), shared evenly among the roots; the
        paths of a root start from its place and grow the board as its part's search does."""
        probe = native.kernel(native.TILES_PROBE)

        placed = np.zeros((self.board.places, 4), np.int64)
        each = max(1, probes // max(1, len(roots)))
        total = 0.0
        for n, root in enumerate(roots):
            place, o = self.place_and_orientation[root]
            plan = self._plan_from(place)
            start, stop, table = self.tables()  # after the plan, which may ask for a new table
            banned = self._banned([(place, o)], ())
            arrays = (plan.order, plan.combo, plan.key_side, plan.key_place, plan.check_side, plan.check_place)
            shown, kinds, copies = self.board.shown, self.board.orientation_kind, self.board.kind_copies
            total += probe(*arrays, start, stop, table, shown, kinds, self.fits, banned, copies, placed, each, seed + n)
        return total

    def _plan_from(self, place: int) -> Plan:
        """The plan of a part whose one forced tile lies at `place` (kept: roots share places)."""
        if place not in self._plans_from:
            self._plans_from[place] = self.plan([place])
        return self._plans_from[place]

    def first_choices(self, part: Part) -> list[int]:
        """The atoms that may lie at the first place the part's search fills after its own tiles:
        every solution of the part holds exactly one (for splitting parts finer)."""
        forced_places = [self.place_and_orientation[a][0] for a in part.forced]
        place = next(p for p in self.plan(forced_places).order.tolist() if p not in forced_places)
        return [int(atom) for atom in self.board.atom_of[place].tolist() if atom >= 0 and atom not in part.left_out]


class TilesPrepared(Prepared):
    def __init__(self, engine: Engine, puzzle: PuzzleModel, breaking: Breaking | None, search: TilesSearch) -> None:
        super().__init__(engine, puzzle, breaking)
        self.search = search
        raced = f"{len(search.raced_orders)} mirror images of {search.race_order}"
        self.details = {"fill_order": search.order_name, "first_solution_race": raced}

    def enumerate(
        self,
        search: SearchOptions,
        deadline: Deadline = NO_DEADLINE,
        part: PartKey | None = None,
        sharing: Sharing | None = None,
    ) -> Enumeration:
        return TilesEnumeration(self.search, breaking_parts(self.breaking, part), search, deadline)

    def capabilities(self, cores: int) -> Capabilities:
        """It splits by the breaking and races a search for one solution, on every core by default
        from RACE_PLACES places: two planted 10x10 boards took 2.15-2.19 s on one worker and
        1.12-1.25 s on two, the shipped 10x10 0.54 s against 0.35; the 8x8 0.017 s against 0.035,
        where starting the processes costs more than the race saves (docs/measurements.md)."""
        race = cores if self.search.board.places >= RACE_PLACES else 1
        return Capabilities(splits=self.breaking is not None, races=True, race_workers=race)

    def racing(self, search: SearchOptions, deadline: Deadline, runners: Workers) -> Enumeration | None:
        """A search for one solution with the raced orders dealt out to the runners."""
        if not search.first_only:
            return None
        return TilesEnumeration(self.search, breaking_parts(self.breaking), search, deadline, runners)

    def part_keys(self, wanted: int, within: list[PartKey] | None = None) -> list[PartKey]:
        """The kept atoms of the first breaking set (or the whole search, or the parts `within`);
        while they are fewer than `wanted`, each part split further by the tiles that may lie at
        the next place."""
        keys = super().part_keys(wanted, within)
        while keys and len(keys) < wanted:
            finer: list[PartKey] = []
            for key in keys:
                (part,) = breaking_parts(self.breaking, key)
                if len(part.forced) == self.search.board.places:
                    finer.append(key)
                else:
                    finer.extend((*key, atom) for atom in self.search.first_choices(part))
            if len(finer) == len(keys):
                break
            keys = finer
        return keys


class TilesEnumeration(PartsInSlices):
    """The parts one after the other; a search for one solution races the orders (`race`), on
    `runners`' processes where given (`race_on`)."""

    def __init__(
        self,
        tiles: TilesSearch,
        parts: list[Part],
        search: SearchOptions,
        deadline: Deadline = NO_DEADLINE,
        runners: Workers | None = None,
    ) -> None:
        super().__init__(parts, search, deadline)
        self.tiles = tiles
        self.runners = runners
        if runners is not None:
            self.workers = min(runners.workers, len(tiles.raced_orders))

    def slices(self, part: Part) -> Iterator[tuple[list[Solution], int]]:
        if self.search.first_only and self.runners is not None:
            return self.tiles.race_on(self.runners, part, STEP_BUDGET)
        if self.search.first_only:
            return self.tiles.race(part, STEP_BUDGET)
        return self.tiles.run(part, STEP_BUDGET, FOUND_CAPACITY)
