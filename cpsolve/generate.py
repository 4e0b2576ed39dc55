"""Puzzles with a planted solution, to make and share instances of any size.

Edge-matching boards: every edge of a solved board gets a random label (Eternity II style: the
outer edges one border label, the edges between two frame tiles their own frame labels, the rest
inner labels), then the tiles are cut out, shuffled and turned. Packings (the designs BurrTools
users make): a box whose outer shell must be filled and whose inside may stay empty, cut into
pieces that reach into the inside here and there, the shell's faces coloured if asked. The same
arguments and seed always give the same file.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from itertools import count

from cpsolve.errors import CpsolveError
from cpsolve.geometry import ROTATIONS, Cell, step
from cpsolve.limits import MAX_LABEL, MAX_SIDE

MAX_GENERATED_TILES = 256 * 256  # Eternity II is 16 x 16
MAX_GENERATED_LABELS = 10_000  # a board has about two edges per tile: more labels than that are unused

Edges = list[int]


@dataclass(frozen=True)
class TileBoardRequest:
    columns: int
    rows: int
    labels: int
    border: int | None = None
    frame_labels: int = 0
    match: str = "equal"
    seed: int = 1

    def command(self) -> str:
        """The command line that makes this board again."""
        words = [f"cpsolve generate tiles --board {self.columns}x{self.rows} --labels {self.labels}"]
        if self.border is not None:
            words.append(f"--border {self.border}")
        if self.frame_labels:
            words.append(f"--frame-labels {self.frame_labels}")
        if self.match != "equal":
            words.append(f"--match {self.match}")
        words.append(f"--seed {self.seed}")
        return " ".join(words)

    def check(self) -> None:
        """Refuse, before any work, what makes no board or a board no run could read."""
        if self.columns * self.rows > MAX_GENERATED_TILES:
            raise CpsolveError(
                f"--board {self.columns}x{self.rows} has {self.columns * self.rows:,} tiles;"
                f" cpsolve generates at most {MAX_GENERATED_TILES:,} (256x256)"
            )
        if self.labels < 1:
            raise CpsolveError("--labels must be at least 1")
        if self.labels > MAX_GENERATED_LABELS or self.frame_labels > MAX_GENERATED_LABELS:
            raise CpsolveError(f"--labels and --frame-labels are at most {MAX_GENERATED_LABELS:,}")
        if self.border is not None and abs(self.border) > MAX_LABEL:
            raise CpsolveError(f"--border is a label between -{MAX_LABEL:,} and {MAX_LABEL:,}")
        if self.frame_labels and self.border is None:
            raise CpsolveError("--frame-labels needs --border: frame edges are those between two border tiles")
        if self.match not in ("equal", "sum-zero"):
            raise CpsolveError(f"--match must be equal or sum-zero, not {self.match!r}")
        if self.match == "sum-zero" and self.border not in (None, 0):
            raise CpsolveError("with --match sum-zero the border label must be 0 (the only label that fits itself)")


def parse_board(text: str) -> tuple[int, int]:
    """'8x8' or '10x6' (columns x rows), each side within what a run reads (MAX_SIDE)."""
    found = re.fullmatch(r"([0-9]+)[xX]([0-9]+)", text.strip())
    if found is None or not all(side.strip("0") for side in found.groups()):
        raise CpsolveError(f"--board must look like 8x8 (columns x rows), not {text[:20]!r}")
    if any(len(side) > 12 or int(side) > MAX_SIDE for side in found.groups()):
        raise CpsolveError(f"--board {text[:20]}: a side is at most {MAX_SIDE:,} tiles (what a run reads)")
    return int(found[1]), int(found[2])


def _label_values(request: TileBoardRequest) -> tuple[list[int], list[int]]:
    """Inner and frame label values: positive integers, never the border label."""
    free = (v for v in count(1) if v != request.border)
    inner = [next(free) for _ in range(request.labels)]
    frame = [next(free) for _ in range(request.frame_labels)]
    return inner, frame


def planted_tiles(request: TileBoardRequest) -> list[Edges]:
    """The tiles of a random solved board, shuffled and turned."""
    request.check()
    rng = random.Random(request.seed)
    columns, rows = request.columns, request.rows
    inner, frame = _label_values(request)
    board = [[[0, 0, 0, 0] for _ in range(columns)] for _ in range(rows)]

    def on_frame(x: int, y: int) -> bool:
        return x in (0, columns - 1) or y in (0, rows - 1)

    def edge_label(frame_edge: bool) -> tuple[int, int]:
        value = rng.choice(frame if frame_edge and frame else inner)
        if request.match == "sum-zero":
            value = rng.choice((value, -value))
            return value, -value
        return value, value

    for y in range(rows):
        for x in range(columns):
            tile = board[y][x]
            if x + 1 < columns:
                tile[1], board[y][x + 1][3] = edge_label(on_frame(x, y) and on_frame(x + 1, y))
            if y + 1 < rows:
                tile[2], board[y + 1][x][0] = edge_label(on_frame(x, y) and on_frame(x, y + 1))
    for y in range(rows):
        for x in range(columns):
            for side, outer in enumerate((y == 0, x == columns - 1, y == rows - 1, x == 0)):
                if outer:
                    board[y][x][side] = request.border if request.border is not None else edge_label(False)[0]
    tiles = [tile for row in board for tile in row]
    rng.shuffle(tiles)
    turned = []
    for tile in tiles:
        k = rng.randrange(4)
        turned.append([tile[(side + k) % 4] for side in range(4)])
    return turned


def tiles_spec_text(request: TileBoardRequest) -> str:
    """A YAML tiles spec, one tile per line so that it reads (and diffs) like the board's list."""
    tiles = planted_tiles(request)
    border = "any" if request.border is None else request.border
    frame = f", {request.frame_labels} frame labels" if request.frame_labels else ""
    lines = [
        f"name: Planted {request.columns}x{request.rows} tiles (seed {request.seed})",
        "description: >",
        f"  A random solved board with {request.labels} inner labels{frame}, tiles shuffled and turned;",
        f"  made by: {request.command()}",
        "kind: tiles",
        f"board: [{request.columns}, {request.rows}]",
        f"match: {request.match}",
        f"border: {border}",
        "tiles:",
        *(f"  - [{', '.join(str(v) for v in tile)}]" for tile in tiles),
    ]
    return "\n".join(lines) + "\n"


