"""The exact-cover engine: compiled searches on bit boards (numba) for packings.

It takes a model's `cover_problem()` and the same symmetry breaking as CP-SAT, and hands the
same solutions (sorted atoms) to the same classifier. Breaking by pairs is not exact cover, so
the search is split into parts, one per kept atom r of the first breaking set: r is placed before
the search starts, the first set's other atoms and the second set's atoms paired with r are left
out. A part may be split further by the placements of the next cell (`part_keys`).

Three searches, chosen by the target (`search_for`): the box search (box_search.py) on targets
within 128 cells of bounding box, the cell with the fewest open neighbours where they extend in
three directions and the lowest open cell where they are flat; the fewest-placements search
(fewest_kernel.py) where pieces must fill many optional cells or the grid asks for it; the lowest
open cell in fill order (cover_search.py, any size, groups) for the rest. All run in bounded
slices, so the time limit and Ctrl-C are honoured within about a tenth of a second
even where no solution turns up for a long time.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from enum import StrEnum

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
    Spill,
    breaking_parts,
)
from cpsolve.limits import NO_DEADLINE, Deadline
from cpsolve.models import CoverProblem, PuzzleModel
from cpsolve.symmetry import Breaking, Solution
from cpsolve.workers import Sharing

from .bitset_search import BitsetSearch
from .bitset_search import takes as bitset_takes
from .box_search import CHOOSE_AMONG, EVERY_OPEN_CELL, LOWEST, MAX_PIECES, BoxSearch, Layout
from .columns import merged_columns
from .cover_search import FEWEST, CoverSearch, fills_optional

SEARCH = "exact-cover search"  # the key of the model's search in `PuzzleModel.derived`
STEP_BUDGET = 2_000_000  # placements per compiled call: well under 0.1 s between checks
FOUND_CAPACITY = 1024
PART_PROBES = 64  # random paths to estimate each part's size, to hand out the largest first
PARALLEL_PLACEMENTS = 300_000  # estimated placements from which `--workers 0` uses every core (docs/engines.md)
THREADS_PLACEMENTS = 50_000  # the same where the parts run on threads (cpsolve.workers.Threaded)
# The same for the bit-parallel search, whose estimates see a larger tree than the run's (the
# Kanoodle pyramid's 336,208 placements estimated at 566,000) and whose threads slow the
# classifying one: SolidSixPieceBurrs
# (242,049 placements) 0.069 s on one thread, 0.083 on two; the pyramid 0.082 on either; the
# pyramid without symmetry breaking (2.7 million) 0.47 s on one, 0.30 on two (docs/measurements.md)
BITSET_THREADS_PLACEMENTS = 600_000
# Its paths for that estimate: enough to tell thousands from millions; 256 took 4 ms of AlPackino's
# 0.017 s run (one path is a placement a piece: 13 levels of choosing among 180 cells)
BITSET_SIZE_PROBES = 64
# Without an estimate, parts on threads from this many atoms: cutting a search into parts costs a
# few ms (Dracula's 69 atoms lost 10 ms, HexSticks' 180 lost 17 ms on two threads; SolidSix's 1,593
# gained; docs/measurements.md, "Speed, round three")
THREADS_ATOMS = 1_000
# A fewest-placements search (not estimated) of this many atoms or more is split into parts for
# every core before it starts: the 9x9x9 designs of docs/cluster.md (55,000-131,000 atoms) gain
# 1.0-1.9x on two, and begun in one process and handed over after 0.05 s they ran 0.80-0.98x
# that (their parts handed over searched slower). Below it a search is begun in this process and
# handed to every core once it proves long (cpsolve.parts.BegunHere).
PARALLEL_ATOMS = 20_000
# In a box too big for the box search, the bit-parallel one takes pieces of at most this many copies
# (`_bitset_first`: SolidSixPieceBurrs' pieces have up to 6, AlPackino's 4)
BITSET_MOST_COPIES = 8
Search = CoverSearch | BoxSearch | BitsetSearch  # the searches of a cover problem (`search_for`)
# A compiled search beyond the two `load` loads: (kind, board words, holes, every open cell compared).
Variant = tuple[str, int, bool, bool]
VARIANTS: tuple[Variant, ...] = (
    ("fewest", 0, False, False),
    ("bitset", 0, False, False),
    *(("box", size, holes, every) for size in (1, 2) for holes, every in ((True, False), (False, True), (True, True))),
)


class ExactCoverEngine(Engine):
    name = "exact-cover"
    takes_what = "packings (copies, ranges, groups, optional cells, colours)"
    required_module = "numba"
    extra = "exact-cover"

    def __init__(self) -> None:
        self.loaded = False  # this instance's compiled searches are loaded in this process
        self.variants: set[Variant] = set()  # and these variants (`load`)

    def load(self, puzzle: PuzzleModel | None = None, every_variant: bool = False) -> None:
        """Load both compiled searches (the box search for boards of one word and of two) once per
        process: the build `cpsolve compile` made (cpsolve.native, a few ms, no warm-up needed),
        else numba's import and cache, by calling each once (about 0.5 s; the very first use after
        installing compiles them into numba's cache instead, several seconds). With `puzzle`, also
        the variant only some puzzles take: the box search with holes or comparing every open cell
        (for boards of one word or two: loading it in the run took 5 ms of DemoPieceGenerator's 17)
        and the fewest-placements search; with `every_variant`, each of them."""
        self._load_searches()
        variants = VARIANTS if every_variant else []
        if puzzle is not None:
            variant = _variant(puzzle.cover_problem())  # built already: `takes` asked for it
            variants = [variant] if variant is not None else []
        for each in variants:
            self._load_variant(each)

    def _load_searches(self) -> None:
        if self.loaded:
            return
        if not native.warm_up_needed():
            self.loaded = True
            return
        line, block, wide = _one_piece(1), _one_piece(8, _BLOCK), _one_piece(80, _SLAB)
        for problem in (line, block, wide):
            search = search_for(problem)
            list(CoverEnumeration(search, [Part((), frozenset())], SearchOptions(), NO_DEADLINE))
            search.first_choices((), frozenset())  # a split's look at the first cell
        box = BoxSearch.of(block, CHOOSE_AMONG)
        assert box is not None
        box.estimate((0,), probes=1)
        self.loaded = True

    def _load_variant(self, variant: Variant) -> None:
        if variant in self.variants:
            return
        self.variants.add(variant)
        if not native.warm_up_needed():
            return
        kind, words, holes, every_cell = variant
        if kind == "fewest":
            search: Search | None = dataclasses.replace(CoverSearch.of(_one_piece(1)), choose=FEWEST)
        elif kind == "bitset":
            search = BitsetSearch.of(_one_piece(1))
            assert search is not None
            search.estimate((0,), probes=1)
        else:
            positions = _BLOCK if words == 1 else _SLAB
            problem = _one_piece_and_a_hole(positions) if holes else _one_piece(len(positions), positions)
            search = BoxSearch.of(problem, EVERY_OPEN_CELL if every_cell else CHOOSE_AMONG)
        assert search is not None
        list(CoverEnumeration(search, [Part((), frozenset())], SearchOptions(), NO_DEADLINE))

    def takes(self, puzzle: PuzzleModel, auto: bool = False) -> bool:
        return puzzle.cover_problem() is not None

    def search_estimator(self, puzzle: PuzzleModel) -> SearchEstimator | None:
        """Knuth's estimate on the box search and on the bit-parallel one (the latter to decide
        the threads only). Only the box search's 3-D estimates (fewest open neighbours) are
        steady: on pentominoes 6x10, 4096 paths put the X piece's search (2.5 million placements)
        anywhere from 1.9 to 5.5 million and another piece's (5.1 million) up to 177 million, so
        in 2-D the breaking keeps the fewest kept atoms. Nor where every open
        cell is compared (spheres): on the Kanoodle pyramid the probes took 0.29 s to choose a
        set whose search was 0.03 s shorter than the fewest kept atoms'."""
        search = _search_of(puzzle)
        if isinstance(search, BitsetSearch):
            # its estimates say whether threads pay (`capabilities`), not which set to break by: on
            # SolidSixPieceBurrs and the Kanoodle pyramid the best set's search was 0.008 s shorter
            # at most, and looking at every set would take longer (benchmarks/exact_cover_search.py)
            return SearchEstimator(search.estimate, steady=False, size_probes=BITSET_SIZE_PROBES)
        if not isinstance(search, BoxSearch):
            return None
        return SearchEstimator(search.estimate, steady=search.choose == CHOOSE_AMONG)

    def prepare(self, puzzle: PuzzleModel, breaking: Breaking | None, deadline: Deadline = NO_DEADLINE) -> Prepared:
        search = _search_of(puzzle)
        if search is None:
            raise ValueError(f"{puzzle.name}: not an exact cover")
        return ExactCoverPrepared(self, puzzle, breaking, search)


