"""An independent, slow and plain check of disassembly, and a replay of a plan.

`brute_force` tries, from every position it can reach, every set of pieces in every direction
over every distance (no closures, no halves, no unions): a set comes free when it can move past
everything else. It answers whether the pieces come apart (trying every separation, not only the
first) and how many moves the first part needs. Only for a few small pieces.

`replay` takes the moves of a plan and checks each against the cells: nothing passes through
anything on the way, a part "taken out" really is free, and at the end every piece is on its own
or in a part the plan says stays together.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from cpsolve.disassembly import Move
from cpsolve.geometry import Cell
from cpsolve.grids import CUBE, Grid, Step

Offsets = tuple[Cell, ...]


def _cells(pieces: Sequence[Sequence[Cell]], offsets: Offsets, members: Sequence[int]) -> dict[Cell, int]:
    occupied: dict[Cell, int] = {}
    for member in members:
        dx, dy, dz = offsets[member]
        for x, y, z in pieces[member]:
            occupied[(x + dx, y + dy, z + dz)] = member
    return occupied


def _shifted(offsets: Offsets, moving: Sequence[int], vector: Cell, amount: int) -> Offsets:
    moved = list(offsets)
    for member in moving:
        x, y, z = moved[member]
        moved[member] = (x + amount * vector[0], y + amount * vector[1], z + amount * vector[2])
    return tuple(moved)


def _passes_free(
    pieces: Sequence[Sequence[Cell]],
    offsets: Offsets,
    moving: Sequence[int],
    staying: Sequence[int],
    step: Step,
    grid: Grid,
) -> bool:
    """Whether the moving pieces can go one unit along `step` from `offsets`: no cell a moving
    cell passes through on the way (on cubes: where it ends) holds a staying piece."""
    held = _cells(pieces, offsets, staying)
    for member in moving:
        dx, dy, dz = offsets[member]
        for x, y, z in pieces[member]:
            cell = (x + dx, y + dy, z + dz)
            for wx, wy, wz in step.passes[grid.step_kind(cell)]:
                if (cell[0] + wx, cell[1] + wy, cell[2] + wz) in held:
                    return False
    return True


def _collides(pieces: Sequence[Sequence[Cell]], offsets: Offsets, members: Sequence[int]) -> bool:
    seen: set[Cell] = set()
    for member in members:
        dx, dy, dz = offsets[member]
        for x, y, z in pieces[member]:
            cell = (x + dx, y + dy, z + dz)
            if cell in seen:
                return True
            seen.add(cell)
    return False


def _span(pieces: Sequence[Sequence[Cell]], offsets: Offsets | None = None, members: Sequence[int] = ()) -> int:
    """The largest extent along any axis (of the given members where they are now): a set moved
    this far has passed everything else."""
    if offsets is None:
        values = [value for piece in pieces for cell in piece for value in cell]
    else:
        values = [value for cell in _cells(pieces, offsets, members) for value in cell]
    return max(values) - min(values) + 1


def brute_force(pieces: Sequence[Sequence[Cell]], grid: Grid = CUBE) -> tuple[bool, int | None]:
    """(whether the assembly comes apart, moves until the first part comes free or None), moving
    by the grid's steps."""
    members = list(range(len(pieces)))
    start = tuple((0, 0, 0) for _ in pieces)
    return _apart(pieces, members, start, _span(pieces), grid)


def _apart(
    pieces: Sequence[Sequence[Cell]], members: list[int], start: Offsets, span: int, grid: Grid
) -> tuple[bool, int | None]:
    if len(members) == 1:
        return True, 0
    bound = 2 * span + 1  # the first piece never moves (the others move back instead); none goes farther
    seen = {_relative(start, members)}
    frontier = [start]
    first_level: int | None = None
    depth = 0
    while frontier:
        following = []
        for offsets in frontier:
            for moving in _subsets(members[1:]):
                staying = [m for m in members if m not in moving]
                for step in grid.steps:
                    free_at = _span(pieces, offsets, members)
                    for distance in range(1, free_at + 1):
                        before = _shifted(offsets, moving, step.vector, distance - 1)
                        if not _passes_free(pieces, before, moving, staying, step, grid):
                            break
                        moved = _shifted(offsets, moving, step.vector, distance)
                        if distance == free_at:  # past everything: a part comes free
                            if first_level is None:
                                first_level = depth + 1
                            if (
                                _apart(pieces, list(moving), offsets, span, grid)[0]
                                and _apart(pieces, staying, offsets, span, grid)[0]
                            ):
                                return True, first_level
                            break
                        key = _relative(moved, members)
                        if key in seen or max(abs(v) for o in moved for v in o) > bound:
                            continue
                        seen.add(key)
                        following.append(moved)
        frontier = following
        depth += 1
    return False, first_level


def _subsets(members: list[int]) -> list[tuple[int, ...]]:
    """Every non-empty set of the pieces (all but the first: moving a set that holds it is moving
    the others the other way)."""
    return [subset for size in range(1, len(members) + 1) for subset in combinations(members, size)]


def _relative(offsets: Offsets, members: Sequence[int]) -> tuple[int, ...]:
    base = offsets[members[0]]
    return tuple(offsets[m][axis] - base[axis] for m in members for axis in range(3))


def replay(
    pieces: Sequence[Sequence[Cell]],
    labels: Sequence[str],
    plan: Sequence[Move],
    groups: Sequence[Sequence[str]],
    grid: Grid = CUBE,
) -> None:
    """Check every move of a plan on the cells (on the way too: the cells each passes through on
    the grid); raises AssertionError at the first that fails."""
    index = {label: number for number, label in enumerate(labels)}
    assert len(index) == len(labels), "labels must name the pieces one to one"
    offsets: Offsets = tuple((0, 0, 0) for _ in pieces)
    parts: list[set[int]] = [set(range(len(pieces)))]
    for move in plan:
        moving = [index[label] for label in move.pieces]
        part = next(p for p in parts if moving[0] in p)
        assert set(moving) < part, f"{move.describe()}: the pieces are not all in one part, or are all of it"
        members = sorted(part)
        distance = move.distance if move.distance is not None else _span(pieces, offsets, members)
        step = next(s for s in grid.steps if s.name == move.direction and s.vector == move.step)
        staying = [m for m in members if m not in moving]
        for unit in range(1, distance + 1):
            before = _shifted(offsets, moving, move.step, unit - 1)
            assert _passes_free(pieces, before, moving, staying, step, grid), f"{move.describe()}: collides at {unit}"
            assert not _collides(pieces, _shifted(offsets, moving, move.step, unit), members)
        if move.distance is None:
            parts.remove(part)
            parts.extend([set(moving), part - set(moving)])
        else:
            offsets = _shifted(offsets, moving, move.step, move.distance)
    together = sorted(sorted(index[label] for label in group) for group in groups)
    assert sorted(sorted(p) for p in parts if len(p) > 1) == together, "pieces left together that no group holds"
