"""Taking an assembly apart: whether it can be done, in how many moves, and how.

The model is BurrTools': pieces are rigid and keep their orientation; a move shifts a set of pieces
by a whole number of units along one of the grid's directions (cubes: the three axes; prisms:
their axis and the three directions of the triangles' edges, a triangle passing through its
neighbour on the way), through free space at every unit on the way, and counts as one move
whatever the distance. A set of pieces that can move arbitrarily far from the rest
comes free; both parts are then taken apart in turn, each from where it was.

The search is breadth first over the pieces' positions relative to the first piece, so the first
separation found takes the fewest moves (the "level"). Moves are found as BurrTools finds them:
for each direction, piece and distance, the smallest set that must move with that piece (a piece
that the moving ones would hit joins them), at most half of the pieces (moving the other half the
other way is the same relative move), and the unions of such sets with the same distance. Every
possible move is such a union, so no position is missed.

Following the first separation is enough to decide the question: positions a part can reach with
the other pieces around are positions it can reach alone, so a part that cannot be taken apart
after one separation cannot be taken apart after any other. A part that cannot be taken apart is
still accepted when the puzzle says its pieces may stay together (BurrTools' piece groups).

A one-piece assembly comes apart with no move (level "0"); BurrTools' command-line solver does
not count it (docs/disassembly.md).
"""

from __future__ import annotations

import time
import weakref
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from cpsolve import native
from cpsolve.geometry import Cell
from cpsolve.grids import CUBE, Grid, Step
from cpsolve.limits import DEFAULT_MAX_DISASSEMBLY_POSITIONS, MAX_GAP_CACHE, NO_DEADLINE, Deadline

if TYPE_CHECKING:
    from cpsolve.disassembly.compiled import CompiledDisassembler, PathStep
    from cpsolve.symmetry import Solution

# The directions are the grid's steps (cpsolve.grids.Step), each next to its reverse, in BurrTools'
# order (cubes: +x, -x, +y, -y, +z, -z): the order moves are tried in decides which of several
# equally short separations is followed, and so the level's later numbers.
FREE = 1 << 40  # the gap between two pieces that never meet along a direction
# Piece pairs compared (a position of n pieces compares n * n / 2) between two looks at the
# clock: 256 positions of 500 dominoes were a minute of Python, so the clock is read by work.
DEADLINE_EVERY_PAIRS = 1 << 14
DEADLINE_EVERY_MOVES = 4096  # moves listed from one position between two looks at the clock
# Moves from one position: the hardest corpus position lists a few hundred; a cage of loose cubes
# lists unions of them by the million (3.7 GB) before this bound.
MAX_MOVES_PER_POSITION = 100_000
BATCH = 1024  # assemblies taken apart in one kernel call: their pieces' tables are made together
CHUNKS_PER_THREAD = 4  # a batch on threads is cut into this many kernel calls a thread, taken in turn

Lines = tuple[dict[tuple[int, int], tuple[int, ...]], ...]  # per axis: the other two coordinates -> cells on that line
Gaps = tuple[int, ...]  # per direction: how far one piece can move before it meets another


class Outcome(StrEnum):
    APART = "comes apart"
    STUCK = "does not come apart"
    UNDECIDED = "undecided"  # the position limit or the time limit stopped the search


@dataclass(frozen=True)
class AssembledPiece:
    """One piece of an assembly as the disassembler sees it."""

    label: str  # what the plan calls it (the drawing's letter)
    kind: str  # the spec's piece name: copies share it, and it is what piece groups list
    cells: tuple[Cell, ...]


@dataclass(frozen=True)
class PieceGroups:
    """Which pieces may stay together when they cannot be taken apart (BurrTools' piece groups).

    `capacity[(group, kind)]` is how many copies of that piece one stuck part placed in the group
    may hold. Each stuck part of one assembly needs a group of its own, all at the same time.
    """

    capacity: Mapping[tuple[str, str], int] = field(default_factory=dict)

    def groups_of(self, kind: str) -> list[str]:
        return [group for group, each in self.capacity if each == kind]

    def one_group(self, kinds: Sequence[str]) -> bool:
        """All pieces belong to one group, and to no other, which holds them all: that part is
        never taken apart (BurrTools does not try either; it does not look at the numbers)."""
        if not self.capacity:
            return False
        found = {tuple(self.groups_of(kind)) for kind in kinds}
        if len(found) != 1 or len(groups := next(iter(found))) != 1:
            return False
        return all(self.capacity[(groups[0], kind)] >= kinds.count(kind) for kind in set(kinds))

    def fits(self, stuck: Sequence[Sequence[str]]) -> bool:
        """Whether each stuck part can have a group of its own, within the groups' capacities."""
        groups = sorted({group for group, _ in self.capacity})
        return _assign(list(stuck), groups, dict(self.capacity), set())


def _assign(parts: list[Sequence[str]], groups: list[str], left: dict[tuple[str, str], int], used: set[str]) -> bool:
    if not parts:
        return True
    part, rest = parts[0], parts[1:]
    for group in groups:
        if group in used:
            continue
        needed: dict[tuple[str, str], int] = {}
        for kind in part:
            needed[(group, kind)] = needed.get((group, kind), 0) + 1
        fits = all(left.get(key, 0) >= count for key, count in needed.items())
        if fits and _assign(rest, groups, left, used | {group}):
            return True
    return False


