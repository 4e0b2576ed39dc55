"""Drawing a solution as text, in the spec's own `layers` layout, for every family."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np

from cpsolve.geometry import Cell, cell_array

BOTTOM_FIRST = "layers from z=0 (the bottom) up; in each, row y=0 first, x left to right"
AS_THE_FILE = "layers from the top down and rows from the back, as in the figure's file; x left to right"
EMPTY = "_: an optional cell left empty"


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
    cells = cell_array(list(target))
    low, high = cells.min(axis=0), cells.max(axis=0)
    labels = list(label_of.values())
    width = max(map(len, labels), default=1)
    separator = "" if width == 1 else " "
    # each layer a grid of '.' with the labels written in, as arrays (a cell at a time over the
    # whole box took 17 ms of HexSticks' run: 30,000 positions for 2,256 cells; a dictionary
    # a cell 3 ms of DraculasDentalDesaster's)
    places = cell_array(list(label_of)) - low
    inside = ((places >= 0) & (places <= high - low)).all(axis=1)
    box = np.full((*(high - low + 1)[::-1].tolist(),), ".".rjust(width), dtype=f"<U{width}")
    written = np.array(labels, dtype=f"<U{width}")[inside] if labels else np.zeros(0, f"<U{width}")
    if width > 1 and len(written):
        written = np.char.rjust(written, width)
    box[places[inside, 2], places[inside, 1], places[inside, 0]] = written
    blocks = []
    for z in range(box.shape[0])[:: -1 if top_first else 1]:
        rows = [separator.join(row) for row in (box[z, ::-1] if top_first else box[z]).tolist()]
        title = f"z={z + int(low[2])}" if high[2] > low[2] else ""
        blocks.append("\n".join(filter(None, [title, *rows])))
    notes = [footer] if footer else []
    if "_" in labels:
        notes.append(EMPTY)
    return "\n".join([AS_THE_FILE if top_first else caption, "\n\n".join(blocks), *notes])
