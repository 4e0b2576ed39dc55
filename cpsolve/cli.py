"""The `cpsolve` command: parses arguments, starts jobs, prints. No puzzle logic here.

Each command imports the library when it runs, so that `cpsolve --help` imports only typer, and a
run imports only the engine it uses (the engines import their solvers when loaded). The run's
options and outputs are the run request's fields (cpsolve.options), made into options by
cpsolve.cli_options; what a run writes once it is done is its outcome's (cpsolve.outcome).
"""

from __future__ import annotations

import contextlib
import copy
import functools
import gc
import json
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
import typer.main
from typer.core import TyperGroup

from cpsolve import cli_options as opt
from cpsolve.cli_batch import batch_command, bench_command
from cpsolve.cli_design import census_app, design_command
from cpsolve.cli_files import convert_command, generate_app, schema_command, validate_command
from cpsolve.cli_options import WHOLE_PROCESS, fail, whole_process
from cpsolve.cli_studio import studio_command
from cpsolve.errors import EXIT_BAD_INPUT, EXIT_INTERRUPTED, EXIT_MISMATCH, EXIT_TERMINATED, printable

if TYPE_CHECKING:
    from cpsolve.events import JobEvent
    from cpsolve.formats import Puzzle
    from cpsolve.options import RunOptions, RunRequest
    from cpsolve.outcome import Kept
    from cpsolve.report import RunReport
    from cpsolve.run import SolutionHook

__all__ = ["WHOLE_PROCESS", "app", "command_line", "not_a_command"]

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


@app.command("run", cls=opt.HelpCommand)
@opt.with_request()
def run_command(
    context: typer.Context,
    puzzle: Annotated[
        Path,
        typer.Argument(
            metavar="PUZZLE", help="a YAML spec, a yass .soma figure, a c't 9-piece .txt or a BurrTools .xmpuzzle"
        ),
    ],
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON object per problem on stdout")] = False,
    **values: Any,
) -> None:
    """Solve a puzzle and print the raw, rotations and unique counts (every problem of a file
    that holds several, or the one --problem names)."""
    # As the whole `cpsolve` process (not inside a test or a notebook), what is loaded lives as
    # long as the process: gc.freeze() keeps it out of the collector's passes, once after the
    # library is imported and once after the first engine is loaded. Freezing only before the
    # engine's libraries are imported makes the collector walk them again and again (the Soma
    # cube's `seconds` 0.035 -> 0.073 in one measurement each way); freezing again for every
    # problem of a file would keep each problem's model for good.
    from cpsolve import formats, outcome
    from cpsolve.errors import CpsolveError
    from cpsolve.options import RunRequest

    whole = whole_process(context)
    freeze = _once(gc.freeze) if whole else None
    if whole:
        gc.freeze()
    try:
        request = RunRequest.split(values)
        outcome.check_request([puzzle], request.outputs, request.options.checkpoint)
        options = request.options.run_options()
        found = formats.read_puzzles(puzzle, formats.ReadOptions(options.max_file_bytes, options.problem))
        outcome.check_problems(request.outputs, len(found), puzzle)
    except CpsolveError as error:
        raise fail(error) from None
    codes: list[int] = []
    for each in found:
        codes.append(_run_one(each, request, options, as_json, freeze, appending=bool(codes)))
        if codes[-1] in (EXIT_INTERRUPTED, EXIT_TERMINATED):
            break
    worst = max(codes, key=lambda code: (code in (EXIT_INTERRUPTED, EXIT_TERMINATED), code))
    if worst:
        raise typer.Exit(code=worst)


