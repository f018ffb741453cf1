"""Writing back into a person's Markdown: only between the daemon's own markers.

A file the daemon writes to looks like this; everything outside the markers is the
person's and is never changed::

    # 2026-11-22
    - my own notes (indexed as memories)

    <!-- agentmemd:begin -->
    ## agentmemd
    ...written by the daemon (never indexed: the parser blanks owned sections)...
    <!-- agentmemd:end -->

Each write is read -> compute -> write a temp file -> fsync -> check the file is still
byte-for-byte what was read -> rename over it. If a person saved in between, the write
is redone on their new text (their edit is kept, the daemon's section recomputed);
after ``attempts`` changed reads it gives up and changes nothing. A person's edit made
*inside* the section since the daemon last wrote it is not thrown away: their added or
changed lines are moved just above the section, where they become their own text.
"""

from __future__ import annotations

import codecs
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from agentmemd.memory.core.errors import WorkspaceError
from agentmemd.memory.safety.secrets import mask
from agentmemd.memory.workspace.markdown import OWNED_BEGIN, OWNED_END, owned_spans
from agentmemd.memory.workspace.private_files import private_folders


class WriteBackError(WorkspaceError):
    """The file could not be written back safely; nothing was changed."""


@dataclass(frozen=True)
class WriteResult:
    path: Path
    changed: bool  # False: the section already held exactly this text
    attempts: int  # > 1: a concurrent edit was detected and merged
    kept_person_lines: int  # lines a person wrote inside the section, moved above it
    skipped: str = ""  # why nothing was written (a link out of the workspace), else ""

    def as_dict(self) -> dict:
        return {
            "path": str(self.path),
            "changed": self.changed,
            "attempts": self.attempts,
            "kept_person_lines": self.kept_person_lines,
        }


def neutralise(text: str) -> str:
    """One line of daemon output for a person's file: it cannot open or close a comment (and so
    cannot end the section), and any secret in it is masked (secrets.py: a file is read whatever is
    asked, and is synced, shared and committed as files are)."""
    return " ".join(mask(text).split()).replace("<!--", "<!—").replace("-->", "—>")


def owned_span(lines: list[str]) -> tuple[int, int] | None:
    """Line indexes of the first begin marker and its end marker (inclusive); markers inside a
    person's fenced code block are theirs (markdown.owned_spans)."""
    spans, unended = owned_spans(lines)
    if unended is not None and (not spans or unended < spans[0][0]):
        raise WriteBackError(
            f"{OWNED_BEGIN} without {OWNED_END}: the daemon's section is broken; "
            "restore the end marker or delete the begin marker"
        )
    return spans[0] if spans else None


def owned_body(text: str) -> str | None:
    lines = text.split("\n")
    span = owned_span(lines)
    return None if span is None else "\n".join(lines[span[0] + 1 : span[1]])


def merge(text: str, body: str, last_written: str | None, note: str) -> tuple[str, int]:
    """The file's text with its owned section set to ``body``; (new text, person lines kept)."""
    lines = text.split("\n")
    span = owned_span(lines)
    block = [OWNED_BEGIN, *body.strip("\n").split("\n"), OWNED_END]
    if span is None:
        head = text.rstrip("\n")
        return (head + "\n\n" if head else "") + "\n".join(block) + "\n", 0
    begin, end = span
    current = lines[begin + 1 : end]
    kept: list[str] = []
    if last_written is not None:
        # As an editor may have saved them: trailing spaces trimmed (line endings are the caller's).
        ours = {line.rstrip() for line in last_written.split("\n")}
        kept = [line for line in current if line.strip() and line.rstrip() not in ours]
    moved = [f"<!-- {note} -->", *kept, ""] if kept else []
    return "\n".join(lines[:begin] + moved + block + lines[end + 1 :]), len(kept)


SAVING_SECONDS = 5.0  # an emptied file younger than this may be an editor between truncate and write


def _just_saved(path: Path) -> bool:
    try:
        return time.time() - path.stat().st_mtime < SAVING_SECONDS
    except FileNotFoundError:
        return False


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def write_owned_section(
    path: Path,
    body: str,
    *,
    last_written: str | None = None,
    note: str = "moved out of the agentmemd section, where you edited it",
    create_header: str = "",
    attempts: int = 5,
    before_replace: Callable[[int], None] | None = None,
) -> WriteResult:
    """Set the owned section of ``path`` to ``body`` without clobbering a concurrent edit.

    ``last_written``: the body this daemon last wrote there (to recognise a person's edits
    inside the section). ``create_header``: text a new file starts with. ``before_replace``
    is called with the attempt number just before the final check (tests use it to edit
    the file at the worst possible moment).
    """
    for attempt in range(1, attempts + 1):
        raw = _read(path)
        if raw is not None and not raw.strip() and last_written is not None and _just_saved(path):
            # An editor that truncates and then writes: between the two the file is empty. Written
            # now, the rename would leave its write going to a file no longer there (all lost).
            raise WriteBackError(f"{path} is empty and was saved just now (an editor writing it?); will retry later")
        if raw is not None and raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
            raise WriteBackError(f"{path} is UTF-16 text; not writing into it (save it as UTF-8)")
        if raw is not None and b"\0" in raw:
            raise WriteBackError(f"{path} is not a text file; not writing into it")
        try:
            text = raw.decode("utf-8") if raw is not None else create_header
        except UnicodeDecodeError:
            raise WriteBackError(f"{path} is not valid UTF-8; not writing into it") from None
        # The file keeps its own form: a byte-order mark and Windows line endings stay, and a file
        # an editor saved with CRLF is not read as the person having rewritten the section.
        mark = "\ufeff" if text.startswith("\ufeff") else ""
        crlf = text.count("\r\n") * 2 > text.count("\n")
        plain = text[len(mark) :].replace("\r\n", "\n") if crlf else text[len(mark) :]
        merged, kept = merge(plain, body, last_written, note)
        new_text = mark + (merged.replace("\n", "\r\n") if crlf else merged)
        if raw is not None and new_text == text:
            return WriteResult(path, False, attempt, 0)
        private_folders(path.parent)
        tmp = path.with_name(f".{path.name}.agentmemd-{os.getpid()}.tmp")
        # A file the daemon creates is the user's alone (0600), as the data dir is (0700).
        with os.fdopen(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as fh:
            fh.write(new_text.encode("utf-8"))
            fh.flush()
            os.fsync(fh.fileno())
        if raw is not None:
            try:
                os.chmod(tmp, path.stat().st_mode & 0o7777)  # keep the person's permissions
            except FileNotFoundError:
                pass  # deleted meanwhile: the check below sees it
        if before_replace is not None:
            before_replace(attempt)
        if _read(path) != raw:  # a person saved meanwhile: redo on their text
            os.unlink(tmp)
            continue
        os.replace(tmp, path)
        dir_fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
        return WriteResult(path, True, attempt, kept)
    raise WriteBackError(f"{path} changed on every one of {attempts} attempts; left it alone and will retry later")
