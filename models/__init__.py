"""Model builders, one module per puzzle family, registered by the spec `kind` they build."""

from __future__ import annotations

from .base import BuildOptions, ModelBuilder, PuzzleModel
from .chain import ChainBuilder
from .packing import PackingBuilder

BUILDERS: dict[str, ModelBuilder] = {builder.kind: builder for builder in (PackingBuilder(), ChainBuilder())}

__all__ = ["BUILDERS", "BuildOptions", "ModelBuilder", "PuzzleModel"]
