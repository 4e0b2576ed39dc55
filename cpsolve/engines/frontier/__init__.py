"""The frontier counter as an engine: packings counted without listing (`--count-only`), the three
counts and no solution kept.

Packings whose pieces repeat are counted on the frontier (counter.py, compiled in kernel.py), one
count per conjugacy class of the symmetry group, and the classes follow from Burnside's lemma
(cpsolve.counting.burnside). The engine is in the registry like the others (`cpsolve engines`);
it counts and lists nothing (`Engine.lists` False), so the registry gives it only `--count-only`
runs, and `auto` only the packings it measured faster on (`prefers`). Its enumeration yields no
solution and carries the counts: a run reads them from it as from a classifier. Each count splits
into disjoint parts, one per move that fills the first cell, whose counts add up: the units of
work for `--workers`, `--checkpoint` and `--cluster`, run on the one executor (cpsolve.workers)
as a listing run's parts are. Every other puzzle is listed by its engine and tallied
(cpsolve.counting.tally) by cpsolve.run.
"""

from __future__ import annotations

import dataclasses
import functools
import time
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from cpsolve import workers
from cpsolve.counting import Counts
from cpsolve.counting.burnside import BurnsideSums, ConjugacyClass, conjugacy_classes
from cpsolve.engines.base import (
    Capabilities,
    Counting,
    Engine,
    Enumeration,
    PartKey,
    Prepared,
    RunContext,
    SearchOptions,
    StopReason,
)
from cpsolve.engines.frontier.counter import (
    STATE_BYTES,
    FrontierProblem,
    FrontierTooWide,
    frontier_problem,
    load_compiled,
)
from cpsolve.errors import CpsolveError, OutOfTimeError, Terminated
from cpsolve.formats import PuzzleFile
from cpsolve.limits import DEFAULT_MAX_FILE_BYTES, NO_DEADLINE, Deadline
from cpsolve.models import BuildOptions, CoverProblem, PuzzleModel
from cpsolve.symmetry import Breaking, Solution
from cpsolve.units import Checkpoint, kept_on_worker, model_of
from cpsolve.workers import DONE, STOPPED, Sharing

FRONTIER = "frontier"  # the counter's name, as --engine takes it with --count-only
PARTS_PER_WORKER = 8  # parts of a count per process, as for a listing search (cpsolve.parts)
# Sub-problems past which a count `auto` chose gives way to listing: the widest level of the
# shipped counts is under a million (6x4x4 T-tetracubes 0.42-0.78 million), while BurrTools'
# AlPackino, listed in 0.1 s, held 10.8 million at its 13th of 180 cells when it stopped at the
# default 2,048 MB after 29 s (2.1 million: 3.5 s).
GIVE_WAY_STATES = 1 << 21
ProgressHook = Callable[[str, float], None]  # what the count is doing, seconds since it started


@dataclass(frozen=True)
class CountOptions:
    """What a count takes of the run's options (cpsolve.options.RunOptions) and of its puzzle file
    (the content a unit carries to a cluster's worker, as a listing run's parts do)."""

    order: str = "fill"
    max_bytes: int = 2**31
    workers: int = 1
    cluster: str | None = None
    checkpoint: Path | None = None
    build: BuildOptions = dataclasses.field(default_factory=BuildOptions)
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    file: PuzzleFile | None = None  # None: counted in this process only
    problem: str | None = None
    # chosen by `auto` rather than asked for: past GIVE_WAY_STATES the count stops and the run
    # lists instead (`FrontierCount.gave_way`)
    gives_way: bool = False

    @property
    def most_bytes(self) -> int:
        """What the frontier may hold: --max-memory, and no more than GIVE_WAY_STATES where the
        count gives way to listing."""
        return min(self.max_bytes, GIVE_WAY_STATES * STATE_BYTES) if self.gives_way else self.max_bytes


def why_not(model: PuzzleModel) -> str | None:
    """Why the frontier counter cannot count this puzzle (None: it can)."""
    if model.cover_problem() is None:
        return f"a {model.kind} puzzle is no packing"
    if model.group.is_valid is not None:
        return "its parts are mirrored on their own, which Burnside's lemma over the whole group does not count"
    if model.group.redundancy != 1 or (model.group.cell_maps is None and model.group.order > 1):
        return "its symmetries are not maps of cells"
    return None


