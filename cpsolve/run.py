"""One run: load a puzzle file, build its model, enumerate, classify, and report.

This is the library entry point the CLI (and the tests, and scripts) call; it prints nothing.
Hooks let the caller see progress and each new class as it is found.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cpsolve import ct9, engines, yass
from cpsolve.counting import Classifier, Counts, Solution, choose_breaking
from cpsolve.engine import SearchOptions
from cpsolve.engines import CPSAT, Enumerating, choose_engine, open_enumeration
from cpsolve.models import BUILDERS, BuildOptions, PuzzleModel
from cpsolve.parallel import Part, PartsEnumeration, Prepared, kept_first_atoms
from cpsolve.spec import LoadedSpec, load_spec

ProgressHook = Callable[[int, int, float], None]
SolutionHook = Callable[[Solution, PuzzleModel], None]


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
    stopped_by: str | None = None
    expected: dict[str, int] = field(default_factory=dict)
    mismatches: list[str] = field(default_factory=list)
    identity_problems: list[str] = field(default_factory=list)
    symmetries: int = 1
    notes: list[str] = field(default_factory=list)
    shown: list[str] = field(default_factory=list)
    workers: int = 1

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
            "stopped_by": self.stopped_by,
            "expected": self.expected,
            "matches_expected": None if not self.expected or not self.complete else not self.mismatches,
            "orbit_stabiliser_ok": not self.identity_problems if self.complete else None,
            "identity_problems": self.identity_problems,
            "symmetries": self.symmetries,
            "workers": self.workers,
            "notes": self.notes,
        }


@dataclass(frozen=True)
class RunOptions:
    search: SearchOptions = field(default_factory=SearchOptions)
    build: BuildOptions = field(default_factory=BuildOptions)
    show: int | None = None  # how many classes to draw; None: the file format's default
    symmetry_breaking: bool = True
    engine: str = "auto"  # cpsat | exact-cover | chain-dfs | auto (see engines.py)
    workers: int = 1  # > 1: disjoint sub-problems in that many processes (see parallel.py); 0: auto


@dataclass(frozen=True)
class FileFormat:
    """How one kind of file is read, and the rules of its own program that come with it."""

    read: Callable[[str | Path], LoadedSpec]
    build: BuildOptions = field(default_factory=BuildOptions)
    show: int = 1


YAML_FORMAT = FileFormat(load_spec)
FOREIGN_FORMATS: dict[str, FileFormat] = {
    # yass fills pre-placed cells drawn in the wrong shape and still counts: so do we
    ".soma": FileFormat(yass.load_figure, BuildOptions(require_fixed_copies=False)),
    # the c't program prints every solution it finds
    ".txt": FileFormat(ct9.load_puzzle, show=10**9),
}


def file_format(path: str | Path) -> FileFormat:
    return FOREIGN_FORMATS.get(Path(path).suffix.lower(), YAML_FORMAT)


def load_puzzle(path: str | Path) -> tuple[LoadedSpec, BuildOptions]:
    """Read any file cpsolve understands: a YAML spec, a yass `.soma` figure, a c't 9-piece `.txt`."""
    fmt = file_format(path)
    return fmt.read(path), fmt.build


def build_model(loaded: LoadedSpec, options: BuildOptions) -> PuzzleModel:
    return BUILDERS[loaded.spec.kind].build(loaded, options)  # type: ignore[attr-defined]


def run(
    path: str | Path,
    options: RunOptions = RunOptions(),
    on_progress: ProgressHook | None = None,
    on_new_class: SolutionHook | None = None,
) -> RunReport:
    """Solve one puzzle file; raises CpsolveError for input the user must fix.

    `seconds` runs from reading the file to the counts; loading the engines' libraries is not
    in it (call `engines.preload()` first where a special engine may run).
    """
    engines.preload(options.engine)
    started = time.perf_counter()
    loaded, build_defaults = load_puzzle(path)
    build = BuildOptions(
        max_atoms=options.build.max_atoms,
        require_fixed_copies=build_defaults.require_fixed_copies and options.build.require_fixed_copies,
    )
    puzzle = build_model(loaded, build)
    breaking = choose_breaking(puzzle.group, puzzle.breaking_candidates) if options.symmetry_breaking else None
    engine, taken = choose_engine(options.engine, puzzle)
    if breaking is not None and engine == CPSAT:
        puzzle.forbid(breaking.forbidden, breaking.forbidden_pairs)
    enumeration: Enumerating
    search = options.search
    workers = options.workers or auto_workers(engine, len(puzzle.atoms))
    in_parts = workers > 1 or (engine == CPSAT and len(puzzle.atoms) >= PARTS_MIN_ATOMS)
    if breaking is not None and in_parts and not search.first_only and search.max_solutions is None:
        deadline = None if search.time_limit is None else time.time() + search.time_limit
        parts = [Part(str(path), engine, build, atom, search.guided, deadline) for atom in kept_first_atoms(breaking)]
        enumeration = PartsEnumeration(parts, workers, Prepared(puzzle, breaking, taken))
    else:
        enumeration = open_enumeration(taken, puzzle, breaking, search)
    classifier = Classifier(puzzle.group, breaking)
    shown: list[str] = []
    show = file_format(path).show if options.show is None else options.show
    solutions = iter(enumeration)
    try:
        for solution in solutions:
            new_class = classifier.add(solution)
            if new_class is not None:
                if len(shown) < show:
                    shown.append(puzzle.render(new_class.representative))
                if on_new_class is not None:
                    on_new_class(new_class.representative, puzzle)
            if on_progress is not None:
                on_progress(classifier.raw_seen, len(classifier.classes), time.perf_counter() - started)
    except KeyboardInterrupt:
        enumeration.interrupt()
        solutions.close()
    report = _report(loaded, puzzle, engine, enumeration, classifier, time.perf_counter() - started, shown)
    if isinstance(enumeration, PartsEnumeration):
        report.workers = min(workers, len(enumeration.parts))
    return report


# CP-SAT models from this many atoms are enumerated in parts (one search per kept placement of
# the first breaking piece), in one process or several. Measured: pentominoes (2,056 atoms)
# 65 s -> 31 s in one process, King snake (4,096) 4.1 s -> 2.9 s; below it the parts' own
# set-up costs more than they save (c't 3x3 boards, 324 atoms: 0.024 s -> 0.066 s).
PARTS_MIN_ATOMS = 1000


def auto_workers(engine: str, atoms: int) -> int:
    """Every core for CP-SAT models big enough to split, else one process.

    Measured with 2 workers against 1 (README): CP-SAT pentominoes 31 s -> 17 s, the second 4x4x4
    snake 64 s -> 32 s; exact cover gains on pentominoes (2.4 s -> 1.4 s) but the pool's start-up
    (about 0.15 s) triples the Soma cube's 0.09 s, so it takes workers only when asked.
    """
    return (os.cpu_count() or 1) if engine == CPSAT and atoms >= PARTS_MIN_ATOMS else 1


def _report(
    loaded: LoadedSpec,
    puzzle: PuzzleModel,
    engine: str,
    enumeration: Enumerating,
    classifier: Classifier,
    seconds: float,
    shown: list[str],
) -> RunReport:
    complete = enumeration.complete
    counts = classifier.counts()
    problems = classifier.identity_problems() if complete else []
    expected = {
        k: v for k, v in (loaded.spec.expected.model_dump() if loaded.spec.expected else {}).items() if v is not None
    }
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
    )
