"""A family that exists only for the tests: a row of cells filled with monominoes and dominoes.

It shows what adding a family takes: this one module (spec class, model, builder, scene, and the
`FAMILY` record) and a registry that holds it (`FAMILIES.with_family(FAMILY)`); the engines, the
counting, the report and the pictures' scene work unchanged. A row of n cells has Fibonacci(n+1)
fillings; turned end to end (a half turn), the palindromic ones are their own image.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import Field

from cpsolve.limits import NO_DEADLINE, Deadline
from cpsolve.models import BuildOptions, Constraints, ConstraintsBuilder, Family, ModelBuilder, PuzzleModel
from cpsolve.spec import LoadedSpec, SpecBase
from cpsolve.symmetry import AtomSymmetry, Solution, SymmetryGroup


class RowSpec(SpecBase):
    kind: Literal["row"]
    length: int = Field(ge=1, le=40, description="cells in the row")


class RowModel(PuzzleModel):
    """Atoms: a monomino at each cell, then a domino at each pair of neighbouring cells."""

    def __init__(self, spec: RowSpec) -> None:
        self.length = spec.length
        self.pieces = [(start, 1) for start in range(spec.length)] + [(start, 2) for start in range(spec.length - 1)]
        super().__init__(name=spec.name, kind="row", atom_count=len(self.pieces), group=self._turns())

    def _turns(self) -> SymmetryGroup:
        where = {piece: atom for atom, piece in enumerate(self.pieces)}
        turned = tuple(where[(self.length - start - size, size)] for start, size in self.pieces)
        return SymmetryGroup((AtomSymmetry(tuple(range(len(self.pieces))), True), AtomSymmetry(turned, True)))

    def constraints(self, deadline: Deadline = NO_DEADLINE) -> Constraints:
        builder = ConstraintsBuilder(self.atom_count, 10_000)
        for cell in range(self.length):
            builder.exactly_one(a for a, (start, size) in enumerate(self.pieces) if start <= cell < start + size)
        return builder.build(list(range(self.atom_count)))

    def describe(self, solution: Solution) -> dict[str, Any]:
        return {"pieces": sorted(self.pieces[atom] for atom in solution)}

    def render(self, solution: Solution) -> str:
        return "|".join("#" * size for _, size in sorted(self.pieces[atom] for atom in solution))


class RowBuilder(ModelBuilder):
    kind = "row"

    def build(self, loaded: LoadedSpec, options: BuildOptions, deadline: Deadline = NO_DEADLINE) -> PuzzleModel:
        assert isinstance(loaded.spec, RowSpec)
        return RowModel(loaded.spec)


def row_scene(
    model: PuzzleModel, solutions: Sequence[Solution], details: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    return {"solutions": [model.describe(solution) for solution in solutions]}


FAMILY = Family("row", RowSpec, RowBuilder(), row_scene, drawing="row")
