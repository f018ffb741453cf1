"""The typed results of the socket's methods that return more than one model of their own.

Each method's result is validated against its model at the door (``daemon/socket/rpc.py``),
so a service that drifts from its documented shape is a loud internal error in the tests,
never a silent change for clients; the models are also the methods' output schemas for the
doors to come (MCP tools). Rows read from SQLite pass through as dicts of their columns.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Row = dict[str, Any]


class Result(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TierCounts(Result):
    active: int
    warm: int
    cold: int
    archived_pending_sweep: int


class RamUsage(Result):
    """The daemon process's resident memory by part, in MB (issue 17)."""

    rss: float  # the whole process
    model: float  # the embedding model's weights (0 while it loads)
    vectors: float  # the in-RAM float32 vector matrices of the namespaces searched so far
    sqlite_cache_max: float  # what the connections' page caches may hold at most (part of the rest)
    rest: float  # Python, torch's runtime, SQLite's caches: rss - model - vectors


class NamespaceCounts(Result):
    live: int
    by_type: dict[str, int]
    archived: int
    tiers: TierCounts


class StatsResult(Result):
    live: int
    by_type: dict[str, int]
    superseded: int
    archived: int
    namespaces: list[str]
    packs_logged: int
    tiers: TierCounts
    retention_spread: list[int]  # live memories by retention in tenths: [0, 0.1), [0.1, 0.2) ... [0.9, 1]
    now: str
    embedding_model: str
    # What the newest live memories (LANGUAGES_SAMPLED at most) are written in, where detection is
    # sure ({"english": 310, "spanish": 120}); and of those, the languages the embedding model does
    # not serve by meaning (a search in them finds by words alone).
    languages: dict[str, int] = Field(default_factory=dict)
    languages_unserved: dict[str, int] = Field(default_factory=dict)
    ram_mb: RamUsage | None = None  # the whole process: given when no namespace was asked about
    by_namespace: dict[str, NamespaceCounts] | None = None  # likewise: each namespace's counts


class SweepResult(Result):
    archived: int


class ExplainResult(Result):
    pack_id: str
    namespace: str
    query: str
    audience: str | None = None  # the conversation's audience the pack was for (None: no one said)
    budget_tokens: int
    at: str
    tokens: int
    text: str
    candidates: list[Row]
    chosen: list[Any]  # identity block items first (block "identity"), then the memories
    goals: list[str] = []  # the goals in its goals block (none in packs logged before goals were)
    stages_ms: dict[str, float] = {}  # how long each stage of the pack took, in milliseconds, in order


class WorkspaceStatusResult(Result):
    root: str
    namespace: str
    files: list[Row]


class WorkspaceFileText(Result):
    path: str
    text: str


class WorkspaceSyncResult(Result):
    files: int
    added: int
    updated: int
    archived: int
    moved: int
    unchanged: int
    skipped: dict[str, str]
    goals: dict[str, int] = {}  # GOALS.md's goals added, changed and dropped (none: it did not change)


class JobRun(Result):
    id: int
    name: str
    trigger: Literal["schedule", "catch-up", "manual"]
    started: str
    finished: str | None
    status: Literal["running", "ok", "error", "interrupted"]
    result: Any
    error: str | None


class JobStatus(Result):
    name: str
    description: str
    cron: str | None
    next_run: str | None
    running: bool
    runs: int
    last_run: JobRun | None


class JobsListResult(Result):
    timezone: str
    jobs: list[JobStatus]


class JobRunsResult(Result):
    runs: list[JobRun]


class ConsolidationListResult(Result):
    nodes: list[Row]


class ClockResult(Result):
    now: str
    manual: bool
    jobs_ran: list[JobRun] | None = None


class TurnCounts(Result):
    turns: int
    observed: int
    reflected: int
    unobserved_tokens: int
    observation_tokens: int


class AppendResult(TurnCounts):
    seq: int
    compaction_scheduled: bool
    scoring_scheduled: bool


