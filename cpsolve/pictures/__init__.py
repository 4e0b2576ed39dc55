"""Pictures of solutions: the scene (what is shown), the self-contained page, the PNG. What a run
writes of them is made by cpsolve.outcome."""

from __future__ import annotations

from typing import Any

from cpsolve.pictures.page import page_html
from cpsolve.pictures.scene import scene

__all__ = ["first_view", "page_html", "scene"]


def first_view(drawn: dict[str, Any]) -> int:
    """The solution a page opens on (from 0): with a disassembly, the first that comes apart, as
    viewer.js chooses it; else the first."""
    return next((n for n, solution in enumerate(drawn["solutions"]) if solution.get("level")), 0)
