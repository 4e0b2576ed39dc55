"""Bad input: exit code 2 and one message naming the file, the field and the line."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from cpsolve.cli import app

runner = CliRunner()

GOOD = """\
name: tiny
pieces:
  I: {box: [2, 1, 1]}
  L: {cells: [[0,0],[1,0],[0,1]]}
target:
  box: [5, 1]
"""


def run_cli(tmp_path: Path, text: str, *args: str, name: str = "spec.yaml") -> tuple[int, str]:
    spec = tmp_path / name
    spec.write_text(text)
    result = runner.invoke(app, ["run", str(spec), *args])
    return result.exit_code, result.output


def test_good_spec_counts(tmp_path: Path) -> None:
    code, output = run_cli(tmp_path, GOOD.replace("L: {cells: [[0,0],[1,0],[0,1]]}", "J: {box: [3, 1]}"))
    assert code == 0, output
    assert "raw 2  rotations 1  unique 1" in output


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("name: x\npieces: [\n", 3, "not valid YAML"),
        (GOOD.replace("box: [5, 1]", "box: [5, 1]\n  boxx: 3"), 7, "target.boxx: unknown field; did you mean 'box'?"),
        (
            GOOD.replace("{box: [2, 1, 1]}", "{box: [2, 1, 1], cont: 2}"),
            3,
            "pieces.I.cont: unknown field; did you mean 'count'?",
        ),
        (GOOD.replace("[2, 1, 1]", "[2, one, 1]"), 3, "pieces.I.box.1: Input should be a valid integer"),
        (
            GOOD.replace("  I: {box: [2, 1, 1]}\n", "  I: {box: [2, 1, 1]}\n  I: {box: [1, 1, 1]}\n"),
            4,
            "duplicate key 'I'",
        ),
        (GOOD.replace("{box: [2, 1, 1]}", "{cells: []}"), 3, "pieces.I: cells is empty"),
        (
            GOOD.replace("{box: [2, 1, 1]}", "{cells: [[0,0,0],[1,0,0],[0,1]]}"),
            3,
            "pieces.I: cell 2 is [0, 1] among cells of 3 coordinates: give every cell of a shape as [x, y]",
        ),
        (GOOD.replace("{box: [2, 1, 1]}", "{layers: [['...']]}"), 3, "pieces.I.layers: no filled cells"),
        (GOOD.replace("{box: [2, 1, 1]}", "{}"), 3, "give exactly one of cells, layers, box"),
        (GOOD.replace("box: [5, 1]", "box: [6, 1]"), 2, "the pieces have 5 cells but the target has 6"),
        (GOOD + "  fixed: {I: [[0,0],[0,1]]}\n", 7, "target.fixed.I: cell [0, 1, 0] is outside the target"),
        (GOOD + "  fixed: {L: [[0,0],[1,0],[2,0]]}\n", 7, "not a rotation of piece 'L'"),
        (GOOD + "  fixed: {Q: [[0,0]]}\n", 7, "no piece named 'Q'"),
        (GOOD + "kind: snakes\n", 7, "unknown kind 'snakes'; expected one of"),
        (GOOD + "symmetry: mirror\n", 7, "symmetry: Input should be 'all', 'rotations' or 'none'"),
        (
            GOOD.replace("{box: [2, 1, 1]}", "{box: [2, 1, 1], group: g}"),
            3,
            "pieces.I.group: group 'g' is not in groups",
        ),
        ("- 1\n- 2\n", 1, "a spec is a mapping"),
    ],
)
def test_bad_spec(tmp_path: Path, text: str, line: int | None, words: str) -> None:
    code, output = run_cli(tmp_path, text)
    assert code == 2, output
    assert words in output
    assert "Traceback" not in output
    where = str(tmp_path / "spec.yaml") + (f":{line}:" if line else ":")
    assert output.startswith(where), output


def test_missing_file(tmp_path: Path) -> None:
    result = runner.invoke(app, ["run", str(tmp_path / "nope.yaml")])
    assert result.exit_code == 2
    assert "nope.yaml: cannot read" in result.output


def test_model_too_big(tmp_path: Path) -> None:
    code, output = run_cli(tmp_path, GOOD, "--max-placements", "3")
    assert code == 2
    assert "more than 3 placements" in output


def test_huge_target_is_refused_before_building(tmp_path: Path) -> None:
    text = "name: huge\npieces:\n  U: {box: [1,1,1], count: 1000000}\ntarget:\n  box: [1000, 1000, 1000]\n"
    code, output = run_cli(tmp_path, text)
    assert code == 2
    assert "target.box: 1,000,000,000 cells; cpsolve builds at most" in output


def test_many_candidates_are_refused_before_building(tmp_path: Path) -> None:
    text = "name: big\npieces:\n  U: {box: [1,1,1], count: 8000}\ntarget:\n  box: [20, 20, 20]\n"
    code, output = run_cli(tmp_path, text, "--max-placements", "100")
    assert code == 2
    assert "candidate placements" in output


def test_yass_refusal_is_exit_2(tmp_path: Path) -> None:
    code, output = run_cli(tmp_path, "ooo\nooo\n", name="small.soma")
    assert code == 2
    assert "the figure has 6 cells" in output


def test_validate_reports_errors_too(tmp_path: Path) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text(GOOD.replace("box: [5, 1]", "box: [6, 1]"))
    result = runner.invoke(app, ["validate", str(spec)])
    assert result.exit_code == 2
    assert "target has 6" in result.output
