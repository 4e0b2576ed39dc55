"""The command line's spelling of the run options (cpsolve.options.Options), declared once and
shared by `run`, `bench` and `batch`. Nothing is checked here beyond the type: the values go to
`Options`, whose refusals are the same one-line messages as the library's and the studio's."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperCommand

AUTO = "auto"
ENGINE_HELP = "cpsat, exact-cover, chain-dfs, tiles-dfs, frontier (with --count-only) or auto (`cpsolve engines`)"

First = Annotated[bool, typer.Option("--first", help="stop at the first solution (all cores)")]
TimeLimit = Annotated[
    float | None, typer.Option("--time-limit", metavar="SECONDS", help="seconds for the whole run [default: none]")
]
MaxSolutions = Annotated[
    int | None,
    typer.Option("--max-solutions", metavar="N", help="stop after N unique solutions (at least 1) [default: all]"),
]
Show = Annotated[
    int | None,
    typer.Option("--show", metavar="N", help="draw N unique solutions as text [default: 1; all for a c't .txt]"),
]
Guided = Annotated[bool, typer.Option(help="CP-SAT: branch on placements in target cell order")]
SymmetryBreaking = Annotated[
    bool, typer.Option(help="enumerate about one solution per class (off: every raw solution, for checking)")
]
Engine = Annotated[str, typer.Option("--engine", metavar="NAME", help=f"the engine: {ENGINE_HELP}")]
Workers = Annotated[
    int,
    typer.Option(
        "--workers",
        metavar="N",
        help="processes (or threads), each solving disjoint parts with one engine thread; a search"
        " estimated short begins on one and is shared once it proves long;"
        " 0: every core for a search big enough to gain from them, else 1",
    ),
]
Problem = Annotated[
    str | None,
    typer.Option(
        "--problem",
        metavar="N|NAME",
        help="which problem of a BurrTools file: a number from 0 or a name [default: all]",
    ),
]
Cluster = Annotated[
    str | None,
    typer.Option(
        "--cluster", metavar="ADDRESS", help="run the parts on a Dask scheduler (tcp://host:8786), or `local`"
    ),
]
Checkpoint = Annotated[
    Path | None,
    typer.Option("--checkpoint", metavar="FILE", help="record finished parts there; run again to resume"),
]
Disassemble = Annotated[
    bool,
    typer.Option(
        "--disassemble",
        help="take each unique assembly apart: how many come apart, their levels and plans;"
        " --first/--max-solutions then count assemblies that come apart",
    ),
]
MaxPositions = Annotated[
    int,
    typer.Option(
        "--max-positions", metavar="N", help="--disassemble: positions looked at per assembly before undecided"
    ),
]
MaxMemory = Annotated[
    int,
    typer.Option(
        "--max-memory",
        metavar="MB",
        help="MB the solutions kept for counting may take; the run stops there with what it counted",
    ),
]
CountOnly = Annotated[
    bool,
    typer.Option(
        "--count-only",
        help="count without listing: nothing kept or shown, the classes by Burnside's lemma"
        " (packings whose pieces repeat: on the frontier counter; others listed and tallied)",
    ),
]
CountOrder = Annotated[
    str,
    typer.Option(
        "--count-order", metavar="fill|reverse|across", help="--count-only on the frontier: the order of the cells"
    ),
]
MaxPlacements = Annotated[int, typer.Option("--max-placements", metavar="N", help="refuse models with more placements")]
MaxTerms = Annotated[int, typer.Option("--max-terms", metavar="N", help="refuse constraints with more literals in all")]
MaxFileSize = Annotated[
    float, typer.Option("--max-file-size", metavar="MB", help="refuse puzzle files larger than this many MB")
]


class HelpCommand(TyperCommand):
    """A command whose help names its arguments as a user types them: typer writes a required
    argument in braces in the usage line (`cpsolve run [OPTIONS] {PUZZLE}`) and puts its Python
    type beside it (`PATH <list[Path]>`); here the usage says `PUZZLE` or `[PATH]...` and the
    Arguments section gives each argument's name and help alone (typer's own sections otherwise)."""

    def collect_usage_pieces(self, ctx: Any) -> list[str]:  # click's Context, which typer keeps private
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if param.param_type_name == "argument":
                name = _argument_name(param)
                pieces.append(name if param.required else f"[{name[:-3]}]..." if name.endswith("...") else f"[{name}]")
        return pieces

    def format_options(self, ctx: Any, formatter: Any) -> None:
        arguments, options = [], []
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None:
                continue
            if param.param_type_name == "argument":
                arguments.append((_argument_name(param), _plain_ranges(record[1])))
            else:
                options.append((_plain_metavars(record[0]), _plain_ranges(record[1])))
        for title, rows in (("Arguments", arguments), ("Options", options)):
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)


# typer's names of Python types beside an option without a metavar of its own, as a user reads them
PLAIN_METAVARS = {
    "<int range>": "N",
    "<int>": "N",
    "<float range>": "NUMBER",
    "<float>": "NUMBER",
    "<str>": "TEXT",
    "<path>": "PATH",
}
UNBOUNDED = 1e9  # an upper bound this high is no bound a user needs to read


def _plain_metavars(names: str) -> str:
    for typed, plain in PLAIN_METAVARS.items():
        names = names.replace(typed, plain)
    return names


def _plain_ranges(help_text: str) -> str:
    """typer's `0.0<=x<=1000000000.0` and `x>=1` as `at least 0` and `at least 1`."""

    def number(text: str) -> str:
        return text.removesuffix(".0")

    def between(match: re.Match[str]) -> str:
        low, high = match.group(1), match.group(2)
        return f"at least {number(low)}" if float(high) >= UNBOUNDED else f"{number(low)} to {number(high)}"

    help_text = re.sub(r"(-?[0-9.]+)<=x<=(-?[0-9.]+)", between, help_text)
    help_text = re.sub(r"x>=(-?[0-9.]+)", lambda m: f"at least {number(m.group(1))}", help_text)
    return re.sub(r"x<=(-?[0-9.]+)", lambda m: f"at most {number(m.group(1))}", help_text)


def _argument_name(param: Any) -> str:
    """An argument as the help spells it: its metavar or upper-case name, `...` where it takes many."""
    name = str(param.metavar or (param.name or "").upper())
    return name + ("..." if param.nargs != 1 else "")
