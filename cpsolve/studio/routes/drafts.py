"""The editor's unsaved work, kept in the workspace as it is made (cpsolve.studio.workspace.Drafts),
so that a file switch, a reload, a closed tab, a crash or a killed server loses nothing; and which
page has which file open, so that a second tab on one file is told."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends
from pydantic import BaseModel, ConfigDict, Field

from cpsolve.studio.security import studio_of
from cpsolve.studio.state import MAX_PROBLEMS, ProblemBody, Studio

router = APIRouter(prefix="/api", tags=["drafts"])
StudioNeeded = Depends(studio_of)


class Draft(BaseModel):
    """An edit not saved yet: the drawing's spec or the file's text, and what it was made from."""

    model_config = ConfigDict(extra="forbid")

    spec: dict[str, Any] | None = Field(default=None, description="the drawing, as the editor's spec")
    problems: list[ProblemBody] | None = Field(
        default=None, max_length=MAX_PROBLEMS, description="the puzzle's problems, where the page edits several"
    )
    content: str | None = Field(default=None, description="the file's text, as typed")
    base: str | None = Field(default=None, description="the revision of the file it was made from")
    problem: int = Field(default=0, ge=0, description="the problem of the file it edits")
    client: str = Field(default="", max_length=64, description="the page that made it")


class KeptDraft(Draft):
    path: str
    kept: float = Field(description="when it was kept (seconds since 1970)")
    changed_since: bool = Field(default=False, description="the file changed on disk since the draft was made from it")


class DraftFound(BaseModel):
    draft: KeptDraft | None = Field(description="the file's draft, or null where there is none")


class DraftList(BaseModel):
    drafts: list[dict[str, Any]]


class Presence(BaseModel):
    model_config = ConfigDict(extra="forbid")

    path: str
    client: str = Field(min_length=1, max_length=64, description="the page: a random name it made for itself")
    leaving: bool = Field(default=False, description="the page closed the file")


class Others(BaseModel):
    others: list[str] = Field(description="the other pages that have the file open now")


@router.get("/drafts")
def list_drafts(studio: Studio = StudioNeeded) -> DraftList:
    """Every draft kept: its file, when, and the revision it was made from."""
    return DraftList(drafts=studio.drafts.listed())


@router.get("/drafts/{relative:path}")
def get_draft(relative: str, studio: Studio = StudioNeeded) -> DraftFound:
    """The draft of a file (null: none), and whether the file changed on disk since it was made."""
    record = studio.drafts.get(relative)
    if record is None:
        return DraftFound(draft=None)
    fields = {
        name: record.get(name) for name in ("spec", "problems", "content", "base", "problem", "client", "path", "kept")
    }
    changed = record.get("base") is not None and studio.workspace.revision(relative) != record.get("base")
    kept = KeptDraft(**{name: value for name, value in fields.items() if value is not None}, changed_since=changed)
    return DraftFound(draft=kept)


@router.put("/drafts/{relative:path}")
def keep_draft(relative: str, draft: Draft, studio: Studio = StudioNeeded) -> dict[str, float]:
    """Keep a file's unsaved edit (written whole or not at all, in the workspace's drafts folder)."""
    record = studio.drafts.keep(relative, draft.model_dump(exclude_none=True))
    return {"kept": record["kept"]}


@router.delete("/drafts/{relative:path}")
def drop_draft(relative: str, studio: Studio = StudioNeeded) -> dict[str, bool]:
    """Drop a file's draft (its edit discarded)."""
    studio.drafts.drop(relative)
    return {"dropped": True}


@router.post("/presence")
def present(presence: Presence, studio: Studio = StudioNeeded) -> Others:
    """A page says it has a file open (every 10 s while it has), or that it closed it; the answer
    names the other pages that have it open."""
    return Others(others=studio.present(presence.path, presence.client, presence.leaving))
