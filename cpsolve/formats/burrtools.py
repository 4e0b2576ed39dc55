"""BurrTools `.xmpuzzle` files: reading their problems on all five grids, and writing puzzles and solutions.

The file is gzip-compressed XML (plain XML is read too), `<puzzle version="1|2">` with an optional
`<gridType type="N"/>` (0 or absent: cubes; 1 prisms, 2 spheres, 3 rhombic dodecahedra, 4
tetrahedra-octahedra: the spec's `grid`, voxels in the same coordinates), `<colors>`, `<shapes>`
(`<voxel x y z type>` strings: `#` filled, `+` variable, `_` empty, a colour number after `#` or
`+`) and `<problems>`. A problem becomes an ordinary packing spec:

- each `<shape id count|min,max>` entry is a piece (two entries with identical shapes are two
  pieces, as in BurrTools); its `+` voxels do not count, as BurrTools places only `#` voxels;
- the result shape is the target: `#` cells must be filled, `+` cells may stay empty;
- colours become names `colour1`, `colour2`, ... and the `<bitmap>` pairs the colour rule (a cell
  without colour fits any cell, as in BurrTools); `maxHoles` the hole limit.

A shape entry's `group` (or its `<group group count>` children) is BurrTools' grouping for
disassembly: the piece's `disassembly_groups`, named `group1`, `group2`, ...; it does not change
what counts as an assembly. Writing goes the other way (`cpsolve convert`, `cpsolve run --xmpuzzle`): one shape
per piece plus the result, one problem, and each unique solution as a BurrTools assembly, a
position and an orientation index in BurrTools' own table of the 48 maps of the cube grid.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import re
import zlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.parsers import expat

import numpy as np

from cpsolve.colours import constraint_colour
from cpsolve.errors import CpsolveError, ModelTooBigError, SpecError, printable
from cpsolve.geometry import Cell
from cpsolve.grids import CUBE, Grid, burrtools_grid
from cpsolve.limits import MAX_SHAPE_CELLS
from cpsolve.models import FAMILIES, Families
from cpsolve.spec import CellRows, LoadedSpec, Source

from .base import Document, PuzzleFile, ReadOptions

GZIP_MAGIC = b"\x1f\x8b"
MAX_COLOURS = 63  # BurrTools' own limit on colour numbers
VOXEL = "voxel"
COMMENT = "comment"
TEXT_KEPT = (VOXEL, COMMENT)
# A line of the comment that holds what a spec says and BurrTools has no field for, as JSON: a
# round trip through a .xmpuzzle keeps the spec's name, description and expected counts
KEPT_PREFIX = "cpsolve-spec: "
KEPT_FIELDS = ("name", "description", "expected")
MAX_VOXELS = 10_000_000  # one voxel space's x*y*z (its text is one character or more per voxel)
MAX_SHAPE_ENTRIES = 10_000  # shape entries in one problem (SolidSixPieceBurrs, the largest example, has 150)
# cells of all of a problem's piece entries and its result together: what one problem may expand to
MAX_PROBLEM_CELLS = 2_000_000


# -- the XML, with the line of every element -------------------------------------------------------


@dataclass
class Element:
    tag: str
    attributes: dict[str, str]
    line: int
    children: list[Element] = field(default_factory=list)
    text: str = ""  # kept only for the elements whose text cpsolve reads (TEXT_KEPT)

    def all(self, tag: str) -> list[Element]:
        return [child for child in self.children if child.tag == tag]

    def first(self, tag: str) -> Element | None:
        return next((child for child in self.children if child.tag == tag), None)


def _document(file: PuzzleFile, options: ReadOptions) -> Element:
    """The file's XML as elements, decompressed within the byte limit; no DTD, no entities."""
    return _parse(_declared_encoding(decompressed(file, options.max_bytes)), Path(file.name))


def decompressed(file: PuzzleFile, max_bytes: int) -> bytes:
    """The file's XML: as it is, or unzipped (as BurrTools writes them) within `max_bytes`."""
    data, path = file.content, Path(file.name)
    if data.startswith(GZIP_MAGIC):
        try:
            with gzip.GzipFile(fileobj=io.BytesIO(data)) as stream:
                data = stream.read(max_bytes + 1)
        except (OSError, EOFError, zlib.error) as exc:
            raise SpecError([f"{path}: not a valid gzip file: {exc}"]) from None
        if len(data) > max_bytes:
            raise SpecError([f"{path}: decompresses to more than {max_bytes / 2**20:.1f} MB (--max-file-size)"])
    return data


def _declared_encoding(data: bytes) -> bytes:
    """XML without an encoding declaration is UTF-8, but BurrTools wrote its files byte by byte in
    ISO-8859-1 without saying so (its own example Prisgon has an \xf6 in a comment): such a file
    is read as ISO-8859-1, as BurrTools reads it. The declaration is added on the first line, so
    every line number stays."""
    declaration = re.match(rb"<\?xml[^>]*\?>", data)
    if declaration is not None and b"encoding" in declaration.group(0):
        return data
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        rest = data[declaration.end() :] if declaration is not None else data
        return b'<?xml version="1.0" encoding="ISO-8859-1"?>' + rest
    return data


