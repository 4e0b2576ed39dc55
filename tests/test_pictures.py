"""--html pages in a real headless Chromium, --png pictures, and cpsolve.solve() with its notebook view.

The browser is the Debian `chromium` package (or $CPSOLVE_CHROMIUM) driven by Playwright, WebGL
drawn in software (SwiftShader: these machines have no GPU); the browser tests skip when either is
missing. Every page must open from disk with no console error and no request beyond itself and
its own blobs, draw something (read back from the three.js canvas), and answer its controls.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import SPECS, absent, corpus_dir
from playwright.sync_api import expect
from typer.testing import CliRunner

import cpsolve
from cpsolve.cli import app
from cpsolve.errors import CpsolveError
from cpsolve.options import OptionError

runner = CliRunner()
SOMA = SPECS / "soma.yaml"


def _chromium() -> str | None:
    return os.environ.get("CPSOLVE_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")


def launched_chromium(*flags: str) -> Iterator[Any]:
    """Debian's chromium through Playwright, with these flags beside --no-sandbox (a fixture's body)."""
    sync_api = pytest.importorskip("playwright.sync_api")
    executable = _chromium()
    if executable is None:
        absent("no chromium (apt-get install chromium, or $CPSOLVE_CHROMIUM)")
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox", *flags])
        yield launched
        launched.close()


WEBGL_IN_SOFTWARE = ("--enable-unsafe-swiftshader", "--use-angle=swiftshader")
MOST_PAGE_BYTES = 3 * 2**20  # three.js (2.1 MB unminified, as npm ships it) and Soma's 240 solutions


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from cpsolve.pictures import three

    if not three.installed():
        absent("three.js is not installed: run `cpsolve compile` (needs npm)")
    yield from launched_chromium(*WEBGL_IN_SOFTWARE)


class Opened:
    """A page opened from a file, with what it said on the console and what it asked the network for."""

    def __init__(self, browser: Any, path: Path, width: int = 1280, height: int = 800) -> None:
        self.page = browser.new_page(viewport={"width": width, "height": height})
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.page.on("console", lambda message: self.errors.append(message.text) if message.type == "error" else None)
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.on("request", lambda request: self.requests.append(request.url))
        self.page.goto(path.resolve().as_uri())
        self.page.wait_for_function("window.cpsolveView && window.cpsolveView.mounted")

    def pixels(self) -> tuple[int, int]:
        """(pixels that are not the white background, a checksum of the whole picture), read from
        the three.js canvas (its drawing buffer is kept) through a 2-D copy."""
        found = self.page.evaluate(
            """() => {
                const stage = document.querySelector('canvas.stage');
                const copy = document.createElement('canvas');
                copy.width = stage.width; copy.height = stage.height;
                const context = copy.getContext('2d');
                context.drawImage(stage, 0, 0);
                const data = context.getImageData(0, 0, copy.width, copy.height).data;
                let drawn = 0, sum = 0;
                for (let i = 0; i < data.length; i += 4) {
                    if (data[i] !== 255 || data[i + 1] !== 255 || data[i + 2] !== 255) drawn++;
                    sum = (sum * 31 + data[i] + 7 * data[i + 1] + 13 * data[i + 2]) % 1000000007;
                }
                return [drawn, sum];
            }"""
        )
        return int(found[0]), int(found[1])

    def shown_units(self) -> list[int]:
        """The pieces (chain: cubes) in the picture, whether or not others hide them."""
        return sorted(self.page.evaluate("window.cpsolveView.shownUnits"))

    def set_range(self, element: str, value: int) -> None:
        self.page.eval_on_selector(element, f"(e) => {{ e.value = '{value}'; e.dispatchEvent(new Event('input')); }}")

    def rows(self) -> Any:
        """The table of assemblies' rows (its heading left out)."""
        return self.page.locator(".table-box tr[data-index]")

    def scene(self) -> Any:
        return self.page.evaluate("JSON.parse(document.getElementById('scene').textContent)")

    def clean(self) -> None:
        outside = [url for url in self.requests if not url.startswith(("file:", "data:"))]
        assert self.errors == [] and outside == []
        assert len([url for url in self.requests if url.startswith("file:")]) == 1  # the page itself


