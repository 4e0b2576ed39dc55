"""What the compiled disassembler (kernel.py) and its Python side (compiled.py) tell each other, in
a module without numba: a run that loads the kernels' ahead-of-time build (cpsolve.native) never
imports numba."""

FOUND, EXHAUSTED, UNDECIDED, PAUSED, GROW_POSITIONS, GROW_MOVES = 1, 2, 3, 4, 5, 6
# what `take_apart_all` ends with besides: every part came apart; a part did not; its records are full
APART, STUCK, GROW_RECORDS = 7, 8, 9
# counters: positions added, the next to expand, positions looked at, work done in this slice,
# the generation of the known-moves table, and what FOUND found (position, pieces, direction);
# then `take_apart_all`'s: the parts waiting on its stack, where its records end, whether a part
# is being expanded (1) or the next is to be taken from the stack (0), the work of its slice
ADDED, CURSOR, LOOKED_AT, WORK, KNOWN_GENERATION, FOUND_AT, FOUND_MASK, FOUND_DIRECTION = range(8)
WAITING, RECORDS_END, IN_PART, SLICE = range(8, 12)
COUNTERS = 12
GAP_GENERATION, GAP_FILL = 0, 1  # the gap table's counters
