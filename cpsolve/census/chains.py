"""The census of chains: every snake that folds into a box, each with its three counts.

One walk over the box's Hamiltonian paths (cpsolve.census.kernel) counts the foldings of every
chain at once: a path read cube by cube spells its chain's joints. The walk starts only in one
cell of each orbit of the box's symmetries (of the colour a path of that box must start on), and
what it finds there counts once for every cell of the orbit: a symmetry maps the paths from one
cell onto those from its image, joints kept.

The counts are those `cpsolve run` gives the chain (the chain's target is the box, symmetry
`all`; chains are achiral, and a chain and its reverse are one chain):

- a chain that does not read the same backwards: a box symmetry that maps a path onto itself
  fixes every cell, so each class has |G| members: raw = the paths with its joints, rotations =
  raw / |G+|, unique = raw / |G|;
- a palindromic chain: a folding is a path and the same path read backwards, so raw = paths / 2,
  and Burnside's lemma over G x {forwards, backwards} counts the classes from the symmetries that
  map a path onto itself read backwards (the kernel's TURNED columns).

The walk is cut into parts (the paths from a prefix of a few cubes), run on this process, forked
workers or a Dask cluster (cpsolve.workers), and recorded in a checkpoint as they finish.
"""

from __future__ import annotations

import base64
import dataclasses
import functools
import hashlib
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Final

import numpy as np

from cpsolve import native
from cpsolve.census.codes import COLUMNS, PATHS, TURNED, TURNED_PROPER
from cpsolve.engines.base import StopReason
from cpsolve.errors import CpsolveError, OutOfTimeError
from cpsolve.geometry import STEPS, Cell, step
from cpsolve.journal import Journal
from cpsolve.limits import NO_DEADLINE, Deadline
from cpsolve.symmetry.target import target_symmetry_arrays
from cpsolve.workers import DONE, STOPPED, usable_workers, workers_for

MAX_CELLS: Final = 64  # the walk's board is one 64-bit word
STEP_BUDGET: Final = 1 << 20  # steps per kernel call: the clock is read between calls (about 10 ms)
FIRST_TABLE_SLOTS: Final = 1 << 12
PARTS_PER_WORKER: Final = 16  # parts cut in advance per worker: they are uneven


@dataclasses.dataclass(frozen=True)
class CensusBox:
    """A box as the walk sees it: cells as bits (x + a*(y + b*z)), the moves between them, and the
    box's symmetries as maps of those bits."""

    size: tuple[int, int, int]
    cells: tuple[Cell, ...]
    inside: Any  # inside[d]: bits with a neighbour along direction d (uint64)
    shifts: Any  # shifts[d]: how far a bit moves one step along d (int64)
    images: Any  # images[s, bit]: the bit the s-th symmetry maps it to (int64)
    proper: Any  # proper[s]: whether the s-th symmetry is a rotation (bool)

    @property
    def group(self) -> int:
        return int(self.images.shape[0])

    @property
    def rotations(self) -> int:
        return int(self.proper.sum())

    @property
    def name(self) -> str:
        return "x".join(map(str, self.size))


def box_for(size: tuple[int, int, int]) -> CensusBox:
    """The box, or a CpsolveError saying which boxes the census takes."""
    cells_count = size[0] * size[1] * size[2]
    if min(size) < 2 or cells_count > MAX_CELLS:
        raise CpsolveError(
            f"--box {'x'.join(map(str, size))}: the census takes boxes with every side at least 2 and at most"
            f" {MAX_CELLS} cells (2x2x2 to 4x4x4), not {cells_count:,} cells"
        )
    a, b, c = size
    cells = tuple((x, y, z) for z in range(c) for y in range(b) for x in range(a))
    index = {cell: bit for bit, cell in enumerate(cells)}
    inside = np.zeros(len(STEPS), np.uint64)
    for cell, bit in index.items():
        for direction in range(len(STEPS)):
            if step(cell, direction) in index:
                inside[direction] |= np.uint64(1 << bit)
    shifts = np.array([1, -1, a, -a, a * b, -a * b], np.int64)
    arrays = target_symmetry_arrays(cells, reflections=True, separately=False)
    images = np.array(arrays.images, dtype=np.int64)  # a copy: the kept arrays are read-only, the kernel's types not
    return CensusBox(size, cells, inside, shifts, images, np.array(arrays.proper, dtype=np.bool_))