def _page(tmp_path: Path, spec: Path, *extra: str) -> Path:
    out = tmp_path / f"{spec.stem}.html"
    result = runner.invoke(app, ["run", str(spec), "--html", str(out), "--show", "0", *extra])
    assert result.exit_code == 0, result.output
    return out


def test_packing_page(browser: Any, tmp_path: Path) -> None:
    """The Soma cube's 240 solutions: drawn, a row of the table changes the picture, the build
    slider at 1 shows one piece, the legend hides a piece, and the page stays within its size."""
    path = _page(tmp_path, SOMA)
    assert path.stat().st_size < MOST_PAGE_BYTES
    opened = Opened(browser, path)
    assert opened.rows().count() == 240
    drawn, first = opened.pixels()
    assert drawn > 10_000
    assert opened.shown_units() == list(range(7))
    opened.rows().nth(5).click()
    expect(opened.page.locator(".table-box tr.chosen")).to_have_attribute("data-index", "5")
    assert opened.pixels()[1] != first
    opened.set_range("#step", 1)
    assert len(opened.shown_units()) == 1
    one_piece = opened.pixels()[0]
    assert 0 < one_piece < drawn
    opened.set_range("#step", 7)
    opened.page.locator(".legend .entry").first.click()
    assert len(opened.shown_units()) == 6 and opened.page.locator(".legend .entry.off").count() == 1
    opened.set_range("#explode", 80)
    assert opened.pixels()[0] > 0
    assert "unique 240 (complete)" in opened.page.inner_text("#counts")
    opened.clean()


def test_chain_page(browser: Any, tmp_path: Path) -> None:
    opened = Opened(browser, _page(tmp_path, SPECS / "snake_standard.yaml"))
    drawn, _ = opened.pixels()
    assert drawn > 10_000 and len(opened.shown_units()) == 27
    opened.set_range("#step", 1)
    assert opened.shown_units() == [0]
    assert 0 < opened.pixels()[0] < drawn
    opened.clean()


def test_tiles_page(browser: Any, tmp_path: Path) -> None:
    """The board as tiles: as many as the board has places, every edge label written, and a row
    of the table shows another solution."""
    opened = Opened(browser, _page(tmp_path, SPECS / "tiles_rectangle_4x3.yaml"))
    assert opened.page.locator("#board .tile").count() == 12
    assert opened.page.locator("#board .tile text").count() == 12 * 5  # four edges and the tile
    before = opened.page.inner_html("#board")
    opened.rows().nth(3).click()
    assert opened.page.inner_html("#board") != before
    opened.clean()


def test_equal_tiles_are_coloured(browser: Any, tmp_path: Path) -> None:
    opened = Opened(browser, _page(tmp_path, SPECS / "tiles_frame_4x4.yaml"))
    assert opened.page.locator("#board .tile").count() == 16
    fills = set(opened.page.eval_on_selector_all("#board polygon", "(all) => all.map((p) => p.getAttribute('fill'))"))
    assert len(fills) > 2
    opened.clean()


def test_burrtools_page_with_disassembly(browser: Any, tmp_path: Path) -> None:
    """CubeInCage: the page says how many come apart, opens on the one that does, and builds it
    in the reverse of the order the plan takes it apart."""
    path = corpus_dir("burrtools") / "CubeInCage.xmpuzzle"
    opened = Opened(browser, _page(tmp_path, path, "--disassemble"))
    assert "1 of 96 come apart" in opened.page.inner_text("#counts")
    assert "the order the plan takes them out, reversed" in opened.page.inner_text("#step-text")
    opened.clean()


