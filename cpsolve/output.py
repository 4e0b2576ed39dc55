"""What the command line prints and writes: the report as text, the solutions file, the progress
line and the bench table. The library returns data; this turns it into words."""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

import typer

from cpsolve import engines
from cpsolve.engines import StopReason
from cpsolve.engines.base import stop_words
from cpsolve.errors import CpsolveError, OutputError
from cpsolve.events import Progress
from cpsolve.files import same_file
from cpsolve.models import PuzzleModel
from cpsolve.report import RunReport
from cpsolve.run import ProgressHook
from cpsolve.symmetry import Solution
from cpsolve.words import plural

if TYPE_CHECKING:  # bench's rows and the peers are imported by the commands that print them
    from cpsolve.bench import BenchRow

PROGRESS_AFTER_SECONDS = 1.0


@contextmanager
def solution_writer(
    path: Path | None, puzzle_file: Path, append: bool = False, problem: str | None = None
) -> Iterator[SolutionWriter | None]:
    """The `--solutions` file, written (or, for the next problem of a file that holds several,
    appended to) from the first solution on; never the puzzle file itself. Lines name their
    problem where there is one. It is opened only once the run has found a solution or ended
    without error, so a run refused for its input leaves an earlier file of that name as it was."""
    if path is None:
        yield None
        return
    if same_file(path, puzzle_file):
        raise CpsolveError(f"{path}: --solutions names the input file {puzzle_file} itself; give another file")
    writer = SolutionWriter(path, problem, append)
    try:
        yield writer
        writer.open()  # a run without solution leaves an empty file: the answer is "none"
    finally:
        writer.close()


class SolutionWriter:
    """Writes each new class's canonical solution as one JSON line, flushed as it is found.

    Each line goes out in one write; if that fails (a full disk), the file is cut back to the last
    whole line, so it never ends in a torn line, and the run stops with OutputError.
    """

    def __init__(self, path: Path, problem: str | None = None, append: bool = False) -> None:
        self.path = path
        self.problem = problem
        self.append = append
        self.handle: BinaryIO | None = None
        self.written = 0
        self.whole = 0  # bytes of whole lines in the file

    def open(self) -> BinaryIO:
        """The file, opened on first use (unbuffered: a failed write leaves nothing pending)."""
        if self.handle is None:
            try:
                self.handle = self.path.open("ab" if self.append else "wb", buffering=0)
            except OSError as exc:
                raise OutputError(f"{self.path}: cannot write solutions: {exc.strerror}") from None
            self.whole = self.handle.tell()
        return self.handle

    def close(self) -> None:
        if self.handle is not None:
            self.handle.close()

    def __call__(self, solution: Solution, puzzle: PuzzleModel, details: Mapping[str, Any]) -> None:
        record = {**({"problem": self.problem} if self.problem is not None else {}), "class": self.written + 1}
        record.update(puzzle.describe(solution))
        record.update(details)
        line = (json.dumps(record, separators=(",", ":")) + "\n").encode()
        handle = self.open()
        try:
            done = 0
            while done < len(line):
                done += handle.write(line[done:]) or 0
        except OSError as exc:
            self._cut_back()
            raise OutputError(f"{self.path}: cannot write solutions: {exc.strerror}") from None
        self.written += 1
        self.whole += len(line)

    def _cut_back(self) -> None:
        # a device such as /dev/full cannot be cut back; there is nothing on it to tear
        if self.handle is not None:
            with contextlib.suppress(OSError):
                self.handle.truncate(self.whole)


def _on_terminal() -> bool:
    """Whether stderr may be a terminal to rich (which also draws where FORCE_TERMINAL says so)."""
    return sys.stderr.isatty() or bool(os.environ.get("FORCE_TERMINAL"))


@contextmanager
def progress(enabled: bool) -> Iterator[ProgressHook | None]:
    """A rich progress line on stderr once a run passes a second; only on a terminal (rich is
    imported only then: 0.02 s of every other run's start)."""
    if not enabled or not _on_terminal():
        yield None
        return
    from rich.console import Console
    from rich.progress import Progress as ProgressBar
    from rich.progress import TextColumn, TimeElapsedColumn

    console = Console(stderr=True)
    if not console.is_terminal:
        yield None
        return
    display = ProgressBar(TextColumn("{task.description}"), TimeElapsedColumn(), console=console, transient=True)
    task = display.add_task("starting")
    state = {"started": False, "last": 0.0}

    def update(event: Progress) -> None:
        doing, elapsed = event.line(), event.seconds
        if elapsed < PROGRESS_AFTER_SECONDS or elapsed - state["last"] < 0.1:
            return
        if not state["started"]:
            display.start()
            state["started"] = True
        state["last"] = elapsed
        display.update(task, description=doing)

    try:
        yield update
    finally:
        if state["started"]:
            display.stop()


