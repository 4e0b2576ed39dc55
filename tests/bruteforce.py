"""An independent counter for small packing puzzles, to check cpsolve against.

It shares no code with cpsolve: its own rotations (signed permutation matrices), its own
placements, a plain depth-first exact cover, and classes found by applying every symmetry to
every solution. Slow, simple, and easy to believe.
"""

from __future__ import annotations

from collections import Counter
from itertools import permutations, product

Cell = tuple[int, int, int]


def matrices() -> list[tuple[tuple[int, ...], tuple[int, ...], bool]]:
    found = []
    for perm in permutations(range(3)):
        for signs in product((1, -1), repeat=3):
            parity = sum(1 for i in range(3) for j in range(i + 1, 3) if perm[i] > perm[j]) % 2
            det = (-1) ** parity * signs[0] * signs[1] * signs[2]
            found.append((perm, signs, det == 1))
    return found


def apply(m: tuple[tuple[int, ...], tuple[int, ...], bool], c: Cell) -> Cell:
    perm, signs, _ = m
    return (signs[0] * c[perm[0]], signs[1] * c[perm[1]], signs[2] * c[perm[2]])


def norm(cells: list[Cell]) -> frozenset[Cell]:
    lo = [min(c[i] for c in cells) for i in range(3)]
    return frozenset((c[0] - lo[0], c[1] - lo[1], c[2] - lo[2]) for c in cells)


def rotation_class(cells: list[Cell]) -> frozenset[frozenset[Cell]]:
    return frozenset(norm([apply(m, c) for c in cells]) for m in matrices() if m[2])


def _solutions(
    pieces: dict[str, tuple[list[Cell], int, int]], target: list[Cell]
) -> set[frozenset[tuple[str, frozenset[Cell]]]]:
    """Every filling of target by pieces name -> (cells, least, most): sets of (name, cells)."""
    tset = set(target)
    placements = []
    for name, (cells, _, _) in pieces.items():
        for shape in rotation_class(cells):
            for dx, dy, dz in product(range(-5, 8), repeat=3):
                moved = frozenset((x + dx, y + dy, z + dz) for x, y, z in shape)
                if moved <= tset:
                    placements.append((name, moved))
    placements = list(dict.fromkeys(placements))
    solutions: set[frozenset[tuple[str, frozenset[Cell]]]] = set()

    def search(free: set[Cell], used: Counter[str], chosen: list[tuple[str, frozenset[Cell]]]) -> None:
        if not free:
            if all(lo <= used[n] <= hi for n, (_, lo, hi) in pieces.items()):
                solutions.add(frozenset(chosen))
            return
        cell = min(free)
        for name, cells in placements:
            if cell in cells and cells <= free and used[name] < pieces[name][2]:
                used[name] += 1
                chosen.append((name, cells))
                search(free - cells, used, chosen)
                chosen.pop()
                used[name] -= 1

    search(set(tset), Counter(), [])
    return solutions


def count(
    pieces: dict[str, tuple[list[Cell], int, int]], target: list[Cell], symmetry: str = "all"
) -> tuple[int, int, int]:
    """(raw, rotations, unique) for pieces name -> (cells, least, most) filling target exactly."""
    tset = set(target)
    solutions = _solutions(pieces, target)
    classes = {name: rotation_class(cells) for name, (cells, _, _) in pieces.items()}
    mirror_of: dict[str, str] = {}
    for name, (cells, lo, hi) in pieces.items():
        mirrored = rotation_class([(-x, y, z) for x, y, z in cells])
        mates = [o for o in pieces if classes[o] == mirrored and pieces[o][1:] == (lo, hi)]
        if mates:
            mirror_of[name] = mates[0] if name not in mates else name
    reflections = symmetry == "all" and len(mirror_of) == len(pieces)
    group = []
    lo_t = [min(c[i] for c in target) for i in range(3)]
    for m in matrices():
        if not m[2] and not reflections:
            continue
        image = [apply(m, c) for c in target]
        lo_i = [min(c[i] for c in image) for i in range(3)]
        shift = [lo_t[i] - lo_i[i] for i in range(3)]
        mapping = {c: (i[0] + shift[0], i[1] + shift[1], i[2] + shift[2]) for c, i in zip(target, image, strict=True)}
        if set(mapping.values()) == tset:
            group.append((mapping, m[2]))

    def act(
        g: tuple[dict[Cell, Cell], bool], sol: frozenset[tuple[str, frozenset[Cell]]]
    ) -> frozenset[tuple[str, frozenset[Cell]]]:
        mapping, proper = g
        return frozenset((n if proper else mirror_of[n], frozenset(mapping[c] for c in cells)) for n, cells in sol)

    def classes_under(elements: list[tuple[dict[Cell, Cell], bool]]) -> int:
        return len(
            {min(tuple(sorted((n, tuple(sorted(c))) for n, c in act(g, s))) for g in elements) for s in solutions}
        )

    rotations = classes_under([g for g in group if g[1]])
    unique = len(solutions) if symmetry == "none" else classes_under(group)
    return len(solutions), rotations, unique


def burrtools_unique(pieces: dict[str, tuple[list[Cell], int, int]], target: list[Cell]) -> int:
    """The classes BurrTools reports: rotations always; a mirror image (each chiral piece swapped
    for a piece of the mirror shape, whatever its bounds) merges two classes when it is a solution."""
    tset = set(target)
    solutions = _solutions(pieces, target)
    classes = {name: rotation_class(cells) for name, (cells, _, _) in pieces.items()}
    partner: dict[str, str] = {}
    for name in sorted(pieces):
        mirrored = rotation_class([(-x, y, z) for x, y, z in pieces[name][0]])
        if mirrored == classes[name]:
            partner[name] = name
        elif name not in partner:
            mate = next((o for o in sorted(pieces) if o not in partner and o != name and classes[o] == mirrored), None)
            if mate is not None:
                partner[name], partner[mate] = mate, name
    lo_t = [min(c[i] for c in target) for i in range(3)]
    group = []
    for m in matrices():
        image = [apply(m, c) for c in target]
        lo_i = [min(c[i] for c in image) for i in range(3)]
        mapping = {
            c: (i[0] + lo_t[0] - lo_i[0], i[1] + lo_t[1] - lo_i[1], i[2] + lo_t[2] - lo_i[2])
            for c, i in zip(target, image, strict=True)
        }
        if set(mapping.values()) == tset:
            group.append((mapping, m[2]))
    root = {s: s for s in solutions}

    def find(s: frozenset[tuple[str, frozenset[Cell]]]) -> frozenset[tuple[str, frozenset[Cell]]]:
        while root[s] != s:
            s = root[s]
        return s

    for solution in solutions:
        for mapping, proper in group:
            if not proper and any(n not in partner for n, _ in solution):
                continue
            image_of_solution = frozenset(
                (n if proper else partner[n], frozenset(mapping[c] for c in cells)) for n, cells in solution
            )
            if image_of_solution in solutions:
                root[find(image_of_solution)] = find(solution)
    return len({find(s) for s in solutions})
