"""The atom each placement becomes under each symmetry of the target, compiled (numba).

The same answers as the array operations of models/packing/symmetries.py (`_LengthGroup`), which
stay where no build of the kernels is loaded: those sort every image's cells so that it can be
looked up by key, and that sorting was most of a burr's model (BurrTools' PelikanBurr: 3,600
placements of 23-27 cells under 23 symmetries, 0.023-0.037 s). Here a placement is looked up by a
hash that does not depend on the order of its cells (a sum of one mixed number per cell and
colour, and its piece's), in an open addressing table of the group's placements; a hit is
checked cell by cell against the placement it names (a stamp per target cell), so a hash that
collides never gives a wrong atom.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

MIX = 0x9E3779B97F4A7C15 - (1 << 64)  # odd 64-bit constants, as signed int64 (numba wraps them)
MIX_AGAIN = 0x94D049BB133111EB - (1 << 64)
COLOURS_PER_CELL = 1 << 16  # colour codes are int16: a cell's and its colour's number never clash


@njit(cache=True, inline="always")
def _mixed(value: Any) -> Any:
    """A 64-bit number that looks random for each value (splitmix64's finaliser)."""
    value = (value ^ (value >> 30)) * MIX
    value = (value ^ (value >> 27)) * MIX_AGAIN
    return value ^ (value >> 31)


@njit(cache=True, inline="always")
def _cell_term(cell: Any, colour: Any) -> Any:
    return _mixed(cell * COLOURS_PER_CELL + colour + 1)


@njit(cache=True)
def atom_images(
    images: Any, mirrored: Any, cells: Any, colours: Any, pieces: Any, mirror_of: Any, atoms: Any, found: Any
) -> None:
    """Fill `found` (symmetries x placements): the atom that placement i of one length group
    becomes under symmetry s, -1 where that is none of the group's placements.

    `images[s, c]`: the target cell that cell c goes to; `mirrored[s, c]`: whether c's part is
    reflected (the piece is then swapped for `mirror_of[i]`, -1: it has no partner); `cells` the
    placements' target cells (placements x length), `colours` their colour codes (0: none),
    `pieces` their pieces and `atoms` their atom numbers."""
    count, length = cells.shape
    size = 2
    while size < 2 * count:
        size *= 2
    slots = np.full(size, -1, np.int64)  # a placement's index in the group, by its hash
    hashes = np.empty(count, np.int64)
    for placement in range(count):
        hashed = _mixed(pieces[placement] + 1)
        for place in range(length):
            hashed += _cell_term(cells[placement, place], colours[placement, place])
        hashes[placement] = hashed
        slot = hashed & (size - 1)
        while slots[slot] >= 0:
            slot = (slot + 1) & (size - 1)
        slots[slot] = placement
    stamp = np.zeros(images.shape[1], np.int64)  # == generation: a cell of the placement checked against
    colour_at = np.zeros(images.shape[1], np.int64)
    generation = 0
    plain = np.empty(images.shape[1], np.int64)  # each cell's image's term without colour, one symmetry's
    for symmetry in range(images.shape[0]):
        for cell in range(images.shape[1]):
            plain[cell] = _cell_term(images[symmetry, cell], 0)
        for placement in range(count):
            found[symmetry, placement] = -1
            piece = pieces[placement]
            if mirrored[symmetry, cells[placement, 0]]:
                piece = mirror_of[placement]
            if piece < 0:
                continue
            hashed = _mixed(piece + 1)
            for place in range(length):
                cell, colour = cells[placement, place], colours[placement, place]
                hashed += plain[cell] if colour == 0 else _cell_term(images[symmetry, cell], colour)
            slot = hashed & (size - 1)
            while slots[slot] >= 0:
                other = slots[slot]
                slot = (slot + 1) & (size - 1)
                if hashes[other] != hashed or pieces[other] != piece:
                    continue
                generation += 1
                for place in range(length):
                    stamp[cells[other, place]] = generation
                    colour_at[cells[other, place]] = colours[other, place]
                same = True
                for place in range(length):
                    cell = images[symmetry, cells[placement, place]]
                    if stamp[cell] != generation or colour_at[cell] != colours[placement, place]:
                        same = False
                        break
                if same:
                    found[symmetry, placement] = atoms[other]
                    break
