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
from functools import cached_property
from typing import Any, cast

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

    @cached_property
    def maps(self) -> Any:
        """The elements as one int64 array, a row per element: the image of each atom."""
        return np.array([g.atom_map for g in self.elements], np.int64).reshape(len(self.elements), -1)

    @cached_property
    def proper(self) -> Any:
        """Which elements are proper (rotations), as a boolean array."""
        return np.array([g.proper for g in self.elements], bool)


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


@dataclass(frozen=True)
class Subgroup:
    """Some elements of a group: rows of its atom maps, kept as row numbers so that no copy of
    the maps is made (a tile board has 200,000 atoms and 500 candidate sets)."""

    maps: Any  # int64 array, one row per element of the whole group: the image of each atom
    rows: Any  # int64 array: the elements in this subgroup

    def __len__(self) -> int:
        return len(self.rows)

    def images(self, atoms: Any) -> Any:
        """Element x atom: the image of each atom under each element."""
        return self.maps[self.rows[:, None], np.asarray(atoms, np.int64)[None, :]]

    def keeping(self, mask: Any) -> Subgroup:
        return Subgroup(self.maps, self.rows[mask])

    def fixing(self, atom: int) -> Subgroup:
        """The stabiliser of an atom."""
        return self.keeping(self.maps[self.rows, atom] == atom)


def _positions(members: Any, values: Any) -> Any:
    """The position in `members` of each of the values (all of them members)."""
    order = np.argsort(members, kind="stable")
    return order[np.searchsorted(members[order], values)]


def _orbit_firsts(members: Any, subgroup: Subgroup) -> Any:
    """For each of the atoms (which the subgroup maps onto themselves), the position in `members`
    of the first atom of its orbit."""
    return _positions(members, subgroup.images(members)).min(axis=0)


def _orbits(atoms: Sequence[int], subgroup: Subgroup) -> dict[int, set[int]]:
    """Each orbit of the atoms under the subgroup (which maps them onto themselves), keyed by
    the first of its atoms in `atoms`.

    Candidates list their atoms in the order the guided search meets them, so the atom kept of
    each orbit is the one met first: the restriction then prunes at the top of the search tree
    (on the Soma cube, 7 times faster than keeping the lowest-numbered atom).
    """
    members = np.asarray(atoms, np.int64)
    firsts = _orbit_firsts(members, subgroup)
    orbits: dict[int, set[int]] = {}
    for first in np.unique(firsts).tolist():
        orbits[int(members[first])] = set(members[firsts == first].tolist())
    return orbits


def _preserving(subgroup: Subgroup, atoms: Sequence[int]) -> Subgroup:
    """The elements of the subgroup that map the atoms onto themselves."""
    members = np.asarray(atoms, np.int64)
    return subgroup.keeping(np.isin(subgroup.images(members), members).all(axis=1))


def _breaking(subgroup: Subgroup, first: Sequence[int], second: Sequence[int]) -> Breaking:
    forbidden: list[int] = []
    pairs: list[tuple[int, int]] = []
    weight: dict[tuple[int, int], int] = {}
    seconds = np.asarray(second, np.int64)
    for rep, orbit in _orbits(first, subgroup).items():
        forbidden.extend(sorted(orbit - {rep}))
        stabiliser = subgroup.fixing(rep)
        if not second or len(_preserving(stabiliser, second)) != len(stabiliser):
            weight[(rep, -1)] = len(orbit)
            continue
        firsts = _orbit_firsts(seconds, stabiliser)
        fixing = (stabiliser.images(seconds) == seconds).sum(axis=0)  # elements that keep each atom
        for position in np.unique(firsts).tolist():
            weight[(rep, int(seconds[position]))] = len(subgroup) // int(fixing[position])
        others = np.sort(seconds[firsts != np.arange(len(seconds))])
        pairs.extend((rep, b) for b in others.tolist())
    return Breaking(frozenset(first), frozenset(second), tuple(forbidden), tuple(pairs), weight)


