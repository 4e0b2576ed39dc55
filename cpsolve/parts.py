"""A search split into disjoint parts, run on the executor (cpsolve.workers), merged once by id.

The split follows the symmetry breaking: every solution holds exactly one atom of the first
breaking set, and only the kept atom of each orbit is allowed, so "this kept atom is the one" cuts
the search into disjoint parts whose solutions together are the whole search's; an engine may cut
each part further (`Prepared.part_keys`) so that there are enough to keep every process busy, and
the exact-cover engine cuts a search without breaking (no symmetry) by its first choices alone.
Each process runs one engine with one thread (CP-SAT loses solutions with more: docs/engines.md).

A part is a `PartUnit`: plain data that carries the puzzle itself (the file's name and content,
not a path another machine may not have), the run's choices and the part's key, so that a Dask
worker anywhere rebuilds the same model and cuts the search exactly as the client does. Local
processes are forked after the puzzle was compiled and use the compiled form they inherit.

The client keeps, per unit id, the first result that ends and ignores any other (a resumed run
meets units it has already), so every unit is merged exactly once. `--checkpoint FILE` appends
each finished part (its id and its solutions) as one JSON line; a run started again with the same
file merges those and runs only the rest.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import time
from collections.abc import Callable, Generator, Hashable, Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, TypeVar

from cpsolve import engines
from cpsolve.engines import Enumeration, SearchOptions, StopReason
from cpsolve.engines.base import PartKey, Prepared, Spill
from cpsolve.errors import CpsolveError
from cpsolve.formats import PuzzleFile, ReadOptions, puzzles
from cpsolve.journal import Journal
from cpsolve.limits import DEFAULT_MAX_FILE_BYTES, NO_DEADLINE, Deadline
from cpsolve.models import BuildOptions, PuzzleModel
from cpsolve.symmetry import Breaking, Solution
from cpsolve.workers import DONE, GREW, STOPPED, Forked, Workers

PARTS_PER_WORKER = 8  # an engine that can split finer is asked for this many parts per process
BATCH_SECONDS = 0.05  # a worker sends what it found at least this often while it finds solutions
BATCH_SIZE = 512
FOUND = "found"


@dataclass(frozen=True)
class PartUnit:
    """One part of a split run: the puzzle, the run's choices, the part's key."""

    puzzle: PuzzleFile
    problem: str | None
    engine: str
    breaking: Breaking | None  # None: a search without symmetry breaking, cut by the engine's first choices
    search: SearchOptions
    key: PartKey
    build: BuildOptions = dataclasses.field(default_factory=BuildOptions)  # so a worker builds as the client did
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES

    @cached_property
    def id(self) -> str:
        """The same for the same puzzle content, problem, breaking and part, whoever computes it
        (computed once per unit: a run of thousands of parts asks for it several times each)."""
        breaking = self.breaking.digest if self.breaking is not None else "unbroken"
        where = f"{self.problem or ''}-{breaking}-{'.'.join(map(str, self.key))}"
        return f"{self.puzzle.digest[:16]}-{where}"

    @property
    def compiled_for(self) -> tuple[Any, ...]:
        """What the compiled puzzle depends on: units alike in this are solved on one compiled form."""
        breaking = self.breaking
        broken = None if breaking is None else (breaking.first, breaking.forbidden_pairs)
        return (self.puzzle.digest, self.problem, self.engine, broken)


def part_items(compiled: Prepared, unit: PartUnit, *, deadline: Deadline, coalesce: bool) -> Iterator[Any]:
    """One part searched: ("found", solutions) as they come (fewer, larger batches when they cross
    a process boundary), then the reason it stopped (None: it ran to its end)."""
    part = compiled.enumerate(unit.search, deadline, unit.key)
    batch: list[Solution] = []
    sent = time.monotonic()
    for found in part.batches():
        if not coalesce:
            yield FOUND, found
            continue
        batch.extend(found)
        if len(batch) >= BATCH_SIZE or time.monotonic() - sent > BATCH_SECONDS:
            yield FOUND, batch
            batch, sent = [], time.monotonic()
    if batch:
        yield FOUND, batch
    yield None if part.stopped_by is None else str(part.stopped_by)


Kept = TypeVar("Kept")


def kept_on_worker(slot: str, key: Hashable, build: Callable[[], Kept]) -> Kept:
    """What this Dask worker built for a run (a compiled search, a counter), kept on the worker
    object under `slot` with what it was built for: a worker takes many parts of one run, and
    building is most of a small part's time. One run at a time: the last one is kept. (Forked
    workers use what the run built, which the fork copied.)"""
    from distributed import get_worker

    known: dict[Hashable, Kept] = get_worker().__dict__.setdefault(slot, {})
    if key not in known:
        known.clear()
        known[key] = build()
    return known[key]


def model_of(file: PuzzleFile, problem: str | None, build: BuildOptions, max_file_bytes: int) -> PuzzleModel:
    """The model a unit's puzzle builds, from the content it carries, as the client built it."""
    puzzle = puzzles(file, ReadOptions(max_file_bytes, problem))[0]
    return puzzle.model(build)[0]


