"""The studio's folder: the only files its server reads or writes.

A path from a request is a relative path of plain names inside the folder: absolute paths, `..`,
names that are not text, and anything whose real path (links followed) leaves the folder are
refused, and only puzzle files (by suffix) are read or written, each no larger than the limit the
command line applies to a puzzle file. Writing replaces a file whole or not at all
(cpsolve.files), so a save that fails leaves the earlier file.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from cpsolve import formats
from cpsolve.errors import CpsolveError
from cpsolve.files import write_file
from cpsolve.limits import DEFAULT_MAX_FILE_BYTES

MAX_LISTED = 10_000  # puzzle files a listing returns (a folder of more is named by pattern instead)


class OutsideWorkspace(CpsolveError):
    """A path a request gave that is not a puzzle file inside the workspace."""


@dataclass(frozen=True)
class Workspace:
    root: Path
    max_bytes: int = DEFAULT_MAX_FILE_BYTES

    @staticmethod
    def at(folder: Path) -> Workspace:
        real = folder.resolve()
        if not real.is_dir():
            raise CpsolveError(f"{folder}: the studio's workspace must be a folder")
        return Workspace(real)

    def path(self, relative: str) -> Path:
        """The file a request names, inside the workspace; OutsideWorkspace otherwise."""
        given = PurePosixPath(relative)
        if not relative or given.is_absolute() or "\\" in relative or "\0" in relative:
            raise OutsideWorkspace(f"{relative!r}: give a path relative to the workspace")
        if any(part in ("..", ".") for part in given.parts):
            raise OutsideWorkspace(f"{relative}: '..' and '.' are not allowed in a workspace path")
        if given.suffix.lower() not in formats.puzzle_suffixes():
            suffixes = ", ".join(formats.puzzle_suffixes())
            raise OutsideWorkspace(f"{relative}: the studio reads and writes puzzle files ({suffixes}) only")
        path = self.root.joinpath(*given.parts)
        real = path.resolve()
        if not real.is_relative_to(self.root):
            raise OutsideWorkspace(f"{relative}: leads outside the workspace (a link)")
        return real

    def read(self, relative: str) -> bytes:
        """A puzzle file's bytes, no more than the limit."""
        path = self.path(relative)
        if not path.is_file():
            raise CpsolveError(f"{relative}: no such puzzle file in the workspace")
        if path.stat().st_size > self.max_bytes:
            raise CpsolveError(f"{relative}: larger than {self.max_bytes // 2**20} MB, the largest puzzle file read")
        with path.open("rb") as file:
            return file.read(self.max_bytes + 1)[: self.max_bytes]

    def write(self, relative: str, content: bytes) -> Path:
        """Replace (or make) a puzzle file whole; its folder must exist inside the workspace."""
        if len(content) > self.max_bytes:
            raise CpsolveError(f"{relative}: larger than {self.max_bytes // 2**20} MB, the largest puzzle file written")
        path = self.path(relative)
        if not path.parent.is_dir():
            raise CpsolveError(f"{relative}: no such folder in the workspace")
        write_file(path, content, "the puzzle")
        return path

    def files(self) -> list[str]:
        """The puzzle files in the workspace and its folders (links to folders not followed), as
        relative paths, sorted; at most MAX_LISTED."""
        suffixes = formats.puzzle_suffixes()
        found: list[str] = []
        for path in sorted(self.root.rglob("*")):
            if len(found) >= MAX_LISTED:
                break
            if path.suffix.lower() in suffixes and path.is_file() and path.resolve().is_relative_to(self.root):
                found.append(path.relative_to(self.root).as_posix())
        return found
