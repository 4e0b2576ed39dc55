"""cpsolve: solve and count discrete assembly puzzles (packings, snake cubes, edge-matching tiles).

`cpsolve.solve(path_or_spec, **options)` and `cpsolve.solve_all(path)` are the library's entries
for notebooks and scripts (cpsolve/api.py); they are imported on first use, so that `cpsolve
--help` stays light.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    if name in ("solve", "solve_all", "Result"):
        from cpsolve import api

        return getattr(api, name)
    raise AttributeError(f"module 'cpsolve' has no attribute {name!r}")
