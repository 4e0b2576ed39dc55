"""Design search: cuts of a target into pieces that make a puzzle worth building.

A design is a cut of the target into `pieces` connected pieces of the sizes asked for. It is
wanted when its cut (the planted assembly) comes apart, the puzzle of its pieces has exactly one
assembly up to symmetry (so the planted one), and, for `goal level`, taking out the first piece
needs at least `level` moves.

The search: random cuts grown side by side from random seeds (the smallest piece grows next,
none past the largest size), each followed by a short walk of local moves on the cut (a cell on
the border of two pieces handed from one to the other, both staying connected and within the
sizes), Chen et al.'s idea in its simplest form, kept while the design does not get worse. Each
candidate is checked cheapest first: the planted assembly taken apart (the compiled disassembler,
well under a millisecond), and only a cut that comes apart is solved: by one compiled call that
looks for a second assembly (cpsolve.design.check), or where that cannot say by the warm engines
of this process, stopped at a second assembly. Searches run side by side as units of cpsolve.workers
(forked processes or a Dask cluster), each from its own seed, and hand back each design as found.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import random
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Final

from cpsolve.disassembly import AssembledPiece, Disassembler
from cpsolve.errors import CpsolveError
from cpsolve.generate import grown_pieces
from cpsolve.geometry import Cell, canonical_and_mirror_shapes, canonical_shape, normalise, step
from cpsolve.limits import NO_DEADLINE, Deadline

GOALS: Final = ("unique", "level")
# local moves tried from a cut since its score last rose, before a new random cut: a cut that
# comes apart with one assembly is found within a few moves, a higher level needs long walks
PATIENCE: Final = {"unique": 40, "level": 5000}
MOST_PIECES: Final = 40  # the disassembler searches up to 64 pieces compiled; designs stay well within
MOST_CELLS: Final = 1000
CUT_ATTEMPTS: Final = 200  # random cuts tried before a request is called impossible to cut
# A disassembler remembers each piece it was given and the gaps between shapes: right for the
# assemblies of one puzzle, a leak over a search's puzzles (1.2 GB after 10 minutes), so a fresh one
# every so many candidates
FRESH_DISASSEMBLER_EVERY: Final = 1000

Piece = tuple[Cell, ...]
Cut = tuple[Piece, ...]


@dataclasses.dataclass(frozen=True)
class DesignRequest:
    """What a design search looks for: the target's cells, how many pieces, their sizes, the goal."""

    target: tuple[Cell, ...]
    pieces: int
    smallest: int
    largest: int
    goal: str = "unique"
    level: int = 1
    seed: int = 1
    holes: int = 0  # inside cells (all six neighbours in the target) the pieces leave empty

    @property
    def inside(self) -> tuple[Cell, ...]:
        """The cells no face of the target shows: where holes may be (a hole on the surface shows)."""
        cells = set(self.target)
        return tuple(cell for cell in self.target if all(step(cell, d) in cells for d in range(6)))

    def check(self) -> None:
        """Refuse, before any search, a request no cut can meet."""
        cells = len(self.target)
        if not 1 <= cells <= MOST_CELLS:
            raise CpsolveError(f"the target has {cells:,} cells; a design search takes 1 to {MOST_CELLS:,}")
        if not 2 <= self.pieces <= MOST_PIECES:
            raise CpsolveError(f"--pieces {self.pieces}: a design has 2 to {MOST_PIECES} pieces")
        if not 1 <= self.smallest <= self.largest:
            raise CpsolveError(
                f"--sizes {self.smallest}-{self.largest}: give the smallest and largest piece, 1 or more"
            )
        if not 0 <= self.holes <= len(self.inside):
            raise CpsolveError(f"--holes {self.holes}: the target has {len(self.inside)} inside cells to leave empty")
        filled = cells - self.holes
        if not self.pieces * self.smallest <= filled <= self.pieces * self.largest:
            raise CpsolveError(
                f"{self.pieces} pieces of {self.smallest} to {self.largest} cells fill {self.pieces * self.smallest:,}"
                f" to {self.pieces * self.largest:,} cells, but the target has {filled:,} to fill: change --pieces or"
                " --sizes"
            )
        if self.goal not in GOALS:
            raise CpsolveError(f"--goal {self.goal[:20]}: expected one of {', '.join(GOALS)}")
        if self.level < 1:
            raise CpsolveError(f"--level {self.level}: at least 1")
        if not _connected(set(self.target)):
            raise CpsolveError("the target is not one connected shape: its pieces could not hold together")


