"""The engines: which can take a puzzle, which one runs, and opening an enumeration on it.

Every engine enumerates the same atoms of the same model under the same symmetry breaking and
yields each solution as its sorted true atoms, so one classifier counts them all:

- cpsat: the CP-SAT model itself; takes every puzzle.
- exact-cover: Knuth's dancing cells (xcover) on `exact_cover()`: packings of single pieces.
- chain-dfs: a compiled segment-by-segment walk on `chain_walk()`: chains within 64 cells.

The last two are optional installs (`cpsolve[exact-cover]`, `cpsolve[chain-dfs]`); `auto` takes
the special engine when it can, as measured faster on every puzzle it takes (README).
"""

from __future__ import annotations

import copy
from collections.abc import Generator
from typing import Protocol, TypeAlias

from cpsolve import chain_dfs, exact_cover
from cpsolve import engine as cpsat_engine
from cpsolve.chain_dfs import ChainEnumeration
from cpsolve.counting import Breaking, Solution
from cpsolve.engine import Enumeration, SearchOptions
from cpsolve.errors import CpsolveError
from cpsolve.exact_cover import ExactCoverEnumeration
from cpsolve.models import ChainWalk, ExactCoverRows, PuzzleModel

CPSAT = cpsat_engine.ENGINE_NAME
EXACT_COVER = exact_cover.ENGINE_NAME
CHAIN_DFS = chain_dfs.ENGINE_NAME
AUTO = "auto"
ENGINES = (CPSAT, EXACT_COVER, CHAIN_DFS, AUTO)

# What a special engine takes instead of the CP-SAT model; None for CP-SAT.
EngineInput: TypeAlias = ExactCoverRows | ChainWalk | None


class Enumerating(Protocol):
    """What every engine's enumeration offers: iterate for solutions, then ask how it ended."""

    stopped_by: str | None

    def __iter__(self) -> Generator[Solution, None, None]: ...

    def interrupt(self) -> None: ...

    @property
    def complete(self) -> bool: ...


def special_input(engine: str, puzzle: PuzzleModel) -> EngineInput:
    """What a special engine would run on, or None when it cannot take this puzzle."""
    if engine == EXACT_COVER:
        return puzzle.exact_cover()
    if engine == CHAIN_DFS:
        walk = puzzle.chain_walk()
        return walk if walk is not None and chain_dfs.fits(walk) else None
    return None


def installed(engine: str) -> bool:
    return {EXACT_COVER: exact_cover.available, CHAIN_DFS: chain_dfs.available}.get(engine, lambda: True)()


def preload(engine: str) -> None:
    """Import an engine's libraries before a run's clock starts; `auto` loads every one."""
    if engine in (EXACT_COVER, AUTO):
        exact_cover.preload()
    if engine in (CHAIN_DFS, AUTO):
        chain_dfs.preload()


def engines_for(puzzle: PuzzleModel) -> list[str]:
    """Every installed engine that can take the puzzle, CP-SAT first."""
    return [CPSAT, *(e for e in (EXACT_COVER, CHAIN_DFS) if installed(e) and special_input(e, puzzle) is not None)]


WHAT_IT_TAKES = {
    EXACT_COVER: "packings with every piece used exactly once and no groups",
    CHAIN_DFS: f"chains whose target fits in a box of {chain_dfs.MAX_CELLS} cells",
}


def choose_engine(requested: str, puzzle: PuzzleModel) -> tuple[str, EngineInput]:
    """The engine that runs, and what it runs on.

    `auto` takes a special engine whenever it can take the model and is installed: measured on
    this machine (`cpsolve bench --slow`, README) exact cover runs 1.1-8 times faster than CP-SAT
    on every packing it takes, the chain walk 1.5-31 times on every chain.
    """
    if requested not in ENGINES:
        raise CpsolveError(f"unknown engine {requested!r}; expected one of {', '.join(ENGINES)}")
    if requested == CPSAT:
        return CPSAT, None
    if requested != AUTO:
        taken = special_input(requested, puzzle)
        if taken is None:
            raise CpsolveError(
                f"{puzzle.name}: the {requested} engine takes only {WHAT_IT_TAKES[requested]}; use --engine cpsat"
            )
        if not installed(requested):
            raise CpsolveError(f'the {requested} engine is not installed: pip install "cpsolve[{requested}]"')
        return requested, taken
    for engine in (EXACT_COVER, CHAIN_DFS):
        taken = special_input(engine, puzzle)
        if taken is not None and installed(engine):
            return engine, taken
    return CPSAT, None


def open_enumeration(
    taken: EngineInput,
    puzzle: PuzzleModel,
    breaking: Breaking | None,
    search: SearchOptions,
    first_atom: int | None = None,
) -> Enumerating:
    """An enumeration on the engine chosen; `first_atom`: only the part where that kept atom holds.

    For CP-SAT the breaking must already be in the model (`puzzle.forbid`); a part runs on a copy
    of the model with its atom fixed, so parts of one model can run one after another.
    """
    if isinstance(taken, ExactCoverRows):
        return ExactCoverEnumeration(taken, breaking, search, first_atom=first_atom)
    if isinstance(taken, ChainWalk):
        return ChainEnumeration(taken, breaking, search, first_atom=first_atom)
    if first_atom is not None:
        puzzle = copy.copy(puzzle)
        puzzle.model = puzzle.model.clone()
        puzzle.model.add(puzzle.atoms[first_atom] == 1)
    return Enumeration(puzzle, search)
