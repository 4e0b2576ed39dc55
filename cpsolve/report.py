"""What a run found out: the report every caller reads (the command line's text and `--json`, the
library's Result, batch lines, bench rows, the studio), one shape whatever engine ran.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from cpsolve.counting import Counts
from cpsolve.engines.base import StopReason

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
