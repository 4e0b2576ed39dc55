"""The page: one self-contained HTML file (scene, script and style inside) that opens from disk.

The viewer (viewer.js, viewer.css beside this module) draws cubes on a 2-D canvas, farthest face
first, and tiles as SVG; it fetches nothing. Chosen after measuring (docs/pictures.md): a
plotting package would add megabytes to each page for what a few hundred lines do.
"""

from __future__ import annotations

import html
import json
from importlib import resources
from typing import Any


def _asset(name: str) -> str:
    return resources.files("cpsolve.pictures").joinpath(name).read_text(encoding="utf-8")


def page_html(scene: dict[str, Any]) -> str:
    """The whole page as text. The scene goes in as JSON inside a script element, with every `<`
    escaped so that no text of a puzzle can end the element."""
    data = json.dumps(scene, separators=(",", ":")).replace("<", "\\u003c")
    title = html.escape(str(scene.get("name", "cpsolve")))
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy"
 content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<title>{title} · cpsolve</title>
<style>{_asset("viewer.css")}</style>
</head>
<body>
<h1 id="title"></h1>
<div id="counts"></div>
<div id="bar">
  <label>show <select id="solution"></select></label><span id="limit"></span>
  <label id="apart-box" style="display:none"><input id="apart" type="checkbox"> only those that come apart</label>
  <label id="sort-box" style="display:none">sort <select id="sort"><option value="found">as found</option>
    <option value="level">by level</option><option value="moves">by moves</option></select></label>
  <label id="step-box">build <input id="step" type="range" min="0" value="0"> <span id="step-text"></span></label>
  <label id="explode-box">explode <input id="explode" type="range" min="0" max="100" value="0"></label>
  <span id="plan-box"><label>take apart <input id="plan" type="range" min="0" value="0"></label>
    <button id="play" type="button" title="Space; arrows: a move back or on">play</button>
    <label>speed <input id="speed" type="range" min="1" max="10" value="3"></label> <span id="plan-text"></span></span>
</div>
<div id="stage"><canvas id="canvas" width="720" height="560"></canvas></div>
<div id="hint">drag to turn, right-drag to pan, wheel to zoom; Space plays the disassembly, arrows step it;
click a piece in the legend to hide or show it</div>
<div id="legend"></div>
<script id="scene" type="application/json">{data}</script>
<script>{_asset("viewer.js")}</script>
</body>
</html>
"""
