"""The commands that read or write puzzle files without solving them: `validate`, `convert`,
`schema` and `generate`. Thin over the library: they parse, call it, print."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Annotated

import typer

from cpsolve import cli_options as opt
from cpsolve.cli_options import fail
from cpsolve.errors import EXIT_BAD_INPUT, printable


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


generate_app = typer.Typer(help="Write puzzle specs with a planted solution.", no_args_is_help=True)


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


def convert_command(
    source: Annotated[Path, typer.Argument(help="any file cpsolve reads")],
    target: Annotated[
        Path, typer.Argument(help="a .xmpuzzle (BurrTools), .yaml or .dlx (Knuth's exact-cover input) file to write")
    ],
    problem: Annotated[str | None, typer.Option("--problem", help="which problem of a BurrTools file")] = None,
) -> None:
    """Convert a puzzle between a YAML spec and a BurrTools .xmpuzzle file (packings on any of
    BurrTools' grids); a round trip keeps the spec's name, description, expected counts and box.
    A .dlx target gets a packing's exact cover as Knuth's programs read it (their count: raw)."""
    from cpsolve.convert import convert
    from cpsolve.errors import CpsolveError

    try:
        typer.echo(convert(source, target, problem))
    except CpsolveError as error:
        raise fail(error) from None


def schema_command() -> None:
    """Print the JSON Schema of the spec format."""
    from cpsolve.models import FAMILIES

    typer.echo(json.dumps(FAMILIES.schema(), indent=2))
