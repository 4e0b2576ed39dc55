"""The commands that run many puzzles: `bench` (every engine on every puzzle, beside the peers)
and `batch` (many files, one JSON line each, resumable). Thin over cpsolve.bench and
cpsolve.batch: they parse, call them, print."""

from __future__ import annotations

import dataclasses
import gc
import json
from pathlib import Path
from typing import Annotated, Any

import typer

from cpsolve import cli_options as opt
from cpsolve.cli_options import fail, whole_process
from cpsolve.errors import EXIT_BAD_INPUT, EXIT_INTERRUPTED, EXIT_MISMATCH
from cpsolve.limits import DEFAULT_COUNT_SECONDS, DEFAULT_FIND_ONE_SECONDS, MOST_SECONDS

# bench's own options (its --time-limit is each find-one benchmark's, not a run's)
Paths = Annotated[
    list[Path] | None, typer.Argument(metavar="PATH", help="specs or directories of specs [default: puzzle_specs/]")
]
FindOneSeconds = Annotated[
    float,
    typer.Option("--time-limit", min=0.0, max=MOST_SECONDS, help="seconds for each find-one (--first) benchmark"),
]
CountSeconds = Annotated[
    float,
    typer.Option(
        "--count-time-limit",
        min=0.0,
        max=MOST_SECONDS,
        help="seconds for each engine's count; one stopped by it is not compared while another engine's"
        " count is complete (0: no limit)",
    ),
]
OnlyEngine = Annotated[
    str | None, typer.Option("--engine", help="only this engine (default: every engine that takes a puzzle)")
]
WithPeers = Annotated[
    bool, typer.Option("--peers", help="also run BurrTools' burrTxt and yass where built (../shared/peers/build.sh)")
]
AlsoCounted = Annotated[
    bool,
    typer.Option(
        "--count-only",
        help="also count each packing the frontier counter takes without listing, its time beside listing's",
    ),
]


@opt.with_request("workers")
def bench_command(
    context: typer.Context,
    paths: Paths = None,
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON object on stdout")] = False,
    slow: Annotated[bool, typer.Option("--slow", help="include specs marked slow: true")] = False,
    time_limit: FindOneSeconds = DEFAULT_FIND_ONE_SECONDS,
    count_time_limit: CountSeconds = DEFAULT_COUNT_SECONDS,
    engine: OnlyEngine = None,
    with_peers: WithPeers = False,
    count_only: AlsoCounted = False,
    **values: Any,
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

    workers = opt.checked_options(values).workers
    printer = None if as_json else BenchPrinter(with_peers, count_only)
    try:
        if engine is not None:
            engines.DEFAULT.check_requested(engine)
        chosen = None if engine in (None, engines.AUTO) else engine
        options = BenchOptions(
            first_time_limit=time_limit,
            count_time_limit=count_time_limit or None,
            include_slow=slow,
            workers=workers,
            engine=chosen,
            peers=with_peers,
            count_only=count_only,
        )
        engines.DEFAULT.load_installed()  # so that no engine's first row pays for importing its libraries
        if whole_process(context):  # as for run: the libraries loaded stay (each puzzle's model is let go)
            gc.freeze()
        rows = bench(paths or [Path("puzzle_specs")], options, on_row=printer)
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


@opt.with_request("time_limit", "engine", "max_file_size", "cluster", "disassemble", "max_positions")
def batch_command(
    paths: Annotated[
        list[str], typer.Argument(metavar="PATH", help="puzzle files, folders (searched in depth) or glob patterns")
    ],
    out: Annotated[Path, typer.Option("--out", help="the results: one JSON line per puzzle, appended")],
    processes: Annotated[
        int, typer.Option("--processes", min=0, metavar="N", help="local processes; 0: one per core")
    ] = 0,
    slow: Annotated[
        bool, typer.Option("--slow", help="run specs marked slow: true too (else: a skipped line)")
    ] = False,
    **values: Any,
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
        settings: Options = Options.of({**values, "show": 0, "workers": 1})  # one process per puzzle, many at once
        files = formats.puzzle_files(paths)
        for special in formats.passed_over(paths):
            typer.echo(f"note: {special}: passed over: not a regular file (a FIFO, socket or device)", err=True)
        refuse_inputs(out, files, "--out")
        results = results_file(out)
        done = done_files(results, settings.disassemble)
    except CpsolveError as error:
        raise fail(error) from None
    run_options = dataclasses.replace(settings.run_options(), cluster=None)  # the batch's cluster runs files
    options = BatchOptions(run=run_options, processes=processes, cluster=settings.cluster, include_slow=slow)
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
