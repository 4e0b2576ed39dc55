"""What a model builder takes and returns: the solver-neutral puzzle every engine compiles from.

A family turns a validated spec into a `PuzzleModel`: its atoms (for packing, one per placement),
the symmetry group acting on those atoms, the atom sets of which every solution holds exactly one
(candidates for symmetry breaking), the means to show a solution, and what says which sets of
atoms are solutions. That last part comes in up to three forms, each built only when an engine
asks for it:

- `constraints()`: boolean variables (the atoms first, then any auxiliary ones) with exactly-one
  sets, clauses, bounded sums and circuits. Every puzzle has it; CP-SAT compiles it.
- `cover_problem()`: a packing of pieces into cells, for the exact-cover search.
- `chain_walk()`: a chain to lay through cells, for the chain walk.
- `edge_matching()`: a board of places to fill with turned tiles, for the tiles search.

So a run on the exact-cover search or the chain walk never builds constraints it does not use.
A family is one `Family` record (below) in `cpsolve.models.FAMILIES`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from cpsolve.counting import Classifier
from cpsolve.errors import ModelTooBigError
from cpsolve.geometry import Cell
from cpsolve.limits import DEFAULT_MAX_ATOMS, DEFAULT_MAX_TERMS, NO_DEADLINE, Deadline
from cpsolve.spec import LoadedSpec, SpecBase
from cpsolve.symmetry import Solution, SymmetryGroup

if TYPE_CHECKING:
    from cpsolve.disassembly import AssembledPiece, PieceGroups
    from cpsolve.grids import Grid


@dataclass(frozen=True)
class BuildOptions:
    """Limits and switches a user can set on the command line."""

    max_atoms: int = DEFAULT_MAX_ATOMS
    max_terms: int = DEFAULT_MAX_TERMS
    require_fixed_copies: bool = True
    top_first: bool = False  # draw the top layer and back row first, as a yass figure's file does


# A literal is a variable number v (true) or ~v, that is -v - 1 (false).
Literal = int


def negated(literal: Literal) -> Literal:
    return ~literal


@dataclass(frozen=True)
class Constraints:
    """Which assignments of boolean variables are solutions; variables 0 .. atoms - 1 are the atoms.

    `decision_order`: variables an engine that branches should decide first, true first, in this
    order (for packing: placements in target cell order, so the target fills cell by cell).
    """

    variables: int
    exactly_one: list[tuple[Literal, ...]]
    clauses: list[tuple[Literal, ...]]  # at least one literal true
    sums: list[tuple[tuple[int, ...], int, int]]  # variables, least, most true
    circuits: list[list[tuple[int, int, Literal]]]  # arcs (tail node, head node, literal)
    decision_order: list[int]
    at_most_one: list[tuple[Literal, ...]] = field(default_factory=list)
    weighted_sums: list[tuple[tuple[int, ...], tuple[int, ...], int, int]] = field(default_factory=list)


class ConstraintsBuilder:
    """Collects constraints and refuses, with the limit's name, a model that grows past max_terms."""

    def __init__(self, atoms: int, max_terms: int, deadline: Deadline = NO_DEADLINE) -> None:
        self.variables = atoms
        self.max_terms = max_terms
        self.deadline = deadline
        self.terms = 0
        self._exactly_one: list[tuple[Literal, ...]] = []
        self._clauses: list[tuple[Literal, ...]] = []
        self._sums: list[tuple[tuple[int, ...], int, int]] = []
        self._circuits: list[list[tuple[int, int, Literal]]] = []
        self._at_most_one: list[tuple[Literal, ...]] = []
        self._weighted_sums: list[tuple[tuple[int, ...], tuple[int, ...], int, int]] = []

    def expect(self, terms: int) -> None:
        """Refuse at once when the family's estimate of the literals to come passes the limit."""
        if terms > self.max_terms:
            raise ModelTooBigError(
                f"the constraints would hold about {terms:,} terms, more than --max-terms {self.max_terms:,};"
                " use a smaller puzzle or raise the limit"
            )

    def new_variable(self) -> int:
        self.variables += 1
        return self.variables - 1

    def _count(self, terms: int) -> None:
        self.terms += terms
        if self.terms > self.max_terms:
            raise ModelTooBigError(
                f"the constraints pass {self.max_terms:,} terms (limit --max-terms); use a smaller puzzle"
                " or raise the limit"
            )
        if self.terms & 0xFFFF < terms:  # about every 65,000 terms
            self.deadline.check("building the constraints")

    def exactly_one(self, literals: Iterable[Literal]) -> None:
        group = tuple(literals)
        self._count(len(group))
        self._exactly_one.append(group)

    def at_most_one(self, literals: Iterable[Literal]) -> None:
        group = tuple(literals)
        self._count(len(group))
        self._at_most_one.append(group)

    def weighted_sum_between(self, variables: Iterable[int], weights: Iterable[int], least: int, most: int) -> None:
        members, factors = tuple(variables), tuple(weights)
        self._count(len(members))
        self._weighted_sums.append((members, factors, least, most))

    def clause(self, literals: Iterable[Literal]) -> None:
        clause = tuple(literals)
        self._count(len(clause))
        self._clauses.append(clause)

    def implication(self, premise: Literal, conclusion: Literal) -> None:
        self.clause((negated(premise), conclusion))

    def sum_between(self, variables: Iterable[int], least: int, most: int) -> None:
        members = tuple(variables)
        self._count(len(members))
        self._sums.append((members, least, most))

    def circuit(self, arcs: list[tuple[int, int, Literal]]) -> None:
        self._count(len(arcs))
        self._circuits.append(arcs)

    def build(self, decision_order: list[int]) -> Constraints:
        return Constraints(
            self.variables,
            self._exactly_one,
            self._clauses,
            self._sums,
            self._circuits,
            decision_order,
            self._at_most_one,
            self._weighted_sums,
        )


