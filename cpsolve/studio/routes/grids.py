"""The grids as the page draws and edits them (cpsolve.grids.drawing: one source, the grids'
own), the colours it draws pieces and constraint colours in (cpsolve.colours), and the turns and
mirror of a shape, applied here by the grid's own transformations."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field

from cpsolve.colours import BURRTOOLS_COLOURS, COLOUR_WORDS, palette
from cpsolve.errors import CpsolveError
from cpsolve.grids import GRIDS, grid_named
from cpsolve.grids.drawing import description, turned
from cpsolve.limits import MAX_SHAPE_CELLS

PIECE_COLOURS = 64  # the first pieces' colours the page is given (a puzzle of more repeats them)

router = APIRouter(prefix="/api", tags=["grids"])


class Look(BaseModel):
    grids: list[dict[str, Any]] = Field(description="each grid as the page draws and edits it")
    piece_colours: list[str] = Field(description="the pieces' colours, in the spec's order (the pictures' own)")
    colour_words: dict[str, str] = Field(description="constraint colours named by a colour word, as drawn")
    burrtools_colours: list[str] = Field(description="colourN is the N-th of these; other names take the next")


class Shape(BaseModel):
    model_config = ConfigDict(extra="forbid")

    cells: list[tuple[int, int, int]] = Field(max_length=MAX_SHAPE_CELLS)
    how: str = Field(description="a turn the grid offers (its `turns`: x, y, z on most, mirror)")


@router.get("/look")
def look() -> Look:
    """Every grid, and the colours pictures draw in, for the page."""
    return Look(
        grids=[description(grid) for grid in GRIDS],
        piece_colours=palette(PIECE_COLOURS),
        colour_words=COLOUR_WORDS,
        burrtools_colours=list(BURRTOOLS_COLOURS),
    )


@router.post("/grids/{name}/turn")
def turn(name: str, shape: Shape) -> dict[str, list[tuple[int, int, int]]]:
    """A shape's cells turned or mirrored as the editor asks, kept where they were."""
    if name not in {grid.name for grid in GRIDS}:
        raise CpsolveError(f"no grid {name[:40]!r}; the grids are {', '.join(grid.name for grid in GRIDS)}")
    return {"cells": turned(grid_named(name), list(shape.cells), shape.how)}
