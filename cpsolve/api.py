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
from cpsolve.errors import CpsolveError
from cpsolve.formats import Puzzle, ReadOptions
from cpsolve.limits import MAX_PICTURED
from cpsolve.pictures import page_html, scene, write_page
from cpsolve.run import ClassCollector, RunOptions, RunReport, run
from cpsolve.stl import DEFAULT_UNIT_MM

SEARCH_OPTIONS = {"time_limit", "max_solutions", "first_only", "guided"}
RUN_OPTIONS = {f.name for f in dataclasses.fields(RunOptions)} - {"search", "build"}


@dataclass
class Result:
    """A solved puzzle: the report, the counts, the unique solutions found (up to `pictured`), and
    how to show them."""

    report: RunReport
    solutions: list[dict[str, Any]]
    scene: dict[str, Any] = field(repr=False)
    collected: ClassCollector | None = field(default=None, repr=False)  # the solutions as atoms, with the model

    @property
    def counts(self) -> Counts:
        return self.report.counts

    def html(self) -> str:
        """The self-contained page (`cpsolve run --html`)."""
        return page_html(self.scene)

    def save_html(self, path: str | Path) -> None:
        write_page(self.scene, Path(path))

    def save_stl(
        self, folder: str | Path, number: int = 1, unit: float = DEFAULT_UNIT_MM, gap: float = 0.0, bevel: float = 0.0
    ) -> list[Path]:
        """Each piece of unique solution `number` (from 1) as an STL file in `folder`, as `cpsolve run
        --stl` writes them on any grid (needs the `stl` extra); `unit`: millimetres to a cell (a
        cube's side, a ball's diameter, ...); returns the files written."""
        from cpsolve.stl import StlOptions, solution_pieces, write_stl

        collected = self.collected
        if collected is None or collected.model is None or not 1 <= number <= len(collected.solutions):
            held = 0 if collected is None else len(collected.solutions)
            raise CpsolveError(f"save_stl: solution {number}: the result holds {held} unique solutions")
        pieces = solution_pieces(collected.model, collected.solutions[number - 1])
        return write_stl(Path(folder), pieces, StlOptions(unit, gap, bevel))

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
    `problem="1"`, `workers=2`, ... A file of several problems needs `problem=` (or
    `solve_all`). Raises CpsolveError for a puzzle or an option that must be fixed."""
    run_options = _options(options)
    if isinstance(puzzle, Puzzle | Mapping):
        return _solved(_one(puzzle), run_options, pictured)
    found = formats.read_puzzles(puzzle, ReadOptions(run_options.max_file_bytes, run_options.problem))
    if len(found) > 1:
        listing = ", ".join(f"{p.problem} {p.document.names[p.index]!r}" for p in found[:10])
        raise CpsolveError(
            f"{puzzle}: holds {len(found)} problems ({listing}); give problem=N, or use cpsolve.solve_all"
        )
    return _solved(found[0], run_options, pictured)


def solve_all(path: str | Path, pictured: int = MAX_PICTURED, **options: Any) -> list[Result]:
    """Every problem of a puzzle file (or the one `problem=` names), as `cpsolve run` does: one
    Result each, in the file's order; the file is read once."""
    run_options = _options(options)
    found = formats.read_puzzles(path, ReadOptions(run_options.max_file_bytes, run_options.problem))
    return [_solved(each, run_options, pictured) for each in found]


def _solved(puzzle: Puzzle, options: RunOptions, pictured: int) -> Result:
    collected = ClassCollector(pictured)
    report = run(puzzle, options, on_new_class=collected)
    model = collected.model
    described = [
        {**(model.describe(solution) if model else {}), **details}
        for solution, details in zip(collected.solutions, collected.details, strict=True)
    ]
    return Result(report, described, scene(report, collected), collected)


def _one(puzzle: Mapping[str, Any] | Puzzle) -> Puzzle:
    return puzzle if isinstance(puzzle, Puzzle) else formats.puzzle_from_data(puzzle)


# What each option may be given as (the dataclasses' own annotations are text, with postponed
# evaluation): a wrong one is a TypeError or ValueError naming the option, raised before any work.
OPTION_TYPES: dict[str, tuple[type, ...]] = {
    "time_limit": (int, float, type(None)),
    "max_solutions": (int, type(None)),
    "first_only": (bool,),
    "guided": (bool,),
    "show": (int, type(None)),
    "symmetry_breaking": (bool,),
    "engine": (str,),
    "workers": (int,),
    "max_file_bytes": (int,),
    "problem": (str, int, type(None)),
    "cluster": (str, type(None)),
    "checkpoint": (str, Path, type(None)),
    "disassemble": (bool,),
    "max_disassembly_positions": (int,),
    "max_class_bytes": (int,),
    "count_only": (bool,),
    "count_order": (str,),
}


def _options(options: Mapping[str, Any]) -> RunOptions:
    """RunOptions from solve()'s keyword options, each checked."""
    unknown = set(options) - SEARCH_OPTIONS - RUN_OPTIONS
    if unknown:
        known = ", ".join(sorted(SEARCH_OPTIONS | RUN_OPTIONS))
        raise TypeError(f"solve() got unknown options {', '.join(sorted(unknown))}; known: {known}")
    for name, value in options.items():
        allowed = OPTION_TYPES.get(name)
        numeric = (int, float) if allowed and float in allowed else (int,)
        if allowed is not None and (
            not isinstance(value, allowed) or (isinstance(value, bool) and bool not in allowed)
        ):
            expected = " or ".join("None" if t is type(None) else t.__name__ for t in allowed)
            raise TypeError(f"solve(): {name}={value!r:.40}: expected {expected}")
        if isinstance(value, numeric) and not isinstance(value, bool) and not value >= 0:
            raise ValueError(f"solve(): {name}={value!r}: expected a number of at least 0")
    given = dict(options)
    if isinstance(given.get("problem"), int):
        given["problem"] = str(given["problem"])
    if isinstance(given.get("checkpoint"), str):
        given["checkpoint"] = Path(given["checkpoint"])
    search = SearchOptions(**{k: v for k, v in given.items() if k in SEARCH_OPTIONS})
    return RunOptions(search=search, **{"show": 0, **{k: v for k, v in given.items() if k in RUN_OPTIONS}})
