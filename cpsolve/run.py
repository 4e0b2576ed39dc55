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
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from cpsolve import engines, formats, parts, planner, workers
from cpsolve.choices import COUNT_ORDERS
from cpsolve.counting import Classifier, ClassStoreFull
from cpsolve.counting.tally import Tally
from cpsolve.engines import AUTO, Engine, Enumeration, StopReason
from cpsolve.engines.base import Counting, PartsInSlices, RunContext
from cpsolve.engines.breaking import BreakingChoice
from cpsolve.errors import CpsolveError, OutOfTimeError, Terminated
from cpsolve.events import Progress
from cpsolve.formats import Puzzle, ReadOptions
from cpsolve.found import ClassCollector as ClassCollector
from cpsolve.found import NewClasses as NewClasses
from cpsolve.found import SolutionHook as SolutionHook
from cpsolve.found import checker
from cpsolve.limits import (
    Cancel,
    Deadline,
)
from cpsolve.models import PuzzleModel
from cpsolve.options import RunOptions as RunOptions
from cpsolve.report import RunReport, counting_of, unfinished_report

if TYPE_CHECKING:
    pass

HINT_SECONDS = 1.0  # a listing run this long suggests --count-only where the frontier counter prefers the puzzle
ProgressHook = Callable[[Progress], None]  # where the run is
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


def prepare(puzzle: Puzzle, options: RunOptions, deadline: Deadline, listing: bool = False) -> Prepared:
    """Build, break symmetry, choose and load the engine, compile: everything but the search
    (`listing`: on an engine that lists, where a count on the frontier gave way).

    Raises CpsolveError for input the user must fix, OutOfTimeError when the deadline passes.
    """
    deadline.check("reading the file")
    building = time.perf_counter()
    model, build_seconds = puzzle.model(options.build, deadline)
    uncounted = time.perf_counter() - building - build_seconds
    engine = options.engines.choose(options.engine, model, options.count_only and not listing)
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
    compiled.take_run(run_context(puzzle, options, auto_chosen=options.engine == AUTO and not listing))
    return Prepared(model, choice, engine, compiled, uncounted)


def run_context(puzzle: Puzzle, options: RunOptions, auto_chosen: bool) -> RunContext:
    """What an engine may take of the run beyond the model (engines.base.Prepared.take_run)."""
    return RunContext(
        options.count_order,
        options.max_class_bytes,
        options.workers,
        options.cluster,
        options.checkpoint,
        options.build,
        options.max_file_bytes,
        puzzle.file,
        puzzle.problem,
        auto_chosen,
    )


def open_search(prepared: Prepared, puzzle: Puzzle, options: RunOptions, deadline: Deadline) -> Enumeration:
    """The search as the planner plans it from the engine's capabilities, the options and the
    cores (cpsolve.planner), carried out by cpsolve.parts."""
    cores = workers.cores()
    decided = planner.plan(prepared.compiled.capabilities(cores), options, cores)
    return parts.carry_out(decided, prepared.compiled, puzzle, options, deadline)


def run_file(
    path: str | Path,
    options: RunOptions | None = None,
    on_progress: ProgressHook | None = None,
    on_new_class: SolutionHook | None = None,
    on_ready: ReadyHook | None = None,
) -> Iterator[RunReport]:
    """Read a puzzle file once and run each of its problems (or the one `options.problem` names),
    yielding each problem's report as it is done. Raises CpsolveError when the file cannot be read."""
    options = options or RunOptions()
    for puzzle in formats.read_puzzles(path, ReadOptions(options.max_file_bytes, options.problem)):
        yield run(puzzle, options, on_progress, on_new_class, on_ready)


