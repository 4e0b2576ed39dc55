"""`cpsolve convert PUZZLE OUT.dlx`: a packing's exact cover in Knuth's DLX input format.

Each written file is counted twice, independently of cpsolve's engines: by a small counter here
that reads the format as Knuth's programs do (item bounds `a:b|NAME`, secondary items after `|`),
and by Knuth's dlx1 or dlx3 themselves where ../shared/peers built them; both must give the run's
raw count, whose orbit-stabiliser identity the run checks.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import SPECS, built, checked_run, corpus_dir
from typer.testing import CliRunner

from cpsolve import peers
from cpsolve.cli import app
from cpsolve.formats import dlx
from cpsolve.models.packing import PackingModel

runner = CliRunner()

HOLES = """\
name: holes
pieces:
  L: {cells: [[0,0],[1,0],[0,1]], colours: {red: [[0,0]]}}
  I: {box: [2, 1], min: 0, max: 3}
  U: {box: [1, 1], min: 0, max: 2}
target:
  layers: [['##+', '###']]
  optional: [[2, 1]]
  colours: {red: [[0,0], [2,1]]}
colour_rule: [[red, red]]
max_holes: 1
"""
GROUPS = """\
name: groups
pieces:
  R: {box: [2, 1], min: 0, max: 2, group: red}
  B: {box: [2, 1], min: 0, max: 2, group: red}
  M: {box: [1, 1], min: 0, max: 4}
groups:
  red: {min: 1, max: 2}
target:
  box: [3, 2]
"""
PLACED = """\
name: placed
pieces:
  "a piece": {cells: [[0,0],[1,0],[0,1]]}
  "00": {box: [1, 1], count: 2}
  T: {cells: [[0,0],[1,0],[2,0],[1,1]]}
target:
  box: [3, 3]
  fixed:
    T: [[0,2],[1,2],[2,2],[1,1]]
"""
SPREAD = """\
name: spread
pieces:
  I: {box: [3, 1], count: 2}
target:
  cells: [[0,0],[1,0],[2,0],[40,0],[41,0],[42,0]]
