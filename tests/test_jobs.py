"""A run is a job (cpsolve.jobs): its events in order, cancel from another thread, several at once,
and the one options model that the library, the command line and the studio share."""

from __future__ import annotations

import json
import os
import re
import threading
from pathlib import Path
from typing import Any

import pytest
import typer.main
from conftest import SPECS, children_of, corpus_dir, ctrl_c_as_each_run_ends
from typer.testing import CliRunner

import cpsolve
from cpsolve.cli import app
from cpsolve.engines import StopReason
from cpsolve.errors import EXIT_INTERRUPTED, CpsolveError
from cpsolve.events import Failed, Finished, JobEvent, NewClass, Progress, Started
from cpsolve.formats import read_puzzle
from cpsolve.jobs import Job, follow, ignore, signalled_stop
from cpsolve.options import OptionError, Options, Outputs

SOMA = SPECS / "soma.yaml"
runner = CliRunner()


def cli(*arguments: str | Path) -> tuple[int, str]:
    result = runner.invoke(app, [str(a) for a in arguments])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.output


BEDLAM = SPECS / "bedlam.yaml"


def all_events(job: Job) -> list[JobEvent]:
    return list(job.events())


def test_events_come_in_order_and_each_new_class_once() -> None:
    job = cpsolve.start(SOMA, class_events=None)
    events = all_events(job)
    assert isinstance(events[0], Started) and events[0].name == "Soma cube"
    assert isinstance(events[-1], Finished)
    assert not any(isinstance(event, Finished | Failed | Started) for event in events[1:-1])
    classes = [event for event in events if isinstance(event, NewClass)]
    report = events[-1].report
    assert report is job.result() and report.complete and report.identity_problems == []
    assert [event.number for event in classes] == list(range(1, report.counts.unique + 1))
    assert len({event.solution for event in classes}) == report.counts.unique == 240
    seconds = [event.seconds for event in events if isinstance(event, Progress)]
    assert seconds == sorted(seconds)
    assert job.state == "done" and job.error is None
    # a class event is what --solutions writes for it
    assert set(classes[0].as_json()["solution"]["pieces"]) == {"V", "L", "T", "Z", "A", "B", "P"}


def test_class_events_are_bounded_as_asked() -> None:
    kinds = [type(event) for event in cpsolve.start(SOMA, class_events=3).events()]
    assert kinds.count(NewClass) == 3
    assert NewClass not in [type(event) for event in cpsolve.start(SOMA, class_events=0).events()]


def test_a_spec_dict_and_a_loaded_puzzle_run_as_a_file_does() -> None:
    spec = {"name": "two dominoes", "pieces": {"D": {"cells": [[0, 0], [1, 0]], "count": 2}}, "target": {"box": [2, 2]}}
    by_dict = cpsolve.start(spec).result()
    by_puzzle = cpsolve.start(read_puzzle(SOMA)).result()
    assert (by_dict.counts.raw, by_dict.counts.unique) == (2, 1)
    assert by_puzzle.counts == cpsolve.start(SOMA).result().counts


def test_cancel_from_another_thread_stops_a_long_run_and_its_processes() -> None:
    before = children_of(os.getpid())
    job = cpsolve.start(BEDLAM, workers=2, class_events=1)
    events = job.events()
    for event in events:  # the search is running once a class came
        if isinstance(event, NewClass):
            break
    stopper = threading.Thread(target=job.cancel)
    stopper.start()
    stopper.join()
    report = job.result(timeout=60)
    rest = list(events)
    assert isinstance(rest[-1], Finished) and rest[-1].report is report
    assert not report.complete and report.stopped_by is StopReason.CANCELLED
    assert report.counts.unique < 19186 and report.as_json()["stopped_by"] == "cancelled"
    assert job.state == "cancelled"
    assert children_of(os.getpid()) <= before  # every worker it started has ended


def test_cancel_before_the_search_gives_an_empty_incomplete_report() -> None:
    job = Job(read_puzzle(BEDLAM), Options().run_options())
    job.cancel()  # before it began: nothing happens to a job that is not running yet
    job.begin()
    job.cancel()
    report = job.result(timeout=60)
    assert not report.complete and report.stopped_by is StopReason.CANCELLED


def test_cancel_on_cpsat_stops_between_solutions() -> None:
    job = cpsolve.start(SPECS / "pentominoes_6x10.yaml", engine="cpsat", workers=1, class_events=1)
    for event in job.events():
        if isinstance(event, NewClass):
            job.cancel()
    report = job.result(timeout=60)
    assert report.stopped_by is StopReason.CANCELLED and not report.complete


def test_two_jobs_at_once_count_as_each_alone() -> None:
    paths = [SOMA, SPECS / "t_tetracubes_6x6x2.yaml", SPECS / "snake_standard.yaml", SPECS / "tiles_bugs_3x3.yaml"]
    alone = [cpsolve.start(path).result().counts for path in paths]
    jobs = [cpsolve.start(path, workers=1) for path in paths]
    together = [job.result(timeout=300).counts for job in jobs]
    assert together == alone


