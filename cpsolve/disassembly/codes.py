"""What the compiled disassembler (kernel.py) and its Python side (compiled.py) tell each other, in
a module without numba: a run that loads the kernels' ahead-of-time build (cpsolve.native) never
imports numba."""

FOUND, EXHAUSTED, UNDECIDED, PAUSED, GROW_POSITIONS, GROW_MOVES = 1, 2, 3, 4, 5, 6
# what taking a whole assembly apart ends with besides: every part came apart; a part did not; its
# records are full; and `take_apart_batch`: every assembly of the batch is done
APART, STUCK, GROW_RECORDS, DONE = 7, 8, 9, 10
# counters: positions added, the next to expand, positions looked at, work done in this slice,
# the generation of the known-moves table, and what FOUND found (position, pieces, direction);
# then a whole assembly's: the parts waiting on its stack, where its records end, whether a part
# is being expanded (1) or the next is to be taken from the stack (0), the work of its slice; and
# a batch's: the assembly being taken apart, whether its stack is set up (1)
ADDED, CURSOR, LOOKED_AT, WORK, KNOWN_GENERATION, FOUND_AT, FOUND_MASK, FOUND_DIRECTION = range(8)
WAITING, RECORDS_END, IN_PART, SLICE, BATCH_AT, BATCH_OPEN = range(8, 14)
COUNTERS = 14
GAP_GENERATION, GAP_FILL = 0, 1  # the gap table's counters