_BLOCK = tuple((x, y, z) for z in range(2) for y in range(2) for x in range(2))  # one word
_SLAB = tuple((x, y, z) for z in range(5) for y in range(4) for x in range(4))  # 80 cells: two words


def _variant(problem: CoverProblem | None) -> Variant | None:
    """Which compiled variant beyond those `load` loads the problem's search takes, told cheaply
    (without the search's tables, whose building a run counts), as `search_for` chooses: the box
    search's (board words, holes, every open cell compared) or the fewest-placements search."""
    if problem is None or problem.piece_group:
        return None
    many_filled = fills_optional(problem)
    layout = None if many_filled or not problem.positions else Layout.of(problem.positions)
    if _bitset_first(problem, layout):
        return ("bitset", 0, False, False)
    if layout is not None and len(problem.piece_bounds) <= MAX_PIECES:
        holes, every_cell = problem.most_empty > 0, _every_cell(problem, layout)
        words = 1 if layout.target[1] == 0 else 2
        return ("box", words, holes, every_cell) if holes or every_cell else None
    return ("fewest", 0, False, False) if problem.fewest_first or many_filled else None


def _one_piece_and_a_hole(positions: Sequence[tuple[int, int, int]]) -> CoverProblem:
    """One placement of one piece filling all but the last cell, which may stay empty."""
    cells = len(positions)
    return dataclasses.replace(
        _one_piece(cells - 1, positions), cells=cells, fill_order=tuple(range(cells)), optional=frozenset({cells - 1})
    )