@dataclass(frozen=True)
class CoverProblem:
    """A packing as exact cover: atoms are placements, each covering cells and using one piece.

    `atom_cells[a]` lists atom a's cells (numbered from 0, padded with -1), `atom_piece[a]` its
    piece; `piece_bounds[p]` is how many copies of piece p a solution uses (least, most), and
    `piece_group[p]` the group it counts towards (-1: none), whose bounds are `group_bounds`.
    `optional` cells may stay empty, at most `max_holes` of them (None: any number). `forced` atoms
    are in every solution (pre-placed pieces); `excluded` atoms never are (the other placements of
    a pre-placed piece). `fill_order` lists the cells in the order a search that fills cell by cell
    should take them (the family knows the geometry); `positions` gives each cell's grid
    coordinates (x, y, z) on the cube grid, so that a search can tell which cells are neighbours;
    `fewest_first` asks a search to fill the open cell the fewest placements fit rather than the
    lowest (the family says where that measured faster).
    """

    cells: int
    fill_order: tuple[int, ...]
    atom_cells: Any  # numpy int64 array, atoms x longest piece
    atom_piece: Any  # numpy int64 array, one piece per atom
    piece_bounds: tuple[tuple[int, int], ...]
    forced: tuple[int, ...] = ()
    excluded: frozenset[int] = frozenset()
    optional: frozenset[int] = frozenset()
    max_holes: int | None = None
    piece_group: tuple[int, ...] = ()  # empty: no groups
    group_bounds: tuple[tuple[int, int], ...] = ()
    positions: tuple[tuple[int, int, int], ...] = ()  # empty: not on a grid
    fewest_first: bool = False  # fill the open cell the fewest placements fit (the family's measured choice)

    @property
    def atoms(self) -> int:
        return int(self.atom_piece.shape[0])

    @property
    def most_empty(self) -> int:
        """How many optional cells a solution may leave empty at once: at most `max_holes`, and
        no more than the cells the pieces' least counts leave over."""
        sizes = np.zeros(len(self.piece_bounds), np.int64)
        pieces, first = np.unique(self.atom_piece, return_index=True)  # a piece's atoms all have its size
        sizes[pieces] = (self.atom_cells[first] >= 0).sum(axis=1)
        least = sum(int(size) * low for size, (low, _) in zip(sizes.tolist(), self.piece_bounds, strict=True))
        most = min(len(self.optional), max(self.cells - least, 0))
        return most if self.max_holes is None else min(most, self.max_holes)