MAX_GENERATED_CELLS = 32_768  # a 32x32x32 box
MAX_GENERATED_COLOURS = 6  # one for each face of the box


@dataclass(frozen=True)
class PackingRequest:
    size: tuple[int, int, int]
    pieces: int
    shell: int = 0  # cells this close to the surface must be filled (0: every cell)
    inside: int = 0  # inside cells the planted pieces fill (the others stay empty)
    colours: int = 0  # colour the shell by faces, with this many colours
    seed: int = 1

    def command(self) -> str:
        """The command line that makes this packing again."""
        words = [f"cpsolve generate packing --box {'x'.join(map(str, self.size))} --pieces {self.pieces}"]
        if self.shell:
            words.append(f"--shell {self.shell} --inside {self.inside}")
        if self.colours:
            words.append(f"--colours {self.colours}")
        words.append(f"--seed {self.seed}")
        return " ".join(words)

    @property
    def cells(self) -> list[Cell]:
        x, y, z = self.size
        return [(i, j, k) for k in range(z) for j in range(y) for i in range(x)]

    @property
    def faces(self) -> tuple[int, ...]:
        """The axes whose faces bound the design: those longer than one cell, so that a flat box
        (a side of one cell) has its rim for a shell rather than every cell; all three if none is."""
        long = tuple(axis for axis in range(3) if self.size[axis] > 1)
        return long or (0, 1, 2)

    def on_shell(self, cell: Cell) -> bool:
        """Whether a cell must be filled: within `shell` of a face (every cell without a shell)."""
        return not self.shell or min(min(cell[a], self.size[a] - 1 - cell[a]) for a in self.faces) < self.shell

    def check(self) -> None:
        """Refuse, before any work, what makes no puzzle."""
        volume = self.size[0] * self.size[1] * self.size[2]
        if min(self.size) < 1 or volume > MAX_GENERATED_CELLS:
            raise CpsolveError(f"--box must have 1 to {MAX_GENERATED_CELLS:,} cells (32x32x32), not {volume:,}")
        if self.shell < 0 or self.inside < 0:
            raise CpsolveError("--shell and --inside must be at least 0")
        inner = sum(not self.on_shell(cell) for cell in self.cells)
        if self.inside > inner:
            raise CpsolveError(f"--inside {self.inside}: the box has only {inner} cells inside its shell")
        filled = volume - inner + self.inside
        if not 1 <= self.pieces <= filled:
            raise CpsolveError(f"--pieces must be 1 to {filled:,}: the cells the pieces fill")
        if not 0 <= self.colours <= MAX_GENERATED_COLOURS:
            raise CpsolveError(f"--colours must be 0 to {MAX_GENERATED_COLOURS} (one per face of the box)")


