"""The run request stated once: every field of Options and Outputs has one name, one description,
one pair of bounds and one refusal, and the command line (`cpsolve run --help` and its errors),
the studio's API (its OpenAPI page and its 400s) and the library (`Options.of`, `Outputs.of`)
all say them the same way."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer.main
from conftest import SPECS
from typer.testing import CliRunner

from cpsolve.cli import app
from cpsolve.cli_options import help_text
from cpsolve.errors import CpsolveError
from cpsolve.options import Options, Outputs, RunRequest, bounds, field_info, flag

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient

from cpsolve.studio.server import create_app
from cpsolve.studio.state import Studio
from cpsolve.studio.workspace import Workspace

FIELDS = [*Options.model_fields, *Outputs.model_fields]
TOKEN = "t"
# the outputs the studio takes in its exports (the others name files: the studio hands out downloads)
EXPORTED = ("solution", "stl_unit", "stl_gap", "stl_bevel")


def run_params() -> dict[str, Any]:
    command = typer.main.get_command(app).commands["run"]  # type: ignore[attr-defined]
    return {param.name: param for param in command.params}


@pytest.fixture(scope="module")
def openapi(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("workspace")
    with TestClient(create_app(Studio(Workspace.at(folder), TOKEN)), base_url="http://127.0.0.1") as client:
        schema: dict[str, Any] = client.get(f"/api/openapi.json?token={TOKEN}").json()
    return schema


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    folder = tmp_path_factory.mktemp("workspace")
    shutil.copy(SPECS / "soma.yaml", folder / "soma.yaml")
    studio = Studio(Workspace.at(folder), TOKEN)
    with TestClient(create_app(studio), base_url="http://127.0.0.1", headers={"Authorization": f"Bearer {TOKEN}"}) as c:
        yield c
    for record in studio.jobs.values():
        record.job.cancel()
        record.job.wait()


def outside(name: str) -> float | None:
    """A value past the field's bounds (below its least, else above its greatest), or None."""
    low, high = bounds(field_info(name))
    if low is not None:
        return low - 1 if isinstance(low, int) else low / 2 if low > 0 else -1.0
    if high is not None:
        return high + 1
    return None


@pytest.mark.parametrize("name", FIELDS)
def test_a_field_has_one_name_description_and_bounds_everywhere(name: str, openapi: dict[str, Any]) -> None:
    info = field_info(name)
    param = run_params()[name]
    assert flag(name) in param.opts
    spelled = re.sub(r"`([a-z_]+)`", lambda m: flag(m[1]) if field_info(m[1]) else m[0], info.description)
    assert param.help == help_text(info) and param.help.startswith(spelled), param.help
    low, high = bounds(info)
    if low is not None or high is not None:
        assert re.search(r"\[(at least|at most|[0-9.e+-]+ to)", param.help), param.help
    assert param.default == info.default or (param.default is None and info.default is None)
    schemas = openapi["components"]["schemas"]
    if name in Options.model_fields:
        shown = schemas["Options"]["properties"][name]
    elif name in EXPORTED:
        parameters = openapi["paths"]["/api/jobs/{number}/export/{kind}"]["get"]["parameters"]
        shown = next(p["schema"] | {"description": p.get("description")} for p in parameters if p["name"] == name)
    else:
        return
    assert shown["description"] == info.description
    numbers = [shown, *shown.get("anyOf", [])]
    if low is not None:
        assert any(part.get("minimum") == low for part in numbers), shown
    if high is not None:
        assert any(part.get("maximum") == high for part in numbers), shown


@pytest.mark.parametrize("name", [name for name in FIELDS if outside(name) is not None])
def test_a_value_out_of_bounds_is_refused_in_the_same_line_everywhere(name: str, client: TestClient) -> None:
    value = outside(name)
    model = Options if name in Options.model_fields else Outputs
    with pytest.raises(CpsolveError) as refused:
        model.of({name: value})
    said = str(refused.value)
    assert said.startswith(f"option {name} ({flag(name)}) = ") and "expected" in said and "\n" not in said
    typed = str(int(value)) if float(value).is_integer() else repr(value)  # type: ignore[arg-type]
    result = CliRunner().invoke(app, ["run", str(SPECS / "soma.yaml"), flag(name), typed])
    assert result.exit_code == 2 and result.output.strip() == said, result.output
    if name in Options.model_fields:
        answer = client.post("/api/jobs", json={"path": "soma.yaml", "options": {name: value}})
    elif name in EXPORTED:
        number = client.post("/api/jobs", json={"path": "soma.yaml", "options": {"show": 1}}).json()["id"]
        with client.stream("GET", f"/api/jobs/{number}/events") as events:
            list(events.iter_lines())
        answer = client.get(f"/api/jobs/{number}/export/stl", params={name: typed})
    else:
        return
    assert answer.status_code in (400, 422) and answer.json() == {"error": said}, answer.text


def test_outputs_that_need_the_solutions_listed_are_refused_with_count_only() -> None:
    with pytest.raises(CpsolveError, match=r"option html \(--html\) needs the solutions listed; leave out"):
        RunRequest.split({"count_only": True, "html": Path("x.html")})
    with pytest.raises(CpsolveError, match="unknown option 'no_such'"):
        RunRequest.split({"no_such": 1})
    assert RunRequest.split({"count_only": True, "stl_unit": 5.0}).outputs.stl_unit == 5.0


def test_the_studios_job_request_shows_every_option_with_its_bounds(openapi: dict[str, Any]) -> None:
    request = openapi["components"]["schemas"]["JobRequest"]["properties"]["options"]
    assert request.get("$ref", "").endswith("/Options") or any(
        part.get("$ref", "").endswith("/Options") for part in request.get("allOf", [])
    ), json.dumps(request)
    assert set(openapi["components"]["schemas"]["Options"]["properties"]) == set(Options.model_fields)
