"""The CP-SAT engine: a puzzle's constraints compiled into a CP-SAT model, enumerated through a callback.

It takes every puzzle (every family builds `constraints()`), and is the reference the other
engines are tested against. The symmetry breaking becomes constraints (forbidden atoms fixed
false, forbidden pairs as clauses), added once with the decision strategy when the model is
compiled; a part of the search runs on a clone of that model with its atom fixed true, as the
OR-Tools clone sample does.

The solver runs in a thread and hands each solution (the sorted indices of the atoms that are
true) through a queue, so the caller can count, canonicalise, write and draw while the search goes
on, and Ctrl-C in the main thread stops the search cleanly. Enumeration always uses exactly one
CP-SAT worker: with more, OR-Tools 9.15 silently loses solutions (docs/engines.md).
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from cpsolve.limits import NO_DEADLINE, Deadline
from cpsolve.models import Constraints, PuzzleModel
from cpsolve.symmetry import Breaking, Solution
from cpsolve.workers import Sharing

from .base import Capabilities, Engine, Enumeration, PartKey, Prepared, SearchOptions, StopReason

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

    def load(self, puzzle: PuzzleModel | None = None, every_variant: bool = False) -> None:
        from ortools.sat.python import cp_model  # noqa: F401

    def takes(self, puzzle: PuzzleModel, auto: bool = False) -> bool:
        return True

    def prepare(self, puzzle: PuzzleModel, breaking: Breaking | None, deadline: Deadline = NO_DEADLINE) -> Prepared:
        return CpSatPrepared(self, puzzle, breaking, deadline)


def compile_model(constraints: Constraints, deadline: Deadline = NO_DEADLINE) -> cp_model.CpModel:
    """A CP-SAT model with one boolean per variable of the constraints.

    Written straight into the model's proto (`CpModel.proto`): a literal there is a variable
    index or -index - 1 for its negation, exactly our encoding, so no Python object is made per
    literal (faster than CpModel's methods, which wrap every literal and check its type).
    """
    from ortools.sat.python import cp_model

    model = cp_model.CpModel()
    proto = model.proto
    for _ in range(constraints.variables):
        proto.variables.add().domain.extend((0, 1))
    deadline.check("building the CP-SAT model")
    for group in constraints.exactly_one:
        proto.constraints.add().exactly_one.literals.extend(group)
    deadline.check("building the CP-SAT model")
    for number, clause in enumerate(constraints.clauses):
        proto.constraints.add().bool_or.literals.extend(clause)
        if number & 0xFFFF == 0:
            deadline.check("building the CP-SAT model")
    for group in constraints.at_most_one:
        proto.constraints.add().at_most_one.literals.extend(group)
    for members, least, most in constraints.sums:
        linear = proto.constraints.add().linear
        linear.vars.extend(members)
        linear.coeffs.extend([1] * len(members))
        linear.domain.extend((least, most))
    for members, weights, least, most in constraints.weighted_sums:
        linear = proto.constraints.add().linear
        linear.vars.extend(members)
        linear.coeffs.extend(weights)
        linear.domain.extend((least, most))
    for arcs in constraints.circuits:
        circuit = proto.constraints.add().circuit
        circuit.tails.extend(tail for tail, _, _ in arcs)
        circuit.heads.extend(head for _, head, _ in arcs)
        circuit.literals.extend(literal for _, _, literal in arcs)
    deadline.check("building the CP-SAT model")
    return model


class CpSatPrepared(Prepared):
    """The compiled model with the breaking and the decision strategy added once; a search
    without guidance or a part runs on a clone (the OR-Tools clone sample's way)."""

    def __init__(self, engine: Engine, puzzle: PuzzleModel, breaking: Breaking | None, deadline: Deadline) -> None:
        super().__init__(engine, puzzle, breaking)
        from ortools.sat.python import cp_model

        constraints = puzzle.constraints(deadline)
        deadline.check("building the CP-SAT model")
        self.model = compile_model(constraints, deadline)
        if breaking is not None:
            for atom in breaking.forbidden:
                self.model.proto.constraints.add().bool_or.literals.append(~atom)
            for first, second in breaking.forbidden_pairs:
                self.model.proto.constraints.add().bool_or.literals.extend((~first, ~second))
        self.can_guide = bool(constraints.decision_order)
        if self.can_guide:
            order = [self.model.get_bool_var_from_proto_index(v) for v in constraints.decision_order]
            self.model.add_decision_strategy(order, cp_model.CHOOSE_FIRST, cp_model.SELECT_MAX_VALUE)
        self._unguided: cp_model.CpModel | None = None
        deadline.check("building the CP-SAT model")

    def capabilities(self, cores: int) -> Capabilities:
        """Models big enough are searched in parts, in one process or on every core by default.
        Measured with 2 workers against 1 (docs/measurements.md): pentominoes 31 s -> 17 s, the
        second 4x4x4 snake 64 s -> 32 s."""
        big = self.puzzle.atom_count >= PARTS_MIN_ATOMS
        return Capabilities(
            splits=self.breaking is not None, default_workers=cores if big else 1, parts_in_one_process=big
        )

    def model_for(self, guided: bool) -> cp_model.CpModel:
        """The model itself, or (without guidance) a clone of it without the decision strategy."""
        if guided or not self.can_guide:
            return self.model
        if self._unguided is None:
            self._unguided = self.model.clone()
            self._unguided.proto.search_strategy.clear()
        return self._unguided

    def enumerate(
        self,
        search: SearchOptions,
        deadline: Deadline = NO_DEADLINE,
        part: PartKey | None = None,
        sharing: Sharing | None = None,
    ) -> Enumeration:
        model = self.model_for(search.guided)
        if part is not None:
            model = model.clone()
            for atom in part:
                model.add(model.get_bool_var_from_proto_index(atom) == 1)
        return CpSatEnumeration(self, model, search, deadline)


class _Collector:
    """Makes the solution callback: copies each solution's true atoms into the queue, stops at the limit."""

    @staticmethod
    def make(atoms: int, out: queue.Queue[Solution | None], limit: int | None) -> Any:
        from ortools.sat.python import cp_model

        class Collector(cp_model.CpSolverSolutionCallback):
            def __init__(self) -> None:
                super().__init__()
                self.found = 0

            def on_solution_callback(self) -> None:
                # every variable's value at once: a third of the cost of asking atom by atom
                values = list(self.response_proto.solution)
                out.put(tuple(atom for atom in range(atoms) if values[atom]))
                self.found += 1
                if limit is not None and self.found >= limit:
                    self.stop_search()

        return Collector()


class CpSatEnumeration(Enumeration):
    def __init__(
        self, prepared: CpSatPrepared, model: cp_model.CpModel, search: SearchOptions, deadline: Deadline
    ) -> None:
        super().__init__(search, deadline)
        from ortools.sat.python import cp_model

        self.prepared = prepared
        self.model = model
        self.solver = cp_model.CpSolver()
        self.status: Any = None
        self._queue: queue.Queue[Solution | None] = queue.Queue()
        self._collector = _Collector.make(prepared.puzzle.atom_count, self._queue, search.solution_limit)
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
        """Wait in short steps so that Ctrl-C reaches the main thread promptly, and a cancelled
        job stops the solver (CP-SAT looks at nothing of ours between solutions)."""
        while True:
            try:
                return self._queue.get(timeout=0.1)
            except queue.Empty:
                if self.deadline.cancelled():
                    self.solver.stop_search()
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
            self.stopped_by = StopReason.of_deadline(self.deadline)
        elif self.status != cp_model.INFEASIBLE:
            self.stopped_by = StopReason.SOLVER_FAILED

    @property
    def complete(self) -> bool:
        """True when every solution was delivered; --first only ever proves that there is none."""
        from ortools.sat.python import cp_model

        if self.search.first_only:
            return self.stopped_by is None and self.status == cp_model.INFEASIBLE
        return self.stopped_by is None and self.status in (cp_model.OPTIMAL, cp_model.INFEASIBLE)
