"""Work as units of plain data, run by a local process pool or a Dask cluster, merged once by id.

A unit carries the puzzle itself (the file's name and content, not a path another machine may not
have) and what to do with it: for a batch one puzzle file, for a long run one part of the split
enumeration (its part key and the symmetry breaking the client chose, so that every worker cuts
the search exactly as the client does). A worker rebuilds the model from the content, which gives
the same atoms on every machine running the same cpsolve, and returns plain data: a batch unit
its JSON lines, a part its solutions as tuples of atoms.

The client keeps, per unit id, the first result that arrives and ignores any other (Dask runs a
unit again when its worker dies; a resumed run may meet a unit it has already), so every unit is
merged exactly once. `--checkpoint FILE` appends each finished part (its id and its solutions) as
one JSON line; a run started again with the same file merges those and runs only the rest.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import multiprocessing
import os
import signal
import tempfile
from abc import ABC, abstractmethod
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from cpsolve import engines
from cpsolve.counting import Breaking, Solution
from cpsolve.engines import Enumeration, SearchOptions, StopReason
from cpsolve.engines.base import PartKey
from cpsolve.engines.parts import leave_with_parent
from cpsolve.errors import CpsolveError
from cpsolve.formats import load_puzzle
from cpsolve.journal import read_records
from cpsolve.limits import DEFAULT_MAX_FILE_BYTES, Deadline
from cpsolve.models import BuildOptions, build_model

LOCAL = "local"  # --cluster local: a Dask LocalCluster on this machine


@dataclass(frozen=True)
class PuzzleFile:
    """A puzzle as data: its name (as the user gave it) and its bytes."""

    name: str
    content: bytes

    @staticmethod
    def read(path: Path) -> PuzzleFile:
        return PuzzleFile(str(path), path.read_bytes())

    @cached_property
    def digest(self) -> str:
        return hashlib.sha256(self.content).hexdigest()

    def on_disk(self, folder: str) -> Path:
        """The content written under its own file name (the suffix picks the format)."""
        path = Path(folder) / Path(self.name).name
        path.write_bytes(self.content)
        return path


@dataclass(frozen=True)
class PartUnit:
    """One part of a split run: the puzzle, the run's choices, the part's key."""

    puzzle: PuzzleFile
    problem: str | None
    engine: str
    breaking: Breaking
    search: SearchOptions
    key: PartKey
    build: BuildOptions = dataclasses.field(default_factory=BuildOptions)  # so a worker builds as the client did
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES

    @cached_property
    def id(self) -> str:
        """The same for the same puzzle content, problem, breaking and part, whoever computes it
        (computed once per unit: a run of thousands of parts asks for it several times each)."""
        cut = hashlib.sha256(repr((sorted(self.breaking.first), self.breaking.forbidden_pairs)).encode())
        where = f"{self.problem or ''}-{cut.hexdigest()[:8]}-{'.'.join(map(str, self.key))}"
        return f"{self.puzzle.digest[:16]}-{where}"


@dataclass(frozen=True)
class PartResult:
    id: str
    solutions: list[Solution]
    stopped_by: str | None


def solve_part(unit: PartUnit) -> PartResult:
    """On a worker: enumerate the part on the model rebuilt from the content (kept for the next
    part of the same run: a worker takes many, and building is most of a small part's time)."""
    prepared = _prepared(unit)
    deadline = Deadline.after(unit.search.time_limit)
    part = prepared.enumerate(unit.search, deadline, unit.key)
    solutions = [solution for batch in part.batches() for solution in batch]
    return PartResult(unit.id, solutions, None if part.stopped_by is None else str(part.stopped_by))


def _prepared(unit: PartUnit) -> engines.Prepared:
    run = (unit.puzzle.digest, unit.problem, unit.engine, unit.breaking.first, unit.breaking.forbidden_pairs)
    if _last_prepared is not None and _last_prepared[0] == run:
        return _last_prepared[1]
    with tempfile.TemporaryDirectory(prefix="cpsolve-unit-") as folder:
        on_disk = unit.puzzle.on_disk(folder)
        loaded, build = load_puzzle(on_disk, unit.build, unit.max_file_bytes, unit.problem)
        puzzle = build_model(loaded, build)
    engine = engines.engine_named(unit.engine)
    engine.load()
    prepared = engine.prepare(puzzle, unit.breaking)
    globals()["_last_prepared"] = (run, prepared)
    return prepared


_last_prepared: tuple[tuple[Any, ...], engines.Prepared] | None = None


class Workers(ABC):
    """Where units run: `results` runs a one-argument function on each, yielding the results as
    they finish (in any order); `close` ends the work, running units included."""

    workers: int

    @abstractmethod
    def results(self, function: Callable[[Any], Any], units: Iterable[Any]) -> Iterator[Any]: ...

    @abstractmethod
    def close(self) -> None: ...


class LocalWorkers(Workers):
    """Forked processes on this machine; they leave when the client is killed outright."""

    def __init__(self, processes: int) -> None:
        self.workers = processes
        context = multiprocessing.get_context("fork")
        self.pool = context.Pool(processes, initializer=_local_worker, initargs=(os.getpid(),))

    def results(self, function: Callable[[Any], Any], units: Iterable[Any]) -> Iterator[Any]:
        yield from self.pool.imap_unordered(function, units)

    def close(self) -> None:
        self.pool.terminate()
        self.pool.join()


def _local_worker(parent: int) -> None:
    """Ctrl-C is the client's, which ends the pool; the pool's SIGTERM ends a worker quietly."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    leave_with_parent(parent)


class DaskWorkers(Workers):
    """A Dask cluster's workers, through a client; Dask runs a unit again when its worker dies."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.workers = max(1, len(client.scheduler_info().get("workers", {})))

    def results(self, function: Callable[[Any], Any], units: Iterable[Any]) -> Iterator[Any]:
        from distributed import as_completed

        futures = [self.client.submit(function, unit) for unit in units]
        try:
            for future in as_completed(futures):
                yield future.result()
        finally:
            for future in futures:
                future.cancel()

    def close(self) -> None:
        cluster = self.client.cluster
        self.client.close()
        if cluster is not None:
            cluster.close()


def workers_for(cluster: str | None, processes: int) -> Workers:
    """A Dask cluster's workers (`cluster`: a scheduler's address, or `local` for a LocalCluster of
    `processes` here), else `processes` local processes. Raises CpsolveError when Dask is missing
    or the scheduler cannot be reached."""
    if cluster is None:
        return LocalWorkers(processes)
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise CpsolveError('--cluster needs Dask: pip install "cpsolve[cluster]"') from None
    if cluster == LOCAL:
        local = LocalCluster(
            n_workers=processes, threads_per_worker=1, host="127.0.0.1", dashboard_address="127.0.0.1:0", processes=True
        )
        return DaskWorkers(Client(local))
    try:
        return DaskWorkers(Client(cluster, timeout=10))
    except (OSError, TimeoutError) as error:
        raise CpsolveError(f"--cluster {cluster}: cannot reach the scheduler ({error})") from None


class Checkpoint:
    """The finished parts of a run, one JSON line each: {"unit", "solutions", "stopped_by"}.

    Only parts that ran to their end are recorded; a line cut short by a kill is dropped."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.finished: dict[str, list[Solution]] = {}
        for record in read_records(path, "unit", "a cpsolve checkpoint"):
            try:
                self.finished[str(record["unit"])] = [tuple(solution) for solution in record["solutions"]]
            except (KeyError, TypeError):
                raise CpsolveError(f"{path}: not a cpsolve checkpoint (a line is not a finished part)") from None
        try:
            self.handle = path.open("a", encoding="utf-8")
        except OSError as error:
            raise CpsolveError(f"{path}: cannot write the checkpoint: {error.strerror}") from None

    def record(self, result: PartResult) -> None:
        solutions = [list(solution) for solution in result.solutions]
        self.handle.write(json.dumps({"unit": result.id, "solutions": solutions}) + "\n")
        self.handle.flush()
        os.fsync(self.handle.fileno())

    def close(self) -> None:
        self.handle.close()


class UnitEnumeration(Enumeration):
    """The parts of a run as units on an executor; each part's solutions merged once, by id."""

    def __init__(
        self,
        units: list[PartUnit],
        runners: Workers,
        search: SearchOptions,
        deadline: Deadline,
        checkpoint: Checkpoint | None = None,
    ) -> None:
        super().__init__(search, deadline)
        self.units = units
        self.runners = runners
        self.checkpoint = checkpoint
        self.workers = runners.workers
        self.merged: set[str] = set()

    def __iter__(self) -> Generator[Solution, None, None]:
        for batch in self.batches():
            yield from batch

    def batches(self) -> Generator[list[Solution], None, None]:
        try:
            yield from self._recorded()
            yield from self._run(unit for unit in self.units if unit.id not in self.merged)
        finally:
            self.runners.close()
            if self.checkpoint is not None:
                self.checkpoint.close()

    def _recorded(self) -> Iterator[list[Solution]]:
        """The parts a checkpoint holds, merged first."""
        recorded = self.checkpoint.finished if self.checkpoint is not None else {}
        for unit in self.units:
            if unit.id in recorded and unit.id not in self.merged:
                self.merged.add(unit.id)
                yield recorded[unit.id]

    def _run(self, todo: Iterable[PartUnit]) -> Iterator[list[Solution]]:
        search = dataclasses.replace(self.search, time_limit=self.deadline.remaining())
        for result in self.runners.results(solve_part, [dataclasses.replace(u, search=search) for u in todo]):
            if result.id in self.merged:
                continue
            self.merged.add(result.id)
            if result.stopped_by is not None:
                self.interrupt(StopReason(result.stopped_by))
            elif self.checkpoint is not None:
                self.checkpoint.record(result)
            yield result.solutions
            if self.stopped_by is not None or self.out_of_time():
                return
