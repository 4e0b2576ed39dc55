"""Reading the c't 9-piece solver's `.txt` puzzles with that program's rules (docs/formats.md).

A file becomes an ordinary tiles spec: nine tiles of four integers (top, right, bottom, left) on a
3x3 board, `match: sum-zero`, the border free. Blank lines are skipped, as the program's own
files end with one.
"""

from __future__ import annotations

import re

from cpsolve.errors import SpecError
from cpsolve.spec import LoadedSpec, Source

from .base import Document, PuzzleFile, ReadOptions

TILE_COUNT = 9
MAX_DIGITS = 12
INTEGER = re.compile(rf"[+-]?[0-9]{{1,{MAX_DIGITS}}}")  # ASCII digits only: int() also takes others


def parse_tiles(text: str, path: str) -> tuple[list[list[int]], dict[int, int]]:
    """The tiles and the line each came from; one error line per bad line."""
    tiles: list[list[int]] = []
    lines: dict[int, int] = {}
    problems = []
    for number, line in enumerate(text.splitlines(), 1):
        words = line.split()
        if not words:
            continue
        if len(words) != 4:
            problems.append(f"{path}:{number}: a tile is 4 integers (top right bottom left), found {len(words)}")
            continue
        bad = next((word for word in words if not INTEGER.fullmatch(word)), None)
        if bad is not None:
            problems.append(f"{path}:{number}: {bad[:20]!r} is not an integer of at most {MAX_DIGITS} digits")
            continue
        tile = [int(word) for word in words]
        lines[len(tiles)] = number
        tiles.append(tile)
        if len(tiles) > TILE_COUNT:
            break  # one too many is enough to refuse the file
    if problems:
        raise SpecError(problems)
    if len(tiles) != TILE_COUNT:
        found = f"more than {TILE_COUNT}" if len(tiles) > TILE_COUNT else str(len(tiles))
        raise SpecError([f"{path}: the c't 9-piece format has {TILE_COUNT} tiles, one per line; found {found}"])
    return tiles, lines


def load_tiles(file: PuzzleFile, options: ReadOptions | None = None) -> Document:
    """A c't 9-piece file as a tiles spec."""
    tiles, lines = parse_tiles(file.text(), file.name)
    source = Source(file.name, {("tiles", index): line for index, line in lines.items()})
    data = {
        "name": file.stem,
        "description": "c't 9-piece puzzle",
        "kind": "tiles",
        "board": [3, 3],
        "tiles": tiles,
        "match": "sum-zero",
        "border": "any",
    }
    families = (options or ReadOptions()).families
    return Document.single(LoadedSpec(families.validate(data, source), source))


def looks_like_ct9(head: bytes) -> bool:
    """Lines of four integers: what tells a c't file from another `.txt`."""
    lines = [line.split() for line in head.decode("utf-8", "replace").splitlines() if line.strip()]
    complete = lines[:-1] if len(head) >= 512 else lines  # the last line may be cut off
    return bool(complete) and all(len(words) == 4 for words in complete)
