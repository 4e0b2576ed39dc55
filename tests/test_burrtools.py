"""BurrTools files: the corpus counts, problems, bad files, writing, round trips, and BurrTools'
own solver reading what cpsolve writes (skipped where ../shared/peers/build.sh has not run)."""

from __future__ import annotations

import csv
import gzip
import json
import re
import subprocess
from pathlib import Path
from typing import Any
from unittest.mock import patch

import numpy as np
import pytest
import yaml
from conftest import SPECS, checked_run, corpus_dir, peer
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from cpsolve.cli import app
from cpsolve.convert import convert
from cpsolve.errors import SpecError
from cpsolve.formats import burrtools
from cpsolve.formats.base import PuzzleFile, ReadOptions
from cpsolve.formats.burrtools import Element, transformation_table
from cpsolve.geometry import Cell
from cpsolve.models import FAMILIES
from cpsolve.models.packing.puzzle import resolve
from cpsolve.run import RunOptions
from cpsolve.spec import CellRows, PackingSpec, Source

runner = CliRunner()


def corpus_rows() -> list[dict[str, str]]:
    with (corpus_dir("burrtools") / "counts.tsv").open() as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def cli(*arguments: str | Path) -> tuple[int, str]:
    result = runner.invoke(app, [str(a) for a in arguments])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.output


# -- reading --------------------------------------------------------------------------------------


@pytest.mark.parametrize("engine", ["exact-cover", "cpsat"])
def test_every_corpus_problem_gives_burrtools_assemblies(engine: str) -> None:
    rows = corpus_rows()
    assert len(rows) == 8
    for row in rows:
        path = corpus_dir("burrtools") / row["file"]
        report = checked_run(path, RunOptions(show=0, engine=engine, problem=row["problem"]))
        assert report.counts.unique == int(row["assemblies"]), row
        assert report.extra_counts == {}, row  # on the corpus BurrTools' mirror rule and cpsolve's agree


def test_the_stored_counts_with_mirror_images_kept_are_the_rotation_classes() -> None:
    """SolidSixPieceBurrs stores 1063 (saved with mirror images kept): cpsolve's `rotations`."""
    report = checked_run(corpus_dir("burrtools") / "SolidSixPieceBurrs.xmpuzzle")
    assert (report.counts.rotations, report.counts.unique) == (1063, 588)
    mirror = checked_run(corpus_dir("burrtools") / "DemoMirrorParadox.xmpuzzle", RunOptions(show=0, problem="0"))
    assert (mirror.counts.rotations, mirror.counts.unique) == (2, 1)  # "2 with mirror images kept"


def test_a_file_of_several_problems_gives_one_report_each() -> None:
    path = corpus_dir("burrtools") / "DemoMirrorParadox.xmpuzzle"
    code, output = cli("run", path, "--json")
    assert code == 0, output
    reports = [json.loads(line) for line in output.splitlines()]
    assert [r["problem"] for r in reports] == ["0", "1"]
    assert [r["counts"]["unique"] for r in reports] == [1, 1]
    code, output = cli("run", path, "--json", "--problem", "Another Example")
    assert code == 0 and json.loads(output)["counts"]["raw"] == 48
    code, output = cli("run", path, "--problem", "7")
    assert code == 2 and "no problem '7'; the file has: 0 'Example From Text', 1 'Another Example'" in output


def burr_file(tmp_path: Path, body: str, name: str = "bad.xmpuzzle", compress: bool = False) -> Path:
    path = tmp_path / name
    data = body.encode("latin-1")
    path.write_bytes(gzip.compress(data) if compress else data)
    return path


GOOD_SHAPES = '<voxel x="2" y="1" z="1" type="0">##</voxel><voxel x="2" y="2" z="1" type="0">####</voxel>'
GOOD_PROBLEM = '<problem><shapes><shape id="0" count="2"/></shapes><result id="1"/></problem>'


