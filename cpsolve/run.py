"""One run: a loaded puzzle's model, enumerated on an engine, classified, and reported.

This is the library entry point the CLI, `cpsolve.solve`, batches, bench, the tests and scripts
call; it prints nothing. `run(puzzle)` takes a puzzle a format read (cpsolve.formats), never a
path: `run_file(path)` reads a file once and runs each of its problems. Hooks let the caller see
progress and each new class as it is found. The data flows one way: file -> format reader ->
puzzle (spec + source + its program's rules) -> family model (cpsolve.models) -> engine
(cpsolve.engines) -> classifier (cpsolve.counting) -> report.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cpsolve import count_only, engines, formats, parts, workers
from cpsolve.counting import Classifier, ClassStoreFull, Counts, SolutionClass
from cpsolve.counting.frontier import load_compiled
from cpsolve.counting.tally import Tally
from cpsolve.engines import AUTO, Engine, Engines, Enumeration, SearchOptions, StopReason
from cpsolve.engines import DEFAULT as DEFAULT_ENGINES
from cpsolve.engines.base import PartKey
from cpsolve.engines.breaking import BreakingChoice
from cpsolve.errors import CpsolveError, OutOfTimeError, Terminated
from cpsolve.events import Progress
from cpsolve.formats import Puzzle, ReadOptions
from cpsolve.limits import (
    DEFAULT_MAX_CLASS_BYTES,
    DEFAULT_MAX_DISASSEMBLY_POSITIONS,
    DEFAULT_MAX_FILE_BYTES,
    MAX_PICTURED_ATOMS,
    Cancel,
    Deadline,
)
from cpsolve.models import BuildOptions, PuzzleModel
from cpsolve.models.base import Disassemblable
from cpsolve.parts import PARTS_PER_WORKER
from cpsolve.report import RunReport
from cpsolve.symmetry import Solution

if TYPE_CHECKING:
    from cpsolve.disassembly import AssemblyChecker

# A search a run begins in its own process (Prepared.begins_here: the fewest-placements search
# below 20,000 atoms) goes on in every core's process once it has searched this long. Starting
# them costs 0.03-0.05 s, so a search just past this loses that: after 0.05 s a 6x6x5 design whose
# search takes 0.06 s ran 0.118 -> 0.134 s, after 0.1 s 0.127 -> 0.127 s (7 runs in turn).
PARALLEL_AFTER_SECONDS = 0.1
HINT_SECONDS = 1.0  # a listing run this long suggests --count-only where the frontier counter prefers the puzzle
ProgressHook = count_only.ProgressHook  # where the run is (cpsolve.events.Progress)
# a new class's representative, its model, and what else is known of it (its disassembly) as JSON
SolutionHook = Callable[[Solution, PuzzleModel, Mapping[str, Any]], None]
ReadyHook = Callable[[], None]


@dataclass(frozen=True)
class RunOptions:
    search: SearchOptions = field(default_factory=SearchOptions)
    build: BuildOptions = field(default_factory=BuildOptions)
    show: int | None = None  # how many classes to draw; None: the file format's default
    symmetry_breaking: bool = True
    engine: str = AUTO  # a name from the registry `engines`, or auto
    engines: Engines = DEFAULT_ENGINES  # the engines to choose from (tests add one with `with_engine`)
    workers: int = 1  # > 1: disjoint parts in that many processes (cpsolve.parts); 0: the engine's default
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES  # run_file: refuse larger files
    problem: str | None = None  # run_file: which problem of a file of several (a number from 0, or a name)
    cluster: str | None = None  # parts on a Dask scheduler's address, or `local` (cpsolve.workers)
    checkpoint: Path | None = None  # finished parts recorded there; a run started again resumes
    disassemble: bool = False  # take each unique assembly apart (cpsolve.disassembly); packings only
    max_disassembly_positions: int = DEFAULT_MAX_DISASSEMBLY_POSITIONS  # per assembly
    max_class_bytes: int = DEFAULT_MAX_CLASS_BYTES  # --max-memory: what the classes (or sub-problems) kept may take
    count_only: bool = False  # count without listing (cpsolve.count_only); nothing is kept or shown
    count_order: str = "fill"  # --count-only on the frontier: the fill order, `reverse` or `across` (count_only.ORDERS)


@dataclass
class Prepared:
    """A run up to the search: its model, the breaking, the engine and its compiled form."""

    puzzle: PuzzleModel
    choice: BreakingChoice
    engine: Engine
    compiled: engines.Prepared
    # what a run's `seconds` leaves out: importing the engine's libraries, and building a model
    # that an earlier run of the same puzzle built (its building seconds are counted instead)
    uncounted_seconds: float


def prepare(puzzle: Puzzle, options: RunOptions, deadline: Deadline) -> Prepared:
    """Build, break symmetry, choose and load the engine, compile: everything but the search.

    Raises CpsolveError for input the user must fix, OutOfTimeError when the deadline passes.
    """
    deadline.check("reading the file")
    building = time.perf_counter()
    model, build_seconds = puzzle.model(options.build, deadline)
    uncounted = time.perf_counter() - building - build_seconds
    engine = options.engines.choose(options.engine, model)
    loading_started = time.perf_counter()
    engine.load_for(model)
    uncounted += time.perf_counter() - loading_started
    first_only = options.search.first_only
    choice = (
        options.engines.choose_breaking(model, deadline, first_only)
        if options.symmetry_breaking
        else BreakingChoice(None)
    )
    deadline.check("choosing the symmetry breaking")
    compiled = engine.prepare(model, choice.breaking, deadline)
    compiled.estimated_placements = choice.estimated_placements
    return Prepared(model, choice, engine, compiled, uncounted)


def open_search(prepared: Prepared, puzzle: Puzzle, options: RunOptions, deadline: Deadline) -> Enumeration:
    """The whole search in this process, or its parts on the executor (cpsolve.workers): where
    asked for (--workers, --cluster, --checkpoint) or measured faster (CP-SAT on big models), and
    where a symmetry breaking gives parts to split by and the run is not limited."""
    search, compiled = options.search, prepared.compiled
    limited = search.first_only or search.max_solutions is not None
    as_units = options.cluster is not None or options.checkpoint is not None
    default = options.workers or compiled.default_workers(workers.cores())
    wanted = (options.workers or workers.cores()) if as_units else default
    split = as_units or wanted > 1 or prepared.engine.splits_by_default(prepared.puzzle)
    if limited and not as_units and wanted > 1:
        racing = compiled.racing(search, deadline, workers.workers_for(None, wanted))
        if racing is not None:
            return racing
    if not compiled.splits() or limited or not split:
        return compiled.enumerate(search, deadline)
    if not options.workers and not as_units and compiled.begins_here():
        return parts.BegunHere(
            compiled, PARALLEL_AFTER_SECONDS, _parts_of(compiled, puzzle, options, deadline), search, deadline
        )
    runners = workers.workers_for(options.cluster, wanted)
    keys = compiled.part_keys(PARTS_PER_WORKER * runners.workers if runners.workers > 1 or as_units else 1)
    units = parts.units_of(compiled, puzzle.file, puzzle.problem, keys, search, options.build, options.max_file_bytes)
    checkpoint = parts.Checkpoint(options.checkpoint) if options.checkpoint else None
    on_dask = options.cluster is not None
    return parts.PartsEnumeration(compiled, units, runners, search, deadline, checkpoint, on_dask)


def _parts_of(
    compiled: engines.Prepared, puzzle: Puzzle, options: RunOptions, deadline: Deadline
) -> Callable[[list[PartKey]], parts.PartsEnumeration]:
    """What runs the rest of a search begun here (parts.BegunHere): its parts in every core's
    forked process, handing work back to one that waits."""

    def on_every_core(keys: list[PartKey]) -> parts.PartsEnumeration:
        search, build = options.search, options.build
        units = parts.units_of(compiled, puzzle.file, puzzle.problem, keys, search, build, options.max_file_bytes)
        runners = workers.workers_for(None, compiled.default_workers(workers.cores()))
        return parts.PartsEnumeration(compiled, units, runners, search, deadline)

    return on_every_core


def run_file(
    path: str | Path,
    options: RunOptions = RunOptions(),
    on_progress: ProgressHook | None = None,
    on_new_class: SolutionHook | None = None,
    on_ready: ReadyHook | None = None,
) -> Iterator[RunReport]:
    """Read a puzzle file once and run each of its problems (or the one `options.problem` names),
    yielding each problem's report as it is done. Raises CpsolveError when the file cannot be read."""
    for puzzle in formats.read_puzzles(path, ReadOptions(options.max_file_bytes, options.problem)):
        yield run(puzzle, options, on_progress, on_new_class, on_ready)