class SyncResult(TurnCounts):
    session: str  # the branch the history continues (a new one when it forked or matched nothing)
    forked_from: str | None  # the session this branch inherits its first turns from (None: not a branch)
    transcript_turns: int  # the branch's whole transcript, inherited turns included
    appended: int
    appended_seqs: list[int]
    last_seq: int | None  # the stored turn the history ends at (None: an empty history)
    compaction_scheduled: bool
    scoring_scheduled: bool


class RetractResult(Result):
    retracted: int


class ConversationStatusResult(TurnCounts):
    episodes_pending: int  # turns not yet stored as searchable episodes (the episode worker is on it)
    runs: list[Row]
    idle: bool


class Message(Result):
    role: Literal["system", "user", "assistant"]
    content: str


class DriftState(Result):
    due: str
    applied: str
    ewma: float | None
    trend: str | None
    score_id: int | None
    burst: bool = False  # the due action is a short burst's (persona.md), not the EWMA's


class Injected(Result):
    """What the daemon added to the turns, for a door that keeps an app's own messages."""

    newest_user_prefix: str  # the reminder and the Memory Pack, put in front of the newest user turn
    anchor: str  # the persona anchor text placed in the turns ("" when none)


class BuiltContext(Result):
    """A context as the daemon assembles it (persona/context/context.py)."""

    namespace: str
    system: str
    messages: list[Message]
    prefix_hash: str
    tokens: int
    budget_tokens: int
    parts: dict[str, int]
    pack_id: str | None
    injected: Injected


class ContextResult(BuiltContext):
    session: str
    drift_action: Literal["none", "reinforce", "anchor", "rebase"]
    anchors: list[int]
    drift: DriftState


class PrepareResult(SyncResult):
    """conversation.sync's answer, and the context built for the branch the history continues."""

    context: ContextResult


class PreviewResult(BuiltContext):
    """The context as conversation.context would give it for the history sent, stored nowhere."""

    session: str | None


class ConfirmResult(SyncResult):
    observe_scheduled: bool


class ObserveResult(Result):
    """With ``wait``: the runs' report; without: that the run is scheduled."""

    session: str
    scheduled: bool | None = None
    observe_runs: list[Row] | None = None
    reflect_runs: list[Row] | None = None
    counts: TurnCounts | None = None


class ObservationsResult(Result):
    observations: list[Row]


class ReadableTrait(Result):
    name: str
    low: str
    high: str
    builtin: bool
    score: int
    adjective: str


class PersonaResult(Result):
    """The PersonaState (``persona/identity/state.py``) with its traits made readable."""

    namespace: str
    version: int
    name: str | None
    scales: list[Row]
    traits: dict[str, float]
    voice_markers: list[Row]
    relational_stance: list[Row]
    formatting_prefs: list[Row]
    emotional_register: list[Row]
    hard_rules: list[Row]
    style: Row
    spec: str
    spec_hash: str
    record: str
    evidence: list[Row]
    reason: str
    updated_at: str
    readable_traits: list[ReadableTrait]
    pending_rules: list[Row]


class PersonaHistoryResult(Result):
    versions: list[Row]


class PersonaRecordsResult(Result):
    records: list[Row]


class SyncScoreResult(Result):
    id: int
    namespace: str
    session: str | None
    turn_seq: int | None
    at: str | None = None
    dimensions: dict[str, float]
    composite: float
    ewma: float
    trend: Literal["stable", "drifting", "recovering"]
    action: Literal["none", "reinforce", "anchor", "rebase"]
    provider: str | None = None
    samples: int
    pack_id: str | None
    details: Row


class SyncScoresResult(Result):
    scores: list[SyncScoreResult]
    applied: list[Row] = []  # drift actions context builds carried out: {session, at, action, score_id}
    thresholds: dict[str, float] = {}  # the EWMA below which each action is due ([persona] *_below)


class RuleProposal(Result):
    id: str  # random ("rp_" + 24 hex digits): not guessable
    namespace: str
    action: Literal["add", "remove"]
    rule: str
    origin: str
    status: Literal["pending", "confirmed", "rejected"]
    created: str
    decided: str | None
    version: int | None = None  # after a decision: the PersonaState version it left


