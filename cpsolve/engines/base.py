"""The one interface every engine implements, and what an enumeration reports back.

An engine takes the solver-neutral `PuzzleModel` (cpsolve.models), compiles what it needs from it
with the symmetry breaking applied its own way (`prepare`), and then enumerates the whole search or
one part of it: the part in which one kept atom of the first breaking set holds. Parts are
disjoint and together make the whole search, so the executor (cpsolve/parts.py) can hand them to other
processes. Every engine yields each solution as its sorted true atoms, so one classifier counts
them all.

To add an engine: copy TEMPLATE.py (a small working one; its docstring lists the steps) and add
it to the registry (`DEFAULT` in cpsolve/engines/__init__.py). Heavy libraries are imported in
`load()` or later, never at module level, so that only the engine that runs is imported.
"""

from __future__ import annotations

import importlib
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, ClassVar

from cpsolve import native
from cpsolve.choices import CountOrder
from cpsolve.counting import Counts
from cpsolve.formats.base import PuzzleFile
from cpsolve.limits import DEFAULT_MAX_CLASS_BYTES, DEFAULT_MAX_FILE_BYTES, NO_DEADLINE, Deadline
from cpsolve.models import BuildOptions, PuzzleModel
from cpsolve.symmetry import Breaking, Solution
from cpsolve.workers import Sharing, Workers


class StopReason(StrEnum):
    """Why an enumeration ended before proving it had every solution (the JSON `stopped_by`)."""

    TIME_LIMIT = "time limit"
    MAX_SOLUTIONS = "max solutions"
    FIRST_SOLUTION = "first solution"
    INTERRUPTED = "interrupted"
    TERMINATED = "terminated"
    SOLVER_FAILED = "solver failed"
    MEMORY_LIMIT = "memory limit"  # the classes kept reached --max-memory
    CANCELLED = "cancelled"  # the job was cancelled (cpsolve.jobs.Job.cancel)

    @property
    def words(self) -> str:
        """Why, as a sentence says it ("stopped by the time limit", "cancelled")."""
        return STOP_WORDS[self]

    @staticmethod
    def of_deadline(deadline: Deadline) -> StopReason:
        """Why a deadline that has passed ended the work: its job was cancelled, or time ran out."""
        if deadline.cancel is not None and deadline.cancel.is_set():
            return StopReason(deadline.cancel.reason)
        return StopReason.TIME_LIMIT


STOP_WORDS = {
    StopReason.TIME_LIMIT: "stopped by the time limit",
    StopReason.MAX_SOLUTIONS: "stopped at the most solutions asked for",
    StopReason.FIRST_SOLUTION: "stopped at the first solution",
    StopReason.INTERRUPTED: "interrupted",
    StopReason.TERMINATED: "terminated",
    StopReason.SOLVER_FAILED: "the solver failed",
    StopReason.MEMORY_LIMIT: "stopped by the memory limit",
    StopReason.CANCELLED: "cancelled",
}


def stop_words(reason: str | None) -> str:
    """A `stopped_by` (a StopReason's value, as reports and summaries hold it) as a sentence says it."""
    return "complete" if reason is None else StopReason(reason).words if reason in STOP_VALUES else f"stopped: {reason}"


STOP_VALUES = {str(reason) for reason in StopReason}


@dataclass(frozen=True)
class SearchOptions:
    """What the user asked of the search: limits and CP-SAT's guided order."""

    time_limit: float | None = None
    max_solutions: int | None = None
    first_only: bool = False
    guided: bool = True

    @property
    def solution_limit(self) -> int | None:
        return 1 if self.first_only else self.max_solutions

    @property
    def limit_reason(self) -> StopReason:
        return StopReason.FIRST_SOLUTION if self.first_only else StopReason.MAX_SOLUTIONS


@dataclass(frozen=True)
class SearchEstimator:
    """`estimate(roots, probes)`: the placements a search makes that first places one of `roots`
    (each kept atom of a breaking set), from that many random paths. `steady`: its estimates
    were measured steady enough to choose between breaking sets by (docs/engines.md).
    `for_first`: they choose for a search for one solution too (not where that search goes
    another way than the one estimated, as the tiles search's race). `worth_choosing`: the
    estimated placements below which choosing costs more than it can save (None: the default).
    `size_probes`: the random paths of the first estimate, the one that says how big the search is
    (None: the default)."""

    estimate: Callable[[Sequence[int], int], float]
    steady: bool
    for_first: bool = True
    worth_choosing: float | None = None
    size_probes: int | None = None


