"""The studio's folder: the only files its server reads or writes, and the drafts it keeps there.

A path from a request is a relative path of plain names inside the folder: absolute paths, `..`,
names that are not text, and anything but puzzle files (by suffix) are refused. Every file is
reached from the folder's own directory descriptor, opened once at start, one name at a time with
links refused at every step (`openat` with O_NOFOLLOW, O_DIRECTORY for the folders): a folder
swapped for a link while a request runs cannot lead it outside, for reads, writes, listings and
renames alike. A file with more than one hard link is refused too: its other name may be
outside the folder, where the user never meant the studio to read or write.

Writing replaces a file whole or not at all: the bytes go to a new temporary file beside it,
flushed, then renamed over it within the same opened folder. A new file is made exclusively (a
link of the temporary file to the name, which fails where the name is taken): of two requests
making one new name, one wins and the other is told. Each file has a revision (the digest of its
bytes), so that a save can refuse to replace a file that changed since it was read.

Drafts (`Drafts`) are the editor's unsaved work, kept in `.cpsolve-drafts/` inside the folder, one
JSON file per puzzle file, written the same way; a server killed mid-way leaves them for the next
start, and the temporary files a killed write left are removed at start.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import secrets
import stat
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from cpsolve import formats
from cpsolve.errors import CpsolveError, printable
from cpsolve.limits import DEFAULT_MAX_FILE_BYTES

MAX_LISTED = 10_000  # puzzle files a listing returns (a folder of more is named by pattern instead)
MAX_DEPTH = 32  # folders below the workspace a listing walks
DRAFTS = ".cpsolve-drafts"  # the hidden folder of the editor's unsaved work
MAX_DRAFT_BYTES = 4 * DEFAULT_MAX_FILE_BYTES  # a draft holds a puzzle's spec as JSON
TEMPORARY = ".cpsolve-"  # the prefix of a write's temporary file (removed at start if a kill left one)
FOLDER_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
NEW_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


class OutsideWorkspace(CpsolveError):
    """A path a request gave that is not a puzzle file inside the workspace: 403."""


class Taken(CpsolveError):
    """A new file's name is taken, or a file changed since it was read: 409."""


def revision_of(content: bytes) -> str:
    """A file's revision: the same bytes, the same revision."""
    return hashlib.sha256(content).hexdigest()[:20]