def _compile(unit: PartUnit) -> Prepared:
    model = model_of(unit.puzzle, unit.problem, unit.build, unit.max_file_bytes)
    engine = engines.DEFAULT.named(unit.engine)
    engine.load_for(model)
    return engine.prepare(model, unit.breaking)


def solve_part_on_dask(unit: PartUnit, *, time_limit: float | None) -> Iterator[Any]:
    """A part on a Dask worker: compiled from the unit's content (kept for the run's next part),
    searched within the time the run had left when it sent the part."""
    compiled = kept_on_worker("cpsolve_compiled", unit.compiled_for, lambda: _compile(unit))
    return part_items(compiled, unit, deadline=Deadline.after(time_limit), coalesce=True)


class Checkpoint:
    """The finished parts of a run, one JSON line each: {"unit", "solutions", "check"} (a run
    that lists) or {"unit", "count", "check"} (a run that counts without listing: the count as a
    decimal string, of any size), where `check` is a digest of the other two (a line changed by
    hand or by a broken disk no longer matches it). Only parts that ran to their end are recorded;
    a line cut short by a kill is dropped; the file is locked while the run has it
    (cpsolve.journal)."""

    WHAT = "a cpsolve checkpoint"

    def __init__(self, path: Path) -> None:
        self.path = path
        self.journal = Journal(path, "unit", self.WHAT)
        self.finished: dict[str, list[Solution]] = {}
        self.counted: dict[str, int] = {}
        try:
            for number, record in enumerate(self.journal.records, 1):
                unit = self._unit(record, number)
                if "count" in record:
                    self.counted[unit] = int(record["count"])
                else:
                    self.finished[unit] = [tuple(s) for s in record["solutions"]]
        except BaseException:
            self.journal.close()
            raise

    def _unit(self, record: dict[str, Any], number: int) -> str:
        unit, solutions, count = record.get("unit"), record.get("solutions"), record.get("count")
        found = count if isinstance(count, str) and count.isdigit() and len(count) < 10_000 else solutions
        if not isinstance(unit, str) or not isinstance(found, list | str) or record.get("check") != _check(unit, found):
            raise CpsolveError(
                f"{self.path}: record {number} is not a finished part as cpsolve wrote it (its check does not"
                " match); give a new checkpoint file"
            )
        return unit

    def believe(self, unit: str, model: PuzzleModel) -> list[Solution]:
        """A recorded part's solutions, each checked to be a solution of the puzzle."""
        solutions = self.finished[unit]
        for solution in solutions:
            atoms_ok = all(isinstance(a, int) and not isinstance(a, bool) for a in solution)
            problem = model.problem_with(solution) if atoms_ok and list(solution) == sorted(solution) else "not atoms"
            if problem is not None:
                raise CpsolveError(
                    f"{self.path}: part {unit} records a solution that is none ({problem}); give a new checkpoint file"
                )
        return solutions

    def record(self, unit: str, solutions: list[Solution]) -> None:
        written = [list(s) for s in solutions]
        self.journal.append([{"unit": unit, "solutions": written, "check": _check(unit, written)}])

    def record_count(self, unit: str, count: int) -> None:
        written = str(count)
        self.journal.append([{"unit": unit, "count": written, "check": _check(unit, written)}])

    def close(self) -> None:
        self.journal.close()


def _check(unit: str, solutions: Any) -> str:
    return hashlib.sha256(json.dumps([unit, solutions], separators=(",", ":")).encode()).hexdigest()[:16]


