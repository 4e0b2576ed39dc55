"""The `cpsolve` command: parses arguments, calls the library, prints. No puzzle logic here.

Each command imports the library when it runs, so that `cpsolve --help` imports only typer, and a
run imports only the engine it uses (the engines import their solvers when loaded).
"""

from __future__ import annotations

import copy
import dataclasses
import gc
import json
import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
import typer.main
from typer.core import TyperGroup

from cpsolve import cli_options as opt
from cpsolve.cli_design import census_app, design_command
from cpsolve.cli_studio import studio_command
from cpsolve.errors import EXIT_BAD_INPUT, EXIT_INTERRUPTED, EXIT_MISMATCH, EXIT_TERMINATED, OutOfTimeError, printable
from cpsolve.limits import (
    DEFAULT_COUNT_SECONDS,
    DEFAULT_FIND_ONE_SECONDS,
    DEFAULT_MAX_ATOMS,
    DEFAULT_MAX_CLASS_MB,
    DEFAULT_MAX_DISASSEMBLY_POSITIONS,
    DEFAULT_MAX_FILE_MB,
    DEFAULT_MAX_TERMS,
    MOST_SECONDS,
    Deadline,
)

if TYPE_CHECKING:
    from cpsolve.convert import AssemblyCollector
    from cpsolve.errors import CpsolveError
    from cpsolve.formats import Puzzle
    from cpsolve.models import PuzzleModel
    from cpsolve.report import RunReport
    from cpsolve.run import ClassCollector, RunOptions, SolutionHook
    from cpsolve.stl import StlOptions
    from cpsolve.symmetry import Solution

app = typer.Typer(
    help="Solve and count discrete assembly puzzles: polycube and polyomino packings, snake cubes,"
    " edge-matching tiles; YAML specs, yass, c't and BurrTools files.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # plain help and usage errors: rich's help formatting imports markdown and pygments, 0.07 s of
    # every `cpsolve --help` (benchmarks/start_up.py)
    rich_markup_mode=None,
)

AUTO = "auto"  # the engine choice that lets cpsolve.engines choose; checked there
WHOLE_PROCESS = "whole_process"  # set by the program's entry point: this process runs one command


def _show_version(asked: bool) -> None:
    if asked:
        from cpsolve import __version__

        typer.echo(f"cpsolve {__version__}")
        raise typer.Exit()


@app.callback()
def main_options(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_show_version, is_eager=True, help="print the version and exit"),
    ] = False,
) -> None:
    """Solve and count discrete assembly puzzles: polycube and polyomino packings, snake cubes,
    edge-matching tiles; YAML specs, yass, c't and BurrTools files."""


def not_a_command(args: Sequence[str]) -> str | None:
    """The line for `cpsolve FILE` (the `run` left out): a word that is no command but names a
    file; None otherwise."""
    if not args or args[0].startswith("-"):
        return None
    names = {info.name for info in app.registered_commands} | {info.name for info in app.registered_groups}
    if args[0] in names or not os.path.exists(args[0]):
        return None
    given = printable(" ".join(args))[:300]
    return f"cpsolve: {printable(args[0])[:200]} is no command; to solve it: cpsolve run {given}"


def fail(error: CpsolveError) -> typer.Exit:
    """Print a user error as its own lines on stderr and give the exit to raise."""
    typer.echo(printable(str(error), keep="\n"), err=True)
    return typer.Exit(code=EXIT_BAD_INPUT)


