"""The exact-cover search on a box of at most 128 cells: the tables box_kernel.py reads.

Chosen over the lowest-cell search (cover_kernel.py) wherever it takes the problem. Where the
target extends in all three directions it fills the cell with the fewest open neighbours, which
cut the Bedlam cube's search from 878 to 68 million placements (benchmarks/exact_cover_search.py);
in 2-D the lowest open cell, in the same tree as the lowest-cell search but at half its time (pentominoes 6x10). It
takes packings with at most 64 pieces and no piece groups; copies, ranges, optional cells (a
hole is one more choice at such a cell) and pre-placed pieces are fine.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from cpsolve import native
from cpsolve.arrays import stable_order
from cpsolve.engines.base import Spill
from cpsolve.models import CoverProblem
from cpsolve.symmetry import Solution

from .bits import BIT_OF, BOX_BITS, NO_COUNTS
from .cover_search import found_solutions, in_slices

MAX_PIECES = 64  # the pieces left are one 64-bit word
MAX_ENTRIES = 4_000_000  # list entries (placement, cell, open neighbours): 32 MB
CHOOSE_AMONG = 8  # cells with the fewest open neighbours compared by fitting placements (box_kernel.py says why)
LOWEST = 0  # `choose` for the lowest open cell
EVERY_OPEN_CELL = 1 << 10  # `choose`: every open cell compared, and the pieces used exactly once (box_kernel.py)
HOLE = -1  # a choice that leaves an optional cell empty
ESTIMATE = 10  # where `state` keeps Knuth's estimate
DEAD_END_ROWS = 1 << 17  # boards kept as leading to no solution (box_kernel.py): 3 MB a part


class KeptDeadEnds:
    """The dead-end rows the last part searched in this process left, for the next part that
    leaves out the same placements (what lies below a board does not depend on what was placed
    first). Taken, not shared, so that two threads never write one table; given back when a part
    ends. Not pickled: a cluster's worker starts with none."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._kept: tuple[frozenset[int], Any] | None = None

    def take(self, left_out: frozenset[int]) -> Any | None:
        """The rows kept for `left_out` (None where none are), no longer kept here."""
        with self._lock:
            kept, self._kept = self._kept, None
        return kept[1] if kept is not None and kept[0] == left_out else None

    def keep(self, left_out: frozenset[int], rows: Any) -> None:
        with self._lock:
            self._kept = (left_out, rows)

    def __getstate__(self) -> dict[str, Any]:
        return {}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__()  # type: ignore[misc]  # a new, empty one where it is unpickled


@dataclass(frozen=True)
class Layout:
    """Where each target cell lies on the board: box-linear, the shortest side fastest."""

    bit_of_cell: Any  # int64 per cell of the problem
    strides: Any  # int64 per direction the box extends in: +1, -1, +width, -width, ...
    valid: Any  # uint64 (directions, 2): target cells whose neighbour that way is a target cell
    target: Any  # uint64 (2,)
    three_d: bool

    @staticmethod
    def of(positions: Sequence[tuple[int, int, int]]) -> Layout | None:
        """The layout, or None when the bounding box holds more than 128 cells."""
        points = np.asarray(positions, np.int64).reshape(-1, 3)
        low = points.min(axis=0)
        size = points.max(axis=0) - low + 1
        if int(np.prod(size)) > BOX_BITS:
            return None
        fastest_first = sorted(range(3), key=lambda axis: (int(size[axis]), axis))
        axis_stride = np.zeros(3, np.int64)
        step = 1
        for axis in fastest_first:
            axis_stride[axis] = step
            step *= int(size[axis])
        bits = (points - low) @ axis_stride
        in_target = np.zeros(BOX_BITS + 1, bool)
        in_target[bits] = True
        strides, valid = [], []
        for axis in fastest_first:
            if size[axis] == 1:
                continue
            coordinate = points[:, axis] - low[axis]
            for sign in (1, -1):
                inside = (coordinate + sign >= 0) & (coordinate + sign < size[axis])
                neighbour = np.where(inside, bits + sign * axis_stride[axis], BOX_BITS)
                strides.append(sign * int(axis_stride[axis]))
                valid.append(_words(bits[in_target[neighbour]]))
        return Layout(
            bits,
            np.array(strides, np.int64),
            np.array(valid, np.uint64).reshape(-1, 2),
            _words(bits),
            three_d=bool((size > 1).all()),
        )