def run(
    puzzle: Puzzle,
    options: RunOptions | None = None,
    on_progress: ProgressHook | None = None,
    on_new_class: SolutionHook | None = None,
    on_ready: ReadyHook | None = None,
    cancel: Cancel | None = None,
) -> RunReport:
    """Solve one loaded puzzle; raises CpsolveError for input the user must fix.

    `seconds` runs from reading the file to the counts, leaving out the time the engine's
    libraries took to import. `--time-limit` bounds them all: reading, building, the search.
    `on_ready` is called once the engine is loaded and the model built, before the search.
    `cancel`, once set (from any thread: cpsolve.jobs), stops the run as its time limit would,
    at the engine's next slice, with what it found marked incomplete.
    """
    options = options or RunOptions()
    options.engines.check_requested(options.engine)
    if options.count_only:
        _refuse_with_count_only(puzzle.name, options)
    started = time.perf_counter()
    limit = options.search.time_limit
    # the limit bounds the `seconds` the report gives, which count reading the file (a 1.3 MB list
    # of cells read for 2.5 s ran 2.5 s past its limit)
    deadline = Deadline.after(None if limit is None else max(0.0, limit - puzzle.read_seconds), cancel)
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
        return unfinished_report(puzzle, StopReason.of_deadline(deadline), seconds, "while the model was being built")
    except (KeyboardInterrupt, Terminated) as stop:
        reason = StopReason.TERMINATED if isinstance(stop, Terminated) else StopReason.INTERRUPTED
        seconds = puzzle.read_seconds + time.perf_counter() - started
        return unfinished_report(puzzle, reason, seconds, "while the model was being built")
    if on_ready is not None:
        on_ready()
    show = 0 if options.count_only else puzzle.rules.show if options.show is None else options.show
    classes = NewClasses(prepared.puzzle, show, checker(prepared.puzzle, options, deadline), on_new_class)
    try:
        enumeration = open_search(prepared, puzzle, searching, deadline)
    except (KeyboardInterrupt, Terminated) as stop:  # while the workers or a cluster were started
        reason = StopReason.TERMINATED if isinstance(stop, Terminated) else StopReason.INTERRUPTED
        seconds = puzzle.read_seconds + time.perf_counter() - started
        return unfinished_report(puzzle, reason, seconds, "while the workers were being started")
    classifier = _classifier(prepared, enumeration, options, on_progress)
    estimate = prepared.compiled.estimated_placements
    gave_way = None
    if isinstance(classifier, Counting):
        hook = None if on_progress is None else _counting_progress(on_progress)
        classifier.count(hook)  # the counting engine: it lists nothing to classify
        listed = _list_instead(prepared, puzzle, searching, deadline) if classifier.gave_way is not None else None
        if listed is not None:  # the count gave way: listed and tallied instead
            gave_way = classifier.gave_way
            prepared, enumeration = listed
            tally = _classifier(prepared, enumeration, options, on_progress)
            assert not isinstance(tally, Counting)  # a listing engine's search
            _classify(enumeration, tally, classes, options.search.limit_reason, on_progress, started, deadline)
            classifier = tally
    else:
        _classify(
            enumeration, classifier, classes, options.search.limit_reason, on_progress, started, deadline, estimate
        )
    seconds = puzzle.read_seconds + time.perf_counter() - started - prepared.uncounted_seconds
    if classes.checker is not None:
        seconds -= classes.checker.load_seconds
        classes.checker.release()
    report = _report(puzzle, prepared, enumeration, classifier, seconds, classes)
    if enumeration.stopped_by is StopReason.MEMORY_LIMIT and not isinstance(classifier, Counting):
        report.notes.append(
            f"the classes kept reached --max-memory {options.max_class_bytes // 2**20:,} MB before the listing ended;"
            " the counts are lower bounds: raise --max-memory where the machine has room"
        )
    if gave_way is not None:
        report.notes.append(gave_way)
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


def _list_instead(
    counted: Prepared, puzzle: Puzzle, options: RunOptions, deadline: Deadline
) -> tuple[Prepared, Enumeration] | None:
    """The search of a listing engine, where a count that `auto` chose gave way (its frontier
    grew past what listing costs); None when the time limit passed first (the count's stop is
    reported)."""
    if deadline.passed():
        return None
    try:
        listing = prepare(puzzle, options, deadline, listing=True)
    except OutOfTimeError:
        return None
    uncounted = counted.uncounted_seconds + listing.uncounted_seconds
    listing = dataclasses.replace(listing, uncounted_seconds=uncounted)
    return listing, open_search(listing, puzzle, options, deadline)


def _classifier(
    prepared: Prepared, enumeration: Enumeration, options: RunOptions, on_progress: ProgressHook | None
) -> Classifier | Tally | Counting:
    """What counts the run's solutions: the classifier, which keeps one solution per class; with
    --count-only a tally, which keeps none; or the counting engine's own, which counts without
    listing and carries its counts (engines.base.Counting)."""
    counting = enumeration.counting()
    if counting is not None:
        return counting
    model, breaking = prepared.puzzle, prepared.compiled.breaking
    if options.count_only:
        return Tally(model.group, breaking)
    return Classifier(model.group, breaking, options.max_class_bytes)


def _counting_progress(on_progress: ProgressHook) -> Callable[[str, float], None]:
    """A counting engine's progress (what it does, the seconds so far) as the run's progress events."""
    return lambda doing, elapsed: on_progress(Progress(elapsed, doing))


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
    deadline: Deadline,
    estimate: float | None = None,
) -> None:
    """Hand every solution the search finds to the classifier and each new class to `classes`,
    until the search ends, enough assemblies came apart, the deadline passes (read between the
    chunks of a batch too: the classes of 1,024 solutions of 3,000 pieces took 5 s) or the user
    stops it."""
    batches = enumeration.batches()
    try:
        for batch in batches:
            found = classifier.add_batch(batch, deadline)
            if classes.one_at_a_time():
                for new_class in found:
                    if new_class is not None:
                        classes.add(new_class)
                        if classes.enough():
                            enumeration.interrupt(limit_reason)
                            return
            else:  # a batch's new classes together: --disassemble takes them apart in one call
                classes.add_all([new_class for new_class in found if new_class is not None])
            if len(found) < len(batch):  # the deadline passed while a large batch was classified
                enumeration.interrupt(StopReason.of_deadline(deadline))
                return
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
    rate = f"{classifier.raw_seen / elapsed:,.0f} solutions/s" if elapsed else ""
    if isinstance(classifier, Tally):
        doing, classes = f"{classifier.raw_seen:,} solutions tallied, none kept, {rate}", None
    else:
        classes = len(classifier.classes)
        doing = f"{classifier.raw_seen:,} solutions, {classes:,} classes, {rate}"
    steps = enumeration.steps if isinstance(enumeration, PartsInSlices) else None  # counted in this process
    return Progress(elapsed, doing, classifier.raw_seen, classes, steps, estimate)


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
    classifier: Classifier | Tally | Counting,
    seconds: float,
    classes: NewClasses,
) -> RunReport:
    model = prepared.puzzle
    counter = classifier if isinstance(classifier, Counting) else None
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
        counting=counting_of(classifier),
    )
