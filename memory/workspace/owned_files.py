"""Workspace files whose items are another part's records, not memories: GOALS.md's task-list
items are goals (persona/goals/goals_file.py). The indexer reads and parses such a file as any
other, hands its items to the file's owner off the store thread (to check and embed them), and
the owner writes its records inside the same sync's transaction. Who owns which file is set by
the services that compose the two; without an owner the file is an ordinary one."""

from __future__ import annotations

from typing import Any, Protocol

from agentmemd.memory.workspace.markdown import MarkdownItem


class FileOwner(Protocol):
    path: str  # workspace-relative POSIX path, e.g. "GOALS.md"
    report_key: str  # the sync report's key for what ``write`` did, e.g. "goals"

    def read(self, items: list[MarkdownItem], text: str) -> tuple[Any, list[str]]:
        """What the file says, prepared off the store thread (embeddings included), and a note for
        each line left out ("line 3: no checkbox, left out")."""
        ...

    def write(self, namespace: str, prepared: Any | None) -> dict[str, int]:
        """In the sync's transaction: make the owner's records match the file (``prepared`` None:
        the file is gone). Returns counts for the sync report."""
        ...