@app.command("run", cls=opt.HelpCommand)
def run_command(
    context: typer.Context,
    puzzle: Annotated[
        Path,
        typer.Argument(
            metavar="PUZZLE", help="a YAML spec, a yass .soma figure, a c't 9-piece .txt or a BurrTools .xmpuzzle"
        ),
    ],
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON object per problem on stdout")] = False,
    solutions: Annotated[
        Path | None, typer.Option("--solutions", metavar="FILE", help="write each unique solution as a JSON line")
    ] = None,
    show: opt.Show = None,
    first: opt.First = False,
    time_limit: opt.TimeLimit = None,
    max_solutions: opt.MaxSolutions = None,
    max_placements: opt.MaxPlacements = DEFAULT_MAX_ATOMS,
    max_terms: opt.MaxTerms = DEFAULT_MAX_TERMS,
    max_file_size: opt.MaxFileSize = DEFAULT_MAX_FILE_MB,
    guided: opt.Guided = True,
    symmetry_breaking: opt.SymmetryBreaking = True,
    engine: opt.Engine = AUTO,
    workers: opt.Workers = 0,
    problem: opt.Problem = None,
    xmpuzzle: Annotated[
        Path | None,
        typer.Option(
            "--xmpuzzle", metavar="FILE", help="write the puzzle and its unique solutions as a BurrTools file"
        ),
    ] = None,
    cluster: opt.Cluster = None,
    checkpoint: opt.Checkpoint = None,
    disassemble: opt.Disassemble = False,
    html: Annotated[
        Path | None,
        typer.Option(
            "--html",
            metavar="FILE",
            help="write a page that shows the unique solutions in 3-D (one file, opens from disk)",
        ),
    ] = None,
    png: Annotated[
        Path | None,
        typer.Option(
            "--png", metavar="FILE", help="write a picture of a solution: the first, or the one --solution names"
        ),
    ] = None,
    solution_number: Annotated[
        int | None,
        typer.Option(
            "--solution",
            min=1,
            metavar="N",
            help="which unique solution --png draws, from 1 [default: --show's last, or 1]",
        ),
    ] = None,
    max_positions: opt.MaxPositions = DEFAULT_MAX_DISASSEMBLY_POSITIONS,
    max_memory: opt.MaxMemory = DEFAULT_MAX_CLASS_MB,
    count_only: opt.CountOnly = False,
    count_order: opt.CountOrder = "fill",
    stl: Annotated[
        Path | None,
        typer.Option(
            "--stl",
            metavar="FOLDER",
            help="write each piece of the first solution (or --solution N) as an STL file in this folder",
        ),
    ] = None,
    stl_unit: Annotated[
        float,
        typer.Option(
            "--stl-unit",
            metavar="MM",
            help="--stl: millimetres to a cell: a cube's side, a ball's diameter, a prism's edge",
        ),
    ] = 10.0,
    stl_gap: Annotated[
        float,
        typer.Option(
            "--stl-gap", metavar="MM", help="--stl: millimetres between neighbouring pieces (each shrinks by half)"
        ),
    ] = 0.0,
    stl_bevel: Annotated[
        float,
        typer.Option(
            "--stl-bevel", metavar="MM", help="--stl: millimetres cut off each outer edge of a cube, at 45 degrees"
        ),
    ] = 0.0,
) -> None:
    """Solve a puzzle and print the raw, rotations and unique counts (every problem of a file
    that holds several, or the one --problem names)."""
    # As the whole `cpsolve` process (not inside a test or a notebook), what is loaded lives as
    # long as the process: gc.freeze() keeps it out of the collector's passes, once after the
    # library is imported and once after the first engine is loaded. Freezing only before the
    # engine's libraries are imported makes the collector walk them again and again (the Soma
    # cube's `seconds` 0.035 -> 0.073 in one measurement each way); freezing again for every
    # problem of a file would keep each problem's model for good.
    from cpsolve import formats
    from cpsolve.errors import CpsolveError
    from cpsolve.files import refuse_collisions
    from cpsolve.options import Options

    whole_process = isinstance(context.obj, dict) and bool(context.obj.get(WHOLE_PROCESS))
    freeze = _once(gc.freeze) if whole_process else None
    if whole_process:
        gc.freeze()
    values = {name: value for name, value in context.params.items() if name in Options.model_fields}
    try:
        settings = Options.of(values)
    except CpsolveError as error:
        raise fail(error) from None
    options = settings.run_options()
    listing = (
        ("--solutions", solutions),
        ("--show", show or None),  # --show 0 draws nothing: nothing to list
        ("--html", html),
        ("--png", png),
        ("--xmpuzzle", xmpuzzle),
        ("--stl", stl),
    )
    for flag, given in listing:
        if count_only and given is not None:
            raise fail(CpsolveError(f"{puzzle}: {flag} needs the solutions listed; leave out --count-only"))
    try:
        outputs = (
            ("--html", html),
            ("--png", png),
            ("--xmpuzzle", xmpuzzle),
            ("--solutions", solutions),
            ("--checkpoint", checkpoint),
        )
        refuse_collisions([puzzle], outputs, stl)
        found = formats.read_puzzles(puzzle, formats.ReadOptions(options.max_file_bytes, problem))
    except CpsolveError as error:
        raise fail(error) from None
    for flag, given in (("--xmpuzzle", xmpuzzle), ("--html", html), ("--png", png), ("--stl", stl)):
        if len(found) > 1 and given is not None:
            raise fail(CpsolveError(f"{puzzle}: holds {len(found)} problems; give --problem with {flag}"))
    drawn = solution_number or max(1, show or 1)
    chosen = solution_number is not None or bool(show)  # else the PNG draws what the page opens on
    pictures = Pictures(html, png, drawn, chosen) if html is not None or png is not None else None
    meshes = None
    if stl is not None:
        from cpsolve.stl import StlOptions

        meshes = Meshes(stl, StlOptions(stl_unit, stl_gap, stl_bevel), drawn)
    if png is not None:
        from cpsolve.pictures.png import check_installed

        try:
            check_installed(png)
        except CpsolveError as error:
            raise fail(error) from None
    codes: list[int] = []
    for each in found:
        codes.append(_run_one(each, options, as_json, solutions, xmpuzzle, pictures, freeze, bool(codes), meshes))
        if codes[-1] in (EXIT_INTERRUPTED, EXIT_TERMINATED):
            break
    worst = max(codes, key=lambda code: (code in (EXIT_INTERRUPTED, EXIT_TERMINATED), code))
    if worst:
        raise typer.Exit(code=worst)


