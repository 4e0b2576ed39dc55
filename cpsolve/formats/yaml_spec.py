"""cpsolve's own format: a YAML spec (README, "The spec format"), read with the line of every field."""

from __future__ import annotations

from pathlib import Path

from cpsolve.spec import LoadedSpec, parse_yaml, validate_data

from .base import FileFormat, read_text


def load_spec(path: str | Path) -> LoadedSpec:
    """Read and validate a YAML spec file."""
    data, source = parse_yaml(read_text(path), str(path))
    return LoadedSpec(validate_data(data, source), source)


FORMAT = FileFormat("yaml", (".yaml", ".yml"), load_spec, find_one_unless_expected=True)
