"""What the cut check's kernel answers (cpsolve/design/kernel.py), in a module without numba: the
caller reads them where a build of the kernels is loaded and numba is not."""

ONLY_THE_CUT = 0  # every assembly is an image of the cut: one assembly up to symmetry
ANOTHER = 1  # an assembly that is no image of the cut: two or more
OVER_BUDGET = 2  # the search placed its budget of pieces without deciding
