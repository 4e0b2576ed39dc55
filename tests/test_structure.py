"""The layout's promises: no import cycle, only the engine that runs is imported, formats chosen by
suffix and content, parts without fork, CP-SAT models cloned rather than added to twice."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import conftest
import pytest
import row_family
from conftest import ROOT, SPECS, built, checked_run, corpus_dir

from cpsolve import formats, parts, workers
from cpsolve.engines import SearchOptions
from cpsolve.engines.cpsat import CpSatEngine, CpSatPrepared
from cpsolve.errors import CpsolveError
from cpsolve.formats import FileFormat, read_puzzle
from cpsolve.formats.yaml_spec import load_spec
from cpsolve.models import FAMILIES, BuildOptions
from cpsolve.pictures import scene
from cpsolve.run import ClassCollector, RunOptions, run
from cpsolve.symmetry import choose_breaking

# -- no import cycle ------------------------------------------------------------------------------


def module_files() -> dict[str, Path]:
    """Every module of the installed package, by its import name (models/ is cpsolve.models)."""
    found = {}
    for base, package in ((ROOT / "cpsolve", "cpsolve"), (ROOT / "models", "cpsolve.models")):
        for path in base.rglob("*.py"):
            parts_of = [package, *path.relative_to(base).with_suffix("").parts]
            if parts_of[-1] == "__init__":
                parts_of.pop()
            found[".".join(parts_of)] = path
    return found


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The package's modules this module imports, anywhere in it (lazy imports in functions too)."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    edges: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        else:
            continue
        edges.update(target for target in targets if target in known and target != name)
    return edges


def test_no_import_cycle() -> None:
    files = module_files()
    graph = {name: imports_of(name, path, set(files)) for name, path in files.items()}
    assert graph["cpsolve.run"] >= {"cpsolve.engines", "cpsolve.formats", "cpsolve.models"}  # the walk works
    assert_acyclic(graph, "import cycle")


def assert_acyclic(graph: dict[str, set[str]], what: str) -> None:
    """Fail with the first cycle met, walking the graph depth first in name order."""
    state: dict[str, str] = {}

    def visit(node: str, trail: list[str]) -> None:
        state[node] = "open"
        for other in sorted(graph.get(node, ())):
            assert state.get(other) != "open", f"{what}: " + " -> ".join([*trail, node, other])
            if other not in state:
                visit(other, [*trail, node])
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node, [])


def package_of(module: str, packages: set[str]) -> str:
    """The package a module belongs to at the top of cpsolve (cpsolve.engines for
    cpsolve.engines.exact_cover.box_search); a module at the top stands for itself."""
    parts_of = module.split(".")
    top = ".".join(parts_of[:2])
    return top if top in packages else module


def test_no_package_cycle() -> None:
    """Packages, not only modules: counting does not import models while models import counting,
    and so on. A package and its sub-packages are one (an engine's own package imports the
    engines' interface)."""
    files = module_files()
    packages = {name for name, path in files.items() if path.name == "__init__.py" and name.count(".") == 1}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        mine = package_of(name, packages)
        graph.setdefault(mine, set()).update(
            package_of(other, packages) for other in imports_of(name, path, set(files)) if other != "cpsolve"
        )
    for node, edges in graph.items():
        edges.discard(node)
    assert "cpsolve.models" in graph["cpsolve.engines"]  # the walk works
    assert_acyclic(graph, "package cycle")


def test_no_global_statement_and_a_small_engine_interface() -> None:
    """Shared state is handed as an argument, not kept through `global`; the interface an engine
    implements stays small (Engine, Prepared, Enumeration: 20 methods at most, two of them the
    optional capabilities of a counting engine: `Prepared.take_run`, `Enumeration.counting`)."""
    from cpsolve.engines.base import Engine, Enumeration, Prepared

    for path in [*module_files().values(), *(ROOT / "tests").glob("*.py")]:
        tree = ast.parse(path.read_text())
        assert not any(isinstance(node, ast.Global) for node in ast.walk(tree)), path
    methods = [
        name
        for cls in (Engine, Prepared, Enumeration)
        for name, value in vars(cls).items()
        if callable(value) or isinstance(value, property)
    ]
    assert len(methods) <= 20, methods


# -- only the engine that runs is imported ----------------------------------------------------------

PROBE = """
import contextlib, io, json, runpy, sys
watched = set(json.loads(sys.argv[1]))
sys.argv = ["cpsolve", *sys.argv[2:]]
with contextlib.redirect_stdout(io.StringIO()):
    try:
        runpy.run_module("cpsolve", run_name="__main__")
    except SystemExit:
        pass
print(json.dumps(sorted(m for m in sys.modules if m in watched or m.split(".")[0] in watched)))
"""


def imported_by(arguments: list[str], watched: list[str], env: dict[str, str] | None = None) -> list[str]:
    """The modules of `watched` (or of a package in it) that a `cpsolve` process imported."""
    result = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(watched), *arguments],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, **(env or {})},
    )
    found: list[str] = json.loads(result.stdout.splitlines()[-1])
    return found


