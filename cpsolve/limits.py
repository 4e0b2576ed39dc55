"""Limits on what a puzzle file can make cpsolve do, and the time a run may take.

The defaults live here, in one place, for the command line and the library alike. A `Deadline` is
fixed when a run starts, so `--time-limit` bounds the whole run and not only the search, checked
the same way by every step: reading, building, searching. It reads `time.monotonic()`, which on
Linux is one clock for every process on the machine, so processes forked for parts of a run can be
handed the same deadline.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

from cpsolve.errors import OutOfTimeError

DEFAULT_MAX_ATOMS = 2_000_000  # placements (atoms) in one model: --max-placements
# The cells of every placement together (each an int64 while the placements are found and kept):
# 400 MB. A count of placements alone let one 897-cell piece in a 46x46x46 box ask for 6.7 GB at
# once; the shipped puzzles stay far below (Bedlam: 5.3 million, the 16x16 tiles board none).
MAX_PLACEMENT_CELLS = 50_000_000
# Literals in all constraints together: --max-terms. The largest shipped model (the 16x16 tiles
# board) has about 1.6 million; 20 million literals take CP-SAT about 4 GB.
DEFAULT_MAX_TERMS = 20_000_000
DEFAULT_MAX_FILE_MB = 8.0  # the largest puzzle file read: --max-file-size (megabytes)
DEFAULT_MAX_FILE_BYTES = int(DEFAULT_MAX_FILE_MB * 2**20)
MOST_FILE_MB = 4096.0  # --max-file-size may not pass this (inf and 1e300 are refused, not overflowed)
MOST_SECONDS = 1e9  # --time-limit may not pass this (about 31 years)
# --max-memory: what the classes a listing run keeps (each with the keys it is found by) may take.
# Bedlam's 19,186 classes take about 10 MB (25 MB when a key was kept per image); 400 dominoes in a 20x20x2 box, whose
# classes never end, passed 3.7 GB before this bound.
DEFAULT_MAX_CLASS_MB = 2048
DEFAULT_MAX_CLASS_BYTES = DEFAULT_MAX_CLASS_MB * 2**20
MOST_MEMORY_MB = 1_000_000  # --max-memory may not pass this (a terabyte)
# --stl: millimetres to a cell
DEFAULT_UNIT_MM = 10.0
MIN_UNIT_MM = 0.01  # a hundredth of a millimetre: below a printer's resolution, above float32's noise
MAX_UNIT_MM = 10_000.0  # ten metres a cell: STL stores float32 vertices, and no printer is larger
DEFAULT_FIND_ONE_SECONDS = 60.0  # bench: the time limit of each find-one benchmark
# bench: each engine's count. An engine that takes a puzzle may still need hours for it (CP-SAT
# enumerating the Bedlam cube); its count stops here and is left out of the comparison while
# another engine's is complete.
DEFAULT_COUNT_SECONDS = 300.0

# What a spec's numbers may say, checked by the schema before any work is done.
MAX_COORDINATE = 1_000_000  # |x|, |y|, |z| of a cell
MAX_SIDE = 10_000  # a box side, a board side
MAX_COPIES = 1_000_000  # count, min, max of a piece or group
MAX_LABEL = 10**12  # |integer label| of a tile
MAX_SHAPE_CELLS = 100_000  # cells of one shape or target
MAX_BOX_VOLUME = 50_000_000  # cells of a target's bounding box (one byte each while placing pieces)
# YAML: containers nested deeper, or more values once anchors and aliases are expanded, are refused
# before the document is built ("billion laughs").
MAX_YAML_DEPTH = 64
MAX_YAML_VALUES = 2_000_000
MAX_NUMBER_DIGITS = 30  # a longer integer in a file is refused where it stands
# Symmetries: the group's elements (a target of many separate parts turned on their own has the
# product of their groups), and elements times atoms, the size of the atom maps built for them.
MAX_SYMMETRIES = 100_000
MAX_CELL_SETS = 32  # cells whose placements are tried as symmetry-breaking sets (one per orbit)
# `--disassemble`: positions looked at for one assembly before it is called undecided. PelikanBurr's
# hardest assembly needs 6,265 at about 400 bytes each (tracemalloc's peak over its analysis), so a
# million stays near 400 MB.
DEFAULT_MAX_DISASSEMBLY_POSITIONS = 1_000_000
# --html, --png and the notebook view: the unique solutions a picture holds (the first ones found).
# The Soma cube's 240 make a page of 188 KB (140 KB when it was measured), Bedlam's first 1,000 one of 1,066 KB
# (benchmarks/page_open.py; docs/pictures.md).
MAX_WORKERS = 1024  # --workers: processes here or a cluster's workers (parts are cut in advance per worker)
MAX_PICTURED = 1000
MAX_PICTURED_ATOMS = 500_000  # placements in all the solutions a picture holds (fewer solutions when they are big)
MAX_GAP_CACHE = 2_000_000  # gaps between pairs of pieces (and sets found from them) remembered for one assembly
MAX_SYMMETRY_ENTRIES = 30_000_000
# What a warm process keeps of the targets' symmetries (the studio, the design search, a catalogue in
# one process): a 4x4x4 box's 48 maps take 28 KB, so this holds thousands of small targets.
KEPT_SYMMETRY_BYTES = 64 * 2**20
# What a warm process keeps of its pieces' placements in their targets: a 9x9x9 design's 76,000
# placements take about 6 MB, Dracula's nine pieces 0.4 MB. The design search fills it without
# taking from it (1 of 600 pieces of 4x4x4 candidates found there, 3.4 MB a hundred candidates).
KEPT_PLACEMENT_BYTES = 64 * 2**20
# What a warm process keeps of the disassembler's kernels between runs: their gap tables (6 MB each
# at first, 50 MB at most) while they add up to this; and the keys of the shapes their gaps are
# known by (a shape of n cells: 32 n bytes; Dracula's 18 shapes take 6 KB), numbered afresh past this.
KEPT_GAP_BYTES = 64 * 2**20
KEPT_SHAPE_BYTES = 16 * 2**20


class Cancel:
    """A job's stop button (cpsolve.jobs): set from any thread, seen by every step of the run
    that looks at the clock, since a Deadline that holds it has passed once it is set. A forked
    worker gets a copy that is never set (its parent ends it); a pickled one (a Dask task) is left
    out, the task having its own time limit."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self.reason = "cancelled"  # the run's `stopped_by` (a Ctrl-C the caller caught: "interrupted")

    def set(self, reason: str = "cancelled") -> None:
        if not self._event.is_set():
            self.reason = reason
        self._event.set()

    def is_set(self) -> bool:
        return self._event.is_set()