@dataclass(frozen=True)
class ChainWalk:
    """A chain model as a walk: the chain is laid segment by segment through the target cells.

    Atom `cube * len(cells) + i` means "this cube of the chain lies in cells[i]", as in the
    constraints, so an engine that walks the chain hands the classifier the same solutions.
    """

    cells: tuple[Cell, ...]
    segments: tuple[int, ...]  # cubes per straight segment; consecutive segments share a cube

    def atom(self, cube: int, cell_index: int) -> int:
        return cube * len(self.cells) + cell_index


def side_neighbours(columns: int, rows: int) -> list[tuple[int, int, int, int]]:
    """For each place of a board (reading order), the place beyond its top, right, bottom and
    left side (-1: the board's edge): the one description of a tiles board's geometry."""
    result = []
    for place in range(columns * rows):
        x, y = place % columns, place // columns
        result.append(
            (
                place - columns if y > 0 else -1,
                place + 1 if x + 1 < columns else -1,
                place + columns if y + 1 < rows else -1,
                place - 1 if x > 0 else -1,
            )
        )
    return result


@dataclass(frozen=True)
class EdgeMatching:
    """A tiles model as a board to fill place by place with tiles whose touching edges fit.

    Labels are numbered 0 .. labels - 1. An orientation is one way a kind of tile can lie:
    `shown[o]` its labels on top, right, bottom and left, `orientation_kind[o]` its kind, of which
    `kind_copies[k]` tiles are given (copies are interchangeable: a search places the kind, never
    one copy rather than another). `fits[a, b]`: label a may touch label b (symmetric);
    `on_border[a]`: label a may lie on the board's outer edge. Places are numbered in reading
    order; `atom_of[place, o]` is the model's atom for that orientation there (-1: none), so a
    search hands the classifier the same solutions as CP-SAT.
    """

    columns: int
    rows: int
    labels: int
    shown: Any  # numpy int64 array, orientations x 4
    orientation_kind: Any  # numpy int64 array, one kind per orientation
    kind_copies: Any  # numpy int64 array, tiles per kind
    fits: Any  # numpy bool array, labels x labels
    on_border: Any  # numpy bool array, one per label
    atom_of: Any  # numpy int64 array, places x orientations

    @property
    def places(self) -> int:
        return self.columns * self.rows

    @cached_property
    def neighbours(self) -> Any:
        """numpy int64 array, places x 4 sides: the neighbouring place (-1: the edge)."""
        return np.array(side_neighbours(self.columns, self.rows), np.int64).reshape(-1, 4)

    @property
    def border_free(self) -> bool:
        """Every label may lie on the outer edge (`border: any`)."""
        return bool(self.on_border.all())


