"""Planted packings (`cpsolve generate packing`): reproducible, the planted solution found, counts
equal to BurrTools' on the designs it makes, bad arguments refused."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml
from conftest import checked_run, peer
from typer.testing import CliRunner

from cpsolve import peers
from cpsolve.cli import app
from cpsolve.generate import PackingRequest, packing_spec_text, planted_packing
from cpsolve.geometry import connected_components

runner = CliRunner()
DESIGN = PackingRequest((4, 4, 4), pieces=6, shell=1, inside=3, colours=3, seed=2)


def test_a_generated_packing_is_reproducible_and_written_as_asked(tmp_path: Path) -> None:
    assert packing_spec_text(DESIGN) == packing_spec_text(DESIGN)
    assert packing_spec_text(DESIGN) != packing_spec_text(PackingRequest((4, 4, 4), 6, 1, 3, 3, seed=3))
    path = tmp_path / "design.yaml"
    arguments = ["--box", "4x4x4", "--pieces", "6", "--shell", "1", "--inside", "3", "--colours", "3", "--seed", "2"]
    result = runner.invoke(app, ["generate", "packing", *arguments, "-o", str(path)])
    assert result.exit_code == 0, result.output
    assert path.read_text() == packing_spec_text(DESIGN)
    assert f"made by: {DESIGN.command()}" in path.read_text()
    assert DESIGN.command() == "cpsolve generate packing " + " ".join(arguments)


@pytest.mark.parametrize(
    "request_",
    [
        DESIGN,
        PackingRequest((5, 4, 3), pieces=7, seed=4),
        PackingRequest((6, 6, 6), pieces=9, shell=2, inside=5, seed=5),
        PackingRequest((7, 6, 1), pieces=6, shell=1, inside=6, colours=4, seed=2),
    ],
)
def test_the_planted_pieces_fill_the_shell_and_the_cells_grown_inside(request_: PackingRequest) -> None:
    pieces, reached = planted_packing(request_)
    cells = [cell for piece in pieces for cell in piece]
    shell = {cell for cell in request_.cells if request_.on_shell(cell)}
    assert len(cells) == len(set(cells)) and set(cells) == shell | reached  # each cell once
    assert len(reached) == request_.inside and not reached & shell
    assert len(pieces) == request_.pieces and all(len(connected_components(piece)) == 1 for piece in pieces)
    report = checked_run(_written(request_, Path(os.environ.get("TMPDIR", "/tmp"))))
    assert report.counts.raw >= 1


def test_a_flat_design_has_its_rim_for_a_shell_and_its_sides_for_faces() -> None:
    """A box one cell thick is a 2-D design: its rim must be filled and its middle may stay
    empty (the faces of the thin side would make every cell a shell cell), and the rim's cells
    take the colours of the four sides."""
    flat = PackingRequest((7, 6, 1), pieces=6, shell=1, inside=6, colours=4, seed=2)
    rim = {(x, y, 0) for x in range(7) for y in range(6) if x in (0, 6) or y in (0, 5)}
    assert {cell for cell in flat.cells if flat.on_shell(cell)} == rim
    spec = yaml.safe_load(packing_spec_text(flat))
    assert len(spec["target"]["optional"]) == 7 * 6 - len(rim)
    sides = {
        "c0": {(0, y, 0) for y in range(1, 5)},
        "c1": {(6, y, 0) for y in range(1, 5)},
        "c2": {(x, 0, 0) for x in range(7)},
        "c3": {(x, 5, 0) for x in range(7)},
    }
    sides["c0"] |= {(0, 0, 0), (0, 5, 0)}  # a corner is as near to two sides: the lower-numbered one
    sides["c1"] |= {(6, 0, 0), (6, 5, 0)}
    sides["c2"] -= sides["c0"] | sides["c1"]
    sides["c3"] -= sides["c0"] | sides["c1"]
    coloured = {name: {tuple(cell) for cell in cells} for name, cells in spec["target"]["colours"].items()}
    assert coloured == sides


def _written(request_: PackingRequest, folder: Path) -> Path:
    path = folder / f"planted-{os.getpid()}-{request_.seed}.yaml"
    path.write_text(packing_spec_text(request_))
    return path


def test_generated_designs_count_as_burrtools_counts(tmp_path: Path) -> None:
    """Colours, cells that may stay empty and pieces that reach into them: burrTxt's assemblies
    equal cpsolve's count on each design (written as BurrTools files, so that both count them)."""
    program = peer("burrTxt")
    os.environ.setdefault(peers.PEERS_ENV, str(program.parent))
    designs = [
        PackingRequest((4, 4, 4), pieces=10, shell=1, inside=4, seed=1),  # 10 unique, 240 raw
        PackingRequest((4, 4, 4), pieces=8, shell=1, inside=4, colours=2, seed=1),
        PackingRequest((4, 4, 4), pieces=8, shell=1, inside=4, colours=2, seed=2),
        PackingRequest((5, 5, 2), pieces=6, colours=2, seed=7),  # no shell: every cell coloured
        PackingRequest((7, 6, 1), pieces=6, shell=1, inside=6, colours=4, seed=2),  # flat: the rim is the shell
    ]
    paths = [tmp_path / f"design{number}.xmpuzzle" for number in range(len(designs))]
    for design, path in zip(designs, paths, strict=True):
        spec = path.with_suffix(".yaml")
        spec.write_text(packing_spec_text(design))
        converted = runner.invoke(app, ["convert", str(spec), str(path)])
        assert converted.exit_code == 0, converted.output
    result = runner.invoke(app, ["bench", *map(str, paths), "--engine", "exact-cover", "--peers", "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)["rows"]
    assert len(rows) == len(designs) and all(row["agree"] for row in rows)
    assert all(len(row["peers"]) == 1 and row["peers"][0]["count"] >= 1 for row in rows)
    assert rows[0]["peers"][0]["count"] == 10


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--box", "9by9", "--pieces", "3"], "--box must look like 9x9x9"),
        (["--box", "4x4x4", "--pieces", "3", "--shell", "1", "--inside", "9"], "only 8 cells inside its shell"),
        (["--box", "2x2x2", "--pieces", "9"], "--pieces must be 1 to 8"),
        (["--box", "4x4x4", "--pieces", "3", "--colours", "7"], "--colours must be 0 to 6"),
        (["--box", "40x40x40", "--pieces", "3"], "--box must have 1 to 32,768 cells"),
    ],
)
def test_bad_generate_packing_arguments(args: list[str], words: str) -> None:
    result = runner.invoke(app, ["generate", "packing", *args])
    assert result.exit_code == 2
    assert words in result.output