class Halted(Cancel):
    """A run's stop button joined with a stream's halt (cpsolve.workers.Threaded): set once
    either is, with the run's reason where the run was stopped."""

    def __init__(self, run: Cancel | None, halt: threading.Event) -> None:
        self._run = run
        self._event = halt

    @property
    def reason(self) -> str:
        run = self._run
        return run.reason if run is not None and run.is_set() else "cancelled"

    @reason.setter
    def reason(self, given: str) -> None:
        """The run's reason is its own; a halt says "cancelled"."""

    def set(self, reason: str = "cancelled") -> None:
        self._event.set()

    def is_set(self) -> bool:
        return self._event.is_set() or (self._run is not None and self._run.is_set())


@dataclass(frozen=True)
class Deadline:
    """A point in time (None: never) after which work stops, or the moment its job is cancelled."""

    at: float | None = None
    cancel: Cancel | None = field(default=None, compare=False)

    @staticmethod
    def after(seconds: float | None, cancel: Cancel | None = None) -> Deadline:
        return Deadline(None if seconds is None else time.monotonic() + seconds, cancel)

    def remaining(self) -> float | None:
        """Seconds left (never negative), or None without a limit."""
        if self.cancelled():
            return 0.0
        return None if self.at is None else max(0.0, self.at - time.monotonic())

    def cancelled(self) -> bool:
        """Whether the run was cancelled (rather than out of time)."""
        return self.cancel is not None and self.cancel.is_set()

    def passed(self) -> bool:
        return self.cancelled() or (self.at is not None and time.monotonic() >= self.at)

    def check(self, doing: str) -> None:
        """Raise OutOfTimeError between two steps of work once the deadline has passed."""
        if self.passed():
            raise OutOfTimeError(doing)

    def __reduce__(self) -> tuple[type[Deadline], tuple[float | None]]:
        """Pickled (a Dask task) without the job's stop button, which holds a lock."""
        return (Deadline, (self.at,))


NO_DEADLINE = Deadline()
