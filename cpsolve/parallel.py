"""`--workers N`: the enumeration split into disjoint sub-problems, each solved in its own process.

The split follows the symmetry breaking: every solution holds exactly one atom of the first
breaking set, and only the kept atom of each orbit is allowed, so "this kept atom is the one"
cuts the search into disjoint parts whose solutions together are the serial run's. Each worker
runs one engine with one worker thread (CP-SAT loses solutions with more, see DESIGN.md).

A sub-problem is plain data (`Part`: the puzzle file, how to build and search it, the atom it
forces), so it could be shipped to another machine that has the same file. On this machine the
workers are forked after the parent built the model, and find it ready in `_PREPARED`; a
process without it (another machine, a spawned worker) builds it from the file the same way.
"""

from __future__ import annotations

import multiprocessing
import signal
import time
from collections.abc import Generator
from dataclasses import dataclass, field

from cpsolve.counting import Breaking, Solution, choose_breaking
from cpsolve.engine import SearchOptions
from cpsolve.engines import CPSAT, EngineInput, choose_engine, open_enumeration
from cpsolve.models import BuildOptions, PuzzleModel


@dataclass(frozen=True)
class Part:
    """One disjoint sub-problem: everything a worker needs, as plain values."""

    path: str
    engine: str
    build: BuildOptions
    first_atom: int
    guided: bool = True
    deadline: float | None = None  # wall-clock time.time() at which to stop


@dataclass(frozen=True)
class PartResult:
    first_atom: int
    solutions: list[Solution]
    stopped_by: str | None


@dataclass
class Prepared:
    """A built puzzle with its breaking applied, as every worker needs it."""

    puzzle: PuzzleModel
    breaking: Breaking
    taken: EngineInput = None  # what a special engine runs on (engines.py); None for CP-SAT


PrepareKey = tuple[str, str, BuildOptions]
_PREPARED: dict[PrepareKey, Prepared] = {}


def prepare(path: str, engine: str, build: BuildOptions) -> Prepared:
    """Build the puzzle exactly as the parent did: the same atoms, the same breaking."""
    from cpsolve.run import build_model, load_puzzle  # run imports this module

    loaded, _ = load_puzzle(path)
    puzzle = build_model(loaded, build)
    breaking = choose_breaking(puzzle.group, puzzle.breaking_candidates)
    if breaking is None:
        raise ValueError(f"{path}: no symmetry breaking to split on")
    chosen, taken = choose_engine(engine, puzzle)
    if chosen == CPSAT:
        puzzle.forbid(breaking.forbidden, breaking.forbidden_pairs)
    return Prepared(puzzle, breaking, taken)


def solve_part(part: Part) -> PartResult:
    """Enumerate one sub-problem with one engine thread; runs in a worker process."""
    key = (part.path, part.engine, part.build)
    prepared = _PREPARED.get(key)
    if prepared is None:
        prepared = _PREPARED[key] = prepare(*key)
    time_limit = None if part.deadline is None else part.deadline - time.time()
    if time_limit is not None and time_limit <= 0:
        return PartResult(part.first_atom, [], "time limit")
    search = SearchOptions(time_limit=time_limit, guided=part.guided)
    enumeration = open_enumeration(prepared.taken, prepared.puzzle, prepared.breaking, search, part.first_atom)
    solutions = list(enumeration)
    return PartResult(part.first_atom, solutions, enumeration.stopped_by)


def _ignore_sigint() -> None:
    """Ctrl-C is the parent's: it terminates the workers itself and reports what arrived."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@dataclass
class PartsEnumeration:
    """Iterate to receive solutions, part by part as parts finish; then `complete`, `stopped_by`.

    With one worker the parts are solved one after another in this process: for CP-SAT that alone
    pays, a search restarted with the first piece fixed prunes better than one search that meets
    it on the way (pentominoes: 65 s in one search, 33 s in its 8 parts, one process).
    """

    parts: list[Part]
    workers: int
    prepared: Prepared
    stopped_by: str | None = None
    results: list[PartResult] = field(default_factory=list)

    def __iter__(self) -> Generator[Solution, None, None]:
        first = self.parts[0]
        _PREPARED[(first.path, first.engine, first.build)] = self.prepared  # inherited by the forked workers
        if self.workers == 1:
            for part in self.parts:
                yield from self._record(solve_part(part))
            return
        context = multiprocessing.get_context("fork")
        pool = context.Pool(min(self.workers, len(self.parts)), initializer=_ignore_sigint)
        try:
            for result in pool.imap_unordered(solve_part, self.parts):
                yield from self._record(result)
        finally:
            pool.terminate()
            pool.join()

    def _record(self, result: PartResult) -> list[Solution]:
        self.results.append(result)
        if result.stopped_by is not None and self.stopped_by is None:
            self.stopped_by = result.stopped_by
        return result.solutions

    def interrupt(self) -> None:
        self.stopped_by = "interrupted"

    @property
    def complete(self) -> bool:
        return self.stopped_by is None and len(self.results) == len(self.parts)


def kept_first_atoms(breaking: Breaking) -> list[int]:
    """The atoms of the first breaking set that the breaking keeps, in search order."""
    return list(dict.fromkeys(r for r, _ in breaking.weight))