def _acts_freely(subgroup: Subgroup, atoms: Sequence[int]) -> bool:
    """No element but the identity keeps any of the atoms in place."""
    members = np.asarray(atoms, np.int64)
    images = subgroup.images(members)
    identity = (subgroup.maps[subgroup.rows] == np.arange(subgroup.maps.shape[1])).all(axis=1)
    return not (images[~identity] == members).any()


@dataclass(frozen=True)
class FirstSet:
    """A candidate first breaking set: the atoms, the subgroup K that maps it onto itself, and
    the atom kept of each orbit under K (the parts a broken search splits into)."""

    index: int  # which of the model's candidates
    atoms: tuple[int, ...]
    subgroup: Subgroup
    kept: tuple[int, ...]


def first_sets(group: SymmetryGroup, candidates: Sequence[Sequence[int]]) -> list[FirstSet]:
    """Every candidate that some symmetry maps onto itself, fewest kept atoms first.

    K is the subgroup of G that keeps every solution a solution (all of G, or its proper
    elements when parts are mirrored separately) and maps the candidate onto itself (a mirror
    maps a chiral piece onto its partner; reading a chain backwards moves its first cube to the
    last). A piece with no placement at all leaves no solution to break: it is never a set.
    """
    every = np.arange(group.order)
    valid_keeping = Subgroup(group.maps, every if group.is_valid is None else every[group.proper])
    options = []
    for index, first in enumerate(candidates):
        if not first:
            continue
        subgroup = _preserving(valid_keeping, first)
        if len(subgroup) >= 2:
            kept = tuple(_orbits(first, subgroup))
            options.append(FirstSet(index, tuple(first), subgroup, kept))
    return sorted(options, key=lambda option: len(option.kept))


def choose_breaking(
    group: SymmetryGroup, candidates: Sequence[Sequence[int]], firsts: Sequence[FirstSet] | None = None
) -> Breaking | None:
    """Symmetry breaking by the first set among `firsts` (default: `first_sets`) with the fewest
    kept atoms, measured best when nothing better is known, and the second candidate set that
    cuts most with it; None when no set can break."""
    options = list(firsts) if firsts is not None else first_sets(group, candidates)
    if not options:
        return None
    fewest = min(len(option.kept) for option in options)
    best: tuple[float, FirstSet, Sequence[int]] | None = None
    for option in (o for o in options if len(o.kept) == fewest):  # rank is decided by the first set first
        seconds: list[Sequence[int]] = [[], *(c for other, c in enumerate(candidates) if other != option.index)]
        if _acts_freely(option.subgroup, option.atoms):
            seconds = [[]]  # no first atom is kept by any element: nothing left for a second set to cut
        for second in seconds:
            share = _retained(option, second)
            if best is None or share < best[0] - 1e-12:  # a tie keeps the earlier, simpler choice
                best = (share, option, second)
    assert best is not None
    _, option, second = best
    return _breaking(option.subgroup, option.atoms, second)


def _retained(option: FirstSet, second: Sequence[int]) -> float:
    """`Breaking.retained` of breaking by `option` and `second`, without building the breaking:
    for each kept first atom, the share of the second set's orbits under its stabiliser."""
    subgroup = option.subgroup
    seconds = np.asarray(second, np.int64)
    share = 0.0
    for rep in option.kept:
        stabiliser = subgroup.fixing(rep)
        if not second or len(_preserving(stabiliser, second)) != len(stabiliser):
            share += 1.0
            continue
        share += len(np.unique(_orbit_firsts(seconds, stabiliser))) / len(seconds)
    return share / len(option.atoms)


KEY_TYPE = np.dtype(">i4")  # big-endian: keys of sorted solutions of one length compare as the tuples do


def _key(solution: Solution) -> bytes:
    """A sorted solution's dictionary key: its atoms as big-endian 32-bit integers."""
    return np.asarray(solution, KEY_TYPE).tobytes()


