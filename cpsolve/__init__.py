"""cpsolve: solve and count discrete assembly puzzles (packings, snake cubes, edge-matching tiles).

`cpsolve.start(path_or_spec, **options)` starts a run as a job to watch, cancel and wait on
(cpsolve/jobs.py); `cpsolve.solve(path_or_spec, **options)` and `cpsolve.solve_all(path)` wait for
it (cpsolve/api.py). The options are `cpsolve.Options`' fields. They are imported on first use, so
that `cpsolve --help` stays light.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

# name -> the module that defines it, imported when the name is first asked for
_LAZY = {
    "solve": "cpsolve.api",
    "solve_all": "cpsolve.api",
    "Result": "cpsolve.api",
    "start": "cpsolve.jobs",
    "Job": "cpsolve.jobs",
    "Options": "cpsolve.options",
    "OptionError": "cpsolve.options",
    "CpsolveError": "cpsolve.errors",
}

__all__ = [*_LAZY, "__version__"]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'cpsolve' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
