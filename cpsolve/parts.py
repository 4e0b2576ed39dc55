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
import time
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from cpsolve import engines
from cpsolve.engines import Enumeration, SearchOptions, StopReason
from cpsolve.engines.base import PartKey, Prepared, Spill
from cpsolve.formats import Puzzle, PuzzleFile
from cpsolve.limits import DEFAULT_MAX_FILE_BYTES, NO_DEADLINE, Deadline
from cpsolve.models import BuildOptions
from cpsolve.options import RunOptions
from cpsolve.planner import How, Plan
from cpsolve.symmetry import Breaking, Solution
from cpsolve.units import Checkpoint, kept_on_worker, model_of
from cpsolve.workers import DONE, GREW, STOPPED, Forked, Sharing, Threaded, Workers, workers_for

PARTS_PER_WORKER = 8  # an engine that can split finer is asked for this many parts per process
# A search a run begins in its own process (Capabilities.begins_here: the fewest-placements search
# below 20,000 atoms) goes on in every core's process once it has searched this long. Starting
# them costs 0.03-0.05 s, so a search just past this loses that: after 0.05 s a 6x6x5 design whose
# search takes 0.06 s ran 0.118 -> 0.134 s, after 0.1 s 0.127 -> 0.127 s (7 runs in turn).
PARALLEL_AFTER_SECONDS = 0.1
# The same where the rest goes on threads of this process (bit-parallel and box searches): nothing to
# start, but the parts and the threads still cost. `--workers 2`, spilled after 0.02 s against
# one worker: SolidSixPieceBurrs (a 0.023 s search) 0.069-0.083 s against 0.060, the Kanoodle
# pyramid (0.068 s) 0.067-0.071 against 0.083; after 0.05 s both as one worker's
# (benchmarks/time_split.py --repeat 9, two rounds).
THREADS_AFTER_SECONDS = 0.05
BATCH_SECONDS = 0.05  # a worker sends what it found at least this often while it finds solutions
BATCH_SIZE = 512


@dataclass(frozen=True)
class Found:
    """An item of a part's search: solutions it found."""

    solutions: list[Solution]


@dataclass(frozen=True)
class PartEnded:
    """The last item of a part's search: why it stopped (None: it ran to its end)."""

    reason: str | None


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


def part_items(
    compiled: Prepared, unit: PartUnit, sharing: Sharing | None = None, *, deadline: Deadline, coalesce: bool
) -> Iterator[Any]:
    """One part searched: Found(solutions) as they come (fewer, larger batches when they cross a
    process boundary), then PartEnded with the reason it stopped. `sharing`: the forked worker's,
    where the stream takes work back (cpsolve.workers.Sharing)."""
    part = compiled.enumerate(unit.search, deadline, unit.key, sharing)
    batch: list[Solution] = []
    sent = time.monotonic()
    for found in part.batches():
        if not coalesce:
            yield Found(found)
            continue
        batch.extend(found)
        if len(batch) >= BATCH_SIZE or time.monotonic() - sent > BATCH_SECONDS:
            yield Found(batch)
            batch, sent = [], time.monotonic()
    if batch:
        yield Found(batch)
    yield PartEnded(None if part.stopped_by is None else str(part.stopped_by))


def _compile(unit: PartUnit) -> Prepared:
    model = model_of(unit.puzzle, unit.problem, unit.build, unit.max_file_bytes)
    engine = engines.DEFAULT.named(unit.engine)
    engine.load(model)
    return engine.prepare(model, unit.breaking)


def solve_part_on_dask(unit: PartUnit, *, time_limit: float | None) -> Iterator[Any]:
    """A part on a Dask worker: compiled from the unit's content (kept for the run's next part),
    searched within the time the run had left when it sent the part."""
    compiled = kept_on_worker("cpsolve_compiled", unit.compiled_for, lambda: _compile(unit))
    return part_items(compiled, unit, deadline=Deadline.after(time_limit), coalesce=True)


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
        can = compiled.capabilities(runners.workers)
        self.sharing = isinstance(runners, Forked) and checkpoint is None and can.hands_back
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
            if self.out_of_time():  # stopped while the workers or the cluster were started
                return
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
            if item is STOPPED:
                self.interrupt(StopReason.of_deadline(self.deadline))
                return
            unit = todo[index]
            if unit.id in self.merged or item is DONE or item is GREW:
                continue
            if isinstance(item, Found):
                if self.checkpoint is not None:
                    found.setdefault(unit.id, []).extend(item.solutions)
                yield item.solutions
            elif isinstance(item, PartEnded):
                self.merged.add(unit.id)
                if item.reason is not None:
                    self.interrupt(StopReason(item.reason))
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
        runners = self.runners
        if isinstance(runners, Threaded):  # fewer, larger batches: each one handed over waits for the GIL
            halting = runners.deadline_for(self.deadline)
            return functools.partial(part_items, self.compiled, deadline=halting, coalesce=True)
        return functools.partial(part_items, self.compiled, deadline=self.deadline, coalesce=runners.remote)


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


def carry_out(plan: Plan, compiled: Prepared, puzzle: Puzzle, options: RunOptions, deadline: Deadline) -> Enumeration:
    """The enumeration that carries out a plan (cpsolve.planner): the whole search here, raced on
    the plan's processes, begun here, or in parts on the executor (forked processes, a Dask
    cluster, with a checkpoint)."""
    search = options.search
    if plan.how is How.RACE:
        racing = compiled.racing(search, deadline, workers_for(None, plan.workers))
        if racing is not None:
            return racing
    if plan.how in (How.WHOLE, How.RACE):
        return compiled.enumerate(search, deadline)
    if plan.how is How.BEGIN_HERE:
        after = THREADS_AFTER_SECONDS if plan.threads else PARALLEL_AFTER_SECONDS
        return BegunHere(compiled, after, _rest_on(compiled, puzzle, options, plan, deadline), search, deadline)
    runners = workers_for(options.cluster, plan.workers, plan.threads)
    keys = compiled.part_keys(PARTS_PER_WORKER * runners.workers if runners.workers > 1 or plan.units else 1)
    units = units_of(compiled, puzzle.file, puzzle.problem, keys, search, options.build, options.max_file_bytes)
    checkpoint = Checkpoint(options.checkpoint) if options.checkpoint else None
    return PartsEnumeration(compiled, units, runners, search, deadline, checkpoint, options.cluster is not None)


def _rest_on(
    compiled: Prepared, puzzle: Puzzle, options: RunOptions, plan: Plan, deadline: Deadline
) -> Callable[[list[PartKey]], PartsEnumeration]:
    """What runs the rest of a search begun here (BegunHere): its parts in the plan's forked
    processes, handing work back to one that waits, or on the plan's threads, every one at once
    (the search has proven long)."""

    def on_every_core(keys: list[PartKey]) -> PartsEnumeration:
        search, build = options.search, options.build
        runners = workers_for(None, plan.workers, plan.threads, stagger=False)
        keys = compiled.part_keys(PARTS_PER_WORKER * runners.workers, keys)  # a part left alone is split
        units = units_of(compiled, puzzle.file, puzzle.problem, keys, search, build, options.max_file_bytes)
        return PartsEnumeration(compiled, units, runners, search, deadline)

    return on_every_core