def prefers(model: PuzzleModel) -> bool:
    """Whether `auto` counts this packing on the frontier rather than by listing: where pieces
    repeat (at least two copies a kind on average). Distinct pieces make each piece set a
    sub-problem of its own, and listing them measured faster (docs/counting.md)."""
    cover = model.cover_problem()
    assert cover is not None
    copies = sum(high for _, high in cover.piece_bounds)
    return copies >= 2 * len(cover.piece_bounds)


@dataclass(frozen=True)
class CountUnit:
    """One part of one symmetry's count: the puzzle itself (so a Dask worker builds the same
    model), the conjugacy class's representative element, the part (-1: the whole count)."""

    puzzle: PuzzleFile
    problem: str | None
    element: int
    part: int
    order: str
    max_bytes: int | None
    build: BuildOptions = dataclasses.field(default_factory=BuildOptions)
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES

    @cached_property
    def id(self) -> str:
        """The same for the same content, problem, element, part and cell order, whoever computes it."""
        return f"{self.puzzle.digest[:16]}-{self.problem or ''}-count-{self.order}-{self.element}-{self.part}"


def cell_order(cover: CoverProblem, order: str) -> tuple[int, ...]:
    """The cells in the order a count fills them: `fill`, the family's (along the shortest side
    first, the longest last: the narrowest frontier); `reverse`, the same backwards; `across`,
    the slowest side kept and the other two swapped, so that a second count of the same puzzle
    walks other sub-problems (on a box, `reverse` is the fill order turned by a symmetry of the
    box, and its levels are as wide as the fill order's). `across` needs the cells' positions."""
    if order == "fill":
        return tuple(cover.fill_order)
    if order == "reverse":
        return tuple(reversed(cover.fill_order))
    positions = cover.positions
    if not positions:
        raise CpsolveError("--count-order across needs a packing on a grid of layers (cubes, prisms, spheres)")
    sides = [len({p[axis] for p in positions}) for axis in range(3)]
    slow, middle, fast = sorted(range(3), key=lambda axis: (-sides[axis], -axis))  # as the fill order's
    return tuple(
        sorted(range(cover.cells), key=lambda c: (positions[c][slow], positions[c][fast], positions[c][middle]))
    )


def beside_images(order: tuple[int, ...], cell_map: list[int]) -> tuple[int, ...]:
    """The cells for counting what a symmetry leaves unchanged: each cell's orbit under it taken
    together, where the orbit's first cell comes in `order`. A move is a whole orbit of
    placements, so in `order` itself it would reach from a cell to its image across the target
    (a half turn of a 20x20 board: 400 cells ahead, too far for the compiled counter's 63); so
    it reaches about as far as one placement times the orbit's length."""
    rank = {cell: number for number, cell in enumerate(order)}
    first = {}
    for cell in order:
        if cell not in first:
            orbit, at = [cell], cell_map[cell]
            while at != cell:
                orbit.append(at)
                at = cell_map[at]
            leader = min(orbit, key=rank.__getitem__)
            for member in orbit:
                first[member] = rank[leader]
    return tuple(sorted(order, key=lambda cell: (first[cell], rank[cell])))


class Counter:
    """A puzzle's frontier problems, one per element asked for, built on first use and kept (a
    worker counts many parts of one element)."""

    def __init__(self, model: PuzzleModel, order: str) -> None:
        cover = model.cover_problem()
        assert cover is not None
        self.model = model
        self.cover = cover
        self.order = cell_order(cover, order)
        self.problems: dict[int, FrontierProblem] = {}
        self.parts: dict[int, list[int]] = {}

    def problem(self, element: int) -> FrontierProblem:
        if element not in self.problems:
            group = self.model.group
            atom_map = group.elements[element].atom_map if group.order else None
            cell_map = None if group.cell_maps is None else group.cell_maps[element].tolist()
            order = self.order if cell_map is None else beside_images(self.order, cell_map)
            self.problems[element] = frontier_problem(self.cover, order, atom_map, cell_map)
        return self.problems[element]

    def first_moves(self, element: int) -> list[int]:
        if element not in self.parts:
            self.parts[element] = self.problem(element).first_moves()
        return self.parts[element]

    def count(self, unit: CountUnit, deadline: Deadline, on_level: Callable[[int, int], None] | None = None) -> int:
        problem = self.problem(unit.element)
        start = None if unit.part < 0 else self.first_moves(unit.element)[unit.part]
        return problem.count(start, deadline, unit.max_bytes, on_level)


