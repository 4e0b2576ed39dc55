"""An independent counter for chains: a plain depth-first fold, then classes by brute force.

Shares no code with cpsolve. A folding is the tuple of cells in chain order; for a palindromic
chain a folding and its reverse are one physical folding.
"""

from __future__ import annotations

from itertools import permutations, product

Cell = tuple[int, int, int]
STEPS = [(1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)]


def foldings(segments: list[int], size: tuple[int, int, int]) -> set[tuple[Cell, ...]]:
    cells = {(x, y, z) for x in range(size[0]) for y in range(size[1]) for z in range(size[2])}
    found: set[tuple[Cell, ...]] = set()

    def fold(path: list[Cell], segment: int, last: Cell | None) -> None:
        if segment == len(segments):
            if len(path) == len(cells):
                found.add(tuple(path))
            return
        for step in STEPS:
            if last is not None and (step == last or step == tuple(-v for v in last)):
                continue
            added = []
            for _ in range(segments[segment] - 1):
                x, y, z = path[-1]
                nxt = (x + step[0], y + step[1], z + step[2])
                if nxt not in cells or nxt in path:
                    break
                path.append(nxt)
                added.append(nxt)
            else:
                fold(path, segment + 1, step)
            del path[len(path) - len(added) :]

    for start in cells:
        fold([start], 0, None)
    return found


def count(segments: list[int], size: tuple[int, int, int]) -> tuple[int, int, int]:
    """(raw, rotations, unique) for a chain filling a box."""
    palindrome = segments == segments[::-1]
    paths = foldings(segments, size)
    if palindrome:
        paths = {min(p, p[::-1]) for p in paths}
    maps = []
    for perm in permutations(range(3)):
        for signs in product((1, -1), repeat=3):
            parity = sum(1 for i in range(3) for j in range(i + 1, 3) if perm[i] > perm[j]) % 2
            proper = (-1) ** parity * signs[0] * signs[1] * signs[2] == 1
            scaled = [size[perm[i]] for i in range(3)]
            if scaled != list(size):
                continue

            def move(c: Cell, perm: tuple[int, ...] = perm, signs: tuple[int, ...] = signs) -> Cell:
                return tuple(  # type: ignore[return-value]
                    c[perm[i]] if signs[i] == 1 else size[i] - 1 - c[perm[i]] for i in range(3)
                )

            maps.append((move, proper))

    def canonical(path: tuple[Cell, ...], proper_only: bool) -> tuple[Cell, ...]:
        images = []
        for move, proper in maps:
            if proper_only and not proper:
                continue
            image = tuple(move(c) for c in path)
            images.append(min(image, image[::-1]) if palindrome else image)
        return min(images)

    rotations = len({canonical(p, True) for p in paths})
    unique = len({canonical(p, False) for p in paths})
    return len(paths), rotations, unique
