"""The command line's spelling of the run options (cpsolve.options.Options), declared once and
shared by `run`, `bench` and `batch`. Nothing is checked here beyond the type: the values go to
`Options`, whose refusals are the same one-line messages as the library's and the studio's."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

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
        help="processes, each solving disjoint parts with one engine thread;"
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
