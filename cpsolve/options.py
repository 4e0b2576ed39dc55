"""The options of one run, stated once: the library (`cpsolve.start`, `cpsolve.solve`), the command
line (`--max-solutions` is `max_solutions`) and the studio's HTTP API take the same names, checked
by this one model, so a value refused in one is refused in all with the same one-line message.

`Options` is what a person gives; `Options.run_options()` turns it into what a run works with
(`RunOptions`: megabytes as bytes, the search's and the model's own option groups).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from cpsolve.engines import AUTO, Engines
from cpsolve.engines import DEFAULT as DEFAULT_ENGINES
from cpsolve.engines.base import SearchOptions
from cpsolve.errors import CpsolveError, printable
from cpsolve.limits import (
    DEFAULT_MAX_ATOMS,
    DEFAULT_MAX_CLASS_BYTES,
    DEFAULT_MAX_CLASS_MB,
    DEFAULT_MAX_DISASSEMBLY_POSITIONS,
    DEFAULT_MAX_FILE_BYTES,
    DEFAULT_MAX_FILE_MB,
    DEFAULT_MAX_TERMS,
    MOST_FILE_MB,
    MOST_SECONDS,
)
from cpsolve.models import BuildOptions

FRONTIER = "frontier"  # the frontier counter's name (it takes --count-only runs)
COUNT_ORDERS = ("fill", "reverse", "across")
MOST_MEMORY_MB = 1_000_000


@dataclass(frozen=True)
class RunOptions:
    """What a run works with, made from Options (`Options.run_options`): the search's and the
    model's option groups, sizes in bytes, the registry of engines. Tests and internal callers
    make it directly; people give Options."""

    search: SearchOptions = field(default_factory=SearchOptions)
    build: BuildOptions = field(default_factory=BuildOptions)
    show: int | None = None  # how many classes to draw; None: the file format's default
    symmetry_breaking: bool = True
    engine: str = AUTO  # a name from the registry `engines`, or auto
    engines: Engines = DEFAULT_ENGINES  # the engines to choose from (tests add one with `with_engine`)
    workers: int = 1  # > 1: disjoint parts in that many processes (cpsolve.parts); 0: the engine's default
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES  # run_file: refuse larger files
    problem: str | None = None  # run_file: which problem of a file of several (a number from 0, or a name)
    cluster: str | None = None  # parts on a Dask scheduler's address, or `local` (cpsolve.workers)
    checkpoint: Path | None = None  # finished parts recorded there; a run started again resumes
    disassemble: bool = False  # take each unique assembly apart (cpsolve.disassembly); packings only
    max_disassembly_positions: int = DEFAULT_MAX_DISASSEMBLY_POSITIONS  # per assembly
    max_class_bytes: int = DEFAULT_MAX_CLASS_BYTES  # --max-memory: what the classes (or sub-problems) kept may take
    count_only: bool = False  # count without listing; nothing is kept or shown
    count_order: str = "fill"  # --count-only on the frontier: the fill order, `reverse` or `across` (COUNT_ORDERS)

    @property
    def limited(self) -> bool:
        """Whether the run stops at a number of solutions (--first, --max-solutions)."""
        return self.search.first_only or self.search.max_solutions is not None

    @property
    def as_units(self) -> bool:
        """Whether the parts must be units of their own (a cluster's tasks, a checkpoint's lines)."""
        return self.cluster is not None or self.checkpoint is not None


DEFAULT_RUN_OPTIONS = RunOptions()  # frozen: the default of functions that take RunOptions


class OptionError(CpsolveError, ValueError):
    """An option's value refused: one line naming the option as the library and the command line
    spell it, the value, and what was expected."""


class Options(BaseModel):
    """How to run a puzzle. Every field is an option of `cpsolve run` (`--` and dashes for
    underscores) and a keyword of `cpsolve.start` and `cpsolve.solve`."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, allow_inf_nan=False)

    first: bool = Field(default=False, description="stop at the first solution (all cores)")
    time_limit: float | None = Field(default=None, ge=0, le=MOST_SECONDS, description="seconds for the whole run")
    max_solutions: int | None = Field(default=None, ge=1, description="stop after this many unique solutions")
    show: int | None = Field(default=None, ge=0, description="draw this many unique solutions as text")
    guided: bool = Field(default=True, description="CP-SAT: branch on placements in target cell order")
    symmetry_breaking: bool = Field(default=True, description="enumerate about one solution per class")
    engine: str = Field(default=AUTO, description="an engine from `cpsolve engines`, or auto")
    workers: int = Field(default=0, ge=0, description="processes; 0: every core where a search gains from them")
    problem: str | None = Field(default=None, description="which problem of a file: a number from 0 or a name")
    cluster: str | None = Field(default=None, description="a Dask scheduler's address, or local")
    checkpoint: Path | None = Field(default=None, description="record finished parts there; run again to resume")
    disassemble: bool = Field(default=False, description="take each unique assembly apart")
    max_positions: int = Field(
        default=DEFAULT_MAX_DISASSEMBLY_POSITIONS,
        ge=1,
        description="positions per assembly before undecided",
    )
    max_memory: int = Field(
        default=DEFAULT_MAX_CLASS_MB, ge=1, le=MOST_MEMORY_MB, description="MB the solutions kept for counting may take"
    )
    count_only: bool = Field(default=False, description="count without listing: nothing kept or shown")
    count_order: Literal["fill", "reverse", "across"] = Field(default="fill", description="--count-only's cell order")
    max_placements: int = Field(default=DEFAULT_MAX_ATOMS, ge=1, description="refuse models with more placements")
    max_terms: int = Field(default=DEFAULT_MAX_TERMS, ge=1, description="refuse constraints with more literals in all")
    max_file_size: float = Field(
        default=DEFAULT_MAX_FILE_MB,
        ge=0.001,
        le=MOST_FILE_MB,
        description="refuse larger puzzle files (MB)",
    )

    @field_validator("problem", mode="before")
    @classmethod
    def _problem_as_text(cls, value: Any) -> Any:
        """A problem's number may be given as an int (`problem=1`)."""
        return str(value) if isinstance(value, int) and not isinstance(value, bool) else value

    @field_validator("checkpoint", mode="before")
    @classmethod
    def _checkpoint_as_path(cls, value: Any) -> Any:
        return Path(value) if isinstance(value, str) else value

    @field_validator("time_limit", "max_file_size", mode="before")
    @classmethod
    def _finite(cls, value: Any) -> Any:
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError("expected a finite number")
        return value

    @field_validator("engine")
    @classmethod
    def _known_engine(cls, value: str) -> str:
        names = DEFAULT_ENGINES.names()
        if value not in names:
            raise ValueError(f"expected one of {', '.join(names)}")
        return value

    @field_validator("cluster")
    @classmethod
    def _cluster_address(cls, value: str | None) -> str | None:
        if value is not None:
            from cpsolve.workers import scheduler_address

            try:
                scheduler_address(value)
            except CpsolveError:
                raise ValueError("expected `local` or a Dask scheduler's address, tcp://HOST:PORT") from None
        return value

    @classmethod
    def of(cls, values: dict[str, Any]) -> Options:
        """The options from keyword values, or OptionError naming the first one refused."""
        try:
            return cls(**values)
        except ValidationError as error:
            raise OptionError(describe(error)) from None

    def run_options(self, engines: Engines | None = None) -> RunOptions:
        """What a run works with; `engines`: the registry to choose from."""
        return RunOptions(
            search=SearchOptions(self.time_limit, self.max_solutions, self.first, self.guided),
            build=BuildOptions(max_atoms=self.max_placements, max_terms=self.max_terms),
            show=self.show,
            symmetry_breaking=self.symmetry_breaking,
            engine=self.engine,
            engines=engines or DEFAULT_ENGINES,
            workers=self.workers,
            max_file_bytes=int(self.max_file_size * 2**20),
            problem=self.problem,
            cluster=self.cluster,
            checkpoint=self.checkpoint,
            disassemble=self.disassemble,
            max_disassembly_positions=self.max_positions,
            max_class_bytes=self.max_memory * 2**20,
            count_only=self.count_only,
            count_order=self.count_order,
        )


def flag(name: str) -> str:
    """The command line's spelling of an option."""
    return "--" + name.replace("_", "-")


def describe(error: ValidationError) -> str:
    """One line for the first refused option: its two spellings, the value given, what was expected."""
    first = error.errors()[0]
    name = str(first["loc"][0]) if first["loc"] else "options"
    if first["type"] == "extra_forbidden":
        known = ", ".join(Options.model_fields)
        return f"unknown option {printable(name)!r}; known: {known}"
    given = printable(_shown(first.get("input")))[:60]
    expected = str(first["msg"]).removeprefix("Value error, ")
    expected = expected[0].lower() + expected[1:] if expected else "another value"
    return f"option {name} ({flag(name)}) = {given}: {expected}"


def _shown(value: Any) -> str:
    """A value as a person typed it: 3.0 and 3 alike (the command line reads a number as a float
    where the library may be given an int), text quoted."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return repr(value)
