"""The puzzle spec format (a contract: docs/spec.md) and reading it with errors a user can act on.

A spec is YAML validated by Pydantic. Each family's record (cpsolve.models.FAMILIES) names its
spec class and its `kind`; loading picks the class by `kind` (default `packing`). The classes of
the packing, chain and tiles families live here with the pieces they share; a new family may
define its own in its module. Every problem is reported as one line
`FILE:LINE: field.path: what was expected`, the line taken from the YAML node of that field.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    ValidatorFunctionWrapHandler,
    field_validator,
    model_validator,
)

from cpsolve.errors import SpecError, printable
from cpsolve.geometry import FOAM_SIZE, foam_ring_order
from cpsolve.grids import GRID_NAMES
from cpsolve.limits import MAX_COORDINATE, MAX_COPIES, MAX_LABEL, MAX_SIDE

Coordinate = Annotated[int, Field(ge=-MAX_COORDINATE, le=MAX_COORDINATE)]
Coordinates = Annotated[list[Coordinate], Field(min_length=2, max_length=3)]
Side = Annotated[int, Field(ge=1, le=MAX_SIDE)]
Copies = Annotated[int, Field(ge=0, le=MAX_COPIES)]
Layer = list[str] | str
Stick = Annotated[list[Coordinate], Field(min_length=4, max_length=4)]


class CellRows(list[list[int]]):
    """Cells a reader made from an array (a BurrTools voxel string): the lists a spec holds, made
    from the (n, 3) int64 array in one call, and that array, which validation and the model read
    instead of each cell. Pydantic checked DraculasDentalDesaster's 5,900 cells one number at a
    time on every read, and the model turned each list into a tuple again. Anything else that
    reads a spec sees a list of [x, y, z] lists; a dumped spec holds plain lists."""

    array: Any

    @classmethod
    def of(cls, array: Any) -> CellRows:
        rows = cls(array.tolist())
        rows.array = array
        return rows


def _checked_rows(value: Any) -> bool:
    """Whether `value` is cells a reader made (`CellRows`) that hold what `list[Coordinates]`
    allows, told by array operations; anything else is validated cell by cell, with its errors."""
    if type(value) is not CellRows:
        return False
    array = getattr(value, "array", None)
    if array is None or array.ndim != 2 or array.shape != (len(value), 3) or array.dtype.str != "<i8":
        return False  # the model reads the array as the (n, 3) int64 array it makes of lists
    return not array.size or int(abs(array).max()) <= MAX_COORDINATE


class StrictModel(BaseModel):
    """Unknown keys are errors (with a suggestion), so a typo never silently changes a puzzle."""

    model_config = ConfigDict(extra="forbid")


# The chain and tiles families' classes: pydantic builds their validators when a spec of theirs is
# first read, not at import (2 ms of every packing run's start).
BUILT_AT_FIRST_USE = ConfigDict(extra="forbid", defer_build=True)


class ShapeSpec(StrictModel):
    """A set of unit cells, given exactly one way."""

    cells: list[Coordinates] | None = Field(None, description="cells as [x, y] or [x, y, z]")
    layers: list[Layer] | None = Field(
        None, description="z = 0 first; each layer a list of rows (y = row), '.' or ' ' empty"
    )
    box: Annotated[list[Side], Field(min_length=2, max_length=3)] | None = Field(
        None, description="[x, y] or [x, y, z] size of a box"
    )
    hollow: bool = Field(False, description="with box: only the surface cells (a shell)")
    tile: list[str] | None = Field(
        None, description="a flat 5x5 foam piece: five rows of five, '.' or ' ' empty; the 3x3 centre must be solid"
    )
    ring: str | None = Field(
        None,
        description="a flat 5x5 foam piece with a solid 3x3 centre: its 16 border cells, 1 filled, 0 empty,"
        " clockwise from the top-left corner",
    )
    sticks: list[Stick] | None = Field(
        None,
        description="on an edge grid (sticks, trigs, twigs): straight runs [x1, y1, x2, y2] from one lattice"
        " point to another, each a row of unit segments",
    )

    @field_validator("cells", mode="wrap")
    @classmethod
    def _cells(cls, value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        return value if _checked_rows(value) else handler(value)

    @field_validator("colours", mode="wrap", check_fields=False)  # the pieces' and the target's
    @classmethod
    def _colour_rows(cls, value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        """Colours whose cells are all a reader's rows: the names validated, the rows kept."""
        if not isinstance(value, dict) or not value or not all(map(_checked_rows, value.values())):
            return handler(value)
        names = handler({name: [] for name in value})
        return {name: value[name] for name in names}

    @field_validator("tile")
    @classmethod
    def _foam_tile(cls, rows: list[str] | None) -> list[str] | None:
        if rows is None:
            return None
        if len(rows) != FOAM_SIZE or any(len(row) != FOAM_SIZE for row in rows):
            raise ValueError(f"a foam tile is {FOAM_SIZE} rows of {FOAM_SIZE} characters")
        for y in range(1, FOAM_SIZE - 1):
            for x in range(1, FOAM_SIZE - 1):
                if rows[y][x] in ". ":
                    raise ValueError(f"the 3x3 centre must be solid: row {y + 1}, column {x + 1} is empty")
        return rows

    @field_validator("ring")
    @classmethod
    def _foam_ring(cls, ring: str | None) -> str | None:
        if ring is None:
            return None
        bits = "".join(ring.split())
        if len(bits) != len(foam_ring_order()) or set(bits) - {"0", "1"}:
            raise ValueError(f"a ring is {len(foam_ring_order())} characters 0 or 1, found {bits!r}")
        return bits

    @model_validator(mode="after")
    def _one_way(self) -> ShapeSpec:
        ways = ("cells", "layers", "box", "tile", "ring", "sticks")
        given = [name for name in ways if getattr(self, name) is not None]
        if len(given) != 1:
            raise ValueError(f"give exactly one of {', '.join(ways)} (found {', '.join(given) or 'none'})")
        if self.hollow and self.box is None:
            raise ValueError("hollow applies to box only")
        if self.cells is not None and not self.cells:
            raise ValueError("cells is empty")
        if self.sticks is not None and not self.sticks:
            raise ValueError("sticks is empty")
        if self.cells is not None and len({len(cell) for cell in self.cells}) > 1:
            flat = next(n for n, cell in enumerate(self.cells) if len(cell) != len(self.cells[0]))
            raise ValueError(
                f"cell {flat} is {list(self.cells[flat])} among cells of {len(self.cells[0])} coordinates: give every"
                " cell of a shape as [x, y] (z = 0) or every one as [x, y, z]"
            )
        return self