@dataclass(frozen=True)
class Counted:
    """A unit's item: its count."""

    count: int


@dataclass(frozen=True)
class TooWide:
    """A unit's item: its frontier held more sub-problems than the memory allows (at `cell` of `cells`)."""

    cell: int
    cells: int
    states: int


@dataclass(frozen=True)
class Stopped:
    """A unit's item: it stopped before its end (the time limit, a cancel)."""

    reason: str


def count_items(counter: Counter, unit: CountUnit, *, deadline: Deadline) -> Iterator[Counted | TooWide | Stopped]:
    """One unit counted: ("counted", n), or why it stopped (a reason, or the frontier that did not fit)."""
    try:
        yield Counted(counter.count(unit, deadline))
    except OutOfTimeError:
        yield Stopped(str(StopReason.of_deadline(deadline)))
    except FrontierTooWide as wide:
        yield TooWide(wide.cell, wide.cells, wide.states)


def count_on_dask(unit: CountUnit, *, time_limit: float | None) -> Iterator[Any]:
    """A part on a Dask worker: the counter built from the unit's content (kept for the run's next
    part), counted within the time the run had left when it sent the part."""
    key = (unit.puzzle.digest, unit.problem, unit.order)
    counter = kept_on_worker(
        "cpsolve_counter",
        key,
        lambda: Counter(model_of(unit.puzzle, unit.problem, unit.build, unit.max_file_bytes), unit.order),
    )
    return count_items(counter, unit, deadline=Deadline.after(time_limit))


@dataclass
class CountProgress:
    """What a counting run tells the progress line: the symmetry and part being counted, the cell."""

    hook: ProgressHook | None
    started: float
    doing: str = ""
    widest: int = 0  # the most sub-problems a level held, in this process

    def level(self, cell: int, states: int) -> None:
        self.widest = max(self.widest, states)
        if self.hook is not None:
            self.hook(f"{self.doing}: cell {cell:,}, {states:,} sub-problems", time.perf_counter() - self.started)

    def parts(self, done: int, total: int) -> None:
        if self.hook is not None:
            self.hook(f"{done:,} of {total:,} parts counted", time.perf_counter() - self.started)