def test_a_refused_model_fails_the_job_with_the_command_lines_message(tmp_path: Path) -> None:
    spec = {"name": "too many", "pieces": {"M": {"cells": [[0, 0]], "count": 400}}, "target": {"box": [20, 20]}}
    job = cpsolve.start(spec, max_placements=10)
    events = all_events(job)
    assert isinstance(events[-1], Failed) and "placements" in events[-1].message
    assert job.state == "failed"
    with pytest.raises(CpsolveError, match="placements"):
        job.result()


# -- one options model ----------------------------------------------------------------------------------


REFUSED: list[tuple[str, Any, str]] = [
    ("max_solutions", 0, "0"),
    ("time_limit", -1, "-1"),
    ("time_limit", float("inf"), "inf"),
    ("workers", -2, "-2"),
    ("max_memory", 0, "0"),
    ("count_order", "sideways", "sideways"),
    ("engine", "warp", "warp"),
    ("cluster", "not an address", "not an address"),
    ("max_file_size", 0, "0"),
]


@pytest.mark.parametrize(("name", "value", "text"), REFUSED)
def test_a_value_refused_by_the_library_is_refused_by_the_command_line_in_the_same_words(
    name: str, value: Any, text: str
) -> None:
    with pytest.raises(OptionError) as refused:
        cpsolve.solve(SOMA, **{name: value})
    message = str(refused.value)
    assert message.startswith(f"option {name} (--{name.replace('_', '-')}) = ") and "\n" not in message
    code, output = cli("run", SOMA, f"--{name.replace('_', '-')}", text)
    assert code == 2 and output.strip().splitlines() == [message]


def test_the_library_refuses_unknown_options_and_wrong_types() -> None:
    with pytest.raises(OptionError, match="unknown option 'colour'"):
        cpsolve.solve(SOMA, colour=1)
    with pytest.raises(OptionError, match=r"option time_limit \(--time-limit\) = 'x'"):
        cpsolve.solve(SOMA, time_limit="x")
    with pytest.raises(OptionError, match=r"option first \(--first\) = 1"):
        cpsolve.solve(SOMA, first=1)
    assert isinstance(OptionError("x"), ValueError)  # as a bad argument to a function is


def test_every_option_is_a_flag_of_run_and_every_run_flag_an_option_or_an_output() -> None:
    command = typer.main.get_command(app)
    run = command.commands["run"]  # type: ignore[attr-defined]
    names = {param.name for param in run.params}
    assert names - {"puzzle", "as_json"} == set(Options.model_fields) | set(Outputs.model_fields)
    flags = {param.name: param.opts for param in run.params}
    for name in Options.model_fields:
        spelled = f"--{name.replace('_', '-')}"
        assert spelled in flags[name] or f"{spelled}/--no-{name.replace('_', '-')}" in flags[name], name
    for shared in ("time_limit", "engine", "max_file_size", "cluster", "disassemble", "max_positions"):
        batch = {param.name: param for param in command.commands["batch"].params}  # type: ignore[attr-defined]
        assert batch[shared].opts == run.params[[p.name for p in run.params].index(shared)].opts


def test_the_command_lines_defaults_are_the_librarys() -> None:
    command = typer.main.get_command(app)
    run = command.commands["run"]  # type: ignore[attr-defined]
    for param in run.params:
        if param.name in Options.model_fields:
            assert param.default == Options.model_fields[param.name].default, param.name


def test_a_results_pictures_are_numbered_from_one_and_mark_what_was_not_finished(tmp_path: Path) -> None:
    result = cpsolve.solve(SOMA, max_solutions=1)
    for number in (0, -1, 2, True):
        with pytest.raises(CpsolveError, match=rf"save_png: solution {number!r}: the result holds 1 unique"):
            result.save_png(tmp_path / "x.png", number=number)
    assert not (tmp_path / "x.png").exists()
    from cpsolve.pictures.png import _headline

    assert _headline(result.scene).startswith("Soma cube: at least raw 48")
    assert "(stopped at the most solutions asked for)" in _headline(result.scene)
    assert "at least" not in _headline(cpsolve.solve(SOMA).scene)


def test_a_name_with_a_lone_surrogate_still_makes_a_page(tmp_path: Path) -> None:
    spec = {"name": "odd \udcff", "pieces": {"D": {"cells": [[0, 0], [1, 0]], "count": 2}}, "target": {"box": [2, 2]}}
    result = cpsolve.solve(spec)
    result.save_html(tmp_path / "odd.html")
    assert "<title>odd ? · cpsolve</title>" in (tmp_path / "odd.html").read_text(encoding="utf-8")


def test_the_library_names_everything_it_offers() -> None:
    assert {"solve", "solve_all", "start", "Job", "Options", "Result", "CpsolveError"} <= set(dir(cpsolve))
    assert "annotations" not in dir(cpsolve) and cpsolve.CpsolveError is CpsolveError
    with pytest.raises(OptionError, match="pictured="):
        cpsolve.solve(SOMA, picture=3)


