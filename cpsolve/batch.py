"""Many puzzle files in one command: one JSON line each, spread over local processes, resumable.

A batch reads every puzzle file it is given (files, folders searched for puzzle files, glob
patterns), runs each as `cpsolve run --json` would, and appends one JSON line per problem to the
results file as each puzzle finishes: the run's report plus the file, the SHA-256 of its content
and a `status`. The results file is the batch's memory: a puzzle whose file and content already
have lines there is skipped, so a batch that was killed resumes where it stopped, and a file
whose content changed runs again (its new lines follow the old ones).

Puzzles run in forked processes (one per core by default), each puzzle in one process with one
engine thread; the engines are loaded once, before the fork. A file that cannot be read or built
gets a line saying why and the batch goes on.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from cpsolve import formats
from cpsolve.engines import StopReason
from cpsolve.errors import CpsolveError, Terminated
from cpsolve.formats import Puzzle, PuzzleFile, ReadOptions
from cpsolve.formats.base import read_bytes
from cpsolve.jobs import follow, ignore, signalled_stop, start_loaded
from cpsolve.journal import Journal
from cpsolve.limits import DEFAULT_FIND_ONE_SECONDS, DEFAULT_MAX_FILE_BYTES
from cpsolve.report import RunReport
from cpsolve.run import RunOptions
from cpsolve.workers import DONE, cores, workers_for


class Status(StrEnum):
    """What became of one problem (the `status` of its line)."""

    SOLVED = "solved"  # complete, with solutions, counts as expected and self-checks passed
    FOUND = "found"  # a find-one puzzle (a planted board without expected counts): a solution found
    NO_SOLUTION = "no solution"  # complete, and there is none
    INCOMPLETE = "incomplete"  # stopped by the time limit: the counts are lower bounds
    SKIPPED = "skipped"  # marked `slow: true` (run with --slow)
    FAILED = "failed"  # a count differs from `expected`, or a self-check failed
    REFUSED = "refused"  # bad input: the line says why


@dataclass(frozen=True)
class BatchOptions:
    run: RunOptions = dataclasses.field(default_factory=lambda: RunOptions(show=0))
    processes: int = 0  # 0: one per core
    cluster: str | None = None  # a Dask scheduler's address, or `local` (cpsolve.workers)
    include_slow: bool = False  # run specs marked `slow: true` too
    find_one_seconds: float = DEFAULT_FIND_ONE_SECONDS  # a find-one puzzle's limit when --time-limit is not given


@dataclass
class BatchSummary:
    """How many problems ended how, which were cut short, how many files were skipped as done,
    and the time taken."""

    statuses: Counter[str] = dataclasses.field(default_factory=Counter)
    skipped: int = 0
    disassembled: int = 0  # lines that carry a disassembly (batches with --disassemble)
    one_apart: int = 0  # of those, designs with exactly one solution that comes apart
    seconds: float = 0.0
    interrupted: bool = False
    cut_short: list[str] = dataclasses.field(default_factory=list)  # "file: why"
    # how the files skipped as done had ended, by their lines in the results: the exit code reports
    # the whole batch, not only this run's share of it
    earlier: Counter[str] = dataclasses.field(default_factory=Counter)

    def ended(self, status: Status) -> int:
        """Problems of this batch's files that ended so, in this run or an earlier one."""
        return self.statuses[status] + self.earlier[status]

    def add(self, lines: list[dict[str, Any]]) -> None:
        self.statuses.update(line["status"] for line in lines)
        self.disassembled += sum(1 for line in lines if line.get("disassembly"))
        self.one_apart += sum(1 for line in lines if one_solution_that_comes_apart(line))
        self.cut_short.extend(
            f"{line['file']}{_problem(line)}: {line.get('stopped_by')}"
            for line in lines
            if line["status"] == Status.INCOMPLETE
        )

    def text(self) -> str:
        total = sum(self.statuses.values())
        listed = [s for s in Status if self.statuses[s] or s not in (Status.FOUND, Status.SKIPPED)]
        parts = ", ".join(f"{self.statuses[status]} {status}" for status in listed)
        files = "file" if self.skipped == 1 else "files"
        earlier = [f"{self.earlier[s]} {s}" for s in (Status.REFUSED, Status.FAILED) if self.earlier[s]]
        said = f": {', '.join(earlier)} among them" if earlier else ""
        skipped = f"; {self.skipped} {files} skipped (already in the results{said})" if self.skipped else ""
        stopped = " (interrupted: run again to go on)" if self.interrupted else ""
        lines = [f"{total} problems: {parts or 'none'}{skipped}; {self.seconds:.1f} s{stopped}"]
        if self.cut_short:
            shown = ", ".join(self.cut_short[:10]) + (
                f" and {len(self.cut_short) - 10} more" if len(self.cut_short) > 10 else ""
            )
            lines.append(f"cut short (their counts are lower bounds; run again with a longer --time-limit): {shown}")
        if self.statuses[Status.SKIPPED]:
            lines.append(f"skipped as slow: {self.statuses[Status.SKIPPED]} (run them with --slow)")
        if self.disassembled:
            lines.append(
                f"taken apart: {self.disassembled} problems, {self.one_apart} with exactly one solution that comes"
                " apart (keep their lines: jq -c 'select(.counts.unique == 1 and .disassembly.comes_apart == 1)')"
            )
        return "\n".join(lines)


