"""Pictures of solutions: the scene (what is shown), the self-contained page, the PNG."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cpsolve.pictures.page import page_html, write_page
from cpsolve.pictures.scene import scene
from cpsolve.report import RunReport
from cpsolve.run import ClassCollector

__all__ = ["first_view", "page_html", "scene", "write_page", "write_pictures"]


def first_view(drawn: dict[str, Any]) -> int:
    """The solution a page opens on (from 0): with a disassembly, the first that comes apart, as
    viewer.js chooses it; else the first."""
    return next((n for n, solution in enumerate(drawn["solutions"]) if solution.get("level")), 0)


def write_pictures(
    report: RunReport, collected: ClassCollector, html: Path | None, png: Path | None, number: int | None
) -> list[str]:
    """What `--html` and `--png` ask for after a run (`number`: the solution the PNG draws, from 1;
    None: the one the page opens on, with --disassemble the first that comes apart). Returns what
    the user should be told: what was written where, and a PNG not drawn for a run without solution."""
    drawn = scene(report, collected)
    if number is None:
        number = first_view(drawn) + 1
    said = []
    if html is not None:
        write_page(drawn, html)
        said.append(f"{html}: a page of {len(drawn['solutions']):,} unique solutions")
    if png is None:
        return said
    if not drawn["solutions"]:
        return [*said, f"{png}: not written: the run found no solution to draw"]
    from cpsolve.pictures.png import write_png

    held = len(drawn["solutions"])
    write_png(drawn, png, min(number, held) - 1)
    if number > held:
        return [
            *said,
            f"{png}: drew solution {held}: the picture holds the first {held} unique solutions, not {number}",
        ]
    return [*said, f"{png}: a picture of solution {number}"]
