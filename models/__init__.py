"""The puzzle families, one module each, and their registry: a family's record says everything
the rest of cpsolve asks of it (spec class, model builder, scene, drawing, capabilities).

`FAMILIES` is built once and never changed; `with_family` makes a new registry (a test family is
run that way, through a format's `ReadOptions.families`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Final

from cpsolve.errors import CpsolveError, ModelTooBigError
from cpsolve.limits import NO_DEADLINE, Deadline
from cpsolve.spec import LoadedSpec, Source, SpecBase, json_schema, validate_data

from . import chain, packing, tiles
from .base import (
    BuildOptions,
    ChainWalk,
    Constraints,
    ConstraintsBuilder,
    CoverProblem,
    EdgeMatching,
    Family,
    ModelBuilder,
    PuzzleModel,
    SceneMaker,
    negated,
    side_neighbours,
)


class Families:
    """The families cpsolve knows, by `kind`."""

    def __init__(self, families: Sequence[Family]) -> None:
        self.by_kind: Mapping[str, Family] = {family.kind: family for family in families}

    def __iter__(self) -> Iterator[Family]:
        return iter(self.by_kind.values())

    def with_family(self, family: Family) -> Families:
        return Families([*self.by_kind.values(), family])

    def of(self, kind: str) -> Family:
        if kind not in self.by_kind:
            raise CpsolveError(f"unknown kind {kind!r}; expected one of {', '.join(self.by_kind)}")
        return self.by_kind[kind]

    @property
    def spec_kinds(self) -> dict[str, type[SpecBase]]:
        return {kind: family.spec for kind, family in self.by_kind.items()}

    def validate(self, data: Any, source: Source) -> SpecBase:
        """A spec of any of these families from parsed data (see cpsolve.spec.validate_data)."""
        return validate_data(data, source, self.spec_kinds)

    def schema(self) -> dict[str, Any]:
        """The JSON Schema of every family's spec (`cpsolve schema`)."""
        return json_schema(self.spec_kinds)

    def build(self, loaded: LoadedSpec, options: BuildOptions, deadline: Deadline = NO_DEADLINE) -> PuzzleModel:
        """The solver-neutral model of a loaded spec, by its family's builder; the model knows its
        family. A limit reached while building is reported with the file's name in front, like
        every other problem with a file."""
        family = self.of(loaded.spec.kind)
        try:
            model = family.builder.build(loaded, options, deadline)
        except ModelTooBigError as error:
            message, path = str(error), loaded.source.path
            raise ModelTooBigError(message if message.startswith(path) else f"{path}: {message}") from None
        model.family = family
        return model


FAMILIES: Final = Families([packing.FAMILY, chain.FAMILY, tiles.FAMILY])


def build_model(loaded: LoadedSpec, options: BuildOptions, deadline: Deadline = NO_DEADLINE) -> PuzzleModel:
    """The model of a loaded spec of one of cpsolve's own families."""
    return FAMILIES.build(loaded, options, deadline)


__all__ = [
    "FAMILIES",
    "BuildOptions",
    "ChainWalk",
    "Constraints",
    "ConstraintsBuilder",
    "CoverProblem",
    "EdgeMatching",
    "Families",
    "Family",
    "ModelBuilder",
    "PuzzleModel",
    "SceneMaker",
    "build_model",
    "negated",
    "side_neighbours",
]
