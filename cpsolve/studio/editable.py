"""Puzzles as the studio's editor reads and writes them: a spec whose every shape is a list of cells.

The editor draws cells, so a spec written with `layers`, `box`, `tile` or `ring` (or read from a
BurrTools, yass or c't file) is handed to it with each shape as `cells` (the same cells, in the
grid's own coordinates; a target's optional cells, `+` in layers, as `optional`), every other
field as it was. That form is itself a spec: the page runs it as a job's `spec` and saves it as
YAML or as a BurrTools file with the writers `cpsolve convert` uses. A puzzle mid-edit need not be
solvable (a volume that does not add up is the usual state of a drawing), so only the shapes are
read here, not the whole puzzle.
"""

from __future__ import annotations

from pathlib import PurePath
from typing import Any

from cpsolve import formats
from cpsolve.convert import document_file, puzzle_file, spec_yaml
from cpsolve.errors import CpsolveError
from cpsolve.formats import PuzzleFile, ReadOptions
from cpsolve.formats.burrtools import MAX_PROBLEM_CELLS
from cpsolve.grids import GRID_NAMES, grid_named
from cpsolve.models.packing.puzzle import optional_in_layers, shape_cells
from cpsolve.spec import LoadedSpec, PackingSpec

DRAWN_GRIDS = GRID_NAMES  # the page draws and edits a packing on every grid (cpsolve.grids.drawing)
SHAPE_FIELDS = ("cells", "layers", "box", "hollow", "tile", "ring")
WRITTEN_SUFFIXES = (".yaml", ".yml", ".xmpuzzle")


def editable(puzzle: formats.Puzzle) -> dict[str, Any]:
    """A puzzle as the editor takes it: `spec` (shapes as cells), whether the page can draw it,
    and why not where it cannot."""
    spec = puzzle.loaded.spec
    data = spec.model_dump(mode="json", exclude_defaults=True)
    if not isinstance(spec, PackingSpec):
        return {"spec": data, "drawn": False, "why": f"a {spec.kind} puzzle is edited as text"}
    data["grid"] = spec.grid
    grid = grid_named(spec.grid)
    source = puzzle.loaded.source
    for name, piece in spec.pieces.items():
        shape = {key: value for key, value in data["pieces"][name].items() if key not in SHAPE_FIELDS}
        data["pieces"][name] = {"cells": [list(cell) for cell in shape_cells(piece, ("pieces", name), source, grid)]}
        data["pieces"][name].update(shape)
    # every target cell in `cells`, those that may stay empty also in `optional` (a spec reads the
    # two as one set, so a target of optional cells only is still a shape)
    optional = {tuple(cell) for cell in spec.target.optional} | set(optional_in_layers(spec.target, grid))
    drawn_cells = {tuple(cell) for cell in shape_cells(spec.target, ("target",), source, grid)}
    target = {key: value for key, value in data["target"].items() if key not in SHAPE_FIELDS and key != "optional"}
    data["target"] = {"cells": sorted(map(list, drawn_cells | optional))}
    data["target"].update({"optional": sorted(map(list, optional))} if optional else {})
    data["target"].update(target)
    drawn = spec.grid in DRAWN_GRIDS
    why = "" if drawn else f"the {spec.grid} grid is shown and solved here, and edited as text"
    return {"spec": data, "drawn": drawn, "why": why}


def read_editable(file: PuzzleFile, max_bytes: int, problem: str | None) -> dict[str, Any]:
    """A workspace file's puzzle for the editor: one problem of it (the first unless `problem`
    names one), the names of all its problems and, for a file of several whose every problem the
    page draws and that hold MAX_PROBLEM_CELLS cells in all, each problem's spec (the page then
    edits the file's problems together: adds, renames, removes them and saves them as one file)."""
    found = formats.puzzles(file, ReadOptions(max_bytes, None))
    names = [str(puzzle.document.names[puzzle.index]) for puzzle in found]
    chosen = 0 if problem is None else _problem_index(problem, names, file.name)
    shown = editable(found[chosen])
    return {**shown, "problems": names, "problem": chosen, "specs": _every_problem(found, chosen, shown)}


def _every_problem(found: list[formats.Puzzle], chosen: int, shown: dict[str, Any]) -> list[dict[str, Any]] | None:
    """Each problem's editable spec, or None where the page edits the file one problem at a time
    (one it cannot draw or read, or more cells than one problem may hold in all)."""
    if len(found) == 1:
        return [shown["spec"]] if shown["drawn"] else None
    specs, cells = [], 0
    for index, puzzle in enumerate(found):
        try:
            each = shown if index == chosen else editable(puzzle)
        except CpsolveError:
            return None
        if not each["drawn"]:
            return None
        cells += len(each["spec"]["target"]["cells"]) + sum(len(p["cells"]) for p in each["spec"]["pieces"].values())
        if cells > MAX_PROBLEM_CELLS:
            return None
        specs.append(each["spec"])
    return specs


def _problem_index(problem: str, names: list[str], path: str) -> int:
    if problem.isdigit() and int(problem) < len(names):
        return int(problem)
    if problem in names:
        return names.index(problem)
    raise CpsolveError(f"{path}: no problem {problem!r} (it holds {len(names)}: numbers from 0 or names)")


def written(spec: dict[str, Any], target: PurePath, name: str) -> bytes:
    """The file an edited spec is saved as (YAML or BurrTools, by the target's suffix), after
    reading it as a spec and each of its shapes as cells: what the CLI refuses there is refused
    with its one-line message. A BurrTools file holds only a puzzle that can be set up whole."""
    _check_suffix(target, name)
    loaded = _checked(spec, name)
    if target.suffix.lower() != ".xmpuzzle":
        return spec_yaml(loaded).encode("utf-8")
    return puzzle_file(loaded, target)[0]


def written_problems(problems: list[tuple[str, dict[str, Any]]], target: PurePath, name: str) -> bytes:
    """The file a puzzle of several problems (each a name and its edited spec) is saved as: one
    BurrTools file sharing their shapes (a YAML spec holds one problem: more are refused with the
    way out); each problem checked as `written` checks a spec, its message naming the problem."""
    _check_suffix(target, name)
    if len(problems) == 1:
        return written(problems[0][1], target, name)
    loaded = [(title, _checked(spec, f"{name}: problem {title!r}")) for title, spec in problems]
    return document_file(loaded, target)[0]


def _check_suffix(target: PurePath, name: str) -> None:
    if target.suffix.lower() not in WRITTEN_SUFFIXES:
        raise CpsolveError(f"{name}: the editor saves .yaml, .yml or .xmpuzzle files; save under such a name")


def _checked(spec: dict[str, Any], name: str) -> LoadedSpec:
    puzzle = formats.puzzle_from_data(spec, name)
    editable(puzzle)  # each shape's cells checked (a volume that does not add up yet is kept: a drawing mid-way)
    return puzzle.loaded