@dataclass(frozen=True)
class RunContext:
    """What an engine may take of the run beyond the model and the breaking (`Prepared.take_run`):
    the frontier counter counts in parts on the executor, in the cell order and the memory asked
    for, and sends its parts to a cluster as the puzzle's own file."""

    count_order: CountOrder = "fill"  # --count-order
    max_class_bytes: int = DEFAULT_MAX_CLASS_BYTES  # --max-memory
    workers: int = 1  # --workers (0: every core)
    cluster: str | None = None  # --cluster
    checkpoint: Path | None = None  # --checkpoint
    build: BuildOptions = field(default_factory=BuildOptions)  # how a worker builds the model again
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    file: PuzzleFile | None = None  # the puzzle's file (None: a spec given as data, counted here only)
    problem: str | None = None
    auto_chosen: bool = False  # the engine was `auto`'s choice, not asked for: it may give way to another


class Counting(ABC):
    """An enumeration that counts without listing (`Enumeration.counting`): the run reads its
    counts from it as it reads a classifier's, and nothing is classified."""

    raw_seen: int = 0  # solutions listed: none
    gave_way: str | None = None  # why the run should list on another engine instead, once it stopped

    @abstractmethod
    def count(self, on_progress: Callable[[str, float], None] | None = None) -> None:
        """Count (what it is doing and the seconds so far to `on_progress`); stops at the deadline."""

    @abstractmethod
    def counts(self) -> Counts: ...

    @abstractmethod
    def identity_problems(self) -> list[str]: ...

    @abstractmethod
    def report_notes(self) -> list[str]:
        """What the report says of the count beside the model's notes."""

    @abstractmethod
    def as_json(self) -> dict[str, Any]:
        """The report's `counting`: how it counted."""


class Enumeration(ABC):
    """Iterate to receive solutions; afterwards `complete` and `stopped_by` tell how it ended."""

    def __init__(self, search: SearchOptions, deadline: Deadline = NO_DEADLINE) -> None:
        self.search = search
        self.deadline = deadline
        self.stopped_by: StopReason | None = None
        self.found = 0
        self.workers = 1  # the processes that searched (the report's `workers`)

    @abstractmethod
    def __iter__(self) -> Generator[Solution, None, None]: ...

    def batches(self) -> Generator[list[Solution], None, None]:
        """The solutions in the lists they come in: an engine that finds several at once hands
        them over together, so that the classifier takes them together (`__iter__`: one by one)."""
        for solution in self:
            yield [solution]

    def take(self, solutions: list[Solution]) -> list[Solution]:
        """Count a batch of found solutions against the solution limit; the part within it (the
        reason recorded when the limit is reached)."""
        limit = self.search.solution_limit
        if limit is not None:
            solutions = solutions[: max(0, limit - self.found)]
        self.found += len(solutions)
        if limit is not None and self.found >= limit:
            self.interrupt(self.search.limit_reason)
        return solutions

    def interrupt(self, reason: StopReason = StopReason.INTERRUPTED) -> None:
        """The consumer stopped (Ctrl-C); closing the iterator then stops the search."""
        if self.stopped_by is None:
            self.stopped_by = reason

    def out_of_time(self) -> bool:
        """True (reason recorded) once the deadline has passed."""
        if self.deadline.passed():
            self.interrupt(StopReason.of_deadline(self.deadline))
        return self.stopped_by is not None

    @property
    def complete(self) -> bool:
        """True when every solution was delivered."""
        return self.stopped_by is None

    def counting(self) -> Counting | None:
        """An optional capability: where the engine counts without listing, what counts (the run
        then reads the counts from it, not from a classifier); None for an engine that lists."""
        return None


@dataclass(frozen=True)
class Part:
    """One disjoint part of the search: atoms placed before it starts, atoms it leaves out."""

    forced: tuple[int, ...]
    left_out: frozenset[int]


