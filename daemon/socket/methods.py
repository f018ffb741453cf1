"""Every daemon method, declared once: its name, params model, the one service call that answers
it, its result model, and its flags (where it runs, which doors expose it). The socket's method
table is built from it; the MCP tools, the CLI commands that mirror a method and the method
reference in the docs are checked against it (tests/test_declarations.py) or generated from it.

Wiring only. What a method does lives in ``daemon/services``; every door calls the same services.
The dispatcher validates each result against its model.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from pydantic import BaseModel

from agentmemd.daemon.services.access import owner_only
from agentmemd.daemon.socket.rpc import Method
from agentmemd.memory.core import models as m
from agentmemd.memory.core import results as r

if TYPE_CHECKING:  # the doors that read the declarations (the CLI, MCP) need not load the engine
    from agentmemd.daemon.services.app import Services

Handler = Callable[[Any], Any]


@dataclass(frozen=True)
class Declared:
    """One method. ``handler``: given the services, the function that answers it."""

    name: str
    params: type[BaseModel]
    handler: Callable[[Services], Handler]
    result: type[BaseModel]
    summary: str
    # Runs beside the store thread, not on it: it waits on other work (an embedding, a worker) and
    # hands its SQLite steps to the store thread itself.
    waits: bool = False
    # Only reads: on a reader thread's read-only connection, so a slow write never delays it
    # (checked free of lazy writes: persona.get/.history/.rules.list bring the PersonaState up to
    # date first, so they are not reads).
    reads: bool = False
    # Returns the Scope the connection holds from now on (`auth`).
    authenticates: bool = False
    # Result fields only the owner's socket gets: a connection bound to a token (or refused one)
    # gets the result without them (health's process facts: paths, the store's URL, the doors).
    owner_fields: tuple[str, ...] = ()
    cli: str | None = None  # the `agentmemd` command that mirrors it ("search", "people get")
    mcp: tuple[str, ...] = ()  # the MCP tools that call it
    # A plain command, generated from this declaration (daemon/cli/generated.py): how its result is
    # shown (a function of daemon/cli/printers.py), the params fields it takes as arguments, in
    # order (the rest are options), and an example. None: the command is written by hand.
    printer: str | None = None
    arguments: tuple[str, ...] = ()
    example: str = ""
    # A plain MCP tool, generated from this declaration (daemon/mcp/server.py's generated_tools), named
    # after the method (goal.add: goal_add; list it in ``mcp``): what a model reads of it, and its
    # title. Its arguments are the params fields, described as the model describes them.
    tool: str = ""
    tool_title: str = ""

    @property
    def owner_only(self) -> bool:
        """A scoped access token may not call it (services/access.py decides, from the params)."""
        return owner_only(self.name, self.params)


METHODS: tuple[Declared, ...] = (
    Declared(
        name="health",
        params=m.EmptyParams,
        handler=lambda s: lambda p: s.health(),
        result=m.HealthResult,
        summary="Liveness, version and live memory count.",
        waits=True,  # it reads on a reader connection itself: a store that is away is its answer, not an error
        owner_fields=("process",),
        cli="health",
    ),
    Declared(
        name="stats",
        params=m.StatsParams,
        handler=lambda s: lambda p: s.stats(p.namespace),
        result=r.StatsResult,
        summary="Counts by type, tier and namespace; the daemon's memory (RSS) by part.",
        reads=True,
        cli="memory stats",
    ),
    # Embedded on the caller's thread, inserted on the store thread (memory_writes.py).
    Declared(
        name="memory.add",
        params=m.AddParams,
        handler=lambda s: s.memory_writes.add,
        result=m.AddResult,
        summary="Store one memory.",
        waits=True,
        cli="add",
        mcp=("memory_add",),
    ),
    Declared(
        name="memory.add_many",
        params=m.AddManyParams,
        handler=lambda s: s.memory_writes.add_many,
        result=m.AddManyResult,
        summary="Store many memories atomically.",
        waits=True,
    ),
    Declared(
        name="memory.get",
        params=m.IdParams,
        handler=lambda s: lambda p: s.memories.get(p.id, p.namespace),
        result=m.MemoryRecord,
        summary="One memory, live, superseded or archived.",
        reads=True,
        cli="memory get",
        mcp=("memory_get", "memory_forget"),
    ),
    Declared(
        name="memory.list",
        params=m.MemoryListParams,
        handler=lambda s: s.audit.list,
        result=r.MemoryListResult,
        summary="A page of memories, newest first, filtered by namespace, type, tier, source, text and date.",
        reads=True,
        cli="memory list",
    ),
    Declared(
        name="memory.history",
        params=m.IdParams,
        handler=lambda s: s.audit.history,
        result=r.MemoryHistoryResult,
        summary="A memory's versions, events, retention over time and origin.",
        reads=True,
        cli="memory history",
    ),
    Declared(
        name="memory.restore",
        params=m.IdParams,
        handler=lambda s: lambda p: s.memories.restore(p.id, p.namespace),
        result=m.MemoryRecord,
        summary="Bring an archived memory back to the live table.",
        cli="memory restore",
    ),
    Declared(
        name="memory.forget",
        params=m.ForgetParams,
        handler=lambda s: s.forgetting.forget,
        result=r.ForgetResult,
        waits=True,  # embeds the neighbouring episodes' new index entries beside the store thread
        summary="Say what forgetting a memory removes; with confirm, remove it and all its versions for good.",
        cli="memory forget",
        mcp=("memory_forget",),
    ),
    Declared(
        name="memory.search",
        params=m.SearchParams,
        handler=lambda s: s.memories.search,
        result=m.SearchResult,
        summary="Scored hybrid search.",
        reads=True,
        cli="search",
        mcp=("memory_search",),
    ),
    Declared(
        name="memory.reinforce",
        params=m.ReinforceParams,
        handler=lambda s: s.memories.reinforce,
        result=m.ReinforceResult,
        summary="Record an access event.",
        cli="memory reinforce",
    ),
    Declared(
        name="memory.update",
        params=m.UpdateParams,
        handler=lambda s: s.memories.update,
        result=m.UpdateResult,
        summary="Write a new version; the old one is superseded.",
        cli="memory update",
        mcp=("memory_update",),
    ),
    Declared(
        name="memory.archive",
        params=m.IdParams,
        handler=lambda s: lambda p: s.memories.archive(p.id, p.namespace),
        result=m.ArchiveResult,
        summary="Move a memory to the archive.",
        cli="memory archive",
        mcp=("memory_archive",),
    ),
    Declared(
        name="memory.share",
        params=m.ShareParams,
        handler=lambda s: s.memories.share,
        result=m.MemoryRecord,
        summary="Set who may hear a memory: shared, the user's own, or a chat's audience.",
        cli="memory share",
    ),
    Declared(
        name="memory.sweep",
        params=m.EmptyParams,
        handler=lambda s: lambda p: s.memories.sweep(),
        result=r.SweepResult,
        summary="Archive memories below the Cold tier.",
        cli="memory sweep",
    ),
    Declared(
        name="context.pack",
        params=m.PackParams,
        handler=lambda s: s.memories.pack,
        result=m.PackResult,
        summary="Build a Memory Pack within a token budget.",
        reads=True,
        cli="pack",
        mcp=("context_pack",),
    ),
    Declared(
        name="context.explain",
        params=m.ExplainParams,
        handler=lambda s: lambda p: s.memories.explain(p.pack_id, p.namespace),
        result=r.ExplainResult,
        summary="Why a pack holds what it holds.",
        reads=True,
        cli="memory explain",
    ),
    Declared(
        name="packs.list",
        params=m.PacksListParams,
        handler=lambda s: s.audit.packs,
        result=r.PacksListResult,
        summary="The newest logged packs (explain one with context.explain).",
        reads=True,
        cli="memory packs",
    ),
    Declared(
        name="workspace.status",
        params=m.EmptyParams,
        handler=lambda s: lambda p: s.workspace.status(),
        result=r.WorkspaceStatusResult,
        summary="Indexed workspace files, skipped ones with why.",
        reads=True,
    ),
    Declared(
        name="workspace.read",
        params=m.WorkspaceReadParams,
        handler=lambda s: s.workspace.read,
        result=r.WorkspaceFileText,
        summary="One workspace Markdown file's text, read-only.",
        reads=True,
    ),
    Declared(
        name="workspace.sync",
        params=m.EmptyParams,
        handler=lambda s: lambda p: s.workspace.sync(),
        result=r.WorkspaceSyncResult,
        summary="Re-index every changed workspace file now.",
        waits=True,
    ),
    Declared(
        name="jobs.list",
        params=m.EmptyParams,
        handler=lambda s: lambda p: s.jobs.list(),
        result=r.JobsListResult,
        summary="Scheduled jobs: cron, next run, last run and result.",
        reads=True,
        cli="job list",
    ),
    Declared(
        name="jobs.run",
        params=m.JobRunParams,
        handler=lambda s: s.jobs.run,
        result=r.JobRun,
        summary="Run one job now and wait for it.",
        waits=True,
        cli="job run",
    ),
    Declared(
        name="jobs.runs",
        params=m.JobRunsParams,
        handler=lambda s: s.jobs.runs,
        result=r.JobRunsResult,
        summary="Recent job runs, oldest first.",
        reads=True,
    ),
    Declared(
        name="consolidation.list",
        params=m.ConsolidationListParams,
        handler=lambda s: s.jobs.consolidation,
        result=r.ConsolidationListResult,
        summary="Consolidated memories (levels 1-3) with the memories each was built from.",
        reads=True,
        cli="memory consolidated",
    ),
    Declared(
        name="conversation.append",
        params=m.AppendParams,
        handler=lambda s: s.conversations.append,
        result=r.AppendResult,
        summary="Store one turn; the Observer/Reflector run in the background when due.",
        cli="conversation append",
        mcp=("conversation_append",),
    ),
    Declared(
        name="conversation.sync",
        params=m.SyncParams,
        handler=lambda s: s.conversations.sync,
        result=r.SyncResult,
        summary="Store what an app's history (oldest first) adds to the stored transcript, matched by content.",
        cli="conversation sync",
    ),
    Declared(
        name="conversation.prepare",
        params=m.PrepareParams,
        handler=lambda s: s.conversations.prepare,
        result=r.PrepareResult,
        summary="A model call about to go out: its history synced (pending) and the context built, in one request.",
        waits=True,
    ),
    Declared(
        name="conversation.preview",
        params=m.PreviewParams,
        handler=lambda s: s.conversations.preview,
        result=r.PreviewResult,
        summary="The context a model call with this history would get, stored nowhere (a token count).",
        waits=True,
    ),
    Declared(
        name="conversation.confirm",
        params=m.ConfirmParams,
        handler=lambda s: s.conversations.confirm,
        result=r.ConfirmResult,
        summary="A model call answered: its pending turns confirmed and the reply stored, the history not sent again.",
    ),
    Declared(
        name="conversation.retract",
        params=m.RetractParams,
        handler=lambda s: s.conversations.retract,
        result=r.RetractResult,
        summary="Take back the pending turns a refused model call stored.",
    ),
    Declared(
        name="conversation.context",
        params=m.ContextParams,
        handler=lambda s: s.conversations.context,
        result=r.ContextResult,
        summary="Stable prefix + recent turns + Memory Pack within a token budget; carries out the SyncScore drift action.",
        waits=True,
        cli="conversation context",
        mcp=("conversation_context",),
    ),
    Declared(
        name="conversation.observe",
        params=m.ObserveParams,
        handler=lambda s: s.conversations.observe,
        result=r.ObserveResult,
        summary="Run the Observer (and Reflector) now; waits for the report.",
        waits=True,
        cli="conversation observe",
    ),
    Declared(
        name="conversation.status",
        params=m.SessionParams,
        handler=lambda s: s.conversations.status,
        result=r.ConversationStatusResult,
        summary="Turns, tokens and compaction runs.",
        reads=True,
        cli="conversation status",
    ),
    Declared(
        name="conversation.list",
        params=m.ConversationListParams,
        handler=lambda s: s.conversations.sessions,
        result=r.ConversationListResult,
        summary="A namespace's conversations, the latest active first.",
        reads=True,
        cli="conversation list",
    ),
    Declared(
        name="conversation.turns",
        params=m.TurnsParams,
        handler=lambda s: s.conversations.turns,
        result=r.TurnsResult,
        summary="A page of a session's turns, oldest first (offset counts from the newest).",
        reads=True,
        cli="conversation turns",
    ),
    Declared(
        name="conversation.contexts",
        params=m.ContextsParams,
        handler=lambda s: s.conversations.contexts,
        result=r.ContextsResult,
        summary="What the session's newest context builds gave the agent (the stable prefix, the messages).",
        reads=True,
        cli="conversation contexts",
    ),
    Declared(
        name="observations.list",
        params=m.ObservationsListParams,
        handler=lambda s: s.conversations.observations,
        result=r.ObservationsResult,
        summary="Observations, oldest first, with their source turns.",
        reads=True,
        cli="conversation observations",
        mcp=("observations_list",),
    ),
    # beside the store thread: an edit the batch marks embeds its new text there
    Declared(
        name="channels.ingest",
        params=m.IngestParams,
        handler=lambda s: s.channels.ingest,
        result=r.IngestResult,
        summary="Store a batch of one chat's messages (an import's, or a webhook's); each message once.",
        waits=True,
        cli="import",
    ),
    # Embedded beside the store thread, written on it (memory/channels/corrections.py).
    Declared(
        name="channels.edit",
        params=m.ChannelEditParams,
        handler=lambda s: s.channels.edit,
        result=r.CorrectionResult,
        summary="A stored chat message was edited: its turn and what was made only from it say the new text.",
        waits=True,
    ),
    Declared(
        name="channels.delete",
        params=m.ChannelDeleteParams,
        handler=lambda s: s.channels.delete,
        result=r.CorrectionResult,
        summary="A stored chat message was deleted: a tombstone turn; what was made only from it is forgotten.",
        waits=True,
    ),
    Declared(
        name="chats.list",
        params=m.ChatsListParams,
        handler=lambda s: s.channels.chats,
        result=r.ChatsResult,
        summary="Chats with message and session counts.",
        reads=True,
        cli="chat list",
    ),
    Declared(
        name="channels.pending",
        params=m.PendingParams,
        handler=lambda s: s.channels.pending,
        result=r.PendingResult,
        summary="How many turns (of a namespace, or an import's sessions) are not yet searchable, and whether they are being indexed.",
        reads=True,
    ),
    Declared(
        name="conversation.search",
        params=m.TurnSearchParams,
        handler=lambda s: s.channels.search_turns,
        result=r.TurnSearchResult,
        summary="Raw turns (chat messages included) containing the query's words, with chat, speaker and time.",
        reads=True,
        cli="conversation messages",
    ),
    Declared(
        name="people.list",
        params=m.ChatsListParams,
        handler=lambda s: s.channels.people_list,
        result=r.PeopleResult,
        summary="Everyone who spoke in a chat.",
        reads=True,
        cli="person list",
    ),
    Declared(
        name="people.get",
        params=m.PersonParams,
        handler=lambda s: s.channels.person,
        result=r.PersonResult,
        summary="A person: accounts, chats, activity.",
        reads=True,
        cli="person get",
    ),
    Declared(
        name="people.merge",
        params=m.PeopleMergeParams,
        handler=lambda s: s.channels.merge,
        result=r.MergeResult,
        summary="Make a person the same as another (one human, two accounts): accounts and turns move.",
        cli="person merge",
        waits=True,  # then rebuilds the impressions of the person they became
    ),
    Declared(
        name="people.accounts",
        params=m.ChatsListParams,
        handler=lambda s: s.directory.accounts,
        result=r.PeopleAccountsResult,
        summary="Every account of a namespace's people, with its person (the dashboard's People list).",
        reads=True,
    ),
    Declared(
        name="chats.get",
        params=m.ChatParams,
        handler=lambda s: s.directory.chat,
        result=r.ChatResult,
        summary="A chat: who spoke, a page of its sessions, its audience and which memories its context may include.",
        reads=True,
    ),
    Declared(
        name="identity.graph",
        params=m.IdentityGraphParams,
        handler=lambda s: s.identity.graph,
        result=r.IdentityGraphResult,
        summary="The identity graph: its nodes, typed edges (each with the memory that states it) and the lines left out.",
        reads=True,
        cli="identity graph",
        mcp=("identity_graph",),
    ),
    Declared(
        name="identity.node",
        params=m.IdentityNodeParams,
        handler=lambda s: s.identity.node,
        result=r.IdentityNodeResult,
        summary="One node of the identity graph, its neighbours within some hops, and the edges among them.",
        reads=True,
        cli="identity node",
        mcp=("identity_node",),
    ),
    Declared(
        name="identity.edge.add",
        params=m.IdentityEdgeAddParams,
        handler=lambda s: s.identity.add_edge,
        result=r.IdentityEdgeAddResult,
        summary="Add a relation to the identity graph (stored as a persona or relational memory).",
        waits=True,
        cli="identity add",
        mcp=("identity_edge_add",),
    ),
    Declared(
        name="identity.edge.remove",
        params=m.IdParams,
        handler=lambda s: s.identity.remove_edge,
        result=r.IdentityEdgeRemoveResult,
        summary="Archive a relation added over the socket (one written in a file is changed there).",
        cli="identity remove",
    ),
    Declared(
        name="goal.add",
        params=m.GoalAddParams,
        handler=lambda s: s.goals.add,
        result=r.Goal,
        summary="Add a goal: priority, an optional due time or trigger phrase; due and relevant ones are in every pack.",
        waits=True,
        cli="goal add",
        mcp=("goal_add",),
        printer="human_goal",
        arguments=("text",),
        tool_title="Add a goal",
        tool='Remember something to do or reach later ("ask how the interview went on Friday"): it is in every '
        "context pack once due (or when a request is about it) until it is marked done.",
        example='agentmemd goal add "Ask Laia how the interview went" --due 2026-11-27T18:00:00Z --priority high',
    ),
    Declared(
        name="goal.update",
        params=m.GoalUpdateParams,
        handler=lambda s: s.goals.update,
        result=r.Goal,
        summary="Change a goal (text, priority, due, trigger, status) or add a progress note.",
        waits=True,
        cli="goal update",
        mcp=("goal_update",),
        printer="human_goal",
        arguments=("id",),
        tool_title="Update a goal",
        tool="Note progress on a goal, or change it or mark it done or dropped.",
        example='agentmemd goal update g3f9a0c6d2b1e4f5 --note "booked the venue"',
    ),
    Declared(
        name="goal.done",
        params=m.GoalDoneParams,
        handler=lambda s: s.goals.done,
        result=r.Goal,
        summary="Mark a goal done, with an optional last note.",
        waits=True,
        cli="goal done",
        printer="human_goal",
        arguments=("id",),
        example='agentmemd goal done g3f9a0c6d2b1e4f5 --note "she got the job"',
    ),
    Declared(
        name="goal.get",
        params=m.GoalGetParams,
        handler=lambda s: s.goals.get,
        result=r.Goal,
        summary="One goal, with its progress notes.",
        reads=True,
        cli="goal get",
        mcp=("goal_get",),
        printer="human_goal",
        arguments=("id",),
        tool_title="A goal",
        tool="One goal, with its progress notes.",
        example="agentmemd goal get g3f9a0c6d2b1e4f5",
    ),
    Declared(
        name="goal.list",
        params=m.GoalListParams,
        handler=lambda s: s.goals.list,
        result=r.GoalListResult,
        summary="Goals of a status (open by default), the soonest due first, each with its notes.",
        reads=True,
        cli="goal list",
        mcp=("goal_list",),
        printer="human_goals",
        tool_title="Goals",
        tool="The agent's goals, the soonest due first, each with its progress notes.",
        example="agentmemd goal list --status all",
    ),
    Declared(
        name="persona.get",
        params=m.PersonaGetParams,
        handler=lambda s: s.persona.get,
        result=r.PersonaResult,
        summary="PersonaState (traits as 0-100 and adjectives, markers, stance, rules, record).",
        cli="persona show",
        mcp=("persona_get",),
    ),
    Declared(
        name="persona.history",
        params=m.PersonaHistoryParams,
        handler=lambda s: s.persona.history,
        result=r.PersonaHistoryResult,
        summary="Every PersonaState version with why it changed and its evidence.",
        cli="persona show",
    ),
    Declared(
        name="persona.records",
        params=m.PersonaHistoryParams,
        handler=lambda s: s.persona.records,
        result=r.PersonaRecordsResult,
        summary="Persona Preservation Records made by compactions.",
        reads=True,
    ),
    Declared(
        name="persona.score",
        params=m.PersonaScoreParams,
        handler=lambda s: s.persona.score,
        result=r.SyncScoreResult,
        summary="SyncScore one response: five dimensions, composite, EWMA, trend, action.",
        waits=True,
        cli="persona score",
    ),
    Declared(
        name="persona.scores",
        params=m.PersonaScoresParams,
        handler=lambda s: s.persona.scores,
        result=r.SyncScoresResult,
        summary="SyncScore history of a session or a namespace, oldest first.",
        reads=True,
        cli="persona scores",
    ),
    Declared(
        name="persona.rules.propose",
        params=m.RuleProposeParams,
        handler=lambda s: s.persona.propose_rule,
        result=r.RuleProposal,
        summary="Propose adding or removing a hard rule; nothing changes until it is confirmed.",
        cli="persona rule",
    ),
    Declared(
        name="persona.rules.confirm",
        params=m.RuleDecisionParams,
        handler=lambda s: s.persona.confirm_rule,
        result=r.RuleProposal,
        summary="Confirm a hard-rule proposal: a new PersonaState version.",
        cli="persona rule",
    ),
    Declared(
        name="persona.rules.reject",
        params=m.RuleDecisionParams,
        handler=lambda s: s.persona.reject_rule,
        result=r.RuleProposal,
        summary="Reject a hard-rule proposal.",
        cli="persona rule",
    ),
    Declared(
        name="persona.rules.list",
        params=m.RulesListParams,
        handler=lambda s: s.persona.rules,
        result=r.RulesListResult,
        summary="Hard rules in force and proposals.",
        cli="persona rule",
    ),
    Declared(
        name="costs",
        params=m.EmptyParams,
        handler=lambda s: lambda p: s.costs.costs(),
        result=r.CostsResult,
        summary="Language-model calls, tokens and USD by provider, model and task.",
        reads=True,
        cli="job costs",
    ),
    Declared(
        name="auth",
        params=m.AuthParams,
        handler=lambda s: s.access.authenticate,
        result=r.AuthResult,
        summary="Bind this connection to an access token's namespaces (a door serving someone else calls it first).",
        authenticates=True,
    ),
    Declared(
        name="access.tokens.create",
        params=m.TokenCreateParams,
        handler=lambda s: s.access.create,
        result=r.TokenCreated,
        summary="Create an access token bound to namespaces; its secret is shown once.",
        cli="token create",
    ),
    Declared(
        name="access.tokens.list",
        params=m.EmptyParams,
        handler=lambda s: lambda p: s.access.list(),
        result=r.TokensResult,
        summary="Access tokens (no secrets).",
        cli="token list",
    ),
    Declared(
        name="access.tokens.revoke",
        params=m.TokenNameParams,
        handler=lambda s: s.access.revoke,
        result=r.AccessToken,
        summary="Revoke an access token: later auth calls with it fail.",
        cli="token revoke",
    ),
    Declared(
        name="clock.now",
        params=m.EmptyParams,
        handler=lambda s: lambda p: s.jobs.now(),
        result=r.ClockResult,
        summary="The daemon's current time.",
        cli="job clock",
    ),
    Declared(
        name="clock.advance",
        params=m.ClockAdvanceParams,
        handler=lambda s: s.jobs.advance_clock,
        result=r.ClockResult,
        summary="Move a manual clock forward.",
        waits=True,
        cli="job clock",
    ),
)


def build_methods(s: Services) -> dict[str, Method]:
    """The socket's table: each declaration's handler bound to these services (a read runs on
    the calling reader thread's connection)."""
    methods = {}
    for d in METHODS:
        handler = d.handler(s)
        methods[d.name] = Method(d, s.reading(handler) if d.reads else handler)
    return methods


def declared(name: str) -> Declared:
    """The declaration of one method (KeyError for an unknown name)."""
    return _BY_NAME[name]


_BY_NAME = {d.name: d for d in METHODS}
assert len(_BY_NAME) == len(METHODS), "a method is declared twice"
