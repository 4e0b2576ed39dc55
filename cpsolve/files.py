"""Writing what a user asked for, in one place: never over an input, and whole or not at all.

Every output file (a page, a picture, a BurrTools file, a converted spec, a generated spec) is
written to a temporary file beside it and renamed over the name asked for once it is complete, so
a failure (a full disk, Ctrl-C) leaves either the old file or the new one, never half of one.
An output that names an input (the same file under another name or through a link included) is
refused before any work is done.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import re
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path

from cpsolve.errors import CpsolveError, OutputError


def same_file(first: Path, second: Path) -> bool:
    """Whether two names lead to one file (resolving links; hard links by their inode)."""
    try:
        return first.resolve() == second.resolve() or (first.exists() and second.exists() and first.samefile(second))
    except OSError:
        return False


def refuse_inputs(output: Path, inputs: Iterable[Path], flag: str) -> None:
    """Refuse an output that would replace one of the inputs."""
    for given in inputs:
        if same_file(output, given):
            raise CpsolveError(f"{output}: {flag} names the input file {given} itself; give another file")


STL_NAME = re.compile(r"[0-9]+-[A-Za-z0-9_.-]*\.stl")  # the names --stl gives the pieces' files (stl.file_names)


def refuse_collisions(inputs: Sequence[Path], outputs: Sequence[tuple[str, Path | None]], stl: Path | None) -> None:
    """Refuse, before a run, outputs that would lose a file: one naming an input (same path, link
    or inode), two naming the same file (the later would replace the earlier: a checkpoint
    replaced by a page loses the finished parts), and an input or another output where `--stl`
    writes its pieces (a file in that folder named as a piece's file, `1-V.stl`)."""
    given = [(flag, path) for flag, path in outputs if path is not None]
    for flag, path in given:
        refuse_inputs(path, inputs, flag)
    for (flag, path), (other_flag, other) in itertools.combinations(given, 2):
        if same_file(path, other):
            raise CpsolveError(f"{other}: {other_flag} names the same file as {flag}; give each output its own file")
    if stl is None:
        return
    for flag, path in [*(("the input", path) for path in inputs), *given]:
        if STL_NAME.fullmatch(path.name) and same_file(path.parent, stl):
            raise CpsolveError(
                f"{path}: --stl writes the pieces' files ({path.name} among them) into {stl}, where {flag} is;"
                " give --stl another folder"
            )


def write_file(path: Path, data: bytes | Iterable[bytes], what: str) -> None:
    """Write `data` (or its pieces in turn, never all held at once) as `path` in one piece: a
    temporary file in the same folder, flushed to disk, then renamed over `path` (which keeps its
    permissions when it existed). `what` names the output in the error: "cannot write the page:
    No space left on device"."""
    folder = path.parent if str(path.parent) else Path(".")
    if path.is_dir() or (path.exists() and not path.is_file()):
        raise OutputError(f"{path}: cannot write {what}: not a regular file; give a file name")
    try:
        descriptor, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=folder)
    except OSError as exc:
        raise OutputError(f"{path}: cannot write {what}: {exc.strerror}") from None
    try:
        with os.fdopen(descriptor, "wb") as handle:
            for piece in [data] if isinstance(data, bytes) else data:
                handle.write(piece)
            handle.flush()
            os.fsync(handle.fileno())
        if path.exists():
            with contextlib.suppress(OSError):
                os.chmod(temporary, path.stat().st_mode & 0o7777)
        else:
            os.chmod(temporary, 0o666 & ~_umask())
        os.replace(temporary, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise OutputError(f"{path}: cannot write {what}: {exc.strerror}") from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
