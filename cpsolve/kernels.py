"""Every compiled kernel called once, for `cpsolve compile` to record and build (cpsolve.native),
and cpsolve's modules byte-compiled, the other thing that command makes ahead of time.

Here, above the engines and the census, because it reaches all of them: the installed numba
engines', the frontier counter's, the census walk's, and the kernels that are not an engine's (the
disassembler's, the placement finder's, the one that maps placements under the symmetries and the
classifier's orbits).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from pathlib import Path

from cpsolve.engines import DEFAULT, Engine, Engines
from cpsolve.engines.frontier import FrontierEngine


def load_every_kernel(engines: Engines = DEFAULT, say: Callable[[str], None] | None = None) -> None:
    """Call every compiled kernel in every variant a run may call, saying which as it goes
    (`say`: numba compiles each as it is first called, half a minute to a few minutes in all).
    Each engine is a new instance, as the registry's may have loaded already (and would then call
    nothing)."""
    from cpsolve.census.chains import load_compiled_census
    from cpsolve.counting.classes import load_compiled_orbits
    from cpsolve.design.check import load_compiled_cut_check
    from cpsolve.disassembly import Disassembler
    from cpsolve.models.packing.placements import load_compiled_fitting
    from cpsolve.models.packing.symmetries import load_compiled_images

    steps: list[tuple[str, Callable[[], None]]] = [
        (f"the {engine.name} engine", functools.partial(_every_variant, engine))
        for engine in engines
        if engine.required_module == "numba" and engine.installed()
    ]
    steps += [
        ("the frontier counter", FrontierEngine().load),
        ("the disassembler", Disassembler(compiled=True).load),
        ("the placement finder", load_compiled_fitting),
        ("the symmetry images", load_compiled_images),
        ("the classifier's orbits", load_compiled_orbits),
        ("the census walk", load_compiled_census),
        ("the design search's cut check", load_compiled_cut_check),
    ]
    started = time.perf_counter()
    for number, (what, load) in enumerate(steps, 1):
        if say is not None:
            say(f"kernels of {what} ({number} of {len(steps)}, {time.perf_counter() - started:.0f} s so far)")
        load()


def _every_variant(engine: Engine) -> None:
    """Load a new instance of the engine's type with every variant of its kernels."""
    type(engine)().load(every_variant=True)


def byte_compile_modules() -> tuple[list[Path], bool]:
    """Write the bytecode of cpsolve's own modules (compileall; those up to date are left alone),
    so that a process starts without compiling them from source. pip writes it for a regular
    install; an editable one (as this project's set-up makes) gets it only when Python may write
    it at import, and under PYTHONDONTWRITEBYTECODE (as on this project's machines) never: every
    `cpsolve run` then compiled each module it imported (a whole `cpsolve run` of CubeInCage 0.42
    -> 0.30 s: docs/measurements.md, start-up). Returns the folders and whether every module was
    written (a folder the user may not write is left as it is)."""
    import compileall

    import cpsolve
    import cpsolve.models

    folders = [Path(entry) for entry in dict.fromkeys([*cpsolve.__path__, *cpsolve.models.__path__])]
    written = [compileall.compile_dir(str(entry), quiet=2) for entry in folders]
    return folders, all(written)