class RulesListResult(Result):
    proposals: list[RuleProposal]
    hard_rules: list[Row]


class CacheTotals(Result):
    by_task: list[Row]
    hits_exact: int
    hits_semantic: int
    misses: int
    bypassed: int
    tokens_saved: int


class CostsResult(Result):
    provider: str
    by_task: list[Row]
    calls: int
    cost_usd: float
    cache: CacheTotals


class AuthResult(Result):
    token: str  # the token's name, never its secret
    namespaces: list[str] | None  # None: every namespace
    default_namespace: str | None  # where a request that names no namespace goes
    hears: str | None = None  # the one audience it may hear (None: every one)


class AccessToken(Result):
    name: str
    namespaces: list[str] | None
    created: str
    revoked: str | None
    last_used: str | None = None  # its latest admitted call: when,
    last_door: str | None = None  # through which door (the process at the socket's other end),
    last_method: str | None = None  # and which method
    hears: str | None = None  # the one audience it may hear (None: every one)


class TokenCreated(AccessToken):
    secret: str  # shown once; only its SHA-256 is stored


class TokensResult(Result):
    tokens: list[AccessToken]


class Retimed(Result):
    """Messages already stored by an import that read their naive times in another zone: they
    keep the times stored first (``earlier_offset``), not this reading's (``this_offset``)."""

    messages: int
    earlier_offset: str  # e.g. "UTC+02:00"
    this_offset: str


class Remapped(Result):
    """An account an earlier import gave the wrong person, given the right one by ``owner``."""

    account: str
    name: str
    was: str  # the person id it had
    now: str  # the person id it has
    turns: int


class IngestResult(Result):
    chat: str  # the chat stored in (an earlier id the same chat was stored under, when there is one)
    audience: str  # who may hear what was said there: what context.pack's audience takes for this chat
    added: int
    duplicates: int
    forgotten: int = 0  # new messages whose words a person forgot before: stored as tombstones, never indexed
    sessions: list[str]  # every session the batch's messages are in
    people: dict[str, str]  # sender as shown -> person id
    observing: list[str]  # sessions whose Observer run the batch made due (it runs in the background)
    retimed: Retimed | None = None
    remapped: list[Remapped] = []
    edited: int = 0  # stored messages the batch marks edited whose text it changed (as channels.edit)
    deleted: int = 0  # stored messages the batch marks deleted, now tombstones (as channels.delete)
    dry_run: bool = False  # nothing was stored: ``added`` is how many messages are new
    zone: str | None = None  # the zone times without one were read in (the tz given, else [channels] timezone)
    # Whether the user's own conversations (MCP, the proxy) hear this chat: a private chat's, by
    # default, no ([channels] private_reaches_user)
    heard_by_user: bool | None = None


class NewVersion(Result):
    id: str  # the new version
    supersedes: str
    type: str


class KeptMemory(Result):
    """A memory made from the corrected message and others: left as it is (forget or update it by hand)."""

    id: str
    content: str  # its first 300 characters
    type: str
    turns: list[int]  # every turn it was made from


class CorrectionResult(Result):
    """What an edit (channels.edit) or a deletion (channels.delete) of a chat message changed."""

    chat: str
    message_id: str
    # edited | deleted | unchanged (the same text again) | stale (older than the edit applied) |
    # already deleted | unknown message (never stored: nothing changed)
    status: Literal["edited", "deleted", "unchanged", "stale", "already deleted", "unknown message"]
    turn: int | None = None  # the turn's seq
    new_versions: list[NewVersion] = []  # memories made only from it, saying the new text
    forgotten: list[str] = []  # memories made only from it, forgotten with every version
    kept: list[KeptMemory] = []
    reindexed: list[str] = []  # episodes of the turns after it, whose neighbourhood quoted it
    built_into: list[str] = []  # consolidated memories built from what was forgotten: forgotten with it