@dataclasses.dataclass(frozen=True)
class Design:
    """A cut that makes a wanted puzzle, with what was measured of it."""

    cut: Cut
    level: str  # BurrTools' level of the planted assembly: moves per step of taking it apart
    moves: int
    assemblies: int  # unique assemblies of its pieces (1 for a wanted design)
    candidate: int  # how many candidates this search had checked when it found it

    @property
    def first_moves(self) -> int:
        return first_moves(self.level)

    @functools.cached_property
    def key(self) -> tuple[Any, ...]:
        """The same for two designs whose pieces are the same shapes, or mirror images of them
        all: one puzzle, built or seen in a mirror. Worked out once a design (asked whether the
        folder wants it, then added to its keys)."""
        return design_key(self.cut)


def first_moves(level: str) -> int:
    """The moves that take out the first piece: the first number of a level '5.2.1'."""
    return int(level.split(".")[0]) if level else 0


def design_key(cut: Cut) -> tuple[Any, ...]:
    forms = canonical_and_mirror_shapes(cut)
    shapes = tuple(sorted(shape for shape, _ in forms))
    mirrored = tuple(sorted(mirror for _, mirror in forms))
    return min(shapes, mirrored)


# -- cuts -----------------------------------------------------------------------------------------


def random_cut(request: DesignRequest, rng: random.Random) -> Cut | None:
    """The target (less `holes` inside cells) cut into pieces grown side by side from random
    seeds, none past `largest`; None where the growth left a cell out or a piece too small."""
    region = set(request.target) - set(rng.sample(request.inside, request.holes))
    pieces = grown_pieces(region, rng.sample(sorted(region), request.pieces), rng, request.largest)
    if pieces is None or min(len(piece) for piece in pieces) < request.smallest:
        return None
    return tuple(tuple(sorted(piece)) for piece in pieces)


def _connected(cells: set[Cell]) -> bool:
    if not cells:
        return False
    start = next(iter(cells))
    seen, todo = {start}, [start]
    while todo:
        here = todo.pop()
        for near in (step(here, d) for d in range(6)):
            if near in cells and near not in seen:
                seen.add(near)
                todo.append(near)
    return len(seen) == len(cells)


def moved_cell(cut: Cut, request: DesignRequest, rng: random.Random) -> Cut | None:
    """The cut with one cell on the border of two pieces handed from one to the other, both
    staying connected and within the sizes; None where the move drawn is not allowed."""
    owner = {cell: number for number, piece in enumerate(cut) for cell in piece}
    if request.holes and rng.random() < 0.5:
        return _moved_hole(cut, request, owner, rng)
    giver = rng.randrange(len(cut))
    if len(cut[giver]) <= request.smallest:
        return None
    border = [
        (cell, owner[near])
        for cell in cut[giver]
        for near in (step(cell, d) for d in range(6))
        if near in owner and owner[near] != giver and len(cut[owner[near]]) < request.largest
    ]
    if not border:
        return None
    cell, taker = rng.choice(border)
    left = set(cut[giver]) - {cell}
    if not _connected(left):
        return None
    pieces = list(cut)
    pieces[giver] = tuple(sorted(left))
    pieces[taker] = tuple(sorted((*cut[taker], cell)))
    return tuple(pieces)


def _moved_hole(cut: Cut, request: DesignRequest, owner: dict[Cell, int], rng: random.Random) -> Cut | None:
    """The cut with a hole filled by a piece beside it, which leaves one of its inside cells empty
    instead (sizes kept, the piece still connected)."""
    holes = [cell for cell in request.inside if cell not in owner]
    hole = rng.choice(holes)
    beside = sorted({owner[near] for near in (step(hole, d) for d in range(6)) if near in owner})
    if not beside:
        return None
    taker = rng.choice(beside)
    inside = set(request.inside)
    given = [cell for cell in cut[taker] if cell in inside]
    if not given:
        return None
    emptied = rng.choice(given)
    kept = (set(cut[taker]) | {hole}) - {emptied}
    if not _connected(kept):
        return None
    pieces = list(cut)
    pieces[taker] = tuple(sorted(kept))
    return tuple(pieces)