def run(
    puzzle: Puzzle,
    options: RunOptions = RunOptions(),
    on_progress: ProgressHook | None = None,
    on_new_class: SolutionHook | None = None,
    on_ready: ReadyHook | None = None,
    cancel: Cancel | None = None,
) -> RunReport:
    """Solve one loaded puzzle; raises CpsolveError for input the user must fix.

    `seconds` runs from reading the file to the counts, leaving out the time the engine's
    libraries took to import. `--time-limit` bounds the building and the search.
    `on_ready` is called once the engine is loaded and the model built, before the search.
    `cancel`, once set (from any thread: cpsolve.jobs), stops the run as its time limit would,
    at the engine's next slice, with what it found marked incomplete.
    """
    if options.engine == count_only.FRONTIER and not options.count_only:
        raise CpsolveError(f"{puzzle.name}: the frontier counter counts without listing; give --count-only with it")
    if options.engine != count_only.FRONTIER:
        options.engines.check_requested(options.engine)
    started = time.perf_counter()
    deadline = Deadline.after(options.search.time_limit, cancel)
    family = puzzle.family
    if options.disassemble and not family.disassembles:
        raise CpsolveError(
            f"{puzzle.name}: --disassemble takes packing puzzles (pieces to take apart), not a {family.kind} puzzle"
        )
    searching = _search_options(options)
    if options.count_only:
        counted = _count_without_listing(puzzle, options, deadline, on_progress, started)
        if counted is not None:
            return counted
    try:
        prepared = prepare(puzzle, searching, deadline)
    except OutOfTimeError:
        seconds = puzzle.read_seconds + time.perf_counter() - started
        return _unfinished_report(puzzle, StopReason.of_deadline(deadline), seconds, "while the model was being built")
    except (KeyboardInterrupt, Terminated) as stop:
        reason = StopReason.TERMINATED if isinstance(stop, Terminated) else StopReason.INTERRUPTED
        seconds = puzzle.read_seconds + time.perf_counter() - started
        return _unfinished_report(puzzle, reason, seconds, "while the model was being built")
    if on_ready is not None:
        on_ready()
    show = 0 if options.count_only else puzzle.rules.show if options.show is None else options.show
    classes = NewClasses(prepared.puzzle, show, _checker(prepared.puzzle, options, deadline), on_new_class)
    try:
        enumeration = open_search(prepared, puzzle, searching, deadline)
    except (KeyboardInterrupt, Terminated) as stop:  # while the workers or a cluster were started
        reason = StopReason.TERMINATED if isinstance(stop, Terminated) else StopReason.INTERRUPTED
        seconds = puzzle.read_seconds + time.perf_counter() - started
        return _unfinished_report(puzzle, reason, seconds, "while the workers were being started")
    classifier: Classifier | Tally = (
        Tally(prepared.puzzle.group, prepared.compiled.breaking)
        if options.count_only
        else Classifier(prepared.puzzle.group, prepared.compiled.breaking, options.max_class_bytes)
    )
    estimate = prepared.compiled.estimated_placements
    _classify(enumeration, classifier, classes, options.search.limit_reason, on_progress, started, estimate)
    seconds = puzzle.read_seconds + time.perf_counter() - started - prepared.uncounted_seconds
    if classes.checker is not None:
        seconds -= classes.checker.load_seconds
    report = _report(puzzle, prepared, enumeration, classifier, seconds, classes)
    if enumeration.stopped_by is StopReason.MEMORY_LIMIT:
        report.notes.append(
            f"the classes kept reached --max-memory {options.max_class_bytes // 2**20:,} MB before the listing ended;"
            " the counts are lower bounds: raise --max-memory where the machine has room"
        )
    hint = _count_only_hint(prepared.puzzle, report, options)
    if hint is not None:
        report.notes.append(hint)
    if (options.cluster or options.checkpoint) and not isinstance(enumeration, parts.PartsEnumeration):
        report.notes.append(
            "--cluster and --checkpoint not used: no symmetry breaking to split by (on an engine that splits by"
            " nothing else), or a limited run"
        )
    return report


