"""An independent counter for small flat polyform puzzles: polyhexes, polyiamonds, polysticks
and polytrigs, to check cpsolve's grids against.

It shares no code with cpsolve. Every shape is a set of points of a plane lattice in the
lattice's own basis, turned by the lattice's rotation and mirror written out here: the square
lattice's (x, y) -> (-y, x) and (x, y) -> (x, -y); the triangular lattice's (a, b) -> (-b, a + b)
and (a, b) -> (b, a). A hexagon is a point of the triangular lattice; a triangle is its three
corners; a segment its two ends. A plain depth-first cover fills the first uncovered unit in a
fixed order; crossing is checked point by point from the segments' angles; the classes are found
by applying each symmetry of the board to each solution.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence

Point = tuple[int, int]
Unit = frozenset[Point]  # a hexagon (one point), a triangle (three corners), a segment (two ends)
Shape = frozenset[Unit]
Map = Callable[[Point], Point]


def _linear(a: int, b: int, c: int, d: int) -> Map:
    """The map (x, y) -> (a x + b y, c x + d y)."""

    def apply(p: Point) -> Point:
        return (a * p[0] + b * p[1], c * p[0] + d * p[1])

    return apply


def square_maps() -> list[Map]:
    """The 8 symmetries of the square lattice about the origin: quarter turns, then mirrored."""
    turns = [(1, 0, 0, 1), (0, -1, 1, 0), (-1, 0, 0, -1), (0, 1, -1, 0)]
    return [_linear(*m) for m in turns] + [_linear(a, -b, c, -d) for a, b, c, d in turns]


def triangular_maps() -> list[Map]:
    """The 12 symmetries of the triangular lattice about the origin: sixth turns, then mirrored
    (x and y swapped first)."""
    turns = [(1, 0, 0, 1)]
    for _ in range(5):  # a sixth turn after the last: (x, y) -> (-y, x + y)
        a, b, c, d = turns[-1]
        turns.append((-c, -d, a + c, b + d))
    return [_linear(*m) for m in turns] + [_linear(b, a, d, c) for a, b, c, d in turns]


def moved(shape: Shape, by: Point) -> Shape:
    return frozenset(frozenset((p[0] + by[0], p[1] + by[1]) for p in unit) for unit in shape)


def mapped(shape: Shape, how: Map) -> Shape:
    return frozenset(frozenset(how(p) for p in unit) for unit in shape)


def placements(shape: Shape, board: Shape, maps: Sequence[Map], step: Callable[[Point], bool]) -> list[Shape]:
    """Every image of the shape on the board: each symmetry, then each translation of the
    lattice (those `step` allows) that takes one of its units' points onto a board point."""
    board_points = {p for unit in board for p in unit}
    found: set[Shape] = set()
    for how in maps:
        image = mapped(shape, how)
        anchor = min(p for unit in image for p in unit)
        for target in board_points:
            by = (target[0] - anchor[0], target[1] - anchor[1])
            if not step(by):
                continue
            placed = moved(image, by)
            if placed <= board:
                found.add(placed)
    return sorted(found, key=lambda s: sorted(tuple(sorted(u)) for u in s))


def _angle(start: Point, end: Point, basis: Sequence[tuple[float, float]]) -> float:
    dx, dy = end[0] - start[0], end[1] - start[1]
    x = dx * basis[0][0] + dy * basis[1][0]
    y = dx * basis[0][1] + dy * basis[1][1]
    return math.atan2(y, x) % (2 * math.pi)


SQUARE_BASIS = ((1.0, 0.0), (0.0, 1.0))
TRIANGULAR_BASIS = ((1.0, 0.0), (0.5, math.sqrt(3) / 2))


