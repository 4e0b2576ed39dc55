"""Hard designs in BurrTools' style, made here: copies of few shapes in a box with many variable
cells, written as `.xmpuzzle` and solved by burrTxt and cpsolve side by side.

Usage: python benchmarks/copies_designs.py [--out DIR] [--repeat N] [--limit S] [--burrtxt PATH]
       [--design NAME]...

Each design (DESIGNS below; `--design` picks some by name, also of HARD_DESIGNS) is made from its seed: `shapes` random
polycubes of `size` cubes each, grown face by face; `copies` copies of each put into the box one
after another, turned at random, each touching the ones before (the planted assembly); the
target's fixed cells are the planted cells less the `loose` planted cells farthest from the
box's centre, its variable cells (BurrTools' `+` voxels) those `loose` cells and the empty
cells that touch the planted ones, nearest the centre first, until there are `variable` of
them. So the pieces fill every fixed cell and `loose` of the variable ones in the planted
assembly, and leave the rest of the variable cells empty, as Simplicity's 18 pieces of 3 shapes
in 192 fixed and 160 variable cells of an 8x8x8 box do.

The designs are written to DIR (default: a temporary folder, removed afterwards) as YAML specs
converted to `.xmpuzzle` by cpsolve's own writer (`cpsolve convert`), then each program runs
the file as a fresh process N times (default 3): burrTxt (`-q`) as the corpus's table runs it
(benchmarks/burrtools_corpus.py), and `cpsolve run --json` with its default workers. The table
gives the assemblies each counts (BurrTools' own count against cpsolve's `unique`, or its
`burrtools_unique` where BurrTools' mirror rule differs), medians of the whole process's wall
time, cpsolve's `seconds` and the ratio burrTxt / cpsolve. A program
still running after --limit seconds (default 600) is stopped and shown as `>LIMIT`.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from cpsolve import peers
from cpsolve.convert import convert
from cpsolve.geometry import ROTATIONS, Cell, normalise, step

Box = tuple[int, int, int]


@dataclass(frozen=True)
class Design:
    """What a design is made of: `copies` copies of each of `shapes` shapes of `size` cubes."""

    name: str
    box: Box
    shapes: int
    copies: int
    size: int
    loose: int  # planted cells that are variable, not fixed
    variable: int  # variable cells in all
    seed: int


DESIGNS = (
    Design("copies-6x6x6-3x4-s7", (6, 6, 6), 3, 4, 7, 12, 48, 1),
    Design("copies-7x7x7-3x5-s8", (7, 7, 7), 3, 5, 8, 16, 80, 2),
    Design("copies-8x8x8-3x6-s10", (8, 8, 8), 3, 6, 10, 24, 120, 3),
    Design("copies-8x8x8-3x6-s12", (8, 8, 8), 3, 6, 12, 24, 160, 4),
    Design("copies-8x8x8-3x6-s8", (8, 8, 8), 3, 6, 8, 24, 120, 5),
)
# run only when named (--design): burrTxt was stopped after 1,200 s and 300 s on them
HARD_DESIGNS = (
    Design("copies-8x8x8-3x8-s7", (8, 8, 8), 3, 8, 7, 24, 120, 6),
    Design("copies-7x7x7-4x4-s7", (7, 7, 7), 4, 4, 7, 16, 80, 7),
)


def grown_shape(size: int, rng: random.Random) -> tuple[Cell, ...]:
    """A polycube of `size` cubes grown from one cube, each new cube beside one before, within a
    3x3x3 block where it fits (so that the shapes stay compact, as burr pieces are)."""
    limit = 3 if size <= 20 else 4
    cells = {(0, 0, 0)}
    while len(cells) < size:
        sides = sorted(
            {step(cell, d) for cell in cells for d in range(6)} - cells,
        )
        inside = [c for c in sides if all(0 <= c[axis] < limit for axis in range(3))]
        cells.add(rng.choice(inside or sides))
    return normalise(cells)


def planted(design: Design, rng: random.Random) -> tuple[list[tuple[Cell, ...]], set[Cell]] | None:
    """The shapes and the cells their copies fill in the planted assembly, or None where a copy
    found no room touching the others (the caller tries the next shapes)."""
    shapes = [grown_shape(design.size, rng) for _ in range(design.shapes)]
    if len({min(normalise(r.apply(c) for c in s) for r in ROTATIONS) for s in shapes}) < len(shapes):
        return None  # two shapes alike: they would be one shape with more copies
    filled: set[Cell] = set()
    for _ in range(design.copies):
        for shape in shapes:
            for _attempt in range(4000):
                turn = rng.choice(ROTATIONS)
                turned = normalise(turn.apply(c) for c in shape)
                high = [design.box[a] - max(c[a] for c in turned) for a in range(3)]
                if min(high) <= 0:
                    continue
                shift = [rng.randrange(h) for h in high]
                cells = {(c[0] + shift[0], c[1] + shift[1], c[2] + shift[2]) for c in turned}
                touches = not filled or any(step(c, d) in filled for c in cells for d in range(6))
                if not cells & filled and touches:
                    filled |= cells
                    break
            else:
                return None
    return shapes, filled


def spec_text(design: Design) -> tuple[str, int, int]:
    """The design as a YAML spec (its pieces with their counts, the target's fixed and variable
    cells), and how many fixed and variable cells it has."""
    rng = random.Random(design.seed)
    made = None
    while made is None:
        made = planted(design, rng)
    shapes, filled = made
    centre = [(side - 1) / 2 for side in design.box]

    def distance(cell: Cell) -> float:
        return sum((cell[a] - centre[a]) ** 2 for a in range(3)) + rng.random() * 1e-3

    loose = sorted(filled, key=distance)[len(filled) - design.loose :]
    every = {(x, y, z) for x in range(design.box[0]) for y in range(design.box[1]) for z in range(design.box[2])}
    around = sorted({step(c, d) for c in filled for d in range(6)} & (every - filled), key=distance)
    variable = sorted(set(loose) | set(around[: design.variable - design.loose]))
    fixed = sorted(filled - set(loose))
    lines = [
        f"name: {design.name}",
        "description: >",
        f"  {design.copies} copies of each of {design.shapes} shapes of {design.size} cubes in a"
        f" {'x'.join(map(str, design.box))} box: {len(fixed)} fixed and {len(variable)} variable cells"
        f" (benchmarks/copies_designs.py, seed {design.seed})",
        "pieces:",
    ]
    for number, shape in enumerate(shapes):
        lines.append(f"  {chr(ord('A') + number)}: {{cells: {_cells(shape)}, count: {design.copies}}}")
    lines += ["target:", f"  cells: {_cells(fixed)}", f"  optional: {_cells(variable)}"]
    return "\n".join(lines) + "\n", len(fixed), len(variable)


def _cells(cells: list[Cell] | tuple[Cell, ...]) -> str:
    return "[" + ", ".join(f"[{x}, {y}, {z}]" for x, y, z in cells) + "]"


def timed(command: list[str], limit: float) -> tuple[float | None, str]:
    """Wall seconds and standard output; None where the command ran past `limit`."""
    started = time.perf_counter()
    try:
        output = subprocess.run(command, capture_output=True, text=True, check=True, timeout=limit).stdout
    except subprocess.TimeoutExpired:
        return None, ""
    return time.perf_counter() - started, output


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="write the designs here and keep them")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--limit", type=float, default=600.0)
    parser.add_argument("--burrtxt", help="burrTxt's path (default: as `cpsolve bench --peers` finds it)")
    parser.add_argument("--design", action="append", help="only the design of this name (again for more)")
    arguments = parser.parse_args()
    burrtxt = arguments.burrtxt or peers.find(peers.BURRTOOLS)
    named = arguments.design or []
    chosen = [d for d in DESIGNS + HARD_DESIGNS if d.name in named or (not named and d in DESIGNS)]
    if not chosen or burrtxt is None:
        parser.error("no such design" if not chosen else "burrTxt is not built (../shared/peers/build.sh)")
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(arguments.out or scratch)
        folder.mkdir(parents=True, exist_ok=True)
        print(
            f"{'design':24} {'fixed':>5} {'var':>4} {'BurrTools':>9} {'cpsolve':>8}"
            f" {'burrTxt s':>10} {'cpsolve s':>10} {'seconds':>8} {'ratio':>7}"
        )
        for design in chosen:
            spec = folder / f"{design.name}.yaml"
            text, fixed, variable = spec_text(design)
            spec.write_text(text)
            puzzle = folder / f"{design.name}.xmpuzzle"
            convert(spec, puzzle)
            report(f"{design.name:24} {fixed:>5} {variable:>4}", puzzle, str(burrtxt), arguments)


def report(row: str, puzzle: Path, burrtxt: str, arguments: argparse.Namespace) -> None:
    """One design's row (which begins with `row`): both programs run `--repeat` times, medians."""
    ours: list[float] = []
    theirs: list[float] = []
    seconds: list[float] = []
    counted = assemblies = "?"
    for _ in range(arguments.repeat):
        command = [sys.executable, "-m", "cpsolve", "run", str(puzzle), "--json", "--show", "0"]
        wall, output = timed(command, arguments.limit)
        if wall is not None:
            data = json.loads(output)
            ours.append(wall)
            seconds.append(data["seconds"])
            counts = data["counts"]
            counted = str(counts.get("burrtools_unique", counts["unique"]))
        wall, output = timed([burrtxt, "-q", str(puzzle)], arguments.limit)
        if wall is not None:
            theirs.append(wall)
            found = re.search(r"(\d+) assemblies", output)
            assemblies = found.group(1) if found else "?"
    limit = f">{arguments.limit:.0f}"
    our_time = f"{statistics.median(ours):.3f}" if ours else limit
    their_time = f"{statistics.median(theirs):.3f}" if theirs else limit
    ratio = f"{statistics.median(theirs) / statistics.median(ours):.1f}x" if ours and theirs else "-"
    our_seconds = f"{statistics.median(seconds):.3f}" if seconds else limit
    print(
        f"{row} {assemblies:>9} {counted:>8} {their_time:>10} {our_time:>10} {our_seconds:>8} {ratio:>7}",
        flush=True,
    )


if __name__ == "__main__":
    main()
