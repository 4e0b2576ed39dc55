"""The `cpsolve` program's entry point: signal handling first, then the command line.

It imports nothing heavy before the handlers are in place, so Ctrl-C or SIGTERM at any moment,
start-up included, ends the program with its exit code (130, 143) instead of a traceback; once
the command is done, later signals are ignored, so the exit code stays the command's.
"""

from __future__ import annotations

import signal
import sys
from types import FrameType

from cpsolve.errors import EXIT_INTERRUPTED, EXIT_TERMINATED, Terminated


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise Terminated()


def ignore_signals() -> None:
    """The command is done: a late Ctrl-C or SIGTERM must not change the exit code.

    Only the program's own entry point may do this: the library and the commands also run inside
    other processes (tests, notebooks), whose signal handling is theirs.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


def main() -> None:
    signal.signal(signal.SIGTERM, _terminate)
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
