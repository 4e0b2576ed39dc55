"""What a finished run holds and can write, in one place: the page, the picture, the pieces for
printing, the BurrTools file. The command line (`--html`, `--png`, `--stl`, `--xmpuzzle`), the
library's `Result` (`save_html`, ...) and the studio's exports all go through `Outcome`: each
output is made as bytes (so that the studio hands them out without a scratch folder) and written,
where a file is asked for, whole or not at all (cpsolve.files).

A run keeps what its outputs need as it goes (`Kept`, the hook of its new classes): the first
classes for the pictures, every one for a BurrTools file. Once it is done, `Kept.outcome(report)`
is the run's outcome.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cpsolve.errors import CpsolveError, OutOfTimeError
from cpsolve.files import refuse_collisions, write_file
from cpsolve.found import ClassCollector
from cpsolve.limits import MAX_PICTURED, NO_DEADLINE, Deadline
from cpsolve.models import PuzzleModel
from cpsolve.options import Outputs, flag
from cpsolve.report import RunReport
from cpsolve.symmetry import Solution
from cpsolve.words import plural

if TYPE_CHECKING:
    from cpsolve.formats import Puzzle
    from cpsolve.formats.burrtools import Written
    from cpsolve.models import BuildOptions
    from cpsolve.spec import LoadedSpec
    from cpsolve.stl import StlOptions


def drawn_solution(outputs: Outputs, show: int | None) -> tuple[int, bool]:
    """Which unique solution (from 1) the picture and the pieces are of, and whether it was chosen
    (`--solution`, or `--show`'s last): else the picture shows what the page opens on (with
    --disassemble the first that comes apart)."""
    if outputs.solution is not None:
        return outputs.solution, True
    return max(1, show or 1), bool(show)


def check_request(inputs: Sequence[Path], outputs: Outputs, checkpoint: Path | None) -> None:
    """Refuse, before a run, outputs that would lose a file (cpsolve.files.refuse_collisions) and
    a picture Pillow cannot draw."""
    refuse_collisions(inputs, [*outputs.files(), ("--checkpoint", checkpoint)], outputs.stl)
    if outputs.png is not None:
        from cpsolve.pictures.png import check_installed

        check_installed()


def check_problems(outputs: Outputs, problems: int, path: Path | str) -> None:
    """Refuse outputs of one problem's solutions for a file of several read whole."""
    drawn = outputs.one_problem()
    if problems > 1 and drawn:
        raise CpsolveError(f"{path}: holds {problems} problems; give --problem with {flag(drawn[0])}")


def check_meshable(outputs: Outputs, puzzle: Puzzle, build: BuildOptions) -> None:
    """Refuse `--stl` before a run where its pieces cannot be meshed (the model is built once:
    the run reuses it)."""
    if outputs.stl is None:
        return
    from cpsolve.stl import check_meshable as meshable

    stl_options(outputs).check(meshable(puzzle.model(build)[0]))


def stl_options(outputs: Outputs) -> StlOptions:
    from cpsolve.stl import StlOptions

    return StlOptions(outputs.stl_unit, outputs.stl_gap, outputs.stl_bevel)


class Kept:
    """What a run keeps of its new classes for the outputs asked for (the run's `on_new_class`
    hook): the first ones for the pictures and pieces, every one for a BurrTools file."""

    def __init__(self, outputs: Outputs, show: int | None, pictured: int | None = None) -> None:
        self.outputs = outputs
        self.number, self.chosen = drawn_solution(outputs, show)
        pictures = outputs.html is not None or outputs.png is not None
        first = pictured if pictured is not None else max(MAX_PICTURED, self.number) if pictures else self.number
        self.first = ClassCollector(first if pictures or outputs.stl is not None or pictured is not None else 0)
        self.every = ClassCollector(None) if outputs.xmpuzzle is not None else None

    def __call__(self, solution: Solution, model: PuzzleModel, details: Mapping[str, Any]) -> None:
        self.first(solution, model, details)
        if self.every is not None:
            self.every(solution, model, details)

    def class_events(self, every: bool) -> int | None:
        """How many new classes the run must send as events: every one (None) for a solutions file
        or a BurrTools file, as many as the pictures keep, or none (the run then makes none)."""
        if every or self.every is not None:
            return None
        return self.first.limit or 0

    def outcome(self, report: RunReport, loaded: LoadedSpec | None = None) -> Outcome:
        return Outcome(report, self.first, self.every, loaded)