def puzzle_xml(shapes: str = GOOD_SHAPES, problem: str = GOOD_PROBLEM, head: str = "") -> str:
    return (
        f'<?xml version="1.0"?>\n<puzzle version="2">{head}<shapes>{shapes}</shapes>'
        f"<problems>{problem}</problems></puzzle>"
    )


def test_a_good_small_file_and_a_version_1_file(tmp_path: Path) -> None:
    for body in (puzzle_xml(), puzzle_xml().replace('version="2"', 'version="1"')):
        code, output = cli("run", burr_file(tmp_path, body, compress=True), "--json")
        assert code == 0 and json.loads(output)["counts"]["raw"] == 2, output


@pytest.mark.parametrize(
    ("body", "words"),
    [
        (puzzle_xml()[:-20], "not valid XML"),
        (puzzle_xml(shapes='<voxel x="2" y="1" z="1" type="0">###</voxel>'), "voxel string has more than x*y*z = 2"),
        (puzzle_xml(shapes='<voxel x="3" y="1" z="1" type="0">##</voxel>'), "voxel string has 2 voxels, but x*y*z = 3"),
        (puzzle_xml(shapes='<voxel x="2" y="1" z="1" type="0">#?</voxel>'), "unexpected character '?'"),
        (puzzle_xml(problem=GOOD_PROBLEM.replace('id="0"', 'id="5"')), "shape id 5 does not exist"),
        (puzzle_xml(problem='<problem><shapes/><result id="1"/></problem>'), "the problem has no pieces"),
        (puzzle_xml(problem=""), "the puzzle has no problems"),
        (puzzle_xml(head='<gridType type="7"/>'), '<gridType type="7">: BurrTools knows grids 0 to 4'),
        (puzzle_xml(head='<gridType type="2"/>'), "cells: cell [1, 0, 0] is not a cell of the sphere grid"),
        (puzzle_xml(shapes=GOOD_SHAPES.replace("##<", "#3#<")), "voxel colour 3: the puzzle defines 0 colours"),
        ('<?xml version="1.0"?><!DOCTYPE puzzle [<!ENTITY a "b">]><puzzle/>', "a document type declaration"),
        ('<?xml version="1.0"?><cube/>', "not a BurrTools puzzle"),
    ],
)
def test_bad_files_are_refused_with_the_line(tmp_path: Path, body: str, words: str) -> None:
    path = burr_file(tmp_path, body)
    code, output = cli("run", path)
    assert code == 2, output
    assert words in output and output.startswith(str(path))


def test_a_latin_1_file_that_says_so_is_read(tmp_path: Path) -> None:
    body = puzzle_xml().replace('<?xml version="1.0"?>', '<?xml version="1.0" encoding="ISO-8859-1"?>')
    body = body.replace("<shapes>", "<!-- caf\xe9 --><shapes>", 1)
    code, output = cli("run", burr_file(tmp_path, body), "--json")
    assert code == 0 and json.loads(output)["counts"]["raw"] == 2


def test_a_gzip_bomb_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "bomb.xmpuzzle"
    path.write_bytes(gzip.compress(puzzle_xml().encode() + b"<!--" + b" " * (20 * 2**20) + b"-->"))
    assert path.stat().st_size < 100_000
    code, output = cli("run", path)
    assert code == 2 and "decompresses to more than 8.0 MB" in output


# -- writing and round trips ----------------------------------------------------------------------

WRITABLE = ["soma", "cubissimo", "coffin", "foam_cube", "t_tetracubes_6x6x2"]
NOT_WRITABLE = {
    "foam_colours": "groups bound how many pieces of several shapes are used",
    "snake_standard": "BurrTools files hold packings, not chain",
    "tiles_bugs_3x3": "BurrTools files hold packings, not tiles",
}


