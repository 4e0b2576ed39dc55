"""The one executor: where units of work run, each streaming what it produces as it comes.

A task is a function from a unit to an iterator of items; `Workers.stream(task, units)` runs the
task on every unit and yields `(index of the unit, item)` as items arrive, then `(index, DONE)`
when the unit's task has ended. Four places to run:

- `InProcess`: one unit after another in this process (one worker, or no `fork`).
- `Threaded`: threads of this process, for searches whose compiled kernels let go of the GIL
  (cpsolve.native.RELEASING): nothing started, copied or sent; a unit's task looks at the
  stream's halt through its deadline (`deadline_for`), the later threads begin after a stagger.
- `Forked`: processes forked when the stream starts. The task and everything it refers to (a
  compiled puzzle, the engines already loaded) reach them through the fork, so nothing of it is
  pickled; units go to them through a queue and items come back through another as they are
  made, so progress, `--solutions` and Ctrl-C see them before a unit ends. A worker leaves when
  its parent is gone. Where the caller lets units grow, a running unit that sees another worker
  waiting with nothing queued may hand part of its work back (`sharing()`), which becomes new
  units: parts cut in advance are uneven, and one left running alone holds a core idle.
- `OnDask`: a Dask cluster (a scheduler's address, or `local` for a LocalCluster of this
  machine). The task is pickled to the workers; a unit's items arrive when it has ended, and Dask
  runs a unit again when its worker dies, so the caller merges each unit once.

The parts of a split search (cpsolve.parts), `--checkpoint`, `--cluster` and batches all run here.
"""

from __future__ import annotations

import dataclasses
import itertools
import os
import queue
import re
import signal
import socket
import struct
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Generator, Iterator, Sequence
from contextlib import contextmanager
from enum import Enum
from typing import TYPE_CHECKING, Any, Final

from cpsolve.errors import CpsolveError, Terminated, printable

if TYPE_CHECKING:  # multiprocessing and logging are imported by the runs that start processes
    import multiprocessing
    from multiprocessing.process import BaseProcess

LOCAL: Final = "local"  # --cluster local: a Dask LocalCluster on this machine


class Signal(Enum):
    """What a stream says beside the items of its units' tasks: a unit's task has ended (DONE),
    units were added to the stream's list after the given one (GREW), the stream was ended by its
    `stop` (STOPPED, index -1: a cancelled job). Compared by identity (`item is DONE`): an item of
    a task may be anything, an array among them, and is never one of these."""

    DONE = "done"
    GREW = "grew"
    STOPPED = "stopped"


class Sent(Enum):
    """What a forked worker sends its parent: an item of a unit's task, work it hands back, or a
    failure (a bug, which the parent raises)."""

    ITEM = "item"
    MORE = "more"
    FAILED = "failed"


DONE: Final = Signal.DONE
GREW: Final = Signal.GREW
STOPPED: Final = Signal.STOPPED
MAX_WORKERS_PER_CORE = 4  # more forked processes than this per core only share the cores (each holds the model)
PARENT_CHECK_SECONDS = 0.5
POLL_SECONDS = 0.1  # how often the parent looks at its workers (and so sees Ctrl-C) while it waits
STOP_SETTLE_SECONDS = 2.0  # how long dead workers wait for the run's stop to be set (`_stopping`)
STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM}  # held while workers are forked
CONNECT_SECONDS = 10  # a scheduler that has not greeted or answered by then is not used
MAX_GREETING_BYTES = 1 << 20  # a Dask scheduler's first frame: a few dozen bytes
MAX_GREETING_FRAMES = 1000

Task = Callable[..., Iterator[Any]]  # (unit) -> items; where a stream grows, (unit, its worker's Sharing) -> items
Event = tuple[int, Any]
Grow = Callable[[Any, Any], list[Any]]  # (a running unit, what it hands back) -> the new units
Stop = Callable[[], bool]  # asked while a stream waits for its workers: True ends it


def fork_available() -> bool:
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods()


def cores() -> int:
    return os.cpu_count() or 1


