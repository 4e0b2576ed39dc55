"""Every compiled kernel called once, for `cpsolve compile` to record and build (cpsolve.native).

Here, above the engines and the census, because it reaches all of them: the installed numba
engines', the frontier counter's, the census walk's, and the kernels that are not an engine's (the
disassembler's, the placement finder's, the one that maps placements under the symmetries and the
classifier's orbits).
"""

from __future__ import annotations

from cpsolve.engines import DEFAULT, Engines
from cpsolve.engines.frontier import FrontierEngine


def load_every_kernel(engines: Engines = DEFAULT) -> None:
    """Call every compiled kernel in every variant a run may call. Each engine is a new instance,
    as the registry's may have loaded already (and would then call nothing)."""
    from cpsolve.census.chains import load_compiled_census
    from cpsolve.counting.classes import load_compiled_orbits
    from cpsolve.disassembly import Disassembler
    from cpsolve.models.packing.placements import load_compiled_fitting
    from cpsolve.models.packing.symmetries import load_compiled_images

    for engine in engines:
        if engine.required_module == "numba" and engine.installed():
            type(engine)().load(every_variant=True)
    FrontierEngine().load()
    Disassembler(compiled=True).load()
    load_compiled_fitting()
    load_compiled_images()
    load_compiled_orbits()
    load_compiled_census()
