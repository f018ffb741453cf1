"""Every socket method as a typed call, generated from the declarations (daemon/socket/methods.py)
by cog: ``make lint`` fails when it no longer matches them. ``Client`` (client.py) and
``AsyncClient`` (async_client.py) answer ``_typed``; the calls are theirs.

    with Client() as agentmemd:
        hits = agentmemd.memory_search(query="where does Ana live?", k=5)   # a SearchResult
        print(hits.results[0].content)
"""

from __future__ import annotations

import importlib
import sys
from datetime import date, datetime
from types import ModuleType
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from pydantic import BaseModel

if TYPE_CHECKING:
    from agentmemd.memory.core import chats
    from agentmemd.memory.core import models as m
    from agentmemd.memory.core import results as r
else:

    class _WhenUsed:
        """A module loaded when a call first reads a model of it: a script that only sends calls by
        name (a hook, a door) does not pay for building every model (~0.6 s). Loaded by
        import_module, whose lock makes a second thread wait for the first's import to finish:
        importlib's LazyLoader (used before) let it read a half-built module on Python 3.11 (two
        threads' first calls: "module ... has no attribute 'AddResult'")."""

        def __init__(self, name: str):
            self._name = name
            self._module: ModuleType | None = None

        def __getattr__(self, attribute: str) -> Any:
            module = self._module
            if module is None:
                module = self._module = importlib.import_module(self._name)
            return getattr(module, attribute)

    def _when_used(name: str) -> Any:
        return sys.modules.get(name) or _WhenUsed(name)

    chats = _when_used("agentmemd.memory.core.chats")
    m = _when_used("agentmemd.memory.core.models")
    r = _when_used("agentmemd.memory.core.results")

R = TypeVar("R", bound=BaseModel)