def _count_only_hint(model: PuzzleModel, report: RunReport, options: RunOptions) -> str | None:
    """The note that suggests --count-only: on a listing run of a packing whose pieces repeat (where
    the frontier counter measured faster, docs/counting.md) that took a while or ran out of time or
    memory; None otherwise."""
    search = options.search
    if options.count_only or search.first_only or search.max_solutions is not None:
        return None
    if count_only.takes(model) is not None or not count_only.prefers(model):
        return None
    if report.stopped_by not in (StopReason.TIME_LIMIT, StopReason.MEMORY_LIMIT) and report.seconds < HINT_SECONDS:
        return None
    return (
        "--count-only counts this packing without listing (its pieces repeat, where counting measured faster"
        " than listing: docs/counting.md); it keeps and shows no solution"
    )


def _count_without_listing(
    puzzle: Puzzle, options: RunOptions, deadline: Deadline, on_progress: ProgressHook | None, started: float
) -> RunReport | None:
    """--count-only on the frontier counter where it takes the puzzle and `auto` or `--engine
    frontier` asks for it; None: list and tally instead (cpsolve.count_only)."""
    limited = options.search.first_only or options.search.max_solutions is not None
    count_only.refuse(puzzle.name, options.disassemble, options.count_order, limited)
    if options.engine not in (AUTO, count_only.FRONTIER):
        return None
    try:
        model, _ = puzzle.model(options.build, deadline)
    except (OutOfTimeError, KeyboardInterrupt, Terminated) as stop:
        reason = (
            StopReason.of_deadline(deadline)
            if isinstance(stop, OutOfTimeError)
            else StopReason.TERMINATED
            if isinstance(stop, Terminated)
            else StopReason.INTERRUPTED
        )
        seconds = puzzle.read_seconds + time.perf_counter() - started
        return _unfinished_report(puzzle, reason, seconds, "while the model was being built")
    loading = time.perf_counter()
    load_compiled()  # as an engine's libraries: before the clock, left out of `seconds`
    started += time.perf_counter() - loading
    why_not = count_only.takes(model)
    if options.engine == count_only.FRONTIER and why_not is not None:
        raise CpsolveError(f"{puzzle.name}: the frontier counter cannot count it: {why_not}; give --engine auto")
    if why_not is not None or (options.engine == AUTO and not count_only.prefers(model)):
        return None
    settings = count_only.CountOptions(
        options.count_order,
        options.max_class_bytes,
        options.workers,
        options.cluster,
        options.checkpoint,
        options.build,
        options.max_file_bytes,
    )
    frontier = count_only.FrontierRun(puzzle, model, settings, deadline)
    frontier.run(count_only.CountProgress(on_progress, started))
    seconds = puzzle.read_seconds + time.perf_counter() - started
    fields = count_only.report_fields(puzzle, model, frontier)
    counts = fields["counts"]
    mismatches = [
        f"{name}: expected {value}, counted {getattr(counts, name)}"
        for name, value in puzzle.expected.items()
        if fields["complete"] and getattr(counts, name) != value
    ]
    return RunReport(
        name=model.name,
        kind=model.kind,
        source=puzzle.loaded.source.path,
        solutions_enumerated=0,
        seconds=seconds,
        expected=puzzle.expected,
        mismatches=mismatches,
        symmetries=model.group.order,
        problem=puzzle.problem,
        **fields,
    )


