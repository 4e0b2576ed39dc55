"""Fuzzing every reader through the command line, in-process: thousands of generated and mutated
inputs, each must end in exit 0 with consistent counts, exit 1 only for a count that differs from
the spec's own `expected`, or exit 2 with one line per problem naming the file; never another
exception, and each within a time bound.

CPSOLVE_FUZZ_EXAMPLES sets the examples per test (default 120; docs/cli.md gives a longer run).
"""

from __future__ import annotations

import gzip
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from cpsolve.cli import app
from cpsolve.convert import packing_puzzle
from cpsolve.formats.burrtools import puzzle_xml
from cpsolve.models import FAMILIES
from cpsolve.spec import LoadedSpec, Source

EXAMPLES = int(os.environ.get("CPSOLVE_FUZZ_EXAMPLES", "120"))
SECONDS_PER_INPUT = 20.0  # the run's own limit is 2 s; reading, building and reporting fit well inside
FUZZ = settings(
    max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), derandomize=False, database=None
)
runner = CliRunner()

# -- what a run must end in -------------------------------------------------------------------------


def check_cli(text: str | bytes, suffix: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"input{suffix}"
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8", errors="surrogatepass")
        arguments = ["run", str(path), "--json", "--show", "0", "--time-limit", "2", "--max-placements", "20000"]
        started = time.perf_counter()
        result = runner.invoke(app, arguments)
        elapsed = time.perf_counter() - started
    assert result.exception is None or isinstance(result.exception, SystemExit), (text, result.exception)
    assert elapsed < SECONDS_PER_INPUT, (text, elapsed)
    assert "Traceback" not in result.output
    event(f"exit {result.exit_code}")
    if result.exit_code == 2:
        lines = [line for line in result.output.splitlines() if line]
        assert lines and all(line.startswith(str(path)) or line.startswith("{") for line in lines), (
            text,
            result.output,
        )
        return
    assert result.exit_code in (0, 1), (text, result.output)
    for line in result.output.splitlines():
        check_report(json.loads(line))


def check_report(data: dict[str, Any]) -> None:
    counts = data["counts"]
    assert 0 <= counts["rotations"] <= counts["raw"] and 0 <= counts["unique"] <= counts["raw"], data
    assert (counts["raw"] == 0) == (counts["rotations"] == 0) == (counts["unique"] == 0), data
    if data["complete"]:
        assert data["orbit_stabiliser_ok"] is True, data  # never a failed self-check
    assert data["matches_expected"] is not False or data["expected"], data


# -- what the inputs are made of --------------------------------------------------------------------

junk: st.SearchStrategy[Any] = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(10**40), 10**40),
        st.floats(allow_nan=True),
        st.text(max_size=8),
    ),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)


