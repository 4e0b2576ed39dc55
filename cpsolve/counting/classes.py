"""Reducing listed solutions to classes, and the three counts.

Every family describes a solution as a sorted tuple of *atoms* (for packing an atom is one
placement of one piece) and every symmetry as a permutation of atoms, so one classifier serves
them all. A class is registered once, with its whole orbit, when its first member arrives; every
later raw solution is a dictionary look-up. That orbit also proves the counts: a complete
enumeration must meet each valid image of each class exactly once, which is the orbit-stabiliser
identity raw = sum over classes of |valid images| = sum of |G'| / |stabiliser| (G' the elements
that keep the solution valid; all of G unless parts are turned separately).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import cast

import numpy as np

from cpsolve.limits import DEFAULT_MAX_CLASS_BYTES
from cpsolve.symmetry import Breaking, Solution, SymmetryGroup

# What one class costs in the store, for its budget: the class record and representative, and per
# image its key (4 bytes an atom) plus a bytes object and a dictionary entry.
CLASS_BYTES = 400
IMAGE_BYTES = 110
IMAGE_CHUNK_BYTES = 64 * 2**20  # the images of one chunk of a batch, as one array


class ClassStoreFull(Exception):
    """The classes a listing run keeps would pass its memory budget (--max-memory)."""

    def __init__(self, max_bytes: int) -> None:
        super().__init__(max_bytes)
        self.max_bytes = max_bytes


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
    by one, measured when this was written: commit 69a8693).
    """

    group: SymmetryGroup
    breaking: Breaking | None = None
    max_bytes: int = DEFAULT_MAX_CLASS_BYTES  # what the stored images may take (ClassStoreFull beyond)
    classes: list[SolutionClass] = field(default_factory=list)
    _class_of: dict[bytes, int] = field(default_factory=dict)  # each image's key (`_key`): its class
    raw_seen: int = 0
    weight_seen: int = 0
    stored_bytes: int = 0  # an estimate of what the classes and their images take

    def add(self, solution: Solution) -> SolutionClass | None:
        """Record one enumerated solution; return its class if it is the first of it."""
        return self.add_batch([solution])[0]

    def add_batch(self, solutions: Sequence[Solution]) -> list[SolutionClass | None]:
        """Record enumerated solutions in order; for each, its class if it is the first of it.
        Raises ClassStoreFull, before storing a class that would pass `max_bytes` (what was
        recorded so far stays, and its counts are lower bounds)."""
        if not solutions:
            return []
        width = max(len(solution) for solution in solutions)
        chunk = max(1, IMAGE_CHUNK_BYTES // (8 * max(1, width) * max(1, self.group.order)))
        if len(solutions) > chunk:  # the images of a batch as one array: bounded, however large the solutions
            return [
                found
                for start in range(0, len(solutions), chunk)
                for found in self.add_batch(solutions[start : start + chunk])
            ]
        keys = [_key(solution) for solution in solutions]
        unseen = [i for i, key in enumerate(keys) if key not in self._class_of]
        computed = image_keys(self.group, [solutions[i] for i in unseen])
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

    def _register(self, key: bytes, images: list[bytes]) -> SolutionClass:
        cost = CLASS_BYTES + len(images) * (len(key) + IMAGE_BYTES)
        if self.stored_bytes + cost > self.max_bytes:
            raise ClassStoreFull(self.max_bytes)
        self.stored_bytes += cost
        is_valid = self.group.is_valid
        proper_keys = {image for image, is_proper in zip(images, self.group.proper.tolist(), strict=True) if is_proper}
        if is_valid is None:
            valid = images
        else:
            valid = [image for image in images if image in proper_keys or is_valid(solution_of(image))]
        valid_keys = set(valid)
        index = len(self.classes)
        for image in valid_keys:
            self._class_of[image] = index
        solution_class = SolutionClass(
            representative=solution_of(min(valid_keys)),
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


def image_keys(group: SymmetryGroup, solutions: Sequence[Solution]) -> dict[int, list[bytes]]:
    """For each solution (by its place in the batch), the key of its image under each element of
    `group`, in the group's order: all solutions of one length with one array operation."""
    by_length: dict[int, list[int]] = {}
    for number, solution in enumerate(solutions):
        by_length.setdefault(len(solution), []).append(number)
    keys: dict[int, list[bytes]] = {}
    for length, numbers in by_length.items():
        atoms = np.array([solutions[n] for n in numbers], np.int64).reshape(len(numbers), length)
        images = np.sort(group.maps[:, atoms], axis=2)  # element x solution x atom
        rows = np.ascontiguousarray(images.transpose(1, 0, 2), dtype=KEY_TYPE)
        as_bytes = cast(
            list[list[bytes]], rows.view(np.dtype((np.void, 4 * length))).reshape(len(numbers), -1).tolist()
        )
        keys.update(zip(numbers, as_bytes, strict=True))
    return keys


def solution_of(key: bytes) -> Solution:
    return tuple(np.frombuffer(key, KEY_TYPE).tolist())