def _run_one(
    puzzle: Puzzle,
    request: RunRequest,
    options: RunOptions,
    as_json: bool,
    freeze: Callable[[], None] | None,
    appending: bool,
) -> int:
    """One problem: run, write what was asked for, print the report; the exit code it calls for."""
    from cpsolve.errors import CpsolveError
    from cpsolve.jobs import signalled_stop
    from cpsolve.outcome import Kept, check_meshable

    outputs = request.outputs
    kept = Kept(outputs, options.show)
    try:
        puzzle.loaded  # noqa: B018  (the spec is checked before any output is opened)
        check_meshable(outputs, puzzle, options.build)
        job, report = _follow(puzzle, request, options, kept, as_json, freeze, appending)
        done = kept.outcome(report, puzzle.loaded)
        number = kept.number if kept.chosen else None
        for said in done.write(outputs, number, _left(options.search.time_limit, report)):
            typer.echo(said, err=True)
    except CpsolveError as error:
        typer.echo(printable(str(error), keep="\n"), err=True)
        return EXIT_BAD_INPUT
    return _printed(report, as_json, signalled_stop(job, report))


def _follow(
    puzzle: Puzzle,
    request: RunRequest,
    options: RunOptions,
    kept: Kept,
    as_json: bool,
    freeze: Callable[[], None] | None,
    appending: bool,
) -> tuple[Any, RunReport]:
    """Start the job and follow it to its report: the progress line, the solutions file and what
    the outputs keep, each new class as it comes."""
    from cpsolve.events import NewClass, Progress
    from cpsolve.jobs import follow, start_loaded
    from cpsolve.output import progress, solution_writer

    path = request.outputs.solutions
    with (
        solution_writer(path, Path(puzzle.name), append=appending, problem=puzzle.problem) as write,
        progress(enabled=not as_json) as on_progress,
    ):
        hooks: list[SolutionHook] = [write, kept] if write is not None else [kept]

        def handle(event: JobEvent) -> None:
            if isinstance(event, NewClass):
                for hook in hooks:
                    hook(event.solution, event.model, event.details)
            elif isinstance(event, Progress) and on_progress is not None:
                on_progress(event)

        job = start_loaded(puzzle, options, class_events=kept.class_events(write is not None), on_ready=freeze)
        return job, follow(job, handle)


def _left(time_limit: float | None, report: RunReport) -> Any:
    """What the run left of its time limit for the outputs (the pieces' meshes)."""
    from cpsolve.limits import Deadline

    return Deadline.after(None if time_limit is None else max(0.0, time_limit - report.seconds))


def _printed(report: RunReport, as_json: bool, stopped: Any) -> int:
    """Print the report (text or JSON); the exit code: 130 or 143 where a signal stopped the run,
    1 where a count or check failed, 2 where the report could not be printed."""
    from cpsolve.engines import StopReason
    from cpsolve.output import format_report

    text = json.dumps(report.as_json()) if as_json else printable(format_report(report), keep="\n")
    if not write_stdout(text):
        # the counts exist but did not reach the user: 1 when they were complete, else 2
        return EXIT_MISMATCH if report.complete else EXIT_BAD_INPUT
    if stopped is StopReason.INTERRUPTED:
        return EXIT_INTERRUPTED
    if stopped is StopReason.TERMINATED:
        return EXIT_TERMINATED
    return 0 if report.ok else EXIT_MISMATCH


def _once(action: Callable[[], None]) -> Callable[[], None]:
    """`action` the first time, nothing after."""
    done: list[bool] = []

    def call() -> None:
        if not done:
            done.append(True)
            action()

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


@app.command("engines", cls=opt.HelpCommand)
def engines_command() -> None:
    """List the engines: what each takes, and whether it is installed."""
    from cpsolve import engines, native

    for engine in engines.DEFAULT:
        state = "installed" if engine.installed() else f'not installed: pip install "cpsolve[{engine.extra}]"'
        typer.echo(f"{engine.name:12} {engine.takes_what} ({state})")
    typer.echo(f"{engines.AUTO:12} the first installed engine above that takes the puzzle")
    if native.installed("numba"):
        typer.echo(f"compiled kernels: {native.describe()}")