class PartsInSlices(Enumeration):
    """Parts searched one after the other, each in compiled slices of a bounded number of
    placements (`slices`), the clock and Ctrl-C looked at between slices: the compiled engines'
    enumeration. The solutions of a slice are handed over together."""

    def __init__(self, parts: Sequence[Part], search: SearchOptions, deadline: Deadline = NO_DEADLINE) -> None:
        super().__init__(search, deadline)
        self.parts = list(parts)
        self.steps = 0  # placements made so far, over every part

    @abstractmethod
    def slices(self, part: Part) -> Iterator[tuple[list[Solution], int]]:
        """Each slice's solutions and placements, until the part's search is done."""

    def __iter__(self) -> Generator[Solution, None, None]:
        for batch in self.batches():
            yield from batch

    def handed_over(self, begun: int) -> bool:
        """Whether the search stopped in part `begun` to hand what it had left to other processes
        (engines.base.Spill): then no later part is begun here."""
        return False

    def batches(self) -> Generator[list[Solution], None, None]:
        for begun, part in enumerate(self.parts):
            if self.out_of_time():
                return
            for solutions, steps in self.slices(part):
                self.steps += steps
                if solutions:
                    yield self.take(solutions)
                    if self.stopped_by is not None:
                        return
                if self.out_of_time():
                    return
            if self.handed_over(begun):
                return


PartKey = tuple[int, ...]  # a part of the search: the atoms that hold in it, the kept breaking atom first


@dataclass(frozen=True)
class Capabilities:
    """What an engine can do with one compiled search (`Prepared.capabilities`). Engines say what
    they can; one planner (cpsolve.planner) decides from this, the options and the cores how a run
    goes: whole here, in parts on the executor, begun here and handed over, or raced."""

    splits: bool = False  # part_keys cut the search into disjoint parts
    hands_back: bool = False  # a part in a forked worker hands work back to an idle one (workers.Sharing)
    begins_here: bool = False  # begun_here starts it here and hands the rest over once it proves long
    races: bool = False  # racing runs a search for one solution on several processes
    race_workers: int = 1  # processes a race takes for `--workers 0` (where it measured faster)
    default_workers: int = 1  # processes for `--workers 0` (an engine's measured choice for the puzzle)
    parts_in_one_process: bool = False  # search part by part even in one process (CP-SAT measured faster so)
    threads: bool = False  # its parts may run on threads of one process: its kernels let go of the GIL


class Spill:
    """A search begun in this process that may hand what it has left to other processes: between
    two slices, once it has searched `after_seconds` (its tables made: `begin`), the search stops
    and leaves in `rest` the keys of parts that together search exactly what it had not (a search
    that cannot be cut where it is goes on)."""

    def __init__(self, after_seconds: float) -> None:
        self.after_seconds = after_seconds
        self.began: float | None = None
        self.rest: list[PartKey] | None = None  # set when the search stopped to hand the rest over

    def begin(self) -> None:
        """The search's first slice starts (only the first call counts)."""
        if self.began is None:
            self.began = time.perf_counter()

    def due(self) -> bool:
        return self.began is not None and time.perf_counter() - self.began > self.after_seconds


def breaking_parts(
    breaking: Breaking | None,
    key: PartKey | None = None,
    forced: Sequence[int] = (),
    excluded: frozenset[int] = frozenset(),
) -> list[Part]:
    """One part per kept atom r of the first breaking set (the whole search without breaking):
    r placed before the search starts, the first set's other atoms and the second set's atoms
    paired with r left out (breaking by pairs is not a constraint a search on atoms can hold
    otherwise). With `key`, only the part in which its atoms hold (its first the kept atom).
    `forced` atoms hold and `excluded` ones are left out in every part (pre-placed pieces)."""
    if breaking is None:
        return [Part((*forced, *(key or ())), frozenset(excluded))]
    left_out = breaking.forbidden_set | excluded
    # what is the same for every part is computed once per breaking (a run of many parts asks for
    # each: SolidSixPieceBurrs' 62 cost 0.32 s when each went through all 16,000 weights)
    kept = breaking.kept_order if key is None else (key[0],) if key[0] in breaking.kept_set else ()
    empty: frozenset[int] = frozenset()
    return [
        Part((*forced, *(key or (r,))), left_out | (breaking.first - {r}) | breaking.paired.get(r, empty))
        for r in kept
        if r not in left_out
    ]


