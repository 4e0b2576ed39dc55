"""Snake cubes: counts against an independent fold-by-brute-force, notations, bad input."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from chain_bruteforce import count
from conftest import SPECS, built, checked_run, run_one
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from cpsolve import engines
from cpsolve.cli import app
from cpsolve.engines import SearchOptions, StopReason
from cpsolve.engines.chain_dfs import starts
from cpsolve.run import RunOptions
from cpsolve.spec import ChainShape
from cpsolve.symmetry import choose_breaking

runner = CliRunner()

CHAINS = {
    "standard snake": ([3, 2, 2, 3, 2, 3, 2, 2, 3, 3, 2, 2, 2, 3, 3, 3, 3], (3, 3, 3)),
    "palindrome 3,2,3,...": ([3, 2, 3, 2, 3, 2, 3, 2, 3, 2, 3, 2, 3, 2, 3, 2, 3], (3, 3, 3)),
    "all corners in 2x2x2 (palindrome)": ([2] * 7, (2, 2, 2)),
    "flat spiral 3x3": ([3, 3, 3, 2, 2], (3, 3, 1)),
}


def chain_spec(tmp_path: Path, segments: list[int], size: tuple[int, int, int], extra: str = "") -> Path:
    path = tmp_path / "chain.yaml"
    path.write_text(
        f"name: test chain\nkind: chain\nchain: {{segments: {segments}}}\ntarget: {{box: {list(size)}}}\n{extra}"
    )
    return path


@pytest.mark.parametrize("engine", ["cpsat", "chain-dfs"])
@pytest.mark.parametrize("name", list(CHAINS))
@pytest.mark.parametrize("breaking", [True, False], ids=["breaking", "plain"])
def test_against_brute_force(tmp_path: Path, name: str, breaking: bool, engine: str) -> None:
    segments, size = CHAINS[name]
    raw, rotations, unique = count(segments, size)
    assert raw > 0
    options = RunOptions(show=0, symmetry_breaking=breaking, engine=engine)
    report = checked_run(chain_spec(tmp_path, segments, size), options)
    assert report.engine == engine
    assert report.counts.as_dict() == {"raw": raw, "rotations": rotations, "unique": unique}


@st.composite
def chains_in_boxes(draw: st.DrawFn) -> tuple[list[int], tuple[int, int, int]]:
    """A small box and segments (2 to the box's longest side) that make a chain of its volume."""
    size = draw(st.sampled_from([(2, 2, 1), (3, 2, 1), (2, 2, 2), (3, 3, 1), (3, 2, 2), (4, 2, 1), (4, 3, 1)]))
    cubes = size[0] * size[1] * size[2]
    segments = [draw(st.integers(2, max(size)))]
    while sum(segments) - len(segments) + 1 < cubes:
        segments.append(draw(st.integers(2, max(size))))
    overshoot = sum(segments) - len(segments) + 1 - cubes
    segments[-1] -= overshoot
    assume(segments[-1] >= 2)
    return segments, size


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(chains_in_boxes(), st.booleans())
def test_chain_dfs_against_brute_force_on_random_chains(
    tmp_path: Path, chain: tuple[list[int], tuple[int, int, int]], breaking: bool
) -> None:
    segments, size = chain
    options = RunOptions(show=0, symmetry_breaking=breaking, engine="chain-dfs")
    report = checked_run(chain_spec(tmp_path, segments, size), options)
    assert report.counts.as_dict() == dict(zip(("raw", "rotations", "unique"), count(segments, size), strict=True))


@pytest.mark.parametrize(
    "name",
    [
        "snake_standard.yaml",
        "snake_second.yaml",
        "snake_palindrome.yaml",
        pytest.param("snake_king.yaml", marks=pytest.mark.slow),
        pytest.param("snake_4x4x4_second.yaml", marks=pytest.mark.slow),
    ],
)
def test_engines_agree_on_the_shipped_chains(name: str) -> None:
    cpsat = checked_run(SPECS / name, RunOptions(show=0, engine="cpsat"))
    walk = checked_run(SPECS / name, RunOptions(show=0, engine="chain-dfs"))
    assert walk.counts == cpsat.counts
    assert walk.mismatches == cpsat.mismatches == []
    assert walk.solutions_enumerated == cpsat.solutions_enumerated  # the same breaking, the same solutions


def test_engines_agree_on_a_target_that_is_not_a_box(tmp_path: Path) -> None:
    """A 3x3 square without a corner: the walk treats the missing cell as filled from the start."""
    path = tmp_path / "notch.yaml"
    path.write_text(
        'name: notch\nkind: chain\nchain: {segments: [3, 3, 2, 2, 2]}\ntarget: {layers: [["###", "###", "##."]]}\n'
    )
    cpsat = checked_run(path, RunOptions(show=0, engine="cpsat"))
    walk = checked_run(path, RunOptions(show=0, engine="chain-dfs"))
    assert walk.counts == cpsat.counts
    assert walk.counts.raw > 0


def test_chain_dfs_stops_at_the_time_limit_and_the_first_solution() -> None:
    # without symmetry breaking the walk over this snake takes far longer than the limit
    search = SearchOptions(time_limit=2.0)
    timed = run_one(SPECS / "snake_4x4x4_second.yaml", RunOptions(show=0, symmetry_breaking=False, search=search))
    assert (timed.engine, timed.complete, timed.stopped_by) == ("chain-dfs", False, StopReason.TIME_LIMIT)
    assert timed.seconds < 30  # the limit's promise, with a margin for a busy machine
    first = run_one(SPECS / "snake_king.yaml", RunOptions(show=0, search=SearchOptions(first_only=True)))
    assert (first.engine, first.stopped_by, first.solutions_enumerated) == ("chain-dfs", StopReason.FIRST_SOLUTION, 1)


def test_walk_starts_follow_the_breaking_and_the_checkerboard() -> None:
    puzzle = built(SPECS / "snake_standard.yaml")
    walk = puzzle.chain_walk()
    assert walk is not None
    every = starts(walk, None)
    # 27 cubes alternate colours: the first lies on one of the 14 cells of the corners' colour
    assert len(every) == 14 and all(sum(walk.cells[s.cell]) % 2 == 0 for s in every)
    breaking = choose_breaking(puzzle.group, puzzle.breaking_candidates)
    kept = {walk.cells[s.cell]: sum(s.first_directions) for s in starts(walk, breaking)}
    # one corner, one face centre (edge middles and the centre lie on the 13-cell colour); from the
    # corner its three ways out are one up to symmetry, from the face centre: along the face or off it
    assert kept == {(0, 0, 0): 1, (1, 1, 0): 2}


def test_chain_dfs_refuses_what_it_cannot_take(tmp_path: Path) -> None:
    big = chain_spec(tmp_path, [5] * 31, (5, 5, 5))  # 125 cells: more than one 64-bit board
    result = runner.invoke(app, ["run", str(big), "--engine", "chain-dfs"])
    assert result.exit_code == 2
    assert "the chain-dfs engine takes only chains whose target fits in a box of 64 cells" in result.output
    assert engines.DEFAULT.choose("auto", built(big)).name == "cpsat"


def test_shipped_palindrome_matches_brute_force() -> None:
    report = checked_run(SPECS / "snake_palindrome.yaml")
    assert report.counts.as_dict() == dict(
        zip(("raw", "rotations", "unique"), count([3, 2] * 8 + [3], (3, 3, 3)), strict=True)
    )


def test_joints_and_segments_are_the_same_chain(tmp_path: Path) -> None:
    segments = [3, 2, 2, 3, 2, 3, 2, 2, 3, 3, 2, 2, 2, 3, 3, 3, 3]
    joints = "".join("S" * (length - 2) + "C" for length in segments)[:-1]
    assert ChainShape(joints=joints, segments=None).segment_lengths() == segments
    path = tmp_path / "joints.yaml"
    path.write_text(f"name: joints\nkind: chain\nchain: {{joints: {joints}}}\ntarget: {{box: [3, 3, 3]}}\n")
    assert checked_run(path).counts.as_dict() == {"raw": 48, "rotations": 2, "unique": 1}


def test_path_output_is_a_chain(tmp_path: Path) -> None:
    out = tmp_path / "paths.jsonl"
    result = runner.invoke(app, ["run", str(SPECS / "snake_standard.yaml"), "--solutions", str(out)])
    assert result.exit_code == 0, result.output
    import json

    path = json.loads(out.read_text().splitlines()[0])["path"]
    assert sorted(map(tuple, path)) == [(x, y, z) for x in range(3) for y in range(3) for z in range(3)]
    assert all(sum(abs(a - b) for a, b in zip(p, q, strict=True)) == 1 for p, q in itertools.pairwise(path))


@pytest.mark.parametrize(
    ("chain", "words"),
    [
        ("{segments: [3, 3, 3]}", "chain.segments: the chain has 7 cubes but the target has 27 cells"),
        ("{segments: [3, 1, 3]}", "chain.segments.1: Input should be greater than or equal to 2"),
        ("{joints: SCXS}", "chain.joints: letters must be S (straight) or C (corner), found 'X'"),
        (
            "{joints: SCCS}",
            "chain.joints: 4 letters make a chain of 6 cubes; the target has 27 cells, so give 25 letters",
        ),
        ("{segments: [3], joints: S}", "give exactly one of segments, joints"),
        ("{segmnts: [3]}", "chain.segmnts: unknown field; did you mean 'segments'?"),
    ],
)
def test_bad_chain(tmp_path: Path, chain: str, words: str) -> None:
    spec = tmp_path / "bad.yaml"
    spec.write_text(f"name: bad\nkind: chain\nchain: {chain}\ntarget: {{box: [3, 3, 3]}}\n")
    result = runner.invoke(app, ["run", str(spec)])
    assert result.exit_code == 2, result.output
    assert words in result.output
    assert result.output.startswith(f"{spec}:3:")
