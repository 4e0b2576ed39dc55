"""The kernels' ahead-of-time build (cpsolve.native, `cpsolve compile`): argument keys that tell
numba's typings apart, a build that runs puzzles without importing numba and answers as numba's
kernels do, and a call the build does not hold going to numba."""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import CORPUS, ROOT, SPECS, absent
from hypothesis import given, settings
from hypothesis import strategies as st

from cpsolve import native
from cpsolve.kernels import byte_compile_modules

BURRTOOLS = CORPUS / "burrtools"
GRIDS = CORPUS / "burrtools-grids"

# What a fresh process runs to check a build: each puzzle's counts and solutions enumerated, as
# JSON lines, then whether numba was imported. Every compiled kernel is called by one of these.
RUNS: list[tuple[str, dict[str, Any]]] = [
    (str(SPECS / "soma.yaml"), {}),
    (str(SPECS / "soma.yaml"), {"workers": 2}),
    (str(SPECS / "kanoodle_pyramid.yaml"), {}),
    (str(SPECS / "pentominoes_6x10.yaml"), {}),
    (str(SPECS / "hexiamonds_rhombus.yaml"), {}),
    (str(SPECS / "tiles_frame_4x4.yaml"), {}),
    (str(SPECS / "snake_standard.yaml"), {}),
    (str(SPECS / "t_tetracubes_6x6x2.yaml"), {"count_only": True}),
    (str(BURRTOOLS / "CubeInCage.xmpuzzle"), {}),
    (str(BURRTOOLS / "AlPackino.xmpuzzle"), {"workers": 2}),
    (str(BURRTOOLS / "DemoPieceGenerator.xmpuzzle"), {}),
    (str(BURRTOOLS / "DraculasDentalDesaster.xmpuzzle"), {"disassemble": True}),
    (str(GRIDS / "Bermuda.xmpuzzle"), {"disassemble": True}),
    (str(GRIDS / "HexSticks.xmpuzzle"), {}),
]
RUNNER = """
import json, sys
import cpsolve
for path, options in json.loads(sys.argv[1]):
    result = cpsolve.solve(path, pictured=0, **options)
    report = result.report
    summary = report.disassembly.as_json() if report.disassembly is not None else {}
    summary.pop("seconds", None)
    print(json.dumps([path, report.counts.raw, report.counts.rotations, report.counts.unique,
                      report.solutions_enumerated, summary]))
print(json.dumps("numba" in sys.modules))
"""


def _run(runs: list[tuple[str, dict[str, Any]]], **environment: str) -> tuple[list[Any], bool]:
    """The runs in a fresh process: (one line per run, whether numba was imported)."""
    lines = _printed(RUNNER, [json.dumps(runs)], environment)
    return lines[:-1], bool(lines[-1])


def _printed(script: str, arguments: list[str], environment: dict[str, str]) -> list[Any]:
    """The JSON lines a script prints in a fresh process."""
    done = subprocess.run(
        [sys.executable, "-c", script, *arguments],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, **environment},
        timeout=600,
        check=True,
    )
    return [json.loads(line) for line in done.stdout.splitlines()]


def _corpus_present() -> None:
    if not BURRTOOLS.is_dir() or not GRIDS.is_dir():
        absent(f"no BurrTools corpus at {CORPUS}")


# -- keys -----------------------------------------------------------------------------------------


def _arrays() -> st.SearchStrategy[Any]:
    dtypes = st.sampled_from([np.int32, np.int64, np.uint64, np.float64, np.bool_])

    def make(dtype: Any, two_d: bool, view: str, writeable: bool) -> Any:
        array = np.zeros((4, 6) if two_d else 12, dtype)
        if view == "strided":
            array = array[..., ::2]
        elif view == "transposed":
            array = array.T
        array.flags.writeable = writeable
        return array

    return st.builds(make, dtypes, st.booleans(), st.sampled_from(["plain", "strided", "transposed"]), st.booleans())


