"""An independent census of chains in a box. Shares no code with cpsolve.

Every path through all the box's cells that starts in the smallest cell of its orbit, found by a
plain depth-first walk; then, chain by chain, every folding as the images of those paths under the
box's symmetries (each path's orbit holds one that starts in such a cell), and the classes as the
distinct smallest images of every folding: no Burnside, no weights. A palindromic chain's folding is a path and the
same path read backwards.
"""

from __future__ import annotations

from collections import defaultdict
from itertools import permutations, product

import numpy as np

Cell = tuple[int, int, int]
STEPS = [(1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)]
BITS_PER_CELL = 6
CELLS_PER_WORD = 10


def _symmetries(size: tuple[int, int, int], cells: list[Cell]) -> list[tuple[list[int], bool]]:
    index: dict[tuple[int, ...], int] = {c: i for i, c in enumerate(cells)}
    found = []
    for perm in permutations(range(3)):
        if [size[perm[i]] for i in range(3)] != list(size):
            continue
        for signs in product((1, -1), repeat=3):
            inversions = sum(1 for i in range(3) for j in range(i + 1, 3) if perm[i] > perm[j])
            proper = (-1) ** inversions * signs[0] * signs[1] * signs[2] == 1
            images = [
                index[tuple(c[perm[i]] if signs[i] == 1 else size[i] - 1 - c[perm[i]] for i in range(3))] for c in cells
            ]
            found.append((images, proper))
    return found


def _paths_from(start: int, neighbours: list[list[int]], n: int) -> list[list[int]]:
    found: list[list[int]] = []
    path = [start]
    everything = (1 << n) - 1

    around = [sum(1 << m for m in neighbours[cell]) for cell in range(n)]

    def dead_end(free: int, head: int) -> bool:
        """A free cell with no open neighbour, or two with one (only the last cube may have one)."""
        ends = 0
        open_cells = free | 1 << head
        rest = free
        while rest:
            cell = (rest & -rest).bit_length() - 1
            rest &= rest - 1
            open_neighbours = (around[cell] & open_cells).bit_count()
            if open_neighbours <= 1:
                ends += 2 - open_neighbours
                if ends > 1:
                    return True
        return False

    def walk(free: int) -> None:
        if not free:
            found.append(list(path))
            return
        for after in neighbours[path[-1]]:
            if free >> after & 1:
                left = free & ~(1 << after)
                if left and dead_end(left, after):
                    continue
                path.append(after)
                walk(left)
                path.pop()

    walk(everything & ~(1 << start))
    return found


def _joints(path: list[int], cells: list[Cell]) -> str:
    letters = []
    for before, here, after in zip(path, path[1:], path[2:], strict=False):
        into = tuple(a - b for a, b in zip(cells[here], cells[before], strict=True))
        out = tuple(a - b for a, b in zip(cells[after], cells[here], strict=True))
        letters.append("S" if into == out else "C")
    return "".join(letters)


def _words(paths: np.ndarray) -> np.ndarray:
    """Each path (last axis) as a few integers that compare as the path does."""
    n = paths.shape[-1]
    words = []
    for first in range(0, n, CELLS_PER_WORD):
        word = np.zeros(paths.shape[:-1], np.int64)
        for cell in range(first, min(n, first + CELLS_PER_WORD)):
            word = (word << BITS_PER_CELL) | paths[..., cell]
        words.append(word)
    return np.stack(words, axis=-1)


def _smallest(words: np.ndarray) -> np.ndarray:
    """Per path (axis 1) the smallest of its images (axis 0), compared word by word."""
    best = words[0]
    for image in words[1:]:
        smaller = np.zeros(best.shape[0], bool)
        decided = np.zeros(best.shape[0], bool)
        for w in range(best.shape[1]):
            smaller |= ~decided & (image[:, w] < best[:, w])
            decided |= image[:, w] != best[:, w]
        best = np.where(smaller[:, None], image, best)
    result: np.ndarray = best
    return result


def census(size: tuple[int, int, int]) -> dict[str, tuple[int, int, int]]:
    """{joints: (raw, rotations, unique)} for every chain that folds into the box, each chain under
    the smaller (in letter order) of its joints and their reverse."""
    cells = [(x, y, z) for z in range(size[2]) for y in range(size[1]) for x in range(size[0])]
    index = {c: i for i, c in enumerate(cells)}
    n = len(cells)
    neighbours = [
        [index[m] for m in (tuple(a + b for a, b in zip(c, s, strict=True)) for s in STEPS) if m in index]
        for c in cells
    ]
    symmetries = _symmetries(size, cells)
    starts = sorted({min(images[i] for images, _ in symmetries) for i in range(n)})
    by_joints: dict[str, list[list[int]]] = defaultdict(list)
    for start in starts:
        for path in _paths_from(start, neighbours, n):
            by_joints[_joints(path, cells)].append(path)
    maps = np.array([images for images, _ in symmetries])
    proper = np.array([is_proper for _, is_proper in symmetries])
    counts: dict[str, tuple[int, int, int]] = {}
    for joints, paths in by_joints.items():
        chain = min(joints, joints[::-1])
        if chain in counts:
            continue
        images = maps[:, np.array(paths)]  # (symmetry, path, cube)
        palindrome = joints == joints[::-1]
        if palindrome:
            images = np.concatenate([images, images[:, :, ::-1]])
        words = _words(images)
        every = {tuple(row) for row in words.reshape(-1, words.shape[-1]).tolist()}
        classes = {tuple(row) for row in _smallest(words).tolist()}
        # every folding, not only those from the chosen cells: a rotation's orbit of a path may hold
        # none of them where the box has fewer rotations than symmetries move its cells (2x3x4)
        folded = np.unique(images.reshape(-1, n), axis=0)
        turned_images = maps[proper][:, folded]
        if palindrome:
            turned_images = np.concatenate([turned_images, turned_images[:, :, ::-1]])
        turned = {tuple(row) for row in _smallest(_words(turned_images)).tolist()}
        counts[chain] = (len(every) // (2 if palindrome else 1), len(turned), len(classes))
    return counts
