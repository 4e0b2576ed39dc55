"""What a unit of work carries across processes and runs: the checkpoint of finished units, what a
Dask worker keeps between the units of one run, and the model a unit's own content builds. Both
executors of a run use them: the parts of a listing search (cpsolve.parts) and the parts of a
frontier count (cpsolve.engines.frontier).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any, TypeVar

from cpsolve.errors import CpsolveError
from cpsolve.formats import PuzzleFile, ReadOptions, puzzles
from cpsolve.journal import Journal
from cpsolve.models import BuildOptions, PuzzleModel
from cpsolve.symmetry import Solution

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
