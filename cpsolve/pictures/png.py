"""A PNG of one solution for a README or a forum post: the page's colours and default view, with a
legend; tiles as the flat board. Drawn with Pillow (the `pictures` extra), faces farthest first.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Sequence
from typing import Any

from cpsolve.errors import CpsolveError

YAW, PITCH = -0.65, 0.5  # the page's first view
SIZE = (760, 560)
MARGIN = 12  # around what is drawn (the headline starts this far in)
CENTRED = ("tiles",)  # drawings laid out in the middle of the width, kept so
LABEL_ROOM = 0.48  # of a tile's side: what an edge's label may take (the page squeezes one to it)
FACES: tuple[tuple[tuple[int, int, int], tuple[tuple[int, int, int], ...]], ...] = (
    ((1, 0, 0), ((1, 0, 0), (1, 1, 0), (1, 1, 1), (1, 0, 1))),
    ((-1, 0, 0), ((0, 0, 0), (0, 0, 1), (0, 1, 1), (0, 1, 0))),
    ((0, 1, 0), ((0, 1, 0), (0, 1, 1), (1, 1, 1), (1, 1, 0))),
    ((0, -1, 0), ((0, 0, 0), (1, 0, 0), (1, 0, 1), (0, 0, 1))),
    ((0, 0, 1), ((0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1))),
    ((0, 0, -1), ((0, 0, 0), (0, 1, 0), (1, 1, 0), (1, 0, 0))),
)
Point = tuple[float, float, float]


IMAGE_FORMATS = {".png": "PNG", ".jpg": "JPEG", ".jpeg": "JPEG", "": "PNG"}  # by the file's suffix (Outputs.png)


def check_installed() -> None:
    """Refuse --png before a run when Pillow is missing, rather than after the run."""
    try:
        import PIL  # noqa: F401
    except ImportError:
        raise CpsolveError('--png needs Pillow: pip install "cpsolve[pictures]"') from None


def png_bytes(scene: dict[str, Any], number: int = 0, suffix: str = ".png", explode: bool = False) -> bytes:
    """Solution `number` (0: the first) of a scene drawn as an image file's bytes: PNG, or JPEG
    where `suffix` says so (a .jpg gets JPEG bytes, not PNG ones); with `explode` its pieces
    pushed apart as the page's explode slider at its end moves them (what a cage holds in view).
    The picture is cut to what is drawn, a margin around it."""
    check_installed()
    from PIL import Image, ImageChops, ImageDraw, ImageFont

    if not scene["solutions"]:
        raise CpsolveError("nothing to draw: the run found no solution")
    solution = scene["solutions"][min(number, len(scene["solutions"]) - 1)]
    if explode and "apart" in solution:
        solution = {**solution, "shift": solution["apart"]}
    image = Image.new("RGB", SIZE, "white")
    draw = ImageDraw.Draw(image)
    # Pillow's own scalable font (its bitmap default lost the spaces: "rotations612")
    draw.font = ImageFont.load_default(size=13)
    _write_headline(draw, _headline(scene), SIZE[0] - 24)
    DRAWERS[scene["drawing"]](image, draw, scene, solution)
    drawn = ImageChops.difference(image, Image.new("RGB", SIZE, "white")).getbbox()
    if drawn is not None:  # the blank the layout left below (and right of a drawing of pieces) cut away
        right = SIZE[0] if scene["drawing"] in CENTRED else min(SIZE[0], drawn[2] + MARGIN)
        image = image.crop((0, 0, right, min(SIZE[1], drawn[3] + MARGIN)))
    encoded = io.BytesIO()
    kind = IMAGE_FORMATS.get(suffix.lower(), "PNG")
    image.save(encoded, format=kind, **({"optimize": True} if kind == "PNG" else {"quality": 92}))
    return encoded.getvalue()


def _write_headline(draw: Any, text: str, width: int) -> None:
    """The headline across the top, in the largest size from 16 down to 11 that fits the width;
    past that the name's end gives way."""
    text, font = _fitted(draw, text, width, range(16, 10, -1))
    draw.text((12, 10), text, fill="black", font=font)


def _fitted(draw: Any, text: str, room: float, sizes: range) -> tuple[str, Any]:
    """The text and the font of the largest of `sizes` in which it fits `room`; past the
    smallest, the text's end gives way."""
    from PIL import ImageFont

    for size in sizes:
        font = ImageFont.load_default(size=size)
        if draw.textlength(text, font=font) <= room:
            return text, font
    while draw.textlength(text, font=font) > room and len(text) > 1:
        text = text[:-2] + "…"
    return text, font


