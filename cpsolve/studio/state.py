"""What the studio's server holds: its workspace, its token, its jobs (each with every event it
sent, for readers early or late), which page has which file open, and the requests and answers of
its API as pydantic models (the API's statement: its OpenAPI page is made from them).

At most MAX_RUNNING jobs and validations run at once, each job under a time limit
(STUDIO_TIME_LIMIT unless a shorter one is asked for). Finished jobs are kept within a budget of
bytes, newest first: the newest keep their model and solutions (their page and exports), older
ones only their report and last event, and at most MAX_KEPT are remembered, so that a server that
runs a day of jobs stays within a bound (docs/studio.md has the measurement).
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterator
from contextlib import aclosing, contextmanager
from dataclasses import dataclass, field
from itertools import count
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from cpsolve import formats, jobs
from cpsolve.errors import CpsolveError, printable
from cpsolve.events import NewClass, Progress
from cpsolve.formats import PuzzleFile, ReadOptions
from cpsolve.found import ClassCollector
from cpsolve.jobs import Job
from cpsolve.options import Options, Outputs
from cpsolve.studio.workspace import Drafts, Workspace

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")
MAX_RUNNING = 4  # jobs running at once: each holds a model, and the cores are shared
MAX_KEPT = 200  # jobs remembered (the oldest finished ones are forgotten first)
STUDIO_TIME_LIMIT = 600.0  # seconds: a job's limit unless it asks for a shorter one
REQUEST_SECONDS = 60.0  # what a request that works without a job (validate, an export) may take
PICTURED = 100  # classes a job sends as events and keeps for its page, at most (`show` says how many)
KEEPALIVE_SECONDS = 5.0  # a quiet event stream sends a comment this often (proxies keep it open)
MAX_STREAMS = 64  # event streams open at once (a page has one)
# A job's progress events are kept (for readers early or late) as they come, 10 a second, for its
# first PROGRESS_DENSE_SECONDS, then one every PROGRESS_GAP_LATE: a 600 s job keeps about 1,500
PROGRESS_DENSE_SECONDS = 100.0
PROGRESS_GAP_LATE = 1.0  # an event stream with nothing to say writes a comment this often
REFUSED_OPTIONS = ("checkpoint", "cluster")  # they write files or reach other machines
# Finished jobs: at most this many keep their model and solutions (their page and exports), and
# all of them together at most RESULT_BYTES of models and events; past that, the oldest keep their
# report and last event only. A page open on a file says so every PRESENCE_SECONDS / 3.
KEPT_WHOLE = 8
RESULT_BYTES = 256 * 2**20
PRESENCE_SECONDS = 30.0


class JobRequest(BaseModel):
    """A job: a spec as JSON (`spec`) or a puzzle file of the workspace (`path`), which problem
    of a file of several, and the run's options by their library names (cpsolve.options.Options;
    checkpoint and cluster are refused: they write files or reach other machines)."""

    model_config = ConfigDict(extra="forbid")

    spec: dict[str, Any] | None = Field(default=None, description="a spec as JSON: the YAML spec's fields")
    name: str | None = Field(
        default=None, max_length=500, description="the file a spec is drawn from: what its errors and report name it"
    )
    path: str | None = Field(default=None, description="a puzzle file in the workspace")
    problem: str | None = Field(default=None, description="which problem of a file: a number from 0 or a name")
    options: Options = Field(default_factory=Options, description="the run's options, as `cpsolve run` takes them")


def output_field(name: str) -> Any:
    """A field of Outputs as Outputs states it (its default, bounds and description), for a model
    of the API that takes it too."""
    return Outputs.model_fields[name]


class ExportRequest(BaseModel):
    """Which solution an export draws and the pieces' sizes: the outputs' own fields
    (cpsolve.options.Outputs), as `cpsolve run --solution N --stl-unit MM ...` takes them."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    solution: int | None = output_field("solution")
    explode: bool = output_field("explode")
    stl_unit: float = output_field("stl_unit")
    stl_gap: float = output_field("stl_gap")
    stl_bevel: float = output_field("stl_bevel")

    def outputs(self) -> Outputs:
        """The outputs these fields make, checked by Outputs' own rules."""
        checked: Outputs = Outputs.of(self.model_dump())
        return checked


class JobStarted(BaseModel):
    id: str = Field(description="the job's id, for its state, events, page and exports")