# [[[cog
# import cog
# from agentmemd.daemon.cli.reference import typed_calls_source
# cog.out(typed_calls_source(asynchronous=False))
# cog.out("\n\n")
# cog.out(typed_calls_source(asynchronous=True))
# cog.out("\n\n")
# ]]]
class TypedCalls:
    """Every socket method as a typed call: keyword arguments are its params,
    the result its model; an argument left None is not sent, so the daemon's default applies
    (the method reference gives each). Generated from daemon/socket/methods.py (cog); do not edit."""

    def _typed(self, method: str, result: type[R], params: dict[str, Any]) -> R:
        raise NotImplementedError

    def health(self) -> m.HealthResult:
        """Liveness, version and live memory count. (`health`)"""
        return self._typed("health", m.HealthResult, {})

    def stats(self, *, namespace: str | None = None) -> r.StatsResult:
        """Counts by type, tier and namespace; the daemon's memory (RSS) by part. (`stats`)"""
        return self._typed("stats", r.StatsResult, {"namespace": namespace})

    def memory_add(
        self,
        *,
        content: str,
        type: Literal["fact", "preference", "persona", "relational", "procedural", "episode"],
        context: str | None = None,
        priority: float | None = None,
        namespace: str | None = None,
        source: str | None = None,
        created: datetime | None = None,
        tags: list[str] | None = None,
        embedding: list[float] | None = None,
        audience: str | None = None,
        origin_chat: str | None = None,
        said_by: str | None = None,
        affect: m.MemoryAffect | dict[str, Any] | None = None,
    ) -> m.AddResult:
        """Store one memory. (`memory.add`)"""
        return self._typed(
            "memory.add",
            m.AddResult,
            {
                "content": content,
                "type": type,
                "context": context,
                "priority": priority,
                "namespace": namespace,
                "source": source,
                "created": created,
                "tags": tags,
                "embedding": embedding,
                "audience": audience,
                "origin_chat": origin_chat,
                "said_by": said_by,
                "affect": affect,
            },
        )

    def memory_add_many(self, *, items: list[m.AddParams | dict[str, Any]]) -> m.AddManyResult:
        """Store many memories atomically. (`memory.add_many`)"""
        return self._typed("memory.add_many", m.AddManyResult, {"items": items})

    def memory_get(self, *, id: str, namespace: str | None = None) -> m.MemoryRecord:
        """One memory, live, superseded or archived. (`memory.get`)"""
        return self._typed("memory.get", m.MemoryRecord, {"id": id, "namespace": namespace})

    def memory_list(
        self,
        *,
        namespace: str | None = None,
        type: Literal["fact", "preference", "persona", "relational", "procedural", "episode"] | None = None,
        tier: Literal["active", "warm", "cold", "archived"] | None = None,
        source: str | None = None,
        contains: str | None = None,
        created_from: date | None = None,
        created_to: date | None = None,
        emotion: Literal["joy", "sadness", "anger", "fear", "surprise", "disgust", "positive", "negative", "neutral"]
        | None = None,
        secrets: bool | None = None,
        person: str | None = None,
        limit: int | None = None,
        offset: int | None = None,
    ) -> r.MemoryListResult:
        """A page of memories, newest first, filtered by namespace, type, tier, source, text and date. (`memory.list`)"""
        return self._typed(
            "memory.list",
            r.MemoryListResult,
            {
                "namespace": namespace,
                "type": type,
                "tier": tier,
                "source": source,
                "contains": contains,
                "created_from": created_from,
                "created_to": created_to,
                "emotion": emotion,
                "secrets": secrets,
                "person": person,
                "limit": limit,
                "offset": offset,
            },
        )

    def memory_history(self, *, id: str, namespace: str | None = None) -> r.MemoryHistoryResult:
        """A memory's versions, events, retention over time and origin. (`memory.history`)"""
        return self._typed("memory.history", r.MemoryHistoryResult, {"id": id, "namespace": namespace})

    def memory_restore(self, *, id: str, namespace: str | None = None) -> m.MemoryRecord:
        """Bring an archived memory back to the live table. (`memory.restore`)"""
        return self._typed("memory.restore", m.MemoryRecord, {"id": id, "namespace": namespace})

    def memory_forget(
        self, *, id: str, namespace: str | None = None, confirm: bool | None = None, same_words: bool | None = None
    ) -> r.ForgetResult:
        """Say what forgetting a memory removes; with confirm, remove it and all its versions for good. (`memory.forget`)"""
        return self._typed(
            "memory.forget",
            r.ForgetResult,
            {"id": id, "namespace": namespace, "confirm": confirm, "same_words": same_words},
        )

    def memory_search(
        self,
        *,
        query: str,
        k: int | None = None,
        namespace: str | None = None,
        types: list[Literal["fact", "preference", "persona", "relational", "procedural", "episode"]] | None = None,
        include_archived: bool | None = None,
        audience: str | None = None,
        asked_at: datetime | None = None,
    ) -> m.SearchResult:
        """Scored hybrid search. (`memory.search`)"""
        return self._typed(
            "memory.search",
            m.SearchResult,
            {
                "query": query,
                "k": k,
                "namespace": namespace,
                "types": types,
                "include_archived": include_archived,
                "audience": audience,
                "asked_at": asked_at,
            },
        )

    def memory_reinforce(
        self, *, id: str, event: Literal["direct", "indirect", "used", "retrieved_unused"], namespace: str | None = None
    ) -> m.ReinforceResult:
        """Record an access event. (`memory.reinforce`)"""
        return self._typed("memory.reinforce", m.ReinforceResult, {"id": id, "event": event, "namespace": namespace})

    def memory_update(
        self,
        *,
        id: str,
        content: str,
        namespace: str | None = None,
        type: Literal["fact", "preference", "persona", "relational", "procedural", "episode"] | None = None,
        priority: float | None = None,
        source: str | None = None,
        correction: bool | None = None,
        created: datetime | None = None,
    ) -> m.UpdateResult:
        """Write a new version; the old one is superseded. (`memory.update`)"""
        return self._typed(
            "memory.update",
            m.UpdateResult,
            {
                "id": id,
                "namespace": namespace,
                "content": content,
                "type": type,
                "priority": priority,
                "source": source,
                "correction": correction,
                "created": created,
            },
        )

    def memory_archive(self, *, id: str, namespace: str | None = None) -> m.ArchiveResult:
        """Move a memory to the archive. (`memory.archive`)"""
        return self._typed("memory.archive", m.ArchiveResult, {"id": id, "namespace": namespace})

    def memory_share(self, *, id: str, audience: str, namespace: str | None = None) -> m.MemoryRecord:
        """Set who may hear a memory: shared, the user's own, or a chat's audience. (`memory.share`)"""
        return self._typed("memory.share", m.MemoryRecord, {"id": id, "audience": audience, "namespace": namespace})

    def memory_sweep(self) -> r.SweepResult:
        """Archive memories below the Cold tier. (`memory.sweep`)"""
        return self._typed("memory.sweep", r.SweepResult, {})

    def context_pack(
        self,
        *,
        query: str,
        budget_tokens: int,
        namespace: str | None = None,
        exclude: list[str] | None = None,
        audience: str | None = None,
        asked_at: datetime | None = None,
        recent: list[str] | None = None,
        logged: bool | None = None,
    ) -> m.PackResult:
        """Build a Memory Pack within a token budget. (`context.pack`)"""
        return self._typed(
            "context.pack",
            m.PackResult,
            {
                "query": query,
                "budget_tokens": budget_tokens,
                "namespace": namespace,
                "exclude": exclude,
                "audience": audience,
                "asked_at": asked_at,
                "recent": recent,
                "logged": logged,
            },
        )

    def context_explain(self, *, pack_id: str, namespace: str | None = None) -> r.ExplainResult:
        """Why a pack holds what it holds. (`context.explain`)"""
        return self._typed("context.explain", r.ExplainResult, {"pack_id": pack_id, "namespace": namespace})

    def packs_list(
        self, *, namespace: str | None = None, limit: int | None = None, offset: int | None = None
    ) -> r.PacksListResult:
        """The newest logged packs (explain one with context.explain). (`packs.list`)"""
        return self._typed("packs.list", r.PacksListResult, {"namespace": namespace, "limit": limit, "offset": offset})

    def workspace_status(self) -> r.WorkspaceStatusResult:
        """Indexed workspace files, skipped ones with why. (`workspace.status`)"""
        return self._typed("workspace.status", r.WorkspaceStatusResult, {})

    def workspace_read(self, *, path: str) -> r.WorkspaceFileText:
        """One workspace Markdown file's text, read-only. (`workspace.read`)"""
        return self._typed("workspace.read", r.WorkspaceFileText, {"path": path})

    def workspace_sync(self) -> r.WorkspaceSyncResult:
        """Re-index every changed workspace file now. (`workspace.sync`)"""
        return self._typed("workspace.sync", r.WorkspaceSyncResult, {})

    def jobs_list(self) -> r.JobsListResult:
        """Scheduled jobs: cron, next run, last run and result. (`jobs.list`)"""
        return self._typed("jobs.list", r.JobsListResult, {})

    def jobs_run(self, *, name: str) -> r.JobRun:
        """Run one job now and wait for it. (`jobs.run`)"""
        return self._typed("jobs.run", r.JobRun, {"name": name})

    def jobs_runs(self, *, name: str | None = None, limit: int | None = None) -> r.JobRunsResult:
        """Recent job runs, oldest first. (`jobs.runs`)"""
        return self._typed("jobs.runs", r.JobRunsResult, {"name": name, "limit": limit})

    def consolidation_list(
        self, *, namespace: str | None = None, level: int | None = None
    ) -> r.ConsolidationListResult:
        """Consolidated memories (levels 1-3) with the memories each was built from. (`consolidation.list`)"""
        return self._typed("consolidation.list", r.ConsolidationListResult, {"namespace": namespace, "level": level})

    def conversation_append(
        self,
        *,
        session: str,
        role: Literal["user", "assistant", "tool"],
        content: str,
        ts: datetime | None = None,
        namespace: str | None = None,
        speaker: str | None = None,
    ) -> r.AppendResult:
        """Store one turn; the Observer/Reflector run in the background when due. (`conversation.append`)"""
        return self._typed(
            "conversation.append",
            r.AppendResult,
            {
                "session": session,
                "role": role,
                "content": content,
                "ts": ts,
                "namespace": namespace,
                "speaker": speaker,
            },
        )

    def conversation_sync(
        self,
        *,
        turns: list[m.SyncTurn | dict[str, Any]],
        session: str | None = None,
        namespace: str | None = None,
        pending: bool | None = None,
        forked_from: str | None = None,
    ) -> r.SyncResult:
        """Store what an app's history (oldest first) adds to the stored transcript, matched by content. (`conversation.sync`)"""
        return self._typed(
            "conversation.sync",
            r.SyncResult,
            {
                "session": session,
                "turns": turns,
                "namespace": namespace,
                "pending": pending,
                "forked_from": forked_from,
            },
        )

    def conversation_prepare(
        self,
        *,
        turns: list[m.SyncTurn | dict[str, Any]],
        budget_tokens: int | None = None,
        anchors_as: Literal["system", "user"] | None = None,
        session: str | None = None,
        namespace: str | None = None,
        pending: bool | None = None,
        forked_from: str | None = None,
    ) -> r.PrepareResult:
        """A model call about to go out: its history synced (pending) and the context built, in one request. (`conversation.prepare`)"""
        return self._typed(
            "conversation.prepare",
            r.PrepareResult,
            {
                "budget_tokens": budget_tokens,
                "anchors_as": anchors_as,
                "session": session,
                "turns": turns,
                "namespace": namespace,
                "pending": pending,
                "forked_from": forked_from,
            },
        )

    def conversation_preview(
        self,
        *,
        turns: list[m.TurnWithText | dict[str, Any]],
        budget_tokens: int | None = None,
        anchors_as: Literal["system", "user"] | None = None,
        session: str | None = None,
        namespace: str | None = None,
        logged: bool | None = None,
    ) -> r.PreviewResult:
        """The context a model call with this history would get, stored nowhere (a token count). (`conversation.preview`)"""
        return self._typed(
            "conversation.preview",
            r.PreviewResult,
            {
                "budget_tokens": budget_tokens,
                "anchors_as": anchors_as,
                "session": session,
                "turns": turns,
                "namespace": namespace,
                "logged": logged,
            },
        )

    def conversation_confirm(
        self,
        *,
        session: str,
        upto: int,
        reply: list[m.TurnWithText | dict[str, Any]] | None = None,
        namespace: str | None = None,
        observe: bool | None = None,
    ) -> r.ConfirmResult:
        """A model call answered: its pending turns confirmed and the reply stored, the history not sent again. (`conversation.confirm`)"""
        return self._typed(
            "conversation.confirm",
            r.ConfirmResult,
            {"session": session, "upto": upto, "reply": reply, "namespace": namespace, "observe": observe},
        )

    def conversation_retract(self, *, session: str, seqs: list[int], namespace: str | None = None) -> r.RetractResult:
        """Take back the pending turns a refused model call stored. (`conversation.retract`)"""
        return self._typed(
            "conversation.retract", r.RetractResult, {"session": session, "seqs": seqs, "namespace": namespace}
        )

    def conversation_context(
        self,
        *,
        session: str,
        budget_tokens: int | None = None,
        anchors_as: Literal["system", "user"] | None = None,
        namespace: str | None = None,
    ) -> r.ContextResult:
        """Stable prefix + recent turns + Memory Pack within a token budget; carries out the SyncScore drift action. (`conversation.context`)"""
        return self._typed(
            "conversation.context",
            r.ContextResult,
            {"budget_tokens": budget_tokens, "anchors_as": anchors_as, "session": session, "namespace": namespace},
        )

    def conversation_observe(
        self,
        *,
        session: str,
        namespace: str | None = None,
        force: bool | None = None,
        reflect: bool | None = None,
        wait: bool | None = None,
        timeout_seconds: float | None = None,
    ) -> r.ObserveResult:
        """Run the Observer (and Reflector) now; waits for the report. (`conversation.observe`)"""
        return self._typed(
            "conversation.observe",
            r.ObserveResult,
            {
                "session": session,
                "namespace": namespace,
                "force": force,
                "reflect": reflect,
                "wait": wait,
                "timeout_seconds": timeout_seconds,
            },
        )

    def conversation_status(self, *, session: str, namespace: str | None = None) -> r.ConversationStatusResult:
        """Turns, tokens and compaction runs. (`conversation.status`)"""
        return self._typed(
            "conversation.status", r.ConversationStatusResult, {"session": session, "namespace": namespace}
        )

    def conversation_list(
        self, *, namespace: str | None = None, limit: int | None = None, offset: int | None = None
    ) -> r.ConversationListResult:
        """A namespace's conversations, the latest active first. (`conversation.list`)"""
        return self._typed(
            "conversation.list", r.ConversationListResult, {"namespace": namespace, "limit": limit, "offset": offset}
        )

    def conversation_turns(
        self, *, session: str, namespace: str | None = None, limit: int | None = None, offset: int | None = None
    ) -> r.TurnsResult:
        """A page of a session's turns, oldest first (offset counts from the newest). (`conversation.turns`)"""
        return self._typed(
            "conversation.turns",
            r.TurnsResult,
            {"session": session, "namespace": namespace, "limit": limit, "offset": offset},
        )

    def conversation_contexts(
        self, *, session: str, namespace: str | None = None, limit: int | None = None
    ) -> r.ContextsResult:
        """What the session's newest context builds gave the agent (the stable prefix, the messages). (`conversation.contexts`)"""
        return self._typed(
            "conversation.contexts", r.ContextsResult, {"session": session, "namespace": namespace, "limit": limit}
        )

    def observations_list(
        self, *, session: str | None = None, namespace: str | None = None, include_replaced: bool | None = None
    ) -> r.ObservationsResult:
        """Observations, oldest first, with their source turns. (`observations.list`)"""
        return self._typed(
            "observations.list",
            r.ObservationsResult,
            {"session": session, "namespace": namespace, "include_replaced": include_replaced},
        )

    def channels_ingest(
        self,
        *,
        channel: str,
        chat_id: str,
        kind: Literal["private", "group"],
        messages: list[chats.ChatMessage | dict[str, Any]],
        title: str | None = None,
        owner: str | None = None,
        tz: str | None = None,
        earlier_ids: list[str] | None = None,
        dry_run: bool | None = None,
        deleted: list[str] | None = None,
        namespace: str | None = None,
    ) -> r.IngestResult:
        """Store a batch of one chat's messages (an import's, or a webhook's); each message once. (`channels.ingest`)"""
        return self._typed(
            "channels.ingest",
            r.IngestResult,
            {
                "channel": channel,
                "chat_id": chat_id,
                "title": title,
                "kind": kind,
                "messages": messages,
                "owner": owner,
                "tz": tz,
                "earlier_ids": earlier_ids,
                "dry_run": dry_run,
                "deleted": deleted,
                "namespace": namespace,
            },
        )

    def channels_edit(
        self,
        *,
        channel: str,
        chat_id: str,
        message_id: str,
        text: str,
        edited_at: datetime,
        namespace: str | None = None,
    ) -> r.CorrectionResult:
        """A stored chat message was edited: its turn and what was made only from it say the new text. (`channels.edit`)"""
        return self._typed(
            "channels.edit",
            r.CorrectionResult,
            {
                "channel": channel,
                "chat_id": chat_id,
                "message_id": message_id,
                "text": text,
                "edited_at": edited_at,
                "namespace": namespace,
            },
        )

    def channels_delete(
        self, *, channel: str, chat_id: str, message_id: str, deleted_at: datetime, namespace: str | None = None
    ) -> r.CorrectionResult:
        """A stored chat message was deleted: a tombstone turn; what was made only from it is forgotten. (`channels.delete`)"""
        return self._typed(
            "channels.delete",
            r.CorrectionResult,
            {
                "channel": channel,
                "chat_id": chat_id,
                "message_id": message_id,
                "deleted_at": deleted_at,
                "namespace": namespace,
            },
        )

    def chats_list(self, *, namespace: str | None = None) -> r.ChatsResult:
        """Chats with message and session counts. (`chats.list`)"""
        return self._typed("chats.list", r.ChatsResult, {"namespace": namespace})

    def channels_pending(self, *, sessions: list[str] | None = None, namespace: str | None = None) -> r.PendingResult:
        """How many turns (of a namespace, or an import's sessions) are not yet searchable, and whether they are being indexed. (`channels.pending`)"""
        return self._typed("channels.pending", r.PendingResult, {"sessions": sessions, "namespace": namespace})

    def conversation_search(
        self,
        *,
        query: str,
        k: int | None = None,
        audience: str | None = None,
        chat: str | None = None,
        person: str | None = None,
        session: str | None = None,
        namespace: str | None = None,
    ) -> r.TurnSearchResult:
        """Raw turns (chat messages included) containing the query's words, with chat, speaker and time. (`conversation.search`)"""
        return self._typed(
            "conversation.search",
            r.TurnSearchResult,
            {
                "query": query,
                "k": k,
                "audience": audience,
                "chat": chat,
                "person": person,
                "session": session,
                "namespace": namespace,
            },
        )

    def people_list(self, *, namespace: str | None = None) -> r.PeopleResult:
        """Everyone who spoke in a chat. (`people.list`)"""
        return self._typed("people.list", r.PeopleResult, {"namespace": namespace})

    def people_get(self, *, person: str, namespace: str | None = None, audience: str | None = None) -> r.PersonResult:
        """A person: accounts, chats, activity. (`people.get`)"""
        return self._typed(
            "people.get", r.PersonResult, {"person": person, "namespace": namespace, "audience": audience}
        )

    def people_merge(
        self, *, person: str, into: str, namespace: str | None = None, dry_run: bool | None = None
    ) -> r.MergeResult:
        """Make a person the same as another (one human, two accounts): accounts and turns move. (`people.merge`)"""
        return self._typed(
            "people.merge", r.MergeResult, {"person": person, "into": into, "namespace": namespace, "dry_run": dry_run}
        )

    def people_accounts(self, *, namespace: str | None = None) -> r.PeopleAccountsResult:
        """Every account of a namespace's people, with its person (the dashboard's People list). (`people.accounts`)"""
        return self._typed("people.accounts", r.PeopleAccountsResult, {"namespace": namespace})

    def chats_get(
        self, *, chat: str, namespace: str | None = None, limit: int | None = None, offset: int | None = None
    ) -> r.ChatResult:
        """A chat: who spoke, a page of its sessions, its audience and which memories its context may include. (`chats.get`)"""
        return self._typed(
            "chats.get", r.ChatResult, {"chat": chat, "namespace": namespace, "limit": limit, "offset": offset}
        )

    def identity_graph(self, *, namespace: str | None = None) -> r.IdentityGraphResult:
        """The identity graph: its nodes, typed edges (each with the memory that states it) and the lines left out. (`identity.graph`)"""
        return self._typed("identity.graph", r.IdentityGraphResult, {"namespace": namespace})

    def identity_node(
        self, *, name: str, hops: int | None = None, namespace: str | None = None
    ) -> r.IdentityNodeResult:
        """One node of the identity graph, its neighbours within some hops, and the edges among them. (`identity.node`)"""
        return self._typed("identity.node", r.IdentityNodeResult, {"name": name, "hops": hops, "namespace": namespace})

    def identity_edge_add(
        self,
        *,
        relation: str,
        target: str,
        source: str | None = None,
        note: str | None = None,
        about: Literal["agent", "user"] | None = None,
        namespace: str | None = None,
    ) -> r.IdentityEdgeAddResult:
        """Add a relation to the identity graph (stored as a persona or relational memory). (`identity.edge.add`)"""
        return self._typed(
            "identity.edge.add",
            r.IdentityEdgeAddResult,
            {
                "relation": relation,
                "target": target,
                "source": source,
                "note": note,
                "about": about,
                "namespace": namespace,
            },
        )

    def identity_edge_remove(self, *, id: str, namespace: str | None = None) -> r.IdentityEdgeRemoveResult:
        """Archive a relation added over the socket (one written in a file is changed there). (`identity.edge.remove`)"""
        return self._typed("identity.edge.remove", r.IdentityEdgeRemoveResult, {"id": id, "namespace": namespace})

    def goal_add(
        self,
        *,
        text: str,
        priority: Literal["high", "medium", "low"] | None = None,
        due: datetime | None = None,
        trigger: str | None = None,
        namespace: str | None = None,
    ) -> r.Goal:
        """Add a goal: priority, an optional due time or trigger phrase; due and relevant ones are in every pack. (`goal.add`)"""
        return self._typed(
            "goal.add",
            r.Goal,
            {"text": text, "priority": priority, "due": due, "trigger": trigger, "namespace": namespace},
        )

    def goal_update(
        self,
        *,
        id: str,
        text: str | None = None,
        priority: Literal["high", "medium", "low"] | None = None,
        due: datetime | None = None,
        trigger: str | None = None,
        status: Literal["open", "done", "dropped"] | None = None,
        note: str | None = None,
        namespace: str | None = None,
    ) -> r.Goal:
        """Change a goal (text, priority, due, trigger, status) or add a progress note. (`goal.update`)"""
        return self._typed(
            "goal.update",
            r.Goal,
            {
                "id": id,
                "text": text,
                "priority": priority,
                "due": due,
                "trigger": trigger,
                "status": status,
                "note": note,
                "namespace": namespace,
            },
        )

    def goal_done(self, *, id: str, note: str | None = None, namespace: str | None = None) -> r.Goal:
        """Mark a goal done, with an optional last note. (`goal.done`)"""
        return self._typed("goal.done", r.Goal, {"id": id, "note": note, "namespace": namespace})

    def goal_get(self, *, id: str, namespace: str | None = None) -> r.Goal:
        """One goal, with its progress notes. (`goal.get`)"""
        return self._typed("goal.get", r.Goal, {"id": id, "namespace": namespace})

    def goal_list(
        self,
        *,
        status: Literal["open", "done", "dropped", "all"] | None = None,
        limit: int | None = None,
        namespace: str | None = None,
    ) -> r.GoalListResult:
        """Goals of a status (open by default), the soonest due first, each with its notes. (`goal.list`)"""
        return self._typed("goal.list", r.GoalListResult, {"status": status, "limit": limit, "namespace": namespace})

    def persona_get(self, *, namespace: str | None = None) -> r.PersonaResult:
        """PersonaState (traits as 0-100 and adjectives, markers, stance, rules, record). (`persona.get`)"""
        return self._typed("persona.get", r.PersonaResult, {"namespace": namespace})

    def persona_history(self, *, namespace: str | None = None, limit: int | None = None) -> r.PersonaHistoryResult:
        """Every PersonaState version with why it changed and its evidence. (`persona.history`)"""
        return self._typed("persona.history", r.PersonaHistoryResult, {"namespace": namespace, "limit": limit})

    def persona_records(self, *, namespace: str | None = None, limit: int | None = None) -> r.PersonaRecordsResult:
        """Persona Preservation Records made by compactions. (`persona.records`)"""
        return self._typed("persona.records", r.PersonaRecordsResult, {"namespace": namespace, "limit": limit})

    def persona_score(
        self,
        *,
        response: str,
        session: str | None = None,
        context: str | None = None,
        pack_id: str | None = None,
        namespace: str | None = None,
    ) -> r.SyncScoreResult:
        """SyncScore one response: five dimensions, composite, EWMA, trend, action. (`persona.score`)"""
        return self._typed(
            "persona.score",
            r.SyncScoreResult,
            {"response": response, "session": session, "context": context, "pack_id": pack_id, "namespace": namespace},
        )

    def persona_scores(
        self, *, session: str | None = None, namespace: str | None = None, limit: int | None = None
    ) -> r.SyncScoresResult:
        """SyncScore history of a session or a namespace, oldest first. (`persona.scores`)"""
        return self._typed(
            "persona.scores", r.SyncScoresResult, {"session": session, "namespace": namespace, "limit": limit}
        )

    def persona_rules_propose(
        self, *, rule: str, action: Literal["add", "remove"] | None = None, namespace: str | None = None
    ) -> r.RuleProposal:
        """Propose adding or removing a hard rule; nothing changes until it is confirmed. (`persona.rules.propose`)"""
        return self._typed(
            "persona.rules.propose", r.RuleProposal, {"rule": rule, "action": action, "namespace": namespace}
        )

    def persona_rules_confirm(self, *, id: str, namespace: str | None = None) -> r.RuleProposal:
        """Confirm a hard-rule proposal: a new PersonaState version. (`persona.rules.confirm`)"""
        return self._typed("persona.rules.confirm", r.RuleProposal, {"id": id, "namespace": namespace})

    def persona_rules_reject(self, *, id: str, namespace: str | None = None) -> r.RuleProposal:
        """Reject a hard-rule proposal. (`persona.rules.reject`)"""
        return self._typed("persona.rules.reject", r.RuleProposal, {"id": id, "namespace": namespace})

    def persona_rules_list(
        self, *, namespace: str | None = None, status: Literal["pending", "confirmed", "rejected", "all"] | None = None
    ) -> r.RulesListResult:
        """Hard rules in force and proposals. (`persona.rules.list`)"""
        return self._typed("persona.rules.list", r.RulesListResult, {"namespace": namespace, "status": status})

    def costs(self) -> r.CostsResult:
        """Language-model calls, tokens and USD by provider, model and task. (`costs`)"""
        return self._typed("costs", r.CostsResult, {})

    def auth(self, *, token: str) -> r.AuthResult:
        """Bind this connection to an access token's namespaces (a door serving someone else calls it first). (`auth`)"""
        return self._typed("auth", r.AuthResult, {"token": token})

    def access_tokens_create(
        self, *, name: str, namespaces: list[str] | None, hears: str | None = None
    ) -> r.TokenCreated:
        """Create an access token bound to namespaces; its secret is shown once. (`access.tokens.create`)"""
        return self._typed(
            "access.tokens.create", r.TokenCreated, {"name": name, "namespaces": namespaces, "hears": hears}
        )

    def access_tokens_list(self) -> r.TokensResult:
        """Access tokens (no secrets). (`access.tokens.list`)"""
        return self._typed("access.tokens.list", r.TokensResult, {})

    def access_tokens_revoke(self, *, name: str) -> r.AccessToken:
        """Revoke an access token: later auth calls with it fail. (`access.tokens.revoke`)"""
        return self._typed("access.tokens.revoke", r.AccessToken, {"name": name})

    def clock_now(self) -> r.ClockResult:
        """The daemon's current time. (`clock.now`)"""
        return self._typed("clock.now", r.ClockResult, {})

    def clock_advance(self, *, hours: float) -> r.ClockResult:
        """Move a manual clock forward. (`clock.advance`)"""
        return self._typed("clock.advance", r.ClockResult, {"hours": hours})