class Workers(ABC):
    """Where units run; `workers` is how many at once; `remote`: items cross a process boundary
    (so a task sends them in fewer, larger messages)."""

    workers: int = 1
    remote: bool = True

    @abstractmethod
    def stream(
        self, task: Task, units: list[Any], grow: Grow | None = None, stop: Stop | None = None
    ) -> Generator[Event, None, None]:
        """Run `task` on each unit; (unit index, item) per item as it comes, then (index, DONE).
        Closing the iterator stops the work, running units included. With `grow`, a running unit
        may hand part of its work back (`sharing()`, forked workers only): the new units `grow`
        makes of it are appended to `units`, run like the others, and announced by (index, GREW).
        `stop` is asked while the stream waits for its workers (forked workers, every
        POLL_SECONDS): once it says True the stream yields (-1, STOPPED) and ends its work (the
        units' tasks in this process look at their own deadline)."""

    def close(self) -> None:  # noqa: B027  (most places to run hold nothing to let go of)
        """Let go of what the workers hold (a cluster's client)."""


class InProcess(Workers):
    remote = False

    def stream(
        self, task: Task, units: list[Any], grow: Grow | None = None, stop: Stop | None = None
    ) -> Generator[Event, None, None]:
        for index, unit in enumerate(units):
            for item in task(unit):
                yield index, item
            yield index, DONE


class Threaded(Workers):
    """`threads` threads of this process, started for each stream and ended with it: for searches
    whose compiled kernels let go of the GIL (cpsolve.native.threads_run_apart), so that they search
    on separate cores with nothing to start, copy or send between processes (starting forked ones
    costs 0.03-0.05 s, more than a small search: cpsolve.parts). The threads take the
    units in order; their items reach the stream through one queue. A task must look at
    `halt` (a unit's deadline made with `deadline_for`) between its slices: the stream sets it
    when it ends, and waits for the threads, each at its part's next slice."""

    remote = False

    def __init__(self, threads: int, stagger: float = 0.0) -> None:
        self.workers = threads
        self.stagger = stagger  # the threads after the first start this late, if units are left by then
        self.halt = threading.Event()

    def deadline_for(self, deadline: Any) -> Any:
        """The run's deadline that also passes once the stream ends (cpsolve.limits.Deadline)."""
        from cpsolve.limits import Halted

        return dataclasses.replace(deadline, cancel=Halted(deadline.cancel, self.halt))

    def stream(
        self, task: Task, units: list[Any], grow: Grow | None = None, stop: Stop | None = None
    ) -> Generator[Event, None, None]:
        self.halt.clear()
        # bounded: threads that find faster than the stream's reader classifies wait, rather than
        # pile up what they found (400 dominoes in a box: 1.16 GB of queued solutions, unbounded)
        results: queue.Queue[tuple[int, Any]] = queue.Queue(maxsize=QUEUED_PER_THREAD * self.workers)
        taken = itertools.count()  # next() on it is one step under the GIL: no unit taken twice
        count = max(1, min(self.workers, len(units)))
        threads = [
            threading.Thread(target=self._serve, args=(task, units, taken, results, n > 0), name=f"cpsolve search {n}")
            for n in range(count)
        ]
        for thread in threads:
            thread.start()
        ended, running = 0, count
        try:
            while ended < len(units) and running:
                try:
                    index, item = results.get(timeout=POLL_SECONDS)
                except queue.Empty:
                    if stop is not None and stop():
                        yield -1, STOPPED
                        return
                    continue
                if index == THREAD_ENDED:
                    running -= 1
                elif index == THREAD_FAILED:
                    raise RuntimeError(f"a search thread failed: {type(item).__name__}: {item}") from item
                else:
                    ended += item is DONE
                    yield index, item
        finally:
            self.halt.set()
            for thread in threads:
                thread.join()

    def close(self) -> None:
        self.halt.set()

    def _serve(self, task: Task, units: list[Any], taken: Iterator[int], results: Any, late: bool) -> None:
        """One thread: units in turn until none is left or the stream has ended; a `late` one
        begins after `stagger` seconds, so that a search the first thread ends by then (most
        small puzzles') is never shared for nothing."""
        try:
            if late and self.stagger > 0:
                self.halt.wait(self.stagger)
            while not self.halt.is_set():
                index = next(taken)
                if index >= len(units):
                    return
                items = task(units[index])
                for item in items:
                    self._put(results, (index, item))
                    if self.halt.is_set():  # the stream has ended: no more of this unit
                        close = getattr(items, "close", None)  # a generator's: its cleanup runs now
                        if close is not None:
                            close()
                        return
                self._put(results, (index, DONE))
        except BaseException as error:  # the stream raises it where it is read
            self._put(results, (THREAD_FAILED, error))
        finally:
            self._put(results, (THREAD_ENDED, None))

    def _put(self, results: queue.Queue[tuple[int, Any]], entry: tuple[int, Any]) -> None:
        """Hand an item to the stream, waiting while the queue is full; dropped once the stream
        has ended (nobody reads it then, and a thread must not wait for ever)."""
        while not self.halt.is_set():
            try:
                results.put(entry, timeout=POLL_SECONDS)
                return
            except queue.Full:
                continue