def test_the_program_says_its_version_and_what_to_type_for_a_file() -> None:
    import subprocess
    import sys

    version = subprocess.run([sys.executable, "-m", "cpsolve", "--version"], capture_output=True, text=True)
    assert version.returncode == 0 and version.stdout.strip() == f"cpsolve {cpsolve.__version__}"
    forgot = subprocess.run([sys.executable, "-m", "cpsolve", str(SOMA)], capture_output=True, text=True)
    assert forgot.returncode == 2 and forgot.stderr.strip().endswith(f"to solve it: cpsolve run {SOMA}")


def test_bench_runs_a_slow_spec_it_is_given_by_name() -> None:
    from cpsolve.bench import BenchOptions, bench

    named = bench([SPECS / "pentominoes_6x10.yaml"], BenchOptions(engine="exact-cover"))
    assert [row.skipped for row in named] == [None] and named[0].results[0].counts.unique == 2339
    in_folder = bench([SPECS], BenchOptions(engine="exact-cover", include_slow=False))
    assert any(row.skipped == "slow (run with --slow)" for row in in_folder if "pentominoes_6x10" in row.source)


def test_a_job_whose_problem_is_refused_when_read_fails_and_never_hangs(monkeypatch: pytest.MonkeyPatch) -> None:
    """A file's problem is validated when first asked for; refused then, in the job's thread,
    the job fails with the message (it had no Failed event and never ended)."""
    puzzle = read_puzzle(SOMA)

    def refused(self: Any) -> Any:
        raise CpsolveError("soma.yaml:1: refused when read")

    monkeypatch.setattr(type(puzzle), "loaded", property(refused))
    job = Job(puzzle, Options().run_options()).begin()
    assert job.wait(60) and job.state == "failed"
    assert isinstance(list(job.events())[-1], Failed)


def test_a_cancel_that_comes_as_a_job_ends_leaves_it_done() -> None:
    job = cpsolve.start(SOMA)
    report = job.result()
    job._cancel.set()  # as if cancel() had come between the last slice and the end
    assert report.complete and job.state == "done"


def test_a_ctrl_c_as_a_run_ends_is_kept_for_the_program() -> None:
    """The Ctrl-C reaches `follow` after the run's last look at its cancel: the report is whole,
    and the job still says it was asked to stop, so that the program stops what comes next."""
    job = cpsolve.start(SOMA, class_events=0)
    report = ctrl_c_as_each_run_ends(follow)(job, ignore)
    assert report.complete and job.state == "done" and report.counts.unique == 240
    assert job.stop_asked is StopReason.INTERRUPTED and signalled_stop(job, report) is StopReason.INTERRUPTED
    untouched = cpsolve.start(SOMA, class_events=0)
    assert signalled_stop(untouched, follow(untouched, ignore)) is None


def test_a_ctrl_c_as_a_problem_ends_stops_the_run_command_before_the_next(monkeypatch: pytest.MonkeyPatch) -> None:
    """A file of two problems: the first's report is printed whole, the second is not run, exit 130."""
    monkeypatch.setattr(cpsolve.jobs, "follow", ctrl_c_as_each_run_ends(follow))
    code, output = cli("run", corpus_dir("burrtools") / "DemoMirrorParadox.xmpuzzle", "--json")
    assert code == EXIT_INTERRUPTED
    reports = [json.loads(line) for line in output.splitlines() if line.startswith("{")]
    assert len(reports) == 1 and reports[0]["complete"], output


def test_a_second_reader_of_a_jobs_events_is_refused_and_start_names_a_bad_keyword() -> None:
    """A job's events are handed over once: a second `events()` (from this thread or another)
    and `next_event` after it are refused in one line (a second iterator waited for ever);
    `start`'s own keywords are refused naming them; `cancel(None)` cancels (it made the job fail)."""
    job = cpsolve.start(SOMA, class_events=0)
    events = job.events()
    for second in (job.events, lambda: job.next_event(0.1)):
        with pytest.raises(CpsolveError, match="its events have a reader already"):
            second()
    in_another: list[BaseException] = []
    thread = threading.Thread(target=lambda: _refused(job, in_another))
    thread.start()
    thread.join()
    assert len(in_another) == 1 and "reader already" in str(in_another[0])
    assert isinstance(list(events)[-1], Finished)
    for keyword, value, words in (
        ("class_events", -1, "class_events = -1: expected a whole number from 0"),
        ("class_events", "all", "class_events = 'all': expected a whole number from 0"),
        ("engines", ["exact-cover"], "engines = ['exact-cover']: expected a cpsolve.engines.Engines registry"),
        ("on_ready", 3, "on_ready = 3: expected a function of no arguments"),
    ):
        with pytest.raises(OptionError, match=re.escape(words)):
            cpsolve.start(SOMA, **{keyword: value})
    long = cpsolve.start(BEDLAM, class_events=0, workers=1)
    long.cancel(None)
    assert long.result().stopped_by == StopReason.CANCELLED and long.state == "cancelled"
    with pytest.raises(OptionError, match="cancel: reason 'stop': expected a StopReason"):
        long.cancel("stop")


def _refused(job: Job, found: list[BaseException]) -> None:
    try:
        job.events()
    except CpsolveError as error:
        found.append(error)
