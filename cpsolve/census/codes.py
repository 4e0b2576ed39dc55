"""The columns of the census kernel's counts table (cpsolve.census.kernel), shared with its caller."""

PATHS = 0  # paths with these joints (read from the first cube)
TURNED = 1  # sum over those paths of the box symmetries that map the path onto itself read backwards
TURNED_PROPER = 2  # the same, rotations only
COLUMNS = 3
