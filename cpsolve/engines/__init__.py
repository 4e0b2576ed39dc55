"""The engines: the registry, which engine runs a puzzle, and the executor for parts.

- cpsat (cpsat.py): CP-SAT on the puzzle's constraints; takes every puzzle and is the reference.
- exact-cover (exact_cover.py): a compiled bit-board search for packings of single pieces.
- chain-dfs (chain_walk.py): a compiled segment-by-segment walk for chains within 64 cells.

The last two need numba (`cpsolve[exact-cover]`, `cpsolve[chain-dfs]`). `auto` takes the first
installed engine in registry order that takes the puzzle; the special engines come first as
measured faster on every puzzle they take (README). This package is the only place that knows
engines by name; everything else asks it.
"""

from __future__ import annotations

import os
from typing import Final

from cpsolve.errors import CpsolveError
from cpsolve.limits import NO_DEADLINE, Deadline
from cpsolve.models import PuzzleModel

from . import breaking
from .base import Engine, Enumeration, Prepared, SearchOptions, StopReason
from .chain_walk import ChainWalkEngine
from .cpsat import CpSatEngine
from .exact_cover import ExactCoverEngine
from .parts import PartsEnumeration

AUTO: Final = "auto"

# In the order `auto` tries them; the reference engine (it takes everything) last.
ENGINES: list[Engine] = [ExactCoverEngine(), ChainWalkEngine(), CpSatEngine()]


def register(engine: Engine) -> None:
    """Add an engine (before the reference engine, so that `auto` tries it first)."""
    ENGINES.insert(len(ENGINES) - 1, engine)


def unregister(name: str) -> None:
    ENGINES[:] = [engine for engine in ENGINES if engine.name != name]


def reference() -> Engine:
    """The engine every other is compared with: the one that takes every puzzle."""
    return ENGINES[-1]


def names() -> list[str]:
    """Engine names in a stable order for help texts and messages: the reference first."""
    return [reference().name, *(e.name for e in ENGINES[:-1]), AUTO]


def engine_named(name: str) -> Engine:
    for engine in ENGINES:
        if engine.name == name:
            return engine
    raise CpsolveError(f"unknown engine {name!r}; expected one of {', '.join(names())}")


def engines_for(puzzle: PuzzleModel) -> list[Engine]:
    """Every installed engine that can take the puzzle, the reference first."""
    return [reference(), *(e for e in ENGINES[:-1] if e.installed() and e.takes(puzzle))]


def choose(requested: str, puzzle: PuzzleModel) -> Engine:
    """The engine that runs the puzzle: the one asked for (an error if it cannot), or for `auto`
    the first installed engine that takes it."""
    if requested == AUTO:
        return next(e for e in ENGINES if e.installed() and e.takes(puzzle))
    engine = engine_named(requested)
    if not engine.takes(puzzle):
        raise CpsolveError(
            f"{puzzle.name}: the {engine.name} engine takes only {engine.takes_what}; use --engine {reference().name}"
        )
    if not engine.installed():
        raise CpsolveError(f'the {engine.name} engine is not installed: pip install "cpsolve[{engine.extra}]"')
    return engine


def check_requested(requested: str) -> None:
    """Refuse an unknown engine name before any work is done."""
    if requested != AUTO:
        engine_named(requested)


def choose_breaking(puzzle: PuzzleModel, deadline: Deadline = NO_DEADLINE) -> breaking.BreakingChoice:
    """The symmetry breaking for a run, by estimated search size where an engine can estimate."""
    return breaking.choose(puzzle, ENGINES, deadline)


def cores() -> int:
    return os.cpu_count() or 1


__all__ = [
    "AUTO",
    "ENGINES",
    "Engine",
    "Enumeration",
    "PartsEnumeration",
    "Prepared",
    "SearchOptions",
    "StopReason",
    "check_requested",
    "choose",
    "choose_breaking",
    "cores",
    "engine_named",
    "engines_for",
    "names",
    "reference",
    "register",
    "unregister",
]
