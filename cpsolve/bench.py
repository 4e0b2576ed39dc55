"""`cpsolve bench`: every puzzle with every engine that can take it, counts compared, times shown.

A spec with `expected` counts (or a foreign file, whose program's counts are unknown here) is
counted in full; a spec without them is a find-one benchmark (`--first` under a time limit), as
are the large planted boards. The file is read and each problem's model built once; each engine
runs it through `cpsolve.run.run`, whose seconds count reading and building as `cpsolve run
--json` does: file read to counts ready.
With `peers`, the peer programs that can take a puzzle run it too (cpsolve/peers.py); yass's
counts must agree with cpsolve's, as must burrTxt's on a BurrTools file (its own rule of
uniqueness, `burrtools_unique`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cpsolve import formats, peers
from cpsolve.engines import DEFAULT, SearchOptions, StopReason
from cpsolve.engines.base import stop_words
from cpsolve.errors import CpsolveError
from cpsolve.formats import Puzzle
from cpsolve.jobs import follow, ignore, start_loaded
from cpsolve.limits import DEFAULT_COUNT_SECONDS, DEFAULT_FIND_ONE_SECONDS
from cpsolve.report import RunReport
from cpsolve.run import RunOptions


@dataclass(frozen=True)
class BenchOptions:
    first_time_limit: float = DEFAULT_FIND_ONE_SECONDS
    count_time_limit: float | None = DEFAULT_COUNT_SECONDS  # each engine's count; None: no limit
    include_slow: bool = False
    workers: int = 0  # as `cpsolve run`: 0 = every core for a search big enough to gain from them, else one
    engine: str | None = None  # only this engine (default: every engine that takes the puzzle)
    peers: bool = False  # run the peer programs too
    peer_time_limit: float = 900.0
    on_ready: Callable[[], None] | None = None  # each run's hook once its model is built (gc.freeze)
    count_only: bool = False  # also count each packing the frontier counter takes, without listing


@dataclass
class BenchRow:
    """One puzzle: what each engine counted, and whether they all agree with `expected`."""

    source: str
    name: str
    mode: str  # "count" or "first"
    expected: dict[str, int] = field(default_factory=dict)
    results: list[RunReport] = field(default_factory=list)  # one per engine, the reference first
    skipped: str | None = None
    refused: str | None = None  # why the file could not be read or built (bad input)
    peers: list[peers.PeerResult] = field(default_factory=list)
    symmetry: str = "all"  # the spec's: BurrTools' counts compare only where it is `all`

    @property
    def listed(self) -> list[RunReport]:
        """The runs that listed the solutions (every engine's; not the count without listing)."""
        return [r for r in self.results if r.counting is None]

    @property
    def counted(self) -> RunReport | None:
        """The count without listing (`--count-only`), where the frontier counter took the puzzle."""
        return next((r for r in self.results if r.counting is not None and r.counting.get("method") != "tally"), None)

    @property
    def reference(self) -> RunReport | None:
        """The reference engine's run (None when `--engine` left it out)."""
        return next((r for r in self.listed if r.engine == DEFAULT.reference.name), None)

    @property
    def other(self) -> RunReport | None:
        """The first engine beside the reference that took the puzzle."""
        return next((r for r in self.listed if r.engine != DEFAULT.reference.name), None)

    @property
    def fastest(self) -> RunReport | None:
        """The fastest complete run of any engine that lists."""
        complete = [r for r in self.listed if r.complete]
        return min(complete, key=lambda r: r.seconds) if complete else None

    @property
    def problems(self) -> list[str]:
        """Why this row fails: counts that differ, a mismatch with `expected`, a broken identity."""
        found = [f"refused: {self.refused}"] if self.refused else []
        complete = [r for r in self.results if r.complete]
        counts = {r.engine: r.counts.as_dict() for r in complete}
        if self.mode == "count" and len({tuple(c.values()) for c in counts.values()}) > 1:
            found.append("engines disagree: " + "; ".join(f"{e} {c}" for e, c in counts.items()))
        for result in complete:
            found.extend(f"{result.engine}: {m}" for m in result.mismatches)
            found.extend(f"{result.engine}: {p}" for p in result.identity_problems)
        if self.mode == "count":
            found.extend(f"{r.engine}: {stop_words(r.stopped_by)}" for r in self.results if not self._left_out(r))
        found.extend(self._peer_disagreements())
        return found

    def _left_out(self, result: RunReport) -> bool:
        """Complete, or stopped by the count time limit while another engine completed."""
        return result.complete or (result.stopped_by is StopReason.TIME_LIMIT and self.fastest is not None)

    def _peer_disagreements(self) -> list[str]:
        ours = self.fastest
        if ours is None or self.mode != "count":
            return []
        found = []
        for peer in self.peers:
            if peer.seconds is None or peer.count is None:
                continue
            if peer.program == peers.YASS and (peer.count, peer.raw) != (ours.counts.unique, ours.counts.raw):
                found.append(f"yass counts unique {peer.count}, raw {peer.raw}")
            if peer.program == peers.BURRTOOLS and self.symmetry == "all":  # else BurrTools' rule differs
                theirs = ours.extra_counts.get("burrtools_unique", ours.counts.unique)
                if peer.count != theirs:
                    found.append(f"burrTxt counts {peer.count} assemblies, cpsolve {theirs} by BurrTools' rule")
        return found

    def as_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "name": self.name,
            "mode": self.mode,
            "expected": self.expected,
            "skipped": self.skipped,
            "refused": self.refused,
            "agree": not self.problems,
            "problems": self.problems,
            "results": {r.engine: r.as_json() for r in self.results},
            "peers": [p.as_json() for p in self.peers],
        }


