"""Colours for pictures: distinct colours for pieces and labels, and a gradient along a chain.

Shared by every family's part of a picture (cpsolve.models) and the drawers (cpsolve.pictures).
"""

from __future__ import annotations

import colorsys
import functools
import math
import threading

GOLDEN_TURN = 0.381966  # hues this far apart stay distinct for many pieces
# What a constraint colour is drawn in, and written to a BurrTools file as: a colour word is that
# colour, "colourN" (the names BurrTools' colours are read as) BurrTools' N-th, #rrggbb itself, any
# other name the next of BurrTools' palette (BURRTOOLS_COLOURS: the colours its own files start with)
COLOUR_WORDS = {
    "red": "#dc2828",
    "green": "#28aa50",
    "blue": "#2878dc",
    "yellow": "#f0c828",
    "orange": "#f08c28",
    "purple": "#a050c8",
    "violet": "#a050c8",
    "black": "#282828",
    "white": "#f0f0f0",
    "grey": "#8c8c8c",
    "gray": "#8c8c8c",
    "brown": "#8c5a28",
    "pink": "#f08cc8",
    "cyan": "#28c8dc",
    "magenta": "#c828b4",
}
BURRTOOLS_COLOURS = ("#dc2828", "#282828", "#2878dc", "#f0c828", "#28aa50", "#a050c8")


def hex_colour(hue: float, lightness: float, saturation: float) -> str:
    red, green, blue = colorsys.hls_to_rgb(hue, lightness, saturation)
    return f"#{round(red * 255):02x}{round(green * 255):02x}{round(blue * 255):02x}"


def constraint_colour(name: str, number: int) -> str:
    """The #rrggbb a constraint colour is drawn and written in (see COLOUR_WORDS); `number`: its
    place among the puzzle's colours, from 0, for a name that says no colour."""
    word = name.strip().lower()
    if word in COLOUR_WORDS:
        return COLOUR_WORDS[word]
    if len(word) == 7 and word.startswith("#") and all(c in "0123456789abcdef" for c in word[1:]):
        return word
    if word.startswith("colour") and word[6:].isdigit() and int(word[6:]) >= 1:
        return BURRTOOLS_COLOURS[(int(word[6:]) - 1) % len(BURRTOOLS_COLOURS)]
    return BURRTOOLS_COLOURS[number % len(BURRTOOLS_COLOURS)]


def constraint_colours(names: list[str]) -> dict[str, str]:
    """Each of a puzzle's constraint colours (in its order) as #rrggbb."""
    return {name: constraint_colour(name, number) for number, name in enumerate(names)}


def palette(count: int) -> list[str]:
    """`count` colours as #rrggbb, each as far as it can be from all chosen before it, as the eye
    sees it (CIELAB distance): a red first, then greedily the candidate farthest from the nearest
    chosen one, among hues every 10 degrees at three lightnesses and two saturations. Measured
    (tests/test_pictures.py): the nearest two of 7 colours are 33.6 apart with hues a golden
    turn apart and lightness alternating (Soma's L and P were two greens), 56.8 so; of 13 (Bedlam),
    23.6 against 39.0; of 20, 15.8 against 29.5. Beyond the candidates' number, colours repeat.
    Kept per count (the greedy choice took 1.8 ms, a fifth of a design's page)."""
    colours = _palette(min(count, len(_CANDIDATES)))
    return [colours[i % len(colours)] for i in range(count)]


@functools.lru_cache(maxsize=256)  # counts up to the candidates (216): past them colours repeat
def _palette(count: int) -> tuple[str, ...]:
    chosen: list[int] = [0]
    nearest = [_distance(_CANDIDATES[0][1], lab) for _, lab in _CANDIDATES]
    while len(chosen) < min(count, len(_CANDIDATES)):
        best = max(range(len(_CANDIDATES)), key=nearest.__getitem__)
        chosen.append(best)
        nearest = [
            min(d, _distance(_CANDIDATES[best][1], lab)) for d, (_, lab) in zip(nearest, _CANDIDATES, strict=True)
        ]
    colours = [_CANDIDATES[n][0] for n in chosen]
    return tuple(colours)


