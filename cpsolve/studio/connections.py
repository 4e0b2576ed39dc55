"""The connections the studio's server holds, within bounds a page never reaches and a flood does.

uvicorn waits for a request's headers for as long as a client takes, and takes every connection
the system gives it: 1,100 connections that never finished their headers left the user's own
request unanswered (past the process's file limit, accept() failed and asyncio said so in a line
a try: 55 MB of stderr in 35 s). Here a connection has HEADER_SECONDS to send its headers, at
most MAX_CONNECTIONS are open at once (those past it are closed as they come), and a message
repeated in a flood (uvicorn's "Invalid HTTP request received.", asyncio's accept errors) is
logged once a minute with how many were left out.
"""

from __future__ import annotations

import asyncio
import logging
import time

from uvicorn.protocols.http.h11_impl import H11Protocol

HEADER_SECONDS = 10.0  # from a connection made to its first request's headers read
MAX_CONNECTIONS = 256  # open at once: well within a process's usual 1,024 files
SAID_EVERY_SECONDS = 60.0  # a message repeated is logged once in this long


class GuardedH11Protocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol with a deadline for the first headers and a bound on connections."""

    header_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        if len(self.connections) >= MAX_CONNECTIONS:
            self.transport = transport  # what connection_lost reads, once the close is done
            logging.getLogger("uvicorn.error").warning(
                "more than %d connections open: new ones closed until some end", MAX_CONNECTIONS
            )
            transport.close()
            return
        super().connection_made(transport)
        self.header_timer = self.loop.call_later(HEADER_SECONDS, self._headers_late)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.cycle is not None and self.header_timer is not None:  # a request began: its headers came
            self.header_timer.cancel()
            self.header_timer = None

    def connection_lost(self, exc: Exception | None) -> None:
        if self.header_timer is not None:
            self.header_timer.cancel()
            self.header_timer = None
        super().connection_lost(exc)

    def _headers_late(self) -> None:
        self.header_timer = None
        if self.cycle is None and not self.transport.is_closing():
            self.transport.close()


class OncePerMinute(logging.Filter):
    """Lets a message through once every SAID_EVERY_SECONDS, then says how many it held back."""

    def __init__(self) -> None:
        super().__init__()
        self.last: dict[str, float] = {}
        self.held: dict[str, int] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        text = str(record.msg)
        now = time.monotonic()
        if now - self.last.get(text, -SAID_EVERY_SECONDS) < SAID_EVERY_SECONDS:
            self.held[text] = self.held.get(text, 0) + 1
            return False
        self.last[text] = now
        held = self.held.pop(text, 0)
        if held:
            record.msg = f"{text} ({held} more like it in the last minute not shown)"
        return True


def quiet_floods() -> None:
    """The filter on the loggers a flood of connections fills: uvicorn's and asyncio's."""
    for name in ("uvicorn.error", "asyncio"):
        logging.getLogger(name).addFilter(OncePerMinute())