def _headline(scene: dict[str, Any]) -> str:
    """The name and the counts; counts a run did not finish are marked as the lower bounds they are."""
    counts = scene["counts"]
    bound = "" if scene.get("complete", True) else "at least "
    said = f"{bound}raw {counts['raw']}, rotations {counts['rotations']}, unique {counts['unique']}"
    if not scene.get("complete", True):
        said += f" ({scene.get('stopped') or scene.get('stopped_by')})"
    return f"{_one_line(scene['name'])}: {said}"


def _one_line(text: str) -> str:
    """A name drawn on one line: its line breaks and tabs as spaces (Pillow cannot measure text of
    several lines, and a headline is one)."""
    return " ".join(str(text).split())


def _rotate(point: Point) -> Point:
    """The page's projection: [screen x, screen y (down), depth (away)]."""
    cy, sy, cp, sp = math.cos(YAW), math.sin(YAW), math.cos(PITCH), math.sin(PITCH)
    x, y, z = point[0] * cy - point[1] * sy, point[0] * sy + point[1] * cy, point[2]
    return x, -(z * cp + y * sp), y * cp - z * sp


def _shade(colour: str, normal: tuple[float, float, float]) -> tuple[int, int, int]:
    n = _rotate((float(normal[0]), float(normal[1]), float(normal[2])))
    light = 0.5 + 0.5 * max(0.0, -0.4 * n[0] - 0.7 * n[1] - 0.6 * n[2])
    value = int(colour[1:], 16)
    return tuple(min(255, round(channel * light)) for channel in (value >> 16, (value >> 8) & 255, value & 255))  # type: ignore[return-value]


# each cube, its colour, whether it is marked, its group (a piece) and the shift of its group
CubeItems = list[tuple[list[int], str, bool, int, Sequence[float]]]


def _pieces(image: Any, draw: Any, scene: dict[str, Any], solution: dict[str, Any]) -> None:
    """Pieces of cubes (on another grid its solids, or balls), each in its piece's colour (moved by
    its `shift` where the picture is exploded), and the legend."""
    colours = [unit["colour"] for unit in solution["units"]]
    apart = "shift" in solution  # pieces apart: each its own group of faces; together, one
    shift = solution["shift"] if apart else [[0.0, 0.0, 0.0]] * len(colours)
    if "grid" in scene:
        items = []
        for cell in solution["cells"]:
            unit = int(cell[4])
            items.append((cell[0], [cell[1 + axis] + shift[unit][axis] for axis in range(3)], colours[unit]))
        _solids(draw, scene, items)
    else:
        cubes = solution["cubes"]
        _cubes(draw, [(cube[:3], colours[cube[3]], False, cube[3] if apart else 0, shift[cube[3]]) for cube in cubes])
    _legend(draw, scene, solution)


def _solids(draw: Any, scene: dict[str, Any], items: list[tuple[int, list[float], str]]) -> None:
    """Each cell its kind's solid moved to its origin (the page's drawSolids), or a shaded ball."""
    centre = [sum(origin[axis] for _, origin, _ in items) / len(items) for axis in range(3)]
    extent = max(math.dist(origin, centre) + 1.2 for _, origin, _ in items)
    area = (SIZE[0] - 200, SIZE[1] - 40)
    scale = min(area) / (2 * extent)
    middle = (area[0] / 2, 30 + area[1] / 2)
    shapes: list[tuple[float, list[tuple[float, float]], tuple[int, int, int]]] = []
    for kind, origin, colour in items:
        moved = [origin[axis] - centre[axis] for axis in range(3)]
        if scene["ball"]:
            x, y, depth = _rotate((moved[0], moved[1], moved[2]))
            radius = scene["ball"] * scale
            box = [(middle[0] + x * scale - radius, middle[1] + y * scale - radius)]
            shapes.append((depth, box, _shade(colour, (0, 0, 1))))
            continue
        for face in scene["solids"][int(kind)]:
            world = [[corner[axis] + moved[axis] for axis in range(3)] for corner in face]
            normal = _cross(world)
            if _rotate(normal)[2] > 0:
                continue
            points = [_rotate((p[0], p[1], p[2])) for p in world]
            polygon = [(middle[0] + p[0] * scale, middle[1] + p[1] * scale) for p in points]
            shapes.append((sum(p[2] for p in points) / len(points), polygon, _shade(colour, normal)))
    shapes.sort(key=lambda shape: -shape[0])
    for _, outline, fill in shapes:
        if scene["ball"]:
            (left, top), radius = outline[0], scene["ball"] * scale
            draw.ellipse((left, top, left + 2 * radius, top + 2 * radius), fill=fill, outline=(70, 70, 70))
            light = tuple(min(255, channel + 60) for channel in fill)
            draw.ellipse(
                (left + radius * 0.45, top + radius * 0.35, left + radius * 0.95, top + radius * 0.85), fill=light
            )
        else:
            draw.polygon(outline, fill=fill, outline=(70, 70, 70), width=1)


