"""The studio's page and its scripts: its own (package data) and three.js (installed by
`cpsolve compile`), under /static/TOKEN/ (a module's imports carry no header)."""

from __future__ import annotations

import base64
import hashlib
import json
from importlib import resources

from fastapi import APIRouter, Depends
from fastapi.responses import HTMLResponse, Response

from cpsolve.pictures import three
from cpsolve.studio import assets
from cpsolve.studio.security import STATIC, studio_of
from cpsolve.studio.state import Missing, Studio

# The studio's page runs its scripts from this server (three.js among them) and the one inline
# import map whose hash it names, and fetches from this server alone
STUDIO_POLICY = (
    "default-src 'none'; script-src 'self' '{import_map}'; style-src 'self' 'unsafe-inline'; img-src 'self' data:;"
    " connect-src 'self'; frame-ancestors 'none'"
)

router = APIRouter(tags=["page"])
StudioNeeded = Depends(studio_of)


@router.get("/", response_class=HTMLResponse)
def page(studio: Studio = StudioNeeded) -> HTMLResponse:
    """The studio's page: the workspace's files, a puzzle drawn and edited in 3-D or as text,
    runs started, watched and cancelled, their counts and solutions."""
    text = resources.files("cpsolve.studio").joinpath("static/studio.html").read_text(encoding="utf-8")
    html, import_map = studio_page(text, studio.token)
    return HTMLResponse(html, headers={"Content-Security-Policy": STUDIO_POLICY.format(import_map=import_map)})


@router.get(STATIC + "{token}/vendor/{name:path}")
def vendor(token: str, name: str) -> Response:
    """A file of three.js as the page imports it (installed by `cpsolve compile`)."""
    path = three.vendor_file(name)
    if path is None:
        raise Missing(three.NOT_INSTALLED if name in three.VENDOR_FILES else f"no file {name!r}")
    return Response(path.read_bytes(), media_type=assets.MEDIA[".js"])


@router.get(STATIC + "{token}/{name}")
def own(token: str, name: str) -> Response:
    """One of the page's own scripts or its style sheet."""
    text = assets.own_file(name)
    if text is None:
        raise Missing(f"no file {name!r}")
    return Response(text, media_type=assets.MEDIA[name[name.rindex(".") :]])


def studio_page(template: str, token: str) -> tuple[str, str]:
    """The studio's page for this token (its scripts under /static/TOKEN/, three.js named in its
    import map), and the CSP hash of that import map, the one inline script it runs."""
    base = f"{STATIC}{token}/"
    import_map = json.dumps({"imports": {"three": f"{base}vendor/three.module.js", "three/addons/": f"{base}vendor/"}})
    digest = base64.b64encode(hashlib.sha256(import_map.encode()).digest()).decode()
    html = template.replace("{{IMPORT_MAP}}", import_map).replace("{{STATIC}}", base)
    return html, f"sha256-{digest}"