@pytest.mark.parametrize("name", WRITABLE)
def test_shipped_specs_keep_their_counts_through_burrtools(tmp_path: Path, name: str) -> None:
    original = checked_run(SPECS / f"{name}.yaml")
    written = tmp_path / f"{name}.xmpuzzle"
    convert(SPECS / f"{name}.yaml", written)
    again = tmp_path / f"{name}.yaml"
    convert(written, again)
    for path in (written, again):
        assert checked_run(path).counts == original.counts


def test_a_round_trip_keeps_what_the_user_wrote(tmp_path: Path) -> None:
    """Soma through a .xmpuzzle and back: its name, description and expected counts (kept in the
    BurrTools comment), its box as a box, one-copy pieces without `count`: 23 lines, not 90."""
    written, back = tmp_path / "x.xmpuzzle", tmp_path / "back.yaml"
    convert(SPECS / "soma.yaml", written)
    convert(written, back)
    original, again = yaml.safe_load((SPECS / "soma.yaml").read_text()), yaml.safe_load(back.read_text())
    for field in ("name", "description", "expected", "target"):
        assert again[field] == original[field], field
    assert all("count" not in piece for piece in again["pieces"].values())
    assert len(back.read_text().splitlines()) <= 25
    report = checked_run(written)
    assert report.name == "Soma cube" and report.expected and not report.mismatches


def test_kept_fields_are_dropped_once_the_puzzle_is_changed(tmp_path: Path) -> None:
    """A file written with kept fields, then changed (a piece made optional, as an edit in
    BurrTools would): the stale name and expected counts no longer apply."""
    written = tmp_path / "x.xmpuzzle"
    convert(SPECS / "soma.yaml", written)
    text = gzip.decompress(written.read_bytes()).decode("utf-8")
    assert "cpsolve-spec: " in text
    changed = text.replace('<shape id="0" count="1"/>', '<shape id="0" min="0" max="1"/>')
    written.write_bytes(gzip.compress(changed.encode()))
    report = checked_run(written)
    assert report.name == "x: Soma cube" and report.expected == {}  # the file's own name for it


@pytest.mark.parametrize(("name", "words"), list(NOT_WRITABLE.items()))
def test_what_burrtools_cannot_say_is_refused(tmp_path: Path, name: str, words: str) -> None:
    code, output = cli("convert", SPECS / f"{name}.yaml", tmp_path / "out.xmpuzzle")
    assert code == 2 and words in output


def test_every_corpus_problem_keeps_its_counts_through_yaml(tmp_path: Path) -> None:
    for row in corpus_rows():
        path = corpus_dir("burrtools") / row["file"]
        original = checked_run(path, RunOptions(show=0, problem=row["problem"]))
        as_yaml = tmp_path / "problem.yaml"
        convert(path, as_yaml, row["problem"])
        back = tmp_path / "problem.xmpuzzle"
        convert(as_yaml, back)
        for converted in (as_yaml, back):
            assert checked_run(converted).counts == original.counts, row
    dracula = corpus_dir("burrtools") / "DraculasDentalDesaster.xmpuzzle"
    convert(dracula, tmp_path / "dracula.yaml")
    assert yaml.safe_load((tmp_path / "dracula.yaml").read_text())["colour_rule"] == [
        ["colour1", "colour1"],
        ["colour2", "colour2"],
    ]


def test_the_orientation_table_is_the_cube_groups() -> None:
    table = transformation_table()
    assert len(set(table)) == 48
    assert table[0] == ((1, 0, 0), (0, 1, 0), (0, 0, 1))
    determinants = [
        m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
        - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
        + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
        for m in table
    ]
    assert determinants == [1] * 24 + [-1] * 24


# -- BurrTools' own solver on what cpsolve writes -------------------------------------------------


def burrtools_assemblies(path: Path) -> int:
    output = subprocess.run([str(peer("burrTxt")), "-q", str(path)], capture_output=True, text=True, timeout=600)
    found = re.search(r"(\d+) assemblies", output.stdout)
    assert found, output.stdout + output.stderr
    return int(found.group(1))


