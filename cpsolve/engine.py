"""CP-SAT enumeration exposed as a plain iterator of solutions.

The solver runs in a worker thread and hands each solution (the sorted indices of the atoms that
are true) through a queue, so the caller can count, canonicalise, write and draw while the search
goes on, and Ctrl-C in the main thread stops the search cleanly. Enumeration always uses exactly
one CP-SAT worker: with more, OR-Tools 9.15 silently loses solutions (see DESIGN.md).
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Generator
from dataclasses import dataclass

from ortools.sat.python import cp_model

from cpsolve.counting import Solution
from cpsolve.models import PuzzleModel

ENGINE_NAME = "cpsat"


@dataclass(frozen=True)
class SearchOptions:
    time_limit: float | None = None
    max_solutions: int | None = None
    first_only: bool = False
    guided: bool = True


class _Collector(cp_model.CpSolverSolutionCallback):
    """Copies each solution's true atoms into the queue and stops at the limit."""

    def __init__(self, atoms: list[cp_model.IntVar], out: queue.Queue[Solution | None], limit: int | None) -> None:
        super().__init__()
        self._atoms = atoms
        self._out = out
        self._limit = limit
        self.found = 0

    def on_solution_callback(self) -> None:
        value = self.boolean_value
        self._out.put(tuple(i for i, atom in enumerate(self._atoms) if value(atom)))
        self.found += 1
        if self._limit is not None and self.found >= self._limit:
            self.stop_search()


class Enumeration:
    """Iterate to receive solutions; afterwards `complete` and `stopped_by` tell how it ended."""

    def __init__(self, puzzle: PuzzleModel, options: SearchOptions) -> None:
        self.puzzle = puzzle
        self.options = options
        self.solver = cp_model.CpSolver()
        self.status: cp_model.CpSolverStatus | None = None
        self.stopped_by: str | None = None
        self._queue: queue.Queue[Solution | None] = queue.Queue()
        limit = 1 if options.first_only else options.max_solutions
        self._collector = _Collector(puzzle.atoms, self._queue, limit)
        self._configure()

    def _configure(self) -> None:
        params = self.solver.parameters
        params.catch_sigint_signal = False  # Ctrl-C is the main thread's: it stops the search cleanly
        guided = self.options.guided and bool(self.puzzle.search_order)
        if guided:
            self.puzzle.model.add_decision_strategy(
                self.puzzle.search_order, cp_model.CHOOSE_FIRST, cp_model.SELECT_MAX_VALUE
            )
        if self.options.first_only:
            # A portfolio: one of its workers follows the decision strategy, others restart freely.
            params.num_workers = self.puzzle.first_solution_workers
        else:
            params.num_workers = 1
            params.enumerate_all_solutions = True
            # Enumeration explores the whole tree: presolve, LP relaxation and CP-SAT's own symmetry
            # detection cost more than they prune there. Measured (3 runs each): King snake 8.0-8.7 s
            # -> 3.9 s, 18 T-tetracubes in 6x6x2 0.42-0.67 s -> 0.09-0.26 s, Soma 0.46-0.66 s ->
            # 0.40-0.41 s; tiles and the foam cube unchanged.
            params.cp_model_presolve = False
            params.linearization_level = 0
            params.symmetry_level = 0
            if guided:
                params.search_branching = cp_model.FIXED_SEARCH
        if self.options.time_limit is not None:
            params.max_time_in_seconds = self.options.time_limit

    def _solve(self) -> None:
        try:
            self.status = self.solver.solve(self.puzzle.model, self._collector)
        finally:
            self._queue.put(None)

    def __iter__(self) -> Generator[Solution, None, None]:
        worker = threading.Thread(target=self._solve, name="cp-sat", daemon=True)
        worker.start()
        try:
            while (item := self._next()) is not None:
                yield item
        finally:
            if worker.is_alive():
                self.solver.stop_search()
                worker.join()
        self._explain_stop()

    def _next(self) -> Solution | None:
        """Wait in short steps so that Ctrl-C reaches the main thread promptly."""
        while True:
            try:
                return self._queue.get(timeout=0.1)
            except queue.Empty:
                continue

    def interrupt(self) -> None:
        """Called when the consumer was interrupted; closing the iterator stops the solver."""
        self.stopped_by = "interrupted"
        self.solver.stop_search()

    def _explain_stop(self) -> None:
        if self.stopped_by is not None:
            return
        found = self._collector.found
        finished = self.status in (cp_model.OPTIMAL, cp_model.INFEASIBLE)
        if self.options.first_only and found:
            self.stopped_by = "first solution"
        elif finished and not self.options.first_only:
            return
        elif self.options.max_solutions is not None and found >= self.options.max_solutions:
            self.stopped_by = "max solutions"
        elif self.status in (cp_model.FEASIBLE, cp_model.UNKNOWN):
            self.stopped_by = "time limit"
        elif self.status != cp_model.INFEASIBLE:
            self.stopped_by = f"solver status {self.solver.status_name(self.status)}"

    @property
    def complete(self) -> bool:
        """True when every solution was delivered; --first only ever proves that there is none."""
        if self.options.first_only:
            return self.status == cp_model.INFEASIBLE
        return self.stopped_by is None and self.status in (cp_model.OPTIMAL, cp_model.INFEASIBLE)
