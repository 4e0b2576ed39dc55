"""The studio's page in Chromium: how long it takes to open, to redraw after a cell is painted on a
9x9x9 target, and how long the page's main thread stalls while Bedlam solves with live progress.

Usage: python benchmarks/studio_page.py [--paints N] [--chromium PATH]

Starts `cpsolve studio` on a scratch workspace (a 9x9x9 box of monocubes and Bedlam), drives
Debian's chromium with Playwright (WebGL in software: SwiftShader, as on any machine without a GPU):
- open: from navigation to the file list shown, median of 7 loads;
- paint: the editor's `timePaint` on N cells of the 729-cell target, each from the cell added (or
  taken) to the frame drawn, `gl.finish()` included: median and the slowest;
- responsive: while Bedlam solves (progress events arriving), the longest gap between animation
  frames over 5 s of the solve (a page that blocks shows a long gap).
Needs three.js installed (`cpsolve compile`).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

BOX = "name: 9x9x9 of monocubes\npieces:\n  A: {cells: [[0, 0, 0]], count: 729}\ntarget:\n  box: [9, 9, 9]\n"
BEDLAM = Path(__file__).resolve().parent.parent / "puzzle_specs" / "bedlam.yaml"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--paints", type=int, default=40)
    parser.add_argument("--chromium", default=shutil.which("chromium") or "chromium")
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        workspace = Path(folder)
        (workspace / "box.yaml").write_text(BOX)
        shutil.copy(BEDLAM, workspace / "bedlam.yaml")
        command = [sys.executable, "-m", "cpsolve", "studio", str(workspace), "--no-browser"]
        process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
        assert process.stdout is not None
        address = process.stdout.readline().strip().removeprefix("cpsolve studio: ")
        try:
            measure(address, arguments.chromium, arguments.paints)
        finally:
            process.terminate()
            process.wait(timeout=30)


def measure(address: str, chromium: str, paints: int) -> None:
    flags = ["--no-sandbox", "--enable-unsafe-swiftshader", "--use-angle=swiftshader"]
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=flags)
        page = browser.new_page(viewport={"width": 1300, "height": 900})
        opens = []
        for _ in range(7):
            started = time.perf_counter()
            page.goto(address)
            page.wait_for_selector("#files button")
            page.evaluate("window.studio.ready")
            opens.append(time.perf_counter() - started)
        median = statistics.median(opens) * 1000
        print(f"page open: median {median:.0f} ms over 7 loads (first {opens[0] * 1000:.0f} ms)")

        page.click("#files button[data-path='box.yaml']")
        page.wait_for_selector("#shapes button:has-text('target (729)')")
        page.click("#shapes button >> nth=0")
        times = page.evaluate(
            """(n) => { const e = window.studio.state.editor; const out = [];
                for (let i = 0; i < n; i++) out.push(e.timePaint([i % 9, Math.floor(i / 9) % 9, 9])); return out; }""",
            paints,
        )
        print(
            f"paint a cell on the 9x9x9 target, redraw: median {statistics.median(times):.1f} ms,"
            f" slowest {max(times):.1f} ms over {paints}"
        )

        page.click("#files button[data-path='bedlam.yaml']")
        page.click("#leave-keep")  # the painted cells: kept as a draft
        page.wait_for_selector("#name:has-text('bedlam.yaml')")
        page.wait_for_selector("#shapes button:has-text('target (64)')")
        page.fill("#limit", "20")
        page.click("#solve")
        page.wait_for_selector("#status[data-state=running]", timeout=60_000)
        gap = page.evaluate(
            """() => new Promise((done) => { let last = performance.now(), most = 0; const until = last + 5000;
                const frame = (now) => { most = Math.max(most, now - last); last = now;
                  if (now < until) requestAnimationFrame(frame); else done(most); };
                requestAnimationFrame(frame); })"""
        )
        status = page.inner_text("#status")
        print(f"while Bedlam solves: the longest gap between frames over 5 s {gap:.0f} ms (status: {status})")
        page.click("#cancel")
        browser.close()


if __name__ == "__main__":
    main()
