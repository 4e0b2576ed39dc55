"""What the studio's server holds as jobs pile up: its resident memory after 10 and after N jobs.

Usage: python benchmarks/studio_memory.py [--jobs N] [--puzzle SPEC] [--first]   (default 500 jobs of Soma)

Starts `cpsolve studio` on a scratch workspace holding the puzzle, then through its HTTP API (as
the page does) starts a job, follows its events to the end and reads its scene (the solutions the
page draws), one job after another. Prints the server's resident set (VmRSS from /proc) when it
has started, after 10 jobs and after N: finished jobs are kept within a byte budget
(cpsolve.studio.state: the newest whole, the others their report and last event), so the last
figure should stay within twice the second.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import httpx

SOMA = Path(__file__).resolve().parent.parent / "puzzle_specs" / "soma.yaml"
REPORTED_AFTER = 10


def resident_mb(pid: int) -> float:
    """The process's resident set in MB, as the kernel counts it."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def one_job(client: httpx.Client, path: str, first: bool) -> None:
    """A job as the page runs one: started, its events followed to the end, its scene read."""
    options = {"show": 100, **({"first": True} if first else {})}
    number = client.post("/api/jobs", json={"path": path, "options": options}).json()["id"]
    with client.stream("GET", f"/api/jobs/{number}/events") as events:
        for _ in events.iter_lines():
            pass
    scene = client.get(f"/api/jobs/{number}/scene")
    scene.raise_for_status()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=500)
    parser.add_argument("--puzzle", type=Path, default=SOMA)
    parser.add_argument("--first", action="store_true", help="each job stops at its first solution")
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        workspace = Path(folder)
        shutil.copy(arguments.puzzle, workspace / arguments.puzzle.name)
        command = [sys.executable, "-m", "cpsolve", "studio", str(workspace), "--no-browser"]
        process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
        assert process.stdout is not None
        line = process.stdout.readline().strip().removeprefix("cpsolve studio: ")
        address, token = line.rstrip("/").split("/?token=")
        try:
            headers = {"Authorization": f"Bearer {token}"}
            with httpx.Client(base_url=address, headers=headers, timeout=300) as client:
                client.get("/api/files").raise_for_status()
                print(f"started: {resident_mb(process.pid):.0f} MB")
                for done in range(1, arguments.jobs + 1):
                    one_job(client, arguments.puzzle.name, arguments.first)
                    if done in (REPORTED_AFTER, arguments.jobs):
                        print(f"after {done} jobs of {arguments.puzzle.name}: {resident_mb(process.pid):.0f} MB")
        finally:
            process.terminate()
            process.wait(timeout=30)


if __name__ == "__main__":
    main()
