"""A finished job's solutions as the files the command line writes: the page (`--html`), a
picture (`--png`), the pieces for printing (`--stl`, zipped: one file per piece) and a BurrTools
file with the assemblies (`--xmpuzzle`). Each is made by the same writer as the command line's,
in a scratch folder, and handed back as bytes."""

from __future__ import annotations

import io
import re
import tempfile
import zipfile
from pathlib import Path
from typing import Literal

from cpsolve.errors import CpsolveError
from cpsolve.found import ClassCollector
from cpsolve.limits import NO_DEADLINE, Deadline
from cpsolve.pictures import page_html, scene
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
    """The file of `kind` for the job's first unique solution (the page: all it kept). STL meshes
    are made under `deadline` (OutOfTimeError once it passes, nothing made), as `--stl` is."""
    if collected.model is None or not collected.solutions:
        raise CpsolveError("nothing to export: the run kept no solution")
    if kind == "html":
        return page_html(scene(report, collected)).encode("utf-8", errors="replace")
    with tempfile.TemporaryDirectory(prefix="cpsolve-studio-") as scratch:
        folder = Path(scratch)
        if kind == "png":
            from cpsolve.pictures.png import write_png

            write_png(scene(report, collected), folder / "picture.png")
            return (folder / "picture.png").read_bytes()
        if kind == "stl":
            from cpsolve.stl import StlOptions, solution_pieces, write_stl

            pieces = solution_pieces(collected.model, collected.solutions[0])
            written = write_stl(folder / "pieces", pieces, StlOptions(), deadline)
            packed = io.BytesIO()
            with zipfile.ZipFile(packed, "w", zipfile.ZIP_DEFLATED) as archive:
                for path in written:
                    archive.write(path, path.name)
            return packed.getvalue()
        from cpsolve.convert import AssemblyCollector, solved_state

        assemblies = AssemblyCollector(None, collected.model, list(collected.solutions), list(collected.details))
        assemblies.write(report.name, folder / "puzzle.xmpuzzle", solved_state(report))
        return (folder / "puzzle.xmpuzzle").read_bytes()