def test_the_page_takes_an_assembly_apart_as_the_plan_says(browser: Any, tmp_path: Path) -> None:
    """AlPackino's 17 moves: the take-apart slider moves the pieces the plan names and sets aside
    those taken out (still in view), its text says the move in the plan's words, the move list
    names every move, and play runs the plan to its end with every moment inside the camera."""
    path = corpus_dir("burrtools") / "AlPackino.xmpuzzle"
    plan = cpsolve.solve(path, disassemble=True).solutions[0]["disassembly"]["plan"]
    opened = Opened(browser, _page(tmp_path, path, "--disassemble"))
    assert opened.page.get_attribute("#plan", "max") == "17" and opened.page.is_visible("#play")
    assert opened.page.locator(".moves li").count() == 17
    assembled = opened.pixels()
    unit = {entry["label"]: number for number, entry in enumerate(opened.scene()["solutions"][0]["units"])}
    opened.set_range("#plan", 5)  # S2.2, S2.3, S3.4, S4.1 and S4.3 taken out along +z
    gone = sorted(unit[move["pieces"][0]] for move in plan[:5])
    assert sorted(opened.page.evaluate("window.cpsolveView.gone")) == gone
    assert len(opened.shown_units()) == 13 and opened.pixels()[1] != assembled[1]  # set aside, not hidden
    opened.set_range("#plan", 6)  # S4.2 moved +x by 1: still there, shifted
    assert plan[5] == {"pieces": ["S4.2"], "direction": "+x", "distance": 1}
    assert unit["S4.2"] in opened.page.evaluate("window.cpsolveView.moved")
    assert opened.page.inner_text("#plan-text") == "move 6 of 17: move S4.2 +x by 1"
    expect(opened.page.locator(".moves li.now")).to_have_text("move S4.2 +x by 1")
    opened.set_range("#plan", 0)
    assert opened.page.evaluate("window.cpsolveView.gone") == [] and opened.pixels() == assembled
    assert opened.page.evaluate("window.cpsolveView.planFits()") is True
    opened.set_range("#speed", 20)  # four times the default: the whole plan in about 5 s
    opened.page.click("#play")
    assert opened.page.inner_text("#play") == "pause"
    expect(opened.page.locator("#play")).to_have_text("play", timeout=120_000)  # the last move done: it stops
    assert opened.page.eval_on_selector("#plan", "(e) => e.value") == "17"
    assert "move 17 of 17: take" in opened.page.inner_text("#plan-text")
    opened.clean()


def test_the_page_takes_apart_on_the_prism_grid(browser: Any, tmp_path: Path) -> None:
    """Prisgon's second problem (triangular prisms, 23 moves): a move shifts its piece in the
    prisms' drawing; at the end every piece is set aside in view."""
    path = corpus_dir("burrtools-grids") / "Prisgon.xmpuzzle"
    opened = Opened(browser, _page(tmp_path, path, "--disassemble", "--problem", "1"))
    assert opened.page.get_attribute("#plan", "max") == "23"
    before = opened.pixels()
    opened.set_range("#plan", 4)
    assert opened.page.evaluate("window.cpsolveView.moved") and opened.pixels() != before
    assert opened.page.inner_text("#plan-text").startswith("move 4 of 23: move ")
    opened.set_range("#plan", 23)
    assert opened.page.evaluate("window.cpsolveView.planFits()") is True
    opened.clean()


def test_the_table_keeps_only_those_that_come_apart_and_the_png_draws_what_the_page_opens_on(
    browser: Any, tmp_path: Path
) -> None:
    """CubeInCage: 1 of 96 comes apart; the filter leaves that one in the table, and the PNG
    without --solution draws it, as the page opens on it."""
    path = corpus_dir("burrtools") / "CubeInCage.xmpuzzle"
    opened = Opened(browser, _page(tmp_path, path, "--disassemble"))
    assert opened.rows().count() == 96
    opened.page.check(".only-apart input")
    assert opened.rows().count() == 1 and "yes" in opened.rows().first.inner_text()
    opened.page.uncheck(".only-apart input")
    assert opened.rows().count() == 96
    opened.clean()
    apart = int(opened.page.get_attribute(".table-box tr.chosen", "data-index") or 0) + 1
    chosen, default = tmp_path / "chosen.png", tmp_path / "default.png"
    for png, extra in ((chosen, ["--solution", str(apart)]), (default, [])):
        result = runner.invoke(app, ["run", str(path), "--disassemble", "--png", str(png), *extra])
        assert result.exit_code == 0, result.output
    assert apart > 1 and default.read_bytes() == chosen.read_bytes()


def test_what_the_controls_say_is_true(browser: Any, tmp_path: Path) -> None:
    """A chain has no legend to click; a build order that was not checked says so; a page that
    holds fewer solutions than there are says so; no filter where nothing was taken apart."""
    chain = Opened(browser, _page(tmp_path, SPECS / "snake_standard.yaml"))
    assert chain.page.locator(".legend .entry").count() == 0
    chain.clean()
    pentominoes = Opened(browser, _page(tmp_path, SPECS / "pentominoes_6x10.yaml"))
    assert "not checked to build; taking it apart (disassemble) finds an order" in pentominoes.page.inner_text(
        "#step-text"
    )
    assert "the first 1,000 of 2,339 unique solutions" in pentominoes.page.inner_text("#limit")
    assert not pentominoes.page.is_visible(".only-apart")
    pentominoes.clean()


