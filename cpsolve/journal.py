"""Files cpsolve appends JSON lines to and reads back to resume: a batch's results, a checkpoint.

A process killed while writing leaves its last line cut short: that line is dropped, so the work
it stood for is done again. A file that is not one cpsolve wrote (a puzzle, a note given by
mistake) is refused before anything is written to it or cut from it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cpsolve.errors import CpsolveError


def read_records(path: Path, first_key: str, what: str) -> list[dict[str, Any]]:
    """The records of the file's whole lines (none when it does not exist), each a JSON object
    whose first key is `first_key`, as cpsolve writes them; a cut last line is dropped from the
    file. Raises CpsolveError, leaving the file as it was, when it holds anything else."""
    if not path.exists():
        return []
    data = path.read_bytes()
    cut = data.rfind(b"\n") + 1
    whole, tail = data[:cut], data[cut:]
    start = json.dumps({first_key: ""})[:-4].encode()  # b'{"unit":' for first_key "unit"
    records = []
    for number, line in enumerate(whole.splitlines(), 1):
        if not line.strip():
            continue
        record = _parsed(line) if line.startswith(start) else None
        if record is None:
            raise CpsolveError(f"{path}:{number}: not a line of {what}; give a new file, or one cpsolve wrote")
        records.append(record)
    if tail and not tail.startswith(start):
        raise CpsolveError(f"{path}: the last line is not one of {what}; give a new file, or one cpsolve wrote")
    if tail:
        with path.open("r+b") as handle:
            handle.truncate(cut)
    return records


def _parsed(line: bytes) -> dict[str, Any] | None:
    try:
        record = json.loads(line)
    except ValueError:
        return None
    return record if isinstance(record, dict) else None