class Prepared(ABC):
    """A puzzle compiled for one engine with the symmetry breaking applied.

    `enumerate(part=(r,))` searches only the part in which the kept breaking atom r holds; an
    engine that splits finer hands out longer keys from `part_keys`. Implementations hold plain
    data and compiled arrays, so a forked process can use them as is.
    """

    def __init__(self, engine: Engine, puzzle: PuzzleModel, breaking: Breaking | None) -> None:
        self.engine = engine
        self.puzzle = puzzle
        self.breaking = breaking
        self.estimated_placements: float | None = None  # the search's size, where it was estimated
        self.details: dict[str, str] = {}  # how the engine searches this puzzle, for the report (the cell it fills)

    @abstractmethod
    def enumerate(
        self,
        search: SearchOptions,
        deadline: Deadline = NO_DEADLINE,
        part: PartKey | None = None,
        sharing: Sharing | None = None,
    ) -> Enumeration: ...

    def part_keys(self, wanted: int, within: list[PartKey] | None = None) -> list[PartKey]:
        """Disjoint parts that together make the whole search: one per kept atom of the first
        breaking set, in search order, or those of `within` (the rest of a search begun here,
        which may be a single part); an engine may split them finer when they are fewer than
        `wanted`, or split a search without breaking (`Capabilities.splits`)."""
        if within is not None:
            return within
        if self.breaking is None:
            return []
        return [(r,) for r in dict.fromkeys(r for r, _ in self.breaking.weight)]

    def capabilities(self, cores: int) -> Capabilities:
        """What the engine can do with this search, for the planner (cpsolve.planner) to decide
        how the run goes on `cores` cores: by default it splits by the breaking's kept atoms."""
        return Capabilities(splits=self.breaking is not None)

    def take_run(self, run: RunContext) -> None:  # noqa: B027  (optional: most engines need no more)
        """An optional capability: what the engine takes of the run beyond the model and the
        breaking, given once it is prepared and before it enumerates (the frontier counter's cell
        order, memory and parts). Most engines need nothing more."""

    def begun_here(self, search: SearchOptions, deadline: Deadline, spill: Spill) -> Enumeration | None:
        """The whole search in this process, stopping once `spill.due()` to leave the rest in
        `spill.rest` (cpsolve.parts.BegunHere runs the rest in parts); None where the engine
        cannot (`Capabilities.begins_here`)."""
        return None

    def racing(self, search: SearchOptions, deadline: Deadline, runners: Workers) -> Enumeration | None:
        """A search for one solution (`--first`) that keeps the runners' processes busy, or None
        where the engine has none (`Capabilities.races`): a limited run is not split into parts,
        whose solutions would come in an order that depends on the processes' speed."""
        return None


class Engine(ABC):
    """One way to enumerate solutions; the registry asks each whether it takes a puzzle."""

    name: ClassVar[str]
    takes_what: ClassVar[str]  # for the message when it is asked for a puzzle it cannot take
    required_module: ClassVar[str | None] = None  # the optional library it needs; None: always there
    extra: ClassVar[str | None] = None  # the pip extra that installs that library
    lists: ClassVar[bool] = True  # it lists solutions (False: it counts them without listing, --count-only)

    def installed(self) -> bool:
        return self.required_module is None or native.installed(self.required_module)

    def load(self, puzzle: PuzzleModel | None = None, every_variant: bool = False) -> None:
        """Import the engine's libraries (before a run's clock for its `seconds` starts); engines with
        compiled code also load it here, with `puzzle` whatever more a run of it needs (an engine
        whose compiled code comes in variants loads the one the puzzle takes), and with
        `every_variant` every variant some puzzle may take (what `cpsolve compile` builds)."""
        if self.required_module is not None:
            importlib.import_module(self.required_module)

    @abstractmethod
    def takes(self, puzzle: PuzzleModel, auto: bool = False) -> bool:
        """Whether this engine can enumerate the puzzle; `auto`: whether `--engine auto` should
        give it this engine (an engine may decline there what it takes but does worse on)."""

    @abstractmethod
    def prepare(self, puzzle: PuzzleModel, breaking: Breaking | None, deadline: Deadline = NO_DEADLINE) -> Prepared:
        """Compile the puzzle with the breaking applied: as constraints (CP-SAT), as parts that
        leave out the breaking's forbidden atoms (exact cover), as start cells (the chain walk)."""

    def search_estimator(self, puzzle: PuzzleModel) -> SearchEstimator | None:
        """How big the search would be, for choosing the symmetry breaking; None: cannot tell."""
        return None
