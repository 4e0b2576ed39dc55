"""Drawing a solution as text, in the spec's own `layers` layout, for every family."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from cpsolve.geometry import Cell


def draw_layers(target: Iterable[Cell], label_of: Mapping[Cell, str], footer: str = "") -> str:
    """Layers z = 0 first, rows y = 0 first, x left to right; cells outside the target are '.'.

    One-character labels are drawn side by side; longer ones right-aligned in columns.
    """
    cells = list(target)
    low = [min(c[i] for c in cells) for i in range(3)]
    high = [max(c[i] for c in cells) for i in range(3)]
    width = max((len(label) for label in label_of.values()), default=1)
    separator = "" if width == 1 else " "
    blocks = []
    for z in range(low[2], high[2] + 1):
        rows = [
            separator.join(label_of.get((x, y, z), ".").rjust(width) for x in range(low[0], high[0] + 1))
            for y in range(low[1], high[1] + 1)
        ]
        title = f"z={z}" if high[2] > low[2] else ""
        blocks.append("\n".join(filter(None, [title, *rows])))
    return "\n\n".join(blocks) + (f"\n{footer}" if footer else "")