@dataclass
class Outcome:
    """A finished run's report and the solutions it kept, and the files made of them."""

    report: RunReport
    collected: ClassCollector  # the first unique solutions, with their model
    every: ClassCollector | None = None  # every one, for a BurrTools file (None: the first ones)
    loaded: LoadedSpec | None = None  # the puzzle itself, for a BurrTools file of a run without solution

    @cached_property
    def scene(self) -> dict[str, Any]:
        """What a picture of the run shows (cpsolve.pictures.scene)."""
        from cpsolve.pictures import scene

        return scene(self.report, self.collected)

    def first_view(self) -> int:
        """The solution a page opens on (from 1): with a disassembly the first that comes apart."""
        from cpsolve.pictures import first_view

        return first_view(self.scene) + 1

    def held(self) -> int:
        return len(self.collected.solutions)

    def page(self) -> bytes:
        """The self-contained page (`--html`)."""
        from cpsolve.pictures import page_html

        # a lone surrogate in a name (from a file's bytes) becomes "?" rather than a UnicodeEncodeError
        return page_html(self.scene).encode("utf-8", errors="replace")

    def picture(self, number: int = 1, suffix: str = ".png", explode: bool = False) -> bytes:
        """Solution `number` (from 1; the last kept where fewer are) as a PNG (or JPEG) image,
        its pieces pushed apart with `explode`."""
        from cpsolve.pictures.png import png_bytes

        return png_bytes(self.scene, min(number, max(1, self.held())) - 1, suffix, explode)

    def pieces(
        self, number: int = 1, options: StlOptions | None = None, deadline: Deadline = NO_DEADLINE
    ) -> list[tuple[str, bytes]]:
        """Each piece of unique solution `number` (from 1) as a file name and its binary STL."""
        from cpsolve.stl import StlOptions, solution_pieces, stl_files

        model = self.collected.model
        if model is None or not 1 <= number <= self.held():
            raise CpsolveError(f"solution {number}: the run kept {plural(self.held(), 'unique solution')}")
        pieces = solution_pieces(model, self.collected.solutions[number - 1])
        return stl_files(pieces, options or StlOptions(), deadline)

    def burrtools(self, name: str = "") -> tuple[bytes, Written | None]:
        """The puzzle with its assemblies as a BurrTools file (every class kept; the puzzle alone
        where the run found none), and what it holds (None: the puzzle alone)."""
        from cpsolve.convert import assemblies_file, puzzle_file, solved_state

        collected = self.every or self.collected
        if collected.model is None:
            if self.loaded is None:
                raise CpsolveError("nothing to write: the run kept no solution")
            return puzzle_file(self.loaded, Path(name or "puzzle.xmpuzzle"))[0], None
        return assemblies_file(collected, self.report.name, solved_state(self.report))

    def write(self, outputs: Outputs, number: int | None = None, deadline: Deadline = NO_DEADLINE) -> list[str]:
        """Write every file `outputs` asks for; what the user should be told. `number`: the
        solution the picture and the pieces are of (from 1; None: what the page opens on);
        `deadline`: what the pieces' meshes may take."""
        said: list[str] = []
        if outputs.xmpuzzle is not None:
            said += self._write_burrtools(outputs.xmpuzzle)
        if outputs.html is not None:
            write_file(outputs.html, self.page(), "the page")
            said.append(f"{outputs.html}: a page of {plural(self.held(), 'unique solution')}")
        if outputs.png is not None:
            said.append(self._write_picture(outputs.png, number, outputs.explode))
        if outputs.stl is not None:
            said.append(self._write_pieces(outputs.stl, number or 1, stl_options(outputs), deadline))
        return said

    def _write_burrtools(self, path: Path) -> list[str]:
        data, written = self.burrtools(path.name)
        write_file(path, data, "the BurrTools file")
        if written is None or not written.left_out:  # the puzzle and its assemblies, as asked
            return []
        kept = f"{self.report.name!r} with {plural(written.assemblies, 'assembly', 'assemblies')}"
        return [f"note: {path}: BurrTools file of {kept} ({written.left_out})"]

    def _write_picture(self, path: Path, number: int | None, explode: bool) -> str:
        if not self.held():
            return f"{path}: not written: the run found no solution to draw"
        wanted = self.first_view() if number is None else number
        write_file(path, self.picture(wanted, path.suffix, explode), "the picture")
        if wanted > self.held():
            held = plural(self.held(), "unique solution")
            return f"{path}: drew solution {self.held()}: the picture holds the first {held}, not {wanted}"
        return f"{path}: a picture of solution {wanted}"

    def _write_pieces(self, folder: Path, number: int, options: StlOptions, deadline: Deadline) -> str:
        from cpsolve.stl import write_stl

        if self.collected.model is None or not self.held():
            return f"{folder}: no STL written: the run found no solution"
        drawn = min(number, self.held())
        try:
            files = self.pieces(drawn, options, deadline)
        except OutOfTimeError as stopped:
            return f"{folder}: no STL written: the time limit passed while {stopped.doing}"
        written, replaced = write_stl(folder, files)
        said = "" if drawn == number else f" (the run found {plural(drawn, 'unique solution')}, not {number})"
        if replaced:
            said += f"; replaced {plural(len(replaced), 'file')} of an earlier run there"
        return f"{folder}: {len(written)} pieces of solution {drawn} as STL{said}"