@pytest.mark.parametrize(
    ("arguments", "imported"),
    [
        (["--help"], []),
        (["validate", "puzzle_specs/soma.yaml"], []),
        (["run", "puzzle_specs/tiles_bugs_3x3.yaml"], ["numba"]),
        (["run", "puzzle_specs/tiles_bugs_3x3.yaml", "--engine", "cpsat"], ["ortools"]),
        (["run", "puzzle_specs/foam_colours.yaml"], ["numba"]),
        (["run", "puzzle_specs/snake_standard.yaml", "--engine", "cpsat"], ["ortools"]),
        (["run", "puzzle_specs/soma.yaml"], ["numba"]),
        (["run", "puzzle_specs/snake_standard.yaml"], ["numba"]),
    ],
)
def test_only_the_engine_that_runs_is_imported(arguments: list[str], imported: list[str]) -> None:
    """On numba's kernels (CPSOLVE_NATIVE=0): with their ahead-of-time build numba is not imported
    at all (tests/test_native.py)."""
    engines = ["numba", "ortools", "xcover"]
    assert sorted({name.split(".")[0] for name in imported_by(arguments, engines, {"CPSOLVE_NATIVE": "0"})}) == imported


def test_the_commands_listing_imports_no_model() -> None:
    """`cpsolve --help` lists the commands without making the run request's options: neither
    pydantic nor the options, the engines or the models are imported (start-up)."""
    watched = ["pydantic", "cpsolve.options", "cpsolve.engines", "cpsolve.models", "numpy"]
    assert imported_by(["--help"], watched) == []
    assert "cpsolve.options" in imported_by(["run", "--help"], watched)


FORMAT_MODULES = ["yaml", *(f"cpsolve.formats.{name}" for name in ("yaml_spec", "yass", "ct9", "burrtools"))]


@pytest.mark.parametrize(
    ("command", "corpus", "name", "imported"),
    [
        ("run", "burrtools", "CubeInCage.xmpuzzle", ["cpsolve.formats.burrtools"]),
        ("run", None, "soma.yaml", ["cpsolve.formats.yaml_spec", "yaml"]),
        ("run", "yass", "figures/003_dog.soma", ["cpsolve.formats.yass"]),
        ("validate", "9piece", "demopuzzle.txt", ["cpsolve.formats.ct9"]),
    ],
)
def test_a_run_imports_only_the_format_it_reads(
    command: str, corpus: str | None, name: str, imported: list[str]
) -> None:
    """Each format's reader is imported when a file of it is read (formats.Deferred): yaml's import
    alone was a thirtieth of a small BurrTools run's whole process."""
    path = (SPECS if corpus is None else corpus_dir(corpus)) / name
    found = imported_by([command, str(path)], FORMAT_MODULES)
    assert sorted(module for module in found if module in FORMAT_MODULES) == sorted(imported)


def test_every_format_names_functions_its_module_has() -> None:
    for fmt in formats.FORMATS:
        for function in (fmt.read, fmt.sniff, fmt.recognise):
            if isinstance(function, formats.Deferred):
                assert callable(function.resolve()), (fmt.name, function)


def test_a_format_is_imported_before_the_clock_starts() -> None:
    """`puzzles` imports the file's format before its clock starts, as a run loads an engine's
    libraries: the import is no part of `seconds` (5 ms of a small BurrTools problem's)."""
    probe = (
        "import sys, time, types; import cpsolve.formats as formats; ticks = []; clock = time.perf_counter\n"
        "def tick():\n    ticks.append('cpsolve.formats.burrtools' in sys.modules); return clock()\n"
        "formats.time = types.SimpleNamespace(perf_counter=tick)\n"
        "formats.puzzles(formats.PuzzleFile.read(sys.argv[1]))\n"
        "print(ticks[0])"
    )
    path = str(corpus_dir("burrtools") / "CubeInCage.xmpuzzle")
    result = subprocess.run([sys.executable, "-c", probe, path], cwd=ROOT, capture_output=True, text=True, check=True)
    assert result.stdout.split() == ["True"]