def bench_file(path: Path, options: BenchOptions) -> list[BenchRow]:
    """A row for each problem the file holds (the file read once); a file that cannot be read
    becomes a row saying why."""
    try:
        found = formats.read_puzzles(path)
    except CpsolveError as error:
        return [BenchRow(str(path), path.stem, "count", refused=str(error).replace("\n", "; "))]
    return [bench_one(path, puzzle, options) for puzzle in found]


def bench_one(path: Path, puzzle: Puzzle, options: BenchOptions) -> BenchRow:
    """One row; a problem that cannot be built becomes a row that says why."""
    source = str(path) if puzzle.problem is None else f"{path}[{puzzle.problem}]"
    try:
        return _bench_one(path, puzzle, options, source)
    except CpsolveError as error:
        return BenchRow(source, path.stem, "count", refused=str(error).replace("\n", "; "))


def _run(puzzle: Puzzle, options: RunOptions, on_ready: Callable[[], None] | None) -> RunReport:
    """One engine's run of a row, as a job followed to its report (Ctrl-C: its report, stopped)."""
    return follow(start_loaded(puzzle, options, class_events=0, on_ready=on_ready), ignore)


def _bench_one(path: Path, puzzle: Puzzle, options: BenchOptions, source: str) -> BenchRow:
    spec = puzzle.loaded.spec
    mode = "first" if puzzle.find_one else "count"
    row = BenchRow(source, spec.name, mode, puzzle.expected, symmetry=spec.symmetry)
    if spec.slow and not options.include_slow:
        row.skipped = "slow (run with --slow)"
        return row
    if mode == "first":
        search = SearchOptions(first_only=True, time_limit=options.first_time_limit)
    else:
        search = SearchOptions(time_limit=options.count_time_limit)
    model, _ = puzzle.model()  # built once; each engine's run counts its building seconds
    for engine in DEFAULT.for_puzzle(model):
        if options.engine is not None and engine.name != options.engine:
            continue
        options_for_engine = RunOptions(search=search, show=0, engine=engine.name, workers=options.workers)
        row.results.append(_run(puzzle, options_for_engine, options.on_ready))
    if not row.results:  # only with --engine
        row.skipped = f"the {options.engine} engine does not take it"
        return row
    counter = DEFAULT.counter()
    if options.count_only and mode == "count" and counter is not None and counter.takes(model):
        counting = RunOptions(search=search, show=0, engine=counter.name, count_only=True)
        row.results.append(_run(puzzle, counting, options.on_ready))
    if options.peers and mode == "count":
        row.peers = peers.run_peers(path, model, puzzle.problem, options.peer_time_limit)
    return row


def bench(
    paths: Iterable[str | Path], options: BenchOptions, on_row: Callable[[BenchRow], None] | None = None
) -> list[BenchRow]:
    rows = []
    named = {Path(path) for path in paths if Path(path).is_file()}  # a file named is run, slow or not
    for path in formats.puzzle_files(paths):
        chosen = dataclasses.replace(options, include_slow=True) if path in named else options
        for row in bench_file(path, chosen):
            rows.append(row)
            if on_row is not None:
                on_row(row)
    return rows
