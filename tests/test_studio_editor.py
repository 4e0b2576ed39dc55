"""The studio's editor: puzzles handed to it with every shape as cells and saved back (YAML and
BurrTools), the page's scripts and three.js served under the token, and the page driven in
Chromium: a puzzle drawn by clicking, a stroke undone, saved and opened again, solved; a BurrTools
file's disassembly is played in the studio page's own tests (test_studio_page)."""

from __future__ import annotations

import base64
import gzip
import hashlib
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import SPECS, absent, corpus_dir
from playwright.sync_api import expect
from test_pictures import browser as browser  # the fixture: Debian's chromium, WebGL in software

pytest.importorskip("fastapi")
httpx = pytest.importorskip("httpx")

from fastapi.testclient import TestClient  # noqa: E402  (after the skip: the studio extra)
from test_studio import HOST, TOKEN  # noqa: E402
from test_studio import client as client  # noqa: E402  (the fixtures, on this module's workspace)
from test_studio import live as live  # noqa: E402

from cpsolve.pictures import three as assets  # noqa: E402


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "workspace"
    folder.mkdir()
    for name in ("soma.yaml", "kanoodle_pyramid.yaml", "hexiamonds_rhombus.yaml", "snake_standard.yaml"):
        shutil.copy(SPECS / name, folder / name)
    burrtools = corpus_dir("burrtools")
    shutil.copy(burrtools / "PelikanBurr.xmpuzzle", folder / "pelikan.xmpuzzle")
    shutil.copy(burrtools / "DemoMirrorParadox.xmpuzzle", folder / "paradox.xmpuzzle")
    return folder


def counts_of(client: TestClient, request: dict[str, Any]) -> dict[str, Any]:
    started = client.post("/api/jobs", json=request)
    assert started.status_code == 201, started.text
    number = started.json()["id"]
    with client.stream("GET", f"/api/jobs/{number}/events") as response:
        for _ in response.iter_lines():
            pass
    state = client.get(f"/api/jobs/{number}").json()
    assert state["state"] == "done", state
    report = state["report"]
    assert report["orbit_stabiliser_ok"] is True
    counts: dict[str, Any] = report["counts"]
    return counts


def test_every_shape_reaches_the_editor_as_cells_on_its_grid(client: TestClient) -> None:
    """Layers of balls become BurrTools' sphere coordinates; a BurrTools target's variable voxels
    become `optional`; every grid is drawn; chains say why they are not; a file of several
    problems comes with each problem's spec."""
    pyramid = client.get("/api/puzzle/kanoodle_pyramid.yaml").json()
    assert pyramid["drawn"] is True and len(pyramid["problems"]) == 1
    target = pyramid["spec"]["target"]
    assert len(target["cells"]) == 55 and all(sum(cell) % 2 == 0 for cell in target["cells"])
    assert all(set(piece) >= {"cells"} and "layers" not in piece for piece in pyramid["spec"]["pieces"].values())

    pelikan = client.get("/api/puzzle/pelikan.xmpuzzle").json()
    optional = {tuple(cell) for cell in pelikan["spec"]["target"]["optional"]}
    cells = {tuple(cell) for cell in pelikan["spec"]["target"]["cells"]}
    assert optional and optional <= cells  # every target cell in cells, the variable ones also in optional

    prisms = client.get("/api/puzzle/hexiamonds_rhombus.yaml").json()
    assert prisms["drawn"] is True and prisms["spec"]["grid"] == "triangle"  # every grid is drawn
    chain = client.get("/api/puzzle/snake_standard.yaml").json()
    assert chain["drawn"] is False and "edited as text" in chain["why"] and chain["specs"] is None

    paradox = client.get("/api/puzzle/paradox.xmpuzzle", params={"problem": "1"}).json()
    assert paradox["problem"] == 1 and len(paradox["problems"]) == 2
    assert paradox["specs"][1] == paradox["spec"] and len(paradox["specs"]) == 2  # edited together
    refused = client.get("/api/puzzle/paradox.xmpuzzle", params={"problem": "7"})
    assert refused.status_code == 400 and "no problem '7'" in refused.json()["error"]


