"""Parts of a search on threads of one process (cpsolve.workers.Threaded): every unit's items once,
in order, ended with DONE; a stop, an error and an early close end the threads; and the counts of
runs whose parts ran on threads equal one worker's, with the orbit-stabiliser identity. Every wait
here is on an event, never on the clock."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import SPECS, checked_run, corpus_dir

from cpsolve import native, parts, workers
from cpsolve.limits import NO_DEADLINE, Deadline
from cpsolve.options import RunOptions
from cpsolve.workers import DONE, STOPPED, Threaded


def counting(unit: int) -> Iterator[Any]:
    for item in range(unit):
        yield (unit, item)


def test_every_units_items_come_once_in_order_then_done() -> None:
    units = [3, 0, 5, 1, 4, 2, 6]
    events = list(Threaded(3).stream(counting, units))
    for index, unit in enumerate(units):
        mine = [item for at, item in events if at == index]
        assert mine == [*[(unit, n) for n in range(unit)], DONE]


def test_a_stop_ends_the_stream_and_a_halted_deadline_ends_the_tasks() -> None:
    """Tasks that run until their deadline passes: `stop` says True, the stream yields STOPPED,
    and the threads end once the stream's halt makes each task's deadline pass."""
    runners = Threaded(2)
    started = threading.Semaphore(0)
    deadline = runners.deadline_for(NO_DEADLINE)

    def waiting(unit: int) -> Iterator[Any]:
        started.release()
        yield unit
        while not deadline.passed():
            runners.halt.wait()
        yield "stopped"

    stream = runners.stream(waiting, [1, 2, 3], stop=lambda: started.acquire(blocking=False))
    assert (-1, STOPPED) in list(stream)
    assert runners.halt.is_set() and deadline.passed()
    assert not any(thread.name.startswith("cpsolve search") for thread in threading.enumerate())


def test_a_tasks_error_is_raised_where_the_stream_is_read() -> None:
    def failing(unit: int) -> Iterator[Any]:
        if unit == 2:
            raise ValueError("part 2 is broken")
        yield unit

    with pytest.raises(RuntimeError, match="part 2 is broken"):
        list(Threaded(2).stream(failing, [1, 2, 3]))


def test_closing_the_stream_early_halts_and_joins_the_threads() -> None:
    runners = Threaded(2)
    deadline = runners.deadline_for(Deadline.after(None))

    def endless(unit: int) -> Iterator[Any]:
        while not deadline.passed():
            yield unit

    stream = runners.stream(endless, [1, 2])
    assert next(stream)[1] in (1, 2)
    stream.close()  # as a run that has found enough does
    assert runners.halt.is_set()
    assert not any(thread.name.startswith("cpsolve search") for thread in threading.enumerate())


def test_a_later_thread_waits_its_stagger_unless_the_stream_ends() -> None:
    """With a stagger longer than the search, the first thread searches every unit and the later
    one, halted when the stream ends, takes none: a small search is never shared for nothing."""
    runners = Threaded(2, stagger=3600.0)

    def where(unit: int) -> Iterator[Any]:
        yield threading.current_thread().name

    events = list(runners.stream(where, [1, 2, 3, 4]))
    assert {item for _, item in events if item is not DONE} == {"cpsolve search 0"}
    assert sorted(at for at, item in events if item is DONE) == [0, 1, 2, 3]


@pytest.mark.parametrize(
    "path",
    [
        SPECS / "soma.yaml",
        SPECS / "kanoodle_pyramid.yaml",
        "SolidSixPieceBurrs.xmpuzzle",
        SPECS / "pentominoes_6x10.yaml",
    ],
    ids=lambda path: str(path).rsplit("/", 1)[-1],
)
def test_parts_on_threads_count_what_one_worker_counts(path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two workers, on threads wherever the build lets go of the GIL: the same three counts as
    one worker, every part searched once (the threads start at once here: no stagger, and a
    search begun on one thread hands its rest over after its first slice)."""
    if isinstance(path, str):
        path = corpus_dir("burrtools") / path
    monkeypatch.setattr(workers, "THREADS_STAGGER_SECONDS", 0.0)
    monkeypatch.setattr(parts, "THREADS_AFTER_SECONDS", -1.0)
    streams: list[str] = []
    original = Threaded.stream

    def noted(self: Threaded, *arguments: Any, **named: Any) -> Any:
        streams.append("threads")
        return original(self, *arguments, **named)

    monkeypatch.setattr(Threaded, "stream", noted)
    alone = checked_run(path, RunOptions(show=0, workers=1))
    shared = checked_run(path, RunOptions(show=0, workers=2))
    assert shared.counts == alone.counts and shared.workers == 2
    assert bool(streams) == native.threads_run_apart()


def test_a_halted_deadline_says_the_runs_reason_where_the_run_was_stopped() -> None:
    """A part on a thread stopped by Ctrl-C reports `interrupted`, as on one worker; one stopped by
    the stream's halt alone says `cancelled` (nobody reads it: the stream has ended)."""
    from cpsolve.limits import Cancel

    run_stop = Cancel()
    runners = Threaded(2)
    deadline = runners.deadline_for(Deadline.after(None, run_stop))
    assert not deadline.passed()
    runners.halt.set()
    assert deadline.passed() and deadline.cancel is not None and deadline.cancel.reason == "cancelled"
    run_stop.set("interrupted")
    assert deadline.cancel.reason == "interrupted"


def test_threads_that_find_faster_than_the_reader_wait() -> None:
    """The queue between the threads and the stream is bounded: a task that yields without end
    is never more than the queue's room (and its thread's item in hand) ahead of the reader."""
    produced = [0]
    room = workers.QUEUED_PER_THREAD * 2

    def flood(unit: int) -> Iterator[Any]:
        while True:
            yield unit
            produced[0] += 1

    runners = Threaded(2)
    stream = runners.stream(flood, [1, 2])
    for read in range(1, 200):
        next(stream)
        assert produced[0] - read <= room + 2
    stream.close()
    assert runners.halt.is_set()


@pytest.mark.parametrize("spec", ["kanoodle_pyramid.yaml", "soma.yaml"])
def test_workers_asked_for_join_only_a_search_that_proves_long(spec: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """`--workers 2` on a search estimated too small for threads (the bit-parallel search, the box
    search): the run begins it on one thread and hands the rest to two once it has run
    THREADS_AFTER_SECONDS (a search that ends by then never pays for them). Made deterministic:
    due at once, or never. The counts are one worker's either way."""
    monkeypatch.setattr(native, "threads_run_apart", lambda: True)
    monkeypatch.setattr(workers, "cores", lambda: 2)
    alone = checked_run(SPECS / spec, RunOptions(show=0, workers=1))
    for after, used in ((1e9, 1), (-1.0, 2)):
        monkeypatch.setattr(parts, "THREADS_AFTER_SECONDS", after)
        report = checked_run(SPECS / spec, RunOptions(show=0, workers=2))
        assert report.workers == used and report.counts == alone.counts
