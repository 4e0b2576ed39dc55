"""What a picture of a run shows, as plain data: the page's viewer and the PNG drawer both read it.

A scene holds the puzzle's name, its counts, and the unique solutions collected (up to a limit),
in the form the puzzle's family draws them: the family's record (cpsolve.models) gives its part
of the scene and the `drawing` that shows it ("pieces", "chain", "tiles"), so nothing here knows
one family from another.
"""

from __future__ import annotations

from typing import Any

from cpsolve.colours import palette
from cpsolve.report import RunReport
from cpsolve.run import ClassCollector

__all__ = ["palette", "scene"]


def scene(report: RunReport, collected: ClassCollector) -> dict[str, Any]:
    """The scene of a finished run: its report's headline and the collected solutions."""
    solutions, details = collected.solutions, collected.details
    data: dict[str, Any] = {
        "name": report.name,
        "kind": report.kind,
        "source": report.source,
        "counts": report.counts.as_dict(),
        "complete": report.complete,
        "stopped_by": None if report.stopped_by is None else str(report.stopped_by),
        "stopped": None if report.stopped_by is None else report.stopped_by.words,
        "shown": len(solutions),
        "solutions": [],
    }
    if report.disassembly is not None:
        data["disassembly"] = report.disassembly.as_json()
    model = collected.model
    family = None if model is None else model.family
    if model is not None and family is not None:
        data["drawing"] = family.drawing
        data.update(family.scene(model, solutions, details))
    return data
