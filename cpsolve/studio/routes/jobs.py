"""Jobs: started, listed, watched as server-sent events, cancelled, and read once done as the
command line prints them (the report), draws them (the page) and writes them (the exports)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query
from fastapi.responses import HTMLResponse, Response, StreamingResponse

from cpsolve.errors import CpsolveError, OutOfTimeError
from cpsolve.limits import Deadline
from cpsolve.outcome import Outcome
from cpsolve.studio import state
from cpsolve.studio.exports import MEDIA_TYPES, ExportKind, exported, file_name
from cpsolve.studio.security import studio_of
from cpsolve.studio.state import ExportRequest, JobRequest, JobStarted, JobStatus, Studio

# A job's page runs its own inline module and style and nothing from elsewhere
PAGE_POLICY = (
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'self'"
)

router = APIRouter(prefix="/api/jobs", tags=["jobs"])
StudioNeeded = Depends(studio_of)


@router.post("", status_code=201)
def start_job(request: JobRequest, studio: Studio = StudioNeeded) -> JobStarted:
    """Start a run; its id at once (the run goes on in the server)."""
    return JobStarted(id=studio.start(request))


@router.get("")
def list_jobs(studio: Studio = StudioNeeded) -> dict[str, dict[str, str]]:
    """Every job remembered, by id, with its state."""
    return {number: {"state": str(record.job.state)} for number, record in list(studio.jobs.items())}


@router.get("/{number}", response_model_exclude_none=True)
def get_job(number: str, studio: Studio = StudioNeeded) -> JobStatus:
    """The job's state; its report once it has ended."""
    return studio.record(number).state()


@router.get("/{number}/events", response_class=StreamingResponse)
def job_events(number: str, studio: Studio = StudioNeeded) -> StreamingResponse:
    """The job's events from its start, as server-sent events, until it ends."""
    return StreamingResponse(studio.events_of(number), media_type="text/event-stream")


@router.delete("/{number}", response_model_exclude_none=True)
def cancel_job(number: str, studio: Studio = StudioNeeded) -> JobStatus:
    """Cancel the job: it stops at its engine's next slice, its report marked cancelled."""
    record = studio.record(number)
    record.job.cancel()
    record.job.wait(10)
    return record.state()


@router.get("/{number}/scene")
def job_scene(number: str, studio: Studio = StudioNeeded) -> dict[str, Any]:
    """What the finished job's solutions look like, as the viewer draws them (the page's scene):
    the studio draws it with the viewer module every page carries."""
    record = studio.finished(number, "scene")
    return Outcome(record.job.result(), record.collected).scene


@router.get("/{number}/page", response_class=HTMLResponse)
def job_page(number: str, studio: Studio = StudioNeeded) -> HTMLResponse:
    """The finished job's solutions as the page `cpsolve run --html` writes (the same viewer)."""
    record = studio.finished(number, "page")
    if record.collected.model is None:
        raise state.Missing(f"job {number} has no page: it kept no solution")
    page = Outcome(record.job.result(), record.collected).page()
    return HTMLResponse(page, headers={"Content-Security-Policy": PAGE_POLICY})


@router.get("/{number}/export/{kind}")
def export(
    number: str, kind: ExportKind, asked: Annotated[ExportRequest, Query()], studio: Studio = StudioNeeded
) -> Response:
    """A finished job's page, picture, pieces for printing (zipped STL) or BurrTools file, as a
    download; the picture and the pieces of the solution asked for (the first by default), the
    pieces in the sizes asked for."""
    record = studio.finished(number, "export")
    report = record.job.result()
    try:
        content = exported(kind, report, record.collected, asked.outputs(), Deadline.after(state.REQUEST_SECONDS))
    except OutOfTimeError as stopped:
        raise CpsolveError(f"{kind}: not made within {state.REQUEST_SECONDS:g} s: {stopped}") from None
    disposition = f'attachment; filename="{file_name(report.name, kind)}"'
    return Response(content, media_type=MEDIA_TYPES[kind], headers={"Content-Disposition": disposition})
