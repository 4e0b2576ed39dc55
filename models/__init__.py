"""Model builders, one module per puzzle family, registered by the spec `kind` they build."""

from __future__ import annotations

from cpsolve.errors import ModelTooBigError
from cpsolve.limits import NO_DEADLINE, Deadline
from cpsolve.spec import LoadedSpec

from .base import (
    BuildOptions,
    ChainWalk,
    Constraints,
    ConstraintsBuilder,
    CoverProblem,
    ModelBuilder,
    PuzzleModel,
    negated,
)
from .chain import ChainBuilder
from .packing import PackingBuilder
from .tiles import TilesBuilder

BUILDERS: dict[str, ModelBuilder] = {
    builder.kind: builder for builder in (PackingBuilder(), ChainBuilder(), TilesBuilder())
}


def build_model(loaded: LoadedSpec, options: BuildOptions, deadline: Deadline = NO_DEADLINE) -> PuzzleModel:
    """The solver-neutral model of a loaded spec, by the builder registered for its kind.

    A limit reached while building is reported with the file's name in front, like every
    other problem with a file.
    """
    try:
        return BUILDERS[loaded.spec.kind].build(loaded, options, deadline)
    except ModelTooBigError as error:
        message, path = str(error), loaded.source.path
        raise ModelTooBigError(message if message.startswith(path) else f"{path}: {message}") from None


__all__ = [
    "BUILDERS",
    "BuildOptions",
    "ChainWalk",
    "Constraints",
    "ConstraintsBuilder",
    "CoverProblem",
    "ModelBuilder",
    "PuzzleModel",
    "build_model",
    "negated",
]