class FrontierCount(Enumeration, Counting):
    """The counts of one puzzle on the frontier: every conjugacy class's fixed count, whole in
    this process or in parts on the executor, merged once per unit. An enumeration that yields
    no solution: iterating it counts, and a run reads the counts from it as from a classifier
    (engines.base.Counting: `counts`, `identity_problems`, `raw_seen`)."""

    def __init__(
        self, model: PuzzleModel, options: CountOptions, search: SearchOptions, deadline: Deadline = NO_DEADLINE
    ) -> None:
        super().__init__(search, deadline)
        self.model = model
        self.options = options
        self.classes: list[ConjugacyClass] = conjugacy_classes(model.group) if model.group.order else []
        self.sums = BurnsideSums(model.group, self.classes, {})
        self.counter = Counter(model, options.order)
        self.notes: list[str] = []
        self.parts_counted: dict[int, int] = {}  # class number -> parts merged
        self.parts_of: dict[int, int] = {}
        self.partial: dict[int, int] = {}  # class number -> the sum of its parts merged so far
        self.progress = CountProgress(None, time.perf_counter())
        self.gave_way = None  # why the run lists instead (options.gives_way), once it stopped

    def counting(self) -> Counting:
        return self

    def __iter__(self) -> Generator[Solution, None, None]:
        self.count()
        yield from ()

    def batches(self) -> Generator[list[Solution], None, None]:
        self.count()
        yield from ()

    def split(self) -> bool:
        options = self.options
        wanted = options.workers > 1 or options.cluster is not None or options.checkpoint is not None
        return wanted and options.file is not None

    @property
    def complete(self) -> bool:
        return self.stopped_by is None and self.sums.complete

    def identity_problems(self) -> list[str]:
        return self.sums.problems() if self.complete else []

    def units(self, parts_wanted: int) -> list[tuple[int, CountUnit]]:
        """Each conjugacy class's units: the whole count, or one unit per first move."""
        result = []
        for number, each in enumerate(self.classes):
            parts = range(len(self.counter.first_moves(each.representative))) if parts_wanted > 1 else [-1]
            self.parts_of[number] = len(parts)
            for part in parts:
                result.append((number, self.unit(each.representative, part)))
        return result

    def unit(self, element: int, part: int) -> CountUnit:
        options = self.options
        return CountUnit(
            options.file or PuzzleFile("", b""),
            options.problem,
            element,
            part,
            options.order,
            options.most_bytes,
            options.build,
            options.max_file_bytes,
        )

    def count(self, on_progress: ProgressHook | None = None) -> None:
        """Count every class; stops (reason and notes recorded) at the time limit, Ctrl-C, or a
        frontier too wide, with what was merged so far kept."""
        progress = self.progress
        if on_progress is not None:
            progress.hook = on_progress
        try:
            if self.split():
                self._run_split(progress)
            else:
                self._run_here(progress)
        except KeyboardInterrupt:
            self.stopped_by = StopReason.INTERRUPTED
        except Terminated:
            self.stopped_by = StopReason.TERMINATED
        except OutOfTimeError:
            self.stopped_by = StopReason.of_deadline(self.deadline)
        except FrontierTooWide as wide:
            self._too_wide(wide.cell, wide.cells, wide.states)

    def _run_here(self, progress: CountProgress) -> None:
        for number, unit in self.units(1):
            progress.doing = f"symmetry class {number + 1} of {len(self.classes)}"
            self.sums.fixed[number] = self.counter.count(unit, self.deadline, progress.level)
            self.parts_counted[number] = 1

    def _run_split(self, progress: CountProgress) -> None:
        options = self.options
        wanted = options.workers or workers.cores()
        runners = workers.workers_for(options.cluster, wanted)
        self.workers = runners.workers
        numbered = self.units(PARTS_PER_WORKER * runners.workers)
        checkpoint = Checkpoint(options.checkpoint) if options.checkpoint else None
        partial = self.partial
        try:
            todo = []
            for number, unit in numbered:
                if checkpoint is not None and unit.id in checkpoint.counted:
                    self._merge(number, checkpoint.counted[unit.id], partial)
                else:
                    todo.append((number, unit))
            task = self._task()
            for index, item in runners.stream(task, [unit for _, unit in todo], stop=self.deadline.passed):
                number, unit = todo[index]
                if item is DONE:
                    continue
                if item is STOPPED:
                    self.stopped_by = StopReason.of_deadline(self.deadline)
                    return
                if isinstance(item, Counted):
                    self._merge(number, item.count, partial)
                    if checkpoint is not None:
                        checkpoint.record_count(unit.id, item.count)
                    progress.parts(sum(self.parts_counted.values()), len(numbered))
                elif isinstance(item, TooWide):
                    self._too_wide(item.cell, item.cells, item.states)
                    return
                else:
                    self.stopped_by = StopReason(item.reason)
                    return
                if self.deadline.passed():
                    self.stopped_by = StopReason.of_deadline(self.deadline)
                    return
        finally:
            runners.close()
            if checkpoint is not None:
                checkpoint.close()

    def _task(self) -> Callable[[CountUnit], Iterator[Any]]:
        if self.options.cluster is not None:
            return functools.partial(count_on_dask, time_limit=self.deadline.remaining())
        return functools.partial(count_items, self.counter, deadline=self.deadline)

    def _merge(self, number: int, count: int, partial: dict[int, int]) -> None:
        partial[number] = partial.get(number, 0) + count
        self.parts_counted[number] = self.parts_counted.get(number, 0) + 1
        if self.parts_counted[number] == self.parts_of[number]:
            self.sums.fixed[number] = partial[number]

    def _too_wide(self, cell: int, cells: int, states: int) -> None:
        self.stopped_by = StopReason.MEMORY_LIMIT
        if self.options.gives_way and self.options.most_bytes < self.options.max_bytes:
            self.gave_way = (
                f"--count-only listed and tallied the solutions instead: the frontier counter (auto's choice)"
                f" held {states:,} sub-problems at cell {cell + 1:,} of {cells:,}, past the {GIVE_WAY_STATES:,}"
                " at which it gives way (--engine frontier counts on, up to --max-memory)"
            )
            return
        megabytes = self.options.max_bytes // 2**20
        self.notes.append(
            f"at cell {cell + 1:,} of {cells:,} the frontier held {states:,} sub-problems, past --max-memory"
            f" {megabytes:,} MB; raise --max-memory where the machine has room, or split the count into parts"
            " (--workers, --cluster: each part's frontier is smaller)"
        )

    def counted_so_far(self) -> str:
        """What a stopped run had counted: whole classes, and parts of the identity's count."""
        done = len(self.sums.fixed)
        identity_parts = self.parts_counted.get(0, 0)
        said = f"counted {done} of {len(self.classes)} symmetry classes"
        if 0 not in self.sums.fixed and identity_parts:
            said += (
                f" and {identity_parts} of {self.parts_of.get(0, 1)} parts of the identity's count"
                f" (raw is at least their {self.partial.get(0, 0):,})"
            )
        return said + "; unique and rotations need every class (Burnside's average), so they are shown as 0"

    def counts(self) -> Counts:
        """The counts; in a stopped run raw is what the identity's parts merged so far add up to."""
        counts = self.sums.counts()
        if 0 not in self.sums.fixed:
            counts.raw = self.partial.get(0, 0)
        return counts

    def report_notes(self) -> list[str]:
        """What the report says of the count beside the model's notes."""
        return [*self.notes, *([] if self.complete else [self.counted_so_far()])]

    def as_json(self) -> dict[str, Any]:
        """The report's `counting`: the method, the order, each symmetry class's count."""
        return {
            "method": FRONTIER,
            "cell_order": self.options.order,
            "symmetry_classes": self.sums.as_json(),
            "widest_level": None if self.split() else self.progress.widest,
        }


