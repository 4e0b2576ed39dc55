"""What a level of the fewest-placements kernel (fewest_kernel.py) holds besides a column, in a
module without numba: the Python side reads a stopped search's levels to cut what it has left
into parts (cover_search.CoverSearch._rest), and a run that loads the kernels' ahead-of-time
build (cpsolve.native) never imports numba."""

OPTIONAL_PHASE = -3  # cells[d] of a level that adds a placement on optional cells only
FORCED = -4  # cells[d] of a level that places the part's atom forced[d] (d < len(forced))
LAST_COPY = -10  # cells[d] = LAST_COPY - c: column c decided by the last copy left (not placed)
