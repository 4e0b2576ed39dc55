"""Pictures of solutions: the scene (what is shown), the self-contained page, the PNG."""

from cpsolve.pictures.page import page_html, write_page
from cpsolve.pictures.scene import Collected, scene

__all__ = ["Collected", "page_html", "scene", "write_page"]
