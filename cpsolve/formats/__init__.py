"""The file formats cpsolve reads, chosen by a registry keyed on the suffix (and the content where a
suffix is ambiguous or no format lists it): YAML specs, yass `.soma` figures, c't 9-piece `.txt`
files, BurrTools `.xmpuzzle` files (and BurrTools' XML under any other suffix, `.xml` or none).

A file is read once into a `PuzzleFile` (its name and bytes); its format parses it into the
puzzles it holds (`puzzles`), which is what a run takes. To add a format: a module here with a
reader (a `PuzzleFile` to a `Document`), and its `FileFormat` in `FORMATS`, which names the
module's functions (`Deferred`) so that the module is imported only when a file of it is read.
"""

from __future__ import annotations

import fnmatch
import json
import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from cpsolve.errors import CpsolveError
from cpsolve.models import FAMILIES, BuildOptions
from cpsolve.spec import LoadedSpec, Source

from .base import Deferred, Document, FileFormat, Puzzle, PuzzleFile, ReadOptions, puzzles_of

YAML = FileFormat("yaml", (".yaml", ".yml"), Deferred("yaml_spec", "load_spec"), find_one_unless_expected=True)
# the registry, built once; a caller that reads another format passes its own tuple (`known=`).
# Each format's functions are imported when first called: a run imports only the format it reads
FORMATS: tuple[FileFormat, ...] = (
    YAML,
    FileFormat(
        "yass", (".soma",), Deferred("yass", "load_figure"), BuildOptions(require_fixed_copies=False, top_first=True)
    ),
    # the c't program prints every solution it finds
    FileFormat("ct9", (".txt",), Deferred("ct9", "load_tiles"), show=10**9, sniff=Deferred("ct9", "looks_like_ct9")),
    FileFormat(
        "burrtools",
        (".xmpuzzle",),
        Deferred("burrtools", "read"),
        show=1,
        sniff=Deferred("burrtools", "looks_like_burrtools"),
        recognise=Deferred("burrtools", "is_burrtools_document"),
    ),
)
DEFAULT = YAML  # any other suffix is read as a YAML spec
SNIFF_BYTES = 512
SPEC_AS_DATA = "<spec>"  # the name of a spec given as data, in its errors and reports


def puzzle_suffixes() -> tuple[str, ...]:
    """Every suffix some format reads (bench collects files of these from folders)."""
    return tuple(suffix for fmt in FORMATS for suffix in fmt.suffixes)


def puzzle_files(patterns: Iterable[str | Path]) -> list[Path]:
    """The puzzle files named, in the order given, each once: a folder stands for the files of
    every format's suffix in it and its subfolders, a pattern with * ? or [ for the files it
    matches (`**` for any depth); a name that matches nothing is an error."""
    files: list[Path] = []
    suffixes = puzzle_suffixes()
    for pattern in map(str, patterns):
        path = Path(pattern)
        if any(mark in pattern for mark in WILDCARDS):
            found = sorted(_glob(pattern))
            if not found:
                raise CpsolveError(f"{pattern}: matches no file")
            files.extend(found)
        elif path.is_dir():
            found = sorted(p for p in path.rglob("*") if p.suffix.lower() in suffixes and p.is_file())
            if not found:
                raise CpsolveError(f"{path}: no puzzle files ({', '.join(suffixes)}) in this directory")
            files.extend(found)
        elif path.exists():
            files.append(path)
        else:
            raise CpsolveError(f"{path}: no such file or directory")
    return list(dict.fromkeys(files))


def passed_over(patterns: Iterable[str | Path]) -> list[Path]:
    """What `puzzle_files` leaves out of the folders named although its name is a puzzle file's:
    FIFOs, sockets and devices (a FIFO would block its reader for ever), so that the command says
    so instead of passing them over without a word."""
    suffixes = puzzle_suffixes()
    found: list[Path] = []
    for pattern in map(str, patterns):
        path = Path(pattern)
        if not any(mark in pattern for mark in WILDCARDS) and path.is_dir():
            found.extend(
                sorted(
                    p
                    for p in path.rglob("*")
                    if p.suffix.lower() in suffixes and p.exists() and not p.is_file() and not p.is_dir()
                )
            )
    return found


WILDCARDS = "*?["
MAX_WALKED = 200_000  # folders and files a pattern may look at before it is refused as too wide


def _glob(pattern: str) -> list[Path]:
    """The files a pattern matches (`*`, `?`, `[...]` within a name, `**` for any depth), found
    without following links to folders and visiting each folder once, so a link loop or `/**`
    ends; a pattern that would look at more than MAX_WALKED entries is refused."""
    parts = Path(pattern).parts
    fixed = 0
    while fixed < len(parts) - 1 and not any(mark in parts[fixed] for mark in WILDCARDS):
        fixed += 1
    root, wanted = Path(*parts[:fixed]) if fixed else Path("."), parts[fixed:]
    found: list[Path] = []
    seen: set[tuple[int, int]] = set()
    walked = 0
    for folder, folders, names in os.walk(root, followlinks=False):
        info = os.stat(folder)
        if (info.st_dev, info.st_ino) in seen:
            folders[:] = []
            continue
        seen.add((info.st_dev, info.st_ino))
        relative = Path(folder).relative_to(root).parts
        if "**" not in wanted and len(relative) >= len(wanted) - 1:
            folders[:] = []  # a pattern without ** reaches no deeper than its own parts
        walked += len(folders) + len(names)
        if walked > MAX_WALKED:
            raise CpsolveError(f"{pattern}: looks at more than {MAX_WALKED:,} files and folders; name a narrower one")
        found.extend(
            Path(folder) / name
            for name in names
            if _matches((*relative, name), wanted) and (Path(folder) / name).is_file()
        )
    return found


