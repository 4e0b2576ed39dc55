"""The CP-SAT engine: a puzzle's constraints compiled into a CP-SAT model, enumerated through a callback.

It takes every puzzle (every family builds `constraints()`), and is the reference the other
engines are tested against. The symmetry breaking becomes constraints (forbidden atoms fixed
false, forbidden pairs as clauses), added once with the decision strategy when the model is
compiled; a part of the search runs on a clone of that model with its atom fixed true, as the
OR-Tools clone sample does.

The solver runs in a thread and hands each solution (the sorted indices of the atoms that are
true) through a queue, so the caller can count, canonicalise, write and draw while the search goes
on, and Ctrl-C in the main thread stops the search cleanly. Enumeration always uses exactly one
CP-SAT worker: with more, OR-Tools 9.15 silently loses solutions (README).
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from cpsolve.counting import Breaking, Solution
from cpsolve.limits import NO_DEADLINE, Deadline
from cpsolve.models import Constraints, PuzzleModel

from .base import Engine, Enumeration, Prepared, SearchOptions, StopReason

if TYPE_CHECKING:
    from ortools.sat.python import cp_model

# CP-SAT models from this many atoms are enumerated in parts (one search per kept placement of
# the first breaking piece), in one process or several. Measured: pentominoes (2,056 atoms)
# 65 s -> 31 s in one process, King snake (4,096) 4.1 s -> 2.9 s; below it the parts' own
# set-up costs more than they save (c't 3x3 boards, 324 atoms: 0.024 s -> 0.066 s).
PARTS_MIN_ATOMS = 1000


class CpSatEngine(Engine):
    name = "cpsat"
    takes_what = "every puzzle"

    def load(self) -> None:
        from ortools.sat.python import cp_model  # noqa: F401

    def takes(self, puzzle: PuzzleModel) -> bool:
        return True

    def prepare(self, puzzle: PuzzleModel, breaking: Breaking | None, deadline: Deadline = NO_DEADLINE) -> Prepared:
        return CpSatPrepared(self, puzzle, breaking, deadline)

    def splits_by_default(self, puzzle: PuzzleModel) -> bool:
        return puzzle.atom_count >= PARTS_MIN_ATOMS

    def default_workers(self, puzzle: PuzzleModel, cores: int) -> int:
        """Every core for models big enough to split. Measured with 2 workers against 1 (README):
        pentominoes 31 s -> 17 s, the second 4x4x4 snake 64 s -> 32 s."""
        return cores if self.splits_by_default(puzzle) else 1


def compile_model(constraints: Constraints) -> tuple[cp_model.CpModel, list[cp_model.IntVar]]:
    """A CP-SAT model with one boolean per variable of the constraints."""
    from ortools.sat.python import cp_model

    model = cp_model.CpModel()
    variables = [model.new_bool_var(f"v{i}") for i in range(constraints.variables)]
    negations: dict[int, Any] = {}

    def literal(number: int) -> Any:
        if number >= 0:
            return variables[number]
        if number not in negations:
            negations[number] = variables[~number].Not()
        return negations[number]

    for group in constraints.exactly_one:
        model.add_exactly_one([literal(n) for n in group])
    for clause in constraints.clauses:
        model.add_bool_or([literal(n) for n in clause])
    for members, least, most in constraints.sums:
        model.add_linear_constraint(sum(variables[v] for v in members), least, most)
    for arcs in constraints.circuits:
        model.add_circuit([(tail, head, literal(n)) for tail, head, n in arcs])
    return model, variables


class CpSatPrepared(Prepared):
    """The compiled model with the breaking added once; the guided copy gets the decision strategy once."""

    def __init__(self, engine: Engine, puzzle: PuzzleModel, breaking: Breaking | None, deadline: Deadline) -> None:
        super().__init__(engine, puzzle, breaking)
        constraints = puzzle.constraints()
        deadline.check("building the CP-SAT model")
        self.model, variables = compile_model(constraints)
        self.atoms = variables[: puzzle.atom_count]
        if breaking is not None:
            for atom in breaking.forbidden:
                self.model.add(self.atoms[atom] == 0)
            for first, second in breaking.forbidden_pairs:
                self.model.add_bool_or([self.atoms[first].Not(), self.atoms[second].Not()])
        self.decision_order = [variables[v].index for v in constraints.decision_order]
        self._guided_model: cp_model.CpModel | None = None
        deadline.check("building the CP-SAT model")

    @property
    def can_guide(self) -> bool:
        return bool(self.decision_order)

    def model_for(self, guided: bool) -> cp_model.CpModel:
        """The model itself, or (guided) a clone of it that also holds the decision strategy."""
        if not guided or not self.can_guide:
            return self.model
        if self._guided_model is None:
            from ortools.sat.python import cp_model

            guided_model = self.model.clone()
            order = [guided_model.get_bool_var_from_proto_index(index) for index in self.decision_order]
            guided_model.add_decision_strategy(order, cp_model.CHOOSE_FIRST, cp_model.SELECT_MAX_VALUE)
            self._guided_model = guided_model
        return self._guided_model

    def enumerate(
        self, search: SearchOptions, deadline: Deadline = NO_DEADLINE, first_atom: int | None = None
    ) -> Enumeration:
        model = self.model_for(search.guided)
        atoms = self.atoms
        if model is not self.model or first_atom is not None:
            if first_atom is not None:
                model = model.clone()
            atoms = [model.get_bool_var_from_proto_index(atom.index) for atom in self.atoms]
            if first_atom is not None:
                model.add(atoms[first_atom] == 1)
        return CpSatEnumeration(self, model, atoms, search, deadline)


class _Collector:
    """Makes the solution callback: copies each solution's true atoms into the queue, stops at the limit."""

    @staticmethod
    def make(atoms: list[cp_model.IntVar], out: queue.Queue[Solution | None], limit: int | None) -> Any:
        from ortools.sat.python import cp_model

        class Collector(cp_model.CpSolverSolutionCallback):
            def __init__(self) -> None:
                super().__init__()
                self.found = 0

            def on_solution_callback(self) -> None:
                value = self.boolean_value
                out.put(tuple(i for i, atom in enumerate(atoms) if value(atom)))
                self.found += 1
                if limit is not None and self.found >= limit:
                    self.stop_search()

        return Collector()