# -- checking a candidate -------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Checked:
    """What checking a cut found: whether its planted assembly comes apart and at what level, and
    (only then) how many unique assemblies its pieces have, at most 2 (None: not solved)."""

    comes_apart: bool
    level: str = ""
    moves: int = 0
    assemblies: int | None = None
    free: int = 0  # (piece, direction) pairs in which a piece slides straight out of the assembly

    def score(self, goal: str = "unique") -> tuple[int, ...]:
        """Higher is better: comes apart, one assembly, then the level; for the level goal the
        moves to the first piece first, then fewer pieces free to slide out at once (a level-1
        cut with none free must move a group first: the walk towards a higher level)."""
        apart, unique, levels = int(self.comes_apart), int(self.assemblies == 1), level_tuple(self.level)
        if goal == "level":
            return (apart, *levels[:1], -self.free, *levels[1:])
        return (apart, unique, *levels)


MOST_PIECES_IN_GROUPS: Final = 10  # free groups counted up to this many pieces (2^n subsets), else single pieces


STUCK_ENERGY: Final = 4.0  # what not coming apart costs the level walk, against one more free group
TEMPERATURE: Final = 1.0  # the level walk takes a move that costs e units with probability exp(-e / T)


def energy(found: Checked) -> float:
    """The level walk's measure, lower is better: the moves to the first piece count most, then
    the groups free to slide straight out. A cut that does not come apart costs STUCK_ENERGY more
    than its free groups, so the walk may cross it: cuts of higher levels lie beside stuck ones."""
    if not found.comes_apart:
        return STUCK_ENERGY + found.free
    return -10.0 * first_moves(found.level) + found.free


def free_slides(cut: Cut) -> int:
    """The (group of pieces, direction) pairs in which the group slides straight out of the
    assembly, the others held: 0 for a cut that comes apart means its level is 2 or more."""
    blockers = _blockers(cut)
    everyone = (1 << len(cut)) - 1
    groups = range(1, everyone) if len(cut) <= MOST_PIECES_IN_GROUPS else [1 << n for n in range(len(cut))]
    free = 0
    for group in groups:
        members = [n for n in range(len(cut)) if group >> n & 1]
        for direction in range(6):
            free += all(blockers[n][direction] & ~group == 0 for n in members)
    return free


def _blockers(cut: Cut) -> list[list[int]]:
    """Per piece and direction, the pieces (as bits) that lie ahead of its cells."""
    owner = {cell: number for number, piece in enumerate(cut) for cell in piece}
    low = [min(cell[axis] for cell in owner) for axis in range(3)]
    high = [max(cell[axis] for cell in owner) for axis in range(3)]
    found = [[0] * 6 for _ in cut]
    for cell, number in owner.items():
        for direction in range(6):
            axis, sign = direction // 2, 1 if direction % 2 == 0 else -1
            here = list(cell)
            while low[axis] <= here[axis] <= high[axis]:
                here[axis] += sign
                other = owner.get((here[0], here[1], here[2]))
                if other is not None and other != number:
                    found[number][direction] |= 1 << other
    return found


def spec_of(cut: Cut, request: DesignRequest, name: str = "design") -> dict[str, Any]:
    """The cut's pieces as a packing spec (each at the origin; equal shapes as copies of one
    piece); with holes, the target's inside cells optional: the pieces go into the target, its
    faces filled, anywhere inside."""
    pieces: dict[str, dict[str, Any]] = {}
    by_shape: dict[tuple[Cell, ...], str] = {}
    for number, piece in enumerate(cut, 1):
        shape = canonical_shape(piece)
        if shape in by_shape:
            pieces[by_shape[shape]]["count"] = pieces[by_shape[shape]].get("count", 1) + 1
            continue
        label = f"P{number}"
        by_shape[shape] = label
        pieces[label] = {"cells": [list(cell) for cell in normalise(piece)]}
    inside = set(request.inside) if request.holes else set()
    target: dict[str, Any] = {"cells": [list(cell) for cell in sorted(set(request.target) - inside)]}
    if inside:
        target["optional"] = [list(cell) for cell in sorted(inside)]
    return {"name": name, "pieces": pieces, "target": target}


