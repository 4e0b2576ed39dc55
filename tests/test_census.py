"""The census of chains: every chain that folds into a box, counted by one walk over the box's
paths, against an independent census (tests/chain_census_bruteforce.py), the per-chain brute force
(tests/chain_bruteforce.py) and `cpsolve run` on the chains themselves."""

from __future__ import annotations

import base64
import json
import random
from collections.abc import Iterable
from pathlib import Path

import pytest
from chain_bruteforce import count as folded
from chain_census_bruteforce import census as independent_census
from typer.testing import CliRunner

import cpsolve
from cpsolve.census import chains
from cpsolve.census.chains import CensusBox, ChainCount, Tally, box_for, census, chains_of, parts_of, walk_part
from cpsolve.cli import app
from cpsolve.errors import CpsolveError
from cpsolve.limits import Deadline
from cpsolve.spec import ChainShape

runner = CliRunner()


def as_table(chains: Iterable[ChainCount]) -> dict[str, tuple[int, int, int]]:
    return {chain.joints: (chain.raw, chain.rotations, chain.unique) for chain in chains}


def orbit_stabiliser_holds(box: CensusBox, chain: ChainCount) -> bool:
    """Each class has at most |G| foldings and at least |G| / 2 (one symmetry can map a
    palindromic folding onto itself read backwards), so raw lies within those bounds."""
    return chain.unique * box.group // 2 <= chain.raw <= chain.unique * box.group


@pytest.fixture(scope="module")
def cube() -> list[ChainCount]:
    report = census((3, 3, 3))
    assert report.complete and not report.identity_problems
    return list(report.chains())


@pytest.mark.parametrize("size", [(2, 2, 2), (2, 2, 3), (2, 2, 4), (2, 3, 3)])
def test_small_boxes_equal_the_independent_census(size: tuple[int, int, int]) -> None:
    report = census(size)
    assert report.complete and not report.identity_problems
    assert as_table(list(report.chains())) == independent_census(size)
    box = box_for(size)
    assert all(orbit_stabiliser_holds(box, chain) for chain in report.chains())


def test_every_chain_of_a_small_box_folds_as_the_brute_force_folds_it() -> None:
    for chain in census((2, 2, 4)).chains():
        segments = ChainShape.model_validate({"joints": chain.joints}).segment_lengths()
        assert folded(segments, (2, 2, 4)) == (chain.raw, chain.rotations, chain.unique), chain.joints


def test_the_3x3x3_census_has_the_published_chains_and_most_solutions(cube: list[ChainCount]) -> None:
    """11,487 chains and at most 142 solutions for one chain, as the published enumeration; the
    directed paths through the 3x3x3 box are 4,960,608 (each undirected path twice)."""
    assert len(cube) == 11_487
    assert max(chain.unique for chain in cube) == 142
    assert sum(chain.unique == 1 for chain in cube) == 3_658
    assert all(orbit_stabiliser_holds(box_for((3, 3, 3)), chain) for chain in cube)
    assert census((3, 3, 3)).paths == 4_960_608
    assert all(chain.joints <= chain.joints[::-1] for chain in cube)
    assert len({chain.joints for chain in cube}) == len(cube)


def _sample(cube: list[ChainCount]) -> list[ChainCount]:
    """The chain with most solutions, palindromes (with and without a folding symmetric under
    reading backwards) and a seeded draw of the rest."""
    palindromes = [chain for chain in cube if chain.joints == chain.joints[::-1]]
    odd_classes = [chain for chain in palindromes if chain.raw * 2 % (48 * 2) or chain.raw != chain.unique * 48]
    drawn = random.Random(7).sample(cube, 8)
    return [max(cube, key=lambda chain: chain.unique), *palindromes[:2], *odd_classes[:2], *drawn]


def test_sampled_chains_count_as_cpsolve_run_counts_them(cube: list[ChainCount]) -> None:
    for chain in _sample(cube):
        spec = {"kind": "chain", "chain": {"joints": chain.joints}, "target": {"box": [3, 3, 3]}}
        result = cpsolve.solve(spec)
        assert result.report.complete and not result.report.identity_problems
        assert result.report.counts.as_dict() == {
            "raw": chain.raw,
            "rotations": chain.rotations,
            "unique": chain.unique,
        }


@pytest.mark.slow
def test_sampled_chains_count_as_the_brute_force_folds_them(cube: list[ChainCount]) -> None:
    """The palindromes of the sample and a few drawn chains (the chain of most solutions takes the
    brute force 20 s; the whole census is compared with the independent census anyway)."""
    for chain in _sample(cube)[1:7]:
        segments = ChainShape.model_validate({"joints": chain.joints}).segment_lengths()
        assert folded(segments, (3, 3, 3)) == (chain.raw, chain.rotations, chain.unique), chain.joints


@pytest.mark.slow
def test_the_whole_3x3x3_census_equals_the_independent_census(cube: list[ChainCount]) -> None:
    assert as_table(cube) == independent_census((3, 3, 3))


@pytest.mark.slow
def test_a_box_with_fewer_rotations_than_cell_orbits_equals_the_independent_census() -> None:
    """2x3x4: a rotation's orbit of a path need not hold one starting in an orbit's first cell."""
    assert as_table(census((2, 3, 4), workers=2).chains()) == independent_census((2, 3, 4))


def test_parts_on_two_processes_add_up_to_the_whole_walk() -> None:
    assert as_table(census((2, 3, 4), workers=2).chains()) == as_table(census((2, 3, 4)).chains())
    box = box_for((2, 3, 4))
    assert len(parts_of(box, 32)) >= 32