def _assembly_collector() -> AssemblyCollector:
    """--xmpuzzle's collector; cpsolve.convert (and yaml, which it writes specs with) is imported
    only by the runs that write a file."""
    from cpsolve.convert import AssemblyCollector

    return AssemblyCollector()


def _run_one(
    puzzle: Puzzle,
    options: RunOptions,
    as_json: bool,
    solutions: Path | None,
    xmpuzzle: Path | None,
    pictures: Pictures | None,
    freeze: Callable[[], None] | None,
    appending: bool,
    meshes: Meshes | None = None,
) -> int:
    """One problem: run, write what was asked for, print the report; the exit code it calls for."""
    from cpsolve.engines import StopReason
    from cpsolve.errors import CpsolveError
    from cpsolve.events import JobEvent, NewClass, Progress
    from cpsolve.jobs import follow, signalled_stop, start_loaded
    from cpsolve.limits import MAX_PICTURED
    from cpsolve.output import format_report, progress, solution_writer
    from cpsolve.run import ClassCollector

    collector = _assembly_collector() if xmpuzzle is not None else None
    pictured = ClassCollector(max(MAX_PICTURED, pictures.number)) if pictures is not None else None
    meshed = ClassCollector(meshes.number) if meshes is not None else None
    try:
        puzzle.loaded  # noqa: B018  (the spec is checked before any output is opened)
        if meshes is not None:
            meshes.check(puzzle, options)
        with (
            solution_writer(solutions, Path(puzzle.name), append=appending, problem=puzzle.problem) as write,
            progress(enabled=not as_json) as on_progress,
        ):
            hooks = [hook for hook in (write, collector, pictured, meshed) if hook is not None]
            on_class = _both(hooks)

            def handle(event: JobEvent) -> None:
                if isinstance(event, NewClass) and on_class is not None:
                    on_class(event.solution, event.model, event.details)
                elif isinstance(event, Progress) and on_progress is not None:
                    on_progress(event)

            wanted = _class_events(write is not None or collector is not None, pictured, meshed)
            job = start_loaded(puzzle, options, class_events=wanted, on_ready=freeze)
            report = follow(job, handle)
        if xmpuzzle is not None and collector is not None:
            if collector.model is None:
                from cpsolve.convert import write_puzzle

                write_puzzle(puzzle.loaded, xmpuzzle)
            else:
                from cpsolve.convert import solved_state

                written = collector.write(report.name, xmpuzzle, solved_state(report))
                if collector.left_out:  # the puzzle is written, its assemblies are not: say so
                    typer.echo(f"note: {written}", err=True)
        if pictures is not None and pictured is not None:
            pictures.write(report, pictured)
        if meshes is not None and meshed is not None:
            meshes.write(meshed, report, options.search.time_limit)
    except CpsolveError as error:
        typer.echo(printable(str(error), keep="\n"), err=True)
        return EXIT_BAD_INPUT
    text = json.dumps(report.as_json()) if as_json else printable(format_report(report), keep="\n")
    if not write_stdout(text):
        # the counts exist but did not reach the user: 1 when they were complete, else 2
        return EXIT_MISMATCH if report.complete else EXIT_BAD_INPUT
    stopped = signalled_stop(job, report)  # a Ctrl-C as the run ended: its report is whole, the command stops
    if stopped is StopReason.INTERRUPTED:
        return EXIT_INTERRUPTED
    if stopped is StopReason.TERMINATED:
        return EXIT_TERMINATED
    return 0 if report.ok else EXIT_MISMATCH


