"""The studio's HTTP API: puzzles run as jobs (cpsolve.jobs) in one warm process.

Every route is under /api and answers JSON (the job's events as server-sent events); the OpenAPI
description is at /api/openapi.json (FastAPI's own docs page is not served: it loads its scripts
from a CDN). A local server is an attack surface, so every request passes `guard` first: its
Host must name this machine's loopback (a page of another site that a DNS name pointed here is
refused: no DNS rebinding), an Origin, where a browser sends one, must be this server's own, the
token printed at start must come as `Authorization: Bearer TOKEN` or `?token=TOKEN` (401 without,
403 wrong), and a body must say its length and stay within the puzzle-file limit. Files are read
and written only in the workspace (cpsolve.studio.workspace); at most MAX_RUNNING jobs run at
once, each under a time limit (STUDIO_TIME_LIMIT unless a shorter one is asked for).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import threading
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from importlib import resources
from itertools import count
from typing import Any
from urllib.parse import urlsplit

from fastapi import FastAPI, Request, Response
from fastapi.responses import HTMLResponse, JSONResponse, StreamingResponse
from pydantic import BaseModel, ConfigDict, Field

from cpsolve import formats, jobs
from cpsolve.errors import CpsolveError, OutOfTimeError, printable
from cpsolve.events import NewClass, Progress
from cpsolve.formats import PuzzleFile, ReadOptions, burrtools
from cpsolve.found import ClassCollector
from cpsolve.jobs import Job
from cpsolve.limits import Deadline
from cpsolve.options import Options
from cpsolve.pictures import page_html, scene
from cpsolve.studio import assets
from cpsolve.studio.editable import read_editable, written
from cpsolve.studio.exports import MEDIA_TYPES, ExportKind, exported, file_name
from cpsolve.studio.workspace import OutsideWorkspace, Workspace

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
# A job's page runs its own inline script and style and nothing from elsewhere; the studio's page
# runs its scripts from this server (three.js among them: cpsolve.studio.assets) and the one inline
# import map whose hash it names, fetches from this server alone and frames the job's page
PAGE_POLICY = (
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:;"
    " connect-src 'self'; frame-src 'self'; frame-ancestors 'self'"
)
STUDIO_POLICY = (
    "default-src 'none'; script-src 'self' '{import_map}'; style-src 'self' 'unsafe-inline'; img-src 'self' data:;"
    " connect-src 'self'; frame-src 'self'; frame-ancestors 'none'"
)
STATIC = "/static/"  # the page's scripts, under /static/TOKEN/: a module's imports carry no header
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


class JobRequest(BaseModel):
    """A job: a spec as JSON (`spec`) or a puzzle file of the workspace (`path`), which problem
    of a file of several, and the run's options by their library names (cpsolve.options.Options)."""

    model_config = ConfigDict(extra="forbid")

    spec: dict[str, Any] | None = Field(default=None, description="a spec as JSON: the YAML spec's fields")
    path: str | None = Field(default=None, description="a puzzle file in the workspace")
    problem: str | None = Field(default=None, description="which problem of a file: a number from 0 or a name")
    options: dict[str, Any] = Field(default_factory=dict, description="run options: first, time_limit, ...")


class FileBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    content: str = Field(description="the file's text (a .xmpuzzle as its XML)")


class SpecBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    spec: dict[str, Any] = Field(description="the puzzle as a spec (the editor's form: shapes as cells)")


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
        options = dict(request.options)
        refused = [name for name in REFUSED_OPTIONS if options.get(name) is not None]
        if refused:
            raise CpsolveError(
                f"options.{refused[0]}: not taken by the studio (it writes files or reaches other machines)"
            )
        if request.problem is not None:
            options["problem"] = request.problem
        settings = Options.of(options)
        if settings.time_limit is None or settings.time_limit > STUDIO_TIME_LIMIT:
            settings = Options.of({**options, "time_limit": STUDIO_TIME_LIMIT})
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
            raise Missing(f"no job {number!r}")
        return record


