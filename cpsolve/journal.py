"""Files cpsolve appends JSON lines to and reads back to resume: a batch's results, a checkpoint.

A `Journal` is opened once for a whole batch or run:
- only a regular file (or a new one) is taken: a folder, a FIFO (which would wait for a writer),
  /dev/null or /dev/zero (which never end or keep nothing) are refused at once, links included;
- it is locked for as long as it is open, so a second batch or run on the same file is refused in
  one line instead of doing everything twice and writing every line twice;
- a line cut short by a kill is dropped, and a file that is not one cpsolve wrote (a puzzle, a
  note given by mistake, a line nested 100,000 deep) is refused before anything is written to it
  or cut from it;
- each line appended is flushed and synced; a full disk is an error that names the file.
What a record says is checked by its reader (cpsolve.batch, cpsolve.parts) before it is believed.
"""

from __future__ import annotations

import fcntl
import json
import os
import stat
from pathlib import Path
from typing import Any

from cpsolve.errors import CpsolveError, OutputError

# The descriptors of the journals open in this process. A forked worker lets go of its copies at
# once (`_close_in_child`): a lock belongs to the open file, which a fork shares, so a worker
# holding a copy kept a checkpoint locked after its run was killed (until the worker saw its
# parent gone, up to half a second later), and the run started again at once was refused as if
# another held the file.
_OPEN: set[int] = set()


def _close_in_child() -> None:
    """Point the child's copies at /dev/null: the file (and its lock) is then the parent's alone,
    and the numbers stay taken, so the child's copy of a journal never closes another file."""
    if not _OPEN:
        return
    null = os.open(os.devnull, os.O_RDWR)
    for descriptor in _OPEN:
        os.dup2(null, descriptor)
    os.close(null)
    _OPEN.clear()


os.register_at_fork(after_in_child=_close_in_child)


class Journal:
    """An open, locked JSON-lines file whose records each start with `first_key`."""

    def __init__(self, path: Path, first_key: str, what: str) -> None:
        self.path = path
        self.first_key = first_key
        self.what = what
        descriptor = _open_regular(path, what)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(descriptor)
            raise CpsolveError(
                f"{path}: another cpsolve is using this file now; wait for it, or give another file"
            ) from None
        self.handle = os.fdopen(descriptor, "r+b")
        _OPEN.add(descriptor)
        try:
            self.records = self._read()
        except BaseException:
            self.close()
            raise

    def _read(self) -> list[dict[str, Any]]:
        """The records of the file's whole lines; a cut last line is cut from the file."""
        data = self.handle.read()
        cut = data.rfind(b"\n") + 1
        whole, tail = data[:cut], data[cut:]
        start = json.dumps({self.first_key: ""})[:-4].encode()  # b'{"unit":' for first_key "unit"
        records = []
        for number, line in enumerate(whole.splitlines(), 1):
            if not line.strip():
                continue
            record = _parsed(line) if line.startswith(start) else None
            if record is None:
                raise CpsolveError(
                    f"{self.path}:{number}: not a line of {self.what}; give a new file, or one cpsolve wrote"
                )
            records.append(record)
        if tail and not tail.startswith(start):
            raise CpsolveError(
                f"{self.path}: the last line is not one of {self.what}; give a new file, or one cpsolve wrote"
            )
        if tail:
            self.handle.truncate(cut)
        self.handle.seek(cut)
        return records

    def append(self, records: list[dict[str, Any]]) -> None:
        """Add records as whole lines, on disk before this returns."""
        try:
            self.handle.write("".join(json.dumps(record) + "\n" for record in records).encode())
            self.handle.flush()
            os.fsync(self.handle.fileno())
        except OSError as error:
            raise OutputError(f"{self.path}: cannot write {self.what}: {error.strerror}") from None

    def close(self) -> None:
        if not self.handle.closed:
            _OPEN.discard(self.handle.fileno())
        self.handle.close()  # closing the descriptor releases the lock

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _open_regular(path: Path, what: str) -> int:
    """A descriptor of the regular file at `path` (created when missing), or a CpsolveError."""

    def refuse(reason: str) -> CpsolveError:
        return CpsolveError(f"{path}: cannot use it for {what}: {reason}")

    try:
        info = os.stat(path)
    except FileNotFoundError:
        info = None
    except OSError as error:
        raise refuse(error.strerror or str(error)) from None
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise refuse("it is a directory")
    if info is not None and not stat.S_ISREG(info.st_mode):
        raise refuse("not a regular file (a pipe, a device or a socket); give a file")
    try:
        descriptor = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NONBLOCK, 0o666)
    except OSError as error:
        raise refuse(error.strerror or str(error)) from None
    if not stat.S_ISREG(os.fstat(descriptor).st_mode):  # it changed between the look and the open
        os.close(descriptor)
        raise refuse("not a regular file")
    os.set_blocking(descriptor, True)
    return descriptor


def _parsed(line: bytes) -> dict[str, Any] | None:
    try:
        record = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return record if isinstance(record, dict) else None
