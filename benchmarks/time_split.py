"""Where a run's time goes: reading, the model, the search and the classes, with the search's nodes.

Usage: python benchmarks/time_split.py [--repeat N] [--workers N] [--problem N] [--nothing-kept] PUZZLE...

In one process with every compiled kernel loaded (as a warm studio or the second run of a batch),
each puzzle is run N times (default 5) as `cpsolve run` runs it, with the search timed apart: the
time spent inside the search's generator is `search`, what the run does with the solutions it
yields (classes, the orbit-stabiliser check, the first solution drawn) is `classes`; `model` is
everything before the search (the model, the symmetry breaking, the engine's tables). `nodes` are
the placements the search made (the search's own count where it runs here, as on one worker).
Medians; `seconds` is the report's. Each run reads the file anew, so a run takes from what the
process kept only what is kept by content (shapes' forms, targets' symmetries, pieces' placements
in their targets): a designer's next try with nothing changed. `--nothing-kept` gives each run an
empty store of placements, as a run whose pieces all changed (or the code before it kept them).
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import time
from collections.abc import Generator, Iterator
from typing import Any
from unittest.mock import patch

from cpsolve import formats, run
from cpsolve.events import Progress
from cpsolve.formats.base import ReadOptions
from cpsolve.kernels import load_every_kernel
from cpsolve.models.packing import placements
from cpsolve.options import Options


class Timed:
    """Wraps a search: the seconds spent producing its batches."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.seconds = 0.0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def __iter__(self) -> Iterator[Any]:
        for batch in self.batches():
            yield from batch

    def batches(self) -> Generator[Any, None, None]:
        source = self.inner.batches()
        while True:
            started = time.perf_counter()
            try:
                batch = next(source)
            except StopIteration:
                self.seconds += time.perf_counter() - started
                return
            self.seconds += time.perf_counter() - started
            yield batch


def split(path: str, workers: int, problem: str | None = None) -> dict[str, float]:
    """One run of the puzzle's first problem (or the one `problem` names): its parts, in seconds,
    and its nodes."""
    opened: list[Timed] = []
    original = run.open_search

    def timed_search(*arguments: Any) -> Any:
        search = Timed(original(*arguments))
        opened.append(search)
        return search

    nodes = [0]

    def progress(event: Progress) -> None:
        nodes[0] = max(nodes[0], event.placements or 0)

    started = time.perf_counter()
    puzzle = formats.read_puzzle(path, ReadOptions(problem=problem))
    read = time.perf_counter() - started
    ready: list[float] = []
    run.open_search = timed_search  # type: ignore[assignment]
    try:
        began = time.perf_counter()
        report = run.run(
            puzzle,
            Options.of({"workers": workers}).run_options(),
            on_progress=progress,
            on_ready=lambda: ready.append(time.perf_counter()),
        )
        whole = time.perf_counter() - began
    finally:
        run.open_search = original  # type: ignore[assignment]
    model = ready[0] - began
    search = sum(timed.seconds for timed in opened)
    steps = [getattr(getattr(timed.inner, "here", timed.inner), "steps", 0) for timed in opened]
    nodes[0] = max(nodes[0], sum(steps))
    return {
        "read": read,
        "model": model,
        "search": search,
        "classes": whole - model - search,
        "seconds": report.seconds,
        "nodes": float(nodes[0]),
        "unique": float(report.counts.unique),
    }


def _kept(nothing: bool) -> contextlib.AbstractContextManager[Any]:
    """For one run: the placements the process kept, or (`nothing`) an empty store of them."""
    if not nothing:
        return contextlib.nullcontext()
    return patch.object(placements, "KEPT_PLACEMENTS", placements.placement_store())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("puzzles", nargs="+")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--problem", help="which problem of each BurrTools file (default: the first)")
    parser.add_argument("--nothing-kept", action="store_true", help="each run finds every placement anew")
    arguments = parser.parse_args()
    load_every_kernel()
    print(f"{'puzzle':40} {'read':>7} {'model':>7} {'search':>7} {'classes':>8} {'seconds':>8} {'nodes':>11} unique")
    for path in arguments.puzzles:
        split(path, arguments.workers, arguments.problem)  # the first run pays for what a warm process loaded
        runs = []
        for _ in range(arguments.repeat):
            with _kept(arguments.nothing_kept):
                runs.append(split(path, arguments.workers, arguments.problem))
        median = {key: statistics.median(one[key] for one in runs) for key in runs[0]}
        name = path.rsplit("/", 1)[-1]
        print(
            f"{name:40} {median['read']:7.3f} {median['model']:7.3f} {median['search']:7.3f}"
            f" {median['classes']:8.3f} {median['seconds']:8.3f} {median['nodes']:11,.0f} {median['unique']:,.0f}"
        )


if __name__ == "__main__":
    main()
