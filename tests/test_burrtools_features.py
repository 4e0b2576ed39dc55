"""What BurrTools puzzles can say, in YAML specs: target cells that may stay empty, colours with a
rule, a hole limit, copies and ranges. Each case on both engines, with and without symmetry
breaking, against the independent counter in burr_bruteforce.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from burr_bruteforce import Piece, Target, count
from conftest import checked_run

from cpsolve.run import RunOptions

Cell = tuple[int, int, int]


def box(x: int, y: int, z: int) -> list[Cell]:
    return [(i, j, k) for i in range(x) for j in range(y) for k in range(z)]


def target_of(cells: list[Cell], optional: list[Cell] = (), colours: dict[Cell, str] | None = None) -> Target:  # type: ignore[assignment]
    colours = colours or {}
    return {c: (c in optional, colours.get(c)) for c in [*cells, *optional]}


def piece(cells: list[Cell], least: int, most: int, colours: dict[Cell, str] | None = None) -> Piece:
    colours = colours or {}
    return {c: colours.get(c) for c in cells}, least, most


DOMINO = [(0, 0, 0), (1, 0, 0)]
L3 = [(0, 0, 0), (1, 0, 0), (0, 1, 0)]
UNIT = [(0, 0, 0)]
SCREW = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 0, 1)]
SCREW_MIRROR = [(1, 0, 0), (0, 0, 0), (0, 1, 0), (1, 0, 1)]

CASES: dict[str, tuple[dict[str, Piece], Target, set[tuple[str, str]], int | None]] = {
    "optional cells, ranges": (
        {"D": piece(DOMINO, 0, 3), "U": piece(UNIT, 0, 2)},
        target_of(box(2, 2, 1), optional=[(2, 0, 0), (2, 1, 0)]),
        set(),
        None,
    ),
    "a hole limit": (
        {"L": piece(L3, 1, 1), "U": piece(UNIT, 0, 4)},
        target_of(box(2, 2, 1), optional=[(2, 0, 0), (2, 1, 0), (0, 2, 0)]),
        set(),
        1,
    ),
    "no hole allowed": (
        {"L": piece(L3, 1, 1), "U": piece(UNIT, 0, 4)},
        target_of(box(2, 2, 1), optional=[(2, 0, 0), (2, 1, 0), (0, 2, 0)]),
        set(),
        0,
    ),
    "a coloured target": (
        {"D": piece(DOMINO, 1, 1, {(0, 0, 0): "red", (1, 0, 0): "red"}), "U": piece(UNIT, 0, 4)},
        target_of(box(4, 1, 1), colours={(0, 0, 0): "red", (1, 0, 0): "black"}),
        {("red", "red")},
        None,
    ),
    "two colourings of the same cells": (
        {"B": piece(DOMINO, 2, 2, {(0, 0, 0): "red", (1, 0, 0): "black"})},
        target_of(box(4, 1, 1)),
        set(),
        None,
    ),
    "colours, optional cells and mirror partners": (
        {
            "A": piece(SCREW, 0, 1, {(0, 0, 0): "red"}),
            "B": piece(SCREW_MIRROR, 0, 1, {(1, 0, 0): "red"}),
            "D": piece(DOMINO, 0, 3),
        },
        target_of(box(2, 2, 2), optional=[(2, 0, 0), (2, 1, 0)], colours={(0, 0, 0): "red", (1, 1, 1): "red"}),
        {("red", "red")},
        2,
    ),
}


def write_spec(
    tmp_path: Path, pieces: dict[str, Piece], target: Target, rule: set[tuple[str, str]], holes: int | None
) -> Path:
    def colours(of: dict[Cell, str | None]) -> dict[str, list[list[int]]]:
        grouped: dict[str, list[list[int]]] = {}
        for cell, colour in of.items():
            if colour is not None:
                grouped.setdefault(colour, []).append(list(cell))
        return grouped

    spec: dict[str, Any] = {
        "pieces": {
            name: {"cells": [list(c) for c in cells], "min": low, "max": high, "colours": colours(cells)}
            for name, (cells, low, high) in pieces.items()
        },
        "target": {
            "cells": [list(c) for c, (optional, _) in target.items() if not optional],
            "optional": [list(c) for c, (optional, _) in target.items() if optional],
            "colours": colours({c: colour for c, (_, colour) in target.items()}),
        },
        "colour_rule": [list(pair) for pair in sorted(rule)],
    }
    if holes is not None:
        spec["max_holes"] = holes
    path = tmp_path / "case.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path


@pytest.mark.parametrize("engine", ["cpsat", "exact-cover"])
@pytest.mark.parametrize("breaking", [True, False], ids=["breaking", "plain"])
@pytest.mark.parametrize("name", list(CASES))
def test_against_brute_force(tmp_path: Path, name: str, breaking: bool, engine: str) -> None:
    pieces, target, rule, holes = CASES[name]
    raw, rotations, unique = count(pieces, target, rule, holes)
    assert raw > 0, "a case without solutions checks nothing"
    report = checked_run(
        write_spec(tmp_path, pieces, target, rule, holes), RunOptions(show=0, symmetry_breaking=breaking, engine=engine)
    )
    assert report.counts.as_dict() == {"raw": raw, "rotations": rotations, "unique": unique}


def test_the_cases_exercise_what_they_say() -> None:
    """The hole limit changes the count, colours change it, and a colouring doubles placements."""
    pieces, target, rule, _ = CASES["a hole limit"]
    assert count(pieces, target, rule, 1)[0] < count(pieces, target, rule, None)[0]
    assert count(pieces, target, rule, 0)[0] < count(pieces, target, rule, 1)[0]
    pieces, target, rule, _ = CASES["a coloured target"]
    plain: dict[str, Piece] = {name: (dict.fromkeys(cells), low, high) for name, (cells, low, high) in pieces.items()}
    assert count(pieces, target, rule)[0] < count(plain, target, rule)[0]
    pieces, target, rule, _ = CASES["two colourings of the same cells"]
    assert count(pieces, target, rule)[0] == 4  # each of the two bars turned end for end


def test_plus_in_layers_marks_optional_cells(tmp_path: Path) -> None:
    spec = tmp_path / "plus.yaml"
    spec.write_text(
        "pieces:\n  D: {box: [2, 1], min: 0, max: 3}\n  U: {box: [1, 1], min: 0, max: 2}\n"
        "target:\n  layers: [['##+', '##+']]\n"
    )
    pieces, target, rule, holes = CASES["optional cells, ranges"]
    assert checked_run(spec).counts.as_dict() == dict(
        zip(("raw", "rotations", "unique"), count(pieces, target, rule, holes), strict=True)
    )


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        ("  colours: {red: [[5, 5, 5]]}\n", "target.colours.red.0: cell [5, 5, 5] is not a cell of this shape"),
        ("max_holes: -1\n", "max_holes: Input should be greater than or equal to 0"),
        ("colour_rule: [[red]]\n", "colour_rule.0: List should have at least 2 items"),
    ],
)
def test_bad_colours_and_holes(tmp_path: Path, extra: str, words: str) -> None:
    from typer.testing import CliRunner

    from cpsolve.cli import app

    spec = tmp_path / "bad.yaml"
    text = "pieces:\n  D: {box: [2, 1]}\ntarget:\n  box: [2, 1]\n"
    spec.write_text(text + extra)
    result = CliRunner().invoke(app, ["run", str(spec)])
    assert result.exit_code == 2, result.output
    assert words in result.output