@dataclasses.dataclass(frozen=True)
class CensusPart:
    """The paths that start with `prefix` (bits), counted `weight` times: once per cell of the
    orbit of its first cell."""

    prefix: tuple[int, ...]
    weight: int

    @property
    def id(self) -> str:
        return "-".join(map(str, self.prefix))


def parts_of(box: CensusBox, wanted: int, deadline: Deadline = NO_DEADLINE) -> list[CensusPart]:
    """The walk cut into at least `wanted` parts where the box allows: one first cell per orbit
    (of the colour a path must start on when the box has an odd number of cells), then every
    prefix of the first few steps (the clock read at each step)."""
    orbit_of: dict[int, int] = {}
    for bit in range(len(box.cells)):
        orbit_of.setdefault(int(box.images[:, bit].min()), 0)
        orbit_of[int(box.images[:, bit].min())] += 1
    odd = len(box.cells) % 2 == 1
    parts = [
        CensusPart((start,), weight)
        for start, weight in sorted(orbit_of.items())
        if not odd or sum(box.cells[start]) % 2 == 0
    ]
    while len(parts) < wanted:
        deadline.check("cutting the census into parts")
        longer = [CensusPart((*part.prefix, after), part.weight) for part in parts for after in _next_cells(box, part)]
        if not longer or len(longer) == len(parts):
            break
        parts = longer
    return parts


def _next_cells(box: CensusBox, part: CensusPart) -> list[int]:
    here = box.cells[part.prefix[-1]]
    index = {cell: bit for bit, cell in enumerate(box.cells)}
    steps = (index.get(step(here, direction)) for direction in range(len(STEPS)))
    return [bit for bit in steps if bit is not None and bit not in part.prefix]


@dataclasses.dataclass
class Tally:
    """Per joints value (directed: read from the first cube) the kernel's count columns."""

    keys: Any  # uint64
    counts: Any  # int64, (len(keys), COLUMNS)

    @staticmethod
    def empty() -> Tally:
        return Tally(np.zeros(0, np.uint64), np.zeros((0, COLUMNS), np.int64))


def walk_part(box: CensusBox, part: CensusPart, deadline: Deadline = NO_DEADLINE) -> Tally | None:
    """Every path of the box that starts with the part's prefix, tallied by joints (weighted);
    None when the deadline passed first."""
    walk = native.kernel(native.CENSUS_WALK)
    n = len(box.cells)
    path = np.zeros(n, np.int64)
    directions = np.full(n, -1, np.int64)
    tried = np.zeros(n, np.int64)
    free = np.zeros(n, np.uint64)
    keys = np.zeros(n, np.uint64)
    left = (1 << n) - 1
    key = 0
    for depth, bit in enumerate(part.prefix):
        path[depth] = bit
        left &= ~(1 << bit)
        free[depth] = np.uint64(left)
        if depth >= 1:
            directions[depth] = _direction(box, part.prefix[depth - 1], bit)
        if depth >= 2 and directions[depth] != directions[depth - 1]:
            key |= 1 << (depth - 2)
        keys[depth] = np.uint64(key)
    floor = depth = len(part.prefix) - 1
    table_keys = np.full(FIRST_TABLE_SLOTS, np.uint64(0xFFFFFFFFFFFFFFFF), np.uint64)
    counts = np.zeros((FIRST_TABLE_SLOTS, COLUMNS), np.int64)
    filled = 0
    while depth >= floor:
        if deadline.passed():
            return None
        depth, _, filled = walk(
            box.inside, box.shifts, box.images, box.proper, path, directions, tried, free, keys,
            depth, floor, STEP_BUDGET, table_keys, counts, filled,
        )  # fmt: skip
        if filled >= table_keys.shape[0] * 3 // 4:
            table_keys, counts = _grown(table_keys, counts)
    used = table_keys != np.uint64(0xFFFFFFFFFFFFFFFF)
    return Tally(table_keys[used].copy(), counts[used] * part.weight)


def _direction(box: CensusBox, before: int, after: int) -> int:
    for direction in range(len(STEPS)):
        if step(box.cells[before], direction) == box.cells[after]:
            return direction
    raise ValueError("a prefix's cells are not neighbours")


