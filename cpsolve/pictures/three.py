"""The studio page's files: its own scripts (package data) and three.js, installed from the npm registry.

three.js is pinned in `web/package-lock.json` (committed, with its integrity hash) and installed by
`cpsolve compile` with the machine's npm (`npm ci`: the exact version, checked against the hash)
into the user's cache folder, in a folder named by the lockfile's digest, so a new pin installs
beside the old one and an install never writes into the package. Nothing is committed or loaded
from a CDN: the studio works offline once set up. The server serves a fixed list of files from
there (VENDOR_FILES) and nothing else of it.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from collections.abc import Callable
from importlib import resources
from pathlib import Path

from cpsolve.errors import CpsolveError

FOLDER_ENV = "CPSOLVE_STUDIO_WEB_DIR"  # where three.js is installed (default: the user's cache folder)
NPM_SECONDS = 600  # an install that takes longer has hung (a registry that does not answer)
# The page's scripts (package data) and the library files it imports, by the name the page uses
OWN_FILES = ("studio.js", "editor.js", "grids.js", "studio.css")
VENDOR_FILES = {
    "three.module.js": "three/build/three.module.js",
    "three.core.js": "three/build/three.core.js",  # three.module.js imports it by this name
    "OrbitControls.js": "three/examples/jsm/controls/OrbitControls.js",
}
MEDIA = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}
NOT_INSTALLED = "the studio's 3-D editor needs three.js, installed by `cpsolve compile` (with npm); run it once"


def _web() -> Path:
    return Path(str(resources.files("cpsolve.studio").joinpath("web")))


def lock_digest() -> str:
    return hashlib.sha256((_web() / "package-lock.json").read_bytes()).hexdigest()[:16]


def install_folder() -> Path:
    """Where this lockfile's three.js is (or would be) installed."""
    base = os.environ.get(FOLDER_ENV)
    if base is None:
        cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        base = str(Path(cache) / "cpsolve" / "studio-web")
    return Path(base) / lock_digest()


def vendor_file(name: str) -> Path | None:
    """An installed library file the page imports, or None (not one of them, or not installed)."""
    relative = VENDOR_FILES.get(name)
    if relative is None:
        return None
    path = install_folder() / "node_modules" / relative
    return path if path.is_file() else None


def own_file(name: str) -> str | None:
    """One of the page's own scripts or its style sheet, or None."""
    if name not in OWN_FILES:
        return None
    return resources.files("cpsolve.studio").joinpath(f"static/{name}").read_text(encoding="utf-8")


def installed() -> bool:
    return all(vendor_file(name) is not None for name in VENDOR_FILES)


def install(say: Callable[[str], None]) -> Path:
    """Install the pinned three.js with `npm ci` (integrity-checked, no install scripts run);
    nothing to do where it is installed. CpsolveError if npm is missing or fails."""
    folder = install_folder()
    if installed():
        return folder
    npm = shutil.which("npm")
    if npm is None:
        raise CpsolveError("npm not found: the studio's three.js is not installed (install Node.js and npm; again)")
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("package.json", "package-lock.json"):
        shutil.copyfile(_web() / name, folder / name)
    say(f"installing three.js with npm ci into {folder}")
    command = [npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"]
    try:
        done = subprocess.run(command, cwd=folder, capture_output=True, text=True, timeout=NPM_SECONDS, check=False)
    except subprocess.TimeoutExpired:
        raise CpsolveError(f"npm ci ran past {NPM_SECONDS} s: the studio's three.js is not installed") from None
    if done.returncode != 0 or not installed():
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise CpsolveError(f"npm ci failed ({last}): the studio's three.js is not installed")
    return folder