# A Threaded stream's threads after the first begin this late: a search that takes less gains
# nothing from sharing (docs/measurements.md, "Speed, round three")
THREADS_STAGGER_SECONDS = 0.02
QUEUED_PER_THREAD = 8  # items (batches of up to 512 solutions) a Threaded stream holds per thread
THREAD_ENDED: Final = -2  # an index no unit has: a thread of a Threaded stream has ended
THREAD_FAILED: Final = -3  # ... its task raised (the error is the item)


class Forked(Workers):
    """`processes` forked processes, started for each stream and ended with it."""

    def __init__(self, processes: int) -> None:
        self.workers = processes

    def stream(
        self, task: Task, units: list[Any], grow: Grow | None = None, stop: Stop | None = None
    ) -> Generator[Event, None, None]:
        import multiprocessing

        context = multiprocessing.get_context("fork")
        todo: multiprocessing.Queue[tuple[int, Any] | None] = context.Queue()
        results: multiprocessing.Queue[tuple[Sent, int, Any]] = context.Queue()
        for index in range(len(units)):
            todo.put((index, None))  # a worker has the units there are now: the fork copied them
        count = max(1, min(self.workers, len(units)) if grow is None else self.workers)  # units may come
        hunger = None
        if grow is None:
            for _ in range(count):
                todo.put(None)
        else:  # the workers wait for more until the stream ends them
            hunger = Hunger(context.Value("i", 0), context.Value("i", len(units)))
        arguments = (task, units, todo, results, os.getpid(), hunger)
        processes = [context.Process(target=_serve, args=arguments, daemon=True) for _ in range(count)]
        ended = 0
        try:
            _start(processes)
            while ended < len(units):
                try:
                    message = _receive(results, processes, every_stays=grow is not None)
                except WorkersEnded:
                    if stop is None or not _stopping(stop):
                        raise
                    message = None
                if message is None:
                    if stop is not None and stop():
                        yield -1, STOPPED
                        return
                    continue
                kind, index, item = message
                if kind is Sent.FAILED:
                    raise RuntimeError(f"a worker failed: {item}")
                if kind is Sent.MORE and grow is not None:
                    for unit in grow(units[index], item):
                        units.append(unit)
                        todo.put((len(units) - 1, unit))
                    yield index, GREW
                    continue
                ended += item is DONE
                yield index, item
        finally:
            _stop(processes)
            # units still queued when the workers were ended (a stream stopped early) would keep
            # the queue's feeder thread blocked on a full pipe, and the program waiting for it at exit
            todo.cancel_join_thread()


class Hunger:
    """Shared by a stream's forked workers: how many wait for a unit, and how many units are
    queued (counted when a worker hands work back, not when the parent queues it, so that a
    worker does not hand work back twice for one hungry worker). A plain class: a dataclass
    costs every run's start about 0.5 ms."""

    def __init__(self, waiting: Any, queued: Any) -> None:  # multiprocessing.Value("i") each
        self.waiting, self.queued = waiting, queued

    def add(self, counter: Any, amount: int) -> None:
        with counter.get_lock():
            counter.value += amount


class Sharing:
    """What a unit running in a forked worker sees of the others: whether one waits with nothing
    queued, and where to hand work back."""

    def __init__(self, hunger: Hunger, results: Any) -> None:
        self.hunger = hunger
        self.results = results  # the stream's queue of messages to the parent
        self.index = -1  # the unit running here

    def wanted(self) -> bool:
        return bool(self.hunger.waiting.value > 0 and self.hunger.queued.value <= 0)

    def give(self, work: list[Any]) -> None:
        """Hand `work` back (the stream's `grow` makes units of it); the caller no longer does it."""
        self.hunger.add(self.hunger.queued, len(work))
        self.results.put((Sent.MORE, self.index, work))


