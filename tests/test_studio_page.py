"""The studio's page in Debian's Chromium, as a designer uses it all day: no edit lost (a file
switched with the question, a reload, a killed server), one identity per piece (its colour read
from the editor's and the viewer's three.js objects, its name in the move list), the whole
disassembly in the camera's view, states that say what happened (failed, cancelled), a new puzzle
drawn by clicks and solved on every grid, the table of assemblies sorted by level, the colour
rules, and the editor and the results side by side at 1280x720."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import SPECS, checked_run, corpus_dir
from playwright.sync_api import expect
from test_pictures import browser as browser  # the fixture: Debian's chromium, WebGL in software

pytest.importorskip("fastapi")

from cpsolve import formats
from cpsolve.models.packing import PackingModel
from cpsolve.options import RunOptions

GRIDS = ("cube", "prism", "sphere", "rhombic", "tetra-octa")


@pytest.fixture(scope="module")
def chromium(browser: Any) -> Any:
    """Debian's chromium with WebGL drawn in software (no screen, no GPU on these machines)."""
    return browser


class Server:
    """`cpsolve studio FOLDER` as a user starts it; started again, killed."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.process: subprocess.Popen[str] | None = None
        self.address = ""

    def start(self) -> str:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "cpsolve", "studio", str(self.folder), "--no-browser"],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        self.address = self.process.stdout.readline().strip().removeprefix("cpsolve studio: ")
        assert self.address.startswith("http://127.0.0.1:"), self.address
        return self.address

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=30)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=30)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "workspace"
    folder.mkdir()
    for name in ("soma.yaml", "bedlam.yaml", "hexiamonds_rhombus.yaml"):
        shutil.copy(SPECS / name, folder / name)
    shutil.copy(corpus_dir("burrtools") / "PelikanBurr.xmpuzzle", folder / "pelikan.xmpuzzle")
    return folder


@pytest.fixture
def server(workspace: Path) -> Iterator[Server]:
    running = Server(workspace)
    running.start()
    yield running
    running.stop()


def opened(chromium: Any, address: str, width: int = 1280, height: int = 720) -> Any:
    page = chromium.new_page(viewport={"width": width, "height": height})
    page.errors = []
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    page.on("console", lambda message: page.errors.append(message.text) if message.type == "error" else None)
    # the browser's own question before a reload; the tests answer a colour's name themselves
    page.on("dialog", lambda dialog: dialog.accept() if dialog.type == "beforeunload" else None)
    page.goto(address)
    page.evaluate("window.studio.ready")
    return page


EDITOR = "window.studio.state.editor"


def click_at(page: Any, script: str, button: str = "left") -> None:
    x, y = page.evaluate(script)
    page.mouse.click(x, y, button=button)


def open_file(page: Any, name: str) -> None:
    """Open a file as a click does, and wait until the page has told the server it has it open."""
    if page.locator("#name").inner_text() == name:
        return
    with page.expect_response(lambda r: r.url.endswith("/api/presence")):
        page.click(f"#files button[data-path='{name}']")
    expect(page.locator("#name")).to_have_text(name)


def until(page: Any, expression: str, seconds: float = 30) -> None:
    """Wait until the page's expression is true, asked each animation frame (the page's policy
    allows no eval, so Playwright's wait_for_function cannot run there)."""
    for _ in range(int(seconds * 60)):
        if page.evaluate(f"new Promise((done) => requestAnimationFrame(() => done({expression})))"):
            return
    raise AssertionError(f"never true: {expression}")


def kept_draft(page: Any, action: Any) -> None:
    """Do `action` and wait for the draft it makes to be kept (the page keeps one a moment after)."""
    with page.expect_response(lambda r: "/api/drafts/" in r.url and r.request.method == "PUT") as answer:
        action()
    assert answer.value.ok


