"""`cpsolve studio`: the studio's server (cpsolve.studio) on this machine, until Ctrl-C.

Thin over cpsolve.studio.server: it makes the token, finds a port, loads every engine once (so
that no request pays for it), prints the one line a user or a script needs, and serves.
"""

from __future__ import annotations

import secrets
import socket
from pathlib import Path
from typing import Annotated

import typer

from cpsolve.errors import EXIT_BAD_INPUT, CpsolveError, printable

TOKEN_BYTES = 24  # a token of 32 URL-safe characters, new at every start


def studio_command(
    folder: Annotated[
        Path, typer.Argument(metavar="FOLDER", help="the workspace: the only folder whose files it reads and writes")
    ] = Path("."),
    port: Annotated[int, typer.Option("--port", metavar="N", min=0, max=65535, help="0: a free port")] = 0,
    host: Annotated[
        str, typer.Option("--host", metavar="ADDRESS", help="the address to listen on; loopback unless you say")
    ] = "127.0.0.1",
) -> None:
    """Serve the studio's HTTP API for the puzzle files of FOLDER, in one process that keeps the
    engines loaded; print its address and token; run until Ctrl-C. Needs the studio extra."""
    try:
        import uvicorn

        from cpsolve.studio.server import LOOPBACK_NAMES, Studio, create_app
        from cpsolve.studio.workspace import Workspace
    except ImportError:
        typer.echo('cpsolve studio needs the studio extra: pip install "cpsolve[studio]"', err=True)
        raise typer.Exit(code=EXIT_BAD_INPUT) from None
    try:
        workspace = Workspace.at(folder)
        chosen = port or free_port(host)
    except (CpsolveError, OSError) as error:
        typer.echo(printable(str(error)), err=True)
        raise typer.Exit(code=EXIT_BAD_INPUT) from None
    from cpsolve.kernels import load_every_kernel

    load_every_kernel()
    hosts = LOOPBACK_NAMES if host in LOOPBACK_NAMES else (*LOOPBACK_NAMES, host)
    studio = Studio(workspace, secrets.token_urlsafe(TOKEN_BYTES), chosen, hosts)
    shown = f"[{host}]" if ":" in host else host
    typer.echo(f"cpsolve studio: http://{shown}:{chosen}/?token={studio.token}")
    try:
        uvicorn.run(create_app(studio), host=host, port=chosen, log_level="warning")
    finally:
        for record in list(studio.jobs.values()):
            record.job.cancel()


def free_port(host: str) -> int:
    """A port free on `host` now (the server binds it a moment later)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])
