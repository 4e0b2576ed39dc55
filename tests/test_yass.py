"""yass figures: the corpus counts (unique = yass -c, raw = yass -r -c) and yass's refusals."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from conftest import CORPUS, absent, checked_run, corpus_dir, run_one

from cpsolve.errors import SpecError
from cpsolve.run import RunOptions

# yass's refusal -> words our message must contain
REFUSALS = {
    "Bad number of cubicles": "cells; the seven Soma pieces fill exactly 27",
    "Has child shape with unsolvable number of cubicles": "no set of Soma pieces fills that",
    "Pre-placed piece": "pre-placed piece",
    "Illegal tab character": "tab character",
    "Unsolvable one- or zero-dimensional shape": "straight line",
}
FAST_FIGURES = ["cube.soma", "1_thick_x.soma", "preplaced_cube.soma", "misshapen_preplace.soma", "t_l_solutions.soma"]


def corpus_rows() -> list[dict[str, str]]:
    table = CORPUS / "yass" / "counts.tsv"
    if not table.is_file():
        return []
    with table.open() as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def check_row(row: dict[str, str], options: RunOptions) -> None:
    figure = corpus_dir("yass") / "figures" / row["figure"]
    if row["error"]:
        with pytest.raises(SpecError) as caught:
            run_one(figure, options)
        wanted = next(words for refusal, words in REFUSALS.items() if row["error"].startswith(refusal))
        assert wanted in str(caught.value)
        assert str(figure) in str(caught.value)
        return
    report = checked_run(figure, options)
    assert (report.counts.unique, report.counts.raw) == (int(row["unique"]), int(row["raw"]))


def row_named(name: str) -> dict[str, str]:
    """The corpus's row of a figure (a missing corpus skips the test, or fails it under CI)."""
    rows = [row for row in corpus_rows() if row["figure"] == name]
    if not rows:
        absent(f"the yass corpus with {name} is absent ($CPSOLVE_CORPUS names the folder that holds it)")
    return rows[0]


@pytest.mark.parametrize("engine", ["cpsat", "exact-cover"])
@pytest.mark.parametrize("figure", FAST_FIGURES)
def test_sample_figures(figure: str, engine: str) -> None:
    check_row(row_named(figure), RunOptions(show=0, engine=engine))


@pytest.mark.parametrize(
    ("engine", "breaking"),
    [
        pytest.param("exact-cover", True, id="exact-cover"),
        pytest.param("cpsat", True, id="cpsat", marks=pytest.mark.slow),
        pytest.param("exact-cover", False, id="exact-cover-without-breaking", marks=pytest.mark.slow),
        pytest.param("cpsat", False, id="cpsat-without-breaking", marks=pytest.mark.slow),
    ],
)
def test_whole_corpus(engine: str, breaking: bool) -> None:
    """Every engine, with and without symmetry breaking, gives yass's counts on every figure."""
    rows = corpus_rows()
    if not rows:
        absent("yass corpus is absent ($CPSOLVE_CORPUS names the folder that holds it)")
    assert sum(1 for r in rows if not r["error"]) == 203
    for row in rows:
        check_row(row, RunOptions(show=0, engine=engine, symmetry_breaking=breaking))


def test_comment_and_slice_rules(tmp_path: Path) -> None:
    figure = tmp_path / "cube.soma"
    slices = ["ooo\nooo\nooo  # a comment"] * 3
    figure.write_text("# header\n" + "\n\n".join(slices) + "\n")
    report = checked_run(figure)
    assert (report.counts.unique, report.counts.raw) == (240, 11520)
