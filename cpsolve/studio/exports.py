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
from cpsolve.outcome import Outcome
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


def exported(kind: ExportKind, report: RunReport, collected: ClassCollector, deadline: Deadline = NO_DEADLINE) -> bytes:
    """The file of `kind` for the job's first unique solution (the page: all it kept), made by
    the run's outcome as the command line's outputs are. STL meshes are made under `deadline`
    (OutOfTimeError once it passes, nothing made), as `--stl` is."""
    if collected.model is None or not collected.solutions:
        raise CpsolveError("nothing to export: the run kept no solution")
    outcome = Outcome(report, collected)
    if kind == "html":
        return outcome.page()
    if kind == "png":
        return outcome.picture(1)
    if kind == "stl":
        packed = io.BytesIO()
        with zipfile.ZipFile(packed, "w", zipfile.ZIP_DEFLATED) as archive:
            for name, data in outcome.pieces(1, deadline=deadline):
                archive.writestr(name, data)
        return packed.getvalue()
    return outcome.burrtools()[0]