def _words(bits: Any) -> Any:
    """The given bit positions (below 128) as a board of two 64-bit words."""
    board = np.zeros(2, np.uint64)
    bits = np.asarray(bits, np.int64)
    np.bitwise_or.at(board, bits >> 6, np.left_shift(np.uint64(1), (bits & 63).astype(np.uint64)))
    return board


@dataclass(frozen=True)
class Tables:
    """The placement lists of one part: `entries[offsets[g]:offsets[g + 1]]` for group g =
    (cell * lists + open neighbours) * pieces + piece; `nonempty[key]` has the pieces with some."""

    offsets: Any
    nonempty: Any
    entries: Any
    longest: int


@dataclass(frozen=True)
class BoxSearch:
    problem: CoverProblem
    layout: Layout
    choose: int
    mask_low: Any
    mask_high: Any
    keys: Any  # sorted group of each list entry
    entry_atoms: Any  # the placement of each list entry
    least: Any
    most: Any
    optional: Any  # uint64 (2,): the cells that may stay empty
    max_holes: int  # how many of them may, at most
    dead_end_rows: int  # the rows a part's search keeps boards that lead to no solution in (0: none)
    # what this process's last part left (a copy made with dataclasses.replace starts with none)
    kept: KeptDeadEnds = field(default_factory=KeptDeadEnds, init=False, compare=False, repr=False)

    @staticmethod
    def of(problem: CoverProblem, choose: int) -> BoxSearch | None:
        """The tables for the search (`choose`: LOWEST, CHOOSE_AMONG or EVERY_OPEN_CELL), or None when the problem
        is not one this search takes or its lists would be too large."""
        pieces = len(problem.piece_bounds)
        if problem.piece_group or pieces > MAX_PIECES or not problem.positions:
            return None
        layout = Layout.of(problem.positions)
        if layout is None:
            return None
        bits = _bits_of(layout, problem.atom_cells)
        masks = _masks(bits)
        atoms, cells = _pairs(bits, choose)
        near, reach = _neighbourhood(layout, masks, atoms, cells)
        lists = 1 << len(layout.strides)
        if int(np.sum(np.left_shift(1, _popcount(reach) - _popcount(near)))) > MAX_ENTRIES:
            return None
        keys, entry_atoms = _listed(cells, atoms, near, reach & ~near, problem.atom_piece, lists, pieces)
        most = np.array([high for _, high in problem.piece_bounds], np.int64)
        return BoxSearch(
            problem,
            layout,
            choose,
            np.ascontiguousarray(masks[:, 0]),
            np.ascontiguousarray(masks[:, 1]),
            keys,
            entry_atoms,
            np.array([low for low, _ in problem.piece_bounds], np.int64),
            most,
            _words(layout.bit_of_cell[sorted(problem.optional)]),
            problem.most_empty,
            DEAD_END_ROWS if choose == LOWEST and pieces < MAX_PIECES and most.max(initial=0) <= 1 else 0,
        )

    @property
    def pieces(self) -> int:
        return len(self.problem.piece_bounds)

    @cached_property
    def tables(self) -> Tables:
        """The placement lists, built once: a part leaves placements out by their masks instead
        (`masks_without`), as rebuilding the lists for each of a small puzzle's parts took longer
        than its search (the yass corpus: 0.8 s of lists against 0.06 s of search)."""
        keys, atoms = self.keys, self.entry_atoms
        if self.problem.excluded:
            keep = np.ones(self.problem.atoms, bool)
            keep[list(self.problem.excluded)] = False
            chosen = keep[atoms]
            keys, atoms = keys[chosen], atoms[chosen]
        lists = BOX_BITS * (1 << len(self.layout.strides))
        sizes = np.bincount(keys, minlength=lists * self.pieces)
        offsets = np.concatenate(([0], np.cumsum(sizes)))
        used = np.nonzero(sizes)[0]
        nonempty = np.zeros(lists, np.uint64)
        bits = np.left_shift(np.uint64(1), (used % self.pieces).astype(np.uint64))
        np.bitwise_or.at(nonempty, used // self.pieces, bits)
        longest = int(sizes.reshape(lists, self.pieces).sum(axis=1).max(initial=1))  # the keys of a list, all pieces
        return Tables(offsets.astype(np.int32), nonempty, atoms.astype(np.int32), max(longest, 1))

    def masks_without(self, left_out: frozenset[int] | set[int]) -> tuple[Any, Any]:
        """The placements' masks with those left out covering the whole box: on a board that
        holds anything (a part always has its kept atom placed) they never fit."""
        banned = list(set(left_out) - self.problem.excluded)  # those are not in the lists at all
        if not banned:
            return self.mask_low, self.mask_high
        low, high = self.mask_low.copy(), self.mask_high.copy()
        low[banned] = ~np.uint64(0)
        high[banned] = ~np.uint64(0)
        return low, high

    def kernel_tables(self, left_out: frozenset[int] | set[int] = frozenset()) -> tuple[Any, ...]:
        """What box_kernel.search reads, in its order."""

        layout, tables = self.layout, self.tables
        mask_low, mask_high = self.masks_without(left_out)
        return (
            (0,) if layout.target[1] == 0 else (0, 0),  # its length: how many words the board needs
            layout.target,
            self.optional,
            self.max_holes,
            (0,) if self.max_holes > 0 else (),  # its length: whether holes are searched at all
            layout.strides,
            layout.valid,
            self.choose,
            mask_low,
            mask_high,
            self.problem.atom_piece,
            tables.offsets,
            tables.nonempty,
            tables.entries,
            self.least,
            self.most,
            BIT_OF,
            self.islands,
            *self.piece_lists,
            (0,) if self.choose == EVERY_OPEN_CELL else (),  # its length: whether every open cell is compared
            *((self.atom_must, self.volume) if self.max_holes > 0 else (NO_COUNTS, NO_COUNTS)),
        )

    @cached_property
    def atom_must(self) -> Any:
        """Each placement's cells that must be filled (the kernel's room check where cells may stay empty)."""
        layout = self.layout
        must = np.array([layout.target[0] & ~self.optional[0], layout.target[1] & ~self.optional[1]], np.uint64)
        return _set_bits(self.mask_low & must[0]) + _set_bits(self.mask_high & must[1])

    @cached_property
    def volume(self) -> Any:
        """Each piece's cells (0 for a piece without placements)."""
        volume = np.zeros(self.pieces, np.int64)
        volume[self.problem.atom_piece] = _set_bits(self.mask_low) + _set_bits(self.mask_high)
        return volume

    @cached_property
    def islands(self) -> Any:
        """Which pieces can fill a cell apart from the other open cells (uint64 piece sets, BOX_BITS x
        7), for the lowest-cell search to end a branch at once where one is left that none of the
        pieces left can fill, instead of going on until it reaches that cell. Column 0: the pieces
        with a placement on the cell that covers none of its neighbours (its neighbours all closed);
        column 1 + d: those with a placement on the cell that covers none of its neighbours and
        none of its neighbour's in direction d but those two (the two cells each other's only open
        neighbour). A piece of two cells or more that holds together never fills a cell alone,
        nor one of three cells two. Other choices compare the cells with fewest open neighbours
        first and so meet such a cell at once: they get zeros, never read."""
        islands = np.zeros((BOX_BITS, 7), np.uint64)
        if self.choose != LOWEST:
            return islands
        atoms, cells = _pairs(_bits_of(self.layout, self.problem.atom_cells), EVERY_OPEN_CELL)
        masks = np.stack((self.mask_low, self.mask_high), axis=1)
        near, reach = _neighbourhood(self.layout, masks, atoms, cells)
        piece_bits = np.left_shift(np.uint64(1), self.problem.atom_piece[atoms].astype(np.uint64))
        alone = near == 0
        np.bitwise_or.at(islands[:, 0], cells[alone], piece_bits[alone])
        for direction, stride in enumerate(self.layout.strides.tolist()):
            partner = np.clip(cells + stride, 0, BOX_BITS - 1)
            partner_near, _ = _neighbourhood(self.layout, masks, atoms, partner)
            back = direction ^ 1  # the strides come in pairs, +s then -s
            paired = (
                ((reach >> direction) & 1).astype(bool)
                & (near & ~(1 << direction) == 0)
                & (partner_near & ~(1 << back) == 0)
            )
            np.bitwise_or.at(islands[:, 1 + direction], cells[paired], piece_bits[paired])
        return islands

    @cached_property
    def piece_lists(self) -> tuple[Any, Any, Any]:
        """For EVERY_OPEN_CELL, which also branches on a piece: each piece's placements
        (`atoms[starts[p]:starts[p + 1]]`) and the pieces every solution uses exactly once (a
        64-bit set), the only ones whose placements may be branched on. Empty for other choices."""
        if self.choose != EVERY_OPEN_CELL:
            return np.zeros(self.pieces + 1, np.int64), np.zeros(0, np.int32), np.zeros(1, np.uint64)
        atoms = np.arange(self.problem.atoms)
        if self.problem.excluded:
            atoms = atoms[~np.isin(atoms, np.array(sorted(self.problem.excluded), np.int64))]  # no numpy.ma
        pieces = self.problem.atom_piece[atoms]
        order = np.argsort(pieces, kind="stable")
        starts = np.concatenate(([0], np.cumsum(np.bincount(pieces, minlength=self.pieces))))
        once = sum(1 << p for p, bounds in enumerate(self.problem.piece_bounds) if bounds == (1, 1))
        return starts.astype(np.int64), atoms[order].astype(np.int32), np.array([once], np.uint64)

    def start(self, forced: Sequence[int]) -> tuple[Any, Any] | None:
        """The board and the copies left once the forced placements are made; None if they clash."""
        board = np.zeros(2, np.uint64)
        left = self.most.copy()
        for atom in forced:
            mask = np.array([self.mask_low[atom], self.mask_high[atom]], np.uint64)
            if (mask & board).any():
                return None
            board |= mask
            left[self.problem.atom_piece[atom]] -= 1
        if (left < 0).any():
            return None
        return board, left

    def _state(self, board: Any, left: Any, longest: int = 0, dead_ends: Any = None) -> tuple[Any, ...]:
        longest = max(self.tables.longest, longest)
        return state(self.problem.cells, longest, self.choose, board, left, _piece_set(left), dead_ends)

    def _dead_ends_for(self, left_out: frozenset[int]) -> Any:
        """The rows a part's search keeps its dead ends in (None: it keeps none): those the last
        part searched in this process left, if it left out the same placements (the finer parts
        of one kept atom do: `ExactCoverPrepared.part_keys`), for what lies below a board does
        not depend on what was placed first; else empty. Taken, not shared, so that two threads
        never write one table."""
        if self.dead_end_rows == 0:
            return None
        kept = self.kept.take(left_out)
        return kept if kept is not None else np.zeros((self.dead_end_rows, 3), np.uint64)

    def run(
        self, forced: Sequence[int], left_out: frozenset[int], budget: int, capacity: int, spill: Spill | None = None
    ) -> Iterator[tuple[list[Solution], int]]:
        """The part's solutions in slices of at most `budget` placements: (solutions, placements).
        With `spill`, the part stops once `spill.due()` and leaves the keys of what it has not
        searched in `spill.rest` (`_rest`; where a cell left empty is among them it goes on)."""
        search = native.kernel(native.BOX_SEARCH)

        started = self.start(forced)
        if started is None:
            return
        if set(left_out) - self.problem.excluded and not started[0].any():
            raise ValueError("a part that leaves placements out must place some first")
        arguments = self.kernel_tables(left_out)
        dead_ends = self._dead_ends_for(left_out)
        work = self._state(*started, dead_ends=dead_ends)
        found = np.zeros((capacity, self.problem.cells + 1), np.int64)
        found_length = np.zeros(capacity, np.int64)
        fixed = list(forced)
        try:
            yield from in_slices(
                lambda depth, budget: search(arguments, work, depth, budget, 0, found, found_length),
                lambda written: found_solutions(fixed, found, found_length, written),
                budget,
                spill,
                lambda depth: self._rest(fixed[len(self.problem.forced) :], work, depth),
            )
        finally:  # a board kept is one searched to its end, so even a part cut short leaves them true
            if dead_ends is not None:
                self.kept.keep(left_out, dead_ends)

    def _rest(self, key: Sequence[int], work: tuple[Any, ...], depth: int) -> list[tuple[int, ...]] | None:
        """The keys of parts that together search exactly what the part of `key` had left when
        its slice ended at `depth`: for each level down to `depth`, the placements of its list
        not yet tried, each with the placements made above it (every solution below a level holds
        exactly one placement of its list: they are all that fit the cell or piece chosen there),
        shallowest first. None where a cell left empty is made or still to try: a key names
        placements only."""
        fits, fit_count, slots, positions, chosen = work[3:8]
        path = chosen[:depth].tolist()
        if HOLE in path:
            return None
        rest: list[tuple[int, ...]] = []
        for level in range(depth + 1):
            untried = fits[level, slots[level], positions[level] : max(int(fit_count[level]), 0)].tolist()
            if HOLE in untried:
                return None
            rest.extend((*key, *path[:level], atom) for atom in untried)
        return rest

    def first_choices(self, forced: Sequence[int], left_out: frozenset[int]) -> list[int] | None:
        """The placements that fit the cell the search fills first once `forced` are made: every
        solution of the part holds exactly one of them. None when the board is already full."""
        search = native.kernel(native.BOX_SEARCH)

        started = self.start(forced)
        if started is None:
            return []
        board, left = started
        if ((self.layout.target & ~board) == 0).all():
            return None
        work = self._state(board, left)
        found = np.zeros((1, self.problem.cells + 1), np.int64)
        search(self.kernel_tables(left_out), work, 0, 0, 0, found, np.zeros(1, np.int64))
        fits, fit_count, slots = work[3], work[4], work[5]
        choices = [int(a) for a in fits[0, slots[0], : max(int(fit_count[0]), 0)]]
        return None if HOLE in choices else choices  # a part is the placements it makes

    def estimate(self, roots: Sequence[int], probes: int, seed: int = 1) -> float:
        """Placements of the search that first places one of `roots` (say, each kept placement of
        the breaking piece, a part each), from `probes` random paths (Knuth; see box_kernel)."""
        search = native.kernel(native.BOX_SEARCH)

        started = self.start(self.problem.forced)
        if started is None or probes <= 0:
            return 0.0
        board, left = started
        pieces = self.problem.atom_piece
        fitting = [
            atom
            for atom in roots
            if left[pieces[atom]] > 0 and not (board & [self.mask_low[atom], self.mask_high[atom]]).any()
        ]
        if not fitting:
            return 0.0
        work = self._state(board, left, len(fitting))
        fits, fit_count, estimate = work[3], work[4], work[ESTIMATE]
        fits[0, 0, : len(fitting)] = fitting
        fit_count[0] = len(fitting)
        estimate[1] = seed
        found = np.zeros((1, self.problem.cells + 1), np.int64)
        search(self.kernel_tables(), work, 0, 2**62, probes, found, np.zeros(1, np.int64))
        return float(estimate[0]) / probes

    def estimate_part(self, forced: Sequence[int], left_out: frozenset[int], probes: int, seed: int = 1) -> float:
        """Placements of a part's search (`forced` made, `left_out` banned), from random paths."""
        search = native.kernel(native.BOX_SEARCH)

        started = self.start(forced)
        if started is None or probes <= 0:
            return 0.0
        work = self._state(*started)
        work[ESTIMATE][1] = seed
        found = np.zeros((1, self.problem.cells + 1), np.int64)
        search(self.kernel_tables(left_out), work, 0, 2**62, probes, found, np.zeros(1, np.int64))
        return float(work[ESTIMATE][0]) / probes


def state(
    cells: int, longest: int, choose: int, board: Any, left: Any, pieces_left: int, dead_ends: Any = None
) -> tuple[Any, ...]:
    """Fresh state for box_kernel.search (see there): per depth the boards, the lists of fitting
    placements (and room for a hole after them) and where the search is in them; the copies
    left; the holes made; the boards known to lead nowhere (`dead_ends`, rows of three words, a
    power of two of them; None: none kept, as for the estimates' random paths); scratch space."""
    depth_limit = cells + 1
    boards = np.zeros((depth_limit + 1, 2), np.uint64)
    boards[0] = board
    return (
        left.copy(),
        np.array([pieces_left], np.uint64),
        boards,
        np.zeros((depth_limit + 1, 2, longest + 1), np.int32),  # fits
        np.full(depth_limit + 1, -1, np.int64),  # fit_count
        np.zeros(depth_limit + 1, np.int64),  # slots
        np.zeros(depth_limit + 1, np.int64),  # positions
        np.zeros(depth_limit + 1, np.int64),  # chosen
        np.zeros((6, 2), np.uint64),  # toward: open cells whose neighbour that way is open
        np.zeros(max(choose, 1), np.int64),  # candidates
        np.zeros(2, np.float64),  # estimate: the sum and the random generator's state
        np.zeros(depth_limit + 1, np.int64),  # cell_at: the cell chosen at each depth
        np.zeros(1, np.int64),  # holes
        np.zeros((0, 3), np.uint64) if dead_ends is None else dead_ends,  # low, high, pieces left | tag
        np.zeros(depth_limit + 1, np.int64),  # found_before: solutions found before each depth's board
        np.zeros(1, np.int64),  # found_total
    )


def _bits_of(layout: Layout, padded: Any) -> Any:
    """Each placement's cells as board bits, padded with -1 as the cells are."""
    return np.where(padded >= 0, layout.bit_of_cell[np.maximum(padded, 0)], -1)


def _masks(bits: Any) -> Any:
    """Each placement's cells as a board of two 64-bit words (placements x 2), from the bit of
    each of its cells (-1: none): each word one OR over the row (the OR of a column at a
    time by `np.bitwise_or.at` took 0.5 ms of a 4x4x4 design candidate's tables)."""
    covered = bits >= 0
    at = np.where(covered, bits, 0)
    ones = np.left_shift(np.uint64(1), (at & 63).astype(np.uint64))
    masks = np.zeros((bits.shape[0], 2), np.uint64)
    for word in range(2):
        masks[:, word] = np.bitwise_or.reduce(np.where(covered & (at >> 6 == word), ones, np.uint64(0)), axis=1)
    return masks


def _piece_set(left: Any) -> int:
    return sum(1 << piece for piece, copies in enumerate(left.tolist()) if copies > 0)


def _pairs(bits: Any, choose: int) -> tuple[Any, Any]:
    """(placement, cell) for every cell a placement covers, or only its lowest for LOWEST."""
    if choose == LOWEST:
        lowest = np.where(bits >= 0, bits, BOX_BITS).min(axis=1)
        return np.arange(bits.shape[0], dtype=np.int64), lowest
    atoms, columns = np.nonzero(bits >= 0)
    return atoms.astype(np.int64), bits[atoms, columns]


def _listed(cells: Any, atoms: Any, near: Any, free: Any, atom_piece: Any, lists: int, pieces: int) -> tuple[Any, Any]:
    """The placement lists' keys, sorted, and each entry's placement: a placement is listed at a
    cell for every set of open neighbours that holds the neighbours it covers (`near`), the
    covered ones plus any subset of the others (`free`). By the build's kernel where one is
    loaded (box_kernel.placement_lists), else by array operations; the same arrays either way."""
    compiled = native.built_kernel(native.BOX_LISTS)
    if compiled is not None:
        arrays = (cells, atoms, near, free, atom_piece, _SUBSETS, _SUBSETS_START, _SET_SIZE)
        keys, entry_atoms = compiled(*(np.ascontiguousarray(array, np.int64) for array in arrays), lists, pieces)
        return keys, entry_atoms
    counts = np.left_shift(1, _popcount(free))
    pair = np.repeat(np.arange(len(cells)), counts)
    within = np.arange(len(pair)) - np.repeat(np.cumsum(counts) - counts, counts)
    open_near = near[pair] | _SUBSETS[_SUBSETS_START[free[pair]] + within]
    all_atoms = atoms[pair]
    all_keys = (cells[pair] * lists + open_near) * pieces + atom_piece[all_atoms]
    # stable: atoms of one key stay in their order on every machine (numpy's default sort breaks
    # ties by its version and the CPU's vector unit, which moved the Tetris cube's breaking choice)
    order = stable_order(all_keys)
    return all_keys[order], all_atoms[order]


def _neighbourhood(layout: Layout, masks: Any, atoms: Any, cells: Any) -> tuple[Any, Any]:
    """For each pair, the directions in which the placement covers the cell's neighbour too, and
    the directions in which the cell has a neighbour in the target at all (bit d: direction d).
    By the build's kernel where one is loaded (box_kernel.neighbourhood), else by array operations."""
    compiled = native.built_kernel(native.BOX_NEIGHBOURHOOD)
    if compiled is not None:
        near_and_reach: tuple[Any, Any] = compiled(
            np.ascontiguousarray(cells, np.int64),
            np.ascontiguousarray(atoms, np.int64),
            np.ascontiguousarray(masks, np.uint64),
            layout.valid,
            layout.strides,
        )
        return near_and_reach
    near = np.zeros(len(cells), np.int64)
    reach = np.zeros(len(cells), np.int64)
    word, bit = cells >> 6, (cells & 63).astype(np.uint64)
    for direction, stride in enumerate(layout.strides.tolist()):
        has = (layout.valid[direction][word] >> bit) & np.uint64(1)
        neighbour = np.clip(cells + stride, 0, BOX_BITS - 1)
        covered = (masks[atoms, neighbour >> 6] >> (neighbour & 63).astype(np.uint64)) & np.uint64(1)
        reach |= has.astype(np.int64) << direction
        near |= (has & covered).astype(np.int64) << direction
    return near, reach


_SET_SIZE = np.array([bin(directions).count("1") for directions in range(64)], np.int64)
# every subset of each set of (at most six) directions, the subsets of set f at _SUBSETS_START[f]
_SUBSETS = np.array([sub for whole in range(64) for sub in range(64) if sub & ~whole == 0], np.int64)
_SUBSETS_START = np.concatenate(([0], np.cumsum(np.left_shift(1, _SET_SIZE))[:-1]))


def _popcount(direction_sets: Any) -> Any:
    """How many directions each set (at most six bits) holds."""
    return _SET_SIZE[direction_sets]


def _set_bits(words: Any) -> Any:
    """The set bits of each uint64 word (int64)."""
    return (
        np.unpackbits(np.ascontiguousarray(words, "<u8").view(np.uint8).reshape(-1, 8), axis=1)
        .sum(axis=1)
        .astype(np.int64)
    )
