"""What a file format is to cpsolve, and what it reads: a puzzle file as data, and its puzzles.

A file is read once (`PuzzleFile.read`: its name as the user gave it and its bytes), and a format
turns those bytes into a `Document`: the names of the problems it holds and each problem as a
validated spec, made when it is asked for. A `Puzzle` is one problem of a file together with the
rules of the program whose format it came in: that is what a run takes, whoever calls it (the
CLI, `cpsolve.solve`, a batch, bench, a cluster worker that received the file's content).

Every file is read through `read_bytes`, so every format refuses the same things the same way:
what is not a regular file (a FIFO would wait forever for a writer, /dev/zero never ends), a file
past the size limit (checked before reading), and text that is not UTF-8.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import os
import stat
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from cpsolve import native
from cpsolve.errors import CpsolveError, SpecError
from cpsolve.limits import DEFAULT_MAX_FILE_BYTES, NO_DEADLINE, Deadline
from cpsolve.models import FAMILIES, BuildOptions, Families, Family, PuzzleModel
from cpsolve.spec import LoadedSpec


@dataclass(frozen=True)
class ReadOptions:
    """How to read a file: the most bytes to read, and which of its problems (None: every one)."""

    max_bytes: int = DEFAULT_MAX_FILE_BYTES
    problem: str | None = None  # a 0-based number or a name, for files that hold several
    families: Families = FAMILIES  # the families whose specs the file may hold


@dataclass(frozen=True)
class PuzzleFile:
    """A puzzle file as data: the name the user gave it (errors and reports say it) and its bytes.

    A unit of work sent to another process or machine carries this, not a path that may not
    exist there; the format is chosen by the name's suffix and the content."""

    name: str
    content: bytes

    @staticmethod
    def read(path: str | Path, max_bytes: int = DEFAULT_MAX_FILE_BYTES) -> PuzzleFile:
        return PuzzleFile(str(path), read_bytes(path, max_bytes))

    @cached_property
    def digest(self) -> str:
        """SHA-256 of the content (computed once: a split run asks for it once per unit)."""
        return hashlib.sha256(self.content).hexdigest()

    @property
    def suffix(self) -> str:
        return Path(self.name).suffix.lower()

    @property
    def stem(self) -> str:
        return Path(self.name).stem

    def text(self) -> str:
        return decode(self.content, self.name)


@dataclass(frozen=True)
class Document:
    """What a format read from a file: its problems' names ([""] for a format of one puzzle per
    file) and `load(i)`, problem i as a validated spec (a file of many problems converts only the
    ones that run)."""

    names: list[str]
    load: Callable[[int], LoadedSpec]
    one_puzzle_format: bool = False  # the format holds one puzzle per file: --problem means nothing

    @staticmethod
    def single(loaded: LoadedSpec) -> Document:
        return Document([""], lambda _: loaded, one_puzzle_format=True)


Reader = Callable[[PuzzleFile, ReadOptions], Document]


@dataclass(frozen=True)
class Deferred:
    """A function of one of this package's format modules, imported at its first call. The
    registry names every format's reader and sniffers this way, so that a run imports the one
    format it reads: yaml's import alone was 10 ms of every BurrTools run's 0.3 s start."""

    module: str  # a module of cpsolve.formats
    name: str

    def resolve(self) -> Callable[..., Any]:
        function: Callable[..., Any] = getattr(importlib.import_module(f"{__package__}.{self.module}"), self.name)
        return function

    def __call__(self, *arguments: Any) -> Any:
        return self.resolve()(*arguments)


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
    # claims a file whose suffix no format lists by its first bytes (BurrTools' XML named `.xml`
    # or nothing): None, only by suffix
    recognise: Callable[[bytes], bool] | None = None
    # bench and batch: a file of this format without `expected` counts is a find-one benchmark
    find_one_unless_expected: bool = False

    def load(self) -> None:
        """Import the module of each function the registry names (`Deferred`): a run does so
        before its clock starts, so that `seconds` leave the import out."""
        for function in (self.read, self.sniff, self.recognise):
            if isinstance(function, Deferred):
                function.resolve()


