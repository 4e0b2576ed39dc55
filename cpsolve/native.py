"""The compiled kernels without numba at start-up: one ahead-of-time build of them all (`cpsolve compile`).

numba's cache on disk spares a run the compiling, not numba: importing it and setting up its
compiler before the first cached kernel loads took 0.14 + 0.20 s of the 0.65 s that `cpsolve run
CubeInCage.xmpuzzle` took (docs/measurements.md). `cpsolve compile` builds every kernel, in every
variant the engines call, into one extension module with numba's ahead-of-time compiler
(numba.pycc) for this machine's CPU; a run that finds the build imports that module alone.

An export of such a module does not check its arguments (a wrong type would crash the process),
so every call is looked up by the key of its arguments' types (`argument_key`), recorded from the
very calls the build made, where numba typed the same arguments; a call of another key goes to
numba as it always did. The build is named by the kernels' source and the versions of Python,
numba and numpy (`build_name`): after any change runs use numba again until the next `cpsolve
compile`. `CPSOLVE_NATIVE=0` leaves the build unused.

numba.pycc is pending deprecation in numba (its replacement is not out yet); where a numba has none,
`cpsolve compile` says so and runs go on with numba's kernels. It needs setuptools and a C
compiler to link the module. Its machine code is numba's, for the same CPU: the searches take
the time numba's take (`CPSOLVE_NATIVE=0 python benchmarks/exact_cover_search.py` against the
same without; docs/measurements.md, start-up).
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import importlib.util
import json
import os
import platform
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from importlib.machinery import ExtensionFileLoader
from importlib.util import module_from_spec, spec_from_loader
from pathlib import Path
from types import ModuleType
from typing import Any, Final, NamedTuple

import numpy as np

from cpsolve.errors import CpsolveError

USE_ENV = "CPSOLVE_NATIVE"  # "0": numba's kernels even where a build is there
FOLDER_ENV = "CPSOLVE_NATIVE_DIR"  # where builds are kept (default: the user's cache folder)


class Kernel(NamedTuple):
    """A compiled kernel a Python caller calls: its module and its function. Every one is declared
    here, once, as a name callers import (`native.kernel(native.BOX_SEARCH)`): the build exports
    these (their helpers go in with them), and `kernel` hands them out."""

    module: str
    function: str


COVER_SEARCH: Final = Kernel("cpsolve.engines.exact_cover.cover_kernel", "search")
COVER_LOWEST_UNDECIDED: Final = Kernel("cpsolve.engines.exact_cover.cover_kernel", "lowest_undecided")
BOX_SEARCH: Final = Kernel("cpsolve.engines.exact_cover.box_kernel", "search")
BOX_LISTS: Final = Kernel("cpsolve.engines.exact_cover.box_kernel", "placement_lists")
BOX_NEIGHBOURHOOD: Final = Kernel("cpsolve.engines.exact_cover.box_kernel", "neighbourhood")
FEWEST_SEARCH: Final = Kernel("cpsolve.engines.exact_cover.fewest_kernel", "search")
FEWEST_COLUMN_LISTS: Final = Kernel("cpsolve.engines.exact_cover.fewest_kernel", "column_lists")
FEWEST_LIVE_COUNTS: Final = Kernel("cpsolve.engines.exact_cover.fewest_kernel", "live_counts")
BITSET_SEARCH: Final = Kernel("cpsolve.engines.exact_cover.bitset_kernel", "search")
BITSET_BIT_SETS: Final = Kernel("cpsolve.engines.exact_cover.bitset_kernel", "bit_sets")
BITSET_ESTIMATE: Final = Kernel("cpsolve.engines.exact_cover.bitset_kernel", "estimate")
TILES_FILL: Final = Kernel("cpsolve.engines.tiles_dfs.kernel", "fill")
TILES_PROBE: Final = Kernel("cpsolve.engines.tiles_dfs.kernel", "probe")
CHAIN_WALK: Final = Kernel("cpsolve.engines.chain_dfs.kernel", "walk")
DISASSEMBLY_GEOMETRY_OF: Final = Kernel("cpsolve.disassembly.kernel", "geometry_of")
DISASSEMBLY_REHASH: Final = Kernel("cpsolve.disassembly.kernel", "rehash")
DISASSEMBLY_EXPAND: Final = Kernel("cpsolve.disassembly.kernel", "expand")
DISASSEMBLY_TAKE_APART_BATCH: Final = Kernel("cpsolve.disassembly.kernel", "take_apart_batch")
FRONTIER_STEP: Final = Kernel("cpsolve.engines.frontier.kernel", "step")
FRONTIER_REHASH: Final = Kernel("cpsolve.engines.frontier.kernel", "rehash")
FITTING: Final = Kernel("cpsolve.grids.fitting_kernel", "fitting")
ATOM_IMAGES: Final = Kernel("cpsolve.symmetry.images_kernel", "atom_images")
ORBITS: Final = Kernel("cpsolve.counting.orbits_kernel", "orbits")
CENSUS_WALK: Final = Kernel("cpsolve.census.kernel", "walk")
CENSUS_REHASH: Final = Kernel("cpsolve.census.kernel", "rehash")
DESIGN_OTHER_ASSEMBLY: Final = Kernel("cpsolve.design.kernel", "other_assembly")
KERNELS: Final = (
    COVER_SEARCH,
    COVER_LOWEST_UNDECIDED,
    BOX_SEARCH,
    BOX_LISTS,
    BOX_NEIGHBOURHOOD,
    FEWEST_SEARCH,
    FEWEST_COLUMN_LISTS,
    FEWEST_LIVE_COUNTS,
    BITSET_SEARCH,
    BITSET_BIT_SETS,
    BITSET_ESTIMATE,
    TILES_FILL,
    TILES_PROBE,
    CHAIN_WALK,
    DISASSEMBLY_GEOMETRY_OF,
    DISASSEMBLY_REHASH,
    DISASSEMBLY_EXPAND,
    DISASSEMBLY_TAKE_APART_BATCH,
    FRONTIER_STEP,
    FRONTIER_REHASH,
    FITTING,
    ATOM_IMAGES,
    ORBITS,
    CENSUS_WALK,
    CENSUS_REHASH,
    DESIGN_OTHER_ASSEMBLY,
)
KERNEL_MODULES: Final = tuple(dict.fromkeys(kernel.module for kernel in KERNELS))
# The modules whose source the compiled code is made of: the kernels and the constants they import.
SOURCES = (
    *KERNEL_MODULES,
    "cpsolve.native",  # the argument keys a build is looked up by
    "cpsolve.engines.exact_cover.bits",
    "cpsolve.engines.exact_cover.fewest_codes",
    "cpsolve.disassembly.codes",
    "cpsolve.engines.frontier.codes",
    "cpsolve.census.codes",
    "cpsolve.design.codes",
)

# The kernels that let go of the GIL while they run (cpsolve.workers.Threaded): the searches, each
# call a slice of milliseconds. The others (called often, each briefly, by the thread that keeps the
# classes) keep it: taking it back waits for a thread that holds it, up to the switch interval (5 ms),
# and a listing's classifying thread lost 0.13-0.19 s so on SolidSixPieceBurrs.
RELEASING: frozenset[Kernel] = frozenset(
    {
        COVER_SEARCH,
        BOX_SEARCH,
        FEWEST_SEARCH,
        BITSET_SEARCH,
        TILES_FILL,
        CHAIN_WALK,
        FRONTIER_STEP,
        CENSUS_WALK,
        DISASSEMBLY_TAKE_APART_BATCH,
        DISASSEMBLY_GEOMETRY_OF,  # a batch's tables, made on each of the disassembly's threads
    }
)


class NativeBuildError(CpsolveError):
    """`cpsolve compile` could not build (no numba, no C compiler, a folder it cannot write)."""


# -- the key of a call ---------------------------------------------------------------------------


def argument_key(arguments: tuple[Any, ...]) -> str | None:
    """A text that is the same for two calls only if numba types their arguments alike: each
    array's dtype, dimensions, layout, whether it is writeable and aligned; Python ints by the
    64-bit type numba gives them; numpy scalars by dtype; tuples element by element. None for an
    argument of any other kind (such a call goes to numba). A kernel makes it afresh only for the
    arguments its last call did not have (`_Native`): 0.3 us an array."""
    keys = []
    for value in arguments:
        key = _key(value)
        if key is None:
            return None
        keys.append(key)
    return ",".join(keys)


def _key(value: Any) -> str | None:
    return _KEYERS.get(type(value), _other_key)(value)  # type: ignore[no-any-return]


# numpy's flags (ndarray.flags.num) that numba's array type tells apart; OWNDATA and the rest do not
_ALIGNED_WRITEABLE = 0x100 | 0x400
_C_CONTIGUOUS, _F_CONTIGUOUS = 0x1, 0x2


def _array_key(value: Any) -> str:
    """Looked up by dtype, dimensions and flags (0.3 us), made from them only the first time (0.6 us)."""
    flags = value.flags.num
    seen = (value.dtype, value.ndim, flags)
    key = _ARRAY_KEYS.get(seen)
    if key is None:
        layout = "C" if flags & _C_CONTIGUOUS else "F" if flags & _F_CONTIGUOUS else "A"  # numba's order
        key = _ARRAY_KEYS[seen] = f"{value.dtype.str}{value.ndim}{layout}{flags & _ALIGNED_WRITEABLE}"
    return key


_ARRAY_KEYS: dict[tuple[Any, int, int], str] = {}


def _int_key(value: int) -> str | None:
    return "i" if -(1 << 63) <= value < 1 << 63 else "u" if 0 <= value < 1 << 64 else None


def _tuple_key(value: tuple[Any, ...]) -> str | None:
    inner = argument_key(value)
    return None if inner is None else f"({inner})"


def _other_key(value: Any) -> str | None:
    """Subclasses and numpy scalars: what the exact-type table does not hold."""
    if isinstance(value, (bool, np.bool_)):
        return "?"
    if isinstance(value, np.generic):
        return f"s{value.dtype.str}"
    return None  # an ndarray subclass, a list, an int subclass...: numba's


_NOTHING = object()  # no argument yet in a place
_KEYERS: dict[type, Any] = {
    np.ndarray: _array_key,
    bool: lambda value: "?",
    int: _int_key,
    float: lambda value: "f",
    tuple: _tuple_key,
}


def installed(module: str) -> bool:
    """Whether a module can be imported, looked up once per process: `importlib.util.find_spec`
    walks sys.path (0.2 ms a call), and every run asked it once per engine (375 times over the yass
    corpus's figures in one process)."""
    return _installed(module)


@functools.lru_cache(maxsize=64)
def _installed(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


# -- where a build lives and what it is called ----------------------------------------------------


def folder() -> Path:
    chosen = os.environ.get(FOLDER_ENV)
    if chosen:
        return Path(chosen)
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "cpsolve" / "native"


def source_path(module: str) -> Path:
    """A kernel module's file, found without importing it (importing one imports numba)."""
    package = Path(__file__).resolve().parent
    return package.joinpath(*module.split(".")[1:]).with_suffix(".py")


def build_name() -> str:
    """The build's module name: a digest of the kernels' source and of the versions their machine
    code depends on (Python, numba and llvmlite, numpy, the machine)."""
    from importlib import metadata

    digest = hashlib.sha256()
    for module in SOURCES:
        digest.update(module.encode() + b"\0" + source_path(module).read_bytes() + b"\0")
    versions = [sys.version, platform.machine(), np.__version__]
    for distribution in ("numba", "llvmlite"):
        try:
            versions.append(metadata.version(distribution))
        except metadata.PackageNotFoundError:
            versions.append("-")
    digest.update("\0".join(versions).encode())
    return f"cpsolve_native_{digest.hexdigest()[:16]}"


# -- a run: the build's kernels, or numba's ---------------------------------------------------------


@dataclass
class Build:
    """A loaded build: its module and, per kernel, the export for each argument key."""

    module: ModuleType
    exports: dict[Kernel, dict[str, str]]
    path: Path


class _Loaded:
    """What this process has loaded of the compiled kernels: a cache of the process, as
    `sys.modules` is (a module is loaded once per process whoever asks), kept in the one instance
    below and changed only by this module's functions."""

    def __init__(self) -> None:
        self.build: Build | None = None
        self.looked = False
        self.load_seconds = 0.0  # what looking for the build and loading it took
        self.kernels: dict[Kernel, Callable[..., Any]] = {}
        self.recording: dict[Kernel, dict[str, Any]] | None = None  # while `compile_kernels` records calls


_LOADED = _Loaded()


def loaded_build() -> Build | None:
    """The build for this source and these versions, loaded once per process; None where there is
    none (or CPSOLVE_NATIVE=0, or it does not load: runs then use numba as before)."""
    loaded = _LOADED
    if loaded.looked:
        return loaded.build
    loaded.looked = True
    started = time.perf_counter()
    try:
        loaded.build = _load_build()
    finally:
        loaded.load_seconds = time.perf_counter() - started
    return loaded.build


def load_seconds() -> float:
    """The seconds `loaded_build` took (0 before it is called): a run's `seconds` leave them out,
    as they leave out importing an engine's libraries, wherever the build is first asked for."""
    return _LOADED.load_seconds


def _load_build() -> Build | None:
    if os.environ.get(USE_ENV, "1") == "0" or not installed("numba"):
        return None
    try:
        name = build_name()
        index = folder() / f"{name}.json"
        if not index.is_file():
            return None
        recorded = json.loads(index.read_text())
        path = index.with_name(recorded["file"])
        spec = spec_from_loader(name, ExtensionFileLoader(name, str(path)))
        if spec is None:
            return None
        module = module_from_spec(spec)
        spec.loader.exec_module(module)  # type: ignore[union-attr]
    except (OSError, ImportError, ValueError, KeyError):
        return None
    exports = {Kernel(entry["module"], entry["name"]): entry["exports"] for entry in recorded["kernels"]}
    return Build(module, exports, path)


def warm_up_needed() -> bool:
    """Whether an engine's `load` must call its kernels once, before a run's clock: on numba's
    kernels (imported, loaded from its cache or compiled at the first call) and while `cpsolve
    compile` records the calls; not with a build, which is loaded whole here (a warm-up of the
    exact-cover searches costs 3 ms of Python, a hundredth of a small run's process)."""
    return _LOADED.recording is not None or loaded_build() is None


def describe() -> str:
    """Where the kernels a run calls come from, for `cpsolve engines`."""
    build = loaded_build()
    if build is not None:
        return f"built ahead of time ({build.path})"
    if os.environ.get(USE_ENV, "1") == "0":
        return f"numba's ({USE_ENV}=0)"
    return "numba's: `cpsolve compile` builds them ahead of time, so that runs start about 0.3 s sooner"


def kernel(key: Kernel) -> Callable[..., Any]:
    """The kernel to call: the build's where there is one, else numba's."""
    found = _LOADED.kernels.get(key)
    if found is None:
        if _LOADED.recording is not None:
            found = _Recorder(key, _numba_kernel(key), _LOADED.recording.setdefault(key, {}))
        else:
            build = loaded_build()
            exports = None if build is None else build.exports.get(key)
            found = _numba_kernel(key) if build is None or not exports else _Native(key, build.module, exports)
        _LOADED.kernels[key] = found
    return found


def built_kernel(key: Kernel) -> Callable[..., Any] | None:
    """The kernel from the build, or None where no build has it: for work that has a numpy way
    too (finding placements), which a run without a build keeps rather than import numba for it."""
    if _LOADED.recording is None:
        build = loaded_build()
        if build is None or not build.exports.get(key):
            return None
    return kernel(key)


def _numba_kernel(key: Kernel) -> Callable[..., Any]:
    function: Callable[..., Any] = getattr(importlib.import_module(key[0]), key[1])
    return function


class _LastCall(threading.local):
    """What a kernel remembers of its last call in this thread (Dask's workers may run parts in
    threads of one process): each place's argument and its key, and the export for those keys."""

    def __init__(self) -> None:
        self.last: list[tuple[Any, str | None]] = []
        self.chosen: Callable[..., Any] | None = None
        self.known = False  # whether `chosen` is worked out for the keys in `last`


class _Native:
    """A kernel of the build: each call goes to the export for its argument key, or to numba.

    The key of an argument that is the very object the last call had in its place is not made
    again, and where every place's key is the last call's the last export is taken at once: a
    search's tables and state come back call after call, and making the whole key took 8 us a
    call of the disassembler (6 ms of DraculasDentalDesaster's 0.19 s). So the last call's
    arguments stay referenced until the next call, and an array's flags are read when it first
    comes (cpsolve never changes them on an array it hands a kernel)."""

    def __init__(self, key: Kernel, module: ModuleType, exports: dict[str, str]) -> None:
        self.key = key
        self.exports = {argument: getattr(module, export) for argument, export in exports.items()}
        self.numba: Callable[..., Any] | None = None
        self.remembered = _LastCall()

    def export_for(self, arguments: tuple[Any, ...]) -> Callable[..., Any] | None:
        """The export for these arguments (None: numba's kernel takes the call)."""
        remembered = self.remembered
        last = remembered.last
        if len(last) != len(arguments):
            last[:] = [(_NOTHING, None)] * len(arguments)
            remembered.known = False
        for place, value in enumerate(arguments):
            seen, key = last[place]
            if seen is not value:
                fresh = _key(value)
                last[place] = (value, fresh)
                if fresh != key:
                    remembered.known = False
        if not remembered.known:
            keys = [key for _, key in last]
            remembered.chosen = None if None in keys else self.exports.get(",".join(key or "" for key in keys))
            remembered.known = True
        return remembered.chosen

    def __call__(self, *arguments: Any) -> Any:
        export = self.export_for(arguments)
        if export is not None:
            return export(*arguments)
        if self.numba is None:
            self.numba = _numba_kernel(self.key)
        return self.numba(*arguments)


class _Recorder:
    """A numba kernel that notes the numba types of each new argument key it is called with."""

    def __init__(self, key: Kernel, dispatcher: Any, seen: dict[str, Any]) -> None:
        self.key, self.dispatcher, self.seen = key, dispatcher, seen

    def __call__(self, *arguments: Any) -> Any:
        typeof = importlib.import_module("numba").typeof
        result = self.dispatcher(*arguments)
        argument = argument_key(arguments)
        types = tuple(typeof(value) for value in arguments)
        if argument is not None and self.seen.get(argument, types) == types:
            self.seen[argument] = types
        elif argument is not None:  # two typings of one key: the key cannot tell them apart
            self.seen[argument] = None
        return result


# -- the build ------------------------------------------------------------------------------------


@dataclass
class BuildReport:
    path: Path
    variants: int
    seconds: float
    already: bool


def compile_kernels(
    warm_up: Callable[[], None], into: Path | None = None, say: Callable[[str], None] | None = None
) -> BuildReport:
    """Build the kernels `warm_up` calls (each in every variant it calls) unless this source and
    these versions are built already; written under a temporary name and moved into place, so a
    build cut short leaves nothing a run would load. `say` hears what it is doing, step by step
    (the command prints it: the build takes a minute)."""
    started = time.perf_counter()
    target = into or folder()
    name = build_name()
    index = target / f"{name}.json"
    built = _built(index)
    if built is not None:
        return BuildReport(index.with_name(built["file"]), _variants(built), 0.0, True)
    if not installed("numba"):
        raise NativeBuildError("cpsolve compile: numba is not installed (pip install 'cpsolve[exact-cover]')")
    try:
        target.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=target) as scratch:
            recorded = _record_and_compile(warm_up, name, Path(scratch), say or (lambda text: None))
            shutil.move(Path(scratch) / recorded["file"], target / recorded["file"])
            partial = index.with_suffix(".partial")
            partial.write_text(json.dumps(recorded, indent=1))
            partial.replace(index)
    except OSError as error:
        raise NativeBuildError(f"cpsolve compile: {target}: {error.strerror or error}") from None
    return BuildReport(target / recorded["file"], _variants(recorded), time.perf_counter() - started, False)


def _built(index: Path) -> dict[str, Any] | None:
    """The index of a whole build already there (its module beside it), or None."""
    try:
        recorded: dict[str, Any] = json.loads(index.read_text())
        return recorded if index.with_name(recorded["file"]).is_file() else None
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _variants(recorded: dict[str, Any]) -> int:
    return sum(len(entry["exports"]) for entry in recorded["kernels"])


def _record_and_compile(
    warm_up: Callable[[], None], name: str, scratch: Path, say: Callable[[str], None]
) -> dict[str, Any]:
    """Call `warm_up` with every kernel recording its calls, then export each typing it saw."""
    try:
        pycc: Any = importlib.import_module("numba.pycc")
    except ImportError as error:  # a numba without it, or no setuptools to link with
        raise NativeBuildError(f"cpsolve compile: numba's ahead-of-time compiler does not load: {error}") from None
    _LOADED.kernels.clear()
    _LOADED.recording = {}
    say(
        "calling every kernel once to record its types (numba compiles each as it goes: about two minutes on a"
        " fresh install, a second where numba's cache has them)"
    )
    try:
        warm_up()
        seen = _LOADED.recording
    finally:
        _LOADED.recording = None
        _LOADED.kernels.clear()
    compiler = pycc.CC(name)
    compiler.output_dir = str(scratch)
    compiler.target_cpu = "host"  # the build is for this machine, as numba's own cache is
    kernels = []
    releasing = set()
    for (module, function), typings in sorted(seen.items()):
        dispatcher: Any = _numba_kernel(Kernel(module, function))
        if (module, function) in RELEASING:
            releasing.add(dispatcher.py_func)
        exports = {}
        for number, (argument, types) in enumerate(sorted(typings.items())):
            if types is None:
                continue
            export = f"{module.rsplit('.', 2)[-2]}_{module.rsplit('.', 1)[-1]}_{function}_{number}"
            compiler.export(export, dispatcher.overloads[types].signature)(dispatcher.py_func)
            exports[argument] = export
        kernels.append({"module": module, "name": function, "exports": exports})
    variants = sum(len(kernel["exports"]) for kernel in kernels)
    say(
        f"compiling {variants} kernels to machine code with numba's pycc and the C compiler (about a minute and a half)"
    )
    try:
        with _releasing_the_gil(importlib.import_module("numba.pycc.compiler"), releasing):
            compiler.compile()
    except Exception as error:  # setuptools' and the C compiler's errors share no base class
        first_line = (str(error).splitlines() or [type(error).__name__])[0]
        raise NativeBuildError(f"cpsolve compile: the C compiler failed: {first_line}") from None
    (built,) = scratch.glob(f"{name}*{_extension_suffix()}")
    return {"file": built.name, "kernels": kernels}


@contextmanager
def _releasing_the_gil(pycc_compiler: Any, releasing: set[Any]) -> Iterator[None]:
    """The Python wrappers of the kernels in `releasing` (their Python functions) let go of the GIL
    while the kernel runs (numba's `nogil`, which pycc does not offer: its compiler compiles each
    export with `compile_extra(..., flags, ...)`, so that name is given one that sets the flag for
    these). The kernels touch no Python object, and the arrays they are given stay referenced by
    their caller, so threads of one process then search on separate cores (cpsolve.workers.Threaded)."""
    plain = pycc_compiler.compile_extra

    def compile_extra(typing: Any, context: Any, function: Any, *rest: Any, **named: Any) -> Any:
        flags = rest[2] if len(rest) > 2 else named["flags"]
        flags.release_gil = function in releasing
        return plain(typing, context, function, *rest, **named)

    pycc_compiler.compile_extra = compile_extra
    try:
        yield
    finally:
        pycc_compiler.compile_extra = plain


def threads_run_apart() -> bool:
    """Whether the kernels this process calls let go of the GIL, so that searches on threads run
    at once on separate cores: those of a build (made with `_releasing_the_gil`: this module's
    source is part of the build's name, so no older build is loaded); numba's own, compiled at the
    first call, hold it."""
    return loaded_build() is not None


def _extension_suffix() -> str:
    from importlib.machinery import EXTENSION_SUFFIXES

    return EXTENSION_SUFFIXES[0]
