"""What running as units costs, and what a second worker gains: batches and split runs on local
processes, on a Dask LocalCluster, and the sizes of the Bedlam cube's parts.

Usage: python benchmarks/distributed.py [--repeat N] [--parts] [--cluster ADDRESS] [--only TEXT] [CORPUS_DIR]

- The yass figures as a batch (`cpsolve batch`, whole processes, a fresh results file each time)
  with 1 and 2 local processes and on `--cluster local` with 1 and 2 workers: wall seconds and
  milliseconds per puzzle.
- Pentominoes 6x10 and the Bedlam cube as split runs (`cpsolve run --json`, its `seconds`): forked
  parts (`--workers`), units on a local process pool (`--checkpoint`), units on `--cluster local`,
  each with 1 and 2 workers.
- With --parts, each of the Bedlam cube's parts alone on one core: seconds and placements, sorted,
  to see how even the split is; --wanted N splits as a run with N/8 workers would.

With --cluster ADDRESS (a scheduler and workers already running, say `dask scheduler` and `dask
worker ADDRESS --nthreads 1` twice), also on it: no cluster start-up in the times.
--only TEXT keeps the rows whose label holds TEXT. Medians of N (default 3). CORPUS_DIR defaults
to ../shared/corpus/yass beside the checkout.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SPECS = ROOT / "puzzle_specs"
CPSOLVE = [sys.executable, "-m", "cpsolve"]


def wall(command: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, capture_output=True, check=False)
    return time.perf_counter() - started


def batch_times(figures: Path, repeat: int, address: str | None, only: str) -> None:
    count = len(list(figures.glob("*.soma")))
    print(f"batch of {count} yass figures (whole process, wall s, ms per puzzle):")
    for label, extra in (
        ("local, 1 process", ["--processes", "1"]),
        ("local, 2 processes", ["--processes", "2"]),
        ("--cluster local, 1 worker", ["--cluster", "local", "--processes", "1"]),
        ("--cluster local, 2 workers", ["--cluster", "local", "--processes", "2"]),
        *([("--cluster ADDRESS", ["--cluster", address])] if address else []),
    ):
        if only not in label:
            continue
        times = []
        for _ in range(repeat):
            with tempfile.TemporaryDirectory() as folder:
                out = Path(folder) / "results.jsonl"
                times.append(wall([*CPSOLVE, "batch", str(figures), "--out", str(out), *extra]))
        median = statistics.median(times)
        print(f"  {label:30} {median:7.2f} s  {1000 * median / count:6.1f} ms")


def run_seconds(spec: Path, extra: list[str], repeat: int) -> tuple[float, dict[str, int]]:
    seconds, counts = [], {}
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as folder:
            command = [*CPSOLVE, "run", str(spec), "--json", "--show", "0"]
            command += [arg.replace("{folder}", folder) for arg in extra]
            data = json.loads(subprocess.run(command, capture_output=True, text=True, check=True).stdout)
        seconds.append(data["seconds"])
        counts = data["counts"]
    return statistics.median(seconds), counts


def split_times(repeat: int, address: str | None, only: str) -> None:
    print("split runs (`seconds` of cpsolve run --json):")
    for spec in ("pentominoes_6x10.yaml", "bedlam.yaml"):
        for label, extra in (
            ("forked parts", ["--workers", "{n}"]),
            ("units, local pool (--checkpoint)", ["--workers", "{n}", "--checkpoint", "{folder}/run.checkpoint"]),
            ("units, --cluster local", ["--workers", "{n}", "--cluster", "local"]),
            *([("units, --cluster ADDRESS", ["--cluster", address])] if address else []),
        ):
            if only not in label:
                continue
            for workers in (1, 2) if "{n}" in " ".join(extra) else (0,):
                arguments = [arg.replace("{n}", str(workers)) for arg in extra]
                median, counts = run_seconds(SPECS / spec, arguments, repeat)
                who = f"{workers} worker(s)" if workers else "its workers"
                print(f"  {spec:22} {label:34} {who:12} {median:7.2f} s  {counts}")


def part_sizes(wanted: int) -> None:
    from cpsolve.engines import DEFAULT as ENGINES
    from cpsolve.engines import SearchOptions
    from cpsolve.engines.exact_cover import ExactCoverEngine
    from cpsolve.formats import read_puzzle

    engine = ExactCoverEngine()
    engine.load()
    puzzle, _ = read_puzzle(SPECS / "bedlam.yaml").model()
    prepared = engine.prepare(puzzle, ENGINES.choose_breaking(puzzle).breaking)
    sizes = []
    for key in prepared.part_keys(wanted):
        started = time.perf_counter()
        part = prepared.enumerate(SearchOptions(), part=key)
        solutions = sum(len(batch) for batch in part.batches())
        sizes.append((time.perf_counter() - started, getattr(part, "steps", 0), solutions))
    sizes.sort(reverse=True)
    total = sum(seconds for seconds, _, _ in sizes)
    print(f"Bedlam: {len(sizes)} parts, {total:.2f} s on one core")
    seconds = [s for s, _, _ in sizes]
    print(
        f"  largest {seconds[0]:.3f} s ({100 * seconds[0] / total:.1f} %), median {statistics.median(seconds):.3f} s,"
    )
    print(
        f"  smallest {seconds[-1]:.4f} s; the largest 5 parts hold {100 * sum(seconds[:5]) / total:.1f} % of the time"
    )
    for seconds_taken, placements, solutions in sizes[:5]:
        print(f"  {seconds_taken:7.3f} s {placements:>12,} placements {solutions:>6} solutions")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("corpus", nargs="?", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cluster", help="a running scheduler's address, for rows on it")
    parser.add_argument("--only", default="", help="only the rows whose label holds this")
    parser.add_argument("--wanted", type=int, default=16, help="--parts: as many as for this many (16: 2 workers)")
    parser.add_argument("--parts", action="store_true", help="time each of the Bedlam cube's parts alone")
    args = parser.parse_args()
    corpus = args.corpus or ROOT.parent / "shared" / "corpus" / "yass"
    if args.parts:
        part_sizes(args.wanted)
        return
    batch_times(corpus / "figures", args.repeat, args.cluster, args.only)
    split_times(args.repeat, args.cluster, args.only)


if __name__ == "__main__":
    main()