def _matches(names: Sequence[str], wanted: Sequence[str]) -> bool:
    """Whether a path's names match a pattern's parts (`**`: any number of folders)."""
    if not wanted:
        return not names
    if wanted[0] == "**":  # any number of names, hidden ones aside (as glob's **)
        for skip in range(len(names) + 1):
            if skip and names[skip - 1].startswith("."):
                return False
            if _matches(names[skip:], wanted[1:]):
                return True
        return False
    if not names or (names[0].startswith(".") and not wanted[0].startswith(".")):
        return False
    return fnmatch.fnmatchcase(names[0], wanted[0]) and _matches(names[1:], wanted[1:])


def format_for(path: str | Path, known: Sequence[FileFormat] = FORMATS) -> FileFormat:
    """The format of a file on disk: by its suffix, and where several formats share it, by its
    first bytes."""
    return _choose(Path(path).suffix.lower(), lambda: _head(Path(path)), known)


def format_of(file: PuzzleFile, known: Sequence[FileFormat] = FORMATS) -> FileFormat:
    """The format of a file read into memory: by its suffix, then its first bytes."""
    return _choose(file.suffix, lambda: file.content[:SNIFF_BYTES], known)


def _choose(suffix: str, head: Callable[[], bytes], known: Sequence[FileFormat]) -> FileFormat:
    candidates = [fmt for fmt in known if suffix in fmt.suffixes]
    if not candidates:  # a suffix no format lists: a format may know its files by their content
        first = head()
        return next((fmt for fmt in known if fmt.recognise is not None and fmt.recognise(first)), DEFAULT)
    if len(candidates) == 1:
        return candidates[0]
    first = head()
    return next((fmt for fmt in candidates if fmt.sniff is None or fmt.sniff(first)), candidates[0])


def _head(path: Path) -> bytes:
    try:
        with path.open("rb") as handle:
            return handle.read(SNIFF_BYTES)
    except OSError:
        return b""  # the reader reports why it cannot read the file


def puzzles(
    file: PuzzleFile,
    options: ReadOptions | None = None,
    read_seconds: float = 0.0,
    known: Sequence[FileFormat] = FORMATS,
) -> list[Puzzle]:
    """The puzzles of a file read into memory: every problem it holds, or the one `options.problem`
    names (a number from 0 or a name). The file is parsed once, whatever the number of problems;
    `options.max_bytes` also bounds what a compressed file may expand to."""
    rules = format_of(file, known)
    rules.load()  # the format's module, imported before the clock as an engine's libraries are
    started = time.perf_counter()
    options = options or ReadOptions()
    document = rules.read(file, options)
    return puzzles_of(file, rules, document, options, read_seconds + time.perf_counter() - started)


def read_puzzles(path: str | Path, options: ReadOptions | None = None) -> list[Puzzle]:
    """The puzzles of a file on disk, read once within the size limit."""
    options = options or ReadOptions()
    started = time.perf_counter()
    file = PuzzleFile.read(path, options.max_bytes)
    return puzzles(file, options, time.perf_counter() - started)


def read_puzzle(path: str | Path, options: ReadOptions | None = None) -> Puzzle:
    """The first puzzle of a file (or the one `options.problem` names)."""
    return read_puzzles(path, options)[0]


def puzzle_from_data(data: Mapping[str, Any], name: str = SPEC_AS_DATA) -> Puzzle:
    """A spec given as data (the YAML spec's fields), read as a YAML spec: its errors and reports
    name it `name` (no suffix, or .yaml); its content (JSON, which YAML reads) is what a unit on
    a cluster carries."""
    try:
        content = json.dumps(dict(data)).encode()
    except (TypeError, ValueError, RecursionError) as error:
        raise CpsolveError(f"{name}: a spec as data holds only mappings, lists, text and numbers ({error})") from None
    file = PuzzleFile(name, content)
    source = Source(name)  # data has no lines: errors name the spec and the field
    document = Document.single(LoadedSpec(FAMILIES.validate(json.loads(content), source), source))
    return puzzles_of(file, YAML, document, ReadOptions())[0]


__all__ = [
    "FORMATS",
    "YAML",
    "Deferred",
    "FileFormat",
    "Puzzle",
    "PuzzleFile",
    "ReadOptions",
    "format_for",
    "format_of",
    "puzzle_files",
    "puzzle_from_data",
    "puzzle_suffixes",
    "puzzles",
    "read_puzzle",
    "read_puzzles",
]
