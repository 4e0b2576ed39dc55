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

from cpsolve import engines, formats, parts, planner, workers
from cpsolve.counting import Classifier, ClassStoreFull, Counts, SolutionClass
from cpsolve.counting.tally import Tally
from cpsolve.engines import Engine, Enumeration, StopReason
from cpsolve.engines.base import PartsInSlices
from cpsolve.engines.breaking import BreakingChoice
from cpsolve.engines.frontier import CountOptions, FrontierCount, FrontierPrepared
from cpsolve.errors import CpsolveError, OutOfTimeError, Terminated
from cpsolve.events import Progress
from cpsolve.formats import Puzzle, ReadOptions
from cpsolve.limits import (
    MAX_PICTURED_ATOMS,
    Cancel,
    Deadline,
)
from cpsolve.models import PuzzleModel
from cpsolve.models.base import Disassemblable
from cpsolve.options import COUNT_ORDERS, DEFAULT_RUN_OPTIONS
from cpsolve.options import RunOptions as RunOptions
from cpsolve.report import RunReport
from cpsolve.symmetry import Solution

if TYPE_CHECKING:
    from cpsolve.disassembly import AssemblyChecker

HINT_SECONDS = 1.0  # a listing run this long suggests --count-only where the frontier counter prefers the puzzle
ProgressHook = Callable[[Progress], None]  # where the run is
# a new class's representative, its model, and what else is known of it (its disassembly) as JSON
SolutionHook = Callable[[Solution, PuzzleModel, Mapping[str, Any]], None]
ReadyHook = Callable[[], None]


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
    engine = options.engines.choose(options.engine, model, options.count_only)
    loading_started = time.perf_counter()
    engine.load(model)
    uncounted += time.perf_counter() - loading_started
    first_only = options.search.first_only
    choice = (
        options.engines.choose_breaking(model, deadline, first_only)
        if options.symmetry_breaking and engine.lists
        else BreakingChoice(None)
    )
    deadline.check("choosing the symmetry breaking")
    compiled = engine.prepare(model, choice.breaking, deadline)
    compiled.estimated_placements = choice.estimated_placements
    if isinstance(compiled, FrontierPrepared):
        compiled.options = CountOptions(
            options.count_order,
            options.max_class_bytes,
            options.workers,
            options.cluster,
            options.checkpoint,
            options.build,
            options.max_file_bytes,
            puzzle.file,
            puzzle.problem,
        )
    return Prepared(model, choice, engine, compiled, uncounted)


def open_search(prepared: Prepared, puzzle: Puzzle, options: RunOptions, deadline: Deadline) -> Enumeration:
    """The search as the planner plans it from the engine's capabilities, the options and the
    cores (cpsolve.planner), carried out by cpsolve.parts."""
    cores = workers.cores()
    decided = planner.plan(prepared.compiled.capabilities(cores), options, cores)
    return parts.carry_out(decided, prepared.compiled, puzzle, options, deadline)