def test_each_copy_has_its_own_legend_entry_colour_and_name(browser: Any, tmp_path: Path) -> None:
    """18 copies of one T: 18 entries, each hides its copy alone; copies differ in shade; the
    build text names the piece as the legend does (label, then the piece's name)."""
    opened = Opened(browser, _page(tmp_path, SPECS / "t_tetracubes_6x6x2.yaml"))
    entries = opened.page.locator(".legend .entry")
    assert entries.count() == 18
    names = entries.all_inner_texts()
    assert all(name.strip().endswith("(T)") for name in names) and len(set(names)) == 18
    entries.nth(3).click()
    assert len(opened.shown_units()) == 17 and 3 not in opened.shown_units()
    units = opened.scene()["solutions"][0]["units"]
    assert len({unit["colour"] for unit in units}) >= 5
    assert opened.page.evaluate("window.cpsolveView.meshColours") == {unit["label"]: unit["colour"] for unit in units}
    opened.set_range("#step", 1)
    placed = opened.page.inner_text("#step-text").split("last placed ")[1].split(" (bottom layer first")[0]
    assert placed.endswith("(T)") and placed in [name.strip() for name in names]
    opened.clean()


def test_explode_brings_out_what_a_cage_holds(browser: Any, tmp_path: Path) -> None:
    """CubeInCage: at full explode only the largest piece in the middle stays put; the frames and
    the three pieces inside are pushed out, each at least a few cubes (before, those inside moved
    less than one)."""
    path = corpus_dir("burrtools") / "CubeInCage.xmpuzzle"
    opened = Opened(browser, _page(tmp_path, path, "--disassemble"))
    opened.set_range("#explode", 100)
    moved = opened.page.evaluate("window.cpsolveView.exploded")
    assert sorted(moved)[0] == 0 and min(sorted(moved)[1:]) >= 3
    assert sorted(opened.page.evaluate("window.cpsolveView.drawnUnits")) == list(range(6))
    opened.clean()


def test_named_tile_labels_neither_overlap_nor_leave_their_tile(browser: Any, tmp_path: Path) -> None:
    """The bugs board (labels like `beetle_head`) in a 1280 px window: within each tile the four
    labels and the tile's number keep apart and inside the tile (they overlapped and were cut)."""
    opened = Opened(browser, _page(tmp_path, SPECS / "tiles_bugs_3x3.yaml"))
    clashes = opened.page.evaluate(
        """() => {
            const found = [];
            const inside = (a, b) => a.left >= b.left - 0.5 && a.right <= b.right + 0.5
                && a.top >= b.top - 0.5 && a.bottom <= b.bottom + 0.5;
            const meet = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
            for (const tile of document.querySelectorAll('#board .tile')) {
                const box = tile.getBoundingClientRect();
                const texts = Array.from(tile.querySelectorAll('text')).map((t) => t.getBoundingClientRect());
                texts.forEach((a, i) => {
                    if (!inside(a, box)) found.push('outside');
                    texts.slice(i + 1).forEach((b) => { if (meet(a, b)) found.push('overlap'); });
                });
            }
            return found;
        }"""
    )
    assert clashes == []
    assert opened.page.evaluate("document.getElementById('board').getBoundingClientRect().width") >= 480
    opened.clean()


def test_the_take_apart_slider_is_hidden_without_a_plan(browser: Any, tmp_path: Path) -> None:
    opened = Opened(browser, _page(tmp_path, SOMA))
    assert not opened.page.is_visible("#plan-box")
    opened.clean()


def test_notebook_view(browser: Any) -> None:
    """What Jupyter shows for a result: the page in a frame, drawn."""
    result = cpsolve.solve(SOMA)
    page = browser.new_page()
    page.set_content(result._repr_html_())
    frame = page.frames[1]
    frame.wait_for_function("window.cpsolveView && window.cpsolveView.mounted")
    assert frame.evaluate("window.cpsolveView.shownUnits.length") == 7


