"""What a file format is to cpsolve: a reader from a path to a loaded spec, plus its program's rules.

Every format reads its file through `read_text`, so every one refuses the same things the same
way: what is not a regular file (a FIFO would wait forever for a writer, /dev/zero never ends),
a file past the size limit (checked before reading), and text that is not UTF-8.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from cpsolve.errors import SpecError
from cpsolve.limits import DEFAULT_MAX_FILE_BYTES
from cpsolve.models import BuildOptions
from cpsolve.spec import LoadedSpec


@dataclass(frozen=True)
class ReadOptions:
    """How to read a file: the most bytes to read, and which of its problems (None: the first)."""

    max_bytes: int = DEFAULT_MAX_FILE_BYTES
    problem: str | None = None  # a 0-based number or a name, for files that hold several


Reader = Callable[[Path, ReadOptions], LoadedSpec]
ProblemLister = Callable[[Path, ReadOptions], list[str]]


def one_problem(path: Path, options: ReadOptions) -> list[str]:
    """A file of a format that holds one puzzle: one unnamed problem."""
    return [""]


@dataclass(frozen=True)
class FileFormat:
    """How one kind of file is read, and the rules of its own program that come with it.

    `sniff` tells this format's files from others with the same suffix by their first bytes;
    None means any file with the suffix is this format's.
    """

    name: str
    suffixes: tuple[str, ...]
    read: Reader
    build: BuildOptions = field(default_factory=BuildOptions)
    show: int = 1  # solutions drawn by default
    sniff: Callable[[bytes], bool] | None = None
    # bench: a file of this format without `expected` counts is a find-one benchmark (else counted)
    find_one_unless_expected: bool = False
    problems: ProblemLister = one_problem  # the names of the problems a file holds


def megabytes(size: int) -> str:
    return f"{size / 2**20:.1f} MB"


def read_bytes(path: str | Path, max_bytes: int = DEFAULT_MAX_FILE_BYTES) -> bytes:
    """The bytes of a regular file of at most max_bytes, or a SpecError saying why not."""

    def refuse(reason: str) -> SpecError:
        return SpecError([f"{path}: cannot read: {reason}"])

    try:
        # O_NONBLOCK: should a FIFO appear here after all, opening it does not wait for a writer
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        raise refuse(exc.strerror or str(exc)) from None
    info = os.fstat(descriptor)
    if not stat.S_ISREG(info.st_mode):
        os.close(descriptor)
        if stat.S_ISDIR(info.st_mode):
            raise refuse("it is a directory")
        raise refuse("not a regular file (a pipe, a device or a socket); give a file")
    with os.fdopen(descriptor, "rb") as handle:
        if info.st_size > max_bytes:
            size, limit = megabytes(info.st_size), megabytes(max_bytes)
            raise refuse(f"the file has {size}, more than the limit of {limit} (--max-file-size)")
        try:
            data = handle.read(max_bytes + 1)
        except OSError as exc:
            raise refuse(exc.strerror or str(exc)) from None
    if len(data) > max_bytes:
        raise refuse(f"the file grew past the limit of {megabytes(max_bytes)} while it was read (--max-file-size)")
    return data


def decode(data: bytes, path: str | Path) -> str:
    """UTF-8 text without a byte-order mark, or a SpecError naming the line of the first bad byte."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        byte = data[exc.start]
        raise SpecError([f"{path}:{line}: not UTF-8 text (byte 0x{byte:02x}); save the file as UTF-8"]) from None


def read_text(path: str | Path, max_bytes: int = DEFAULT_MAX_FILE_BYTES) -> str:
    """A puzzle file's text, read once; every format reads through this."""
    return decode(read_bytes(path, max_bytes), path)
