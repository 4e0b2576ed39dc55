"""The studio's warm process against burrTxt's whole process, on the puzzles a designer iterates on.

Usage: python benchmarks/studio_warm.py [--requests N] [--workers N] [--burrtxt PATH] [CORPUS_DIR]

Starts `cpsolve studio` on a scratch workspace (127.0.0.1, a free port) and, for each puzzle and
with and without disassembly, sends N requests (default 20) from this client: each copies the
puzzle to a file name the server has not seen (a designer's loop changes the puzzle every time;
the server keeps no results, and this keeps it honest), POSTs the job and reads its event stream
to the end. The time of a request is the client's wall time from the POST to the last event.
burrTxt (-q, and -q -d) runs the same file N times as a fresh process. Medians, and the ratio
burrTxt / studio (above 1: the studio faster); the counts are checked to agree.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

PUZZLES = ("DraculasDentalDesaster.xmpuzzle", "PelikanBurr.xmpuzzle", "CubeInCage.xmpuzzle")


def start_studio(workspace: Path) -> tuple[subprocess.Popen[str], str, str]:
    """The server, its address and its token (from the one line it prints)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "cpsolve", "studio", str(workspace), "--no-browser"], stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None
    line = process.stdout.readline().strip()
    address, token = line.removeprefix("cpsolve studio: ").rstrip("/").split("/?token=")
    return process, address, token


def solved_by_studio(
    client: httpx.Client, path: str, disassemble: bool, workers: int
) -> tuple[float, dict[str, object]]:
    started = time.perf_counter()
    options = {"disassemble": disassemble, "show": 0, "workers": workers}
    number = client.post("/api/jobs", json={"path": path, "options": options}).json()["id"]
    report: dict[str, object] = {}
    with client.stream("GET", f"/api/jobs/{number}/events") as events:
        for line in events.iter_lines():
            if line.startswith("data: "):
                event = json.loads(line[6:])
                if event["event"] == "finished":
                    report = event["report"]
    return time.perf_counter() - started, report


def burrtxt(program: str, path: Path, disassemble: bool) -> tuple[float, str]:
    command = [program, "-q", *(["-d"] if disassemble else []), str(path)]
    started = time.perf_counter()
    output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    return time.perf_counter() - started, output


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("corpus", nargs="?", type=Path, default=Path(__file__).parents[2] / "shared/corpus/burrtools")
    parser.add_argument("--requests", type=int, default=20)
    parser.add_argument("--workers", type=int, default=0, help="the jobs' workers (0: the run's default)")
    parser.add_argument("--burrtxt", default=str(Path.home() / ".cache/cpsolve-peers/burrTxt"))
    arguments = parser.parse_args()
    workspace = Path(tempfile.mkdtemp(prefix="studio-bench-"))
    process, address, token = start_studio(workspace)
    print("puzzle                              disassemble  studio s  burrTxt s  burrTxt/studio  assemblies")
    try:
        with httpx.Client(base_url=address, headers={"Authorization": f"Bearer {token}"}, timeout=600) as client:
            for name in PUZZLES:
                for disassemble in (False, True):
                    ours, theirs, counted = [], [], None
                    for request in range(arguments.requests):
                        copy = f"{Path(name).stem}-{int(disassemble)}-{request}.xmpuzzle"
                        shutil.copy(arguments.corpus / name, workspace / copy)
                        seconds, report = solved_by_studio(client, copy, disassemble, arguments.workers)
                        ours.append(seconds)
                        counted = report.get("burrtools_assemblies", report.get("counts"))
                        theirs.append(burrtxt(arguments.burrtxt, arguments.corpus / name, disassemble)[0])
                    studio, peer = statistics.median(ours), statistics.median(theirs)
                    print(f"{name:36} {disassemble!s:11} {studio:9.4f} {peer:10.4f} {peer / studio:14.1f}x  {counted}")
    finally:
        process.terminate()
        process.wait()
        shutil.rmtree(workspace, ignore_errors=True)


if __name__ == "__main__":
    main()
