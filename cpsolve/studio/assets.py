"""The studio page's own files (package data) and the one library it imports (three.js: its files
are found by cpsolve.pictures.three, where `cpsolve compile` installed them). The viewer that draws
solutions is the pictures' own module, the same one a standalone page carries."""

from __future__ import annotations

from importlib import resources

# The page's own scripts and style sheet, by the name the page uses, and the package they are in
OWN_FILES = {
    "studio.js": "cpsolve.studio",
    "editor.js": "cpsolve.studio",
    "grids.js": "cpsolve.studio",
    "studio.css": "cpsolve.studio",
    "viewer.js": "cpsolve.pictures",
    "viewer.css": "cpsolve.pictures",
}
MEDIA = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}


def own_file(name: str) -> str | None:
    """One of the page's own scripts or its style sheet, or None."""
    package = OWN_FILES.get(name)
    if package is None:
        return None
    folder = "static/" if package == "cpsolve.studio" else ""
    return resources.files(package).joinpath(f"{folder}{name}").read_text(encoding="utf-8")