@app.command("compile", cls=opt.HelpCommand)
def compile_command() -> None:
    """Build the compiled engines ahead of time (numba's pycc: 3 to 5 minutes, once per install), so
    that a run starts without importing numba: about 0.3 s sooner; byte-compile cpsolve's modules
    (an editable install under PYTHONDONTWRITEBYTECODE has none: 0.1 s sooner); and install the
    studio page's three.js with npm (`npm ci`, the version pinned in its lockfile), where npm is
    found. It says what it is doing as it goes."""
    from cpsolve import native
    from cpsolve.errors import CpsolveError
    from cpsolve.kernels import byte_compile_modules, load_every_kernel
    from cpsolve.pictures import three

    def say(text: str) -> None:
        typer.echo(f"cpsolve compile: {text}", err=True)

    try:
        folder = three.install(say=say)
        typer.echo(f"{folder}: three.js for the 3-D pages (the studio's and --html's)")
    except CpsolveError as error:  # the studio's editor needs it; the solver does not
        typer.echo(printable(f"cpsolve compile: {error}"), err=True)
    try:
        with _ticking(say, "still building"):
            report = native.compile_kernels(functools.partial(load_every_kernel, say=say), say=say)
    except CpsolveError as error:
        raise fail(error) from None
    done = "already built" if report.already else f"built in {report.seconds:.0f} s"
    typer.echo(f"{report.path}: {report.variants} compiled kernels, {done}")
    folders, complete = byte_compile_modules()
    where = ", ".join(map(str, folders))
    typer.echo(
        f"{where}: cpsolve's modules byte-compiled" + ("" if complete else " (not every one: a folder is not writable)")
    )


@contextlib.contextmanager
def _ticking(say: Callable[[str], None], doing: str, every: float = 30.0) -> Iterator[None]:
    """Say `doing` and the seconds so far every `every` seconds while the block runs (a build whose
    one step, the C compiler's, says nothing for minutes)."""
    done = threading.Event()
    started = time.perf_counter()

    def tick() -> None:
        while not done.wait(every):
            say(f"{doing}: {time.perf_counter() - started:.0f} s so far")

    ticker = threading.Thread(target=tick, name="cpsolve compile ticker", daemon=True)
    ticker.start()
    try:
        yield
    finally:
        done.set()
        ticker.join()


app.command("validate", cls=opt.HelpCommand)(validate_command)
app.command("bench", cls=opt.HelpCommand)(bench_command)
app.command("batch", cls=opt.HelpCommand)(batch_command)
app.add_typer(census_app, name="census")
app.command("design", cls=opt.HelpCommand)(design_command)
app.command("studio", cls=opt.HelpCommand)(studio_command)
app.add_typer(generate_app, name="generate")
app.command("convert", cls=opt.HelpCommand)(convert_command)
app.command("schema", cls=opt.HelpCommand)(schema_command)


def command_line(args: Sequence[str]) -> TyperGroup:
    """The command group the program runs for these arguments. typer builds each command's options
    from its function's signature when the group is made (13 ms for all ten, 6 for `run` alone, in
    one process), so when the first argument names a command, the group is made with that command
    alone: its options, help and errors are the same. A name that is not a command (or none, or an
    option) gets the listing of every command, with their names and help but not their options:
    those of the run request (cpsolve.cli_options) would import the models for a list of names."""
    wanted = args[0] if args else None
    commands = [info for info in app.registered_commands if info.name == wanted]
    groups = [info for info in app.registered_groups if info.name == wanted]
    if commands or groups:
        alone = copy.copy(app)
        alone.registered_commands, alone.registered_groups = commands, groups
        return typer.main.get_group(alone)
    return typer.main.get_group(_listing(app))


def _listing(commands: typer.Typer) -> typer.Typer:
    """A copy of a command group (and of the groups in it) whose commands are as the listing shows
    them: name and help, none of the run request's options."""
    listing = copy.copy(commands)
    listing.registered_commands = [_listed(info) for info in commands.registered_commands]
    listing.registered_groups = []
    for group in commands.registered_groups:
        listed = copy.copy(group)
        if group.typer_instance is not None:
            listed.typer_instance = _listing(group.typer_instance)
        listing.registered_groups.append(listed)
    return listing


def _listed(info: Any) -> Any:
    """A command's entry as the listing shows it (typer's CommandInfo)."""
    if not isinstance(info.callback, opt.WithRequest):
        return info
    listed = copy.copy(info)
    listed.callback = info.callback.listed()
    return listed
