"""A finished job's solutions as the files the command line writes: the page (`--html`), a
picture (`--png`), the pieces for printing (`--stl`, zipped: one file per piece) and a BurrTools
file with the assemblies (`--xmpuzzle`), each made as bytes by the run's outcome
(cpsolve.outcome), as the command line's are."""

from __future__ import annotations

import io
import re
import zipfile
from typing import Literal

from cpsolve.errors import CpsolveError
from cpsolve.found import ClassCollector
from cpsolve.limits import NO_DEADLINE, Deadline
from cpsolve.options import Outputs
from cpsolve.outcome import Outcome, stl_options
from cpsolve.report import RunReport

ExportKind = Literal["html", "png", "stl", "xmpuzzle"]
MEDIA_TYPES = {
    "html": "text/html; charset=utf-8",
    "png": "image/png",
    "stl": "application/zip",
    "xmpuzzle": "application/octet-stream",
}
SUFFIXES = {"html": ".html", "png": ".png", "stl": "-pieces.zip", "xmpuzzle": ".xmpuzzle"}


def file_name(name: str, kind: ExportKind) -> str:
    """A download's name from the puzzle's: letters, digits, `-`, `_` and `.` kept, the rest `_`."""
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("._") or "puzzle"
    return safe[:80] + SUFFIXES[kind]


def exported(
    kind: ExportKind,
    report: RunReport,
    collected: ClassCollector,
    outputs: Outputs | None = None,
    deadline: Deadline = NO_DEADLINE,
) -> bytes:
    """The file of `kind` (the page: every solution kept; the picture and the pieces: the one
    `outputs.solution` names, the first by default, the pieces in its sizes), made by the run's
    outcome as the command line's outputs are. STL meshes are made under `deadline`
    (OutOfTimeError once it passes, nothing made), as `--stl` is."""
    if collected.model is None or not collected.solutions:
        raise CpsolveError("nothing to export: the run kept no solution")
    outputs = outputs or Outputs()
    outcome = Outcome(report, collected)
    number = outputs.solution or 1
    if kind in ("png", "stl") and number > outcome.held():
        raise CpsolveError(f"solution {number}: the job kept {outcome.held()} unique solutions")
    if kind == "html":
        return outcome.page()
    if kind == "png":
        return outcome.picture(number, explode=outputs.explode)
    if kind == "stl":
        packed = io.BytesIO()
        with zipfile.ZipFile(packed, "w", zipfile.ZIP_DEFLATED) as archive:
            for name, data in outcome.pieces(number, stl_options(outputs), deadline):
                archive.writestr(name, data)
        return packed.getvalue()
    return outcome.burrtools()[0]