def _one_piece(cells: int, positions: Sequence[tuple[int, int, int]] = ()) -> CoverProblem:
    """A target of `cells` cells filled by one placement of one piece: the smallest search there is,
    to load a compiled search (without positions: the lowest-cell search)."""
    return CoverProblem(
        cells=cells,
        fill_order=tuple(range(cells)),
        atom_cells=np.arange(cells, dtype=np.int64).reshape(1, cells),
        atom_piece=np.zeros(1, np.int64),
        piece_bounds=((1, 1),),
        positions=tuple(positions),
    )


def parts_for(problem: CoverProblem, breaking: Breaking | None, key: PartKey | None = None) -> list[Part]:
    """The problem's parts under the breaking (`breaking_parts`), its pre-placed pieces held and
    their other placements left out."""
    return breaking_parts(breaking, key, problem.forced, problem.excluded)


class CellChoice(StrEnum):
    """Which cell the search fills next (the JSON `cell_choice`)."""

    LOWEST = "lowest"  # the lowest open cell in the family's fill order
    FEWEST_NEIGHBOURS = "fewest-neighbours"  # among open cells with the fewest open neighbours
    FEWEST_PLACEMENTS = "fewest-placements"  # among the first open cells, the one the fewest placements fit


def cell_choice(search: Search) -> CellChoice:
    if isinstance(search, BitsetSearch) or (isinstance(search, BoxSearch) and search.choose == EVERY_OPEN_CELL):
        return CellChoice.FEWEST_PLACEMENTS
    if isinstance(search, BoxSearch) and search.choose != LOWEST:
        return CellChoice.FEWEST_NEIGHBOURS
    if isinstance(search, CoverSearch) and search.choose == FEWEST:
        return CellChoice.FEWEST_PLACEMENTS
    return CellChoice.LOWEST


