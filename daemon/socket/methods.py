"""The socket's method table: each JSON-RPC method is a params model, one service call and a
result model.

Wiring only. What a method does lives in ``memory/services``; the CLI and every other door
call the same services. The dispatcher validates each result against its model.
"""

from __future__ import annotations

from agentmemd.daemon.socket.rpc import Method
from agentmemd.memory.core import models as m
from agentmemd.memory.core import results as r
from agentmemd.memory.services.app import Services
from agentmemd.memory.services.directory import Directory


def build_methods(s: Services) -> dict[str, Method]:
    mem, conv, persona, jobs = s.memories, s.conversations, s.persona, s.jobs
    directory = Directory(s.store, s.config.channels)  # read-only, stateless: built with the table
    table = [
        ("health", m.EmptyParams, lambda p: s.health(), m.HealthResult, "Liveness, version and live memory count."),
        (
            "stats",
            m.StatsParams,
            lambda p: s.stats(p.namespace),
            r.StatsResult,
            "Counts by type, tier and namespace; the daemon's memory (RSS) by part.",
        ),
        # Embedded on the caller's thread, inserted on the store thread (memory_writes.py).
        ("memory.add", m.AddParams, s.memory_writes.add, m.AddResult, "Store one memory.", True),
        (
            "memory.add_many",
            m.AddManyParams,
            s.memory_writes.add_many,
            m.AddManyResult,
            "Store many memories atomically.",
            True,
        ),
        (
            "memory.get",
            m.IdParams,
            lambda p: mem.get(p.id, p.namespace),
            m.MemoryRecord,
            "One memory, live, superseded or archived.",
        ),
        (
            "memory.list",
            m.MemoryListParams,
            s.browser.list,
            r.MemoryListResult,
            "A page of memories, newest first, filtered by namespace, type, tier, source, text and date.",
        ),
        (
            "memory.history",
            m.IdParams,
            s.browser.history,
            r.MemoryHistoryResult,
            "A memory's versions, events, retention over time and origin.",
        ),
        (
            "memory.restore",
            m.IdParams,
            lambda p: mem.restore(p.id, p.namespace),
            m.MemoryRecord,
            "Bring an archived memory back to the live table.",
        ),
        (
            "memory.forget",
            m.ForgetParams,
            s.browser.forget,
            r.ForgetResult,
            "Say what forgetting a memory removes; with confirm, remove it and all its versions for good.",
        ),
        ("memory.search", m.SearchParams, mem.search, m.SearchResult, "Scored hybrid search."),
        ("memory.reinforce", m.ReinforceParams, mem.reinforce, m.ReinforceResult, "Record an access event."),
        (
            "memory.update",
            m.UpdateParams,
            mem.update,
            m.UpdateResult,
            "Write a new version; the old one is superseded.",
        ),
        (
            "memory.archive",
            m.IdParams,
            lambda p: mem.archive(p.id, p.namespace),
            m.ArchiveResult,
            "Move a memory to the archive.",
        ),
        (
            "memory.share",
            m.ShareParams,
            mem.share,
            m.MemoryRecord,
            "Set who may hear a memory: shared, the user's own, or a chat's audience.",
        ),
        ("memory.sweep", m.EmptyParams, lambda p: mem.sweep(), r.SweepResult, "Archive memories below the Cold tier."),
        ("context.pack", m.PackParams, mem.pack, m.PackResult, "Build a Memory Pack within a token budget."),
        (
            "context.explain",
            m.ExplainParams,
            lambda p: mem.explain(p.pack_id, p.namespace),
            r.ExplainResult,
            "Why a pack holds what it holds.",
        ),
        (
            "packs.list",
            m.PacksListParams,
            s.browser.packs,
            r.PacksListResult,
            "The newest logged packs (explain one with context.explain).",
        ),
        (
            "workspace.status",
            m.EmptyParams,
            lambda p: s.workspace.status(),
            r.WorkspaceStatusResult,
            "Indexed workspace files, skipped ones with why.",
        ),
        (
            "workspace.read",
            m.WorkspaceReadParams,
            s.workspace.read,
            r.WorkspaceFileText,
            "One workspace Markdown file's text, read-only.",
        ),
        (
            "workspace.sync",
            m.EmptyParams,
            lambda p: s.workspace.sync(),
            r.WorkspaceSyncResult,
            "Re-index every changed workspace file now.",
            True,
        ),
        (
            "jobs.list",
            m.EmptyParams,
            lambda p: jobs.list(),
            r.JobsListResult,
            "Scheduled jobs: cron, next run, last run and result.",
        ),
        ("jobs.run", m.JobRunParams, jobs.run, r.JobRun, "Run one job now and wait for it.", True),
        ("jobs.runs", m.JobRunsParams, jobs.runs, r.JobRunsResult, "Recent job runs, oldest first."),
        (
            "consolidation.list",
            m.ConsolidationListParams,
            jobs.consolidation,
            r.ConsolidationListResult,
            "Consolidated memories (levels 1-3) with the memories each was built from.",
        ),
        (
            "conversation.append",
            m.AppendParams,
            conv.append,
            r.AppendResult,
            "Store one turn; the Observer/Reflector run in the background when due.",
        ),
        (
            "conversation.sync",
            m.SyncParams,
            conv.sync,
            r.SyncResult,
            "Store what an app's history (oldest first) adds to the stored transcript, matched by content.",
        ),
        (
            "conversation.retract",
            m.RetractParams,
            conv.retract,
            r.RetractResult,
            "Take back the pending turns a refused model call stored.",
        ),
        (
            "conversation.context",
            m.ContextParams,
            conv.context,
            r.ContextResult,
            "Stable prefix + recent turns + Memory Pack within a token budget; carries out the SyncScore drift action.",
            True,
        ),
        (
            "conversation.observe",
            m.ObserveParams,
            conv.observe,
            r.ObserveResult,
            "Run the Observer (and Reflector) now; waits for the report.",
            True,
        ),
        (
            "conversation.status",
            m.SessionParams,
            conv.status,
            r.ConversationStatusResult,
            "Turns, tokens and compaction runs.",
        ),
        (
            "conversation.list",
            m.ConversationListParams,
            conv.sessions,
            r.ConversationListResult,
            "A namespace's conversations, the latest active first.",
        ),
        (
            "conversation.turns",
            m.TurnsParams,
            conv.turns,
            r.TurnsResult,
            "A page of a session's turns, oldest first (offset counts from the newest).",
        ),
        (
            "conversation.contexts",
            m.ContextsParams,
            conv.contexts,
            r.ContextsResult,
            "What the session's newest context builds gave the agent (the stable prefix, the messages).",
        ),
        (
            "observations.list",
            m.ObservationsListParams,
            conv.observations,
            r.ObservationsResult,
            "Observations, oldest first, with their source turns.",
        ),
        (
            "channels.ingest",
            m.IngestParams,
            s.channels.ingest,
            r.IngestResult,
            "Store a batch of one chat's messages (an import's, or a webhook's); each message once.",
            True,  # beside the store thread: an edit the batch marks embeds its new text there
        ),
        # Embedded beside the store thread, written on it (memory/channels/corrections.py).
        (
            "channels.edit",
            m.ChannelEditParams,
            s.channels.edit,
            r.CorrectionResult,
            "A stored chat message was edited: its turn and what was made only from it say the new text.",
            True,
        ),
        (
            "channels.delete",
            m.ChannelDeleteParams,
            s.channels.delete,
            r.CorrectionResult,
            "A stored chat message was deleted: a tombstone turn; what was made only from it is forgotten.",
            True,
        ),
        ("chats.list", m.ChatsListParams, s.channels.chats, r.ChatsResult, "Chats with message and session counts."),
        (
            "channels.pending",
            m.PendingParams,
            s.channels.pending,
            r.PendingResult,
            "How many turns (of a namespace, or an import's sessions) are not yet searchable, and whether they are being indexed.",
        ),
        (
            "conversation.search",
            m.TurnSearchParams,
            s.channels.search_turns,
            r.TurnSearchResult,
            "Raw turns (chat messages included) containing the query's words, with chat, speaker and time.",
        ),
        ("people.list", m.ChatsListParams, s.channels.people_list, r.PeopleResult, "Everyone who spoke in a chat."),
        ("people.get", m.PersonParams, s.channels.person, r.PersonResult, "A person: accounts, chats, activity."),
        (
            "people.merge",
            m.PeopleMergeParams,
            s.channels.merge,
            r.MergeResult,
            "Make a person the same as another (one human, two accounts): accounts and turns move.",
        ),
        (
            "people.accounts",
            m.ChatsListParams,
            directory.accounts,
            r.PeopleAccountsResult,
            "Every account of a namespace's people, with its person (the dashboard's People list).",
        ),
        (
            "chats.get",
            m.ChatParams,
            directory.chat,
            r.ChatResult,
            "A chat: who spoke, a page of its sessions, its audience and which memories its context may include.",
        ),
        (
            "persona.get",
            m.PersonaGetParams,
            persona.get,
            r.PersonaResult,
            "PersonaState (traits as 0-100 and adjectives, markers, stance, rules, record).",
        ),
        (
            "persona.history",
            m.PersonaHistoryParams,
            persona.history,
            r.PersonaHistoryResult,
            "Every PersonaState version with why it changed and its evidence.",
        ),
        (
            "persona.records",
            m.PersonaHistoryParams,
            persona.records,
            r.PersonaRecordsResult,
            "Persona Preservation Records made by compactions.",
        ),
        (
            "persona.score",
            m.PersonaScoreParams,
            persona.score,
            r.SyncScoreResult,
            "SyncScore one response: five dimensions, composite, EWMA, trend, action.",
            True,
        ),
        (
            "persona.scores",
            m.PersonaScoresParams,
            persona.scores,
            r.SyncScoresResult,
            "SyncScore history of a session or a namespace, oldest first.",
        ),
        (
            "persona.rules.propose",
            m.RuleProposeParams,
            persona.propose_rule,
            r.RuleProposal,
            "Propose adding or removing a hard rule; nothing changes until it is confirmed.",
        ),
        (
            "persona.rules.confirm",
            m.RuleDecisionParams,
            persona.confirm_rule,
            r.RuleProposal,
            "Confirm a hard-rule proposal: a new PersonaState version.",
        ),
        (
            "persona.rules.reject",
            m.RuleDecisionParams,
            persona.reject_rule,
            r.RuleProposal,
            "Reject a hard-rule proposal.",
        ),
        (
            "persona.rules.list",
            m.RulesListParams,
            persona.rules,
            r.RulesListResult,
            "Hard rules in force and proposals.",
        ),
        (
            "costs",
            m.EmptyParams,
            lambda p: s.costs.costs(),
            r.CostsResult,
            "Language-model calls, tokens and USD by provider, model and task.",
        ),
        (
            "auth",
            m.AuthParams,
            s.access.authenticate,
            r.AuthResult,
            "Bind this connection to an access token's namespaces (a door serving someone else calls it first).",
            False,
            True,
        ),
        (
            "access.tokens.create",
            m.TokenCreateParams,
            s.access.create,
            r.TokenCreated,
            "Create an access token bound to namespaces; its secret is shown once.",
        ),
        ("access.tokens.list", m.EmptyParams, lambda p: s.access.list(), r.TokensResult, "Access tokens (no secrets)."),
        (
            "access.tokens.revoke",
            m.TokenNameParams,
            s.access.revoke,
            r.AccessToken,
            "Revoke an access token: later auth calls with it fail.",
        ),
        ("clock.now", m.EmptyParams, lambda p: jobs.now(), r.ClockResult, "The daemon's current time."),
        (
            "clock.advance",
            m.ClockAdvanceParams,
            jobs.advance_clock,
            r.ClockResult,
            "Move a manual clock forward.",
            True,
        ),
    ]
    methods = {
        name: Method(params, handler, result, summary, *waits)
        for name, params, handler, result, summary, *waits in table
    }
    for name in READS:
        method = methods[name]
        method.handler, method.reads = s.reading(method.handler), True
    return methods


# Methods that only read: they run on reader threads, beside the store thread (issue 17).
READS = (
    "health",
    "stats",
    "memory.get",
    "memory.list",
    "memory.history",
    "memory.search",
    "context.pack",
    "context.explain",
    "packs.list",
    "conversation.list",
    "conversation.turns",
    "conversation.contexts",
    # Pure reads too (checked: no lazy write on their path), so a dashboard page's calls do not
    # queue behind writes. Not persona.get/.history/.rules.list: they bring the PersonaState up to
    # date first, a write when the persona files changed.
    "conversation.status",
    "observations.list",
    "persona.scores",
    "persona.records",
    "consolidation.list",
    "jobs.list",
    "jobs.runs",
    "costs",
    "workspace.status",
    "workspace.read",
    "chats.list",
    "conversation.search",
    "people.list",
    "people.get",
    "people.accounts",
    "chats.get",
    "channels.pending",
)
