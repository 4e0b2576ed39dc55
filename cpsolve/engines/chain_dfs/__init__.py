"""The chain walk engine (`chain-dfs`): the chain laid segment by segment on a 64-bit board (numba).

Why a third engine: CP-SAT spends about 50 microseconds on each decision of a snake cube and
the second 4x4x4 snake needs 1.3 million of them (64 s in one process). Laying segments on a
bit board costs 45-65 nanoseconds a placement, dead-end check included, so the same
enumeration takes seconds (benchmarks/chain_walk.py). It takes the model's `chain_walk()`, the same
symmetry breaking as CP-SAT (which cells the first two cubes may take), and hands the same
solutions (sorted atoms) to the same classifier; CP-SAT stays the reference it is tested against.

It takes chains whose target fits in a bounding box of at most 64 cells (every 3x3x3 and 4x4x4
snake); larger targets run on CP-SAT. Between bounded stretches of compiled search it checks the
time limit and lets Ctrl-C through.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Generator, Iterator
from typing import Any

import numpy as np

from cpsolve import native
from cpsolve.engines.base import Engine, Enumeration, PartKey, Prepared, SearchOptions
from cpsolve.geometry import STEPS, Cell, bounding_box, step
from cpsolve.limits import NO_DEADLINE, Deadline
from cpsolve.models import ChainWalk, PuzzleModel
from cpsolve.symmetry import Breaking, Solution
from cpsolve.workers import Sharing

MAX_CELLS = 64  # one bit per cell of the bounding box
STEP_BUDGET = 1_000_000  # segment placements per compiled call: about 0.1 s between checks
FOUND_CAPACITY = 256


class ChainWalkEngine(Engine):
    name = "chain-dfs"
    takes_what = f"chains whose target fits in a box of {MAX_CELLS} cells"
    required_module = "numba"
    extra = "chain-dfs"

    def load(self, puzzle: PuzzleModel | None = None, every_variant: bool = False) -> None:
        """Load the compiled walk: the build `cpsolve compile` made (cpsolve.native), else numba's
        (the very first use after installing compiles it into numba's cache, a few seconds, once)."""
        walk = ChainWalk(((0, 0, 0), (1, 0, 0)), (2,))
        list(ChainEnumeration(walk, None, SearchOptions()))

    def takes(self, puzzle: PuzzleModel, auto: bool = False) -> bool:
        walk = puzzle.chain_walk()
        return walk is not None and fits(walk)

    def prepare(self, puzzle: PuzzleModel, breaking: Breaking | None, deadline: Deadline = NO_DEADLINE) -> Prepared:
        walk = puzzle.chain_walk()
        if walk is None:
            raise ValueError(f"{puzzle.name}: not a chain")
        return ChainWalkPrepared(self, puzzle, breaking, walk)


class ChainWalkPrepared(Prepared):
    def __init__(self, engine: Engine, puzzle: PuzzleModel, breaking: Breaking | None, walk: ChainWalk) -> None:
        super().__init__(engine, puzzle, breaking)
        self.walk = walk

    def enumerate(
        self,
        search: SearchOptions,
        deadline: Deadline = NO_DEADLINE,
        part: PartKey | None = None,
        sharing: Sharing | None = None,
    ) -> Enumeration:
        return ChainEnumeration(self.walk, self.breaking, search, deadline, None if part is None else part[0])


def fits(walk: ChainWalk) -> bool:
    size = bounding_box(walk.cells)
    return size[0] * size[1] * size[2] <= MAX_CELLS


@dataclasses.dataclass(frozen=True)
class Board:
    """The target as bits of its bounding box, and the precomputed moves the search makes."""

    origin: Cell
    size: Cell
    target: np.uint64
    outside: np.uint64  # bits of the bounding box that are not target cells: filled from the start
    inside: Any  # inside[d]: bits with a bounding-box neighbour along direction d
    shifts: Any  # shifts[d]: how far a bit moves one step along direction d
    rays: Any  # rays[bit, d, n]: the n - 1 bits after `bit` along d, 0 if they leave the box
    ray_ends: Any  # ray_ends[bit, d, n]: the last of them

    def bit(self, cell: Cell) -> int:
        a, b, _ = self.size
        x, y, z = (cell[i] - self.origin[i] for i in range(3))
        return x + a * (y + b * z)

    def contains(self, cell: Cell) -> bool:
        return all(0 <= cell[i] - self.origin[i] < self.size[i] for i in range(3))


def board_for(walk: ChainWalk) -> Board:
    origin: Cell = (min(c[0] for c in walk.cells), min(c[1] for c in walk.cells), min(c[2] for c in walk.cells))
    size = bounding_box(walk.cells)
    a, b, c = size
    longest = max(walk.segments)
    board = Board(
        origin,
        size,
        np.uint64(0),
        np.uint64(0),
        np.zeros(len(STEPS), np.uint64),
        np.array([1, -1, a, -a, a * b, -a * b], np.int64),
        np.zeros((a * b * c, len(STEPS), longest + 1), np.uint64),
        np.zeros((a * b * c, len(STEPS), longest + 1), np.int64),
    )
    box = [(origin[0] + x, origin[1] + y, origin[2] + z) for z in range(c) for y in range(b) for x in range(a)]
    for cell in box:
        bit = board.bit(cell)
        for direction in range(len(STEPS)):
            if board.contains(step(cell, direction)):
                board.inside[direction] |= np.uint64(1 << bit)
            _fill_rays(board, cell, direction, longest)
    target = sum(1 << board.bit(cell) for cell in walk.cells)
    outside = ((1 << (a * b * c)) - 1) & ~target
    return dataclasses.replace(board, target=np.uint64(target), outside=np.uint64(outside))


def _fill_rays(board: Board, cell: Cell, direction: int, longest: int) -> None:
    bit = board.bit(cell)
    ray, here = 0, cell
    for length in range(2, longest + 1):
        here = step(here, direction)
        if not board.contains(here):
            return
        ray |= 1 << board.bit(here)
        board.rays[bit, direction, length] = np.uint64(ray)
        board.ray_ends[bit, direction, length] = board.bit(here)


@dataclasses.dataclass(frozen=True)
class Start:
    """One root of the search: the first cube's cell and the directions the first segment may take."""

    cell: int  # index into walk.cells
    first_directions: tuple[bool, ...]


def starts(walk: ChainWalk, breaking: Breaking | None, first_atom: int | None = None) -> list[Start]:
    """The roots the breaking keeps, each with the cells the second cube may take.

    Chain breaking acts on the first two cubes only (the model's breaking candidates). A start
    on the wrong colour of the checkerboard is left out: cubes alternate colours along the chain,
    so a chain of n cubes lies on ceil(n / 2) cells of its first cube's colour.
    """
    n = len(walk.cells)
    forbidden = set(breaking.forbidden) if breaking else set()
    pairs = {frozenset(p) for p in breaking.forbidden_pairs} if breaking else set()
    if any(atom >= 2 * n for atom in forbidden | {a for p in pairs for a in p}):
        raise ValueError("chain symmetry breaking must act on the first two cubes only")
    index = {cell: i for i, cell in enumerate(walk.cells)}
    cubes = sum(walk.segments) - len(walk.segments) + 1
    odd_cells = sum(_colour(cell) for cell in walk.cells)
    cells_of_colour = (len(walk.cells) - odd_cells, odd_cells)
    result = []
    for i, cell in enumerate(walk.cells):
        if i in forbidden or cells_of_colour[_colour(cell)] != (cubes + 1) // 2:
            continue
        allowed = []
        for direction in range(len(STEPS)):
            j = index.get(step(cell, direction))
            second = None if j is None else walk.atom(1, j)
            allowed.append(
                second is not None
                and second not in forbidden
                and frozenset((i, second)) not in pairs
                and (first_atom is None or first_atom in (i, second))
            )
        if any(allowed):
            result.append(Start(i, tuple(allowed)))
    return result


def _colour(cell: Cell) -> int:
    return sum(cell) % 2


class ChainEnumeration(Enumeration):
    def __init__(
        self,
        walk: ChainWalk,
        breaking: Breaking | None,
        search: SearchOptions,
        deadline: Deadline = NO_DEADLINE,
        first_atom: int | None = None,
        check_dead_ends: bool = True,
    ) -> None:
        """`first_atom`: only the part of the search in which this kept breaking atom is true.

        `check_dead_ends=False` only to measure what the check is worth (benchmarks/chain_walk.py).
        """
        super().__init__(search, deadline)
        self.walk = walk
        self.check_dead_ends = check_dead_ends
        self.starts = starts(walk, breaking, first_atom)
        self.steps = 0
        self._index = {cell: i for i, cell in enumerate(walk.cells)}

    def __iter__(self) -> Generator[Solution, None, None]:
        if self.out_of_time():
            return
        board = board_for(self.walk)
        for start in self.starts:
            for directions in self._walk_from(board, start):
                yield from self.take([self._solution(start, directions)])
                if self.stopped_by is not None:
                    return
            if self.stopped_by is not None:
                return

    def _walk_from(self, board: Board, start: Start) -> Iterator[list[int]]:
        """The direction of every segment, for each solution from one start; stops at the deadline."""
        walk = native.kernel(native.CHAIN_WALK)

        segments = np.array(self.walk.segments, np.int64)
        directions = np.full(len(segments), -1, np.int64)
        heads = np.zeros(len(segments), np.int64)
        boards = np.zeros(len(segments), np.uint64)
        heads[0] = board.bit(self.walk.cells[start.cell])
        boards[0] = board.outside | np.uint64(1 << int(heads[0]))
        first_directions = np.array(start.first_directions, np.bool_)
        found = np.zeros((FOUND_CAPACITY, len(segments)), np.int64)
        depth = 0
        while depth >= 0:
            depth, written, steps = walk(
                board.rays,
                board.ray_ends,
                board.inside,
                board.shifts,
                segments,
                board.target,
                first_directions,
                self.check_dead_ends,
                directions,
                heads,
                boards,
                depth,
                STEP_BUDGET,
                found,
            )
            self.steps += steps
            yield from found[:written].tolist()
            if depth >= 0 and self.out_of_time():
                return

    def _solution(self, start: Start, directions: list[int]) -> Solution:
        cell = self.walk.cells[start.cell]
        atoms = [self.walk.atom(0, start.cell)]
        for length, direction in zip(self.walk.segments, directions, strict=True):
            for _ in range(length - 1):
                cell = step(cell, direction)
                atoms.append(self.walk.atom(len(atoms), self._index[cell]))
        return tuple(sorted(atoms))
