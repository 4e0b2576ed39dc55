"""`--workers`: a search split into disjoint parts, solved in this process or in forked processes.

The split follows the symmetry breaking: every solution holds exactly one atom of the first
breaking set, and only the kept atom of each orbit is allowed, so "this kept atom is the one" cuts
the search into disjoint parts whose solutions together are the whole search's; an engine may cut
each part further (`Prepared.part_keys`) so that there are enough to keep every process busy.
Each process runs one engine with one thread (CP-SAT loses solutions with more, README).

Worker processes are forked after the puzzle was prepared and receive it as their argument (fork
copies it; nothing is pickled and no global holds it). They take parts from a queue and send each
part's solutions back in small batches as they are found, so progress, `--solutions` and Ctrl-C
see them before the part ends. A worker leaves when its parent is gone. Where `fork` is not
available, the parts run one after another in this process.
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import signal
import threading
import time
from collections.abc import Generator, Sequence
from multiprocessing.process import BaseProcess
from typing import Any

from cpsolve.counting import Solution
from cpsolve.limits import NO_DEADLINE, Deadline

from .base import Enumeration, PartKey, Prepared, SearchOptions, StopReason

PARTS_PER_WORKER = 8  # an engine that can split finer is asked for this many parts per process
MAX_WORKERS_PER_CORE = 4  # --workers beyond this many per core is capped (each process holds the model)
BATCH_SECONDS = 0.05  # a worker sends what it found at least this often while it finds solutions
BATCH_SIZE = 512
PARENT_CHECK_SECONDS = 0.5

# Messages from a worker: ("found", [solutions]), ("done", part key, stop reason or None),
# ("failed", description of an exception).
Message = tuple[str, Any, Any]


def fork_available() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


class PartsEnumeration(Enumeration):
    """Iterate to receive the solutions of every part; then `complete` and `stopped_by`."""

    def __init__(
        self,
        prepared: Prepared,
        parts: list[PartKey],
        workers: int,
        search: SearchOptions,
        deadline: Deadline = NO_DEADLINE,
    ) -> None:
        super().__init__(search, deadline)
        self.prepared = prepared
        self.parts = parts
        # more processes than parts do nothing; more than a few per core only share the cores
        most = MAX_WORKERS_PER_CORE * (os.cpu_count() or 1)
        self.workers = max(1, min(workers, len(parts), most)) if fork_available() else 1
        self.parts_done = 0

    def __iter__(self) -> Generator[Solution, None, None]:
        for batch in self.batches():
            yield from batch

    def batches(self) -> Generator[list[Solution], None, None]:
        """Each part's or worker's solutions in the batches they arrive in."""
        if self.workers == 1:
            yield from self._in_this_process()
        else:
            yield from self._in_workers()

    def _in_this_process(self) -> Generator[list[Solution], None, None]:
        for key in self.parts:
            part = self.prepared.enumerate(self.search, self.deadline, key)
            yield from part.batches()
            self._part_done(part.stopped_by)
            if self.stopped_by is not None:
                return

    @property
    def complete(self) -> bool:
        return self.stopped_by is None and self.parts_done == len(self.parts)

    def _part_done(self, stopped_by: StopReason | None) -> None:
        self.parts_done += 1
        if stopped_by is not None:
            self.interrupt(stopped_by)

    def _in_workers(self) -> Generator[list[Solution], None, None]:
        context = multiprocessing.get_context("fork")
        tasks: multiprocessing.Queue[PartKey | None] = context.Queue()
        results: multiprocessing.Queue[Message] = context.Queue()
        for key in self.parts:
            tasks.put(key)
        for _ in range(self.workers):
            tasks.put(None)
        args = (self.prepared, self.search, self.deadline, tasks, results, os.getpid())
        processes = [context.Process(target=_work, args=args, daemon=True) for _ in range(self.workers)]
        try:
            for process in processes:
                process.start()
            while self.parts_done < len(self.parts) and self.stopped_by is None:
                message = self._receive(results, processes)
                if message is None:
                    continue
                kind, payload, reason = message
                if kind == "found":
                    yield payload
                elif kind == "done":
                    self._part_done(None if reason is None else StopReason(reason))
                else:
                    raise RuntimeError(f"a worker failed: {payload}")
        finally:
            _stop(processes)

    def _receive(self, results: multiprocessing.Queue[Message], processes: Sequence[BaseProcess]) -> Message | None:
        """The next message, or None after a short wait (so Ctrl-C and the clock are seen)."""
        try:
            return results.get(timeout=0.1)
        except queue.Empty:
            if not any(p.is_alive() for p in processes):
                raise RuntimeError("every worker ended before the parts were done") from None
            return None


def _stop(processes: Sequence[BaseProcess]) -> None:
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        process.join()


def _work(
    prepared: Prepared,
    search: SearchOptions,
    deadline: Deadline,
    tasks: multiprocessing.Queue[PartKey | None],
    results: multiprocessing.Queue[Message],
    parent: int,
) -> None:
    """A worker process: solve parts until told to stop, sending solutions as they come."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's: it ends the workers
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    leave_with_parent(parent)
    try:
        while (key := tasks.get()) is not None:
            part = prepared.enumerate(search, deadline, key)
            batch: list[Solution] = []
            sent = time.monotonic()
            for found in part.batches():
                batch.extend(found)
                if len(batch) >= BATCH_SIZE or time.monotonic() - sent > BATCH_SECONDS:
                    results.put(("found", batch, None))
                    batch, sent = [], time.monotonic()
            if batch:
                results.put(("found", batch, None))
            results.put(("done", key, None if part.stopped_by is None else str(part.stopped_by)))
    except Exception as error:  # a bug, reported to the parent, which raises it
        results.put(("failed", f"{type(error).__name__}: {error}", None))


def leave_with_parent(parent: int) -> None:
    """End this forked process once its parent is gone (killed without a chance to end it): a
    thread that looks every PARENT_CHECK_SECONDS. The parts' workers and a batch's use it."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()
