"""Packings counted without listing: cells filled in a fixed order, every sub-problem counted once.

A packing is filled cell by cell in a fixed order: the first open cell must be covered by a
placement whose lowest cell it is (or, if it is optional, left empty). What remains to be done
then depends only on which cells beyond it are filled already (the *frontier*: a placement reaches
at most its own length ahead) and how many of each piece, group and hole are left, never on how
they came to be so. So the search is counted level by level: all sub-problems at one cell, each
with the number of ways it was reached, are moved on to the next cell together, and equal ones
merge. This is the depth-first search with a memo of every sub-problem's count (Knuth's and
Nishino et al.'s counting by memoised exact cover), run breadth-first: a sub-problem's memo entry
is never looked up again once the search has passed its cell, so only two levels are ever held,
and that is what `max_bytes` bounds. On boards of identical pieces it is the transfer-matrix
count; on distinct pieces the piece set is part of the sub-problem.

A sub-problem is one Python integer, compared exactly as a dictionary key (never a hash alone:
xcover 0.2.6 lost solutions that way): the filled cells as bits above the *resources*, which are
fields holding what is left of each piece's copies, each group's and the holes, each field with a
guard bit. Taking a placement subtracts its uses; a field that had too few borrows its guard bit,
so one subtraction and one mask test check every bound at once. Counts are Python integers, exact
at any size.

The same counter counts the solutions a symmetry g leaves unchanged (for Burnside's lemma,
cpsolve.counting.burnside): such a solution is a union of whole g-orbits of placements, so the
moves are the orbits whose placements do not overlap, each using its pieces as many times as it
holds them (a mirror image that swaps a piece for its partner uses both), and the holes are
whole orbits of optional cells. Copies of one piece are one piece with a count (a placement is a
piece's shape in cells, never a numbered copy), so a symmetry that swaps two copies leaves the
solution unchanged, as it should.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from cpsolve import native
from cpsolve.engines.frontier.codes import EMPTY, FULL, OVERFLOW
from cpsolve.limits import NO_DEADLINE, Deadline
from cpsolve.models.base import CoverProblem

STATE_BYTES = 200  # one sub-problem in the dictionaries of two levels, measured (docs/counting.md)
CHECK_EVERY = 1 << 14  # sub-problems between looks at the clock
SLICE_SLOTS = 1 << 16  # the compiled counter's slots between looks at the clock and Ctrl-C
LOAD = 0.7  # the compiled counter's tables grow past this share of their slots
LevelHook = Callable[[int, int], None]  # (cells done, sub-problems held) after each cell


class FrontierTooWide(Exception):
    """A level held more sub-problems than the counter may keep."""

    def __init__(self, cell: int, cells: int, states: int) -> None:
        super().__init__(cell, cells, states)
        self.cell = cell
        self.cells = cells
        self.states = states


@dataclass(frozen=True)
class Resource:
    """One bounded thing a move uses: a piece, a group of pieces, or the holes."""

    shift: int
    width: int  # bits without the guard
    low: int
    high: int

    @property
    def guard(self) -> int:
        return 1 << (self.shift + self.width)

    def left(self, state: int) -> int:
        return (state >> self.shift) & ((1 << self.width) - 1)


@dataclass(frozen=True)
class FrontierProblem:
    """A packing to count: `moves[i]` fill position i (its lowest), each (cells, uses) with the
    cells as bits shifted above the resources; `start` is the state before any move."""

    positions: int
    resource_bits: int
    resources: tuple[Resource, ...]
    moves: tuple[tuple[tuple[int, int], ...], ...]
    start: int

    @property
    def guards(self) -> int:
        return sum(r.guard for r in self.resources)

    def first_open(self, state: int) -> int:
        """The lowest position a state leaves open (`positions` when all are filled)."""
        filled = state >> self.resource_bits
        return ((filled + 1) & ~filled).bit_length() - 1

    def first_moves(self) -> list[int]:
        """The state after each move that fits the start's first open position: disjoint parts
        whose counts add up to the whole (the start itself when every position is filled). Two
        moves may lead to one state (two orbits of dominoes that tile one square): it is then
        listed twice, once for each, as the count takes it."""
        where = self.first_open(self.start)
        if where >= self.positions:
            return [self.start]
        guards, start = self.guards, self.start
        return [
            start - uses + cells
            for cells, uses in self.moves[where]
            if not start & cells and (start - uses) & guards == guards
        ]

    def accepted(self, state: int) -> bool:
        """A filled state's resources within their lower bounds."""
        return all(r.high - r.left(state) >= r.low for r in self.resources)

    def count(
        self,
        start: int | None = None,
        deadline: Deadline = NO_DEADLINE,
        max_bytes: int | None = None,
        on_level: LevelHook | None = None,
        compiled: bool | None = None,
    ) -> int:
        """The number of ways to fill every position from `start` (default: the problem's start).
        Compiled (cpsolve.engines.frontier.kernel) where numba is installed and the sub-problems
        fit two 64-bit words (`compiled` None), or as asked. Raises FrontierTooWide when the
        levels held would pass `max_bytes`, OutOfTimeError once the deadline has passed."""
        state = self.start if start is None else start
        if compiled is None:
            compiled = self.compiles() and native.installed("numba")
        if compiled:
            return CompiledCount(self, state, deadline, max_bytes, on_level).count()
        return self._count_in_python(state, deadline, max_bytes, on_level)

    def compiles(self) -> bool:
        """Whether every sub-problem fits the compiled counter's two words: the resources with
        their guards in one, the filled positions ahead (at most 63) in the other."""
        ahead = max(
            (cells.bit_length() - self.resource_bits - p for p, moves in enumerate(self.moves) for cells, _ in moves),
            default=0,
        )
        start_ahead = (self.start >> self.resource_bits >> self.first_open(self.start)).bit_length()
        return self.resource_bits <= 64 and max(ahead, start_ahead) <= 63

    def _count_in_python(
        self, state: int, deadline: Deadline, max_bytes: int | None, on_level: LevelHook | None
    ) -> int:
        states = {state: 1}
        most = None if max_bytes is None else max(1, max_bytes // STATE_BYTES)
        guards, base = self.guards, self.resource_bits
        for position in range(self.first_open(state), self.positions):
            states, open_states = _split(states, 1 << (base + position), deadline)
            moves = self.moves[position]
            get = states.get
            for number, (state, ways) in enumerate(open_states):
                if not number % CHECK_EVERY:
                    deadline.check("counting")
                    if most is not None and len(states) > most:
                        raise FrontierTooWide(position, self.positions, len(states))
                for cells, uses in moves:
                    if state & cells:
                        continue
                    after = state - uses
                    if after & guards != guards:
                        continue
                    after += cells
                    states[after] = get(after, 0) + ways
            if most is not None and len(states) > most:
                raise FrontierTooWide(position, self.positions, len(states))
            if on_level is not None:
                on_level(position + 1, len(states))
        deadline.check("counting")
        return sum(ways for state, ways in states.items() if self.accepted(state))

    def bound_limbs(self) -> int:
        """64-bit limbs enough for any count of this problem: each solution is a choice among at
        most `widest` moves at each of at most `decisions` positions where a move is made (one per
        copy of a piece or hole)."""
        widest = max((len(moves) for moves in self.moves), default=1)
        decisions = sum(r.high for r in self.resources) or self.positions
        bits = decisions * max(1, (widest - 1).bit_length())
        return max(1, -(-bits // 64))

    @cached_property
    def relative_moves(self) -> list[tuple[Any, Any]]:
        """Each position's moves for the compiled counter: the cells from that position on (bit 0
        is the position), and the uses, as two uint64 arrays."""
        result = []
        for position, moves in enumerate(self.moves):
            shift = self.resource_bits + position
            masks = np.array([cells >> shift for cells, _ in moves], np.uint64)
            uses = np.array([uses for _, uses in moves], np.uint64)
            result.append((masks, uses))
        return result


def load_compiled() -> bool:
    """Load the compiled counter (the build `cpsolve compile` made, else numba's cache) with a
    count of nothing, so that a run's clock does not time the loading, as for the engines; False
    where numba is not installed."""
    if not native.installed("numba"):
        return False
    FrontierProblem(1, 2, (Resource(0, 1, 0, 1),), (((1 << 2, 0),),), 0b10).count(compiled=True)
    return True


def _split(states: dict[int, int], bit: int, deadline: Deadline) -> tuple[dict[int, int], list[tuple[int, int]]]:
    """The sub-problems whose position `bit` is filled (they go on as they are) and the open ones,
    the deadline checked as they are sorted: a level of SolidSixPieceBurrs' millions took 1.4 s
    in two comprehensions, past a 20 s limit."""
    waiting: dict[int, int] = {}
    open_states: list[tuple[int, int]] = []
    items = iter(states.items())
    while chunk := list(itertools.islice(items, CHECK_EVERY)):
        deadline.check("counting")
        for state, ways in chunk:
            if state & bit:
                waiting[state] = ways
            else:
                open_states.append((state, ways))
    return waiting, open_states


class CountOverflow(Exception):
    """A count passed what its limbs hold: count again with one more."""


class Level:
    """One level of the compiled counter: a hash table of sub-problems and their counts, a row
    each (mask, resources, limbs)."""

    def __init__(self, capacity: int, limbs: int) -> None:
        self.table = np.empty((capacity, 2 + limbs), np.uint64)  # only the masks need clearing
        self.table[:, 0] = EMPTY
        self.held = 0

    def cleared(self) -> Level:
        """This table emptied, to hold a later level."""
        self.table[:, 0] = EMPTY
        self.held = 0
        return self

    @property
    def capacity(self) -> int:
        return int(self.table.shape[0])

    @property
    def most(self) -> int:
        return int(self.capacity * LOAD)

    @property
    def nbytes(self) -> int:
        return int(self.table.nbytes)

    def grown(self) -> Level:
        larger = Level(2 * self.capacity, self.table.shape[1] - 2)
        native.kernel(native.FRONTIER_REHASH)(self.table, larger.table)
        larger.held = self.held
        return larger


class CompiledCount:
    """One count on the compiled kernel, level by level, in slices of slots; again with more
    limbs when a count outgrows them."""

    def __init__(
        self,
        problem: FrontierProblem,
        state: int,
        deadline: Deadline,
        max_bytes: int | None,
        on_level: LevelHook | None,
    ) -> None:
        self.problem = problem
        self.state = state
        self.deadline = deadline
        self.max_bytes = max_bytes
        self.on_level = on_level

    def count(self) -> int:
        """One limb first (most counts fit it, and a limb is a third of a slot's memory); after an
        overflow, as many as the count's bound asks for, at least one more."""
        limbs = 1
        while True:
            try:
                return self._count(limbs)
            except CountOverflow:
                limbs = max(limbs + 1, self.problem.bound_limbs())

    def _count(self, limbs: int) -> int:
        rehash, step = native.kernel(native.FRONTIER_REHASH), native.kernel(native.FRONTIER_STEP)
        problem, base = self.problem, self.problem.resource_bits
        first = problem.first_open(self.state)
        level = Level(16, limbs)
        one = np.zeros(limbs, np.uint64)
        one[0] = 1
        mask = self.state >> (base + first) if first < problem.positions else 0
        start = np.array([[mask, self.state & ((1 << base) - 1), *one.tolist()]], np.uint64)
        rehash(start, level.table)  # the start, as a table of one
        level.held = 1
        guards = np.uint64(problem.guards)
        spare: Level | None = None
        for position in range(first, problem.positions):
            masks, uses = problem.relative_moves[position]
            capacity = _capacity_for(level.held)
            following = spare.cleared() if spare is not None and spare.capacity == capacity else Level(capacity, limbs)
            slot = 0
            while slot < level.capacity:
                end = min(level.capacity, slot + SLICE_SLOTS)
                slot, following.held, status = step(
                    level.table, slot, end, masks, uses, guards, following.table, following.held, following.most
                )
                if status == OVERFLOW:
                    raise CountOverflow
                if status == FULL:
                    if self.max_bytes is not None and level.nbytes + 3 * following.nbytes > self.max_bytes:
                        raise FrontierTooWide(position, problem.positions, following.held)
                    following = following.grown()
                self.deadline.check("counting")
            level, spare = following, level
            if self.on_level is not None:
                self.on_level(position + 1, level.held)
        return self._accepted(level)

    def _accepted(self, level: Level) -> int:
        """The sum of the filled states' counts whose resources are within their lower bounds."""
        total = 0
        for row in level.table[level.table[:, 0] != np.uint64(0xFFFFFFFFFFFFFFFF)].tolist():
            if self.problem.accepted(int(row[1])):
                total += sum(int(limb) << (64 * n) for n, limb in enumerate(row[2:]))
        return total


def _capacity_for(held: int) -> int:
    """A table that holds as many sub-problems as the level before without growing (levels
    change slowly; a larger guess costs the memory the budget is for)."""
    return max(16, 1 << int(held / LOAD).bit_length())


def frontier_problem(
    cover: CoverProblem,
    order: Sequence[int],
    atom_map: Sequence[int] | None = None,
    cell_map: Sequence[int] | None = None,
) -> FrontierProblem:
    """The cover as a frontier count, cells taken in `order`; with a symmetry's `atom_map` and
    `cell_map`, the cover restricted to solutions that symmetry leaves unchanged (module doc)."""
    position = np.empty(cover.cells, np.int64)
    position[np.asarray(order, np.int64)] = np.arange(cover.cells)
    resources = _resources(cover)
    base = sum(r.width + 1 for r in resources)
    piece_of = cover.atom_piece.tolist()
    cells_of = [[c for c in row if c >= 0] for row in cover.atom_cells.tolist()]
    moves: list[list[tuple[int, int]]] = [[] for _ in range(cover.cells)]
    start = sum(r.guard + (r.high << r.shift) for r in resources)
    forced = set(cover.forced)
    for orbit in _orbits(cover.atoms, atom_map):
        if any(a in cover.excluded for a in orbit):
            continue
        cells = [int(position[c]) for a in orbit for c in cells_of[a]]
        if len(set(cells)) != len(cells):
            continue  # the orbit's placements overlap: no solution g leaves unchanged holds them
        uses = _uses([piece_of[a] for a in orbit], cover, resources)
        if uses is None:
            continue  # more copies of a piece or a group than there are: never in a solution
        mask = sum(1 << (base + p) for p in cells)
        if forced.intersection(orbit):
            start += mask - uses
        else:
            moves[min(cells)].append((mask, uses))
    hole = resources[-1] if cover.optional and cover.max_holes is not None else None
    for orbit in _orbits(cover.cells, cell_map, sorted(cover.optional)):
        cells = [int(position[c]) for c in orbit]
        if hole is not None and len(orbit) > hole.high:
            continue
        uses = 0 if hole is None else len(orbit) << hole.shift
        moves[min(cells)].append((sum(1 << (base + p) for p in cells), uses))
    return FrontierProblem(cover.cells, base, tuple(resources), tuple(tuple(m) for m in moves), start)


def _resources(cover: CoverProblem) -> list[Resource]:
    """The fields of a state: one per piece, then one per group, then one for the holes when
    they are bounded."""
    bounds: list[tuple[int, int]] = [*cover.piece_bounds, *cover.group_bounds]
    if cover.optional and cover.max_holes is not None:
        bounds.append((0, cover.max_holes))
    resources, shift = [], 0
    for low, high in bounds:
        width = max(1, int(high).bit_length())
        resources.append(Resource(shift, width, low, high))
        shift += width + 1
    return resources


def _uses(pieces: Sequence[int], cover: CoverProblem, resources: Sequence[Resource]) -> int | None:
    """What placing these pieces takes from the resources, as one number to subtract: one of each
    piece and of its group. None when it takes more of one than it has: such a move would borrow
    past its field's guard bit into the next field, so it is left out (it never fits anyway)."""
    taken: dict[int, int] = {}
    for piece in pieces:
        taken[piece] = taken.get(piece, 0) + 1
        group = cover.piece_group[piece] if cover.piece_group else -1
        if group >= 0:
            field = len(cover.piece_bounds) + group
            taken[field] = taken.get(field, 0) + 1
    if any(count > resources[field].high for field, count in taken.items()):
        return None
    return sum(count << resources[field].shift for field, count in taken.items())


def _orbits(size: int, mapping: Sequence[int] | None, members: Sequence[int] | None = None) -> list[list[int]]:
    """The orbits of the map's cycles through `members` (default: 0 .. size - 1), each from its
    lowest member; without a map, each member alone."""
    members = range(size) if members is None else members
    if mapping is None:
        return [[m] for m in members]
    seen: set[int] = set()
    orbits = []
    for member in members:
        if member in seen:
            continue
        orbit, at = [member], mapping[member]
        while at != member:
            orbit.append(at)
            at = mapping[at]
        seen.update(orbit)
        orbits.append(orbit)
    return orbits
