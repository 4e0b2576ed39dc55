"""How a packing's solutions are shown: a letter per piece in text drawings, the pieces as plain
data for JSON and the disassembler, and the family's part of a picture's scene."""

from __future__ import annotations

import string
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from cpsolve.geometry import (
    Cell,
)
from cpsolve.grids import CUBE
from cpsolve.render import draw_layers
from cpsolve.symmetry import Solution

from .puzzle import PackingPuzzle, Piece, Placement

if TYPE_CHECKING:
    from cpsolve.disassembly import AssembledPiece


class PackingDrawing:
    """The letters of a puzzle's pieces and what is drawn with them."""

    def __init__(self, puzzle: PackingPuzzle, placements: Sequence[Placement], top_first: bool = False) -> None:
        self.puzzle = puzzle
        self.placements = placements
        self.top_first = top_first
        self.symbols = _symbols(puzzle.pieces)
        # at most one copy of each piece: a placement's letter and place in the order are its piece's
        self._one_copy_each = all(piece.bounds.high <= 1 for piece in puzzle.pieces) and len(
            {symbols[0] for symbols in self.symbols}
        ) == len(self.symbols)
        self._assembled_of_atom: dict[int, tuple[int, AssembledPiece]] = {}

    def pieces_of(self, solution: Solution) -> dict[str, list[list[list[int]]]]:
        out: dict[str, list[list[list[int]]]] = {p.name: [] for p in self.puzzle.pieces}
        for atom in solution:
            placement = self.placements[atom]
            out[self.puzzle.pieces[placement.piece].name].append([list(c) for c in placement.cells])
        return {name: copies for name, copies in out.items() if copies}

    def render(self, solution: Solution) -> str:
        """The solution drawn layer by layer, a letter per piece."""
        grid = self.puzzle.grid
        if grid is CUBE:
            return draw_layers(self.puzzle.target, self._symbol_of_cell(solution), self.legend(), self.top_first)
        symbols = self._symbol_of_cell(solution)
        target = list(self.puzzle.target)
        if grid.edges:  # the segments; their crossing marks are the model's, not the drawing's
            target = [
                cell for cell, given in zip(target, grid.given_mask(np.array(target)).tolist(), strict=True) if given
            ]
        drawn = {grid.to_layers(cell): symbols[cell] for cell in target if cell in symbols}
        target = [grid.to_layers(cell) for cell in target]
        return draw_layers(target, drawn, self.legend(), caption=grid.caption)

    def _symbol_of_atom(self, solution: Solution) -> dict[int, str]:
        """Each placed piece's letter in the drawing: copies lettered in the order of their lowest cell."""
        symbol_of: dict[int, str] = {}
        copies_seen: Counter[int] = Counter()
        for atom in sorted(solution, key=lambda a: min(self.placements[a].cells)):
            piece = self.placements[atom].piece
            symbols = self.symbols[piece]
            symbol_of[atom] = symbols[copies_seen[piece] % len(symbols)]
            copies_seen[piece] += 1
        return symbol_of

    def _symbol_of_cell(self, solution: Solution) -> dict[Cell, str]:
        """Each filled cell's letter, `_` for an optional cell left empty (whole pieces at a time:
        a cell at a time was 1.5 ms of drawing DraculasDentalDesaster's first solution)."""
        symbol_of: dict[Cell, str] = {}
        for atom, symbol in self._symbol_of_atom(solution).items():
            symbol_of.update(dict.fromkeys(self.placements[atom].cells, symbol))
        symbol_of.update(dict.fromkeys(self.puzzle.optional - symbol_of.keys(), "_"))
        return symbol_of

    def assembled(self, solution: Solution) -> list[AssembledPiece]:
        """The solution's pieces for the disassembler, in the spec's piece order (the order moves
        are tried in), each named as the spec names its piece (so that a plan, a picture, an STL
        file and the studio's editor all say the same name): a piece placed more than once as
        NAME.1, NAME.2, ... in the order of their lowest cells."""
        from cpsolve.disassembly import AssembledPiece  # only --disassemble needs it

        if self._one_copy_each:  # each piece's one name: made once for each placement
            made = self._assembled_of_atom
            for atom in solution:
                if atom not in made:
                    placement = self.placements[atom]
                    name = self.puzzle.pieces[placement.piece].name
                    made[atom] = (placement.piece, AssembledPiece(name, name, placement.cells))
            return [piece for _, piece in sorted(made[atom] for atom in solution)]
        atoms = sorted(solution, key=lambda a: (self.placements[a].piece, min(self.placements[a].cells)))
        names = [self.puzzle.pieces[self.placements[atom].piece].name for atom in atoms]
        copies = Counter(names)
        seen: Counter[str] = Counter()
        labels = []
        for name in names:
            seen[name] += 1
            labels.append(name if copies[name] == 1 else f"{name}.{seen[name]}")
        return [
            AssembledPiece(label, name, self.placements[atom].cells)
            for label, name, atom in zip(labels, names, atoms, strict=True)
        ]

    def legend(self) -> str:
        """Names the symbols where they are not simply the piece's one-letter name."""
        parts = [
            f"{piece.name}={''.join(symbols)}"
            for piece, symbols in zip(self.puzzle.pieces, self.symbols, strict=True)
            if symbols != [piece.name]
        ]
        return "legend: " + ", ".join(parts) if parts else ""


def _symbols(pieces: Sequence[Piece]) -> list[list[str]]:
    """One character per piece (its name when that is one character), more for several copies.

    Copies get distinct characters so that the drawing shows where each one lies.
    """
    pool = [c for c in string.ascii_uppercase + string.ascii_lowercase + string.digits + "@%&+=*?!$<>^~"]
    taken = {p.name for p in pieces if len(p.name) == 1 and p.bounds.high == 1}
    free = iter([c for c in pool if c not in taken])
    symbols = []
    for piece in pieces:
        if piece.name in taken:
            symbols.append([piece.name])
        else:
            copies = min(piece.bounds.high, 64)
            symbols.append([next(free, "#") for _ in range(max(copies, 1))])
    return symbols
