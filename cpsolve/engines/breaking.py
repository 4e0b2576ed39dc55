"""Which set breaks the symmetry: the one whose search is estimated smallest, not the one with the
fewest kept atoms.

Every candidate set (say, one piece's placements) can break the symmetry; the search then runs
once per kept atom of the set. How much work that is depends on the set far more than on how
many atoms it keeps (on the Tetris cube the best piece's search makes 52 million placements, the
worst's 289 million, docs/engines.md), so each candidate's search is estimated by random probes (Knuth's
estimator) with an engine that can (`Engine.search_estimator`), and the smallest wins. The same
choice serves every engine, so CP-SAT and the parts split use it too. Where no engine can
estimate steadily (no numba; not a packing; a flat target, whose estimates spread too widely),
or the search is small anyway, the set with the fewest kept atoms is used, as before.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from cpsolve.limits import NO_DEADLINE, Deadline
from cpsolve.models import PuzzleModel
from cpsolve.symmetry import Breaking, FirstSet, choose_breaking, first_sets

from .base import Engine, SearchEstimator

SIZE_PROBES = 256  # random paths to tell whether the search is big enough to choose for
FIRST_PROBES = 256  # random paths for a first look at each candidate set
FINAL_PROBES = 4096  # for the few best of them and the default (fewest kept atoms)
FINALISTS = 3
MARGIN = 0.7  # leave the default only for a set estimated this much smaller: the estimates are noisy
SMALL_SEARCH = 200_000  # estimated placements below which the choice is not worth making (~20 ms)


class ChosenBy(StrEnum):
    ESTIMATE = "smallest estimated search"
    FEWEST_KEPT = "fewest kept atoms"


@dataclass(frozen=True)
class BreakingChoice:
    """The breaking a run uses and why (the JSON `breaking`)."""

    breaking: Breaking | None
    label: str = ""
    kept: int = 0
    estimated_placements: float | None = None
    chosen_by: ChosenBy = ChosenBy.FEWEST_KEPT

    def as_json(self) -> dict[str, Any] | None:
        if self.breaking is None:
            return None
        estimate = self.estimated_placements
        return {
            "set": self.label,
            "kept": self.kept,
            "second_set": bool(self.breaking.second),
            "estimated_placements": None if estimate is None else round(estimate),
            "chosen_by": str(self.chosen_by),
        }


def estimator_for(puzzle: PuzzleModel, engines: Sequence[Engine]) -> SearchEstimator | None:
    """The first installed engine's estimator for the puzzle, or None."""
    for engine in engines:
        if engine.installed():
            estimator = engine.search_estimator(puzzle)
            if estimator is not None:
                return estimator
    return None


def choose(
    puzzle: PuzzleModel, engines: Sequence[Engine], deadline: Deadline = NO_DEADLINE, first_only: bool = False
) -> BreakingChoice:
    """The breaking for a run (`first_only`: a search for one solution): by estimated search size
    where an engine can estimate it."""
    options = first_sets(puzzle.group, puzzle.breaking_candidates)
    if not options:
        return BreakingChoice(None)
    estimator = estimator_for(puzzle, engines)
    if estimator is not None and first_only and not estimator.for_first:
        estimator = None
    first, estimate, chosen_by = options[0], None, ChosenBy.FEWEST_KEPT
    if estimator is not None:
        estimate = estimator.estimate(first.kept, estimator.size_probes or SIZE_PROBES)
        small = SMALL_SEARCH if estimator.worth_choosing is None else estimator.worth_choosing
        if estimator.steady and estimate >= small and len(options) > 1:
            first, estimate = _smallest(estimator.estimate, options, deadline)
            chosen_by = ChosenBy.ESTIMATE
    if chosen_by is ChosenBy.FEWEST_KEPT:  # among sets as few, the one whose second set cuts most
        breaking = choose_breaking(puzzle.group, puzzle.breaking_candidates, options)
        first = next(o for o in options if breaking is not None and frozenset(o.atoms) == breaking.first)
    else:
        breaking = choose_breaking(puzzle.group, puzzle.breaking_candidates, [first])
    labels = puzzle.breaking_labels
    label = labels[first.index] if first.index < len(labels) else f"candidate {first.index}"
    return BreakingChoice(breaking, label, len(first.kept), estimate, chosen_by)


def _smallest(
    estimator: Callable[[Sequence[int], int], float], options: list[FirstSet], deadline: Deadline
) -> tuple[FirstSet, float]:
    """The set with the smallest estimated search, and its estimate: a first look at every set,
    a closer one at the few best and the default, which is left only for a clearly smaller one."""
    default = options[0]
    first_look = []
    for option in options:
        deadline.check("estimating the search")
        first_look.append((estimator(option.kept, FIRST_PROBES), option.index, option))
    finalists = [option for _, _, option in sorted(first_look)[:FINALISTS]]
    closer = {default.index: estimator(default.kept, FINAL_PROBES)}
    for option in finalists:
        deadline.check("estimating the search")
        if option.index not in closer:
            closer[option.index] = estimator(option.kept, FINAL_PROBES)
    best = min(finalists, key=lambda option: closer[option.index])
    if closer[best.index] < MARGIN * closer[default.index]:
        return best, closer[best.index]
    return default, closer[default.index]