def test_an_unsaved_edit_survives_a_switch_a_reload_and_a_killed_server(
    chromium: Any, server: Server, workspace: Path
) -> None:
    page = opened(chromium, server.address)
    open_file(page, "soma.yaml")
    before = (workspace / "soma.yaml").read_text()
    page.click("#shapes button >> nth=1")  # V
    kept_draft(page, lambda: click_at(page, f"{EDITOR}.screenOf([0, 0, 0], [0, 0, 1])"))
    expect(page.locator("#modified")).to_be_visible()
    expect(page.locator("#shapes button >> nth=1")).to_have_text("V (4)")
    # another file: the question first; staying keeps the edit where it is
    page.click("#files button[data-path='bedlam.yaml']")
    expect(page.locator("#leave")).to_be_visible()
    page.click("#leave-stay")
    expect(page.locator("#name")).to_have_text("soma.yaml")
    page.click("#files button[data-path='bedlam.yaml']")
    page.click("#leave-keep")
    expect(page.locator("#name")).to_have_text("bedlam.yaml")
    expect(page.locator("#files button[data-path='soma.yaml']")).to_have_class(re.compile("drafted"))
    open_file(page, "soma.yaml")
    expect(page.locator("#banner")).to_contain_text("restored from the draft")
    expect(page.locator("#shapes button >> nth=1")).to_have_text("V (4)")
    # a reload
    page.reload()
    page.evaluate("window.studio.ready")
    open_file(page, "soma.yaml")
    expect(page.locator("#shapes button >> nth=1")).to_have_text("V (4)")
    expect(page.locator("#modified")).to_be_visible()
    # a killed server: its drafts are in the workspace, the next server hands them back
    server.kill()
    page.close()
    address = server.start()
    page = opened(chromium, address)
    open_file(page, "soma.yaml")
    expect(page.locator("#shapes button >> nth=1")).to_have_text("V (4)")
    assert (workspace / "soma.yaml").read_text() == before  # nothing saved without the designer
    page.keyboard.press("Control+s")
    expect(page.locator("#status")).to_have_text("saved soma.yaml")
    expect(page.locator("#modified")).to_be_hidden()
    assert len(yaml.safe_load((workspace / "soma.yaml").read_text())["pieces"]["V"]["cells"]) == 4
    assert not list((workspace / ".cpsolve-drafts").glob("*.json"))  # cleaned once saved
    assert page.errors == []
    page.close()


def test_a_save_over_a_changed_file_is_refused_and_a_second_tab_is_told(
    chromium: Any, server: Server, workspace: Path
) -> None:
    first = opened(chromium, server.address)
    open_file(first, "soma.yaml")
    second = opened(chromium, server.address)
    open_file(second, "soma.yaml")
    expect(second.locator("#banner")).to_contain_text("open in another tab")
    first.click("#shapes button >> nth=1")
    kept_draft(first, lambda: click_at(first, f"{EDITOR}.screenOf([0, 0, 0], [0, 0, 1])"))
    (workspace / "soma.yaml").write_text((workspace / "soma.yaml").read_text().replace("Soma cube", "Changed"))
    first.keyboard.press("Control+s")
    expect(first.locator("#banner")).to_contain_text("changed on disk since you opened it")
    assert "Changed" in (workspace / "soma.yaml").read_text()
    first.click("#banner button")  # save as the name it offers
    expect(first.locator("#name")).to_have_text("soma-2.yaml")
    assert (workspace / "soma-2.yaml").exists()
    first.close()
    second.close()


