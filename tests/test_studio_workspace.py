"""The studio's folder under attack and under a day's work: new files made exclusively, folders
swapped for links while requests run, hard links, names and bodies no file can hold, saves over a
file that changed, drafts that outlive the server, a second tab, and finished jobs within a bound."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import SPECS, checked_run, corpus_dir

pytest.importorskip("fastapi")
import httpx
from fastapi.testclient import TestClient

from cpsolve.options import RunOptions
from cpsolve.studio import state
from cpsolve.studio.server import create_app
from cpsolve.studio.state import Studio
from cpsolve.studio.workspace import Workspace

TOKEN = "t"
HOST = "http://127.0.0.1:8765"
SOMA = (SPECS / "soma.yaml").read_text()


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "workspace"
    folder.mkdir()
    shutil.copy(SPECS / "soma.yaml", folder / "soma.yaml")
    return folder


@pytest.fixture
def studio(workspace: Path) -> Iterator[Studio]:
    made = Studio(Workspace.at(workspace), TOKEN, 8765)
    yield made
    for record in made.jobs.values():
        record.job.cancel()
        record.job.wait()
    made.workspace.close()


@pytest.fixture
def client(studio: Studio) -> Iterator[TestClient]:
    with TestClient(create_app(studio), base_url=HOST, headers={"Authorization": f"Bearer {TOKEN}"}) as test_client:
        yield test_client


def test_of_two_requests_making_one_new_file_one_wins(client: TestClient, workspace: Path) -> None:
    """Twenty races of two threads making the same new file: one 200 and one 409 each time, and
    the file holds the winner's content."""
    for round_number in range(20):
        name = f"race{round_number}.yaml"
        answers: dict[str, int] = {}
        start = threading.Barrier(2)

        def make(
            content: str, answers: dict[str, int] = answers, name: str = name, start: threading.Barrier = start
        ) -> None:
            start.wait()
            answers[content] = client.put(f"/api/files/{name}?new=true", json={"content": content}).status_code

        threads = [threading.Thread(target=make, args=(f"name: {side}\n",)) for side in ("first", "second")]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert sorted(answers.values()) == [200, 409], answers
        winner = next(content for content, status in answers.items() if status == 200)
        assert (workspace / name).read_text() == winner