def _values() -> st.SearchStrategy[Any]:
    scalars = st.one_of(
        st.booleans(),
        st.integers(-(2**63), 2**64 - 1),
        st.floats(allow_nan=False),
        st.sampled_from([np.int64(3), np.uint64(3), np.float64(0.5), np.int32(1)]),
        _arrays(),
    )
    return st.recursive(scalars, lambda inner: st.lists(inner, max_size=3).map(tuple), max_leaves=6)


@settings(max_examples=300, deadline=None)
@given(st.lists(_values(), min_size=2, max_size=6))
def test_calls_of_one_key_are_typed_alike_by_numba(values: list[Any]) -> None:
    """The invariant the build rests on: two calls with one key get one numba typing, so the export
    recorded for the key is the right one for every call that has it."""
    typeof: Any = importlib.import_module("numba").typeof
    typings: dict[str, Any] = {}
    for value in values:
        key = native.argument_key((value,))
        if key is not None:
            assert typings.setdefault(key, typeof(value)) == typeof(value), key


def test_keys_tell_apart_what_numba_types_apart() -> None:
    plain = np.zeros(6, np.int64)
    readonly = plain.copy()
    readonly.flags.writeable = False
    keys = [
        native.argument_key(arguments)
        for arguments in [
            (plain,),
            (readonly,),
            (plain[::2],),
            (plain.astype(np.int32),),
            (plain.reshape(2, 3),),
            (1,),
            (True,),
            (1.0,),
            (2**63,),
            ((plain, plain),),
            ((plain, 1),),
            ((),),
        ]
    ]
    assert len(set(keys)) == len(keys)
    assert native.argument_key(([1],)) is None  # a list: numba's reflected lists are not built
    assert native.argument_key((2**64,)) is None


# -- a build --------------------------------------------------------------------------------------

SMALL_BUILD = """
import sys
from pathlib import Path
from cpsolve import native
from cpsolve.engines.exact_cover import ExactCoverEngine
say = lambda text: print(text, file=sys.stderr)
report = native.compile_kernels(ExactCoverEngine().load, Path(sys.argv[1]), say=say)
print(report.variants, report.already)
"""


@pytest.mark.slow
def test_a_build_answers_for_what_it_holds_and_numba_for_the_rest(tmp_path: Path) -> None:
    """A build of the exact-cover searches `load` calls (no holes): the Soma cube runs on it alone,
    never importing numba; CubeInCage's holes call a variant it does not hold, which numba runs.
    Both count as numba's kernels count. A second build finds the first and does nothing."""
    _corpus_present()
    build = [sys.executable, "-c", SMALL_BUILD, str(tmp_path)]
    built = subprocess.run(build, capture_output=True, text=True, cwd=ROOT, check=True, timeout=900)
    first = built.stdout.split()
    assert int(first[0]) >= 3 and first[1] == "False"
    assert "calling every kernel once" in built.stderr and "kernels to machine code" in built.stderr  # progress
    again = subprocess.run(build, capture_output=True, text=True, cwd=ROOT, check=True, timeout=900).stdout.split()
    assert again == [first[0], "True"]

    soma: list[tuple[str, dict[str, Any]]] = [(str(SPECS / "soma.yaml"), {})]
    cage: list[tuple[str, dict[str, Any]]] = [(str(BURRTOOLS / "CubeInCage.xmpuzzle"), {})]
    on_build, numba_imported = _run(soma, CPSOLVE_NATIVE_DIR=str(tmp_path))
    assert not numba_imported
    assert on_build == _run(soma, CPSOLVE_NATIVE="0")[0]
    assert on_build[0][1:4] == [11520, 480, 240]
    on_build, numba_imported = _run(cage, CPSOLVE_NATIVE_DIR=str(tmp_path))
    assert numba_imported
    assert on_build == _run(cage, CPSOLVE_NATIVE="0")[0]