def _parse(data: bytes, path: Path) -> Element:
    """The elements with their lines; the text of <voxel> elements gathered in pieces and joined
    once (adding to a string piece by piece takes quadratic time on megabytes of text)."""
    parser = expat.ParserCreate()
    parser.buffer_text = True  # fewer, larger pieces of text: a file of 8 MB of line breaks
    stack: list[Element] = [Element("", {}, 0)]
    pieces: list[str] = []

    def start(tag: str, attributes: dict[str, str]) -> None:
        element = Element(tag, attributes, parser.CurrentLineNumber)
        stack[-1].children.append(element)
        stack.append(element)

    def end(tag: str) -> None:
        element = stack.pop()
        if tag in TEXT_KEPT:
            element.text = "".join(pieces)
        pieces.clear()

    def text(content: str) -> None:
        if stack[-1].tag in TEXT_KEPT:
            pieces.append(content)

    def refuse_doctype(*arguments: Any) -> None:
        raise SpecError([f"{path}:{parser.CurrentLineNumber}: a document type declaration; BurrTools files have none"])

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = text
    parser.StartDoctypeDeclHandler = refuse_doctype
    parser.EntityDeclHandler = refuse_doctype
    try:
        parser.Parse(data, True)
    except expat.ExpatError as exc:
        raise SpecError([f"{path}:{exc.lineno}: not valid XML: {expat.errors.messages[exc.code]}"]) from None
    except (LookupError, ValueError) as exc:  # an encoding declaration Python cannot decode with
        raise SpecError([f"{path}: cannot read the XML's declared encoding: {exc}; save the file as UTF-8"]) from None
    roots = stack[0].children
    if len(roots) != 1 or roots[0].tag != "puzzle":
        raise SpecError([f"{path}: not a BurrTools puzzle (the document is not one <puzzle> element)"])
    return roots[0]


# -- the puzzle ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Shape:
    """A voxel space as arrays, from the voxel string to the spec (`CellRows`): the filled and the
    variable cells ((n, 3) int64, in the string's order) with each one's colour number (0: none),
    and every voxel that has a colour, empty ones too (the content digest holds them)."""

    size: tuple[int, int, int]
    filled: Any
    variable: Any
    filled_colours: Any
    variable_colours: Any
    coloured: Any  # (k, 3): the cells of the voxels with a colour number
    colour_numbers: Any  # (k,): their numbers
    name: str
    line: int

    @staticmethod
    def at(size: Cell, filled: Any, variable: Any, coloured: Any, numbers: Any, element: Element) -> Shape:
        """The shape of the voxels at these indexes (index = x + sx * (y + sy * z), ascending) and the
        colour number of each in `coloured`."""
        coloured, numbers = np.asarray(coloured, np.int64), np.asarray(numbers, np.int64)
        filled, variable = np.asarray(filled, np.int64), np.asarray(variable, np.int64)
        return Shape(
            (size[0], size[1], size[2]),
            _cells_at(filled, size),
            _cells_at(variable, size),
            _numbers_at(filled, coloured, numbers),
            _numbers_at(variable, coloured, numbers),
            _cells_at(coloured, size),
            numbers,
            element.attributes.get("name", ""),
            element.line,
        )

    def voxels(self) -> tuple[tuple[Cell, ...], tuple[Cell, ...], dict[Cell, int]]:
        """The filled and the variable cells as tuples and each coloured voxel's number: the shape as
        a reader a voxel at a time gives it."""
        cells = (tuple(map(tuple, cells.tolist())) for cells in (self.filled, self.variable, self.coloured))
        filled, variable, coloured = cells
        return filled, variable, dict(zip(coloured, self.colour_numbers.tolist(), strict=True))