@pytest.mark.parametrize("name", ["soma", "cubissimo", "coffin", "t_tetracubes_6x6x2"])
def test_burrtools_counts_what_cpsolve_writes_as_cpsolve_does(tmp_path: Path, name: str) -> None:
    path = tmp_path / f"{name}.xmpuzzle"
    convert(SPECS / f"{name}.yaml", path)
    assert burrtools_assemblies(path) == checked_run(SPECS / f"{name}.yaml").counts.unique


def test_burrtools_counts_the_mirror_paradox_as_cpsolve_says_it_would(tmp_path: Path) -> None:
    spec = tmp_path / "trap.yaml"
    spec.write_text(
        "pieces:\n"
        "  A: {cells: [[0,0,0],[1,0,0],[1,1,0],[0,0,1]], min: 0, max: 1}\n"
        "  B: {cells: [[1,0,0],[0,0,0],[0,1,0],[1,0,1]], min: 0, max: 2}\n"
        "  V: {cells: [[0,0,0],[1,0,0],[0,1,0]], min: 0, max: 4}\n"
        "  D: {cells: [[0,0,0],[1,0,0]], min: 0, max: 3}\n"
        "target: {box: [3, 2, 2]}\n"
    )
    report = checked_run(spec)
    path = tmp_path / "trap.xmpuzzle"
    convert(spec, path)
    assert report.counts.unique == 95
    assert burrtools_assemblies(path) == report.extra_counts["burrtools_unique"] == 56


def drawn_assemblies(path: Path) -> list[dict[tuple[int, int, int], str]]:
    """BurrTools' drawing of each saved assembly that comes apart: cell -> piece letter."""
    output = subprocess.run(
        [str(peer("burrTxt")), "-x", "-s", str(path)], capture_output=True, text=True, timeout=600
    ).stdout
    drawings: list[dict[tuple[int, int, int], str]] = []
    rows: list[str] = []
    for line in output.splitlines():
        if line.startswith(" !"):
            rows.append(line)
        elif line.startswith("level") and rows:
            cells = {}
            for y, row in enumerate(rows):
                for z, layer in enumerate(re.findall(r"!([^!]*)!", row)):
                    for x, letter in enumerate(layer):
                        if letter != " ":
                            cells[(x, y, z)] = letter
            drawings.append(cells)
            rows = []
    return drawings


@pytest.mark.parametrize(
    "spec",
    [
        "soma.yaml",
        "pieces:\n  L: {cells: [[0,0],[1,0],[0,1]], colours: {red: [[0, 0]]}}\n  I: {box: [2, 1], min: 0, max: 3}\n"
        "  U: {box: [1, 1], min: 0, max: 2}\ntarget:\n  layers: [['##+', '###']]\n  colours: {red: [[0, 0], [2, 1]]}\n"
        "colour_rule: [[red, red]]\nmax_holes: 1\n",
    ],
    ids=["soma", "colours and optional cells"],
)
def test_burrtools_reads_the_written_assemblies_cell_for_cell(tmp_path: Path, spec: str) -> None:
    source = SPECS / spec if spec.endswith(".yaml") else tmp_path / "puzzle.yaml"
    if not spec.endswith(".yaml"):
        source.write_text(spec)
    out, solutions = tmp_path / "solved.xmpuzzle", tmp_path / "solutions.jsonl"
    code, output = cli("run", source, "--xmpuzzle", out, "--solutions", solutions, "--show", "0")
    assert code == 0, output
    ours = [json.loads(line)["pieces"] for line in solutions.read_text().splitlines()]
    drawn = drawn_assemblies(out)
    assert len(drawn) == len(ours) > 0  # flat or cube-filling: every assembly comes apart
    for picture, pieces in zip(drawn, ours, strict=True):
        # both targets start at (0, 0, 0); letters follow the pieces in order, copies by their cells
        copies_in_order = [copy for copies in pieces.values() for copy in sorted(copies)]
        expected = {tuple(cell): chr(ord("a") + n) for n, copy in enumerate(copies_in_order) for cell in copy}
        assert picture == expected


