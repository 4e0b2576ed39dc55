"""The exact-cover engine: Knuth's dancing cells (xcover, compiled by numba) for pure exact covers.

It takes a model's `exact_cover()` rows and the same symmetry breaking as CP-SAT, and hands the
same solutions (sorted atoms) to the same classifier. Breaking by pairs is not exact cover, so
the enumeration is split into sub-problems, one per kept atom r of the first breaking set: r's
row is the only one of its set, and the second set's rows paired with r are left out. A
sub-problem is plain data (the rows it keeps), so it could be solved anywhere.

Only xcover's plain enumeration is used: its ZDD counting with the memo cache returned wrong
counts (DESIGN.md). Between two solutions the engine checks the time limit and Ctrl-C; inside
one stretch of compiled search without a solution it cannot be stopped.
"""

from __future__ import annotations

import importlib.util
import time
import warnings
from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

import numpy as np

from cpsolve.counting import Breaking, Solution
from cpsolve.engine import SearchOptions
from cpsolve.models import ExactCoverRows

ENGINE_NAME = "exact-cover"


def available() -> bool:
    """True when the optional dependency is installed (`pip install "cpsolve[exact-cover]"`)."""
    return importlib.util.find_spec("xcover") is not None


def preload() -> None:
    """Import xcover (and numba, about 0.6 s) before a run's clock starts, as ortools is.

    The very first use after installing also compiles the search into numba's cache (about 20 s
    on this machine), once.
    """
    if available():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # numba warns about a cast inside xcover's ZDD code, unused here
            import xcover  # noqa: F401


@dataclass(frozen=True)
class SubProblem:
    """One disjoint part of the enumeration: the atoms (rows) it may use."""

    rows: tuple[int, ...]


def sub_problems(rows: ExactCoverRows, breaking: Breaking | None) -> list[SubProblem]:
    allowed = [a for a in range(len(rows.covers)) if a not in rows.excluded]
    if breaking is None:
        return [SubProblem(tuple(allowed))]
    forbidden = set(breaking.forbidden)
    allowed = [a for a in allowed if a not in forbidden]
    paired: dict[int, set[int]] = {}
    for first, second in breaking.forbidden_pairs:
        paired.setdefault(first, set()).add(second)
    kept_first = [a for a in allowed if a in breaking.first]
    return [
        SubProblem(tuple(a for a in allowed if (a == r or a not in breaking.first) and a not in paired.get(r, ())))
        for r in kept_first
    ]


def _full_matrix(rows: ExactCoverRows) -> Any:
    """One boolean row per atom; each sub-problem takes its rows from it."""
    matrix = np.zeros((len(rows.covers), rows.items), dtype=bool)
    atom_of_entry = [atom for atom, items in enumerate(rows.covers) for _ in items]
    items = [item for covered in rows.covers for item in covered]
    matrix[atom_of_entry, items] = True
    return matrix


class ExactCoverEnumeration:
    """Iterate to receive solutions; afterwards `complete` and `stopped_by` tell how it ended."""

    def __init__(
        self, rows: ExactCoverRows, breaking: Breaking | None, options: SearchOptions, first_atom: int | None = None
    ) -> None:
        """`first_atom`: only the sub-problem that forces this kept atom of the first breaking set."""
        self.rows = rows
        self.options = options
        self.parts = [p for p in sub_problems(rows, breaking) if first_atom is None or first_atom in p.rows]
        self.stopped_by: str | None = None
        self.found = 0

    def _limit(self) -> int | None:
        return 1 if self.options.first_only else self.options.max_solutions

    def __iter__(self) -> Generator[Solution, None, None]:
        preload()
        from xcover import covers_bool

        started = time.perf_counter()
        limit = self.options.time_limit

        def out_of_time() -> bool:
            if limit is not None and time.perf_counter() - started > limit:
                self.stopped_by = "time limit"
            return self.stopped_by is not None

        full = _full_matrix(self.rows)
        most = self._limit()
        for part in self.parts:
            if out_of_time():
                return
            if not part.rows:
                continue
            for cover in covers_bool(full[list(part.rows)]):
                yield tuple(sorted(part.rows[i] for i in cover))
                self.found += 1
                if most is not None and self.found >= most:
                    self.stopped_by = "first solution" if self.options.first_only else "max solutions"
                    return
                if out_of_time():
                    return

    def interrupt(self) -> None:
        self.stopped_by = "interrupted"

    @property
    def complete(self) -> bool:
        return self.stopped_by is None
