"""cpsolve: solve and count discrete assembly puzzles with OR-Tools CP-SAT."""

__version__ = "0.1.0"
