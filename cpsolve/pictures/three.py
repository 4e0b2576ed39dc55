"""three.js, the one library the pages draw with, and esbuild, which bundles the standalone page:
installed from the npm registry, never committed.

Both are pinned in `web/package-lock.json` (committed, with their integrity hashes) and installed
by `cpsolve compile` with the machine's npm (`npm ci`: the exact versions, checked against the
hashes, no install scripts run) into the user's cache folder, in a folder named by the lockfile's
digest, so a new pin installs beside the old one and an install never writes into the package.
Nothing is loaded from a CDN: the studio serves three.js's modules from there (VENDOR_FILES, and
nothing else of it), and a standalone page (`cpsolve run --html`) carries one module inside it,
`page_bundle`: page-entry.js, the viewer and the parts of three.js they use, bundled and minified
by esbuild (577 KB where three.js's two files are 2.1 MB), built once per viewer and kept beside
the install.
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from importlib import resources
from pathlib import Path

from cpsolve.errors import CpsolveError

FOLDER_ENV = "CPSOLVE_STUDIO_WEB_DIR"  # where three.js is installed (default: the user's cache folder)
NPM_SECONDS = 600  # an install that takes longer has hung (a registry that does not answer)
# The library files the pages import, by the name they use
VENDOR_FILES = {
    "three.module.js": "three/build/three.module.js",
    "three.core.js": "three/build/three.core.js",  # three.module.js imports it by this name
    "controls/OrbitControls.js": "three/examples/jsm/controls/OrbitControls.js",  # three/addons/...
}
BUNDLER = "esbuild/bin/esbuild"  # in node_modules: esbuild's launcher (it runs the platform's binary)
PAGE_SOURCES = ("viewer.js", "page-entry.js")  # the page's module, from its entry
BUNDLE_SECONDS = 120
NOT_INSTALLED = "the 3-D pages need three.js, installed by `cpsolve compile` (with npm); run it once"


def _web() -> Path:
    return Path(str(resources.files("cpsolve.pictures").joinpath("web")))


@functools.cache
def lock_digest() -> str:
    """The lockfile's digest, which names the install: read once a process (the package's own file;
    read for each of a page's half-dozen lookups it was a quarter of a small page's time)."""
    return hashlib.sha256((_web() / "package-lock.json").read_bytes()).hexdigest()[:16]


def install_folder() -> Path:
    """Where this lockfile's three.js is (or would be) installed."""
    base = os.environ.get(FOLDER_ENV)
    if base is None:
        cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        base = str(Path(cache) / "cpsolve" / "studio-web")
    return Path(base) / lock_digest()


def vendor_file(name: str) -> Path | None:
    """An installed library file a page imports, or None (not one of them, or not installed)."""
    relative = VENDOR_FILES.get(name)
    if relative is None:
        return None
    path = install_folder() / "node_modules" / relative
    return path if path.is_file() else None


def installed() -> bool:
    return all(vendor_file(name) is not None for name in VENDOR_FILES) and _bundler() is not None


def _bundler() -> Path | None:
    path = install_folder() / "node_modules" / BUNDLER
    return path if path.is_file() else None


def page_bundle() -> str:
    """The standalone page's one module (page-entry.js, the viewer and three.js, bundled and
    minified by esbuild), built the first time this viewer is asked for and kept beside the
    install (named by the sources' digest: written whole by one process, renamed into place).
    CpsolveError where three.js is not installed or esbuild fails."""
    bundler, node = _bundler(), shutil.which("node")
    if not installed() or bundler is None or node is None:
        raise CpsolveError(NOT_INSTALLED)
    sources = {name: resources.files("cpsolve.pictures").joinpath(name).read_bytes() for name in PAGE_SOURCES}
    digest = hashlib.sha256(b"".join(sources[name] for name in PAGE_SOURCES)).hexdigest()[:16]
    built = install_folder() / "bundles" / f"page-{digest}.js"
    if built.is_file():
        return _read_bundle(built)
    return _bundle(node, bundler, sources, built)


_READ_BUNDLES: dict[Path, tuple[tuple[int, int], str]] = {}  # a built bundle's text, by its (mtime, size)


def _read_bundle(built: Path) -> str:
    """The bundle's text, read again only when the file changed: 577 KB read and decoded was a
    fifth of a small page's time, and a design search writes a page for each design."""
    stat = built.stat()
    seen = (stat.st_mtime_ns, stat.st_size)
    kept = _READ_BUNDLES.get(built)
    if kept is not None and kept[0] == seen:
        return kept[1]
    text = built.read_text(encoding="utf-8")
    _READ_BUNDLES.clear()  # one viewer at a time: the bundle of another digest replaces it
    _READ_BUNDLES[built] = (seen, text)
    return text


def _bundle(node: str, bundler: Path, sources: dict[str, bytes], built: Path) -> str:
    """esbuild run on copies of the sources inside the install (so that `three` resolves to its
    node_modules), into a temporary file renamed to `built`."""
    with tempfile.TemporaryDirectory(dir=install_folder(), prefix="bundle-") as folder:
        for name, data in sources.items():
            (Path(folder) / name).write_bytes(data)
        built.parent.mkdir(exist_ok=True)
        scratch = Path(folder) / "out.js"
        command = [node, str(bundler), "page-entry.js", "--bundle", "--minify", "--format=esm", f"--outfile={scratch}"]
        try:
            done = subprocess.run(command, cwd=folder, capture_output=True, text=True, timeout=BUNDLE_SECONDS)
        except subprocess.TimeoutExpired:
            raise CpsolveError(f"esbuild ran past {BUNDLE_SECONDS} s: the page's viewer is not bundled") from None
        if done.returncode != 0 or not scratch.is_file():
            last = (done.stderr.strip().splitlines() or ["no message"])[-1]
            raise CpsolveError(f"esbuild failed ({last}): the page's viewer is not bundled")
        os.replace(scratch, built)
    return built.read_text(encoding="utf-8")


def vendor_text(name: str) -> str:
    """A library file's text; CpsolveError (one line, how to install it) where it is not installed."""
    path = vendor_file(name)
    if path is None:
        raise CpsolveError(NOT_INSTALLED)
    return path.read_text(encoding="utf-8")


def install(say: Callable[[str], None]) -> Path:
    """Install the pinned three.js with `npm ci` (integrity-checked, no install scripts run);
    nothing to do where it is installed. CpsolveError if npm is missing or fails."""
    folder = install_folder()
    if installed():
        return folder
    npm = shutil.which("npm")
    if npm is None:
        raise CpsolveError("npm not found: three.js for the 3-D pages is not installed (install Node.js and npm)")
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("package.json", "package-lock.json"):
        shutil.copyfile(_web() / name, folder / name)
    say(f"installing three.js and esbuild with npm ci into {folder}")
    command = [npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"]
    try:
        done = subprocess.run(command, cwd=folder, capture_output=True, text=True, timeout=NPM_SECONDS, check=False)
    except subprocess.TimeoutExpired:
        raise CpsolveError(f"npm ci ran past {NPM_SECONDS} s: three.js is not installed") from None
    if done.returncode != 0 or not installed():
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise CpsolveError(f"npm ci failed ({last}): three.js is not installed")
    page_bundle()  # built now, so that the first page written does not wait for it
    return folder
