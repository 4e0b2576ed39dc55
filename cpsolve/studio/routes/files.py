"""The workspace's puzzle files as text: listed, read (a gzip-compressed .xmpuzzle as its XML) with
their revision, written whole or not at all (refused where the file changed since the revision the
writer read), made new without replacing one (exclusively: of two makers of one name, one wins)."""

from __future__ import annotations

from fastapi import APIRouter, Depends
from pydantic import BaseModel, Field

from cpsolve.formats import PuzzleFile, burrtools
from cpsolve.studio.security import studio_of
from cpsolve.studio.state import FileBody, Studio

router = APIRouter(prefix="/api/files", tags=["files"])
StudioNeeded = Depends(studio_of)


class FileList(BaseModel):
    files: list[str] = Field(description="the workspace's puzzle files, as paths relative to it, sorted")


class FileText(BaseModel):
    path: str
    content: str = Field(description="the file's text (a .xmpuzzle as its XML)")
    revision: str = Field(description="the file's revision: give it back as `base` to save over this version only")


class Saved(BaseModel):
    path: str = Field(description="the file written, relative to the workspace")
    revision: str = Field(description="its new revision")


@router.get("")
def list_files(studio: Studio = StudioNeeded) -> FileList:
    """The puzzle files of the workspace, as paths relative to it."""
    return FileList(files=studio.workspace.files())


@router.get("/{relative:path}")
def read_file(relative: str, studio: Studio = StudioNeeded) -> FileText:
    """A puzzle file's text (a gzip-compressed .xmpuzzle as its XML) and its revision."""
    content, revision = studio.workspace.read_with_revision(relative)
    if relative.lower().endswith(".xmpuzzle"):
        content = burrtools.decompressed(PuzzleFile(relative, content), studio.workspace.max_bytes)
    return FileText(path=relative, content=content.decode("utf-8", errors="replace"), revision=revision)


@router.put("/{relative:path}")
def write_file(relative: str, body: FileBody, new: bool = False, studio: Studio = StudioNeeded) -> Saved:
    """Replace or make a puzzle file, whole or not at all; with `new`, only make one (409 where
    it exists: a new puzzle never replaces a file); with `base`, only replace the file whose
    revision that is (409 where it changed on disk since). A draft kept of it is dropped."""
    revision = studio.workspace.write(relative, body.content.encode("utf-8"), new=new, base=body.base)
    studio.drafts.drop(relative)
    return Saved(path=relative, revision=revision)