class Checker:
    """Checks candidates, the engines and the disassembler kept warm in this process."""

    def __init__(self, request: DesignRequest, deadline: Deadline) -> None:
        from cpsolve.design.check import CutChecker

        self.request = request
        self.deadline = deadline
        self.disassembler = Disassembler(deadline=deadline)
        self.cuts = CutChecker(request.target, request.inside if request.holes else ())
        self.checked = 0
        self.best_apart: Design | None = None

    def check(self, cut: Cut) -> Checked:
        self.checked += 1
        if self.checked % FRESH_DISASSEMBLER_EVERY == 0:
            self.disassembler = Disassembler(deadline=self.deadline)
        assembly = [AssembledPiece(f"P{n}", f"P{n}", piece) for n, piece in enumerate(cut, 1)]
        taken = self.disassembler.analyse(assembly)
        if not taken.comes_apart:
            return Checked(False, free=free_slides(cut) if self.request.goal == "level" else 0)
        if self.best_apart is None or level_tuple(taken.level) > level_tuple(self.best_apart.level):
            self.best_apart = Design(cut, taken.level, taken.moves, 0, self.checked)
        if self.request.goal == "level":
            return Checked(True, taken.level, taken.moves, free=free_slides(cut))
        return Checked(True, taken.level, taken.moves, self.assemblies(cut))

    def assemblies(self, cut: Cut) -> int | None:
        """The unique assemblies of the cut's pieces, at most 2; None when the deadline cut it short.
        The compiled cut check (cpsolve.design.check) where it can say, else a run of this
        process's warm engines, without a job's thread or pictures: nothing but the counts is
        wanted of it."""
        remaining = self.deadline.remaining()
        if remaining is not None and remaining <= 0:
            return None
        return self.cuts.assemblies(cut) or self.solved_assemblies(cut)

    def solved_assemblies(self, cut: Cut) -> int | None:
        """`assemblies` by a whole run of the cut's spec: where the compiled check cannot say."""
        from cpsolve import formats
        from cpsolve.engines.base import SearchOptions
        from cpsolve.options import RunOptions
        from cpsolve.run import run

        remaining = self.deadline.remaining()
        options = RunOptions(search=SearchOptions(time_limit=remaining, max_solutions=2), show=0, workers=1)
        report = run(formats.puzzle_from_data(spec_of(cut, self.request)), options)
        if not report.complete and report.counts.unique < 2:
            return None
        return report.counts.unique

    def wanted(self, found: Checked) -> bool:
        """The unique goal: one assembly, which comes apart; the level goal: comes apart, at least
        --level moves to the first piece (its pieces may have other assemblies: the file says)."""
        if self.request.goal == "level":
            return found.comes_apart and first_moves(found.level) >= self.request.level
        return found.comes_apart and found.assemblies == 1


# -- the search -----------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class SearchUnit:
    """One search of a run: its own random stream, from the request's seed and its number."""

    request: DesignRequest
    number: int
    deadline_at: float | None  # time.time() of the end (wall clock: a Dask worker's monotonic clock is another's)
    candidates: int | None = None  # candidates this search checks at most: the same seed, the same designs


@dataclasses.dataclass(frozen=True)
class Tick:
    """Progress of one search, sent every few seconds and at its end."""

    checked: int
    best: tuple[int, ...]
    best_apart: Design | None = None  # the highest cut that came apart (what a level search keeps if none is wanted)


Found = Design | Tick
TICK_SECONDS: Final = 1.0


def search(unit: SearchUnit, stop: Callable[[], bool] | None = None) -> Iterator[Found]:
    """Designs as this search finds them (the same design may come again: the caller keeps one of
    each), with ticks of progress, until the deadline or `stop`."""
    request = unit.request
    rng = random.Random(f"{request.seed}:{unit.number}")
    remaining = None if unit.deadline_at is None else unit.deadline_at - time.time()
    deadline = Deadline.after(remaining)
    checker = Checker(request, deadline)
    best: tuple[int, ...] = ()
    ticked = time.monotonic()
    failed_cuts = 0
    budget = unit.candidates
    while not deadline.passed() and not (stop is not None and stop()):
        if budget is not None and checker.checked >= budget:
            break
        cut = random_cut(request, rng)
        if cut is None:
            failed_cuts += 1
            if failed_cuts >= CUT_ATTEMPTS and checker.checked == 0:
                raise CpsolveError(
                    f"no cut of the target into {request.pieces} connected pieces of {request.smallest} to"
                    f" {request.largest} cells found in {CUT_ATTEMPTS} tries: widen --sizes or change --pieces"
                )
            continue
        for found in _walk(cut, request, checker, rng, deadline, budget):
            if isinstance(found, Design):
                yield found
            else:
                best = max(best, found.best)
        if time.monotonic() - ticked >= TICK_SECONDS:
            ticked = time.monotonic()
            yield Tick(checker.checked, best, checker.best_apart)
    yield Tick(checker.checked, best, checker.best_apart)