@dataclass(frozen=True)
class Move:
    """Some pieces shifted along one direction (its name, as `+x`, and the unit shift); `distance`
    None: they come free (out to infinity)."""

    pieces: tuple[str, ...]
    direction: str
    step: Cell
    distance: int | None

    def describe(self) -> str:
        names = _names(self.pieces)
        if self.distance is None:
            return f"take {names} out along {self.direction}"
        return f"move {names} {self.direction} by {self.distance}"

    def as_json(self) -> dict[str, Any]:
        return {"pieces": list(self.pieces), "direction": self.direction, "distance": self.distance}


def _names(labels: Sequence[str]) -> str:
    return labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " and " + labels[-1]


@dataclass(frozen=True)
class Separation:
    """The moves that split some pieces into two parts, and how each part is taken apart.

    A part is None when it is one piece, or when its pieces stay together as a group.
    """

    moves: tuple[Move, ...]  # the last one takes the freed part out
    stays: Separation | None
    freed: Separation | None
    stuck_groups: tuple[tuple[str, ...], ...] = ()  # parts left together as piece groups

    @property
    def multi_move(self) -> bool:
        """Some separation in this tree takes more than one move (BurrTools writes only those)."""
        return len(self.moves) > 1 or any(part.multi_move for part in self._parts)

    @property
    def _parts(self) -> tuple[Separation, ...]:
        return tuple(part for part in (self.stays, self.freed) if part is not None)

    def level(self) -> str:
        """BurrTools' notation: moves until the first part comes free, then the part left in place,
        then the part taken out, each only where it takes more than one move somewhere."""
        numbers = [str(len(self.moves))]
        numbers.extend(part.level() for part in self._parts if part.multi_move)
        return ".".join(numbers)

    def total_moves(self) -> int:
        return len(self.moves) + sum(part.total_moves() for part in self._parts)

    def plan(self) -> list[Move]:
        """Every move in the order a person makes them: this split, then each part in turn."""
        return [*self.moves, *(move for part in self._parts for move in part.plan())]

    def groups(self) -> list[tuple[str, ...]]:
        return [*self.stuck_groups, *(group for part in self._parts for group in part.groups())]


@dataclass(frozen=True)
class Disassembly:
    outcome: Outcome
    # the separation, or the compiled search's records it is read from when first asked for: a run
    # asks most assemblies for their level alone (the flat design's 21,644: 35 us each made)
    made: Separation | _Records | None = None
    positions: int = 0  # positions looked at, in all parts
    pieces: int = 0

    @cached_property
    def separation(self) -> Separation | None:
        made = self.made
        return made.separation() if isinstance(made, _Records) else made

    @property
    def comes_apart(self) -> bool:
        return self.outcome is Outcome.APART

    @cached_property
    def level(self) -> str:
        if not self.comes_apart:
            return ""
        if isinstance(self.made, _Records):
            return self.made.level()
        return "0" if self.separation is None else self.separation.level()

    @property
    def moves(self) -> int:
        return 0 if self.separation is None else self.separation.total_moves()

    def plan(self) -> list[Move]:
        return [] if self.separation is None else self.separation.plan()

    def as_json(self) -> dict[str, Any]:
        return {
            "outcome": str(self.outcome),
            "level": self.level or None,
            "moves": self.moves if self.comes_apart else None,
            "plan": [move.as_json() for move in self.plan()],
            "stay_together": [list(group) for group in self.separation.groups()] if self.separation else [],
        }

    def describe(self) -> list[str]:
        """The plan in words, one line per move."""
        if self.outcome is not Outcome.APART:
            return [f"it {self.outcome} ({self.positions:,} positions looked at)"]
        lines = [f"comes apart: level {self.level}, {self.moves} moves"]
        lines.extend(f"{number:3}. {move.describe()}" for number, move in enumerate(self.plan(), 1))
        if self.separation is not None:
            lines.extend(f"     {_names(group)} stay together (a piece group)" for group in self.separation.groups())
        return lines


class _Undecided(Exception):
    pass


def _lines(cells: Sequence[Cell]) -> Lines:
    """For each axis, the piece's cells grouped by line along that axis, sorted."""
    per_axis = []
    for axis in range(3):
        others = [a for a in range(3) if a != axis]
        lines: dict[tuple[int, int], list[int]] = {}
        for cell in cells:
            lines.setdefault((cell[others[0]], cell[others[1]]), []).append(cell[axis])
        per_axis.append({key: tuple(sorted(values)) for key, values in lines.items()})
    return tuple(per_axis)


def _gaps(mover: Lines, other: Lines, offset: tuple[int, int, int]) -> Gaps:
    """How far `mover` can go along each direction before it meets `other`, which lies shifted by
    `offset` from it (FREE: never)."""
    gaps: list[int] = []
    for axis in range(3):
        first, second = [a for a in range(3) if a != axis]
        shift = offset[axis]
        ahead = behind = FREE
        others = other[axis]
        for (u, v), coords in mover[axis].items():
            blocking = others.get((u - offset[first], v - offset[second]))
            if blocking is None:
                continue
            for coord in coords:
                start = coord - shift  # the blocking line's coordinates, in its own frame
                above = bisect_right(blocking, start)
                if above < len(blocking):
                    ahead = min(ahead, blocking[above] - start - 1)
                below = bisect_left(blocking, start) - 1
                if below >= 0:
                    behind = min(behind, start - blocking[below] - 1)
        gaps.extend((ahead, behind))
    return tuple(gaps)