@contextmanager
def batch_progress(total: int, enabled: bool) -> Iterator[Callable[[list[dict[str, Any]]], None] | None]:
    """A progress bar over a batch's puzzles with the time left, on stderr; only on a terminal."""
    if not enabled or not _on_terminal() or total == 0:
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    console = Console(stderr=True)
    if not console.is_terminal:
        yield None
        return
    columns = (TextColumn("puzzles"), BarColumn(), MofNCompleteColumn(), TextColumn("left"), TimeRemainingColumn())
    with Progress(*columns, console=console, transient=True) as display:
        task = display.add_task("batch", total=total)
        yield lambda lines: display.advance(task)


def format_report(report: RunReport) -> str:
    counts = report.counts
    status = "complete" if report.complete else f"INCOMPLETE: {stop_words(report.stopped_by)}"
    lines = [
        f"{report.name} ({report.kind}, {report.source})",
        f"counts{'' if report.complete else ' (at least)'}: raw {counts.raw}  rotations {counts.rotations}"
        f"  unique {counts.unique}  [{status}]",
    ]
    if report.expected:
        wanted = "  ".join(f"{k} {v}" for k, v in report.expected.items())
        verdict = "not checked (incomplete)" if not report.complete else "MISMATCH" if report.mismatches else "match"
        lines.append(f"expected: {wanted}: {verdict}")
        lines.extend(f"  {m}" for m in report.mismatches)
    if report.complete:
        identity = "FAILED" if report.identity_problems else "ok"
        lines.append(f"orbit-stabiliser check: {identity} ({plural(report.symmetries, 'symmetry', 'symmetries')})")
        lines.extend(f"  {p}" for p in report.identity_problems)
    if "burrtools_unique" in report.extra_counts:  # the puzzle has pieces BurrTools' mirror rule pairs
        theirs = report.extra_counts["burrtools_unique"]
        lines.append(
            f"BurrTools would count {theirs} unique: its mirror rule pairs pieces whatever their numbers"
            " (docs/formats.md, BurrTools files)"
            if theirs != report.counts.unique
            else f"BurrTools would count the same {theirs} unique (its mirror rule, which pairs pieces whatever"
            " their numbers, joins no two classes here)"
        )
    if report.disassembly is not None:
        lines.append(report.disassembly.describe())
    engine = report.engine or "no engine ran"
    enumerated = plural(report.solutions_enumerated, "solution")
    if report.counting is None:
        lines.append(f"time: {report.seconds:.2f} s ({engine}, {enumerated} enumerated)")
    elif report.counting["method"] == "tally":
        lines.append(f"time: {report.seconds:.2f} s ({engine}, {enumerated} enumerated and tallied, none kept)")
    else:
        classes = plural(len(report.counting["symmetry_classes"]), "symmetry class", "symmetry classes")
        lines.append(f"time: {report.seconds:.2f} s (counted without listing on the frontier, {classes} by Burnside)")
    lines.extend(f"note: {n}" for n in report.notes)
    for number, drawing in enumerate(report.shown, 1):
        kind = "assembly that comes apart" if report.disassembly is not None else "solution"
        title = f"first {kind}" if len(report.shown) == 1 else f"{kind} {number}"
        lines.extend(["", f"{title}:", drawing])
    if report.complete and counts.unique == 0:
        lines.extend(["", "no solution"])
    return "\n".join(lines)


def _peer_programs() -> tuple[str, ...]:
    """The peers' programs, from cpsolve.peers (imported by bench alone: it reads every format)."""
    from cpsolve.peers import PROGRAMS

    return PROGRAMS


