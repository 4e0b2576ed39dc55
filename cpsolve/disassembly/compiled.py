"""The compiled disassembler's Python side: the kernel's arrays (cpsolve.disassembly.kernel), grown
when it asks, and one part's search run in slices, between which the deadline and Ctrl-C are
looked at. Imported only when numba is installed.

The search is the Python one's (cpsolve.disassembly._Search) move for move. Without piece groups
a batch of whole assemblies is one kernel call (`take_apart_batch`: in each the parts split and
taken apart in turn, their moves written as records); with them only the breadth-first expansion
of a part is compiled, and splitting and the groups stay in Python, a few calls a part.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from cpsolve import native
from cpsolve.disassembly import codes
from cpsolve.geometry import Cell
from cpsolve.grids import Grid
from cpsolve.limits import KEPT_GAP_BYTES, KEPT_SHAPE_BYTES, Deadline

PathStep = tuple[int, int, int | None]  # pieces moved (bit mask), step, distance (None: out to infinity)

FIRST_POSITIONS = 64  # rows of a part's position table at first; doubled when the kernel asks
FIRST_MOVES = 1024  # moves of one position at first; doubled likewise
FIRST_RECORDS = 4096  # numbers of take_apart_batch's records at first; doubled likewise
GAP_SLOTS = 1 << 16  # pairs' gaps remembered, at first; grown while it fills, up to MOST_GAP_SLOTS
MOST_GAP_SLOTS = 1 << 19  # then the table starts again empty when half full (results are the same)
SLICE_WORK = 4_000_000  # work units (pair look-ups, union tests) between two looks at the clock: ~10 ms
MOST_PIECES = 62  # pieces as bits of a signed 64-bit word


class Undecided(Exception):
    """A limit (positions, moves of one position, the deadline) stopped the search."""


class Taken(NamedTuple):
    """One assembly taken apart whole: how it ended (codes.APART, STUCK or UNDECIDED), the records
    of its parts' moves where it came apart (None else), the positions it looked at."""

    outcome: int
    records: np.ndarray | None
    positions: int


def _next_power_of_two(value: int) -> int:
    return 1 << max(0, value - 1).bit_length()


class ShapeNumbers:
    """Every kernel's numbers for the pieces' shapes on grids of the same steps, in one process:
    the gaps a kernel remembers are keyed by them, so kernels that share them can share a batch's
    tables and be lent from one disassembler to the next (`KeptKernels`). Numbered under a lock
    (the studio's jobs run on threads); once the shapes' keys pass KEPT_SHAPE_BYTES a new
    numbering starts, and a kernel that meets it forgets its gaps (`CompiledDisassembler.numbered_by`)."""

    def __init__(self) -> None:
        self._numbers: dict[bytes, int] = {}
        self.key_bytes = 0
        self._lock = threading.Lock()

    def number_of(self, key: bytes) -> int:
        with self._lock:
            number = self._numbers.get(key)
            if number is None:
                number = self._numbers[key] = len(self._numbers)
                self.key_bytes += len(key)
            return number


