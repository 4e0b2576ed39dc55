"""What a picture of a run shows, as plain data: the page's viewer and the PNG drawer both read it.

A scene holds the puzzle's name, its counts, and the unique solutions collected (up to a limit),
in the form each family is drawn in:

- packing: per solution the cubes `[x, y, z, unit]`, the units (placed pieces: piece, label)
  in the order a person builds them, and the optional target cells left empty; the pieces'
  colours and copies for the legend;
- chain: per solution the path of cubes in chain order and where each segment ends;
- tiles: the board's size, and per solution each place's tile, turns and four edge labels.

The build order of a packing: the reverse of its disassembly when `--disassemble` found one (the
piece that comes free last goes in first), else bottom layer first.
"""

from __future__ import annotations

import colorsys
from collections.abc import Mapping, Sequence
from typing import Any

from cpsolve.models.chain import ChainModel
from cpsolve.models.packing import PackingModel
from cpsolve.models.tiles import TilesModel
from cpsolve.run import ClassCollector, RunReport

GOLDEN_TURN = 0.381966  # hues this far apart stay distinct for many pieces


def _hex(hue: float, lightness: float, saturation: float) -> str:
    red, green, blue = colorsys.hls_to_rgb(hue, lightness, saturation)
    return f"#{round(red * 255):02x}{round(green * 255):02x}{round(blue * 255):02x}"


def palette(count: int) -> list[str]:
    """`count` distinct colours as #rrggbb: hues a golden turn apart, lightness alternating."""
    return [_hex((0.02 + index * GOLDEN_TURN) % 1.0, (0.55, 0.42, 0.66)[index % 3], 0.72) for index in range(count)]


def scene(report: RunReport, collected: ClassCollector) -> dict[str, Any]:
    """The scene of a finished run: its report's headline and the collected solutions."""
    data: dict[str, Any] = {
        "name": report.name,
        "kind": report.kind,
        "source": report.source,
        "counts": report.counts.as_dict(),
        "complete": report.complete,
        "stopped_by": None if report.stopped_by is None else str(report.stopped_by),
        "shown": len(collected.solutions),
        "solutions": [],
    }
    if report.disassembly is not None:
        data["disassembly"] = report.disassembly.as_json()
    model = collected.model
    if isinstance(model, PackingModel):
        data.update(_packing(model, collected))
    elif isinstance(model, ChainModel):
        data.update(_chain(model, collected))
    elif isinstance(model, TilesModel):
        data.update(_tiles(model, collected))
    return data


def _packing(model: PackingModel, collected: ClassCollector) -> dict[str, Any]:
    pieces = model.puzzle.pieces
    colours = palette(len(pieces))
    legend = [
        {"name": piece.name, "colour": colour, "copies": _copies(piece.bounds.low, piece.bounds.high)}
        for piece, colour in zip(pieces, colours, strict=True)
    ]
    piece_index = {piece.name: index for index, piece in enumerate(pieces)}
    solutions = []
    for solution, details in zip(collected.solutions, collected.details, strict=True):
        assembled = model.assembled(solution)
        units = [{"piece": piece_index[piece.kind], "label": piece.label} for piece in assembled]
        cubes = [[*cell, unit] for unit, piece in enumerate(assembled) for cell in piece.cells]
        covered = {cell for piece in assembled for cell in piece.cells}
        disassembly = details.get("disassembly", {})
        plan = disassembly.get("plan") if disassembly.get("level") else None  # only for one that comes apart
        labels = [piece.label for piece in assembled]
        order = _reverse_of_disassembly(plan, labels) if plan is not None else None
        solutions.append(
            {
                "cubes": cubes,
                "units": units,
                "order": order or _bottom_first(assembled),
                "order_from": "disassembly" if order else "bottom layer first",
                "empty": [list(cell) for cell in sorted(model.puzzle.optional - covered)],
                **({"level": disassembly["level"]} if plan is not None else {}),
            }
        )
    return {"pieces": legend, "solutions": solutions}


def _copies(low: int, high: int) -> str:
    return str(low) if low == high else f"{low}-{high}" if high < 10**9 else f"{low}+"


def _bottom_first(assembled: Sequence[Any]) -> list[int]:
    """Pieces by their lowest cell's height, then their middle's, then y and x: layer by layer."""

    def key(unit: int) -> tuple[float, ...]:
        cells = assembled[unit].cells
        return (
            min(c[2] for c in cells),
            sum(c[2] for c in cells) / len(cells),
            min(c[1] for c in cells),
            min(c[0] for c in cells),
        )

    return sorted(range(len(assembled)), key=key)


def _reverse_of_disassembly(plan: Sequence[Mapping[str, Any]], labels: Sequence[str]) -> list[int] | None:
    """The order pieces come free in the plan, reversed: a piece is free once its part is itself
    alone; pieces a group keeps together come free last, together."""
    index = {label: unit for unit, label in enumerate(labels)}
    parts: list[set[str]] = [set(labels)]
    freed: list[str] = []
    for move in plan:
        if move["distance"] is not None:
            continue
        moving = set(move["pieces"])
        part = next((p for p in parts if moving <= p), None)
        if part is None:
            return None
        parts.remove(part)
        for side in (part - moving, moving):
            if len(side) == 1:
                freed.extend(side)
            else:
                parts.append(side)
    for part in parts:
        freed.extend(sorted(part))
    if sorted(freed) != sorted(labels):
        return None
    return [index[label] for label in reversed(freed)]


def _chain(model: ChainModel, collected: ClassCollector) -> dict[str, Any]:
    ends = [0]
    for length in model.segments:
        ends.append(ends[-1] + length - 1)
    solutions = [{"path": model.describe(solution)["path"], "ends": ends} for solution in collected.solutions]
    return {"segments": list(model.segments), "chain_colours": _along(ends[-1] + 1), "solutions": solutions}


def _along(cubes: int) -> list[str]:
    """A chain's colours, cube by cube: hues from red (the first cube) to blue (the last)."""
    return [_hex(2 / 3 * index / max(1, cubes - 1), 0.5, 0.7) for index in range(cubes)]


def _tiles(model: TilesModel, collected: ClassCollector) -> dict[str, Any]:
    labels = sorted({str(label) for tile in model.tiles for label in tile})
    solutions = [
        {"places": [place for row in model.describe(solution)["board"] for place in row]}
        for solution in collected.solutions
    ]
    return {
        "board": [model.columns, model.rows],
        "match": model.match_kind,
        "label_colours": dict(zip(labels, palette(len(labels)), strict=True)),
        "solutions": solutions,
    }
