"""The compiled bit-parallel exact-cover search (numba); imported only when numba is installed.

Dancing links' choice of column on bit sets instead of links: the placements still possible (live)
are one bit each in W 64-bit words, and so are the placements that cover each cell (`cover`), that
clash with each placement (`clash`: share a cell with it, itself included) and that are a piece's
(`piece_atoms`). Placing a placement is W ANDs (live &= ~clash[a], and the piece's placements go
too once its copies are used); nothing is undone on the way back, each depth keeps its own live
set. The column branched on is the open cell with the fewest live placements, or a piece every
solution uses exactly once with fewer still: counted with population counts (W ANDs and counts a
column, stopped once no better than the best), every open cell and such piece compared, and a
column with none ends the branch at once (a cell no piece left can fill).

Measured against the searches it replaces (benchmarks/time_split.py, one worker): on
SolidSixPieceBurrs, whose 104 cells lie in a 6x6x6 box (too big for the box search), 242,049
placements in 0.03 s where the lowest-cell search makes 3,419,812 in 0.20 s; on AlPackino (180
cells) 16,754 in 0.007-0.010 s against 473,680 in 0.074 s; on the Kanoodle pyramid 336,208 in
0.07 s against the box search's 312,815 in 0.24 s. Where the box search takes a box of cubes it stays
ahead, looking only at the placements that fit a cell's open neighbours (the Tetris cube,
pentominoes), and so do the lowest-cell search's boards filled row by row where many
copies of one piece make every column long; cpsolve.engines.exact_cover.search_for chooses.

Every solution is met exactly once: at each level every solution below holds exactly one live
placement of the chosen column (a cell is covered once, such a piece placed once). No cell may
stay empty here (optional cells are the other searches'); a solution is a board with no open cell
whose pieces reach their least counts.

State per depth d (`work`): live[d]; nonempty[d], bit k set where live word k is not empty (only
those words are read or written: deep in the tree most are empty, and the Kanoodle pyramid's search
took 0.077-0.081 s so against 0.085-0.086 s reading all, benchmarks/time_split.py); open[d], the
open cells as words over the cells; untried[d], the chosen column's placements not yet tried, in
the words pending[d] names (those of the column's placements that are live: the placements are
numbered by their lowest cell in the fill order, so that a cell's lie in a few words, about 12 of
the pyramid's 26 and 7 of SolidSixPieceBurrs' 25, and a count reads only those); column[d] (-1: not
chosen yet); chosen[d], the placement made there; left[p], the copies of piece p not placed. Like
the other kernels it places at most `step_budget` placements a call and resumes where it left off;
with a budget of 0 it only chooses the root's column (its placements: untried[0]).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

from .bits import ONE, ZERO
from .cover_kernel import least_counts_met, write_found

Array = Any
# numpy scalars: the ahead-of-time compiler types a plain int as a literal, which a variable set
# from it then cannot take another value of
NOT_CHOSEN: Any = np.int64(-1)
NO_COLUMN: Any = np.int64(-2)  # no open cell and no piece left to branch on: the board is full
NO_BEST: Any = np.int64(1 << 30)
NO_ATOM: Any = np.int64(-1)


def _population_typed(typing_context: Any, word: Any) -> Any:
    """The set bits of a 64-bit word: LLVM's ctpop (one instruction where the target has it)."""
    signature = types.int64(types.uint64)  # int64: mixed with loop indexes, a uint64 made them floats

    def codegen(context: Any, builder: Any, signature: Any, arguments: Any) -> Any:
        return builder.ctpop(arguments[0])

    return signature, codegen


def _trailing_zeros_typed(typing_context: Any, word: Any) -> Any:
    """The index of the lowest set bit of a non-zero 64-bit word: LLVM's cttz."""
    signature = types.int64(types.uint64)  # int64: mixed with loop indexes, a uint64 made them floats

    def codegen(context: Any, builder: Any, signature: Any, arguments: Any) -> Any:
        return builder.cttz(arguments[0], context.get_constant(types.boolean, True))

    return signature, codegen


# called from compiled code as functions of one word (numba's intrinsics: typed by the above)
_population: Any = intrinsic(_population_typed)
_trailing_zeros: Any = intrinsic(_trailing_zeros_typed)


