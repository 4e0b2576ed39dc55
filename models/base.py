"""What a model builder takes and returns: the one interface every puzzle family implements.

A builder turns a validated spec into a `PuzzleModel`: a CP-SAT model with one boolean per atom
(for packing, one per placement), the symmetry group acting on those atoms, the atom sets of which
every solution holds exactly one (candidates for symmetry breaking), and the means to show a
solution. The engine, the counting and the output never look inside a family; to add one, copy
`models/packing.py`'s shape: a spec class registered in `cpsolve.spec`, a builder registered in
`cpsolve.models.BUILDERS`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ortools.sat.python import cp_model

from cpsolve.counting import Solution, SymmetryGroup
from cpsolve.geometry import Cell
from cpsolve.spec import LoadedSpec

DEFAULT_MAX_ATOMS = 2_000_000


@dataclass(frozen=True)
class BuildOptions:
    """Limits and switches a user can set on the command line."""

    max_atoms: int = DEFAULT_MAX_ATOMS
    require_fixed_copies: bool = True


@dataclass(frozen=True)
class ExactCoverRows:
    """A model that is a pure exact cover: every item covered exactly once, nothing else.

    `covers[atom]` lists the items (numbered from 0) that the atom covers; `excluded` atoms can
    never be true (the other placements of a pre-placed piece). Engines that only know exact cover
    take this instead of the CP-SAT model; the atoms and the symmetry group stay the same.
    """

    items: int
    covers: tuple[tuple[int, ...], ...]
    excluded: frozenset[int] = frozenset()


@dataclass(frozen=True)
class ChainWalk:
    """A chain model as a walk: the chain is laid segment by segment through the target cells.

    Atom `cube * len(cells) + i` means "this cube of the chain lies in cells[i]", as in the CP-SAT
    model, so an engine that walks the chain hands the classifier the same solutions.
    """

    cells: tuple[Cell, ...]
    segments: tuple[int, ...]  # cubes per straight segment; consecutive segments share a cube

    def atom(self, cube: int, cell_index: int) -> int:
        return cube * len(self.cells) + cell_index


@dataclass
class PuzzleModel(ABC):
    """A puzzle ready for an engine."""

    name: str
    kind: str
    model: cp_model.CpModel
    atoms: list[cp_model.IntVar]
    group: SymmetryGroup
    search_order: list[cp_model.IntVar] = field(default_factory=list)
    breaking_candidates: list[list[int]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # CP-SAT workers racing for a first solution (--first); measured per family, see README
    first_solution_workers: int = 4

    def forbid(self, atoms: Sequence[int], pairs: Sequence[tuple[int, int]] = ()) -> None:
        """Fix atoms to false, and pairs of atoms to not both true (symmetry breaking)."""
        for atom in atoms:
            self.model.add(self.atoms[atom] == 0)
        for first, second in pairs:
            self.model.add_bool_or([self.atoms[first].Not(), self.atoms[second].Not()])

    def exact_cover(self) -> ExactCoverRows | None:
        """The model as a pure exact cover, or None when it has side constraints (the default)."""
        return None

    def chain_walk(self) -> ChainWalk | None:
        """The model as a chain to walk, or None when it is not a chain (the default)."""
        return None

    @abstractmethod
    def describe(self, solution: Solution) -> dict[str, Any]:
        """The solution as plain data for JSON: what goes where."""

    @abstractmethod
    def render(self, solution: Solution) -> str:
        """The solution drawn as text for a person to build it from."""


class ModelBuilder(ABC):
    """Turns one kind of validated spec into a PuzzleModel."""

    kind: str

    @abstractmethod
    def build(self, loaded: LoadedSpec, options: BuildOptions) -> PuzzleModel:
        """Check what the schema cannot (geometry, volumes) and build the model.

        Raises a CpsolveError naming the file, field and line for anything the user must fix.
        """
