"""A run is a job: started, watched, cancelled from any thread, waited on for its report.

    job = cpsolve.start("puzzle_specs/bedlam.yaml", workers=2)
    for event in job.events():      # Started, Progress..., NewClass..., then Finished (or Failed)
        ...
    job.cancel()                    # from any thread: stops at the engine's next slice
    report = job.result()           # the report, marked `cancelled` and incomplete if it was

The run goes on in a thread of its own, so whoever started it stays free: the command line reads
its events for the progress line and the `--solutions` file (and turns Ctrl-C into a cancel), the
library's `solve()` waits on `result()`, the studio streams the events to a page. Jobs share
nothing but the loaded engines, so several may run at once in one process; a job that splits its
search forks its worker processes from its own thread and ends them when it ends.

Cancelling sets the run's `Cancel`, which every step that looks at the clock sees as a deadline
that has passed (cpsolve.limits): the model's building, each slice of a compiled search, CP-SAT's
wait for its next solution, the wait for worker processes.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator, Mapping
from enum import StrEnum
from pathlib import Path
from typing import Any

from cpsolve import formats
from cpsolve.engines import Engines, StopReason
from cpsolve.errors import CpsolveError
from cpsolve.events import Failed, Finished, JobEvent, NewClass, Progress, Started
from cpsolve.formats import Puzzle, ReadOptions
from cpsolve.limits import MAX_PICTURED, Cancel
from cpsolve.models import PuzzleModel
from cpsolve.options import OptionError, Options
from cpsolve.report import RunReport
from cpsolve.run import ReadyHook, RunOptions, run
from cpsolve.symmetry import Solution

PROGRESS_EVERY_SECONDS = 0.1  # progress events at most this often (a run reports after every batch)
FOLLOW_POLL_SECONDS = 0.1  # `follow` looks whether the job ended this often while no event comes

PuzzleGiven = str | Path | Mapping[str, Any] | Puzzle


class JobState(StrEnum):
    """Where a job is: running, then done, cancelled (stopped by `cancel`, with an incomplete
    report) or failed (refused: its `error` says why)."""

    RUNNING = "running"
    DONE = "done"
    CANCELLED = "cancelled"
    FAILED = "failed"


# a report stopped so was stopped by `cancel` (a cancel that came as the run ended leaves it `done`)
CANCELLED_BY = (StopReason.CANCELLED, StopReason.INTERRUPTED, StopReason.TERMINATED)


class Job:
    """One run going on in its own thread; see the module's docstring. Its events are for one
    reader (they are handed over once, in order); `result()` may be called by anyone, any number
    of times."""

    def __init__(
        self,
        puzzle: Puzzle,
        options: RunOptions,
        class_events: int | None = MAX_PICTURED,
        on_ready: ReadyHook | None = None,
    ) -> None:
        self.puzzle = puzzle
        self.options = options
        self.class_events = class_events  # new-class events sent (None: every one)
        self.on_ready = on_ready
        self._cancel = Cancel()
        self._stop_asked: StopReason | None = None  # the first cancel's reason, even one that came late
        self._events: queue.SimpleQueue[JobEvent] = queue.SimpleQueue()
        self._ended = threading.Event()
        self._report: RunReport | None = None
        self._error: BaseException | None = None
        self._classes = 0
        self._last_progress = -PROGRESS_EVERY_SECONDS
        self._thread = threading.Thread(target=self._run, name=f"cpsolve job {puzzle.name[:40]}", daemon=True)
        self._reader: str | None = None  # who reads the events: "events" (one iterator) or "next_event"
        self._reader_lock = threading.Lock()

    def begin(self) -> Job:
        """Start the run's thread (once)."""
        self._thread.start()
        return self

    @property
    def state(self) -> JobState:
        """Where the job is (JobState)."""
        if not self._ended.is_set():
            return JobState.RUNNING
        if self._error is not None:
            return JobState.FAILED
        stopped = self._report is not None and self._report.stopped_by
        return JobState.CANCELLED if stopped in CANCELLED_BY else JobState.DONE

    @property
    def error(self) -> BaseException | None:
        """What ended the job without a report: a CpsolveError (input to fix), or a bug."""
        return self._error if self._ended.is_set() else None

    def done(self) -> bool:
        return self._ended.is_set()

    def cancel(self, reason: StopReason | None = StopReason.CANCELLED) -> None:
        """Stop the run from any thread: within the engine's next slice, every process it started
        ended, its report incomplete and `stopped_by` this reason (None: cancelled; the command
        line gives `interrupted` for Ctrl-C). Nothing happens to a job that has ended, but the
        reason is kept (`stop_asked`). OptionError for a reason that is no StopReason."""
        reason = StopReason.CANCELLED if reason is None else _stop_reason(reason)
        if self._stop_asked is None:
            self._stop_asked = reason
        if not self._ended.is_set():
            self._cancel.set(str(reason))

    @property
    def stop_asked(self) -> StopReason | None:
        """The reason of the first `cancel`, also of one that came as the run ended or after it
        (its report then complete)."""
        return self._stop_asked

    def result(self, timeout: float | None = None) -> RunReport:
        """Wait for the report; raises the job's CpsolveError (or bug) where it failed, and
        TimeoutError when `timeout` seconds pass first."""
        if not self.wait(timeout):
            raise TimeoutError(f"the job on {self.puzzle.name} is still running")
        if self._error is not None:
            raise self._error
        assert self._report is not None
        return self._report

    def events(self) -> Iterator[JobEvent]:
        """Each event as it happens, ending with Finished (or Failed). For one reader: a second
        call (from this thread or another) is refused in one line, as is one after `next_event`
        (an event is handed over once: a second iterator waited for ever)."""
        self._take_reader("events")

        def handed() -> Iterator[JobEvent]:
            while True:
                event = self._events.get()
                yield event
                if isinstance(event, Finished | Failed):
                    return

        return handed()

    def next_event(self, timeout: float | None = None) -> JobEvent | None:
        """The next event, or None when `timeout` seconds pass first (for a reader that must look
        up between events: `follow`); refused once `events` has its reader."""
        self._take_reader("next_event")
        try:
            return self._events.get(timeout=timeout)
        except queue.Empty:
            return None

    def _take_reader(self, way: str) -> None:
        with self._reader_lock:
            if self._reader is None:
                self._reader = way
            elif way == "events" or self._reader != way:
                raise CpsolveError(
                    f"the job on {self.puzzle.name}: its events have a reader already (by {self._reader}); each"
                    " event is handed over once: read them in one place and share what it reads"
                )

    def drained(self) -> bool:
        """Whether every event sent has been read."""
        return self._events.empty()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the job to end (True) or `timeout` seconds (False); once it has, its thread is
        gone too (a program that exits next leaves no thread behind)."""
        if not self._ended.wait(timeout):
            return False
        if threading.current_thread() is not self._thread and self._thread.is_alive():
            self._thread.join()
        return True

    def _run(self) -> None:
        puzzle = self.puzzle
        try:  # reading a problem's spec may refuse it too: the job then fails, it never hangs
            self._events.put(Started(puzzle.loaded.spec.name, puzzle.loaded.source.path, puzzle.problem))
            hook = self._new_class if self.wants_classes() else None
            report = run(puzzle, self.options, self._progress, hook, self.on_ready, self._cancel)
        except CpsolveError as error:
            self._error = error
            self._events.put(Failed(str(error)))
        except BaseException as error:  # a bug: kept for result() to raise with its traceback
            self._error = error
            self._events.put(Failed(f"{type(error).__name__}: {error}"))
        else:
            self._report = report
            self._events.put(Finished(report))
        finally:
            self._ended.set()

    def _progress(self, progress: Progress) -> None:
        if progress.seconds - self._last_progress >= PROGRESS_EVERY_SECONDS:
            self._last_progress = progress.seconds
            self._events.put(progress)

    def _new_class(self, solution: Solution, model: PuzzleModel, details: Mapping[str, Any]) -> None:
        if self.class_events is None or self._classes < self.class_events:
            self._classes += 1
            self._events.put(NewClass(self._classes, solution, model, dict(details)))

    def wants_classes(self) -> bool:
        """Whether the run hands its new classes over (it makes each representative only then)."""
        return self.class_events is None or self.class_events > 0


def start(
    puzzle: PuzzleGiven,
    *,
    class_events: int | None = MAX_PICTURED,
    engines: Engines | None = None,
    on_ready: ReadyHook | None = None,
    **options: Any,
) -> Job:
    """Start a run of a puzzle file (one problem: a file of several needs `problem=`), a spec
    given as a dict (its errors name it `<spec>`) or a puzzle read with `cpsolve.formats`, and
    return its Job at once. `options` are `cpsolve.options.Options` by name (`time_limit=10`,
    `first=True`, `disassemble=True`, `workers=2`, ...). `class_events`: how many new classes are
    sent as events (None: every one; 0: none, the cheapest). Raises CpsolveError at once for an
    option refused or a file that cannot be read; what the model refuses ends the job `failed`."""
    _check_job_keywords(class_events, engines, on_ready)
    settings = Options.of(options)
    return start_loaded(
        load(puzzle, settings), settings.run_options(engines), class_events=class_events, on_ready=on_ready
    )


def _check_job_keywords(class_events: Any, engines: Any, on_ready: Any) -> None:
    """start()'s own keywords, refused in one line naming them (a bad one failed later, inside the
    job, as a TypeError that named none)."""
    if class_events is not None and (isinstance(class_events, bool) or not isinstance(class_events, int)):
        raise OptionError(f"class_events = {class_events!r}: expected a whole number from 0, or None for every one")
    if class_events is not None and class_events < 0:
        raise OptionError(f"class_events = {class_events}: expected a whole number from 0, or None for every one")
    if engines is not None and not isinstance(engines, Engines):
        raise OptionError(f"engines = {engines!r}: expected a cpsolve.engines.Engines registry, or None")
    if on_ready is not None and not callable(on_ready):
        raise OptionError(f"on_ready = {on_ready!r}: expected a function of no arguments, or None")


def _stop_reason(reason: Any) -> StopReason:
    try:
        return StopReason(reason)
    except ValueError:
        known = ", ".join(repr(str(r)) for r in StopReason)
        raise OptionError(f"cancel: reason {reason!r}: expected a StopReason ({known})") from None


def start_loaded(
    puzzle: Puzzle, options: RunOptions, *, class_events: int | None = MAX_PICTURED, on_ready: ReadyHook | None = None
) -> Job:
    """A job on a puzzle already read, with options already made (the command line's, a batch's)."""
    return Job(puzzle, options, class_events, on_ready).begin()


def load(puzzle: PuzzleGiven, settings: Options) -> Puzzle:
    """The one puzzle a job runs: read from a file (one problem), made from a spec dict, or as given."""
    if isinstance(puzzle, Puzzle):
        return puzzle
    if isinstance(puzzle, Mapping):
        return formats.puzzle_from_data(puzzle)
    found = formats.read_puzzles(puzzle, ReadOptions(int(settings.max_file_size * 2**20), settings.problem))
    if len(found) > 1:
        listing = ", ".join(f"{p.problem} {p.document.names[p.index]!r}" for p in found[:10])
        raise CpsolveError(
            f"{puzzle}: holds {len(found)} problems ({listing}); give problem=N, or use cpsolve.solve_all"
        )
    return found[0]


def signalled_stop(job: Job, report: RunReport) -> StopReason | None:
    """INTERRUPTED or TERMINATED where the program's Ctrl-C or SIGTERM reached this job through
    `follow`: its report stopped by it, or complete because the signal came as the run was ending,
    too late to stop it. A program that goes on to more work (a batch's next file, the next
    problem of a file) must stop in both cases, else that signal is lost: a batch once ran on
    through its files into an endless search after its Ctrl-C."""
    for reason in (report.stopped_by, job.stop_asked):
        if reason in (StopReason.INTERRUPTED, StopReason.TERMINATED):
            return reason
    return None


def ignore(event: JobEvent) -> None:
    """For `follow` where only the report matters."""


def follow(job: Job, handle: Callable[[JobEvent], None]) -> RunReport:
    """Hand each of the job's events to `handle` in this thread and return the report: for the
    main thread of a program, where Ctrl-C and SIGTERM arrive as exceptions, each of which becomes
    a cancel (`interrupted`, `terminated`) while the events go on to the report, which says what
    was found so far. Where `handle` fails (an output that cannot be written), the job is
    cancelled and waited for, and the error raised."""
    from cpsolve.errors import Terminated

    finished = False
    while True:
        try:
            if finished:  # a signal while the report is taken is noted (the report says so) too
                return job.result()
            event = job.next_event(FOLLOW_POLL_SECONDS)
            if event is None:
                # the last event may have been lost to a signal between its taking and its handling
                finished = job.done() and job.drained()
                continue
            try:
                handle(event)
            except (KeyboardInterrupt, Terminated):
                raise
            except BaseException:
                job.cancel()
                job.wait()
                raise
            finished = isinstance(event, Finished | Failed)
        except KeyboardInterrupt:
            job.cancel(StopReason.INTERRUPTED)
        except Terminated:
            job.cancel(StopReason.TERMINATED)