def _swept_gaps(grid: Grid, mover: Sequence[Cell], other: Sequence[Cell], offset: tuple[int, int, int]) -> Gaps:
    """`_gaps` on any grid with steps: for each step, the fewest units `mover` goes before a cell
    it passes through is one of `other` (shifted by `offset`). A cell passes w + k * step on unit
    k + 1 for each of its passes w, so a cell o of the other piece blocks unit k + 1 where
    o - c - w = k * step, k >= 0."""
    others = np.asarray(other, np.int64).reshape(-1, 3) + np.asarray(offset, np.int64)
    cells = np.asarray(mover, np.int64).reshape(-1, 3)
    kinds = [grid.step_kind(cell) for cell in mover]
    gaps: list[int] = []
    for step in grid.steps:
        passed = np.array([c + np.array(w) for c, kind in zip(cells, kinds, strict=True) for w in step.passes[kind]])
        apart = others[None, :, :] - passed[:, None, :]  # passed x other x 3
        vector = np.asarray(step.vector, np.int64)
        axis = int(np.nonzero(vector)[0][0])
        units = apart[..., axis] // vector[axis]
        on_the_way = (units >= 0) & (apart == units[..., None] * vector).all(axis=2)
        gaps.append(int(units[on_the_way].min()) if on_the_way.any() else FREE)
    return tuple(gaps)