def test_a_puzzle_without_solution(browser: Any, tmp_path: Path) -> None:
    """The page still opens and says so; no PNG is written, and the run ends well (exit 0)."""
    spec = tmp_path / "none.yaml"
    spec.write_text("pieces:\n  T: {cells: [[0,0],[1,0],[2,0],[1,1]]}\n  D: {box: [2, 1]}\ntarget: {box: [3, 2]}\n")
    page, picture = tmp_path / "none.html", tmp_path / "none.png"
    result = runner.invoke(app, ["run", str(spec), "--html", str(page), "--png", str(picture)])
    assert result.exit_code == 0, result.output
    assert "not written: the run found no solution to draw" in result.output and not picture.exists()
    opened = Opened(browser, page)
    assert opened.page.inner_text(".cpsolve-viewer") == "no solution to show"
    assert "unique 0 (complete)" in opened.page.inner_text("#counts")
    opened.clean()


@pytest.mark.parametrize(
    ("spec", "pieces"),
    [
        (SPECS / "kanoodle_pyramid.yaml", 12),  # balls
        (SPECS / "hexiamonds_rhombus.yaml", 12),  # prisms
        (Path("burrtools-grids/HexSticks.xmpuzzle"), 12),  # rhombic dodecahedra's tetrahedra
        (Path("burrtools-grids/FourPieceTetrahedron.xmpuzzle"), 4),  # tetrahedra and octahedra
    ],
    ids=lambda value: value.stem if isinstance(value, Path) else str(value),
)
def test_pages_of_other_grids(browser: Any, tmp_path: Path, spec: Path, pieces: int) -> None:
    """Each grid's cells drawn as their solids (spheres as balls) with the same controls: every
    piece shown, the build slider at 1 shows one, explode and the legend work, nothing on the
    console."""
    if not spec.is_absolute():
        spec = corpus_dir(spec.parent.name) / spec.name
    opened = Opened(browser, _page(tmp_path, spec))
    drawn, first = opened.pixels()
    assert drawn > 10_000
    assert len(opened.shown_units()) == pieces
    opened.set_range("#step", 1)
    assert len(opened.shown_units()) == 1
    assert 0 < opened.pixels()[0] < drawn
    opened.set_range("#step", pieces)
    opened.set_range("#explode", 80)
    assert opened.pixels()[1] != first
    opened.page.locator(".legend .entry").first.click()
    assert opened.pixels()[0] > 0
    opened.clean()


# -- without a browser ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("count", "apart"), [(7, 50), (13, 35), (20, 25)])
def test_the_palettes_colours_are_told_apart(count: int, apart: float) -> None:
    """The nearest two colours of a palette, as the eye sees them (CIELAB distance; 2.3 is the
    smallest difference noticed): Soma's seven, Bedlam's thirteen, twenty."""
    import math

    from cpsolve.colours import lab_of, palette

    colours = [lab_of(c) for c in palette(count)]
    assert len(set(palette(count))) == count
    assert min(math.dist(a, b) for i, a in enumerate(colours) for b in colours[i + 1 :]) >= apart


def test_a_palette_is_the_same_each_time_and_the_callers_own() -> None:
    """Palettes are kept per count: a caller that changes its list changes nobody else's, and
    past the candidates' number the colours repeat in order."""
    from cpsolve.colours import palette

    first = palette(9)
    first[0] = "#000000"
    assert palette(9)[0] != "#000000" and palette(9) == palette(12)[:9]
    many = palette(500)
    assert many[:216] == palette(216) and many[216:432] == palette(216)


def test_the_page_bundle_is_read_again_when_its_file_changes(tmp_path: Path) -> None:
    from cpsolve.pictures import three

    built = tmp_path / "page-0.js"
    built.write_text("first", encoding="utf-8")
    assert three._read_bundle(built) == "first"
    built.write_text("second, longer", encoding="utf-8")
    assert three._read_bundle(built) == "second, longer"


