"""How long a whole `cpsolve` process takes, with the kernels' ahead-of-time build (`cpsolve compile`)
and with numba's own kernels (CPSOLVE_NATIVE=0): the median wall time of `cpsolve --help` and of
`cpsolve run --json` on small problems, each with its run's own `seconds` (the work after the
imports), the two ways taken in turn so that a drift of the machine touches both alike.

python benchmarks/start_up.py [--repeat 9] [FILE ...]   (default: BurrTools' small examples)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(os.environ.get("CPSOLVE_CORPUS") or ROOT.parent / "shared" / "corpus")
DEFAULT_FILES = [
    CORPUS / "burrtools" / "CubeInCage.xmpuzzle",
    CORPUS / "burrtools" / "AlPackino.xmpuzzle",
    CORPUS / "burrtools-grids" / "Bermuda.xmpuzzle",
    ROOT / "puzzle_specs" / "soma.yaml",
]
WAYS = {"build": {}, "numba": {"CPSOLVE_NATIVE": "0"}}


def timed(command: list[str], environment: dict[str, str]) -> tuple[float, float | None]:
    """Wall seconds of one process, and the `seconds` its JSON report gives (None without one)."""
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env={**os.environ, **environment}, check=True)
    wall = time.perf_counter() - started
    try:
        return wall, float(json.loads(done.stdout)["seconds"])
    except (ValueError, KeyError, TypeError):
        return wall, None


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--repeat", type=int, default=9)
    args = parser.parse_args()
    cpsolve = [sys.executable, "-m", "cpsolve"]
    commands = [("--help", [*cpsolve, "--help"])]
    commands += [(f"run {path.name}", [*cpsolve, "run", str(path), "--json"]) for path in args.files or DEFAULT_FILES]
    print(f"{'command':28} {'with the build':>15} {'numba':>8} {'seconds':>8}")
    for label, command in commands:
        walls: dict[str, list[float]] = {way: [] for way in WAYS}
        seconds: list[float] = []
        for environment in WAYS.values():
            timed(command, environment)  # not counted: the page cache
        for _ in range(args.repeat):
            for way, environment in WAYS.items():
                wall, own = timed(command, environment)
                walls[way].append(wall)
                if own is not None and way == "build":
                    seconds.append(own)
        own_text = f"{statistics.median(seconds):8.3f}" if seconds else f"{'-':>8}"
        build, numba = statistics.median(walls["build"]), statistics.median(walls["numba"])
        print(f"{label:28} {build:15.3f} {numba:8.3f} {own_text}")


if __name__ == "__main__":
    main()
