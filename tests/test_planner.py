"""The one planner: an engine's capabilities, the options and the cores make the plan."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from conftest import SPECS, checked_run, run_one
from hypothesis import given
from hypothesis import strategies as st

from cpsolve.engines import SearchOptions
from cpsolve.engines.base import Capabilities
from cpsolve.options import RunOptions
from cpsolve.planner import How, Plan, plan

SPLITS = Capabilities(splits=True)
BEGINS = Capabilities(splits=True, begins_here=True, default_workers=8)
FIRST = SearchOptions(first_only=True)


@pytest.mark.parametrize(
    ("can", "options", "expected"),
    [
        (SPLITS, RunOptions(workers=0), Plan(How.WHOLE, 1)),  # one worker by default: whole
        (SPLITS, RunOptions(workers=2), Plan(How.PARTS, 2)),
        (Capabilities(), RunOptions(workers=2), Plan(How.WHOLE, 1)),  # nothing to split by
        (Capabilities(splits=True, default_workers=4), RunOptions(workers=0), Plan(How.PARTS, 4)),
        (Capabilities(splits=True, parts_in_one_process=True), RunOptions(workers=0), Plan(How.PARTS, 1)),
        (SPLITS, RunOptions(workers=2, search=FIRST), Plan(How.WHOLE, 1)),  # a limited run is not split
        (SPLITS, RunOptions(workers=0, checkpoint=Path("c")), Plan(How.PARTS, 8, units=True)),
        (SPLITS, RunOptions(workers=3, cluster="local"), Plan(How.PARTS, 3, units=True)),
        (
            Capabilities(splits=True, begins_here=True, default_workers=8),
            RunOptions(workers=0),
            Plan(How.BEGIN_HERE, 8),
        ),
        # asked for workers, a search that can begin here still does: a short one never pays for them
        (BEGINS, RunOptions(workers=2), Plan(How.BEGIN_HERE, 2)),
        (
            Capabilities(splits=True, begins_here=True, threads=True),
            RunOptions(workers=2),
            Plan(How.BEGIN_HERE, 2, threads=True),
        ),
        (BEGINS, RunOptions(workers=2, checkpoint=Path("c")), Plan(How.PARTS, 2, units=True)),
        (Capabilities(races=True, race_workers=8), RunOptions(workers=0, search=FIRST), Plan(How.RACE, 8)),
        (Capabilities(races=True), RunOptions(workers=0, search=FIRST), Plan(How.WHOLE, 1)),  # too small to race
        (Capabilities(races=True), RunOptions(workers=2, search=FIRST), Plan(How.RACE, 2)),  # asked for
        (
            Capabilities(races=True, race_workers=8),
            RunOptions(workers=0),
            Plan(How.WHOLE, 1),
        ),  # races one solution only
    ],
)
def test_plans(can: Capabilities, options: RunOptions, expected: Plan) -> None:
    assert plan(can, options, cores=8) == expected


@given(
    st.builds(
        Capabilities,
        splits=st.booleans(),
        hands_back=st.booleans(),
        begins_here=st.booleans(),
        races=st.booleans(),
        default_workers=st.integers(1, 8),
        race_workers=st.integers(1, 8),
        parts_in_one_process=st.booleans(),
    ),
    st.integers(0, 16),
    st.booleans(),
    st.sampled_from([None, 1, 5]),
    st.integers(1, 8),
)
def test_what_every_plan_keeps(
    can: Capabilities, workers: int, first: bool, max_solutions: int | None, cores: int
) -> None:
    """A limited run is never cut into parts (its solutions would come in the processes' order);
    only an engine that splits is; a race is a search for one solution; a plan asks for the
    workers given, where they are given."""
    options = RunOptions(workers=workers, search=SearchOptions(first_only=first, max_solutions=max_solutions))
    decided = plan(can, options, cores)
    assert decided.workers >= 1
    if decided.how in (How.PARTS, How.BEGIN_HERE):
        assert can.splits and not options.limited
    if decided.how is How.RACE:
        assert first and can.races
    if workers and decided.how is not How.WHOLE:
        assert decided.workers == workers


def test_a_tiles_board_races_by_default_only_where_it_pays() -> None:
    """A planted 10x10 board races on every core by default; a 3x3 board runs in one process (a
    race's processes cost more than its search)."""
    small = checked_run(SPECS / "tiles_bugs_3x3.yaml", RunOptions(show=0, workers=0))
    assert small.workers == 1
    for path, processes in ((SPECS / "tiles_bugs_3x3.yaml", 1), (SPECS / "eternity" / "eternity_10x10.yaml", 2)):
        options = dataclasses.replace(RunOptions(show=0, workers=0), search=FIRST)
        report = run_one(path, options)
        assert report.counts.raw >= 1 and report.workers == min(processes, _cores()), path.name


def _cores() -> int:
    from cpsolve import workers

    return workers.cores()
