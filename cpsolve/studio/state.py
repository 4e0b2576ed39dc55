"""What the studio's server holds: its workspace, its token, its jobs (each with every event it
sent, for readers early or late), and the requests and answers of its API as pydantic models (the
API's statement: its OpenAPI page is made from them).

At most MAX_RUNNING jobs run at once, each under a time limit (STUDIO_TIME_LIMIT unless a shorter
one is asked for); at most MAX_KEPT finished ones are remembered, the oldest forgotten first.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import count
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from cpsolve import formats, jobs
from cpsolve.errors import CpsolveError, printable
from cpsolve.events import NewClass, Progress
from cpsolve.formats import PuzzleFile, ReadOptions
from cpsolve.found import ClassCollector
from cpsolve.jobs import Job
from cpsolve.options import Options, Outputs
from cpsolve.studio.workspace import Workspace

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")
MAX_RUNNING = 4  # jobs running at once: each holds a model, and the cores are shared
MAX_KEPT = 200  # jobs remembered (the oldest finished ones are forgotten first)
STUDIO_TIME_LIMIT = 600.0  # seconds: a job's limit unless it asks for a shorter one
REQUEST_SECONDS = 60.0  # what a request that works without a job (validate, an export) may take
PICTURED = 100  # classes a job sends as events and keeps for its page, at most (`show` says how many)
KEEPALIVE_SECONDS = 5.0
# A job's progress events are kept (for readers early or late) as they come, 10 a second, for its
# first PROGRESS_DENSE_SECONDS, then one every PROGRESS_GAP_LATE: a 600 s job keeps about 1,500
PROGRESS_DENSE_SECONDS = 100.0
PROGRESS_GAP_LATE = 1.0  # an event stream with nothing to say writes a comment this often
REFUSED_OPTIONS = ("checkpoint", "cluster")  # they write files or reach other machines


class JobRequest(BaseModel):
    """A job: a spec as JSON (`spec`) or a puzzle file of the workspace (`path`), which problem
    of a file of several, and the run's options by their library names (cpsolve.options.Options;
    checkpoint and cluster are refused: they write files or reach other machines)."""

    model_config = ConfigDict(extra="forbid")

    spec: dict[str, Any] | None = Field(default=None, description="a spec as JSON: the YAML spec's fields")
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


class SpecBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    spec: dict[str, Any] = Field(description="the puzzle as a spec (the editor's form: shapes as cells)")


class Busy(CpsolveError):
    """Too many jobs running: 429."""


class Missing(CpsolveError):
    """No such job or file: 404."""


class Exists(CpsolveError):
    """A new file's name is taken: 409."""


@dataclass
class Running:
    """A job and every event it sent, as JSON, for any number of readers, early or late."""

    job: Job
    collected: ClassCollector = field(default_factory=lambda: ClassCollector(PICTURED))
    events: list[dict[str, Any]] = field(default_factory=list)
    changed: threading.Condition = field(default_factory=threading.Condition)
    ended: bool = False

    def pump(self) -> None:
        """Move the job's events into `events` (a thread of its own: the job's events have one
        reader), keeping each new class's solution for the job's page."""
        last_progress = -PROGRESS_GAP_LATE
        for event in self.job.events():
            if isinstance(event, NewClass):
                self.collected(event.solution, event.model, event.details)
            if isinstance(event, Progress):  # every one at first, then one a second: a bounded list
                gap = PROGRESS_GAP_LATE if event.seconds > PROGRESS_DENSE_SECONDS else 0.0
                if event.seconds - last_progress < gap:
                    continue
                last_progress = event.seconds
            with self.changed:
                self.events.append(event.as_json())
                self.changed.notify_all()
        with self.changed:
            self.ended = True
            self.changed.notify_all()

    def stream(self) -> Iterator[str]:
        """The events as server-sent events, from the first, until the job ends."""
        sent = 0
        while True:
            with self.changed:
                if sent == len(self.events) and not self.ended:
                    self.changed.wait(KEEPALIVE_SECONDS)
                fresh, ended = self.events[sent:], self.ended
            for event in fresh:
                yield f"event: {event['event']}\ndata: {json.dumps(event)}\n\n"
            sent += len(fresh)
            if ended and sent == len(self.events):
                return
            if not fresh:
                yield ": still running\n\n"

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
            running = sum(not record.job.done() for record in self.jobs.values())
            if running >= MAX_RUNNING:
                raise Busy(f"{running} jobs are running, the most the studio runs at once; cancel one or wait")
            job = jobs.start_loaded(puzzle, settings.run_options(), class_events=min(settings.show or 0, PICTURED))
            number = f"j{next(self.numbers)}"
            record = Running(job)
            threading.Thread(target=record.pump, name=f"studio events {number}", daemon=True).start()
            self.jobs[number] = record
            self._forget_old()
        return number

    def puzzle_of(self, request: JobRequest, settings: Options) -> formats.Puzzle:
        """The puzzle a request names: its spec, or its workspace file (one problem of it)."""
        if (request.spec is None) == (request.path is None):
            raise CpsolveError("give either spec (a spec as JSON) or path (a puzzle file in the workspace)")
        if request.spec is not None:
            return jobs.load(request.spec, settings)
        assert request.path is not None
        file = PuzzleFile(request.path, self.workspace.read(request.path))
        found = formats.puzzles(file, ReadOptions(self.workspace.max_bytes, settings.problem))
        if len(found) > 1:
            raise CpsolveError(f"{request.path}: holds {len(found)} problems; give problem (a number from 0 or a name)")
        return found[0]

    def _forget_old(self) -> None:
        finished = [number for number, record in self.jobs.items() if record.ended]
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
        return record
