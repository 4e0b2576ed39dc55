"""A design candidate's assemblies up to two, by one compiled call (cpsolve/design/kernel.py).

What the design search needs of a cut that comes apart is whether its pieces have one assembly up to
the target's symmetries or more; it asked a whole run (spec, model, the breaking's choice, search,
classes: 10-14 ms a 4x4x4 candidate, benchmarks/design_checks.py). The target's arrays and its
symmetries are made here once for a request; each cut is then its cells and one kernel call.

Where the kernel cannot answer the caller runs the pipeline as before: a target past 128 cells or
sprawling over a bounding box past MOST_BOX_PLACES, no numba, or a search that placed
PLACEMENT_BUDGET pieces without deciding (a bound on one call's time, as the pipeline reads the
clock and this call does not); and after a trial where most did so, every cut of the request.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np

from cpsolve import native
from cpsolve.design.codes import ANOTHER, ONLY_THE_CUT
from cpsolve.engines.exact_cover.bits import BIT_OF
from cpsolve.geometry import ISOMETRIES, ROTATIONS, Cell, images_at_origin, self_maps

MOST_BITS: Final = 128  # the kernel's board: two 64-bit words
# The kernel tries each turn of each piece at every place of the target's bounding box and holds
# the masks it finds: a connected target of 128 cells winding through a 40x40x40 box would make
# each candidate's placements take a tenth of a second and 30 MB. Boxes and compact targets pass.
MOST_BOX_PLACES: Final = 1024
PLACEMENT_BUDGET: Final = 200_000  # pieces placed before the kernel gives the question back (milliseconds)
# A request whose cuts mostly run past the budget (many small pieces: ten in a 4x4x5 box) would pay
# the budget and then the whole run for each: after TRIAL_CALLS calls with more than half over it,
# the kernel is left out for the rest of the search.
TRIAL_CALLS: Final = 20


class CutChecker:
    """The target of a design request as the kernel's arrays; `assemblies` of each cut."""

    def __init__(self, target: Sequence[Cell], optional: Sequence[Cell]) -> None:
        self.usable = 0 < len(target) <= MOST_BITS and native.installed("numba")
        if not self.usable:
            return
        cells = _filling_order(target)
        points = np.array(cells, np.int64)
        self.low = points.min(axis=0)
        self.size = points.max(axis=0) - self.low + 1
        if int(np.prod(self.size)) > MOST_BOX_PLACES:
            self.usable = False
            return
        self.where = np.full(int(np.prod(self.size)), -1, np.int64)
        self.where[self._places(points)] = np.arange(len(cells))
        self.allowed = (self.where >= 0)[None].copy()
        empty = set(optional)
        self.optional = np.array([cell in empty for cell in cells], np.int64)
        maps, isometries = self_maps(cells, ISOMETRIES, {cell: cell in empty for cell in cells})
        self.maps = np.ascontiguousarray(maps, np.int64)
        self.proper = np.array([isometry.proper for isometry in isometries], np.int64)
        self.filled = len(cells)
        self.calls = self.over_budget = 0

    def _places(self, points: np.ndarray) -> np.ndarray:
        moved = points - self.low
        return (moved[:, 0] * self.size[1] + moved[:, 1]) * self.size[2] + moved[:, 2]  # type: ignore[no-any-return]

    def assemblies(self, cut: Sequence[Sequence[Cell]]) -> int | None:
        """1 where every assembly of the cut's pieces is an image of the cut under the target's
        symmetries, 2 where one is not; None where the kernel cannot say (the caller runs the
        pipeline)."""
        answer = self.answer(cut)
        return None if answer is None else answer.assemblies

    def answer(self, cut: Sequence[Sequence[Cell]]) -> CutAnswer | None:
        """What the kernel says of the cut: its unique assemblies up to two, and with one its raw
        count (the cut's distinct images that are assemblies); None where it cannot say."""
        if not self.usable:
            return None
        starts = np.zeros(len(cut) + 1, np.int64)
        starts[1:] = np.cumsum([len(piece) for piece in cut])
        cells = np.array([cell for piece in cut for cell in piece], np.int64).reshape(-1, 3) - self.low
        turned = np.ascontiguousarray(np.concatenate([images_at_origin(piece, ROTATIONS) for piece in cut], axis=1))
        holes = self.filled - len(cells)
        kernel = native.kernel(native.DESIGN_OTHER_ASSEMBLY)
        verdict, raw = kernel(
            self.where,
            self.size,
            self.allowed,
            cells,
            turned,
            starts,
            self.optional,
            holes,
            self.maps,
            self.proper,
            BIT_OF,
            PLACEMENT_BUDGET,
        )
        self.calls += 1
        if verdict == ONLY_THE_CUT:
            return CutAnswer(1, raw)
        if verdict == ANOTHER:
            return CutAnswer(2, None)
        self.over_budget += 1
        if self.calls >= TRIAL_CALLS and 2 * self.over_budget > self.calls:
            self.usable = False
        return None


@dataclass(frozen=True)
class CutAnswer:
    assemblies: int  # unique assemblies, at most 2
    raw: int | None  # with one: the assemblies with the target held fixed (None with two: not counted)


def _filling_order(target: Sequence[Cell]) -> list[Cell]:
    """The target's cells in the order the kernel fills the lowest open one: the bounding box's
    shortest side fastest, as the box search lays out its board, so that the open border stays
    short: ten pieces in a 4x4x5 box took 2.3-2.5 s a cut with the longest side fastest, 0.25 s so;
    eight in 5x5x3 2.0-2.5 ms against 21.6."""
    sides = [max(cell[axis] for cell in target) - min(cell[axis] for cell in target) for axis in range(3)]
    slowest_first = sorted(range(3), key=lambda axis: (-sides[axis], axis))
    return sorted(target, key=lambda cell: tuple(cell[axis] for axis in slowest_first))


def load_compiled_cut_check() -> None:
    """Check one cut of a 1x1x2 target, so that `cpsolve compile` records the kernel's call in the
    types `CutChecker.assemblies` gives it."""
    CutChecker([(0, 0, 0), (0, 0, 1)], []).assemblies((((0, 0, 0),), ((0, 0, 1),)))
