"""Puzzles as the editor reads and saves them (a spec with every shape as cells), and the check
`cpsolve validate` makes of a spec or a workspace file."""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any

from fastapi import APIRouter, Depends
from pydantic import BaseModel, Field

from cpsolve import formats
from cpsolve.errors import CpsolveError, OutOfTimeError, printable
from cpsolve.formats import PuzzleFile, ReadOptions
from cpsolve.limits import Deadline
from cpsolve.options import Options
from cpsolve.studio import state
from cpsolve.studio.editable import read_editable, written_problems
from cpsolve.studio.routes.files import Saved
from cpsolve.studio.security import studio_of
from cpsolve.studio.state import JobRequest, SpecBody, Studio

router = APIRouter(prefix="/api", tags=["puzzles"])
StudioNeeded = Depends(studio_of)


class Editable(BaseModel):
    """A workspace file's puzzle as the editor takes it."""

    spec: dict[str, Any] = Field(description="the spec, every shape as cells")
    drawn: bool = Field(description="whether the page draws and edits its grid (else it is edited as text)")
    why: str = Field(default="", description="why it is edited as text, where it is")
    problems: list[str] = Field(description="the names of the file's problems")
    problem: int = Field(description="the problem given, from 0")
    specs: list[dict[str, Any]] | None = Field(
        description="each problem's spec, where the page edits the file's problems together (null: one at a time)"
    )
    revision: str = Field(description="the file's revision: give it back as `base` to save over this version only")


class Validated(BaseModel):
    ok: bool
    name: str | None = Field(default=None, description="the puzzle's name, where it is ok")
    error: str | None = Field(default=None, description="why not, in one line, where it is not")


@router.get("/puzzle/{relative:path}")
def read_puzzle(relative: str, problem: str | None = None, studio: Studio = StudioNeeded) -> Editable:
    """A workspace file's puzzle as the editor takes it: a spec with every shape as cells
    (one problem of a file of several), whether the page draws its grid, its problems' names."""
    content, revision = studio.workspace.read_with_revision(relative)
    editable = read_editable(PuzzleFile(relative, content), studio.workspace.max_bytes, problem)
    return Editable(**editable, revision=revision)


@router.put("/puzzle/{relative:path}")
def write_puzzle(relative: str, body: SpecBody, new: bool = False, studio: Studio = StudioNeeded) -> Saved:
    """Save an edited spec, or a puzzle of problems, as YAML or a BurrTools file (by the name's
    suffix), checked as the command line checks a spec; with `new` only as a new file, with `base`
    only over the file of that revision (409 otherwise). A BurrTools file of several problems is
    replaced only by its problems (`problems`), not by one spec."""
    studio.workspace.check(relative)
    if (
        body.problems is None
        and not new
        and relative.lower().endswith(".xmpuzzle")
        and studio.workspace.exists(relative)
    ):
        existing = PuzzleFile(relative, studio.workspace.read(relative))
        problems = len(formats.puzzles(existing, ReadOptions(studio.workspace.max_bytes)))
        if problems > 1:
            raise CpsolveError(
                f"{relative}: holds {problems} problems; saving one would drop the others: save under a new name"
            )
    content = written_problems(body.named_problems(), PurePosixPath(relative), relative)
    revision = studio.workspace.write(relative, content, new=new, base=body.base)
    studio.drafts.drop(relative)
    return Saved(path=relative, revision=revision)


@router.post("/validate", response_model_exclude_none=True)
def validate(request: JobRequest, studio: Studio = StudioNeeded) -> Validated:
    """Check a spec or a workspace file as `cpsolve validate` does: ok, or the one-line message."""
    try:
        asked = request.options.model_dump(exclude_unset=True)
        settings: Options = Options.of({**asked, **({"problem": request.problem} if request.problem else {})})
        puzzle = studio.puzzle_of(request, settings)
        with studio.checking_slot():  # it builds a model, as a job does
            puzzle.model(settings.run_options().build, Deadline.after(state.REQUEST_SECONDS))
            puzzle.let_go()
    except CpsolveError as error:
        return Validated(ok=False, error=printable(str(error)))
    except OutOfTimeError as stopped:
        return Validated(ok=False, error=f"not checked within {state.REQUEST_SECONDS:g} s: {stopped}")
    return Validated(ok=True, name=puzzle.loaded.spec.name)