@dataclasses.dataclass(frozen=True)
class Meshes:
    """What `--stl` asked for: the folder, the sizes, and which solution's pieces (from 1)."""

    folder: Path
    options: StlOptions
    number: int

    def check(self, puzzle: Puzzle, options: RunOptions) -> None:
        """Refuse before the run what cannot be meshed (the model is built once: the run reuses it)."""
        from cpsolve.stl import check_meshable

        self.options.check(check_meshable(puzzle.model(options.build)[0]))

    def write(self, collected: ClassCollector, report: RunReport, time_limit: float | None) -> None:
        """The pieces' files, made within what the run left of `time_limit` (its `seconds` spent)."""
        from cpsolve.stl import solution_pieces, write_stl

        if collected.model is None or not collected.solutions:
            typer.echo(f"{self.folder}: no STL written: the run found no solution", err=True)
            return
        solution = collected.solutions[min(self.number, len(collected.solutions)) - 1]
        deadline = Deadline.after(None if time_limit is None else max(0.0, time_limit - report.seconds))
        try:
            written = write_stl(self.folder, solution_pieces(collected.model, solution), self.options, deadline)
        except OutOfTimeError as stopped:
            typer.echo(f"{self.folder}: no STL written: the time limit passed while {stopped.doing}", err=True)
            return
        drawn = min(self.number, len(collected.solutions))
        said = "" if drawn == self.number else f" (the run found {drawn} unique solutions, not {self.number})"
        typer.echo(f"{self.folder}: {len(written)} pieces of solution {drawn} as STL{said}", err=True)


@dataclasses.dataclass(frozen=True)
class Pictures:
    """What `--html` and `--png` asked for; `number`: the solution the PNG draws, from 1."""

    html: Path | None
    png: Path | None
    number: int
    chosen: bool = True  # False: the page's first view (with --disassemble, the first that comes apart)

    def write(self, report: RunReport, collected: ClassCollector) -> None:
        from cpsolve.pictures import write_pictures

        for message in write_pictures(report, collected, self.html, self.png, self.number if self.chosen else None):
            typer.echo(message, err=True)


