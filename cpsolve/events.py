"""What a job tells whoever watches it, in order: it started, how it progresses, each new class
of solutions, and its report. The command line's progress line and `--solutions` file, the
library's `Result`, batches and the studio's event stream all read these (cpsolve.jobs).

Each event's `as_json()` is what the studio sends; a new class's solution is described by its
model (the pieces and their cells, as `--solutions` writes it) only when it is asked for.

Plain classes with slots, not dataclasses: making five frozen dataclasses took 2.5 ms of every
`cpsolve run`'s start (`python -X importtime`), which imports this module.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cpsolve.models import PuzzleModel
    from cpsolve.report import RunReport
    from cpsolve.symmetry import Solution


class Started:
    """The job began: the puzzle it runs (a file's problem number where it has several)."""

    __slots__ = ("name", "problem", "source")

    def __init__(self, name: str, source: str, problem: str | None) -> None:
        self.name, self.source, self.problem = name, source, problem

    def as_json(self) -> dict[str, Any]:
        return {"event": "started", "name": self.name, "source": self.source, "problem": self.problem}


class Progress:
    """Where the run is, `seconds` after it started: a line of text for a person, and the numbers
    where the run has them: solutions met, classes kept, placements the search made here (None
    where the search runs in other processes) and the estimated placements of the whole search."""

    __slots__ = ("classes", "doing", "estimated_placements", "placements", "seconds", "solutions")

    def __init__(
        self,
        seconds: float,
        doing: str,
        solutions: int | None = None,
        classes: int | None = None,
        placements: int | None = None,
        estimated_placements: float | None = None,
    ) -> None:
        self.seconds, self.doing, self.solutions, self.classes = seconds, doing, solutions, classes
        self.placements, self.estimated_placements = placements, estimated_placements

    @property
    def placements_per_second(self) -> float | None:
        return None if self.placements is None or self.seconds <= 0 else self.placements / self.seconds

    @property
    def solutions_per_second(self) -> float | None:
        return None if self.solutions is None or self.seconds <= 0 else self.solutions / self.seconds

    @property
    def share_done(self) -> float | None:
        """How much of the estimated search is done (0 to 1; an estimate is only that), where the
        run has an estimate and counts its placements here."""
        if not self.placements or not self.estimated_placements:
            return None
        return min(1.0, self.placements / self.estimated_placements)

    def line(self) -> str:
        """What a progress line says: what the run is doing, and the share of the estimated search
        done where there is an estimate."""
        share = self.share_done
        return self.doing if share is None else f"{self.doing}, about {share:.0%} of the estimated search"

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
            "share_done": self.share_done,
        }


class NewClass:
    """A class of solutions met for the first time (`number` from 1, in the order found): its
    representative, the model that reads it, and what else is known (its disassembly)."""

    __slots__ = ("details", "model", "number", "solution")

    def __init__(self, number: int, solution: Solution, model: PuzzleModel, details: Mapping[str, Any]) -> None:
        self.number, self.solution, self.model, self.details = number, solution, model, details

    def described(self) -> dict[str, Any]:
        """The solution as `--solutions` writes it, with its details."""
        return {**self.model.describe(self.solution), **self.details}

    def as_json(self) -> dict[str, Any]:
        return {"event": "class", "number": self.number, "solution": self.described()}


class Finished:
    """The job ended with this report (complete, or stopped and marked so)."""

    __slots__ = ("report",)

    def __init__(self, report: RunReport) -> None:
        self.report = report

    def as_json(self) -> dict[str, Any]:
        return {"event": "finished", "report": self.report.as_json()}


class Failed:
    """The job ended without a report: the one line a command-line run would print."""

    __slots__ = ("message",)

    def __init__(self, message: str) -> None:
        self.message = message

    def as_json(self) -> dict[str, Any]:
        return {"event": "failed", "message": self.message}


JobEvent = Started | Progress | NewClass | Finished | Failed
