"""The bit-parallel exact-cover search (bitset_kernel.py): the placements as bit sets over words,
the column with the fewest live placements found by population counts.

It takes problems where no cell may stay empty and no piece counts towards a group, with at most
MAX_ATOMS placements (its clash table is placements x placements bits: 2 MB at the most).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from cpsolve import native
from cpsolve.engines.base import Spill
from cpsolve.models import CoverProblem
from cpsolve.symmetry import Solution

from .cover_search import found_solutions, in_slices

# placements (bits of a live set) this search takes: 64 words, so that which of them are not empty
# is one word (bitset_kernel's nonempty), and a clash table of 2 MB
MAX_ATOMS = 4096
NOT_CHOSEN = -1  # bitset_kernel's column[d] before a column is chosen


def takes(problem: CoverProblem) -> bool:
    """Whether this search can run the problem: every cell filled, no piece groups, few enough
    placements for its tables."""
    return not problem.optional and not problem.piece_group and 0 < problem.atoms <= MAX_ATOMS


def _words(count: int) -> int:
    return max(1, (count + 63) // 64)


def _filled(sets: Any) -> Any:
    """For each bit set (a row of at most 64 words), which of its words are not empty: bit k for word k."""
    weights = np.left_shift(np.uint64(1), np.arange(sets.shape[1], dtype=np.uint64))
    return np.bitwise_or.reduce(np.where(sets != 0, weights, np.uint64(0)), axis=1).astype(np.uint64)


def _bits(members: Any, width: int) -> Any:
    """One bit set of `width` words: bit m for each m of the array (packed by numpy, little-endian
    words as the kernel reads them)."""
    chosen = np.zeros(width * 64, np.bool_)
    chosen[members] = True
    return np.packbits(chosen, bitorder="little").view("<u8").astype(np.uint64)


@dataclass(frozen=True)
class BitsetSearch:
    problem: CoverProblem

    @staticmethod
    def of(problem: CoverProblem) -> BitsetSearch | None:
        return BitsetSearch(problem) if takes(problem) else None

    @property
    def pieces(self) -> int:
        return len(self.problem.piece_bounds)

    @cached_property
    def order(self) -> Any:
        """The placements as the kernel numbers them: by their lowest cell in the fill order, so
        that the placements of a cell lie in a few words (bitset_kernel: a count reads only those)."""
        problem = self.problem
        rank = np.arange(problem.cells, dtype=np.int64)
        if len(problem.fill_order) == problem.cells:
            rank[list(problem.fill_order)] = np.arange(problem.cells)
        cells = np.asarray(problem.atom_cells, np.int64)
        atoms, places = np.nonzero(cells >= 0)  # by placement: rows are padded (AlPackino's to 120 cells)
        firsts = np.flatnonzero(np.diff(atoms, prepend=-1))
        lowest = np.full(problem.atoms, problem.cells, np.int64)
        if len(atoms):
            lowest[atoms[firsts]] = np.minimum.reduceat(rank[cells[atoms, places]], firsts)
        return np.argsort(lowest, kind="stable")

    @cached_property
    def numbered(self) -> Any:
        """The kernel's number of each placement (`order` turned round)."""
        numbers = np.empty(self.problem.atoms, np.int64)
        numbers[self.order] = np.arange(self.problem.atoms)
        return numbers

    @cached_property
    def tables(self) -> tuple[Any, ...]:
        """What the kernel reads (bitset_kernel.search), its placements numbered by `order`: the
        placements of each cell, those that clash with each placement, and each piece's, as bit
        sets, and which of their words are not empty; each placement's piece and cells; the
        pieces' least and most counts and which are used exactly once."""
        problem = self.problem
        width = _words(problem.atoms)
        atom_cells = np.ascontiguousarray(np.asarray(problem.atom_cells, np.int64)[self.order])
        atom_piece = np.ascontiguousarray(problem.atom_piece[self.order], np.int64)
        cover = np.zeros((problem.cells, width), np.uint64)
        clash = np.zeros((problem.atoms, width), np.uint64)
        piece_atoms = np.zeros((self.pieces, width), np.uint64)
        native.kernel(native.BITSET_BIT_SETS)(atom_cells, atom_piece, cover, clash, piece_atoms)
        least = np.array([low for low, _ in problem.piece_bounds], np.int64)
        most = np.array([high for _, high in problem.piece_bounds], np.int64)
        once = ((least == 1) & (most == 1)).astype(np.int64)
        return (
            cover,
            clash,
            piece_atoms,
            atom_piece,
            atom_cells,
            least,
            most,
            once,
            _filled(cover),
            _filled(piece_atoms),
        )

    @cached_property
    def _every_part(self) -> tuple[Any, Any]:
        """What every part starts from: the live placements (all but the problem's excluded ones
        and those of pieces of `max: 0`) and the open cells (all), as bit sets."""
        problem = self.problem
        piece_atoms, most = self.tables[2], self.tables[6]
        live = _bits(np.arange(problem.atoms), _words(problem.atoms))
        live &= ~_bits(self.numbered[np.array(sorted(problem.excluded), np.int64)], len(live))
        for piece in np.flatnonzero(most == 0).tolist():  # `max: 0`: none of its placements
            live &= ~piece_atoms[piece]
        return live, _bits(np.arange(problem.cells), _words(problem.cells))

    def start(self, forced: Sequence[int], left_out: frozenset[int]) -> tuple[Any, Any, Any] | None:
        """The live placements, open cells and copies left once the forced placements are made and
        those left out are gone (in the kernel's numbers); None when the forced ones clash or use a
        piece too often. Once per part: SolidSixPieceBurrs has 62."""
        clash, piece_atoms, atom_piece, atom_cells, most = (self.tables[i] for i in (1, 2, 3, 4, 6))
        every_live, every_open = self._every_part
        live = every_live & ~_bits(self.numbered[np.fromiter(left_out, np.int64, len(left_out))], len(every_live))
        open_cells = every_open.copy()
        left = most.copy()
        for atom in self.numbered[np.array(forced, np.int64)].tolist():
            if not (live[atom >> 6] >> np.uint64(atom & 63)) & np.uint64(1):
                return None  # it clashes with one placed before, or its piece is used up
            piece = int(atom_piece[atom])
            left[piece] -= 1
            live &= ~clash[atom]
            if left[piece] == 0:
                live &= ~piece_atoms[piece]
            for cell in atom_cells[atom][atom_cells[atom] >= 0].tolist():
                open_cells[cell >> 6] &= ~(np.uint64(1) << np.uint64(cell & 63))
        return live, open_cells, left

    def _state(self, live: Any, open_cells: Any, left: Any) -> tuple[Any, ...]:
        """Fresh state for bitset_kernel.search (see there), deep enough for a placement a cell."""
        levels = self.problem.cells + 2
        lives = np.zeros((levels, len(live)), np.uint64)
        lives[0] = live
        opens = np.zeros((levels, len(open_cells)), np.uint64)
        opens[0] = open_cells
        nonempty = np.zeros(levels, np.uint64)
        nonempty[0] = sum(1 << word for word in np.flatnonzero(live).tolist())
        untried = np.zeros((levels, len(live)), np.uint64)
        pending = np.zeros(levels, np.uint64)
        column = np.full(levels, NOT_CHOSEN, np.int64)
        return lives, nonempty, opens, untried, pending, column, np.zeros(levels, np.int64), left.copy()

    def run(
        self, forced: Sequence[int], left_out: frozenset[int], budget: int, capacity: int, spill: Spill | None = None
    ) -> Iterator[tuple[list[Solution], int]]:
        """The part's solutions in slices of at most `budget` placements: (solutions, placements).
        With `spill`, the part stops once `spill.due()` and leaves the keys of what it has not
        searched in `spill.rest` (`_rest`), so that a search begun on one thread goes on on
        several only once it proves long (cpsolve.parts.BegunHere)."""
        search = native.kernel(native.BITSET_SEARCH)
        started = self.start(forced, left_out)
        if started is None:
            return
        work = self._state(*started)
        found = np.zeros((capacity, self.problem.cells + 1), np.int64)
        found_length = np.zeros(capacity, np.int64)
        fixed = list(forced)
        yield from in_slices(
            lambda depth, budget: search(self.tables, work, depth, budget, found, found_length),
            lambda written: found_solutions(fixed, self.order[found[:written]], found_length, written),
            budget,
            spill,
            lambda depth: self._rest(fixed[len(self.problem.forced) :], work, depth),
        )

    def _rest(self, key: Sequence[int], work: tuple[Any, ...], depth: int) -> list[tuple[int, ...]]:
        """The keys of parts that together search exactly what the part of `key` had left when
        its slice ended at `depth`: for each level down to `depth`, its column's placements not
        yet tried, each with the placements made above it (where `depth` has not chosen its
        column yet: that whole node). Every solution below a level holds exactly one of its
        column's live placements, so the parts are disjoint and miss nothing; shallowest first,
        the largest."""
        untried, column, chosen = work[3], work[5], work[6]
        path = [int(atom) for atom in self.order[chosen[:depth]]]
        rest: list[tuple[int, ...]] = []
        for level in range(depth + 1):
            above = (*key, *path[:level])
            if column[level] == NOT_CHOSEN:  # only where the slice ended before choosing: the node
                rest.append(above)
                break
            # a word leaves `pending` only once it is empty, and a column is left only when none is
            # pending: the words not pending are empty
            bits = np.flatnonzero(np.unpackbits(untried[level].view(np.uint8), bitorder="little"))
            rest.extend((*above, int(atom)) for atom in self.order[bits].tolist())
        return rest

    def estimate(self, roots: Sequence[int], probes: int, seed: int = 1) -> float:
        """Placements of the search that first places one of `roots` (say, each kept placement of
        the breaking set, a part each), from `probes` random paths (Knuth; bitset_kernel.estimate).
        The roots that clash with the problem's pre-placed pieces make no search."""
        started = self.start(self.problem.forced, frozenset())
        if started is None or probes <= 0:
            return 0.0
        live, open_cells, left = started
        numbers = self.numbered[np.asarray(roots, np.int64)] if len(roots) else np.zeros(0, np.int64)
        alive = (live[numbers >> 6] >> (numbers & 63).astype(np.uint64)) & np.uint64(1) == 1
        kernel = native.kernel(native.BITSET_ESTIMATE)
        work = self._state(live, open_cells, left)
        found, found_length = np.zeros((1, self.problem.cells + 1), np.int64), np.zeros(1, np.int64)
        first = np.ascontiguousarray(numbers[alive])
        total = kernel(self.tables, work, first, probes, np.array([seed], np.uint64), found, found_length)
        return float(total) / probes

    def first_choices(self, forced: Sequence[int], left_out: frozenset[int]) -> list[int] | None:
        """The live placements of the column the search branches on first once `forced` are made:
        every solution of the part holds exactly one of them. None when the board is already full."""
        search = native.kernel(native.BITSET_SEARCH)
        started = self.start(forced, left_out)
        if started is None:
            return []
        live, open_cells, left = started
        if not open_cells.any():
            return None
        work = self._state(live, open_cells, left)
        found = np.zeros((1, self.problem.cells + 1), np.int64)
        search(self.tables, work, 0, 0, found, np.zeros(1, np.int64))
        untried = work[3][0]  # fresh state: the words not pending stay zero
        bits = np.unpackbits(untried.view(np.uint8), bitorder="little")
        return sorted(self.order[np.flatnonzero(bits)].tolist())
