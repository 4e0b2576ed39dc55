"""Symmetries as permutations of a model's atoms: what every family hands the counting.

Every family describes a solution as a sorted tuple of atoms (for packing an atom is one
placement of one piece) and every symmetry of the puzzle as a permutation of atoms, built from
the target's cell maps (cpsolve.symmetry.target).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, overload

import numpy as np

Solution = tuple[int, ...]


@dataclass(frozen=True)
class AtomSymmetry:
    """One symmetry of a puzzle as a permutation of its atoms."""

    atom_map: tuple[int, ...]
    proper: bool

    def apply(self, solution: Solution) -> Solution:
        atom_map = self.atom_map
        return tuple(sorted(atom_map[a] for a in solution))


class ElementRows(Sequence[AtomSymmetry]):
    """A group's elements kept as its maps (an int64 array, a row per element) and which are
    proper, each made an `AtomSymmetry` only when the elements are asked for: the counting, the
    breaking and the engines read the arrays, and PelikanBurr's 24 maps of 3,601 placements as
    tuples were 1.9 ms of every run."""

    def __init__(self, maps: Any, proper: Any) -> None:
        self.maps, self.proper = maps, proper

    def __len__(self) -> int:
        return len(self.maps)

    @overload
    def __getitem__(self, index: int) -> AtomSymmetry: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[AtomSymmetry, ...]: ...

    def __getitem__(self, index: int | slice) -> AtomSymmetry | tuple[AtomSymmetry, ...]:
        return self._made[index]

    def __iter__(self) -> Iterator[AtomSymmetry]:
        return iter(self._made)

    @cached_property
    def _made(self) -> tuple[AtomSymmetry, ...]:
        rows = zip(self.maps.tolist(), self.proper.tolist(), strict=True)
        return tuple(AtomSymmetry(tuple(row), proper) for row, proper in rows)


@dataclass(frozen=True)
class SymmetryGroup:
    """The symmetries a run reduces by.

    `elements` is the group G used for `unique` (for `symmetry: none` only the proper part is
    kept, and `unique` then equals `raw`); its proper elements give `rotations`. `is_valid`
    rejects images that are not solutions of the puzzle (parts mirrored separately can produce a
    piece set the puzzle does not have). `redundancy` is the order of a subgroup of G that acts
    freely and only changes how one solution is written (reading a palindromic chain from its
    other end): raw counts solutions, not writings, so each orbit's size is divided by it.
    `cell_maps` (families made of cells: packing) is each element's map of the cells, a row per
    element, for a count that needs to know which cells a symmetry swaps (cpsolve.engines.frontier.counter).
    """

    elements: Sequence[AtomSymmetry]  # a tuple, or the maps themselves (`ElementRows`)
    unique_counts_raw: bool = False
    is_valid: Callable[[Solution], bool] | None = None
    redundancy: int = 1
    cell_maps: Any = None  # numpy int64 array, elements x cells, or None
    atom_maps: Any = None  # `maps`, where the family made them as an array (else made from the elements)

    def __post_init__(self) -> None:
        if self.atom_maps is not None and len(self.atom_maps) != len(self.elements):
            raise ValueError(f"{len(self.atom_maps)} atom maps for {len(self.elements)} elements")

    @property
    def order(self) -> int:
        return len(self.elements)

    @cached_property
    def maps(self) -> Any:
        """The elements as one int64 array, a row per element: the image of each atom."""
        if self.atom_maps is not None:
            return self.atom_maps
        if isinstance(self.elements, ElementRows):
            return self.elements.maps
        return np.array([g.atom_map for g in self.elements], np.int64).reshape(len(self.elements), -1)

    @cached_property
    def proper(self) -> Any:
        """Which elements are proper (rotations), as a boolean array."""
        if isinstance(self.elements, ElementRows):
            return self.elements.proper
        return np.array([g.proper for g in self.elements], bool)