def test_a_folder_swapped_for_a_link_never_leads_outside(client: TestClient, workspace: Path, tmp_path: Path) -> None:
    """While a thread swaps a folder of the workspace for a link to a folder outside and back,
    reads and writes through it run: none reads the outside file, none writes outside."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.yaml").write_text("name: secret\n")
    inner = workspace / "inner"
    inner.mkdir()
    (inner / "secret.yaml").write_text("name: inside\n")
    stop = threading.Event()

    def swap() -> None:
        parked = workspace / "parked"
        while not stop.is_set():
            inner.rename(parked)
            inner.symlink_to(outside)
            inner.unlink()
            parked.rename(inner)

    swapper = threading.Thread(target=swap)
    swapper.start()
    try:
        read_outside = written_outside = 0
        for number in range(200):
            answer = client.get("/api/files/inner/secret.yaml")
            read_outside += answer.status_code == 200 and "name: secret" in answer.json()["content"]
            client.put(f"/api/files/inner/w{number}.yaml", json={"content": "name: written\n"})
            written_outside += (outside / f"w{number}.yaml").exists()
    finally:
        stop.set()
        swapper.join()
    assert (read_outside, written_outside) == (0, 0)
    assert (outside / "secret.yaml").read_text() == "name: secret\n" and sorted(os.listdir(outside)) == ["secret.yaml"]


def test_links_and_hard_links_are_refused(client: TestClient, workspace: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.yaml"
    outside.write_text(SOMA)
    os.link(outside, workspace / "hard.yaml")
    (workspace / "soft.yaml").symlink_to(outside)
    for name in ("hard.yaml", "soft.yaml"):
        answer = client.get(f"/api/files/{name}")
        assert answer.status_code == 403, (name, answer.text)
        assert client.post("/api/jobs", json={"path": name}).status_code == 403
    assert client.get("/api/files").json()["files"] == ["hard.yaml", "soma.yaml"]  # listed, never read


@pytest.mark.parametrize(
    ("method", "path", "headers", "body"),
    [
        ("GET", "/api/files", {"Origin": "http://127.0.0.1:99999"}, None),
        ("GET", "/api/files", {"Origin": "http://[::1"}, None),
        ("GET", "/api/files", {"Origin": "http://[fe80::1]:8765"}, None),
        ("GET", "/api/files", {"Host": "[::1"}, None),
        ("GET", "/api/files", {"Host": "127.0.0.1:port"}, None),
        ("GET", "/api/files/" + "n" * 300 + ".yaml", {}, None),
        ("GET", "/api/files/%ED%A0%80.yaml", {}, None),
        ("POST", "/api/validate", {}, b'{"path": "\\ud800.yaml"}'),
        ("POST", "/api/jobs", {}, b'{"spec": {"name": "\\ud800", "pieces": {}, "target": {"box": [1, 1]}}}'),
        ("PUT", "/api/files/bad.yaml", {}, b'{"content": "name: \\ud800"}'),
        ("POST", "/api/jobs", {}, b'{"path": "soma.yaml", "options": {"time_limit": 1e999}}'),
        ("POST", "/api/jobs", {}, b'{"path": "soma.yaml", "options": {"time_limit": NaN}}'),
        ("POST", "/api/jobs", {}, b'{"path": "soma.yaml", "options": {"time_limit": Infinity}}'),
        ("POST", "/api/jobs", {}, b'{"path": "soma.yaml"'),
        ("PUT", "/api/files/bad.yaml", {}, b"\xff\xfe"),
    ],
)
def test_what_no_file_can_hold_is_a_one_line_refusal_with_the_headers(
    client: TestClient, method: str, path: str, headers: dict[str, str], body: bytes | None
) -> None:
    """Origins and Hosts that are no host and port, a name past the file system's limit, lone
    surrogates in a path, a name or a file's text, numbers past the largest and not numbers, a body
    that is no JSON or no UTF-8: each a 4xx of one line of JSON, with the security headers."""
    sent = {**headers, **({"Content-Type": "application/json"} if body is not None else {})}
    answer = client.request(method, path, headers=sent, content=body)
    assert 400 <= answer.status_code < 500, (answer.status_code, answer.text)
    error = answer.json()["error"]
    assert error and "\n" not in error and "Traceback" not in error
    assert answer.headers["content-security-policy"].startswith("default-src 'none'")
    assert answer.headers["x-content-type-options"] == "nosniff"


def test_a_save_over_a_file_changed_since_it_was_read_is_refused(client: TestClient, workspace: Path) -> None:
    read = client.get("/api/files/soma.yaml").json()
    assert read["revision"]
    (workspace / "soma.yaml").write_text(SOMA.replace("Soma cube", "Changed elsewhere"))
    refused = client.put("/api/files/soma.yaml", json={"content": read["content"], "base": read["revision"]})
    assert refused.status_code == 409 and "changed on disk since it was opened" in refused.json()["error"]
    assert "Changed elsewhere" in (workspace / "soma.yaml").read_text()
    fresh = client.get("/api/files/soma.yaml").json()
    saved = client.put("/api/files/soma.yaml", json={"content": SOMA, "base": fresh["revision"]})
    assert saved.status_code == 200 and saved.json()["revision"] != fresh["revision"]
    spec = client.get("/api/puzzle/soma.yaml").json()
    (workspace / "soma.yaml").write_text(SOMA + "\n")
    answer = client.put("/api/puzzle/soma.yaml", json={"spec": spec["spec"], "base": spec["revision"]})
    assert answer.status_code == 409


def test_drafts_outlive_the_server_and_go_when_the_file_is_saved(studio: Studio, workspace: Path) -> None:
    with TestClient(create_app(studio), base_url=HOST, headers={"Authorization": f"Bearer {TOKEN}"}) as client:
        revision = client.get("/api/files/soma.yaml").json()["revision"]
        kept = client.put("/api/drafts/soma.yaml", json={"content": "name: mine\n", "base": revision, "client": "a"})
        assert kept.status_code == 200
    again = Studio(Workspace.at(workspace), TOKEN, 8765)  # a server started again on the folder
    with TestClient(create_app(again), base_url=HOST, headers={"Authorization": f"Bearer {TOKEN}"}) as client:
        draft = client.get("/api/drafts/soma.yaml").json()["draft"]
        assert draft["content"] == "name: mine\n" and draft["changed_since"] is False
        assert [entry["path"] for entry in client.get("/api/drafts").json()["drafts"]] == ["soma.yaml"]
        assert client.get("/api/files").json()["files"] == ["soma.yaml"]  # the drafts folder is not listed
        assert client.get("/api/files/.cpsolve-drafts/x.yaml").status_code == 403
        (workspace / "soma.yaml").write_text(SOMA + "\n")
        assert client.get("/api/drafts/soma.yaml").json()["draft"]["changed_since"] is True
        client.put("/api/files/soma.yaml", json={"content": "name: mine\n"})
        assert client.get("/api/drafts/soma.yaml").json() == {"draft": None}
        assert client.get("/api/drafts").json()["drafts"] == []


def test_what_a_killed_write_left_is_removed_at_start(workspace: Path) -> None:
    (workspace / ".cpsolve-0123456789abcdef.part").write_bytes(b"x" * 1000)
    (workspace / "sub").mkdir()
    (workspace / "sub" / ".cpsolve-fedcba9876543210.part").write_bytes(b"y")
    (workspace / ".hidden-of-the-user.part").write_bytes(b"kept")
    Workspace.at(workspace).close()
    left = sorted(path.name for path in workspace.rglob("*.part"))
    assert left == [".hidden-of-the-user.part"]


def test_a_second_page_on_one_file_is_told(client: TestClient) -> None:
    assert client.post("/api/presence", json={"path": "soma.yaml", "client": "first"}).json()["others"] == []
    assert client.post("/api/presence", json={"path": "soma.yaml", "client": "second"}).json()["others"] == ["first"]
    client.post("/api/presence", json={"path": "soma.yaml", "client": "first", "leaving": True})
    assert client.post("/api/presence", json={"path": "soma.yaml", "client": "second"}).json()["others"] == []


def test_finished_jobs_are_kept_within_the_budget_newest_first(
    client: TestClient, studio: Studio, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The newest KEPT_WHOLE finished jobs keep their page; older ones their report and last event,
    and their page says why it is gone."""
    monkeypatch.setattr(state, "KEPT_WHOLE", 2)
    numbers = []
    for _ in range(4):
        number = client.post("/api/jobs", json={"path": "soma.yaml", "options": {"show": 3, "workers": 1}}).json()["id"]
        with client.stream("GET", f"/api/jobs/{number}/events") as events:
            list(events.iter_lines())
        numbers.append(number)
    studio.settle()
    whole = [studio.jobs[number].whole for number in numbers]
    assert whole == [False, False, True, True]
    old = client.get(f"/api/jobs/{numbers[0]}/page")
    assert old.status_code == 404 and "let go to keep the studio's memory bounded" in old.json()["error"]
    assert client.get(f"/api/jobs/{numbers[0]}").json()["report"]["counts"]["unique"] == 240
    assert client.get(f"/api/jobs/{numbers[-1]}/page").status_code == 200
    with client.stream("GET", f"/api/jobs/{numbers[0]}/events") as events:
        kinds = [line for line in events.iter_lines() if line.startswith("event: ")]
    assert kinds == ["event: finished"]


