"""The lowest-cell exact-cover search: the tables cover_kernel.py reads.

It takes every cover problem (any number of cells, optional cells and holes, copies, ranges,
groups): cells are bits in the family's fill order and the search fills the lowest open one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, NamedTuple

import numpy as np

from cpsolve import native
from cpsolve.engines.base import Spill
from cpsolve.models import CoverProblem
from cpsolve.symmetry import Solution
from cpsolve.workers import Sharing

from .bits import BIT_OF, NO_COUNTS
from .fewest_codes import LAST_COPY, OPTIONAL_PHASE

FEWEST = 1  # CoverSearch.choose: fill the open cell the fewest placements fit (fewest_kernel.py)
LOWEST_CELL = 0  # fill the lowest open cell (cover_kernel.py)


def _bits(ranks: Any, words: int) -> Any:
    """The given cell ranks as one bit board of `words` 64-bit words."""
    board = np.zeros(words, np.uint64)
    given = np.asarray(ranks, np.int64)
    np.bitwise_or.at(board, given // 64, np.left_shift(np.uint64(1), (given % 64).astype(np.uint64)))
    return board


def _fill_rank(problem: CoverProblem) -> Any:
    """Each cell's rank in fill order, and -1 at index -1, so that the atoms' padding (-1) looks
    itself up: one look-up of a whole atom array, not four passes (0.03 s on 76,000 atoms)."""
    rank = np.empty(problem.cells + 1, np.int64)
    rank[list(problem.fill_order)] = np.arange(problem.cells)
    rank[-1] = -1
    return rank


# Placements per slice of a fewest-placements part that may hand work back: a slice of a 9x9x9
# design (thousands of kills a placement) then takes milliseconds, not the whole search.
SHARING_STEP_BUDGET = 20_000
# Placements per slice of a search begun in this process that may hand the rest to workers
# (Spill): its `due` is asked between slices, so a slice should take milliseconds, as above.
SPILL_STEP_BUDGET = SHARING_STEP_BUDGET
# The fewest-placements kernel keeps its counts before each level's placement (levels x columns)
# where that is at most this many entries (32 MB), and else undoes kill by kill.
SNAPSHOT_ENTRIES = 4_000_000
# Board words past which the lowest-cell search is not used: it holds every placement as a full
# board (placements x words) and copies and scans a board per placement, so 46x46x46 monocubes
# (1,521 words) needed 1.2 GB and 2.1 s for the boards and 3 s a slice; the fewest-placements search
# holds placements by their cells and stopped that run at its 3 s limit.
WIDEST_LOWEST_CELL = 64
# Board words a lowest-cell slice's budget is given for: a slice of a wider board gets fewer
# placements, each costing a board's copy and scan, so every slice takes about as long.
BUDGET_WORDS = 4
# Columns (cells and pieces) a fewest-placements slice's budget is given for: that search scans
# every column to choose one per placement, so a slice of 98,304 rhombic monovoxels was the whole
# 5.5 s search, past a 3 s limit, until wider problems got fewer placements a slice.
BUDGET_COLUMNS = 256
FILLED_OPTIONAL = 16  # optional cells the pieces fill at least, from which the fewest-placements search takes them


def fills_optional(problem: CoverProblem) -> bool:
    """Whether the pieces fill at least FILLED_OPTIONAL optional cells whatever the solution (the
    optional cells less the most that may stay empty). The lowest-cell search decides each optional
    cell it reaches, filled or empty, and the fewest-placements search never branches on them but
    costs about 20 times as much a placement, so it pays where pieces must go into many of them.
    Measured (placements and seconds of the enumeration, lowest-cell against fewest, under the
    breaking a run takes; optional cells filled at least): CubeInCage 20,859 (0.205 s) against 582
    (0.007 s; 32 filled), Dracula 80,000 against 220 (616), PelikanBurr 20,408 against 49 (52),
    Prisgon 567,917 (0.039 s) against 145 (0.003 s; 47); twelve pentominoes in 6x11 with both end
    columns optional (6 filled) the other way: 131.9 million placements, 14.1 s, against more than
    21 s for a ninth of the solutions."""
    return bool(problem.optional) and len(problem.optional) - problem.most_empty >= FILLED_OPTIONAL


# One slice of a compiled search: (the depth it starts at, its budget of placements) -> (the depth
# it stopped at, -1 once the part is searched; the solutions it wrote; the placements it made)
SearchSlice = Callable[[int, int], tuple[int, int, int]]


def in_slices(
    search_slice: SearchSlice,
    solutions_of: Callable[[int], list[Solution]],
    budget: int,
    spill: Spill | None = None,
    rest: Callable[[int], list[tuple[int, ...]] | None] | None = None,
    between: Callable[[int], None] | None = None,
) -> Iterator[tuple[list[Solution], int]]:
    """The one loop of every compiled search (the box, bit-parallel, lowest-cell and
    fewest-placements searches): slices of at most `budget` placements until the part is searched,
    each slice's solutions (`solutions_of` the rows it wrote) and placements handed over. With
    `spill`, the slices are shorter and once it is due the part stops and leaves in `spill.rest`
    the keys of what it had not searched (`rest` of the depth it stopped at; where that is None it
    goes on); `between` is called between two slices (a forked worker's hand-back)."""
    if spill is not None:
        budget = min(budget, SPILL_STEP_BUDGET)
        spill.begin()
    depth = 0
    while depth >= 0:
        depth, written, steps = search_slice(depth, budget)
        yield solutions_of(written), steps
        if depth < 0:
            return
        if spill is not None and rest is not None and spill.due():
            spill.rest = rest(depth)
            if spill.rest is not None:
                return
        if between is not None:
            between(depth)


def found_solutions(forced: list[int], found: Any, found_length: Any, written: int) -> list[Solution]:
    """The solutions a compiled slice wrote (both searches' kernels write rows the same way): each
    row's atoms with the part's forced ones, sorted."""
    if written == 0:
        return []
    lengths = found_length[:written]
    width = int(lengths.max())
    rows = found[:written, :width]  # a row is as long as the board has cells
    uniform = bool((lengths == width).all())
    if not uniform:  # past its length a row holds what an earlier solution left: sorted after the rest
        rows = np.where(np.arange(width) < lengths[:, None], rows, np.iinfo(np.int64).max)
    if forced:
        rows = np.hstack([np.broadcast_to(np.array(forced, np.int64), (written, len(forced))), rows])
    listed = np.sort(rows, axis=1).tolist()  # one sort of them all: 7,202 solutions of 32 atoms 0.027 -> 0.016 s
    if uniform:
        return list(map(tuple, listed))
    total = (lengths + len(forced)).tolist()
    return [tuple(row[:length]) for row, length in zip(listed, total, strict=True)]


class FewestColumns(NamedTuple):
    """The cover problem as fewest_kernel.search reads it: a column per cell (by fill rank) and
    then one per piece (cells + piece); the kernel counts no optional cell's placements (on 9x9x9
    designs whose inside may stay empty 92 % of the placements' cells are optional)."""

    atom_start: Any  # int64: atom a's columns are atom_columns[atom_start[a] : atom_start[a + 1]]: first
    atom_columns: Any  # int32    those it is counted in (its cells that must be filled in its row's
    #                             order, then its piece's column), then its optional cells
    counted_start: Any  # int32: the counted columns again, packed (all that a kill reads): atom a has
    counted_columns: Any  # int32   counted_start[a + 1] - counted_start[a] of them
    column_start: Any  # int64: column c's atoms are column_atoms[column_start[c] : column_start[c + 1]],
    column_atoms: Any  # int32    in increasing order (a piece's: those on optional cells only last)
    run_end: Any  # int32: where the run of one piece's atoms that an entry of column_atoms is in ends
    optional: Any  # bool, per cell
    once: Any  # bool, per piece: used exactly once (its column is chosen like a cell's)
    optional_only: Any  # bool, per atom: it lies on optional cells only (in no cell's column: never
    #                     killed, checked when tried); empty where none is left unkilled


@dataclass(frozen=True)
class CoverSearch:
    """The cover problem as the compiled search reads it: cells as bits in fill order."""

    problem: CoverProblem
    ranks: Any  # int64, atoms x longest piece: each atom's cells by fill rank, padded with -1
    target: Any  # uint64 words: every cell of the target
    optional: Any  # uint64 words: the cells that may stay empty
    least: Any
    most: Any
    group_of: Any  # group of each piece, -1 for none
    group_most: Any
    group_spare: Any  # most minus least of each group
    max_holes: int
    # FEWEST where the family asks for it (CoverProblem.fewest_first) or pieces fill many optional
    # cells (fills_optional), without piece groups; else LOWEST_CELL.
    choose: int

    @staticmethod
    def of(problem: CoverProblem) -> CoverSearch:
        words = max(1, (problem.cells + 63) // 64)
        rank = _fill_rank(problem)
        ranks = rank[problem.atom_cells]
        least = np.array([low for low, _ in problem.piece_bounds], np.int64)
        most = np.array([high for _, high in problem.piece_bounds], np.int64)
        group_of = np.array(problem.piece_group or [-1] * len(least), np.int64)
        group_most = np.array([high for _, high in problem.group_bounds], np.int64)
        group_spare = np.array([high - low for low, high in problem.group_bounds], np.int64)
        fewest = problem.fewest_first or fills_optional(problem) or words > WIDEST_LOWEST_CELL
        return CoverSearch(
            problem,
            ranks,
            _bits(range(problem.cells), words),
            _bits(rank[sorted(problem.optional)], words),
            least,
            most,
            group_of,
            group_most,
            group_spare,
            len(problem.optional) if problem.max_holes is None else problem.max_holes,
            FEWEST if fewest and not problem.piece_group else LOWEST_CELL,
        )

    @cached_property
    def masks(self) -> Any:
        """Each atom's cells as a bit board (uint64, atoms x words), for the lowest-cell search;
        the fewest-placements search never makes them (0.03-0.05 s on a 9x9x9 design)."""
        ranks = self.ranks
        masks = np.zeros((self.problem.atoms, self.target.shape[0]), np.uint64)
        for column in range(ranks.shape[1]):  # an atom's cells are apart: no (atom, word) twice in a column
            present = np.flatnonzero(ranks[:, column] >= 0)
            bits = ranks[present, column]
            masks[present, bits // 64] |= np.left_shift(np.uint64(1), (bits % 64).astype(np.uint64))
        return masks

    @cached_property
    def atom_must(self) -> Any:
        """Each atom's cells that must be filled (the lowest-cell search's room check)."""
        by_rank = np.unpackbits(self.optional.astype("<u8").view(np.uint8), bitorder="little")[: self.problem.cells]
        optional = np.append(by_rank.astype(bool), True)  # the last entry: the rows' padding (-1)
        return np.ascontiguousarray((~optional[self.ranks]).sum(axis=1), np.int64)

    @cached_property
    def volume(self) -> Any:
        """Each piece's cells (0 for a piece without placements)."""
        volume = np.zeros(len(self.least), np.int64)
        volume[self.problem.atom_piece] = (self.ranks >= 0).sum(axis=1)
        return volume

    def start(self, forced: Sequence[int]) -> tuple[Any, Any, Any] | None:
        """Board, copies left and group allowance left once the forced placements are made; None
        when they clash or use more than there is."""
        board = np.zeros(self.target.shape[0], np.uint64)
        left = self.most.copy()
        group_left = self.group_most.copy()
        for atom in forced:
            cells = self.ranks[atom]
            mask = _bits(cells[cells >= 0], board.shape[0])
            if (mask & board).any():
                return None
            board |= mask
            piece = self.problem.atom_piece[atom]
            left[piece] -= 1
            if self.group_of[piece] >= 0:
                group_left[self.group_of[piece]] -= 1
        if (left < 0).any() or (group_left < 0).any():
            return None
        return board, left, group_left

    def run(
        self,
        forced: Sequence[int],
        left_out: frozenset[int],
        budget: int,
        capacity: int,
        spill: Spill | None = None,
        sharing: Sharing | None = None,
    ) -> Iterator[tuple[list[Solution], int]]:
        """The part's solutions in slices of at most `budget` placements: (solutions, placements).
        With `spill`, the part stops once `spill.due()` and leaves the keys of what it has not
        searched in `spill.rest` (`_rest`, `_lowest_rest`); with `sharing` (a forked worker's,
        cpsolve.workers; the fewest-placements search only) it hands work back to an idle worker."""
        if self.choose == FEWEST:
            yield from self._run_fewest(forced, left_out, budget, capacity, spill, sharing)
            return
        search = native.kernel(native.COVER_SEARCH)

        started = self.start(forced)
        if started is None:
            return
        board, left, group_left = started
        problem = self.problem
        starts, candidates = self._candidates(left_out | set(forced))
        placeable = np.bincount(problem.atom_piece[candidates], minlength=len(left)) > 0
        if ((left > self.most - self.least) & ~placeable).any():
            return  # a piece that must still be placed has no placement left: no solution here
        depth_limit = problem.cells + 1  # each level fills a cell or leaves one empty
        boards = np.zeros((depth_limit + 1, board.shape[0]), np.uint64)
        boards[0] = board
        cells = np.full(depth_limit + 1, -1, np.int64)
        positions = np.zeros(depth_limit + 1, np.int64)
        chosen = np.full(depth_limit + 1, -1, np.int64)
        holes = np.zeros(1, np.int64)
        most_atoms = min(depth_limit, int(np.minimum(self.most, problem.cells).sum()))  # pieces, not cells
        found = np.zeros((capacity, most_atoms), np.int64)
        found_length = np.zeros(capacity, np.int64)
        fixed = list(forced)
        budget = max(1, budget * BUDGET_WORDS // max(BUDGET_WORDS, board.shape[0]))
        counts = (self.atom_must, self.volume) if self.problem.optional else (NO_COUNTS, NO_COUNTS)

        def search_slice(depth: int, budget: int) -> tuple[int, int, int]:
            result: tuple[int, int, int] = search(
                self.masks,
                problem.atom_piece,
                starts,
                candidates,
                self.target,
                self.optional,
                self.least,
                self.most,
                self.group_of,
                self.group_spare,
                self.max_holes,
                BIT_OF,
                left,
                group_left,
                holes,
                boards,
                cells,
                positions,
                chosen,
                depth,
                budget,
                found,
                found_length,
                *counts,
            )
            return result

        def rest(depth: int) -> list[tuple[int, ...]] | None:
            key = fixed[len(problem.forced) :]
            return self._lowest_rest(key, starts, candidates, boards, cells, positions, chosen, depth)

        yield from in_slices(
            search_slice, lambda written: found_solutions(fixed, found, found_length, written), budget, spill, rest
        )

    def _lowest_rest(
        self,
        key: Sequence[int],
        starts: Any,
        candidates: Any,
        boards: Any,
        cells: Any,
        positions: Any,
        chosen: Any,
        depth: int,
    ) -> list[tuple[int, ...]] | None:
        """The keys of parts that together search exactly what the lowest-cell part of `key` had
        left when its slice ended at `depth`: for each level down to `depth`, the candidates of
        its cell not yet tried that fit the board there, each with the placements made above it
        (every solution below a level holds exactly one placement of its cell), shallowest
        first. None where a cell left empty is made or still to try: a key names placements
        only."""
        path = chosen[:depth].tolist()
        if -1 in path:
            return None
        rest: list[tuple[int, ...]] = []
        for level in range(depth + 1):
            cell = int(cells[level])
            if cell < 0:  # only where the slice ended before choosing the cell: that whole node
                rest.append((*key, *path[:level]))
                break
            end = int(starts[cell + 1])
            if positions[level] <= end and (self.optional[cell // 64] >> np.uint64(cell % 64)) & np.uint64(1):
                return None  # leaving it empty is still to try
            untried = candidates[int(positions[level]) : end]
            fits = ~(self.masks[untried] & boards[level]).any(axis=1)  # a used-up piece's make no search
            rest.extend((*key, *path[:level], atom) for atom in untried[fits].tolist())
        return rest

    def first_choices(self, forced: Sequence[int], left_out: frozenset[int]) -> list[int] | None:
        """The placements that fit the lowest open cell once `forced` are made, when that cell must
        be filled (every solution of the part then holds exactly one of them); None when the board
        is full or the cell may stay empty."""
        lowest_undecided = native.kernel(native.COVER_LOWEST_UNDECIDED)

        started = self.start(forced)
        if started is None:
            return []
        board, left, group_left = started
        if self.choose == FEWEST:
            return self._fewest_choices(forced, left_out)
        cell = lowest_undecided(board, self.target, BIT_OF)
        if cell < 0 or (self.optional[cell // 64] >> np.uint64(cell % 64)) & np.uint64(1):
            return None
        starts, candidates = self._candidates(left_out | set(forced))
        choices = []
        for atom in candidates[starts[cell] : starts[cell + 1]].tolist():
            piece = self.problem.atom_piece[atom]
            group = self.group_of[piece]
            if (self.masks[atom] & board).any() or left[piece] == 0 or (group >= 0 and group_left[group] == 0):
                continue
            choices.append(atom)
        return choices

    @cached_property
    def atom_min_rank(self) -> Any:
        """The lowest fill rank among each atom's cells: only the lowest-cell search reads it
        (made for every search, it was 5-8 ms of a 9x9x9 design's run, which never reads it)."""
        return np.where(self.ranks >= 0, self.ranks, self.problem.cells).min(axis=1)

    def _candidates(self, left_out: frozenset[int] | set[int]) -> tuple[Any, Any]:
        """For each cell (by fill rank), the atoms whose lowest cell it is, as one flat array."""
        usable = np.ones(self.problem.atoms, bool)
        if left_out:
            usable[list(left_out)] = False
        atoms = np.nonzero(usable)[0]
        atoms = atoms[np.argsort(self.atom_min_rank[atoms], kind="stable")]
        counts = np.bincount(self.atom_min_rank[atoms], minlength=self.problem.cells + 1)
        starts = np.concatenate(([0], np.cumsum(counts)))
        return starts.astype(np.int64), atoms.astype(np.int64)

    # -- the fewest-placements search (fewest_kernel.py) ------------------------------------------

    @cached_property
    def _lists(self) -> FewestColumns:
        """The columns of fewest_kernel.search (made by its `column_lists`)."""
        problem = self.problem
        optional = np.zeros(problem.cells, np.bool_)
        optional[_fill_rank(problem)[sorted(problem.optional)]] = True
        atoms = problem.atoms
        entries = int(np.count_nonzero(self.ranks >= 0)) + atoms  # each atom's cells and its piece's column
        # The long arrays (1.6 million entries on a 9x9x9 design) as int32: half the memory the
        # kernel reads at random, 12 % off its search there (p40: 1.55 -> 1.36 s).
        columns = FewestColumns(
            atom_start=np.empty(atoms + 1, np.int64),
            atom_columns=np.empty(entries, np.int32),
            counted_start=np.empty(atoms + 1, np.int32),
            counted_columns=np.empty(entries, np.int32),
            column_start=np.empty(problem.cells + len(self.least) + 1, np.int64),
            column_atoms=np.empty(entries, np.int32),
            run_end=np.empty(entries, np.int32),
            optional=optional,
            once=(self.least == 1) & (self.most == 1),
            optional_only=np.empty(atoms, np.bool_),
        )
        packed = native.kernel(native.FEWEST_COLUMN_LISTS)(
            np.ascontiguousarray(self.ranks, np.int64),
            np.ascontiguousarray(problem.atom_piece, np.int64),
            optional,
            columns.atom_start,
            np.empty(atoms, np.int64),  # where each atom's counted columns end: the kernel's own use
            columns.atom_columns,
            columns.column_start,
            columns.column_atoms,
            columns.run_end,
            columns.counted_start,
            columns.counted_columns,
            columns.optional_only,
        )
        listed = int(columns.column_start[-1])
        return columns._replace(
            counted_columns=columns.counted_columns[:packed].copy(),
            column_atoms=columns.column_atoms[:listed].copy(),
            run_end=columns.run_end[:listed].copy(),
            optional_only=columns.optional_only if columns.optional_only.any() else np.zeros(0, np.bool_),
        )

    def _fewest_state(self, forced: Sequence[int], left_out: frozenset[int]) -> _FewestStart | None:
        """The kernel's state for a part: the state once the problem's own forced atoms are placed
        (copied from the one made for these `left_out`) and the part's other atoms, which the
        kernel places as its first levels."""
        prefix = tuple(self.problem.forced)
        if tuple(forced[: len(prefix)]) != prefix:
            prefix = ()
        base = self._fewest_base(prefix, left_out)
        if base is None:
            return None
        alive, count, decided, left = (array.copy() for array in base)
        return _FewestStart(alive, count, decided, left, list(prefix), np.array(forced[len(prefix) :], np.int64))

    def _fewest_base(self, forced: tuple[int, ...], left_out: frozenset[int]) -> tuple[Any, ...] | None:
        """Alive atoms, cell counts, decided cells and copies left once `forced` are placed, kept
        for the last `left_out` asked (the parts of a run share it, or that of their kept atom)."""
        cached = self._fewest_bases.get((forced, left_out))
        if cached is not None:
            return cached
        started = self.start(forced)
        if started is None:
            return None
        board, left, _ = started
        columns = self._lists
        cells = self.problem.cells
        decided = ((board[np.arange(cells) // 64] >> (np.arange(cells) % 64).astype(np.uint64)) & np.uint64(1)) == 1
        filled = np.append(decided, False)  # the padding (-1) looks up the last: never filled
        alive = ~filled[self.ranks].any(axis=1) & (left[self.problem.atom_piece] > 0)
        if left_out:
            alive[list(left_out)] = False
        count = np.empty(len(columns.column_start) - 1, np.int64)
        native.kernel(native.FEWEST_LIVE_COUNTS)(alive, columns.counted_start, columns.counted_columns, count)
        self._fewest_bases.clear()
        self._fewest_bases[(forced, left_out)] = (alive, count, decided, left)
        return alive, count, decided, left

    @cached_property
    def _fewest_bases(self) -> dict[tuple[tuple[int, ...], frozenset[int]], tuple[Any, ...]]:
        return {}

    def _fewest_levels(self, capacity: int) -> _FewestLevels:
        """The kernel's arrays per level and for the solutions of one slice."""
        problem = self.problem
        depth_limit = problem.cells + 1  # each level fills a cell (a part's forced levels too)
        most_atoms = min(depth_limit, int(np.minimum(self.most, problem.cells).sum()))
        return _FewestLevels(
            np.full(depth_limit + 1, -1, np.int64),
            np.zeros(depth_limit + 1, np.int64),
            np.full(depth_limit + 1, -1, np.int64),
            np.zeros(depth_limit + 1, np.int64),
            np.zeros(problem.atoms, np.int64),
            np.zeros(1, np.int64),
            np.zeros((capacity, most_atoms), np.int64),
            np.zeros(capacity, np.int64),
            self._count_snapshots(most_atoms + 1),
        )

    def _count_snapshots(self, levels: int) -> Any:
        """Room for the kernel's counts before each level's placement (no level places more than
        `levels` atoms), or none where that would pass SNAPSHOT_ENTRIES: the kernel then raises
        the counts kill by kill when it undoes a placement."""
        columns = self.problem.cells + len(self.least)
        rows = levels if levels * columns <= SNAPSHOT_ENTRIES else 0
        return np.zeros((rows, columns), np.int64)

    def _fewest_slice(
        self, start: _FewestStart, levels: _FewestLevels, depth: int, budget: int
    ) -> tuple[int, int, int]:
        """One call of the kernel: (depth, solutions written, placements)."""
        search = native.kernel(native.FEWEST_SEARCH)

        columns = self._lists
        result: tuple[int, int, int] = search(
            columns.atom_start,
            columns.counted_start,
            columns.counted_columns,
            columns.atom_columns,
            columns.column_start,
            columns.column_atoms,
            columns.run_end,
            self.problem.atom_piece,
            columns.optional,
            columns.once,
            self.least,
            self.most,
            self.max_holes,
            start.alive,
            start.count,
            start.decided,
            start.left,
            levels.stack,
            levels.top,
            levels.cells,
            levels.positions,
            levels.chosen,
            levels.marks,
            depth,
            budget,
            levels.found,
            levels.found_length,
            start.forced,
            levels.saved,
            columns.optional_only,
        )
        return result

    def _run_fewest(
        self,
        forced: Sequence[int],
        left_out: frozenset[int],
        budget: int,
        capacity: int,
        spill: Spill | None,
        sharing: Sharing | None = None,
    ) -> Iterator[tuple[list[Solution], int]]:
        """The part's solutions slice by slice. In a forked worker whose stream takes work back
        (`sharing`, cpsolve.workers.Sharing), the slices are shorter and, after each, while another worker
        waits with nothing queued, the part hands back the untried placements of its shallowest
        level that has some (`_hand_back`). With `spill`, once it is due, the part stops and
        leaves all it has not searched as parts (`_rest`)."""
        start = self._fewest_state(forced, left_out)
        if start is None:
            return
        levels = self._fewest_levels(capacity)
        columns = self.problem.cells + len(self.least)  # each placement's choice scans them all
        budget = max(1, budget * BUDGET_COLUMNS // max(BUDGET_COLUMNS, columns))
        step = budget if sharing is None else min(budget, SHARING_STEP_BUDGET)

        def hand_back(depth: int) -> None:
            if sharing is not None and sharing.wanted():
                keys = self._hand_back(start, levels, depth)
                if keys:
                    sharing.give(keys)

        # with `spill`, its clock starts once the part's tables are made (on a 9x9x9 design 0.03 s)
        yield from in_slices(
            lambda depth, budget: self._fewest_slice(start, levels, depth, budget),
            lambda written: found_solutions(start.held, levels.found, levels.found_length, written),
            step,
            spill,
            lambda depth: self._rest(start, levels, depth),
            hand_back if sharing is not None else None,
        )

    def _rest(self, start: _FewestStart, levels: _FewestLevels, depth: int) -> list[tuple[int, ...]] | None:
        """The keys of parts that together search exactly what the part had left when its slice
        ended at `depth`: for each level from the part's own first to `depth`, the entries of its
        column not yet tried that were live at that level, each with the placements made above it
        (or, where `depth` has not chosen its column yet, the placements made: that whole node).
        Shallowest first: the largest parts. None where a level of the last phase (placements on
        optional cells in increasing order) is among them: a part cannot start there."""
        columns = self._lists
        path = (*start.held, *levels.chosen[:depth].tolist())[len(self.problem.forced) :]
        made_before = len(start.held) - len(self.problem.forced)  # path[: made_before + level] is above `level`
        killed_at = np.full(len(start.alive), -1, np.int64)  # where on the kill stack each atom is
        top = int(levels.top[0])
        killed_at[levels.stack[:top]] = np.arange(top)
        rest: list[tuple[int, ...]] = []
        for level in range(len(start.forced), depth + 1):
            column = int(levels.cells[level])
            if level == depth and column == -1:
                rest.append(path)
                break
            if column == OPTIONAL_PHASE:
                return None
            if column <= LAST_COPY:
                column = LAST_COPY - column
            untried = columns.column_atoms[int(levels.positions[level]) : int(columns.column_start[column + 1])]
            live = start.alive[untried]
            if level < depth:  # killed by the placement made at this level or below: live here
                live |= killed_at[untried] >= levels.marks[level]
            above = path[: made_before + level]
            rest.extend((*above, int(atom)) for atom in untried[live].tolist())
        return rest

    def _hand_back(self, start: _FewestStart, levels: _FewestLevels, depth: int) -> list[tuple[int, ...]]:
        """The keys of the parts that the untried live placements of the shallowest level below
        `depth` (in the part's own search, not its given atoms) that has some would search, each
        the placements made above that level and one of them; the level is then closed, so the
        part no longer searches them. Every solution of the part stays in exactly one place: the
        level's placements all cover its column. Nothing where a level of the last phase (adding
        placements on optional cells in increasing order) comes first. A placement on optional
        cells only is handed back as it is (never killed, it is checked by the part that tries it)."""
        columns = self._lists
        killed_below: Any = None
        for level in range(len(start.forced), depth):
            column = int(levels.cells[level])
            if column < 0:
                return []
            end = int(columns.column_start[column + 1])
            untried = columns.column_atoms[int(levels.positions[level]) : end]
            if not len(untried):
                continue
            if killed_below is None:  # alive at a level: alive now, or killed by a placement at or below it
                killed_below = np.zeros(len(start.alive), np.int32)
            killed_below[levels.stack[int(levels.marks[level]) : int(levels.top[0])]] = 1
            live = untried[start.alive[untried] | (killed_below[untried] == 1)]
            killed_below[:] = 0
            if not len(live):
                continue
            levels.positions[level] = end
            made = (*start.held, *levels.chosen[:level].tolist())[len(self.problem.forced) :]
            return [(*made, int(atom)) for atom in live.tolist()]
        return []

    def _fewest_choices(self, forced: Sequence[int], left_out: frozenset[int]) -> list[int] | None:
        """The live atoms of the column the kernel decides first once `forced` are placed (every
        solution of the part holds exactly one of them): the kernel places the part's atoms and
        stops as it has chosen. None where they complete a solution or leave only optional cells."""
        start = self._fewest_state(forced, left_out)
        if start is None:
            return []
        floor = len(start.forced)
        levels = self._fewest_levels(1)
        depth = 0
        while True:
            depth, written, _ = self._fewest_slice(start, levels, depth, max(0, floor - depth))
            if written:
                return None  # the part's atoms are a solution
            if depth < 0:
                return []
            if depth == floor:
                break
        column = int(levels.cells[floor])
        if column < 0:
            return None  # the last phase: placements on optional cells only
        columns = self._lists
        atoms = columns.column_atoms[columns.column_start[column] : columns.column_start[column + 1]]
        return [int(atom) for atom in self._placeable(atoms, start)]

    def _placeable(self, atoms: Any, start: _FewestStart) -> Any:
        """Those of `atoms` that may be placed in the state `start` is in: alive, and where one
        lies on optional cells only (never killed), a copy of its piece left and its cells open,
        as the kernel checks it."""
        alive = atoms[start.alive[atoms]]
        unkilled = self._lists.optional_only
        if not len(unkilled):
            return alive
        open_cell = np.append(~start.decided, True)  # the rows' padding (-1) looks up the last
        fits = open_cell[self.ranks[alive]].all(axis=1) & (start.left[self.problem.atom_piece[alive]] > 0)
        return alive[fits | ~unkilled[alive]]


@dataclass(frozen=True)
class _FewestStart:
    """Where the fewest-placements kernel starts a part: its state once the problem's own forced
    atoms (`held`, added to every solution) are placed, and the part's atoms it places first."""

    alive: Any
    count: Any
    decided: Any
    left: Any
    held: list[int]
    forced: Any  # int64: the part's atoms beyond `held`


@dataclass(frozen=True)
class _FewestLevels:
    """The kernel's arrays: per level (column, next entry, atom placed, stack height), the kill
    stack and its height, the solutions of one slice, and the counts before each level's
    placement (or no rows)."""

    cells: Any
    positions: Any
    chosen: Any
    marks: Any
    stack: Any
    top: Any
    found: Any
    found_length: Any
    saved: Any
