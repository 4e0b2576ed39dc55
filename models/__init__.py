"""Model builders, one module per puzzle family, registered by the spec `kind` they build."""

from __future__ import annotations

from .base import BuildOptions, ChainWalk, ExactCoverRows, ModelBuilder, PuzzleModel
from .chain import ChainBuilder
from .packing import PackingBuilder
from .tiles import TilesBuilder

BUILDERS: dict[str, ModelBuilder] = {
    builder.kind: builder for builder in (PackingBuilder(), ChainBuilder(), TilesBuilder())
}

__all__ = ["BUILDERS", "BuildOptions", "ChainWalk", "ExactCoverRows", "ModelBuilder", "PuzzleModel"]