@pytest.mark.parametrize("name", ["DemoMirrorParadox", "BallRoom", "BrokenSticks", "Prisgon"])
def test_a_file_of_problems_is_edited_whole_and_saved_with_its_counts(
    client: TestClient, workspace: Path, name: str
) -> None:
    """A BurrTools file of several problems read with every problem's spec, one renamed, one added
    and saved as the page saves it: the file read back holds them all, named so, and each problem
    counts as the original's (its own pieces, on its own grid)."""
    folder = corpus_dir("burrtools") if name == "DemoMirrorParadox" else corpus_dir("burrtools-grids")
    shutil.copy(folder / f"{name}.xmpuzzle", workspace / "many.xmpuzzle")
    read = client.get("/api/puzzle/many.xmpuzzle").json()
    assert read["specs"] is not None and len(read["specs"]) == len(read["problems"]) > 1
    problems = [{"name": title, "spec": spec} for title, spec in zip(read["problems"], read["specs"], strict=True)]
    problems[0]["name"] = "renamed"
    problems.append({"name": "a copy", "spec": read["specs"][-1]})
    saved = client.put("/api/puzzle/many.xmpuzzle", json={"problems": problems, "base": read["revision"]})
    assert saved.status_code == 200, saved.text
    again = client.get("/api/puzzle/many.xmpuzzle").json()
    assert again["problems"] == ["renamed", *read["problems"][1:], "a copy"]
    original = [
        checked_run(folder / f"{name}.xmpuzzle", RunOptions(show=0, problem=str(n))).counts
        for n in range(len(read["problems"]))
    ]
    written = [
        checked_run(workspace / "many.xmpuzzle", RunOptions(show=0, problem=str(n))).counts
        for n in range(len(problems))
    ]
    assert written == [*original, original[-1]]