class PendingResult(Result):
    pending: int  # turns memory.search and the pack cannot find yet: their episodes are still to be stored
    indexing: bool  # the episode worker is at a batch or woken for one; False with pending > 0: it is stuck
    episodes: bool  # [conversation] episodes; off, no turn becomes an episode and none is pending


class ChatSummary(Result):
    chat: str
    channel: str
    title: str
    kind: str
    messages: int
    sessions: int
    first: str | None
    last: str | None


class ChatsResult(Result):
    chats: list[ChatSummary]


class PersonSummary(Result):
    id: str
    name: str
    created: str | None
    messages: int
    first_seen: str | None
    last_seen: str | None


class PeopleResult(Result):
    people: list[PersonSummary]


class PersonAccount(Result):
    channel: str
    account: str
    name: str


class PersonChat(Result):
    chat: str
    channel: str
    title: str
    kind: str
    messages: int
    first_seen: str | None = None  # when they first and last spoke in it
    last_seen: str | None = None


class Impression(Result):
    audience: str  # what it was built from was said there; it is heard where that may be
    content: dict[
        str, Any
    ]  # name, cares_about, talks_about, relationship, speaks, believes (persona/impressions/impressions.py)
    version: int
    updated: str


class PersonResult(PersonSummary):
    accounts: list[PersonAccount]
    chats: list[PersonChat]
    impressions: list[Impression] = []
    requested: str | None = None  # a merged-away id that was asked for


class MergeResult(Result):
    merged: str
    into: str
    turns_moved: int  # with dry_run: how many would move
    dry_run: bool = False


class TurnHit(Result):
    seq: int
    session: str
    role: str
    speaker: str
    person: str | None
    content: str
    ts: str
    chat: str | None
    chat_title: str | None
    channel: str | None
    chat_kind: str | None
    audience: str  # who may hear it (memory/core/disclosure.py)
    bm25: float


class TurnSearchResult(Result):
    turns: list[TurnHit]


class MemoryListItem(Result):
    id: str
    namespace: str
    content: str
    type: str
    tier: str
    retention: float
    priority: float
    source: str | None
    created: str
    last_accessed: str
    access_count: float
    version: int
    audience: str
    emotion: str = "neutral"  # how it feels (memory.get has its valence and arousal too)
    secrets: list[str] = Field(default_factory=list)  # the kinds of secret it holds: never packed unless asked for
    # Its content as a list on screen shows it, each secret masked, one it repeats from another
    # memory too ("Noted: [password withheld]"); None when it holds none. ``content`` stays as stored.
    shown: str | None = None


class MemoryListResult(Result):
    items: list[MemoryListItem]
    total: int  # matching memories in all
    offset: int
    limit: int
    namespaces: list[str]  # what a namespace filter may choose: every namespace with a memory, or the one asked


class RetentionPoint(Result):
    at: str
    retention: float


class MemoryHistoryResult(Result):
    id: str
    namespace: str
    versions: list[Row]  # every version, oldest first (archived: true for one in the archive)
    events: list[Row]  # reinforced, new version, archived, restored, shared: oldest first
    retention: list[RetentionPoint]  # the current version's, from when it was stored to now
    projected: list[RetentionPoint]  # from now on, if nothing reinforces it
    origin: Row  # kind: workspace | conversation | consolidation | added, with where
    thresholds: dict[str, float]  # the tiers' lower bounds: active, warm, cold (below cold: archived)


class AlsoForgotten(Result):
    """A memory forgetting another takes with it, and why."""

    id: str
    content: str  # its first 300 characters
    type: str
    # "says the same" | "repeats its secret" | "made from the same turns" | "an observation of the same turns" |
    # "consolidated from it"
    why: str
    shown: str | None = None  # ``content`` as a screen shows it, its secrets masked; None when it holds none


