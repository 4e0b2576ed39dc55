"""An independent check that a packing solution really is one.

It works on the plain data of a solution (piece name -> list of copies' cells), as written to
`--solutions`, and uses nothing of the model: so a bug in placement generation, decoding or
symmetry cannot vouch for itself.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from cpsolve.geometry import Cell, as_cell, normalise, orientations


def verify_packing(
    pieces: Mapping[str, Sequence[Cell]],
    bounds: Mapping[str, tuple[int, int]],
    target: Sequence[Cell],
    solution: Mapping[str, Sequence[Sequence[Sequence[int]]]],
    fixed: Sequence[tuple[str, Sequence[Cell]]] = (),
) -> list[str]:
    """Problems with a solution; empty when each copy is its piece, turned, and they tile the target."""
    problems = []
    covered: dict[Cell, str] = {}
    for name, copies in solution.items():
        if name not in pieces:
            problems.append(f"unknown piece {name!r}")
            continue
        low, high = bounds[name]
        if not low <= len(copies) <= high:
            problems.append(f"{name}: {len(copies)} copies used, allowed {low}..{high}")
        shapes = set(orientations(pieces[name]))
        for copy in copies:
            cells = [as_cell(c) for c in copy]
            if normalise(cells) not in shapes:
                problems.append(f"{name}: cells {cells} are not a rotation of the piece")
            for cell in cells:
                if cell in covered:
                    problems.append(f"cell {cell} covered by {covered[cell]} and {name}")
                covered[cell] = name
    missing = [name for name, (low, _) in bounds.items() if low > 0 and name not in solution]
    problems.extend(f"{name}: not used, needs at least {bounds[name][0]}" for name in missing)
    if set(covered) != set(target):
        problems.append(
            f"covers {len(covered)} cells; the target has {len(target)}, {len(set(covered) ^ set(target))} differ"
        )
    for name, fixed_cells in fixed:
        if sorted(as_cell(c) for c in fixed_cells) not in [
            sorted(as_cell(c) for c in copy) for copy in solution.get(name, [])
        ]:
            problems.append(f"pre-placed {name} is not where it was fixed")
    return problems
