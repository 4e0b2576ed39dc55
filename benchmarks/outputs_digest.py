"""Every output a change must leave as it was, as digests: each problem's `--json` report (its
timings left out; for BurrTools' files also with every assembly taken apart), the page and the
PNG of a few puzzles, and the `.xmpuzzle` a run writes. Record before a change, compare after:

python benchmarks/outputs_digest.py --out /tmp/before.json
python benchmarks/outputs_digest.py --compare /tmp/before.json

The puzzles: the non-slow `puzzle_specs/`, BurrTools' examples on every grid and the first
`--yass` yass figures of ../shared/corpus, each on one worker (so that no report depends on the
machine's speed). Exit 1 where anything differs, with the first differences named.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import cpsolve
from cpsolve import formats
from cpsolve.formats import ReadOptions
from cpsolve.output import format_report

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(os.environ.get("CPSOLVE_CORPUS") or ROOT.parent / "shared" / "corpus")
TIMINGS = ("seconds",)  # what differs from run to run
PICTURED = ("puzzle_specs/soma.yaml", "puzzle_specs/snake_standard.yaml", "puzzle_specs/kanoodle_pyramid.yaml")


def puzzle_files(yass: int) -> list[Path]:
    specs = sorted((ROOT / "puzzle_specs").glob("*.yaml"))
    corpus = sorted((CORPUS / "burrtools").glob("*.xmpuzzle")) + sorted((CORPUS / "burrtools-grids").glob("*.xmpuzzle"))
    figures = sorted((CORPUS / "yass" / "figures").glob("*.soma"))[:yass]
    return [path for path in specs if "slow: true" not in path.read_text(encoding="utf-8")] + corpus + figures


def report_digests(path: Path, disassemble: bool = False) -> dict[str, Any]:
    """Each problem's report without its timings (or the one line that refused it); with
    `disassemble`, each assembly taken apart (`--disassemble`)."""
    found: dict[str, Any] = {}
    try:
        puzzles = formats.read_puzzles(path, ReadOptions())
    except cpsolve.CpsolveError as error:
        return {"refused": str(error)}
    for puzzle in puzzles:
        key = puzzle.problem or "-"
        try:
            report = cpsolve.start(puzzle, workers=1, time_limit=120, class_events=0, disassemble=disassemble).result()
        except cpsolve.CpsolveError as error:
            found[key] = {"refused": str(error)}
            continue
        shown = {name: value for name, value in report.as_json().items() if name not in TIMINGS}
        if isinstance(shown.get("disassembly"), dict):
            shown["disassembly"] = {name: value for name, value in shown["disassembly"].items() if name not in TIMINGS}
        shown["text"] = [line for line in format_report(report).splitlines() if not line.startswith("time:")]
        found[key] = shown
    return found


def picture_digests(relative: str) -> dict[str, str]:
    """The page's, the PNG's and the BurrTools file's digests of one puzzle's run."""
    result = cpsolve.solve(ROOT / relative, workers=1)
    digests: dict[str, str] = {}
    with tempfile.TemporaryDirectory() as scratch:
        page, picture = Path(scratch) / "page.html", Path(scratch) / "picture.png"
        result.save_html(page)
        digests["html"] = hashlib.sha256(page.read_bytes()).hexdigest()
        try:
            result.save_png(picture)
            digests["png"] = hashlib.sha256(picture.read_bytes()).hexdigest()
        except cpsolve.CpsolveError as error:
            digests["png"] = f"refused: {error}"
    return digests


def command_digests(relative: str) -> dict[str, str]:
    """What `cpsolve run` writes of one puzzle: the page, the PNG, the BurrTools file (its XML: gzip
    stamps the time) and the STL pieces, by digest, and what it prints (its time line left out)."""
    digests: dict[str, str] = {}
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch)
        command = [sys.executable, "-m", "cpsolve", "run", str(ROOT / relative), "--workers", "1", "--show", "2"]
        command += ["--html", str(out / "page.html"), "--png", str(out / "picture.png"), "--stl", str(out / "stl")]
        if relative.startswith("puzzle_specs/soma") or relative.endswith(".xmpuzzle"):
            command += ["--xmpuzzle", str(out / "puzzle.xmpuzzle")]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        printed = [line for line in done.stdout.splitlines() if not line.startswith("time:")]
        digests["stdout"] = hashlib.sha256("\n".join(printed).encode()).hexdigest()
        digests["stderr"] = done.stderr.replace(scratch, "OUT")
        digests["exit"] = str(done.returncode)
        for path in sorted(out.rglob("*")):
            if path.is_file():
                data = path.read_bytes()
                data = gzip.decompress(data) if path.suffix == ".xmpuzzle" else data
                digests[str(path.relative_to(out))] = hashlib.sha256(data).hexdigest()
    return digests


def record(yass: int) -> dict[str, Any]:
    everything: dict[str, Any] = {}
    for path in puzzle_files(yass):
        name = str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.relative_to(CORPUS))
        everything[name] = report_digests(path)
        if path.suffix == ".xmpuzzle":  # the disassembler's output too: BurrTools' puzzles come apart
            everything[f"disassembled {name}"] = report_digests(path, disassemble=True)
        print(name, file=sys.stderr)
    for relative in PICTURED:
        everything[f"pictures {relative}"] = picture_digests(relative)
    for relative in (*PICTURED, "../shared/corpus/burrtools/PelikanBurr.xmpuzzle"):
        everything[f"command {relative}"] = command_digests(relative)
    return everything


def differences(before: Any, after: Any, where: str = "") -> list[str]:
    if isinstance(before, dict) and isinstance(after, dict):
        found = []
        for key in sorted(set(before) | set(after)):
            if key not in before or key not in after:
                found.append(f"{where}/{key}: only {'after' if key in after else 'before'}")
            else:
                found.extend(differences(before[key], after[key], f"{where}/{key}"))
        return found
    return [] if before == after else [f"{where}: {json.dumps(before)[:120]} -> {json.dumps(after)[:120]}"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="write the digests here")
    parser.add_argument("--compare", type=Path, help="compare with digests written before")
    parser.add_argument("--yass", type=int, default=40, help="how many yass figures (in name order)")
    arguments = parser.parse_args()
    now = record(arguments.yass)
    if arguments.out is not None:
        arguments.out.write_text(json.dumps(now, indent=1, sort_keys=True), encoding="utf-8")
    if arguments.compare is None:
        return 0
    found = differences(json.loads(arguments.compare.read_text(encoding="utf-8")), now)
    for line in found[:40]:
        print(line)
    print(f"{len(now)} files: {'the same' if not found else f'{len(found)} differences'}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
