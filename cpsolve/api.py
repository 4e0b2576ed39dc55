"""`cpsolve.solve()`: the library for notebooks and scripts. The command line runs the same code.

import cpsolve
result = cpsolve.solve("puzzle_specs/soma.yaml")
result.counts.unique          # 240
result.solutions[0]           # {"pieces": {...}}: as --solutions writes it
result                        # in Jupyter: the 3-D viewer of the page (--html)
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cpsolve import formats
from cpsolve.counting import Counts
from cpsolve.events import NewClass
from cpsolve.formats import Puzzle, ReadOptions
from cpsolve.jobs import PuzzleGiven, start_loaded
from cpsolve.jobs import load as load_puzzle
from cpsolve.limits import DEFAULT_UNIT_MM, MAX_PICTURED
from cpsolve.options import OptionError, Options, Outputs, RunOptions
from cpsolve.outcome import Kept, Outcome
from cpsolve.report import RunReport
from cpsolve.run import ClassCollector
from cpsolve.words import plural


@dataclass
class Result:
    """A solved puzzle: the report, the counts, the unique solutions found (up to `pictured`), and
    how to show them (its outcome: cpsolve.outcome, as the command line writes them)."""

    report: RunReport
    solutions: list[dict[str, Any]]
    outcome: Outcome = field(repr=False)

    @property
    def counts(self) -> Counts:
        return self.report.counts

    @property
    def collected(self) -> ClassCollector:
        """The solutions as atoms, with their model."""
        return self.outcome.collected

    @property
    def scene(self) -> dict[str, Any]:
        """What a picture of the run shows (the page's and the PNG's data)."""
        return self.outcome.scene

    def html(self) -> str:
        """The self-contained page (`cpsolve run --html`)."""
        return self.outcome.page().decode("utf-8")

    def save_html(self, path: str | Path) -> None:
        """The page as a file, as `cpsolve run --html` writes it."""
        self.outcome.write(Outputs.of({"html": Path(path)}))

    def save_stl(
        self, folder: str | Path, number: int = 1, unit: float = DEFAULT_UNIT_MM, gap: float = 0.0, bevel: float = 0.0
    ) -> list[Path]:
        """Each piece of unique solution `number` (from 1) as an STL file in `folder`, as `cpsolve run
        --stl` writes them on any grid (needs the `stl` extra); `unit`: millimetres to a cell (a
        cube's side, a ball's diameter, ...); returns the files written."""
        from cpsolve.outcome import stl_options
        from cpsolve.stl import write_stl

        outputs: Outputs = Outputs.of({"stl": Path(folder), "stl_unit": unit, "stl_gap": gap, "stl_bevel": bevel})
        held = self.outcome.held()
        if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= held:
            holds = plural(held, "unique solution")
            raise OptionError(f"save_stl: solution {number!r}: the result holds {holds}, from 1")
        return write_stl(Path(folder), self.outcome.pieces(number, stl_options(outputs)))[0]

    def save_png(self, path: str | Path, number: int = 1, explode: bool = False) -> None:
        """A picture of solution `number` (from 1), as `cpsolve run --png` (`explode`: as --explode)."""
        held = self.outcome.held()
        if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= max(1, held):
            holds = plural(held, "unique solution")
            raise OptionError(f"save_png: solution {number!r}: the result holds {holds}, from 1")
        from cpsolve.files import write_file

        png = Path(path)
        Outputs.of({"png": png})  # its suffix checked as --png's
        write_file(png, self.outcome.picture(number, png.suffix, explode is True), "the picture")

    def _repr_html_(self) -> str:
        """Jupyter shows the page in a frame of its own, so that its script and style stay in it."""
        return (
            f'<iframe srcdoc="{html.escape(self.html(), quote=True)}" style="width:100%;height:720px;border:0"'
            ' sandbox="allow-scripts"></iframe>'
        )


def solve(puzzle: PuzzleGiven, pictured: int = MAX_PICTURED, **options: Any) -> Result:
    """Solve a puzzle file, a spec given as a dict (the YAML spec's fields; its errors name it
    `<spec>`) or a puzzle read with `cpsolve.formats`, and keep its first `pictured` unique
    solutions: `cpsolve.start(...)`'s job, waited on. Options are `cpsolve.options.Options` by
    name, as the command line spells them: `engine="cpsat"`, `time_limit=10`, `max_solutions=5`,
    `first=True`, `disassemble=True`, `problem="1"`, `workers=2`, ... A file of several problems
    needs `problem=` (or `solve_all`). Raises CpsolveError for a puzzle or an option that must be
    fixed (an option refused: OptionError, also a ValueError)."""
    settings = _settings(options)
    return _solved(load_puzzle(puzzle, settings), settings.run_options(), pictured)


def solve_all(path: str | Path, pictured: int = MAX_PICTURED, **options: Any) -> list[Result]:
    """Every problem of a puzzle file (or the one `problem=` names), as `cpsolve run` does: one
    Result each, in the file's order; the file is read once."""
    settings = _settings(options)
    run_options = settings.run_options()
    found = formats.read_puzzles(path, ReadOptions(run_options.max_file_bytes, run_options.problem))
    return [_solved(each, run_options, pictured) for each in found]


def _settings(options: dict[str, Any]) -> Options:
    """The options a library call was given; it draws nothing as text unless `show` asks."""
    try:
        settings: Options = Options.of({"show": 0, **options})
    except OptionError as refused:
        if str(refused).startswith("unknown option"):
            raise OptionError(f"{refused}; and pictured= (the solutions kept for pictures)") from None
        raise
    return settings


def _solved(puzzle: Puzzle, options: RunOptions, pictured: int) -> Result:
    kept = Kept(Outputs(), options.show, pictured)
    job = start_loaded(puzzle, options, class_events=max(1, pictured))
    for event in job.events():
        if isinstance(event, NewClass):
            kept(event.solution, event.model, event.details)
    report = job.result()
    outcome = kept.outcome(report, puzzle.loaded)
    collected = outcome.collected
    model = collected.model
    described = [
        {**(model.describe(solution) if model else {}), **details}
        for solution, details in zip(collected.solutions, collected.details, strict=True)
    ]
    return Result(report, described, outcome)
