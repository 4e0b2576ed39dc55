"""The `cpsolve` program's entry point: signal handling first, then the command line.

It imports nothing heavy before the handlers are in place, so Ctrl-C or SIGTERM at any moment,
start-up included, ends the program with its exit code (130, 143) instead of a traceback; once
the command is done, later signals are ignored, so the exit code stays the command's.
"""

from __future__ import annotations

import gc
import os
import signal
import sys
import threading
from types import FrameType

from cpsolve.errors import EXIT_INTERRUPTED, EXIT_TERMINATED, Terminated

RESEND_SECONDS = 0.05  # a signal that came inside a collector callback is sent again this much later


def _terminate(signum: int, frame: FrameType | None) -> None:
    if _in_collector_callback(frame):
        _send_again(signum)
        return
    raise Terminated()


def _interrupt(signum: int, frame: FrameType | None) -> None:
    if _in_collector_callback(frame):
        _send_again(signum)
        return
    raise KeyboardInterrupt


def _send_again(signum: int) -> None:
    """The same signal to this process a moment later, from a thread, once the callback has
    returned (sent from here, it would come back inside the callback at once)."""
    again = threading.Timer(RESEND_SECONDS, os.kill, (os.getpid(), signum))
    again.daemon = True
    again.start()


def _in_collector_callback(frame: FrameType | None) -> bool:
    """Whether the signal interrupted a function the garbage collector called (Dask registers
    such callbacks): an exception raised there is printed as "ignored" and lost, and the run
    would go on as if no signal had come."""
    callbacks = {callback.__code__ for callback in gc.callbacks if hasattr(callback, "__code__")}
    while frame is not None and callbacks:
        if frame.f_code in callbacks:
            return True
        frame = frame.f_back
    return False


def ignore_signals() -> None:
    """The command is done: a late Ctrl-C or SIGTERM must not change the exit code.

    Only the program's own entry point may do this: the library and the commands also run inside
    other processes (tests, notebooks), whose signal handling is theirs.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


def main() -> None:
    signal.signal(signal.SIGTERM, _terminate)
    signal.signal(signal.SIGINT, _interrupt)
    code: int | str | None = 0
    try:
        from cpsolve.cli import WHOLE_PROCESS, app

        app(obj={WHOLE_PROCESS: True})
    except SystemExit as finished:
        code = finished.code
    except KeyboardInterrupt:
        code = EXIT_INTERRUPTED
    except Terminated:
        code = EXIT_TERMINATED
    finally:
        ignore_signals()
    sys.exit(code)