def test_the_editors_form_solves_to_the_files_counts(client: TestClient) -> None:
    """A spec in the editor's form (shapes as cells) is the same puzzle: the same three counts as
    the file, on cubes (Soma), balls (the Kanoodle pyramid) and variable voxels (PelikanBurr)."""
    for path in ("soma.yaml", "kanoodle_pyramid.yaml", "pelikan.xmpuzzle"):
        spec = client.get(f"/api/puzzle/{path}").json()["spec"]
        assert counts_of(client, {"spec": spec}) == counts_of(client, {"path": path}), path


def test_an_edited_spec_is_saved_as_yaml_or_burrtools_and_refused_in_the_clis_words(
    client: TestClient, workspace: Path
) -> None:
    spec = client.get("/api/puzzle/soma.yaml").json()["spec"]
    spec["name"] = "Soma drawn"
    saved = client.put("/api/puzzle/drawn.yaml", params={"new": "true"}, json={"spec": spec})
    assert saved.status_code == 200, saved.text
    assert yaml.safe_load((workspace / "drawn.yaml").read_text())["name"] == "Soma drawn"
    assert client.put("/api/puzzle/drawn.yaml", params={"new": "true"}, json={"spec": spec}).status_code == 409

    assert client.put("/api/puzzle/soma.xmpuzzle", json={"spec": spec}).status_code == 200
    written = (workspace / "soma.xmpuzzle").read_bytes()
    assert b"<puzzle" in gzip.decompress(written)
    assert counts_of(client, {"path": "soma.xmpuzzle"}) == counts_of(client, {"path": "drawn.yaml"})

    for cells in ([[0, 0, 0], [0, 0, 0]], [[0, 0, 0, 1]]):  # a cell twice; four coordinates
        broken = {**spec, "pieces": {**spec["pieces"], "V": {"cells": cells}}}
        refused = client.put("/api/puzzle/drawn.yaml", json={"spec": broken})
        message = refused.json()["error"]
        assert refused.status_code == 400 and "pieces.V.cells" in message and "\n" not in message, message
    assert yaml.safe_load((workspace / "drawn.yaml").read_text())["name"] == "Soma drawn"  # the file as it was

    several = client.put("/api/puzzle/paradox.xmpuzzle", json={"spec": spec})
    assert several.status_code == 400 and "holds 2 problems" in several.json()["error"]
    other = client.put("/api/puzzle/soma.soma", json={"spec": spec})
    assert other.status_code == 400 and ".xmpuzzle" in other.json()["error"]
    outside = client.put("/api/puzzle/../soma.yaml", json={"spec": spec})
    assert outside.status_code in (403, 404)


