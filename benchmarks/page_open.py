"""How big a page is and how fast it opens: `cpsolve run SPEC --html` in headless Chromium.

Usage: python benchmarks/page_open.py [--repeat N] [SPEC ...]   (default: the Soma cube)

For each spec: the page's size, then the medians over N fresh pages of the time from navigation
to the viewer's first picture drawn (three.js made into modules from the page's own text, the
scene read, the first solution drawn: `window.cpsolveView.mounted`), and of the time to show
another solution (a click on the last row of the table of assemblies, measured inside the page
with performance.now()). WebGL drawn in software (SwiftShader), as on a machine without a GPU.
Needs Playwright, Chromium (the Debian `chromium` package, or $CPSOLVE_CHROMIUM) and three.js
installed (`cpsolve compile`).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("specs", nargs="*", default=[str(ROOT / "puzzle_specs/soma.yaml")])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    executable = os.environ.get("CPSOLVE_CHROMIUM") or shutil.which("chromium")
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as playwright:
        flags = ["--no-sandbox", "--enable-unsafe-swiftshader", "--use-angle=swiftshader"]
        browser = playwright.chromium.launch(executable_path=executable, args=flags)
        for spec in args.specs:
            page_file = Path(folder) / "page.html"
            command = [sys.executable, "-m", "cpsolve", "run", spec, "--html", str(page_file), "--show", "0"]
            subprocess.run(command, check=True, capture_output=True)
            opening, switching = [], []
            for _ in range(args.repeat):
                page = browser.new_page()
                started = time.perf_counter()
                page.goto(page_file.as_uri())
                page.wait_for_function("window.cpsolveView && window.cpsolveView.mounted", polling=5)
                opening.append(time.perf_counter() - started)
                switching.append(
                    page.evaluate(
                        """() => {
                            const rows = document.querySelectorAll('.table-box tr[data-index]');
                            const started = performance.now();
                            rows[rows.length - 1].click();
                            return (performance.now() - started) / 1000;
                        }"""
                    )
                )
                page.close()
            size = page_file.stat().st_size
            print(
                f"{Path(spec).name}: {size / 1024:.0f} KB, opens in {statistics.median(opening) * 1000:.0f} ms,"
                f" another solution shown in {statistics.median(switching) * 1000:.1f} ms"
                f" (medians of {args.repeat})"
            )
        browser.close()


if __name__ == "__main__":
    main()
