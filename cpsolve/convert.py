"""Converting puzzles between file formats, and writing a run's solutions as a BurrTools file.

A YAML spec and a BurrTools `.xmpuzzle` file hold the same packings (cube grid, copies and ranges,
optional cells, colours, a hole limit), so either converts to the other; a round trip keeps every
count (tests). What one side cannot say is refused with the reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path, PurePath
from typing import Any

import yaml

from cpsolve import formats
from cpsolve.errors import CpsolveError
from cpsolve.files import refuse_inputs, write_file
from cpsolve.formats import burrtools, dlx
from cpsolve.found import ClassCollector
from cpsolve.geometry import layer_cells
from cpsolve.grids import Grid, grid_named
from cpsolve.limits import DEFAULT_MAX_FILE_BYTES
from cpsolve.models.packing import PackingModel, PackingPuzzle, resolve
from cpsolve.report import RunReport
from cpsolve.spec import LoadedSpec, PackingSpec

WRITERS = {".xmpuzzle": "burrtools", ".yaml": "yaml", ".yml": "yaml", ".dlx": "dlx"}
ONE_PROBLEM = {"yaml": "a YAML spec", "dlx": "a DLX file"}  # formats that hold one problem
FLOW_CELLS = 8  # a list of this many cells or fewer is written on one line, as a person writes a small piece
LAYERS_SPARSENESS = 8  # a shape is written as layers where their box holds at most this many times its cells


def packing_puzzle(loaded: LoadedSpec, reason: str) -> PackingPuzzle:
    if not isinstance(loaded.spec, PackingSpec):
        raise CpsolveError(f"{loaded.source.path}: {reason}: BurrTools files hold packings, not {loaded.spec.kind}")
    return resolve(loaded.spec, loaded.source)


class _SpecDumper(yaml.SafeDumper):
    """YAML as a person writes a spec: a list of numbers or text (a cell, a tile, a layer's rows)
    on one line, `[0, 1, 2]`, the rest as blocks."""


def _list(dumper: yaml.SafeDumper, items: list[Any]) -> yaml.Node:
    """A list of scalars on one line; so is a short list of such lists (a small piece's cells)."""
    flat = all(_scalar(item) for item in items)
    cells = 0 < len(items) <= FLOW_CELLS and all(isinstance(item, list) and all(map(_scalar, item)) for item in items)
    return dumper.represent_sequence("tag:yaml.org,2002:seq", items, flow_style=flat or cells)


def _scalar(item: Any) -> bool:
    return isinstance(item, int | float | str | bool) or item is None


class _Layers(list[list[str]]):
    """A shape's layers: each on a line of its own (its rows side by side), z = 0 first."""


def _layers(dumper: yaml.SafeDumper, layers: _Layers) -> yaml.Node:
    return dumper.represent_sequence("tag:yaml.org,2002:seq", list(layers), flow_style=False)


_SpecDumper.add_representer(list, _list)
_SpecDumper.add_representer(_Layers, _layers)


def spec_yaml(loaded: LoadedSpec) -> str:
    """The spec as YAML, fields at their defaults left out, each cell on one line; a packing's
    shapes of more than FLOW_CELLS cells that fill their box densely as `layers` (PelikanBurr
    was 880 lines of one cell each)."""
    data = loaded.spec.model_dump(mode="json", exclude_defaults=True)
    data.pop("kind", None) if data.get("kind") == "packing" else None
    if isinstance(loaded.spec, PackingSpec):
        grid = grid_named(loaded.spec.grid)
        for piece in data.get("pieces", {}).values():
            _cells_as_layers(piece, grid, "cells")
        if "target" in data:
            _cells_as_layers(data["target"], grid, "cells", "optional")
    return yaml.dump(data, Dumper=_SpecDumper, sort_keys=False, allow_unicode=True, width=120)


def _cells_as_layers(shape: dict[str, Any], grid: Grid, cells_key: str, optional_key: str | None = None) -> None:
    """A shape's `cells` (and a target's `optional`, as `+`) written as `layers` in place, drawn
    as the grid lays them out (rows of hexagons, sticks as `-` and `|`), where the layers keep
    every cell where it is (no coordinate below 0), their box holds at most LAYERS_SPARSENESS
    times the cells, and the drawing reads back as these very cells; else left as cells (the
    sphere grid's square layers of balls, the triangular edge grids)."""
    cells = shape.get(cells_key)
    if not isinstance(cells, list) or len(cells) <= FLOW_CELLS or not all(len(c) == 3 for c in cells) or grid.balls:
        return
    optional = {grid.to_layers((c[0], c[1], c[2])) for c in shape.get(optional_key, [])} if optional_key else set()
    if optional and grid.edges:  # an edge grid's drawing has no optional segments
        return
    points = [grid.to_layers((c[0], c[1], c[2])) for c in cells]
    every = set(points) | optional
    if min(min(c) for c in every) < 0:
        return
    size = [max(c[axis] for c in every) + 1 for axis in range(3)]
    if size[0] * size[1] * size[2] > LAYERS_SPARSENESS * len(points):
        return
    marks = {c: "+" if c in optional else "#" for c in points} | dict.fromkeys(optional - set(points), "+")
    layers = _Layers(
        [
            "".join(grid.layer_character((x, y, z), marks.get((x, y, z))) for x in range(size[0])).rstrip()
            for y in range(size[1])
        ]
        for z in range(size[2])
    )
    drawn = grid.drawn_cells([place for place in layer_cells(layers) if marks.get(place) == "#"])
    if isinstance(drawn, str) or sorted(drawn) != sorted((c[0], c[1], c[2]) for c in cells):
        return
    rest = {key: value for key, value in shape.items() if key not in (cells_key, optional_key)}
    shape.clear()
    shape.update({"layers": layers, **rest})


def convert(source: Path, target: Path, problem: str | None = None, max_bytes: int = DEFAULT_MAX_FILE_BYTES) -> str:
    """Write `source` (any format cpsolve reads) as `target` (by its suffix); return a line saying
    what. A file of several problems converts whole into a BurrTools file (its problems side by
    side); a YAML spec holds one, so `problem` must name it."""
    kind = _writer(target)  # refused before the source is read
    refuse_inputs(target, [source], "the target")
    found = formats.read_puzzles(source, formats.ReadOptions(max_bytes, problem))
    if len(found) > 1 and kind != "burrtools":
        raise CpsolveError(
            f"{source}: holds {len(found)} problems and {ONE_PROBLEM[kind]} holds one: give --problem N (from 0, or"
            " its name), or convert to a .xmpuzzle file, which keeps them all"
        )
    if kind == "dlx":
        return write_exact_cover(found[0], target)
    if len(found) == 1:
        return write_puzzle(found[0].loaded, target)
    names = [str(puzzle.document.names[puzzle.index]) for puzzle in found]
    data, said = document_file([(name, puzzle.loaded) for name, puzzle in zip(names, found, strict=True)], target)
    write_file(target, data, "the BurrTools file")
    return said


def _writer(target: PurePath) -> str:
    """Which format a target's suffix asks for, or a CpsolveError."""
    kind = WRITERS.get(target.suffix.lower())
    if kind is None:
        raise CpsolveError(f"{target}: cannot write this kind of file; give a .xmpuzzle, .yaml, .yml or .dlx name")
    return kind


def write_exact_cover(puzzle: formats.Puzzle, target: Path) -> str:
    """Write a packing's exact cover as Knuth's DLX input (cpsolve.formats.dlx); return a line
    saying what it holds and which of his programs read it."""
    model, _ = puzzle.model()
    if not isinstance(model, PackingModel):
        raise CpsolveError(
            f"{puzzle.loaded.source.path}: a {model.kind} puzzle is no exact cover; DLX files hold packings"
        )
    expected = puzzle.loaded.spec.expected
    raw = "" if expected is None or expected.raw is None else f" ({expected.raw:,}, as the puzzle expects)"
    axes = "x y" if all(cell[2] == model.puzzle.target[0][2] for cell in model.puzzle.target) else "x y z"
    heading = [
        f"| {_one_line(model.puzzle.name)}, from {_one_line(str(puzzle.loaded.source.path))}: its exact cover, written"
        " by cpsolve convert",
        f"| each solution is one of the puzzle's with the target held fixed, once: their count is cpsolve's raw{raw}",
        f"| a cell is named by its {axes} from the target's least, a base-36 digit each (else c and its number)",
    ]
    lines, written = dlx.dlx_lines(
        model.cover_problem(), model.puzzle.target, [p.name for p in model.puzzle.pieces], heading
    )
    write_file(target, lines, "the DLX file")
    return f"{target}: {written.summary()}"


def _one_line(text: str) -> str:
    """Text for a comment line of a DLX file: its words on one line."""
    return " ".join(text.split())


def write_puzzle(loaded: LoadedSpec, target: Path) -> str:
    """Write a loaded puzzle as `target` (by its suffix); return a line saying what."""
    data, said = puzzle_file(loaded, target)
    write_file(target, data, "the BurrTools file" if _writer(target) == "burrtools" else "the spec")
    return said


def puzzle_file(loaded: LoadedSpec, target: PurePath) -> tuple[bytes, str]:
    """A loaded puzzle as the file `target`'s suffix asks for (a BurrTools file or a YAML spec),
    and a line saying what it holds. A DLX file is written from the built model (`convert`)."""
    kind = _writer(target)
    if kind == "dlx":
        raise CpsolveError(f"{target}: a DLX file is written from the puzzle's model: cpsolve convert PUZZLE {target}")
    if kind == "burrtools":
        kept = loaded.spec.model_dump(mode="json", include=set(burrtools.KEPT_FIELDS), exclude_defaults=True)
        puzzle = packing_puzzle(loaded, "cannot be written as a BurrTools file")
        data, written = burrtools.file_bytes(puzzle, kept=kept)
        return data, f"{target}: BurrTools file with {written.shapes} shapes and 1 problem"
    return spec_yaml(loaded).encode("utf-8"), f"{target}: YAML spec of {loaded.spec.name!r}"


def document_file(problems: Sequence[tuple[str, LoadedSpec]], target: PurePath) -> tuple[bytes, str]:
    """Several problems (each a name and its spec) as one file: a BurrTools file that shares
    their shapes; a YAML spec holds one problem, so more are refused with the way out."""
    if len(problems) == 1:
        return puzzle_file(problems[0][1], target)
    if _writer(target) != "burrtools":
        raise CpsolveError(
            f"{target}: a YAML spec holds one problem and this puzzle has {len(problems)}: save it as a .xmpuzzle file"
        )
    written = [
        burrtools.WrittenProblem(name, packing_puzzle(loaded, "cannot be written as a BurrTools file"))
        for name, loaded in problems
    ]
    data, holds = burrtools.document_bytes(written)
    return data, f"{target}: BurrTools file with {holds.shapes} shapes and {len(problems)} problems"


def solved_state(report: RunReport) -> burrtools.Solved | None:
    """How BurrTools would keep a problem this run has solved: only a complete run's (an
    interrupted one is written unsolved, as BurrTools keeps no count it has not finished); its
    assemblies as BurrTools counts them, those that come apart when it took them apart."""
    if not report.complete:
        return None
    assemblies = report.extra_counts.get("burrtools_unique", report.counts.unique)
    apart = report.disassembly.apart if report.disassembly is not None else 0
    return burrtools.Solved(assemblies, apart, int(report.seconds))


def assemblies_file(
    collected: ClassCollector, name: str, solved: burrtools.Solved | None
) -> tuple[bytes, burrtools.Written]:
    """Every collected class's representative as a BurrTools file's assemblies, with the puzzle."""
    model = collected.model
    if model is None:
        raise CpsolveError("nothing to write: the run found no solution")
    if not isinstance(model, PackingModel):
        raise CpsolveError(f"{name}: BurrTools files hold packings, not {model.kind}")
    assemblies: Sequence[Sequence[Any]] = [
        [model.placements[atom] for atom in solution] for solution in collected.solutions
    ]
    return burrtools.file_bytes(model.puzzle, assemblies, solved)
