"""The manual's links and pictures lead somewhere: every relative link and image in README.md and
docs/ names a file of the checkout (and, with a #fragment, a heading of it)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import ROOT

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def anchors(page: Path) -> set[str]:
    """The fragments a Markdown page's headings make (as GitHub makes them)."""
    made = set()
    for line in page.read_text().splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            made.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return made


@pytest.mark.parametrize("page", PAGES, ids=[page.name for page in PAGES])
def test_every_relative_link_and_picture_resolves(page: Path) -> None:
    broken = []
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)  # code is no link
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target):
            continue  # a web address: not checked here (no network)
        name, _, fragment = target.partition("#")
        linked = (page.parent / name).resolve() if name else page
        unknown_heading = bool(fragment) and linked.suffix == ".md" and fragment not in anchors(linked)
        if not linked.exists() or unknown_heading:
            broken.append(target)
    assert not broken, f"{page.name}: {broken}"