def test_one_piece_one_colour_one_name_and_the_whole_plan_in_view(chromium: Any, server: Server) -> None:
    """PelikanBurr taken apart: each piece's colour as the editor's three.js cells hold it is the
    viewer's, its name in the move list is the editor's, every moment of the plan lies inside the
    camera's view; the table sorts by level; Space and the arrows play and step the plan."""
    page = opened(chromium, server.address, 1280, 720)
    open_file(page, "pelikan.xmpuzzle")
    page.check("#disassemble")
    page.click("#solve")
    expect(page.locator("#summary")).to_contain_text("unique 12 (complete)", timeout=120_000)
    expect(page.locator("#summary")).to_contain_text("orbit-stabiliser check ok")
    expect(page.locator("#summary")).to_contain_text("1 of 12 come apart")
    expect(page.locator("#viewer canvas")).to_be_visible()
    names = page.evaluate(f"{EDITOR}.design.shapes.slice(1).map((s) => s.name)")
    drawn = {}
    for index, name in enumerate(names, 1):
        page.click(f"#shapes button >> nth={index}")
        drawn[name] = page.evaluate(f"{EDITOR}.drawnColour()")
    viewer = page.evaluate("window.cpsolveView.meshColours")
    assert drawn == {name: viewer[name] for name in names}
    moves = page.locator("#viewer .moves li").all_inner_texts()
    assert len(moves) == 108 and all(any(name in move for name in names) for move in moves)
    assert page.evaluate("window.cpsolveView.planFits()") is True
    page.click("#table-box th[data-key='level']")  # highest first
    expect(page.locator("#table-box tr >> nth=1")).to_contain_text("98.2.4.2")
    page.click("#table-box th[data-key='level']")  # lowest first: those that do not come apart
    expect(page.locator("#table-box tr >> nth=12")).to_contain_text("98.2.4.2")
    page.check("#table-box .only-apart input")
    expect(page.locator("#table-box tr")).to_have_count(2)
    page.hover("#viewer canvas")
    page.keyboard.press("ArrowRight")
    expect(page.locator("#viewer #plan-text")).to_contain_text("move 1 of 108")
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#viewer #plan-text")).to_contain_text("assembled")
    page.keyboard.press(" ")
    expect(page.locator("#viewer #play")).to_have_text("pause")
    page.keyboard.press(" ")
    expect(page.locator("#viewer #play")).to_have_text("play")
    for part in ("#edit-pane", "#results", "#view3d", "#viewer canvas"):  # side by side, nothing below the fold
        box = page.locator(part).bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 1280 and box["y"] + 40 <= 720, part
    assert page.evaluate("document.documentElement.scrollHeight") <= 720
    page.screenshot(path=str(Path(os.environ.get("CPSOLVE_SCREENSHOTS", "/tmp")) / "studio-pelikan.png"))
    assert page.errors == []
    page.close()


def test_a_refused_solve_says_failed_and_names_the_file_and_a_cancel_says_cancelled(
    chromium: Any, server: Server
) -> None:
    page = opened(chromium, server.address)
    open_file(page, "soma.yaml")
    page.click("#shapes button >> nth=0")  # the target
    click_at(page, f"{EDITOR}.screenOf([0, 0, 0], [-1, 0, 0])", button="right")  # a target cell removed
    page.click("#solve")
    expect(page.locator("#status")).to_have_attribute("data-state", "failed", timeout=60_000)
    expect(page.locator("#status")).to_contain_text("soma.yaml: pieces: the pieces have 27 cells but the target has 26")
    assert "<spec>" not in page.locator("#status").inner_text() + page.locator("#error").inner_text()
    page.click("#files button[data-path='bedlam.yaml']")
    page.click("#leave-keep")  # the removed cell is kept as a draft
    expect(page.locator("#name")).to_have_text("bedlam.yaml")
    page.click("#solve")
    expect(page.locator("#status")).to_have_attribute("data-state", "running", timeout=60_000)
    expect(page.locator("#status")).to_contain_text(re.compile(r"running [0-9.]+ s: .*[0-9,]+ solutions/s"))
    page.click("#cancel")
    expect(page.locator("#status")).to_have_attribute("data-state", "cancelled", timeout=30_000)
    expect(page.locator("#summary")).to_contain_text("stopped: cancelled")
    page.close()