def crosses(first: Shape, second: Shape, basis: Sequence[tuple[float, float]]) -> bool:
    """Whether two sets of segments cross at a point: two of one's segments there separate two of
    the other's around the point (their angles alternate)."""
    for point in {p for unit in first for p in unit} & {p for unit in second for p in unit}:
        mine = [_angle(point, next(iter(u - {point})), basis) for u in first if point in u]
        theirs = [_angle(point, next(iter(u - {point})), basis) for u in second if point in u]
        for i, a in enumerate(mine):
            for b in mine[i + 1 :]:
                low, high = min(a, b), max(a, b)
                inside = [low < c < high for c in theirs]
                if any(inside) and not all(inside):
                    return True
    return False


def solutions(
    pieces: Sequence[tuple[str, Shape]],
    board: Shape,
    maps: Sequence[Map],
    step: Callable[[Point], bool],
    basis: Sequence[tuple[float, float]] | None = None,
) -> set[frozenset[tuple[str, Shape]]]:
    """Every way to cover the board with the pieces, each once (copies: the same name twice);
    with `basis`, no two pieces crossing. A solution is a set of (name, placed shape)."""
    placed = [(name, placements(shape, board, maps, step)) for name, shape in pieces]
    order = sorted(board, key=lambda u: tuple(sorted(u)))
    found: set[frozenset[tuple[str, Shape]]] = set()

    def fill(covered: set[Unit], used: list[bool], chosen: list[tuple[str, Shape]]) -> None:
        first = next((unit for unit in order if unit not in covered), None)
        if first is None:
            found.add(frozenset(chosen))
            return
        for number, (name, options) in enumerate(placed):
            if used[number]:
                continue
            for option in options:
                if first not in option or option & covered:
                    continue
                if basis is not None and any(crosses(option, other, basis) for _, other in chosen):
                    continue
                used[number] = True
                chosen.append((name, option))
                fill(covered | option, used, chosen)
                chosen.pop()
                used[number] = False

    fill(set(), [False] * len(placed), [])
    return found


def classes(found: Iterable[frozenset[tuple[str, Shape]]], board: Shape, maps: Sequence[Map]) -> int:
    """The solutions up to the board's symmetries (each symmetry of the lattice, then the shift
    that lands the board on itself)."""
    low = min(p for unit in board for p in unit)
    own = []
    for how in maps:
        image = mapped(board, how)
        image_low = min(p for unit in image for p in unit)
        by = (low[0] - image_low[0], low[1] - image_low[1])
        if moved(image, by) == board:
            own.append((how, by))
    seen: set[frozenset[tuple[str, Shape]]] = set()
    count = 0
    for solution in found:
        if solution in seen:
            continue
        count += 1
        for how, by in own:
            seen.add(frozenset((name, moved(mapped(shape, how), by)) for name, shape in solution))
    return count


def hexagons(cells: Iterable[Point]) -> Shape:
    return frozenset(frozenset([cell]) for cell in cells)


def segments(pairs: Iterable[tuple[Point, Point]]) -> Shape:
    return frozenset(frozenset(pair) for pair in pairs)


def triangle(a: int, b: int, down: bool) -> Unit:
    if down:
        return frozenset([(a + 1, b), (a, b + 1), (a + 1, b + 1)])
    return frozenset([(a, b), (a + 1, b), (a, b + 1)])


def grown(units: Callable[[Shape], Iterable[Unit]], size: int, start: Unit, maps: Sequence[Map]) -> list[Shape]:
    """Every free polyform of `size` units (turned and turned over), grown a unit at a time."""
    shapes = {frozenset([start])}
    for _ in range(size - 1):
        shapes = {shape | {unit} for shape in shapes for unit in units(shape) if unit not in shape}
    forms: dict[tuple[object, ...], Shape] = {}
    for shape in shapes:
        images = []
        for how in maps:
            image = mapped(shape, how)
            low = min(p for unit in image for p in unit)
            images.append(tuple(sorted(tuple(sorted(u)) for u in moved(image, (-low[0], -low[1])))))
        forms.setdefault(min(images), shape)
    return [forms[key] for key in sorted(forms)]
