"""The packing family's part of a picture's scene (cpsolve.pictures): the data its drawing reads."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from cpsolve.colours import copy_shade, palette
from cpsolve.geometry import Cell
from cpsolve.grids import CUBE, Grid
from cpsolve.grids.solids import BALL_RADIUS
from cpsolve.symmetry import Solution

from ..base import PuzzleModel
from .model import PackingModel


def packing_scene(
    model: PuzzleModel, solutions: Sequence[Solution], details: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    """Per solution the cubes `[x, y, z, unit]` (on another grid the `cells` `[kind, x, y, z,
    unit]`, each a kind of cell's solid moved to a point in space, with the grid's `solids` or
    `ball`), the units (placed pieces: piece, label) in the order a person builds them, and the
    optional target cells left empty; the pieces' colours and copies for the legend. The build
    order: the reverse of the disassembly when
    `--disassemble` found one (the piece that comes free last goes in first), else bottom layer
    first."""
    assert isinstance(model, PackingModel)
    pieces = model.puzzle.pieces
    colours = palette(len(pieces))
    # each piece's placements: a piece with very few is what a designer looks at
    placed = np.bincount(model.placements.arrays.pieces, minlength=len(pieces)).tolist()
    legend = [
        {
            "name": piece.name,
            "colour": colour,
            "copies": _copies(piece.bounds.low, piece.bounds.high),
            "placements": placed[number],
        }
        for number, (piece, colour) in enumerate(zip(pieces, colours, strict=True))
    ]
    piece_index = {piece.name: index for index, piece in enumerate(pieces)}
    grid = model.puzzle.grid
    drawn = []
    for solution, known in zip(solutions, details, strict=True):
        assembled = model.assembled(solution)
        copies: dict[str, int] = {}
        units = []
        for piece in assembled:
            kind = piece_index[piece.kind]
            copy = copies[piece.kind] = copies.get(piece.kind, -1) + 1
            colour = copy_shade(colours[kind], copy)
            units.append({"piece": kind, "label": piece.label, "colour": colour})
        cubes = [[*cell, unit] for unit, piece in enumerate(assembled) for cell in piece.cells]
        covered = {cell for piece in assembled for cell in piece.cells}
        disassembly = known.get("disassembly", {})
        plan = disassembly.get("plan") if disassembly.get("level") else None  # only for one that comes apart
        labels = [piece.label for piece in assembled]
        order = _reverse_of_disassembly(plan, labels) if plan is not None else None
        empty = sorted(model.puzzle.optional - covered)
        drawn.append(
            {
                **({"cubes": cubes, "empty": [list(cell) for cell in empty]} if grid is CUBE else {}),
                **(_solids(grid, cubes, empty) if grid is not CUBE else {}),
                "units": units,
                "apart": _apart(grid, [piece.cells for piece in assembled]),
                "order": order or _bottom_first(assembled),
                "order_from": "disassembly" if order else "bottom layer first",
                **({"level": disassembly["level"], "plan": _plan(grid, plan, labels)} if plan is not None else {}),
            }
        )
    return {"pieces": legend, "solutions": drawn, **(_grid_scene(grid) if grid is not CUBE else {})}


AXES = ((0, 0, 1), (0, 0, -1), (1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0))
CENTRAL = 0.2  # a unit whose middle is this share of the assembly's span from its middle is in the middle


def _apart(grid: Grid, units: Sequence[Sequence[Cell]]) -> list[list[float]]:
    """Per unit, where the explode slider at its end moves it (in the drawing's space, as the plan's
    offsets): out from the middle, by how far its own middle lies from the assembly's; those in the
    middle (what a cage holds) each along an axis of its own by the assembly's span, the largest
    of them (the cage) staying, so that none stays hidden inside another. The page's viewer and
    the PNG (`--explode`) both move the pieces by these."""
    centres = np.array([grid.real(cells).mean(axis=0) for cells in units]).reshape(-1, 3)
    middle = centres.mean(axis=0)
    every = grid.real([cell for cells in units for cell in cells])
    span = 1 + float((every.max(axis=0) - every.min(axis=0)).max())
    away = centres - middle
    distance = np.linalg.norm(away, axis=1)
    central = sorted(
        (unit for unit in range(len(units)) if distance[unit] < CENTRAL * span), key=lambda u: (-len(units[u]), u)
    )
    for rank, unit in enumerate(central):
        axis = AXES[(rank - 1) % len(AXES)] if rank else (0, 0, 0)
        away[unit] = np.array(axis, np.float64) * span * (1 + (rank - 1) // len(AXES) if rank else 0)
    return [[round(float(v), 4) for v in offset] for offset in away]


def _plan(grid: Grid, plan: Sequence[Mapping[str, Any]], labels: Sequence[str]) -> list[dict[str, Any]]:
    """The disassembly plan as the page animates it: per move the units that move, one step
    along its direction in the drawing's space (cubes: the grid's own), how many steps (None: out
    for good), and its words as the text plan says them."""
    from cpsolve.disassembly import Move

    unit_of = {label: unit for unit, label in enumerate(labels)}
    vector = {step.name: step.vector for step in grid.steps}
    steps = []
    for move in plan:
        shift = vector[move["direction"]]
        offset = grid.real([shift, (0, 0, 0)])
        words = Move(tuple(move["pieces"]), move["direction"], shift, move["distance"]).describe()
        steps.append(
            {
                "units": [unit_of[label] for label in move["pieces"]],
                "offset": [round(float(v), 4) for v in offset[0] - offset[1]],
                "distance": move["distance"],
                "text": words,
            }
        )
    return steps


def _grid_scene(grid: Grid) -> dict[str, Any]:
    """What a drawing needs of a grid other than cubes: each kind of cell's faces (balls on the
    sphere grid) in real space, unit edges (cpsolve.grids.solids)."""
    if grid.balls:
        return {"grid": grid.name, "ball": BALL_RADIUS, "solids": []}
    return {"grid": grid.name, "ball": 0, "solids": [grid.solid(kind) for kind in grid.cell_kinds()]}


def _solids(grid: Grid, cubes: Sequence[Sequence[int]], empty: Sequence[Cell]) -> dict[str, Any]:
    """Per cell [kind, origin x, y, z, unit]: the kind's solid (or ball) moved to the origin."""

    def rows(cells: Sequence[Sequence[int]]) -> list[list[float]]:
        return [[float(kind), *(round(v, 4) for v in origin)] for kind, origin in grid.placed_cells(cells)]

    return {
        "cells": [[*row, float(cube[3])] for row, cube in zip(rows(cubes), cubes, strict=True)],
        "empty": rows(empty),
    }


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