class ForgetResult(Result):
    id: str
    namespace: str
    forgotten: bool  # False: what it would remove (confirm was not given)
    versions: list[str]
    also: list[AlsoForgotten] = []  # current memories forgotten with it (their own traces counted below too)
    turns: int  # conversation turns whose words are forgotten: tombstones in the transcript from now on
    sessions: list[str]  # the conversations those turns are in (their other turns stay)
    search_index_entries: int
    windows: int
    events: int
    turn_links: int
    observations: int  # the Observer's and Reflector's rows of those turns or memories
    consolidation_nodes: int
    reindexed: int  # episodes of the turns after a forgotten one, indexed again without its words
    impressions: int  # impressions of the people who said them, rebuilt from what remains
    packs_logged: int
    cached_responses: int  # language-model cache entries whose prompt or response held its text
    workspace_files: list[str]  # an item of these files: it stays there, not read again while its words are unchanged
    workspace_sections: list[str] = []  # files whose daemon-written section quoted it: those lines removed
    goals: list[str] = []  # goals a door added that state its secret: the secret masked in them
    # "PATH: why" of each file whose daemon-written section still quotes it: it could not be
    # rewritten (its end marker deleted, a link out of the workspace); the store forgot it all the same.
    workspace_unwritten: list[str] = []


class PackSummary(Result):
    pack_id: str
    namespace: str
    query: str
    audience: str | None
    budget_tokens: int
    at: str
    tokens: int
    chosen: int


class PacksListResult(Result):
    packs: list[PackSummary]
    total: int


class SessionSummary(Result):
    session: str
    turns: int
    first: str
    last: str
    observed: int
    chat: str | None
    last_seq: int


class ConversationListResult(Result):
    sessions: list[SessionSummary]
    total: int


class TurnRow(Result):
    seq: int
    role: str
    speaker: str
    content: str
    ts: str
    tokens: int
    observed_run: int | None
    chat: str | None
    stored_in: str  # the session that stores it: a branch shows the turns it inherits from its parent
    pending: bool  # stored for a model call not yet answered
    shown: str | None = None  # ``content`` as a screen shows it, its secrets masked; None when it holds none


class TurnsResult(Result):
    turns: list[TurnRow]
    total: int


class ContextBuild(Result):
    id: int
    at: str
    last_seq: int | None
    pack_id: str | None
    drift_action: str
    score_id: int | None
    context: Row | None  # system (the stable prefix), messages, prefix_hash, tokens, budget_tokens, parts, anchors


class ContextsResult(Result):
    contexts: list[ContextBuild]


# ---- the dashboard's People and Chats pages (daemon/services/directory.py) ----------------------


class AccountOf(PersonAccount):
    person: str  # whose account it is (after any merge)


class PeopleAccountsResult(Result):
    accounts: list[AccountOf]


class ChatSession(Result):
    session: str
    messages: int
    first: str
    last: str
    observed: int  # messages the Observer has seen


class ChatPerson(Result):
    person: str
    name: str  # as shown in this chat
    messages: int


class HeardAudience(Result):
    audience: str
    memories: int  # the namespace's current memories with this audience
    heard: bool  # may this chat's context include them (memory/core/disclosure.py)


class ChatResult(Result):
    chat: ChatSummary
    audience: str  # what is said in this chat is said to this audience
    reaches_user: bool  # and may be heard in the user's own conversations too ([channels])
    people: list[ChatPerson]  # who spoke in it, most messages first
    hears: list[HeardAudience]  # every audience the namespace's memories have, and this chat's own
    sessions: list[ChatSession]  # a page, the latest active first (chat.sessions: how many in all)
    offset: int
    limit: int


class IdentityNode(Result):
    key: str  # the name in lower case: how the graph tells nodes apart
    name: str
    kind: str  # value, belief, preference, goal, trait or entity (by the relation that reaches it)
    description: str
    file: str  # where it was first named ("" for a memory added over the socket)
    line: int
    memory_id: str | None  # the memory that describes it, where one does
    owner: bool  # the agent or the user, whom one-link lines speak of
    edges: int
    hops: int | None = None  # in identity.node's neighbourhood: how far from the node asked about