class Puzzle:
    """One problem of a puzzle file, ready to run: its spec (loaded on first use, so that a bad
    problem in a file of several is reported when it runs), the rules of its format, its number
    in a file that holds several, and the file it came from.

    The model built from it is kept here, per build options, with the seconds building took: a
    bench that runs one puzzle on several engines builds it once (each run still reports those
    seconds, so every engine's `seconds` means what `cpsolve run` reports)."""

    def __init__(
        self,
        file: PuzzleFile,
        rules: FileFormat,
        document: Document,
        index: int = 0,
        problem: str | None = None,
        read_seconds: float = 0.0,
        families: Families = FAMILIES,
    ) -> None:
        self.file = file
        self.rules = rules
        self.document = document
        self.index = index
        self.problem = problem  # as reports show it: None for the only problem of a file
        self.read_seconds = read_seconds  # reading and parsing the file: part of a run's `seconds`
        self.families = families
        self._models: dict[BuildOptions, tuple[PuzzleModel, float]] = {}

    @cached_property
    def loaded(self) -> LoadedSpec:
        return self.document.load(self.index)

    @property
    def name(self) -> str:
        """The file's name as the user gave it (what errors say)."""
        return self.file.name

    @property
    def expected(self) -> dict[str, int]:
        """The counts the spec expects (those it gives)."""
        given = self.loaded.spec.expected.model_dump() if self.loaded.spec.expected else {}
        return {name: value for name, value in given.items() if value is not None}

    @property
    def find_one(self) -> bool:
        """A puzzle to find one solution of rather than count (bench, batch): a spec that gives no
        expected counts, where its format says so (the large planted boards)."""
        return self.rules.find_one_unless_expected and not self.expected

    @property
    def family(self) -> Family:
        """The record of the puzzle's family (what it is drawn as, what it can do)."""
        return self.families.of(self.loaded.spec.kind)

    def let_go(self) -> None:
        """Forget the models built: whoever keeps a finished run's report need not keep its model
        (the studio keeps many finished jobs, and a model can be hundreds of megabytes)."""
        self._models.clear()

    def build_options(self, build: BuildOptions) -> BuildOptions:
        """The user's build options, with the rules of the puzzle's own program applied."""
        fixed = build.require_fixed_copies and self.rules.build.require_fixed_copies
        return dataclasses.replace(build, require_fixed_copies=fixed, top_first=self.rules.build.top_first)

    def model(self, build: BuildOptions | None = None, deadline: Deadline = NO_DEADLINE) -> tuple[PuzzleModel, float]:
        """The solver-neutral model and the seconds it took to build, built once per build options."""
        options = self.build_options(build or BuildOptions())
        if options not in self._models:
            started, loading = time.perf_counter(), native.load_seconds()
            model = self.families.build(self.loaded, options, deadline)
            # loading the compiled kernels (the placement finder's) is an engine's import, not building
            self._models[options] = (model, time.perf_counter() - started - (native.load_seconds() - loading))
        return self._models[options]


def puzzles_of(
    file: PuzzleFile, rules: FileFormat, document: Document, options: ReadOptions, read_seconds: float = 0.0
) -> list[Puzzle]:
    """Every problem of a document (numbered when there are several), or the one `options.problem`
    asks for by its number from 0 or its name."""
    names, wanted = document.names, options.problem
    chosen: list[tuple[int, str | None]]
    if wanted is None and len(names) == 1:
        chosen = [(0, None)]
    elif wanted is None:
        chosen = [(n, str(n)) for n in range(len(names))]
    else:
        chosen = [(0 if document.one_puzzle_format else _problem_index(names, wanted, file.name), wanted)]
    return [Puzzle(file, rules, document, n, shown, read_seconds, options.families) for n, shown in chosen]


def _problem_index(names: Sequence[str], wanted: str, path: str) -> int:
    if wanted.isascii() and wanted.isdigit() and len(wanted) <= 9 and int(wanted) < len(names):
        return int(wanted)
    if wanted in names:
        return names.index(wanted)
    listing = ", ".join(f"{i} {name!r}" for i, name in enumerate(names[:20]))
    more = f" and {len(names) - 20} more" if len(names) > 20 else ""
    raise CpsolveError(f"{path}: no problem {wanted[:40]!r}; the file has: {listing}{more}")


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
