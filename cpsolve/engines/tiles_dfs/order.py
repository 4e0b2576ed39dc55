"""The orders in which the tiles search fills the board's places, by name.

An order decides how many labels are fixed around each place when it is filled, and so how few
candidates the tables hand it; which is best was measured (benchmarks/tiles_search.py,
docs/engines.md), and `DEFAULT_ORDER` is that choice.
"""

from __future__ import annotations

from collections.abc import Callable

Order = list[int]


def row_scan(width: int, height: int) -> Order:
    """Row by row along the shorter side, so that the open edge between filled and empty places
    is short (each place but the first of a row has two fixed sides). Along the longer side the
    search made 1.8 times the placements on a planted 7x5 board and 10 times on an 8x3
    (benchmarks/tiles_search.py, docs/engines.md)."""
    if width <= height:
        return list(range(width * height))
    return [y * width + x for x in range(width) for y in range(height)]


def _ring(width: int, height: int, inset: int) -> Order:
    """The places of one ring `inset` places in from the edge, clockwise from its top-left corner."""
    left, top, right, bottom = inset, inset, width - 1 - inset, height - 1 - inset
    if left > right or top > bottom:
        return []
    cells = [(x, top) for x in range(left, right + 1)]
    cells += [(right, y) for y in range(top + 1, bottom + 1)]
    if bottom > top:
        cells += [(x, bottom) for x in range(right - 1, left - 1, -1)]
    if right > left:
        cells += [(left, y) for y in range(bottom - 1, top, -1)]
    return [y * width + x for x, y in cells]


def frame(width: int, height: int) -> Order:
    """The outer ring clockwise, then the inside row by row (the frame's labels are the fewest,
    so its tiles are the most alike: fixing them first leaves the inside well keyed)."""
    ring = _ring(width, height, 0)
    on_ring = set(ring)
    return ring + [p for p in row_scan(width, height) if p not in on_ring]


def spiral(width: int, height: int) -> Order:
    """Ring after ring, from the edge inwards."""
    order: Order = []
    for inset in range((min(width, height) + 1) // 2):
        order += _ring(width, height, inset)
    return order


def squares(width: int, height: int) -> Order:
    """Growing squares from the top-left corner: column s down to row s - 1, then row s. Each
    frame tile it places (one label fixed, of few frame labels) is met by the inner tiles beside it
    within a row or column, where the row scan places a whole row of them first: raced, it finds
    the planted 10x10 boards in 0.01-1.05 s where the row scan takes 0.01-2.38 s (docs/engines.md)."""
    cells: list[tuple[int, int]] = []
    for s in range(max(width, height)):
        if s < width:
            cells += [(s, y) for y in range(min(s, height))]
        if s < height:
            cells += [(x, s) for x in range(min(s + 1, width))]
    return [y * width + x for x, y in cells]


def two_rows(width: int, height: int) -> Order:
    """Two rows at a time, column by column: a tile on the upper row meets the one below at once."""
    return [y * width + x for top in range(0, height, 2) for x in range(width) for y in (top, top + 1) if y < height]


def diagonals(width: int, height: int) -> Order:
    """Anti-diagonal after anti-diagonal from the top-left corner."""
    return [(d - x) * width + x for d in range(width + height - 1) for x in range(width) if 0 <= d - x < height]


# the order the engine uses, and those measured against it (benchmarks/tiles_search.py --orders)
ORDERS: dict[str, Callable[[int, int], Order]] = {
    "rows": row_scan,
    "frame": frame,
    "spiral": spiral,
    "squares": squares,
    "two-rows": two_rows,
    "diagonals": diagonals,
}
DEFAULT_ORDER = "rows"
RACE_ORDER = "squares"  # the order whose mirror images a search for one solution races


def fill_order(name: str, width: int, height: int) -> Order:
    return ORDERS[name](width, height)


def mirrored_orders(order: Order, width: int, height: int) -> list[Order]:
    """`order` and its distinct images under the board's mirrors and turns that keep its long side
    long (eight on a square board, four on another): the same order started from each corner,
    along either side where both are as short. Their search trees differ by orders of magnitude on
    one board (a planted 10x10, seed 3: 0.2 to 14 million placements to the solution in growing
    squares, 2.8 to 172 million in rows), and which is smallest depends on the board, so a search
    for one solution races them."""
    maps = [(False, False, False), (True, False, False), (False, True, False), (True, True, False)]
    if width == height:
        maps += [(flip_x, flip_y, True) for flip_x, flip_y, _ in maps]
    images: dict[tuple[int, ...], None] = {}
    for flip_x, flip_y, transpose in maps:
        image = []
        for place in order:
            x, y = place % width, place // width
            if transpose:
                x, y = y, x
            image.append((height - 1 - y if flip_y else y) * width + (width - 1 - x if flip_x else x))
        images.setdefault(tuple(image), None)
    return [list(image) for image in images]