class FrontierEngine(Engine):
    """The frontier counter: counts packings without listing them (`--count-only`)."""

    name = "frontier"
    takes_what = "packings whose symmetries map cells, with --count-only"
    lists = False

    def load(self, puzzle: PuzzleModel | None = None, every_variant: bool = False) -> None:
        """The compiled counter, where numba is installed (before a run's clock starts)."""
        load_compiled()

    def takes(self, puzzle: PuzzleModel, auto: bool = False) -> bool:
        """Packings it can count; for `auto`, only those whose pieces repeat (`prefers`)."""
        return why_not(puzzle) is None and (not auto or prefers(puzzle))

    def prepare(self, puzzle: PuzzleModel, breaking: Breaking | None, deadline: Deadline = NO_DEADLINE) -> Prepared:
        """No breaking: the count is of every solution, and the classes come from Burnside's sums."""
        return FrontierPrepared(self, puzzle, None)


class FrontierPrepared(Prepared):
    """A packing ready to count: `options` (the cell order, the memory, the parts) are the run's,
    taken before it counts (`take_run`); without them it counts in this process, in the fill
    order."""

    def __init__(self, engine: Engine, puzzle: PuzzleModel, breaking: Breaking | None) -> None:
        super().__init__(engine, puzzle, breaking)
        self.options = CountOptions()

    def take_run(self, run: RunContext) -> None:
        self.options = CountOptions(
            run.count_order,
            run.max_class_bytes,
            run.workers,
            run.cluster,
            run.checkpoint,
            run.build,
            run.max_file_bytes,
            run.file,
            run.problem,
            gives_way=run.auto_chosen,
        )

    def enumerate(
        self,
        search: SearchOptions,
        deadline: Deadline = NO_DEADLINE,
        part: PartKey | None = None,
        sharing: Sharing | None = None,
    ) -> Enumeration:
        return FrontierCount(self.puzzle, self.options, search, deadline)

    def capabilities(self, cores: int) -> Capabilities:
        """It splits itself (one part per first move of each class's count) where its options
        ask for processes, a cluster or a checkpoint; the planner runs it whole."""
        return Capabilities()