def _problem(line: dict[str, Any]) -> str:
    return f"[{line['problem']}]" if "problem" in line else ""


def content_hash(path: Path, max_bytes: int = DEFAULT_MAX_FILE_BYTES) -> str:
    """SHA-256 of the file's bytes; a file that cannot be read as a puzzle (missing, a FIFO, a
    device, too large) hashes to why not, so it gets a line too, and nothing waits on it."""
    try:
        return hashlib.sha256(read_bytes(path, max_bytes)).hexdigest()
    except CpsolveError as error:
        return f"unreadable: {str(error).removeprefix(f'{path}: cannot read: ')}"


def results_file(path: Path) -> Journal:
    """The batch's results, opened and locked for the batch (cpsolve.journal)."""
    return Journal(path, "file", "a cpsolve batch's results")


def done_files(results: Journal, disassemble: bool = False) -> set[tuple[str, str]]:
    """(file, sha256) of every puzzle the results already hold, but those stopped by the time
    limit (a rerun tries them again) and, for a batch that takes them apart, those solved without
    being taken apart (their lines say nothing of it)."""
    done = set()
    for record in results.records:
        if "sha256" not in record or record.get("status") in (Status.INCOMPLETE, Status.SKIPPED):
            continue
        if disassemble and "disassembly" not in record and record.get("status") not in (Status.REFUSED, Status.FAILED):
            continue
        done.add((str(record["file"]), str(record["sha256"])))
    return done


def one_solution_that_comes_apart(line: dict[str, Any]) -> bool:
    """A design as a designer wants it: exactly one unique solution, and it comes apart (the
    line of a batch run with --disassemble; the same test as the jq line in docs/cluster.md)."""
    disassembly = line.get("disassembly") or {}
    return line.get("status") == Status.SOLVED and line["counts"]["unique"] == 1 and disassembly.get("comes_apart") == 1


def solve_file(path: Path, options: BatchOptions) -> list[dict[str, Any]]:
    """One JSON line per problem of the file: the report with its file, hash and status."""
    try:
        file = PuzzleFile.read(path, options.run.max_file_bytes)
    except CpsolveError as error:
        return [refused_line(path, str(error))]
    return solve_content(file, options)


def solve_content(file: PuzzleFile, options: BatchOptions) -> list[dict[str, Any]]:
    """One JSON line per problem of a file read into memory (here, or on a cluster's worker that
    received its content); the lines name the file as the user did. A spec marked `slow: true`
    gets a `skipped` line unless the batch includes slow ones."""
    head = {"file": file.name, "sha256": file.digest}
    try:
        lines = []
        for puzzle in formats.puzzles(file, ReadOptions(options.run.max_file_bytes)):
            if puzzle.loaded.spec.slow and not options.include_slow:
                lines.append({**head, "status": str(Status.SKIPPED), "name": puzzle.loaded.spec.name})
                continue
            job = start_loaded(puzzle, _for(puzzle, options.run, options.find_one_seconds), class_events=0)
            report = follow(job, ignore)
            stopped = signalled_stop(job, report)
            if stopped is StopReason.INTERRUPTED:  # the batch's Ctrl-C: no line, runs again
                raise KeyboardInterrupt
            if stopped is StopReason.TERMINATED:
                raise Terminated
            lines.append({**head, "status": str(status_of(report, puzzle.find_one)), **report.as_json()})
        return lines
    except CpsolveError as error:
        return [{**head, "status": str(Status.REFUSED), "error": str(error).replace("\n", "; ")}]
    except Exception as error:  # a bug in cpsolve: said on the puzzle's line, and the batch goes on
        return [{**head, "status": str(Status.FAILED), "error": f"internal error: {type(error).__name__}: {error}"}]