@dataclass(frozen=True)
class Workspace:
    root: Path
    folder: int  # the root's directory descriptor, opened once: every path is walked from it
    max_bytes: int = DEFAULT_MAX_FILE_BYTES
    # a save that must find the revision it was opened at checks and replaces under this lock
    lock: threading.Lock = field(default_factory=threading.Lock, compare=False, repr=False)

    @staticmethod
    def at(folder: Path, max_bytes: int = DEFAULT_MAX_FILE_BYTES) -> Workspace:
        real = folder.resolve()
        try:
            descriptor = os.open(real, FOLDER_FLAGS)
        except OSError:
            raise CpsolveError(f"{folder}: the studio's workspace must be a folder") from None
        workspace = Workspace(real, descriptor, max_bytes)
        workspace.remove_leftovers()
        return workspace

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self.folder)

    # -- paths -----------------------------------------------------------------------------------

    def parts(self, relative: str, suffixes: tuple[str, ...] | None = None) -> list[str]:
        """A request's path as the names it walks, checked: relative, plain names, text, a puzzle
        file's suffix (or one of `suffixes`); OutsideWorkspace otherwise."""
        shown = printable(relative)[:200]
        if not relative or "\\" in relative or "\0" in relative or not _is_text(relative):
            raise OutsideWorkspace(f"{shown!r}: give a path relative to the workspace, as text")
        given = PurePosixPath(relative)
        if given.is_absolute():
            raise OutsideWorkspace(f"{shown!r}: give a path relative to the workspace")
        if any(part in ("..", ".") for part in given.parts) or relative.endswith("/"):
            raise OutsideWorkspace(f"{shown}: '..' and '.' are not allowed in a workspace path")
        if any(part.startswith(".") for part in given.parts):
            raise OutsideWorkspace(f"{shown}: hidden files and folders are the studio's own")
        allowed = suffixes or formats.puzzle_suffixes()
        if given.suffix.lower() not in allowed:
            raise OutsideWorkspace(f"{shown}: the studio reads and writes puzzle files ({', '.join(allowed)}) only")
        return list(given.parts)

    def check(self, relative: str) -> None:
        """Refuse a path the studio would refuse (OutsideWorkspace), reading nothing."""
        self.parts(relative)

    @contextlib.contextmanager
    def _within(self, folders: list[str], relative: str, make: bool = False) -> Iterator[int]:
        """The folder that holds a file, opened name by name from the root, links refused."""
        opened: list[int] = []
        at = self.folder
        try:
            for name in folders:
                if make:
                    with contextlib.suppress(FileExistsError):
                        os.mkdir(name, 0o777, dir_fd=at)
                at = os.open(name, FOLDER_FLAGS, dir_fd=at)
                opened.append(at)
            yield at
        except OSError as error:
            raise _refusal(error, relative, "no such folder in the workspace") from None
        finally:
            for descriptor in reversed(opened):
                os.close(descriptor)

    # -- files -----------------------------------------------------------------------------------

    def read(self, relative: str) -> bytes:
        """A puzzle file's bytes, no more than the limit."""
        content, _ = self._read(self.parts(relative), relative, self.max_bytes)
        return content

    def read_with_revision(self, relative: str) -> tuple[bytes, str]:
        """A puzzle file's bytes and its revision."""
        content, _ = self._read(self.parts(relative), relative, self.max_bytes)
        return content, revision_of(content)

    def _read(self, parts: list[str], relative: str, most: int) -> tuple[bytes, os.stat_result]:
        with self._within(parts[:-1], relative) as folder:
            try:
                descriptor = os.open(parts[-1], READ_FLAGS, dir_fd=folder)
            except OSError as error:
                raise _refusal(error, relative, "no such puzzle file in the workspace") from None
        try:
            status = os.fstat(descriptor)
            if not stat.S_ISREG(status.st_mode):
                raise CpsolveError(f"{printable(relative)}: not a regular file")
            if status.st_nlink > 1:
                raise OutsideWorkspace(
                    f"{printable(relative)}: a file with {status.st_nlink} hard links is not read (another of"
                    " its names may be outside the workspace)"
                )
            if status.st_size > most:
                raise CpsolveError(f"{printable(relative)}: larger than {most // 2**20} MB, the largest file read")
            with os.fdopen(descriptor, "rb", closefd=False) as handle:
                return handle.read(most + 1)[:most], status
        finally:
            os.close(descriptor)

    def exists(self, relative: str) -> bool:
        parts = self.parts(relative)
        try:
            with self._within(parts[:-1], relative) as folder:
                os.stat(parts[-1], dir_fd=folder, follow_symlinks=False)
        except (OSError, CpsolveError):
            return False
        return True

    def revision(self, relative: str) -> str | None:
        """The file's revision, or None where there is none."""
        try:
            return self.read_with_revision(relative)[1]
        except CpsolveError:
            return None

    def write(self, relative: str, content: bytes, new: bool = False, base: str | None = None) -> str:
        """Replace (or make) a puzzle file whole; its folder must exist inside the workspace. With
        `new`, only make it (Taken where the name is taken, whoever took it first); with `base`,
        only replace the file whose revision that is (Taken where it changed since). Returns the
        revision written."""
        if len(content) > self.max_bytes:
            raise CpsolveError(f"{relative}: larger than {self.max_bytes // 2**20} MB, the largest puzzle file written")
        parts = self.parts(relative)
        self._write(parts, relative, content, new, base)
        return revision_of(content)

    def _write(
        self, parts: list[str], relative: str, content: bytes, new: bool, base: str | None, make: bool = False
    ) -> None:
        with self._within(parts[:-1], relative, make=make) as folder, self.lock:
            if base is not None and not new:
                current = self._current_revision(folder, parts[-1])
                if current != base:
                    raise Taken(
                        f"{printable(relative)}: changed on disk since it was opened"
                        + ("" if current is not None else " (it is gone)")
                        + "; save under another name, or open it again to see the change"
                    )
            temporary = f"{TEMPORARY}{secrets.token_hex(8)}.part"
            try:
                descriptor = os.open(temporary, NEW_FLAGS, 0o666, dir_fd=folder)
                try:
                    with os.fdopen(descriptor, "wb", closefd=False) as handle:
                        handle.write(content)
                        handle.flush()
                        os.fsync(handle.fileno())
                finally:
                    os.close(descriptor)
                if new:
                    os.link(temporary, parts[-1], src_dir_fd=folder, dst_dir_fd=folder, follow_symlinks=False)
                    os.unlink(temporary, dir_fd=folder)
                else:
                    os.replace(temporary, parts[-1], src_dir_fd=folder, dst_dir_fd=folder)
            except FileExistsError:
                with contextlib.suppress(OSError):
                    os.unlink(temporary, dir_fd=folder)
                raise Taken(f"{printable(relative)}: already in the workspace; choose another name") from None
            except OSError as error:
                with contextlib.suppress(OSError):
                    os.unlink(temporary, dir_fd=folder)
                raise _refusal(error, relative, "cannot be written") from None

    def _current_revision(self, folder: int, name: str) -> str | None:
        try:
            descriptor = os.open(name, READ_FLAGS, dir_fd=folder)
        except FileNotFoundError:
            return None
        try:
            with os.fdopen(descriptor, "rb", closefd=False) as handle:
                return revision_of(handle.read(self.max_bytes + 1))
        finally:
            os.close(descriptor)

    def files(self) -> list[str]:
        """The puzzle files in the workspace and its folders (links not followed, hidden folders
        left out), as relative paths, sorted; at most MAX_LISTED."""
        suffixes = formats.puzzle_suffixes()
        found: list[str] = []
        self._walk(self.folder, "", suffixes, found, 0)
        return sorted(found)[:MAX_LISTED]

    def _walk(self, folder: int, prefix: str, suffixes: tuple[str, ...], found: list[str], depth: int) -> None:
        if depth > MAX_DEPTH or len(found) >= MAX_LISTED:
            return
        with os.scandir(folder) as entries:
            listed = sorted(
                (entry.name, entry.is_dir(follow_symlinks=False), entry.is_file(follow_symlinks=False))
                for entry in entries
            )
        for name, is_folder, is_file in listed:
            if name.startswith(".") or not _is_text(name):
                continue
            if is_file and PurePosixPath(name).suffix.lower() in suffixes:
                found.append(prefix + name)
            elif is_folder:
                try:
                    inner = os.open(name, FOLDER_FLAGS, dir_fd=folder)
                except OSError:
                    continue
                try:
                    self._walk(inner, f"{prefix}{name}/", suffixes, found, depth + 1)
                finally:
                    os.close(inner)

    def remove_leftovers(self) -> int:
        """Remove the temporary files writes left when they were killed (kill -9 mid-save): the
        studio's own names only, in the workspace's folders and its drafts. Their number."""
        removed = 0
        stack = [(os.dup(self.folder), 0)]
        while stack:
            folder, depth = stack.pop()
            try:
                with os.scandir(folder) as entries:
                    names = [
                        (e.name, e.is_dir(follow_symlinks=False), e.is_file(follow_symlinks=False)) for e in entries
                    ]
                for name, is_folder, is_file in names:
                    if is_file and name.startswith(TEMPORARY) and name.endswith(".part"):
                        with contextlib.suppress(OSError):
                            os.unlink(name, dir_fd=folder)
                            removed += 1
                    elif is_folder and depth < MAX_DEPTH and (name == DRAFTS or not name.startswith(".")):
                        with contextlib.suppress(OSError):
                            stack.append((os.open(name, FOLDER_FLAGS, dir_fd=folder), depth + 1))
            finally:
                os.close(folder)
        return removed


