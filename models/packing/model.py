"""The packing model: atoms, constraints, the exact-cover form, symmetry breaking candidates.

One atom per de-duplicated placement (piece, cells); each target cell is covered by exactly one
placement; each piece is used within its bounds. Copies of a piece share its placements, so they
are never told apart.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

import numpy as np

from cpsolve.counting import Classifier
from cpsolve.errors import CpsolveError
from cpsolve.geometry import (
    Cell,
    cell_array,
)
from cpsolve.grids import Grid
from cpsolve.limits import (
    MAX_CELL_SETS,
    NO_DEADLINE,
    Deadline,
)
from cpsolve.spec import LoadedSpec, PackingSpec
from cpsolve.symmetry import AtomSymmetry, Solution, SymmetryGroup

from ..base import BuildOptions, Constraints, ConstraintsBuilder, CoverProblem, ModelBuilder, PuzzleModel
from .drawing import PackingDrawing
from .placements import PlacementList, fill_order, misshapen_fixed, placement_arrays
from .puzzle import PackingPuzzle, resolve
from .symmetries import PackingSymmetry

if TYPE_CHECKING:
    from cpsolve.disassembly import AssembledPiece, PieceGroups


class PackingModel(PuzzleModel):
    """A packing puzzle's atoms, symmetries and rules, plus what it takes to show solutions."""

    def __init__(self, puzzle: PackingPuzzle, options: BuildOptions, deadline: Deadline = NO_DEADLINE) -> None:
        self.puzzle = puzzle
        self.options = options
        self._cover: CoverProblem | None = None
        misshapen = misshapen_fixed(puzzle)
        self.colour_code = {name: n for n, name in enumerate(sorted(_colour_names(puzzle)), 1)}
        self._placement_arrays = placement_arrays(puzzle, self.colour_code, options.max_atoms, deadline, misshapen)
        self.placements = PlacementList(self._placement_arrays, puzzle, self.colour_code)
        super().__init__(name=puzzle.name, kind="packing", atom_count=len(self.placements), group=SymmetryGroup(()))
        self.notes.extend(
            f"pre-placed {puzzle.pieces[p.piece].name!r} does not have that piece's shape; its cells count as used"
            for p in misshapen
        )
        self.bounds = implied_bounds(puzzle)
        self.fixed_atoms = self._fixed_atoms()
        self.symmetry = PackingSymmetry(puzzle, self.placements, self._placement_arrays, self.notes)
        unplaceable = self._unplaceable()
        if unplaceable:
            # no solution, whatever the symmetries: do not build them (a target of many separate
            # parts turned on their own can have millions)
            self.notes.append(f"piece {unplaceable!r} fits nowhere in the target: there is no solution")
            identity = AtomSymmetry(tuple(range(self.atom_count)), proper=True)
            self.group = SymmetryGroup((identity,), unique_counts_raw=puzzle.symmetry == "none")
        else:
            self.group = self.symmetry.group(self.fixed_atoms, deadline)
        singles = self._single_pieces(self.fixed_atoms)
        if singles:
            self.breaking_candidates = [atoms for _, atoms in singles]
            self.breaking_labels = [f"piece {puzzle.pieces[index].name}" for index, _ in singles]
        else:
            cell_sets = self._cell_sets(self.fixed_atoms, deadline)
            self.breaking_candidates = [atoms for _, atoms in cell_sets]
            self.breaking_labels = [f"cell {cell}" for cell, _ in cell_sets]
        self.drawing = PackingDrawing(puzzle, self.placements, options.top_first)
        self._constraints: Constraints | None = None

    def _fixed_atoms(self) -> list[int]:
        """The placement of each pre-placed piece; with colours, the one colouring its cells allow."""
        if not self.puzzle.fixed:
            return []
        piece_index = {p.name: i for i, p in enumerate(self.puzzle.pieces)}
        index = {cell: i for i, cell in enumerate(self.puzzle.target)}
        placed = self._placement_arrays
        atoms = []
        for name, cells in self.puzzle.fixed:
            row = np.full(placed.cells.shape[1], len(index), placed.cells.dtype)
            row[: len(cells)] = sorted(index[cell] for cell in cells)
            same = (placed.pieces == piece_index[name]) & (placed.cells == row).all(axis=1)
            found = np.flatnonzero(same).tolist()
            if len(found) != 1:
                why = "the colours do not fit the target there" if not found else "its colours fit in several ways"
                raise CpsolveError(f"{self.name}: pre-placed piece {name!r}: {why}")
            atoms.extend(found)
        return atoms

    def _unplaceable(self) -> str | None:
        """The first piece that must be used but has no placement at all, if any."""
        placed = set(self._placement_arrays.pieces.tolist())
        return next(
            (p.name for i, p in enumerate(self.puzzle.pieces) if p.bounds.low > 0 and i not in placed),
            None,
        )

    def constraints(self, deadline: Deadline = NO_DEADLINE) -> Constraints:
        """Each target cell covered once, each piece within its bounds, groups within theirs."""
        if self._constraints is None:
            self._constraints = self._build_constraints(deadline)
        return self._constraints

    def _build_constraints(self, deadline: Deadline) -> Constraints:
        puzzle = self.puzzle
        builder = ConstraintsBuilder(self.atom_count, self.options.max_terms, deadline)
        placed = self._placement_arrays
        inside = placed.cells < len(puzzle.target)
        # each atom in the exactly-one of each of its cells, of its piece, and of its group
        builder.expect(int(inside.sum()) + 2 * self.atom_count)
        by_piece: list[list[int]] = [[] for _ in puzzle.pieces]
        for atom, piece in enumerate(placed.pieces.tolist()):
            by_piece[piece].append(atom)
        atoms, columns = np.nonzero(inside)
        cell_of = placed.cells[atoms, columns]
        by_cell = np.split(
            atoms[np.argsort(cell_of, kind="stable")],
            np.cumsum(np.bincount(cell_of, minlength=len(puzzle.target)))[:-1],
        )
        for cell, cell_atoms in zip(puzzle.target, by_cell, strict=True):
            if cell in puzzle.optional:
                builder.at_most_one(cell_atoms.tolist())
            else:
                builder.exactly_one(cell_atoms.tolist())
        if puzzle.max_holes is not None and puzzle.optional:
            optional = np.array([cell in puzzle.optional for cell in puzzle.target] + [False])
            covering = enumerate(optional[placed.cells].sum(axis=1).tolist())
            weighted = [(atom, weight) for atom, weight in covering if weight]
            least = len(puzzle.optional) - puzzle.max_holes
            builder.weighted_sum_between(
                (a for a, _ in weighted), (w for _, w in weighted), least, len(puzzle.optional)
            )
        for (low, high), piece_atoms in zip(self.bounds, by_piece, strict=True):
            if low == high == 1:
                builder.exactly_one(piece_atoms)
            else:
                builder.sum_between(piece_atoms, low, high)
        for name, (low, high) in puzzle.groups.items():
            members = [
                a
                for piece, piece_atoms in zip(puzzle.pieces, by_piece, strict=True)
                if piece.bounds.group == name
                for a in piece_atoms
            ]
            builder.sum_between(members, low, min(high, len(members)))
        for atom in self.fixed_atoms:
            builder.clause((atom,))
        return builder.build(self._in_search_order().tolist())

    def cover_problem(self) -> CoverProblem:
        """The packing as exact cover: target cells (the optional ones may stay empty), placements,
        piece and group bounds. Pieces all of whose copies are pre-placed have no other placement.
        Built on the first call."""
        if self._cover is None:
            self._cover = self._cover_problem()
        return self._cover

    def _cover_problem(self) -> CoverProblem:
        puzzle, pieces = self.puzzle, self.puzzle.pieces
        placed = self._placement_arrays
        atom_cells = np.where(placed.cells == len(self.puzzle.target), -1, placed.cells).astype(np.int64)
        atom_piece = placed.pieces.astype(np.int64)
        fixed_count = Counter(int(atom_piece[a]) for a in self.fixed_atoms)
        used_up = [number for number, piece in enumerate(pieces) if fixed_count[number] >= piece.bounds.high]
        is_used_up = np.zeros(len(pieces), bool)
        is_used_up[used_up] = True
        others = is_used_up[atom_piece]
        others[list(self.fixed_atoms)] = False
        excluded = frozenset(np.flatnonzero(others).tolist())
        most = [high for _, high in self.bounds]
        group_names = sorted(puzzle.groups)
        group_of = {name: number for number, name in enumerate(group_names)}
        group_bounds = []
        for name in group_names:
            low, high = puzzle.groups[name]
            members = sum(m for m, p in zip(most, pieces, strict=True) if p.bounds.group == name)
            group_bounds.append((low, min(high, members)))
        index = {c: i for i, c in enumerate(puzzle.target)}
        return CoverProblem(
            cells=len(puzzle.target),
            fill_order=fill_order(puzzle.target, puzzle.grid),
            atom_cells=atom_cells,
            atom_piece=atom_piece,
            piece_bounds=tuple(self.bounds),
            forced=tuple(self.fixed_atoms),
            excluded=excluded,
            optional=frozenset(index[c] for c in puzzle.optional),
            max_holes=puzzle.max_holes,
            piece_group=tuple(group_of[p.bounds.group] if p.bounds.group else -1 for p in pieces)
            if group_names
            else (),
            group_bounds=tuple(group_bounds),
            positions=_positions(puzzle) if puzzle.grid.box_layout else (),
            fewest_first=puzzle.grid.fewest_first,
        )

    def _single_pieces(self, fixed_atoms: list[int]) -> list[tuple[int, list[int]]]:
        """Each piece used exactly once and not pre-placed, with its placements in search order."""
        fixed_pieces = {int(self._placement_arrays.pieces[a]) for a in fixed_atoms}
        in_order = self._in_search_order()
        by_piece = in_order[np.argsort(self._placement_arrays.pieces[in_order], kind="stable")]
        count = np.bincount(self._placement_arrays.pieces, minlength=len(self.bounds))
        of_piece = np.split(by_piece, np.cumsum(count)[:-1])  # each piece's atoms, still in search order
        return [
            (index, of_piece[index].tolist())
            for index, (low, high) in enumerate(self.bounds)
            if low == high == 1 and index not in fixed_pieces
        ]

    def _cell_sets(self, fixed_atoms: list[int], deadline: Deadline) -> list[tuple[Cell, list[int]]]:
        """Where no piece is used exactly once (copies, ranges), the placements that cover one cell
        that must be filled: every solution holds exactly one of them as well, so they break
        symmetry as a piece does. One cell of each orbit under the target's symmetries (the others
        break alike), the smallest orbits first (the most symmetries keep their cell), at most
        MAX_CELL_SETS; placements in search order. The placements of all the chosen cells found in
        one pass over the placements' cells (a pass per cell took 3.6 s of 25,000 T-tetracubes in a
        50x50x40 box)."""
        maps = self.group.cell_maps
        if maps is None or self.group.order < 2:
            return []
        target = self.puzzle.target
        fixed_cells = {cell for atom in fixed_atoms for cell in self.placements[atom].cells}
        least_image = np.asarray(maps, np.int64).min(axis=0)  # each cell's orbit, named by its least cell
        first, size = np.unique(least_image, return_counts=True)
        chosen = [
            int(index)
            for _, index in sorted(zip(size.tolist(), first.tolist(), strict=True))
            if target[index] not in self.puzzle.optional and target[index] not in fixed_cells
        ][:MAX_CELL_SETS]
        deadline.check("choosing the symmetry breaking")
        cells = self._placement_arrays.cells
        slot = np.full(len(target) + 1, -1, np.int64)  # the chosen cell's number, by target cell (the last: outside)
        slot[chosen] = np.arange(len(chosen))
        rank = np.empty(self.atom_count, np.int64)  # each atom's place in search order
        rank[self._in_search_order()] = np.arange(self.atom_count)
        atoms, places = np.nonzero(slot[np.minimum(cells, len(target))] >= 0)
        which = slot[cells[atoms, places]]
        order = np.lexsort((rank[atoms], which))  # by chosen cell, then in search order
        atoms, which = atoms[order], which[order]
        bounds = np.searchsorted(which, np.arange(len(chosen) + 1))
        return [(target[index], atoms[bounds[n] : bounds[n + 1]].tolist()) for n, index in enumerate(chosen)]

    def _in_search_order(self) -> Any:
        """The atoms by their first target cell (branching then fills the target in order), then by
        atom, as an int64 array."""
        return np.lexsort((np.arange(self.atom_count), self._placement_arrays.cells[:, 0]))

    def extra_counts(self, classifier: Classifier) -> dict[str, int]:
        return self.symmetry.burrtools_unique(classifier)

    def problem_with(self, solution: Solution) -> str | None:
        """Checked on the exact cover (cheaper than the constraints): the placements' cells apart
        and covering every cell that must be filled, each piece within its bounds."""
        if not all(0 <= atom < self.atom_count for atom in solution) or len(set(solution)) != len(solution):
            return "atoms out of range or repeated"
        cover = self.cover_problem()
        cells = [int(c) for atom in solution for c in cover.atom_cells[atom] if c >= 0]
        if len(cells) != len(set(cells)):
            return "two pieces share a cell"
        if set(range(cover.cells)) - set(cells) - cover.optional:
            return "a cell of the target is left empty"
        if cover.max_holes is not None and len(cover.optional - set(cells)) > cover.max_holes:
            return "more holes than the puzzle allows"
        used = Counter(int(cover.atom_piece[atom]) for atom in solution)
        if any(not low <= used[piece] <= high for piece, (low, high) in enumerate(cover.piece_bounds)):
            return "a piece is used too few or too many times"
        if not set(cover.forced) <= set(solution) or set(solution) & cover.excluded:
            return "a pre-placed piece is not where it was placed"
        return None

    def describe(self, solution: Solution) -> dict[str, Any]:
        return {"pieces": self.drawing.pieces_of(solution)}

    def render(self, solution: Solution) -> str:
        return self.drawing.render(solution)

    def assembled(self, solution: Solution) -> list[AssembledPiece]:
        """The solution's pieces for the disassembler (PackingDrawing.assembled)."""
        return self.drawing.assembled(solution)

    def disassembly_grid(self) -> Grid:
        """The grid whose steps the disassembler moves pieces by."""
        return self.puzzle.grid

    def piece_groups(self) -> PieceGroups:
        """The spec's `disassembly_groups`, for the disassembler."""
        from cpsolve.disassembly import PieceGroups

        pieces = self.puzzle.pieces
        return PieceGroups({(group, p.name): copies for p in pieces for group, copies in p.disassembly_groups})


