"""A packing's exact cover in Knuth's DLX input format (TAOCP 7.2.2.1), so that anyone can check
a count with his programs (dlx1, dlx2, dlx3, ssxcc, ssmcc) or time them against cpsolve's on the
very cover its exact-cover engine searches (`cpsolve convert PUZZLE OUT.dlx`).

The cover is the model's (`CoverProblem`: placements after colours and pre-placed pieces are
applied), written so that its solutions are exactly the puzzle's solutions with the target held
fixed, each once: its count is cpsolve's raw count.

- a target cell is a primary item, an optional one a secondary item (at most once);
- a piece is a primary item; copies and ranges are DLX3's bounds (`low:high|NAME`), so that
  copies of one piece are not told apart (a set of placements, as the raw count takes them);
- a group of pieces (`groups:`) is a primary item with the group's bounds in each of its pieces'
  options; a hole limit (`max_holes`) makes the optional cells primary, each with an option of its
  own that leaves it empty and counts towards a `#holes` item of at most that many;
- a pre-placed piece's placement holds an item of its own (`#fN`) that no other option holds.

A cover without bounds, groups or a hole limit is plain DLX1 input (dlx1, dlx2, ssxcc read it);
the others need DLX3's (dlx3, ssmcc). Names: a cell is its coordinates from the target's least,
one base-36 digit each (`0a3`, as Knuth's polycube-dlx names them; `c` and its number where a
coordinate passes 35), a piece its spec's name where that is a usable item name, else `#pN`.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from cpsolve.geometry import Cell
from cpsolve.models import CoverProblem
from cpsolve.words import plural

DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"
NAME_LENGTH = 8  # Knuth's programs keep an item's name in 8 bytes
RESERVED = "#"  # the first character of the names cpsolve makes up (never a cell's, nor a spec's here)
FORBIDDEN = set("|:") | set(RESERVED)  # '|' and ':' are the format's own; '#' is cpsolve's
# what the programs hold as tangled in ../shared/peers (max_cols, max_nodes in dlx1.w and dlx3.w)
DLX1_MAX = (100_000, 25_000_000)
DLX3_MAX = (10_000, 100_000_000)


@dataclass(frozen=True)
class Written:
    """What a written cover holds, for the line `convert` prints."""

    items: int
    secondary: int
    options: int
    nodes: int
    needs_bounds: bool  # DLX3 input (dlx3, ssmcc); else DLX1's (dlx1, dlx2, ssxcc, and dlx3 too)

    def programs(self) -> str:
        return "dlx3 or ssmcc (item bounds)" if self.needs_bounds else "dlx1, dlx2, dlx3, ssxcc or ssmcc"

    def over_limits(self) -> str | None:
        """Where the cover passes what the programs hold as compiled, what to do about it."""
        items, nodes = DLX3_MAX if self.needs_bounds else DLX1_MAX
        program = "dlx3" if self.needs_bounds else "dlx1"
        if self.items > items:
            return f"{self.items:,} items, more than {program}'s max_cols ({items:,}): compile it with a larger one"
        if self.nodes > nodes:
            return f"{self.nodes:,} nodes, more than {program}'s max_nodes ({nodes:,}): compile it with a larger one"
        return None

    def summary(self) -> str:
        said = (
            f"Knuth's DLX input for {self.programs()}: {plural(self.items, 'item')}"
            f" ({self.secondary:,} secondary), {plural(self.options, 'option')}"
        )
        over = self.over_limits()
        return said if over is None else f"{said}; note: {over}"


@dataclass(frozen=True)
class _Cover:
    """The cover's items as the file names them, and what its options need to be made."""

    primary: list[str]  # with their bounds where not exactly once
    secondary: list[str]
    needs_bounds: bool
    holes: bool  # the optional cells primary, each with an option that leaves it empty


def cell_names(cells: Sequence[Cell]) -> list[str]:
    """Each target cell's item name: its coordinates from the target's least, a base-36 digit
    each (two where every cell has z = 0), else `c` and the cell's number in base 36."""
    points = np.array(cells, np.int64).reshape(-1, 3)
    moved = points - points.min(axis=0)
    flat = bool((moved[:, 2] == 0).all())
    if int(moved.max(initial=0)) < len(DIGITS):
        columns = moved[:, :2] if flat else moved
        return ["".join(DIGITS[v] for v in row) for row in columns.tolist()]
    return [f"c{_base36(number)}" for number in range(len(cells))]


def _base36(number: int) -> str:
    digits = ""
    while True:
        number, digit = divmod(number, len(DIGITS))
        digits = DIGITS[digit] + digits
        if number == 0:
            return digits


def piece_names(names: Sequence[str], taken: set[str]) -> list[str]:
    """Each piece's item name: its spec's where that is one word of at most NAME_LENGTH characters
    that no cell and no other piece is called, else `#p` and its number."""
    usable = [
        len(name) <= NAME_LENGTH and name.isprintable() and not any(c.isspace() or c in FORBIDDEN for c in name)
        for name in names
    ]
    seen: dict[str, int] = {}
    for name, fine in zip(names, usable, strict=True):
        if fine:
            seen[name] = seen.get(name, 0) + 1
    return [
        name if fine and seen[name] == 1 and name not in taken else f"{RESERVED}p{number}"
        for number, (name, fine) in enumerate(zip(names, usable, strict=True))
    ]