def _classify(
    enumeration: Enumeration,
    classifier: Classifier | Tally,
    classes: NewClasses,
    limit_reason: StopReason,
    on_progress: ProgressHook | None,
    started: float,
    estimate: float | None = None,
) -> None:
    """Hand every solution the search finds to the classifier and each new class to `classes`,
    until the search ends, enough assemblies came apart, or the user stops it."""
    batches = enumeration.batches()
    try:
        for batch in batches:
            if classes.one_at_a_time():
                for new_class in classifier.add_batch(batch):
                    if new_class is not None:
                        classes.add(new_class)
                        if classes.enough():
                            enumeration.interrupt(limit_reason)
                            return
            else:  # a batch's new classes together: --disassemble takes them apart in one call
                classes.add_all([new_class for new_class in classifier.add_batch(batch) if new_class is not None])
            if on_progress is not None:
                on_progress(_listing_progress(classifier, enumeration, time.perf_counter() - started, estimate))
    except ClassStoreFull:
        enumeration.interrupt(StopReason.MEMORY_LIMIT)
    except KeyboardInterrupt:
        enumeration.interrupt(StopReason.INTERRUPTED)
    except Terminated:
        enumeration.interrupt(StopReason.TERMINATED)
    finally:
        batches.close()  # stops the search and its worker processes, whatever ended the loop