def _step_tables(grid: Grid) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The grid's steps as the kernel reads them: their vectors, the cells a unit passes (per
    kind of cell) and how many."""
    steps = grid.steps
    kinds = max(len(step.passes) for step in steps)
    most_passes = max(len(kind) for step in steps for kind in step.passes)
    vectors = np.array([step.vector for step in steps], np.int64)
    passes = np.zeros((len(steps), kinds, most_passes, 3), np.int64)
    pass_counts = np.zeros((len(steps), kinds), np.int64)
    for s, step in enumerate(steps):
        for k, kind in enumerate(step.passes):
            pass_counts[s, k] = len(kind)
            passes[s, k, : len(kind)] = kind
    return vectors, passes, pass_counts


def _steps_key(tables: tuple[np.ndarray, ...]) -> bytes:
    """What a kernel's gaps depend on besides the shapes: the grid's steps (`_step_tables`)."""
    return b"".join(table.tobytes() + repr(table.shape).encode() for table in tables)


def _distinct(pieces: Sequence[Sequence[Cell]]) -> tuple[list[Sequence[Cell]], np.ndarray]:
    """The cells objects among these pieces, each once in the order first met, and which of them
    each piece is (by identity: every one is held by `pieces` meanwhile, so no id is another's)."""
    number_of: dict[int, int] = {}
    held: list[Sequence[Cell]] = []
    which = np.empty(len(pieces), np.int64)
    for index, piece in enumerate(pieces):
        number = number_of.setdefault(id(piece), len(held))
        if number == len(held):
            held.append(piece)
        which[index] = number
    return held, which


def _gathered(
    rows: np.ndarray, steps: int, sides: np.ndarray, bases: np.ndarray, fronts: np.ndarray, front_starts: np.ndarray,
    moved: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """The kernel's tables (`geometry_of`'s sides, bases, first cells and their starts) for each
    of several placements of one shape from the shape's row `rows[p]` of these (the `ahead`
    tables the bases point into are shared), its first cells moved on by `moved[p]` cells: where
    its own cells lie in the batch's cells after the shape's."""
    gathered_bases = np.empty(len(rows) + 1, np.int64)
    gathered_bases[:-1] = bases[rows]
    gathered_bases[-1] = bases[-1]
    segment = (rows[:, None] * steps + np.arange(steps)).ravel()  # each piece's and step's own
    lengths = np.diff(front_starts)[segment]
    gathered_starts = np.zeros(len(segment) + 1, np.int64)
    gathered_starts[1:] = np.cumsum(lengths)
    within = np.arange(gathered_starts[-1]) - np.repeat(gathered_starts[:-1], lengths)
    gathered_fronts = fronts[np.repeat(front_starts[segment], lengths) + within]
    gathered_fronts += np.repeat(np.repeat(moved, steps), lengths)
    return np.ascontiguousarray(sides[rows]), gathered_bases, gathered_fronts, gathered_starts


class KeptKernels:
    """The kernels a warm process keeps from one disassembler to the next (the studio's requests,
    a catalogue in one process), with the gaps they worked out: the gaps between two shapes at an
    offset hold in every assembly of those shapes, whatever file it came from, so a designer's
    next try finds those of the pieces it did not change. A kernel is lent to one disassembler at
    a time (`take`, `give_back` when that disassembler is let go), forgets the run's pieces when it
    comes back, and is kept while the kept kernels' gap tables stay within `most_bytes`."""

    def __init__(self, most_bytes: int) -> None:
        self.most_bytes = most_bytes
        self._idle: dict[bytes, list[CompiledDisassembler]] = {}
        self._numbers: dict[bytes, ShapeNumbers] = {}
        self._lock = threading.Lock()

    def numbers(self, key: bytes) -> ShapeNumbers:
        """The shape numbers of grids of these steps (a new numbering once the old is too big)."""
        with self._lock:
            numbers = self._numbers.get(key)
            if numbers is None or numbers.key_bytes > KEPT_SHAPE_BYTES:
                numbers = self._numbers[key] = ShapeNumbers()
            return numbers

    def take(self, grid: Grid) -> CompiledDisassembler:
        key = _steps_key(_step_tables(grid))
        with self._lock:
            idle = self._idle.get(key)
            kernel = idle.pop() if idle else None
        return kernel if kernel is not None else CompiledDisassembler(grid)

    def give_back(self, lent: list[CompiledDisassembler]) -> None:
        """Take back the kernels of this list, emptying it (a list given back twice gives nothing
        the second time)."""
        kernels = list(lent)
        lent.clear()
        for kernel in kernels:
            kernel.forget_run()
        with self._lock:
            held = sum(kernel.gap_bytes for idle in self._idle.values() for kernel in idle)
            for kernel in kernels:
                if held + kernel.gap_bytes <= self.most_bytes:
                    self._idle.setdefault(kernel.steps_key, []).append(kernel)
                    held += kernel.gap_bytes

    def idle(self) -> int:
        with self._lock:
            return sum(len(idle) for idle in self._idle.values())


KEPT_KERNELS = KeptKernels(KEPT_GAP_BYTES)


class CompiledDisassembler:
    """The kernel's tables for one puzzle's assemblies: the gaps remembered (by the pieces' shapes:
    kept from one assembly to the next, and from one disassembler to the next: `KeptKernels`),
    the moves of one position and the counters."""

    def __init__(self, grid: Grid) -> None:
        tables = _step_tables(grid)
        self.vectors, self.passes, self.pass_counts = tables
        self.steps_key = _steps_key(tables)
        steps = grid.steps
        self.grid = grid
        self.gap_keys = np.zeros((GAP_SLOTS, 5), np.int64)
        self.gap_values = np.zeros((GAP_SLOTS, len(steps)), np.int64)
        self.gap_stamps = np.zeros(GAP_SLOTS, np.int64)
        self.gap_counters = np.zeros(2, np.int64)
        self.gap_counters[codes.GAP_GENERATION] = 1  # stamps start at 0: no slot is held
        self._size_moves(FIRST_MOVES)
        self.counters = np.zeros(codes.COUNTERS, np.int64)
        self.geometry: tuple[np.ndarray, ...] = ()
        self.numbers = KEPT_KERNELS.numbers(self.steps_key)
        self._shape_of_cells: dict[int, tuple[Sequence[Cell], int]] = {}  # by id: (the cells, their number)
        self._kept_tables: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        self.stack = np.zeros((0, 0), np.int64)
        self._cells_arrays: dict[int, tuple[Sequence[Cell], np.ndarray]] = {}
        self.records = np.zeros(FIRST_RECORDS, np.int64)
        self.batch_first_piece = np.zeros(2, np.int64)  # each assembly's first piece, in the batch's tables
        self.first_piece = self.batch_first_piece  # of the assemblies being taken apart (`share_batch`)
        self.offset = 0

    def _size_moves(self, moves: int) -> None:
        self.moves = np.zeros((moves, 3), np.int64)
        self.found = np.zeros((moves, 2), np.int64)
        self.known = np.zeros((_next_power_of_two(2 * moves), 2), np.int64)
        self.known_stamps = np.zeros(self.known.shape[0], np.int64)  # generations go on from the counter

    @property
    def gap_bytes(self) -> int:
        return int(self.gap_keys.nbytes + self.gap_values.nbytes + self.gap_stamps.nbytes)

    def numbered_by(self, numbers: ShapeNumbers) -> None:
        """Read shapes by these numbers from now on: the gaps remembered under other numbers are
        forgotten (a new generation of the table), and the shapes known by their cells objects."""
        if numbers is self.numbers:
            return
        self.numbers = numbers
        self.gap_counters[codes.GAP_GENERATION] += 1
        self.gap_counters[codes.GAP_FILL] = 0
        self._shape_of_cells.clear()

    def forget_run(self) -> None:
        """Let go of what belongs to the run that had this kernel (its pieces' cells, their tables,
        the positions and moves it grew to), keeping the gaps: the kernel goes back to KEPT_KERNELS."""
        self._shape_of_cells.clear()
        self._cells_arrays.clear()
        self._kept_tables.clear()
        self.geometry = ()
        self.batch_first_piece = self.first_piece = np.zeros(2, np.int64)
        self.stack = np.zeros((0, 0), np.int64)
        if self.records.shape[0] > FIRST_RECORDS:
            self.records = np.zeros(FIRST_RECORDS, np.int64)
        if self.moves.shape[0] > FIRST_MOVES:
            self._size_moves(FIRST_MOVES)

    def new_assembly(self, pieces: Sequence[Sequence[Cell]]) -> None:
        """Set the kernel up for one assembly's pieces (searched part by part: `take_apart`)."""
        self.new_batch([pieces])

    def new_batch(self, assemblies: Sequence[Sequence[Sequence[Cell]]]) -> None:
        """Set the kernel up for these assemblies' pieces, one after the other (`take_apart_batch`):
        every piece's box, the cells that meet first along each step, its shape number. The
        cells and the first cells along each step are held once for each cells object given (a
        model hands out one per placement, and assemblies share placements): the search reads a
        piece's cells only through its first cells, found by its row (`which`).
        DraculasDentalDesaster's 756 pieces are 31 placements: 3,700 cells and 9,500 first cells
        held, not 112,000 and 229,000 (whose arrays, fresh memory in a new process, were about
        4,000 page faults, 11 ms of a 17 ms set-up)."""
        self.numbered_by(KEPT_KERNELS.numbers(self.steps_key))
        given = [piece for pieces in assemblies for piece in pieces]
        held, which = _distinct(given)
        arrays = [self._cells_of(piece) for piece in held]
        cells = np.concatenate(arrays)
        starts = np.zeros(len(arrays) + 1, np.int64)
        starts[1:] = np.cumsum([len(piece) for piece in arrays])
        kinds = np.zeros(len(cells), np.int64)
        if self.passes.shape[1] > 1:  # cells pass alike on a grid whose steps have one kind
            kinds[:] = [self.grid.step_kind((x, y, z)) for x, y, z in cells.tolist()]
        corners = np.minimum.reduceat(cells, starts[:-1], axis=0)
        shape_of = self._shapes(held, cells, kinds, starts, corners)
        corners, sides, bases, ahead, fronts, front_starts = self._boxes_and_fronts(
            cells, starts, kinds, corners, shape_of
        )
        if len(held) < len(given):  # each piece's box from its placement's; its first cells are its row's
            corners, sides, shape_of = (np.ascontiguousarray(table[which]) for table in (corners, sides, shape_of))
            bases = np.append(bases[which], bases[-1])
        self.geometry = (
            cells, starts, kinds, self.vectors, self.passes, self.pass_counts,
            corners, sides, bases, ahead, fronts, front_starts, shape_of, which,
        )  # fmt: skip
        self.batch_first_piece = np.zeros(len(assemblies) + 1, np.int64)
        self.batch_first_piece[1:] = np.cumsum([len(pieces) for pieces in assemblies])
        self.first_piece = self.batch_first_piece
        self.counters[codes.LOOKED_AT] = 0
        self.offset = 0  # the first assembly's pieces for `take_apart` (`use_assembly`)

    def share_batch(self, source: CompiledDisassembler, first: int, stop: int) -> None:
        """Take assemblies first to stop - 1 of the batch `source` was given (`take_apart_batch`),
        reading its pieces' tables as they are: threads of one batch share them, made once (the
        kernel only reads them), and the shape numbers with them, by which this kernel's gaps are
        remembered. Made per chunk, they were a quarter of DraculasDentalDesaster's disassembly
        on two threads, in Python, one thread at a time."""
        self.numbered_by(source.numbers)
        self.geometry = source.geometry
        self.first_piece = source.batch_first_piece[first : stop + 1]
        self.counters[codes.LOOKED_AT] = 0
        self.offset = 0

    def use_assembly(self, number: int) -> None:
        """Search assembly `number` of the batch part by part (`take_apart`: its members are that
        assembly's pieces), its positions counted from 0: piece groups' puzzles take assemblies
        apart one at a time, and making each one's tables alone cost CubeInCage's 96 about 0.15
        ms each."""
        self.offset = int(self.first_piece[number])
        self.counters[codes.LOOKED_AT] = 0

    def _boxes_and_fronts(
        self, cells: np.ndarray, starts: np.ndarray, kinds: np.ndarray, corners: np.ndarray, shape_of: np.ndarray
    ) -> tuple[np.ndarray, ...]:
        """The kernel's `geometry_of` (each piece's box, its table of how far on its cells are
        along each step, the cells that meet first), worked out once for each shape of the batch
        and shared by the pieces of that shape: the tables and the first cells do not change when
        a piece moves. DraculasDentalDesaster's 84 assemblies hold 756 pieces of 18 shapes, whose
        tables (2.3 million numbers) took 26 ms made piece by piece."""
        geometry_of = native.kernel(native.DISASSEMBLY_GEOMETRY_OF)
        if len(set(shape_of.tolist())) == len(shape_of):  # every piece its own shape (one assembly, mostly)
            return tuple(geometry_of(cells, starts, kinds, self.vectors, self.passes, self.pass_counts))
        _, first, shape_index = np.unique(shape_of, return_index=True, return_inverse=True)
        sizes = np.diff(starts)
        taken = np.concatenate([np.arange(starts[piece], starts[piece + 1]) for piece in first.tolist()])
        own_starts = np.zeros(len(first) + 1, np.int64)
        own_starts[1:] = np.cumsum(sizes[first])
        _, own_sides, own_bases, ahead, own_fronts, own_front_starts = geometry_of(
            np.ascontiguousarray(cells[taken]), own_starts, np.ascontiguousarray(kinds[taken]),
            self.vectors, self.passes, self.pass_counts,
        )  # fmt: skip
        moved = starts[:-1] - own_starts[shape_index]  # from the shape's cells to the piece's
        sides, bases, fronts, front_starts = _gathered(
            shape_index, len(self.vectors), own_sides, own_bases, own_fronts, own_front_starts, moved
        )
        return corners, sides, bases, ahead, fronts, front_starts

    def _cells_of(self, piece: Sequence[Cell]) -> np.ndarray:
        """A piece's cells as an array (pieces x 3), made once for each cells object a model hands
        out (one per placement; a flat design's 21,644 assemblies: 6 us an assembly made afresh)."""
        known = self._cells_arrays.get(id(piece))
        if known is not None and known[0] is piece:  # held here, so its id is no other's
            return known[1]
        array = np.array(piece, np.int64).reshape(-1, 3)
        self._cells_arrays[id(piece)] = (piece, array)
        return array

    def _shapes(
        self, pieces: Sequence[Sequence[Cell]], cells: np.ndarray, kinds: np.ndarray, starts: np.ndarray,
        corners: np.ndarray
    ) -> np.ndarray:  # fmt: skip
        """Each piece's shape number: its cells from its box's corner and their kinds, numbered
        as first met in any assembly of the puzzle, so that the gaps remembered between two
        shapes hold in the next assembly too (a piece's cells come in the same order wherever
        it lies; another order would only be another number). A piece given as the very cells
        object of an earlier assembly (a model hands out one per placement) is looked up by it:
        working the key out again cost SolidSixPieceBurrs' 588 assemblies 8 ms (0.092 -> 0.084 s)."""
        numbers = np.empty(len(pieces), np.int64)
        placed = None
        for piece, given in enumerate(pieces):
            known = self._shape_of_cells.get(id(given))
            if known is not None and known[0] is given:  # held here, so its id is no other's
                numbers[piece] = known[1]
                continue
            if placed is None:
                placed = cells - np.repeat(corners, np.diff(starts), axis=0)
            start, end = starts[piece], starts[piece + 1]
            key = placed[start:end].tobytes() + kinds[start:end].tobytes()
            numbers[piece] = self.numbers.number_of(key)
            self._shape_of_cells[id(given)] = (given, int(numbers[piece]))
        return numbers

    @property
    def positions(self) -> int:
        """Positions looked at in this assembly so far (all parts)."""
        return int(self.counters[codes.LOOKED_AT])

    def take_apart(
        self,
        members: Sequence[int],
        start: Sequence[int],
        max_positions: int,
        max_moves: int,
        deadline: Deadline,
    ) -> tuple[tuple[int, ...], list[PathStep]] | None:
        """The first position of these pieces (from `start`, offsets from the first) from which a
        part comes free, and the moves there, the freeing one last; None when no part can."""
        part = np.array(members, np.int64) + self.offset
        positions, came_from, table = self._first_tables(len(start))
        positions[0] = start
        came_from[0] = (-1, 0, 0, 0)
        native.kernel(native.DISASSEMBLY_REHASH)(table, positions, 1, len(start))
        counters = self.counters
        counters[codes.ADDED], counters[codes.CURSOR] = 1, 0
        while True:
            status = native.kernel(native.DISASSEMBLY_EXPAND)(
                self.geometry, self.gap_keys, self.gap_values, self.gap_stamps, self.gap_counters, part,
                positions, came_from, table, self.moves, self.found, self.known, self.known_stamps, counters,
                max_positions, max_moves, SLICE_WORK,
            )  # fmt: skip
            if status == codes.FOUND:
                return self._found(positions, came_from)
            if status == codes.EXHAUSTED:
                return None
            if status == codes.UNDECIDED:
                raise Undecided
            if status == codes.GROW_MOVES:
                self._size_moves(2 * self.moves.shape[0])
            elif status == codes.GROW_POSITIONS:
                positions, came_from, table = self._grown(positions, came_from, len(start))
            elif deadline.passed():
                raise Undecided
            self._grow_gaps()

    def take_apart_batch(self, max_positions: int, max_moves: int, deadline: Deadline) -> list[Taken]:
        """The assemblies given to `new_batch` each taken apart whole, one after the other, in one
        kernel call (kernel.take_apart_batch; each part as `take_apart` takes it, then its two
        parts, the one left in place first), for puzzles without piece groups, where a part that
        does not come apart ends an assembly's search. For each: APART with the records of every
        part's moves (read by cpsolve.disassembly), STUCK or UNDECIDED with none, and the
        positions it looked at. Once the deadline passes, the assembly being taken apart and those
        after it are undecided. A flat design's 21,644 assemblies of eight pieces took 222 us each
        part by part from Python, nearly all of it the calls, then about 100 us whole one call
        each, which was mostly the call and its set-up."""
        first_piece = self.first_piece
        assemblies = len(first_piece) - 1
        most = int(np.diff(first_piece).max(initial=1))
        positions, came_from, table = self._first_tables(3 * most)
        stack = self._stack_for(most)
        outcomes = np.zeros(assemblies, np.int64)
        looked = np.zeros(assemblies, np.int64)
        record_ends = np.zeros(assemblies, np.int64)
        counters = self.counters
        counters[codes.BATCH_AT], counters[codes.BATCH_OPEN], counters[codes.RECORDS_END] = 0, 0, 0
        while True:
            status = native.kernel(native.DISASSEMBLY_TAKE_APART_BATCH)(
                self.geometry, self.gap_keys, self.gap_values, self.gap_stamps, self.gap_counters, positions,
                came_from, table, self.moves, self.found, self.known, self.known_stamps, counters, stack, self.records,
                first_piece, outcomes, looked, record_ends, max_positions, max_moves, SLICE_WORK,
            )  # fmt: skip
            if status == codes.DONE:
                break
            if status == codes.GROW_MOVES:
                self._size_moves(2 * self.moves.shape[0])
            elif status == codes.GROW_RECORDS:
                self.records = np.concatenate((self.records, np.zeros_like(self.records)))
            elif status == codes.GROW_POSITIONS:
                count = int(stack[-1, 0]).bit_count()
                positions, came_from, table = self._grown(positions, came_from, 3 * count)
                self._kept_tables[3 * most] = (positions, came_from, table)  # the next batch starts with these
            elif deadline.passed():
                at = int(counters[codes.BATCH_AT])
                outcomes[at:] = codes.UNDECIDED
                looked[at] = counters[codes.LOOKED_AT] if counters[codes.BATCH_OPEN] else 0
                break
            self._grow_gaps()
        return self._taken(outcomes, looked, record_ends)

    def _taken(self, outcomes: np.ndarray, looked: np.ndarray, record_ends: np.ndarray) -> list[Taken]:
        """Each assembly's outcome, its records (a slice of the records the batch wrote, one after
        another for the assemblies that came apart) and the positions it looked at."""
        taken: list[Taken] = []
        start = 0
        for outcome, positions, end in zip(outcomes.tolist(), looked.tolist(), record_ends.tolist(), strict=True):
            records = self.records[start:end] if outcome == codes.APART else None
            taken.append(Taken(outcome, records, positions))
            if outcome == codes.APART:
                start = end
        return taken

    def _stack_for(self, pieces: int) -> np.ndarray:
        """take_apart_batch's stack for assemblies of at most this many pieces (kept while the
        pieces are as many: assemblies of a puzzle have the same pieces): the parts waiting and,
        in the last row, the one being expanded."""
        if self.stack.shape[0] != pieces + 1:
            self.stack = np.zeros((pieces + 1, 1 + 3 * pieces), np.int64)
        return self.stack

    def _first_tables(self, width: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """A part's position table, moves back and look-up table at their first size, emptied:
        kept from one part of this width to the next (most parts never grow them), so that a
        kernel call finds the very arrays of the last and need not look at their types again
        (DemoPieceGenerator's 5,189 parts, 14 us each: its disassembly 0.18 -> 0.17 s)."""
        tables = self._kept_tables.get(width)
        if tables is None:
            tables = (
                np.zeros((FIRST_POSITIONS, width), np.int32),
                np.zeros((FIRST_POSITIONS, 4), np.int64),
                np.empty(2 * FIRST_POSITIONS, np.int64),
            )
            self._kept_tables[width] = tables
        tables[2].fill(-1)
        return tables

    def _found(self, positions: np.ndarray, came_from: np.ndarray) -> tuple[tuple[int, ...], list[PathStep]]:
        found_at, mask, direction = self.counters[codes.FOUND_AT : codes.FOUND_DIRECTION + 1].tolist()
        path: list[PathStep] = [(mask, direction, None)]
        at = found_at
        while at > 0:  # the start, row 0, was reached from nowhere
            at, mask, direction, distance = came_from[at].tolist()
            path.append((mask, direction, distance))
        path.reverse()
        return tuple(positions[found_at].tolist()), path

    def _grown(
        self, positions: np.ndarray, came_from: np.ndarray, width: int
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The position tables twice as long, the first `width` numbers of a row the part's."""
        rows = 2 * positions.shape[0]
        added = int(self.counters[codes.ADDED])
        grown_positions = np.zeros((rows, positions.shape[1]), np.int32)
        grown_positions[:added] = positions[:added]
        grown_came_from = np.zeros((rows, 4), np.int64)
        grown_came_from[:added] = came_from[:added]
        table = np.full(2 * rows, -1, np.int64)
        native.kernel(native.DISASSEMBLY_REHASH)(table, grown_positions, added, width)
        return grown_positions, grown_came_from, table

    def _grow_gaps(self) -> None:
        """A bigger gap table while the old one is more than a quarter full (starting it empty)."""
        slots = self.gap_keys.shape[0]
        if slots >= MOST_GAP_SLOTS or 4 * self.gap_counters[codes.GAP_FILL] <= slots:
            return
        self.gap_keys = np.zeros((2 * slots, 5), np.int64)
        self.gap_values = np.zeros((2 * slots, self.gap_values.shape[1]), np.int64)
        self.gap_stamps = np.zeros(2 * slots, np.int64)
        self.gap_counters[codes.GAP_GENERATION] += 1
        self.gap_counters[codes.GAP_FILL] = 0