def parse_box(text: str) -> tuple[int, int, int]:
    """'9x9x9' (x by y by z); a side past what a run reads is refused by that limit's name."""
    found = re.fullmatch(r"([0-9]+)[xX]([0-9]+)[xX]([0-9]+)", text.strip())
    if found is None:
        raise CpsolveError(f"--box must look like 9x9x9, not {text[:20]!r}")
    if any(len(side) > 12 or int(side) > MAX_SIDE for side in found.groups()):
        raise CpsolveError(f"--box {text[:20]}: a side is at most {MAX_SIDE:,} cells (what a run reads)")
    return int(found[1]), int(found[2]), int(found[3])


def planted_packing(request: PackingRequest) -> tuple[list[list[Cell]], set[Cell]]:
    """The planted solution's pieces (cells in the box) and the inside cells they fill: the shell
    and `inside` cells grown inwards from it, cut into pieces grown side by side from random
    seeds, the smallest piece growing next, so that sizes stay even."""
    request.check()
    rng = random.Random(request.seed)
    filled = {cell for cell in request.cells if request.on_shell(cell)}
    reached = _grown_inwards(request, filled, rng)
    region = filled | reached
    pieces = grown_pieces(region, rng.sample(sorted(region), request.pieces), rng)
    assert pieces is not None  # without a largest size some piece can always grow into a cell left
    return pieces, reached


def grown_pieces(
    region: set[Cell], seeds: list[Cell], rng: random.Random, largest: int | None = None
) -> list[list[Cell]] | None:
    """The region cut into pieces grown side by side from the seeds, the smallest piece that can
    grow growing next (so that sizes stay even) and none past `largest`; None where cells are left
    that no piece can take. The planted packings and the design search (cpsolve.design) cut this way."""
    piece_of = {cell: number for number, cell in enumerate(seeds)}
    pieces = [[cell] for cell in seeds]
    open_sides = [_neighbours(cell, region, piece_of) for cell in seeds]
    while len(piece_of) < len(region):
        growing = [n for n, sides in enumerate(open_sides) if sides and (largest is None or len(pieces[n]) < largest)]
        if not growing:
            return None
        smallest = min(len(pieces[number]) for number in growing)
        number = rng.choice([n for n in growing if len(pieces[n]) == smallest])
        cell = rng.choice(sorted(open_sides[number]))
        piece_of[cell] = number
        pieces[number].append(cell)
        for sides in open_sides:
            sides.discard(cell)
        open_sides[number] |= _neighbours(cell, region, piece_of)
    return pieces


