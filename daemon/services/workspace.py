"""WorkspaceService: which Markdown files are indexed (or skipped, and why), and a sync on demand."""

from __future__ import annotations

from typing import Any

from agentmemd.memory.core.errors import Conflict, NotFound
from agentmemd.memory.core.models import WorkspaceReadParams
from agentmemd.memory.workspace.indexer import WorkspaceIndexer


class WorkspaceService:
    def __init__(self, indexer: WorkspaceIndexer | None):
        self.indexer = indexer

    def _require(self) -> WorkspaceIndexer:
        if self.indexer is None:
            raise Conflict("no workspace: start the daemon with --workspace DIR or set [workspace] path")
        return self.indexer

    def status(self) -> dict[str, Any]:
        indexer = self._require()
        files = indexer.store.workspace_files()
        return {"root": str(indexer.root), "namespace": indexer.namespace, "files": [files[k] for k in sorted(files)]}

    def sync(self) -> dict[str, Any]:
        """Re-index every workspace file that changed since it was last indexed."""
        return self._require().catch_up().as_dict()

    def read(self, p: WorkspaceReadParams) -> dict[str, Any]:
        """One workspace Markdown file, read-only (what `workspace.status` lists as indexed or skipped)."""
        text = self._require().read_text(p.path)
        if text is None:
            raise NotFound(
                f"no readable workspace Markdown file {p.path!r} (a path relative to the workspace root, "
                "as `workspace.status` lists it)"
            )
        return {"path": p.path, "text": text}