@dataclass
class PuzzleModel(ABC):
    """A puzzle ready for an engine; see the module docstring for the three forms of its rules."""

    name: str
    kind: str
    atom_count: int
    group: SymmetryGroup
    breaking_candidates: list[list[int]] = field(default_factory=list)
    breaking_labels: list[str] = field(default_factory=list)  # what each candidate is, for reports
    notes: list[str] = field(default_factory=list)
    # CP-SAT workers racing for a first solution (--first); measured per family (docs/engines.md)
    first_solution_workers: int = 4
    # what engines derived from this model (a compiled search), kept with it by the engine's key,
    # so that choosing the symmetry breaking and preparing the run build it once
    derived: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    family: Family | None = field(default=None, repr=False, compare=False)  # set by Families.build

    @abstractmethod
    def constraints(self, deadline: Deadline = NO_DEADLINE) -> Constraints:
        """The rules as boolean constraints; built on the first call (implementations cache it),
        the deadline looked at while they are built."""

    def cover_problem(self) -> CoverProblem | None:
        """The model as a packing exact cover, or None when it has other rules (the default)."""
        return None

    def chain_walk(self) -> ChainWalk | None:
        """The model as a chain to walk, or None when it is not a chain (the default)."""
        return None

    def edge_matching(self) -> EdgeMatching | None:
        """The model as a board of edge-matching tiles, or None when it is not one (the default)."""
        return None

    def extra_counts(self, classifier: Classifier) -> dict[str, int]:
        """Counts by other rules than cpsolve's, computed from a complete run's classes (none by default)."""
        return {}

    def problem_with(self, solution: Solution) -> str | None:
        """Why these atoms are not a solution (None: they are one), for solutions that come back
        from outside the search (a checkpoint). Without auxiliary variables or circuits the
        constraints decide it; families with those check in their own way."""
        if not all(0 <= atom < self.atom_count for atom in solution) or len(set(solution)) != len(solution):
            return "atoms out of range or repeated"
        rules = self.constraints()
        if rules.variables != self.atom_count or rules.circuits:
            raise NotImplementedError(f"{self.kind}: a family with auxiliary variables checks its own solutions")
        chosen = set(solution)

        def true(literal: int) -> bool:
            return (literal in chosen) if literal >= 0 else (negated(literal) not in chosen)

        if any(sum(map(true, group)) != 1 for group in rules.exactly_one):
            return "a place or a piece is not used exactly once"
        if any(sum(map(true, group)) > 1 for group in rules.at_most_one) or not all(
            any(map(true, clause)) for clause in rules.clauses
        ):
            return "the rules between atoms do not hold"
        if any(not low <= sum(map(true, members)) <= high for members, low, high in rules.sums):
            return "a count is out of its bounds"
        weighted = (
            (sum(w for v, w in zip(m, ws, strict=True) if true(v)), lo, hi) for m, ws, lo, hi in rules.weighted_sums
        )
        if any(not low <= total <= high for total, low, high in weighted):
            return "a weighted count is out of its bounds"
        return None

    @abstractmethod
    def describe(self, solution: Solution) -> dict[str, Any]:
        """The solution as plain data for JSON: what goes where."""

    @abstractmethod
    def render(self, solution: Solution) -> str:
        """The solution drawn as text for a person to build it from."""


# A family's part of a picture: the model, the solutions collected and what is known of each
# (their disassembly) -> the plain data its drawing in the page and the PNG reads.
SceneMaker = Callable[[PuzzleModel, Sequence[Solution], Sequence[Mapping[str, Any]]], dict[str, Any]]


@dataclass(frozen=True)
class Family:
    """One family of puzzles, all the rest of cpsolve needs to know of it in one record: its
    `kind` (the spec's field), its spec class, how its model is built, its part of a picture's
    scene and which drawing of the page and the PNG shows it ("pieces": cubes grouped in pieces,
    with a legend and a build order; "chain": cubes along a path; "tiles": a board of
    edge-matching tiles), and what it can do (`disassembles`: `--disassemble` takes it).

    Adding a family: a module in models/ that defines its model, builder and `FAMILY`, one line in
    `FAMILIES` (models/__init__.py), and, for a new drawing, its part of the viewer
    (cpsolve/pictures/viewer.js, png.py). Engines, counting and output stay as they are."""

    kind: str
    spec: type[SpecBase]
    builder: ModelBuilder
    scene: SceneMaker
    drawing: str
    disassembles: bool = False


@runtime_checkable
class Disassemblable(Protocol):
    """What a model of a family that `disassembles` offers the disassembler (cpsolve.disassembly)."""

    def assembled(self, solution: Solution) -> list[AssembledPiece]: ...

    def piece_groups(self) -> PieceGroups: ...

    def disassembly_grid(self) -> Grid:
        """The grid whose steps pieces move by (a grid without steps cannot be taken apart)."""
        ...


class ModelBuilder(ABC):
    """Turns one kind of validated spec into a PuzzleModel."""

    kind: str

    @abstractmethod
    def build(self, loaded: LoadedSpec, options: BuildOptions, deadline: Deadline = NO_DEADLINE) -> PuzzleModel:
        """Check what the schema cannot (geometry, volumes) and build the model.

        Raises a CpsolveError naming the file, field and line for anything the user must fix, and
        OutOfTimeError between steps once the deadline has passed.
        """
