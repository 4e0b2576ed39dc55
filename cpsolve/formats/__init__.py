"""The file formats cpsolve reads, chosen by a registry keyed on the suffix (and the content where a
suffix is ambiguous): YAML specs, yass `.soma` figures, c't 9-piece `.txt` files, BurrTools
`.xmpuzzle` files.

To add a format: a module here with a reader and a `FORMAT`, and one line in `FORMATS`.
"""

from __future__ import annotations

import dataclasses
import glob
from collections.abc import Iterable
from pathlib import Path

from cpsolve.errors import CpsolveError
from cpsolve.limits import DEFAULT_MAX_FILE_BYTES
from cpsolve.models import BuildOptions
from cpsolve.spec import LoadedSpec

from . import burrtools, ct9, yaml_spec, yass
from .base import FileFormat, ReadOptions, read_text

FORMATS: list[FileFormat] = [yaml_spec.FORMAT, yass.FORMAT, ct9.FORMAT, burrtools.FORMAT]
DEFAULT = yaml_spec.FORMAT  # any other suffix is read as a YAML spec
SNIFF_BYTES = 512


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
        if any(mark in pattern for mark in "*?["):
            found = sorted(Path(p) for p in glob.glob(pattern, recursive=True) if Path(p).is_file())
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


def format_for(path: str | Path) -> FileFormat:
    """The format of a file: by its suffix, and where several formats share it, by its first bytes."""
    suffix = Path(path).suffix.lower()
    candidates = [fmt for fmt in FORMATS if suffix in fmt.suffixes]
    if len(candidates) <= 1:
        return candidates[0] if candidates else DEFAULT
    head = _head(Path(path))
    return next((fmt for fmt in candidates if fmt.sniff is None or fmt.sniff(head)), candidates[0])


def _head(path: Path) -> bytes:
    try:
        with path.open("rb") as handle:
            return handle.read(SNIFF_BYTES)
    except OSError:
        return b""  # the reader reports why it cannot read the file


def read_puzzle(path: str | Path, options: ReadOptions) -> tuple[LoadedSpec, FileFormat]:
    """Read any file cpsolve understands (one problem of it), with the format that read it."""
    fmt = format_for(path)
    return fmt.read(Path(path), options), fmt


def problems(path: str | Path, options: ReadOptions) -> list[str]:
    """The names of the problems a file holds ([""] for a format of one puzzle per file)."""
    return format_for(path).problems(Path(path), options)


def load_puzzle(
    path: str | Path,
    build: BuildOptions | None = None,
    max_bytes: int = DEFAULT_MAX_FILE_BYTES,
    problem: str | None = None,
) -> tuple[LoadedSpec, BuildOptions]:
    """Read any file cpsolve understands (one problem of it), with the build options its program's
    rules call for."""
    loaded, fmt = read_puzzle(path, ReadOptions(max_bytes, problem))
    build = build or BuildOptions()
    return loaded, dataclasses.replace(
        build, require_fixed_copies=build.require_fixed_copies and fmt.build.require_fixed_copies
    )


__all__ = [
    "FORMATS",
    "FileFormat",
    "ReadOptions",
    "format_for",
    "load_puzzle",
    "problems",
    "puzzle_files",
    "puzzle_suffixes",
    "read_puzzle",
    "read_text",
]
