"""Drawing a solution as text, in the spec's own `layers` layout, for every family."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np

from cpsolve.geometry import Cell, cell_array

BOTTOM_FIRST = "layers from z=0 (the bottom) up; in each, row y=0 first, x left to right"
AS_THE_FILE = "layers from the top down and rows from the back, as in the figure's file; x left to right"
EMPTY = "_: an optional cell left empty"
ARRAY_DRAWING_FROM = 256  # target cells from which the box is filled as arrays (27 cells: 46 us so, 97 as arrays)
Box = tuple[list[list[list[str]]], list[int], list[int]]  # labels by z, y, x; the box's low and high corners


def draw_layers(
    target: Iterable[Cell],
    label_of: Mapping[Cell, str],
    footer: str = "",
    top_first: bool = False,
    caption: str = BOTTOM_FIRST,
) -> str:
    """The axes in a first line, then the layers: z = 0 first and in each row y = 0 first (a
    spec's `layers` layout), or with `top_first` the top layer and the back row first (a yass
    figure's file); x left to right; cells outside the target are '.'.

    One-character labels are drawn side by side; longer ones right-aligned in columns.
    """
    cells = list(target)
    labels = list(label_of.values())
    width = max(map(len, labels), default=1)
    separator = "" if width == 1 else " "
    fill = _box_by_arrays if len(cells) >= ARRAY_DRAWING_FROM else _box_cell_by_cell
    box, low, high = fill(cells, label_of, labels, width)
    blocks = []
    for z in range(len(box))[:: -1 if top_first else 1]:
        rows = [separator.join(row) for row in (box[z][::-1] if top_first else box[z])]
        title = f"z={z + low[2]}" if high[2] > low[2] else ""
        blocks.append("\n".join(filter(None, [title, *rows])))
    notes = [footer] if footer else []
    if "_" in labels:
        notes.append(EMPTY)
    return "\n".join([AS_THE_FILE if top_first else caption, "\n\n".join(blocks), *notes])


def _box_by_arrays(cells: list[Cell], label_of: Mapping[Cell, str], labels: list[str], width: int) -> Box:
    """The box of '.' with the labels written in, by array operations (one cell at a time over
    the whole box took 17 ms of HexSticks' run, 30,000 places for 2,256 cells; a dictionary
    look-up a cell 3 ms of DraculasDentalDesaster's)."""
    given = cell_array(cells)
    low, high = given.min(axis=0), given.max(axis=0)
    places = cell_array(list(label_of)) - low
    inside = ((places >= 0) & (places <= high - low)).all(axis=1)
    box = np.full((*(high - low + 1)[::-1].tolist(),), ".".rjust(width), dtype=f"<U{width}")
    written = np.array(labels, dtype=f"<U{width}")[inside] if labels else np.zeros(0, f"<U{width}")
    if width > 1 and len(written):
        written = np.char.rjust(written, width)
    box[places[inside, 2], places[inside, 1], places[inside, 0]] = written
    return box.tolist(), low.tolist(), high.tolist()


def _box_cell_by_cell(cells: list[Cell], label_of: Mapping[Cell, str], labels: list[str], width: int) -> Box:
    """`_box_by_arrays` for a small target, where numpy's calls cost more than the cells."""
    low = [min(cell[axis] for cell in cells) for axis in range(3)]
    high = [max(cell[axis] for cell in cells) for axis in range(3)]
    columns, rows = high[0] - low[0] + 1, high[1] - low[1] + 1
    box = [[[".".rjust(width)] * columns for _ in range(rows)] for _ in range(high[2] - low[2] + 1)]
    for (x, y, z), label in label_of.items():
        if low[0] <= x <= high[0] and low[1] <= y <= high[1] and low[2] <= z <= high[2]:
            box[z - low[2]][y - low[1]][x - low[0]] = label.rjust(width)
    return box, low, high