@pytest.mark.parametrize(
    ("arguments", "solutions"),
    [
        ([], 0),  # solved, not taken apart: BurrTools counts solutions only when it disassembles
        (["--disassemble"], 1),  # one of the 96 assemblies comes apart
        (["--max-solutions", "3"], None),  # stopped: BurrTools keeps no count it did not finish
    ],
)
def test_a_written_file_says_the_problem_is_solved_as_burrtools_does(
    tmp_path: Path, arguments: list[str], solutions: int | None
) -> None:
    """BurrTools keeps a solved problem's counts with it and asserts that a problem whose saved
    solutions it lists is solved: `burrTxt -a s0` lists those that come apart."""
    out = tmp_path / "solved.xmpuzzle"
    code, output = cli("run", corpus_dir("burrtools") / "CubeInCage.xmpuzzle", "--xmpuzzle", out, *arguments)
    assert code == 0, output
    problem = re.search(r"<problem [^>]*>", gzip.decompress(out.read_bytes()).decode())
    assert problem is not None
    if solutions is None:
        assert 'state="0">' in problem.group(0)
        return
    assert f'state="2" assemblies="96" solutions="{solutions}"' in problem.group(0)
    listed = subprocess.run([str(peer("burrTxt")), "-a", "s0", str(out)], capture_output=True, text=True, timeout=60)
    assert listed.returncode == 0, listed.stderr
    assert len(re.findall(r"^\d{3}: ", listed.stdout, re.M)) == solutions


def test_converted_specs_write_shapes_as_layers_and_small_ones_as_cells(tmp_path: Path) -> None:
    """PelikanBurr as YAML: its cage, pieces and target as layers, a layer a line (59 lines; 880
    with one cell a line), the same counts; a piece of a few cells stays a list of cells, each cell
    on one line where the list is long (CubeInCage's frames: 532 lines with one coordinate a line)."""
    out = tmp_path / "pelikan.yaml"
    code, output = cli("convert", corpus_dir("burrtools") / "PelikanBurr.xmpuzzle", out)
    assert code == 0, output
    spec = yaml.safe_load(out.read_text())
    assert all("layers" in shape for shape in [*spec["pieces"].values(), spec["target"]])
    assert len(out.read_text().splitlines()) < 80
    assert checked_run(out).counts == checked_run(corpus_dir("burrtools") / "PelikanBurr.xmpuzzle").counts
    cage = tmp_path / "cage.yaml"
    code, output = cli("convert", corpus_dir("burrtools") / "CubeInCage.xmpuzzle", cage)
    assert code == 0, output
    lines = cage.read_text().splitlines()
    cells = [line for line in lines if line.lstrip().startswith("- [") and "'" not in line]
    assert all(re.fullmatch(r"\s*- \[-?\d+, -?\d+, -?\d+\]", line) for line in cells)
    assert len(lines) < 200


def test_a_file_of_several_problems_converts_whole_or_one_problem_at_a_time(tmp_path: Path) -> None:
    """DemoMirrorParadox's two problems: into a BurrTools file both, each with its counts; into
    YAML one, named by --problem, else refused in one line with the way out."""
    source = corpus_dir("burrtools") / "DemoMirrorParadox.xmpuzzle"
    whole = tmp_path / "both.xmpuzzle"
    code, output = cli("convert", source, whole)
    assert code == 0 and "2 problems" in output, output
    for problem in ("0", "1"):
        options = RunOptions(show=0, problem=problem)
        assert checked_run(whole, options).counts == checked_run(source, options).counts
    code, output = cli("convert", source, tmp_path / "one.yaml")
    assert code == 2 and "holds 2 problems and a YAML spec holds one: give --problem N" in output
    assert not (tmp_path / "one.yaml").exists()
    code, output = cli("convert", source, tmp_path / "one.yaml", "--problem", "1")
    assert code == 0, output
    assert checked_run(tmp_path / "one.yaml").counts == checked_run(source, RunOptions(show=0, problem="1")).counts