def refused_line(path: Path, error: str) -> dict[str, Any]:
    """The line of a file that could not be read or built: why, in one line."""
    reason = error.replace("\n", "; ")
    return {"file": str(path), "sha256": content_hash(path), "status": str(Status.REFUSED), "error": reason}


def status_of(report: RunReport, find_one: bool = False) -> Status:
    if not report.ok:
        return Status.FAILED
    if find_one and report.stopped_by is StopReason.FIRST_SOLUTION:
        return Status.FOUND
    if not report.complete:
        return Status.INCOMPLETE
    return Status.SOLVED if report.counts.raw else Status.NO_SOLUTION


def _for(puzzle: Puzzle, options: RunOptions, find_one_seconds: float) -> RunOptions:
    """A find-one puzzle runs as bench runs it: to its first solution, within a time limit (the
    batch's --time-limit, else `find_one_seconds`); every other one as given."""
    if not puzzle.find_one:
        return options
    limit = options.search.time_limit if options.search.time_limit is not None else find_one_seconds
    search = dataclasses.replace(options.search, first_only=True, time_limit=limit)
    return dataclasses.replace(options, search=search)


def earlier_statuses(results: Journal, files: list[Path]) -> Counter[str]:
    """How the problems of these files (each with its present content) ended in the results."""
    wanted = {(str(path), content_hash(path)) for path in files}
    return Counter(
        str(record.get("status"))
        for record in results.records
        if (str(record.get("file")), str(record.get("sha256"))) in wanted
    )


def pending(files: list[Path], done: set[tuple[str, str]]) -> list[Path]:
    """The files whose name and content have no lines in the results yet."""
    return [path for path in files if (str(path), content_hash(path)) not in done]


def run_batch(
    todo: list[Path],
    results: Journal,
    options: BatchOptions,
    on_file: Callable[[list[dict[str, Any]]], None] | None = None,
    skipped: int = 0,
) -> BatchSummary:
    """Solve every file of `todo`, appending its lines to `results` as each finishes."""
    started = time.perf_counter()
    summary = BatchSummary(skipped=skipped)
    try:
        for lines in _solved(todo, options):
            results.append(lines)
            summary.add(lines)
            if on_file is not None:
                on_file(lines)
    except KeyboardInterrupt:
        summary.interrupted = True
    summary.seconds = time.perf_counter() - started
    return summary


def _solved(files: list[Path], options: BatchOptions) -> Iterator[list[dict[str, Any]]]:
    """Each file's lines as it finishes, on the executor: a cluster (each file sent as its
    content), forked processes (the engines loaded once, before the fork), or this process."""
    if not files:
        return
    one_each = dataclasses.replace(options, run=dataclasses.replace(options.run, workers=1))
    processes = options.processes or cores()
    if options.cluster is not None:
        units: list[Any] = []
        for path in files:
            try:
                units.append(PuzzleFile.read(path, options.run.max_file_bytes))
            except CpsolveError as error:
                yield [refused_line(path, str(error))]
        runners = workers_for(options.cluster, processes)
        task = functools.partial(_content_lines, options=one_each)
    else:
        options.run.engines.load_installed()
        units, runners = list(files), workers_for(None, min(processes, len(files)))
        task = functools.partial(_file_lines, options=one_each)
    try:
        for _, lines in runners.stream(task, units):
            if lines is not DONE:
                yield lines
    finally:
        runners.close()


def _file_lines(path: Path, *, options: BatchOptions) -> Iterator[list[dict[str, Any]]]:
    yield solve_file(path, options)


def _content_lines(file: PuzzleFile, *, options: BatchOptions) -> Iterator[list[dict[str, Any]]]:
    yield solve_content(file, options)