ColourName = Annotated[str, Field(min_length=1, max_length=40)]
Colours = dict[ColourName, list[Coordinates]]


class PieceSpec(ShapeSpec):
    colours: Colours = Field(
        default={}, description="colour name -> the piece's cells of that colour (the others have none)"
    )
    count: Copies | None = Field(None, ge=1, description="identical copies (default 1)")
    min: Copies | None = Field(None, description="at least this many copies are used")
    max: Copies | None = Field(None, description="at most this many copies are used")
    group: str | None = Field(None, description="name of a group in `groups` this piece counts towards")
    disassembly_groups: dict[str, Copies] = Field(
        default={},
        description="--disassemble: groups whose pieces may stay together when they cannot be taken apart,"
        " with how many copies of this piece each may hold (BurrTools' piece groups)",
    )

    @model_validator(mode="after")
    def _bounds(self) -> PieceSpec:
        if self.count is not None and (self.min is not None or self.max is not None):
            raise ValueError("give count, or min/max, not both")
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError(f"min {self.min} is greater than max {self.max}")
        return self

    def bounds(self) -> tuple[int, int]:
        """(least, most) copies; min alone leaves most open (capped later by the target volume)."""
        if self.count is not None:
            return self.count, self.count
        if self.min is None and self.max is None:
            return 1, 1
        return self.min or 0, self.max if self.max is not None else 10**9


FixedCells = list[Coordinates] | list[list[Coordinates]]