class Busy(CpsolveError):
    """Too many jobs running: 429."""


class Missing(CpsolveError):
    """No such job or file: 404."""


class Exists(CpsolveError):
    """A new file's name is taken: 409."""


def job_state(record: Running) -> dict[str, Any]:
    """A job as GET /api/jobs/{id} gives it: its state, and once it has ended its report as
    `cpsolve run --json` prints it, or the one line a command-line run would have printed."""
    job = record.job
    state: dict[str, Any] = {"state": job.state, "events": len(record.events)}
    if job.done():
        error = job.error
        if error is None:
            state["report"] = job.result().as_json()
        else:
            state["error"] = (
                printable(str(error)) if isinstance(error, CpsolveError) else f"{type(error).__name__}: {error}"
            )
    return state


def create_app(studio: Studio) -> FastAPI:
    """The API over `studio`."""
    app = FastAPI(
        title="cpsolve studio",
        description="Solve, count and take apart puzzles in a warm process; every request needs the token.",
        docs_url=None,
        redoc_url=None,
        openapi_url="/api/openapi.json",
    )

    @app.middleware("http")
    async def guard(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        refusal = refused(studio, request)
        response = refusal if refusal is not None else await call_next(request)
        for name, value in SECURITY_HEADERS.items():
            if name not in response.headers:  # the pages say their own policy
                response.headers[name] = value
        return response

    @app.exception_handler(CpsolveError)
    async def one_line(request: Request, error: CpsolveError) -> JSONResponse:
        status = 429 if isinstance(error, Busy) else 404 if isinstance(error, Missing) else 400
        if isinstance(error, Exists):
            status = 409
        if isinstance(error, OutsideWorkspace):
            status = 403
        return JSONResponse({"error": printable(str(error))}, status_code=status)

    @app.post("/api/jobs", status_code=201)
    def start_job(request: JobRequest) -> dict[str, str]:
        """Start a run; its id at once (the run goes on in the server)."""
        return {"id": studio.start(request)}

    @app.get("/api/jobs")
    def list_jobs() -> dict[str, dict[str, Any]]:
        """Every job remembered, by id, with its state."""
        return {number: {"state": record.job.state} for number, record in list(studio.jobs.items())}

    @app.get("/api/jobs/{number}")
    def get_job(number: str) -> dict[str, Any]:
        """The job's state; its report once it has ended."""
        return job_state(studio.record(number))

    @app.get("/api/jobs/{number}/events")
    def job_events(number: str) -> StreamingResponse:
        """The job's events from its start, as server-sent events, until it ends."""
        return StreamingResponse(studio.record(number).stream(), media_type="text/event-stream")

    @app.delete("/api/jobs/{number}")
    def cancel_job(number: str) -> dict[str, Any]:
        """Cancel the job: it stops at its engine's next slice, its report marked cancelled."""
        record = studio.record(number)
        record.job.cancel()
        record.job.wait(10)
        return job_state(record)

    @app.get("/", response_class=HTMLResponse)
    def page() -> HTMLResponse:
        """The studio's page: the workspace's files, a puzzle drawn and edited in 3-D or as text,
        runs started, watched and cancelled, their counts and solutions."""
        text = resources.files("cpsolve.studio").joinpath("static/studio.html").read_text(encoding="utf-8")
        html, import_map = studio_page(text, studio.token)
        return HTMLResponse(html, headers={"Content-Security-Policy": STUDIO_POLICY.format(import_map=import_map)})

    @app.get(STATIC + "{token}/vendor/{name}")
    def vendor(token: str, name: str) -> Response:
        """A file of three.js as the page imports it (installed by `cpsolve compile`)."""
        path = assets.vendor_file(name)
        if path is None:
            raise Missing(assets.NOT_INSTALLED if name in assets.VENDOR_FILES else f"no file {name!r}")
        return Response(path.read_bytes(), media_type=assets.MEDIA[".js"])

    @app.get(STATIC + "{token}/{name}")
    def own(token: str, name: str) -> Response:
        """One of the page's own scripts or its style sheet."""
        text = assets.own_file(name)
        if text is None:
            raise Missing(f"no file {name!r}")
        return Response(text, media_type=assets.MEDIA[name[name.rindex(".") :]])

    @app.get("/api/jobs/{number}/page", response_class=HTMLResponse)
    def job_page(number: str) -> HTMLResponse:
        """The finished job's solutions as the page `cpsolve run --html` writes (the same viewer)."""
        record = studio.record(number)
        if not record.job.done() or record.job.error is not None:
            raise Missing(f"job {number} has no page: it is {record.job.state}")
        if record.collected.model is None:
            raise Missing(f"job {number} has no page: it kept no solution")
        drawn = scene(record.job.result(), record.collected)
        return HTMLResponse(page_html(drawn), headers={"Content-Security-Policy": PAGE_POLICY})

    @app.get("/api/jobs/{number}/export/{kind}")
    def export(number: str, kind: ExportKind) -> Response:
        """A finished job's page, picture, pieces for printing (zipped STL) or BurrTools file, as a download."""
        record = studio.record(number)
        if not record.job.done() or record.job.error is not None:
            raise Missing(f"job {number} has nothing to export: it is {record.job.state}")
        report = record.job.result()
        try:
            content = exported(kind, report, record.collected, Deadline.after(REQUEST_SECONDS))
        except OutOfTimeError as stopped:
            raise CpsolveError(f"{kind}: not made within {REQUEST_SECONDS:g} s: {stopped}") from None
        disposition = f'attachment; filename="{file_name(report.name, kind)}"'
        return Response(content, media_type=MEDIA_TYPES[kind], headers={"Content-Disposition": disposition})

    @app.get("/api/files")
    def list_files() -> dict[str, list[str]]:
        """The puzzle files of the workspace, as paths relative to it."""
        return {"files": studio.workspace.files()}

    @app.get("/api/files/{relative:path}")
    def read_file(relative: str) -> dict[str, str]:
        """A puzzle file's text (a gzip-compressed .xmpuzzle as its XML)."""
        content = studio.workspace.read(relative)
        if relative.lower().endswith(".xmpuzzle"):
            content = burrtools.decompressed(PuzzleFile(relative, content), studio.workspace.max_bytes)
        return {"path": relative, "content": content.decode("utf-8", errors="replace")}

    @app.put("/api/files/{relative:path}")
    def write_file(relative: str, body: FileBody, new: bool = False) -> dict[str, str]:
        """Replace or make a puzzle file, whole or not at all; with `new`, only make one (409 where
        it exists: a new puzzle never replaces a file)."""
        if new and studio.workspace.path(relative).exists():
            raise Exists(f"{relative}: already in the workspace; choose another name")
        studio.workspace.write(relative, body.content.encode("utf-8"))
        return {"path": relative}

    @app.get("/api/puzzle/{relative:path}")
    def read_puzzle(relative: str, problem: str | None = None) -> dict[str, Any]:
        """A workspace file's puzzle as the editor takes it: a spec with every shape as cells
        (one problem of a file of several), whether the page draws its grid, its problems' names."""
        content = studio.workspace.read(relative)
        return read_editable(PuzzleFile(relative, content), studio.workspace.max_bytes, problem)

    @app.put("/api/puzzle/{relative:path}")
    def write_puzzle(relative: str, body: SpecBody, new: bool = False) -> dict[str, str]:
        """Save an edited spec as YAML or a BurrTools file (by the name's suffix), checked as the
        command line checks a spec. A BurrTools file of several problems is not replaced by one."""
        path = studio.workspace.path(relative)
        if new and path.exists():
            raise Exists(f"{relative}: already in the workspace; choose another name")
        if path.suffix.lower() == ".xmpuzzle" and path.is_file():
            existing = PuzzleFile(relative, studio.workspace.read(relative))
            problems = len(formats.puzzles(existing, ReadOptions(studio.workspace.max_bytes)))
            if problems > 1:
                raise CpsolveError(
                    f"{relative}: holds {problems} problems; saving one would drop the others: save under a new name"
                )
        studio.workspace.write(relative, written(body.spec, path, relative))
        return {"path": relative}

    @app.post("/api/validate")
    def validate(request: JobRequest) -> dict[str, Any]:
        """Check a spec or a workspace file as `cpsolve validate` does: ok, or the one-line message."""
        try:
            settings = Options.of({**request.options, **({"problem": request.problem} if request.problem else {})})
            puzzle = studio.puzzle_of(request, settings)
            puzzle.model(settings.run_options().build, Deadline.after(REQUEST_SECONDS))
        except CpsolveError as error:
            return {"ok": False, "error": printable(str(error))}
        except OutOfTimeError as stopped:
            return {"ok": False, "error": f"not checked within {REQUEST_SECONDS:g} s: {stopped}"}
        return {"ok": True, "name": puzzle.loaded.spec.name}

    return app


def refused(studio: Studio, request: Request) -> Response | None:
    """Why a request is refused before it is handled (Host, Origin, token, body size), or None."""
    host = urlsplit(f"//{request.headers.get('host', '')}")
    if host.hostname not in studio.hosts:
        return JSONResponse({"error": "the Host header must name this machine (127.0.0.1 or localhost)"}, 421)
    origin = request.headers.get("origin")
    if origin is not None and not own_origin(studio, origin):
        return JSONResponse({"error": f"requests from {printable(origin)} are refused: not this studio's page"}, 403)
    given = token_of(request)
    if given is None:
        return JSONResponse({"error": "the studio's token is needed: Authorization: Bearer TOKEN or ?token=TOKEN"}, 401)
    if not hmac.compare_digest(given.encode(), studio.token.encode()):
        return JSONResponse({"error": "wrong token"}, 403)
    if request.method in ("POST", "PUT", "PATCH"):
        length = request.headers.get("content-length")
        if length is None or not length.isdigit():
            return JSONResponse({"error": "a body must say its length (Content-Length)"}, 411)
        if int(length) > 2 * studio.workspace.max_bytes:
            return JSONResponse({"error": f"a body of {int(length):,} bytes is past the studio's limit"}, 413)
    return None


def own_origin(studio: Studio, origin: str) -> bool:
    """Whether an Origin is this server's own page: http, a loopback name, this port."""
    parts = urlsplit(origin)
    if parts.scheme != "http" or parts.hostname not in studio.hosts:
        return False
    return studio.port is None or parts.port == studio.port


def token_of(request: Request) -> str | None:
    """The token a request carries: its Authorization header, `?token=`, or (the page's scripts,
    whose module imports carry neither) the folder after /static/."""
    bearer = request.headers.get("authorization", "")
    if bearer.lower().startswith("bearer "):
        return bearer[7:].strip()
    if request.url.path.startswith(STATIC):
        return request.url.path[len(STATIC) :].split("/", 1)[0]
    return request.query_params.get("token")


def studio_page(template: str, token: str) -> tuple[str, str]:
    """The studio's page for this token (its scripts under /static/TOKEN/, three.js named in its
    import map), and the CSP hash of that import map, the one inline script it runs."""
    base = f"{STATIC}{token}/"
    import_map = json.dumps({"imports": {"three": f"{base}vendor/three.module.js", "three/addons/": f"{base}vendor/"}})
    digest = base64.b64encode(hashlib.sha256(import_map.encode()).digest()).decode()
    html = template.replace("{{IMPORT_MAP}}", import_map).replace("{{STATIC}}", base)
    return html, f"sha256-{digest}"
