"""Drawing a solution as text, in the spec's own `layers` layout, for every family."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from cpsolve.geometry import Cell

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
    cells = list(target)
    low = [min(c[i] for c in cells) for i in range(3)]
    high = [max(c[i] for c in cells) for i in range(3)]
    width = max((len(label) for label in label_of.values()), default=1)
    separator = "" if width == 1 else " "
    # each layer a grid of '.' with the labels written in (a cell at a time over the whole box took
    # 17 ms of HexSticks' run: 30,000 positions for 2,256 cells)
    columns, rows_count = high[0] - low[0] + 1, high[1] - low[1] + 1
    grids = {z: [[".".rjust(width)] * columns for _ in range(rows_count)] for z in range(low[2], high[2] + 1)}
    for (x, y, z), label in label_of.items():
        if low[0] <= x <= high[0] and low[1] <= y <= high[1] and z in grids:
            grids[z][y - low[1]][x - low[0]] = label.rjust(width)
    blocks = []
    for z in sorted(grids, reverse=top_first):
        grid = grids[z][::-1] if top_first else grids[z]
        rows = [separator.join(row) for row in grid]
        title = f"z={z}" if high[2] > low[2] else ""
        blocks.append("\n".join(filter(None, [title, *rows])))
    notes = [footer] if footer else []
    if "_" in label_of.values():
        notes.append(EMPTY)
    return "\n".join([AS_THE_FILE if top_first else caption, "\n\n".join(blocks), *notes])