def _cross(points: list[list[float]]) -> Point:
    """The normal of a face (corners counter-clockwise seen from outside), of unit length."""
    a = [points[1][axis] - points[0][axis] for axis in range(3)]
    b = [points[2][axis] - points[0][axis] for axis in range(3)]
    normal = (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])
    length = math.hypot(*normal) or 1.0
    return (normal[0] / length, normal[1] / length, normal[2] / length)


def _chain(image: Any, draw: Any, scene: dict[str, Any], solution: dict[str, Any]) -> None:
    """A chain's cubes coloured along it, the segment ends outlined, and over them, as the page
    draws it, the path through the cubes' centres with the number of each cube where the chain
    turns (and of its first and last), so that the picture can be followed cube by cube."""
    colours, ends = scene["chain_colours"], set(solution["ends"])
    path = solution["path"]
    place = _cubes(draw, [(cell, colours[i], i in ends, 0, (0.0, 0.0, 0.0)) for i, cell in enumerate(path)])
    centres = [place((cell[0] + 0.5, cell[1] + 0.5, cell[2] + 0.5)) for cell in path]
    draw.line(centres, fill=(20, 20, 20), width=3, joint="curve")
    for number in sorted({0, len(path) - 1, *ends}):
        x, y = centres[number]
        text = str(number + 1)
        left, top, right, bottom = draw.textbbox((x, y), text, anchor="mm")
        draw.rectangle((left - 2, top - 1, right + 2, bottom + 1), fill=(255, 255, 255), outline=(20, 20, 20))
        draw.text((x, y), text, fill=(0, 0, 0), anchor="mm")


def _cubes(draw: Any, items: CubeItems) -> Callable[[Point], tuple[float, float]]:
    """Draw the cubes, farthest faces first (a face hidden where its group has the cube beside it;
    each group moved by its shift); returns where a point of space lands in the picture."""
    occupied = {(group, *cell) for cell, _, _, group, _ in items}
    where = [[cell[axis] + shift[axis] for axis in range(3)] for cell, _, _, _, shift in items]
    centre = [sum(point[axis] + 0.5 for point in where) / len(items) for axis in range(3)]
    # the farthest corner from the centre bounds what any view shows
    extent = max(math.dist([c + 0.5 for c in point], centre) + 0.87 for point in where)
    area = (SIZE[0] - 200, SIZE[1] - 40)
    scale = min(area) / (2 * extent)
    faces = []
    for (cell, colour, marked, group, _), point in zip(items, where, strict=True):
        for normal, corners in FACES:
            if _rotate((float(normal[0]), float(normal[1]), float(normal[2])))[2] > 0:
                continue
            if (group, cell[0] + normal[0], cell[1] + normal[1], cell[2] + normal[2]) in occupied:
                continue
            points = [
                _rotate((point[0] + k[0] - centre[0], point[1] + k[1] - centre[1], point[2] + k[2] - centre[2]))
                for k in corners
            ]
            depth = sum(p[2] for p in points) / 4
            faces.append((depth, points, colour, normal, marked))
    faces.sort(key=lambda face: -face[0])
    middle = (area[0] / 2, 30 + area[1] / 2)
    for _, points, colour, normal, marked in faces:
        polygon = [(middle[0] + p[0] * scale, middle[1] + p[1] * scale) for p in points]
        draw.polygon(
            polygon,
            fill=_shade(colour, normal),
            outline=(0, 0, 0) if marked else (70, 70, 70),
            width=3 if marked else 1,
        )

    def place(point: Point) -> tuple[float, float]:
        p = _rotate((point[0] - centre[0], point[1] - centre[1], point[2] - centre[2]))
        return middle[0] + p[0] * scale, middle[1] + p[1] * scale

    return place