def test_the_program_runs_numpy_on_one_blas_thread_unless_told() -> None:
    """OpenBLAS's threads spun on the other core at every start (0.1 s of processor time a run):
    the program asks for one, and a number the user set is kept."""
    from cpsolve.entry import one_blas_thread

    chosen = {"OPENBLAS_NUM_THREADS": "4"}
    one_blas_thread(chosen)
    assert chosen == {"OPENBLAS_NUM_THREADS": "4"}
    # the run's job thread has ended when the report is printed, but its OS thread may still be
    # leaving on a busy machine: the probe waits for it (OpenBLAS's threads never leave)
    probe = (
        "import atexit, os, sys, time\n"
        "def threads():\n"
        "    until = time.monotonic() + 10\n"
        "    while len(os.listdir('/proc/self/task')) > 1 and time.monotonic() < until:\n"
        "        time.sleep(0.01)\n"
        "    print(len(os.listdir('/proc/self/task')))\n"
        "atexit.register(threads)\n"
        "sys.argv = ['cpsolve', 'run', 'puzzle_specs/soma.yaml', '--json']\n"
        "from cpsolve.entry import main\n"
        "main()\n"
    )
    environment = {name: value for name, value in os.environ.items() if name != "OPENBLAS_NUM_THREADS"}
    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True, env=environment
    )
    assert result.stdout.splitlines()[-1] == "1", "threads at exit"


def test_the_program_asks_pydantic_for_no_plugins_unless_told() -> None:
    """Looking for pydantic's plugins reads every installed distribution's metadata at start-up:
    the program looks for none, unless the user named which to leave out."""
    from cpsolve.entry import no_pydantic_plugins

    chosen = {"PYDANTIC_DISABLE_PLUGINS": "logfire"}
    no_pydantic_plugins(chosen)
    assert chosen == {"PYDANTIC_DISABLE_PLUGINS": "logfire"}
    unset: dict[str, str] = {}
    no_pydantic_plugins(unset)
    assert unset == {"PYDANTIC_DISABLE_PLUGINS": "__all__"}
    probe = (
        "import sys\n"
        "from pydantic.plugin import _loader\n"
        "sys.argv = ['cpsolve', 'run', 'puzzle_specs/soma.yaml', '--json']\n"
        "from cpsolve.entry import main\n"
        "try:\n"
        "    main()\n"
        "finally:\n"
        "    print(_loader._plugins is None)\n"
    )
    environment = {name: value for name, value in os.environ.items() if name != "PYDANTIC_DISABLE_PLUGINS"}
    result = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, env=environment)
    assert result.stdout.splitlines()[-1] == "True", "the plugins were looked for"


def test_a_run_on_the_walk_or_exact_cover_never_asks_for_constraints(monkeypatch: pytest.MonkeyPatch) -> None:
    from cpsolve.models.chain import ChainModel
    from cpsolve.models.packing import PackingModel
    from cpsolve.models.tiles import TilesModel

    def refuse(self: object) -> None:
        raise AssertionError("constraints built for an engine that does not use them")

    monkeypatch.setattr(ChainModel, "constraints", refuse)
    monkeypatch.setattr(PackingModel, "constraints", refuse)
    monkeypatch.setattr(TilesModel, "constraints", refuse)
    assert checked_run(SPECS / "tiles_frame_4x4.yaml", RunOptions(show=0)).engine == "tiles-dfs"
    assert checked_run(SPECS / "snake_king.yaml", RunOptions(show=0)).engine == "chain-dfs"
    assert checked_run(SPECS / "soma.yaml", RunOptions(show=0)).engine == "exact-cover"


# -- formats ------------------------------------------------------------------------------------