@pytest.mark.parametrize("copies", [2, 4, 6])
def test_copies_of_one_piece_are_told_apart(copies: int) -> None:
    """The shades of a piece's copies, for every colour of a palette of twenty: the nearest two
    at least 18 apart (CIELAB); lightness steps of +-0.16 had light colours' copies 5.1 apart."""
    import math

    from cpsolve.colours import copy_shade, lab_of, palette

    for colour in palette(20):
        shades = [copy_shade(colour, copy) for copy in range(copies)]
        assert shades[0] == colour
        labs = [lab_of(shade) for shade in shades]
        assert min(math.dist(a, b) for i, a in enumerate(labs) for b in labs[i + 1 :]) >= 18, (colour, shades)


def test_a_tiles_png_is_centred_with_its_numbers_on_badges(tmp_path: Path) -> None:
    """The board in the middle of the picture (the margins either side within a pixel or two),
    and each tile's number on a white badge rather than across the diagonals."""
    image_module = pytest.importorskip("PIL.Image")
    out = tmp_path / "tiles.png"
    result = runner.invoke(app, ["run", str(SPECS / "tiles_frame_4x4.yaml"), "--png", str(out)])
    assert result.exit_code == 0, result.output
    with image_module.open(out) as image:
        rgb = image.convert("RGB")
        width, height = rgb.size
        row = [rgb.getpixel((x, height // 2)) for x in range(width)]
        drawn = [x for x, pixel in enumerate(row) if pixel != (255, 255, 255)]
        assert abs(drawn[0] - (width - 1 - drawn[-1])) <= 2, (drawn[0], drawn[-1], width)
        board = rgb.crop((drawn[0] + 2, 40, drawn[-1] - 2, height - 10))  # the tiles, no margin
        counts = {colour: count for count, colour in board.getcolors(maxcolors=1_000_000) or []}
    assert counts.get((255, 255, 255), 0) > 16 * 200  # sixteen white badges among the coloured tiles


def test_solve_returns_counts_solutions_and_the_report() -> None:
    result = cpsolve.solve(SOMA)
    assert (result.counts.raw, result.counts.unique) == (11520, 240)
    assert len(result.solutions) == 240 and set(result.solutions[0]) == {"pieces"}
    assert result.report.complete and "<iframe srcdoc=" in result._repr_html_()
    limited = cpsolve.solve(SOMA, max_solutions=3, pictured=2)
    assert len(limited.solutions) == 2 and not limited.report.complete


def test_solve_takes_a_spec_as_data_and_checks_its_options() -> None:
    spec = {"name": "two dominoes", "pieces": {"D": {"box": [2, 1], "count": 2}}, "target": {"box": [2, 2]}}
    result = cpsolve.solve(spec, disassemble=True)
    assert result.counts.unique == 1 and result.solutions[0]["disassembly"]["level"] == "1"
    with pytest.raises(OptionError, match="unknown option 'colour'"):
        cpsolve.solve(spec, colour="red")
    with pytest.raises(OptionError, match=r"option time_limit \(--time-limit\) = 'x': input should be a valid number"):
        cpsolve.solve(spec, time_limit="x")
    with pytest.raises(ValueError, match=r"option max_solutions \(--max-solutions\) = -1: expected at least 1"):
        cpsolve.solve(spec, max_solutions=-1)
    with pytest.raises(CpsolveError, match=r"^<spec>: pieces\.D\.box"):  # the spec's name, no temporary file
        cpsolve.solve({**spec, "pieces": {"D": {"box": [0, 1]}}})


def test_solve_and_validate_take_a_file_of_several_problems_as_run_does() -> None:
    path = corpus_dir("burrtools") / "DemoMirrorParadox.xmpuzzle"
    with pytest.raises(CpsolveError, match=r"holds 2 problems .*give problem=N, or use cpsolve\.solve_all"):
        cpsolve.solve(path)
    results = cpsolve.solve_all(path)
    assert [r.report.as_json()["problem"] for r in results] == ["0", "1"]  # a string: it may also be a name
    assert cpsolve.solve(path, problem=1).counts == results[1].counts
    validated = CliRunner().invoke(app, ["validate", str(path)])
    assert validated.exit_code == 0 and validated.output.count(": ok:") == 2, validated.output
    one = CliRunner().invoke(app, ["validate", str(path), "--problem", "1"])
    assert one.exit_code == 0 and one.output.count(": ok:") == 1, one.output


def test_scene_marks_empty_optional_cells_and_orders_by_disassembly() -> None:
    result = cpsolve.solve(corpus_dir("burrtools") / "CubeInCage.xmpuzzle", disassemble=True, pictured=96)
    solutions = result.scene["solutions"]
    assert all(solution["empty"] for solution in solutions)  # the cage's variable cells left free
    apart = [s for s in solutions if s["order_from"] == "disassembly"]
    assert len(apart) == 1 and sorted(apart[0]["order"]) == list(range(6))
    assert {s["order_from"] for s in solutions} == {"disassembly", "bottom layer first"}


@pytest.mark.parametrize(
    ("spec", "least_colours"),
    [
        ("soma.yaml", 8),
        ("snake_standard.yaml", 8),
        ("tiles_bugs_3x3.yaml", 8),
        ("kanoodle_pyramid.yaml", 24),  # twelve pieces of shaded balls
        ("hexiamonds_rhombus.yaml", 24),  # twelve pieces of shaded prisms
    ],
)
def test_png(spec: str, least_colours: int, tmp_path: Path) -> None:
    image_module = pytest.importorskip("PIL.Image")
    out = tmp_path / "picture.png"
    result = runner.invoke(app, ["run", str(SPECS / spec), "--png", str(out), "--show", "1"])
    assert result.exit_code == 0, result.output
    with image_module.open(out) as image:
        colours = image.convert("RGB").getcolors(maxcolors=100_000)
    assert colours is not None and len(colours) > least_colours  # shaded faces or labels, not a blank page


def test_a_snakes_png_shows_its_path_and_numbers(tmp_path: Path) -> None:
    """The standard snake: the path through the cubes' centres (its own colour, (20, 20, 20)) and
    white boxes with the numbers of the cubes where it turns; a gradient alone before."""
    image_module = pytest.importorskip("PIL.Image")
    out = tmp_path / "snake.png"
    result = runner.invoke(app, ["run", str(SPECS / "snake_standard.yaml"), "--png", str(out)])
    assert result.exit_code == 0, result.output
    with image_module.open(out) as image:
        counts = {colour: count for count, colour in image.convert("RGB").getcolors(maxcolors=1_000_000) or []}
    assert counts.get((20, 20, 20), 0) > 1000  # the path
    assert counts.get((255, 255, 255), 0) > 0 and counts.get((0, 0, 0), 0) > 200  # boxes and numbers


def test_png_of_a_chosen_solution_without_drawing_the_ones_before(tmp_path: Path) -> None:
    runs = {"first": [], "fiftieth": ["--solution", "50"], "by_show": ["--show", "50"], "last": ["--solution", "240"]}
    outputs = {}
    for name, extra in {**runs, "past": ["--solution", "999"]}.items():
        result = runner.invoke(app, ["run", str(SPECS / "soma.yaml"), "--png", str(tmp_path / f"{name}.png"), *extra])
        assert result.exit_code == 0, result.output
        outputs[name] = result.output
    picture = {name: (tmp_path / f"{name}.png").read_bytes() for name in [*runs, "past"]}
    assert outputs["fiftieth"].count("\n") < 30  # one solution drawn as text, not fifty
    assert picture["fiftieth"] != picture["first"] and picture["fiftieth"] == picture["by_show"]
    assert picture["past"] == picture["last"] and "holds the first 240 unique solutions, not 999" in outputs["past"]


def test_pictures_of_a_file_with_several_problems_need_one(tmp_path: Path) -> None:
    path = corpus_dir("burrtools") / "DemoMirrorParadox.xmpuzzle"
    result = runner.invoke(app, ["run", str(path), "--html", str(tmp_path / "x.html")])
    assert result.exit_code == 2 and "give --problem with --html" in result.output


def test_every_picture_says_what_it_wrote_and_a_jpg_is_a_jpeg(tmp_path: Path) -> None:
    page, picture = tmp_path / "soma.html", tmp_path / "soma.jpg"
    result = CliRunner().invoke(app, ["run", str(SPECS / "soma.yaml"), "--html", str(page), "--png", str(picture)])
    assert result.exit_code == 0, result.output
    assert f"{page}: a page of 240 unique solutions" in result.output
    assert f"{picture}: a picture of solution 1" in result.output
    assert picture.read_bytes()[:3] == b"\xff\xd8\xff"  # JPEG's mark, not PNG's
    refused = CliRunner().invoke(app, ["run", str(SPECS / "soma.yaml"), "--png", str(tmp_path / "x.gif")])
    assert refused.exit_code == 2 and "x.gif: expected a .png (or .jpg, JPEG) file, not .gif" in refused.output
    assert not (tmp_path / "x.gif").exists()


def test_a_pngs_blank_is_cut_its_tile_labels_stay_in_their_tiles_and_explode_shows_what_a_cage_holds(
    tmp_path: Path,
) -> None:
    """Soma's picture ends a margin after its legend (the right third was blank); on the bugs
    board no label crosses the edge between two tiles (the side ones run along their edge and a
    long one is squeezed); PelikanBurr with --explode shows its pieces beside the cage (hidden
    inside it otherwise: the pieces' pixels to the cage's, 0.47 before, 2.1 apart)."""
    image_module = pytest.importorskip("PIL.Image")
    pictures = {}
    for name, path, extra in (
        ("soma", SOMA, []),
        ("bugs", SPECS / "tiles_bugs_3x3.yaml", []),
        ("cage", corpus_dir("burrtools") / "PelikanBurr.xmpuzzle", []),
        ("apart", corpus_dir("burrtools") / "PelikanBurr.xmpuzzle", ["--explode"]),
    ):
        out = tmp_path / f"{name}.png"
        result = runner.invoke(app, ["run", str(path), "--png", str(out), "--show", "0", *extra])
        assert result.exit_code == 0, result.output
        pictures[name] = image_module.open(out).convert("RGB")
    soma = pictures["soma"]
    assert soma.width < 640
    margin = [soma.getpixel((x, y)) for x in range(soma.width - 11, soma.width) for y in range(soma.height)]
    assert set(margin) == {(255, 255, 255)}  # a margin of white, then the legend
    last = [soma.getpixel((soma.width - 13, y)) for y in range(soma.height)]
    assert set(last) != {(255, 255, 255)}
    bugs = pictures["bugs"]
    size, left = 170, (760 - 3 * 170) // 2  # the board's layout in the picture (png._tiles)
    edges = [left + k * size for k in (1, 2)]
    crossing = [(x, y) for x in edges for y in range(36, 36 + 3 * size) if bugs.getpixel((x, y)) == (0, 0, 0)]
    assert crossing == []

    def pieces_to_cage(picture: Any) -> float:
        """The pixels of the pieces for each pixel of the cage (its reds)."""
        pixels = [picture.getpixel((x, y)) for x in range(picture.width) for y in range(30, picture.height)]
        cage = sum(1 for r, g, b in pixels if r > g + 50 and r > b + 50)
        return sum(1 for p in pixels if p != (255, 255, 255)) / cage - 1

    assert pieces_to_cage(pictures["cage"]) < 0.6 < 1.5 < pieces_to_cage(pictures["apart"])  # 0.47 and 2.1


def test_a_name_of_several_lines_is_drawn_on_one_and_copies_shades_are_chosen_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A puzzle and a piece named over two lines: the PNG draws them on one (Pillow refused to
    measure them: a ValueError out of `--png`, `save_png` and the studio's export). A thousand
    copies of one piece: their shades chosen once each, not again for every copy (a 50x50 board
    of dominoes took 34 s to draw)."""
    spec = tmp_path / "lines.yaml"
    spec.write_text('name: "two\\nlines"\npieces:\n  "A\\nB": {box: [2, 1], count: 2}\ntarget: {box: [2, 2]}\n')
    out = tmp_path / "lines.png"
    result = runner.invoke(app, ["run", str(spec), "--png", str(out)])
    assert result.exit_code == 0 and out.stat().st_size > 1000, result.output
    from cpsolve import colours

    looks = {"distances": 0}
    distance = colours._distance

    def counted(a: Any, b: Any) -> float:
        looks["distances"] += 1
        return distance(a, b)

    monkeypatch.setattr(colours, "_distance", counted)
    monkeypatch.setattr(colours, "_SHADES", {})
    shades = [colours.copy_shade("#3a7bd5", copy) for copy in range(1000)]
    assert shades[0] == "#3a7bd5" and len(set(shades[:20])) == 20
    assert looks["distances"] <= 36 * 1001  # the candidates' distances once a copy: linear, not quadratic