def test_the_pages_scripts_come_under_the_token_and_three_js_from_its_install(
    client: TestClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = client.get("/")
    policy = page.headers["content-security-policy"]
    import_map = re.search(r'<script type="importmap">(.*?)</script>', page.text, re.S)
    assert import_map is not None
    digest = base64.b64encode(hashlib.sha256(import_map.group(1).encode()).digest()).decode()
    assert f"'sha256-{digest}'" in policy and "unsafe-inline" not in policy.split("style-src")[0]
    assert f"/static/{TOKEN}/studio.js" in page.text

    bare = TestClient(client.app, base_url=HOST)
    assert bare.get(f"/static/{TOKEN}/editor.js").status_code == 200  # a module's import carries no header
    assert bare.get("/static/wrong/editor.js").status_code == 403
    assert bare.get(f"/static/{TOKEN}/server.py").status_code == 404
    assert bare.get(f"/static/{TOKEN}/vendor/package.json").status_code == 404

    if not assets.installed():
        absent("three.js is not installed: run `cpsolve compile` (needs npm)")
    three = bare.get(f"/static/{TOKEN}/vendor/three.module.js")
    assert three.status_code == 200 and three.headers["content-type"].startswith("text/javascript")
    monkeypatch.setenv(assets.FOLDER_ENV, str(tmp_path / "nothing"))
    missing = bare.get(f"/static/{TOKEN}/vendor/three.module.js")
    assert missing.status_code == 404 and "cpsolve compile" in missing.json()["error"]


def test_a_puzzle_file_given_makes_its_folder_the_workspace(workspace: Path) -> None:
    """`cpsolve studio FILE --no-browser`: the file's folder served, the address to open it printed."""
    process = subprocess.Popen(
        [sys.executable, "-m", "cpsolve", "studio", str(workspace / "soma.yaml"), "--no-browser"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        address, token = process.stdout.readline().strip().removeprefix("cpsolve studio: ").split("/?token=")
        files = httpx.get(f"{address}/api/files", headers={"Authorization": f"Bearer {token}"}, timeout=60).json()
        assert "soma.yaml" in files["files"] and "pelikan.xmpuzzle" in files["files"]
    finally:
        process.terminate()
        process.wait(timeout=30)
    (workspace / "notes.md").write_text("not a puzzle\n")
    refused = subprocess.run(
        [sys.executable, "-m", "cpsolve", "studio", str(workspace / "notes.md"), "--no-browser"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1, refused.stderr


def click_at(page: Any, script: str) -> None:
    x, y = page.evaluate(script)
    page.mouse.click(x, y)


def shapes(page: Any) -> list[str]:
    return [text.strip() for text in page.locator("#shapes button").all_inner_texts()]


def test_a_puzzle_drawn_by_clicking_is_undone_saved_reopened_and_solved(
    browser: Any, live: str, workspace: Path
) -> None:
    """In Chromium: a new puzzle; the target made a row of three by clicking the layer's floor; a
    new piece B (one cell) grown by a click on its cube's face; a stroke undone with Ctrl+Z;
    saved with Ctrl+S, the page reloaded, the file opened again; solved: A and B fill the row in
    two ways, one class."""
    page = browser.new_page(viewport={"width": 1300, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.goto(live)
    page.fill("#new-name", "drawn")
    page.click("#new")
    expect(page.locator("#shapes button")).to_have_count(2)
    assert shapes(page) == ["target (1)", "A (1)"]
    page.click("#shapes button >> nth=0")
    editor = "window.studio.state.editor"
    click_at(page, f"{editor}.floorOf([1, 0, 0])")
    click_at(page, f"{editor}.floorOf([2, 0, 0])")
    expect(page.locator("#shapes button >> nth=0")).to_have_text("target (3)")

    page.click("#add-piece")
    expect(page.locator("#shapes button")).to_have_count(3)
    expect(page.locator("#shapes button >> nth=2")).to_have_text("B (1)")  # a new piece starts as one cell
    click_at(page, f"{editor}.screenOf([0, 0, 0], [1, 0, 0])")  # the +x face of B's cube: the cell beside it
    expect(page.locator("#shapes button >> nth=2")).to_have_text("B (2)")
    assert page.evaluate(f"[...{editor}.shape.cells.keys()].sort()") == ["0,0,0", "1,0,0"]

    click_at(page, f"{editor}.screenOf([1, 0, 0], [0, 0, 1])")  # one more on top, then undone
    expect(page.locator("#shapes button >> nth=2")).to_have_text("B (3)")
    page.locator("#view3d").focus()
    page.keyboard.press("Control+z")
    expect(page.locator("#shapes button >> nth=2")).to_have_text("B (2)")
    page.keyboard.press("Control+y")
    expect(page.locator("#shapes button >> nth=2")).to_have_text("B (3)")
    page.keyboard.press("Control+z")

    click_at(page, f"{editor}.layerPlace(0, 1)")  # the layer view: a cell added, then removed there
    expect(page.locator("#shapes button >> nth=2")).to_have_text("B (3)")
    assert "0,1,0" in page.evaluate(f"[...{editor}.shape.cells.keys()]")
    page.mouse.click(*page.evaluate(f"{editor}.layerPlace(0, 1)"), button="right")
    expect(page.locator("#shapes button >> nth=2")).to_have_text("B (2)")

    page.keyboard.press("Control+s")
    expect(page.locator("#status")).to_have_text("saved drawn.yaml")
    saved = yaml.safe_load((workspace / "drawn.yaml").read_text())
    assert sorted(map(tuple, saved["pieces"]["B"]["cells"])) == [(0, 0, 0), (1, 0, 0)]
    page.reload()
    page.click("#files button[data-path='drawn.yaml']")
    expect(page.locator("#shapes button")).to_have_count(3)
    assert shapes(page) == ["target (3)", "A (1)", "B (2)"]

    page.click("#solve")
    expect(page.locator("#summary")).to_contain_text("raw 2, rotations 1, unique 1 (complete)", timeout=60_000)
    expect(page.locator("#summary")).to_contain_text("orbit-stabiliser check ok")
    page.keyboard.press("?")
    expect(page.locator("#help")).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.locator("#help")).to_be_hidden()
    assert errors == []
    page.close()


def test_hexagons_and_sticks_are_drawn_and_edited_as_they_look(browser: Any, live: str, workspace: Path) -> None:
    """In Chromium: the tetrahexes' pieces drawn as hexagons in the layer view, a hexagon added
    there by a click beside a piece; a polystick puzzle's segments drawn as bars, one added by a
    click between two points; both solved in the page."""
    shutil.copy(SPECS / "tetrahexes_4x7.yaml", workspace / "tetrahexes.yaml")
    sticks = {
        "name": "two L disticks",
        "grid": "sticks",
        "pieces": {"L": {"layers": [["+-+", "  |", "  +"]], "count": 2}},
        "target": {"layers": [["+-+", "| |", "+-+"]]},
    }
    (workspace / "sticks.yaml").write_text(yaml.safe_dump(sticks))
    page = browser.new_page(viewport={"width": 1300, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.goto(live)
    editor = "window.studio.state.editor"
    corners = f"{editor}.layerShapes.map((s) => s.polygon.length)"

    page.click("#files button[data-path='tetrahexes.yaml']")
    expect(page.locator("#shapes button")).to_have_count(8, timeout=30_000)
    page.click("#shapes button >> nth=1")  # the bar: four hexagons in a row
    expect(page.locator("#shapes button >> nth=1")).to_have_text("I (4)")
    assert set(page.evaluate(corners)) == {6}  # every cell of the layer view a hexagon
    click_at(page, f"{editor}.layerCentre([4, 0, 0])")  # the hexagon after the bar's last
    expect(page.locator("#shapes button >> nth=1")).to_have_text("I (5)")
    page.screenshot(path=str(workspace.parent / "hexagons.png"))
    page.keyboard.press("Control+z")
    expect(page.locator("#shapes button >> nth=1")).to_have_text("I (4)")
    page.click("#solve")
    expect(page.locator("#summary")).to_contain_text("raw 18, rotations 9, unique 9 (complete)", timeout=60_000)
    assert errors == []
    page.close()  # the sticks in a page of their own (no question about the edit undone)
    page = browser.new_page(viewport={"width": 1300, "height": 900})
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.goto(live)

    page.click("#files button[data-path='sticks.yaml']")
    expect(page.locator("#shapes button")).to_have_count(2, timeout=30_000)
    page.click("#shapes button >> nth=1")
    expect(page.locator("#shapes button >> nth=1")).to_have_text("L (2)")
    assert set(page.evaluate(corners)) == {4} and page.evaluate(f"{editor}.layerShapes.length") >= 12
    click_at(page, f"{editor}.layerCentre([1, 2, 0])")  # the bottom segment of the square
    expect(page.locator("#shapes button >> nth=1")).to_have_text("L (3)")
    page.screenshot(path=str(workspace.parent / "sticks.png"))
    page.keyboard.press("Control+z")
    page.click("#solve")
    expect(page.locator("#summary")).to_contain_text("raw 2, rotations 1, unique 1 (complete)", timeout=60_000)
    assert errors == []
    page.close()
