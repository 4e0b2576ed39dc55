"""Snake cubes: counts against an independent fold-by-brute-force, notations, bad input."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from chain_bruteforce import count
from conftest import SPECS, checked_run
from typer.testing import CliRunner

from cpsolve.cli import app
from cpsolve.run import RunOptions
from cpsolve.spec import ChainShape

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


@pytest.mark.parametrize("name", list(CHAINS))
@pytest.mark.parametrize("breaking", [True, False], ids=["breaking", "plain"])
def test_against_brute_force(tmp_path: Path, name: str, breaking: bool) -> None:
    segments, size = CHAINS[name]
    raw, rotations, unique = count(segments, size)
    assert raw > 0
    report = checked_run(chain_spec(tmp_path, segments, size), RunOptions(show=0, symmetry_breaking=breaking))
    assert report.counts.as_dict() == {"raw": raw, "rotations": rotations, "unique": unique}


def test_shipped_palindrome_matches_brute_force() -> None:
    report = checked_run(SPECS / "snake_palindrome.yaml")
    assert report.counts.as_dict() == dict(
        zip(("raw", "rotations", "unique"), count([3, 2] * 8 + [3], (3, 3, 3)), strict=True)
    )


def test_joints_and_segments_are_the_same_chain(tmp_path: Path) -> None:
    segments = [3, 2, 2, 3, 2, 3, 2, 2, 3, 3, 2, 2, 2, 3, 3, 3, 3]
    joints = "".join("S" * (length - 2) + "C" for length in segments)[:-1]
    assert ChainShape(joints=joints).segment_lengths() == segments
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