@njit(cache=True, inline="always")
def _live_in(live: Array, words: Any, column: Array, best: int) -> int:
    """How many of the live placements the column holds, counted only up to `best`; `words` has
    bit k set where live word k is not empty (the others are not read)."""
    count: int = 0
    while words != ZERO:
        word = _trailing_zeros(words)
        words &= words - ONE
        count += _population(live[word] & column[word])
        if count >= best:
            return count
    return count


@njit(cache=True)
def search(
    tables: tuple[Any, ...],
    work: tuple[Any, ...],
    depth: int,
    step_budget: int,
    found: Array,
    found_length: Array,
) -> tuple[int, int, int]:
    """Continue the search from `depth`; return (depth, solutions written to `found`, placements).

    `tables`: cover (cells x W), clash (placements x W), piece_atoms (pieces x W), atom_piece,
    atom_cells (placements x longest, padded with -1), least and most per piece, once (1 for a
    piece every solution uses exactly once), and which words of each cell's cover and each piece's
    placements are not empty (cover_words, piece_words: bit k for word k). `work`: live, nonempty,
    open, untried, pending, column, chosen, left (see the module). Returns when the tree is
    exhausted (depth -1), `found` is full, or after `step_budget` placements."""
    cover, clash, piece_atoms, atom_piece, atom_cells, least, most, once, cover_words, piece_words = tables
    live, nonempty, open_cells, untried, pending, column, chosen, left = work
    cells = cover.shape[0]
    pieces = least.shape[0]
    solutions = 0
    steps = 0
    while depth >= 0:
        if column[depth] == NOT_CHOSEN:
            best = NO_BEST
            best_column = NO_COLUMN
            for word in range(open_cells.shape[1]):
                bits = open_cells[depth, word]
                while bits != ZERO and best > 1:
                    cell = word * 64 + _trailing_zeros(bits)
                    bits &= bits - ONE
                    count = _live_in(live[depth], nonempty[depth] & cover_words[cell], cover[cell], best)
                    if count < best:
                        best = count
                        best_column = cell
                if best <= 1:
                    break
            if best_column == NO_COLUMN:  # the board is full: a solution if every least count is met
                if least_counts_met(left, least, most):
                    write_found(found, found_length, solutions, chosen, depth)
                    solutions += 1
                depth -= 1
                if depth >= 0:
                    left[atom_piece[chosen[depth]]] += 1
                if solutions == found.shape[0]:
                    return depth, solutions, steps
                continue
            for piece in range(pieces):
                if best <= 1:
                    break
                if once[piece] == 1 and left[piece] == 1:
                    count = _live_in(live[depth], nonempty[depth] & piece_words[piece], piece_atoms[piece], best)
                    if count < best:
                        best = count
                        best_column = cells + piece
            column[depth] = best_column
            if best_column < cells:
                held = cover[best_column]
                bits = nonempty[depth] & cover_words[best_column]
            else:
                held = piece_atoms[best_column - cells]
                bits = nonempty[depth] & piece_words[best_column - cells]
            pending[depth] = bits  # the words of untried[depth] that hold placements to try
            while bits != ZERO:
                word = _trailing_zeros(bits)
                bits &= bits - ONE
                untried[depth, word] = live[depth, word] & held[word]
        if steps >= step_budget:
            return depth, solutions, steps
        atom = NO_ATOM
        while pending[depth] != ZERO:
            word = _trailing_zeros(pending[depth])
            bits = untried[depth, word]
            if bits != ZERO:
                atom = word * 64 + _trailing_zeros(bits)
                untried[depth, word] = bits & (bits - ONE)
                break
            pending[depth] &= pending[depth] - ONE  # that word is tried out
        if atom < 0:  # every placement of the column tried: back up
            column[depth] = NOT_CHOSEN
            depth -= 1
            if depth >= 0:
                left[atom_piece[chosen[depth]]] += 1
            continue
        steps += 1
        chosen[depth] = atom
        piece = atom_piece[atom]
        left[piece] -= 1
        used_up = left[piece] == 0
        words = nonempty[depth]
        below = ZERO
        while words != ZERO:
            word = _trailing_zeros(words)
            words &= words - ONE
            kept = live[depth, word] & ~clash[atom, word]
            if used_up:
                kept &= ~piece_atoms[piece, word]
            live[depth + 1, word] = kept
            if kept != ZERO:
                below |= ONE << np.uint64(word)
        nonempty[depth + 1] = below
        for word in range(open_cells.shape[1]):
            open_cells[depth + 1, word] = open_cells[depth, word]
        for place in range(atom_cells.shape[1]):
            cell = atom_cells[atom, place]
            if cell >= 0:
                open_cells[depth + 1, cell >> 6] &= ~(ONE << np.uint64(cell & 63))
        depth += 1
        column[depth] = NOT_CHOSEN
    return depth, solutions, steps


