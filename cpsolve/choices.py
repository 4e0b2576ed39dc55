"""The words a user chooses among that more than one layer must know, stated once: the engine
choice that lets the registry choose (`auto`), and the cell orders of a count on the frontier.

They live here rather than in cpsolve.engines or cpsolve.options because both use them and
neither may import the other back (tests/test_structure.py: no package imports one that imports
it); this module imports nothing.
"""

from __future__ import annotations

from typing import Final, Literal

AUTO: Final = "auto"  # --engine auto: the first installed engine of the registry that takes the puzzle
CountOrder = Literal["fill", "reverse", "across"]  # --count-order: the frontier's order of the cells
COUNT_ORDERS: Final[tuple[CountOrder, ...]] = ("fill", "reverse", "across")
