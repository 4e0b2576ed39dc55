"""The studio's HTTP API: puzzles run as jobs (cpsolve.jobs) in one warm process.

Every route is under /api and answers JSON (the job's events as server-sent events); the OpenAPI
description is at /api/openapi.json, made from the request and answer models (cpsolve.studio.state:
a job's options are cpsolve.options.Options, with every bound). FastAPI's own docs page is not
served: it loads its scripts from a CDN. The routes are grouped by area (cpsolve.studio.routes);
every request passes the checks of cpsolve.studio.security first (Host, Origin, size in the
middleware; the token as a dependency of every route). Every answer, a refusal or a failure of
the server's own included, is JSON of one line with the security headers.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from fastapi import Depends, FastAPI, HTTPException, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from cpsolve.errors import CpsolveError, printable
from cpsolve.options import Options, describe, field_info
from cpsolve.studio.routes import drafts, files, grids, jobs, page, puzzles
from cpsolve.studio.security import SECURITY_HEADERS, authorised, refused
from cpsolve.studio.state import Busy, Missing, Studio
from cpsolve.studio.workspace import OutsideWorkspace, Taken

STATUS_OF: tuple[tuple[type[CpsolveError], int], ...] = (
    (Busy, 429),
    (Missing, 404),
    (Taken, 409),
    (OutsideWorkspace, 403),
)
LOG = logging.getLogger("cpsolve.studio")


def create_app(studio: Studio) -> FastAPI:
    """The API over `studio`."""
    app = FastAPI(
        title="cpsolve studio",
        description="Solve, count and take apart puzzles in a warm process; every request needs the token.",
        docs_url=None,
        redoc_url=None,
        openapi_url="/api/openapi.json",
        dependencies=[Depends(authorised)],
    )
    app.state.studio = studio
    for router in (jobs.router, files.router, puzzles.router, drafts.router, grids.router, page.router):
        app.include_router(router)

    @app.middleware("http")
    async def guard(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        try:
            refusal = await refused(studio, request)
            response = refusal if refusal is not None else await call_next(request)
        except Exception as error:  # a bug: one line, logged with its traceback, never a page of it
            LOG.exception("the studio failed on %s %s", request.method, printable(request.url.path)[:200])
            response = JSONResponse({"error": f"the studio failed: {type(error).__name__} (a bug)"}, 500)
        for name, value in SECURITY_HEADERS.items():
            if name not in response.headers:  # the pages say their own policy
                response.headers[name] = value
        return response

    @app.exception_handler(CpsolveError)
    async def one_line(request: Request, error: CpsolveError) -> JSONResponse:
        status = next((code for kind, code in STATUS_OF if isinstance(error, kind)), 400)
        return JSONResponse({"error": printable(str(error))}, status_code=status)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, error: HTTPException) -> JSONResponse:
        return JSONResponse({"error": printable(str(error.detail))}, status_code=error.status_code)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, error: RequestValidationError) -> JSONResponse:
        errors = list(error.errors())
        in_body = bool(errors) and tuple(errors[0].get("loc", ()))[:1] == ("body",)
        return JSONResponse({"error": refusal_of(errors)}, status_code=400 if in_body else 422)

    return app


def refusal_of(errors: Sequence[Any]) -> str:
    """A request the models refused, in one line: an option as the command line's refusal says it
    (cpsolve.options.describe), any other field by its place in the request."""
    first = errors[0]
    location = [str(part) for part in first.get("loc", ())]
    if location[:2] == ["body", "options"] and len(location) > 2:
        return describe(errors, known=Options.model_fields, skip=1)
    if location[:1] == ["query"] and len(location) > 1 and field_info(location[1]) is not None:
        return describe([{**first, "input": _as_typed(first.get("input"))}], skip=1)
    if first.get("type") == "json_invalid":
        return "the body is not JSON"
    place = ".".join(location[1:] if location[:1] in (["body"], ["path"], ["query"]) else location) or "the request"
    said = str(first.get("msg", "refused")).removeprefix("Value error, ")  # a model's own check says it whole
    return printable(f"{place}: {said[:200]}")


def _as_typed(value: Any) -> Any:
    """A query's value as the command line would have read it (a number, not its text)."""
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return value
    return value
