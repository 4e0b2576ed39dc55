"""Edge-matching boards with a planted solution, to make and share instances of any size.

Every edge of a solved board gets a random label (Eternity II style: the outer edges one border
label, the edges between two frame tiles their own frame labels, the rest inner labels), then the
tiles are cut out, shuffled and turned. The same arguments and seed always give the same file.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from itertools import count

from cpsolve.errors import CpsolveError
from cpsolve.limits import MAX_LABEL

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
    """'8x8' or '10x6' (columns x rows)."""
    found = re.fullmatch(r"([0-9]{1,6})[xX]([0-9]{1,6})", text.strip())
    if found is None or min(int(found[1]), int(found[2])) < 1:
        raise CpsolveError(f"--board must look like 8x8 (columns x rows), not {text[:20]!r}")
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
