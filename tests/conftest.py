"""Shared helpers: where the specs and the corpus are, and the checks every count test makes."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import yaml

from cpsolve.formats import load_puzzle
from cpsolve.models import PuzzleModel, build_model
from cpsolve.run import RunOptions, RunReport, run

ROOT = Path(__file__).resolve().parent.parent
SPECS = ROOT / "puzzle_specs"
CORPUS = ROOT.parent / "shared" / "corpus"


def spec_files() -> list[Any]:
    """Every shipped spec as a pytest param; those marked `slow: true` run only with -m slow."""
    params = []
    for path in sorted(SPECS.glob("*.yaml")):
        data = yaml.safe_load(path.read_text())
        marks = [pytest.mark.slow] if data.get("slow") else []
        params.append(pytest.param(path, marks=marks, id=path.stem))
    return params


def checked_run(path: Path | str, options: RunOptions | None = None) -> RunReport:
    """Run and assert what must hold of any complete run: the orbit-stabiliser identity."""
    report = run(path, options or RunOptions(show=0))
    assert report.complete, report.stopped_by
    assert report.identity_problems == []
    return report


def built(path: Path | str) -> PuzzleModel:
    """The solver-neutral model of a puzzle file, as a run builds it."""
    loaded, build = load_puzzle(path)
    return build_model(loaded, build)


def peer(name: str) -> Path:
    """A peer program built by ../shared/peers/build.sh (burrTxt, soma), or skip the test.

    Looked for in $CPSOLVE_PEERS, then in build.sh's default folder ~/.cache/cpsolve-peers.
    """
    for folder in (os.environ.get("CPSOLVE_PEERS"), Path.home() / ".cache" / "cpsolve-peers"):
        if folder and (Path(folder) / name).is_file():
            return Path(folder) / name
    pytest.skip(f"peer {name} is not built (../shared/peers/build.sh)")


def corpus_dir(name: str) -> Path:
    path = CORPUS / name
    if not path.is_dir():
        pytest.skip(f"corpus {path} is absent")
    return path


__all__ = ["CORPUS", "SPECS", "built", "checked_run", "corpus_dir", "peer", "spec_files"]
