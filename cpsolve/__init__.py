"""cpsolve: solve and count discrete assembly puzzles with OR-Tools CP-SAT.

`cpsolve.solve(path_or_spec, **options)` is the library's entry for notebooks and scripts
(cpsolve/api.py); it is imported on first use, so that `cpsolve --help` stays light.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    if name in ("solve", "Result"):
        from cpsolve import api

        return getattr(api, name)
    raise AttributeError(f"module 'cpsolve' has no attribute {name!r}")
