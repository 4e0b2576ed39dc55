"""Symmetry, in one place: what "the same solution" means for every family and engine.

- `target`: the symmetries of a target as maps of its cells (rotations, reflections, parts turned
  on their own), and which pieces a mirror turns into which;
- `atoms`: the symmetries of a model as permutations of its atoms (what families build from the
  cell maps, and what the counting reduces by);
- `breaking`: which atoms a search may leave out, and the weight of each solution it then finds.
"""

from __future__ import annotations

from .atoms import AtomSymmetry, ElementRows, Solution, SymmetryGroup
from .breaking import Breaking, FirstSet, Subgroup, choose_breaking, first_sets
from .target import (
    CellSymmetry,
    PartsMode,
    PieceBounds,
    SymmetryArrays,
    SymmetryMode,
    burrtools_mirror_partners,
    mirror_partners,
    target_symmetries,
    target_symmetry_arrays,
)

__all__ = [
    "AtomSymmetry",
    "Breaking",
    "CellSymmetry",
    "ElementRows",
    "FirstSet",
    "PartsMode",
    "PieceBounds",
    "Solution",
    "Subgroup",
    "SymmetryArrays",
    "SymmetryGroup",
    "SymmetryMode",
    "burrtools_mirror_partners",
    "choose_breaking",
    "first_sets",
    "mirror_partners",
    "target_symmetries",
    "target_symmetry_arrays",
]