# -- every file BurrTools opens ----------------------------------------------------------------------

ALL_VARIABLE = (
    '<?xml version="1.0"?>\n<puzzle version="2"><gridType type="0"/><colors/><shapes>'
    '<voxel x="2" y="1" z="1" type="0">##</voxel><voxel x="3" y="2" z="1" type="0">++++++</voxel></shapes>'
    '<problems><problem name="all variable"><shapes><shape id="0" min="1" max="2"/></shapes><result id="1"/>'
    "<bitmap/></problem></problems></puzzle>\n"
)


@pytest.mark.parametrize("name", ["puzzle.xml", "puzzle", "puzzle.XML", "puzzle.dat"])
@pytest.mark.parametrize("compress", [False, True])
def test_burrtools_files_are_known_by_their_content_whatever_their_suffix(
    tmp_path: Path, name: str, compress: bool
) -> None:
    path = burr_file(tmp_path, ALL_VARIABLE, name, compress)
    code, output = cli("run", path)
    assert code == 0, output
    assert "counts: raw 18  rotations 8  unique 8" in output


def test_a_result_of_only_variable_voxels_is_a_target_burrtools_solves(tmp_path: Path) -> None:
    """Every cell may stay empty; one or two dominoes in a 3x2 of variable voxels: 8 assemblies,
    as burrTxt counts them."""
    path = burr_file(tmp_path, ALL_VARIABLE, "variable.xmpuzzle", compress=True)
    report = checked_run(path)
    assert (report.counts.raw, report.counts.unique) == (18, 8)
    output = subprocess.run([str(peer("burrTxt")), "-q", str(path)], capture_output=True, text=True, timeout=600)
    assert "8 assemblies" in output.stdout


def test_a_colour_pair_no_voxel_has_is_dropped_from_a_burrtools_file_and_refused_in_a_spec(tmp_path: Path) -> None:
    body = ALL_VARIABLE.replace(
        "<colors/>", '<colors><color red="1" green="0" blue="0"/><color red="0" green="0" blue="1"/></colors>'
    )
    body = body.replace("<bitmap/>", '<bitmap><pair piece="0" result="1"/></bitmap>')
    code, output = cli("run", burr_file(tmp_path, body, "unused.xmpuzzle"))
    assert code == 0 and "unique 8" in output, output
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        "pieces: {A: {cells: [[0, 0], [1, 0]], colours: {red: [[0, 0]]}}}\n"
        "target: {cells: [[0, 0], [1, 0]], colours: {red: [[0, 0]]}}\ncolour_rule: [[red, blue]]\n"
    )
    code, output = cli("run", spec)
    assert code == 2 and "colour_rule.0.1: colour 'blue' is on no target cell (target colours: red)" in output