def _serve(
    task: Task,
    units: Sequence[Any],
    todo: multiprocessing.Queue[tuple[int, Any] | None],
    results: multiprocessing.Queue[tuple[Sent, int, Any]],
    parent: int,
    hunger: Hunger | None,
) -> None:
    """A forked worker: run the task on units until told to stop, sending each item as it comes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's: it ends the workers
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)  # blocked by the parent while it forked
    leave_with_parent(parent)
    sharing = None if hunger is None else Sharing(hunger, results)
    index = -1
    try:
        while (message := _next_unit(todo, hunger)) is not None:
            index, sent = message
            unit = units[index] if sent is None else sent
            if sharing is not None:
                sharing.index = index
            for item in task(unit) if sharing is None else task(unit, sharing):
                results.put((Sent.ITEM, index, item))
            results.put((Sent.ITEM, index, DONE))
    except Exception as error:  # a bug, reported to the parent, which raises it
        results.put((Sent.FAILED, index, f"{type(error).__name__}: {error}"))


def _next_unit(todo: multiprocessing.Queue[tuple[int, Any] | None], hunger: Hunger | None) -> tuple[int, Any] | None:
    """The next unit's index (and the unit, where the fork did not copy it), counted as waiting
    while this worker waits for it; None: stop."""
    if hunger is None:
        return todo.get()
    hunger.add(hunger.waiting, 1)
    message = todo.get()
    hunger.add(hunger.waiting, -1)
    if message is not None:
        hunger.add(hunger.queued, -1)
    return message


def _start(processes: Sequence[BaseProcess]) -> None:
    """Start the processes with Ctrl-C and SIGTERM held until all are started: one that came
    in the middle of a fork left a process object half made, which could then be neither stopped
    nor joined (seen as a traceback under SIGTERM); held, it is raised once they all run."""
    signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        for process in processes:
            process.start()
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)


def _receive(
    results: multiprocessing.Queue[tuple[Sent, int, Any]], processes: Sequence[BaseProcess], every_stays: bool = False
) -> tuple[Sent, int, Any] | None:
    """The next message, or None after a short wait (so Ctrl-C and the clock are seen). Where the
    workers wait for more units until the stream ends them (`every_stays`), one that has ended
    died: its unit would never end, and the others would wait for ever."""
    try:
        return results.get(timeout=POLL_SECONDS)
    except queue.Empty:
        if every_stays and not all(p.is_alive() for p in processes):
            raise WorkersEnded("a worker ended before the work was done") from None
        if not any(p.is_alive() for p in processes):
            raise WorkersEnded("every worker ended before the work was done") from None
        return None


class WorkersEnded(RuntimeError):
    """Workers ended before their work was done: killed (by a signal the whole process group got,
    which also stops the run), or a bug."""


def _stopping(stop: Stop) -> bool:
    """Whether the stream is being stopped: workers that a signal to the process group killed are
    seen here at once, while the run's own stop is set by the main thread a moment later."""
    settled = time.monotonic() + STOP_SETTLE_SECONDS
    while not stop():
        if time.monotonic() > settled:
            return False
        time.sleep(0.01)
    return True


def _stop(processes: Sequence[BaseProcess]) -> None:
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        process.join()


def leave_with_parent(parent: int) -> None:
    """End this forked process once its parent is gone (killed without a chance to end it): a
    thread that looks every PARENT_CHECK_SECONDS."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


class OnDask(Workers):
    """A Dask cluster's workers, through a client; a unit's items arrive when it has ended."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.workers = max(1, len(client.scheduler_info().get("workers", {})))

    def stream(
        self, task: Task, units: list[Any], grow: Grow | None = None, stop: Stop | None = None
    ) -> Generator[Event, None, None]:
        from distributed import wait

        futures = {self.client.submit(_all_items, task, unit, pure=False): index for index, unit in enumerate(units)}
        pending = set(futures)
        try:
            while pending:
                try:  # in short waits, so that a stopped run is seen while the units run
                    done, pending = wait(pending, timeout=POLL_SECONDS, return_when="FIRST_COMPLETED")
                except TimeoutError:
                    done = set()
                if not done and stop is not None and stop():
                    yield -1, STOPPED
                    return
                for future in sorted(done, key=futures.__getitem__):
                    index = futures[future]
                    for item in future.result():
                        yield index, item
                    yield index, DONE
        finally:
            for future in futures:
                future.cancel()

    def close(self) -> None:
        cluster = self.client.cluster
        self.client.close()
        if cluster is not None:
            cluster.close()


def _all_items(task: Task, unit: Any) -> list[Any]:
    return list(task(unit))


def usable_workers(processes: int, cluster: str | None) -> int:
    """How many workers asked for can work: here at most MAX_WORKERS_PER_CORE a core (more only
    share the cores, each holding the model); on a cluster as many as asked (Options bounds them)."""
    return processes if cluster is not None else max(1, min(processes, MAX_WORKERS_PER_CORE * cores()))