def _walk(
    cut: Cut, request: DesignRequest, checker: Checker, rng: random.Random, deadline: Deadline, budget: int | None
) -> Iterator[Found]:
    """Local moves from one cut, each kept while the design's score does not fall, until the
    score has not risen for PATIENCE moves (the unique goal: until the first design)."""
    here = checker.check(cut)
    best = here.score(request.goal)
    yield Tick(checker.checked, best)
    fresh = True
    since_rise = 0
    while since_rise < PATIENCE[request.goal] and not deadline.passed():
        if budget is not None and checker.checked >= budget and not (fresh and checker.wanted(here)):
            return
        if fresh and checker.wanted(here):
            yield Design(cut, here.level, here.moves, here.assemblies or 0, checker.checked)
            if request.goal == "unique":
                return
        fresh = False
        since_rise += 1
        moved = moved_cell(cut, request, rng)
        if moved is None:
            continue
        there = checker.check(moved)
        if there.score(request.goal) > best:
            since_rise, best = 0, there.score(request.goal)
        if _accepted(here, there, request.goal, rng):
            cut, here, fresh = moved, there, True
            yield Tick(checker.checked, here.score(request.goal))


def _accepted(here: Checked, there: Checked, goal: str, rng: random.Random) -> bool:
    """The unique walk takes a move whose score does not fall; the level walk anneals: a move
    that makes the energy worse by e is taken with probability exp(-e / TEMPERATURE)."""
    if goal == "unique":
        return there.score(goal) >= here.score(goal)
    worse = energy(there) - energy(here)
    return worse <= 0 or rng.random() < math.exp(-worse / TEMPERATURE)


def search_units(
    request: DesignRequest, workers: int, deadline: Deadline, run: int, candidates: int | None = None
) -> list[SearchUnit]:
    """One search per worker, numbered on from the searches of earlier runs (`run`), so that a
    resumed run looks at new candidates."""
    remaining = deadline.remaining()
    at = None if remaining is None else time.time() + remaining
    return [SearchUnit(request, run * 1000 + number, at, candidates) for number in range(max(1, workers))]


def _search_task(unit: SearchUnit) -> Iterator[Found]:
    return search(unit)


# -- a run: designs written as they come, resumable -------------------------------------------------

RESULTS: Final = "designs.jsonl"
CONFIRM_SECONDS: Final = 60.0  # the full count of a design found (its page's assemblies) stops here
LEAST_CONFIRM_SECONDS: Final = 0.1  # ... or where the run's deadline leaves less, then (an unfinished check)


def request_record(request: DesignRequest) -> dict[str, Any]:
    """What must be the same for a later run to add to a folder's designs."""
    return {
        "target": [list(cell) for cell in sorted(request.target)],
        "pieces": request.pieces,
        "sizes": [request.smallest, request.largest],
        "goal": request.goal,
        **({"holes": request.holes} if request.holes else {}),  # folders of filled designs say none
    }


