"""What sorting a listing run's solutions into classes costs, apart from the search.

Usage: python benchmarks/classify.py [--repeat N] SPEC...

Enumerates each puzzle once as a run would (its engine, its symmetry breaking, one process) and
keeps the batches of solutions; then hands those batches to a new classifier and each new class
to the run's handling of new classes (nothing shown, no hook), as cpsolve.run does, best of N.
Prints solutions, classes, the enumeration's seconds and the classification's seconds and
microseconds per solution: on puzzles with many solutions the classification runs in the main
process while workers search, so it bounds what `--workers` can gain.
"""

from __future__ import annotations

import argparse
import dataclasses
import time

from cpsolve.counting import Classifier
from cpsolve.formats import read_puzzle
from cpsolve.limits import Deadline
from cpsolve.run import NewClasses, RunOptions, open_search, prepare
from cpsolve.symmetry import Solution


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("specs", nargs="+")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    options = dataclasses.replace(RunOptions(), workers=1)
    print(f"{'spec':48} {'solutions':>10} {'classes':>10} {'search s':>9} {'classify s':>10} {'us each':>8}")
    for spec in args.specs:
        puzzle = read_puzzle(spec)
        prepared = prepare(puzzle, options, Deadline.after(None))
        started = time.perf_counter()
        batches: list[list[Solution]] = list(open_search(prepared, puzzle, options, Deadline.after(None)).batches())
        searched = time.perf_counter() - started
        best = float("inf")
        classes = 0
        for _ in range(args.repeat):
            started = time.perf_counter()
            classifier = Classifier(prepared.puzzle.group, prepared.compiled.breaking)
            new = NewClasses(prepared.puzzle, 0, None, None)
            for batch in batches:
                for found in classifier.add_batch(batch):
                    if found is not None:
                        new.add(found)
            best = min(best, time.perf_counter() - started)
            classes = len(classifier.classes)
            assert not classifier.identity_problems()
        solutions = sum(len(batch) for batch in batches)
        each = 1e6 * best / max(1, solutions)
        print(f"{spec:48} {solutions:>10,} {classes:>10,} {searched:>9.3f} {best:>10.3f} {each:>8.2f}")


if __name__ == "__main__":
    main()