@pytest.mark.parametrize("grid", GRIDS)
def test_a_new_puzzle_on_each_grid_is_drawn_by_clicks_and_solved(chromium: Any, server: Server, grid: str) -> None:
    """A new puzzle on the grid: its piece A grown by a click on a face of its first cell, the
    target made the same two cells by a click on the layer's floor and one on a face; solved."""
    page = opened(chromium, server.address)
    page.fill("#new-name", f"new-{grid}")
    page.select_option("#new-grid", grid)
    page.click("#new")
    expect(page.locator("#name")).to_have_text(f"new-{grid}.yaml")
    expect(page.locator("#shapes button")).to_have_count(2)
    first = page.evaluate(f"{EDITOR}.grid.firstCell()")
    step = page.evaluate(f"{EDITOR}.grid.balls ? {EDITOR}.grid.neighbour_steps[0] : {EDITOR}.grid.across[0][0]")
    click_at(page, f"{EDITOR}.screenOf({first}, {step})")
    expect(page.locator("#shapes button >> nth=1")).to_have_text("A (2)")
    piece = sorted(page.evaluate(f"[...{EDITOR}.shape.cells.keys()]"))
    page.click("#shapes button >> nth=0")
    click_at(page, f"{EDITOR}.screenOf({first}, {step})")
    expect(page.locator("#shapes button >> nth=0")).to_have_text("target (2)")
    assert sorted(page.evaluate(f"[...{EDITOR}.shape.cells.keys()]")) == piece
    page.click("#solve")
    expect(page.locator("#summary")).to_contain_text("unique 1 (complete)", timeout=60_000)
    expect(page.locator("#summary")).to_contain_text("orbit-stabiliser check ok")
    assert page.errors == []
    page.close()


def test_a_colour_rule_and_the_puzzles_name_are_edited_and_saved(
    chromium: Any, server: Server, workspace: Path
) -> None:
    page = opened(chromium, server.address)
    open_file(page, "soma.yaml")
    page.click("#shapes button >> nth=1")
    page.once("dialog", lambda dialog: dialog.accept("red"))
    page.select_option("#colour", "\u0000new")
    page.check("input[name=mode][value=paint]")
    click_at(page, f"{EDITOR}.screenOf([0, 0, 0], [0, 0, -1])")
    assert page.evaluate(f"{EDITOR}.drawnColour()") == "#dc2828"  # "red" is drawn red (cpsolve.colours)
    page.click("#shapes button >> nth=0")
    page.once("dialog", lambda dialog: dialog.accept("blue"))
    page.select_option("#colour", "\u0000new")
    click_at(page, f"{EDITOR}.screenOf([1, 1, 2], [0, 0, 1])")
    page.click("#tab-about")
    page.fill("#puzzle-name", "Soma with a rule")
    page.press("#puzzle-name", "Enter")
    page.select_option("#rule-piece", "red")
    page.select_option("#rule-target", "blue")
    page.click("#add-rule")
    expect(page.locator("#rule-list .rule")).to_have_count(1)
    page.keyboard.press("Control+s")
    expect(page.locator("#status")).to_have_text("saved soma.yaml")
    saved = yaml.safe_load((workspace / "soma.yaml").read_text())
    assert saved["name"] == "Soma with a rule" and saved["colour_rule"] == [["red", "blue"]]
    page.close()


def test_a_problem_is_added_given_its_pieces_solved_and_saved_beside_the_first(
    chromium: Any, server: Server, workspace: Path
) -> None:
    """A second problem, a copy of the first: its piece given two copies and its target a second
    cell; solved; the first problem keeps its own; a YAML file cannot hold two, so the page offers
    a BurrTools file, which holds both, each counted as drawn."""
    page = opened(chromium, server.address)
    page.fill("#new-name", "two")
    page.select_option("#new-grid", "cube")
    page.click("#new")
    expect(page.locator("#name")).to_have_text("two.yaml")
    expect(page.locator("#shapes button")).to_have_count(2)
    page.click("#tab-about")
    page.click("#add-problem")
    expect(page.locator("#problem-list .problem")).to_have_count(2)
    expect(page.locator("#problem")).to_have_value("1")
    page.click("#tab-edit")
    page.click("#shapes button >> nth=1")
    page.fill("#least", "2")
    page.fill("#most", "2")
    page.press("#most", "Enter")
    page.click("#shapes button >> nth=0")
    click_at(page, f"{EDITOR}.screenOf([0, 0, 0], [1, 0, 0])")
    expect(page.locator("#shapes button >> nth=0")).to_have_text("target (2)")
    page.click("#solve")
    expect(page.locator("#summary")).to_contain_text("unique 1 (complete)", timeout=60_000)
    page.select_option("#problem", "0")
    expect(page.locator("#shapes button >> nth=0")).to_have_text("target (1)")
    page.keyboard.press("Control+s")
    expect(page.locator("#banner")).to_contain_text("a YAML spec, which holds one problem")
    page.click("#banner button")
    expect(page.locator("#name")).to_have_text("two.xmpuzzle")
    expect(page.locator("#problem option")).to_have_text(["0: two", "1: problem 1"])
    expect(page.locator("#modified")).to_be_hidden()
    reports = [checked_run(workspace / "two.xmpuzzle", RunOptions(show=0, problem=str(n))) for n in (0, 1)]
    assert [report.counts.unique for report in reports] == [1, 1]
    targets = [formats.read_puzzle(workspace / "two.xmpuzzle", formats.ReadOptions(problem=n)) for n in "01"]
    models = [puzzle.model()[0] for puzzle in targets]
    assert [len(model.puzzle.target) for model in models if isinstance(model, PackingModel)] == [1, 2]
    assert page.errors == ["Failed to load resource: the server responded with a status of 400 (Bad Request)"]
    page.close()