def _class_events(every: bool, *limited: ClassCollector | None) -> int | None:
    """How many new classes a run of the command line sends as events: every one for a solutions
    file or a BurrTools file, as many as the pictures keep, or none (the run then makes none)."""
    if every:
        return None
    return max((collector.limit or 0 for collector in limited if collector is not None), default=0)


def _once(action: Callable[[], None]) -> Callable[[], None]:
    """`action` the first time, nothing after."""
    done: list[bool] = []

    def call() -> None:
        if not done:
            done.append(True)
            action()

    return call


def _both(hooks: Sequence[SolutionHook]) -> SolutionHook | None:
    """One hook that calls each of the given ones."""
    if not hooks:
        return None
    if len(hooks) == 1:
        return hooks[0]

    def call(solution: Solution, model: PuzzleModel, details: Mapping[str, Any]) -> None:
        for hook in hooks:
            hook(solution, model, details)

    return call


def write_stdout(text: str) -> bool:
    """Print text; on a write error (a full disk) say so on stderr and return False. A closed pipe
    is no error: the reader stopped reading, as `cat` would take it."""
    try:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
    except BrokenPipeError:  # the reader closed the pipe (`| head -1`): it had what it wanted
        _quiet_stdout()
        return True
    except OSError as exc:
        typer.echo(f"cannot write the report to standard output: {exc.strerror}", err=True)
        _quiet_stdout()
        return False
    return True


def _quiet_stdout() -> None:
    """Point standard output at /dev/null, so that Python's own flush at exit does not fail again
    with a traceback."""
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, sys.stdout.fileno())
    os.close(null)


@app.command("validate", cls=opt.HelpCommand)
def validate_command(
    puzzle: Annotated[Path, typer.Argument(help="any puzzle file cpsolve reads")],
    problem: Annotated[
        str | None,
        typer.Option("--problem", help="which problem of a BurrTools file: a number from 0 or a name [default: all]"),
    ] = None,
) -> None:
    """Check a puzzle file (every problem in it, or the one --problem names) and build its model
    without solving."""
    from cpsolve.errors import CpsolveError
    from cpsolve.formats import ReadOptions, read_puzzles

    try:
        found = read_puzzles(puzzle, ReadOptions(problem=problem))
    except CpsolveError as error:
        raise fail(error) from None
    refused = False
    for each in found:
        started = time.perf_counter()
        where = puzzle if each.problem is None else f"{puzzle} problem {each.problem}"
        try:
            model, _ = each.model()
        except CpsolveError as error:
            typer.echo(printable(str(error), keep="\n"), err=True)
            refused = True
            continue
        typer.echo(
            printable(
                f"{where}: ok: {model.kind} '{model.name}', {model.atom_count} placements,"
                f" {model.group.order} symmetries ({time.perf_counter() - started:.2f} s)"
            )
        )
        for note in model.notes:
            typer.echo(f"note: {printable(note)}")
    if refused:
        raise typer.Exit(code=EXIT_BAD_INPUT)


@app.command("engines", cls=opt.HelpCommand)
def engines_command() -> None:
    """List the engines: what each takes, and whether it is installed."""
    from cpsolve import engines, native

    for engine in engines.DEFAULT:
        state = "installed" if engine.installed() else f'not installed: pip install "cpsolve[{engine.extra}]"'
        typer.echo(f"{engine.name:12} {engine.takes_what} ({state})")
    typer.echo(f"{AUTO:12} the first installed engine above that takes the puzzle")
    if native.installed("numba"):
        typer.echo(f"compiled kernels: {native.describe()}")


