"""The commands that look at whole families of puzzles: `cpsolve census` and `cpsolve design`.

Thin over cpsolve.census and cpsolve.design: they read the options, follow the work with a
progress line on a terminal, print the summary and write the results.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer

from cpsolve import cli_options as opt
from cpsolve.errors import EXIT_BAD_INPUT, EXIT_INTERRUPTED, CpsolveError, printable

census_app = typer.Typer(help="Count whole families of puzzles at once.", no_args_is_help=True)
PROGRESS_EVERY_SECONDS = 1.0


def fail(error: CpsolveError) -> typer.Exit:
    typer.echo(printable(str(error), keep="\n"), err=True)
    return typer.Exit(code=EXIT_BAD_INPUT)


@contextmanager
def progress_line(enabled: bool) -> Iterator[Callable[[str], None] | None]:
    """A progress line on stderr, rewritten at most once a second, cleared at the end (a terminal only)."""
    shown = [0.0, False]

    def say(text: str) -> None:
        now = time.monotonic()
        if now - shown[0] >= PROGRESS_EVERY_SECONDS:
            shown[0], shown[1] = now, True
            sys.stderr.write(f"\r\x1b[K{text}")
            sys.stderr.flush()

    try:
        yield say if enabled and sys.stderr.isatty() else None
    finally:
        if shown[1]:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


@census_app.command("chains")
def census_chains_command(
    box: Annotated[str, typer.Option("--box", help="x by y by z, every side at least 2, at most 64 cells")] = "3x3x3",
    out: Annotated[
        Path | None, typer.Option("--out", metavar="FILE", help="one JSON line per chain: its joints and counts")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the summary as one JSON object")] = False,
    workers: opt.Workers = 1,
    cluster: opt.Cluster = None,
    checkpoint: opt.Checkpoint = None,
    time_limit: opt.TimeLimit = None,
) -> None:
    """Every chain of straight and corner cubes that folds into the box, each with the three counts
    `cpsolve run` gives it (a chain and its reverse are one chain)."""
    from cpsolve.census.chains import census
    from cpsolve.files import refuse_collisions, write_file
    from cpsolve.generate import parse_box
    from cpsolve.limits import Deadline
    from cpsolve.workers import cores

    try:
        size = parse_box(box)
        refuse_collisions([], [("--out", out), ("--checkpoint", checkpoint)], None)
        deadline = Deadline.after(time_limit)
        with progress_line(not as_json) as say:
            on_part = None if say is None else _part_progress(say, box)
            report = census(
                size,
                workers=workers or cores(),
                cluster=cluster,
                checkpoint=checkpoint,
                deadline=deadline,
                progress=on_part,
            )
        if out is not None and report.complete:
            lines = (f"{json.dumps(chain.as_json())}\n".encode() for chain in report.chains())
            write_file(out, lines, "the census")
    except CpsolveError as error:
        raise fail(error) from None
    except KeyboardInterrupt:
        typer.echo("cpsolve census: interrupted; the parts recorded in --checkpoint are kept", err=True)
        raise typer.Exit(code=EXIT_INTERRUPTED) from None
    summary = report.summary()
    if as_json:
        typer.echo(json.dumps(summary))
    else:
        typer.echo(census_text(summary, out, checkpoint))
    if report.identity_problems:
        raise typer.Exit(code=1)


def _part_progress(say: Callable[[str], None], box: str) -> Callable[[int, int], None]:
    return lambda done, parts: say(f"census {box}: {done}/{parts} parts")


def census_text(summary: dict[str, object], out: Path | None, checkpoint: Path | None) -> str:
    """The summary as a few lines of text."""
    lines = [f"census of chains in {summary['box']}:"]
    if not summary["complete"]:
        lines.append(
            f"  stopped by {summary['stopped_by']} after {summary['parts_done']} of {summary['parts']} parts"
            + ("; run again with the same --checkpoint to go on" if checkpoint else "; --checkpoint FILE keeps them")
        )
        return "\n".join(lines)
    most = summary["most_solutions"]
    lines += [
        f"  chains: {summary['chains']:,}",
        f"  with one solution: {summary['one_solution']:,}",
    ]
    if isinstance(most, dict):
        lines.append(f"  most solutions: {most['counts']['unique']:,} ({most['joints']})")
    lines.append(f"  foldings (directed paths through the box): {summary['paths']:,}")
    lines.append(f"  counts checked (Burnside): {'ok' if summary['identity_ok'] else 'FAILED'}")
    lines.append(f"  time: {summary['seconds']} s" + (f"; written to {out}" if out else ""))
    return "\n".join(lines)