def _grown_inwards(request: PackingRequest, filled: set[Cell], rng: random.Random) -> set[Cell]:
    """`inside` cells of the inside, each beside the shell or one taken before."""
    inner = {cell for cell in request.cells if cell not in filled}
    reached: set[Cell] = set()
    frontier = {cell for cell in inner if any(step(cell, d) in filled for d in range(6))}
    while len(reached) < request.inside:
        cell = rng.choice(sorted(frontier))
        reached.add(cell)
        frontier.discard(cell)
        frontier |= {step(cell, d) for d in range(6)} & (inner - reached)
    return reached


def _neighbours(cell: Cell, region: set[Cell], taken: dict[Cell, int]) -> set[Cell]:
    return {near for near in (step(cell, d) for d in range(6)) if near in region and near not in taken}


def _face_colour(request: PackingRequest, cell: Cell) -> str | None:
    """The colour of a shell cell: that of the nearest face (the lowest-numbered of equals), the
    six faces sharing `colours` colours in turn; inside cells have none."""
    if not request.colours or not request.on_shell(cell):
        return None
    size = request.size
    distances = [
        (min(cell[axis], size[axis] - 1 - cell[axis]), axis * 2 + (cell[axis] > (size[axis] - 1) / 2))
        for axis in request.faces
    ]
    face = min(distances)[1]
    return f"c{face % request.colours}"


def packing_spec_text(request: PackingRequest) -> str:
    """A YAML packing spec: the pieces turned at random and moved to the origin, the target's
    filled, optional and coloured cells, one cell list per line."""
    pieces, _ = planted_packing(request)
    rng = random.Random(request.seed)
    width = len(str(len(pieces)))
    lines = [
        f"name: Planted {'x'.join(map(str, request.size))} packing of {request.pieces} pieces (seed {request.seed})",
        "description: >",
        "  A random cut of a box into pieces (the shell filled, the inside free), pieces turned;",
        f"  made by: {request.command()}",
        "pieces:",
    ]
    for number, cells in enumerate(pieces):
        turn = rng.choice(ROTATIONS)
        coloured = {turn.apply(cell): _face_colour(request, cell) for cell in cells}
        low = [min(cell[axis] for cell in coloured) for axis in range(3)]
        moved = {(c[0] - low[0], c[1] - low[1], c[2] - low[2]): colour for c, colour in coloured.items()}
        lines.append(f"  P{number + 1:0{width}d}:")
        lines.append(f"    cells: {_cell_list(list(moved))}")
        colours = _by_colour(moved)
        if colours:
            lines.append(
                "    colours: {" + ", ".join(f"{name}: {_cell_list(cells)}" for name, cells in colours.items()) + "}"
            )
    shell = [cell for cell in request.cells if request.on_shell(cell)]
    optional = [cell for cell in request.cells if not request.on_shell(cell)]
    lines += ["target:", f"  cells: {_cell_list(shell)}"]
    if optional:
        lines.append(f"  optional: {_cell_list(optional)}")
    target_colours = _by_colour({cell: _face_colour(request, cell) for cell in shell})
    if target_colours:
        lines.append("  colours:")
        lines += [f"    {name}: {_cell_list(cells)}" for name, cells in target_colours.items()]
        lines.append("colour_rule: [" + ", ".join(f"[{name}, {name}]" for name in target_colours) + "]")
    return "\n".join(lines) + "\n"


def _by_colour(colour_of: dict[Cell, str | None]) -> dict[str, list[Cell]]:
    found: dict[str, list[Cell]] = {}
    for cell, colour in sorted(colour_of.items()):
        if colour is not None:
            found.setdefault(colour, []).append(cell)
    return dict(sorted(found.items()))


def _cell_list(cells: list[Cell] | tuple[Cell, ...]) -> str:
    return "[" + ", ".join(f"[{x}, {y}, {z}]" for x, y, z in sorted(cells)) + "]"