def _bounded(name: str, low: int, high: int) -> tuple[str, bool]:
    """An item as the first line names it, and whether that needs DLX3's bounds."""
    if (low, high) == (1, 1):
        return name, False
    return (f"{low}|{name}" if low == high else f"{low}:{high}|{name}"), True


def _holes(problem: CoverProblem) -> bool:
    """Whether the hole limit binds: fewer holes allowed than there are optional cells."""
    return problem.max_holes is not None and bool(problem.optional) and problem.max_holes < len(problem.optional)


def _cover(problem: CoverProblem, cells: Sequence[str], pieces: Sequence[str]) -> _Cover:
    holes = _holes(problem)
    needs_bounds = holes or bool(problem.group_bounds)
    primary = [name for number, name in enumerate(cells) if holes or number not in problem.optional]
    secondary = [] if holes else [cells[number] for number in sorted(problem.optional)]
    for name, (low, high) in zip(pieces, problem.piece_bounds, strict=True):
        item, bounded = _bounded(name, low, high)
        primary.append(item)
        needs_bounds |= bounded
    primary += [_bounded(f"{RESERVED}g{n}", low, high)[0] for n, (low, high) in enumerate(problem.group_bounds)]
    primary += [f"{RESERVED}f{number}" for number in range(len(problem.forced))]
    if holes:
        primary.append(_bounded(f"{RESERVED}holes", 0, problem.max_holes or 0)[0])
    return _Cover(primary, secondary, needs_bounds, holes)


def _options(problem: CoverProblem, cells: Sequence[str], pieces: Sequence[str], holes: bool) -> Iterator[list[str]]:
    """The options in the model's order, made one at a time as they are written: each placement
    (its piece, its cells, its group, a pre-placed one's own item), then each optional cell's
    empty option where the hole limit binds."""
    forced = {atom: f"{RESERVED}f{number}" for number, atom in enumerate(problem.forced)}
    for atom, (row, piece) in enumerate(zip(problem.atom_cells.tolist(), problem.atom_piece.tolist(), strict=True)):
        if atom in problem.excluded:
            continue
        option = [pieces[piece], *(cells[cell] for cell in row if cell >= 0)]
        if problem.piece_group and problem.piece_group[piece] >= 0:
            option.append(f"{RESERVED}g{problem.piece_group[piece]}")
        if atom in forced:
            option.append(forced[atom])
        yield option
    if holes:
        yield from ([cells[number], f"{RESERVED}holes"] for number in sorted(problem.optional))


def _sizes(problem: CoverProblem, holes: bool) -> tuple[int, int]:
    """How many options the cover has and how many nodes (item names in options), from the arrays."""
    kept = np.ones(problem.atoms, bool)
    kept[list(problem.excluded)] = False
    lengths = (problem.atom_cells[kept] >= 0).sum(axis=1) + 1  # its cells and its piece
    if problem.piece_group:
        lengths += np.asarray(problem.piece_group, np.int64)[problem.atom_piece[kept]] >= 0
    nodes = int(lengths.sum()) + sum(1 for atom in problem.forced if kept[atom])
    options = int(kept.sum())
    if holes:
        options, nodes = options + len(problem.optional), nodes + 2 * len(problem.optional)
    return options, nodes


def dlx_lines(
    problem: CoverProblem, target: Sequence[Cell], piece_labels: Sequence[str], heading: Sequence[str]
) -> tuple[Iterator[bytes], Written]:
    """The cover as the lines of a DLX file (comments first: `heading`, then which name is which
    piece), and what it holds. The options are made as they are written (a cover of millions of
    placements is never held whole as text); what it holds is counted from the arrays."""
    cells = cell_names(target)
    pieces = piece_names(piece_labels, set(cells))
    cover = _cover(problem, cells, pieces)
    options, nodes = _sizes(problem, cover.holes)
    written = Written(
        items=len(cover.primary) + len(cover.secondary),
        secondary=len(cover.secondary),
        options=options,
        nodes=nodes,
        needs_bounds=cover.needs_bounds,
    )
    renamed = [f"| {name} = {label}" for name, label in zip(pieces, piece_labels, strict=True) if name != label]

    def lines() -> Iterator[bytes]:
        comments = [*heading, f"| for {written.programs()}", *renamed]
        yield "".join(f"{line}\n" for line in comments).encode("utf-8", errors="replace")
        yield (" ".join(cover.primary) + (" | " + " ".join(cover.secondary) if cover.secondary else "") + "\n").encode()
        made = _options(problem, cells, pieces, cover.holes)
        while chunk := list(itertools.islice(made, 4096)):
            yield "".join(" ".join(option) + "\n" for option in chunk).encode()

    return lines(), written
