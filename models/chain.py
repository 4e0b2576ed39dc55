"""Chains: snake cubes, unit cubes on an elastic string folded to fill a target.

Atoms are (cube index, cell) pairs: a solution is the chain's path. Each segment of the chain has
one of six directions, consecutive segments are perpendicular, and each step moves the next cube
one cell along its segment's direction. Branching on the start cell and then on the directions
segment by segment is the classic depth-first search, with CP-SAT's propagation on top.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

from cpsolve.colours import along
from cpsolve.errors import ModelTooBigError
from cpsolve.geometry import STEPS, Cell, step
from cpsolve.limits import NO_DEADLINE, Deadline
from cpsolve.render import draw_layers
from cpsolve.spec import ChainSpec, LoadedSpec, Source
from cpsolve.symmetry import AtomSymmetry, Solution, SymmetryGroup, target_symmetries

from .base import (
    BuildOptions,
    ChainWalk,
    Constraints,
    ConstraintsBuilder,
    Family,
    ModelBuilder,
    PuzzleModel,
    negated,
)
from .packing.puzzle import shape_cells
from .packing.symmetries import check_symmetry_size


def chain_lengths(spec: ChainSpec, target_volume: int, source: Source) -> list[int]:
    """Segment lengths, checked against the target: the chain must fill it exactly."""
    segments = spec.chain.segment_lengths()
    cubes = sum(segments) - (len(segments) - 1)
    if cubes == target_volume:
        return segments
    if target_volume < 3:
        raise source.error(("target",), f"a chain has at least 3 cubes; the target has {target_volume} cells")
    if spec.chain.joints is not None:
        raise source.error(
            ("chain", "joints"),
            f"{len(spec.chain.joints)} letters make a chain of {cubes} cubes; the target has {target_volume} cells,"
            f" so give {target_volume - 2} letters",
        )
    raise source.error(("chain", "segments"), f"the chain has {cubes} cubes but the target has {target_volume} cells")


class ChainModel(PuzzleModel):
    def __init__(
        self, spec: ChainSpec, source: Source, options: BuildOptions, deadline: Deadline = NO_DEADLINE
    ) -> None:
        cells = sorted(shape_cells(spec.target, ("target",), source), key=lambda c: (c[2], c[1], c[0]))
        self.segments = chain_lengths(spec, len(cells), source)
        self.cells = cells
        self.length = len(cells)
        self.palindrome = self.segments == self.segments[::-1]
        self.options = options
        if self.length * len(cells) > options.max_atoms:
            raise ModelTooBigError(
                f"{spec.name}: a chain of {self.length} cubes needs {self.length**2:,} position variables"
                f" (limit --max-placements {options.max_atoms:,})"
            )
        super().__init__(name=spec.name, kind="chain", atom_count=self.length * len(cells), group=SymmetryGroup(()))
        self.group = self._symmetry_group(spec.symmetry)
        deadline.check("turning the target")
        self.breaking_candidates = [list(range(len(cells))), list(range(len(cells), 2 * len(cells)))]
        self.breaking_labels = ["the first cube", "the second cube"]
        if self.palindrome:
            self.notes.append("the chain reads the same from both ends: each folding is counted once")
        self._constraints: Constraints | None = None

    def atom(self, cube: int, cell_index: int) -> int:
        return cube * len(self.cells) + cell_index

    def constraints(self, deadline: Deadline = NO_DEADLINE) -> Constraints:
        """The path as positions: each cube in one cell and each cell holding one cube, the
        checkerboard colouring, a circuit through the cells, and the segments' directions; the
        search decides the first cube's cell, then each segment's direction."""
        if self._constraints is None:
            builder = ConstraintsBuilder(self.atom_count, self.options.max_terms, deadline)
            # per cube and cell: 2 exactly-one, 2 parity, 3 x 6 stepping, 3 x 6 circuit literals
            builder.expect(40 * self.length * len(self.cells))
            directions = self._add_constraints(builder)
            order = list(range(len(self.cells))) + [d for segment in directions for d in segment]
            self._constraints = builder.build(order)
        return self._constraints

    def _add_constraints(self, builder: ConstraintsBuilder) -> list[list[int]]:
        n = len(self.cells)
        index = {c: i for i, c in enumerate(self.cells)}
        for cube in range(self.length):
            builder.exactly_one(self.atom(cube, j) for j in range(n))
        for j in range(n):
            builder.exactly_one(self.atom(cube, j) for cube in range(self.length))
        self._add_parity(builder)
        self._add_circuit(builder, index)
        directions = [[builder.new_variable() for _ in range(6)] for _ in self.segments]
        for segment in directions:
            builder.exactly_one(segment)
        for first, second in itertools.pairwise(directions):
            for d in range(6):
                builder.clause((negated(first[d]), negated(second[d])))
                builder.clause((negated(first[d]), negated(second[d ^ 1])))
        cube = 0
        for segment, length in zip(directions, self.segments, strict=True):
            for _ in range(length - 1):
                for j, cell in enumerate(self.cells):
                    here = self.atom(cube, j)
                    for d in range(len(STEPS)):
                        there = index.get(step(cell, d))
                        clause = [negated(here), negated(segment[d])]
                        if there is not None:
                            clause.append(self.atom(cube + 1, there))
                        builder.clause(clause)
                cube += 1
        return directions

    def _add_circuit(self, builder: ConstraintsBuilder, index: dict[Cell, int]) -> None:
        """The path visits every cell once: a circuit through the cells and one extra node.

        Redundant, but CP-SAT's circuit propagation sees at once a cell cut off or a second dead
        end, which the position variables alone notice only after many more decisions.
        """
        n = len(self.cells)
        arcs: list[tuple[int, int, int]] = []
        outside = n
        for j in range(n):
            arcs.append((outside, j, self.atom(0, j)))
            arcs.append((j, outside, self.atom(self.length - 1, j)))
        for j, cell in enumerate(self.cells):
            for d in range(len(STEPS)):
                k = index.get(step(cell, d))
                if k is None:
                    continue
                arc = builder.new_variable()
                arcs.append((j, k, arc))
                for cube in range(self.length - 1):
                    builder.clause((negated(self.atom(cube, j)), negated(self.atom(cube + 1, k)), arc))
        builder.circuit(arcs)

    def _add_parity(self, builder: ConstraintsBuilder) -> None:
        """Cubes alternate between the two colours of a checkerboard: a redundant constraint
        that halves every cube's possible cells as soon as the start colour is known."""
        start_colour = builder.new_variable()
        for cube in range(self.length):
            for j, cell in enumerate(self.cells):
                colour = (sum(cell) + cube) % 2 == 1
                builder.implication(self.atom(cube, j), start_colour if colour else negated(start_colour))

    def _symmetry_group(self, symmetry: str) -> SymmetryGroup:
        """Box symmetries (chains are achiral), times reading backwards for a palindrome."""
        index = {c: i for i, c in enumerate(self.cells)}
        elements = []
        readings = (False, True) if self.palindrome else (False,)
        cell_symmetries = target_symmetries(self.cells, reflections=symmetry == "all", separately=False)
        check_symmetry_size(len(cell_symmetries) * len(readings), self.atom_count, self.name)
        for cell_symmetry in cell_symmetries:
            moved = [index[cell_symmetry.images[c]] for c in self.cells]
            for backwards in readings:
                cubes = range(self.length - 1, -1, -1) if backwards else range(self.length)
                bases = [self.atom(cube, 0) for cube in cubes]
                atom_map = tuple(base + j for base in bases for j in moved)
                elements.append(AtomSymmetry(atom_map, cell_symmetry.proper))
        return SymmetryGroup(
            tuple(elements), unique_counts_raw=symmetry == "none", redundancy=2 if self.palindrome else 1
        )

    def chain_walk(self) -> ChainWalk:
        return ChainWalk(tuple(self.cells), tuple(self.segments))

    def path(self, solution: Solution) -> list[Cell]:
        n = len(self.cells)
        ordered = sorted(solution)
        return [self.cells[atom % n] for atom in ordered]

    def problem_with(self, solution: Solution) -> str | None:
        """One cell per cube, every cell once, each cube beside the one before it."""
        n = len(self.cells)
        if not all(0 <= atom < self.atom_count for atom in solution) or len(solution) != self.length:
            return "atoms out of range, or not one per cube"
        if sorted(atom // n for atom in solution) != list(range(self.length)):
            return "a cube is placed twice or not at all"
        path = self.path(solution)
        if len(set(path)) != n:
            return "two cubes share a cell"
        if any(sum(abs(a - b) for a, b in zip(p, q, strict=True)) != 1 for p, q in itertools.pairwise(path)):
            return "two cubes next on the chain are not neighbours"
        return None

    def describe(self, solution: Solution) -> dict[str, Any]:
        return {"path": [list(c) for c in self.path(solution)]}

    def render(self, solution: Solution) -> str:
        """Layers z = 0 first with each cube's position along the chain (1 = first cube)."""
        position = {cell: str(number) for number, cell in enumerate(self.path(solution), 1)}
        return draw_layers(self.cells, position, f"segments: {', '.join(map(str, self.segments))}")


class ChainBuilder(ModelBuilder):
    kind = "chain"

    def build(self, loaded: LoadedSpec, options: BuildOptions, deadline: Deadline = NO_DEADLINE) -> PuzzleModel:
        assert isinstance(loaded.spec, ChainSpec)
        return ChainModel(loaded.spec, loaded.source, options, deadline)


def chain_scene(
    model: PuzzleModel, solutions: Sequence[Solution], details: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    """Per solution the path of cubes in chain order and where each segment ends; the colours
    along the chain."""
    assert isinstance(model, ChainModel)
    ends = [0]
    for length in model.segments:
        ends.append(ends[-1] + length - 1)
    drawn = [{"path": model.describe(solution)["path"], "ends": ends} for solution in solutions]
    return {"segments": list(model.segments), "chain_colours": along(ends[-1] + 1), "solutions": drawn}


FAMILY = Family("chain", ChainSpec, ChainBuilder(), chain_scene, drawing="chain")