class PartsEnumeration(Enumeration):
    """The parts of a run on an executor, each part's solutions streamed as they come and each
    part merged once; with a checkpoint, the parts it holds are merged first and not run."""

    def __init__(
        self,
        compiled: Prepared,
        units: list[PartUnit],
        runners: Workers,
        search: SearchOptions,
        deadline: Deadline = NO_DEADLINE,
        checkpoint: Checkpoint | None = None,
        on_dask: bool = False,
    ) -> None:
        super().__init__(search, deadline)
        self.compiled = compiled
        self.units = units
        self.runners = runners
        self.checkpoint = checkpoint
        self.on_dask = on_dask
        # Parts hand work back to idle forked workers only where every part is merged in this run:
        # a checkpoint (or a cluster's retried task) would know the shrunken part but not its
        # handed-back parts.
        self.sharing = isinstance(runners, Forked) and checkpoint is None and compiled.hands_back()
        every = on_dask or self.sharing
        self.workers = runners.workers if every else max(1, min(runners.workers, len(units)))
        self.merged: set[str] = set()
        self.shared: list[PartUnit] = []  # parts that running parts handed back (`_share`)

    def __iter__(self) -> Generator[Solution, None, None]:
        for batch in self.batches():
            yield from batch

    @property
    def parts_done(self) -> int:
        return len(self.merged)

    @property
    def complete(self) -> bool:
        return self.stopped_by is None and all(unit.id in self.merged for unit in [*self.units, *self.shared])

    def batches(self) -> Generator[list[Solution], None, None]:
        try:
            yield from self._recorded()
            yield from self._run([unit for unit in self.units if unit.id not in self.merged])
        finally:
            self.runners.close()
            if self.checkpoint is not None:
                self.checkpoint.close()

    def _recorded(self) -> Iterator[list[Solution]]:
        """The parts a checkpoint holds, each solution checked, merged first."""
        checkpoint = self.checkpoint
        if checkpoint is None:
            return
        for unit in self.units:
            if unit.id in checkpoint.finished and unit.id not in self.merged:
                solutions = checkpoint.believe(unit.id, self.compiled.puzzle)
                self.merged.add(unit.id)
                yield solutions

    def _run(self, todo: list[PartUnit]) -> Iterator[list[Solution]]:
        found: dict[str, list[Solution]] = {}
        share = self._share if self.sharing else None
        for index, item in self.runners.stream(self._task(), todo, share, stop=self.deadline.passed):
            if item == STOPPED:
                self.interrupt(StopReason.of_deadline(self.deadline))
                return
            unit = todo[index]
            if unit.id in self.merged or item in (DONE, GREW):
                continue
            if isinstance(item, tuple) and item[0] == FOUND:
                if self.checkpoint is not None:
                    found.setdefault(unit.id, []).extend(item[1])
                yield item[1]
            else:
                self.merged.add(unit.id)
                if item is not None:
                    self.interrupt(StopReason(item))
                elif self.checkpoint is not None:
                    self.checkpoint.record(unit.id, found.pop(unit.id, []))
            if self.stopped_by is not None or self.out_of_time():
                return

    def _share(self, unit: PartUnit, keys: list[PartKey]) -> list[PartUnit]:
        """The parts a running part handed back (their keys), as units of this run."""
        shared = [dataclasses.replace(unit, key=tuple(key)) for key in keys]
        self.shared.extend(shared)
        return shared

    def _task(self) -> Callable[[PartUnit], Iterator[Any]]:
        """What runs a part: on Dask, from the unit's content within the time left; here and in
        forked workers, on the compiled form this process holds (a fork copies it)."""
        if self.on_dask:
            return functools.partial(solve_part_on_dask, time_limit=self.deadline.remaining())
        return functools.partial(part_items, self.compiled, deadline=self.deadline, coalesce=self.runners.remote)


class BegunHere(Enumeration):
    """A search begun in this process that goes on in parts on the executor once it has searched
    for `after_seconds`: a short search never pays for starting processes (a design whose search
    took 0.02 s ran 0.09 s in one process, 0.13 s split for two), a long one keeps what it did
    (what it had not searched when it stopped becomes the parts: engines.base.Spill)."""

    def __init__(
        self,
        compiled: Prepared,
        after_seconds: float,
        parts_for: Callable[[list[PartKey]], PartsEnumeration],
        search: SearchOptions,
        deadline: Deadline = NO_DEADLINE,
    ) -> None:
        super().__init__(search, deadline)
        self.spill = Spill(after_seconds)
        here = compiled.begun_here(search, deadline, self.spill)
        if here is None:
            raise ValueError(f"the {compiled.engine.name} engine cannot hand a running search over")
        self.here = here
        self.parts_for = parts_for
        self.there: PartsEnumeration | None = None

    def __iter__(self) -> Generator[Solution, None, None]:
        for batch in self.batches():
            yield from batch

    @property
    def complete(self) -> bool:
        return self.stopped_by is None and (self.there is None or self.there.complete)

    def batches(self) -> Generator[list[Solution], None, None]:
        yield from self.here.batches()
        self.stopped_by = self.here.stopped_by
        rest = self.spill.rest
        if self.stopped_by is not None or not rest:
            return
        self.there = there = self.parts_for(rest)
        self.workers = there.workers
        yield from there.batches()
        self.stopped_by = there.stopped_by

    def interrupt(self, reason: StopReason = StopReason.INTERRUPTED) -> None:
        super().interrupt(reason)
        for running in (self.here, self.there):
            if running is not None:
                running.interrupt(reason)


def units_of(
    compiled: Prepared,
    file: PuzzleFile,
    problem: str | None,
    keys: Iterable[PartKey],
    search: SearchOptions,
    build: BuildOptions,
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
) -> list[PartUnit]:
    """The parts of a run as units; each carries the run's file size limit, which also bounds what
    a compressed file may expand to when a worker reads it again."""
    breaking, engine = compiled.breaking, compiled.engine.name
    return [PartUnit(file, problem, engine, breaking, search, key, build, max_file_bytes) for key in keys]