def maybe_junk(valid: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Mostly the valid value, sometimes anything at all."""
    return st.one_of(valid, valid, valid, valid, valid, valid, junk)


def spec(required: dict[str, st.SearchStrategy[Any]], optional: dict[str, st.SearchStrategy[Any]]) -> Any:
    return st.fixed_dictionaries(
        {key: maybe_junk(value) for key, value in required.items()},
        optional={**{key: maybe_junk(value) for key, value in optional.items()}, "bogus": junk},
    )


coordinate = st.integers(-3, 3)
cells = st.lists(st.lists(coordinate, min_size=2, max_size=3), min_size=1, max_size=6)
box = st.lists(st.integers(1, 4), min_size=2, max_size=3)
layers = st.lists(
    st.lists(st.text(alphabet="#.o X", min_size=1, max_size=4), min_size=1, max_size=3), min_size=1, max_size=2
)
ring = st.text(alphabet="01", min_size=16, max_size=16)
shape = st.one_of(
    st.fixed_dictionaries({"cells": maybe_junk(cells)}),
    st.fixed_dictionaries({"box": maybe_junk(box)}, optional={"hollow": st.booleans()}),
    st.fixed_dictionaries({"layers": maybe_junk(layers)}),
    st.fixed_dictionaries({"ring": maybe_junk(ring)}),
)
piece = shape.flatmap(
    lambda s: st.fixed_dictionaries(
        {key: st.just(value) for key, value in s.items()},
        optional={
            "count": maybe_junk(st.integers(1, 4)),
            "min": maybe_junk(st.integers(0, 3)),
            "max": maybe_junk(st.integers(0, 4)),
            "group": st.sampled_from(["g", "h"]),
        },
    )
)
names = st.text(alphabet="ABCDLTVZ[]1 s", min_size=1, max_size=3)
expected = st.fixed_dictionaries({}, optional={k: st.integers(0, 50) for k in ("raw", "rotations", "unique")})
symmetry = st.sampled_from(["all", "rotations", "none"])
group_bounds = st.fixed_dictionaries({}, optional={"min": st.integers(0, 2), "max": st.integers(0, 3)})
packing = spec(
    {"pieces": st.dictionaries(names, piece, min_size=1, max_size=4), "target": shape},
    {
        "name": st.text(max_size=10),
        "symmetry": symmetry,
        "parts": st.sampled_from(["together", "separately"]),
        "groups": st.dictionaries(st.sampled_from(["g", "h"]), group_bounds),
        "expected": expected,
        "grid": st.sampled_from(["cube", "prism", "sphere", "rhombic", "tetra-octa", "hex"]),
    },
)
chain = spec(
    {
        "kind": st.just("chain"),
        "chain": st.one_of(
            st.fixed_dictionaries({"segments": maybe_junk(st.lists(st.integers(1, 4), min_size=1, max_size=9))}),
            st.fixed_dictionaries({"joints": maybe_junk(st.text(alphabet="SCx ", max_size=12))}),
        ),
        "target": shape,
    },
    {"symmetry": symmetry, "expected": expected},
)
label = st.one_of(st.integers(-3, 3), st.sampled_from(["a", "b", "c"]))
tiles = spec(
    {
        "kind": st.just("tiles"),
        "board": st.lists(st.integers(1, 3), min_size=2, max_size=2),
        "tiles": st.lists(st.lists(label, min_size=3, max_size=5), min_size=1, max_size=9),
        "match": st.one_of(
            st.sampled_from(["sum-zero", "equal", "other"]),
            st.fixed_dictionaries({"pairs": st.lists(st.lists(label, min_size=2, max_size=2), max_size=3)}),
        ),
    },
    {"border": st.one_of(st.just("any"), label), "symmetry": symmetry, "expected": expected},
)


@st.composite
def carved_packing(draw: st.DrawFn) -> dict[str, Any]:
    """A box cut into random pieces: a valid puzzle with at least one solution."""
    size = draw(st.tuples(st.integers(1, 3), st.integers(1, 3), st.integers(1, 3)))
    box_cells = [[x, y, z] for z in range(size[2]) for y in range(size[1]) for x in range(size[0])]
    pieces_wanted = draw(st.integers(1, min(6, len(box_cells))))
    owner = draw(st.lists(st.integers(0, pieces_wanted - 1), min_size=len(box_cells), max_size=len(box_cells)))
    pieces: dict[str, Any] = {}
    for number in sorted(set(owner)):
        cells_of = [cell for cell, who in zip(box_cells, owner, strict=True) if who == number]
        pieces[f"P{number}"] = {"cells": cells_of}
    data: dict[str, Any] = {"pieces": pieces, "target": {"box": list(size)}}
    data["symmetry"] = draw(symmetry)
    if draw(st.booleans()):
        fixed_name = draw(st.sampled_from(sorted(pieces)))
        data["target"]["fixed"] = {fixed_name: pieces[fixed_name]["cells"]}
    if draw(st.booleans()):
        data["expected"] = draw(expected)
    return data


@st.composite
def fitting_chain(draw: st.DrawFn) -> dict[str, Any]:
    """Segments whose cubes make exactly the box's volume (folding them may still be impossible)."""
    size = draw(st.sampled_from([(2, 2, 1), (3, 2, 1), (2, 2, 2), (3, 3, 1), (3, 2, 2), (4, 2, 1), (3, 3, 2)]))
    volume = size[0] * size[1] * size[2]
    segments = [draw(st.integers(2, max(size)))]
    while sum(segments) - len(segments) + 1 < volume:
        segments.append(draw(st.integers(2, max(size))))
    segments[-1] -= sum(segments) - len(segments) + 1 - volume
    return {"kind": "chain", "chain": {"segments": segments}, "target": {"box": list(size)}, "symmetry": draw(symmetry)}


@st.composite
def solved_board(draw: st.DrawFn) -> dict[str, Any]:
    """Labels drawn on a solved board, then the tiles turned: at least one solution."""
    columns, rows = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    match = draw(st.sampled_from(["equal", "sum-zero"]))
    edge = st.integers(1, 3)
    grid = [[[0, 0, 0, 0] for _ in range(columns)] for _ in range(rows)]
    for y in range(rows):
        for x in range(columns):
            tile = grid[y][x]
            for side in range(4):
                tile[side] = draw(edge)
            if x:
                tile[3] = grid[y][x - 1][1] * (-1 if match == "sum-zero" else 1)
            if y:
                tile[0] = grid[y - 1][x][2] * (-1 if match == "sum-zero" else 1)
    turned = []
    for row in grid:
        for tile in row:
            k = draw(st.integers(0, 3))
            turned.append([tile[(side + k) % 4] for side in range(4)])
    return {"kind": "tiles", "board": [columns, rows], "tiles": draw(st.permutations(turned)), "match": match}


valid_specs = st.one_of(carved_packing(), fitting_chain(), solved_board())


@st.composite
def mutated(draw: st.DrawFn, text: str) -> str:
    """A few characters deleted, inserted or replaced anywhere in the text."""
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(text)))
        edit = draw(st.sampled_from(["delete", "insert", "replace"]))
        character = draw(st.sampled_from(list(":-[]{},&*!?#'\"\n\t 0123456789abc.")) | st.characters())
        if edit == "delete":
            text = text[:at] + text[at + 1 :]
        elif edit == "insert":
            text = text[:at] + character + text[at:]
        else:
            text = text[:at] + character + text[at + 1 :]
    return text