def search_for(problem: CoverProblem) -> Search:
    """The fewest-placements search where the pieces fill many optional cells (`fills_optional`),
    else the box search wherever it takes the problem (at most 128 cells of bounding box, no
    groups): where the target extends in all three directions filling the cell with the
    fewest open neighbours, else the lowest open cell of a short-side-first order (pentominoes
    6x10: 0.12 s on the box search against 0.22 s on the lowest-cell search, whose tables look at
    every placement of a cell where the box search skips the pieces used and the placements
    that need a closed neighbour; docs/engines.md); where the family asks for the fewest
    placements (spheres) in three dimensions, comparing every open cell and the pieces used once;
    but where no cell may stay empty the bit-parallel search does that, and takes the 3-D boxes
    too big for the box search (`_bitset_first`). Else the lowest-cell search, over columns of the
    cells the same placements cover where cells have no positions (the rhombic and tetra-octa
    grids' voxels) or the box is too big (`merged_columns`)."""
    layout = Layout.of(problem.positions) if problem.positions else None
    if _bitset_first(problem, layout):
        return BitsetSearch(problem)
    if layout is None or fills_optional(problem):
        return CoverSearch.of(merged_columns(problem))
    choose = EVERY_OPEN_CELL if _every_cell(problem, layout) else CHOOSE_AMONG if layout.three_d else LOWEST
    box = BoxSearch.of(problem, choose)
    return box if box is not None else CoverSearch.of(problem)


def _bitset_first(problem: CoverProblem, layout: Layout | None) -> bool:
    """Whether the bit-parallel search takes the problem: one it can run (no cell left empty, no
    groups, at most bitset_search.MAX_ATOMS placements) on the cube grid in three dimensions,
    where the box search would compare every open cell (spheres: the Kanoodle pyramid's search
    0.24 -> 0.07 s) or cannot take the box (burrs: SolidSixPieceBurrs' lowest-cell search, 3.4
    million placements in 0.20 s, -> 242,049 in 0.03 s; docs/engines.md). Where the box search
    takes a box of cubes it stays faster, looking only at the placements that fit a cell's open
    neighbours (the Tetris cube 6.2 s against 7.0 s here), and flat boards keep the lowest cell, as
    do big boxes of many copies of a piece: there every cell has many placements, so the column
    chosen is seldom a short one, and each choice counts every cell (54 T-tetracubes in 6x6x6, the
    first solution: 0.12 s by the lowest cell, 0.58 s here)."""
    if not problem.positions or not bitset_takes(problem):
        return False
    if layout is None:  # a box of more than 128 cells
        spans = np.ptp(np.asarray(problem.positions, np.int64).reshape(-1, 3), axis=0)
        few_copies = max(most for _, most in problem.piece_bounds) <= BITSET_MOST_COPIES
        return bool((spans > 0).all()) and few_copies
    return _every_cell(problem, layout)


def _every_cell(problem: CoverProblem, layout: Layout) -> bool:
    """Whether the box search compares every open cell: where the family asks for the fewest
    placements (spheres) and the target extends in all three directions. A flat board of balls
    is a board of squares, where the lowest open cell is faster (Kanoodle's 5x11 board from
    empty: 2.11 s against 2.56; eleven pentominoes on it 0.074 s against 0.230;
    benchmarks/exact_cover_search.py)."""
    return problem.fewest_first and layout.three_d


def _search_of(puzzle: PuzzleModel) -> Search | None:
    """The model's search, made once and kept with the model (choosing the breaking and preparing
    the run both ask for it); None when the model is not an exact cover."""
    if SEARCH not in puzzle.derived:
        problem = puzzle.cover_problem()
        puzzle.derived[SEARCH] = None if problem is None else search_for(problem)
    search: Search | None = puzzle.derived[SEARCH]
    return search


