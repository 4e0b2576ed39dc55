"""One run request, stated once: how to run a puzzle (`Options`) and what to write of it once it
is done (`Outputs`). The library (`cpsolve.start`, `cpsolve.solve`), the command line
(`--max-solutions` is `max_solutions`; cpsolve.cli_options makes every option, its help, bounds
and metavar from these fields) and the studio's HTTP API (its job request is typed with
`Options`, so its OpenAPI page shows every field with its bounds) take the same names, checked by
these models: a value refused in one is refused in all with the same one-line message.

`Options.run_options()` turns the options into what a run works with (`RunOptions`: megabytes as
bytes, the search's and the model's own option groups, the registry of engines).

This module is light (pydantic and the limits): the command line builds its options from it
before it knows which puzzle it runs; the engines' registry is imported only where an engine's
name is checked or a run's options are made.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from cpsolve.choices import AUTO, CountOrder
from cpsolve.errors import CpsolveError, printable
from cpsolve.limits import (
    DEFAULT_MAX_ATOMS,
    DEFAULT_MAX_CLASS_BYTES,
    DEFAULT_MAX_CLASS_MB,
    DEFAULT_MAX_DISASSEMBLY_POSITIONS,
    DEFAULT_MAX_FILE_BYTES,
    DEFAULT_MAX_FILE_MB,
    DEFAULT_MAX_TERMS,
    DEFAULT_UNIT_MM,
    MAX_UNIT_MM,
    MAX_WORKERS,
    MIN_UNIT_MM,
    MOST_FILE_MB,
    MOST_MEMORY_MB,
    MOST_SECONDS,
)

if TYPE_CHECKING:
    from cpsolve.engines import Engines
    from cpsolve.engines.base import SearchOptions
    from cpsolve.models import BuildOptions

# image formats --png writes, by the file's suffix
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", "")


def _cli(metavar: str) -> dict[str, Any]:
    """What only the command line needs of a field: the word that stands for its value in the help."""
    return {"metavar": metavar}


class OptionError(CpsolveError, ValueError):
    """An option's value refused: one line naming the option as the library and the command line
    spell it, the value, and what was expected."""


class Request(BaseModel):
    """What both halves of a run request share: strict (a number is not taken from text), frozen,
    nothing unknown, no infinities."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, allow_inf_nan=False)

    @classmethod
    def of(cls, values: dict[str, Any]) -> Any:
        """The model from keyword values, or OptionError naming the first one refused."""
        try:
            return cls(**values)
        except ValidationError as error:
            raise OptionError(describe(error.errors(), known=cls.model_fields)) from None