class TargetSpec(ShapeSpec):
    fixed: dict[str, FixedCells] = Field(
        default={}, description="pre-placed pieces: piece name -> its cells (or a list of copies)"
    )
    optional: list[Coordinates] = Field(
        default=[], description="more target cells that may stay empty ('+' in layers says the same)"
    )
    colours: Colours = Field(
        default={}, description="colour name -> the target's cells of that colour (the others have none)"
    )

    @field_validator("optional", mode="wrap")
    @classmethod
    def _optional(cls, value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        return value if _checked_rows(value) else handler(value)


class GroupSpec(StrictModel):
    min: Copies = Field(0, description="at least this many pieces of the group are used")
    max: Copies | None = Field(None, description="at most this many pieces of the group are used")

    @model_validator(mode="after")
    def _bounds(self) -> GroupSpec:
        if self.max is not None and self.min > self.max:
            raise ValueError(f"min {self.min} is greater than max {self.max}")
        return self


class ExpectedCounts(StrictModel):
    raw: int | None = Field(None, ge=0)
    rotations: int | None = Field(None, ge=0)
    unique: int | None = Field(None, ge=0)


class SpecBase(StrictModel):
    """Fields every family shares."""

    kind: str = Field(description="the family: packing (default), chain or tiles")
    name: str = Field("", description="the puzzle's name (default: the file name without its suffix)")
    description: str = Field("", description="free text: source, notes")
    symmetry: Literal["all", "rotations", "none"] = Field(
        "all", description="what makes two solutions the same: all isometries, rotations only, or none"
    )
    expected: ExpectedCounts | None = Field(None, description="counts the reference solvers give")
    slow: bool = Field(False, description="takes minutes: left out of the fast test run and bench default")


class PackingSpec(SpecBase):
    kind: Literal["packing"] = "packing"
    grid: str = Field(
        "cube",
        description="the cells: cube, prism (triangular prisms), sphere (balls in a close packing), rhombic"
        " (rhombic dodecahedra) or tetra-octa, in BurrTools' coordinates; triangle (flat polyiamonds), hex"
        " (polyhexes, hexagonal prisms), or the edges of a square, triangular or hexagonal grid: sticks, trigs,"
        " twigs (docs/spec.md, Grids)",
        json_schema_extra={"enum": list(GRID_NAMES)},
    )

    @field_validator("grid")
    @classmethod
    def _known_grid(cls, name: str) -> str:
        """One of the grids in cpsolve.grids.GRIDS, the one list of their names."""
        if name not in GRID_NAMES:
            names = [repr(known) for known in GRID_NAMES]
            raise ValueError(f"Input should be {', '.join(names[:-1])} or {names[-1]}")
        return name

    pieces: dict[str, PieceSpec] = Field(min_length=1)
    target: TargetSpec
    parts: Literal["together", "separately"] = Field(
        "together", description="separately: each separate part of the target is turned on its own (yass)"
    )
    groups: dict[str, GroupSpec] = Field(default={})
    colour_rule: list[Annotated[list[ColourName], Field(min_length=2, max_length=2)]] = Field(
        default=[],
        description="[piece colour, target colour] pairs: a coloured piece cell may lie on a coloured target"
        " cell only when their pair is listed; an uncoloured cell fits any",
    )
    max_holes: Copies | None = Field(None, description="at most this many optional target cells stay empty")
    crossing: Literal["forbidden", "allowed"] = Field(
        "forbidden",
        description="on an edge grid: whether two pieces may cross at a point where both pass through it"
        " (the published polystick puzzles forbid it)",
    )


class ChainShape(StrictModel):
    """A snake: segment lengths (consecutive segments share their corner cube), or one letter
    per inner cube, S straight or C corner."""

    model_config = BUILT_AT_FIRST_USE

    segments: list[Annotated[int, Field(ge=2, le=MAX_SIDE)]] | None = Field(None, min_length=1)
    joints: str | None = Field(None, description="S (straight) or C (corner) for each inner cube")

    @model_validator(mode="after")
    def _one_way(self) -> ChainShape:
        if (self.segments is None) == (self.joints is None):
            raise ValueError("give exactly one of segments, joints")
        return self

    @field_validator("joints")
    @classmethod
    def _letters(cls, joints: str | None) -> str | None:
        if joints is not None:
            joints = joints.replace(" ", "").upper()
            wrong = sorted(set(joints) - {"S", "C"})
            if wrong:
                raise ValueError(f"letters must be S (straight) or C (corner), found {', '.join(map(repr, wrong))}")
        return joints

    def segment_lengths(self) -> list[int]:
        """Segments from either notation: joints split at every corner."""
        if self.segments is not None:
            return list(self.segments)
        lengths, start = [], 0
        joints = self.joints or ""
        for inner, letter in enumerate(joints, 1):
            if letter == "C":
                lengths.append(inner - start + 1)
                start = inner
        lengths.append(len(joints) + 1 - start + 1)
        return lengths


class ChainSpec(SpecBase):
    model_config = BUILT_AT_FIRST_USE

    kind: Literal["chain"]
    chain: ChainShape
    target: ShapeSpec


Label = Annotated[int, Field(ge=-MAX_LABEL, le=MAX_LABEL)] | str
TILE_SIDES = ("top", "right", "bottom", "left")


def _four_labels(tile: list[Label]) -> list[Label]:
    if len(tile) != 4:
        raise ValueError(f"a tile has 4 labels (top, right, bottom, left), found {len(tile)}")
    return tile


TileLabels = Annotated[list[Label], AfterValidator(_four_labels)]


class PairsRule(StrictModel):
    """Pictures cut in two halves: a label fits exactly the labels it is paired with."""

    model_config = BUILT_AT_FIRST_USE

    pairs: list[Annotated[list[Label], Field(min_length=2, max_length=2)]] = Field(
        min_length=1, description="[a, b]: an edge showing a fits an edge showing b (and b fits a)"
    )


class TilesSpec(SpecBase):
    model_config = BUILT_AT_FIRST_USE

    kind: Literal["tiles"]
    board: Annotated[list[Side], Field(min_length=2, max_length=2)] = Field(description="[columns, rows]")
    tiles: list[TileLabels] = Field(min_length=1, description="[top, right, bottom, left] labels of each tile")
    match: Literal["sum-zero", "equal"] | PairsRule = Field(
        description="sum-zero: +k fits -k and 0 fits 0; equal: same label; pairs: the listed halves"
    )
    border: Label = Field("any", description="any: outer edges are free; a label: every outer edge shows it")


SpecKinds = Mapping[str, type[SpecBase]]  # a family's kind -> its spec class (cpsolve.models.FAMILIES)


def json_schema(spec_kinds: SpecKinds) -> dict[str, Any]:
    """JSON Schema of every kind of spec (the `kind` field tells them apart)."""
    kinds = list(spec_kinds.values())
    union = Union[tuple(kinds)] if len(kinds) > 1 else kinds[0]  # noqa: UP007
    schema: dict[str, Any] = TypeAdapter(union).json_schema()  # type: ignore[arg-type]
    schema["title"] = "cpsolve puzzle spec"
    return schema


@dataclass
class Source:
    """Where a spec came from, so that any later check can name the file, field and line."""

    path: str
    lines: dict[tuple[str | int, ...], int] = field(default_factory=dict)

    def line_of(self, loc: tuple[str | int, ...]) -> int | None:
        for end in range(len(loc), -1, -1):
            line = self.lines.get(tuple(loc[:end]))
            if line is not None:
                return line
        return None

    def problem(self, loc: tuple[str | int, ...], message: str) -> str:
        """One line: FILE:LINE: field.path: message (a key with a line break in it is escaped)."""
        line = self.line_of(loc)
        where = f"{self.path}:{line}" if line else self.path
        field_path = ".".join(printable(str(part)) for part in loc)
        message = printable(message)
        return f"{where}: {field_path}: {message}" if field_path else f"{where}: {message}"

    def error(self, loc: tuple[str | int, ...], message: str) -> SpecError:
        return SpecError([self.problem(loc, message)])


@dataclass
class LoadedSpec:
    spec: SpecBase
    source: Source


MAX_PROBLEMS = 20  # problems reported for one file; a long list of the same mistake helps nobody


def validate_data(data: Any, source: Source, spec_kinds: SpecKinds) -> SpecBase:
    """A spec object from parsed data (its class chosen by `kind` among `spec_kinds`), or a
    SpecError with one line per problem. Without `name`, the puzzle is named after its file.
    """
    if not isinstance(data, dict):
        raise source.error((), "a spec is a mapping with at least pieces and target (or kind and its fields)")
    kind = data.get("kind", "packing")
    spec_class = spec_kinds.get(kind) if isinstance(kind, str) else None
    if spec_class is None:
        raise source.error(("kind",), f"unknown kind {repr(kind)[:40]}; expected one of {', '.join(spec_kinds)}")
    try:
        spec = spec_class.model_validate(data)
    except ValidationError as exc:
        errors = exc.errors()
        problems = [_describe(error, spec_class, source, data) for error in errors[:MAX_PROBLEMS]]
        if len(errors) > MAX_PROBLEMS:
            problems.append(source.problem((), f"and {len(errors) - MAX_PROBLEMS} more problems"))
        raise SpecError(problems) from None
    if not spec.name:
        spec.name = PurePath(source.path).stem
    return spec


def _describe(error: Any, spec_class: type[BaseModel], source: Source, data: Any) -> str:
    """One line for one Pydantic error, in words a puzzle author can act on."""
    loc = _user_location(error["loc"], data, keep_last=error["type"] in ("missing", "extra_forbidden"))
    if error["type"] == "extra_forbidden":
        valid = _field_names_at(spec_class, loc[:-1])
        import difflib  # only for a mistaken key: imported then

        close = difflib.get_close_matches(str(loc[-1]), valid, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else f"; valid fields: {', '.join(valid)}"
        return source.problem(loc, f"unknown field{hint}")
    message = error["msg"].removeprefix("Value error, ")
    if error["type"] == "missing":
        message = "required field is missing"
    elif "input" in error and error["type"] not in ("value_error", "assertion_error"):
        message = f"{message} (got {_short(error['input'])})"
    return source.problem(loc, message)


def _user_location(loc: tuple[str | int, ...], data: Any, keep_last: bool) -> tuple[str | int, ...]:
    """The location as the user wrote it: the keys and indexes found along it in their data.

    Pydantic also names the members of a union it tried (`list[int]`, `str`, `function-after[...]`);
    those are not in the data and are left out. A piece may well be named `str` or `A[1]`, which is
    why the data is walked rather than the names guessed. The last part of a missing or unknown
    field is kept: it names the field.
    """
    kept: list[str | int] = []
    current = data
    for position, part in enumerate(loc):
        child = _child(current, part)
        if child is not _ABSENT:
            kept.append(part)
            current = child
        elif keep_last and position == len(loc) - 1:
            kept.append(part)
    return tuple(kept)


_ABSENT = object()


def _child(data: Any, part: str | int) -> Any:
    """data[part] where the data has it, else _ABSENT."""
    if isinstance(data, dict):
        return data.get(part, _ABSENT)
    if isinstance(data, list) and isinstance(part, int) and 0 <= part < len(data):
        return data[part]
    return _ABSENT


def _short(value: Any) -> str:
    text = json.dumps(value, default=str)
    return text if len(text) <= 40 else text[:37] + "..."


def _field_names_at(model: type[BaseModel], loc: tuple[str | int, ...]) -> list[str]:
    """The field names valid at a location, found by walking the spec classes along it."""
    current: Any = model
    for part in loc:
        current = _step(current, part)
        if current is None:
            return []
    models = list(_models_in(current))
    return sorted({name for m in models for name in m.model_fields})


def _step(annotation: Any, part: str | int) -> Any:
    for candidate in _models_in(annotation):
        info = candidate.model_fields.get(str(part))
        if info is not None:
            return info.annotation
    origin = get_origin(annotation)
    if origin is dict:
        return get_args(annotation)[1]
    if origin is list:
        return get_args(annotation)[0]
    for arg in get_args(annotation):
        found = _step(arg, part)
        if found is not None:
            return found
    return None


def _models_in(annotation: Any) -> Iterator[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation
        return
    for arg in get_args(annotation):
        yield from _models_in(arg)
