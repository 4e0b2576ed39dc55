"""cpsolve's counts against an independent brute-force counter, on puzzles that have traps."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from bruteforce import burrtools_unique, count
from conftest import checked_run

from cpsolve.run import RunOptions

SCREW = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 0, 1)]
SCREW_MIRROR = [(1, 0, 0), (0, 0, 0), (0, 1, 0), (1, 0, 1)]
V = [(0, 0, 0), (1, 0, 0), (0, 1, 0)]
L4 = [(0, 0, 0), (1, 0, 0), (2, 0, 0), (0, 1, 0)]
T4 = [(0, 0, 0), (1, 0, 0), (2, 0, 0), (1, 1, 0)]
DOMINO = [(0, 0, 0), (1, 0, 0)]


def box(x: int, y: int, z: int) -> list[tuple[int, int, int]]:
    return [(i, j, k) for i in range(x) for j in range(y) for k in range(z)]


# name -> (pieces: name -> (cells, least, most), target cells, symmetry)
CASES = {
    "chiral pair swapped by reflections": (
        {"A": (SCREW, 1, 1), "B": (SCREW_MIRROR, 1, 1), "D": (DOMINO, 2, 2), "V": (V, 0, 2)},
        box(2, 2, 3),
        "all",
    ),
    "ranges, mirror pair with equal bounds": (
        {"A": (SCREW, 0, 1), "B": (SCREW_MIRROR, 0, 1), "V": (V, 0, 4), "D": (DOMINO, 0, 3)},
        box(3, 2, 2),
        "all",
    ),
    "ranges, mirror pair with different bounds (BurrTools trap)": (
        {"A": (SCREW, 0, 1), "B": (SCREW_MIRROR, 0, 2), "V": (V, 0, 4), "D": (DOMINO, 0, 3)},
        box(3, 2, 2),
        "all",
    ),
    "chiral piece without its mirror": ({"A": (SCREW, 0, 2), "D": (DOMINO, 0, 6)}, box(2, 2, 3), "all"),
    "copies not told apart": ({"L": (L4, 2, 2), "D": (DOMINO, 2, 2)}, box(3, 2, 2), "all"),
    "rotations only": (
        {"A": (SCREW, 1, 1), "B": (SCREW_MIRROR, 1, 1), "V": (V, 0, 1), "D": (DOMINO, 0, 2)},
        box(3, 2, 2),
        "rotations",
    ),
    "no symmetry": ({"L": (L4, 1, 1), "V": (V, 1, 1), "D": (DOMINO, 1, 1)}, box(3, 3, 1), "none"),
    "18 T-tetracubes in 6x6x2": ({"T": (T4, 18, 18)}, box(6, 6, 2), "all"),
}


Pieces = dict[str, tuple[list[tuple[int, int, int]], int, int]]


def write_spec(tmp_path: Path, name: str, pieces: Pieces, target: list[tuple[int, int, int]], symmetry: str) -> Path:
    spec = {
        "name": name,
        "symmetry": symmetry,
        "pieces": {
            n: {"cells": [list(c) for c in cells], "min": lo, "max": hi} for n, (cells, lo, hi) in pieces.items()
        },
        "target": {"cells": [list(c) for c in target]},
    }
    path = tmp_path / "case.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("breaking", [True, False], ids=["breaking", "plain"])
def test_against_brute_force(tmp_path: Path, name: str, breaking: bool) -> None:
    pieces, target, symmetry = CASES[name]
    raw, rotations, unique = count(pieces, target, symmetry)
    assert raw > 0, "a case without solutions checks nothing"
    report = checked_run(
        write_spec(tmp_path, name, pieces, target, symmetry), RunOptions(show=0, symmetry_breaking=breaking)
    )
    assert report.counts.as_dict() == {"raw": raw, "rotations": rotations, "unique": unique}


def test_trap_case_is_a_real_trap() -> None:
    """With equal bounds a mirror merges classes; with different bounds it must not."""
    pieces, target, _ = CASES["ranges, mirror pair with equal bounds"]
    _, rotations, unique = count(pieces, target, "all")
    assert unique < rotations
    pieces, target, _ = CASES["ranges, mirror pair with different bounds (BurrTools trap)"]
    _, rotations, unique = count(pieces, target, "all")
    assert unique == rotations


def test_burrtools_mirror_rule_is_reported_beside_cpsolves(tmp_path: Path) -> None:
    """Where a chiral piece's partner has other bounds, cpsolve does not count reflections, but
    BurrTools merges a class with its mirror image whenever that image is a solution too."""
    pieces, target, symmetry = CASES["ranges, mirror pair with different bounds (BurrTools trap)"]
    for engine in ("cpsat", "exact-cover"):
        report = checked_run(write_spec(tmp_path, "trap", pieces, target, symmetry), RunOptions(show=0, engine=engine))
        assert report.counts.unique == count(pieces, target, symmetry)[2] == 95
        assert report.extra_counts == {"burrtools_unique": burrtools_unique(pieces, target)} == {"burrtools_unique": 56}
    pieces, target, symmetry = CASES["ranges, mirror pair with equal bounds"]
    report = checked_run(write_spec(tmp_path, "equal", pieces, target, symmetry))
    assert report.extra_counts == {}  # the rules agree: nothing more to report
    assert burrtools_unique(pieces, target) == report.counts.unique
