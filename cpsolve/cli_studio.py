"""`cpsolve studio`: the studio's server (cpsolve.studio) on this machine, until Ctrl-C.

Thin over cpsolve.studio.server: it makes the token, finds a port, loads every engine once (so
that no request pays for it), prints the one line a user or a script needs, and serves.
"""

from __future__ import annotations

import os
import secrets
import socket
import sys
import threading
import webbrowser
from pathlib import Path
from typing import Annotated
from urllib.parse import quote

import typer

from cpsolve.errors import EXIT_BAD_INPUT, CpsolveError, printable

TOKEN_BYTES = 24  # a token of 32 URL-safe characters, new at every start
BACKLOG = 128  # connections waiting to be accepted


def studio_command(
    given: Annotated[
        Path,
        typer.Argument(
            metavar="FILE_OR_FOLDER",
            help="the workspace: the only folder read and written (a puzzle file: its folder, that file opened)",
        ),
    ] = Path("."),
    port: Annotated[int, typer.Option("--port", metavar="N", min=0, max=65535, help="0: a free port")] = 0,
    host: Annotated[
        str, typer.Option("--host", metavar="ADDRESS", help="the address to listen on; loopback unless you say")
    ] = "127.0.0.1",
    no_browser: Annotated[
        bool, typer.Option("--no-browser", help="print the address only; do not open it in the browser")
    ] = False,
) -> None:
    """Serve the studio (its page and its HTTP API) for the puzzle files of a folder, in one process
    that keeps the engines loaded; print its address and token, open the page in the browser; run
    until Ctrl-C. Needs the studio extra."""
    try:
        import uvicorn

        from cpsolve.studio.connections import GuardedH11Protocol, quiet_floods
        from cpsolve.studio.server import create_app
        from cpsolve.studio.state import LOOPBACK_NAMES, Studio
        from cpsolve.studio.workspace import Workspace
    except ImportError:
        typer.echo('cpsolve studio needs the studio extra: pip install "cpsolve[studio]"', err=True)
        raise typer.Exit(code=EXIT_BAD_INPUT) from None
    folder, opened = (given.parent, given.name) if given.is_file() else (given, None)
    try:
        workspace = Workspace.at(folder)
        if opened is not None:
            workspace.check(opened)  # a puzzle file, or refused as the page would refuse it
        listening = bound(host, port)
    except (CpsolveError, OSError) as error:
        typer.echo(printable(f"cpsolve studio: {error}"), err=True)
        raise typer.Exit(code=EXIT_BAD_INPUT) from None
    chosen = int(listening.getsockname()[1])
    from cpsolve.kernels import load_every_kernel

    load_every_kernel()
    from cpsolve.grids import GRIDS
    from cpsolve.grids.drawing import description

    for grid in GRIDS:  # worked out once, before the page asks (the tetra-octa grid's: 0.7 s)
        description(grid)
    hosts = LOOPBACK_NAMES if host in LOOPBACK_NAMES else (*LOOPBACK_NAMES, host)
    studio = Studio(workspace, secrets.token_urlsafe(TOKEN_BYTES), chosen, hosts)
    shown = f"[{host}]" if ":" in host else host
    address = f"http://{shown}:{chosen}/?token={studio.token}"
    typer.echo(f"cpsolve studio: {address}")
    if opened is not None:
        address += f"&open={quote(opened)}"
    if not no_browser:
        open_in_browser(address)
    try:
        quiet_floods()
        config = uvicorn.Config(create_app(studio), log_level="warning", http=GuardedH11Protocol)
        uvicorn.Server(config).run(sockets=[listening])
    finally:
        listening.close()
        for record in list(studio.jobs.values()):
            record.job.cancel()


def bound(host: str, port: int) -> socket.socket:
    """The socket the server listens on, bound and listening here (port 0: one the system picks),
    so that the port printed is the one served, with no moment in which another program could
    take it, and a request sent as soon as the line is printed is answered, not refused."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # TCP named, and no Nagle: asyncio turns Nagle off only on sockets that say they are TCP, and
    # with it on, an answer's body waited for the client's delayed ACK: 40 ms on every request of
    # a kept-alive connection
    listening = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        listening.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listening.bind((host, port))
        listening.listen(BACKLOG)  # a request sent once the line is printed waits for the server
    except OSError:
        listening.close()
        raise
    return listening


def open_in_browser(address: str) -> None:
    """Open the page in the user's browser, from a thread of its own (a browser that takes its time
    never holds the server up), and only where there is a screen: on Linux without one, Python's
    choice is a text browser that would take over the terminal. The line printed is the way in
    where nothing opens."""
    if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        return
    threading.Thread(target=webbrowser.open, args=(address,), name="studio browser", daemon=True).start()