@dataclass
class Classifier:
    """Sorts solutions into classes as they arrive from any engine.

    Without breaking each enumerated solution weighs 1 and a complete run must meet every image
    of every class once; with breaking, the weights of a class's members must add up to its size.
    Solutions are best given in batches (`add_batch`): the images of all new ones are found with
    one array operation (the Bedlam cube's 19,186 classes of 24 images: 0.3 s against 1.8 s one
    by one, README).
    """

    group: SymmetryGroup
    breaking: Breaking | None = None
    classes: list[SolutionClass] = field(default_factory=list)
    _class_of: dict[bytes, int] = field(default_factory=dict)  # each image's key (`_key`): its class
    raw_seen: int = 0
    weight_seen: int = 0

    def add(self, solution: Solution) -> SolutionClass | None:
        """Record one enumerated solution; return its class if it is the first of it."""
        return self.add_batch([solution])[0]

    def add_batch(self, solutions: Sequence[Solution]) -> list[SolutionClass | None]:
        """Record enumerated solutions in order; for each, its class if it is the first of it."""
        keys = [_key(solution) for solution in solutions]
        unseen = [i for i, key in enumerate(keys) if key not in self._class_of]
        computed = self._image_keys([solutions[i] for i in unseen])
        images = {unseen[number]: image_keys for number, image_keys in computed.items()}
        found: list[SolutionClass | None] = []
        for number, (solution, key) in enumerate(zip(solutions, keys, strict=True)):
            weight = 1 if self.breaking is None else self.breaking.weight_of(solution)
            self.raw_seen += 1
            self.weight_seen += weight
            index = self._class_of.get(key)
            if index is not None:  # seen before, or an image of a class found earlier in this batch
                self.classes[index].weight_seen += weight
                found.append(None)
                continue
            new_class = self._register(key, images[number])
            new_class.weight_seen = weight
            found.append(new_class)
        return found

    def class_index(self, solution: Solution) -> int | None:
        """The class a solution found so far belongs to (any of its valid images), or None."""
        return self._class_of.get(_key(solution))

    def _image_keys(self, solutions: Sequence[Solution]) -> dict[int, list[bytes]]:
        """For each solution (by its place in the batch), the key of its image under each element,
        in the group's order: all solutions of one length with one array operation."""
        by_length: dict[int, list[int]] = {}
        for number, solution in enumerate(solutions):
            by_length.setdefault(len(solution), []).append(number)
        keys: dict[int, list[bytes]] = {}
        for length, numbers in by_length.items():
            atoms = np.array([solutions[n] for n in numbers], np.int64).reshape(len(numbers), length)
            images = np.sort(self.group.maps[:, atoms], axis=2)  # element x solution x atom
            rows = np.ascontiguousarray(images.transpose(1, 0, 2), dtype=KEY_TYPE)
            as_bytes = cast(
                list[list[bytes]], rows.view(np.dtype((np.void, 4 * length))).reshape(len(numbers), -1).tolist()
            )
            keys.update(zip(numbers, as_bytes, strict=True))
        return keys

    def _register(self, key: bytes, images: list[bytes]) -> SolutionClass:
        is_valid = self.group.is_valid
        proper_keys = {image for image, is_proper in zip(images, self.group.proper.tolist(), strict=True) if is_proper}
        if is_valid is None:
            valid = images
        else:
            valid = [image for image in images if image in proper_keys or is_valid(_solution(image))]
        valid_keys = set(valid)
        index = len(self.classes)
        for image in valid_keys:
            self._class_of[image] = index
        solution_class = SolutionClass(
            representative=_solution(min(valid_keys)),
            valid_images=len(valid_keys),
            stabiliser=images.count(key),
            proper_images=len(proper_keys),
            valid_elements=len(valid),
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


def _solution(key: bytes) -> Solution:
    return tuple(np.frombuffer(key, KEY_TYPE).tolist())