def copy_shade(colour: str, copy: int) -> str:
    """The colour of a piece's `copy`-th copy (from 0): the piece's own for the first, then
    shades of its hue, each as far as it can be from the shades before it, so that copies side by
    side are told apart and still look akin. Each colour's shades are chosen once, as far as the
    copies asked for go (chosen again for every copy, a 50x50 board of dominoes took 34 s)."""
    with _SHADES_LOCK:
        shades = _SHADES.get(colour)
        if shades is None:
            if len(_SHADES) >= MAX_SHADED_COLOURS:
                _SHADES.clear()
            shades = _SHADES[colour] = _Shades(colour)
        return shades.upto(copy)


class _Shades:
    """A piece's colour, then greedily the shade farthest (CIELAB) from the nearest chosen, among
    its hue and two near it at lightnesses 0.25 to 0.8, grown as copies are asked for (the greedy
    choice makes each list the start of the next). Lightness steps of +-0.16 from the colour
    (clamped) left a light piece's copies 5.1 apart (CubeInCage's two frames: two greens)."""

    def __init__(self, colour: str) -> None:
        red, green, blue = (int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5))
        hue, _, saturation = colorsys.rgb_to_hls(red, green, blue)
        self.candidates = [
            hex_colour((hue + turn) % 1.0, lightness / 20, saturation)
            for turn in (-0.04, 0.0, 0.04)
            for lightness in range(5, 17)
        ]
        self.labs = [lab_of(candidate) for candidate in self.candidates]
        self.chosen = [colour]
        self.nearest = [_distance(lab_of(colour), lab) for lab in self.labs]

    def upto(self, copy: int) -> str:
        while len(self.chosen) <= copy:
            best = max(range(len(self.candidates)), key=self.nearest.__getitem__)
            self.chosen.append(self.candidates[best])
            self.nearest = [
                min(d, _distance(self.labs[best], lab)) for d, lab in zip(self.nearest, self.labs, strict=True)
            ]
        return self.chosen[copy]


MAX_SHADED_COLOURS = 256  # colours whose shades are kept (a palette has a few dozen)
_SHADES: dict[str, _Shades] = {}
_SHADES_LOCK = threading.Lock()


def lab_of(colour: str) -> tuple[float, float, float]:
    """A #rrggbb colour in CIELAB (D65): distances there follow what the eye tells apart."""
    red, green, blue = (int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5))
    red, green, blue = (_linear(red), _linear(green), _linear(blue))
    x = (0.4124 * red + 0.3576 * green + 0.1805 * blue) / 0.95047
    y = 0.2126 * red + 0.7152 * green + 0.0722 * blue
    z = (0.0193 * red + 0.1192 * green + 0.9505 * blue) / 1.08883
    fx, fy, fz = (_cube_root(v) for v in (x, y, z))
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def _linear(channel: float) -> float:
    return ((channel + 0.055) / 1.055) ** 2.4 if channel > 0.04045 else channel / 12.92


def _cube_root(value: float) -> float:
    return value ** (1 / 3) if value > 0.008856 else 7.787 * value + 16 / 116


def _distance(first: tuple[float, float, float], second: tuple[float, float, float]) -> float:
    return math.dist(first, second)


_CANDIDATES = [
    (colour, lab_of(colour))
    for colour in (
        hex_colour(hue / 36, lightness, saturation)
        for hue in range(36)
        for lightness in (0.42, 0.55, 0.68)
        for saturation in (0.6, 0.85)
    )
]


def along(count: int) -> list[str]:
    """Colours of `count` things in a row (a chain's cubes): hues from red (the first) to blue."""
    return [hex_colour(2 / 3 * index / max(1, count - 1), 0.5, 0.7) for index in range(count)]
