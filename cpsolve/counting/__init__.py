"""Counting, in one place: the three counts of a puzzle and the checks that prove them.

- `classes`: solutions listed by an engine, reduced to classes as they arrive (the default);
- `tally`: solutions listed but not kept, each adding its share of a class (`--count-only` where
  no counter below takes the puzzle);
- `frontier`: packings counted without listing, cell by cell with every sub-problem counted once;
- `burnside`: the classes of solutions counted from the solutions each symmetry leaves unchanged.
"""

from __future__ import annotations

from .classes import Classifier, ClassStoreFull, Counts, SolutionClass, image_keys

__all__ = ["ClassStoreFull", "Classifier", "Counts", "SolutionClass", "image_keys"]