@app.command("compile", cls=opt.HelpCommand)
def compile_command() -> None:
    """Build the compiled engines ahead of time (numba's pycc, about a minute, once per install), so
    that a run starts without importing numba: about 0.3 s sooner; byte-compile cpsolve's modules
    (an editable install under PYTHONDONTWRITEBYTECODE has none: 0.1 s sooner); and install the
    studio page's three.js with npm (`npm ci`, the version pinned in its lockfile), where npm is
    found."""
    from cpsolve import native
    from cpsolve.errors import CpsolveError
    from cpsolve.kernels import byte_compile_modules, load_every_kernel
    from cpsolve.studio import assets

    try:
        folder = assets.install(say=lambda text: typer.echo(f"cpsolve compile: {text}", err=True))
        typer.echo(f"{folder}: three.js for the studio's page")
    except CpsolveError as error:  # the studio's editor needs it; the solver does not
        typer.echo(printable(f"cpsolve compile: {error}"), err=True)

    try:
        report = native.compile_kernels(
            load_every_kernel, say=lambda text: typer.echo(f"cpsolve compile: {text}", err=True)
        )
    except CpsolveError as error:
        raise fail(error) from None
    done = "already built" if report.already else f"built in {report.seconds:.0f} s"
    typer.echo(f"{report.path}: {report.variants} compiled kernels, {done}")
    folders, complete = byte_compile_modules()
    where = ", ".join(map(str, folders))
    typer.echo(
        f"{where}: cpsolve's modules byte-compiled" + ("" if complete else " (not every one: a folder is not writable)")
    )


