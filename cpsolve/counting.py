"""Reducing enumerated solutions to classes, and the three counts.

Every family describes a solution as a sorted tuple of *atoms* (for packing an atom is one
placement of one piece) and every symmetry as a permutation of atoms, so one classifier serves
them all. A class is registered once, with its whole orbit, when its first member arrives; every
later raw solution is a dictionary look-up. That orbit also proves the counts: a complete
enumeration must meet each valid image of each class exactly once, which is the orbit-stabiliser
identity raw = sum over classes of |valid images| = sum of |G'| / |stabiliser| (G' the elements
that keep the solution valid; all of G unless parts are turned separately).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

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


@dataclass(frozen=True)
class SymmetryGroup:
    """The symmetries a run reduces by.

    `elements` is the group G used for `unique` (for `symmetry: none` only the proper part is
    kept, and `unique` then equals `raw`); its proper elements give `rotations`. `is_valid`
    rejects images that are not solutions of the puzzle (parts mirrored separately can produce a
    piece set the puzzle does not have). `redundancy` is the order of a subgroup of G that acts
    freely and only changes how one solution is written (reading a palindromic chain from its
    other end): raw counts solutions, not writings, so each orbit's size is divided by it.
    """

    elements: tuple[AtomSymmetry, ...]
    unique_counts_raw: bool = False
    is_valid: Callable[[Solution], bool] | None = None
    redundancy: int = 1

    @property
    def order(self) -> int:
        return len(self.elements)


@dataclass
class SolutionClass:
    """One class of solutions under G with what the counts and the identity check need."""

    representative: Solution
    valid_images: int
    stabiliser: int
    proper_images: int
    valid_elements: int
    weight_seen: int = 0

    @property
    def rotation_classes(self) -> int:
        """All rotation orbits in a G-orbit have the same size (the proper part is normal)."""
        return self.valid_images // self.proper_images


@dataclass
class Counts:
    raw: int
    rotations: int
    unique: int

    def as_dict(self) -> dict[str, int]:
        return {"raw": self.raw, "rotations": self.rotations, "unique": self.unique}


@dataclass(frozen=True)
class Breaking:
    """Symmetry breaking by one or two exactly-one sets of atoms (say, two pieces' placements).

    In the first set only one atom per orbit of the subgroup K is allowed. When the first set's
    atom is r, the second set is cut the same way by the stabiliser of r (if that maps the second
    set onto itself). An enumerated solution with atoms r and b then stands for |K| / |Stab(r, b)|
    raw solutions (|K·r| with one set), so the weights of a class's enumerated members add up to
    its size (see Classifier).
    """

    first: frozenset[int]
    second: frozenset[int]
    forbidden: tuple[int, ...]
    forbidden_pairs: tuple[tuple[int, int], ...]
    weight: dict[tuple[int, int], int]

    def weight_of(self, solution: Solution) -> int:
        r = next(a for a in solution if a in self.first)
        b = next((a for a in solution if a in self.second), -1)
        return self.weight.get((r, b)) or self.weight[(r, -1)]

    @property
    def rank(self) -> tuple[int, float]:
        """Fewest kept atoms in the first set, then the smallest share retained.

        Measured on the Soma cube: the first set with the fewest orbits (the Z piece, 2) gave the
        fastest searches; the share retained alone picked a pair 4 times slower.
        """
        return len({r for r, _ in self.weight}), self.retained

    @property
    def retained(self) -> float:
        """The share of raw solutions left to enumerate, if they were spread evenly over atoms."""
        share_first = 1 / len(self.first)
        share_second = 1 / len(self.second) if self.second else 1.0
        return sum(share_first * (share_second if b != -1 else 1.0) for _, b in self.weight)


def _orbits(atoms: Sequence[int], subgroup: Sequence[AtomSymmetry]) -> dict[int, set[int]]:
    """Each orbit of the atoms under the subgroup, keyed by the first of its atoms in `atoms`.

    Candidates list their atoms in the order the guided search meets them, so the atom kept of
    each orbit is the one met first: the restriction then prunes at the top of the search tree
    (on the Soma cube, 7 times faster than keeping the lowest-numbered atom).
    """
    orbits: dict[int, set[int]] = {}
    placed: set[int] = set()
    for atom in atoms:
        if atom not in placed:
            orbits[atom] = {g.atom_map[atom] for g in subgroup}
            placed |= orbits[atom]
    return orbits


def _preserving(elements: Sequence[AtomSymmetry], atoms: Sequence[int]) -> list[AtomSymmetry]:
    members = set(atoms)
    return [g for g in elements if all(g.atom_map[a] in members for a in atoms)]


def _breaking(subgroup: Sequence[AtomSymmetry], first: Sequence[int], second: Sequence[int]) -> Breaking:
    forbidden: list[int] = []
    pairs: list[tuple[int, int]] = []
    weight: dict[tuple[int, int], int] = {}
    for rep, orbit in _orbits(first, subgroup).items():
        forbidden.extend(sorted(orbit - {rep}))
        stabiliser = [g for g in subgroup if g.atom_map[rep] == rep]
        if not second or len(_preserving(stabiliser, second)) != len(stabiliser):
            weight[(rep, -1)] = len(orbit)
            continue
        for second_rep, second_orbit in _orbits(second, stabiliser).items():
            pairs.extend((rep, b) for b in sorted(second_orbit - {second_rep}))
            both = sum(1 for g in stabiliser if g.atom_map[second_rep] == second_rep)
            weight[(rep, second_rep)] = len(subgroup) // both
    return Breaking(frozenset(first), frozenset(second), tuple(forbidden), tuple(pairs), weight)


def _acts_freely(subgroup: Sequence[AtomSymmetry], atoms: Sequence[int]) -> bool:
    identity = tuple(range(len(subgroup[0].atom_map)))
    return all(g.atom_map[a] != a for g in subgroup if g.atom_map != identity for a in atoms)


@dataclass(frozen=True)
class FirstSet:
    """A candidate first breaking set: the atoms, the subgroup K that maps it onto itself, and
    the atom kept of each orbit under K (the parts a broken search splits into)."""

    index: int  # which of the model's candidates
    atoms: tuple[int, ...]
    subgroup: tuple[AtomSymmetry, ...]
    kept: tuple[int, ...]


def first_sets(group: SymmetryGroup, candidates: Sequence[Sequence[int]]) -> list[FirstSet]:
    """Every candidate that some symmetry maps onto itself, fewest kept atoms first.

    K is the subgroup of G that keeps every solution a solution (all of G, or its proper
    elements when parts are mirrored separately) and maps the candidate onto itself (a mirror
    maps a chiral piece onto its partner; reading a chain backwards moves its first cube to the
    last). A piece with no placement at all leaves no solution to break: it is never a set.
    """
    keep_all = group.is_valid is None
    valid_keeping = [g for g in group.elements if keep_all or g.proper]
    options = []
    for index, first in enumerate(candidates):
        if not first:
            continue
        subgroup = _preserving(valid_keeping, first)
        if len(subgroup) >= 2:
            kept = tuple(_orbits(first, subgroup))
            options.append(FirstSet(index, tuple(first), tuple(subgroup), kept))
    return sorted(options, key=lambda option: len(option.kept))


def choose_breaking(
    group: SymmetryGroup, candidates: Sequence[Sequence[int]], first: FirstSet | None = None
) -> Breaking | None:
    """Symmetry breaking by `first` (default: each set with the fewest kept atoms, measured best
    when nothing better is known) and the second candidate set that cuts most with it, or None."""
    options = [first] if first is not None else first_sets(group, candidates)
    if not options:
        return None
    fewest = len(options[0].kept)
    best: Breaking | None = None
    for option in (o for o in options if len(o.kept) == fewest):  # rank is decided by the first set first
        subgroup = list(option.subgroup)
        seconds = [[], *(c for other, c in enumerate(candidates) if other != option.index)]
        if _acts_freely(subgroup, option.atoms):
            seconds = [[]]  # no first atom is kept by any element: nothing left for a second set to cut
        for second in seconds:
            breaking = _breaking(subgroup, option.atoms, second)
            if best is None or breaking.rank < best.rank:
                best = breaking
    return best


@dataclass
class Classifier:
    """Sorts solutions into classes as they arrive from any engine.

    Without breaking each enumerated solution weighs 1 and a complete run must meet every image
    of every class once; with breaking, the weights of a class's members must add up to its size.
    """

    group: SymmetryGroup
    breaking: Breaking | None = None
    classes: list[SolutionClass] = field(default_factory=list)
    _class_of: dict[Solution, int] = field(default_factory=dict)
    raw_seen: int = 0
    weight_seen: int = 0
    _maps: Any = None

    def add(self, solution: Solution) -> SolutionClass | None:
        """Record one enumerated solution; return its class if it is the first of it."""
        weight = 1 if self.breaking is None else self.breaking.weight_of(solution)
        self.raw_seen += 1
        self.weight_seen += weight
        index = self._class_of.get(solution)
        if index is not None:
            self.classes[index].weight_seen += weight
            return None
        new_class = self._register(solution)
        new_class.weight_seen = weight
        return new_class

    def class_index(self, solution: Solution) -> int | None:
        """The class a solution found so far belongs to (any of its valid images), or None."""
        return self._class_of.get(solution)

    def _images(self, solution: Solution) -> list[Solution]:
        """The solution's image under each element, all at once with one array (one row per element)."""
        if self._maps is None:
            self._maps = np.array([g.atom_map for g in self.group.elements], dtype=np.int64)
        images = np.sort(self._maps[:, list(solution)], axis=1)
        return [tuple(row) for row in images.tolist()]

    def _register(self, solution: Solution) -> SolutionClass:
        index = len(self.classes)
        is_valid = self.group.is_valid
        proper_images: set[Solution] = set()
        valid_images: set[Solution] = set()
        stabiliser = valid_elements = 0
        for element, image in zip(self.group.elements, self._images(solution), strict=True):
            if image == solution:
                stabiliser += 1
            if element.proper:
                proper_images.add(image)
            if is_valid is None or image in proper_images or is_valid(image):
                valid_elements += 1
                valid_images.add(image)
        for image in valid_images:
            self._class_of[image] = index
        solution_class = SolutionClass(
            representative=min(valid_images),
            valid_images=len(valid_images),
            stabiliser=stabiliser,
            proper_images=len(proper_images),
            valid_elements=valid_elements,
        )
        self.classes.append(solution_class)
        return solution_class

    def counts(self) -> Counts:
        """Counts derived from the classes found; lower bounds until the enumeration is complete.

        Every image of a class found is a solution, so even a stopped run's counts are true
        lower bounds.
        """
        raw = sum(c.valid_images for c in self.classes) // self.group.redundancy
        rotations = sum(c.rotation_classes for c in self.classes)
        unique = raw if self.group.unique_counts_raw else len(self.classes)
        return Counts(raw=raw, rotations=rotations, unique=unique)

    def identity_problems(self) -> list[str]:
        """Why a complete enumeration disagrees with its classes; empty when all is well.

        Checks raw = sum |G'| / |stabiliser| per class (orbit-stabiliser), and that the engine
        delivered every image of every class exactly once, or with breaking the right weight
        (no duplicates, nothing lost).
        """
        problems = []
        for number, c in enumerate(self.classes, 1):
            if c.valid_elements != c.valid_images * c.stabiliser:
                problems.append(
                    f"class {number}: {c.valid_elements} symmetries / stabiliser {c.stabiliser}"
                    f" != {c.valid_images} images"
                )
            if c.weight_seen != c.valid_images:
                problems.append(
                    f"class {number}: enumeration accounts for {c.weight_seen} of its {c.valid_images} images"
                )
        written = sum(c.valid_images for c in self.classes)
        if self.weight_seen != written:
            problems.append(f"enumeration accounts for {self.weight_seen} raw solutions, classes for {written}")
        return problems
