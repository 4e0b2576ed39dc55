"""Solutions listed by an engine but not kept: each adds its share of its class to the counts.

For puzzles no counter takes (chains, tiles, packings whose parts are mirrored on their own),
`--count-only` still lists every solution, but keeps none. A class of n valid images is met
n times by a complete enumeration (with symmetry breaking: solutions whose weights add up to n),
so each solution S of weight w adds w to raw, w / n(S) to unique and w / p(S) to rotations, where
n(S) counts its distinct valid images and p(S) its distinct images under the proper elements: the
classifier's own definitions (cpsolve.counting.classes), summed per solution instead of per class.
The sums are exact fractions; that they come out whole is the run's orbit-stabiliser check.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from cpsolve.counting.classes import Counts, image_keys, solution_of
from cpsolve.limits import NO_DEADLINE, Deadline
from cpsolve.symmetry import Breaking, Solution, SymmetryGroup

IMAGE_BATCH = 4096  # solutions whose images are found with one array operation


@dataclass
class Tally:
    """The counts of the solutions added so far, without keeping them."""

    group: SymmetryGroup
    breaking: Breaking | None = None
    raw_seen: int = 0
    weight_seen: int = 0
    unique_share: Fraction = field(default_factory=Fraction)
    rotation_share: Fraction = field(default_factory=Fraction)

    def add_batch(self, solutions: Sequence[Solution], deadline: Deadline = NO_DEADLINE) -> list[None]:
        """Add solutions; no class is ever new (none is kept), so a list of None, one for each
        solution added: fewer than given where the deadline passed between two chunks (the rest
        not added)."""
        proper = self.group.proper.tolist()
        is_valid = self.group.is_valid
        for start in range(0, len(solutions), IMAGE_BATCH):
            if start and deadline.passed():
                return [None] * start
            chunk = solutions[start : start + IMAGE_BATCH]
            images = image_keys(self.group, chunk)
            for number, solution in enumerate(chunk):
                keys = images[number]
                proper_keys = {key for key, kept in zip(keys, proper, strict=True) if kept}
                valid = {key for key in keys if key in proper_keys or is_valid is None or is_valid(solution_of(key))}
                weight = 1 if self.breaking is None else self.breaking.weight_of(solution)
                self.raw_seen += 1
                self.weight_seen += weight
                self.unique_share += Fraction(weight, len(valid))
                self.rotation_share += Fraction(weight, len(proper_keys))
        return [None] * len(solutions)

    def counts(self) -> Counts:
        """The counts so far (lower bounds until the enumeration is complete), rounded down."""
        raw = self.weight_seen // self.group.redundancy
        unique = raw if self.group.unique_counts_raw else int(self.unique_share)
        return Counts(raw, int(self.rotation_share), unique)

    def identity_problems(self) -> list[str]:
        """Shares of classes that do not add up to whole classes: solutions lost or doubled."""
        problems = []
        for name, share in (("unique", self.unique_share), ("rotations", self.rotation_share)):
            if share.denominator != 1:
                problems.append(f"{name}: the solutions add up to {share} classes, not a whole number")
        if self.weight_seen % self.group.redundancy:
            problems.append(f"raw: {self.weight_seen} writings of solutions, not a multiple of {self.group.redundancy}")
        return problems
