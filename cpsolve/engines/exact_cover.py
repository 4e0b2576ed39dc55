"""The exact-cover engine: a compiled fill-the-lowest-empty-cell search on bit boards (numba).

It takes a model's `cover_problem()` (packings whose pieces are each used exactly once, as today)
and the same symmetry breaking as CP-SAT, and hands the same solutions (sorted atoms) to the same
classifier. Breaking by pairs is not exact cover, so the search is split into parts, one per kept
atom r of the first breaking set: r is placed before the search starts, the first set's other
atoms and the second set's atoms paired with r are left out.

The search (cover_kernel.py) runs in bounded slices, so the time limit and Ctrl-C are honoured
within about a tenth of a second even where no solution turns up for a long time. It replaces the
xcover library used before, whose compiled generator could only be stopped between solutions.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from cpsolve.counting import Breaking, Solution
from cpsolve.limits import NO_DEADLINE, Deadline
from cpsolve.models import CoverProblem, PuzzleModel

from .base import Engine, Enumeration, Prepared, SearchOptions

STEP_BUDGET = 2_000_000  # placements per compiled call: well under 0.1 s between checks
FOUND_CAPACITY = 1024


class ExactCoverEngine(Engine):
    name = "exact-cover"
    takes_what = "packings (copies, ranges, groups, optional cells, colours)"
    required_module = "numba"
    extra = "exact-cover"

    def load(self) -> None:
        """Import numba and load the compiled search (about 1 s; the very first use after
        installing compiles it into numba's cache instead, a few seconds, once)."""
        problem = CoverProblem(
            cells=1,
            fill_order=(0,),
            atom_cells=np.zeros((1, 1), np.int64),
            atom_piece=np.zeros(1, np.int64),
            piece_bounds=((1, 1),),
        )
        list(CoverEnumeration(CoverSearch.of(problem), [Part((), frozenset())], SearchOptions(), NO_DEADLINE))

    def takes(self, puzzle: PuzzleModel) -> bool:
        return puzzle.cover_problem() is not None

    def prepare(self, puzzle: PuzzleModel, breaking: Breaking | None, deadline: Deadline = NO_DEADLINE) -> Prepared:
        problem = puzzle.cover_problem()
        if problem is None:
            raise ValueError(f"{puzzle.name}: not an exact cover")
        return ExactCoverPrepared(self, puzzle, breaking, CoverSearch.of(problem))


def _bits(ranks: Any, words: int) -> Any:
    """The given cell ranks as one bit board of `words` 64-bit words."""
    board = np.zeros(words, np.uint64)
    for rank in np.asarray(ranks, np.int64).tolist():
        board[rank // 64] |= np.uint64(1) << np.uint64(rank % 64)
    return board


@dataclass(frozen=True)
class CoverSearch:
    """The cover problem as the compiled search reads it: cells as bits in fill order."""

    problem: CoverProblem
    masks: Any  # uint64, atoms x words
    atom_min_rank: Any  # the lowest fill rank among each atom's cells
    target: Any  # uint64 words: every cell of the target
    optional: Any  # uint64 words: the cells that may stay empty
    least: Any
    most: Any
    group_of: Any  # group of each piece, -1 for none
    group_most: Any
    group_spare: Any  # most minus least of each group
    max_holes: int

    @staticmethod
    def of(problem: CoverProblem) -> CoverSearch:
        words = max(1, (problem.cells + 63) // 64)
        rank = np.empty(problem.cells, np.int64)
        rank[list(problem.fill_order)] = np.arange(problem.cells)
        padded = problem.atom_cells
        ranks = np.where(padded >= 0, rank[np.maximum(padded, 0)], -1)
        masks = np.zeros((problem.atoms, words), np.uint64)
        for column in range(ranks.shape[1]):
            present = ranks[:, column] >= 0
            bits = ranks[present, column]
            np.bitwise_or.at(
                masks, (np.nonzero(present)[0], bits // 64), np.left_shift(np.uint64(1), (bits % 64).astype(np.uint64))
            )
        atom_min_rank = np.where(ranks >= 0, ranks, problem.cells).min(axis=1)
        least = np.array([low for low, _ in problem.piece_bounds], np.int64)
        most = np.array([high for _, high in problem.piece_bounds], np.int64)
        group_of = np.array(problem.piece_group or [-1] * len(least), np.int64)
        group_most = np.array([high for _, high in problem.group_bounds], np.int64)
        group_spare = np.array([high - low for low, high in problem.group_bounds], np.int64)
        return CoverSearch(
            problem,
            masks,
            atom_min_rank,
            _bits(range(problem.cells), words),
            _bits(rank[sorted(problem.optional)], words),
            least,
            most,
            group_of,
            group_most,
            group_spare,
            len(problem.optional) if problem.max_holes is None else problem.max_holes,
        )


@dataclass(frozen=True)
class Part:
    """One disjoint part of the search: atoms placed before it starts, atoms it leaves out."""

    forced: tuple[int, ...]
    left_out: frozenset[int]


def parts_for(problem: CoverProblem, breaking: Breaking | None, first_atom: int | None = None) -> list[Part]:
    """One part per kept atom of the first breaking set (or the whole search without breaking)."""
    left_out = set(problem.excluded)
    if breaking is None:
        return [Part(problem.forced, frozenset(left_out))]
    left_out.update(breaking.forbidden)
    paired: dict[int, set[int]] = {}
    for first, second in breaking.forbidden_pairs:
        paired.setdefault(first, set()).add(second)
    kept = [r for r in dict.fromkeys(r for r, _ in breaking.weight) if r not in left_out]
    return [
        Part((*problem.forced, r), frozenset(left_out | (breaking.first - {r}) | paired.get(r, set())))
        for r in kept
        if first_atom is None or r == first_atom
    ]


class ExactCoverPrepared(Prepared):
    def __init__(self, engine: Engine, puzzle: PuzzleModel, breaking: Breaking | None, search: CoverSearch) -> None:
        super().__init__(engine, puzzle, breaking)
        self.search = search

    def enumerate(
        self, search: SearchOptions, deadline: Deadline = NO_DEADLINE, first_atom: int | None = None
    ) -> Enumeration:
        return CoverEnumeration(
            self.search, parts_for(self.search.problem, self.breaking, first_atom), search, deadline
        )


class CoverEnumeration(Enumeration):
    def __init__(self, cover: CoverSearch, parts: list[Part], search: SearchOptions, deadline: Deadline) -> None:
        super().__init__(search, deadline)
        self.cover = cover
        self.parts = parts
        self.steps = 0

    def __iter__(self) -> Generator[Solution, None, None]:
        for part in self.parts:
            if self.out_of_time():
                return
            for solution in self._search(part):
                yield solution
                if self.counted():
                    return
            if self.stopped_by is not None:
                return

    def _search(self, part: Part) -> Iterator[Solution]:
        from .cover_kernel import BIT_OF, search

        cover, problem = self.cover, self.cover.problem
        board = np.zeros(cover.masks.shape[1], np.uint64)
        left = cover.most.copy()
        group_left = cover.group_most.copy()
        for atom in part.forced:
            if (cover.masks[atom] & board).any():
                return  # the part's atom meets a pre-placed piece: no solution in it
            board |= cover.masks[atom]
            piece = problem.atom_piece[atom]
            left[piece] -= 1
            if cover.group_of[piece] >= 0:
                group_left[cover.group_of[piece]] -= 1
        if (left < 0).any() or (group_left < 0).any():
            return
        starts, candidates = self._candidates(part.left_out)
        placeable = np.bincount(problem.atom_piece[candidates], minlength=len(left)) > 0
        if ((left > cover.most - cover.least) & ~placeable).any():
            return  # a piece that must still be placed has no placement left: no solution here
        depth_limit = problem.cells + 1  # each level fills a cell or leaves one empty
        boards = np.zeros((depth_limit + 1, board.shape[0]), np.uint64)
        boards[0] = board
        cells = np.full(depth_limit + 1, -1, np.int64)
        positions = np.zeros(depth_limit + 1, np.int64)
        chosen = np.full(depth_limit + 1, -1, np.int64)
        holes = np.zeros(1, np.int64)
        found = np.zeros((FOUND_CAPACITY, depth_limit), np.int64)
        found_length = np.zeros(FOUND_CAPACITY, np.int64)
        forced = list(part.forced)
        depth = 0
        while depth >= 0:
            depth, written, steps = search(
                cover.masks,
                problem.atom_piece,
                starts,
                candidates,
                cover.target,
                cover.optional,
                cover.least,
                cover.most,
                cover.group_of,
                cover.group_spare,
                cover.max_holes,
                BIT_OF,
                left,
                group_left,
                holes,
                boards,
                cells,
                positions,
                chosen,
                depth,
                STEP_BUDGET,
                found,
                found_length,
            )
            self.steps += steps
            for row, length in zip(found[:written].tolist(), found_length[:written].tolist(), strict=True):
                yield tuple(sorted(forced + row[:length]))
            if depth >= 0 and self.out_of_time():
                return

    def _candidates(self, left_out: frozenset[int]) -> tuple[Any, Any]:
        """For each cell (by fill rank), the atoms whose lowest cell it is, as one flat array."""
        cover = self.cover
        usable = np.ones(cover.problem.atoms, bool)
        if left_out:
            usable[list(left_out)] = False
        atoms = np.nonzero(usable)[0]
        atoms = atoms[np.argsort(cover.atom_min_rank[atoms], kind="stable")]
        counts = np.bincount(cover.atom_min_rank[atoms], minlength=cover.problem.cells + 1)
        starts = np.concatenate(([0], np.cumsum(counts)))
        return starts.astype(np.int64), atoms.astype(np.int64)