class Drafts:
    """The editor's unsaved work on each file, kept as it is made (the page sends it a moment
    after each change) in the workspace's `.cpsolve-drafts/`: one JSON file per puzzle file (named
    by the digest of its path), holding the path, the revision of the file it was made from, when,
    by which page, and the edit itself (a spec, or the file's text). Removed once the file is saved."""

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace

    def _name(self, relative: str) -> list[str]:
        self.workspace.parts(relative)  # only a puzzle file the studio would read has a draft
        return [DRAFTS, hashlib.sha256(relative.encode("utf-8")).hexdigest()[:24] + ".json"]

    def keep(self, relative: str, draft: dict[str, Any]) -> dict[str, Any]:
        record = {**draft, "path": relative, "kept": time.time()}
        data = json.dumps(record, ensure_ascii=True).encode()
        if len(data) > MAX_DRAFT_BYTES:
            raise CpsolveError(f"{printable(relative)}: a draft of {len(data):,} bytes is past the studio's limit")
        self.workspace._write(self._name(relative), relative, data, new=False, base=None, make=True)
        return record

    def get(self, relative: str) -> dict[str, Any] | None:
        parts = self._name(relative)
        try:
            content, _ = self.workspace._read(parts, relative, MAX_DRAFT_BYTES)
            record: dict[str, Any] = json.loads(content)
        except (CpsolveError, ValueError):
            return None
        return record if record.get("path") == relative else None

    def drop(self, relative: str) -> None:
        parts = self._name(relative)
        with contextlib.suppress(OSError, CpsolveError), self.workspace._within(parts[:-1], relative) as folder:
            os.unlink(parts[-1], dir_fd=folder)

    def listed(self) -> list[dict[str, Any]]:
        """Every draft kept: its path, when, the revision it was made from (without the edit)."""
        found = []
        try:
            folder = os.open(DRAFTS, FOLDER_FLAGS, dir_fd=self.workspace.folder)
        except OSError:
            return []
        try:
            with os.scandir(folder) as entries:
                names = [entry.name for entry in entries if entry.name.endswith(".json")]
        finally:
            os.close(folder)
        for name in sorted(names)[:MAX_LISTED]:
            try:
                content, _ = self.workspace._read([DRAFTS, name], name, MAX_DRAFT_BYTES)
                record = json.loads(content)
                found.append({key: record.get(key) for key in ("path", "kept", "base", "client")})
            except (CpsolveError, ValueError):
                continue
        return found


def _is_text(name: str) -> bool:
    """Whether a name is text a file system and a page can hold (no lone surrogate, printable)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return name.isprintable()


def _refusal(error: OSError, relative: str, missing: str) -> CpsolveError:
    """An operating system's refusal as one line: a link met on the way, a name too long, a missing file."""
    shown = printable(relative)[:200]
    if error.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
        return OutsideWorkspace(f"{shown}: leads through a link or a file, not a folder of the workspace")
    if error.errno == errno.ENAMETOOLONG:
        return CpsolveError(f"{shown[:80]}...: a name longer than the file system takes")
    if error.errno == errno.ENOENT:
        return CpsolveError(f"{shown}: {missing}")
    return CpsolveError(f"{shown}: {error.strerror}")