class Disassembler:
    """Takes the assemblies of one puzzle apart; remembers the gaps between pairs of pieces.

    `max_positions` bounds the positions looked at for one assembly (memory grows with them), and
    MAX_MOVES_PER_POSITION the moves tried from one position (the unions of loose pieces grow as
    two to the number of pieces); an assembly that needs more is `undecided`, as is one still
    open when the deadline passes, which is looked at before each assembly and every few
    thousand moves.

    `compiled`: search each part with the compiled kernel (cpsolve.disassembly.kernel: the same
    positions in the same order, about a hundred times faster); None: where numba is installed.
    Assemblies of more pieces than a 64-bit word holds as bits are searched in Python.
    """

    def __init__(
        self,
        groups: PieceGroups | None = None,
        max_positions: int = DEFAULT_MAX_DISASSEMBLY_POSITIONS,
        deadline: Deadline = NO_DEADLINE,
        grid: Grid = CUBE,
        compiled: bool | None = None,
        threads: int = 1,
    ) -> None:
        self.groups = groups or PieceGroups()
        self.max_positions = max_positions
        self.deadline = deadline
        self.grid = grid
        self.compiled = native.installed("numba") if compiled is None else compiled
        self.threads = max(1, threads)
        self._kernels: list[CompiledDisassembler] = []  # one a thread, lent when first needed

    def load(self) -> None:
        """Load the compiled search (the build `cpsolve compile` made, else numba's cache; the very
        first use after installing compiles it, several seconds), so that the first assembly does
        not pay for it."""
        if self.compiled:
            pair = [AssembledPiece("A", "A", ((0, 0, 0),)), AssembledPiece("B", "B", ((1, 0, 0),))]
            self.analyse(pair)  # the whole assembly in one call: no piece groups
            kernel = self._compiled_for(pair)  # and part by part, as with piece groups
            grouped = PieceGroups({("G", "A"): 1})
            _Search(pair, grouped, self.max_positions, self.deadline, self.grid, kernel).take_apart(
                [0, 1], [(0, 0, 0)] * 2
            )

    def _searched_compiled(self, pieces: Sequence[AssembledPiece]) -> bool:
        """Whether the compiled search takes this assembly: compiled, and its pieces fit the
        kernel's bit masks."""
        if not self.compiled:
            return False
        from cpsolve.disassembly.compiled import MOST_PIECES

        return len(pieces) <= MOST_PIECES

    def _compiled_for(self, pieces: Sequence[AssembledPiece]) -> CompiledDisassembler | None:
        """The kernel's tables, set up for this assembly, when it is searched compiled."""
        if not self._searched_compiled(pieces):
            return None
        kernel = self._kernel_of(0)
        kernel.new_assembly([piece.cells for piece in pieces])
        return kernel

    def analyse(self, pieces: Sequence[AssembledPiece]) -> Disassembly:
        return self.analyse_all([pieces])[0]

    def analyse_all(self, assemblies: Sequence[Sequence[AssembledPiece]]) -> list[Disassembly]:
        """Each assembly taken apart, in order. Without piece groups those searched compiled go
        to the kernel in batches, each batch one call (`CompiledDisassembler.take_apart_batch`);
        one piece comes apart with no move; the rest are searched one at a time."""
        results: list[Disassembly | None] = [None] * len(assemblies)
        batch: list[int] = []
        grouped: list[int] = []  # searched part by part, their pieces' tables made for many at once
        most = self._most_batched()
        for number, pieces in enumerate(assemblies):
            if len(pieces) < 2:
                results[number] = Disassembly(Outcome.APART, pieces=len(pieces))
            elif len(pieces) <= most:
                batch.append(number)
            elif self._searched_compiled(pieces):
                grouped.append(number)
            else:
                results[number] = self._analyse_one(pieces)
        for first in range(0, len(batch), BATCH):
            numbers = batch[first : first + BATCH]
            for number, result in zip(numbers, self._analyse_batch([assemblies[n] for n in numbers]), strict=True):
                results[number] = result
        for first in range(0, len(grouped), BATCH):
            numbers = grouped[first : first + BATCH]
            kernel = self._kernel_of(0)
            kernel.new_batch([[piece.cells for piece in assemblies[n]] for n in numbers])
            for at, number in enumerate(numbers):
                kernel.use_assembly(at)
                results[number] = self._analyse_one(assemblies[number], kernel)
        return [result for result in results if result is not None]

    def _most_batched(self) -> int:
        """The most pieces of an assembly the kernel takes apart whole (0: none): compiled, without
        piece groups (their parts are decided in Python), as many as its bit masks hold."""
        if not self.compiled or self.groups.capacity:
            return 0
        from cpsolve.disassembly.compiled import MOST_PIECES

        return MOST_PIECES

    def _analyse_one(self, pieces: Sequence[AssembledPiece], kernel: CompiledDisassembler | None = None) -> Disassembly:
        """An assembly searched part by part (the parts' searches compiled where they can be; by
        `kernel` where its tables are set up for this assembly already)."""
        if self.deadline.passed():
            return Disassembly(Outcome.UNDECIDED, pieces=len(pieces))
        if kernel is None:
            kernel = self._compiled_for(pieces)
        search = _Search(pieces, self.groups, self.max_positions, self.deadline, self.grid, kernel)
        try:
            separation = search.take_apart(list(range(len(pieces))), [(0, 0, 0)] * len(pieces))
        except _Undecided:
            return Disassembly(Outcome.UNDECIDED, positions=search.positions, pieces=len(pieces))
        outcome = Outcome.APART if separation is not None and search.groups_fit() else Outcome.STUCK
        return Disassembly(outcome, separation, search.positions, len(pieces))

    def _analyse_batch(self, assemblies: Sequence[Sequence[AssembledPiece]]) -> list[Disassembly]:
        """Assemblies without piece groups, each in one compiled search of the same parts in the
        same order as `_Search.take_apart`, read back from its records; all in one kernel call, or
        with `threads`, in chunks that many threads take in turn, each thread with its own
        kernel's tables (the kernel lets go of the GIL; an assembly's answer does not depend on
        which others its kernel took apart before). One assembly can be most of a batch's work
        (Pelikan's level 98 burr: 6,265 of 13,725 positions), so chunks are small. Where the
        deadline passes, the chunks open and not yet begun are undecided."""
        if self.deadline.passed():
            return [Disassembly(Outcome.UNDECIDED, pieces=len(pieces)) for pieces in assemblies]
        threads = min(self.threads, len(assemblies)) if native.threads_run_apart() else 1
        first = self._kernel_of(0)
        first.new_batch([[piece.cells for piece in pieces] for pieces in assemblies])
        if threads <= 1:
            return self._batch_on(first, assemblies, range(len(assemblies)))
        from concurrent.futures import ThreadPoolExecutor
        from itertools import count

        size = max(1, len(assemblies) // (threads * CHUNKS_PER_THREAD))
        chunks = [range(start, min(start + size, len(assemblies))) for start in range(0, len(assemblies), size)]
        answers = [Disassembly(Outcome.UNDECIDED, pieces=len(pieces)) for pieces in assemblies]
        taken = count()  # the next chunk: next() on a count is one step under the GIL

        def take_chunks(kernel: CompiledDisassembler) -> None:
            while (number := next(taken)) < len(chunks):
                rows = chunks[number]
                if self.deadline.passed():  # left as the kernel leaves what follows the deadline
                    continue
                answers[rows.start : rows.stop] = self._batch_on(kernel, assemblies, rows, first)

        kernels = [first, *(self._kernel_of(number) for number in range(1, min(threads, len(chunks))))]
        with ThreadPoolExecutor(len(kernels), thread_name_prefix="cpsolve disassembly") as pool:
            for done in [pool.submit(take_chunks, kernel) for kernel in kernels]:
                done.result()
        return answers

    def _kernel_of(self, thread: int) -> CompiledDisassembler:
        """The compiled search's tables for one thread (the first thread's shared with the
        part-by-part search), each lent once by the process's kept kernels (with the gaps earlier
        disassemblers worked out) and kept with its gaps for the next batch; given back when this
        disassembler is let go."""
        from cpsolve.disassembly.compiled import KEPT_KERNELS

        if not self._kernels:  # given back when this disassembler is let go, if not before (`release`)
            weakref.finalize(self, KEPT_KERNELS.give_back, self._kernels)
        while len(self._kernels) <= thread:
            self._kernels.append(KEPT_KERNELS.take(self.grid))
        return self._kernels[thread]

    def release(self) -> None:
        """Give the kernels back to the process's kept kernels now (a run's assemblies are all
        taken apart; a studio keeps a finished job, and so its disassembler, for its events): the
        next disassembler, in this run's thread or another's, finds the gaps this one worked out.
        Taking apart more after this lends kernels again."""
        from cpsolve.disassembly.compiled import KEPT_KERNELS

        KEPT_KERNELS.give_back(self._kernels)

    def _batch_on(
        self,
        kernel: CompiledDisassembler,
        assemblies: Sequence[Sequence[AssembledPiece]],
        rows: range,
        batch: CompiledDisassembler | None = None,
    ) -> list[Disassembly]:
        """Assemblies `rows` of the batch taken apart by `kernel`: the batch is the one given to
        `batch` (another thread's kernel, whose tables this one reads), or to `kernel` itself."""
        from cpsolve.disassembly import codes

        kernel.share_batch(batch or kernel, rows.start, rows.stop)
        taken = kernel.take_apart_batch(self.max_positions, MAX_MOVES_PER_POSITION, self.deadline)
        outcomes = {codes.APART: Outcome.APART, codes.STUCK: Outcome.STUCK, codes.UNDECIDED: Outcome.UNDECIDED}
        steps = self.grid.steps
        return [
            Disassembly(
                outcomes[outcome],
                None if records is None else _Records(records.tolist(), pieces, steps),
                positions,
                len(pieces),
            )
            for (outcome, records, positions), pieces in zip(taken, assemblies[rows.start : rows.stop], strict=True)
        ]


class _Records:
    """Separations read back from take_apart_batch's records (cpsolve.disassembly.kernel), a part at a
    time in the order they were written: a part, the part of it left in place, the part taken out."""

    def __init__(self, numbers: list[int], pieces: Sequence[AssembledPiece], steps: tuple[Step, ...]) -> None:
        self.numbers, self.pieces, self.steps = numbers, pieces, steps
        self.at = 0

    def separation(self) -> Separation:
        """The whole tree of separations."""
        self.at = 0
        return self._part()

    def level(self) -> str:
        """Separation.level() of the tree, read off the records without making it."""
        self.at = 0
        return self._level()[0]

    def _level(self) -> tuple[str, bool]:
        """The level of the part whose record starts at `at`, and whether a separation in it takes
        more than one move (Separation.multi_move), moving on past its records."""
        numbers, at = self.numbers, self.at
        part, count = numbers[at], numbers[at + 1]
        pieces = part.bit_count()
        freed = numbers[at + 2 + 3 * (count - 1)].bit_count()
        self.at = at + 2 + 3 * count + 3 * pieces
        levels = [str(count)]
        multi_move = count > 1
        for side in (pieces - freed, freed):  # the part left in place, then the part taken out
            if side > 1:
                level, more = self._level()
                if more:
                    levels.append(level)
                multi_move = multi_move or more
        return ".".join(levels), multi_move

    def _part(self) -> Separation:
        numbers, at = self.numbers, self.at
        part, count = numbers[at], numbers[at + 1]
        labels = [piece.label for number, piece in enumerate(self.pieces) if part >> number & 1]
        path = numbers[at + 2 : at + 2 + 3 * count]
        self.at = at + 2 + 3 * count + 3 * len(labels)
        moves = tuple(
            Move(
                tuple(label for i, label in enumerate(labels) if bits >> i & 1),
                self.steps[way].name,
                self.steps[way].vector,
                None if distance < 0 else distance,
            )
            for bits, way, distance in zip(path[0::3], path[1::3], path[2::3], strict=True)
        )
        freed = path[-3]
        freed_count = freed.bit_count()
        stays = self._part() if len(labels) - freed_count > 1 else None
        taken = self._part() if freed_count > 1 else None
        return Separation(moves, stays, taken)


class _Search:
    """One assembly's analysis: the breadth-first search of each part, and the parts left stuck."""

    def __init__(
        self,
        pieces: Sequence[AssembledPiece],
        groups: PieceGroups,
        limit: int,
        deadline: Deadline,
        grid: Grid = CUBE,
        kernel: CompiledDisassembler | None = None,
    ):
        self.pieces = pieces
        self.kernel = kernel
        self.grid = grid
        self.steps: tuple[Step, ...] = grid.steps
        self.lines = [_lines(piece.cells) for piece in pieces] if grid is CUBE and kernel is None else []
        self.groups = groups
        self.limit = limit
        self.deadline = deadline
        self.python_positions = 0
        self.python_pairs = 0  # piece pairs compared since the clock was last read
        self.stuck: list[tuple[str, ...]] = []
        self.gap_cache: dict[tuple[int, int, int, int, int], Gaps] = {}
        self.removals: dict[tuple[tuple[int, ...], ...], tuple[int, int] | None] = {}
        self.closures: dict[tuple[int, ...], list[int]] = {}

    @property
    def positions(self) -> int:
        """Positions looked at so far, in all parts."""
        return self.kernel.positions if self.kernel is not None else self.python_positions

    def groups_fit(self) -> bool:
        return self.groups.fits(self.stuck)

    # -- one part ---------------------------------------------------------------------------

    def take_apart(self, members: list[int], offsets: list[tuple[int, int, int]]) -> Separation | None:
        """The first (shortest) separation of these pieces and how its parts come apart; None when
        the pieces cannot be separated or a part of them is stuck outside any piece group."""
        start = _normalised(offsets)
        if self.kernel is not None:
            from cpsolve.disassembly.compiled import Undecided

            try:
                found = self.kernel.take_apart(members, start, self.limit, MAX_MOVES_PER_POSITION, self.deadline)
            except Undecided:
                raise _Undecided from None
            return None if found is None else self._split(members, *found)
        found = self._first_separation(members, start)
        return None if found is None else self._split(members, *found)

    def _first_separation(
        self, members: list[int], start: tuple[int, ...]
    ) -> tuple[tuple[int, ...], list[PathStep]] | None:
        """The breadth-first search of one part in Python: the first position from which a part
        comes free, and the moves there, the freeing one last; None when none can."""
        count = len(members)
        parents: dict[tuple[int, ...], tuple[tuple[int, ...], int, int, int] | None] = {start: None}
        frontier = [start]
        while frontier:
            following: list[tuple[int, ...]] = []
            for state in frontier:
                self._count_position(count)
                matrix = self._matrix(members, state)
                removal = self._first_removal(matrix, count)
                if removal is not None:
                    return state, _path(parents, state, removal)
                for mask, direction, distance in _moves(matrix, count, self._closures, self.deadline):
                    child = _moved(state, mask, count, self.steps[direction].vector, distance)
                    if child not in parents:
                        parents[child] = (state, mask, direction, distance)
                        following.append(child)
            frontier = following
        return None

    def _first_removal(self, matrix: Matrix, count: int) -> tuple[int, int] | None:
        """_first_removal, remembered: which pieces ever meet which changes little from one
        position to the next (PelikanBurr's analysis 1.54 s -> 1.47 s, one run each)."""
        key = tuple(tuple(meets) for meets in matrix.meets)
        if key not in self.removals:
            self.removals[key] = _first_removal(matrix, count)
        return self.removals[key]

    def _closures(self, needs: list[int]) -> list[int]:
        """The set that must move with each piece for one step, remembered like the removals."""
        key = tuple(needs)
        found = self.closures.get(key)
        if found is None:
            found = self.closures[key] = [_set_closure(needs, piece, len(needs) // 2) for piece in range(len(needs))]
        return found

    def _count_position(self, pieces: int) -> None:
        self.python_positions += 1
        if self.python_positions > self.limit:
            raise _Undecided
        self.python_pairs += pieces * pieces // 2
        if self.python_pairs >= DEADLINE_EVERY_PAIRS:
            self.python_pairs = 0
            if self.deadline.passed():
                raise _Undecided

    def _matrix(self, members: list[int], state: tuple[int, ...]) -> Matrix:
        """How far each piece can move along each direction with each other piece held still,
        and as bit masks per direction and piece, the pieces it would ever meet and those it
        touches (which must move with it for even one step)."""
        count = len(members)
        cache = self.gap_cache
        if len(cache) + len(self.closures) > MAX_GAP_CACHE:
            cache.clear()
            self.closures.clear()
            self.removals.clear()
        steps = self.steps
        gaps = [[[FREE] * count for _ in range(count)] for _ in steps]
        meets = [[0] * count for _ in steps]
        touches = [[0] * count for _ in steps]
        for i in range(count):
            xi, yi, zi = state[3 * i], state[3 * i + 1], state[3 * i + 2]
            for j in range(i + 1, count):
                offset = (state[3 * j] - xi, state[3 * j + 1] - yi, state[3 * j + 2] - zi)
                key = (members[i], members[j], *offset)
                pair = cache.get(key)
                if pair is None:
                    pair = self._gaps(members[i], members[j], offset)
                    cache[key] = pair
                for direction, gap in enumerate(pair):
                    if gap == FREE:
                        continue
                    back = direction ^ 1  # the same gap, seen from j, in the opposite direction
                    gaps[direction][i][j] = gaps[back][j][i] = gap
                    meets[direction][i] |= 1 << j
                    meets[back][j] |= 1 << i
                    if gap == 0:
                        touches[direction][i] |= 1 << j
                        touches[back][j] |= 1 << i
        return Matrix(gaps, meets, touches)

    def _gaps(self, mover: int, other: int, offset: tuple[int, int, int]) -> Gaps:
        if self.grid is CUBE:  # lines along the axes: the cube grid's fast path
            return _gaps(self.lines[mover], self.lines[other], offset)
        return _swept_gaps(self.grid, self.pieces[mover].cells, self.pieces[other].cells, offset)

    def _split(self, members: list[int], state: tuple[int, ...], path: list[PathStep]) -> Separation | None:
        """The separation the moves in `path` make, from where they end (`state`), and how each
        part comes apart; None when one of them cannot."""
        mask = path[-1][0]
        labels = [self.pieces[m].label for m in members]
        moves = tuple(
            Move(
                tuple(labels[i] for i in range(len(members)) if bits >> i & 1),
                self.steps[way].name,
                self.steps[way].vector,
                distance,
            )
            for bits, way, distance in path
        )
        offsets = [(state[3 * i], state[3 * i + 1], state[3 * i + 2]) for i in range(len(members))]
        stays_at = [i for i in range(len(members)) if not mask >> i & 1]
        freed_at = [i for i in range(len(members)) if mask >> i & 1]
        stays_apart, stays = self._part(members, offsets, stays_at)
        if not stays_apart:
            return None
        freed_apart, freed = self._part(members, offsets, freed_at)
        if not freed_apart:
            return None
        stuck = tuple(
            tuple(labels[i] for i in part)
            for part, separation in ((stays_at, stays), (freed_at, freed))
            if separation is None and len(part) > 1
        )
        return Separation(moves, stays, freed, stuck)

    def _part(
        self, members: list[int], offsets: list[tuple[int, int, int]], at: list[int]
    ) -> tuple[bool, Separation | None]:
        """A part after a split: whether it comes apart (or may stay together), and its separation
        (None for one piece or a part that stays together as a piece group)."""
        if len(at) == 1:
            return True, None
        kinds = [self.pieces[members[i]].kind for i in at]
        if self.groups.one_group(kinds):
            return True, None
        separation = self.take_apart([members[i] for i in at], [offsets[i] for i in at])
        if separation is not None:
            return True, separation
        self.stuck.append(tuple(kinds))
        return self.groups.fits(self.stuck), None


def _path(
    parents: Mapping[tuple[int, ...], tuple[tuple[int, ...], int, int, int] | None],
    state: tuple[int, ...],
    removal: tuple[int, int],
) -> list[PathStep]:
    """The moves from the start to `state` (followed back through `parents`), then the removal."""
    mask, direction = removal
    path: list[PathStep] = [(mask, direction, None)]
    step = parents[state]
    while step is not None:
        previous, moved, moved_direction, distance = step
        path.append((moved, moved_direction, distance))
        step = parents[previous]
    path.reverse()
    return path


def _normalised(offsets: Sequence[tuple[int, int, int]]) -> tuple[int, ...]:
    """The positions relative to the first piece, as one flat tuple: the search's state."""
    x0, y0, z0 = offsets[0]
    return tuple(value for x, y, z in offsets for value in (x - x0, y - y0, z - z0))


def _moved(state: tuple[int, ...], mask: int, count: int, vector: Cell, distance: int) -> tuple[int, ...]:
    """The state after the pieces in mask move; when the first piece moves, the others move back
    instead, which keeps it at the origin and is the same relative position."""
    shift = distance
    if mask & 1:
        mask = ~mask
        shift = -shift
    values = list(state)
    for i in range(1, count):
        if mask >> i & 1:
            for axis in range(3):
                values[3 * i + axis] += shift * vector[axis]
    return tuple(values)


class Matrix(NamedTuple):
    """One position's gaps: `gaps[d][i][j]` how far piece i can move along direction d with
    piece j held still (FREE: never meets it); `meets[d][i]` and `touches[d][i]` bit masks of the
    pieces with a finite gap and with no gap."""

    gaps: list[list[list[int]]]
    meets: list[list[int]]
    touches: list[list[int]]


def _set_closure(needs: Sequence[int], piece: int, most: int) -> int:
    """The pieces that must move with `piece` when each piece i takes the pieces in `needs[i]`
    along (bit masks); 0 when they are more than `most`."""
    mask = 1 << piece
    todo = mask
    while todo:
        lowest = todo & -todo
        todo ^= lowest
        new = needs[lowest.bit_length() - 1] & ~mask
        if new:
            mask |= new
            todo |= new
    return mask if mask.bit_count() <= most else 0


def _reach(gaps: list[list[int]], count: int, mask: int) -> int:
    """How far the pieces in mask can move together before one meets a piece outside it."""
    reach = FREE
    for i in range(count):
        if mask >> i & 1:
            row = gaps[i]
            for j in range(count):
                if row[j] < reach and not mask >> j & 1:
                    reach = row[j]
    return reach


def _closure(gaps: list[list[int]], count: int, piece: int, distance: int, most: int) -> tuple[int, int]:
    """The pieces that must move with `piece` for it to move `distance` along one direction (as a
    bit mask; 0 when they are more than `most`), and the farthest that same set can move.

    `gaps[i][j]`: how far piece i can move along that direction with piece j held still.
    (Measured: plain loops over these lists beat building bit masks of the pieces each would hit
    for every distance, PelikanBurr 1.5 s against 2.2 s; the masks are kept for the two
    distances the matrix gives them for free, one step and out.)
    """
    mask = 1 << piece
    moved = 1
    todo = [piece]
    while todo:
        row = gaps[todo.pop()]
        for j in range(count):
            if row[j] < distance and not mask >> j & 1:
                moved += 1
                if moved > most:
                    return 0, 0
                mask |= 1 << j
                todo.append(j)
    return mask, _reach(gaps, count, mask)


def _first_removal(matrix: Matrix, count: int) -> tuple[int, int] | None:
    """The first set of pieces (as BurrTools tries them: single pieces first, then sets of up to
    half) that can move out arbitrarily far, with its direction."""
    for direction, meets in enumerate(matrix.meets):
        for piece in range(count):
            if not meets[piece]:
                return 1 << piece, direction
    for direction, meets in enumerate(matrix.meets):
        for piece in range(count):
            mask = _set_closure(meets, piece, count // 2)
            if mask:
                return mask, direction
    return None


def _moves(
    matrix: Matrix, count: int, one_step: Callable[[list[int]], list[int]], deadline: Deadline = NO_DEADLINE
) -> list[tuple[int, int, int]]:
    """Every move from a position no part can leave: (pieces as a bit mask, direction, distance),
    in BurrTools' order: by direction, piece and distance, each followed by its unions with the
    sets found before it that move the same distance.

    The set found for one distance moves the same way up to its reach, so it is worked out once
    per band of distances rather than once per distance. More than MAX_MOVES_PER_POSITION moves,
    or the deadline passing while they are listed, leaves the assembly undecided.
    """
    moves: list[tuple[int, int, int]] = []
    everyone = (1 << count) - 1
    most = count // 2
    for direction in range(len(matrix.gaps)):
        along = matrix.gaps[direction]
        touches = matrix.touches[direction]
        found: list[tuple[int, int]] = []
        known: set[tuple[int, int]] = set()
        first_sets = one_step(touches)
        for piece in range(count):
            distance = 1
            mask = first_sets[piece]
            reach = _reach(along, count, mask) if mask else 0
            while mask:
                if (mask, distance) not in known:
                    known.add((mask, distance))
                    moves.append((mask, direction, distance))
                    for other, other_distance in list(found):
                        union = mask | other
                        new = union not in (mask, other, everyone) and (union, distance) not in known
                        if other_distance == distance and new:
                            known.add((union, distance))
                            found.append((union, distance))
                            moves.append((union, direction, distance))
                            _check_moves(len(moves), deadline)
                    found.append((mask, distance))
                distance += 1
                if distance > reach:
                    mask, reach = _closure(along, count, piece, distance, most)
    return moves


def _check_moves(moves: int, deadline: Deadline) -> None:
    if moves > MAX_MOVES_PER_POSITION or (moves % DEADLINE_EVERY_MOVES == 0 and deadline.passed()):
        raise _Undecided


def level_key(level: str) -> tuple[int, ...]:
    """Levels compare number by number, the first (moves to the first part) first."""
    return tuple(int(number) for number in level.split(".")) if level else ()


@dataclass
class DisassemblySummary:
    """What `--disassemble` found over a run's unique assemblies (the report's `disassembly`)."""

    checked: int = 0
    apart: int = 0
    stuck: int = 0
    undecided: int = 0
    one_piece: int = 0  # assemblies of one piece: they come apart with no move
    highest_level: str = ""
    seconds: float = 0.0
    positions: int = 0  # looked at, over all assemblies

    def add(self, result: Disassembly) -> None:
        self.checked += 1
        self.positions += result.positions
        if result.outcome is Outcome.APART:
            self.apart += 1
            self.one_piece += result.pieces < 2
            if level_key(result.level) > level_key(self.highest_level):
                self.highest_level = result.level
        elif result.outcome is Outcome.STUCK:
            self.stuck += 1
        else:
            self.undecided += 1

    def as_json(self) -> dict[str, Any]:
        return {
            "checked": self.checked,
            "comes_apart": self.apart,
            "does_not": self.stuck,
            "undecided": self.undecided,
            "one_piece": self.one_piece,
            "highest_level": self.highest_level or None,
            "positions": self.positions,
            "seconds": round(self.seconds, 4),
        }

    def describe(self) -> str:
        text = f"disassembly: {self.apart} of {self.checked} assemblies come apart (one checked per class"
        text += f"; highest level {self.highest_level})" if self.apart else ")"
        if self.undecided:
            text += f"; {self.undecided} undecided (position or time limit)"
        if self.one_piece:
            single = "a single piece" if self.one_piece == 1 else "single pieces"
            text += f"; {self.one_piece} of them {single}, nothing to take apart"
        return text


@dataclass
class AssemblyChecker:
    """A run's `--disassemble`: takes each new unique assembly apart, keeps the summary, and knows
    when --first or --max-solutions (then counting assemblies that come apart) have enough."""

    assemble: Callable[[Solution], Sequence[AssembledPiece]]  # the model's pieces of a solution
    disassembler: Disassembler
    wanted: int | None
    summary: DisassemblySummary = field(default_factory=DisassemblySummary)
    load_seconds: float = 0.0  # loading the compiled search: left out of a run's seconds, as an engine's load

    def check(self, solution: Solution) -> Disassembly:
        return self.check_all([solution])[0]

    def check_all(self, solutions: Sequence[Solution]) -> list[Disassembly]:
        """Take each of these assemblies apart, in order (the compiled ones in batches)."""
        started = time.perf_counter()
        results = self.disassembler.analyse_all([self.assemble(solution) for solution in solutions])
        for result in results:
            self.summary.add(result)
        self.summary.seconds += time.perf_counter() - started
        return results

    def release(self) -> None:
        """The run is over: its disassembler's kernels go back to the process (`Disassembler.release`)."""
        self.disassembler.release()

    @property
    def one_at_a_time(self) -> bool:
        """--first or --max-solutions: the run stops at the assembly that makes them enough, so
        assemblies are taken apart one at a time, each before the next solution is counted."""
        return self.wanted is not None

    def enough(self) -> bool:
        return self.wanted is not None and self.summary.apart >= self.wanted
