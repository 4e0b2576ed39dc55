"""Packing: polycubes and polyominoes that fill a set of cells exactly.

The family's jobs live in their own modules: resolving a spec (`puzzle`), finding the placements
(`placements`), the symmetry group with BurrTools' mirror rule (`symmetries`), the model
(`model`), and showing solutions (`drawing`, `scene`). This module is the family's record.
"""

from __future__ import annotations

from cpsolve.spec import PackingSpec

from ..base import Family
from .model import PackingBuilder, PackingModel
from .puzzle import PackingPuzzle, Piece, Placement, resolve, shape_cells
from .scene import packing_scene
from .symmetries import check_symmetry_size

FAMILY = Family("packing", PackingSpec, PackingBuilder(), packing_scene, drawing="pieces", disassembles=True)


__all__ = [
    "FAMILY",
    "PackingBuilder",
    "PackingModel",
    "PackingPuzzle",
    "Piece",
    "Placement",
    "check_symmetry_size",
    "resolve",
    "shape_cells",
]
