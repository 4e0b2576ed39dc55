"""The `cpsolve` program's entry point: signal handling first, then the command line.

It imports nothing heavy before the handlers are in place, so Ctrl-C or SIGTERM at any moment,
start-up included, ends the program with its exit code (130, 143) instead of a traceback; once
the command is done, later signals are ignored, so the exit code stays the command's.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import MutableMapping
from types import FrameType
from typing import Any

from cpsolve.errors import EXIT_BAD_INPUT, EXIT_INTERRUPTED, EXIT_TERMINATED, Terminated

RESEND_SECONDS = 0.05  # a signal whose exception was lost is sent again this much later
SIGNAL_OF: dict[type[BaseException], int] = {KeyboardInterrupt: signal.SIGINT, Terminated: signal.SIGTERM}


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise Terminated()


def _lost(unraisable: Any) -> None:
    """`sys.unraisablehook`: a Ctrl-C or SIGTERM whose exception was raised where Python cannot
    pass it on (a garbage collector or weak reference callback, a `__del__`: Dask registers such
    callbacks, importlib has one) would be printed as "ignored" and the run would go on as if no
    signal had come; the signal is sent again instead, from a thread a moment later, once that
    callback has returned. Anything else is reported as Python reports it."""
    signum = SIGNAL_OF.get(unraisable.exc_type)
    if signum is None:
        sys.__unraisablehook__(unraisable)
        return
    again = threading.Timer(RESEND_SECONDS, os.kill, (os.getpid(), signum))
    again.daemon = True
    again.start()


def install_handlers() -> None:
    """Ctrl-C raises KeyboardInterrupt and SIGTERM Terminated, and neither is ever lost."""
    signal.signal(signal.SIGTERM, _terminate)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    sys.unraisablehook = _lost


def ignore_signals() -> None:
    """The command is done: a late Ctrl-C or SIGTERM must not change the exit code.

    Only the program's own entry point may do this: the library and the commands also run inside
    other processes (tests, notebooks), whose signal handling is theirs.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


def one_blas_thread(environment: MutableMapping[str, str]) -> None:
    """Ask numpy's OpenBLAS for one thread unless the user chose a number.

    On import OpenBLAS starts a thread per core that spins for a while: `cpsolve run` of a small
    BurrTools file used 0.41 s of processor time for 0.31 s of wall, and with one core busy
    elsewhere took 0.354 s instead of 0.298 (medians of 21 whole processes, OPENBLAS_NUM_THREADS=1
    against unset). cpsolve does no linear algebra large enough for BLAS threads to help (its
    matrix products are on integers, which numpy does without BLAS), and worker processes
    inherit the setting, one process per core being the parallelism cpsolve uses.
    """
    environment.setdefault("OPENBLAS_NUM_THREADS", "1")


def no_pydantic_plugins(environment: MutableMapping[str, str]) -> None:
    """Tell pydantic to look for no plugins unless the user chose which (`PYDANTIC_DISABLE_PLUGINS`).

    At its first model pydantic reads every installed distribution's entry points for plugins
    (`importlib.metadata`, a file per distribution): `cpsolve run` of a small BurrTools file took
    0.92x its wall time without that (median ratio of 15 pairs of whole processes; docs/measurements.md).
    The program validates its own options and files, where a plugin (a tracer of every
    validation) has nothing to add; the library, in the user's own process, keeps what they chose.
    """
    environment.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")


def signal_code(error: BaseException) -> int | None:
    """The exit code of a Ctrl-C or SIGTERM, raised as itself or handed on inside another
    exception; None for any other error. Python 3.11 wraps an exception raised while a class is
    made, in a descriptor's `__set_name__`, in a RuntimeError: a Ctrl-C 20 ms into start-up, as
    `import platform` (typer's) made its `uname_result`, ended the program with that traceback
    and exit 1 (seen once in a local run of tests/test_hardening.py)."""
    seen: set[int] = set()
    cause: BaseException | None = error
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        if isinstance(cause, KeyboardInterrupt):
            return EXIT_INTERRUPTED
        if isinstance(cause, Terminated):
            return EXIT_TERMINATED
        cause = cause.__cause__ or cause.__context__
    return None


def main() -> None:
    install_handlers()
    one_blas_thread(os.environ)
    no_pydantic_plugins(os.environ)
    code: int | str | None = 0
    try:
        from cpsolve.cli import WHOLE_PROCESS, command_line, not_a_command

        hint = not_a_command(sys.argv[1:])
        if hint is not None:
            sys.stderr.write(hint + "\n")
            sys.exit(EXIT_BAD_INPUT)
        command_line(sys.argv[1:])(obj={WHOLE_PROCESS: True})
    except SystemExit as finished:
        code = finished.code
    except BaseException as error:  # Ctrl-C, SIGTERM, or either inside another exception
        code = signal_code(error)
        if code is None:
            raise
    finally:
        ignore_signals()
    sys.exit(code)
