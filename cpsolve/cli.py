"""The `cpsolve` command: parses arguments, calls the library, prints. No puzzle logic here."""

from __future__ import annotations

import gc
import json
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Annotated

import typer
from rich.console import Console
from rich.progress import Progress, TextColumn, TimeElapsedColumn

from cpsolve.bench import DEFAULT_FIRST_TIME_LIMIT, BenchOptions, BenchRow, bench
from cpsolve.counting import Solution
from cpsolve.engine import SearchOptions
from cpsolve.engines import AUTO, CPSAT
from cpsolve.engines import preload as preload_engines
from cpsolve.errors import CpsolveError
from cpsolve.generate import TileBoardRequest, parse_board, tiles_spec_text
from cpsolve.models import BuildOptions, PuzzleModel
from cpsolve.run import ProgressHook, RunOptions, RunReport, build_model, load_puzzle, run
from cpsolve.spec import json_schema

app = typer.Typer(
    help="Solve and count discrete assembly puzzles with OR-Tools CP-SAT.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

EXIT_MISMATCH = 1
EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130
PROGRESS_AFTER_SECONDS = 1.0


def fail(error: CpsolveError) -> typer.Exit:
    """Print a user error as its own lines on stderr and give the exit to raise."""
    typer.echo(str(error), err=True)
    return typer.Exit(code=EXIT_BAD_INPUT)


@app.command("run")
def run_command(
    puzzle: Annotated[Path, typer.Argument(help="a YAML spec, a yass .soma figure or a c't 9-piece .txt")],
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON object on stdout")] = False,
    solutions: Annotated[
        Path | None, typer.Option("--solutions", help="write each unique solution as a JSON line")
    ] = None,
    show: Annotated[
        int | None,
        typer.Option("--show", min=0, help="draw this many unique solutions [default: 1; all for a c't .txt]"),
    ] = None,
    first: Annotated[bool, typer.Option("--first", help="stop at the first solution (all cores)")] = False,
    time_limit: Annotated[float | None, typer.Option("--time-limit", min=0.0, help="seconds")] = None,
    max_solutions: Annotated[int | None, typer.Option("--max-solutions", min=1)] = None,
    max_placements: Annotated[
        int, typer.Option("--max-placements", min=1, help="refuse models with more placements")
    ] = BuildOptions().max_atoms,
    guided: Annotated[bool, typer.Option(help="branch on placements in target cell order")] = True,
    symmetry_breaking: Annotated[
        bool, typer.Option(help="enumerate about one solution per class (off: every raw solution, for checking)")
    ] = True,
    engine: Annotated[
        str,
        typer.Option(
            "--engine",
            help="cpsat, exact-cover (packings of single pieces), chain-dfs (chains of up to 64 cells) or auto",
        ),
    ] = AUTO,
    workers: Annotated[
        int,
        typer.Option(
            "--workers",
            min=0,
            help="processes, each solving disjoint parts with one engine thread;"
            " 0: every core for big CP-SAT models, else 1",
        ),
    ] = 0,
) -> None:
    """Solve a puzzle and print the raw, rotations and unique counts."""
    options = RunOptions(
        search=SearchOptions(time_limit=time_limit, max_solutions=max_solutions, first_only=first, guided=guided),
        build=BuildOptions(max_atoms=max_placements),
        show=show,
        symmetry_breaking=symmetry_breaking,
        engine=engine,
        workers=workers,
    )
    try:
        with _solution_writer(solutions) as write, _progress(enabled=not as_json) as progress:
            report = run(puzzle, options, on_progress=progress, on_new_class=write)
    except CpsolveError as error:
        raise fail(error) from None
    if as_json:
        typer.echo(json.dumps(report.as_json()))
    else:
        typer.echo(format_report(report))
    if report.stopped_by == "interrupted":
        raise typer.Exit(code=EXIT_INTERRUPTED)
    if not report.ok:
        raise typer.Exit(code=EXIT_MISMATCH)


@contextmanager
def _solution_writer(path: Path | None) -> Iterator[SolutionWriter | None]:
    if path is None:
        yield None
        return
    try:
        handle = path.open("w", encoding="utf-8")
    except OSError as exc:
        raise CpsolveError(f"{path}: cannot write solutions: {exc.strerror}") from None
    with handle:
        yield SolutionWriter(handle)


class SolutionWriter:
    """Writes each new class's canonical solution as one JSON line, flushed as it is found."""

    def __init__(self, handle: IO[str]) -> None:
        self.handle = handle
        self.written = 0

    def __call__(self, solution: Solution, puzzle: PuzzleModel) -> None:
        self.written += 1
        record = {"class": self.written, **puzzle.describe(solution)}
        self.handle.write(json.dumps(record, separators=(",", ":")) + "\n")
        self.handle.flush()


@contextmanager
def _progress(enabled: bool) -> Iterator[ProgressHook | None]:
    """A rich progress line on stderr once a run passes a second; only on a terminal."""
    console = Console(stderr=True)
    if not enabled or not console.is_terminal:
        yield None
        return
    display = Progress(TextColumn("{task.description}"), TimeElapsedColumn(), console=console, transient=True)
    task = display.add_task("starting")
    state = {"started": False, "last": 0.0}

    def update(raw: int, classes: int, elapsed: float) -> None:
        if elapsed < PROGRESS_AFTER_SECONDS or elapsed - state["last"] < 0.1:
            return
        if not state["started"]:
            display.start()
            state["started"] = True
        state["last"] = elapsed
        rate = raw / elapsed if elapsed else 0.0
        display.update(task, description=f"{raw:,} solutions, {classes:,} classes, {rate:,.0f}/s")

    try:
        yield update
    finally:
        if state["started"]:
            display.stop()


def format_report(report: RunReport) -> str:
    counts = report.counts
    status = "complete" if report.complete else f"INCOMPLETE: stopped by {report.stopped_by}"
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
        lines.append(f"orbit-stabiliser check: {identity} ({report.symmetries} symmetries)")
        lines.extend(f"  {p}" for p in report.identity_problems)
    lines.append(f"time: {report.seconds:.2f} s ({report.engine}, {report.solutions_enumerated} solutions enumerated)")
    lines.extend(f"note: {n}" for n in report.notes)
    for number, drawing in enumerate(report.shown, 1):
        title = "first solution" if len(report.shown) == 1 else f"solution {number}"
        lines.extend(["", f"{title}:", drawing])
    if report.complete and counts.unique == 0:
        lines.extend(["", "no solution"])
    return "\n".join(lines)


@app.command("validate")
def validate_command(
    puzzle: Annotated[Path, typer.Argument(help="a YAML spec, a yass .soma figure or a c't 9-piece .txt")],
) -> None:
    """Check a puzzle file and build its model without solving."""
    started = time.perf_counter()
    try:
        loaded, build = load_puzzle(puzzle)
        model = build_model(loaded, build)
    except CpsolveError as error:
        raise fail(error) from None
    typer.echo(
        f"{puzzle}: ok: {model.kind} '{model.name}', {len(model.atoms)} placements,"
        f" {model.group.order} symmetries ({time.perf_counter() - started:.2f} s)"
    )
    for note in model.notes:
        typer.echo(f"note: {note}")


@app.command("bench")
def bench_command(
    paths: Annotated[
        list[Path] | None, typer.Argument(help="specs or directories of specs [default: puzzle_specs/]")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON object on stdout")] = False,
    slow: Annotated[bool, typer.Option("--slow", help="include specs marked slow: true")] = False,
    time_limit: Annotated[
        float, typer.Option("--time-limit", min=0.0, help="seconds for each find-one (--first) benchmark")
    ] = DEFAULT_FIRST_TIME_LIMIT,
    workers: Annotated[int, typer.Option("--workers", min=0, help="as for run")] = 0,
) -> None:
    """Run each puzzle with every engine that can take it; compare counts and times.

    Exit code 1 when any count differs between engines or from `expected`, or a check fails.
    """
    targets = paths or [Path("puzzle_specs")]
    options = BenchOptions(first_time_limit=time_limit, include_slow=slow, workers=workers)
    printer = None if as_json else BenchPrinter()
    try:
        preload_engines(AUTO)
        rows = bench(targets, options, on_row=printer)
    except CpsolveError as error:
        raise fail(error) from None
    if as_json:
        typer.echo(json.dumps({"rows": [row.as_json() for row in rows], "ok": all(not r.problems for r in rows)}))
    elif printer is not None:
        printer.finish()
    if any(row.problems for row in rows):
        raise typer.Exit(code=EXIT_MISMATCH)


class BenchPrinter:
    """Prints each bench row as it finishes (runs can take minutes), then the problems.

    Each row shows CP-SAT's time and, where a special engine can take the puzzle, that engine's
    time and how many times faster it was.
    """

    def __init__(self) -> None:
        self.rows: list[BenchRow] = []
        typer.echo(
            f"{'puzzle':44} {'mode':5} {'raw/rotations/unique':>22} {'agree':>6}"
            f" {'cpsat s':>9} {'other engine':>12} {'s':>7} {'ratio':>6}"
        )

    def __call__(self, row: BenchRow) -> None:
        self.rows.append(row)
        name = Path(row.source).name[:44]
        if row.skipped:
            typer.echo(f"{name:44} {row.mode:5} skipped: {row.skipped}")
            return
        first = row.results[0]
        counts = first.counts
        shown = f"{counts.raw}/{counts.rotations}/{counts.unique}"
        if row.mode == "first":
            shown = "found" if first.counts.raw else ("none" if first.complete else "not found")
        cpsat = next((r for r in row.results if r.engine == CPSAT), None)
        other = next((r for r in row.results if r.engine != CPSAT), None)
        ratio = ""
        if cpsat is not None and other is not None and other.seconds > 0:
            ratio = f"{cpsat.seconds / other.seconds:.1f}x"
        agree = "yes" if not row.problems else "NO"
        engine = "-" if other is None else other.engine
        typer.echo(
            f"{name:44} {row.mode:5} {shown:>22} {agree:>6} {self._time(cpsat):>9} {engine:>12}"
            f" {self._time(other):>7} {ratio:>6}"
        )

    @staticmethod
    def _time(report: RunReport | None) -> str:
        if report is None:
            return "-"
        return f"{report.seconds:.2f}" + ("" if report.complete or report.counts.raw else "+")

    def finish(self) -> None:
        problems = [(row, p) for row in self.rows for p in row.problems]
        for row, problem in problems:
            typer.echo(f"PROBLEM {row.source}: {problem}")
        typer.echo("all counts agree" if not problems else f"{len(problems)} problem(s)")


generate_app = typer.Typer(help="Write puzzle specs with a planted solution.", no_args_is_help=True)
app.add_typer(generate_app, name="generate")


@generate_app.command("tiles")
def generate_tiles_command(
    board: Annotated[str, typer.Option("--board", help="columns x rows, e.g. 8x8")],
    labels: Annotated[int, typer.Option("--labels", min=1, help="inner edge labels")],
    border: Annotated[int | None, typer.Option("--border", help="label of every outer edge (default: free)")] = None,
    frame_labels: Annotated[
        int, typer.Option("--frame-labels", min=0, help="labels only on edges between two border tiles")
    ] = 0,
    match: Annotated[str, typer.Option("--match", help="equal or sum-zero")] = "equal",
    seed: Annotated[int, typer.Option("--seed")] = 1,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="write here instead of stdout")] = None,
) -> None:
    """An edge-matching board: random labels on a solved board, then tiles shuffled and turned."""
    try:
        columns, rows = parse_board(board)
        text = tiles_spec_text(TileBoardRequest(columns, rows, labels, border, frame_labels, match, seed))
        if output is None:
            typer.echo(text, nl=False)
        else:
            output.write_text(text, encoding="utf-8")
    except CpsolveError as error:
        raise fail(error) from None
    except OSError as exc:
        raise fail(CpsolveError(f"{output}: cannot write: {exc.strerror}")) from None


@app.command("schema")
def schema_command() -> None:
    """Print the JSON Schema of the spec format."""
    typer.echo(json.dumps(json_schema(), indent=2))


def main() -> None:
    # Everything imported so far lives as long as the process: keep it out of the collector's
    # passes (the Soma cube's 0.10 s median run became 0.085 s, 8 runs each).
    gc.freeze()
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(EXIT_INTERRUPTED)
