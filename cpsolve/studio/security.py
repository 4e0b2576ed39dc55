"""What every request to the studio passes before it is handled: a local server is an attack
surface. Its Host must name this machine's loopback (a page of another site that a DNS name
pointed here is refused: no DNS rebinding), an Origin, where a browser sends one, must be this
server's own, a body must say its length and stay within the puzzle-file limit (`refused`, the
app's middleware), and the token printed at start must come as `Authorization: Bearer TOKEN` or
`?token=TOKEN` (401 without, 403 wrong: `authorised`, a dependency of every route). Whatever a
header holds, the answer is a refusal in one line, never an error of the server's own.
"""

from __future__ import annotations

import hmac
import json
import math
from typing import Any

from fastapi import Depends, HTTPException, Request
from fastapi.responses import JSONResponse, Response

from cpsolve.errors import printable
from cpsolve.limits import MAX_YAML_DEPTH
from cpsolve.studio.state import Studio

STATIC = "/static/"  # the page's scripts, under /static/TOKEN/: a module's imports carry no header
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


def studio_of(request: Request) -> Studio:
    """The studio a request is for (the app's state): a dependency of every route."""
    studio: Studio = request.app.state.studio
    return studio


def authorised(request: Request, studio: Studio = Depends(studio_of)) -> None:  # noqa: B008  (FastAPI's way)
    """The token's check, a dependency of every route: 401 without one, 403 for a wrong one."""
    given = token_of(request)
    if given is None:
        raise HTTPException(401, "the studio's token is needed: Authorization: Bearer TOKEN or ?token=TOKEN")
    if not hmac.compare_digest(given.encode("utf-8", "replace"), studio.token.encode()):
        raise HTTPException(403, "wrong token")


async def refused(studio: Studio, request: Request) -> Response | None:
    """Why a request is refused before it is handled (Host, Origin, body size, a body that is no
    JSON a puzzle could hold), or None."""
    hostname = host_name(request.headers.get("host", ""))
    if hostname not in studio.hosts:
        return JSONResponse({"error": "the Host header must name this machine (127.0.0.1 or localhost)"}, 421)
    origin = request.headers.get("origin")
    if origin is not None and not own_origin(studio, origin):
        return JSONResponse(
            {"error": f"requests from {printable(origin)[:200]} are refused: not this studio's page"}, 403
        )
    if request.method in ("POST", "PUT", "PATCH"):
        length = request.headers.get("content-length")
        if length is None or not length.isdigit() or not length.isascii():
            return JSONResponse({"error": "a body must say its length (Content-Length)"}, 411)
        if int(length) > 2 * studio.workspace.max_bytes:
            return JSONResponse({"error": f"a body of {int(length):,} bytes is past the studio's limit"}, 413)
        problem = body_problem(await request.body())
        if problem is not None:
            return JSONResponse({"error": problem}, 400)
    return None


class NotJson(ValueError):
    """A body's JSON holds what no puzzle holds."""


def body_problem(body: bytes) -> str | None:
    """Why a body is not JSON the studio takes, in one line, or None: not UTF-8, not JSON, a number
    that is not finite (NaN, Infinity, 1e999: Python's JSON reader takes them), text holding a lone
    surrogate (it cannot be written as UTF-8, so no file or page could hold it)."""
    if not body:
        return None
    try:
        text = body.decode("utf-8")
        value = json.loads(text, parse_constant=_no_constant, parse_float=_finite_float)
        _check_text(value)
    except UnicodeDecodeError:
        return "the body is not UTF-8 text"
    except NotJson as error:
        return f"the body's JSON: {error}"
    except (ValueError, RecursionError):
        return "the body is not JSON"
    return None


def _no_constant(name: str) -> Any:
    raise NotJson(f"{name} is not a number a puzzle takes (expected a finite number)")


def _finite_float(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise NotJson(f"{text[:40]} is past the largest number (expected a finite number)")
    return number


def _check_text(value: Any, depth: int = 0) -> None:
    """Every string and key encodes as UTF-8 (no lone surrogate), nested no deeper than a spec may be."""
    if depth > MAX_YAML_DEPTH:
        raise NotJson(f"nested deeper than {MAX_YAML_DEPTH} levels")
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise NotJson("text holding a lone surrogate (\\ud800-\\udfff), which no file can hold") from None
    elif isinstance(value, dict):
        for key, inner in value.items():
            _check_text(key, depth + 1)
            _check_text(inner, depth + 1)
    elif isinstance(value, list):
        for inner in value:
            _check_text(inner, depth + 1)


def host_and_port(text: str) -> tuple[str, int | None] | None:
    """The name and the port of `127.0.0.1:8765`, `[::1]:8765` or `localhost`; None for text that
    is not a host and port (`[::1`, a port that is no number or past 65535)."""
    if text.startswith("["):
        name, bracket, rest = text[1:].partition("]")
        if not bracket or (rest and not rest.startswith(":")):
            return None
        port = rest[1:] if rest else None
    else:
        name, colon, after = text.partition(":")
        port = after if colon else None
    if port is None:
        return name, None
    if not (port.isascii() and port.isdigit() and 0 < len(port) <= 5 and int(port) <= 65535):
        return None
    return name, int(port)


def host_name(header: str) -> str | None:
    """The name a Host header gives, without its port; None for one that is not a host and port."""
    parsed = host_and_port(header)
    return None if parsed is None else parsed[0]


def own_origin(studio: Studio, origin: str) -> bool:
    """Whether an Origin is this server's own page: http, a loopback name, this port."""
    scheme, separator, rest = origin.partition("://")
    parsed = host_and_port(rest) if scheme == "http" and separator and "/" not in rest else None
    if parsed is None or parsed[0] not in studio.hosts:
        return False
    return studio.port is None or parsed[1] == studio.port


def token_of(request: Request) -> str | None:
    """The token a request carries: its Authorization header, `?token=`, or (the page's scripts,
    whose module imports carry neither) the folder after /static/."""
    bearer = request.headers.get("authorization", "")
    if bearer.lower().startswith("bearer "):
        return bearer[7:].strip()
    if request.url.path.startswith(STATIC):
        return request.url.path[len(STATIC) :].split("/", 1)[0]
    return request.query_params.get("token")