def _grown(table_keys: Any, counts: Any) -> tuple[Any, Any]:
    larger_keys = np.full(table_keys.shape[0] * 2, np.uint64(0xFFFFFFFFFFFFFFFF), np.uint64)
    larger_counts = np.zeros((table_keys.shape[0] * 2, COLUMNS), np.int64)
    native.kernel(native.CENSUS_REHASH)(table_keys, counts, larger_keys, larger_counts)
    return larger_keys, larger_counts


def merged(tallies: Sequence[Tally]) -> Tally:
    """One tally of many: counts of the same joints added."""
    if not tallies:
        return Tally.empty()
    keys = np.concatenate([tally.keys for tally in tallies])
    counts = np.concatenate([tally.counts for tally in tallies])
    unique, where = np.unique(keys, return_inverse=True)
    total = np.zeros((len(unique), COLUMNS), np.int64)
    np.add.at(total, where, counts)
    return Tally(unique, total)


class Tallies:
    """The tallies of finished parts, merged as they come whenever the unmerged ones outgrow the
    merged one: memory stays within about twice the final table, and the time of merging is
    spread over the run instead of all at its end (a 3x3x4 census holds millions of joints)."""

    MERGE_AFTER_ROWS = 1 << 20

    def __init__(self) -> None:
        self.whole = Tally.empty()
        self.unmerged: list[Tally] = []
        self.unmerged_rows = 0
        self.parts = 0
        self.paths = 0

    def add(self, tally: Tally) -> None:
        self.parts += 1
        self.paths += int(tally.counts[:, PATHS].sum())
        self.unmerged.append(tally)
        self.unmerged_rows += len(tally.keys)
        if self.unmerged_rows > max(self.MERGE_AFTER_ROWS, len(self.whole.keys)):
            self.merge()

    def merge(self) -> Tally:
        if self.unmerged:
            self.whole = merged([self.whole, *self.unmerged])
            self.unmerged, self.unmerged_rows = [], 0
        return self.whole


@dataclasses.dataclass(frozen=True)
class ChainCount:
    """One chain and its three counts, as `cpsolve run --json` gives them."""

    joints: str
    raw: int
    rotations: int
    unique: int

    def as_json(self) -> dict[str, Any]:
        return {"joints": self.joints, "counts": {"raw": self.raw, "rotations": self.rotations, "unique": self.unique}}