def test_every_run_of_the_installed_build_leaves_numba_out_and_answers_as_numba() -> None:
    """The build `cpsolve compile` made (README: part of installing): every engine, the
    disassembler, the frontier counter, split runs on two processes; none imports numba, and
    every count, enumeration and disassembly is numba's."""
    _corpus_present()
    if native.loaded_build() is None:
        absent("no build of the compiled kernels: run `cpsolve compile`")
    on_build, numba_imported = _run(RUNS)
    assert not numba_imported
    on_numba, numba_imported = _run(RUNS, CPSOLVE_NATIVE="0")
    assert numba_imported
    assert on_build == on_numba


DESIGN_RUNNER = """
import json, sys, random
from cpsolve.design import DesignRequest, random_cut
from cpsolve.design.check import CutChecker
from cpsolve.geometry import box_cells
answers = []
for sides, pieces, smallest, largest in (((4, 4, 4), 6, 8, 14), ((5, 5, 3), 8, 6, 12)):
    request = DesignRequest(tuple(box_cells(sides)), pieces, smallest, largest)
    checker, rng = CutChecker(request.target, ()), random.Random(1)
    cuts = [cut for cut in (random_cut(request, rng) for _ in range(10)) if cut is not None]
    answers += [None if answer is None else [answer.assemblies, answer.raw] for answer in map(checker.answer, cuts)]
print(json.dumps(answers))
print(json.dumps("numba" in sys.modules))
"""


def test_the_design_searchs_cut_check_runs_on_the_build_as_on_numba() -> None:
    """The cut check's calls (many pieces of many sizes, one word and two) are the types the build
    recorded from `load_compiled_cut_check`: a call of another layout went to numba, unseen."""
    if native.loaded_build() is None:
        absent("no build of the compiled kernels: run `cpsolve compile`")
    runs = [_printed(DESIGN_RUNNER, [], environment) for environment in ({}, {"CPSOLVE_NATIVE": "0"})]
    assert runs[0][1] is False and runs[1][1] is True
    assert runs[0][0] == runs[1][0] and all(answer is not None for answer in runs[0][0])


def test_compile_into_a_file_is_one_line_and_exit_2(tmp_path: Path) -> None:
    taken = tmp_path / "file"
    taken.write_text("")
    done = subprocess.run(
        [sys.executable, "-m", "cpsolve", "compile"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "CPSOLVE_NATIVE_DIR": str(taken / "native")},
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and done.stderr.startswith(f"cpsolve compile: {taken / 'native'}"), done.stderr
    assert "Traceback" not in done.stderr


def test_compile_writes_the_bytecode_of_every_module() -> None:
    """`cpsolve compile` byte-compiles cpsolve's own modules (an editable install under
    PYTHONDONTWRITEBYTECODE has none, and every process compiled them from source): afterwards
    each module's bytecode is there and records its source's time and size, so Python takes it."""
    folders, complete = byte_compile_modules()
    assert complete and any(folder.name == "models" for folder in folders)
    sources = [source for folder in folders for source in folder.rglob("*.py")]
    assert len(sources) > 100
    for source in sources:
        cached = Path(importlib.util.cache_from_source(str(source)))
        header = cached.read_bytes()[8:16]
        stat = source.stat()
        assert header == struct.pack("<II", int(stat.st_mtime) & 0xFFFFFFFF, stat.st_size & 0xFFFFFFFF), source


def test_engines_says_where_the_kernels_come_from() -> None:
    def engines(**environment: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "cpsolve", "engines"],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env={**os.environ, **environment},
            check=True,
        )
        return done.stdout.splitlines()[-1]

    assert engines(CPSOLVE_NATIVE="0") == "compiled kernels: numba's (CPSOLVE_NATIVE=0)"
    if native.loaded_build() is not None:
        assert engines().startswith("compiled kernels: built ahead of time (")