def test_a_yaml_spec_of_two_problems_is_refused_with_the_way_out_and_one_spec_does_not_replace_many(
    client: TestClient, workspace: Path
) -> None:
    read = client.get("/api/puzzle/soma.yaml").json()
    assert read["specs"] == [read["spec"]]
    two = [{"name": "Soma cube", "spec": read["spec"]}, {"name": "second", "spec": read["spec"]}]
    refused = client.put("/api/puzzle/soma.yaml", json={"problems": two, "base": read["revision"]})
    assert refused.status_code == 400
    assert refused.json()["error"] == (
        "soma.yaml: a YAML spec holds one problem and this puzzle has 2: save it as a .xmpuzzle file"
    )
    assert client.put("/api/puzzle/soma.xmpuzzle?new=true", json={"problems": two}).status_code == 200
    assert client.get("/api/puzzle/soma.xmpuzzle").json()["problems"] == ["Soma cube", "second"]
    one = client.put("/api/puzzle/soma.xmpuzzle", json={"spec": read["spec"]})
    assert one.status_code == 400 and "saving one would drop the others" in one.json()["error"]
    both = client.put("/api/puzzle/soma.xmpuzzle", json={"spec": read["spec"], "problems": two})
    assert both.status_code == 400 and "one of the two" in both.json()["error"]


def test_event_streams_past_the_bound_are_refused_and_a_stream_read_counts_while_it_is_read(
    client: TestClient, studio: Studio
) -> None:
    """A page has one stream; past MAX_STREAMS open, a new one is refused (429, one line); a stream
    read to its end counts no more (each waited in one of the sync routes' few threads, and 60 of
    them slowed every request)."""
    number = client.post("/api/jobs", json={"path": "soma.yaml"}).json()["id"]
    with client.stream("GET", f"/api/jobs/{number}/events") as response:
        assert any(line.startswith("event: finished") for line in response.iter_lines())
    assert studio.streams == 0
    studio.streams = state.MAX_STREAMS
    refused = client.get(f"/api/jobs/{number}/events")
    assert refused.status_code == 429
    assert refused.json()["error"] == (
        f"{state.MAX_STREAMS} event streams are open, the most the studio serves at once; close one"
    )


@pytest.mark.slow
def test_connections_that_never_send_their_headers_are_let_go_and_a_flood_is_said_once(workspace: Path) -> None:
    """300 connections that send half a request line: those past MAX_CONNECTIONS are closed as
    they come, the rest once HEADER_SECONDS pass; then the user's request is answered, and the
    server's log says the flood in a line or two, not one a connection."""
    from cpsolve.studio import connections

    process = subprocess.Popen(
        [sys.executable, "-m", "cpsolve", "studio", str(workspace), "--no-browser"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None and process.stderr is not None
        address, token = process.stdout.readline().strip().removeprefix("cpsolve studio: ").split("/?token=")
        port = int(address.rsplit(":", 1)[1])
        slow = []
        for _ in range(300):
            sock = socket.create_connection(("127.0.0.1", port), timeout=120)
            sock.sendall(b"GET /api/files HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # the headers never end
            slow.append(sock)
        closed = 0
        for sock in slow:  # each ends: closed by the server at once (past the bound) or at its deadline
            with contextlib.suppress(ConnectionResetError):  # closed with the half request unread: a reset
                assert sock.recv(1024) == b""
            closed += 1
            sock.close()
        assert closed == 300
        answer = httpx.get(f"{address}/api/files", headers={"Authorization": f"Bearer {token}"}, timeout=60)
        assert answer.status_code == 200
    finally:
        process.terminate()
        process.wait(timeout=30)
    errors = process.stderr.read() if process.stderr is not None else ""
    assert errors.count(f"more than {connections.MAX_CONNECTIONS} connections open") == 1, errors[:2000]
    assert len(errors) < 5_000
