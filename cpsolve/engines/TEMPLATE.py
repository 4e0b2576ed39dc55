"""A small, working engine to copy when adding one: a depth-first exact cover in plain Python.

What an engine is (cpsolve/engines/base.py): a class that says which puzzles it takes, compiles a
puzzle's solver-neutral model with the run's symmetry breaking applied (`prepare`), and then
enumerates the whole search or one part of it, yielding each solution as its sorted atoms. The
run hands those to the one classifier, which counts them and checks the orbit-stabiliser
identity, so an engine never counts or canonicalises anything itself.

To add an engine:
1. copy this file to `cpsolve/engines/<name>.py` (a package `<name>/` if it has several modules,
   say a compiled kernel), and rename the three classes;
2. say what it takes (`takes`, `takes_what`), the optional library it needs (`required_module`,
   `extra`, imported in `load` and never at module level);
3. compile in `prepare`, search in the enumeration's `__iter__` (or `batches`, for an engine that
   finds many solutions at once): leave out the breaking's forbidden atoms and pairs, hold the
   part's atoms, look at the deadline often enough to stop within 0.1 s, and count each solution
   through `self.take(...)`, which stops at `--first` and `--max-solutions`;
4. say what it can with a compiled search in `Prepared.capabilities` (by default: it splits into
   one part per kept atom of the breaking; the planner, cpsolve/planner.py, decides from this how
   a run uses the cores);
5. add it to `DEFAULT` in cpsolve/engines/__init__.py (before the reference engine, in the order
   `auto` should try it), and compare it with the others in the tests (tests/test_engines.py
   runs this one against CP-SAT and the exact-cover engine on a registry of its own).

This one takes exact-cover packings of single pieces (each used exactly once, no optional cells
or groups) of at most a few thousand placements: it fills the lowest open cell with each
placement that fits. It is far slower than the exact-cover engine and is not in `DEFAULT`.
"""

from __future__ import annotations

from collections.abc import Generator

from cpsolve.limits import NO_DEADLINE, Deadline
from cpsolve.models import CoverProblem, PuzzleModel
from cpsolve.symmetry import Breaking, Solution
from cpsolve.workers import Sharing

from .base import Engine, Enumeration, PartKey, Prepared, SearchOptions

MAX_PLACEMENTS = 5_000
NODES_BETWEEN_CLOCK_LOOKS = 1_000  # placements tried between two looks at the deadline and Ctrl-C


class TemplateEngine(Engine):
    name = "template"
    takes_what = "exact-cover packings of single pieces (no copies, optional cells or groups)"

    def takes(self, puzzle: PuzzleModel, auto: bool = False) -> bool:
        problem = puzzle.cover_problem()
        return (
            problem is not None
            and problem.atoms <= MAX_PLACEMENTS
            and all(bounds == (1, 1) for bounds in problem.piece_bounds)
            and not problem.optional
            and not problem.piece_group
        )

    def prepare(self, puzzle: PuzzleModel, breaking: Breaking | None, deadline: Deadline = NO_DEADLINE) -> Prepared:
        problem = puzzle.cover_problem()
        assert problem is not None  # the registry asked `takes` first
        return TemplatePrepared(self, puzzle, breaking, problem)


class TemplatePrepared(Prepared):
    """The puzzle compiled: each cell's placements, each placement's cells and piece."""

    def __init__(self, engine: Engine, puzzle: PuzzleModel, breaking: Breaking | None, problem: CoverProblem) -> None:
        super().__init__(engine, puzzle, breaking)
        self.problem = problem
        self.cells_of = [[int(c) for c in problem.atom_cells[a] if c >= 0] for a in range(problem.atoms)]
        self.piece_of = [int(p) for p in problem.atom_piece]
        self.at_cell: list[list[int]] = [[] for _ in range(problem.cells)]
        for atom, cells in enumerate(self.cells_of):
            self.at_cell[min(cells)].append(atom)  # a placement is tried when its lowest cell is filled

    def enumerate(
        self,
        search: SearchOptions,
        deadline: Deadline = NO_DEADLINE,
        part: PartKey | None = None,
        sharing: Sharing | None = None,
    ) -> Enumeration:
        return TemplateEnumeration(self, search, deadline, part)


class TemplateEnumeration(Enumeration):
    def __init__(self, prepared: TemplatePrepared, search: SearchOptions, deadline: Deadline, part: PartKey | None):
        super().__init__(search, deadline)
        self.prepared = prepared
        self.part = part
        breaking = prepared.breaking
        self.left_out = set(prepared.problem.excluded) | set(breaking.forbidden if breaking else ())
        self.pairs: dict[int, set[int]] = {}  # atom -> atoms it may not be placed with
        for first, second in breaking.forbidden_pairs if breaking else ():
            self.pairs.setdefault(first, set()).add(second)
        self.nodes = 0

    def __iter__(self) -> Generator[Solution, None, None]:
        prepared = self.prepared
        start = [*prepared.problem.forced, *(self.part or ())]  # pre-placed pieces and the part's atoms
        if len({c for a in start for c in prepared.cells_of[a]}) != sum(len(prepared.cells_of[a]) for a in start):
            return  # the part's atoms overlap: no solution in it
        filled = [False] * prepared.problem.cells
        for atom in start:
            for cell in prepared.cells_of[atom]:
                filled[cell] = True
        used = {prepared.piece_of[a] for a in start}
        yield from self._fill(filled, used, list(start))

    def _fill(self, filled: list[bool], used: set[int], chosen: list[int]) -> Generator[Solution, None, None]:
        cell = next((c for c, full in enumerate(filled) if not full), None)
        if cell is None:
            yield from self.take([tuple(sorted(chosen))])  # within --first/--max-solutions (stop recorded)
            return
        prepared = self.prepared
        for atom in prepared.at_cell[cell]:
            self.nodes += 1
            if self.nodes % NODES_BETWEEN_CLOCK_LOOKS == 0 and self.out_of_time():
                return
            cells = prepared.cells_of[atom]
            if atom in self.left_out or prepared.piece_of[atom] in used or any(filled[c] for c in cells):
                continue
            if any(other in self.pairs.get(atom, ()) or atom in self.pairs.get(other, ()) for other in chosen):
                continue
            for c in cells:
                filled[c] = True
            used.add(prepared.piece_of[atom])
            chosen.append(atom)
            yield from self._fill(filled, used, chosen)
            chosen.pop()
            used.discard(prepared.piece_of[atom])
            for c in cells:
                filled[c] = False
            if self.stopped_by is not None:
                return