class DesignBook:
    """A folder of designs: each as NNN.xmpuzzle (BurrTools opens it) and NNN.html (its page),
    listed in designs.jsonl with its counts and level; a later run with the same request adds to
    it, numbering on, never writing a design it holds again (nor, for the level goal, one no
    higher than its best)."""

    WHAT = "a cpsolve design results file"

    def __init__(self, folder: Path, request: DesignRequest) -> None:
        from cpsolve.journal import Journal

        if folder.exists() and not folder.is_dir():
            raise CpsolveError(f"{folder}: --out must be a folder; give a folder name")
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise CpsolveError(f"{folder}: cannot make the folder: {error.strerror}") from None
        self.folder = folder
        self.request = request
        self.journal = Journal(folder / RESULTS, "record", self.WHAT)
        try:
            self._read()
            self.run = 1 + max((r["run"] for r in self.journal.records if r.get("record") == "run"), default=-1)
            self.journal.append([{"record": "run", "run": self.run, "request": request_record(request)}])
        except BaseException:
            self.journal.close()
            raise

    def _read(self) -> None:
        self.keys: set[tuple[Any, ...]] = set()
        self.best: tuple[int, ...] = ()
        self.count = 0
        wanted = request_record(self.request)
        for number, record in enumerate(self.journal.records, 1):
            if record.get("record") == "run":
                if not isinstance(record.get("run"), int) or record.get("request") != wanted:
                    raise CpsolveError(
                        f"{self.journal.path}:{number}: these designs were searched for another target, piece count,"
                        " sizes, goal or number of holes; give another --out folder"
                    )
            elif record.get("record") == "design":
                try:
                    cut = tuple(tuple(tuple(int(v) for v in cell) for cell in piece) for piece in record["pieces"])
                    level = str(record["level"])
                except (KeyError, TypeError, ValueError):
                    raise CpsolveError(f"{self.journal.path}:{number}: not a design as cpsolve wrote it") from None
                self.keys.add(design_key(cut))  # type: ignore[arg-type]
                self.best = max(self.best, level_tuple(level))
                self.count = max(self.count, int(record.get("number", 0)))

    def _free_number(self) -> int:
        """After the last design this folder's results list, and past any file of that number the
        folder holds already (a user's own 001.xmpuzzle, the very target read from it)."""
        number = self.count + 1
        while any((self.folder / f"{number:03d}{suffix}").exists() for suffix in (".xmpuzzle", ".html")):
            number += 1
        return number

    def wants(self, design: Design) -> bool:
        if design.key in self.keys:
            return False
        return self.request.goal == "unique" or level_tuple(design.level) > self.best

    def write(self, design: Design, search_number: int, deadline: Deadline = NO_DEADLINE) -> dict[str, Any] | None:
        """Write the design's files and its line, once checked again in full (every assembly
        counted, each taken apart, within CONFIRM_SECONDS and what the run's deadline leaves);
        None when the full check does not confirm it. Its number is the next free one: no file
        the search did not make is written over."""
        from cpsolve import formats
        from cpsolve.api import solve
        from cpsolve.convert import write_puzzle
        from cpsolve.options import Outputs

        number = self._free_number()
        name = f"{number:03d}"
        title = f"cpsolve design {name}: {len(design.cut)} pieces, level {design.level}"
        spec = spec_of(design.cut, self.request, title)
        remaining = deadline.remaining()
        confirm = CONFIRM_SECONDS if remaining is None else min(CONFIRM_SECONDS, max(LEAST_CONFIRM_SECONDS, remaining))
        # a unique design's assemblies are the cut's images (48 at most): listing every one is
        # quicker than choosing a breaking for them (its estimate was a third of this run)
        breaking = self.request.goal != "unique"
        result = solve(spec, pictured=1, disassemble=True, workers=1, time_limit=confirm, symmetry_breaking=breaking)
        report = result.report
        if self.request.goal == "unique":
            levels = [(solution.get("disassembly") or {}).get("level") for solution in result.solutions]
            if not report.complete or report.counts.unique != 1 or levels != [design.level]:
                return None
        else:
            highest = "" if report.disassembly is None else report.disassembly.highest_level or ""
            if report.complete and level_tuple(highest) < level_tuple(design.level):
                return None
        write_puzzle(formats.puzzle_from_data(spec).loaded, self.folder / f"{name}.xmpuzzle")
        result.outcome.write(Outputs.of({"html": self.folder / f"{name}.html"}))
        record = {
            "record": "design",
            "number": number,
            "file": f"{name}.xmpuzzle",
            "page": f"{name}.html",
            "level": design.level,
            "first_moves": design.first_moves,
            "moves": design.moves,
            "counts": report.counts.as_dict(),
            "complete": report.complete,
            "pieces": [[list(cell) for cell in piece] for piece in design.cut],
            "search": search_number,
            "candidate": design.candidate,
        }
        self.journal.append([record])
        self.count = number
        self.keys.add(design.key)
        self.best = max(self.best, level_tuple(design.level))
        return record

    def close(self) -> None:
        self.journal.close()


def level_tuple(level: str) -> tuple[int, ...]:
    return tuple(int(part) for part in level.split(".")) if level else ()


DESIGN_STOPS = {  # why a design search ended, as its summary says it
    "designs": "stopped at the designs asked for",
    "candidates": "stopped at the candidates asked for",
    "time limit": "stopped by the time limit",
    "interrupted": "interrupted",
}


