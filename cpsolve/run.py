"""One run: read a puzzle file, build its model, enumerate on an engine, classify, and report.

This is the library entry point the CLI (and the tests, and scripts) call; it prints nothing.
Hooks let the caller see progress and each new class as it is found. The data flows one way:
file -> format reader (cpsolve.formats) -> spec -> family model (cpsolve.models) -> engine
(cpsolve.engines) -> classifier (cpsolve.counting) -> report.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cpsolve import engines, formats
from cpsolve.counting import Breaking, Classifier, Counts, Solution
from cpsolve.engines import AUTO, Engine, Enumeration, PartsEnumeration, SearchOptions, StopReason
from cpsolve.engines.breaking import BreakingChoice
from cpsolve.engines.parts import PARTS_PER_WORKER
from cpsolve.errors import CpsolveError, OutOfTimeError, Terminated
from cpsolve.formats import load_puzzle
from cpsolve.limits import DEFAULT_MAX_DISASSEMBLY_POSITIONS, DEFAULT_MAX_FILE_BYTES, Deadline
from cpsolve.models import BuildOptions, PuzzleModel, build_model
from cpsolve.models.packing import PackingModel
from cpsolve.spec import LoadedSpec

if TYPE_CHECKING:
    from cpsolve.disassembly import AssemblyChecker, DisassemblySummary

ProgressHook = Callable[[int, int, float], None]
# a new class's representative, its model, and what else is known of it (its disassembly) as JSON
SolutionHook = Callable[[Solution, PuzzleModel, Mapping[str, Any]], None]
ReadyHook = Callable[[], None]


@dataclass
class RunReport:
    """Everything a run found out; `as_json` is the stable shape scripts read."""

    name: str
    kind: str
    source: str
    complete: bool
    counts: Counts
    solutions_enumerated: int
    engine: str
    seconds: float
    stopped_by: StopReason | None = None
    expected: dict[str, int] = field(default_factory=dict)
    mismatches: list[str] = field(default_factory=list)
    identity_problems: list[str] = field(default_factory=list)
    symmetries: int = 1
    notes: list[str] = field(default_factory=list)
    shown: list[str] = field(default_factory=list)
    workers: int = 1
    extra_counts: dict[str, int] = field(default_factory=dict)  # by other rules (burrtools_unique)
    problem: str | None = None  # the problem's number in a file that holds several
    breaking: dict[str, Any] | None = None  # the symmetry breaking used and why (BreakingChoice)
    search: dict[str, str] = field(default_factory=dict)  # how the engine searched (cell choice)
    disassembly: DisassemblySummary | None = None  # --disassemble

    @property
    def ok(self) -> bool:
        return not self.mismatches and not self.identity_problems

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "source": self.source,
            "complete": self.complete,
            "counts": self.counts.as_dict(),
            "solutions_enumerated": self.solutions_enumerated,
            "engine": self.engine,
            "seconds": round(self.seconds, 4),
            "stopped_by": None if self.stopped_by is None else str(self.stopped_by),
            "expected": self.expected,
            "matches_expected": None if not self.expected or not self.complete else not self.mismatches,
            "orbit_stabiliser_ok": not self.identity_problems if self.complete else None,
            "identity_problems": self.identity_problems,
            "symmetries": self.symmetries,
            "workers": self.workers,
            "breaking": self.breaking,
            **self.search,
            "notes": self.notes,
            **({"problem": self.problem} if self.problem is not None else {}),
            **self.extra_counts,
            **({"disassembly": self.disassembly.as_json()} if self.disassembly is not None else {}),
        }


@dataclass(frozen=True)
class RunOptions:
    search: SearchOptions = field(default_factory=SearchOptions)
    build: BuildOptions = field(default_factory=BuildOptions)
    show: int | None = None  # how many classes to draw; None: the file format's default
    symmetry_breaking: bool = True
    engine: str = AUTO  # a name from cpsolve.engines, or auto
    workers: int = 1  # > 1: disjoint parts in that many processes (engines/parts.py); 0: the engine's default
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    problem: str | None = None  # which problem of a file that holds several (a number from 0, or a name)
    cluster: str | None = None  # parts as units on a Dask scheduler's address, or `local` (distributed.py)
    checkpoint: Path | None = None  # finished parts recorded there; a run started again resumes
    disassemble: bool = False  # take each unique assembly apart (cpsolve.disassembly); packings only
    max_disassembly_positions: int = DEFAULT_MAX_DISASSEMBLY_POSITIONS  # per assembly


@dataclass
class Prepared:
    """A run up to the search: the spec, its model, the breaking, the engine and its compiled form."""

    loaded: LoadedSpec
    puzzle: PuzzleModel
    choice: BreakingChoice
    engine: Engine
    compiled: engines.Prepared
    loading_seconds: float  # importing the engine's libraries: not part of a run's `seconds`


def prepare(loaded: LoadedSpec, build: BuildOptions, options: RunOptions, deadline: Deadline) -> Prepared:
    """Build, break symmetry, choose and load the engine, compile: everything but the search.

    Raises CpsolveError for input the user must fix, OutOfTimeError when the deadline passes.
    """
    deadline.check("reading the file")
    puzzle = build_model(loaded, build, deadline)
    engine = engines.choose(options.engine, puzzle)
    loading_started = time.perf_counter()
    engine.load()
    loading_seconds = time.perf_counter() - loading_started
    choice = engines.choose_breaking(puzzle, deadline) if options.symmetry_breaking else BreakingChoice(None)
    deadline.check("choosing the symmetry breaking")
    compiled = engine.prepare(puzzle, choice.breaking, deadline)
    compiled.estimated_placements = choice.estimated_placements
    return Prepared(loaded, puzzle, choice, engine, compiled, loading_seconds)


def open_search(prepared: Prepared, options: RunOptions, deadline: Deadline, path: Path) -> Enumeration:
    """The whole search, or its parts (in this process or several) where that was measured faster;
    with a cluster or a checkpoint, the parts as units (distributed.py)."""
    search = options.search
    engine, puzzle = prepared.engine, prepared.puzzle
    limited = search.first_only or search.max_solutions is not None
    breaking = prepared.compiled.breaking
    if _as_units(prepared, options) and breaking is not None:
        return _units(prepared, options, deadline, path, breaking)
    workers = options.workers or prepared.compiled.default_workers(engines.cores())
    if prepared.compiled.breaking is not None and not limited and (workers > 1 or engine.splits_by_default(puzzle)):
        parts = prepared.compiled.part_keys(PARTS_PER_WORKER * workers if workers > 1 else 1)
        return PartsEnumeration(prepared.compiled, parts, workers, search, deadline)
    return prepared.compiled.enumerate(search, deadline)


def _as_units(prepared: Prepared, options: RunOptions) -> bool:
    """Whether the run goes out as units: asked for, and a split by the breaking to make."""
    limited = options.search.first_only or options.search.max_solutions is not None
    asked = options.cluster is not None or options.checkpoint is not None
    return asked and prepared.compiled.breaking is not None and not limited


def _units(prepared: Prepared, options: RunOptions, deadline: Deadline, path: Path, breaking: Breaking) -> Enumeration:
    """The parts of the search as units on a cluster or local processes, recorded in a checkpoint."""
    from cpsolve import distributed

    checkpoint = distributed.Checkpoint(options.checkpoint) if options.checkpoint else None
    runners = distributed.workers_for(options.cluster, options.workers or engines.cores())
    puzzle = distributed.PuzzleFile.read(path)
    keys = prepared.compiled.part_keys(PARTS_PER_WORKER * runners.workers)
    units = [
        distributed.PartUnit(
            puzzle,
            options.problem,
            prepared.engine.name,
            breaking,
            options.search,
            key,
            options.build,
            options.max_file_bytes,
        )
        for key in keys
    ]
    return distributed.UnitEnumeration(units, runners, options.search, deadline, checkpoint)


def run(
    path: str | Path,
    options: RunOptions = RunOptions(),
    on_progress: ProgressHook | None = None,
    on_new_class: SolutionHook | None = None,
    on_ready: ReadyHook | None = None,
) -> RunReport:
    """Solve one puzzle file; raises CpsolveError for input the user must fix.

    `seconds` runs from reading the file to the counts, leaving out the time the engine's
    libraries took to import. `--time-limit` bounds all of it, reading and building included.
    `on_ready` is called once the engine is loaded and the model built, before the search.
    """
    engines.check_requested(options.engine)
    started = time.perf_counter()
    deadline = Deadline.after(options.search.time_limit)
    loaded, build = load_puzzle(path, options.build, options.max_file_bytes, options.problem)
    if options.disassemble and loaded.spec.kind != "packing":
        raise CpsolveError(
            f"{path}: --disassemble takes packing puzzles (pieces to take apart), not a {loaded.spec.kind} puzzle"
        )
    searching = _search_options(options)
    try:
        prepared = prepare(loaded, build, searching, deadline)
    except OutOfTimeError:
        return _unfinished_report(loaded, options, StopReason.TIME_LIMIT, time.perf_counter() - started)
    except (KeyboardInterrupt, Terminated) as stop:
        reason = StopReason.TERMINATED if isinstance(stop, Terminated) else StopReason.INTERRUPTED
        return _unfinished_report(loaded, options, reason, time.perf_counter() - started)
    checker = _checker(prepared.puzzle, options, deadline) if options.disassemble else None
    if on_ready is not None:
        on_ready()
    enumeration = open_search(prepared, searching, deadline, Path(path))
    puzzle = prepared.puzzle
    classifier = Classifier(puzzle.group, prepared.compiled.breaking)
    shown: list[str] = []
    show = formats.format_for(path).show if options.show is None else options.show
    batches = enumeration.batches()
    try:
        for batch in batches:
            for new_class in classifier.add_batch(batch):
                if new_class is None:
                    continue
                solution = new_class.representative
                details: dict[str, Any] = {}
                if checker is not None:
                    result = checker.check(solution)
                    details["disassembly"] = result.as_json()
                    if len(shown) < show and result.comes_apart:
                        shown.append("\n".join([puzzle.render(solution), "", *result.describe()]))
                elif len(shown) < show:
                    shown.append(puzzle.render(solution))
                if on_new_class is not None:
                    on_new_class(solution, puzzle, details)
                if checker is not None and checker.enough():
                    enumeration.interrupt(options.search.limit_reason)
                    break
            if on_progress is not None:
                on_progress(classifier.raw_seen, len(classifier.classes), time.perf_counter() - started)
            if checker is not None and checker.enough():
                break
    except KeyboardInterrupt:
        enumeration.interrupt(StopReason.INTERRUPTED)
    except Terminated:
        enumeration.interrupt(StopReason.TERMINATED)
    finally:
        batches.close()  # stops the search and its worker processes, whatever ended the loop
    seconds = time.perf_counter() - started - prepared.loading_seconds
    report = _report(prepared.loaded, puzzle, prepared.engine.name, enumeration, classifier, seconds, shown)
    report.workers = enumeration.workers
    if (options.cluster or options.checkpoint) and not _as_units(prepared, options):
        report.notes.append("--cluster and --checkpoint not used: no symmetry breaking to split by, or a limited run")
    report.breaking = prepared.choice.as_json()
    report.search = prepared.compiled.details
    report.disassembly = checker.summary if checker is not None else None
    return report


@dataclass
class ClassCollector:
    """Keeps each new class's representative, its model and its details as they are found (a
    run's `on_new_class` hook), the first `limit` of them (None: all); for what is written once
    the run is done (pictures, a BurrTools file)."""

    limit: int | None = None
    model: PuzzleModel | None = None
    solutions: list[Solution] = field(default_factory=list)
    details: list[dict[str, Any]] = field(default_factory=list)

    def __call__(self, solution: Solution, model: PuzzleModel, details: Mapping[str, Any]) -> None:
        self.model = model
        if self.limit is None or len(self.solutions) < self.limit:
            self.solutions.append(solution)
            self.details.append(dict(details))


def _checker(puzzle: PuzzleModel, options: RunOptions, deadline: Deadline) -> AssemblyChecker:
    """The disassembly of each new class (imported only when asked for: the import alone takes
    about 7 ms, `python -X importtime -c "import cpsolve.disassembly"`)."""
    from cpsolve.disassembly import AssemblyChecker, Disassembler

    assert isinstance(puzzle, PackingModel)  # run() refused other kinds before building
    disassembler = Disassembler(puzzle.piece_groups(), options.max_disassembly_positions, deadline)
    return AssemblyChecker(puzzle.assembled, disassembler, options.search.solution_limit)


def _search_options(options: RunOptions) -> RunOptions:
    """With --disassemble, --first and --max-solutions count assemblies that come apart, so the
    search itself runs without them (the run stops it once enough have come apart)."""
    search = options.search
    if not options.disassemble or not (search.first_only or search.max_solutions is not None):
        return options
    return dataclasses.replace(options, search=dataclasses.replace(search, first_only=False, max_solutions=None))


def _expected(loaded: LoadedSpec) -> dict[str, int]:
    given = loaded.spec.expected.model_dump() if loaded.spec.expected else {}
    return {name: value for name, value in given.items() if value is not None}


def _report(
    loaded: LoadedSpec,
    puzzle: PuzzleModel,
    engine: str,
    enumeration: Enumeration,
    classifier: Classifier,
    seconds: float,
    shown: list[str],
) -> RunReport:
    complete = enumeration.complete
    counts = classifier.counts()
    problems = classifier.identity_problems() if complete else []
    expected = _expected(loaded)
    mismatches = [
        f"{name}: expected {value}, counted {getattr(counts, name)}"
        for name, value in expected.items()
        if complete and getattr(counts, name) != value
    ]
    return RunReport(
        name=puzzle.name,
        kind=puzzle.kind,
        source=loaded.source.path,
        complete=complete,
        counts=counts,
        solutions_enumerated=classifier.raw_seen,
        engine=engine,
        seconds=seconds,
        stopped_by=enumeration.stopped_by,
        expected=expected,
        mismatches=mismatches,
        identity_problems=problems,
        symmetries=puzzle.group.order,
        notes=list(puzzle.notes),
        shown=shown,
        extra_counts=puzzle.extra_counts(classifier) if complete and not problems else {},
    )


def _unfinished_report(loaded: LoadedSpec, options: RunOptions, reason: StopReason, seconds: float) -> RunReport:
    """The run ended before the search could start: nothing found, nothing proven."""
    during = "the time limit passed" if reason is StopReason.TIME_LIMIT else f"the run was {reason}"
    return RunReport(
        name=loaded.spec.name,
        kind=loaded.spec.kind,
        source=loaded.source.path,
        complete=False,
        counts=Counts(0, 0, 0),
        solutions_enumerated=0,
        engine=options.engine,
        seconds=seconds,
        stopped_by=reason,
        expected=_expected(loaded),
        notes=[f"{during} while the model was being built"],
    )