class JobStatus(BaseModel):
    """A job as GET /api/jobs/{id} gives it: its state, and once it has ended its report as
    `cpsolve run --json` prints it, or the one line a command-line run would have printed."""

    state: str = Field(description="running, done, cancelled or failed")
    events: int = Field(description="events sent so far")
    report: dict[str, Any] | None = Field(default=None, description="the report, as `cpsolve run --json` prints it")
    error: str | None = Field(default=None, description="why it failed, in one line")


class FileBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    content: str = Field(description="the file's text (a .xmpuzzle as its XML)")
    base: str | None = Field(default=None, description="the revision read: refused (409) where the file changed since")


MAX_PROBLEMS = 1_000  # problems a saved puzzle may hold (BurrTools' largest examples hold a few dozen)


class ProblemBody(BaseModel):
    """One problem of a puzzle the editor saves: its name and its spec."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(max_length=200, description="the problem's name (BurrTools' problems may have none)")
    spec: dict[str, Any] = Field(description="the problem as a spec (the editor's form: shapes as cells)")


class SpecBody(BaseModel):
    """What the editor saves: one spec, or a puzzle of problems (saved as one BurrTools file)."""

    model_config = ConfigDict(extra="forbid")

    spec: dict[str, Any] | None = Field(default=None, description="the puzzle as a spec (shapes as cells)")
    problems: list[ProblemBody] | None = Field(
        default=None, min_length=1, max_length=MAX_PROBLEMS, description="or its problems, each a name and a spec"
    )
    base: str | None = Field(default=None, description="the revision read: refused (409) where the file changed since")

    @model_validator(mode="after")
    def one_of(self) -> SpecBody:
        if (self.spec is None) == (self.problems is None):
            raise ValueError("give `spec` (one puzzle) or `problems` (a puzzle of problems), one of the two")
        return self

    def named_problems(self) -> list[tuple[str, dict[str, Any]]]:
        """Each problem as a name and its spec (a spec alone: one problem, named by the spec)."""
        if self.problems is None:
            assert self.spec is not None
            return [("", self.spec)]
        return [(problem.name, problem.spec) for problem in self.problems]


class Busy(CpsolveError):
    """Too many jobs running: 429."""


class Missing(CpsolveError):
    """No such job or file: 404."""


@dataclass
class Running:
    """A job and every event it sent, each as the server-sent event it is streamed as, for any
    number of readers, early or late."""

    job: Job
    collected: ClassCollector = field(default_factory=lambda: ClassCollector(PICTURED))
    events: list[str] = field(default_factory=list)
    event_bytes: int = 0
    guard: threading.Lock = field(default_factory=threading.Lock)  # events, ended, wakers
    ended: bool = False
    whole: bool = True  # it keeps its model and solutions (False: let go to keep within the budget)
    wakers: list[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = field(default_factory=list)

    def wake_readers(self) -> None:
        """Tell every waiting stream (each on its event loop) that there is news; under `guard`."""
        for loop, news in self.wakers:
            try:
                loop.call_soon_threadsafe(news.set)
            except RuntimeError:  # its loop has closed: nobody is reading there any more
                continue

    def pump(self, settle: Callable[[], None] | None = None) -> None:
        """Move the job's events into `events` (a thread of its own: the job's events have one
        reader), keeping each new class's solution for the job's page; `settle` once it ends."""
        last_progress = -PROGRESS_GAP_LATE
        for event in self.job.events():
            if isinstance(event, NewClass):
                self.collected(event.solution, event.model, event.details)
            if isinstance(event, Progress):  # every one at first, then one a second: a bounded list
                gap = PROGRESS_GAP_LATE if event.seconds > PROGRESS_DENSE_SECONDS else 0.0
                if event.seconds - last_progress < gap:
                    continue
                last_progress = event.seconds
            data = event.as_json()
            frame = f"event: {data['event']}\ndata: {json.dumps(data)}\n\n"
            with self.guard:
                self.events.append(frame)
                self.event_bytes += len(frame)
                self.wake_readers()
        with self.guard:
            self.ended = True
            self.wake_readers()
        if settle is not None:
            settle()

    async def stream(self) -> AsyncGenerator[str, None]:
        """The events as server-sent events, from the first, until the job ends. On the event
        loop, woken by the job's thread as each event comes (a reader that waited in a thread held
        one of the few the sync routes share: 60 readers slowed every request to 0.6-1.4 s; one
        that looked every 50 ms added up to 50 ms to every answer)."""
        news = asyncio.Event()
        waker = (asyncio.get_running_loop(), news)
        with self.guard:
            self.wakers.append(waker)
        try:
            sent = 0
            while True:
                news.clear()  # before reading: an event appended after this read sets it again
                with self.guard:
                    fresh, ended, held = self.events[sent:], self.ended, len(self.events)
                for frame in fresh:
                    yield frame
                sent += len(fresh)
                if (ended and sent == held) or sent > held:  # the end, or its events let go meanwhile
                    return
                if fresh:
                    continue
                try:
                    await asyncio.wait_for(news.wait(), KEEPALIVE_SECONDS)
                except TimeoutError:
                    yield ": still running\n\n"
        finally:
            with self.guard:
                self.wakers.remove(waker)

    def bytes(self) -> int:
        """What it holds, roughly: its events and, while whole, its model."""
        model = self.collected.model if self.whole else None
        return self.event_bytes + (approximate_bytes(model) if model is not None else 0)

    def let_go(self) -> None:
        """Keep only the report and the last event: the model, the solutions kept for the page
        and the events before the last are let go (a finished job's page and exports then say so)."""
        if not self.ended or not self.whole:
            return
        with self.guard:
            self.whole = False
            self.collected = ClassCollector(0)
            self.events = self.events[-1:]
            self.event_bytes = sum(map(len, self.events))
        self.job.puzzle.let_go()

    def state(self) -> JobStatus:
        job = self.job
        state = JobStatus(state=str(job.state), events=len(self.events))
        if job.done():
            error = job.error
            if error is None:
                state.report = job.result().as_json()
            else:
                state.error = (
                    printable(str(error)) if isinstance(error, CpsolveError) else f"{type(error).__name__}: {error}"
                )
        return state


def approximate_bytes(value: Any, depth: int = 4) -> int:
    """What a model holds, roughly: the bytes of the numpy arrays it reaches (through attributes,
    dicts, lists and tuples, a few levels down), where a model's size is."""
    seen: set[int] = set()

    def size(item: Any, left: int) -> int:
        if id(item) in seen or left < 0:
            return 0
        seen.add(id(item))
        if isinstance(item, np.ndarray):
            return int(item.nbytes)
        if isinstance(item, dict):
            return sum(size(inner, left - 1) for inner in list(item.values())[:10_000])
        if isinstance(item, list | tuple):
            return sum(size(inner, left - 1) for inner in item[:10_000])
        attributes = getattr(item, "__dict__", None)
        return 0 if attributes is None else sum(size(inner, left - 1) for inner in list(attributes.values()))

    return size(value, depth)


@dataclass
class Studio:
    """What the server holds: its folder, its token, its jobs."""

    workspace: Workspace
    token: str
    port: int | None = None  # the port it listens on (None: not checked, as under a test client)
    hosts: tuple[str, ...] = LOOPBACK_NAMES
    jobs: dict[str, Running] = field(default_factory=dict)
    numbers: Iterator[int] = field(default_factory=lambda: count(1))
    lock: threading.Lock = field(default_factory=threading.Lock)
    seen: dict[str, dict[str, float]] = field(default_factory=dict)  # path -> page -> when it last said so
    checking: int = 0  # validations running (they build a model too, and count against MAX_RUNNING)
    streams: int = 0  # event streams open (at most MAX_STREAMS)

    @property
    def drafts(self) -> Drafts:
        return Drafts(self.workspace)

    def present(self, path: str, client: str, leaving: bool = False) -> list[str]:
        """A page says it has `path` open (or, `leaving`, no longer); the other pages that have
        it open now, so that the second tab on one file is told."""
        self.workspace.check(path)
        now = time.monotonic()
        with self.lock:
            pages = self.seen.setdefault(path, {})
            if leaving:
                pages.pop(client, None)
            else:
                pages[client] = now
            for other, when in list(pages.items()):
                if now - when > PRESENCE_SECONDS:
                    del pages[other]
            if len(self.seen) > 10_000:  # a bound on what requests can make it hold
                self.seen = {path: pages}
            return sorted(other for other in pages if other != client)

    def events_of(self, number: str) -> AsyncIterator[str]:
        """A job's event stream, one of at most MAX_STREAMS open at once (Busy past them)."""
        record = self.record(number)
        with self.lock:
            if self.streams >= MAX_STREAMS:
                raise Busy(f"{self.streams} event streams are open, the most the studio serves at once; close one")

        async def counted() -> AsyncIterator[str]:  # counted while it is read (a stream never read holds nothing)
            with self.lock:
                self.streams += 1
            try:
                async with aclosing(record.stream()) as frames:  # its reader let go at once when a page leaves
                    async for frame in frames:
                        yield frame
            finally:
                with self.lock:
                    self.streams -= 1

        return counted()

    @contextmanager
    def checking_slot(self) -> Iterator[None]:
        """A validation's turn: it builds a model as a job does, so it counts against MAX_RUNNING."""
        with self.lock:
            running = sum(not record.job.done() for record in self.jobs.values()) + self.checking
            if running >= MAX_RUNNING:
                raise Busy(f"{running} jobs and checks are running, the most the studio runs at once; wait")
            self.checking += 1
        try:
            yield
        finally:
            with self.lock:
                self.checking -= 1

    def start(self, request: JobRequest) -> str:
        """Start a job; its id. CpsolveError for a request it cannot run."""
        asked = request.options.model_dump(exclude_unset=True)
        refused = [name for name in REFUSED_OPTIONS if asked.get(name) is not None]
        if refused:
            raise CpsolveError(
                f"options.{refused[0]}: not taken by the studio (it writes files or reaches other machines)"
            )
        if request.problem is not None:
            asked["problem"] = request.problem
        limit = request.options.time_limit
        asked["time_limit"] = STUDIO_TIME_LIMIT if limit is None or limit > STUDIO_TIME_LIMIT else limit
        settings: Options = Options.of(asked)
        puzzle = self.puzzle_of(request, settings)
        with self.lock:
            running = sum(not record.job.done() for record in self.jobs.values()) + self.checking
            if running >= MAX_RUNNING:
                raise Busy(f"{running} jobs are running, the most the studio runs at once; cancel one or wait")
            job = jobs.start_loaded(puzzle, settings.run_options(), class_events=min(settings.show or 0, PICTURED))
            number = f"j{next(self.numbers)}"
            record = Running(job)
            self.jobs[number] = record
            threading.Thread(
                target=record.pump, args=(self.settle,), name=f"studio events {number}", daemon=True
            ).start()
        self.settle()
        return number

    def puzzle_of(self, request: JobRequest, settings: Options) -> formats.Puzzle:
        """The puzzle a request names: its spec, or its workspace file (one problem of it)."""
        if (request.spec is None) == (request.path is None):
            raise CpsolveError("give either spec (a spec as JSON) or path (a puzzle file in the workspace)")
        if request.spec is not None:
            return formats.puzzle_from_data(request.spec, request.name or formats.SPEC_AS_DATA)
        assert request.path is not None
        file = PuzzleFile(request.path, self.workspace.read(request.path))
        found = formats.puzzles(file, ReadOptions(self.workspace.max_bytes, settings.problem))
        if len(found) > 1:
            raise CpsolveError(f"{request.path}: holds {len(found)} problems; give problem (a number from 0 or a name)")
        return found[0]

    def settle(self) -> None:
        """Keep the finished jobs within the budget, newest first (see the module's docstring)."""
        with self.lock:
            finished = [number for number, record in self.jobs.items() if record.ended]
            budget, whole = RESULT_BYTES, 0
            for number in reversed(finished):
                record = self.jobs[number]
                cost = record.bytes()
                if record.whole and whole < KEPT_WHOLE and cost <= budget:
                    whole += 1
                else:
                    record.let_go()
                    cost = record.bytes()
                budget -= cost
            for number in finished[: max(0, len(self.jobs) - MAX_KEPT)]:
                del self.jobs[number]

    def record(self, number: str) -> Running:
        record = self.jobs.get(number)
        if record is None:
            raise Missing(f"no job {printable(number)!r}")
        return record

    def finished(self, number: str, wanted: str) -> Running:
        """A job that has ended with a report (`wanted`: what the request asks of it, for the refusal)."""
        record = self.record(number)
        if not record.job.done() or record.job.error is not None:
            raise Missing(f"job {number} has no {wanted}: it is {record.job.state}")
        if not record.whole:
            raise Missing(
                f"job {number} has no {wanted} any more: its solutions were let go to keep the studio's memory"
                " bounded (the newest jobs keep theirs); run it again"
            )
        return record