class CpSatEnumeration(Enumeration):
    def __init__(
        self,
        prepared: CpSatPrepared,
        model: cp_model.CpModel,
        atoms: list[cp_model.IntVar],
        search: SearchOptions,
        deadline: Deadline,
    ) -> None:
        super().__init__(search, deadline)
        from ortools.sat.python import cp_model

        self.prepared = prepared
        self.model = model
        self.solver = cp_model.CpSolver()
        self.status: Any = None
        self._queue: queue.Queue[Solution | None] = queue.Queue()
        self._collector = _Collector.make(atoms, self._queue, search.solution_limit)
        self._configure()

    def _configure(self) -> None:
        from ortools.sat.python import cp_model

        params = self.solver.parameters
        params.catch_sigint_signal = False  # Ctrl-C is the main thread's: it stops the search cleanly
        guided = self.search.guided and self.prepared.can_guide
        if self.search.first_only:
            # A portfolio: one of its workers follows the decision strategy, others restart freely.
            params.num_workers = self.prepared.puzzle.first_solution_workers
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
        remaining = self.deadline.remaining()
        if remaining is not None:
            params.max_time_in_seconds = remaining

    def _solve(self) -> None:
        try:
            self.status = self.solver.solve(self.model, self._collector)
        finally:
            self._queue.put(None)

    def __iter__(self) -> Generator[Solution, None, None]:
        if self.out_of_time():
            return
        worker = threading.Thread(target=self._solve, name="cp-sat", daemon=True)
        worker.start()
        try:
            while (item := self._next()) is not None:
                self.found += 1
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

    def interrupt(self, reason: StopReason = StopReason.INTERRUPTED) -> None:
        super().interrupt(reason)
        self.solver.stop_search()

    def _explain_stop(self) -> None:
        from ortools.sat.python import cp_model

        if self.stopped_by is not None:
            return
        finished = self.status in (cp_model.OPTIMAL, cp_model.INFEASIBLE)
        limit = self.search.solution_limit
        if self.search.first_only and self.found:
            self.stopped_by = StopReason.FIRST_SOLUTION
        elif finished and not self.search.first_only:
            return
        elif limit is not None and self.found >= limit:
            self.stopped_by = StopReason.MAX_SOLUTIONS
        elif self.status in (cp_model.FEASIBLE, cp_model.UNKNOWN):
            self.stopped_by = StopReason.TIME_LIMIT
        elif self.status != cp_model.INFEASIBLE:
            self.stopped_by = StopReason.SOLVER_FAILED

    @property
    def complete(self) -> bool:
        """True when every solution was delivered; --first only ever proves that there is none."""
        from ortools.sat.python import cp_model

        if self.search.first_only:
            return self.stopped_by is None and self.status == cp_model.INFEASIBLE
        return self.stopped_by is None and self.status in (cp_model.OPTIMAL, cp_model.INFEASIBLE)
