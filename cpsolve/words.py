"""How counts are said to a person, in one place for every message and printed line."""

from __future__ import annotations


def plural(count: int, word: str, words: str | None = None) -> str:
    """'1 puzzle', '2 puzzles', '1,000 assemblies' (`words` where adding an s is wrong)."""
    return f"{count:,} {word if count == 1 else words or word + 's'}"
