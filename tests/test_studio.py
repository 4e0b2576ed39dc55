"""The studio's HTTP API: jobs started, watched, cancelled and read as `cpsolve run --json` prints
them; and every refusal a local server owes its user (token, Host, Origin, paths, sizes, options).
Through FastAPI's test client, and once through the real server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import SPECS, corpus_dir
from playwright.sync_api import expect
from test_pictures import browser as browser  # the fixture: Debian's chromium through Playwright
from typer.testing import CliRunner

from cpsolve.cli import app
from cpsolve.events import Progress

pytest.importorskip("fastapi")
httpx = pytest.importorskip("httpx")

from fastapi.testclient import TestClient  # noqa: E402  (after the skip: the studio extra)

from cpsolve.studio import state  # noqa: E402
from cpsolve.studio.server import create_app  # noqa: E402
from cpsolve.studio.state import Studio  # noqa: E402
from cpsolve.studio.workspace import Workspace  # noqa: E402

TOKEN = "test-token"
HOST = "http://127.0.0.1:8765"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "workspace"
    folder.mkdir()
    shutil.copy(SPECS / "soma.yaml", folder / "soma.yaml")
    shutil.copy(SPECS / "bedlam.yaml", folder / "bedlam.yaml")
    return folder


@pytest.fixture
def client(workspace: Path) -> Iterator[TestClient]:
    studio = Studio(Workspace.at(workspace), TOKEN, 8765)
    with TestClient(create_app(studio), base_url=HOST, headers={"Authorization": f"Bearer {TOKEN}"}) as test_client:
        yield test_client
    for record in studio.jobs.values():
        record.job.cancel()
        record.job.wait()


def events_of(client: TestClient, number: str) -> list[dict[str, Any]]:
    with client.stream("GET", f"/api/jobs/{number}/events") as response:
        assert response.status_code == 200
        return [json.loads(line[6:]) for line in response.iter_lines() if line.startswith("data: ")]


def test_a_job_reports_as_the_command_line_does(client: TestClient, workspace: Path) -> None:
    """Soma from the workspace: events from started to finished, and the report `cpsolve run --json`
    prints (all but its seconds)."""
    started = client.post("/api/jobs", json={"path": "soma.yaml", "options": {"show": 1}})
    assert started.status_code == 201, started.text
    number = started.json()["id"]
    kinds = [event["event"] for event in events_of(client, number)]
    assert kinds[0] == "started" and kinds[-1] == "finished" and "class" in kinds
    state = client.get(f"/api/jobs/{number}").json()
    assert state["state"] == "done"
    result = CliRunner().invoke(app, ["run", str(workspace / "soma.yaml"), "--json", "--show", "1"])
    printed = json.loads(result.stdout)
    for report in (state["report"], printed):
        report.pop("seconds")
        report.pop("source")
        report.pop("workers")
    assert state["report"] == printed
    assert state["report"]["counts"] == {"raw": 11520, "rotations": 480, "unique": 240}
    assert state["report"]["orbit_stabiliser_ok"] is True


def test_a_finished_job_exports_what_the_command_line_writes(client: TestClient) -> None:
    """Soma's page, picture, pieces (a zip of seven closed STL meshes) and BurrTools file that
    BurrTools' reader (cpsolve's) reads back with the same counts."""
    import io
    import zipfile

    number = client.post("/api/jobs", json={"path": "soma.yaml", "options": {"show": 3}}).json()["id"]
    events_of(client, number)
    magic = {"html": b"<!DOCTYPE html>", "png": b"\x89PNG", "stl": b"PK", "xmpuzzle": b"\x1f\x8b"}
    for kind, start in magic.items():
        response = client.get(f"/api/jobs/{number}/export/{kind}")
        assert response.status_code == 200, (kind, response.text)
        assert response.content.startswith(start), kind
        assert (
            "attachment" in response.headers["content-disposition"]
            and "Soma_cube" in response.headers["content-disposition"]
        )
        if kind == "stl":
            names = zipfile.ZipFile(io.BytesIO(response.content)).namelist()
            assert len(names) == 7 and all(name.endswith(".stl") for name in names)
    assert client.get(f"/api/jobs/{number}/export/obj").status_code == 422
    state.REQUEST_SECONDS = 0.0  # a request's own time used up: refused in one line, not run on
    try:
        late = client.get(f"/api/jobs/{number}/export/stl")
        assert late.status_code == 400 and "not made within 0 s" in late.json()["error"]
        checked = client.post("/api/validate", json={"path": "bedlam.yaml"}).json()
        assert checked["ok"] is False and "not checked within 0 s" in checked["error"]
    finally:
        state.REQUEST_SECONDS = 60.0


def test_a_spec_as_json_and_a_refusal_in_the_clis_words(client: TestClient) -> None:
    spec = {"pieces": {"D": {"cells": [[0, 0], [1, 0]], "count": 2}}, "target": {"box": [2, 2]}}
    number = client.post("/api/jobs", json={"spec": spec}).json()["id"]
    events_of(client, number)
    assert client.get(f"/api/jobs/{number}").json()["report"]["counts"] == {"raw": 2, "rotations": 1, "unique": 1}
    bad = {"pieces": {"D": {"cells": [[0, 0], [1, 0]], "count": 3}}, "target": {"box": [2, 2]}}
    number = client.post("/api/jobs", json={"spec": bad}).json()["id"]
    events_of(client, number)
    state = client.get(f"/api/jobs/{number}").json()
    assert state["state"] == "failed" and "the pieces have 6 cells but the target has 4" in state["error"]
    assert "\n" not in state["error"]
    refused = client.post("/api/jobs", json={"spec": spec, "options": {"no_such_option": 1}})
    assert refused.status_code == 400 and "no_such_option" in refused.json()["error"]


def test_cancel_stops_a_long_job(client: TestClient) -> None:
    """Bedlam (seconds of search): cancelled after its first class arrives, it ends `cancelled`
    with an incomplete report, its counts lower bounds."""
    number = client.post("/api/jobs", json={"path": "bedlam.yaml", "options": {"show": 1, "workers": 1}}).json()["id"]
    with client.stream("GET", f"/api/jobs/{number}/events") as response:
        for line in response.iter_lines():
            if line.startswith("event: class"):
                break
    state = client.delete(f"/api/jobs/{number}").json()
    assert state["state"] == "cancelled"
    assert state["report"]["complete"] is False and state["report"]["stopped_by"] == "cancelled"


def test_files_are_listed_read_and_written_in_the_workspace_only(client: TestClient, workspace: Path) -> None:
    assert client.get("/api/files").json()["files"] == ["bedlam.yaml", "soma.yaml"]
    text = client.get("/api/files/soma.yaml").json()["content"]
    assert text == (SPECS / "soma.yaml").read_text()
    assert client.put("/api/files/mine.yaml", json={"content": text}).status_code == 200
    assert (workspace / "mine.yaml").read_text() == text
    (workspace / "outside.yaml").symlink_to(SPECS / "soma.yaml")
    for path in ("..%2Fsecret.yaml", "%2Fetc%2Fpasswd.yaml", "outside.yaml", "notes.txt.exe"):
        response = client.get(f"/api/files/{path}")
        assert response.status_code in (403, 404), (path, response.text)
    assert client.put("/api/files/..%2Fescape.yaml", json={"content": "x"}).status_code == 403
    taken = client.put("/api/files/soma.yaml?new=true", json={"content": "x"})
    assert taken.status_code == 409 and (workspace / "soma.yaml").read_text() == text
    assert not (workspace.parent / "escape.yaml").exists()
    assert client.post("/api/validate", json={"path": "soma.yaml"}).json() == {"ok": True, "name": "Soma cube"}
    bad = client.post("/api/validate", json={"spec": {"pieces": {}, "target": {"box": [2, 2]}}}).json()
    assert bad["ok"] is False and bad["error"]


def test_every_request_needs_the_token_this_host_and_its_own_origin(workspace: Path) -> None:
    studio = Studio(Workspace.at(workspace), TOKEN, 8765)
    with TestClient(create_app(studio), base_url=HOST) as bare:
        assert bare.get("/api/files").status_code == 401
        assert bare.get("/api/files", headers={"Authorization": "Bearer wrong"}).status_code == 403
        assert bare.get(f"/api/files?token={TOKEN}").status_code == 200
        good = {"Authorization": f"Bearer {TOKEN}"}
        assert bare.get("/api/files", headers={**good, "Origin": "http://evil.example"}).status_code == 403
        assert bare.get("/api/files", headers={**good, "Origin": "http://127.0.0.1:9999"}).status_code == 403
        assert bare.get("/api/files", headers={**good, "Origin": HOST}).status_code == 200
        assert bare.get("/api/files", headers={**good, "Host": "rebound.example:8765"}).status_code == 421
        response = bare.get("/api/files", headers=good)
        assert "default-src 'none'" in response.headers["content-security-policy"]
        huge = bare.put("/api/files/big.yaml", headers=good, json={"content": "#" * (17 * 2**20)})
        assert huge.status_code == 413


def test_options_that_write_files_are_refused_and_running_jobs_are_bounded(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    refused = client.post("/api/jobs", json={"path": "soma.yaml", "options": {"checkpoint": "x.json"}})
    assert refused.status_code == 400 and "checkpoint" in refused.json()["error"]
    monkeypatch.setattr(state, "MAX_RUNNING", 1)
    first = client.post("/api/jobs", json={"path": "bedlam.yaml", "options": {"workers": 1}}).json()["id"]
    busy = client.post("/api/jobs", json={"path": "soma.yaml"})
    assert busy.status_code == 429 and "cancel one or wait" in busy.json()["error"]
    client.delete(f"/api/jobs/{first}")


def test_a_jobs_limit_is_capped_and_its_progress_kept_bounded(workspace: Path) -> None:
    """A job asks for a day: it gets the studio's limit. A job's progress events are all kept for
    its first 100 s, then one a second (a stand-in job: 200 s of events ten a second)."""
    studio = Studio(Workspace.at(workspace), TOKEN, 8765)
    number = studio.start(state.JobRequest.model_validate({"path": "soma.yaml", "options": {"time_limit": 86_400}}))
    record = studio.record(number)
    record.job.wait()
    assert record.job.options.search.time_limit == state.STUDIO_TIME_LIMIT

    class StandIn:
        def events(self) -> Iterator[Any]:
            yield from (Progress(tenth / 10, "searching") for tenth in range(2001))

    thinned = state.Running(record.job)
    thinned.job = StandIn()  # type: ignore[assignment]
    thinned.pump()
    seconds = [json.loads(frame.split("data: ", 1)[1])["seconds"] for frame in thinned.events]
    assert len(seconds) == 1001 + 100 and thinned.ended
    assert all(later - earlier >= 1.0 - 1e-9 for earlier, later in itertools.pairwise(seconds[1001:]))


def test_a_stream_is_woken_by_each_event_and_a_quiet_one_keeps_the_line_open(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reader waiting on the event loop is woken by the job's thread as each event comes: with
    the keep-alive an hour away, the stream would hang if an event did not wake it. Each event is
    let out only once the reader has the one before (events, not sleeps). Then, with the keep-alive
    made short, a quiet stream sends its comment until the job's next event."""
    studio = Studio(Workspace.at(workspace), TOKEN, 8765)
    record = studio.record(studio.start(state.JobRequest.model_validate({"path": "soma.yaml"})))
    record.job.wait()
    gates = [threading.Event() for _ in range(4)]

    class StandIn:
        def events(self) -> Iterator[Any]:
            for tenth, gate in enumerate(gates):
                assert gate.wait(timeout=60)
                yield Progress(tenth / 10, "searching")

    running = state.Running(record.job)
    running.job = StandIn()  # type: ignore[assignment]

    async def read(keepalive: float, wanted: int, released_by: str) -> list[str]:
        """The stream's frames until it has `wanted` events, letting the next event out on each
        frame that starts with `released_by`."""
        monkeypatch.setattr(state, "KEEPALIVE_SECONDS", keepalive)
        frames: list[str] = []
        stream = running.stream()
        async for frame in stream:
            frames.append(frame)
            had = sum(frame.startswith("event:") for frame in frames)
            if had == wanted:
                break
            if frame.startswith(released_by) and had < len(gates):
                gates[had].set()
        await stream.aclose()
        return frames

    pumping = threading.Thread(target=running.pump, daemon=True)
    pumping.start()
    gates[0].set()
    woken = asyncio.run(asyncio.wait_for(read(3600, 2, "event:"), 60))
    assert [frame.split("\n", 1)[0] for frame in woken] == ["event: progress"] * 2
    quiet = asyncio.run(asyncio.wait_for(read(0.01, 4, ":"), 60))  # a late reader: from the first event
    assert sum(frame.startswith("event:") for frame in quiet) == 4 and ": still running\n\n" in quiet
    pumping.join(timeout=60)
    assert running.ended and not running.wakers


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the server runs as a process of its own")
def test_the_command_serves_on_loopback_with_a_token(workspace: Path) -> None:
    """`cpsolve studio FOLDER`: its one line, then a job of a corpus file through real HTTP."""
    shutil.copy(corpus_dir("burrtools") / "PelikanBurr.xmpuzzle", workspace / "pelikan.xmpuzzle")
    process = subprocess.Popen(
        [sys.executable, "-m", "cpsolve", "studio", str(workspace), "--no-browser"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline().strip()
        assert line.startswith("cpsolve studio: http://127.0.0.1:") and "/?token=" in line
        address, token = line.removeprefix("cpsolve studio: ").rstrip("/").split("/?token=")
        with httpx.Client(base_url=address, headers={"Authorization": f"Bearer {token}"}, timeout=120) as live:
            number = live.post("/api/jobs", json={"path": "pelikan.xmpuzzle"}).json()["id"]
            with live.stream("GET", f"/api/jobs/{number}/events") as events:
                finished = [line for line in events.iter_lines() if line.startswith("event: finished")]
            assert finished
            report = live.get(f"/api/jobs/{number}").json()["report"]
            assert report["complete"] and report["counts"]["unique"] == 12
            assert httpx.get(f"{address}/api/files", timeout=10).status_code == 401
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_the_studios_socket_sends_answers_without_waiting_for_acks() -> None:
    """The socket the server listens on says it is TCP and has Nagle off, and so do the
    connections it accepts: asyncio leaves Nagle on for a socket that does not say it is TCP, and
    every answer on a kept-alive connection then waited 40 ms for the client's delayed ACK."""
    from cpsolve.cli_studio import bound

    listening = bound("127.0.0.1", 0)
    try:
        assert listening.proto == socket.IPPROTO_TCP
        with socket.create_connection(listening.getsockname()[:2]) as client:
            accepted, _ = listening.accept()
            with accepted:
                assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
                assert client.getsockname() == accepted.getpeername()
    finally:
        listening.close()


@pytest.fixture
def live(workspace: Path) -> Iterator[str]:
    """`cpsolve studio` on the workspace, as a user starts it: its address with the token."""
    shutil.copy(corpus_dir("burrtools") / "PelikanBurr.xmpuzzle", workspace / "pelikan.xmpuzzle")
    process = subprocess.Popen(
        [sys.executable, "-m", "cpsolve", "studio", str(workspace), "--no-browser"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout is not None
        yield process.stdout.readline().strip().removeprefix("cpsolve studio: ")
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_the_page_solves_cancels_saves_and_shows_solutions(browser: Any, live: str, workspace: Path) -> None:
    """In Chromium: open Soma, solve it, read the counts and see its solutions drawn beside them;
    start Bedlam and cancel it; change a file's text, save, open it again; make new puzzles."""
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(live)
    page.click("#files button[data-path='soma.yaml']")
    page.click("#solve")
    expect(page.locator("#summary")).to_contain_text("raw 11520, rotations 480, unique 240 (complete)", timeout=60_000)
    expect(page.locator("#summary")).to_contain_text("orbit-stabiliser check ok")
    expect(page.locator("#viewer .legend .entry")).to_have_count(7, timeout=30_000)
    expect(page.locator("#table-box tr[data-index]")).to_have_count(100)  # the job keeps the first 100 drawn
    expect(page.locator("#exports a")).to_have_count(4)

    page.click("#files button[data-path='bedlam.yaml']")
    page.click("#solve")
    expect(page.locator("#status")).to_contain_text(" s: ", timeout=60_000)  # a progress event arrived
    page.click("#cancel")
    expect(page.locator("#summary")).to_contain_text("stopped: cancelled", timeout=60_000)

    page.click("#files button[data-path='soma.yaml']")
    expect(page.locator("#name")).to_have_text("soma.yaml")
    page.click("#tab-text")  # the file's text beside its drawing
    expect(page.locator("#text")).to_be_editable()
    text = page.input_value("#text")
    page.fill("#text", text.replace("name: Soma cube", "name: My Soma"))
    page.click("#save")
    expect(page.locator("#status")).to_have_text("saved soma.yaml")
    assert "name: My Soma" in (workspace / "soma.yaml").read_text()
    page.reload()
    page.click("#files button[data-path='soma.yaml']")
    page.click("#tab-text")
    expect(page.locator("#text")).to_have_value(re.compile("name: My Soma"))

    page.fill("#new-name", "mine")
    page.click("#new")
    expect(page.locator("#name")).to_have_text("mine.yaml")
    page.click("#solve")
    expect(page.locator("#summary")).to_contain_text("raw 1, rotations 1, unique 1 (complete)", timeout=60_000)
    page.fill("#new-name", "")
    page.click("#new")  # new.yaml, then new.yaml again: refused, nothing replaced
    expect(page.locator("#name")).to_have_text("new.yaml")
    page.click("#new")
    expect(page.locator("#error")).to_contain_text("already in the workspace")
    assert [error for error in errors if "409 (Conflict)" not in error] == []  # the refused new file alone
    page.close()
