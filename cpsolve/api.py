"""`cpsolve.solve()`: the library for notebooks and scripts. The command line runs the same code.

import cpsolve
result = cpsolve.solve("puzzle_specs/soma.yaml")
result.counts.unique          # 240
result.solutions[0]           # {"pieces": {...}}: as --solutions writes it
result                        # in Jupyter: the 3-D viewer of the page (--html)
"""

from __future__ import annotations

import dataclasses
import html
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cpsolve import formats
from cpsolve.counting import Counts
from cpsolve.engines import SearchOptions
from cpsolve.formats import Puzzle, ReadOptions
from cpsolve.limits import MAX_PICTURED
from cpsolve.pictures import page_html, scene, write_page
from cpsolve.run import ClassCollector, RunOptions, RunReport, run

SEARCH_OPTIONS = {"time_limit", "max_solutions", "first_only", "guided"}
RUN_OPTIONS = {f.name for f in dataclasses.fields(RunOptions)} - {"search", "build"}


@dataclass
class Result:
    """A solved puzzle: the report, the counts, the unique solutions found (up to `pictured`), and
    how to show them."""

    report: RunReport
    solutions: list[dict[str, Any]]
    scene: dict[str, Any] = field(repr=False)

    @property
    def counts(self) -> Counts:
        return self.report.counts

    def html(self) -> str:
        """The self-contained page (`cpsolve run --html`)."""
        return page_html(self.scene)

    def save_html(self, path: str | Path) -> None:
        write_page(self.scene, Path(path))

    def save_png(self, path: str | Path, number: int = 1) -> None:
        """A picture of solution `number` (from 1), as `cpsolve run --png`."""
        from cpsolve.pictures.png import write_png

        write_png(self.scene, Path(path), number - 1)

    def _repr_html_(self) -> str:
        """Jupyter shows the page in a frame of its own, so that its script and style stay in it."""
        return (
            f'<iframe srcdoc="{html.escape(self.html(), quote=True)}" style="width:100%;height:720px;border:0"'
            ' sandbox="allow-scripts"></iframe>'
        )


def solve(puzzle: str | Path | Mapping[str, Any] | Puzzle, pictured: int = MAX_PICTURED, **options: Any) -> Result:
    """Solve a puzzle file, a spec given as a dict (the YAML spec's fields; its errors name it
    `<spec>`) or a puzzle read with `cpsolve.formats`, and keep its first `pictured` unique
    solutions. Options are RunOptions' and SearchOptions' fields by name:
    `engine="cpsat"`, `time_limit=10`, `max_solutions=5`, `first_only=True`, `disassemble=True`,
    `problem="1"`, `workers=2`, ... Raises CpsolveError for a puzzle that must be fixed."""
    unknown = set(options) - SEARCH_OPTIONS - RUN_OPTIONS
    if unknown:
        known = ", ".join(sorted(SEARCH_OPTIONS | RUN_OPTIONS))
        raise TypeError(f"solve() got unknown options {', '.join(sorted(unknown))}; known: {known}")
    search = SearchOptions(**{k: v for k, v in options.items() if k in SEARCH_OPTIONS})
    run_options = RunOptions(search=search, **{"show": 0, **{k: v for k, v in options.items() if k in RUN_OPTIONS}})
    collected = ClassCollector(pictured)
    report = run(_puzzle(puzzle, run_options), run_options, on_new_class=collected)
    model = collected.model
    described = [
        {**(model.describe(solution) if model else {}), **details}
        for solution, details in zip(collected.solutions, collected.details, strict=True)
    ]
    return Result(report, described, scene(report, collected))


def _puzzle(puzzle: str | Path | Mapping[str, Any] | Puzzle, options: RunOptions) -> Puzzle:
    """The puzzle to solve: as given, from data, or the first problem of a file (the one named by
    `problem`)."""
    if isinstance(puzzle, Puzzle):
        return puzzle
    if isinstance(puzzle, Mapping):
        return formats.puzzle_from_data(puzzle)
    return formats.read_puzzle(puzzle, ReadOptions(options.max_file_bytes, options.problem))