class BenchPrinter:
    """Prints each bench row as it finishes (runs can take minutes), then the problems.

    Each row shows the reference engine's time and, where another engine can take the puzzle,
    that engine's time and how many times faster it was; with peers, the peer that ran it, its
    time, and how many times faster cpsolve's fastest engine was.
    """

    def __init__(self, with_peers: bool = False, counting: bool = False) -> None:
        self.rows: list[BenchRow] = []
        self.with_peers = with_peers
        self.counting = counting  # --count-only: the frontier count's seconds beside, and listing's over it

    def header(self) -> None:
        reference = f"{engines.DEFAULT.reference.name} s"
        # per peer program a column pair (its seconds, its time over cpsolve's fastest), then the notes
        peer = (
            "".join(f" {name + ' s':>10} {'/ours':>6}" for name in _peer_programs()) + " note"
            if self.with_peers
            else ""
        )
        if self.with_peers:
            for line in peers_missing():
                typer.echo(line)
        counted = f" {'count s':>8} {'list/count':>10}" if self.counting else ""
        typer.echo(
            "ratios: ref/other = the reference engine's seconds / the other engine's; list/count = the fastest"
            " listing's / the count's; /ours = a peer's / cpsolve's fastest (above 1x: the divisor is faster)"
        )
        typer.echo(
            f"{'puzzle':44} {'mode':5} {'raw/rotations/unique':>22} {'agree':>6}"
            f" {reference:>9} {'other engine':>17} {'s':>7} {'ref/other':>9}{counted}{peer}"
        )

    def __call__(self, row: BenchRow) -> None:
        if not self.rows:
            self.header()  # with the first row, so that a refused command prints no table
        self.rows.append(row)
        name = Path(row.source).name[:44]
        if row.refused:
            typer.echo(f"{name:44} refused: {row.refused}")
            return
        if row.skipped:
            typer.echo(f"{name:44} {row.mode:5} skipped: {row.skipped}")
            return
        first = row.fastest or row.results[0]  # a complete count where there is one
        counts = first.counts
        shown = f"{counts.raw}/{counts.rotations}/{counts.unique}"
        if row.mode == "first":
            shown = "found" if first.counts.raw else ("none" if first.complete else "not found")
        reference, other = row.reference, row.other
        ratio = ""
        timed_out = any(r is not None and r.stopped_by is StopReason.TIME_LIMIT for r in (reference, other))
        if reference is not None and other is not None and other.seconds > 0 and not timed_out:
            ratio = f"{reference.seconds / other.seconds:.1f}x"
        agree = "yes" if not row.problems else "NO"
        engine = "-" if other is None or other.engine is None else other.engine
        typer.echo(
            f"{name:44} {row.mode:5} {shown:>22} {agree:>6} {self._time(reference):>9} {engine:>17}"
            f" {self._time(other):>7} {ratio:>9}{self._counted(row)}{self._peers(row)}"
        )

    def _counted(self, row: BenchRow) -> str:
        """The count without listing: its seconds, and the fastest listing's over them."""
        if not self.counting:
            return ""
        counted, fastest = row.counted, row.fastest
        if counted is None:
            return f" {'-':>8} {'-':>10}"
        ratio = f"{fastest.seconds / counted.seconds:.2f}x" if fastest and counted.complete and counted.seconds else "-"
        return f" {self._time(counted):>8} {ratio:>10}"

    def _peers(self, row: BenchRow) -> str:
        """A column pair per peer program, in the header's order, and why any did not run."""
        if not self.with_peers:
            return ""
        if not row.peers:
            from cpsolve.peers import available

            why = "no peer built" if not available() else "no built peer takes it"
            return "".join(f" {'-':>10} {'-':>6}" for _ in _peer_programs()) + f" {why}"
        ran = {peer.program: peer for peer in row.peers}
        cells, notes = [], []
        fastest = row.fastest
        for name in _peer_programs():
            peer = ran.get(name)
            if peer is None or peer.seconds is None:
                cells.append(f" {'-':>10} {'-':>6}")
                if peer is not None:
                    notes.append(f"{name}: {peer.note}")
                continue
            versus = f"{peer.seconds / fastest.seconds:.1f}x" if fastest and fastest.seconds > 0 else "-"
            cells.append(f" {peer.seconds:>10.2f} {versus:>6}")
        return "".join(cells) + (f" {'; '.join(notes)}" if notes else "")

    @staticmethod
    def _time(report: RunReport | None) -> str:
        if report is None:
            return "-"
        return f"{report.seconds:.2f}" + ("+" if report.stopped_by is StopReason.TIME_LIMIT else "")

    def finish(self) -> None:
        if self.with_peers:
            for line in peer_totals(self.rows):
                typer.echo(line)
        problems = [(row, p) for row in self.rows for p in row.problems]
        for row, problem in problems:
            typer.echo(f"PROBLEM {row.source}: {problem}")
        typer.echo("all counts agree" if not problems else plural(len(problems), "problem"))


def peer_totals(rows: Sequence[BenchRow]) -> list[str]:
    """One line per peer: its total time and cpsolve's over the puzzles both counted in full."""
    totals: dict[str, list[float]] = {}
    for row in rows:
        fastest = row.fastest
        for peer in row.peers:
            if peer.seconds is not None and fastest is not None:
                spent = totals.setdefault(peer.program, [0, 0.0, 0.0])
                spent[0] += 1
                spent[1] += peer.seconds
                spent[2] += fastest.seconds
    lines = []
    for program, (count, theirs, ours) in totals.items():
        line = f"{program}: {plural(int(count), 'puzzle')} in {theirs:.2f} s"
        lines.append(f"{line}; cpsolve {ours:.2f} s, {how_much_faster(theirs, ours)}" if ours > 0 else line)
    return lines


def how_much_faster(theirs: float, ours: float) -> str:
    """'cpsolve 3.2x faster' or, when it was slower, 'cpsolve 2.0x slower'."""
    return f"cpsolve {theirs / ours:.1f}x faster" if theirs >= ours else f"cpsolve {ours / theirs:.1f}x slower"


def peers_missing() -> list[str]:
    """Where the peers were looked for and how to build them, when one is not built."""
    from cpsolve import peers

    missing = [name for name in (peers.BURRTOOLS, peers.YASS) if peers.find(name) is None]
    if not missing:
        return []
    given = os.environ.get(peers.PEERS_ENV)
    places = f"${peers.PEERS_ENV} ({given or 'unset'}) and {Path.home() / '.cache' / 'cpsolve-peers'}"
    return [
        f"not built: {', '.join(missing)}; looked in {places}. Build them with `bash ../shared/peers/build.sh"
        f" DEST` (about a minute) and set {peers.PEERS_ENV}=DEST"
    ]
