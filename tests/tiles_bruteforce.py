"""An independent counter for edge-matching boards: plain backtracking over labelled tiles.

Shares no code with cpsolve. Every tile (each line) is tried in every place and turn; a finished
board is recorded as the labels each place shows, so identical tiles are merged by construction.
Classes are the orbits of those records under the board's turns, found by brute force.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence

Board = tuple[tuple[Hashable, ...], ...]  # per place in reading order: (top, right, bottom, left)


def solved_boards(
    tiles: Sequence[Sequence[Hashable]],
    columns: int,
    rows: int,
    fits: Callable[[Hashable, Hashable], bool],
    border: Hashable = "any",
) -> set[Board]:
    found: set[Board] = set()
    placed: list[tuple[Hashable, ...]] = []
    used = [False] * len(tiles)

    def ok(shown: tuple[Hashable, ...], place: int) -> bool:
        x, y = place % columns, place // columns
        outer = (y == 0, x == columns - 1, y == rows - 1, x == 0)
        if border != "any" and any(edge and shown[side] != border for side, edge in enumerate(outer)):
            return False
        if x > 0 and not fits(placed[place - 1][1], shown[3]):
            return False
        return not (y > 0 and not fits(placed[place - columns][2], shown[0]))

    def extend() -> None:
        place = len(placed)
        if place == columns * rows:
            found.add(tuple(placed))
            return
        for index, tile in enumerate(tiles):
            if used[index]:
                continue
            for k in range(4):
                shown = tuple(tile[(side + k) % 4] for side in range(4))
                if ok(shown, place):
                    used[index] = True
                    placed.append(shown)
                    extend()
                    placed.pop()
                    used[index] = False

    extend()
    return found


def turn_board(board: Board, columns: int, rows: int, quarter: bool) -> Board:
    """The board turned clockwise a quarter (square boards) or a half."""
    result: dict[int, tuple[Hashable, ...]] = {}
    for place, shown in enumerate(board):
        x, y = place % columns, place // columns
        if quarter:
            result[x * columns + (columns - 1 - y)] = (shown[3], shown[0], shown[1], shown[2])
        else:
            result[(rows - 1 - y) * columns + (columns - 1 - x)] = (shown[2], shown[3], shown[0], shown[1])
    return tuple(result[p] for p in range(len(board)))


def count(
    tiles: Sequence[Sequence[Hashable]],
    columns: int,
    rows: int,
    fits: Callable[[Hashable, Hashable], bool],
    border: Hashable = "any",
) -> tuple[int, int, int]:
    """(raw, rotations, unique); tiles are never flipped, so unique = rotations."""
    boards = solved_boards(tiles, columns, rows, fits, border)
    classes: set[frozenset[Board]] = set()
    for board in boards:
        orbit = {board}
        frontier = [board]
        while frontier:
            current = frontier.pop()
            images = [turn_board(current, columns, rows, quarter=False)]
            if columns == rows:
                images.append(turn_board(current, columns, rows, quarter=True))
            for image in images:
                if image not in orbit:
                    orbit.add(image)
                    frontier.append(image)
        classes.add(frozenset(orbit))
    return len(boards), len(classes), len(classes)