def dumped(data: Any) -> str:
    return yaml.safe_dump(data, allow_unicode=True, sort_keys=False)


# -- the tests ------------------------------------------------------------------------------------


@FUZZ
@given(st.one_of(valid_specs, packing, chain, tiles))
def test_generated_yaml_specs(data: Any) -> None:
    check_cli(dumped(data), ".yaml")


@FUZZ
@given(st.one_of(valid_specs, packing, chain, tiles).map(dumped).flatmap(mutated))
def test_mutated_yaml_specs(text: str) -> None:
    check_cli(text, ".yaml")


FIGURE_LINE = st.text(alphabet="o.  cpnztl3#X\t", max_size=7)


@FUZZ
@given(
    st.one_of(
        st.lists(FIGURE_LINE, max_size=14).map("\n".join),
        st.just("ooo\nooo\nooo\n\nooo\nooo\nooo\n\nooo\nooo\nooo\n").flatmap(mutated),
        st.binary(max_size=60),
    )
)
def test_yass_figures(text: str | bytes) -> None:
    check_cli(text, ".soma")


CT_WORD = st.one_of(st.integers(-9, 9).map(str), st.sampled_from(["--3", "+-3", "\u00b3", "x", "9" * 30, "\u0663"]))


@FUZZ
@given(
    st.one_of(
        st.lists(st.lists(CT_WORD, min_size=3, max_size=5).map(" ".join), min_size=7, max_size=11).map("\n".join),
        st.just("1 -1 2 -2\n0 1 0 -1\n2 2 -2 1\n" * 3).flatmap(mutated),
        st.binary(max_size=60),
    )
)
def test_ct_files(text: str | bytes) -> None:
    check_cli(text, ".txt")


@st.composite
def burrtools_files(draw: st.DrawFn) -> str:
    """A BurrTools puzzle: a few shapes (voxel strings, mostly of the right length), a problem."""
    colours = draw(st.integers(0, 2))
    shapes = []
    for _ in range(draw(st.integers(1, 4))):
        x, y, z = draw(st.integers(1, 3)), draw(st.integers(1, 3)), draw(st.integers(1, 2))
        length = x * y * z + draw(st.sampled_from([0, 0, 0, 0, -1, 1]))
        voxel = st.sampled_from(["#", "#", "+", "_", "#1", "#2", "+1", "x"])
        text = "".join(draw(st.lists(voxel, min_size=max(length, 0), max_size=max(length, 0))))
        shapes.append(f'<voxel x="{x}" y="{y}" z="{z}" type="0">{text}</voxel>')
    entries = []
    for _ in range(draw(st.integers(0, 3))):
        shape = draw(st.integers(0, len(shapes)))
        bounds = draw(
            st.sampled_from(['count="1"', 'count="2"', 'min="0" max="2"', 'min="2" max="1"', "", 'count="x"'])
        )
        entries.append(f'<shape id="{shape}" {bounds}/>')
    result = draw(st.integers(0, len(shapes)))
    pairs = "".join(
        f'<pair piece="{draw(st.integers(0, 2))}" result="{draw(st.integers(0, 2))}"/>'
        for _ in range(draw(st.integers(0, 2)))
    )
    holes = draw(st.sampled_from(["", ' maxHoles="0"', ' maxHoles="2"']))
    grid = draw(st.sampled_from(["", *(f'<gridType type="{number}"/>' for number in range(6))]))
    colour_list = "".join('<color red="1" green="2" blue="3"/>' for _ in range(colours))
    version = draw(st.sampled_from(["1", "2", "3"]))
    return (
        f'<?xml version="1.0"?>\n<puzzle version="{version}">{grid}<colors>{colour_list}</colors>'
        f"<shapes>{''.join(shapes)}</shapes><problems><problem{holes}><shapes>{''.join(entries)}</shapes>"
        f'<result id="{result}"/><bitmap>{pairs}</bitmap></problem></problems></puzzle>\n'
    )


def written_by_cpsolve(data: dict[str, Any]) -> str:
    """A valid BurrTools file: a carved packing written by cpsolve's writer."""
    data = {key: value for key, value in data.items() if key not in ("expected", "symmetry")}
    data["target"].pop("fixed", None)
    loaded = LoadedSpec(FAMILIES.validate(data, Source("carved.yaml")), Source("carved.yaml"))
    return puzzle_xml(packing_puzzle(loaded, "fuzzing"))


valid_burrtools = carved_packing().map(written_by_cpsolve)


@FUZZ
@given(st.one_of(burrtools_files(), valid_burrtools, valid_burrtools.flatmap(mutated)), st.booleans())
def test_burrtools_files(text: str, compress: bool) -> None:
    data = text.encode("utf-8", "surrogatepass")
    check_cli(gzip.compress(data) if compress else data, ".xmpuzzle")