@dataclasses.dataclass
class DesignReport:
    """What a design run did."""

    folder: str
    written: list[dict[str, Any]]
    checked: int
    seconds: float
    best_level: str
    held: int  # designs in the folder, earlier runs' included
    stopped_by: str  # "designs", "candidates", "time limit", "interrupted" (DESIGN_STOPS says them)
    below_level: bool = False  # no cut reached --level: the one design written is the best that came apart
    writing_seconds: float = 0.0  # of `seconds`, confirming and writing the designs (files, pages, lines)
    searched_here: bool = False  # the search ran in this process, between the writes (one worker, no cluster)

    def summary(self) -> dict[str, Any]:
        searching = self.seconds - self.writing_seconds
        return {
            "folder": self.folder,
            "designs": len(self.written),
            "held": self.held,
            "checked": self.checked,
            "per_second": round(self.checked / self.seconds, 1) if self.seconds > 0 else None,
            "writing_seconds": round(self.writing_seconds, 2),
            # the candidates a second of the search alone, where it ran here and the writes did not overlap it
            "searching_per_second": round(self.checked / searching, 1)
            if self.searched_here and searching > 0
            else None,
            "best_level": self.best_level or None,
            "seconds": round(self.seconds, 2),
            "stopped_by": self.stopped_by,
            "below_level": self.below_level,
        }


DesignProgress = Callable[[int, float, str, int], None]  # (checked, seconds, best level, designs written)


def design(
    request: DesignRequest,
    folder: Path,
    *,
    most_designs: int | None = 10,
    workers: int = 1,
    cluster: str | None = None,
    deadline: Deadline = NO_DEADLINE,
    candidates: int | None = None,
    progress: DesignProgress | None = None,
) -> DesignReport:
    """Search for designs and write each wanted one into `folder` as it comes, until
    `most_designs` are written, each search has checked `candidates`, the deadline, or Ctrl-C
    (the designs written stay)."""
    from cpsolve.workers import DONE, STOPPED, InProcess, workers_for

    request.check()
    if cluster is not None and deadline.at is None:
        raise CpsolveError("--cluster needs --time-limit: a search on a cluster hands its designs back when it ends")
    started = time.monotonic()
    book = DesignBook(folder, request)
    written: list[dict[str, Any]] = []
    checked: dict[int, int] = {}
    best = book.best
    best_apart: Design | None = None
    kept_below: dict[str, Any] | None = None
    stopped_by = "time limit" if candidates is None else "candidates"
    writing = 0.0
    try:
        place = workers_for(cluster, max(1, workers))
        units = search_units(request, place.workers, deadline, book.run, candidates)  # a cluster: one per worker
        try:
            for index, item in place.stream(_search_task, units, stop=deadline.passed):
                if item is DONE or item is STOPPED:
                    continue
                if isinstance(item, Tick):
                    checked[index] = item.checked
                    if item.best_apart is not None and (
                        best_apart is None or level_tuple(item.best_apart.level) > level_tuple(best_apart.level)
                    ):
                        best_apart = item.best_apart
                elif isinstance(item, Design) and book.wants(item):
                    checked[index] = max(checked.get(index, 0), item.candidate)
                    writing -= time.monotonic()
                    record = book.write(item, units[index].number, deadline)
                    writing += time.monotonic()
                    if record is not None:
                        written.append(record)
                        best = max(best, level_tuple(item.level))
                if progress is not None:
                    progress(sum(checked.values()), time.monotonic() - started, _level_text(best), len(written))
                if most_designs is not None and len(written) >= most_designs:
                    stopped_by = "designs"
                    break
                if deadline.passed():
                    break
        except KeyboardInterrupt:
            stopped_by = "interrupted"
        finally:
            place.close()
        if request.goal == "level" and not written and best_apart is not None and book.wants(best_apart):
            writing -= time.monotonic()
            kept_below = book.write(best_apart, -1, deadline)  # no cut reached --level: the best one is kept
            writing += time.monotonic()
            if kept_below is not None:
                written.append(kept_below)
                best = max(best, level_tuple(best_apart.level))
    finally:
        book.close()
    return DesignReport(
        str(folder),
        written,
        sum(checked.values()),
        time.monotonic() - started,
        _level_text(best),
        book.count,
        stopped_by,
        below_level=kept_below is not None,
        writing_seconds=writing,
        searched_here=isinstance(place, InProcess),
    )


def _level_text(level: tuple[int, ...]) -> str:
    return ".".join(map(str, level))