@app.command("bench", cls=opt.HelpCommand)
def bench_command(
    context: typer.Context,
    paths: Annotated[
        list[Path] | None,
        typer.Argument(metavar="PATH", help="specs or directories of specs [default: puzzle_specs/]"),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON object on stdout")] = False,
    slow: Annotated[bool, typer.Option("--slow", help="include specs marked slow: true")] = False,
    time_limit: Annotated[
        float,
        typer.Option("--time-limit", min=0.0, max=MOST_SECONDS, help="seconds for each find-one (--first) benchmark"),
    ] = DEFAULT_FIND_ONE_SECONDS,
    count_time_limit: Annotated[
        float,
        typer.Option(
            "--count-time-limit",
            min=0.0,
            max=MOST_SECONDS,
            help="seconds for each engine's count; one stopped by it is not compared while another engine's"
            " count is complete (0: no limit)",
        ),
    ] = DEFAULT_COUNT_SECONDS,
    workers: opt.Workers = 0,
    engine: Annotated[
        str | None, typer.Option("--engine", help="only this engine (default: every engine that takes a puzzle)")
    ] = None,
    with_peers: Annotated[
        bool,
        typer.Option(
            "--peers", help="also run BurrTools' burrTxt and yass where built (../shared/peers/build.sh) and can"
        ),
    ] = False,
    count_only: Annotated[
        bool,
        typer.Option(
            "--count-only",
            help="also count each packing the frontier counter takes without listing, its time beside listing's",
        ),
    ] = False,
) -> None:
    """Run each puzzle with every engine that can take it; compare counts and times.

    With --peers, the peer programs run each puzzle they can express too, with their time and
    how many times faster cpsolve's fastest engine was; totals per peer at the end.
    Exit code 1 when any count differs between engines, from `expected` or from yass, or a check
    fails; 2 when a file was refused (it is reported on its row, and the other files still run).
    """
    from cpsolve import engines
    from cpsolve.bench import BenchOptions, bench
    from cpsolve.errors import CpsolveError
    from cpsolve.output import BenchPrinter

    targets = paths or [Path("puzzle_specs")]
    if engine is not None:
        engines.DEFAULT.check_requested(engine)
    options = BenchOptions(
        first_time_limit=time_limit,
        count_time_limit=count_time_limit or None,
        include_slow=slow,
        workers=workers,
        engine=None if engine in (None, engines.AUTO) else engine,
        peers=with_peers,
        count_only=count_only,
    )
    printer = None if as_json else BenchPrinter(with_peers, count_only)
    whole_process = isinstance(context.obj, dict) and bool(context.obj.get(WHOLE_PROCESS))
    try:
        engines.DEFAULT.load_installed()  # so that no engine's first row pays for importing its libraries
        if whole_process:  # as for run: the libraries loaded stay (each puzzle's model is let go)
            gc.freeze()
        rows = bench(targets, options, on_row=printer)
    except CpsolveError as error:
        raise fail(error) from None
    if as_json:
        typer.echo(json.dumps({"rows": [row.as_json() for row in rows], "ok": all(not r.problems for r in rows)}))
    elif printer is not None:
        printer.finish()
    if any(row.refused for row in rows):
        raise typer.Exit(code=EXIT_BAD_INPUT)
    if any(row.problems for row in rows):
        raise typer.Exit(code=EXIT_MISMATCH)


@app.command("batch", cls=opt.HelpCommand)
def batch_command(
    context: typer.Context,
    paths: Annotated[
        list[str], typer.Argument(metavar="PATH", help="puzzle files, folders (searched in depth) or glob patterns")
    ],
    out: Annotated[Path, typer.Option("--out", help="the results: one JSON line per puzzle, appended")],
    processes: Annotated[
        int, typer.Option("--processes", min=0, metavar="N", help="local processes; 0: one per core")
    ] = 0,
    time_limit: opt.TimeLimit = None,
    engine: opt.Engine = AUTO,
    max_file_size: opt.MaxFileSize = DEFAULT_MAX_FILE_MB,
    cluster: opt.Cluster = None,
    slow: Annotated[
        bool, typer.Option("--slow", help="run specs marked slow: true too (else: a skipped line)")
    ] = False,
    disassemble: opt.Disassemble = False,
    max_positions: opt.MaxPositions = DEFAULT_MAX_DISASSEMBLY_POSITIONS,
) -> None:
    """Run many puzzles: one JSON line each in --out (the --json fields, the file, its SHA-256 and a
    status), a progress bar, a summary. Puzzles already in --out with the same content are skipped,
    so a batch that was stopped resumes. As bench does, a spec without expected counts that its
    format marks as find-one (a planted board) runs to its first solution (within --time-limit,
    default 60 s), and a spec marked slow gets a `skipped` line unless --slow. Exit code 2 when a
    file was refused (its line says why), 1 when a count or self-check failed, 130 when interrupted."""
    from cpsolve import formats
    from cpsolve.batch import BatchOptions, Status, done_files, earlier_statuses, pending, results_file, run_batch
    from cpsolve.errors import CpsolveError
    from cpsolve.files import refuse_inputs
    from cpsolve.options import Options
    from cpsolve.output import batch_progress

    try:
        values = {name: value for name, value in context.params.items() if name in Options.model_fields}
        settings = Options.of({**values, "show": 0, "workers": 1})  # one process per puzzle, many puzzles at once
        files = formats.puzzle_files(paths)
        for special in formats.passed_over(paths):
            typer.echo(f"note: {special}: passed over: not a regular file (a FIFO, socket or device)", err=True)
        refuse_inputs(out, files, "--out")
        results = results_file(out)
        done = done_files(results, disassemble)
    except CpsolveError as error:
        raise fail(error) from None
    run_options = dataclasses.replace(settings.run_options(), cluster=None)  # the batch's cluster runs files
    options = BatchOptions(run=run_options, processes=processes, cluster=cluster, include_slow=slow)
    todo = pending(files, done)
    earlier = earlier_statuses(results, [path for path in files if path not in todo])
    try:
        with results, batch_progress(len(todo), enabled=True) as on_file:
            summary = run_batch(todo, results, options, on_file, skipped=len(files) - len(todo))
            summary.earlier = earlier
    except CpsolveError as error:  # the cluster cannot be reached, the results cannot be written
        raise fail(error) from None
    typer.echo(summary.text())
    if summary.interrupted:
        raise typer.Exit(code=EXIT_INTERRUPTED)
    if summary.ended(Status.REFUSED):
        raise typer.Exit(code=EXIT_BAD_INPUT)
    if summary.ended(Status.FAILED):
        raise typer.Exit(code=EXIT_MISMATCH)


app.add_typer(census_app, name="census")
app.command("design", cls=opt.HelpCommand)(design_command)
app.command("studio", cls=opt.HelpCommand)(studio_command)

generate_app = typer.Typer(help="Write puzzle specs with a planted solution.", no_args_is_help=True)
app.add_typer(generate_app, name="generate")


@generate_app.command("tiles", cls=opt.HelpCommand)
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
    from cpsolve.errors import CpsolveError
    from cpsolve.generate import TileBoardRequest, parse_board, tiles_spec_text

    try:
        columns, rows = parse_board(board)
        _give_spec(tiles_spec_text(TileBoardRequest(columns, rows, labels, border, frame_labels, match, seed)), output)
    except CpsolveError as error:
        raise fail(error) from None


def _give_spec(text: str, output: Path | None) -> None:
    """A generated spec on stdout, or written to `output`."""
    from cpsolve.files import write_file

    if output is None:
        typer.echo(text, nl=False)
    else:
        write_file(output, text.encode("utf-8"), "the spec")


@generate_app.command("packing", cls=opt.HelpCommand)
def generate_packing_command(
    box: Annotated[str, typer.Option("--box", help="x by y by z, e.g. 9x9x9")],
    pieces: Annotated[int, typer.Option("--pieces", min=1, help="how many pieces the filled cells are cut into")],
    shell: Annotated[
        int,
        typer.Option(
            "--shell",
            min=0,
            help="cells this close to a face must be filled, the inside may not (0: all); a flat box's faces"
            " are its sides",
        ),
    ] = 0,
    inside: Annotated[int, typer.Option("--inside", min=0, help="inside cells the planted pieces fill")] = 0,
    colours: Annotated[
        int, typer.Option("--colours", min=0, help="colour the shell's faces with this many colours")
    ] = 0,
    seed: Annotated[int, typer.Option("--seed")] = 1,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="write here instead of stdout")] = None,
) -> None:
    """A packing design: a box cut into random pieces, its shell filled and its inside free."""
    from cpsolve.errors import CpsolveError
    from cpsolve.generate import PackingRequest, packing_spec_text, parse_box

    try:
        _give_spec(packing_spec_text(PackingRequest(parse_box(box), pieces, shell, inside, colours, seed)), output)
    except CpsolveError as error:
        raise fail(error) from None


