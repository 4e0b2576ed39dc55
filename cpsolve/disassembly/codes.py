"""What the compiled disassembler (kernel.py) and its Python side (compiled.py) tell each other, in
a module without numba: a run that loads the kernels' ahead-of-time build (cpsolve.native) never
imports numba."""

FOUND, EXHAUSTED, UNDECIDED, PAUSED, GROW_POSITIONS, GROW_MOVES = 1, 2, 3, 4, 5, 6
# counters: positions added, the next to expand, positions looked at, work done in this slice,
# the generation of the known-moves table, and what FOUND found (position, pieces, direction)
ADDED, CURSOR, LOOKED_AT, WORK, KNOWN_GENERATION, FOUND_AT, FOUND_MASK, FOUND_DIRECTION = range(8)
COUNTERS = 8
GAP_GENERATION, GAP_FILL = 0, 1  # the gap table's counters
