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


def test_the_architectures_layout_names_every_module_and_nothing_else() -> None:
    """docs/architecture.md's layout table lists, folder by folder, every module and static file of
    the package, and only files that are there: the map a maintainer reads stays the code's."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    listed: dict[Path, set[str]] = {}
    for row in re.findall(r"^\| `([\w/]+)/`[^|]*\| ([^|]+) \|", text, re.M):
        folder, names = row
        listed.setdefault(ROOT / folder, set()).update(re.findall(r"`([\w.-]+)`", names))
    assert ROOT / "cpsolve" in listed and ROOT / "cpsolve" / "studio" / "routes" in listed  # the table was read
    kinds = {".py", ".js", ".css", ".html"}
    for base in (ROOT / "cpsolve", ROOT / "models"):
        for folder in [base, *(path for path in base.rglob("*") if path.is_dir())]:
            present = {path.name for path in folder.iterdir() if path.suffix in kinds and path.is_file()}
            if not present:
                continue
            assert listed.get(folder) == present, (folder, listed.get(folder, set()) ^ present)
