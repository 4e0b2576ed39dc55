"""What a job tells whoever watches it, in order: it started, how it progresses, each new class
of solutions, and its report. The command line's progress line and `--solutions` file, the
library's `Result`, batches and the studio's event stream all read these (cpsolve.jobs).

Each event's `as_json()` is what the studio sends; a new class's solution is described by its
model (the pieces and their cells, as `--solutions` writes it) only when it is asked for.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cpsolve.models import PuzzleModel
    from cpsolve.report import RunReport
    from cpsolve.symmetry import Solution


@dataclass(frozen=True)
class Started:
    """The job began: the puzzle it runs (a file's problem number where it has several)."""

    name: str
    source: str
    problem: str | None

    def as_json(self) -> dict[str, Any]:
        return {"event": "started", "name": self.name, "source": self.source, "problem": self.problem}


@dataclass(frozen=True)
class Progress:
    """Where the run is, `seconds` after it started: a line of text for a person, and the numbers
    where the run has them: solutions met, classes kept, placements the search made here (None
    where the search runs in other processes) and the estimated placements of the whole search."""

    seconds: float
    doing: str
    solutions: int | None = None
    classes: int | None = None
    placements: int | None = None
    estimated_placements: float | None = None

    @property
    def placements_per_second(self) -> float | None:
        return None if self.placements is None or self.seconds <= 0 else self.placements / self.seconds

    @property
    def solutions_per_second(self) -> float | None:
        return None if self.solutions is None or self.seconds <= 0 else self.solutions / self.seconds

    def as_json(self) -> dict[str, Any]:
        return {
            "event": "progress",
            "seconds": round(self.seconds, 3),
            "doing": self.doing,
            "solutions": self.solutions,
            "classes": self.classes,
            "placements": self.placements,
            "placements_per_second": self.placements_per_second,
            "estimated_placements": self.estimated_placements,
        }


@dataclass(frozen=True)
class NewClass:
    """A class of solutions met for the first time (`number` from 1, in the order found): its
    representative, the model that reads it, and what else is known (its disassembly)."""

    number: int
    solution: Solution
    model: PuzzleModel = field(repr=False)
    details: Mapping[str, Any] = field(default_factory=dict)

    def described(self) -> dict[str, Any]:
        """The solution as `--solutions` writes it, with its details."""
        return {**self.model.describe(self.solution), **self.details}

    def as_json(self) -> dict[str, Any]:
        return {"event": "class", "number": self.number, "solution": self.described()}


@dataclass(frozen=True)
class Finished:
    """The job ended with this report (complete, or stopped and marked so)."""

    report: RunReport

    def as_json(self) -> dict[str, Any]:
        return {"event": "finished", "report": self.report.as_json()}


@dataclass(frozen=True)
class Failed:
    """The job ended without a report: the one line a command-line run would print."""

    message: str

    def as_json(self) -> dict[str, Any]:
        return {"event": "failed", "message": self.message}


JobEvent = Started | Progress | NewClass | Finished | Failed