def test_a_walk_past_its_deadline_leaves_the_census_incomplete_and_writes_nothing(tmp_path: Path) -> None:
    report = census((3, 3, 3), deadline=Deadline.after(0.0))
    assert not report.complete and list(report.chains()) == [] and report.stopped_by == "time limit"
    box = box_for((3, 3, 3))
    assert walk_part(box, parts_of(box, 1)[0], Deadline.after(0.0)) is None
    out = tmp_path / "chains.jsonl"
    result = runner.invoke(app, ["census", "chains", "--time-limit", "0", "--out", str(out)])
    assert result.exit_code == 0 and "stopped by the time limit after 0 of" in result.output and not out.exists()


def test_the_command_writes_a_line_per_chain_that_pastes_into_a_spec(tmp_path: Path) -> None:
    out = tmp_path / "chains.jsonl"
    result = runner.invoke(app, ["census", "chains", "--box", "2x3x3", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "chains: 296" in result.output and "counts checked (Burnside): ok" in result.output
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(lines) == 296 and set(lines[0]) == {"joints", "counts"}
    spec = {"kind": "chain", "chain": {"joints": lines[5]["joints"]}, "target": {"box": [2, 3, 3]}}
    assert cpsolve.solve(spec).report.counts.as_dict() == lines[5]["counts"]
    summary = json.loads(runner.invoke(app, ["census", "chains", "--box", "2x3x3", "--json"]).output)
    assert summary["chains"] == 296 and summary["one_solution"] == 101 and summary["complete"]


def test_a_checkpoint_resumes_and_refuses_another_box_or_a_changed_line(tmp_path: Path) -> None:
    checkpoint = tmp_path / "census.jsonl"
    whole = as_table(census((2, 3, 4)).chains())
    first = census((2, 3, 4), workers=2, checkpoint=checkpoint)
    recorded = checkpoint.read_text().splitlines()
    assert first.complete and len(recorded) == first.parts
    again = census((2, 3, 4), workers=2, checkpoint=checkpoint)  # every part read back, none walked
    assert as_table(again.chains()) == whole and checkpoint.read_text().splitlines() == recorded
    checkpoint.write_text("\n".join(recorded[:5]) + "\n")  # a run killed after five parts
    assert as_table(census((2, 3, 4), workers=2, checkpoint=checkpoint).chains()) == whole
    with pytest.raises(CpsolveError, match="is a census of '2x3x4', not of 3x3x3"):
        census((3, 3, 3), checkpoint=checkpoint)
    record = json.loads(recorded[0])
    record["counts"] = "AAAA" + record["counts"][4:]
    checkpoint.write_text(json.dumps(record) + "\n")
    with pytest.raises(CpsolveError, match="record 1 is not a finished part as cpsolve wrote it"):
        census((2, 3, 4), checkpoint=checkpoint)
    # forged: arrays of the wrong size under a digest recomputed over them
    original = json.loads(recorded[0])
    fewer_keys = base64.b64encode(base64.b64decode(original["keys"])[:-8]).decode()
    more_counts = base64.b64encode(base64.b64decode(original["counts"]) + bytes(8)).decode()
    for field, value in (("keys", "AAAA"), ("counts", more_counts), ("keys", fewer_keys)):
        forged = dict(original, **{field: value})
        forged["check"] = chains._check(forged["census"], forged["unit"], forged["keys"], forged["counts"])
        checkpoint.write_text(json.dumps(forged) + "\n")
        with pytest.raises(CpsolveError, match=r"record 1 (is not a finished part as cpsolve wrote it|has )"):
            census((2, 3, 4), checkpoint=checkpoint)


def test_workers_past_the_bound_are_refused_and_cutting_parts_reads_the_clock() -> None:
    """--workers 10,000 is refused in one line (its parts took 8.8 s to cut, 1,000,000 ended in
    a MemoryError); the parts are cut for the workers the machine can use, the clock read as
    they are cut."""
    result = runner.invoke(app, ["census", "chains", "--workers", "10000"])
    assert result.exit_code == 2 and "option workers (--workers) = 10000: expected 0 to 1024" in result.output
    report = census((3, 3, 3), workers=1024, deadline=Deadline.after(0.0))
    assert report.stopped_by == "time limit" and report.parts_done == 0


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--box", "4x4x5"], "at most 64 cells (2x2x2 to 4x4x4), not 80 cells"),
        (["--box", "1x3x3"], "every side at least 2"),
        (["--box", "3x3"], "--box must look like 9x9x9"),
        (["--out", "same.jsonl", "--checkpoint", "same.jsonl"], "--checkpoint names the same file as --out"),
    ],
)
def test_bad_census_input_is_one_line_and_exit_2(arguments: list[str], message: str, tmp_path: Path) -> None:
    arguments = [str(tmp_path / a) if a.endswith(".jsonl") else a for a in arguments]
    result = runner.invoke(app, ["census", "chains", *arguments])
    assert result.exit_code == 2 and message in result.output and len(result.output.strip().splitlines()) == 1


def test_chains_of_takes_each_chain_once_under_its_smaller_reading() -> None:
    box = box_for((2, 2, 3))
    tally = walk_part(box, parts_of(box, 1)[0])
    assert isinstance(tally, Tally)
    chains = list(chains_of(box, tally))
    assert len({chain.joints for chain in chains}) == len(chains)
