"""Symmetry breaking: which atoms a search may leave out, and what each enumerated solution
then stands for.

Every solution holds exactly one atom of an exactly-one set (one piece's placements); keeping only
one atom per orbit of the set under the symmetry group cuts the search by up to the group's order,
and the weights below say how many raw solutions each enumerated one stands for, so the counts
and their orbit-stabiliser check stay exact (cpsolve.counting).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import repeat
from typing import Any

import numpy as np

from .atoms import Solution, SymmetryGroup


@dataclass(frozen=True)
class Breaking:
    """Symmetry breaking by one or two exactly-one sets of atoms (say, two pieces' placements).

    In the first set only one atom per orbit of the subgroup K is allowed. When the first set's
    atom is r, the second set is cut the same way by the stabiliser of r (if that maps the second
    set onto itself). An enumerated solution with atoms r and b then stands for |K| / |Stab(r, b)|
    raw solutions (|K·r| with one set), so the weights of a class's enumerated members add up to
    its size (see Classifier).
    """

    first: frozenset[int]
    second: frozenset[int]
    forbidden: tuple[int, ...]
    forbidden_pairs: tuple[tuple[int, int], ...]
    weight: dict[tuple[int, int], int]

    @cached_property
    def digest(self) -> str:
        """A short hash of what the breaking leaves out, the same wherever it is computed (the id
        of a part of a split run holds it); computed once, however many parts share it."""
        cut = repr((sorted(self.first), self.forbidden_pairs)).encode()
        return hashlib.sha256(cut).hexdigest()[:8]

    def weight_of(self, solution: Solution) -> int:
        r = next(a for a in solution if a in self.first)
        b = next((a for a in solution if a in self.second), -1)
        return self.weight.get((r, b)) or self.weight[(r, -1)]

    def weights_of(self, atoms: Any) -> list[int]:
        """`weight_of` each row of an array of solutions of one length (solutions x atoms)."""
        rows = np.arange(atoms.shape[0])
        r = atoms[rows, self._first[np.minimum(atoms, len(self._first) - 1)].argmax(axis=1)]
        in_second = self._second[np.minimum(atoms, len(self._second) - 1)]
        b = np.where(in_second.any(axis=1), atoms[rows, in_second.argmax(axis=1)], -1)
        weight = self.weight
        pairs = zip(r.tolist(), b.tolist(), strict=True)
        return [weight.get((first, second)) or weight[(first, -1)] for first, second in pairs]

    @cached_property
    def kept_order(self) -> tuple[int, ...]:
        """The first set's atoms that weigh anything, in the order of `weight`: one part each."""
        return tuple(dict.fromkeys(r for r, _ in self.weight))

    @cached_property
    def kept_set(self) -> frozenset[int]:
        return frozenset(self.kept_order)

    @cached_property
    def forbidden_set(self) -> frozenset[int]:
        return frozenset(self.forbidden)

    @cached_property
    def paired(self) -> dict[int, frozenset[int]]:
        """The second set's atoms left out with each first atom (`forbidden_pairs`), by first atom."""
        paired: dict[int, set[int]] = {}
        for first, second in self.forbidden_pairs:
            paired.setdefault(first, set()).add(second)
        return {first: frozenset(seconds) for first, seconds in paired.items()}

    @cached_property
    def _first(self) -> Any:
        """Which atoms are in the first set (the last entry, past them all, in none)."""
        return _members(self.first)

    @cached_property
    def _second(self) -> Any:
        return _members(self.second)

    @property
    def rank(self) -> tuple[int, float]:
        """Fewest kept atoms in the first set, then the smallest share retained.

        Measured on the Soma cube: the first set with the fewest orbits (the Z piece, 2) gave the
        fastest searches; the share retained alone picked a pair 4 times slower.
        """
        return len({r for r, _ in self.weight}), self.retained

    @property
    def retained(self) -> float:
        """The share of raw solutions left to enumerate, if they were spread evenly over atoms."""
        share_first = 1 / len(self.first)
        share_second = 1 / len(self.second) if self.second else 1.0
        return sum(share_first * (share_second if b != -1 else 1.0) for _, b in self.weight)


def _members(atoms: frozenset[int]) -> Any:
    """A look-up of membership: True at each atom of the set, and one False entry past the
    largest, where every larger atom is looked up."""
    lookup = np.zeros(max(atoms, default=-1) + 2, bool)
    lookup[list(atoms)] = True
    return lookup


@dataclass(frozen=True)
class Subgroup:
    """Some elements of a group: rows of its atom maps, kept as row numbers so that no copy of
    the maps is made (a tile board has 200,000 atoms and 500 candidate sets)."""

    maps: Any  # int64 array, one row per element of the whole group: the image of each atom
    rows: Any  # int64 array: the elements in this subgroup

    def __len__(self) -> int:
        return len(self.rows)

    def images(self, atoms: Any) -> Any:
        """Element x atom: the image of each atom under each element."""
        return self.maps[self.rows[:, None], np.asarray(atoms, np.int64)[None, :]]

    def keeping(self, mask: Any) -> Subgroup:
        return Subgroup(self.maps, self.rows[mask])

    def fixing(self, atom: int) -> Subgroup:
        """The stabiliser of an atom."""
        return self.keeping(self.maps[self.rows, atom] == atom)


def _positions(members: Any, values: Any) -> Any:
    """The position in `members` of each of the values (all of them members)."""
    order = np.argsort(members, kind="stable")
    return order[np.searchsorted(members[order], values)]


def _orbit_firsts(members: Any, subgroup: Subgroup) -> Any:
    """For each of the atoms (which the subgroup maps onto themselves), the position in `members`
    of the first atom of its orbit."""
    return _positions(members, subgroup.images(members)).min(axis=0)


def _orbits(atoms: Sequence[int], subgroup: Subgroup) -> dict[int, set[int]]:
    """Each orbit of the atoms under the subgroup (which maps them onto themselves), keyed by
    the first of its atoms in `atoms`.

    Candidates list their atoms in the order the guided search meets them, so the atom kept of
    each orbit is the one met first: the restriction then prunes at the top of the search tree
    (on the Soma cube, 7 times faster than keeping the lowest-numbered atom).
    """
    members = np.asarray(atoms, np.int64)
    firsts = _orbit_firsts(members, subgroup)
    orbits: dict[int, set[int]] = {}
    for first in _distinct(firsts):
        orbits[int(members[first])] = set(members[firsts == first].tolist())
    return orbits


def _distinct(positions: Any) -> list[int]:
    """The distinct values of an array of positions, ascending (np.unique would import numpy.ma, 6
    ms of a run)."""
    distinct: list[int] = np.flatnonzero(np.bincount(positions)).tolist()
    return distinct


def _preserving(subgroup: Subgroup, atoms: Sequence[int]) -> Subgroup:
    """The elements of the subgroup that map the atoms onto themselves: for a second set under a
    kept atom's stabiliser (`_SecondCut`), a few calls a breaking. The candidate first sets, a call
    each, are looked up in one table of places instead (`first_sets`; this way is the reference
    its test compares with).

    Where the atoms' numbers span little (a piece's placements), np.isin's table, as np.isin
    itself chooses; where they are spread (a tiles board's place: one atom in sixty), each image
    looked up in the sorted atoms, as np.isin's other way sorts with np.unique, which imports
    numpy.ma (6 ms of a run)."""
    members = np.asarray(atoms, np.int64)
    images = subgroup.images(members)
    low, high = int(members.min()), int(members.max())
    if high - low <= 6 * (images.size + members.size):  # np.isin's own rule for its table
        found = np.isin(images, members, kind="table")
    else:
        members = np.sort(members)
        found = members[np.searchsorted(members, images).clip(max=len(members) - 1)] == images
    return subgroup.keeping(found.all(axis=1))


SCAN_AT_MOST = 2_000  # images x atoms below which a list scan is cheaper than numpy's calls (~30 us)


def _first_atom_kept_by_two(subgroup: Subgroup, atoms: Sequence[int]) -> bool:
    """Whether at least two elements (the identity and another) map the set's first atom into the
    set: unless they do, no element but the identity maps the set onto itself. Scanned in the list
    where that is cheap: a tiles board's places are such sets (64 of the planted 8x8's 124
    candidates), and the whole test on each took 1.6 ms of its 0.02 s run."""
    if len(subgroup) * len(atoms) > SCAN_AT_MOST:
        return True
    images: list[int] = subgroup.maps[subgroup.rows, atoms[0]].tolist()
    return sum(image in atoms for image in images) >= 2


def _breaking(subgroup: Subgroup, first: Sequence[int], second: Sequence[int]) -> Breaking:
    forbidden: list[int] = []
    pairs: list[tuple[int, int]] = []
    weight: dict[tuple[int, int], int] = {}
    seconds = np.asarray(second, np.int64)
    # kept atoms with the same stabiliser cut the second set alike: worked out once per stabiliser
    # (SolidSixPieceBurrs' 62 kept atoms have 4 stabilisers: 8.9 -> 3.3 ms of its 0.07 s run)
    cuts: dict[tuple[int, ...], _SecondCut | None] = {}
    for rep, orbit in _orbits(first, subgroup).items():
        forbidden.extend(sorted(orbit - {rep}))
        stabiliser = subgroup.fixing(rep)
        key = tuple(stabiliser.rows.tolist())
        if key not in cuts:
            cuts[key] = _SecondCut.of(stabiliser, seconds, len(subgroup)) if second else None
        cut = cuts[key]
        if cut is None:
            weight[(rep, -1)] = len(orbit)
            continue
        weight.update(zip(zip(repeat(rep, len(cut.shares)), cut.kept, strict=True), cut.shares, strict=True))
        pairs.extend(zip(repeat(rep, len(cut.paired)), cut.paired, strict=True))
    return Breaking(frozenset(first), frozenset(second), tuple(forbidden), tuple(pairs), weight)


@dataclass(frozen=True)
class _SecondCut:
    """How the second set is cut under a kept atom's stabiliser: the atom kept of each of its
    orbits and the share of the group that keeps it, and the other atoms (left out with that
    kept atom: `Breaking.forbidden_pairs`)."""

    kept: list[int]
    shares: list[int]
    paired: list[int]

    @staticmethod
    def of(stabiliser: Subgroup, seconds: Any, order: int) -> _SecondCut | None:
        """None where the stabiliser does not map the second set onto itself (nothing to cut)."""
        if len(_preserving(stabiliser, seconds)) != len(stabiliser):
            return None
        firsts = _orbit_firsts(seconds, stabiliser)
        fixing = (stabiliser.images(seconds) == seconds).sum(axis=0)  # elements that keep each atom
        positions = _distinct(firsts)  # each orbit's first atom
        paired = np.sort(seconds[firsts != np.arange(len(seconds))])
        return _SecondCut(seconds[positions].tolist(), (order // fixing[positions]).tolist(), paired.tolist())


def _acts_freely(subgroup: Subgroup, atoms: Sequence[int]) -> bool:
    """No element but the identity keeps any of the atoms in place."""
    members = np.asarray(atoms, np.int64)
    images = subgroup.images(members)
    identity = (subgroup.maps[subgroup.rows] == np.arange(subgroup.maps.shape[1])).all(axis=1)
    return not (images[~identity] == members).any()


@dataclass(frozen=True)
class FirstSet:
    """A candidate first breaking set: the atoms, the subgroup K that maps it onto itself, and
    the atom kept of each orbit under K (the parts a broken search splits into)."""

    index: int  # which of the model's candidates
    atoms: tuple[int, ...]
    subgroup: Subgroup
    kept: tuple[int, ...]


def first_sets(group: SymmetryGroup, candidates: Sequence[Sequence[int]]) -> list[FirstSet]:
    """Every candidate that some symmetry maps onto itself, fewest kept atoms first. Each
    candidate's images are looked up in one table of the atoms' places in it (which images lie in
    the candidate, and each orbit's first atom), not sorted and searched as `_preserving` and
    `_orbit_firsts` do: PiecesOfEight's 8 pieces 1.0-1.6 -> 0.4 ms, HexSticks' 32 cell sets
    1.2-2.2 -> 0.6-1.0 ms, the Eternity 16x16 board's 506 sets 112 -> 70 ms.

    K is the subgroup of G that keeps every solution a solution (all of G, or its proper
    elements when parts are mirrored separately) and maps the candidate onto itself (a mirror
    maps a chiral piece onto its partner; reading a chain backwards moves its first cube to the
    last). A piece with no placement at all leaves no solution to break: it is never a set.
    """
    every = np.arange(group.order)
    valid_keeping = Subgroup(group.maps, every if group.is_valid is None else every[group.proper])
    place = np.full(group.maps.shape[1], -1, np.int64)  # each atom's place in the candidate at hand
    options = []
    for index, first in enumerate(candidates):
        if not first or not _first_atom_kept_by_two(valid_keeping, first):
            continue
        members = np.asarray(first, np.int64)
        place[members] = np.arange(len(members))
        at = place[valid_keeping.images(members)]  # element x atom: the image's place, -1 outside
        place[members] = -1
        keeps = (at >= 0).all(axis=1)  # the elements that map the candidate onto itself
        if int(keeps.sum()) >= 2:
            kept = members[_distinct(at[keeps].min(axis=0))]  # each orbit's atom met first
            options.append(FirstSet(index, tuple(first), valid_keeping.keeping(keeps), tuple(kept.tolist())))
    return sorted(options, key=lambda option: len(option.kept))


def choose_breaking(
    group: SymmetryGroup, candidates: Sequence[Sequence[int]], firsts: Sequence[FirstSet] | None = None
) -> Breaking | None:
    """Symmetry breaking by the first set among `firsts` (default: `first_sets`) with the fewest
    kept atoms, measured best when nothing better is known, and the second candidate set that
    cuts most with it; None when no set can break."""
    options = list(firsts) if firsts is not None else first_sets(group, candidates)
    if not options:
        return None
    fewest = min(len(option.kept) for option in options)
    seconds = _SecondSets.of(candidates, group.maps.shape[1])
    best: tuple[float, FirstSet, int | None] | None = None
    for option in (o for o in options if len(o.kept) == fewest):  # rank is decided by the first set first
        others = [other for other in range(len(candidates)) if other != option.index]
        if _acts_freely(option.subgroup, option.atoms):
            others = []  # no first atom is kept by any element: nothing left for a second set to cut
        shares = _shares(option, _Stabilisers.of(option), seconds, others)
        for second, share in zip([None, *others], shares, strict=True):  # None: no second set
            if best is None or share < best[0] - 1e-12:  # a tie keeps the earlier, simpler choice
                best = (share, option, second)
    assert best is not None
    _, option, second = best
    return _breaking(option.subgroup, option.atoms, [] if second is None else candidates[second])


@dataclass(frozen=True)
class _Stabilisers:
    """The stabilisers of a first set's kept atoms, their elements' rows one after another
    (`starts`: where each kept atom's begin), so that every second set is weighed against all
    of them at once: HexSticks' 32 cell sets, each against every other, took 0.3 s one
    stabiliser at a time."""

    maps: Any
    rows: Any
    starts: Any
    # the same without the identity, which keeps every set whole and every atom in its own place:
    # the kept atoms (their numbers in `kept`) whose stabiliser has another element, those
    # elements one kept atom's after another, and where each kept atom's begin
    moving: Any
    moving_rows: Any
    moving_starts: Any

    @staticmethod
    def of(option: FirstSet) -> _Stabilisers:
        maps, subgroup = option.subgroup.maps, option.subgroup.rows
        rows = [option.subgroup.fixing(rep).rows for rep in option.kept]
        starts = np.cumsum([0, *(len(part) for part in rows[:-1])])
        identity = np.zeros(len(maps), bool)  # by the group's element
        identity[subgroup] = (maps[subgroup] == np.arange(maps.shape[1])).all(axis=1)
        others = [part[~identity[part]] for part in rows]
        moving = np.array([number for number, part in enumerate(others) if len(part)], np.int64)
        moved = [others[number] for number in moving.tolist()]
        moving_starts = np.cumsum([0, *(len(part) for part in moved[:-1])])
        moving_rows = np.concatenate(moved) if moved else np.zeros(0, np.int64)
        return _Stabilisers(maps, np.concatenate(rows), starts, moving, moving_rows, moving_starts)


SHARES_AT_ONCE = 4_000_000  # entries of the tables `_shares` makes to weigh every second set at once


@dataclass(frozen=True)
class _SecondSets:
    """Every candidate's atoms side by side, and a table of each atom's place in each set: what
    `_shares` looks the stabilisers' images up in, made once for all first sets (HexSticks' 26
    first sets made it anew each: a sixth of the choice's time under the line profiler)."""

    candidates: Sequence[Sequence[int]]
    number: list[int | None]  # each candidate's column block (None: an empty candidate)
    lengths: Any
    starts: Any  # where each set's atoms begin
    set_of: Any  # each column's set
    position: Any  # each column's place in its own set
    everyone: Any  # each column's atom
    where: Any  # set x atom: the atom's place in the set, -1 where it is not in it

    @staticmethod
    def of(candidates: Sequence[Sequence[int]], atoms: int) -> _SecondSets:
        sets = [np.asarray(candidate, np.int64) for candidate in candidates if candidate]
        numbers = iter(range(len(sets)))
        number = [next(numbers) if candidate else None for candidate in candidates]
        lengths = np.array([len(atoms_of) for atoms_of in sets], np.int64)
        starts = np.cumsum(lengths) - lengths
        set_of = np.repeat(np.arange(len(sets)), lengths)
        position = np.arange(int(lengths.sum())) - np.repeat(starts, lengths)
        everyone = np.concatenate(sets) if sets else np.zeros(0, np.int64)
        too_big = len(sets) * atoms > SHARES_AT_ONCE  # a tiles board's 500 sets of 200,000 atoms
        where = np.full((0 if too_big else len(sets), atoms), -1, np.int64)
        if not too_big:
            where[set_of, everyone] = position
        return _SecondSets(candidates, number, lengths, starts, set_of, position, everyone, where)

    def at_once(self, rows: int) -> bool:
        """Whether every set is weighed at once against `rows` stabiliser elements."""
        return len(self.where) == len(self.lengths) and rows * len(self.everyone) <= SHARES_AT_ONCE


def _shares(option: FirstSet, stabilisers: _Stabilisers, seconds: _SecondSets, others: Sequence[int]) -> list[float]:
    """`_retained` of breaking by `option` alone, then with each of the candidates `others` as
    the second set (an empty one: as alone), every set weighed at once: each image looked up in
    the table of every set's atoms. HexSticks' 26 first sets of 8 kept atoms against its 32 cell
    sets, one second set at a time, took 0.02 of its run's 0.1 s (832 rounds of numpy's calls on
    a few hundred numbers). Where the tables would be large, one set at a time."""
    alone = len(option.kept) / len(option.atoms)
    if not others:
        return [alone]
    if not seconds.at_once(len(stabilisers.rows)):
        return [alone, *(_retained(option, stabilisers, seconds.candidates[other]) for other in others)]
    # a kept atom whose stabiliser is the identity alone keeps each set whole, each atom its own
    # orbit: 1.0 (as `_retained` works it out); the others from their other elements (SolidSix's
    # 62 kept atoms: 46 rows of 108, HexSticks' 8: 1 of 9)
    per_set = np.ones((len(option.kept), len(seconds.lengths)))
    if len(stabilisers.moving):
        images = stabilisers.maps[stabilisers.moving_rows[:, None], seconds.everyone[None, :]]
        at = seconds.where[seconds.set_of[None, :], images]  # the elements x atoms of all sets
        inside = np.logical_and.reduceat(at >= 0, stabilisers.moving_starts, axis=0)  # kept atom x atoms
        whole = np.logical_and.reduceat(inside, seconds.starts, axis=1)  # kept first atom x set
        # each atom's orbit's first place: the identity leaves it in its own
        firsts = np.minimum(np.minimum.reduceat(at, stabilisers.moving_starts, axis=0), seconds.position)
        orbits = np.add.reduceat(firsts == seconds.position, seconds.starts, axis=1)
        per_set[stabilisers.moving] = np.where(whole, orbits / seconds.lengths, 1.0)
    # summed per set as `_retained` sums (one set's values in a contiguous row: numpy's pairwise
    # sum along it), so that the shares are equal
    per_set = np.ascontiguousarray(per_set.T)
    shares: list[float] = (per_set.sum(axis=1) / len(option.atoms)).tolist()
    by_candidate = [alone if number is None else shares[number] for number in seconds.number]
    return [alone, *(by_candidate[other] for other in others)]


def _retained(option: FirstSet, stabilisers: _Stabilisers, second: Sequence[int]) -> float:
    """`Breaking.retained` of breaking by `option` and `second`, without building the breaking:
    for each kept first atom, the share of the second set's orbits under its stabiliser (1 where
    the stabiliser does not map the second set onto itself)."""
    if not second:
        return len(option.kept) / len(option.atoms)
    seconds = np.asarray(second, np.int64)
    position = np.full(int(seconds.max()) + 2, -1, np.int64)  # the last entry: every larger atom
    position[seconds] = np.arange(len(seconds))
    images = stabilisers.maps[stabilisers.rows[:, None], seconds[None, :]]
    at = position[np.minimum(images, len(position) - 1)]  # -1: an image outside the second set
    whole = np.logical_and.reduceat((at >= 0).all(axis=1), stabilisers.starts)
    firsts = np.minimum.reduceat(at, stabilisers.starts, axis=0)  # each atom's orbit's first position
    orbits = (firsts == np.arange(len(seconds))).sum(axis=1)
    return float(np.where(whole, orbits / len(seconds), 1.0).sum()) / len(option.atoms)