def _legend(draw: Any, scene: dict[str, Any], solution: dict[str, Any]) -> None:
    """One entry per placed piece, named as the text drawing and the plan name it (its label),
    with its piece's name where that differs, in its own colour."""
    left, top = SIZE[0] - 185, 40
    units = solution["units"]
    for row, unit in enumerate(units[:34]):
        y = top + row * 15
        draw.rectangle((left, y, left + 11, y + 11), fill=unit["colour"], outline="black")
        draw.text((left + 18, y), _one_line(unit_name(unit, scene)), fill="black")
    if len(units) > 34:
        draw.text((left, top + 34 * 15), f"... {len(units) - 34} more", fill="black")


def unit_name(unit: dict[str, Any], scene: dict[str, Any]) -> str:
    """A placed piece's name: its label, and its piece's name after it where they differ (the
    page's legend says the same, viewer.js unitName)."""
    piece = scene["pieces"][unit["piece"]]["name"]
    return unit["label"] if unit["label"] == piece else f"{unit['label']} ({piece})"


def _tiles(image: Any, draw: Any, scene: dict[str, Any], solution: dict[str, Any]) -> None:
    columns, rows = scene["board"]
    size = max(24, min((SIZE[0] - 40) // columns, (SIZE[1] - 50) // rows))
    corners = (((0, 0), (1, 0)), ((1, 0), (1, 1)), ((1, 1), (0, 1)), ((0, 1), (0, 0)))
    label_at = ((0.5, 0.17), (0.83, 0.5), (0.5, 0.83), (0.17, 0.5))
    board_left = max(20, (SIZE[0] - columns * size) // 2)  # the board in the middle, not in a corner
    for number, place in enumerate(solution["places"]):
        left, top = board_left + (number % columns) * size, 36 + (number // columns) * size
        for side, label in enumerate(place["shown"]):
            (ax, ay), (bx, by) = corners[side]
            triangle = [
                (left + ax * size, top + ay * size),
                (left + bx * size, top + by * size),
                (left + size / 2, top + size / 2),
            ]
            equal = scene["match"] == "equal"
            fill = scene["label_colours"][str(label)] if equal else ("#f4f4f4" if side % 2 else "#e8e8e8")
            draw.polygon(triangle, fill=fill, outline=(80, 80, 80))
            if not equal:
                at = (left + label_at[side][0] * size, top + label_at[side][1] * size)
                _edge_label(image, draw, at, str(label), side, LABEL_ROOM * size)
        _tile_badge(
            draw,
            (left + size / 2, top + size / 2),
            f"{place['tile']}" + (f" r{place['turns']}" if place["turns"] else ""),
        )


def _edge_label(image: Any, draw: Any, at: tuple[float, float], text: str, side: int, room: float) -> None:
    """An edge's label along its edge (the sides' turned, as the page turns them), in the largest
    size from 13 down to 8 that fits its triangle's room; past that its end gives way."""
    from PIL import Image, ImageDraw

    text, font = _fitted(draw, text, room, range(13, 7, -1))
    if side % 2 == 0:
        draw.text(at, text, fill="black", font=font, anchor="mm")
        return
    box = draw.textbbox((0, 0), text, font=font, anchor="lt")
    label = Image.new("L", (box[2] + 2, box[3] + 2), 0)
    ImageDraw.Draw(label).text((1, 1), text, fill=255, font=font, anchor="lt")
    turned = label.rotate(-90 if side == 1 else 90, expand=True)  # the right side reads downwards
    image.paste((0, 0, 0), (round(at[0] - turned.width / 2), round(at[1] - turned.height / 2)), turned)


def _tile_badge(draw: Any, centre: tuple[float, float], text: str) -> None:
    """A tile's number and turns on a white badge, so that the diagonals do not cross the text."""
    box = draw.textbbox(centre, text, anchor="mm")
    draw.rounded_rectangle(
        (box[0] - 3, box[1] - 2, box[2] + 3, box[3] + 2), radius=3, fill="white", outline=(80, 80, 80)
    )
    draw.text(centre, text, fill="black", anchor="mm")


# a drawer per family drawing (models.Family.drawing)
DRAWERS: dict[str, Callable[[Any, Any, dict[str, Any], dict[str, Any]], None]] = {
    "pieces": _pieces,
    "chain": _chain,
    "tiles": _tiles,
}