class IdentityEdge(Result):
    source: str  # node keys
    relation: str
    target: str
    kind: str  # temporal, causal, ontological or attributive
    note: str
    text: str  # as the pack's identity block says it
    file: str
    line: int
    memory_id: str | None  # the memory that states it: its versions are the edge's
    audience: str | None


class IdentityProblem(Result):
    file: str
    line: int
    message: str


class IdentityGraphResult(Result):
    agent: str  # the agent's name, as SOUL.md or IDENTITY.md give it ("the agent" until one does)
    nodes: list[IdentityNode]
    edges: list[IdentityEdge]
    problems: list[IdentityProblem]  # lines left out, each with why


class IdentityNodeResult(Result):
    node: IdentityNode
    neighbours: list[IdentityNode]
    edges: list[IdentityEdge]


class IdentityEdgeAddResult(Result):
    id: str  # the memory that states the edge
    edge: IdentityEdge


class IdentityEdgeRemoveResult(Result):
    id: str  # the memory archived (memory.restore brings the relation back)
    removed: IdentityEdge


class GoalNote(Result):
    at: str
    text: str
    origin: str  # api, scheduler (it fell due), or the file it was written in


class Goal(Result):
    id: str
    namespace: str
    text: str
    priority: str  # high, medium or low
    status: str  # open, done or dropped
    due: str | None
    trigger: str | None
    created: str
    updated: str
    finished: str | None  # when it was done or dropped
    surfaced: str | None  # when the scheduler found it due
    source: str | None = None  # "GOALS.md L<n>": written there (and changed there); None: added by a door
    notes: list[GoalNote]


class GoalListResult(Result):
    goals: list[Goal]


# What an app may import from here (tests/test_public_surface.py keeps it whole).
__all__ = [
    "Result",
    "TierCounts",
    "RamUsage",
    "NamespaceCounts",
    "StatsResult",
    "SweepResult",
    "ExplainResult",
    "WorkspaceStatusResult",
    "WorkspaceFileText",
    "WorkspaceSyncResult",
    "JobRun",
    "JobStatus",
    "JobsListResult",
    "JobRunsResult",
    "ConsolidationListResult",
    "ClockResult",
    "TurnCounts",
    "AppendResult",
    "SyncResult",
    "RetractResult",
    "ConversationStatusResult",
    "Message",
    "DriftState",
    "Injected",
    "BuiltContext",
    "ContextResult",
    "PrepareResult",
    "PreviewResult",
    "ConfirmResult",
    "ObserveResult",
    "ObservationsResult",
    "ReadableTrait",
    "PersonaResult",
    "PersonaHistoryResult",
    "PersonaRecordsResult",
    "SyncScoreResult",
    "SyncScoresResult",
    "RuleProposal",
    "RulesListResult",
    "CacheTotals",
    "CostsResult",
    "AuthResult",
    "AccessToken",
    "TokenCreated",
    "TokensResult",
    "Retimed",
    "Remapped",
    "IngestResult",
    "NewVersion",
    "KeptMemory",
    "CorrectionResult",
    "PendingResult",
    "ChatSummary",
    "ChatsResult",
    "PersonSummary",
    "PeopleResult",
    "PersonAccount",
    "PersonChat",
    "Impression",
    "PersonResult",
    "MergeResult",
    "TurnHit",
    "TurnSearchResult",
    "MemoryListItem",
    "MemoryListResult",
    "RetentionPoint",
    "MemoryHistoryResult",
    "AlsoForgotten",
    "ForgetResult",
    "PackSummary",
    "PacksListResult",
    "SessionSummary",
    "ConversationListResult",
    "TurnRow",
    "TurnsResult",
    "ContextBuild",
    "ContextsResult",
    "AccountOf",
    "PeopleAccountsResult",
    "ChatSession",
    "ChatPerson",
    "HeardAudience",
    "ChatResult",
    "IdentityNode",
    "IdentityEdge",
    "IdentityProblem",
    "IdentityGraphResult",
    "IdentityNodeResult",
    "IdentityEdgeAddResult",
    "IdentityEdgeRemoveResult",
    "GoalNote",
    "Goal",
    "GoalListResult",
]