def test_a_kernel_remembers_the_last_keys_without_mixing_them_up() -> None:
    """The export a kernel finds from the last call's remembered arguments is the one the call's
    key made afresh names, whether an argument is the same object, another of the same type, or
    one of another type in its place."""
    from types import ModuleType

    tables = (np.zeros(3, np.int64), np.zeros(2, np.uint64))
    state = np.zeros(4, np.int64)
    calls: list[tuple[Any, ...]] = [
        (tables, state, 1),
        (tables, state, 2),
        (tables, state.astype(np.int32), 2),
        ((tables[0],), state, 2**63),
        (tables, state, 1, 2),
        (tables, [1], 1),
        (tables, state, 3),
    ]
    module = ModuleType("build")
    exports = {}
    for number in (0, 2, 3):  # the build holds three typings (call 1 is typed as call 0)
        setattr(module, f"export_{number}", lambda *arguments, number=number: number)
        exports[str(native.argument_key(calls[number]))] = f"export_{number}"
    kernel = native._Native(native.Kernel("module", "function"), module, exports)
    expected: list[int | None] = [0, 0, 2, 3, None, None, 0]
    for arguments, wanted in zip(calls, expected, strict=True):
        export = kernel.export_for(arguments)
        assert (None if export is None else export()) == wanted


def test_each_thread_remembers_its_own_last_call() -> None:
    """Dask's workers may run two parts in threads of one process: one thread's call must not
    change what another remembers between reading its keys and taking their export."""
    import threading
    from types import ModuleType

    kernel = native._Native(native.Kernel("module", "function"), ModuleType("build"), {})
    mine = (np.zeros(3, np.int64), 1)
    kernel.export_for(mine)
    other = threading.Thread(target=kernel.export_for, args=((np.zeros(3, np.int32), 2),))
    other.start()
    other.join()
    assert [seen for seen, _ in kernel.remembered.last] == list(mine)


def test_the_build_is_named_by_every_source_its_code_is_made_of() -> None:
    """A kernel module's own imports from cpsolve are in SOURCES (so that changing a constant a
    kernel reads names a new build); every kernel declared names a compiled function of its
    module, and every one a caller asks `native.kernel` for is a declared one (by attribute, so a
    name that is not declared fails as it is imported)."""
    import ast
    import importlib
    import re

    for module in native.KERNEL_MODULES:
        tree = ast.parse(native.source_path(module).read_text())
        package = module.rsplit(".", 1)[0]
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("cpsolve")):
                imported = f"{package}.{node.module}" if node.level else str(node.module)
                assert imported in native.SOURCES, (module, imported)
    for kernel in native.KERNELS:
        assert hasattr(importlib.import_module(kernel.module), kernel.function), kernel
    declared = {name for name, value in vars(native).items() if isinstance(value, native.Kernel)}
    asked = set()
    for path in [*(ROOT / "cpsolve").rglob("*.py"), *(ROOT / "models").rglob("*.py")]:
        asked.update(re.findall(r"native\.(?:built_)?kernel\(native\.(\w+)\)", path.read_text()))
    assert asked == declared  # each declared kernel is called, and nothing else is


def test_engines_warm_up_only_on_numba_or_while_a_build_records(monkeypatch: pytest.MonkeyPatch) -> None:
    """With a build the kernels are loaded with it: the exact-cover engine's load calls none of
    its searches (3 ms of a small run's start); on numba, and while `cpsolve compile` records the
    calls, it does."""
    from cpsolve.engines import exact_cover

    called: list[object] = []

    def recorded_search_for(problem: Any) -> Any:
        called.append(problem)
        raise RuntimeError("warm-up")

    monkeypatch.setattr(exact_cover, "search_for", recorded_search_for)
    monkeypatch.setattr(native, "loaded_build", lambda: object())
    exact_cover.ExactCoverEngine().load(every_variant=True)
    assert not native.warm_up_needed() and not called
    monkeypatch.setattr(native._LOADED, "recording", {})
    assert native.warm_up_needed()
    with pytest.raises(RuntimeError, match="warm-up"):
        exact_cover.ExactCoverEngine().load()
    monkeypatch.setattr(native._LOADED, "recording", None)
    monkeypatch.setattr(native, "loaded_build", lambda: None)
    assert native.warm_up_needed()
    with pytest.raises(RuntimeError, match="warm-up"):
        exact_cover.ExactCoverEngine().load()