@njit(cache=True)
def bit_sets(atom_cells: Array, atom_piece: Array, cover: Array, clash: Array, piece_atoms: Array) -> None:
    """Fill the search's bit sets (zeros given): the placements that cover each cell, that clash
    with each placement (the cover of each of its cells) and each piece's. Compiled: numpy's
    scatter and one gather a cell place took 16 ms of AlPackino's 23 ms run (its rows padded to
    a piece of 120 cells)."""
    atoms, longest = atom_cells.shape
    for atom in range(atoms):
        bit = ONE << np.uint64(atom & 63)
        word = atom >> 6
        piece_atoms[atom_piece[atom], word] |= bit
        for place in range(longest):
            cell = atom_cells[atom, place]
            if cell < 0:
                break
            cover[cell, word] |= bit
    for atom in range(atoms):
        for place in range(longest):
            cell = atom_cells[atom, place]
            if cell < 0:
                break
            for word in range(cover.shape[1]):
                clash[atom, word] |= cover[cell, word]


@njit(cache=True)
def estimate(
    tables: tuple[Any, ...],
    work: tuple[Any, ...],
    roots: Array,
    probes: int,
    random_state: Array,
    found: Array,
    found_length: Array,
) -> float:
    """Knuth's estimate of the placements of the search that first places one of `roots` (live at
    depth 0 of `work`), summed over `probes` random paths (divide by `probes`). A path places the
    roots in turn, then at each level a random one of the live placements of the column the search
    chooses there, adding the product of the columns' counts down to each level; it ends where a
    column has none or the board is full. Each level is one placement of `search` itself (its
    column choice, not a copy: that ran SolidSixPieceBurrs' search 0.025 -> 0.031 s as a shared
    helper), its column's placements left in untried[depth] for this to count and pick from.
    `random_state[0]`: the xorshift generator's state, left where the paths leave it; `found`: room
    for the one solution a path may end on."""
    untried, pending, column, left = work[3], work[4], work[5], work[7]
    count = roots.shape[0]
    total = 0.0
    if count == 0:
        return total
    random = np.uint64(random_state[0]) | ONE
    copies = left.copy()
    for probe in range(probes):
        left[:] = copies
        depth = 0
        atom = roots[probe % count]
        weight = float(count)
        while True:
            total += weight
            # the level's one placement to make: search places it and chooses the next column
            word = atom >> 6
            untried[depth, word] = ONE << np.uint64(atom & 63)
            pending[depth] = ONE << np.uint64(word)
            column[depth] = 0
            reached, _, _ = search(tables, work, depth, 1, found, found_length)
            if reached != depth + 1:  # the board is full
                break
            depth = reached
            choices = 0
            words = pending[depth]
            while words != ZERO:
                choices += _population(untried[depth, _trailing_zeros(words)])
                words &= words - ONE
            if choices == 0:
                break
            weight *= choices
            random ^= random << np.uint64(13)
            random ^= random >> np.uint64(7)
            random ^= random << np.uint64(17)
            step = np.int64(random % np.uint64(choices))
            words = pending[depth]
            while True:  # the step-th of the column's live placements
                word = _trailing_zeros(words)
                words &= words - ONE
                bits = untried[depth, word]
                here = _population(bits)
                if step < here:
                    while step > 0:
                        bits &= bits - ONE
                        step -= 1
                    atom = word * 64 + _trailing_zeros(bits)
                    break
                step -= here
    left[:] = copies
    random_state[0] = random
    return total
