"""The engines and their registry: which engine runs a puzzle, by name or by `auto`.

- cpsat (cpsat.py): CP-SAT on the puzzle's constraints; takes every puzzle and is the reference.
- exact-cover (exact_cover/: the box search and the lowest-cell search): a compiled bit-board search
  for packings.
- chain-dfs (chain_dfs/): a compiled segment-by-segment walk for chains within 64 cells.
- tiles-dfs (tiles_dfs/): a compiled place-by-place search for edge-matching boards.
- frontier (frontier/): counts packings without listing them (`--count-only`), every sub-problem
  counted once, the classes by Burnside's lemma; it lists nothing (`Engine.lists` False).

The last three need numba (`cpsolve[exact-cover]`, `cpsolve[chain-dfs]`, `cpsolve[tiles-dfs]`). `auto` takes the first
installed engine in registry order that takes the puzzle; the special engines come first as
measured faster on every puzzle they take (docs/engines.md). An `Engines` registry is built once
and never changed: `with_engine` makes a new one (tests run a brute-force engine that way). This
package is the only place that knows engines by name; everything else asks a registry.
To add an engine: copy TEMPLATE.py, and add it to `DEFAULT`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Final

from cpsolve.choices import AUTO
from cpsolve.errors import CpsolveError
from cpsolve.limits import NO_DEADLINE, Deadline
from cpsolve.models import PuzzleModel

from . import breaking, frontier
from .base import Engine, Enumeration, Prepared, SearchOptions, StopReason
from .chain_dfs import ChainWalkEngine
from .cpsat import CpSatEngine
from .exact_cover import ExactCoverEngine
from .frontier import FrontierEngine
from .tiles_dfs import TilesEngine


class Engines:
    """Engines in the order `auto` tries them; the reference engine (it takes everything) last."""

    def __init__(self, ordered: Sequence[Engine]) -> None:
        self.ordered: tuple[Engine, ...] = tuple(ordered)

    def __iter__(self) -> Iterator[Engine]:
        return iter(self.ordered)

    def with_engine(self, engine: Engine) -> Engines:
        """A registry with `engine` added before the reference engine (so `auto` tries it first)."""
        return Engines([*self.ordered[:-1], engine, self.ordered[-1]])

    @property
    def reference(self) -> Engine:
        """The engine every other is compared with: the one that takes every puzzle."""
        return self.ordered[-1]

    def names(self) -> list[str]:
        """Engine names in a stable order for help texts and messages: the reference first."""
        return [self.reference.name, *(e.name for e in self.ordered[:-1]), AUTO]

    def named(self, name: str) -> Engine:
        for engine in self.ordered:
            if engine.name == name:
                return engine
        raise CpsolveError(f"unknown engine {name!r}; expected one of {', '.join(self.names())}")

    def check_requested(self, requested: str) -> None:
        """Refuse an unknown engine name before any work is done."""
        if requested != AUTO:
            self.named(requested)

    def counter(self) -> Engine | None:
        """The engine that counts without listing (`--count-only`), where the registry has one."""
        return next((engine for engine in self.ordered if not engine.lists), None)

    def for_puzzle(self, puzzle: PuzzleModel) -> list[Engine]:
        """Every installed engine that can list the puzzle's solutions, the reference first."""
        return [self.reference, *(e for e in self.ordered[:-1] if e.lists and e.installed() and e.takes(puzzle))]

    def choose(self, requested: str, puzzle: PuzzleModel, count_only: bool = False) -> Engine:
        """The engine that runs the puzzle: the one asked for (an error if it cannot), or for `auto`
        the first installed engine that takes it; with `count_only`, an engine that counts without
        listing first (where it takes the puzzle for `auto`), else one that lists (and a run tallies)."""
        if requested == AUTO:
            counters = [e for e in self.ordered if not e.lists] if count_only else []
            listers = [e for e in self.ordered if e.lists]
            return next(e for e in counters + listers if e.installed() and e.takes(puzzle, auto=True))
        engine = self.named(requested)
        if not engine.lists and not count_only:
            raise CpsolveError(
                f"{puzzle.name}: the {engine.name} engine counts without listing; give --count-only with it"
            )
        if not engine.lists and not engine.takes(puzzle):
            why = frontier.why_not(puzzle) or "it does not take it"
            raise CpsolveError(f"{puzzle.name}: the {engine.name} engine cannot count it: {why}; give --engine auto")
        if not engine.takes(puzzle):
            raise CpsolveError(
                f"{puzzle.name}: the {engine.name} engine takes only {engine.takes_what};"
                f" use --engine {self.reference.name}"
            )
        if not engine.installed():
            raise CpsolveError(f'the {engine.name} engine is not installed: pip install "cpsolve[{engine.extra}]"')
        return engine

    def choose_breaking(
        self, puzzle: PuzzleModel, deadline: Deadline = NO_DEADLINE, first_only: bool = False
    ) -> breaking.BreakingChoice:
        """The symmetry breaking for a run (`first_only`: a search for one solution), by estimated
        search size where an engine can estimate."""
        return breaking.choose(puzzle, self.ordered, deadline, first_only)

    def load_installed(self) -> None:
        """Load every installed engine (before forking workers, so that none loads it again)."""
        for engine in self.ordered:
            if engine.installed():
                engine.load()


# In the order `auto` tries them; the reference engine (it takes everything) last.
DEFAULT: Final = Engines([ExactCoverEngine(), ChainWalkEngine(), TilesEngine(), FrontierEngine(), CpSatEngine()])


__all__ = [
    "AUTO",
    "DEFAULT",
    "Engine",
    "Engines",
    "Enumeration",
    "Prepared",
    "SearchOptions",
    "StopReason",
]
