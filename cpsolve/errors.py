"""The errors cpsolve raises for things a user can fix, and the one that ends a run out of time.

The CLI turns any `CpsolveError` into its message and exit code 2; everything else is a bug and
keeps its traceback. "No solution" is a result with zero counts, never an error.
"""

from __future__ import annotations

# Exit codes of the `cpsolve` program (docs/cli.md, "Exit codes")
EXIT_MISMATCH = 1  # a count differs from `expected`, or a self-check failed
EXIT_BAD_INPUT = 2  # input the user must fix; also an output that could not be written
EXIT_INTERRUPTED = 130  # Ctrl-C
EXIT_TERMINATED = 143  # SIGTERM


def printable(text: str, keep: str = "") -> str:
    """Text safe to show on a terminal: control characters (an escape sequence that would set the
    window title or clear the screen, a line break inside a name) written as escapes, except those
    in `keep` (a report's own line breaks)."""
    if text.isprintable() or all(c.isprintable() or c in keep for c in text):
        return text
    return "".join(c if c.isprintable() or c in keep else repr(c)[1:-1] for c in text)


class CpsolveError(Exception):
    """Root of every error caused by input; its message says what to change."""


class SpecError(CpsolveError):
    """A puzzle file that cannot be read or does not describe a valid puzzle.

    Carries one line per problem, each naming the file, the line (when known) and the field.
    """

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("\n".join(problems))


class ModelTooBigError(CpsolveError):
    """The model would exceed a limit; raised before memory is spent on it."""


class OutputError(CpsolveError):
    """Writing a result failed (a full disk, a closed pipe); the message names the file."""


class Terminated(BaseException):
    """SIGTERM arrived: handled like Ctrl-C (what was found so far is reported), exit code 143.

    A BaseException, not a KeyboardInterrupt, so that nothing in between mistakes it for Ctrl-C.
    """


class OutOfTimeError(Exception):
    """The run's time limit passed while the model was being read or built.

    Not a user error: the run ends as an incomplete result with what it has (nothing yet).
    """

    def __init__(self, doing: str) -> None:
        self.doing = doing
        super().__init__(f"time limit reached while {doing}")