def _cells_at(index: Any, size: Cell) -> Any:
    """The cells of voxel indexes, (n, 3) int64."""
    return np.stack((index % size[0], index // size[0] % size[1], index // (size[0] * size[1])), axis=1)


def _numbers_at(index: Any, coloured: Any, numbers: Any) -> Any:
    """The colour number of each voxel index (0: none), `coloured` ascending."""
    found = np.zeros(len(index), np.int64)
    if len(coloured) and len(index):
        position = np.minimum(np.searchsorted(coloured, index), len(coloured) - 1)
        hit = coloured[position] == index
        found[hit] = numbers[position[hit]]
    return found


@dataclass(frozen=True)
class Part:
    shape: int
    least: int
    most: int
    line: int
    groups: tuple[tuple[int, int], ...] = ()  # (group, copies it may hold): piece groups for disassembly


@dataclass(frozen=True)
class Problem:
    name: str
    parts: tuple[Part, ...]
    result: int
    colour_pairs: tuple[tuple[int, int], ...]  # (piece colour, result colour), numbered from 1
    max_holes: int | None
    line: int


@dataclass(frozen=True)
class BurrPuzzle:
    colours: int
    shapes: tuple[Shape, ...]
    problems: tuple[Problem, ...]
    grid: Grid = CUBE
    comment: str = ""  # the file's <comment>: where cpsolve keeps what BurrTools has no field for

    def content_digest(self) -> str:
        """A digest of the shapes and problems as BurrTools holds them (not the file's layout nor
        its comment): fields kept in the comment apply only while this is what they were written
        with, so a puzzle changed in BurrTools drops them instead of carrying stale counts."""
        shapes = [(s.name, s.size, *_sorted_colours(s.voxels())) for s in self.shapes]
        problems = [
            (
                [(p.shape, p.least, p.most, p.groups) for p in problem.parts],
                problem.result,
                problem.colour_pairs,
                problem.max_holes,
            )
            for problem in self.problems
        ]
        text = json.dumps([self.grid.name, self.colours, shapes, problems])
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]

    def kept_fields(self) -> dict[str, Any]:
        """The spec's fields cpsolve wrote into the comment (KEPT_PREFIX), where the file has one
        problem and its content is still what they were written with; else none."""
        for line in self.comment.splitlines():
            if line.startswith(KEPT_PREFIX) and len(self.problems) == 1:
                try:
                    kept = json.loads(line[len(KEPT_PREFIX) :])
                except ValueError:
                    return {}
                if isinstance(kept, dict) and kept.pop("digest", None) == self.content_digest():
                    return {key: value for key, value in kept.items() if key in KEPT_FIELDS}
        return {}


def _sorted_colours(
    voxels: tuple[tuple[Cell, ...], tuple[Cell, ...], dict[Cell, int]],
) -> tuple[tuple[Cell, ...], tuple[Cell, ...], list[tuple[Cell, int]]]:
    """A shape's voxels as the content digest has always held them: its colours sorted by cell."""
    filled, variable, colour = voxels
    return filled, variable, sorted(colour.items())


def _number(element: Element, name: str, path: Path, default: int | None = None, least: int = 0) -> int:
    value = element.attributes.get(name)
    if value is None:
        if default is None:
            raise SpecError([f"{path}:{element.line}: <{element.tag}> needs a '{name}' attribute"])
        return default
    if not re.fullmatch(r"[0-9]{1,9}", value.strip()) or int(value) < least:
        raise SpecError(
            [f'{path}:{element.line}: <{element.tag} {name}="{value[:20]}">: expected a number of at least {least}']
        )
    return int(value)


def _voxels(element: Element, colours: int, path: Path) -> Shape:
    """A `<voxel>` element's cells, by BurrTools' rules: index = x + sx * (y + sy * z)."""
    size = (
        _number(element, "x", path, least=1),
        _number(element, "y", path, least=1),
        _number(element, "z", path, least=1),
    )
    if _number(element, "type", path, default=0) != 0:
        raise SpecError([f"{path}:{element.line}: voxel type {element.attributes['type']} is not a cube grid's (0)"])
    volume = size[0] * size[1] * size[2]
    if volume > MAX_VOXELS:
        raise SpecError(
            [f"{path}:{element.line}: a voxel space of {volume:,} voxels; cpsolve reads at most {MAX_VOXELS:,}"]
        )
    marked = element.text.count("#") + element.text.count("+")
    if marked > MAX_SHAPE_CELLS:  # counted before a single cell is made
        raise SpecError(
            [
                f"{path}:{element.line}: a shape of {marked:,} filled or variable voxels; cpsolve builds at most"
                f" {MAX_SHAPE_CELLS:,}"
            ]
        )
    text = element.text.strip()
    if re.fullmatch(r"[#+_]*", text):  # no colours: only the marked voxels are looked at
        if len(text) > volume:
            raise SpecError([f"{path}:{element.line}: voxel string has more than x*y*z = {volume} voxels"])
        if len(text) < volume:
            raise SpecError([f"{path}:{element.line}: voxel string has {len(text)} voxels, but x*y*z = {volume}"])
        filled, variable = _plain_cells(text, marked)
        return Shape.at(size, filled, variable, (), (), element)
    return _coloured_voxels(text, size, colours, element, path)


ARRAY_VOXELS_FROM = 64  # marked voxels from which their cells are worked out as arrays


def _plain_cells(text: str, marked: int) -> tuple[Any, Any]:
    """The voxel indexes of the filled and of the variable voxels of a string without colours (one
    character a voxel), in the string's order. Many marked voxels are found as arrays (a regular
    expression, a dictionary and a tuple a voxel took 1.5 ms of reading HexSticks' box of 2,256
    cells, 0.37 ms so); few by the regular expression, for which numpy's calls cost more (15
    voxels: 10 us against 25)."""
    if marked >= ARRAY_VOXELS_FROM:
        voxels = np.frombuffer(text.encode("ascii"), np.uint8)
        return np.flatnonzero(voxels == ord("#")), np.flatnonzero(voxels == ord("+"))
    marks = [(found.start(), found.group()) for found in re.finditer(r"[#+]", text)]
    return [index for index, mark in marks if mark == "#"], [index for index, mark in marks if mark == "+"]


VOXEL_TOKENS = re.compile(r"(?:[#+_][0-9]*)*")  # the longest run of well-formed voxels
MARKED_VOXEL = re.compile(r"([#+])([0-9]*)|_([0-9]+)")  # filled, variable or coloured: not a bare `_`


def _voxels_at_once(text: str, size: Cell, colours: int) -> tuple[Any, Any, Any, Any] | None:
    """A well-formed voxel string with colour numbers read as arrays: each `#`, `+` or `_` starts
    a voxel, the digits after it are its colour. The indexes of the filled, the variable and the
    coloured voxels, in the string's order, and the coloured ones' numbers; None for a string that
    is not well formed or names a colour the puzzle lacks, which `_coloured_voxels` reads voxel by
    voxel for its error (a regular expression match a voxel was 0.04 of DraculasDentalDesaster's
    0.36 s profiled runs)."""
    if not text.isascii():
        return None
    chars = np.frombuffer(text.encode("ascii"), np.uint8)
    marks = (chars == ord("#")) | (chars == ord("+")) | (chars == ord("_"))
    digits = (chars >= ord("0")) & (chars <= ord("9"))
    volume = size[0] * size[1] * size[2]
    if not len(chars) or not marks[0] or not (marks | digits).all() or int(marks.sum()) != volume:
        return None
    voxel_of = np.cumsum(marks) - 1  # each character's voxel
    starts = np.flatnonzero(marks)
    at = np.flatnonzero(digits)
    owner = voxel_of[at]
    lengths = np.bincount(owner, minlength=volume)
    if lengths.max(initial=0) > 3:
        return None
    power = lengths[owner] - (at - starts[owner])  # the digit's place: 10**power, the last one's 0
    number = np.zeros(volume, np.int64)
    np.add.at(number, owner, (chars[at] - ord("0")).astype(np.int64) * 10**power)
    written = lengths > 0
    if (written & ((number < 1) | (number > min(colours, MAX_COLOURS)))).any():
        return None
    kind = chars[starts]
    coloured = np.flatnonzero(written)
    return np.flatnonzero(kind == ord("#")), np.flatnonzero(kind == ord("+")), coloured, number[coloured]


def _coloured_voxels(text: str, size: Cell, colours: int, element: Element, path: Path) -> Shape:
    """A voxel string with colour numbers (`#2`, `+1`, `_3`). The regular expression engine finds
    the voxels that are filled, variable or coloured, and Python looks only at those: the voxels
    between two of them are bare `_`, one character each, so the gap counts them. Looking at each
    of DraculasDentalDesaster's 7,784 voxels (2,992 of them such) made reading the file 0.0088-0.0091
    s, now 0.0064-0.0086 (`python benchmarks/model_build.py --repeat 21`, five rounds in turn).
    Errors are those of reading voxel by voxel: the first voxel in the string that is wrong names
    the problem (tests/test_burrtools.py holds such a reader)."""
    at_once = _voxels_at_once(text, size, colours)
    if at_once is not None:
        return Shape.at(size, *at_once, element)
    volume = size[0] * size[1] * size[2]
    well_formed = VOXEL_TOKENS.match(text)
    end = well_formed.end() if well_formed else 0
    filled: list[int] = []
    variable: list[int] = []
    colour: dict[int, int] = {}
    most = min(colours, MAX_COLOURS)
    colour_of = {str(number): number for number in range(1, most + 1)}  # as written, mostly
    index, after = -1, 0
    for match in MARKED_VOXEL.finditer(text, 0, end):
        index += 1 + match.start() - after
        after = match.end()
        if index >= volume:
            raise SpecError([f"{path}:{element.line}: voxel string has more than x*y*z = {volume} voxels"])
        state, number, empty_number = match.groups()
        if state == "#":
            filled.append(index)
        elif state == "+":
            variable.append(index)
        number = number or empty_number
        if number:
            value = colour_of.get(number)
            if value is None:  # written otherwise (`02`), or not a colour of the puzzle
                if len(number) > 3 or not 0 < int(number) <= most:
                    raise SpecError(
                        [f"{path}:{element.line}: voxel colour {number[:5]}: the puzzle defines {colours} colours"]
                    )
                value = int(number)
            colour[index] = value
    voxels = index + 1 + end - after
    if voxels > volume:
        raise SpecError([f"{path}:{element.line}: voxel string has more than x*y*z = {volume} voxels"])
    if end < len(text):
        raise SpecError(
            [f"{path}:{element.line}: voxel string: unexpected character {text[end]!r} (expected #, + or _)"]
        )
    if voxels != volume:
        raise SpecError([f"{path}:{element.line}: voxel string has {voxels} voxels, but x*y*z = {volume}"])
    return Shape.at(size, filled, variable, list(colour), list(colour.values()), element)


def _groups(entry: Element, most: int, path: Path) -> tuple[tuple[int, int], ...]:
    """A shape entry's piece groups: `group="g"` (all its copies in g) or `<group group count>`
    children; group 0 is no group."""
    if "group" in entry.attributes:
        group = _number(entry, "group", path)
        return ((group, most),) if group else ()
    listed = ((_number(child, "group", path), _number(child, "count", path)) for child in entry.all("group"))
    return tuple((group, count) for group, count in listed if group and count)


def _problem(element: Element, shapes: int, colours: int, path: Path) -> Problem:
    parts = []
    listed = element.first("shapes")
    entries = listed.all("shape") if listed is not None else []
    if len(entries) > MAX_SHAPE_ENTRIES:
        raise SpecError(
            [
                f"{path}:{element.line}: a problem of {len(entries):,} shape entries; cpsolve reads at most"
                f" {MAX_SHAPE_ENTRIES:,}"
            ]
        )
    for entry in entries:
        shape = _number(entry, "id", path)
        if shape >= shapes:
            raise SpecError([f"{path}:{entry.line}: shape id {shape} does not exist (the puzzle has {shapes} shapes)"])
        if "count" in entry.attributes:
            least = most = _number(entry, "count", path)
        elif "min" in entry.attributes or "max" in entry.attributes:
            least, most = _number(entry, "min", path), _number(entry, "max", path)
            if least > most:
                raise SpecError([f"{path}:{entry.line}: min {least} is greater than max {most}"])
        else:
            least = most = 1
        if most > 0:
            parts.append(Part(shape, least, most, entry.line, _groups(entry, most, path)))
    if not parts:
        raise SpecError([f"{path}:{element.line}: the problem has no pieces"])
    result_element = element.first("result")
    if result_element is None:
        raise SpecError([f"{path}:{element.line}: the problem has no <result> shape"])
    result = _number(result_element, "id", path)
    if result >= shapes:
        raise SpecError(
            [f"{path}:{result_element.line}: result id {result} does not exist (the puzzle has {shapes} shapes)"]
        )
    pairs = []
    bitmap = element.first("bitmap")
    for pair in bitmap.all("pair") if bitmap is not None else []:
        piece, target = _number(pair, "piece", path), _number(pair, "result", path)
        if max(piece, target) >= colours:
            raise SpecError(
                [f"{path}:{pair.line}: colour pair ({piece}, {target}): the puzzle defines {colours} colours"]
            )
        pairs.append((piece + 1, target + 1))
    holes = _number(element, "maxHoles", path) if "maxHoles" in element.attributes else None
    return Problem(element.attributes.get("name", ""), tuple(parts), result, tuple(pairs), holes, element.line)


def read_puzzle(file: PuzzleFile, options: ReadOptions) -> BurrPuzzle:
    """The file's shapes and problems, parsed once."""
    root = _document(file, options)
    path = Path(file.name)
    version = root.attributes.get("version", "")
    if version not in ("1", "2"):
        raise SpecError(
            [f"{path}:{root.line}: puzzle version {version!r}; cpsolve reads BurrTools files of version 1 and 2"]
        )
    grid_elements = root.all("gridType")
    if len(grid_elements) > 1:
        raise SpecError(
            [
                f"{path}:{grid_elements[1].line}: a second <gridType>: a BurrTools file has one grid (the first says"
                f" {grid_elements[0].attributes.get('type')!r})"
            ]
        )
    grid_element = grid_elements[0] if grid_elements else None
    number = _number(grid_element, "type", path) if grid_element is not None else 0
    grid = burrtools_grid(number)
    if grid is None:
        line = grid_element.line if grid_element is not None else root.line
        raise SpecError([f'{path}:{line}: <gridType type="{number}">: BurrTools knows grids 0 to 4'])
    colour_list = root.first("colors")
    colours = len(colour_list.all("color")) if colour_list is not None else 0
    shapes_element = root.first("shapes")
    shapes = tuple(_voxels(v, colours, path) for v in shapes_element.all("voxel")) if shapes_element else ()
    problems_element = root.first("problems")
    problems = tuple(
        _problem(p, len(shapes), colours, path) for p in (problems_element.all("problem") if problems_element else [])
    )
    if not problems:
        raise SpecError([f"{path}: the puzzle has no problems"])
    comment = root.first("comment")
    return BurrPuzzle(colours, shapes, problems, grid, comment.text if comment is not None else "")


def read(file: PuzzleFile, options: ReadOptions) -> Document:
    """The file parsed once; each problem becomes a packing spec when it is asked for."""
    puzzle = read_puzzle(file, options)
    families = options.families
    return Document([problem.name for problem in puzzle.problems], lambda n: load(puzzle, n, file.name, families))


def _colour_name(number: int) -> str:
    return f"colour{number}"


def _colours_of(cells: Any, numbers: Any) -> dict[str, CellRows]:
    """The cells of each colour number (0: none), as a spec's `colours`: the colours in the order
    their first cell comes, each colour's cells in theirs. A cell at a time, DraculasDentalDesaster's
    2,880 coloured cells were 3 ms of every read."""
    if not numbers.any():
        return {}
    present = [number for number in np.flatnonzero(np.bincount(numbers)).tolist() if number]  # np.unique: numpy.ma
    present.sort(key=lambda number: int(np.argmax(numbers == number)))
    return {_colour_name(number): CellRows.of(cells[numbers == number]) for number in present}


def load(puzzle: BurrPuzzle, number: int, name: str, families: Families = FAMILIES) -> LoadedSpec:
    """Problem `number` of a BurrTools file as a packing spec."""
    path, problem = Path(name), puzzle.problems[number]
    _check_size(puzzle, problem, path)
    source = Source(str(path), {(): problem.line, ("pieces",): problem.line})
    pieces: dict[str, Any] = {}
    named: Counter[str] = Counter()
    for part in problem.parts:
        shape = puzzle.shapes[part.shape]
        name = _unique(shape.name or f"S{part.shape + 1}", pieces, named)
        if not len(shape.filled):
            raise SpecError([f"{path}:{shape.line}: shape {part.shape} ({name}) has no filled voxel"])
        piece: dict[str, Any] = {"cells": CellRows.of(shape.filled)}
        if part.least != part.most:
            piece.update({"min": part.least, "max": part.most})
        elif part.most != 1:
            piece["count"] = part.most
        colours = _colours_of(shape.filled, shape.filled_colours)
        if colours:
            piece["colours"] = colours
        if part.groups:
            piece["disassembly_groups"] = {f"group{group}": count for group, count in part.groups}
        pieces[name] = piece
        source.lines[("pieces", name)] = part.line
    result = puzzle.shapes[problem.result]
    if not len(result.filled) and not len(result.variable):
        raise SpecError([f"{path}:{result.line}: the result shape is empty"])
    target: dict[str, Any] = {
        # a result of only variable voxels is one BurrTools solves: every cell may stay empty
        "cells": CellRows.of(result.filled if len(result.filled) else result.variable),
        "optional": CellRows.of(result.variable),
    }
    colours = _colours_of(
        np.concatenate((result.filled, result.variable)),
        np.concatenate((result.filled_colours, result.variable_colours)),
    )
    if colours:
        target["colours"] = colours
    box = _box_of(result, puzzle.grid)
    if box is not None:
        target = {"box": box}
    source.lines[("target",)] = result.line
    on_pieces = {number for part in problem.parts for number in puzzle.shapes[part.shape].colour_numbers.tolist()}
    on_result = set(result.colour_numbers.tolist())
    name = problem.name or f"problem {number}"
    data: dict[str, Any] = {
        "name": f"{path.stem}: {name}" if len(puzzle.problems) > 1 or problem.name else path.stem,
        "description": f"BurrTools problem {number} of {path.name}",
        "grid": puzzle.grid.name,
        "pieces": pieces,
        "target": target,
        # a pair naming a colour no voxel has never applies: BurrTools keeps it, a spec may not
        "colour_rule": [
            [_colour_name(p), _colour_name(r)] for p, r in problem.colour_pairs if p in on_pieces and r in on_result
        ],
    }
    if problem.max_holes is not None:
        data["max_holes"] = problem.max_holes
    data.update(puzzle.kept_fields())
    if not data["colour_rule"]:
        del data["colour_rule"]
    return LoadedSpec(families.validate(data, source), source)


def _box_of(result: Shape, grid: Grid) -> list[int] | None:
    """A cube-grid result of filled, uncoloured cells that fill a box from the origin: the box's
    sides (two where it is one layer), as a spec writes it; else None."""
    cells = result.filled  # each voxel once: distinct cells
    if grid is not CUBE or len(result.variable) or len(result.colour_numbers) or not len(cells):
        return None
    sides: list[int] = (cells.max(axis=0) + 1).tolist()
    if int(cells.min()) != 0 or len(cells) != sides[0] * sides[1] * sides[2]:
        return None
    return sides[:2] if sides[2] == 1 else sides


def _check_size(puzzle: BurrPuzzle, problem: Problem, path: Path) -> None:
    """Refuse a problem whose pieces and result would expand past MAX_PROBLEM_CELLS cells before
    any of them is made (a small file may list one large shape thousands of times)."""
    shapes = [puzzle.shapes[part.shape] for part in problem.parts] + [puzzle.shapes[problem.result]]
    cells = sum(len(shape.filled) + len(shape.variable) for shape in shapes)
    if cells > MAX_PROBLEM_CELLS:
        raise ModelTooBigError(
            f"{path}:{problem.line}: the problem's shape entries hold {cells:,} cells in all; cpsolve reads at most"
            f" {MAX_PROBLEM_CELLS:,}"
        )


def _unique(name: str, taken: dict[str, Any], named: Counter[str]) -> str:
    """The name, or with " (n)" after it when a piece already has it (the number counted per name,
    so thousands of pieces of one name are named in linear time)."""
    named[name] += 1
    if name not in taken:
        return name
    number = named[name]
    while f"{name} ({number})" in taken:
        number += 1
    return f"{name} ({number})"


def looks_like_burrtools(head: bytes) -> bool:
    return head.startswith(GZIP_MAGIC) or b"<puzzle" in head


def is_burrtools_document(head: bytes) -> bool:
    """A file of another suffix that is BurrTools' (gzip, or XML whose first element is
    `<puzzle>`): a spec is a YAML mapping and never starts with `<`."""
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    return head.startswith(GZIP_MAGIC) or (text.startswith(b"<") and b"<puzzle" in head)


__all__ = ["BurrPuzzle", "Element", "load", "read", "read_puzzle"]


# -- writing ------------------------------------------------------------------------------------

Matrix = tuple[tuple[int, int, int], tuple[int, int, int], tuple[int, int, int]]


def _times(a: Matrix, b: Matrix) -> Matrix:
    rows = [tuple(sum(a[i][k] * b[k][j] for k in range(3)) for j in range(3)) for i in range(3)]
    return (rows[0], rows[1], rows[2])  # type: ignore[return-value]


def transformation_table() -> list[Matrix]:
    """BurrTools' 48 maps of the cube grid in its own order (the orientation index of an assembly).

    Rotation 4b + k is B_b Rx^k, with Rx: (x, y, z) -> (x, -z, y), B = (I, Ry, Ry^2, Ry^3, Rz,
    Rz^-1), Ry: (x, y, z) -> (-z, y, x) and Rz: (x, y, z) -> (-y, x, z); map 24 + i is map i after
    x -> -x. Checked against BurrTools' own reading of written files (tests).
    """
    identity: Matrix = ((1, 0, 0), (0, 1, 0), (0, 0, 1))
    rx: Matrix = ((1, 0, 0), (0, 0, -1), (0, 1, 0))
    ry: Matrix = ((0, 0, -1), (0, 1, 0), (1, 0, 0))
    rz: Matrix = ((0, -1, 0), (1, 0, 0), (0, 0, 1))
    rz_back: Matrix = ((0, 1, 0), (-1, 0, 0), (0, 0, 1))
    ry2 = _times(ry, ry)
    bases = [identity, ry, ry2, _times(ry2, ry), rz, rz_back]
    rotations = []
    for base in bases:
        turned = base
        for _ in range(4):
            rotations.append(turned)
            turned = _times(turned, rx)
    flip: Matrix = ((-1, 0, 0), (0, 1, 0), (0, 0, 1))
    return rotations + [_times(rotation, flip) for rotation in rotations]


def _apply(matrix: Matrix, cell: Cell) -> Cell:
    x, y, z = (sum(matrix[i][k] * cell[k] for k in range(3)) for i in range(3))
    return (x, y, z)


@dataclass(frozen=True)
class Solved:
    """What a complete run knows, as BurrTools keeps it with a problem it has solved (`state` 2):
    the assemblies it counts, how many of them come apart (0 when not taken apart: BurrTools
    counts solutions only when it disassembles) and the whole seconds it took. A file written
    without it says "unsolved" (`state` 0), as BurrTools' own files of unsolved problems do."""

    assemblies: int
    solutions: int
    seconds: int


@dataclass(frozen=True)
class Written:
    """What a written file holds, for the message: problems, shapes, assemblies."""

    shapes: int
    assemblies: int
    left_out: str = ""  # why assemblies found were not written


ASSEMBLIES_ON_CUBES = (
    "assemblies are written on the cube grid only (an orientation number in BurrTools' table of each"
    " grid); BurrTools finds them again with Solve"
)


def _cube_string(size: Cell, state: dict[Cell, str], colour_number: dict[Cell, int]) -> str:
    parts = []
    for z in range(size[2]):
        for y in range(size[1]):
            for x in range(size[0]):
                cell = (x, y, z)
                mark = state.get(cell, "_")
                parts.append(mark + (str(colour_number[cell]) if cell in colour_number and mark != "_" else ""))
    return "".join(parts)


def _attribute(text: str) -> str:
    """An XML attribute value, quoted. xml.sax.saxutils is imported only when a file is written: it
    brings urllib and email with it, 0.02 s of every run's start."""
    from xml.sax.saxutils import quoteattr

    return quoteattr(text)


def _text(text: str) -> str:
    """XML element text, escaped (saxutils imported only when a file is written, as `_attribute`)."""
    from xml.sax.saxutils import escape

    return escape(text)


def _voxel_element(cells: Sequence[Cell], marks: dict[Cell, str], colours: dict[Cell, int], name: str) -> str:
    size = (max(c[0] for c in cells) + 1, max(c[1] for c in cells) + 1, max(c[2] for c in cells) + 1)
    attributes = f'x="{size[0]}" y="{size[1]}" z="{size[2]}" type="0"' + (f" name={_attribute(name)}" if name else "")
    return f"    <voxel {attributes}>{_cube_string(size, marks, colours)}</voxel>"


@dataclass(frozen=True)
class WrittenProblem:
    """One problem of a file being written: its name, the resolved packing
    (models.packing.PackingPuzzle), its assemblies (each a sequence of placements: piece number,
    cells, colours) and, where it was solved, what BurrTools keeps of that (else "unsolved")."""

    name: str
    puzzle: Any
    assemblies: Sequence[Sequence[Any]] = ()
    solved: Solved | None = None


def puzzle_xml(
    puzzle: Any,
    assemblies: Sequence[Sequence[Any]] = (),
    *,
    any_symmetry: bool = False,
    solved: Solved | None = None,
    kept: dict[str, Any] | None = None,
) -> str:
    """A BurrTools file of one problem for a resolved packing, the problem solved as `solved`
    says, else unsolved (BurrTools asserts that a problem whose solutions it is asked for is
    solved: `burrTxt -a s1` stopped on a file that held assemblies under "unsolved").
    `any_symmetry` writes a puzzle whose `symmetry` BurrTools cannot keep (BurrTools then reduces
    by its own rule), so that BurrTools can be timed on the same search (`cpsolve bench --peers`)."""
    return document_xml([WrittenProblem(puzzle.name, puzzle, assemblies, solved)], any_symmetry=any_symmetry, kept=kept)


def document_xml(
    problems: Sequence[WrittenProblem], *, any_symmetry: bool = False, kept: dict[str, Any] | None = None
) -> str:
    """A BurrTools file of the problems, on their one grid: one list of colours, one list of
    shapes (a piece two problems hold alike written once, as BurrTools shares a shape among its
    problems), then each problem's pieces, result, colour pairs and assemblies."""
    for problem in problems:
        why = _not_writable(problem.puzzle, any_symmetry)
        if why:
            raise CpsolveError(f"{printable(problem.puzzle.name)}: cannot be written as a BurrTools file: {why}")
    grids = {problem.puzzle.grid.name for problem in problems}
    if len(grids) > 1:
        raise CpsolveError(f"a BurrTools file holds problems on one grid; these are on {', '.join(sorted(grids))}")
    colour_names = _colour_names([problem.puzzle for problem in problems])
    number = {name: n for n, name in enumerate(colour_names, 1)}
    lines = [
        '<?xml version="1.0"?>',
        '<puzzle version="2">',
        f'  <gridType type="{problems[0].puzzle.grid.burrtools}"/>',
    ]
    lines.append("  <colors>" if colour_names else "  <colors/>")
    for n, name in enumerate(colour_names):
        value = constraint_colour(name, n)
        red, green, blue = (int(value[i : i + 2], 16) for i in (1, 3, 5))
        lines.append(f'    <color red="{red}" green="{green}" blue="{blue}"/>')
    if colour_names:
        lines.append("  </colors>")
    shapes = _ShapeList()
    ids = [shapes.of_problem(problem.puzzle, number) for problem in problems]
    lines.append("  <shapes>")
    lines.extend(shapes.elements)
    lines.append("  </shapes>")
    lines.append("  <problems>")
    for problem, (piece_ids, result_id) in zip(problems, ids, strict=True):
        lines.extend(_problem_xml(problem, piece_ids, result_id, number))
    lines.append("  </problems>")
    lines.append("  <comment>written by cpsolve</comment>")
    lines.append("</puzzle>")
    text = "\n".join(lines) + "\n"
    if not kept:
        return text
    digest = read_puzzle(PuzzleFile("written.xmpuzzle", text.encode("utf-8")), ReadOptions()).content_digest()
    line = KEPT_PREFIX + json.dumps({**kept, "digest": digest}, ensure_ascii=False)
    return text.replace(
        "<comment>written by cpsolve</comment>", f"<comment>written by cpsolve\n{_text(line)}</comment>"
    )


def _colour_names(puzzles: Sequence[Any]) -> list[str]:
    """The colours the problems use, numbered as the file lists them: those of cells first (in
    name order), then those only a colour rule names."""
    on_cells = {c for puzzle in puzzles for p in puzzle.pieces for c in p.colours if c}
    on_cells |= {c for puzzle in puzzles for c in puzzle.target_colours.values()}
    names = sorted(on_cells)
    return names + sorted({name for puzzle in puzzles for pair in puzzle.colour_rule for name in pair} - on_cells)


def _shifted(puzzle: Any) -> Any:
    """The map that moves the target's cells to BurrTools' voxel space from 0 (a translation the
    grid allows)."""
    low = tuple(int(v) for v in puzzle.grid.lattice_shift(puzzle.target))

    def shifted(cell: Cell) -> Cell:
        return (cell[0] - low[0], cell[1] - low[1], cell[2] - low[2])

    return shifted


class _ShapeList:
    """The file's shapes as they are written, each once: a problem's piece or result alike one
    written before (its name, its cells, their marks and colours) is that shape again."""

    def __init__(self) -> None:
        self.elements: list[str] = []
        self.numbers: dict[tuple[str, str], int] = {}

    def number_of(self, role: str, element: str) -> int:
        if (role, element) not in self.numbers:
            self.numbers[(role, element)] = len(self.elements)
            self.elements.append(element)
        return self.numbers[(role, element)]

    def of_problem(self, puzzle: Any, number: dict[str, int]) -> tuple[list[int], int]:
        """The numbers of the problem's pieces and of its result, written where they are new."""
        pieces = []
        for piece in puzzle.pieces:
            coloured = {c: number[k] for c, k in zip(piece.cells, piece.colours, strict=False) if k}
            pieces.append(
                self.number_of(
                    "piece", _voxel_element(piece.cells, dict.fromkeys(piece.cells, "#"), coloured, piece.name)
                )
            )
        shifted = _shifted(puzzle)
        target = [shifted(c) for c in puzzle.target]
        marks = {shifted(c): "+" if c in puzzle.optional else "#" for c in puzzle.target}
        target_colours = {shifted(c): number[k] for c, k in puzzle.target_colours.items()}
        return pieces, self.number_of("result", _voxel_element(target, marks, target_colours, "Result"))


def _problem_xml(problem: WrittenProblem, piece_ids: list[int], result_id: int, number: dict[str, int]) -> list[str]:
    """A `<problem>` element: its pieces by shape number and copies, its result, its colour pairs,
    its assemblies (cube grid only) and whether it is solved."""
    puzzle, solved = problem.puzzle, problem.solved
    holes = f' maxHoles="{puzzle.max_holes}"' if puzzle.max_holes is not None else ""
    state = (
        f'state="2" assemblies="{solved.assemblies}" solutions="{solved.solutions}" time="{solved.seconds}"'
        if solved is not None
        else 'state="0"'
    )
    lines = [f"    <problem name={_attribute(problem.name)} {state}{holes}>", "      <shapes>"]
    most = [_most(piece, len(puzzle.target)) for piece in puzzle.pieces]
    for shape_id, piece, high in zip(piece_ids, puzzle.pieces, most, strict=True):
        if piece.bounds.low == high:
            lines.append(f'        <shape id="{shape_id}" count="{high}"/>')
        else:
            lines.append(f'        <shape id="{shape_id}" min="{piece.bounds.low}" max="{high}"/>')
    lines.append("      </shapes>")
    lines.append(f'      <result id="{result_id}"/>')
    pairs = [(number[p], number[r]) for p, r in sorted(puzzle.colour_rule)]
    lines.append("      <bitmap>" if pairs else "      <bitmap/>")
    for piece_colour, target_colour in pairs:
        lines.append(f'        <pair piece="{piece_colour - 1}" result="{target_colour - 1}"/>')
    if pairs:
        lines.append("      </bitmap>")
    if problem.assemblies and puzzle.grid is CUBE:
        shifted = _shifted(puzzle)
        lines.append("      <solutions>")
        for assembly in problem.assemblies:
            lines.append(
                f"        <solution><assembly>{_assembly(puzzle, assembly, most, shifted)}</assembly></solution>"
            )
        lines.append("      </solutions>")
    lines.append("    </problem>")
    return lines


def _most(piece: Any, target_cells: int) -> int:
    """A piece's most copies as BurrTools needs it: a number (an open range ends at the target's room)."""
    return int(min(piece.bounds.high, target_cells // len(piece.cells)))


def _not_writable(puzzle: Any, any_symmetry: bool = False) -> str:
    if puzzle.fixed:
        return "pre-placed pieces (target.fixed) have no BurrTools counterpart"
    if puzzle.groups:
        return "groups bound how many pieces of several shapes are used; BurrTools has no such rule"
    if puzzle.separately:
        return "parts: separately (each part turned on its own) has no BurrTools counterpart"
    if puzzle.symmetry != "all" and not any_symmetry:
        return f"symmetry: {puzzle.symmetry}; BurrTools always removes rotations and mirror images itself"
    unwritable = [name for name in (puzzle.name, *(p.name for p in puzzle.pieces)) if not _xml_text(name)]
    if unwritable:
        return (
            f"the name '{printable(unwritable[0])}' holds control characters, which XML (and so BurrTools)"
            " cannot hold; rename it"
        )
    return ""


def _xml_text(text: str) -> bool:
    """Whether XML 1.0 can hold the text in an attribute (tab, line breaks and printable text)."""
    return all(c in "\t\n\r" or (c >= " " and c not in "\ufffe\uffff" and not 0xD800 <= ord(c) <= 0xDFFF) for c in text)


def _assembly(puzzle: Any, placements: Sequence[Any], most: Sequence[int], shifted: Any) -> str:
    """BurrTools' assembly: for each piece, each of its `most` copies "x y z t", or "x" when unused."""
    table = transformation_table()
    by_piece: dict[int, list[Any]] = {}
    for placement in placements:
        by_piece.setdefault(placement.piece, []).append(placement)
    words = []
    for index, piece in enumerate(puzzle.pieces):
        placed = sorted(by_piece.get(index, []), key=lambda p: p.cells)
        for placement in placed:
            words.append(_position(piece, placement, table, shifted))
        words.extend(["x"] * (most[index] - len(placed)))
    return " ".join(words)


def _position(piece: Any, placement: Any, table: list[Matrix], shifted: Any) -> str:
    """The lowest orientation index t and the position p with cell = R_t(v) + p for the piece's own
    cells v (its hotspot at 0, 0, 0), that put the piece on the placement's cells (and colours)."""
    cells = [shifted(c) for c in placement.cells]
    colour_at = dict(zip(cells, placement.colours or (None,) * len(cells), strict=True))
    own_colours = piece.colours or (None,) * len(piece.cells)
    low = tuple(min(c[i] for c in cells) for i in range(3))
    for index, matrix in enumerate(table[:24]):
        turned = [_apply(matrix, v) for v in piece.cells]
        turned_low = tuple(min(c[i] for c in turned) for i in range(3))
        offset = (low[0] - turned_low[0], low[1] - turned_low[1], low[2] - turned_low[2])
        moved = {
            (c[0] + offset[0], c[1] + offset[1], c[2] + offset[2]): k for c, k in zip(turned, own_colours, strict=True)
        }
        if moved == colour_at:
            return f"{offset[0]} {offset[1]} {offset[2]} {index}"
    raise ValueError(f"no orientation of {piece.name} lies on {cells}")


def file_bytes(
    puzzle: Any,
    assemblies: Sequence[Sequence[Any]] = (),
    solved: Solved | None = None,
    kept: dict[str, Any] | None = None,
) -> tuple[bytes, Written]:
    """A gzip-compressed BurrTools file, as BurrTools writes them (`kept`: the spec's fields
    BurrTools has no place for, into the comment), and what it holds."""
    text = puzzle_xml(puzzle, assemblies, solved=solved, kept=kept)
    data = gzip.compress(text.encode("utf-8"), mtime=0)  # the same puzzle, the same bytes
    if assemblies and puzzle.grid is not CUBE:
        return data, Written(len(puzzle.pieces) + 1, 0, ASSEMBLIES_ON_CUBES)
    return data, Written(len(puzzle.pieces) + 1, len(assemblies))


def document_bytes(problems: Sequence[WrittenProblem]) -> tuple[bytes, Written]:
    """A gzip-compressed BurrTools file of several problems (the studio's puzzle of problems),
    and how many shapes it holds."""
    text = document_xml(problems)
    return gzip.compress(text.encode("utf-8"), mtime=0), Written(text.count("<voxel "), 0)