def _listing_progress(
    classifier: Classifier | Tally, enumeration: Enumeration, elapsed: float, estimate: float | None
) -> Progress:
    rate = f"{classifier.raw_seen / elapsed:,.0f}/s" if elapsed else ""
    if isinstance(classifier, Tally):
        doing, classes = f"{classifier.raw_seen:,} solutions tallied, none kept, {rate}", None
    else:
        classes = len(classifier.classes)
        doing = f"{classifier.raw_seen:,} solutions, {classes:,} classes, {rate}"
    return Progress(elapsed, doing, classifier.raw_seen, classes, enumeration.placements(), estimate)


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


def _checker(model: PuzzleModel, options: RunOptions, deadline: Deadline) -> AssemblyChecker | None:
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
    disassembler = Disassembler(model.piece_groups(), options.max_disassembly_positions, deadline, grid)
    loading = time.perf_counter()
    disassembler.load()
    return AssemblyChecker(
        model.assembled, disassembler, options.search.solution_limit, load_seconds=time.perf_counter() - loading
    )


def _search_options(options: RunOptions) -> RunOptions:
    """With --disassemble, --first and --max-solutions count assemblies that come apart, so the
    search itself runs without them (the run stops it once enough have come apart)."""
    search = options.search
    if not options.disassemble or not (search.first_only or search.max_solutions is not None):
        return options
    return dataclasses.replace(options, search=dataclasses.replace(search, first_only=False, max_solutions=None))


def _report(
    puzzle: Puzzle,
    prepared: Prepared,
    enumeration: Enumeration,
    classifier: Classifier | Tally,
    seconds: float,
    classes: NewClasses,
) -> RunReport:
    model = prepared.puzzle
    complete = enumeration.complete
    counts = classifier.counts()
    problems = classifier.identity_problems() if complete else []
    expected = puzzle.expected
    mismatches = [
        f"{name}: expected {value}, counted {getattr(counts, name)}"
        for name, value in expected.items()
        if complete and getattr(counts, name) != value
    ]
    return RunReport(
        name=model.name,
        kind=model.kind,
        source=puzzle.loaded.source.path,
        complete=complete,
        counts=counts,
        solutions_enumerated=classifier.raw_seen,
        engine=prepared.engine.name,
        seconds=seconds,
        stopped_by=enumeration.stopped_by,
        expected=expected,
        mismatches=mismatches,
        identity_problems=problems,
        symmetries=model.group.order,
        notes=list(model.notes),
        shown=classes.shown,
        workers=enumeration.workers,
        extra_counts=model.extra_counts(classifier)
        if isinstance(classifier, Classifier) and complete and not problems
        else {},
        problem=puzzle.problem,
        breaking=prepared.choice.as_json(),
        search=prepared.compiled.details,
        disassembly=classes.checker.summary if classes.checker is not None else None,
        counting={"method": "tally"} if isinstance(classifier, Tally) else None,
    )


def _unfinished_report(puzzle: Puzzle, reason: StopReason, seconds: float, doing: str) -> RunReport:
    """The run ended before the search could start: nothing found, nothing proven, no engine ran."""
    during = "the time limit passed" if reason is StopReason.TIME_LIMIT else f"the run was {reason}"
    return RunReport(
        name=puzzle.loaded.spec.name,
        kind=puzzle.loaded.spec.kind,
        source=puzzle.loaded.source.path,
        complete=False,
        counts=Counts(0, 0, 0),
        solutions_enumerated=0,
        engine=None,
        seconds=seconds,
        stopped_by=reason,
        expected=puzzle.expected,
        notes=[f"{during} {doing}"],
        problem=puzzle.problem,
    )