@app.command("convert", cls=opt.HelpCommand)
def convert_command(
    source: Annotated[Path, typer.Argument(help="any file cpsolve reads")],
    target: Annotated[Path, typer.Argument(help="a .xmpuzzle (BurrTools) or .yaml file to write")],
    problem: Annotated[str | None, typer.Option("--problem", help="which problem of a BurrTools file")] = None,
) -> None:
    """Convert a puzzle between a YAML spec and a BurrTools .xmpuzzle file (packings on any of
    BurrTools' grids); a round trip keeps the spec's name, description, expected counts and box."""
    from cpsolve.convert import convert
    from cpsolve.errors import CpsolveError

    try:
        typer.echo(convert(source, target, problem))
    except CpsolveError as error:
        raise fail(error) from None


@app.command("schema", cls=opt.HelpCommand)
def schema_command() -> None:
    """Print the JSON Schema of the spec format."""
    from cpsolve.models import FAMILIES

    typer.echo(json.dumps(FAMILIES.schema(), indent=2))


def command_line(args: Sequence[str]) -> TyperGroup:
    """The command group the program runs for these arguments. typer builds each command's options
    from its function's signature when the group is made (13 ms for all ten, 6 for `run` alone, in
    one process), so when the first argument names a command, the group is made with that command
    alone: its options, help and errors are the same, and only a name that is not a command (or
    none, or an option) needs them all."""
    wanted = args[0] if args else None
    commands = [info for info in app.registered_commands if info.name == wanted]
    groups = [info for info in app.registered_groups if info.name == wanted]
    if not commands and not groups:
        return typer.main.get_group(app)
    alone = copy.copy(app)
    alone.registered_commands, alone.registered_groups = commands, groups
    return typer.main.get_group(alone)
