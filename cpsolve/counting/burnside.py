"""The three counts from the solutions each symmetry leaves unchanged (Burnside's lemma).

The number of classes of solutions under a group G is the average over G of the number of
solutions each element leaves unchanged: unique = sum |Fix(g)| / |G|, and rotations the same over
the proper elements. |Fix(g)| is the same for conjugate elements (h g h^-1 fixes h(S) exactly when
g fixes S), so one element of each conjugacy class is counted and weighed by the class's size:
the 48 symmetries of a cube fall into 10 classes. raw is |Fix(identity)|.

That both averages come out whole numbers is the orbit-stabiliser identity of a run that counts
without listing: a counter that lost or doubled a solution of some symmetry would (almost always)
leave a remainder, and the report says so.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cpsolve.counting.classes import Counts
from cpsolve.symmetry import SymmetryGroup


@dataclass(frozen=True)
class ConjugacyClass:
    """Elements of G whose maps of atoms are conjugate to that of `representative` (an index into
    the group's elements): `size` of them, `proper` of them rotations. Elements with one map of
    atoms count as often as they are in G (a flat board's turn-over moves no placement), and only
    some of them may be proper."""

    representative: int
    size: int
    proper: int


def conjugacy_classes(group: SymmetryGroup) -> list[ConjugacyClass]:
    """The conjugacy classes of the group's maps of atoms, the identity's first; each map alone if
    the maps do not close under conjugation (then no map is trusted to stand for another)."""
    maps, proper = group.maps, group.proper.tolist()
    base = _base(maps)
    having: dict[bytes, list[int]] = {}
    for g in range(group.order):
        having.setdefault(maps[g, base].tobytes(), []).append(g)
    distinct = [members[0] for members in having.values()]
    identity = np.arange(maps.shape[1])
    distinct.sort(key=lambda g: not bool((maps[g] == identity).all()))
    inverse = np.argsort(maps, axis=1)
    classes: list[ConjugacyClass] = []
    placed: set[bytes] = set()
    for g in distinct:
        key = maps[g, base].tobytes()
        if key in placed:
            continue
        conjugates = {maps[h][maps[g][inverse[h][base]]].tobytes() for h in range(group.order)}  # h g h^-1
        if not conjugates <= having.keys():
            return _alone(group, having)
        placed.update(conjugates)
        members = [e for c in conjugates for e in having[c]]
        classes.append(ConjugacyClass(g, len(members), sum(proper[e] for e in members)))
    return classes


def _alone(group: SymmetryGroup, having: dict[bytes, list[int]]) -> list[ConjugacyClass]:
    proper = group.proper.tolist()
    return [ConjugacyClass(members[0], len(members), sum(proper[e] for e in members)) for members in having.values()]


def _base(maps: np.ndarray) -> np.ndarray:
    """Atoms whose images tell every distinct map apart (all atoms if fewer do not)."""
    atoms = maps.shape[1]
    distinct = len({row.tobytes() for row in maps})
    for size in (8, 64, 512):
        if size >= atoms:
            break
        base = np.linspace(0, atoms - 1, size).astype(np.int64)
        if len({maps[g, base].tobytes() for g in range(maps.shape[0])}) == distinct:
            return base
    return np.arange(atoms)


@dataclass
class BurnsideSums:
    """The fixed counts found so far, per conjugacy class, and the counts they give."""

    group: SymmetryGroup
    classes: list[ConjugacyClass]
    fixed: dict[int, int]  # class number -> solutions its elements leave unchanged

    @property
    def complete(self) -> bool:
        return len(self.fixed) == len(self.classes)

    def counts(self) -> Counts:
        """The three counts; while some class is not counted yet, raw (if the identity's is) and
        zeros: a partial average is no bound."""
        raw = self.fixed.get(0, 0) // self.group.redundancy
        if not self.complete:
            return Counts(raw, 0, 0)
        rotations = self._average(proper_only=True)
        unique = raw if self.group.unique_counts_raw else self._average(proper_only=False)
        return Counts(raw, rotations, unique)

    def problems(self) -> list[str]:
        """Where an average is not a whole number (module doc); empty when the counts are sound."""
        problems = []
        for proper_only, name in ((True, "rotations"), (False, "unique")):
            total, elements = self._sum(proper_only)
            if elements and total % elements:
                problems.append(
                    f"{name}: the fixed solutions add up to {total}, not a multiple of {elements} symmetries"
                )
        return problems

    def _sum(self, proper_only: bool) -> tuple[int, int]:
        weights = [c.proper if proper_only else c.size for c in self.classes]
        return sum(w * self.fixed[n] for n, w in enumerate(weights)), sum(weights)

    def _average(self, proper_only: bool) -> int:
        total, elements = self._sum(proper_only)
        return total // elements if elements else 0

    def as_json(self) -> list[dict[str, int]]:
        """What the report shows of the sums: per class its elements, its rotations, its fixed count."""
        return [
            {"elements": c.size, "rotations": c.proper, "fixed": self.fixed[n]}
            for n, c in enumerate(self.classes)
            if n in self.fixed
        ]