class ExactCoverPrepared(Prepared):
    def __init__(self, engine: Engine, puzzle: PuzzleModel, breaking: Breaking | None, search: Search) -> None:
        super().__init__(engine, puzzle, breaking)
        self.search = search
        self.details = {"cell_choice": str(cell_choice(search))}

    def enumerate(
        self,
        search: SearchOptions,
        deadline: Deadline = NO_DEADLINE,
        part: PartKey | None = None,
        sharing: Sharing | None = None,
    ) -> Enumeration:
        parts = parts_for(self.search.problem, self.breaking, part)
        return CoverEnumeration(self.search, parts, search, deadline, sharing)

    def begun_here(self, search: SearchOptions, deadline: Deadline, spill: Spill) -> Enumeration | None:
        cover = self.search
        if not self._may_begin_here():
            return None
        return SpillingEnumeration(cover, parts_for(cover.problem, self.breaking), search, deadline, spill)

    def part_keys(self, wanted: int, within: list[PartKey] | None = None) -> list[PartKey]:
        """The kept atoms of the first breaking set (without a breaking: the whole search), or the
        parts `within`; while they are fewer than `wanted`, each part is split further by the
        placements that fit the cell the search fills next (every solution of the part holds
        exactly one of them), level by level, so that parts stay small enough to share the cores
        (or a cluster's workers)."""
        problem = self.search.problem
        # a kept atom that a pre-placed piece or a piece of `max: 0` leaves out makes no part
        keys = within
        if keys is None:
            keys = [key for key in super().part_keys(wanted) or [()] if parts_for(problem, self.breaking, key or None)]
        if len(keys) >= wanted:
            return keys
        while len(keys) < wanted:
            finer = self._split(keys)
            if len(finer) == len(keys):  # nothing left to split
                break
            keys = finer
        return self._largest_first(keys)

    def _split(self, keys: list[PartKey]) -> list[PartKey]:
        finer: list[PartKey] = []
        for key in keys:
            (part,) = parts_for(self.search.problem, self.breaking, key)
            choices = self.search.first_choices(part.forced, part.left_out)
            if choices is None:
                finer.append(key)
            else:
                finer.extend((*key, atom) for atom in choices)
        return finer

    def _largest_first(self, keys: list[PartKey]) -> list[PartKey]:
        """The parts by estimated size, largest first, where the estimates are steady (3-D): the
        workers take them in this order, so that no large part is left to run alone at the end.
        Not where every open cell is compared (spheres): 64 paths for each of the Kanoodle
        pyramid's 107 parts took 0.046 s, a fifth of its run, and the parts are small."""
        search = self.search
        if not isinstance(search, BoxSearch) or search.choose != CHOOSE_AMONG:
            return keys
        size = {}
        for key in keys:
            (part,) = parts_for(search.problem, self.breaking, key)
            size[key] = search.estimate_part(part.forced, part.left_out, PART_PROBES)
        return sorted(keys, key=lambda key: -size[key])

    def capabilities(self, cores: int) -> Capabilities:
        """It always splits: a search without symmetry breaking (a design no symmetry keeps) is cut
        by its first choices, so that `--workers` shares it too. The fewest-placements search hands
        work back (`CoverSearch._hand_back`) and, below PARALLEL_ATOMS atoms, is begun here and cut
        where it stands (`CoverSearch._rest`); so are the bit-parallel, box and lowest-cell
        searches where their estimate (or without one, their atoms) is too small for threads to
        pay (`BitsetSearch._rest`, `BoxSearch._rest`, `CoverSearch._lowest_rest`:
        `--workers 2` then costs nothing on a search that ends before it would be handed over).
        Every core by default for searches estimated big enough to gain from them
        (docs/engines.md), and for fewest-placements searches (which have no estimate: split up
        front from PARALLEL_ATOMS atoms, below begun here); else one."""
        hands_back = self._hands_back()
        estimate = self.estimated_placements
        # the searches that hand no work back run their parts on threads where the kernels let go of
        # the GIL: they cost little to start, and the later ones only once the search proves long;
        # the fewest-placements search keeps its forked processes, which hand work to one another
        threads = native.threads_run_apart() and not hands_back
        if threads:
            enough = BITSET_THREADS_PLACEMENTS if isinstance(self.search, BitsetSearch) else THREADS_PLACEMENTS
            worth = self.search.problem.atoms >= THREADS_ATOMS if estimate is None else estimate >= enough
        else:
            worth = hands_back if estimate is None else estimate >= PARALLEL_PLACEMENTS
        default = cores if worth else 1
        return Capabilities(
            splits=True,
            hands_back=hands_back,
            begins_here=self._begins_here() or (self._may_begin_here() and not worth),
            default_workers=default,
            threads=threads,
        )

    def _hands_back(self) -> bool:
        return isinstance(self.search, CoverSearch) and self.search.choose == FEWEST

    def _begins_here(self) -> bool:
        """Whether a fewest-placements search is begun here by default (below PARALLEL_ATOMS)."""
        cover = self.search
        return isinstance(cover, CoverSearch) and cover.choose == FEWEST and cover.problem.atoms < PARALLEL_ATOMS

    def _may_begin_here(self) -> bool:
        """Whether a run may begin the search here and hand the rest over once it proves long: the
        searches that stop where they stand, but not a fewest-placements search of PARALLEL_ATOMS
        placements or more (it could stop too; split up front, long 9x9x9 designs ran faster)."""
        cover = self.search
        return self._begins_here() or isinstance(cover, BitsetSearch | BoxSearch) or cover.choose != FEWEST


