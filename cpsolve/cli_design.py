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
from typing import Annotated, Any

import typer

from cpsolve import cli_options as opt
from cpsolve.cli_options import fail
from cpsolve.errors import EXIT_INTERRUPTED, CpsolveError

census_app = typer.Typer(help="Count whole families of puzzles at once.", no_args_is_help=True)
PROGRESS_EVERY_SECONDS = 1.0


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


@census_app.command("chains", cls=opt.HelpCommand)
@opt.with_request("workers", "cluster", "checkpoint", "time_limit", workers=1)
def census_chains_command(
    box: Annotated[str, typer.Option("--box", help="x by y by z, every side at least 2, at most 64 cells")] = "3x3x3",
    out: Annotated[
        Path | None, typer.Option("--out", metavar="FILE", help="one JSON line per chain: its joints and counts")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the summary as one JSON object")] = False,
    **values: Any,
) -> None:
    """Every chain of straight and corner cubes that folds into the box, each with the three counts
    `cpsolve run` gives it (a chain and its reverse are one chain)."""
    from cpsolve.census.chains import census
    from cpsolve.files import refuse_collisions, write_file
    from cpsolve.generate import parse_box
    from cpsolve.limits import Deadline
    from cpsolve.workers import cores

    checked = opt.checked_options(values)
    checkpoint = checked.checkpoint
    try:
        size = parse_box(box)
        refuse_collisions([], [("--out", out), ("--checkpoint", checkpoint)], None)
        deadline = Deadline.after(checked.time_limit)
        with progress_line(not as_json) as say:
            on_part = None if say is None else _part_progress(say, box)
            report = census(
                size,
                workers=checked.workers or cores(),
                cluster=checked.cluster,
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
    from cpsolve.engines.base import stop_words

    lines = [f"census of chains in {summary['box']}:"]
    if not summary["complete"]:
        lines.append(
            f"  {stop_words(str(summary['stopped_by']))} after {summary['parts_done']} of {summary['parts']} parts"
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


# the design search's own options
DesignsFolder = Annotated[Path, typer.Option("--out", metavar="DIR", help="the folder the designs are written to")]
Pieces = Annotated[int, typer.Option("--pieces", metavar="N", help="how many pieces")]
Sizes = Annotated[str, typer.Option("--sizes", metavar="MIN-MAX", help="cells per piece, e.g. 8-14")]
TargetBox = Annotated[str | None, typer.Option("--box", help="the target: a box, x by y by z, e.g. 4x4x4")]
TargetSpec = Annotated[
    Path | None, typer.Option("--target", metavar="SPEC", help="the target: that of a packing spec's")
]
Goal = Annotated[
    str, typer.Option("--goal", help="unique: one assembly that comes apart; level: also --level moves or more")
]
Level = Annotated[
    int, typer.Option("--level", metavar="L", help="--goal level: moves to take out the first piece, at least")
]
Holes = Annotated[
    int,
    typer.Option("--holes", metavar="N", min=0, help="inside cells left empty (room to move: a filled box is level 1)"),
]
Designs = Annotated[int, typer.Option("--designs", metavar="N", min=0, help="stop after N new designs (0: no limit)")]
Seed = Annotated[int, typer.Option("--seed", help="the same seed and workers look at the same candidates")]
Candidates = Annotated[
    int | None,
    typer.Option(
        "--candidates", metavar="N", min=1, help="each worker checks N candidates at most (reproducible, unlike a time)"
    ),
]


@opt.with_request("time_limit", "workers", "cluster", workers=1)
def design_command(
    out: DesignsFolder,
    pieces: Pieces,
    sizes: Sizes,
    box: TargetBox = None,
    target: TargetSpec = None,
    goal: Goal = "unique",
    level: Level = 2,
    holes: Holes = 0,
    designs: Designs = 10,
    seed: Seed = 1,
    candidates: Candidates = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the summary as one JSON object")] = False,
    **values: Any,
) -> None:
    """Search for packing puzzles worth making: cuts of a target into pieces whose puzzle has exactly
    one assembly, which comes apart (--goal unique), taking --level moves or more to free the first
    piece (--goal level, highest first). Each design is written into DIR as a BurrTools file with its
    page, listed in DIR/designs.jsonl; a later run with the same DIR adds to them."""
    from cpsolve.design import DesignRequest, design
    from cpsolve.limits import Deadline
    from cpsolve.workers import cores

    checked = opt.checked_options(values)
    try:
        request = DesignRequest(_design_target(box, target), pieces, *_sizes(sizes), goal, level, seed, holes)
        with progress_line(not as_json) as say:
            report = design(
                request,
                out,
                most_designs=designs or None,
                workers=checked.workers or cores(),
                cluster=checked.cluster,
                deadline=Deadline.after(checked.time_limit),
                candidates=candidates,
                progress=None if say is None else _design_progress(say),
            )
    except CpsolveError as error:
        raise fail(error) from None
    summary = report.summary()
    if as_json:
        typer.echo(json.dumps(summary))
    else:
        typer.echo(design_text(summary, report.written, out, level, report.below_level))
    if report.stopped_by == "interrupted":
        raise typer.Exit(code=EXIT_INTERRUPTED)


def design_text(
    summary: dict[str, Any], written: list[dict[str, Any]], out: Path, level: int, below_level: bool
) -> str:
    """The summary as a few lines of text, a line per design written."""
    from cpsolve.design import DESIGN_STOPS

    lines = [
        f"{summary['designs']} new designs in {out} ({summary['held']} there in all),"
        f" {DESIGN_STOPS.get(summary['stopped_by'], summary['stopped_by'])}",
        f"  candidates checked: {summary['checked']:,} in {summary['seconds']} s ({summary['per_second']} a second)",
        f"  writing the designs (each confirmed by a whole run, with its page): {summary['writing_seconds']} s"
        + (f"; the search alone {summary['searching_per_second']} a second" if summary["searching_per_second"] else ""),
        f"  best level: {summary['best_level'] or 'none yet'}",
    ]
    lines += [f"  {record['file']}: level {record['level']}, {record['moves']} moves" for record in written]
    if below_level:
        lines.append(
            f"  no design reached --level {level} within the limit; the best that comes apart is kept:"
            f" {written[-1]['file']}"
        )
    return "\n".join(lines)


def _design_progress(say: Callable[[str], None]) -> Callable[[int, float, str, int], None]:
    def show(checked: int, seconds: float, best: str, written: int) -> None:
        rate = checked / seconds if seconds > 0 else 0.0
        say(f"design: {checked:,} candidates ({rate:.0f}/s), best level {best or '-'}, {written} designs written")

    return show


def _sizes(text: str) -> tuple[int, int]:
    import re

    found = re.fullmatch(r"\s*([0-9]{1,4})\s*(?:-\s*([0-9]{1,4}))?\s*", text)
    if found is None:
        raise CpsolveError(f"--sizes must look like 8-14 (or 10 for one size), not {text[:20]!r}")
    smallest = int(found.group(1))
    return smallest, int(found.group(2) or smallest)


def _design_target(box: str | None, target: Path | None) -> tuple[tuple[int, int, int], ...]:
    """The target's cells: a box, or the target of a packing spec (its filled cells)."""
    from cpsolve.generate import parse_box

    if (box is None) == (target is None):
        raise CpsolveError("give the target as --box (e.g. 4x4x4) or --target SPEC, one of them")
    if box is not None:
        a, b, c = parse_box(box)
        if a * b * c > 1000:
            raise CpsolveError(f"--box {box}: a design search takes targets of up to 1,000 cells")
        return tuple((x, y, z) for z in range(c) for y in range(b) for x in range(a))
    from cpsolve import formats
    from cpsolve.models.packing import shape_cells
    from cpsolve.spec import PackingSpec

    assert target is not None
    loaded = formats.read_puzzle(target).loaded  # its pieces are not looked at: only the target is wanted
    spec = loaded.spec
    if not isinstance(spec, PackingSpec) or spec.grid != "cube":
        raise CpsolveError(f"{target}: not a packing of cubes; --target takes the target of one")
    optional = {(int(c[0]), int(c[1]), int(c[2]) if len(c) > 2 else 0) for c in spec.target.optional}
    return tuple(sorted(set(shape_cells(spec.target, ("target",), loaded.source)) - optional))