def _positions(puzzle: PackingPuzzle) -> tuple[Cell, ...]:
    """Where the box search lays out each target cell (`Grid.box_position`)."""
    return tuple(map(tuple, puzzle.grid.box_positions(cell_array(puzzle.target)).tolist()))


def implied_bounds(puzzle: PackingPuzzle) -> list[tuple[int, int]]:
    """Each piece's least and most copies as the volumes imply them: no more than fit in the
    target, and at least as many as the cells that must be filled need when every other piece is
    used as often as it may (BurrTools' "range optimisation"). PiecesOfEight problem 3 lists each
    of its eight pieces as 0 to 1, but 8 x 24 voxels fill its 192: each is used once, and so can
    break the symmetry. The solutions are the same; only the search knows more."""
    target, filled = len(puzzle.target), len(puzzle.target) - len(puzzle.optional)
    most = [min(p.bounds.high, target // len(p.cells)) for p in puzzle.pieces]
    room = sum(high * len(p.cells) for high, p in zip(most, puzzle.pieces, strict=True))
    bounds = []
    for piece, high in zip(puzzle.pieces, most, strict=True):
        size = len(piece.cells)
        needed = -(-(filled - (room - high * size)) // size)  # ceiling
        bounds.append((min(high, max(piece.bounds.low, needed)), high))
    return bounds


def _colour_names(puzzle: PackingPuzzle) -> set[str]:
    return {k for p in puzzle.pieces for k in p.colours if k} | set(puzzle.target_colours.values())


class PackingBuilder(ModelBuilder):
    kind = "packing"

    def build(self, loaded: LoadedSpec, options: BuildOptions, deadline: Deadline = NO_DEADLINE) -> PuzzleModel:
        assert isinstance(loaded.spec, PackingSpec)
        puzzle = resolve(loaded.spec, loaded.source, options.require_fixed_copies)
        return PackingModel(puzzle, options, deadline)
