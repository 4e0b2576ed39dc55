"""Reducing listed solutions to classes, and the three counts.

Every family describes a solution as a sorted tuple of *atoms* (for packing an atom is one
placement of one piece) and every symmetry as a permutation of atoms, so one classifier serves
them all. A class is registered once, when its first member arrives, under the least key of its
rotation class (and of its mirror image's); every later raw solution is a dictionary look-up of
its own least rotated key. The orbit, counted then, also proves the counts: a complete
enumeration must meet each valid image of each class exactly once, which is the orbit-stabiliser
identity raw = sum over classes of |valid images| = sum of |G'| / |stabiliser| (G' the elements
that keep the solution valid; all of G unless parts are turned separately).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, NamedTuple, cast

import numpy as np

from cpsolve import native
from cpsolve.limits import DEFAULT_MAX_CLASS_BYTES, NO_DEADLINE, Deadline
from cpsolve.symmetry import Breaking, Solution, SymmetryGroup

# What one class costs in the store, for its budget: the class record, and per key stored (one
# or two: `Classifier._register`) 4 bytes an atom plus a bytes object and a dictionary entry.
CLASS_BYTES = 200
KEY_BYTES = 110

# the images of one chunk of a batch, as one array (the clock is read between chunks: one of 64 MB
# of 3,000-atom solutions took 0.43 s)
IMAGE_CHUNK_BYTES = 16 * 2**20


def class_cost(key_bytes: int, keys: int) -> int:
    """What a class stored under `keys` keys of `key_bytes` bytes each counts against the budget."""
    return CLASS_BYTES + keys * (key_bytes + KEY_BYTES)


class ClassStoreFull(Exception):
    """The classes a listing run keeps would pass its memory budget (--max-memory)."""

    def __init__(self, max_bytes: int) -> None:
        super().__init__(max_bytes)
        self.max_bytes = max_bytes


@dataclass(slots=True)
class SolutionClass:
    """One class of solutions under G with what the counts and the identity check need."""

    representative_key: bytes  # the least valid image's key (atoms as KEY_TYPE)
    valid_images: int
    stabiliser: int
    proper_images: int
    valid_elements: int
    weight_seen: int = 0

    @property
    def representative(self) -> Solution:
        """The least valid image: the same solution whichever member was enumerated first."""
        return solution_of(self.representative_key)

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


KEY_TYPE = np.dtype(">i4")  # big-endian: keys of sorted solutions of one length compare as the tuples do


@dataclass
class Classifier:
    """Sorts solutions into classes as they arrive from any engine.

    Without breaking each enumerated solution weighs 1 and a complete run must meet every image
    of every class once; with breaking, the weights of a class's members must add up to its size.
    Solutions are best given in batches (`add_batch`): the images of all of them are found with
    one array operation (the Bedlam cube's 19,186 classes of 24 images: 0.3 s against 1.8 s one
    by one, measured when this was written: commit 69a8693). A class keeps one or two keys, not
    one per image: twelve pentominoes in 6x11 with open ends, 627,563 classes of 8 images, were
    classified in 5.5 s with one key an image and in 2.8 s this way
    (measured on the solutions saved from a run, three rounds, best).
    """

    group: SymmetryGroup
    breaking: Breaking | None = None
    max_bytes: int = DEFAULT_MAX_CLASS_BYTES  # what the stored classes may take (ClassStoreFull beyond)
    classes: list[SolutionClass] = field(default_factory=list)
    _class_of: dict[bytes, int] = field(default_factory=dict)  # the keys a class is found by (`_keys`)
    raw_seen: int = 0
    weight_seen: int = 0
    stored_bytes: int = 0  # an estimate of what the classes and their keys take

    def add(self, solution: Solution) -> SolutionClass | None:
        """Record one enumerated solution; return its class if it is the first of it."""
        return self.add_batch([solution])[0]

    def add_batch(self, solutions: Sequence[Solution], deadline: Deadline = NO_DEADLINE) -> list[SolutionClass | None]:
        """Record enumerated solutions in order; for each solution recorded, its class if it is the
        first of it: fewer than given where the deadline passed between two chunks (the rest not
        recorded; the counts then lower bounds). Raises ClassStoreFull, before storing a class that
        would pass `max_bytes` (what was recorded so far stays, and its counts are lower bounds)."""
        if not solutions:
            return []
        width = max(map(len, solutions))
        chunk = max(1, IMAGE_CHUNK_BYTES // (8 * max(1, width) * max(1, self.group.order)))
        if len(solutions) > chunk:  # the images of a batch as one array: bounded, however large the solutions
            recorded: list[SolutionClass | None] = []
            for start in range(0, len(solutions), chunk):
                if start and deadline.passed():
                    break
                recorded += self.add_batch(solutions[start : start + chunk])
            return recorded
        found: list[SolutionClass | None] = [None] * len(solutions)
        for length, numbers in by_length(solutions).items():
            atoms = np.array([solutions[n] for n in numbers], np.int64).reshape(len(numbers), length)
            weights = None if self.breaking is None else self.breaking.weights_of(atoms)
            if self._mirrors_are_one_coset:
                self._add_orbits(rotation_orbits(self.group, atoms), weights, numbers, found)
            else:
                keys = row_keys(atoms)
                new_class_of = self._class_of_images(atoms, keys)
                self._add_keys(keys, weights, new_class_of, numbers, found)
        return found

    def _add_orbits(
        self, orbits: RotationOrbits, weights: list[int] | None, numbers: list[int], found: list[SolutionClass | None]
    ) -> None:
        """`_add_keys` where the mirror images are one coset (every listing run but those whose
        parts turn on their own): each solution looked up by the least key of its rotation class,
        a new class stored under that key and its mirror image's (one or two). The loop every
        listed solution goes through (627,563 of them for the pentominoes with open ends), so it
        keeps to local names and builds nothing but the class: 2.4 -> 1.6 us a solution on the 9x9
        design of 21,644 classes, where each new class was registered through two calls
        (benchmarks/classify.py)."""
        class_of, classes, max_bytes = self._class_of, self.classes, self.max_bytes
        is_valid, order = self.group.is_valid, self.group.order
        proper_elements = order - self._improper_elements
        mirrors, proper_counts, stabilisers = orbits.mirrored, orbits.proper_images, orbits.stabiliser
        stored_bytes = self.stored_bytes
        place = 0
        try:
            for place, key in enumerate(orbits.keys):
                weight = 1 if weights is None else weights[place]
                index = class_of.get(key)
                if index is not None:  # seen before, or an image of a class found earlier in this batch
                    classes[index].weight_seen += weight
                    continue
                mirrored = mirrors[place]
                if mirrored and is_valid is not None and not is_valid(solution_of(mirrored)):
                    mirrored = b""  # BurrTools' mirror partners bounded apart: the mirror image is no solution
                two = bool(mirrored) and mirrored != key
                cost = class_cost(len(key), 2 if two else 1)
                if stored_bytes + cost > max_bytes:
                    raise ClassStoreFull(max_bytes)
                stored_bytes += cost
                class_of[key] = len(classes)
                if two:
                    class_of[mirrored] = len(classes)
                proper_images = proper_counts[place]
                new_class = SolutionClass(
                    min(key, mirrored) if two else key,
                    2 * proper_images if two else proper_images,
                    stabilisers[place],
                    proper_images,
                    order if mirrored else proper_elements,
                    weight,
                )
                classes.append(new_class)
                found[numbers[place]] = new_class
            place = len(orbits.keys)
        finally:  # the solutions counted into classes, also when the store is full (ClassStoreFull)
            self.stored_bytes = stored_bytes
            self.raw_seen += place
            self.weight_seen += place if weights is None else sum(weights[:place])

    def _add_keys(
        self,
        keys: list[bytes],
        weights: list[int] | None,
        new_class_of: Callable[[int], SolutionClass],
        numbers: list[int],
        found: list[SolutionClass | None],
    ) -> None:
        """Count each solution (by its look-up key) into its class, registering the classes met
        for the first time (`_add_orbits` where the mirror images are one coset: most runs); it
        keeps to local names and sums the tallies once."""
        class_of, classes = self._class_of, self.classes
        place = 0
        try:
            for place, key in enumerate(keys):
                weight = 1 if weights is None else weights[place]
                index = class_of.get(key)
                if index is not None:  # seen before, or an image of a class found earlier in this batch
                    classes[index].weight_seen += weight
                    continue
                new_class = new_class_of(place)
                new_class.weight_seen = weight
                found[numbers[place]] = new_class
            place = len(keys)
        finally:  # the solutions counted into classes, also when the store is full (ClassStoreFull)
            self.raw_seen += place
            self.weight_seen += place if weights is None else sum(weights[:place])

    def class_index(self, solution: Solution) -> int | None:
        """The class a solution found so far belongs to (any of its valid images), or None."""
        keys = self._keys(np.array([solution], np.int64).reshape(1, len(solution)))
        return self._class_of.get(keys[0])

    @cached_property
    def _mirrors_are_one_coset(self) -> bool:
        """Whether the improper elements, if any, are as many as the proper ones (a coset of
        them: a solution's mirror images are one rotation class). Not so where parts turn on
        their own (a mirror of one part, of the other, of both)."""
        return self._improper_elements in (0, self.group.order // 2)

    @cached_property
    def _improper_elements(self) -> int:
        return self.group.order - int(np.count_nonzero(self.group.proper))

    def _keys(self, atoms: Any) -> list[bytes]:
        """The key each of a batch's sorted solutions of one length (solutions x atoms) is looked
        up by: where the mirror images are one coset, the least key of its rotation class (a class
        is stored under that of each rotation class among its images, one or two); else its own
        (a class is stored under every valid image's key)."""
        return rotation_orbits(self.group, atoms).keys if self._mirrors_are_one_coset else row_keys(atoms)

    def _class_of_images(self, atoms: Any, keys: list[bytes]) -> Callable[[int], SolutionClass]:
        """How to register solution i's class, stored under every valid image's key."""
        return lambda place: self._register(
            *self._from_images(keys[place], image_keys(self.group, [tuple(atoms[place].tolist())])[0])
        )

    def _from_images(self, key: bytes, images: list[bytes]) -> NewClass:
        """Where some images may not be solutions (`group.is_valid`): the proper images are, the
        others are asked one by one."""
        is_valid = self.group.is_valid
        proper_keys = {image for image, is_proper in zip(images, self.group.proper.tolist(), strict=True) if is_proper}
        valid = [image for image in images if is_valid is None or image in proper_keys or is_valid(solution_of(image))]
        return NewClass(list(set(valid)), len(set(valid)), len(valid), len(proper_keys), images.count(key))

    def _register(
        self, keys: list[bytes], valid_images: int, valid_elements: int, proper_images: int, stabiliser: int
    ) -> SolutionClass:
        """Store a new class under its keys (a NewClass's fields), within the memory budget."""
        cost = class_cost(len(keys[0]), len(keys))
        if self.stored_bytes + cost > self.max_bytes:
            raise ClassStoreFull(self.max_bytes)
        self.stored_bytes += cost
        index = len(self.classes)
        for key in keys:
            self._class_of[key] = index
        solution_class = SolutionClass(min(keys), valid_images, stabiliser, proper_images, valid_elements)
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


def image_keys(group: SymmetryGroup, solutions: Sequence[Solution]) -> dict[int, list[bytes]]:
    """For each solution (by its place in the batch), the key of its image under each element of
    `group`, in the group's order: all solutions of one length with one array operation."""
    keys: dict[int, list[bytes]] = {}
    for length, numbers in by_length(solutions).items():
        atoms = np.array([solutions[n] for n in numbers], np.int64).reshape(len(numbers), length)
        images = np.sort(group.maps[:, atoms], axis=2)  # element x solution x atom
        rows = np.ascontiguousarray(images.transpose(1, 0, 2), dtype=KEY_TYPE)
        as_bytes = cast(
            list[list[bytes]], rows.view(np.dtype((np.void, 4 * length))).reshape(len(numbers), -1).tolist()
        )
        keys.update(zip(numbers, as_bytes, strict=True))
    return keys


class NewClass(NamedTuple):
    """What a class is stored with when its first member arrives."""

    keys: list[bytes]  # the keys it is found by
    valid_images: int  # distinct images that are solutions
    valid_elements: int  # the elements whose image is a solution
    proper_images: int  # distinct images under the proper elements
    stabiliser: int  # the elements that map the member onto itself


@dataclass(frozen=True)
class RotationOrbits:
    """The images of a batch of solutions under the group where the improper elements are one
    coset gP = Pg of the proper ones P (P is normal): the images under P are a solution's
    rotation class, those under gP its mirror image's, the same one or another of the same size.
    A list per field, item i for solution i: most solutions of a batch belong to a class met
    before and need only their key."""

    keys: list[bytes]  # the least image under P: how the solution's class is found
    mirrored: list[bytes]  # the least image under gP (b"": the group has no improper elements)
    proper_images: list[int]  # distinct images under P
    stabiliser: list[int]  # the elements that map the solution onto itself


def rotation_orbits(group: SymmetryGroup, atoms: Any) -> RotationOrbits:
    """The orbit of each of a batch of sorted solutions of one length (solutions x atoms), by the
    compiled kernel where a build is loaded (cpsolve/counting/orbits_kernel.py), else with array
    operations on their images' keys: one set of keys per solution took most of the 5.5 s that
    classifying twelve pentominoes' 627,563 solutions in 6x11 (both ends open) took."""
    count, length = atoms.shape
    compiled = native.built_kernel(native.ORBITS) if length else None
    if compiled is not None:
        return _compiled_orbits(compiled, group, atoms)
    images = np.sort(group.maps[:, atoms], axis=2)  # element x solution x atom
    rows = np.ascontiguousarray(images.transpose(1, 0, 2), dtype=KEY_TYPE)
    keys = rows.view(np.dtype((np.void, 4 * length))).reshape(count, -1)  # solution x element
    own = np.ascontiguousarray(atoms, dtype=KEY_TYPE).view(keys.dtype).reshape(count, 1)
    proper = np.asarray(group.proper, bool)
    rotated = np.sort(keys[:, proper], axis=1)
    distinct = 1 + (rotated[:, 1:] != rotated[:, :-1]).sum(axis=1)
    least = cast(list[bytes], rotated[:, 0].tolist())
    mirrored = [b""] * count if proper.all() else cast(list[bytes], np.sort(keys[:, ~proper], axis=1)[:, 0].tolist())
    stabiliser = cast(list[int], (keys == own).sum(axis=1).tolist())
    return RotationOrbits(least, mirrored, cast(list[int], distinct.tolist()), stabiliser)


def _compiled_orbits(kernel: Any, group: SymmetryGroup, atoms: Any) -> RotationOrbits:
    """`rotation_orbits` by the compiled kernel: the least images as rows, made keys here. Every
    array a writeable int64 one (or bool), the types `load_compiled_orbits` recorded for the build;
    the group's maps as they are (made so once, and not copied for each batch)."""
    count, length = atoms.shape
    proper = np.array(group.proper, np.bool_)
    least = np.empty((count, length), np.int64)
    least_mirrored = np.zeros((count, length), np.int64)
    distinct = np.empty(count, np.int64)
    stabiliser = np.empty(count, np.int64)
    kernel(group.maps, proper, np.array(atoms, np.int64), least, least_mirrored, distinct, stabiliser)
    key = np.dtype((np.void, 4 * length))
    keys = cast(list[bytes], np.ascontiguousarray(least, KEY_TYPE).view(key).ravel().tolist())
    mirrored = (
        [b""] * count
        if proper.all()
        else cast(list[bytes], np.ascontiguousarray(least_mirrored, KEY_TYPE).view(key).ravel().tolist())
    )
    return RotationOrbits(keys, mirrored, cast(list[int], distinct.tolist()), cast(list[int], stabiliser.tolist()))


def load_compiled_orbits() -> None:
    """The orbit of one solution under the identity, so that `cpsolve compile` records the compiled
    kernel's call (cpsolve.native) in the types `_compiled_orbits` gives it."""
    kernel = native.kernel(native.ORBITS)
    one = np.zeros((1, 1), np.int64)
    kernel(one, np.ones(1, np.bool_), one.copy(), one.copy(), one.copy(), *np.zeros((2, 1), np.int64))


def row_keys(atoms: Any) -> list[bytes]:
    """The key of each row of sorted solutions of one length (solutions x atoms)."""
    rows = np.ascontiguousarray(atoms, dtype=KEY_TYPE)
    return cast(list[bytes], rows.view(np.dtype((np.void, 4 * atoms.shape[1]))).ravel().tolist())


def by_length(solutions: Sequence[Solution]) -> dict[int, list[int]]:
    """The solutions' places in the batch by their length (pieces placed), so that each length
    is one array."""
    numbers: dict[int, list[int]] = {}
    for number, solution in enumerate(solutions):
        numbers.setdefault(len(solution), []).append(number)
    return numbers


def solution_of(key: bytes) -> Solution:
    return tuple(np.frombuffer(key, KEY_TYPE).tolist())
