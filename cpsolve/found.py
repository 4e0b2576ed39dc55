"""What a run does with each class of solutions it meets for the first time: takes it apart
(`--disassemble`), draws the first few, hands it on to whoever listens (a job's new-class events),
and what keeps them for the outputs written once the run is done (pictures, a BurrTools file).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from cpsolve.counting import SolutionClass
from cpsolve.errors import CpsolveError
from cpsolve.limits import MAX_PICTURED_ATOMS, Deadline
from cpsolve.models import PuzzleModel
from cpsolve.models.base import Disassemblable
from cpsolve.options import RunOptions
from cpsolve.symmetry import Solution

if TYPE_CHECKING:
    from cpsolve.disassembly import AssemblyChecker

# a new class's representative, its model, and what else is known of it (its disassembly) as JSON
SolutionHook = Callable[[Solution, PuzzleModel, Mapping[str, Any]], None]


class NewClasses:
    """What a run does with each new class: takes it apart (--disassemble), draws the first
    `show` (with --disassemble, the first that come apart, with their plans), and hands it to the
    caller's hook with what is known of it."""

    def __init__(
        self, model: PuzzleModel, show: int, checker: AssemblyChecker | None, hook: SolutionHook | None
    ) -> None:
        self.model = model
        self.show = show
        self.checker = checker
        self.hook = hook
        self.shown: list[str] = []

    def add(self, found: SolutionClass) -> None:
        """Take in a class met for the first time."""
        self.add_all([found])

    def add_all(self, found: Sequence[SolutionClass]) -> None:
        """Take in classes met for the first time, in order; each representative is made only
        where it is used (0.6 us a class, most of a listing run's classes are not shown nor handed
        on), and with --disassemble they are taken apart together (`AssemblyChecker.check_all`)."""
        if self.checker is None and self.hook is None:
            found = found[: max(0, self.show - len(self.shown))]  # those to draw, if any
        if not found:
            return
        solutions = [one.representative for one in found]
        results = self.checker.check_all(solutions) if self.checker is not None else [None] * len(solutions)
        for solution, result in zip(solutions, results, strict=True):
            details: dict[str, Any] = {}
            if result is None:
                if len(self.shown) < self.show:
                    self.shown.append(self.model.render(solution))
            else:
                if self.hook is not None:
                    details["disassembly"] = result.as_json()
                if len(self.shown) < self.show and result.comes_apart:
                    self.shown.append("\n".join([self.model.render(solution), "", *result.describe()]))
            if self.hook is not None:
                self.hook(solution, self.model, details)

    def one_at_a_time(self) -> bool:
        """Whether each new class is taken in before the next solution is counted: with
        --disassemble and --first or --max-solutions, which stop at the class that is enough."""
        return self.checker is not None and self.checker.one_at_a_time

    def enough(self) -> bool:
        """True once --first/--max-solutions count enough assemblies that came apart."""
        return self.checker is not None and self.checker.enough()


@dataclass
class ClassCollector:
    """Keeps each new class's representative, its model and its details as they are found (a
    run's `on_new_class` hook), for what is written once the run is done (pictures, a BurrTools
    file): every one (`limit` None), or the first `limit` of them, and then only as many as
    MAX_PICTURED_ATOMS placements allow (a page of 1,000 solutions of 8,000 dominoes each would
    take gigabytes; the page says how many it holds)."""

    limit: int | None = None
    model: PuzzleModel | None = None
    solutions: list[Solution] = field(default_factory=list)
    details: list[dict[str, Any]] = field(default_factory=list)
    atoms: int = 0

    def __call__(self, solution: Solution, model: PuzzleModel, details: Mapping[str, Any]) -> None:
        self.model = model
        if self.limit is not None and (
            len(self.solutions) >= self.limit or (self.solutions and self.atoms + len(solution) > MAX_PICTURED_ATOMS)
        ):
            return
        self.solutions.append(solution)
        self.details.append(dict(details))
        self.atoms += len(solution)


def checker(model: PuzzleModel, options: RunOptions, deadline: Deadline) -> AssemblyChecker | None:
    """The disassembly of each new class with --disassemble, else None (imported only when asked
    for: the import alone takes about 7 ms, `python -X importtime -c "import cpsolve.disassembly"`)."""
    if not options.disassemble:
        return None
    from cpsolve.disassembly import AssemblyChecker, Disassembler

    assert isinstance(model, Disassemblable)  # run() refused families that cannot be taken apart
    grid = model.disassembly_grid()
    if not grid.steps:
        raise CpsolveError(
            f"{model.name}: --disassemble: the {grid.name} grid has no moves to take pieces apart with"
            " (BurrTools takes apart cubes and prisms only); its assemblies are counted"
        )
    from cpsolve.workers import cores

    # the run's workers, at most one a core: each thread's tables may hold --max-positions positions
    threads = min(options.workers or cores(), cores())
    disassembler = Disassembler(
        model.piece_groups(), options.max_disassembly_positions, deadline, grid, threads=threads
    )
    loading = time.perf_counter()
    disassembler.load()
    return AssemblyChecker(
        model.assembled, disassembler, options.search.solution_limit, load_seconds=time.perf_counter() - loading
    )
