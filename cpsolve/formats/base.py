"""What a file format is to cpsolve: a reader from a path to a loaded spec, plus its program's rules.

Every format reads its file through `read_text`, so every one refuses unreadable files the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from cpsolve.errors import SpecError
from cpsolve.models import BuildOptions
from cpsolve.spec import LoadedSpec


@dataclass(frozen=True)
class FileFormat:
    """How one kind of file is read, and the rules of its own program that come with it.

    `sniff` tells this format's files from others with the same suffix by their first bytes;
    None means any file with the suffix is this format's.
    """

    name: str
    suffixes: tuple[str, ...]
    read: Callable[[Path], LoadedSpec]
    build: BuildOptions = field(default_factory=BuildOptions)
    show: int = 1  # solutions drawn by default
    sniff: Callable[[bytes], bool] | None = None
    # bench: a file of this format without `expected` counts is a find-one benchmark (else counted)
    find_one_unless_expected: bool = False


def read_text(path: str | Path) -> str:
    """A puzzle file's text, or a SpecError saying why it cannot be read."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecError([f"{path}: cannot read: {exc.strerror if isinstance(exc, OSError) else exc}"]) from None
