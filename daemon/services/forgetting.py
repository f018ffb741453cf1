"""ForgetService: `memory.forget` as the doors call it. Forgetting reaches every copy of the
memory's words (memory/retrieval/lineage.py); this is the order the daemon does it in, so no
request waits on the embedding model and no copy is left behind:

    plan      (store thread: every copy lineage reaches; nothing changes)
    embed     (beside it: the neighbouring episodes' new index entries)
    write     (store thread, one transaction, only if nothing changed since the plan; else again)
    scrub     (the lines of the daemon's workspace sections that quote what went)
    rebuild   (the impressions of the people who said the forgotten words, from what remains)
"""

from __future__ import annotations

import re
from functools import partial
from typing import Any, Callable

from agentmemd.memory.core.errors import Conflict
from agentmemd.memory.core.models import ForgetParams
from agentmemd.memory.core.results import ForgetResult
from agentmemd.memory.core.threads import RunOnStore
from agentmemd.memory.retrieval.audit import MemoryAudit, chain_secrets
from agentmemd.memory.retrieval.lineage import Lineage, LineagePlan
from agentmemd.memory.store.lineage_tables import LineageTables
from agentmemd.memory.workspace.owned_sections import WriteBackError
from agentmemd.memory.workspace.writeback import WorkspaceWriter
from agentmemd.persona.goals.goals import Goals

PLAN_TRIES = 3


class ForgetService:
    def __init__(
        self,
        audit: MemoryAudit,
        writer: WorkspaceWriter | None,
        run_on_store: RunOnStore,
        rebuild_impressions: Callable[[str], Any] | None = None,
        goals: Goals | None = None,
    ):
        """``goals``: the goals that state a secret being forgotten are masked (Goals.forget_secrets)."""
        self.audit = audit
        self.goals = goals
        self.memories = audit.memories
        self.writer = writer
        self.run_on_store = run_on_store
        self.rebuild_impressions = rebuild_impressions
        self.lineage = Lineage(self.memories, self.memories.config.conversation.episode_context_turns)
        self.tables = LineageTables(self.memories.store)

    def forget(self, p: ForgetParams) -> ForgetResult:
        for _ in range(PLAN_TRIES):
            plan, counted, sections = self.run_on_store(lambda: self._plan(p))
            stating = self.run_on_store(partial(self._goals_stating, plan))
            counted["workspace_files"] = sorted(
                {*counted["workspace_files"], *(g["source"].split(" ")[0] for g in stating if g.get("source"))}
            )
            if not p.confirm:
                return self.audit.forget_result(
                    p,
                    plan,
                    counted,
                    workspace_sections=sections,
                    goals=[g["id"] for g in stating if not g.get("source")],
                )
            vectors = self.memories.embedder.embed_passages(plan.texts) if plan.texts else []
            if self.run_on_store(partial(self._write_unless_changed, p, plan, vectors)):
                break
        else:
            raise Conflict("the memory's conversation kept changing while it was being forgotten; forget it again")
        scrubbed, unwritten = self.run_on_store(lambda: self._scrub(sections, plan.every))
        masked = self.run_on_store(partial(self._mask_goals, plan))
        if self.rebuild_impressions is not None:
            for session in plan.sessions:
                self.rebuild_impressions(session)
        return self.audit.forget_result(
            p, plan, counted, workspace_sections=scrubbed, workspace_unwritten=unwritten, goals=masked
        )

    def _secret_values(self, plan: LineagePlan) -> tuple[str, dict[str, str]]:
        """The namespace and the secret values the memory going states (its versions')."""
        chain = plan.chains[0]
        return chain[-1]["namespace"], chain_secrets(chain)

    def _goals_stating(self, plan: LineagePlan) -> list[dict[str, Any]]:
        if self.goals is None:
            return []
        namespace, values = self._secret_values(plan)
        return self.goals.holding_secrets(namespace, values)

    def _mask_goals(self, plan: LineagePlan) -> list[str]:
        if self.goals is None:
            return []
        namespace, values = self._secret_values(plan)
        with self.memories.store.transaction():
            return self.goals.forget_secrets(namespace, values)

    def _plan(self, p: ForgetParams) -> tuple[LineagePlan, dict[str, Any], list[str]]:
        plan = self.audit.plan_forget(p, self.lineage)
        return plan, self.audit.footprint(plan), self.tables.sections_quoting(plan.every)

    def _write_unless_changed(self, p: ForgetParams, plan: LineagePlan, vectors: list) -> bool:
        if self.audit.plan_forget(p, self.lineage).key() != plan.key():
            return False
        self.audit.write_forget(plan, vectors, self.lineage)
        return True

    def _scrub(self, paths: list[str], memory_ids: list[str]) -> tuple[list[str], list[str]]:
        """Take the lines quoting ``memory_ids`` out of the daemon's sections of these files: the
        files whose section changed, and "PATH: why" of those that could not be written (the
        memory is forgotten all the same: the answer says what still quotes it, never an error
        after the store has forgotten)."""
        if self.writer is None:
            return [], []
        needles = [f"`{mid}`" for mid in memory_ids]
        changed, unwritten = [], []
        for path in paths:
            body = self.writer.last_written(path)
            if body is None:
                continue
            kept = without_lines(body, needles)
            try:
                written = self.writer.write(path, kept, self.memories.clock.now())
            except (WriteBackError, OSError) as exc:
                unwritten.append(f"{path}: {exc}")
                continue
            if written.skipped:
                unwritten.append(f"{path}: {written.skipped}")
            elif written.changed:
                changed.append(path)
        return changed, unwritten


_COUNTED_HEADING = re.compile(r"^(#+ .*\()(\d+)(\))$")


def without_lines(body: str, needles: list[str]) -> str:
    """``body`` without the lines holding any of ``needles``, each heading's count ("### Level 1:
    patterns (3)", "### Observations (11)") lowered by the lines that went under it (a count can
    be of more than the lines shown: "… and 40 more")."""
    lines = body.split("\n")
    kept: list[str] = []
    heading = None  # the index in ``kept`` of the counted heading the lines are under
    for line in lines:
        if line.startswith("#"):
            heading = len(kept) if _COUNTED_HEADING.match(line) else None
        elif any(n in line for n in needles):
            if heading is not None:
                counted = _COUNTED_HEADING.match(kept[heading])
                assert counted is not None
                kept[heading] = f"{counted[1]}{max(int(counted[2]) - 1, 0)}{counted[3]}"
            continue
        kept.append(line)
    return "\n".join(kept)
