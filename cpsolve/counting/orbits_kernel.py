"""The orbit of each of a batch of solutions under the symmetry group, compiled (numba).

The same answers as the array operations of cpsolve.counting.classes (`rotation_orbits`), which
stay where no build of the kernels is loaded: those map, sort and compare every image of every
solution as whole arrays (element x solution x atom) and were a third of what classifying a
listing run's solutions cost (Kanoodle's flat board, 92,755 solutions: 0.105 of 0.31 s,
benchmarks/classify.py). Here each solution's images are made, sorted (a few atoms: insertion)
and compared in one pass that stays in the cache (long solutions by a library sort).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

# Insertion sorts an image of up to this many atoms faster than a library sort; past it the
# quadratic sort was the whole run (250x250 monominoes: 9 s for one solution's 16 images).
INSERTION_LONGEST = 32


@njit(cache=True, inline="always")
def _less(images: Any, one: int, other: int) -> bool:
    """Whether image `one` comes before image `other` (rows of `images`, compared as tuples)."""
    for place in range(images.shape[1]):
        if images[one, place] != images[other, place]:
            return bool(images[one, place] < images[other, place])
    return False


@njit(cache=True, inline="always")
def _same(images: Any, one: int, other: int) -> bool:
    same = True
    for place in range(images.shape[1]):
        if images[one, place] != images[other, place]:
            same = False
            break
    return same


@njit(cache=True)
def orbits(maps: Any, proper: Any, atoms: Any, least: Any, least_mirrored: Any, distinct: Any, stabiliser: Any) -> None:
    """For each solution (a row of `atoms`, sorted): `least[i]` its least image under the proper
    elements (rows of `maps`, the image of each atom, where `proper`), `least_mirrored[i]` its
    least under the others (left alone where there are none), `distinct[i]` how many distinct
    images the proper elements give and `stabiliser[i]` how many elements map it onto itself."""
    count, length = atoms.shape
    order = maps.shape[0]
    images = np.empty((order, length), np.int64)
    for solution in range(count):
        fixed = 0
        best = -1
        best_mirrored = -1
        for element in range(order):
            if length <= INSERTION_LONGEST:
                for place in range(length):  # the image's atoms, sorted as they come
                    value = maps[element, atoms[solution, place]]
                    back = place
                    while back > 0 and images[element, back - 1] > value:
                        images[element, back] = images[element, back - 1]
                        back -= 1
                    images[element, back] = value
            else:
                for place in range(length):
                    images[element, place] = maps[element, atoms[solution, place]]
                images[element, :] = np.sort(images[element, :])
            same = True
            for place in range(length):
                if images[element, place] != atoms[solution, place]:
                    same = False
                    break
            fixed += same
            if proper[element]:
                if best < 0 or _less(images, element, best):
                    best = element
            elif best_mirrored < 0 or _less(images, element, best_mirrored):
                best_mirrored = element
        stabiliser[solution] = fixed
        least[solution, :] = images[best]
        if best_mirrored >= 0:
            least_mirrored[solution, :] = images[best_mirrored]
        found = 0
        for element in range(order):
            if not proper[element]:
                continue
            new = True
            for earlier in range(element):
                if proper[earlier] and _same(images, element, earlier):
                    new = False
                    break
            found += new
        distinct[solution] = found
