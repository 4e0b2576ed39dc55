"""Shared helpers: where the specs and the corpus are, and the checks every count test makes."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

import pytest
import yaml

from cpsolve.events import Finished, JobEvent
from cpsolve.formats import ReadOptions, read_puzzle
from cpsolve.jobs import Job
from cpsolve.models import PuzzleModel
from cpsolve.report import RunReport
from cpsolve.run import ProgressHook, ReadyHook, RunOptions, SolutionHook, run

ROOT = Path(__file__).resolve().parent.parent
SPECS = ROOT / "puzzle_specs"
# the corpus of real puzzle files with their reference counts: $CPSOLVE_CORPUS, else ../shared/corpus
CORPUS = Path(os.environ.get("CPSOLVE_CORPUS") or ROOT.parent / "shared" / "corpus")
IN_CI = os.environ.get("CI") == "true"  # under CI a missing corpus or peer fails instead of skipping


def absent(reason: str) -> NoReturn:
    """Skip a test whose corpus or peer is missing; under CI=true, fail it."""
    if IN_CI:
        pytest.fail(f"{reason}, and CI=true needs it", pytrace=False)
    pytest.skip(reason)


def spec_files() -> list[Any]:
    """Every shipped spec as a pytest param; those marked `slow: true` run only with -m slow."""
    params = []
    for path in sorted(SPECS.glob("*.yaml")):
        data = yaml.safe_load(path.read_text())
        marks = [pytest.mark.slow] if data.get("slow") else []
        params.append(pytest.param(path, marks=marks, id=path.stem))
    return params


def run_one(
    path: Path | str,
    options: RunOptions | None = None,
    on_progress: ProgressHook | None = None,
    on_new_class: SolutionHook | None = None,
    on_ready: ReadyHook | None = None,
) -> RunReport:
    """The run of a file's first problem (or the one `options.problem` names)."""
    options = options or RunOptions(show=0)
    puzzle = read_puzzle(path, ReadOptions(options.max_file_bytes, options.problem))
    return run(puzzle, options, on_progress, on_new_class, on_ready)


def checked_run(path: Path | str, options: RunOptions | None = None) -> RunReport:
    """Run and assert what must hold of any complete run: the orbit-stabiliser identity."""
    report = run_one(path, options or RunOptions(show=0))
    assert report.complete, report.stopped_by
    assert report.identity_problems == []
    return report


def built(path: Path | str) -> PuzzleModel:
    """The solver-neutral model of a puzzle file, as a run builds it."""
    return read_puzzle(path).model()[0]


def children_of(pid: int) -> set[int]:
    """The processes a process has started (from /proc)."""
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            found.update(int(child) for child in (task / "children").read_text().split())
        except FileNotFoundError:  # a thread that ended since the folder was listed has no children
            continue
    return found


def peer(name: str) -> Path:
    """A peer program built by ../shared/peers/build.sh (burrTxt, soma), or skip the test.

    Looked for in $CPSOLVE_PEERS, then in build.sh's default folder ~/.cache/cpsolve-peers.
    """
    for folder in (os.environ.get("CPSOLVE_PEERS"), Path.home() / ".cache" / "cpsolve-peers"):
        if folder and (Path(folder) / name).is_file():
            return Path(folder) / name
    absent(f"peer {name} is not built (../shared/peers/build.sh; $CPSOLVE_PEERS names its folder)")


def corpus_dir(name: str) -> Path:
    path = CORPUS / name
    if not path.is_dir():
        absent(f"corpus {path} is absent ($CPSOLVE_CORPUS names the folder that holds it)")
    return path


Follow = Callable[[Job, Callable[[JobEvent], None]], RunReport]


def ctrl_c_as_each_run_ends(follow: Follow) -> Follow:
    """`cpsolve.jobs.follow` with the program's Ctrl-C landing while it hands on a run's last
    event: too late for the run to see it, its report complete. Deterministic, where a real
    Ctrl-C falls there once in about twenty batches on a busy machine."""

    def interrupted(job: Job, handle: Callable[[JobEvent], None]) -> RunReport:
        def handle_then_interrupt(event: JobEvent) -> None:
            handle(event)
            if isinstance(event, Finished):
                raise KeyboardInterrupt

        return follow(job, handle_then_interrupt)

    return interrupted


def no_solution_after_long(path: Path) -> Path:
    """Write, at `path`, a puzzle without solution whose searches learn that only after a long
    time: 47 dominoes in a 4x4x6 box less two corner cells of one colour (every domino covers a
    cell of each colour of the chessboard colouring, so none fits the rest), a mutilated
    chessboard in 3-D: past 30 s of search on this project's machine, where the 4x4x4 one takes
    4 s. No cell is dead, so no search backs up at its first choice (a cell no piece can reach
    was such a puzzle until the bit-parallel search found it at once)."""
    cells = [[x, y, z] for z in range(6) for y in range(4) for x in range(4) if (x, y, z) not in ((0, 0, 0), (3, 3, 0))]
    spec = {
        "name": "mutilated box",
        "pieces": {"domino": {"cells": [[0, 0, 0], [1, 0, 0]], "count": len(cells) // 2}},
        "target": {"cells": cells},
    }
    path.write_text(yaml.safe_dump(spec))
    return path


__all__ = [
    "CORPUS",
    "SPECS",
    "absent",
    "built",
    "checked_run",
    "children_of",
    "corpus_dir",
    "ctrl_c_as_each_run_ends",
    "no_solution_after_long",
    "peer",
    "run_one",
    "spec_files",
]
