"""An independent counter for small packings with optional target cells, colours and a hole limit
(what BurrTools puzzles can say), to check cpsolve against.

It shares no code with cpsolve: its own rotations, its own coloured placements, a plain search that
decides the target's cells in order (filled by a piece, or, for an optional cell, left empty), and
classes found by applying every symmetry to every solution. Slow, simple, and easy to believe.
"""

from __future__ import annotations

from collections import Counter
from itertools import permutations, product

Cell = tuple[int, int, int]
Coloured = frozenset[tuple[Cell, str | None]]  # a piece's cells with their colours
Piece = tuple[dict[Cell, str | None], int, int]  # colour of each cell (None: none), least, most
Target = dict[Cell, tuple[bool, str | None]]  # cell -> (optional, colour)


def matrices() -> list[tuple[tuple[int, ...], tuple[int, ...], bool]]:
    found = []
    for perm in permutations(range(3)):
        for signs in product((1, -1), repeat=3):
            parity = sum(1 for i in range(3) for j in range(i + 1, 3) if perm[i] > perm[j]) % 2
            found.append((perm, signs, (-1) ** parity * signs[0] * signs[1] * signs[2] == 1))
    return found


def apply(m: tuple[tuple[int, ...], tuple[int, ...], bool], c: Cell) -> Cell:
    perm, signs, _ = m
    return (signs[0] * c[perm[0]], signs[1] * c[perm[1]], signs[2] * c[perm[2]])


def normal(coloured: dict[Cell, str | None]) -> Coloured:
    lo = [min(c[i] for c in coloured) for i in range(3)]
    return frozenset(((c[0] - lo[0], c[1] - lo[1], c[2] - lo[2]), k) for c, k in coloured.items())


def ways(coloured: dict[Cell, str | None], proper_only: bool = True) -> set[Coloured]:
    return {normal({apply(m, c): k for c, k in coloured.items()}) for m in matrices() if m[2] or not proper_only}


def fits(piece_colour: str | None, target_colour: str | None, rule: set[tuple[str, str]]) -> bool:
    return piece_colour is None or target_colour is None or (piece_colour, target_colour) in rule


def count(
    pieces: dict[str, Piece],
    target: Target,
    rule: set[tuple[str, str]],
    max_holes: int | None = None,
    symmetry: str = "all",
) -> tuple[int, int, int]:
    """(raw, rotations, unique): pieces fill every non-optional cell once, optional cells at most
    once (at most max_holes of them empty), colours fit, copies within bounds."""
    coloured = any(k is not None for p in pieces.values() for k in p[0].values()) or any(
        k is not None for _, k in target.values()
    )
    placements: list[tuple[str, Coloured]] = []
    for name, (cells, _, _) in pieces.items():
        for shape in ways(cells):
            for dx, dy, dz in product(range(-5, 8), repeat=3):
                moved = frozenset(((x + dx, y + dy, z + dz), k) for (x, y, z), k in shape)
                if all(c in target and (not coloured or fits(k, target[c][1], rule)) for c, k in moved):
                    placements.append((name, moved))
    placements = list(dict.fromkeys(placements))
    solutions: set[frozenset[tuple[str, Coloured]]] = set()
    order = sorted(target)
    limit = len(order) if max_holes is None else max_holes

    def search(at: int, taken: set[Cell], used: Counter[str], holes: int, chosen: list[tuple[str, Coloured]]) -> None:
        while at < len(order) and order[at] in taken:
            at += 1
        if at == len(order):
            if all(lo <= used[n] <= hi for n, (_, lo, hi) in pieces.items()):
                solutions.add(frozenset(chosen))
            return
        cell = order[at]
        for name, moved in placements:
            cells = {c for c, _ in moved}
            if cell in cells and min(cells) == cell and not cells & taken and used[name] < pieces[name][2]:
                used[name] += 1
                chosen.append((name, moved))
                search(at + 1, taken | cells, used, holes, chosen)
                chosen.pop()
                used[name] -= 1
        if target[cell][0] and holes < limit:
            search(at + 1, taken | {cell}, used, holes + 1, chosen)

    search(0, set(), Counter(), 0, [])
    mirror_of: dict[str, str] = {}
    for name, (cells, lo, hi) in pieces.items():
        mirrored = ways({(-x, y, z): k for (x, y, z), k in cells.items()})
        mates = [o for o in pieces if ways(pieces[o][0]) == mirrored and pieces[o][1:] == (lo, hi)]
        if mates:
            mirror_of[name] = name if name in mates else mates[0]
    reflections = symmetry == "all" and len(mirror_of) == len(pieces)
    lo_t = [min(c[i] for c in target) for i in range(3)]
    group = []
    for m in matrices():
        if not m[2] and not reflections:
            continue
        image = {c: apply(m, c) for c in target}
        lo_i = [min(c[i] for c in image.values()) for i in range(3)]
        mapping = {
            c: (i[0] + lo_t[0] - lo_i[0], i[1] + lo_t[1] - lo_i[1], i[2] + lo_t[2] - lo_i[2]) for c, i in image.items()
        }
        if all(mapping[c] in target and target[mapping[c]] == target[c] for c in target):
            group.append((mapping, m[2]))

    def act(g: tuple[dict[Cell, Cell], bool], sol: frozenset[tuple[str, Coloured]]) -> tuple[object, ...]:
        mapping, proper = g
        moved = ((n if proper else mirror_of[n], tuple(sorted((mapping[c], k) for c, k in cells))) for n, cells in sol)
        return tuple(sorted(moved, key=repr))

    def classes_under(elements: list[tuple[dict[Cell, Cell], bool]]) -> int:
        return len({min((act(g, s) for g in elements), key=repr) for s in solutions})

    rotations = classes_under([g for g in group if g[1]])
    unique = len(solutions) if symmetry == "none" else classes_under(group)
    return len(solutions), rotations, unique