def run_file(
    path: str | Path,
    options: RunOptions = DEFAULT_RUN_OPTIONS,
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
    options: RunOptions = DEFAULT_RUN_OPTIONS,
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
    options.engines.check_requested(options.engine)
    if options.count_only:
        _refuse_with_count_only(puzzle.name, options)
    started = time.perf_counter()
    deadline = Deadline.after(options.search.time_limit, cancel)
    family = puzzle.family
    if options.disassemble and not family.disassembles:
        raise CpsolveError(
            f"{puzzle.name}: --disassemble takes packing puzzles (pieces to take apart), not a {family.kind} puzzle"
        )
    searching = _search_options(options)
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
    classifier = _classifier(prepared, enumeration, options, on_progress)
    estimate = prepared.compiled.estimated_placements
    if isinstance(classifier, FrontierCount):
        classifier.count()  # the counting engine: it lists nothing to classify
    else:
        _classify(enumeration, classifier, classes, options.search.limit_reason, on_progress, started, estimate)
    seconds = puzzle.read_seconds + time.perf_counter() - started - prepared.uncounted_seconds
    if classes.checker is not None:
        seconds -= classes.checker.load_seconds
    report = _report(puzzle, prepared, enumeration, classifier, seconds, classes)
    if enumeration.stopped_by is StopReason.MEMORY_LIMIT and not isinstance(classifier, FrontierCount):
        report.notes.append(
            f"the classes kept reached --max-memory {options.max_class_bytes // 2**20:,} MB before the listing ended;"
            " the counts are lower bounds: raise --max-memory where the machine has room"
        )
    hint = _count_only_hint(prepared.puzzle, report, options)
    if hint is not None:
        report.notes.append(hint)
    if (
        options.as_units
        and isinstance(classifier, Classifier | Tally)
        and not isinstance(enumeration, parts.PartsEnumeration)
    ):
        report.notes.append(
            "--cluster and --checkpoint not used: no symmetry breaking to split by (on an engine that splits by"
            " nothing else), or a limited run"
        )
    return report


def _classifier(
    prepared: Prepared, enumeration: Enumeration, options: RunOptions, on_progress: ProgressHook | None
) -> Classifier | Tally | FrontierCount:
    """What counts the run's solutions: the classifier, which keeps one solution per class; with
    --count-only a tally, which keeps none; or the counting engine's own enumeration, which
    counts without listing and carries its counts."""
    if isinstance(enumeration, FrontierCount):
        if on_progress is not None:
            enumeration.progress.hook = lambda doing, elapsed: on_progress(Progress(elapsed, doing))
        return enumeration
    model, breaking = prepared.puzzle, prepared.compiled.breaking
    if options.count_only:
        return Tally(model.group, breaking)
    return Classifier(model.group, breaking, options.max_class_bytes)


def _refuse_with_count_only(name: str, options: RunOptions) -> None:
    """Options that need the solutions themselves, refused with --count-only in one line."""
    if options.limited:
        raise CpsolveError(
            f"{name}: --first and --max-solutions stop a listing early; --count-only counts every solution"
        )
    if options.disassemble:
        raise CpsolveError(f"{name}: --disassemble takes each solution apart; it needs listing, not --count-only")
    if options.count_order not in COUNT_ORDERS:
        raise CpsolveError(f"{name}: --count-order is one of {', '.join(COUNT_ORDERS)}, not {options.count_order!r}")


def _count_only_hint(model: PuzzleModel, report: RunReport, options: RunOptions) -> str | None:
    """The note that suggests --count-only: on a listing run of a packing whose pieces repeat (where
    the frontier counter measured faster, docs/counting.md) that took a while or ran out of time or
    memory; None otherwise."""
    if options.count_only or options.limited:
        return None
    if not any(not engine.lists and engine.takes(model, auto=True) for engine in options.engines):
        return None
    if report.stopped_by not in (StopReason.TIME_LIMIT, StopReason.MEMORY_LIMIT) and report.seconds < HINT_SECONDS:
        return None
    return (
        "--count-only counts this packing without listing (its pieces repeat, where counting measured faster"
        " than listing: docs/counting.md); it keeps and shows no solution"
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
    steps = enumeration.steps if isinstance(enumeration, PartsInSlices) else None  # counted in this process
    return Progress(elapsed, doing, classifier.raw_seen, classes, steps, estimate)


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
    classifier: Classifier | Tally | FrontierCount,
    seconds: float,
    classes: NewClasses,
) -> RunReport:
    model = prepared.puzzle
    counter = classifier if isinstance(classifier, FrontierCount) else None
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
        notes=[*model.notes, *(counter.report_notes() if counter is not None else [])],
        shown=classes.shown,
        workers=enumeration.workers,
        extra_counts=model.extra_counts(classifier)
        if isinstance(classifier, Classifier) and complete and not problems
        else {},
        problem=puzzle.problem,
        breaking=prepared.choice.as_json() if counter is None else None,
        search=prepared.compiled.details,
        disassembly=classes.checker.summary if classes.checker is not None else None,
        counting=_counting(classifier),
    )


def _counting(classifier: Classifier | Tally | FrontierCount) -> dict[str, Any] | None:
    """The report's `counting`: how a run without listing counted (None: it listed)."""
    if isinstance(classifier, FrontierCount):
        return classifier.as_json()
    return {"method": "tally"} if isinstance(classifier, Tally) else None


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
