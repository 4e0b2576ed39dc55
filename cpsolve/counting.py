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
    piece set the puzzle does not have).
    """

    elements: tuple[AtomSymmetry, ...]
    unique_counts_raw: bool = False
    is_valid: Callable[[Solution], bool] | None = None

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
    """Symmetry breaking by one exactly-one set of atoms (one piece's placements).

    Only one atom per orbit of the subgroup K is allowed (the others are fixed to false). An
    enumerated solution whose atom from the set is r then stands for |K·r| raw solutions, so the
    weights of a class's enumerated members add up to its size (see Classifier).
    """

    allowed: frozenset[int]
    forbidden: tuple[int, ...]
    weight: dict[int, int]

    def weight_of(self, solution: Solution) -> int:
        weight = self.weight
        return next(weight[a] for a in solution if a in weight)


def choose_breaking(group: SymmetryGroup, candidates: Sequence[Sequence[int]]) -> Breaking | None:
    """The candidate atom set that leaves the fewest atoms, or None if none helps.

    K is the part of G that keeps every solution a solution: all of G, or only its proper
    elements when parts are mirrored separately. A candidate must be mapped onto itself by K (a
    chiral piece is not: a mirror turns it into its partner).
    """
    keep_all = group.is_valid is None
    subgroup = [g for g in group.elements if keep_all or g.proper]
    best: Breaking | None = None
    for atoms in candidates:
        members = set(atoms)
        if any(g.atom_map[a] not in members for g in subgroup for a in atoms):
            continue
        weight: dict[int, int] = {}
        forbidden: list[int] = []
        placed: set[int] = set()
        for atom in sorted(atoms):
            if atom in placed:
                continue
            orbit = {g.atom_map[atom] for g in subgroup}
            placed |= orbit
            weight[atom] = len(orbit)
            forbidden.extend(sorted(orbit - {atom}))
        if forbidden and (best is None or len(weight) < len(best.weight)):
            best = Breaking(frozenset(weight), tuple(forbidden), weight)
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

    def _register(self, solution: Solution) -> SolutionClass:
        index = len(self.classes)
        is_valid = self.group.is_valid
        proper_images: set[Solution] = set()
        valid_images: set[Solution] = set()
        stabiliser = valid_elements = 0
        for element in self.group.elements:
            image = element.apply(solution)
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
        raw = sum(c.valid_images for c in self.classes)
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
        if self.weight_seen != self.counts().raw:
            problems.append(
                f"enumeration accounts for {self.weight_seen} raw solutions, classes for {self.counts().raw}"
            )
        return problems


def orbit_sum(classes: Sequence[SolutionClass]) -> int:
    """raw as the orbit-stabiliser identity states it: sum of |G'| / |stabiliser|."""
    return sum(c.valid_elements // c.stabiliser for c in classes)
