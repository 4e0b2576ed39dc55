"""What a run found out: the report every caller reads (the command line's text and `--json`, the
library's Result, batch lines, bench rows, the studio), one shape whatever engine ran.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from cpsolve.counting import Classifier, Counts
from cpsolve.counting.tally import Tally
from cpsolve.engines.base import Counting, StopReason
from cpsolve.formats import Puzzle

if TYPE_CHECKING:
    from cpsolve.disassembly import DisassemblySummary


@dataclass
class RunReport:
    """Everything a run found out; `as_json` is the stable shape scripts read."""

    name: str
    kind: str
    source: str
    complete: bool
    counts: Counts
    solutions_enumerated: int
    engine: str | None  # the engine that ran; None when the run ended before one did
    seconds: float
    stopped_by: StopReason | None = None
    expected: dict[str, int] = field(default_factory=dict)
    mismatches: list[str] = field(default_factory=list)
    identity_problems: list[str] = field(default_factory=list)
    symmetries: int = 1
    notes: list[str] = field(default_factory=list)
    shown: list[str] = field(default_factory=list)
    workers: int = 1
    extra_counts: dict[str, int] = field(default_factory=dict)  # by other rules (burrtools_unique)
    problem: str | None = None  # the problem's number in a file that holds several
    breaking: dict[str, Any] | None = None  # the symmetry breaking used and why (BreakingChoice)
    search: dict[str, str] = field(default_factory=dict)  # how the engine searched (cell choice)
    disassembly: DisassemblySummary | None = None  # --disassemble
    counting: dict[str, Any] | None = None  # --count-only: how it counted without listing

    @property
    def ok(self) -> bool:
        return not self.mismatches and not self.identity_problems

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "source": self.source,
            "complete": self.complete,
            "counts": self.counts.as_dict(),
            "solutions_enumerated": self.solutions_enumerated,
            "engine": self.engine,
            "seconds": round(self.seconds, 4),
            "stopped_by": None if self.stopped_by is None else str(self.stopped_by),
            "expected": self.expected,
            "matches_expected": None if not self.expected or not self.complete else not self.mismatches,
            "orbit_stabiliser_ok": not self.identity_problems if self.complete else None,
            "identity_problems": self.identity_problems,
            "symmetries": self.symmetries,
            "workers": self.workers,
            "breaking": self.breaking,
            **self.search,
            "notes": self.notes,
            **({"problem": self.problem} if self.problem is not None else {}),
            **self.extra_counts,
            **({"disassembly": self.disassembly.as_json()} if self.disassembly is not None else {}),
            "counting": self.counting,
        }


def counting_of(classifier: Classifier | Tally | Counting) -> dict[str, Any] | None:
    """The report's `counting`: how a run without listing counted (None: it listed)."""
    if isinstance(classifier, Counting):
        return classifier.as_json()
    return {"method": "tally"} if isinstance(classifier, Tally) else None


def unfinished_report(puzzle: Puzzle, reason: StopReason, seconds: float, doing: str) -> RunReport:
    """The run ended before the search could start: nothing found, nothing proven, no engine ran."""
    during = "the time limit passed" if reason is StopReason.TIME_LIMIT else f"the run was {reason}"
    return RunReport(
        name=puzzle.loaded.spec.name,
        kind=puzzle.loaded.spec.kind,
        source=puzzle.loaded.source.path,
        complete=False,
        counts=Counts(0, 0, 0),
        solutions_enumerated=0,
        engine=None,
        seconds=seconds,
        stopped_by=reason,
        expected=puzzle.expected,
        notes=[f"{during} {doing}"],
        problem=puzzle.problem,
    )