def test_formats_are_chosen_by_suffix_and_where_it_is_shared_by_content(tmp_path: Path) -> None:
    assert formats.format_for("a.soma").name == "yass"
    assert formats.format_for("a.YML").name == "yaml"
    assert formats.format_for("a.spec").name == "yaml"  # any other suffix: a YAML spec
    tiles = tmp_path / "tiles.txt"
    tiles.write_text("1 -1 2 -2\n" * 9)
    words = tmp_path / "words.txt"
    words.write_text("name: words\npieces:\n  I: {box: [2, 1]}\ntarget: {box: [2, 1]}\n")
    assert formats.format_for(words).name == "ct9"  # the only .txt format takes every .txt
    other = FileFormat("other-txt", (".txt",), load_spec, sniff=lambda head: head.startswith(b"name:"))
    known = (*formats.FORMATS, other)
    assert formats.format_for(tiles, known).name == "ct9"
    assert formats.format_for(words, known).name == "other-txt"
    (puzzle,) = formats.puzzles(formats.PuzzleFile.read(words), known=known)
    assert run(puzzle, RunOptions(show=0)).counts.raw == 1
    assert formats.format_for(words).name == "ct9"  # the registry itself is unchanged


# -- families ------------------------------------------------------------------------------------


def test_a_family_added_on_a_registry_runs_through_every_layer() -> None:
    """One module (tests/row_family.py) and a registry that holds it: read, built, run on CP-SAT,
    counted with the orbit-stabiliser check, reported and put in a picture's scene."""
    families = FAMILIES.with_family(row_family.FAMILY)
    file = formats.PuzzleFile("row.yaml", b"kind: row\nlength: 6\n")
    (puzzle,) = formats.puzzles(file, formats.ReadOptions(families=families))
    collected = ClassCollector()
    report = run(puzzle, RunOptions(show=1), on_new_class=collected)
    # 13 fillings of 6 cells with 1s and 2s, 5 of them palindromes: (13 + 5) / 2 classes
    assert (report.counts.raw, report.counts.unique, report.kind) == (13, 9, "row")
    assert report.complete and not report.identity_problems and report.engine == "cpsat"
    drawn = scene(report, collected)
    assert drawn["drawing"] == "row" and len(drawn["solutions"]) == 9
    with pytest.raises(CpsolveError, match="--disassemble takes packing puzzles"):
        run(puzzle, RunOptions(disassemble=True))
    with pytest.raises(CpsolveError, match="unknown kind 'row'"):
        formats.puzzles(file)  # the default registry does not know it, and is unchanged
    assert "RowSpec" in json.dumps(families.schema()) and "RowSpec" not in json.dumps(FAMILIES.schema())


# -- parts ---------------------------------------------------------------------------------------


def test_parts_run_in_this_process_where_fork_is_not_available(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(workers, "fork_available", lambda: False)
    soma = read_puzzle(SPECS / "soma.yaml")
    puzzle = soma.model()[0]
    breaking = choose_breaking(puzzle.group, puzzle.breaking_candidates)
    prepared = CpSatEngine().prepare(puzzle, breaking)
    units = parts.units_of(prepared, soma.file, None, prepared.part_keys(2), SearchOptions(), BuildOptions())
    enumeration = parts.PartsEnumeration(prepared, units, workers.workers_for(None, 2), SearchOptions())
    assert enumeration.workers == 1
    assert len(list(enumeration)) == 240 and enumeration.complete
    report = checked_run(SPECS / "soma.yaml", RunOptions(show=0, engine="cpsat", workers=2))
    assert (report.counts.unique, report.workers) == (240, 1)


def test_the_decision_strategy_and_the_breaking_are_added_once() -> None:
    puzzle = built(SPECS / "snake_standard.yaml")
    breaking = choose_breaking(puzzle.group, puzzle.breaking_candidates)
    prepared = CpSatEngine().prepare(puzzle, breaking)
    assert isinstance(prepared, CpSatPrepared)
    constraints = len(prepared.model.proto.constraints)
    for key in prepared.part_keys(2):
        assert sum(1 for _ in prepared.enumerate(SearchOptions(), part=key)) >= 0
    list(prepared.enumerate(SearchOptions()))
    list(prepared.enumerate(SearchOptions(guided=False)))
    assert len(prepared.model.proto.constraints) == constraints  # parts ran on clones
    assert len(prepared.model.proto.search_strategy) == 1
    assert len(prepared.model_for(False).proto.search_strategy) == 0
    assert len(prepared.model_for(False).proto.constraints) == constraints


def test_a_missing_corpus_or_peer_fails_under_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(conftest, "IN_CI", True)
    with pytest.raises(pytest.fail.Exception, match="CI=true needs it"):
        conftest.absent("corpus /nowhere is absent")
    monkeypatch.setattr(conftest, "IN_CI", False)
    with pytest.raises(pytest.skip.Exception):
        conftest.absent("corpus /nowhere is absent")