def voxel_by_voxel(text: str, size: tuple[int, int, int], colours: int) -> tuple[object, ...] | str:
    """An independent reading of a coloured voxel string, one character at a time: (filled,
    variable, colours) or the words of the first problem met."""
    volume = size[0] * size[1] * size[2]
    filled: list[tuple[int, int, int]] = []
    variable: list[tuple[int, int, int]] = []
    colour: dict[tuple[int, int, int], int] = {}
    index, at = 0, 0
    while at < len(text):
        state = text[at]
        if state not in "#+_":
            return f"unexpected character {state!r}"
        if index >= volume:
            return f"more than x*y*z = {volume}"
        at += 1
        digits = ""
        while at < len(text) and text[at].isdigit() and text[at].isascii():
            digits += text[at]
            at += 1
        cell = (index % size[0], index // size[0] % size[1], index // (size[0] * size[1]))
        if digits:
            if len(digits) > 3 or not 0 < int(digits) <= min(colours, 63):
                return f"voxel colour {digits[:5]}: the puzzle defines {colours} colours"
            colour[cell] = int(digits)
        (filled if state == "#" else variable if state == "+" else []).append(cell)
        index += 1
    if index != volume:
        return f"has {index} voxels, but x*y*z = {volume}"
    return tuple(filled), tuple(variable), colour


VOXELS = ["#", "+", "_", "#1", "+2", "_3", "#0", "#9", "#0002", "#02", "_003", "#12", "x", " ", "7", "\u0663"]


@given(st.tuples(st.integers(1, 6), st.integers(1, 5), st.integers(1, 4)), st.sampled_from([0, 10**9]), st.data())
@settings(max_examples=200, deadline=None, database=None)
def test_plain_voxel_strings_read_as_voxel_by_voxel(
    size: tuple[int, int, int], arrays_from: int, data: st.DataObject
) -> None:
    """The reader of voxel strings without colours, by arrays (from 0 marked voxels) and by the
    regular expression (never by arrays), gives the filled and variable cells, in order, and the
    length errors that reading one character at a time gives."""
    volume = size[0] * size[1] * size[2]
    length = volume + data.draw(st.sampled_from([0, 0, 0, -1, 1]))
    text = "".join(data.draw(st.lists(st.sampled_from("#+_"), min_size=max(length, 0), max_size=max(length, 0))))
    element = Element("voxel", {"x": str(size[0]), "y": str(size[1]), "z": str(size[2])}, 7, text=text)
    expected = voxel_by_voxel(text, size, 0)
    try:
        with patch.object(burrtools, "ARRAY_VOXELS_FROM", arrays_from):
            shape = burrtools._voxels(element, 0, Path("p.xmpuzzle"))
    except SpecError as error:
        assert isinstance(expected, str) and "voxels" in str(error), (text, expected, str(error))
        return
    assert shape.voxels() == expected, text


@given(st.tuples(st.integers(1, 4), st.integers(1, 3), st.integers(1, 3)), st.integers(0, 3), st.data())
@settings(max_examples=300, deadline=None, database=None)
def test_coloured_voxel_strings_read_as_voxel_by_voxel(
    size: tuple[int, int, int], colours: int, data: st.DataObject
) -> None:
    """The coloured voxel reader (a well-formed string read as arrays, any other split by the
    regular expression engine for its first error) gives the cells, colours and first error that
    reading one character at a time gives."""
    volume = size[0] * size[1] * size[2]
    length = volume + data.draw(st.sampled_from([0, 0, 0, -1, 1, 2]))
    voxels = data.draw(st.lists(st.sampled_from(VOXELS), min_size=length, max_size=length))
    text = "#1" + "".join(voxels)  # a colour number: the coloured reader
    element = Element("voxel", {"x": str(size[0]), "y": str(size[1]), "z": str(size[2])}, 7, text=text)
    expected = voxel_by_voxel(text.strip(), size, colours)  # the reader strips the ends, as BurrTools
    try:
        shape = burrtools._voxels(element, colours, Path("p.xmpuzzle"))
    except SpecError as error:
        assert isinstance(expected, str) and expected in str(error), (text, expected, str(error))
        assert str(error).startswith("p.xmpuzzle:7: ")
        return
    assert shape.voxels() == expected, text


# -- the reader's arrays, from the voxel string to the model ---------------------------------------


def _spec_data(pieces: dict[str, Any], target: dict[str, Any]) -> dict[str, Any]:
    return {"name": "rows", "pieces": pieces, "target": target}


def _as_lists(value: Any) -> Any:
    """The same data with every reader's rows (`CellRows`) a plain list of lists."""
    if isinstance(value, dict):
        return {key: _as_lists(item) for key, item in value.items()}
    if isinstance(value, CellRows):
        return [list(cell) for cell in value]
    return value


cube_cells = st.lists(st.tuples(*[st.integers(0, 3)] * 3), min_size=1, max_size=12, unique=True)


@given(st.lists(cube_cells, min_size=1, max_size=3), st.data())
@settings(max_examples=60, deadline=None)
def test_a_readers_rows_make_the_model_that_lists_make(pieces: list[list[Cell]], data: st.DataObject) -> None:
    """A spec whose cells, optional cells and colours a reader gave as arrays (`CellRows`) is
    validated without a look at each cell, dumps as plain lists, and resolves to the puzzle the
    same spec written as lists resolves to (cells, colours, order)."""
    given: dict[str, Any] = {}
    for number, cells in enumerate(pieces):
        piece: dict[str, Any] = {"cells": CellRows.of(np.array(cells, np.int64))}
        coloured = data.draw(st.lists(st.sampled_from(cells), unique=True))
        if coloured:
            piece["colours"] = {"red": CellRows.of(np.array(coloured, np.int64))}
        given[f"P{number}"] = piece
    volume = sum(map(len, pieces))
    box = [(x, y, z) for z in range(4) for y in range(4) for x in range(8)][: volume + 2]
    target = {"cells": CellRows.of(np.array(box, np.int64)), "optional": CellRows.of(np.array(box[-2:], np.int64))}
    rows, lists = _spec_data(given, target), _as_lists(_spec_data(given, target))
    from_rows = FAMILIES.validate(rows, Source("rows.yaml"))
    from_lists = FAMILIES.validate(lists, Source("rows.yaml"))
    assert isinstance(from_rows.pieces["P0"].cells, CellRows)  # type: ignore[attr-defined]
    assert from_rows.model_dump(mode="json") == from_lists.model_dump(mode="json")
    assert resolve(from_rows, Source("rows.yaml")) == resolve(from_lists, Source("rows.yaml"))  # type: ignore[arg-type]


def test_rows_past_a_limit_are_validated_as_lists_with_their_error() -> None:
    """Rows a limit refuses (a coordinate past MAX_COORDINATE) give the error the same lists give."""
    far = np.array([[0, 0, 0], [0, 0, 2_000_000]], np.int64)
    errors = []
    for cells in (CellRows.of(far), far.tolist()):
        with pytest.raises(SpecError) as raised:
            FAMILIES.validate(_spec_data({"A": {"cells": cells}}, {"box": [2, 1, 1]}), Source("far.yaml"))
        errors.append(str(raised.value))
    assert errors[0] == errors[1] and "pieces.A.cells.1.2" in errors[0]


def test_a_burrtools_problem_hands_its_voxel_arrays_to_the_model() -> None:
    """DraculasDentalDesaster's pieces and result reach the spec as the reader's arrays, each
    colour's cells grouped as a voxel-by-voxel reading groups them (colours in the order their
    first cell comes); the content digest that guards the fields kept in a file's comment is the
    one BurrTools' shapes had when cells were tuples."""
    path = corpus_dir("burrtools") / "DraculasDentalDesaster.xmpuzzle"
    puzzle = burrtools.read_puzzle(PuzzleFile.read(path), ReadOptions())
    assert puzzle.content_digest() == "199b0f3e3cee8958"
    spec = burrtools.load(puzzle, 0, str(path)).spec
    assert isinstance(spec, PackingSpec)
    problem = puzzle.problems[0]
    for part, piece in zip(problem.parts, spec.pieces.values(), strict=True):
        filled, _, colour = puzzle.shapes[part.shape].voxels()
        assert isinstance(piece.cells, CellRows) and piece.cells == [list(cell) for cell in filled]
        grouped: dict[str, list[list[int]]] = {}
        for cell in filled:
            if colour.get(cell):
                grouped.setdefault(f"colour{colour[cell]}", []).append(list(cell))
        assert piece.colours == grouped and list(piece.colours) == list(grouped)
        assert all(isinstance(rows, CellRows) for rows in piece.colours.values())
    assert isinstance(spec.target.optional, CellRows) and spec.target.optional
