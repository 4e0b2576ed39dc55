"""The page: one self-contained HTML file that opens from disk, offline: the scene, the viewer
(viewer.js, the studio's own 3-D viewer) with the parts of three.js it uses, bundled into one
module by esbuild (cpsolve.pictures.three.page_bundle), and the style, all inside it.

The module is inline (every `</script` written `<\\/script`, the same code in JavaScript) and
reads the scene from its JSON element, so the page fetches nothing and needs no server. The page
allows inline scripts and styles and nothing else (its Content-Security-Policy).
"""

from __future__ import annotations

import html
import json
import re
from importlib import resources
from typing import Any

from cpsolve.pictures import three

POLICY = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:"


def _asset(name: str) -> str:
    return resources.files("cpsolve.pictures").joinpath(name).read_text(encoding="utf-8")


def _as_text(code: str) -> str:
    """Code made safe inside a script element: no `</script` can end it early."""
    return re.sub(r"</(script)", r"<\\/\1", code, flags=re.IGNORECASE)


def page_html(scene: dict[str, Any]) -> str:
    """The whole page as text. The scene goes in as JSON inside a script element, with every `<`
    escaped so that no text of a puzzle can end the element. CpsolveError (one line) where three.js
    is not installed (`cpsolve compile` installs it)."""
    data = json.dumps(scene, separators=(",", ":")).replace("<", "\\u003c")
    title = html.escape(str(scene.get("name", "cpsolve")))
    module = _as_text(three.page_bundle())
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="{POLICY}">
<title>{title} · cpsolve</title>
<style>{_asset("viewer.css")}</style>
</head>
<body class="cpsolve-page">
<main id="page"></main>
<div id="hint">drag to turn, right-drag to pan, wheel to zoom; Space plays the disassembly, the arrows step it;
a click on a piece in the legend hides or shows it; a click on a row of the table shows that assembly</div>
<script id="scene" type="application/json">{data}</script>
<script type="module">{module}</script>
</body>
</html>
"""