class AsyncTypedCalls:
    """Every socket method as an awaitable typed call: keyword arguments are its params,
    the result its model; an argument left None is not sent, so the daemon's default applies
    (the method reference gives each). Generated from daemon/socket/methods.py (cog); do not edit."""

    async def _typed(self, method: str, result: type[R], params: dict[str, Any]) -> R:
        raise NotImplementedError

    async def health(self) -> m.HealthResult:
        """Liveness, version and live memory count. (`health`)"""
        return await self._typed("health", m.HealthResult, {})

    async def stats(self, *, namespace: str | None = None) -> r.StatsResult:
        """Counts by type, tier and namespace; the daemon's memory (RSS) by part. (`stats`)"""
        return await self._typed("stats", r.StatsResult, {"namespace": namespace})

    async def memory_add(
        self,
        *,
        content: str,
        type: Literal["fact", "preference", "persona", "relational", "procedural", "episode"],
        context: str | None = None,
        priority: float | None = None,
        namespace: str | None = None,
        source: str | None = None,
        created: datetime | None = None,
        tags: list[str] | None = None,
        embedding: list[float] | None = None,
        audience: str | None = None,
        origin_chat: str | None = None,
        said_by: str | None = None,
        affect: m.MemoryAffect | dict[str, Any] | None = None,
    ) -> m.AddResult:
        """Store one memory. (`memory.add`)"""
        return await self._typed(
            "memory.add",
            m.AddResult,
            {
                "content": content,
                "type": type,
                "context": context,
                "priority": priority,
                "namespace": namespace,
                "source": source,
                "created": created,
                "tags": tags,
                "embedding": embedding,
                "audience": audience,
                "origin_chat": origin_chat,
                "said_by": said_by,
                "affect": affect,
            },
        )

    async def memory_add_many(self, *, items: list[m.AddParams | dict[str, Any]]) -> m.AddManyResult:
        """Store many memories atomically. (`memory.add_many`)"""
        return await self._typed("memory.add_many", m.AddManyResult, {"items": items})

    async def memory_get(self, *, id: str, namespace: str | None = None) -> m.MemoryRecord:
        """One memory, live, superseded or archived. (`memory.get`)"""
        return await self._typed("memory.get", m.MemoryRecord, {"id": id, "namespace": namespace})

    async def memory_list(
        self,
        *,
        namespace: str | None = None,
        type: Literal["fact", "preference", "persona", "relational", "procedural", "episode"] | None = None,
        tier: Literal["active", "warm", "cold", "archived"] | None = None,
        source: str | None = None,
        contains: str | None = None,
        created_from: date | None = None,
        created_to: date | None = None,
        emotion: Literal["joy", "sadness", "anger", "fear", "surprise", "disgust", "positive", "negative", "neutral"]
        | None = None,
        secrets: bool | None = None,
        person: str | None = None,
        limit: int | None = None,
        offset: int | None = None,
    ) -> r.MemoryListResult:
        """A page of memories, newest first, filtered by namespace, type, tier, source, text and date. (`memory.list`)"""
        return await self._typed(
            "memory.list",
            r.MemoryListResult,
            {
                "namespace": namespace,
                "type": type,
                "tier": tier,
                "source": source,
                "contains": contains,
                "created_from": created_from,
                "created_to": created_to,
                "emotion": emotion,
                "secrets": secrets,
                "person": person,
                "limit": limit,
                "offset": offset,
            },
        )

    async def memory_history(self, *, id: str, namespace: str | None = None) -> r.MemoryHistoryResult:
        """A memory's versions, events, retention over time and origin. (`memory.history`)"""
        return await self._typed("memory.history", r.MemoryHistoryResult, {"id": id, "namespace": namespace})

    async def memory_restore(self, *, id: str, namespace: str | None = None) -> m.MemoryRecord:
        """Bring an archived memory back to the live table. (`memory.restore`)"""
        return await self._typed("memory.restore", m.MemoryRecord, {"id": id, "namespace": namespace})

    async def memory_forget(
        self, *, id: str, namespace: str | None = None, confirm: bool | None = None, same_words: bool | None = None
    ) -> r.ForgetResult:
        """Say what forgetting a memory removes; with confirm, remove it and all its versions for good. (`memory.forget`)"""
        return await self._typed(
            "memory.forget",
            r.ForgetResult,
            {"id": id, "namespace": namespace, "confirm": confirm, "same_words": same_words},
        )

    async def memory_search(
        self,
        *,
        query: str,
        k: int | None = None,
        namespace: str | None = None,
        types: list[Literal["fact", "preference", "persona", "relational", "procedural", "episode"]] | None = None,
        include_archived: bool | None = None,
        audience: str | None = None,
        asked_at: datetime | None = None,
    ) -> m.SearchResult:
        """Scored hybrid search. (`memory.search`)"""
        return await self._typed(
            "memory.search",
            m.SearchResult,
            {
                "query": query,
                "k": k,
                "namespace": namespace,
                "types": types,
                "include_archived": include_archived,
                "audience": audience,
                "asked_at": asked_at,
            },
        )

    async def memory_reinforce(
        self, *, id: str, event: Literal["direct", "indirect", "used", "retrieved_unused"], namespace: str | None = None
    ) -> m.ReinforceResult:
        """Record an access event. (`memory.reinforce`)"""
        return await self._typed(
            "memory.reinforce", m.ReinforceResult, {"id": id, "event": event, "namespace": namespace}
        )

    async def memory_update(
        self,
        *,
        id: str,
        content: str,
        namespace: str | None = None,
        type: Literal["fact", "preference", "persona", "relational", "procedural", "episode"] | None = None,
        priority: float | None = None,
        source: str | None = None,
        correction: bool | None = None,
        created: datetime | None = None,
    ) -> m.UpdateResult:
        """Write a new version; the old one is superseded. (`memory.update`)"""
        return await self._typed(
            "memory.update",
            m.UpdateResult,
            {
                "id": id,
                "namespace": namespace,
                "content": content,
                "type": type,
                "priority": priority,
                "source": source,
                "correction": correction,
                "created": created,
            },
        )

    async def memory_archive(self, *, id: str, namespace: str | None = None) -> m.ArchiveResult:
        """Move a memory to the archive. (`memory.archive`)"""
        return await self._typed("memory.archive", m.ArchiveResult, {"id": id, "namespace": namespace})

    async def memory_share(self, *, id: str, audience: str, namespace: str | None = None) -> m.MemoryRecord:
        """Set who may hear a memory: shared, the user's own, or a chat's audience. (`memory.share`)"""
        return await self._typed(
            "memory.share", m.MemoryRecord, {"id": id, "audience": audience, "namespace": namespace}
        )

    async def memory_sweep(self) -> r.SweepResult:
        """Archive memories below the Cold tier. (`memory.sweep`)"""
        return await self._typed("memory.sweep", r.SweepResult, {})

    async def context_pack(
        self,
        *,
        query: str,
        budget_tokens: int,
        namespace: str | None = None,
        exclude: list[str] | None = None,
        audience: str | None = None,
        asked_at: datetime | None = None,
        recent: list[str] | None = None,
        logged: bool | None = None,
    ) -> m.PackResult:
        """Build a Memory Pack within a token budget. (`context.pack`)"""
        return await self._typed(
            "context.pack",
            m.PackResult,
            {
                "query": query,
                "budget_tokens": budget_tokens,
                "namespace": namespace,
                "exclude": exclude,
                "audience": audience,
                "asked_at": asked_at,
                "recent": recent,
                "logged": logged,
            },
        )

    async def context_explain(self, *, pack_id: str, namespace: str | None = None) -> r.ExplainResult:
        """Why a pack holds what it holds. (`context.explain`)"""
        return await self._typed("context.explain", r.ExplainResult, {"pack_id": pack_id, "namespace": namespace})

    async def packs_list(
        self, *, namespace: str | None = None, limit: int | None = None, offset: int | None = None
    ) -> r.PacksListResult:
        """The newest logged packs (explain one with context.explain). (`packs.list`)"""
        return await self._typed(
            "packs.list", r.PacksListResult, {"namespace": namespace, "limit": limit, "offset": offset}
        )

    async def workspace_status(self) -> r.WorkspaceStatusResult:
        """Indexed workspace files, skipped ones with why. (`workspace.status`)"""
        return await self._typed("workspace.status", r.WorkspaceStatusResult, {})

    async def workspace_read(self, *, path: str) -> r.WorkspaceFileText:
        """One workspace Markdown file's text, read-only. (`workspace.read`)"""
        return await self._typed("workspace.read", r.WorkspaceFileText, {"path": path})

    async def workspace_sync(self) -> r.WorkspaceSyncResult:
        """Re-index every changed workspace file now. (`workspace.sync`)"""
        return await self._typed("workspace.sync", r.WorkspaceSyncResult, {})

    async def jobs_list(self) -> r.JobsListResult:
        """Scheduled jobs: cron, next run, last run and result. (`jobs.list`)"""
        return await self._typed("jobs.list", r.JobsListResult, {})

    async def jobs_run(self, *, name: str) -> r.JobRun:
        """Run one job now and wait for it. (`jobs.run`)"""
        return await self._typed("jobs.run", r.JobRun, {"name": name})

    async def jobs_runs(self, *, name: str | None = None, limit: int | None = None) -> r.JobRunsResult:
        """Recent job runs, oldest first. (`jobs.runs`)"""
        return await self._typed("jobs.runs", r.JobRunsResult, {"name": name, "limit": limit})

    async def consolidation_list(
        self, *, namespace: str | None = None, level: int | None = None
    ) -> r.ConsolidationListResult:
        """Consolidated memories (levels 1-3) with the memories each was built from. (`consolidation.list`)"""
        return await self._typed(
            "consolidation.list", r.ConsolidationListResult, {"namespace": namespace, "level": level}
        )

    async def conversation_append(
        self,
        *,
        session: str,
        role: Literal["user", "assistant", "tool"],
        content: str,
        ts: datetime | None = None,
        namespace: str | None = None,
        speaker: str | None = None,
    ) -> r.AppendResult:
        """Store one turn; the Observer/Reflector run in the background when due. (`conversation.append`)"""
        return await self._typed(
            "conversation.append",
            r.AppendResult,
            {
                "session": session,
                "role": role,
                "content": content,
                "ts": ts,
                "namespace": namespace,
                "speaker": speaker,
            },
        )

    async def conversation_sync(
        self,
        *,
        turns: list[m.SyncTurn | dict[str, Any]],
        session: str | None = None,
        namespace: str | None = None,
        pending: bool | None = None,
        forked_from: str | None = None,
    ) -> r.SyncResult:
        """Store what an app's history (oldest first) adds to the stored transcript, matched by content. (`conversation.sync`)"""
        return await self._typed(
            "conversation.sync",
            r.SyncResult,
            {
                "session": session,
                "turns": turns,
                "namespace": namespace,
                "pending": pending,
                "forked_from": forked_from,
            },
        )

    async def conversation_prepare(
        self,
        *,
        turns: list[m.SyncTurn | dict[str, Any]],
        budget_tokens: int | None = None,
        anchors_as: Literal["system", "user"] | None = None,
        session: str | None = None,
        namespace: str | None = None,
        pending: bool | None = None,
        forked_from: str | None = None,
    ) -> r.PrepareResult:
        """A model call about to go out: its history synced (pending) and the context built, in one request. (`conversation.prepare`)"""
        return await self._typed(
            "conversation.prepare",
            r.PrepareResult,
            {
                "budget_tokens": budget_tokens,
                "anchors_as": anchors_as,
                "session": session,
                "turns": turns,
                "namespace": namespace,
                "pending": pending,
                "forked_from": forked_from,
            },
        )

    async def conversation_preview(
        self,
        *,
        turns: list[m.TurnWithText | dict[str, Any]],
        budget_tokens: int | None = None,
        anchors_as: Literal["system", "user"] | None = None,
        session: str | None = None,
        namespace: str | None = None,
        logged: bool | None = None,
    ) -> r.PreviewResult:
        """The context a model call with this history would get, stored nowhere (a token count). (`conversation.preview`)"""
        return await self._typed(
            "conversation.preview",
            r.PreviewResult,
            {
                "budget_tokens": budget_tokens,
                "anchors_as": anchors_as,
                "session": session,
                "turns": turns,
                "namespace": namespace,
                "logged": logged,
            },
        )

    async def conversation_confirm(
        self,
        *,
        session: str,
        upto: int,
        reply: list[m.TurnWithText | dict[str, Any]] | None = None,
        namespace: str | None = None,
        observe: bool | None = None,
    ) -> r.ConfirmResult:
        """A model call answered: its pending turns confirmed and the reply stored, the history not sent again. (`conversation.confirm`)"""
        return await self._typed(
            "conversation.confirm",
            r.ConfirmResult,
            {"session": session, "upto": upto, "reply": reply, "namespace": namespace, "observe": observe},
        )

    async def conversation_retract(
        self, *, session: str, seqs: list[int], namespace: str | None = None
    ) -> r.RetractResult:
        """Take back the pending turns a refused model call stored. (`conversation.retract`)"""
        return await self._typed(
            "conversation.retract", r.RetractResult, {"session": session, "seqs": seqs, "namespace": namespace}
        )

    async def conversation_context(
        self,
        *,
        session: str,
        budget_tokens: int | None = None,
        anchors_as: Literal["system", "user"] | None = None,
        namespace: str | None = None,
    ) -> r.ContextResult:
        """Stable prefix + recent turns + Memory Pack within a token budget; carries out the SyncScore drift action. (`conversation.context`)"""
        return await self._typed(
            "conversation.context",
            r.ContextResult,
            {"budget_tokens": budget_tokens, "anchors_as": anchors_as, "session": session, "namespace": namespace},
        )

    async def conversation_observe(
        self,
        *,
        session: str,
        namespace: str | None = None,
        force: bool | None = None,
        reflect: bool | None = None,
        wait: bool | None = None,
        timeout_seconds: float | None = None,
    ) -> r.ObserveResult:
        """Run the Observer (and Reflector) now; waits for the report. (`conversation.observe`)"""
        return await self._typed(
            "conversation.observe",
            r.ObserveResult,
            {
                "session": session,
                "namespace": namespace,
                "force": force,
                "reflect": reflect,
                "wait": wait,
                "timeout_seconds": timeout_seconds,
            },
        )

    async def conversation_status(self, *, session: str, namespace: str | None = None) -> r.ConversationStatusResult:
        """Turns, tokens and compaction runs. (`conversation.status`)"""
        return await self._typed(
            "conversation.status", r.ConversationStatusResult, {"session": session, "namespace": namespace}
        )

    async def conversation_list(
        self, *, namespace: str | None = None, limit: int | None = None, offset: int | None = None
    ) -> r.ConversationListResult:
        """A namespace's conversations, the latest active first. (`conversation.list`)"""
        return await self._typed(
            "conversation.list", r.ConversationListResult, {"namespace": namespace, "limit": limit, "offset": offset}
        )

    async def conversation_turns(
        self, *, session: str, namespace: str | None = None, limit: int | None = None, offset: int | None = None
    ) -> r.TurnsResult:
        """A page of a session's turns, oldest first (offset counts from the newest). (`conversation.turns`)"""
        return await self._typed(
            "conversation.turns",
            r.TurnsResult,
            {"session": session, "namespace": namespace, "limit": limit, "offset": offset},
        )

    async def conversation_contexts(
        self, *, session: str, namespace: str | None = None, limit: int | None = None
    ) -> r.ContextsResult:
        """What the session's newest context builds gave the agent (the stable prefix, the messages). (`conversation.contexts`)"""
        return await self._typed(
            "conversation.contexts", r.ContextsResult, {"session": session, "namespace": namespace, "limit": limit}
        )

    async def observations_list(
        self, *, session: str | None = None, namespace: str | None = None, include_replaced: bool | None = None
    ) -> r.ObservationsResult:
        """Observations, oldest first, with their source turns. (`observations.list`)"""
        return await self._typed(
            "observations.list",
            r.ObservationsResult,
            {"session": session, "namespace": namespace, "include_replaced": include_replaced},
        )

    async def channels_ingest(
        self,
        *,
        channel: str,
        chat_id: str,
        kind: Literal["private", "group"],
        messages: list[chats.ChatMessage | dict[str, Any]],
        title: str | None = None,
        owner: str | None = None,
        tz: str | None = None,
        earlier_ids: list[str] | None = None,
        dry_run: bool | None = None,
        deleted: list[str] | None = None,
        namespace: str | None = None,
    ) -> r.IngestResult:
        """Store a batch of one chat's messages (an import's, or a webhook's); each message once. (`channels.ingest`)"""
        return await self._typed(
            "channels.ingest",
            r.IngestResult,
            {
                "channel": channel,
                "chat_id": chat_id,
                "title": title,
                "kind": kind,
                "messages": messages,
                "owner": owner,
                "tz": tz,
                "earlier_ids": earlier_ids,
                "dry_run": dry_run,
                "deleted": deleted,
                "namespace": namespace,
            },
        )

    async def channels_edit(
        self,
        *,
        channel: str,
        chat_id: str,
        message_id: str,
        text: str,
        edited_at: datetime,
        namespace: str | None = None,
    ) -> r.CorrectionResult:
        """A stored chat message was edited: its turn and what was made only from it say the new text. (`channels.edit`)"""
        return await self._typed(
            "channels.edit",
            r.CorrectionResult,
            {
                "channel": channel,
                "chat_id": chat_id,
                "message_id": message_id,
                "text": text,
                "edited_at": edited_at,
                "namespace": namespace,
            },
        )

    async def channels_delete(
        self, *, channel: str, chat_id: str, message_id: str, deleted_at: datetime, namespace: str | None = None
    ) -> r.CorrectionResult:
        """A stored chat message was deleted: a tombstone turn; what was made only from it is forgotten. (`channels.delete`)"""
        return await self._typed(
            "channels.delete",
            r.CorrectionResult,
            {
                "channel": channel,
                "chat_id": chat_id,
                "message_id": message_id,
                "deleted_at": deleted_at,
                "namespace": namespace,
            },
        )

    async def chats_list(self, *, namespace: str | None = None) -> r.ChatsResult:
        """Chats with message and session counts. (`chats.list`)"""
        return await self._typed("chats.list", r.ChatsResult, {"namespace": namespace})

    async def channels_pending(
        self, *, sessions: list[str] | None = None, namespace: str | None = None
    ) -> r.PendingResult:
        """How many turns (of a namespace, or an import's sessions) are not yet searchable, and whether they are being indexed. (`channels.pending`)"""
        return await self._typed("channels.pending", r.PendingResult, {"sessions": sessions, "namespace": namespace})

    async def conversation_search(
        self,
        *,
        query: str,
        k: int | None = None,
        audience: str | None = None,
        chat: str | None = None,
        person: str | None = None,
        session: str | None = None,
        namespace: str | None = None,
    ) -> r.TurnSearchResult:
        """Raw turns (chat messages included) containing the query's words, with chat, speaker and time. (`conversation.search`)"""
        return await self._typed(
            "conversation.search",
            r.TurnSearchResult,
            {
                "query": query,
                "k": k,
                "audience": audience,
                "chat": chat,
                "person": person,
                "session": session,
                "namespace": namespace,
            },
        )

    async def people_list(self, *, namespace: str | None = None) -> r.PeopleResult:
        """Everyone who spoke in a chat. (`people.list`)"""
        return await self._typed("people.list", r.PeopleResult, {"namespace": namespace})

    async def people_get(
        self, *, person: str, namespace: str | None = None, audience: str | None = None
    ) -> r.PersonResult:
        """A person: accounts, chats, activity. (`people.get`)"""
        return await self._typed(
            "people.get", r.PersonResult, {"person": person, "namespace": namespace, "audience": audience}
        )

    async def people_merge(
        self, *, person: str, into: str, namespace: str | None = None, dry_run: bool | None = None
    ) -> r.MergeResult:
        """Make a person the same as another (one human, two accounts): accounts and turns move. (`people.merge`)"""
        return await self._typed(
            "people.merge", r.MergeResult, {"person": person, "into": into, "namespace": namespace, "dry_run": dry_run}
        )

    async def people_accounts(self, *, namespace: str | None = None) -> r.PeopleAccountsResult:
        """Every account of a namespace's people, with its person (the dashboard's People list). (`people.accounts`)"""
        return await self._typed("people.accounts", r.PeopleAccountsResult, {"namespace": namespace})

    async def chats_get(
        self, *, chat: str, namespace: str | None = None, limit: int | None = None, offset: int | None = None
    ) -> r.ChatResult:
        """A chat: who spoke, a page of its sessions, its audience and which memories its context may include. (`chats.get`)"""
        return await self._typed(
            "chats.get", r.ChatResult, {"chat": chat, "namespace": namespace, "limit": limit, "offset": offset}
        )

    async def identity_graph(self, *, namespace: str | None = None) -> r.IdentityGraphResult:
        """The identity graph: its nodes, typed edges (each with the memory that states it) and the lines left out. (`identity.graph`)"""
        return await self._typed("identity.graph", r.IdentityGraphResult, {"namespace": namespace})

    async def identity_node(
        self, *, name: str, hops: int | None = None, namespace: str | None = None
    ) -> r.IdentityNodeResult:
        """One node of the identity graph, its neighbours within some hops, and the edges among them. (`identity.node`)"""
        return await self._typed(
            "identity.node", r.IdentityNodeResult, {"name": name, "hops": hops, "namespace": namespace}
        )

    async def identity_edge_add(
        self,
        *,
        relation: str,
        target: str,
        source: str | None = None,
        note: str | None = None,
        about: Literal["agent", "user"] | None = None,
        namespace: str | None = None,
    ) -> r.IdentityEdgeAddResult:
        """Add a relation to the identity graph (stored as a persona or relational memory). (`identity.edge.add`)"""
        return await self._typed(
            "identity.edge.add",
            r.IdentityEdgeAddResult,
            {
                "relation": relation,
                "target": target,
                "source": source,
                "note": note,
                "about": about,
                "namespace": namespace,
            },
        )

    async def identity_edge_remove(self, *, id: str, namespace: str | None = None) -> r.IdentityEdgeRemoveResult:
        """Archive a relation added over the socket (one written in a file is changed there). (`identity.edge.remove`)"""
        return await self._typed("identity.edge.remove", r.IdentityEdgeRemoveResult, {"id": id, "namespace": namespace})

    async def goal_add(
        self,
        *,
        text: str,
        priority: Literal["high", "medium", "low"] | None = None,
        due: datetime | None = None,
        trigger: str | None = None,
        namespace: str | None = None,
    ) -> r.Goal:
        """Add a goal: priority, an optional due time or trigger phrase; due and relevant ones are in every pack. (`goal.add`)"""
        return await self._typed(
            "goal.add",
            r.Goal,
            {"text": text, "priority": priority, "due": due, "trigger": trigger, "namespace": namespace},
        )

    async def goal_update(
        self,
        *,
        id: str,
        text: str | None = None,
        priority: Literal["high", "medium", "low"] | None = None,
        due: datetime | None = None,
        trigger: str | None = None,
        status: Literal["open", "done", "dropped"] | None = None,
        note: str | None = None,
        namespace: str | None = None,
    ) -> r.Goal:
        """Change a goal (text, priority, due, trigger, status) or add a progress note. (`goal.update`)"""
        return await self._typed(
            "goal.update",
            r.Goal,
            {
                "id": id,
                "text": text,
                "priority": priority,
                "due": due,
                "trigger": trigger,
                "status": status,
                "note": note,
                "namespace": namespace,
            },
        )

    async def goal_done(self, *, id: str, note: str | None = None, namespace: str | None = None) -> r.Goal:
        """Mark a goal done, with an optional last note. (`goal.done`)"""
        return await self._typed("goal.done", r.Goal, {"id": id, "note": note, "namespace": namespace})

    async def goal_get(self, *, id: str, namespace: str | None = None) -> r.Goal:
        """One goal, with its progress notes. (`goal.get`)"""
        return await self._typed("goal.get", r.Goal, {"id": id, "namespace": namespace})

    async def goal_list(
        self,
        *,
        status: Literal["open", "done", "dropped", "all"] | None = None,
        limit: int | None = None,
        namespace: str | None = None,
    ) -> r.GoalListResult:
        """Goals of a status (open by default), the soonest due first, each with its notes. (`goal.list`)"""
        return await self._typed(
            "goal.list", r.GoalListResult, {"status": status, "limit": limit, "namespace": namespace}
        )

    async def persona_get(self, *, namespace: str | None = None) -> r.PersonaResult:
        """PersonaState (traits as 0-100 and adjectives, markers, stance, rules, record). (`persona.get`)"""
        return await self._typed("persona.get", r.PersonaResult, {"namespace": namespace})

    async def persona_history(
        self, *, namespace: str | None = None, limit: int | None = None
    ) -> r.PersonaHistoryResult:
        """Every PersonaState version with why it changed and its evidence. (`persona.history`)"""
        return await self._typed("persona.history", r.PersonaHistoryResult, {"namespace": namespace, "limit": limit})

    async def persona_records(
        self, *, namespace: str | None = None, limit: int | None = None
    ) -> r.PersonaRecordsResult:
        """Persona Preservation Records made by compactions. (`persona.records`)"""
        return await self._typed("persona.records", r.PersonaRecordsResult, {"namespace": namespace, "limit": limit})

    async def persona_score(
        self,
        *,
        response: str,
        session: str | None = None,
        context: str | None = None,
        pack_id: str | None = None,
        namespace: str | None = None,
    ) -> r.SyncScoreResult:
        """SyncScore one response: five dimensions, composite, EWMA, trend, action. (`persona.score`)"""
        return await self._typed(
            "persona.score",
            r.SyncScoreResult,
            {"response": response, "session": session, "context": context, "pack_id": pack_id, "namespace": namespace},
        )

    async def persona_scores(
        self, *, session: str | None = None, namespace: str | None = None, limit: int | None = None
    ) -> r.SyncScoresResult:
        """SyncScore history of a session or a namespace, oldest first. (`persona.scores`)"""
        return await self._typed(
            "persona.scores", r.SyncScoresResult, {"session": session, "namespace": namespace, "limit": limit}
        )

    async def persona_rules_propose(
        self, *, rule: str, action: Literal["add", "remove"] | None = None, namespace: str | None = None
    ) -> r.RuleProposal:
        """Propose adding or removing a hard rule; nothing changes until it is confirmed. (`persona.rules.propose`)"""
        return await self._typed(
            "persona.rules.propose", r.RuleProposal, {"rule": rule, "action": action, "namespace": namespace}
        )

    async def persona_rules_confirm(self, *, id: str, namespace: str | None = None) -> r.RuleProposal:
        """Confirm a hard-rule proposal: a new PersonaState version. (`persona.rules.confirm`)"""
        return await self._typed("persona.rules.confirm", r.RuleProposal, {"id": id, "namespace": namespace})

    async def persona_rules_reject(self, *, id: str, namespace: str | None = None) -> r.RuleProposal:
        """Reject a hard-rule proposal. (`persona.rules.reject`)"""
        return await self._typed("persona.rules.reject", r.RuleProposal, {"id": id, "namespace": namespace})

    async def persona_rules_list(
        self, *, namespace: str | None = None, status: Literal["pending", "confirmed", "rejected", "all"] | None = None
    ) -> r.RulesListResult:
        """Hard rules in force and proposals. (`persona.rules.list`)"""
        return await self._typed("persona.rules.list", r.RulesListResult, {"namespace": namespace, "status": status})

    async def costs(self) -> r.CostsResult:
        """Language-model calls, tokens and USD by provider, model and task. (`costs`)"""
        return await self._typed("costs", r.CostsResult, {})

    async def auth(self, *, token: str) -> r.AuthResult:
        """Bind this connection to an access token's namespaces (a door serving someone else calls it first). (`auth`)"""
        return await self._typed("auth", r.AuthResult, {"token": token})

    async def access_tokens_create(
        self, *, name: str, namespaces: list[str] | None, hears: str | None = None
    ) -> r.TokenCreated:
        """Create an access token bound to namespaces; its secret is shown once. (`access.tokens.create`)"""
        return await self._typed(
            "access.tokens.create", r.TokenCreated, {"name": name, "namespaces": namespaces, "hears": hears}
        )

    async def access_tokens_list(self) -> r.TokensResult:
        """Access tokens (no secrets). (`access.tokens.list`)"""
        return await self._typed("access.tokens.list", r.TokensResult, {})

    async def access_tokens_revoke(self, *, name: str) -> r.AccessToken:
        """Revoke an access token: later auth calls with it fail. (`access.tokens.revoke`)"""
        return await self._typed("access.tokens.revoke", r.AccessToken, {"name": name})

    async def clock_now(self) -> r.ClockResult:
        """The daemon's current time. (`clock.now`)"""
        return await self._typed("clock.now", r.ClockResult, {})

    async def clock_advance(self, *, hours: float) -> r.ClockResult:
        """Move a manual clock forward. (`clock.advance`)"""
        return await self._typed("clock.advance", r.ClockResult, {"hours": hours})


# [[[end]]]