def chains_of(box: CensusBox, tally: Tally, chunk: int = 1 << 16) -> Iterator[ChainCount]:
    """Each chain once (by the smaller in letter order of its joints and their reverse), with its
    counts, in the tally's order; made `chunk` joints at a time, so that a census of millions of
    chains (3x3x4: 8.8 million) is written without holding them all."""
    group, rotations, width = box.group, box.rotations, len(box.cells) - 2
    for first in range(0, len(tally.keys), chunk):
        table = joints_table(tally.keys[first : first + chunk], width)
        for joints, counts in zip(table, tally.counts[first : first + chunk].tolist(), strict=True):
            backwards = joints[::-1]
            if backwards < joints:
                continue
            paths = counts[PATHS]
            if backwards != joints:
                yield ChainCount(joints, paths, paths // rotations, paths // group)
            else:
                turned = (paths + counts[TURNED_PROPER]) // (2 * rotations)
                yield ChainCount(joints, paths // 2, turned, (paths + counts[TURNED]) // (2 * group))


def joints_table(keys: Any, width: int) -> list[str]:
    """The spec's joints notation of each key: one letter per inner cube, C where bit i is set."""
    bits = (keys[:, None] >> np.arange(width, dtype=np.uint64)) & np.uint64(1)
    letters = np.where(bits == 1, ord("C"), ord("S")).astype(np.uint8)
    return [row.decode() for row in letters.view(f"S{width}").ravel().tolist()] if width else [""] * len(keys)


def identity_problems(box: CensusBox, tally: Tally) -> list[str]:
    """Burnside's divisions must be exact, and a chain's paths must equal its reverse's (looked up
    in the tally, sorted by key): each failure is a counting error, not a rounding."""
    width = len(box.cells) - 2
    group, rotations = box.group, box.rotations
    backwards = _reversed_keys(tally.keys, width)
    where = np.minimum(np.searchsorted(tally.keys, backwards), max(len(tally.keys) - 1, 0))
    found = tally.keys[where] == backwards if len(tally.keys) else np.zeros(0, bool)
    paths = tally.counts[:, PATHS]
    palindrome = backwards == tally.keys
    unequal = ~palindrome & (~found | (paths[where] != paths) | (paths % group != 0))
    burnside = palindrome & (
        ((paths + tally.counts[:, TURNED]) % (2 * group) != 0)
        | ((paths + tally.counts[:, TURNED_PROPER]) % (2 * rotations) != 0)
    )
    wrong = np.flatnonzero(unequal | burnside)[:10]
    return [
        f"{joints}: its paths do not divide by the box's symmetries as Burnside's lemma needs"
        for joints in joints_table(tally.keys[wrong], width)
    ]


def _reversed_keys(keys: Any, width: int) -> Any:
    backwards = np.zeros_like(keys)
    for bit in range(width):
        backwards |= ((keys >> np.uint64(bit)) & np.uint64(1)) << np.uint64(width - 1 - bit)
    return backwards


# -- a whole census -------------------------------------------------------------------------------


@dataclasses.dataclass
class CensusReport:
    """What a census found: `chains()` gives each chain (made as they are read: a box may have
    millions), the summary is worked out once."""

    box: CensusBox
    tally: Tally | None  # None: the census stopped early
    stopped_by: StopReason | None
    seconds: float
    parts: int
    parts_done: int
    paths: int  # directed paths through the box, from the parts done
    identity_problems: list[str]
    chains_count: int = 0
    one_solution: int = 0
    most: ChainCount | None = None

    def __post_init__(self) -> None:
        for chain in self.chains():
            self.chains_count += 1
            self.one_solution += chain.unique == 1
            if self.most is None or (chain.unique, chain.joints) > (self.most.unique, self.most.joints):
                self.most = chain

    @property
    def complete(self) -> bool:
        return self.stopped_by is None

    def chains(self) -> Iterator[ChainCount]:
        return iter(()) if self.tally is None else chains_of(self.box, self.tally)

    def summary(self) -> dict[str, Any]:
        return {
            "box": self.box.name,
            "complete": self.complete,
            "stopped_by": None if self.stopped_by is None else str(self.stopped_by),
            "chains": self.chains_count,
            "one_solution": self.one_solution,
            "most_solutions": None if self.most is None else self.most.as_json(),
            "paths": self.paths,
            "seconds": round(self.seconds, 4),
            "parts": self.parts,
            "parts_done": self.parts_done,
            "identity_ok": not self.identity_problems,
        }


class CensusCheckpoint:
    """The finished parts of a census, one JSON line each, {"census", "unit", "keys", "counts",
    "check"}: the box (a checkpoint of another box is refused), the part, its tally (the arrays'
    little-endian bytes in base64: a 3x3x4 part holds millions of joints, which as JSON numbers
    took 1.75 GB for the census and 14 GB to read back), and a digest of them (a line changed by
    hand no longer matches it). Locked while the census has it."""

    WHAT = "a cpsolve census checkpoint"

    def __init__(self, path: Path, box: CensusBox) -> None:
        self.path = path
        self.box = box
        self.journal = Journal(path, "census", self.WHAT)
        self.finished: dict[str, Tally] = {}
        try:
            for number, record in enumerate(self.journal.records, 1):
                self._read(record, number)
        except BaseException:
            self.journal.close()
            raise

    def _read(self, record: dict[str, Any], number: int) -> None:
        keys, counts, unit = record.get("keys"), record.get("counts"), record.get("unit")
        if record.get("census") != self.box.name:
            raise CpsolveError(
                f"{self.path}: record {number} is a census of {str(record.get('census'))[:20]!r}, not of"
                f" {self.box.name}; give another checkpoint file"
            )
        sound = (
            isinstance(unit, str)
            and isinstance(keys, str)
            and isinstance(counts, str)
            and record.get("check") == _check(self.box.name, unit, keys, counts)
        )
        if not sound:
            raise CpsolveError(
                f"{self.path}: record {number} is not a finished part as cpsolve wrote it (its check does not"
                " match); give a new checkpoint file"
            )
        assert isinstance(unit, str) and isinstance(keys, str) and isinstance(counts, str)
        try:  # a digest recomputed over arrays of the wrong size checks, and must still be refused
            found = np.frombuffer(base64.b64decode(keys, validate=True), "<u8").astype(np.uint64)
            counted = np.frombuffer(base64.b64decode(counts, validate=True), "<i8").astype(np.int64)
            counted = counted.reshape(-1, COLUMNS)
        except ValueError:
            raise CpsolveError(
                f"{self.path}: record {number} is not a finished part as cpsolve wrote it (its keys or counts are not"
                f" whole arrays of {COLUMNS} counts a joint); give a new checkpoint file"
            ) from None
        if len(found) != len(counted):
            raise CpsolveError(f"{self.path}: record {number} has {len(found)} joints but {len(counted)} counts")
        self.finished[unit] = Tally(found, counted)

    def record(self, unit: str, tally: Tally) -> None:
        keys = base64.b64encode(tally.keys.astype("<u8").tobytes()).decode()
        counts = base64.b64encode(tally.counts.astype("<i8").tobytes()).decode()
        check = _check(self.box.name, unit, keys, counts)
        self.journal.append([{"census": self.box.name, "unit": unit, "keys": keys, "counts": counts, "check": check}])

    def close(self) -> None:
        self.journal.close()


def _check(box: str, unit: str, keys: str, counts: str) -> str:
    return hashlib.sha256("\0".join([box, unit, keys, counts]).encode()).hexdigest()[:16]


def load_compiled_census() -> None:
    """Call the census kernels once, growing the table once, for `cpsolve compile` to record."""
    box = box_for((2, 2, 3))
    tally = walk_part(box, parts_of(box, 1)[0])
    assert tally is not None
    keys = np.full(8, np.uint64(0xFFFFFFFFFFFFFFFF), np.uint64)
    keys[: len(tally.keys[:4])] = tally.keys[:4]
    _grown(keys, np.zeros((8, COLUMNS), np.int64))


def _walk_task(box: CensusBox, deadline: Deadline, part: CensusPart) -> Iterator[Tally | None]:
    yield walk_part(box, part, deadline)


Progress = Callable[[int, int], None]  # (parts done, parts)


def census(
    size: tuple[int, int, int],
    *,
    workers: int = 1,
    cluster: str | None = None,
    checkpoint: Path | None = None,
    deadline: Deadline = NO_DEADLINE,
    progress: Progress | None = None,
) -> CensusReport:
    """Every chain that folds into the box with its counts; parts on `workers` processes (or a
    Dask cluster), finished parts recorded in `checkpoint` and not walked again."""
    started = time.perf_counter()
    box = box_for(size)
    workers = usable_workers(workers, cluster)  # parts are cut for these (10,000 asked for took 8.8 s to cut)
    try:
        parts = parts_of(box, PARTS_PER_WORKER * workers if workers > 1 or cluster else 1, deadline)
    except OutOfTimeError:
        return CensusReport(box, None, StopReason.of_deadline(deadline), time.perf_counter() - started, 0, 0, 0, [])
    book = None if checkpoint is None else CensusCheckpoint(checkpoint, box)
    try:
        tallies = Tallies()
        todo = [part for part in parts if book is None or part.id not in book.finished]
        for part in parts:
            if book is not None and part.id in book.finished:
                tallies.add(book.finished.pop(part.id))
        stopped = _run(box, todo, tallies, book, workers, cluster, deadline, progress, len(parts))
    finally:
        if book is not None:
            book.close()
    whole = tallies.merge() if stopped is None else None
    return CensusReport(
        box,
        whole,
        stopped,
        time.perf_counter() - started,
        len(parts),
        tallies.parts,
        tallies.paths,
        [] if whole is None else identity_problems(box, whole),
    )


def _run(
    box: CensusBox,
    todo: list[CensusPart],
    tallies: Tallies,
    book: CensusCheckpoint | None,
    workers: int,
    cluster: str | None,
    deadline: Deadline,
    progress: Progress | None,
    parts: int,
) -> StopReason | None:
    """Walk the parts left, adding each finished part's tally; the reason the walk stopped early."""
    if not todo:
        return None
    if deadline.passed():
        return StopReason.of_deadline(deadline)
    place = workers_for(cluster, workers)
    stopped = None
    try:
        task = functools.partial(_walk_task, box, deadline)
        for index, item in place.stream(task, todo, stop=deadline.passed):
            if item is None or item is STOPPED:
                stopped = StopReason.of_deadline(deadline)
                break
            if item is DONE:
                continue
            if book is not None:
                book.record(todo[index].id, item)
            tallies.add(item)
            if progress is not None:
                progress(tallies.parts, parts)
    finally:
        place.close()
    return stopped
