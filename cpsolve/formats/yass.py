"""Reading yass `.soma` figures with yass's own rules (docs/formats.md).

A figure becomes an ordinary packing spec: the seven Soma pieces under yass's names, the figure as
target cells, lowercase piece letters as fixed pieces, and `parts: separately`. Figures that yass
refuses are refused here too, with the reason in words.
"""

from __future__ import annotations

from typing import Any

from cpsolve.errors import SpecError
from cpsolve.geometry import Cell, canonical_shape, connected_components, dimension
from cpsolve.spec import LoadedSpec, Source

from .base import Document, PuzzleFile, ReadOptions

SOMA_PIECES: dict[str, list[Cell]] = {
    "c": [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)],
    "p": [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 0, 1)],
    "n": [(0, 0, 0), (-1, 0, 0), (-1, 1, 0), (0, 0, 1)],
    "z": [(0, 0, 0), (1, 1, 0), (0, 1, 0), (-1, 0, 0)],
    "t": [(0, 0, 0), (1, 0, 0), (0, 1, 0), (-1, 0, 0)],
    "l": [(0, 0, 0), (1, 1, 0), (1, 0, 0), (-1, 0, 0)],
    "3": [(0, 0, 0), (1, 0, 0), (0, 1, 0)],
}
SOMA_VOLUME = 27


def parse_figure(text: str, path: str) -> tuple[list[Cell], dict[str, list[Cell]]]:
    """Cells of the figure and the cells of each pre-placed piece.

    Slices come top first, rows back first: the first slice gets the highest z and the first row
    of a slice the highest y, so that x right, y back, z up is a right-handed frame and the
    chiral pieces p and n keep their handedness.
    """
    slices: list[list[str]] = [[]]
    for number, raw_line in enumerate(text.splitlines(), 1):
        content, hash_mark, _ = raw_line.partition("#")
        if "\t" in content:
            raise SpecError([f"{path}:{number}: tab character outside a comment (yass refuses tabs before '#')"])
        if hash_mark and not content.strip():
            continue
        if content.strip():
            slices[-1].append(content.rstrip())
        elif slices[-1]:
            slices.append([])
    slices = [s for s in slices if s]
    count = sum(len(row) - row.count(".") - row.count(" ") for rows in slices for row in rows)
    if count != SOMA_VOLUME:  # counted before the cells are built: a figure file can be megabytes
        raise SpecError([f"{path}: the figure has {count} cells; the seven Soma pieces fill exactly 27"])
    cells: list[Cell] = []
    placed: dict[str, list[Cell]] = {}
    for index, rows in enumerate(slices):
        z = len(slices) - 1 - index
        for row_index, row in enumerate(rows):
            y = len(rows) - 1 - row_index
            for x, char in enumerate(row):
                if char in ". ":
                    continue
                cells.append((x, y, z))
                if char in SOMA_PIECES:
                    placed.setdefault(char, []).append((x, y, z))
    return cells, placed


def check_figure(cells: list[Cell], placed: dict[str, list[Cell]], path: str) -> None:
    """The checks yass makes before solving, in its order, with its reasons in words."""
    if len(cells) != SOMA_VOLUME:
        raise SpecError([f"{path}: the figure has {len(cells)} cells; the seven Soma pieces fill exactly 27"])
    wrong = [
        f"pre-placed piece {name!r} has {len(own)} cells, not {len(SOMA_PIECES[name])}"
        for name, own in sorted(placed.items())
        if len(own) != len(SOMA_PIECES[name])
    ]
    if wrong:
        raise SpecError([f"{path}: {'; '.join(wrong)}"])
    parts = connected_components(cells)
    for number, part in enumerate(parts, 1):
        size = len(part)
        if size < 3 or size % 4 not in (0, 3):
            raise SpecError(
                [
                    f"{path}: part {number} of {len(parts)} has {size} cells; no set of Soma pieces fills that"
                    " (a part needs 3 or more cells, a multiple of 4 or 3 more than one)"
                ]
            )
    for number, part in enumerate(parts, 1):
        if dimension(part) < 2:
            raise SpecError(
                [f"{path}: part {number} of {len(parts)} is a straight line of {len(part)} cells; no Soma piece fits"]
            )


def load_figure(file: PuzzleFile, options: ReadOptions | None = None) -> Document:
    path = file.name
    cells, placed = parse_figure(file.text(), path)
    check_figure(cells, placed, path)
    data = {
        "name": file.stem,
        "description": "yass figure: the seven Soma pieces, each separate part turned on its own",
        "pieces": {name: {"cells": [list(c) for c in shape]} for name, shape in SOMA_PIECES.items()},
        "target": {"cells": [list(c) for c in cells], "fixed": {k: [list(c) for c in v] for k, v in placed.items()}},
        "parts": "separately",
        "symmetry": "all",
    }
    source = Source(path)
    families = (options or ReadOptions()).families
    return Document.single(LoadedSpec(families.validate(data, source), source))


# yass fills pre-placed cells drawn in the wrong shape and still counts: so do we; solutions are
# drawn as the figure's file is laid out (top slice and back row first)


def figure_text(puzzle: Any) -> str | None:
    """The puzzle as a yass figure, when it is one yass counts the same way: the seven Soma pieces
    (each once, only turned) filling 27 connected cells, nothing pre-placed, optional or coloured,
    symmetry `all`. None otherwise. Used to time yass on cpsolve's own Soma specs (bench --peers)."""
    soma = sorted(canonical_shape(cells) for cells in SOMA_PIECES.values())
    pieces = sorted(canonical_shape(p.cells) for p in puzzle.pieces if p.bounds.low == p.bounds.high == 1)
    if len(pieces) != len(puzzle.pieces) or pieces != soma or len(puzzle.target) != SOMA_VOLUME:
        return None
    if puzzle.fixed or puzzle.optional or puzzle.coloured or puzzle.groups or puzzle.symmetry != "all":
        return None
    if len(connected_components(puzzle.target)) != 1:
        return None
    low = [min(c[i] for c in puzzle.target) for i in range(3)]
    size = [max(c[i] for c in puzzle.target) - low[i] + 1 for i in range(3)]
    filled = {(c[0] - low[0], c[1] - low[1], c[2] - low[2]) for c in puzzle.target}
    slices = [
        "\n".join(
            "".join("*" if (x, y, z) in filled else "." for x in range(size[0])) for y in reversed(range(size[1]))
        )
        for z in reversed(range(size[2]))
    ]
    return "\n\n".join(slices) + "\n"