class Options(Request):
    """How to run a puzzle. Every field is an option of `cpsolve run` (`--` and dashes for
    underscores) and a keyword of `cpsolve.start` and `cpsolve.solve`."""

    first: bool = Field(default=False, description="stop at the first solution (all cores)")
    time_limit: float | None = Field(
        default=None,
        ge=0,
        le=MOST_SECONDS,
        description="seconds for the whole run: reading, the model, the search, the classes, the outputs"
        " (unset: no limit)",
        json_schema_extra=_cli("SECONDS"),
    )
    max_solutions: int | None = Field(
        default=None,
        ge=1,
        description="stop after this many unique solutions (unset: all)",
        json_schema_extra=_cli("N"),
    )
    show: int | None = Field(
        default=None,
        ge=0,
        description="draw this many unique solutions as text (unset: 1; all for a c't .txt)",
        json_schema_extra=_cli("N"),
    )
    guided: bool = Field(default=True, description="CP-SAT: branch on placements in target cell order")
    symmetry_breaking: bool = Field(
        default=True, description="enumerate about one solution per class (off: every raw solution, for checking)"
    )
    engine: str = Field(
        default=AUTO,
        description="the engine: one that `cpsolve engines` lists, or auto (the first installed one that takes"
        " the puzzle)",
        json_schema_extra=_cli("NAME"),
    )
    workers: int = Field(
        default=0,
        ge=0,
        le=MAX_WORKERS,
        description="processes (or threads), each solving disjoint parts with one engine thread; a search"
        " estimated short begins on one and is shared once it proves long; 0: every core for a search big"
        " enough to gain from them, else 1",
        json_schema_extra=_cli("N"),
    )
    problem: str | None = Field(
        default=None,
        description="which problem of a file of several: a number from 0 or a name (unset: every one)",
        json_schema_extra=_cli("N|NAME"),
    )
    cluster: str | None = Field(
        default=None,
        description="run the parts on a Dask scheduler (tcp://host:8786), or `local`",
        json_schema_extra=_cli("ADDRESS"),
    )
    checkpoint: Path | None = Field(
        default=None,
        description="record finished parts in this file; run again to resume",
        json_schema_extra=_cli("FILE"),
    )
    disassemble: bool = Field(
        default=False,
        description="take each unique assembly apart: how many come apart, their levels and plans;"
        " `first` and `max_solutions` then count assemblies that come apart",
    )
    max_positions: int = Field(
        default=DEFAULT_MAX_DISASSEMBLY_POSITIONS,
        ge=1,
        description="`disassemble`: positions looked at per assembly before it is called undecided",
        json_schema_extra=_cli("N"),
    )
    max_memory: int = Field(
        default=DEFAULT_MAX_CLASS_MB,
        ge=1,
        le=MOST_MEMORY_MB,
        description="MB the solutions kept for counting may take; the run stops there with what it counted",
        json_schema_extra=_cli("MB"),
    )
    count_only: bool = Field(
        default=False,
        description="count without listing: nothing kept or shown, the classes by Burnside's lemma (packings"
        " whose pieces repeat: on the frontier counter; others listed and tallied)",
    )
    count_order: CountOrder = Field(
        default="fill",
        description="`count_only` on the frontier: the order of the cells",
        json_schema_extra=_cli("fill|reverse|across"),
    )
    max_placements: int = Field(
        default=DEFAULT_MAX_ATOMS, ge=1, description="refuse models with more placements", json_schema_extra=_cli("N")
    )
    max_terms: int = Field(
        default=DEFAULT_MAX_TERMS,
        ge=1,
        description="refuse constraints with more literals in all",
        json_schema_extra=_cli("N"),
    )
    max_file_size: float = Field(
        default=DEFAULT_MAX_FILE_MB,
        ge=0.001,
        le=MOST_FILE_MB,
        description="refuse puzzle files larger than this many MB",
        json_schema_extra=_cli("MB"),
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
        from cpsolve.engines import DEFAULT

        names = DEFAULT.names()
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

    def run_options(self, engines: Engines | None = None) -> RunOptions:
        """What a run works with; `engines`: the registry to choose from."""
        from cpsolve.engines import DEFAULT
        from cpsolve.engines.base import SearchOptions
        from cpsolve.models import BuildOptions

        return RunOptions(
            search=SearchOptions(self.time_limit, self.max_solutions, self.first, self.guided),
            build=BuildOptions(max_atoms=self.max_placements, max_terms=self.max_terms),
            show=self.show,
            symmetry_breaking=self.symmetry_breaking,
            engine=self.engine,
            engines=engines or DEFAULT,
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


class Outputs(Request):
    """What to write of a run once it is done (or as it goes: the solutions file). Every field is
    an option of `cpsolve run`; a finished run's outcome writes them (cpsolve.outcome), for the
    command line and the library's Result alike."""

    solutions: Path | None = Field(
        default=None, description="write each unique solution as a JSON line", json_schema_extra=_cli("FILE")
    )
    html: Path | None = Field(
        default=None,
        description="write a page that shows the unique solutions in 3-D (one file, opens from disk)",
        json_schema_extra=_cli("FILE"),
    )
    png: Path | None = Field(
        default=None,
        description="write a picture of a solution: the first, or the one `solution` names (.png, or .jpg for JPEG)",
        json_schema_extra=_cli("FILE"),
    )
    solution: int | None = Field(
        default=None,
        ge=1,
        description="which unique solution `png` and `stl` draw, from 1 (unset: `show`'s last, or 1)",
        json_schema_extra=_cli("N"),
    )
    explode: bool = Field(
        default=False,
        description="`png`: the pieces drawn pushed apart, as the page's explode slider at its end (what a cage holds"
        " in view)",
    )
    stl: Path | None = Field(
        default=None,
        description="write each piece of the first solution (or the one `solution` names) as an STL file in this"
        " folder",
        json_schema_extra=_cli("FOLDER"),
    )
    stl_unit: float = Field(
        default=DEFAULT_UNIT_MM,
        ge=MIN_UNIT_MM,
        le=MAX_UNIT_MM,
        description="`stl`: millimetres to a cell: a cube's side, a ball's diameter, a prism's edge",
        json_schema_extra=_cli("MM"),
    )
    stl_gap: float = Field(
        default=0.0,
        ge=0,
        le=MAX_UNIT_MM,
        description="`stl`: millimetres between neighbouring pieces (each shrinks by half)",
        json_schema_extra=_cli("MM"),
    )
    stl_bevel: float = Field(
        default=0.0,
        ge=0,
        le=MAX_UNIT_MM,
        description="`stl`: millimetres cut off each outer edge of a cube, at 45 degrees",
        json_schema_extra=_cli("MM"),
    )
    xmpuzzle: Path | None = Field(
        default=None,
        description="write the puzzle and its unique solutions as a BurrTools file",
        json_schema_extra=_cli("FILE"),
    )

    @field_validator("solutions", "html", "png", "stl", "xmpuzzle", mode="before")
    @classmethod
    def _as_path(cls, value: Any) -> Any:
        return Path(value) if isinstance(value, str) else value

    @field_validator("png")
    @classmethod
    def _image_format(cls, value: Path | None) -> Path | None:
        if value is not None and value.suffix.lower() not in IMAGE_SUFFIXES:
            raise ValueError(f"expected a .png (or .jpg, JPEG) file, not {value.suffix}")
        return value

    @field_validator("stl_unit", "stl_gap", "stl_bevel", mode="before")
    @classmethod
    def _finite_size(cls, value: Any) -> Any:
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError("expected a finite number")
        return value

    def files(self) -> list[tuple[str, Path]]:
        """The files asked for (not --stl's folder), each with the flag that names it."""
        named = (("html", self.html), ("png", self.png), ("xmpuzzle", self.xmpuzzle), ("solutions", self.solutions))
        return [(flag(name), path) for name, path in named if path is not None]

    def one_problem(self) -> list[str]:
        """The outputs that draw one problem's solutions (refused for a file of several without
        --problem), as the library names them."""
        return [name for name in ("xmpuzzle", "html", "png", "stl") if getattr(self, name) is not None]

    def listed(self) -> list[str]:
        """The outputs that need the solutions listed (refused with --count-only)."""
        return [name for name in ("solutions", "html", "png", "xmpuzzle", "stl") if getattr(self, name) is not None]

    @property
    def wanted(self) -> bool:
        """Whether anything is to be written once the run is done."""
        return any(getattr(self, name) is not None for name in ("html", "png", "stl", "xmpuzzle"))


class RunRequest(Request):
    """A whole run request: its options and its outputs, checked against each other."""

    options: Options = Field(default_factory=Options)
    outputs: Outputs = Field(default_factory=Outputs)

    @model_validator(mode="after")
    def _listed_outputs(self) -> RunRequest:
        listed = self.outputs.listed() + (["show"] if self.options.show else [])
        if self.options.count_only and listed:
            name = listed[0]
            raise ValueError(f"option {name} ({flag(name)}) needs the solutions listed; leave out --count-only")
        return self

    @classmethod
    def split(cls, values: dict[str, Any]) -> RunRequest:
        """The request from one set of keyword values, each the field of Options or of Outputs it
        names (as the command line gives them), or OptionError naming the first one refused."""
        options = {name: value for name, value in values.items() if name in Options.model_fields}
        outputs = {name: value for name, value in values.items() if name in Outputs.model_fields}
        unknown = [name for name in values if name not in options and name not in outputs]
        if unknown:
            raise OptionError(f"unknown option {printable(unknown[0])!r}; known: {', '.join(known_names())}")
        request: RunRequest = cls.of({"options": Options.of(options), "outputs": Outputs.of(outputs)})
        return request


def known_names() -> list[str]:
    """Every field of a run request, as the library spells it."""
    return [*Options.model_fields, *Outputs.model_fields]


def _search_options() -> SearchOptions:
    from cpsolve.engines.base import SearchOptions

    return SearchOptions()


def _build_options() -> BuildOptions:
    from cpsolve.models import BuildOptions

    return BuildOptions()


def _default_engines() -> Engines:
    from cpsolve.engines import DEFAULT

    return DEFAULT


def _default(name: str) -> Any:
    """A run option's default, as `Options` states it (one statement for the library and a run)."""
    return Options.model_fields[name].default


@dataclass(frozen=True)
class RunOptions:
    """What a run works with, made from Options (`Options.run_options`): the search's and the
    model's option groups, sizes in bytes, the registry of engines. Its defaults are Options'.
    Tests and internal callers make it directly; people give Options."""

    search: SearchOptions = field(default_factory=_search_options)
    build: BuildOptions = field(default_factory=_build_options)
    show: int | None = _default("show")  # how many classes to draw; None: the file format's default
    symmetry_breaking: bool = _default("symmetry_breaking")
    engine: str = _default("engine")  # a name from the registry `engines`, or auto
    engines: Engines = field(default_factory=_default_engines)  # the engines to choose from (tests add one)
    workers: int = _default("workers")  # > 1: parts in that many processes (cpsolve.parts); 0: the engine's choice
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES  # run_file: refuse larger files (max_file_size's default)
    problem: str | None = _default("problem")  # run_file: which problem of a file of several
    cluster: str | None = _default("cluster")  # parts on a Dask scheduler's address, or `local` (cpsolve.workers)
    checkpoint: Path | None = _default("checkpoint")  # noqa: RUF009  (None, as Options states) finished parts kept there
    disassemble: bool = _default("disassemble")  # take each unique assembly apart; packings only
    max_disassembly_positions: int = _default("max_positions")  # per assembly
    max_class_bytes: int = DEFAULT_MAX_CLASS_BYTES  # what the classes kept may take (max_memory's default)
    count_only: bool = _default("count_only")  # count without listing; nothing is kept or shown
    count_order: CountOrder = _default("count_order")  # noqa: RUF009  (a str, as Options states) the frontier's order

    @property
    def limited(self) -> bool:
        """Whether the run stops at a number of solutions (--first, --max-solutions)."""
        return self.search.first_only or self.search.max_solutions is not None

    @property
    def as_units(self) -> bool:
        """Whether the parts must be units of their own (a cluster's tasks, a checkpoint's lines)."""
        return self.cluster is not None or self.checkpoint is not None


def flag(name: str) -> str:
    """The command line's spelling of an option."""
    return "--" + name.replace("_", "-")


UNBOUNDED = 1e9  # an upper bound this high is no bound a user needs to read
BOUND_ERRORS = ("greater_than_equal", "less_than_equal", "greater_than", "less_than")


def bounds(info: Any) -> tuple[float | None, float | None]:
    """A field's least and greatest value (pydantic's ge and le), where it states them."""
    low = high = None
    for rule in info.metadata:
        low = getattr(rule, "ge", low)
        high = getattr(rule, "le", high)
    return low, high


def bounds_text(info: Any) -> str:
    """`at least 1`, `0 to 4096`: a field's bounds as the help and the refusals say them ('' where
    it has none)."""
    low, high = bounds(info)

    def number(value: float) -> str:
        return f"{value:g}" if isinstance(value, float) else str(value)

    if low is not None and (high is None or high >= UNBOUNDED):
        return f"at least {number(low)}"
    if low is not None and high is not None:
        return f"{number(low)} to {number(high)}"
    return "" if high is None else f"at most {number(high)}"


def field_info(name: str) -> Any:
    """A field of the run request (pydantic's FieldInfo), or None."""
    return Options.model_fields.get(name) or Outputs.model_fields.get(name)


def describe(errors: Sequence[Mapping[str, Any]], known: Any = None, skip: int = 0) -> str:
    """One line for the first refused option: its two spellings, the value given, what was
    expected (`skip`: the leading parts of its location that name no option, as a web request's
    `body`); a value out of bounds says the bounds as the help says them."""
    first = errors[0]
    location = [str(part) for part in first["loc"][skip:] if not isinstance(part, int)]
    if location[:1] in (["options"], ["outputs"]):
        location = location[1:]
    name = location[0] if location else "options"
    if first["type"] == "extra_forbidden":
        names = ", ".join(known or known_names())
        return f"unknown option {printable(name)!r}; known: {names}"
    expected = str(first["msg"]).removeprefix("Value error, ")
    if not location:  # a rule between fields (count_only with html): its message names them
        return expected
    expected = expected[0].lower() + expected[1:] if expected else "another value"
    info = field_info(name)
    if first["type"] in BOUND_ERRORS and info is not None and bounds_text(info):
        expected = f"expected {bounds_text(info)}"
    given = printable(_shown(first.get("input")))[:200]
    return f"option {name} ({flag(name)}) = {given}: {expected}"


def _shown(value: Any) -> str:
    """A value as a person typed it: 3.0 and 3 alike (the command line reads a number as a float
    where the library may be given an int), a path as it is written, other text quoted."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    if isinstance(value, Path):
        return str(value)
    return repr(value)