def test_a_piece_stays_in_view_and_on_its_layer_through_turns_mirrors_and_shifts(chromium: Any, server: Server) -> None:
    """Soma's V turned about each axis, mirrored and shifted up, right and down by the keys: after
    each the whole piece is inside the camera's view and the layer view is on one of its layers;
    the wire frame that shows where a click adds is gone once the click has added."""
    page = opened(chromium, server.address)
    open_file(page, "soma.yaml")
    page.click("#shapes button >> nth=2")
    for key in ("x", "y", "z", "m", "PageUp", "PageUp", "PageUp", "ArrowRight", "ArrowRight", "ArrowDown", "z"):
        steps = page.evaluate(f"{EDITOR}.undoStack.length")
        page.locator("#view3d").focus()
        page.keyboard.press(key)
        until(page, f"{EDITOR}.undoStack.length > {steps}")
        assert page.evaluate(f"{EDITOR}.frustumHolds()") is True, key
        low, high = page.evaluate(f"{EDITOR}.grid.layerRange({EDITOR}.shape.cells.keys())")
        assert low <= page.evaluate(f"{EDITOR}.layer") <= high, key
    first = page.evaluate(f"[...{EDITOR}.shape.cells.keys()][0].split(',').map(Number)")
    x, y = page.evaluate(f"{EDITOR}.screenOf({first}, [0, 0, 1])")
    page.mouse.move(x, y)
    until(page, f"Boolean({EDITOR}.ghost && {EDITOR}.ghost.visible)")
    page.mouse.click(x, y)
    until(page, f"!{EDITOR}.ghost.visible")
    assert page.errors == []
    page.close()


@pytest.mark.parametrize("name", ["__proto__", "constructor"])
def test_a_colour_named_as_an_objects_own_field_is_drawn_saved_and_solved(
    chromium: Any, server: Server, workspace: Path, name: str
) -> None:
    """A colour named `__proto__` or `constructor` (they made the drawing impossible to save or
    solve) paints a cell, is saved as the spec's colour, and the drawing solves."""
    page = opened(chromium, server.address)
    open_file(page, "soma.yaml")
    page.click("#shapes button >> nth=0")
    page.once("dialog", lambda dialog: dialog.accept(name))
    page.select_option("#colour", "\u0000new")
    page.check("input[name=mode][value=paint]")
    click_at(page, f"{EDITOR}.screenOf([0, 0, 0], [0, 0, -1])")
    assert page.evaluate(f"{EDITOR}.drawnColour()").startswith("#")
    page.keyboard.press("Control+s")
    expect(page.locator("#status")).to_have_text("saved soma.yaml")
    saved = yaml.safe_load((workspace / "soma.yaml").read_text())
    assert saved["target"]["colours"] == {name: [[0, 0, 0]]}
    page.click("#solve")
    expect(page.locator("#status")).to_have_attribute("data-state", "done", timeout=60_000)
    assert page.errors == []
    page.close()