def workers_for(cluster: str | None, processes: int, threads: bool = False, stagger: bool = True) -> Workers:
    """A Dask cluster's workers (`cluster`: a scheduler's address, or `local` for a LocalCluster of
    `processes` here), else `processes` threads of this process where the search can use them
    (`threads`: its kernels let go of the GIL; with `stagger`, those after the first begin late)
    or forked processes (one: this process). Raises CpsolveError when Dask is missing or the
    scheduler cannot be reached."""
    if cluster is None:
        processes = usable_workers(processes, cluster)
        if processes > 1 and threads:
            return Threaded(processes, THREADS_STAGGER_SECONDS if stagger else 0.0)
        return Forked(processes) if processes > 1 and fork_available() else InProcess()
    scheme, host, port = scheduler_address(cluster)
    try:
        import dask
        from distributed import Client, LocalCluster
    except ImportError:
        raise CpsolveError('--cluster needs Dask: pip install "cpsolve[cluster]"') from None
    if cluster == LOCAL:
        import logging

        with signals_noted() as noted:  # a LocalCluster stopped halfway fails in Dask's exit handler
            local = LocalCluster(
                n_workers=processes,
                threads_per_worker=1,
                host="127.0.0.1",
                dashboard_address="127.0.0.1:0",
                processes=True,
                silence_logs=logging.CRITICAL,  # workers cut off by Ctrl-C log tracebacks that are no news
            )
            started = OnDask(Client(local))
        if noted:
            started.close()
            raise KeyboardInterrupt if noted[0] == signal.SIGINT else Terminated
        return started
    if scheme == "tcp":
        speaks_dask(cluster, host, port)
    limits = {"distributed.comm.timeouts.connect": f"{CONNECT_SECONDS}s", "distributed.comm.timeouts.tcp": "30s"}
    try:
        with dask.config.set(limits):
            return OnDask(Client(cluster, timeout=CONNECT_SECONDS))
    except (OSError, TimeoutError, ValueError) as error:
        raise CpsolveError(f"--cluster {cluster}: cannot reach the scheduler ({error})") from None


@contextmanager
def signals_noted() -> Iterator[list[int]]:
    """Ctrl-C and SIGTERM noted rather than raised while the block runs (in the main thread; the
    caller raises them once what the block started can be closed)."""
    if threading.current_thread() is not threading.main_thread():
        yield []
        return
    noted: list[int] = []
    held = (signal.SIGINT, signal.SIGTERM)
    previous = {number: signal.getsignal(number) for number in held}
    for number in held:
        signal.signal(number, lambda received, frame: noted.append(received))
    try:
        yield noted
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def scheduler_address(cluster: str) -> tuple[str, str, int]:
    """(scheme, host, port) of `local` or a scheduler's address (`tcp://host:port`, `tls://host:port`
    or `host:port`), or a CpsolveError saying what is expected."""
    if cluster == LOCAL:
        return LOCAL, "127.0.0.1", 0
    found = re.fullmatch(r"(?:(tcp|tls)://)?(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):([0-9]{1,5})", cluster)
    if found is None or not 0 < int(found.group(3)) < 65536:
        raise CpsolveError(
            f"--cluster {printable(cluster)[:80]}: expected `local` or a Dask scheduler's address, tcp://HOST:PORT"
            " or tls://HOST:PORT"
        )
    return found.group(1) or "tcp", found.group(2).strip("[]"), int(found.group(3))


def speaks_dask(cluster: str, host: str, port: int) -> None:
    """Refuse, before Dask reads anything from it, a server that does not greet as a Dask scheduler
    does: it sends its handshake first, a frame of a few dozen bytes (a web server sends nothing
    until asked, and its answer read as a frame's length asked Dask for exabytes)."""
    try:
        with socket.create_connection((host, port), timeout=CONNECT_SECONDS) as connection:
            connection.settimeout(CONNECT_SECONDS)
            greeting = b""
            while len(greeting) < 16:
                received = connection.recv(16 - len(greeting))
                if not received:
                    break
                greeting += received
    except TimeoutError:
        greeting = b""
    except OSError as error:
        raise CpsolveError(f"--cluster {cluster}: cannot reach the scheduler ({error.strerror or error})") from None
    total, frames = struct.unpack("<QQ", greeting) if len(greeting) == 16 else (0, 0)
    if not (16 <= total <= MAX_GREETING_BYTES and 0 < frames <= MAX_GREETING_FRAMES):
        raise CpsolveError(
            f"--cluster {cluster}: the server there did not answer as a Dask scheduler within {CONNECT_SECONDS} s"
        )
