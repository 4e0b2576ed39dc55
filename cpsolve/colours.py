"""Colours for pictures: distinct colours for pieces and labels, and a gradient along a chain.

Shared by every family's part of a picture (cpsolve.models) and the drawers (cpsolve.pictures).
"""

from __future__ import annotations

import colorsys

GOLDEN_TURN = 0.381966  # hues this far apart stay distinct for many pieces


def hex_colour(hue: float, lightness: float, saturation: float) -> str:
    red, green, blue = colorsys.hls_to_rgb(hue, lightness, saturation)
    return f"#{round(red * 255):02x}{round(green * 255):02x}{round(blue * 255):02x}"


def palette(count: int) -> list[str]:
    """`count` distinct colours as #rrggbb: hues a golden turn apart, lightness alternating."""
    return [hex_colour((0.02 + i * GOLDEN_TURN) % 1.0, (0.55, 0.42, 0.66)[i % 3], 0.72) for i in range(count)]


def along(count: int) -> list[str]:
    """Colours of `count` things in a row (a chain's cubes): hues from red (the first) to blue."""
    return [hex_colour(2 / 3 * index / max(1, count - 1), 0.5, 0.7) for index in range(count)]