class CoverEnumeration(PartsInSlices):
    """The parts searched here; `sharing`: in a forked worker whose stream takes work back, where
    the fewest-placements search hands its untried placements to an idle worker."""

    def __init__(
        self,
        cover: Search,
        parts: list[Part],
        search: SearchOptions,
        deadline: Deadline,
        sharing: Sharing | None = None,
    ) -> None:
        super().__init__(parts, search, deadline)
        self.cover = cover
        self.sharing = sharing

    def slices(self, part: Part) -> Iterator[tuple[list[Solution], int]]:
        cover = self.cover
        if isinstance(cover, CoverSearch):
            return cover.run(part.forced, part.left_out, STEP_BUDGET, FOUND_CAPACITY, sharing=self.sharing)
        return cover.run(part.forced, part.left_out, STEP_BUDGET, FOUND_CAPACITY)


class SpillingEnumeration(PartsInSlices):
    """The parts of a search that can stop where it stands (`ExactCoverPrepared._may_begin_here`) one
    after the other in this process until `spill.due()`; then the part running stops, and
    `spill.rest` holds the keys of what it had left followed by those of the parts not begun."""

    def __init__(
        self,
        cover: CoverSearch | BitsetSearch | BoxSearch,
        parts: list[Part],
        search: SearchOptions,
        deadline: Deadline,
        spill: Spill,
    ) -> None:
        super().__init__(parts, search, deadline)
        self.cover = cover
        self.spill = spill

    def slices(self, part: Part) -> Iterator[tuple[list[Solution], int]]:
        return self.cover.run(part.forced, part.left_out, STEP_BUDGET, FOUND_CAPACITY, self.spill)

    def handed_over(self, begun: int) -> bool:
        """Whether the part stopped to hand its rest over, or ended once the spill was due: the
        parts not begun join that rest (each by its key: its atoms beyond the problem's
        pre-placed ones)."""
        if self.spill.rest is None and begun + 1 < len(self.parts) and self.spill.due():
            self.spill.rest = []  # a part that ends within its slice is never asked (Soma's two)
        if self.spill.rest is None:
            return False
        held = len(self.cover.problem.forced)
        self.spill.rest.extend(later.forced[held:] for later in self.parts[begun + 1 :])
        return True
