"""Tiles: square tiles with a label on each edge, laid on a board, turned but never flipped.

Atoms are (tile kind, position, orientation). Tiles equal up to a turn are one kind with copies,
and a tile that looks the same after a turn has fewer orientations, so neither is told apart or
counted twice. Each position holds exactly one atom, each kind is used as often as it was given,
and for every pair of touching edges an atom showing label a on one side needs an atom showing a
fitting label on the other.

Turns follow the c't 9-piece program: a tile turned k quarter turns counter-clockwise shows on
side s (0 top, 1 right, 2 bottom, 3 left) its own label number (s + k) mod 4.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, NamedTuple, overload

import numpy as np

from cpsolve.colours import palette
from cpsolve.errors import ModelTooBigError
from cpsolve.limits import NO_DEADLINE, Deadline
from cpsolve.spec import Label, LoadedSpec, PairsRule, Source, TilesSpec
from cpsolve.symmetry import AtomSymmetry, Solution, SymmetryGroup

from .base import (
    BuildOptions,
    Constraints,
    ConstraintsBuilder,
    EdgeMatching,
    Family,
    ModelBuilder,
    PuzzleModel,
    negated,
    side_neighbours,
)

Edges = tuple[Label, ...]
TOP, RIGHT, BOTTOM, LEFT = range(4)
FitRule = Callable[[Label], set[Label]]


def turned(edges: Edges, turns: int) -> Edges:
    """The labels shown on top, right, bottom, left after `turns` counter-clockwise quarter turns."""
    return tuple(edges[(side + turns) % 4] for side in range(4))


def turns_between(edges: Edges, shown: Edges) -> int:
    """The fewest counter-clockwise quarter turns that make `edges` show `shown`."""
    return next(k for k in range(4) if turned(edges, k) == shown)


@dataclass(frozen=True)
class TileKind:
    """Tiles that are equal up to a turn: one kind, told apart by nobody."""

    edges: Edges
    lines: tuple[int, ...]

    def orientations(self) -> list[tuple[int, Edges]]:
        """(turns, shown labels) for each distinct way the tile can lie."""
        seen: dict[Edges, int] = {}
        for k in range(4):
            seen.setdefault(turned(self.edges, k), k)
        return [(k, shown) for shown, k in seen.items()]


class TileAtom(NamedTuple):
    """A tile of a kind lying at a place, turned (a tuple: a board of 64 places has thousands, made
    faster than frozen dataclasses)."""

    kind: int
    position: int
    turns: int
    shown: Edges


Way = tuple[int, int, Edges]  # a kind lying in one of its distinct turns: (kind, turns, shown)


class TileAtoms(Sequence[TileAtom]):
    """The atoms as arrays of ways and places, each TileAtom made when asked for: the tiles search,
    the symmetries and the breaking read the arrays; CP-SAT's constraints, drawings and layouts
    ask for atoms (making all 5,748 of the planted 8x8 board took 2.3 ms of its 0.02 s run)."""

    def __init__(self, ways: Sequence[Way], atom_way: Any, atom_position: Any, places: int) -> None:
        self.ways = ways
        self.atom_way = atom_way
        self.atom_position = atom_position
        self.places = places

    @cached_property
    def at(self) -> Any:
        """(place, way) -> the atom lying so, -1 for none: the edge tables and the board's turns
        read it."""
        table = np.full((self.places, len(self.ways)), -1, np.int64)
        table[self.atom_position, self.atom_way] = np.arange(len(self))
        return table

    def __len__(self) -> int:
        return len(self.atom_way)

    @overload
    def __getitem__(self, atom: int) -> TileAtom: ...

    @overload
    def __getitem__(self, atoms: slice) -> list[TileAtom]: ...

    def __getitem__(self, atom: int | slice) -> TileAtom | list[TileAtom]:
        if isinstance(atom, slice):
            return [self[a] for a in range(len(self))[atom]]
        atom = range(len(self))[atom]  # IndexError past the end, as a list
        kind, turns, shown = self.ways[int(self.atom_way[atom])]
        return TileAtom(kind, int(self.atom_position[atom]), turns, shown)

    def __iter__(self) -> Iterator[TileAtom]:
        ways = self.ways
        for way, position in zip(self.atom_way.tolist(), self.atom_position.tolist(), strict=True):
            kind, turns, shown = ways[way]
            yield TileAtom(kind, position, turns, shown)


def tile_kinds(tiles: Sequence[Sequence[Label]]) -> list[TileKind]:
    """Group the tiles into kinds in the order of their first copy."""
    by_turns: dict[frozenset[Edges], list[int]] = defaultdict(list)
    for line, tile in enumerate(tiles):
        by_turns[frozenset(turned(tuple(tile), k) for k in range(4))].append(line)
    return [TileKind(tuple(tiles[lines[0]]), tuple(lines)) for lines in by_turns.values()]


def fit_rule(spec: TilesSpec, source: Source) -> FitRule:
    """What each label fits, after checking that the rule can read every label."""
    labels = {label for tile in spec.tiles for label in tile}
    if spec.match == "sum-zero":
        for index, tile in enumerate(spec.tiles):
            for label in tile:
                if not isinstance(label, int):
                    raise source.error(("tiles", index), f"match sum-zero needs integer labels, found {label!r}")
        return lambda label: {-label} if isinstance(label, int) else set()
    if spec.match == "equal":
        return lambda label: {label}
    assert isinstance(spec.match, PairsRule)
    partners: dict[Label, set[Label]] = defaultdict(set)
    for index, (first, second) in enumerate(spec.match.pairs):
        unknown = [label for label in (first, second) if label not in labels]
        if unknown:
            raise source.error(
                ("match", "pairs", index), f"label {unknown[0]!r} is on no tile; labels: {_listing(labels)}"
            )
        partners[first].add(second)
        partners[second].add(first)
    return lambda label: partners.get(label, set())


def _listing(labels: set[Label]) -> str:
    return ", ".join(sorted(map(str, labels)))


def check_board(spec: TilesSpec, source: Source) -> None:
    columns, rows = spec.board
    if columns * rows != len(spec.tiles):
        raise source.error(
            ("board",), f"a {columns}x{rows} board has {columns * rows} places but {len(spec.tiles)} tiles are given"
        )
    if spec.border != "any" and not any(spec.border in tile for tile in spec.tiles):
        raise source.error(("border",), f"no tile shows the border label {spec.border!r}")


def border_inside(spec: TilesSpec) -> bool:
    """Whether a border label can lie inside the board: only where tiles show it on more edges
    than the outline has, for the outline takes one on each of its edges. Where they show exactly
    as many (Eternity II, every planted board) a tile never turns a border edge inwards: a corner
    tile lies only in the corners, which leaves it a set of one atom per turn of the board for the
    symmetry breaking, and the search never tries a frame tile inside (a planted 10x10 board:
    324 atoms per corner tile before, 4 now)."""
    if spec.border == "any":
        return False
    columns, rows = spec.board
    return sum(list(tile).count(spec.border) for tile in spec.tiles) > 2 * (columns + rows)


def check_label_counts(spec: TilesSpec, source: Source, fits: FitRule) -> None:
    """Refuse a board whose label counts alone prove it has no solution, before any search.

    Every edge inside the board joins two tile edges that fit, so where each label fits exactly
    one label (`equal`: itself, `sum-zero`: its negative), the labels left unpaired must all lie
    on the board's outline: with a border label, none may (the outline shows the border label on
    all of its edges); with `border: any`, at most as many as the outline has edges.
    """
    columns, rows = spec.board
    outline = 2 * (columns + rows)
    counts = Counter(label for tile in spec.tiles for label in tile)
    if spec.border != "any":
        if counts[spec.border] < outline:
            raise source.error(
                ("border",),
                f"the border label {spec.border!r} shows on {counts[spec.border]} tile edges, fewer than"
                f" the {outline} edges of the board's outline",
            )
        counts[spec.border] -= outline
    partners = {label: fits(label) for label in counts}
    if any(len(partner) != 1 for partner in partners.values()):
        return  # a pairs rule that lets a label fit several (or none): no simple count
    unpaired: dict[Label, int] = {}
    for label, count in counts.items():
        (partner,) = partners[label]
        extra = count % 2 if partner == label else count - counts.get(partner, 0)
        if extra > 0:
            unpaired[label] = extra
    room = outline if spec.border == "any" else 0
    if sum(unpaired.values()) > room:
        listed = ", ".join(f"{label!r} x{extra}" for label, extra in sorted(unpaired.items(), key=lambda i: str(i[0])))
        rule = f"match {spec.match if isinstance(spec.match, str) else 'pairs'}"
        where = f"more than the outline's {outline} edges" if room else f"and the outline shows only {spec.border!r}"
        raise source.error(
            ("tiles",),
            f"no solution: {sum(unpaired.values())} tile edges can fit no other tile's edge ({listed}; {rule}),"
            f" {where}",
        )


@dataclass(frozen=True)
class BoardTurn:
    """One turn of the board: where each position goes and how many quarter turns each tile gains."""

    positions: tuple[int, ...]
    extra_turns: int


def board_turns(columns: int, rows: int) -> list[BoardTurn]:
    """The turns in the plane that map the board onto itself (identity first).

    A clockwise quarter turn takes (x, y) to (n-1-y, x), y counted down from the top row, and
    turns every tile one quarter clockwise (-1 counter-clockwise); a half turn fits any board.
    """
    identity = BoardTurn(tuple(range(columns * rows)), 0)
    half = BoardTurn(
        tuple((rows - 1 - y) * columns + (columns - 1 - x) for y in range(rows) for x in range(columns)), 2
    )
    if columns != rows:
        return [identity, half]
    n = columns
    quarter = BoardTurn(tuple(x * n + (n - 1 - y) for y in range(n) for x in range(n)), 3)
    three_quarters = BoardTurn(tuple(quarter.positions[p] for p in half.positions), 1)
    return [identity, quarter, half, three_quarters]


class TilesModel(PuzzleModel):
    def __init__(
        self, spec: TilesSpec, source: Source, options: BuildOptions, deadline: Deadline = NO_DEADLINE
    ) -> None:
        check_board(spec, source)
        self.columns, self.rows = spec.board
        self.tiles = [tuple(tile) for tile in spec.tiles]
        self.kinds = tile_kinds(spec.tiles)
        self.neighbours = side_neighbours(self.columns, self.rows)
        self.border = spec.border
        self.fits = fit_rule(spec, source)
        check_label_counts(spec, source, self.fits)
        self.border_inside = border_inside(spec)
        self.match_kind = spec.match if isinstance(spec.match, str) else "pairs"  # how pictures label edges
        self.options = options
        self.placements = self._placements(options, deadline)
        super().__init__(name=spec.name, kind="tiles", atom_count=len(self.placements), group=SymmetryGroup(()))
        self.group = self._symmetry_group(spec.symmetry, deadline)
        self._constraints: Constraints | None = None
        self._edge_matching: EdgeMatching | None = None
        # planted 6x6 boards, --first: 1 worker 3.8 s for five boards, 2: 4.1 s, 8: 7.2 s
        self.first_solution_workers = 1
        self.breaking_candidates = self._breaking_candidates()
        merged = len(self.tiles) - len(self.kinds)
        if merged:
            self.notes.append(
                f"{merged} tile(s) equal up to a turn to an earlier one: identical tiles are not told apart"
            )

    # -- atoms ------------------------------------------------------------------------------

    def _outer_sides(self, position: int) -> list[int]:
        return [side for side, neighbour in enumerate(self.neighbours[position]) if neighbour < 0]

    def _placements(self, options: BuildOptions, deadline: Deadline) -> TileAtoms:
        """Every tile in every way it lies at every place its border allows (the deadline looked at
        once a place), as arrays of ways and places."""
        positions = self.columns * self.rows
        if positions * len(self.kinds) * 4 > options.max_atoms:
            raise ModelTooBigError(
                f"{positions} places x {len(self.kinds)} tiles x 4 turns is more than"
                f" --max-placements {options.max_atoms:,}"
            )
        ways: list[Way] = [
            (index, k, shown) for index, kind in enumerate(self.kinds) for k, shown in kind.orientations()
        ]
        # which ways lie at a place depends only on which of its sides face the outline (nine
        # kinds of place: the middle, four sides, four corners): worked out once for each kind of
        # place (the planted 8x8 board: 16,384 tests were 0.016 s of its 0.06 s run)
        lying: dict[tuple[int, ...], list[int]] = {}
        shows_border = np.array([[label == self.border for label in shown] for _, _, shown in ways], np.bool_)
        shows_border = shows_border.reshape(-1, 4)  # (0, 4) where no tile has a way
        atom_ways: list[list[int]] = []
        for position in range(positions):
            deadline.check("placing the tiles")
            outer = tuple(self._outer_sides(position))
            if outer not in lying:
                lying[outer] = self._lying_where(shows_border, outer)
            atom_ways.append(lying[outer])
        atom_way = np.array([way for here in atom_ways for way in here], np.int64)
        atom_position = np.repeat(np.arange(positions), [len(here) for here in atom_ways])
        return TileAtoms(ways, atom_way, atom_position, positions)

    def _lying_where(self, shows_border: Any, outer: tuple[int, ...]) -> list[int]:
        """The ways (rows of `shows_border`: which sides show the border label) that may lie where
        `outer` sides face the outline: they show the border label, and the inner sides do not
        where the outline takes every border edge."""
        if self.border == "any":
            return list(range(len(shows_border)))
        inner = [side for side in range(4) if side not in outer]
        lies = shows_border[:, list(outer)].all(axis=1)
        if not self.border_inside:
            lies &= ~shows_border[:, inner].any(axis=1)
        ways: list[int] = np.flatnonzero(lies).tolist()
        return ways

    # -- constraints ------------------------------------------------------------------------

    def constraints(self, deadline: Deadline = NO_DEADLINE) -> Constraints:
        if self._constraints is None:
            builder = ConstraintsBuilder(self.atom_count, self.options.max_terms, deadline)
            # each atom: its place, its kind, and about six literals on each of its up to four edges
            builder.expect(self.atom_count * 26)
            self._add_constraints(builder, self.fits)
            self._constraints = builder.build(list(range(self.atom_count)))
        return self._constraints

    def _add_constraints(self, builder: ConstraintsBuilder, fits: FitRule) -> None:
        at_position: dict[int, list[int]] = defaultdict(list)
        of_kind: dict[int, list[int]] = defaultdict(list)
        for number, atom in enumerate(self.placements):
            at_position[atom.position].append(number)
            of_kind[atom.kind].append(number)
        for position in range(self.columns * self.rows):
            builder.exactly_one(at_position[position])
        for index, kind in enumerate(self.kinds):
            builder.sum_between(of_kind[index], len(kind.lines), len(kind.lines))
        for position, (_, right, bottom, _) in enumerate(self.neighbours):
            if right >= 0:
                self._add_fit(builder, at_position[position], RIGHT, at_position[right], LEFT, fits)
            if bottom >= 0:
                self._add_fit(builder, at_position[position], BOTTOM, at_position[bottom], TOP, fits)

    def _add_fit(
        self, builder: ConstraintsBuilder, here: list[int], side: int, there: list[int], facing: int, fits: FitRule
    ) -> None:
        """One boolean per label the shared edge can show (as seen from `here`), exactly one true.

        An atom implies its label on the edge, an atom on the other side needs a label it fits,
        and a label needs an atom showing it on both sides. Pure clauses: measured on planted 6x6
        boards, `--first` took 0.9-2.1 s where the same rule as linear sums took 1.2-3.9 s.
        """
        showing = self._by_label(here, side)
        facing_by = self._by_label(there, facing)
        edge = {label: builder.new_variable() for label in showing}
        builder.exactly_one(edge.values())
        for label, members in showing.items():
            for a in members:
                builder.implication(a, edge[label])
            builder.clause((negated(edge[label]), *members))
            partners = [b for fit in fits(label) for b in facing_by.get(fit, [])]
            builder.clause((negated(edge[label]), *partners))
        for label, members in facing_by.items():
            fitting = [edge[fit] for fit in fits(label) if fit in edge]
            for b in members:
                builder.clause((negated(b), *fitting))

    def _by_label(self, atoms: list[int], side: int) -> dict[Label, list[int]]:
        grouped: dict[Label, list[int]] = defaultdict(list)
        for a in atoms:
            grouped[self.placements[a].shown[side]].append(a)
        return grouped

    def edge_matching(self) -> EdgeMatching:
        """The board for the tiles search, built once: labels numbered in order of appearance,
        each kind's distinct orientations, and the atom of each orientation at each place."""
        if self._edge_matching is None:
            self._edge_matching = self._make_edge_matching()
        return self._edge_matching

    def _make_edge_matching(self) -> EdgeMatching:
        numbers = {label: n for n, label in enumerate(dict.fromkeys(label for tile in self.tiles for label in tile))}
        fits = np.zeros((len(numbers), len(numbers)), np.bool_)
        for label, n in numbers.items():
            for partner in self.fits(label):
                if partner in numbers:
                    fits[n, numbers[partner]] = fits[numbers[partner], n] = True
        if self.border != "any" and not self.border_inside:
            fits[numbers[self.border], :] = fits[:, numbers[self.border]] = False  # it faces only the wall
        ways = self.placements.ways  # an orientation is a way a kind lies: each kind's distinct turns in order
        return EdgeMatching(
            columns=self.columns,
            rows=self.rows,
            labels=len(numbers),
            shown=np.array([[numbers[label] for label in shown] for _, _, shown in ways], np.int64).reshape(-1, 4),
            orientation_kind=np.array([index for index, _, _ in ways], np.int64),
            kind_copies=np.array([len(kind.lines) for kind in self.kinds], np.int64),
            fits=fits,
            on_border=np.array([self.border == "any" or label == self.border for label in numbers], np.bool_),
            atom_of=self.placements.at,
        )

    # -- symmetry ---------------------------------------------------------------------------

    def _symmetry_group(self, symmetry: str, deadline: Deadline) -> SymmetryGroup:
        """Turns of the board; tiles are never flipped, so every element is proper and `unique`
        equals `rotations` (or `raw` with `symmetry: none`)."""
        # a way turned by e more quarter turns is its kind's way with turns + e (the first of its
        # kind's turns that shows the same labels)
        atoms = self.placements
        way_of = {(kind, shown): way for way, (kind, _, shown) in enumerate(atoms.ways)}
        turned_way = [
            [way_of[(index, turned(kind.edges, k))] for k in range(4)] for index, kind in enumerate(self.kinds)
        ]
        elements = []
        for board_turn in board_turns(self.columns, self.rows):
            deadline.check("turning the board")
            extra = board_turn.extra_turns
            way_after = np.array([turned_way[kind][(k + extra) % 4] for kind, k, _ in atoms.ways], np.int64)
            position_after = np.array(board_turn.positions, np.int64)
            atom_map = atoms.at[position_after[atoms.atom_position], way_after[atoms.atom_way]]
            elements.append(AtomSymmetry(tuple(atom_map.tolist()), proper=True))
        return SymmetryGroup(tuple(elements), unique_counts_raw=symmetry == "none")

    def _breaking_candidates(self) -> list[list[int]]:
        """Each place's atoms and each single tile's atoms: every solution holds one of each."""
        # grouped with arrays (a list per atom took 1.5 ms on the planted 8x8 board, 5,748 atoms);
        # the groups in the order their first atoms come, as the lists were; no np.unique, which
        # imports numpy.ma (6 ms)
        atom_way, atom_position = self.placements.atom_way, self.placements.atom_position
        atoms = np.arange(len(self.placements))
        place_starts = np.flatnonzero(np.diff(atom_position, prepend=-1))  # atoms come place by place
        places = atom_position[place_starts]
        by_position = np.split(atoms, place_starts[1:]) if len(atoms) else []
        kind_of_way = np.array([kind for kind, _, _ in self.placements.ways], np.int64)
        single = np.array([len(kind.lines) == 1 for kind in self.kinds], np.bool_)
        lone = atoms[single[kind_of_way[atom_way]]]
        lone_kinds = kind_of_way[atom_way[lone]]
        order = np.argsort(lone_kinds, kind="stable")
        kind_starts = np.flatnonzero(np.diff(lone_kinds[order], prepend=-1))
        by_kind = np.split(lone[order], kind_starts[1:]) if len(lone) else []
        kinds = lone_kinds[order][kind_starts]
        met = np.argsort([group[0] for group in by_kind], kind="stable")
        by_kind = [by_kind[k] for k in met.tolist()]
        self.breaking_labels = [f"place {position}" for position in places.tolist()] + [
            f"tile {self.kinds[kind].lines[0] + 1}" for kind in kinds[met].tolist()
        ]
        return [group.tolist() for group in (*by_position, *by_kind)]

    # -- output -----------------------------------------------------------------------------

    def layout(self, solution: Solution) -> list[tuple[int, int]]:
        """(line of the tile, its counter-clockwise turns) for each place, reading order.

        Copies of one kind are handed out centre first, then in reading order, each place taking
        the copy that needs the fewest turns (the lowest line among equals), so that a copy lies as
        written where it can, the centre above all (see `display_form`).
        """
        unused = {index: list(kind.lines) for index, kind in enumerate(self.kinds)}
        placed = sorted((self.placements[a] for a in solution), key=lambda a: (a.position != self.centre, a.position))
        result: dict[int, tuple[int, int]] = {}
        for atom in placed:
            copies = unused[atom.kind]
            line = min(copies, key=lambda line: (turns_between(self.tiles[line], atom.shown), line))
            copies.remove(line)
            result[atom.position] = (line, turns_between(self.tiles[line], atom.shown))
        return [result[position] for position in sorted(result)]

    @property
    def centre(self) -> int | None:
        """The place every turn of the board keeps, if there is one (odd square boards)."""
        if self.columns != self.rows or self.columns % 2 == 0:
            return None
        return len(self.tiles) // 2

    def display_form(self, solution: Solution) -> Solution:
        """The member of the solution's class that the c't program prints: the centre tile unturned
        (on a board with a centre place), else the canonical one."""
        centre = self.centre
        if centre is None:
            return solution
        images = {g.apply(solution) for g in self.group.elements}
        return min(images, key=lambda image: (self.layout(image)[centre][1], image))

    def describe(self, solution: Solution) -> dict[str, Any]:
        layout = self.layout(self.display_form(solution))
        places = [{"tile": line, "turns": k, "shown": list(turned(self.tiles[line], k))} for line, k in layout]
        return {"board": [places[row * self.columns : (row + 1) * self.columns] for row in range(self.rows)]}

    def render(self, solution: Solution) -> str:
        """The board with every edge label and the tile's 0-based index in its middle, then the
        c't program's grid: tile indexes | counter-clockwise quarter turns, row by row."""
        layout = self.layout(self.display_form(solution))
        width = max(len(str(label)) for tile in self.tiles for label in tile)
        width = max(width, len(str(len(self.tiles) - 1)))
        drawn_rows = []
        for row in range(self.rows):
            cells = [layout[row * self.columns + x] for x in range(self.columns)]
            shown = [turned(self.tiles[line], k) for line, k in cells]
            pad = " " * (width + 1)
            top = " | ".join(pad + str(s[TOP]).center(width) + pad for s in shown)
            middle = " | ".join(
                f"{str(s[LEFT]).rjust(width)} {str(line).center(width)} {str(s[RIGHT]).ljust(width)}"
                for s, (line, _) in zip(shown, cells, strict=True)
            )
            bottom = " | ".join(pad + str(s[BOTTOM]).center(width) + pad for s in shown)
            drawn_rows.append("\n".join(line.rstrip() for line in (top, middle, bottom)))
        rule = "-" * max(len(line) for block in drawn_rows for line in block.splitlines())
        index_width = len(str(len(self.tiles) - 1))
        grid = []
        for row in range(self.rows):
            cells = layout[row * self.columns : (row + 1) * self.columns]
            lines = " ".join(str(line).rjust(index_width) for line, _ in cells)
            grid.append(f"{lines} | {' '.join(str(k) for _, k in cells)}")
        return "\n".join([f"\n{rule}\n".join(drawn_rows), "", "tile index | counter-clockwise turns:", *grid])


class TilesBuilder(ModelBuilder):
    kind = "tiles"

    def build(self, loaded: LoadedSpec, options: BuildOptions, deadline: Deadline = NO_DEADLINE) -> PuzzleModel:
        assert isinstance(loaded.spec, TilesSpec)
        return TilesModel(loaded.spec, loaded.source, options, deadline)


def tiles_scene(
    model: PuzzleModel, solutions: Sequence[Solution], details: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    """The board's size, and per solution each place's tile, turns and four edge labels; a colour
    per label where labels match by being equal."""
    assert isinstance(model, TilesModel)
    labels = sorted({str(label) for tile in model.tiles for label in tile})
    drawn = [
        {"places": [place for row in model.describe(solution)["board"] for place in row]} for solution in solutions
    ]
    return {
        "board": [model.columns, model.rows],
        "match": model.match_kind,
        "label_colours": dict(zip(labels, palette(len(labels)), strict=True)),
        "solutions": drawn,
    }


FAMILY = Family("tiles", TilesSpec, TilesBuilder(), tiles_scene, drawing="tiles")