parts: separately
"""
INLINE = {"holes": HOLES, "groups": GROUPS, "placed": PLACED, "spread": SPREAD}


@dataclass
class Cover:
    """A DLX file as Knuth's programs read it: primary items with their bounds, secondary items,
    and the options (sets of item names)."""

    bounds: dict[str, tuple[int, int]]
    secondary: set[str]
    options: list[list[str]]


def read_dlx(text: str) -> Cover:
    lines = [line for line in text.splitlines() if line.strip() and not line.startswith("|")]
    first, *rest = lines
    primary_part, _, secondary_part = f" {first} ".partition(" | ")
    bounds = {}
    for word in primary_part.split():
        given, _, name = word.rpartition("|")
        low, colon, high = given.partition(":")
        bounds[name] = (int(low), int(high) if colon else int(low)) if given else (1, 1)
        assert len(name) <= dlx.NAME_LENGTH and ":" not in name
    options = [line.split() for line in rest]
    assert all(set(option) <= set(bounds) | set(secondary_part.split()) for option in options)
    return Cover(bounds, set(secondary_part.split()), options)


def count_covers(cover: Cover) -> int:
    """Every set of options in which each primary item is used within its bounds and each
    secondary item at most once: the first primary item used exactly once that is still open is
    covered by each option that fits in turn (so each set is found once), then the options of
    bounded and secondary items alone are taken or left."""
    exact = [name for name, bound in cover.bounds.items() if bound == (1, 1)]
    used = dict.fromkeys([*cover.bounds, *cover.secondary], 0)
    most = {name: 1 for name in cover.secondary} | {name: high for name, (_, high) in cover.bounds.items()}

    def fits(option: list[str]) -> bool:
        return all(used[name] < most[name] for name in option)

    def take(option: list[str], step: int) -> None:
        for name in option:
            used[name] += step

    def rest(options: list[list[str]]) -> int:
        if not options:
            return int(all(used[name] >= low for name, (low, _) in cover.bounds.items()))
        first, others = options[0], options[1:]
        total = rest(others)
        if fits(first):
            take(first, 1)
            total += rest(others)
            take(first, -1)
        return total

    def covers() -> int:
        open_item = next((name for name in exact if used[name] == 0), None)
        if open_item is None:
            return rest([o for o in cover.options if not set(o) & set(exact) and fits(o)])
        total = 0
        for option in cover.options:
            if open_item in option and fits(option):
                take(option, 1)
                total += covers()
                take(option, -1)
        return total

    return covers()


def written(tmp_path: Path, source: Path) -> tuple[Path, int]:
    """The source converted to a DLX file, and the raw count of its run (identity checked)."""
    target = tmp_path / f"{source.stem}.dlx"
    result = runner.invoke(app, ["convert", str(source), str(target)])
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"{target}: Knuth's DLX input for ")
    cover = read_dlx(target.read_text())  # what the line says it holds is what the file holds
    items, secondary, options = (
        int(n.replace(",", "")) for n in re.findall(r"([\d,]+) (?:items?|secondary|options?)", result.output)
    )
    assert (items, secondary, options) == (
        len(cover.bounds) + len(cover.secondary),
        len(cover.secondary),
        len(cover.options),
    )
    return target, checked_run(source).counts.raw


def inline_spec(tmp_path: Path, name: str) -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(INLINE[name])
    return path


SHIPPED = ["soma.yaml", "coffin.yaml", "t_tetracubes_6x6x2.yaml", "foam_colours.yaml", "kanoodle_challenge.yaml"]


@pytest.mark.parametrize("name", sorted(INLINE))
def test_the_counter_here_counts_the_written_cover_as_the_run_counts_raw(tmp_path: Path, name: str) -> None:
    path, raw = written(tmp_path, inline_spec(tmp_path, name))
    assert raw > 0
    assert count_covers(read_dlx(path.read_text())) == raw


def test_what_each_feature_is_written_as(tmp_path: Path) -> None:
    """Ranges as bounds, a hole limit as a #holes item with each optional cell's own empty option,
    a group as an item in its pieces' options, a pre-placed piece's placement with an item of its
    own, names no item can have replaced (and said), cells named by their coordinates."""
    holes = read_dlx(written(tmp_path, inline_spec(tmp_path, "holes"))[0].read_text())
    assert holes.bounds["I"] == (0, 3) and holes.bounds["#holes"] == (0, 1) and not holes.secondary
    assert ["20", "#holes"] in holes.options and ["21", "#holes"] in holes.options
    groups = read_dlx(written(tmp_path, inline_spec(tmp_path, "groups"))[0].read_text())
    assert groups.bounds["#g0"] == (1, 2)
    assert all("#g0" in option for option in groups.options if option[0] in ("R", "B"))
    placed_file = written(tmp_path, inline_spec(tmp_path, "placed"))[0].read_text()
    placed = read_dlx(placed_file)
    assert "| #p0 = a piece" in placed_file and "| #p1 = 00" in placed_file  # "00" is a cell's name
    assert placed.bounds["#p1"] == (2, 2)
    assert [sorted(option) for option in placed.options if "#f0" in option] == [["#f0", "02", "11", "12", "22", "T"]]
    for name in sorted(INLINE):  # the nodes counted from the arrays are the file's
        model = built(inline_spec(tmp_path, name))
        assert isinstance(model, PackingModel)
        lines, held = dlx.dlx_lines(
            model.cover_problem(), model.puzzle.target, [p.name for p in model.puzzle.pieces], []
        )
        cover = read_dlx(b"".join(lines).decode())
        assert held.nodes == sum(map(len, cover.options)) and held.options == len(cover.options)
    spread = read_dlx(written(tmp_path, inline_spec(tmp_path, "spread"))[0].read_text())
    assert sorted(name for name in spread.bounds if name.startswith("c")) == [f"c{n}" for n in range(6)]


def test_refusals_name_the_file_and_the_way_out(tmp_path: Path) -> None:
    tiles = runner.invoke(app, ["convert", str(SPECS / "tiles_bugs_3x3.yaml"), str(tmp_path / "t.dlx")])
    assert tiles.exit_code == 2
    assert "tiles_bugs_3x3.yaml: a tiles puzzle is no exact cover; DLX files hold packings" in tiles.output
    several = corpus_dir("burrtools") / "DemoMirrorParadox.xmpuzzle"
    refused = runner.invoke(app, ["convert", str(several), str(tmp_path / "d.dlx")])
    assert refused.exit_code == 2
    assert "problems and a DLX file holds one: give --problem N" in refused.output
    assert not list(tmp_path.iterdir())
    one = runner.invoke(app, ["convert", str(several), str(tmp_path / "d.dlx"), "--problem", "1"])
    assert one.exit_code == 0, one.output


def knuth(program: str) -> Path | None:
    found = peers.find(program)
    if found is None and os.environ.get("CI") == "true":
        pytest.fail(f"{program} is not built (CI=true): bash ../shared/peers/build.sh DEST")
    return found


def knuth_count(program: Path, path: Path) -> int:
    """What Knuth's program prints as its count ("Altogether N solutions, ..." on stderr)."""
    done = subprocess.run([str(program)], stdin=path.open("rb"), capture_output=True, text=True, timeout=600)
    said = next(line for line in done.stderr.splitlines() if line.startswith("Altogether"))
    return int(said.split()[1])


@pytest.mark.parametrize(
    "name", [*SHIPPED, *(f"{name}.xmpuzzle" for name in ("CubeInCage", "DemoPieceGenerator", "AlPackino"))]
)
def test_knuths_programs_count_the_written_cover_as_the_run_counts_raw(tmp_path: Path, name: str) -> None:
    source = corpus_dir("burrtools") / name if name.endswith(".xmpuzzle") else SPECS / name
    path, raw = written(tmp_path, source)
    program = knuth("dlx3" if "for dlx3 or ssmcc" in path.read_text() else "dlx1")
    if program is None:
        pytest.skip("Knuth's programs are not built: bash ../shared/peers/build.sh DEST")
    assert knuth_count(program, path) == raw


@pytest.mark.parametrize("name", sorted(INLINE))
def test_dlx3_counts_the_inline_covers_as_the_run(tmp_path: Path, name: str) -> None:
    path, raw = written(tmp_path, inline_spec(tmp_path, name))
    program = knuth("dlx3")
    if program is None:
        pytest.skip("Knuth's programs are not built: bash ../shared/peers/build.sh DEST")
    assert knuth_count(program, path) == raw
