"""The daemon's writes into the workspace: owned sections only, last text remembered.

``WorkspaceWriter.write(rel_path, body)`` puts ``body`` into the file's owned section
(see ``owned_sections``) and records what it wrote, so that next time a person's edit
inside the section is recognised and kept. The watcher sees the write, re-parses the
file and finds nothing new: owned sections are blanked before indexing.
"""

from __future__ import annotations

import logging
from datetime import datetime
from pathlib import Path

from agentmemd.memory.core.clock import format_time
from agentmemd.memory.store.database import Store
from agentmemd.memory.workspace.owned_sections import WriteBackError, WriteResult, owned_body, write_owned_section

log = logging.getLogger("agentmemd")


class WorkspaceWriter:
    def __init__(self, store: Store, root: Path):
        self.store = store
        self.root = root

    def last_written(self, rel_path: str) -> str | None:
        return self.store.owned_section(rel_path)

    def section_now(self, rel_path: str) -> str | None:
        """The file's owned section as it is now (a person may have edited it); None: no file, no
        section, or not readable as text."""
        try:
            return owned_body((self.root / rel_path).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, WriteBackError):
            return None

    def write(self, rel_path: str, body: str, now: datetime, *, create_header: str = "") -> WriteResult:
        """Write the owned section of ``rel_path``. A link is never replaced: the write goes through it
        when its target is inside the workspace, and is skipped (logged) when it points outside."""
        path = self.root / rel_path
        resolved = path.resolve()
        if resolved != path.absolute() and not resolved.is_relative_to(self.root.resolve()):
            why = f"it links outside the workspace ({resolved})"
            log.warning("write-back skipped", extra={"path": rel_path, "reason": why})
            return WriteResult(path, False, 0, 0, skipped=why)
        result = write_owned_section(
            resolved,
            body,
            last_written=self.last_written(rel_path),
            create_header=create_header,
            note=f"moved out of the agentmemd section, where you edited it ({now:%Y-%m-%d})",
        )
        self.store.put_owned_section(rel_path, body.strip("\n"), format_time(now))
        return result
