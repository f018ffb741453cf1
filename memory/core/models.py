"""Pydantic models for everything that crosses the socket: method params and results."""

from __future__ import annotations

import math
import re
from datetime import date, datetime
from typing import Annotated, Any, Literal

import numpy as np
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    create_model,
    field_validator,
    model_validator,
)

from agentmemd.memory.core.chats import ChatKind, ChatMessage
from agentmemd.memory.core.clock import to_utc, zone_named
from agentmemd.memory.core.disclosure import USER, Audience, Listener
from agentmemd.memory.core.signals import SIGNALS
from agentmemd.memory.core.vocabulary import Emotion, MemoryType, ReinforceEvent, Role, Tier


def _utf8(value: str) -> str:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("text is not valid UTF-8 (it contains a lone surrogate)") from None
    return value


def _non_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be empty or only whitespace")
    return value


Content = Annotated[str, Field(min_length=1, max_length=100_000), AfterValidator(_utf8), AfterValidator(_non_blank)]
# A name people choose for a namespace or an access token: 1-64 characters, safe in a URL and a log.
NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.:@-]{0,63}$"
Namespace = Annotated[str, Field(pattern=NAME_PATTERN)]
MemoryId = Annotated[str, Field(min_length=1, max_length=64), AfterValidator(_utf8)]
SQLITE_MAX_INT = 2**63 - 1


def _storable_time(value: datetime) -> datetime:
    """One canonical form for every time at the edge: aware UTC, a four-digit year (what the store
    writes and sorts as text). Unrepresentable times are refused here, never deep inside."""
    try:
        utc = to_utc(value)
    except OverflowError:
        raise ValueError("is out of range once converted to UTC") from None
    if not 1000 <= utc.year <= 9999:
        raise ValueError(f"year {utc.year} (UTC) is outside 1000-9999") from None
    return utc


Timestamp = Annotated[datetime, AfterValidator(_storable_time)]


class Params(BaseModel):
    model_config = ConfigDict(extra="forbid")


class MemoryAffect(BaseModel):
    """How a memory feels (memory/language/affect.py): valence, arousal (a proxy: the feeling's
    strength by its emotion) and an emotion label."""

    model_config = ConfigDict(extra="forbid")
    valence: float = Field(ge=-1.0, le=1.0, description="-1 (unpleasant) to 1 (pleasant)")
    arousal: float = Field(ge=0.0, le=1.0, description="0 (calm or neutral) to 1 (intense)")
    emotion: Emotion


class AddParams(Params):
    content: Content
    type: MemoryType
    # Text that situates the memory (e.g. the conversation turn before it). It is
    # embedded and keyword-indexed with the content, never returned or packed.
    context: Annotated[str, Field(max_length=20_000), AfterValidator(_utf8)] | None = None
    priority: float | None = Field(None, ge=0.0, le=1.0, allow_inf_nan=False)
    namespace: Namespace = "default"
    source: Annotated[str, Field(max_length=1000), AfterValidator(_utf8)] | None = None
    created: Timestamp | None = None
    tags: list[Annotated[str, Field(min_length=1, max_length=100), AfterValidator(_utf8)]] = Field(
        default_factory=list, max_length=64
    )
    embedding: list[float] | None = None
    # Who may hear it (memory/core/disclosure.py): the user's own unless said otherwise.
    audience: Audience = USER
    origin_chat: Annotated[str, Field(max_length=300)] | None = None  # the chat it was said in
    said_by: Annotated[str, Field(max_length=64)] | None = None  # the person who said it
    affect: MemoryAffect | None = Field(None, description="how it feels; None: read from its words")

    @field_validator("embedding")
    @classmethod
    def _finite(cls, value: list[float] | None) -> list[float] | None:
        if value is None:
            return value
        if not value:
            raise ValueError("must not be empty")
        if not all(math.isfinite(x) for x in value):
            raise ValueError("must contain only finite numbers (no NaN or Infinity)")
        # It is stored as float32: what does not survive that conversion is refused now.
        with np.errstate(over="ignore"):  # an overflow is the finding, not a warning
            as_stored = np.asarray(value, dtype=np.float32)
        if not np.isfinite(as_stored).all():
            raise ValueError("has values too large for float32 (|x| > 3.4e38)")
        if not float(np.linalg.norm(as_stored.astype(np.float64))) > 0.0:
            raise ValueError("must not be the zero vector (as float32)")
        return value


class AddManyParams(Params):
    items: list[AddParams] = Field(min_length=1, max_length=10_000)


class IdParams(Params):
    id: MemoryId
    # The caller's namespace: an id from another one is "not found" (a namespace is a boundary).
    namespace: Namespace = "default"


class SearchParams(Params):
    query: Content
    k: int = Field(10, ge=1, le=1000)
    namespace: Namespace = "default"
    types: list[MemoryType] | None = None
    include_archived: bool = False
    # The audience of the conversation the search is for: only what it may hear. None: everything.
    audience: Listener | None = None
    # When the question is asked ("last Thursday" is resolved against it): the daemon's clock if none.
    asked_at: Timestamp | None = None


class MemoryListParams(Params):
    """A page of memories (current versions), newest stored first, filtered."""

    # None: every namespace (the owner); a token bound to namespaces gets its first.
    namespace: Namespace | None = None
    type: MemoryType | None = None
    tier: Tier | None = None  # "archived": the archive; otherwise live memories of that tier now
    source: Annotated[str, Field(max_length=1000), AfterValidator(_utf8)] | None = None  # contained in the source
    contains: Annotated[str, Field(max_length=1000), AfterValidator(_utf8)] | None = None  # in the text
    created_from: date | None = None  # inclusive
    created_to: date | None = None  # inclusive
    emotion: Emotion | None = None  # only memories that feel this (memory/language/affect.py)
    secrets: bool = False  # only memories that hold a secret (memory/safety/secrets.py), to review them
    # Only what this person said (an id, "user", or a name they go by, accents and case aside), in
    # the namespace (default "default").
    person: Annotated[str, Field(min_length=1, max_length=200), AfterValidator(_utf8)] | None = None
    limit: int = Field(50, ge=1, le=500)
    offset: int = Field(0, ge=0, le=SQLITE_MAX_INT)

    @model_validator(mode="after")
    def _dates_in_order(self) -> "MemoryListParams":
        if self.created_from and self.created_to and self.created_from > self.created_to:
            raise ValueError(f"created_from {self.created_from} is after created_to {self.created_to}")
        return self


class ForgetParams(Params):
    id: MemoryId
    namespace: Namespace = "default"
    # False: only say what forgetting would remove. True: remove it, for good. Strictly a boolean:
    # "on", "yes" or 1 from a model's tool call removed it for good too.
    confirm: StrictBool = False
    # False: this memory (its versions and what was made from it) but not the other memories that say
    # the same words: a key-value store's item (LangGraph's) is one key, whatever other keys hold.
    same_words: StrictBool = Field(True, description="also forget the memories that say the same words")


class PacksListParams(Params):
    namespace: Namespace | None = None  # None: every namespace (the owner)
    limit: int = Field(20, ge=1, le=500)
    offset: int = Field(0, ge=0, le=SQLITE_MAX_INT)


class ReinforceParams(Params):
    id: MemoryId
    event: ReinforceEvent
    namespace: Namespace = "default"


class UpdateParams(Params):
    id: MemoryId
    namespace: Namespace = "default"  # the memory's; a new version stays in it
    content: Content
    # Unset: the new version keeps the old one's.
    type: MemoryType | None = None
    priority: float | None = Field(None, ge=0.0, le=1.0, allow_inf_nan=False)
    source: Annotated[str, Field(max_length=1000), AfterValidator(_utf8)] | None = None
    correction: bool = Field(
        False,
        description="the memory was wrong (a typo, a misheard name): the new version keeps its date; "
        "false: the fact changed (the user moved), dated now",
    )
    created: Timestamp | None = Field(None, description="when what the new version says happened (overrides both)")


class PackParams(Params):
    query: Content
    budget_tokens: int = Field(gt=0, le=1_000_000)
    namespace: Namespace = "default"
    # Memories the caller already shows the model (e.g. the observations in a context's prefix).
    exclude: list[MemoryId] = Field(default_factory=list, max_length=10_000)
    # The audience of the conversation the pack is for: only what it may hear. None: everything.
    audience: Listener | None = None
    # When the question is asked ("last Thursday" is resolved against it): the daemon's clock if none.
    asked_at: Timestamp | None = None
    # The conversation's turns just before the query, oldest first: the identity block's query reads
    # the last two with it (seed 000 builds the identity query from working memory).
    recent: list[Content] = Field(default_factory=list, max_length=20)
    # False: the pack leaves no entry in the pack log, so its query is kept nowhere (a proxied call
    # the app keeps out of memory); `context.explain` then has nothing to say about it.
    logged: bool = True


# A node of the identity graph as people name it: what goes inside [[...]].
NodeName = Annotated[
    str,
    Field(min_length=1, max_length=200, pattern=r"^[^\[\]|\n]+$"),
    AfterValidator(_utf8),
    AfterValidator(_non_blank),
]


class IdentityGraphParams(Params):
    namespace: Namespace = "default"


class IdentityNodeParams(Params):
    name: NodeName
    hops: int = Field(1, ge=1, le=3)  # the neighbourhood shown: nodes this many edges away
    namespace: Namespace = "default"


class IdentityEdgeAddParams(Params):
    """A relation, stored as a persona memory (about the agent) or a relational one (about the user):
    ``relation [[target]]: note`` from the agent or the user, or ``[[source]] relation [[target]]``."""

    relation: Annotated[str, Field(min_length=1, max_length=100, pattern=r"^[^\[\]|:\n]+$"), AfterValidator(_non_blank)]
    target: NodeName
    source: NodeName | None = None  # a node the graph has; none: the agent (or the user, with about="user")
    note: Annotated[str, Field(max_length=2000), AfterValidator(_utf8)] | None = None
    about: Literal["agent", "user"] = "agent"
    namespace: Namespace = "default"


Priority3 = Literal["high", "medium", "low"]
GoalId = Annotated[str, Field(pattern=r"^g[0-9a-f]{15}$")]
GoalText = Annotated[str, Field(min_length=1, max_length=2000), AfterValidator(_utf8), AfterValidator(_non_blank)]
Trigger = Annotated[str, Field(min_length=1, max_length=200), AfterValidator(_utf8), AfterValidator(_non_blank)]


GOAL_DUE = (
    "When it falls due, ISO 8601 (e.g. 2026-11-28T09:00:00+01:00; a date alone is 09:00 UTC, as in GOALS.md): "
    "in every pack from [goals] due_within_hours before."
)
DUE_HOUR = "09:00"  # a due date given without a time, wherever it is given (GOALS.md, the socket, the CLI)


def _due_at_nine(value: Any) -> Any:
    """A due date given alone ("2026-12-01") is due at DUE_HOUR UTC, as GOALS.md reads one; it was
    midnight from the CLI and 09:00 from the file."""
    if isinstance(value, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", value.strip()):
        return f"{value.strip()}T{DUE_HOUR}:00+00:00"
    return value


DueTime = Annotated[Timestamp, BeforeValidator(_due_at_nine)]
GOAL_TRIGGER = "Words that bring it into a pack whose request says them all."


class GoalAddParams(Params):
    """A goal: what the agent (or the person it serves) is working towards or means to do."""

    text: GoalText = Field(description="What the agent means to do or reach, in a sentence.")
    priority: Priority3 = Field("medium", description="high, medium or low.")
    due: DueTime | None = Field(None, description=GOAL_DUE)
    trigger: Trigger | None = Field(None, description=GOAL_TRIGGER)
    namespace: Namespace = "default"


class GoalUpdateParams(Params):
    id: GoalId = Field(description="The goal's id (g and 15 hex digits).")
    text: GoalText | None = Field(None, description="Its new wording.")
    priority: Priority3 | None = Field(None, description="high, medium or low.")
    due: DueTime | None = Field(None, description=GOAL_DUE)
    trigger: Trigger | None = Field(None, description=GOAL_TRIGGER)
    status: Literal["open", "done", "dropped"] | None = Field(None, description="open, done or dropped.")
    note: GoalText | None = Field(None, description="A progress note, dated now.")
    namespace: Namespace = "default"


class GoalDoneParams(Params):
    id: GoalId = Field(description="The goal's id (g and 15 hex digits).")
    note: GoalText | None = Field(None, description="What came of it.")
    namespace: Namespace = "default"


class GoalGetParams(Params):
    id: GoalId = Field(description="The goal's id (g and 15 hex digits).")
    namespace: Namespace = "default"


class GoalListParams(Params):
    status: Literal["open", "done", "dropped", "all"] = Field(
        "open", description="Which goals: open, done, dropped or all."
    )
    limit: int = Field(100, ge=1, le=500, description="At most this many.")
    namespace: Namespace = "default"


class ExplainParams(Params):
    pack_id: MemoryId
    namespace: Namespace = "default"


class StatsParams(Params):
    namespace: Namespace | None = None


class ClockAdvanceParams(Params):
    hours: float = Field(ge=0.0, le=24 * 365 * 100)


class EmptyParams(Params):
    pass


# ---- results ---------------------------------------------------------------


class SimilarMemory(BaseModel):
    id: str
    content: str  # its first 300 characters
    type: MemoryType
    similarity: float  # cosine of the two texts' embeddings, rounded to 0.01


class AddResult(BaseModel):
    id: str
    # True: a live memory of the same namespace, type and audience already said this (the same text but
    # for case and spacing); ``id`` is that memory's and nothing new was stored.
    duplicate: bool = False
    # The closest live memories already stored (at most 3, similar enough): one may be what the new
    # memory corrects, for memory.update rather than a second memory.
    similar: list[SimilarMemory] = Field(default_factory=list)


class AddManyResult(BaseModel):
    ids: list[str]


class MemoryRecord(BaseModel):
    id: str
    content: str
    type: MemoryType
    namespace: str
    priority: float
    created: str
    last_accessed: str
    access_count: float
    retention: float
    tier: Tier
    version: int
    supersedes: str | None
    superseded_by: str | None
    source: str | None
    tags: list[str] = Field(default_factory=list)
    audience: str = USER
    origin_chat: str | None = None
    said_by: str | None = None
    # Memories made from the same conversation turns (m017): an observation's episodes (the turns
    # as said), an episode's observations (what the Observer made of it). Current versions only.
    episodes: list[str] = Field(default_factory=list)
    observations: list[str] = Field(default_factory=list)
    affect: MemoryAffect | None = None  # None: neutral (no feeling read or given)


# What a search hit and a logged pack candidate carry: every ranking signal declared in
# memory/core/signals.py, with what it means.
SignalsOut = create_model(
    "SignalsOut",
    __module__=__name__,
    **{s.name: (float, Field(0.0, description=s.meaning)) for s in SIGNALS},  # type: ignore[call-overload]
)


class SearchHit(BaseModel):
    id: str
    content: str
    type: MemoryType
    score: float
    signals: SignalsOut
    tier: Tier
    source: str | None
    created: str
    # Lower-ranked hits made from the same conversation turns (an episode and its observations),
    # folded into this one so they do not take the places of other evidence.
    folded: list[str] = Field(default_factory=list)
    # A consolidated node's provenance: the memories under it whose words it states (its quotes).
    # It is evidence of those only, not of every leaf it summarises.
    stated: list[str] = Field(default_factory=list)
    emotion: Emotion = "neutral"  # how it feels (memory/language/affect.py); its intensity is signals.affect


class SearchResult(BaseModel):
    results: list[SearchHit]


class ReinforceResult(BaseModel):
    access_count: float
    retention: float
    tier: Tier


class UpdateResult(BaseModel):
    id: str
    supersedes: str


class ArchiveResult(BaseModel):
    tier: Tier


class PackItem(BaseModel):
    id: str
    type: MemoryType
    score: float
    tokens: int
    source: str | None
    stated: list[str] = Field(default_factory=list)  # a consolidated node's: the memories it states
    # "identity": a fact of the identity block (the identity graph's, before the memories); "memories": the rest.
    block: Literal["identity", "memories"] = "memories"


class PackResult(BaseModel):
    pack_id: str
    text: str
    tokens: int
    items: list[PackItem]
    goals: list[str] = Field(default_factory=list)  # the goals in the pack's goals block (goal.list shows them)


class DoorState(BaseModel):
    """A door the daemon started itself (``[dashboard] listen``, ``[proxy] listen``, ...)."""

    name: str
    listen: str
    url: str
    pid: int | None = None
    running: bool
    log: str | None = None  # the file its output goes to


class ProcessFacts(BaseModel):
    """Where the daemon runs: what `agentmemd service status` and `agentmemd doctor` report."""

    pid: int
    started: str
    data_dir: str
    socket: str
    workspace: str | None = None
    doors: list[DoorState] = []
    # Where the memory lives: "sqlite" (the data dir's file) or the PostgreSQL URL, its password hidden.
    store: str = "sqlite"


class ReembeddingProgress(BaseModel):
    """A change of ``[embedding] model`` under way: memory versions given a vector of the new model
    so far, and those still waiting (found by their words only meanwhile)."""

    model: str
    from_model: str
    done: int
    waiting: int
    memories: int
    running: bool  # False: stopped (``failure`` says why, when it failed); it goes on at the next start
    failure: str | None = None


class HealthResult(BaseModel):
    # "starting": the embedding model is still loading; a request that needs it waits for it.
    # "model_failed": it could not be loaded (``detail`` says why); requests that need it fail.
    # "store_unavailable": the store cannot be reached now (its server went away; ``detail`` says
    # what it answered), or it refuses writes (a full disk: reads go on); requests that need it
    # fail with -32005 until it is back, then all is as before.
    status: Literal["ok", "starting", "model_failed", "store_unavailable"]
    detail: str | None = None
    version: str
    memories: int | None  # None: the store could not be asked
    # What start-up still does in the background ("workspace", "jobs", "embeddings"); requests are
    # answered meanwhile.
    catching_up: list[str] = []
    reembedding: ReembeddingProgress | None = None  # None: every memory has a vector of the configured model
    process: ProcessFacts | None = None  # None: the services run in-process, with no daemon around them


class JobRunParams(Params):
    name: Annotated[str, Field(min_length=1, max_length=100)]


class JobRunsParams(Params):
    name: Annotated[str, Field(min_length=1, max_length=100)] | None = None
    limit: int = Field(50, ge=1, le=1000)


class ConsolidationListParams(Params):
    namespace: Namespace = "default"
    level: int | None = Field(None, ge=1, le=3)


SessionId = Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.:@/-]{0,127}$")]


class AppendParams(Params):
    session: SessionId
    role: Role
    content: Content
    ts: Timestamp | None = None  # when it was said; relative dates in it resolve against this
    namespace: Namespace = "default"
    speaker: Annotated[str, Field(min_length=1, max_length=100), AfterValidator(_utf8)] | None = None


class SyncTurn(Params):
    """A turn of the history: its text, or (for a turn the session already has) only its digest."""

    role: Role
    content: Content | None = None
    speaker: Annotated[str, Field(min_length=1, max_length=100), AfterValidator(_utf8)] | None = Field(
        None, description="who said it, where several people share the user role (kept with a new turn's content)"
    )
    digest: Annotated[str, Field(pattern=r"^[0-9a-f]{32}$")] | None = Field(
        None, description="the turn's digest (memory/conversation/transcript.py), sent instead of its text"
    )

    @model_validator(mode="after")
    def _text_or_digest(self):
        if (self.content is None) == (self.digest is None):
            raise ValueError("give a turn's content or its digest, not both or neither")
        return self


class TurnWithText(SyncTurn):
    """A turn sent with its content, never as a digest alone: one new to the transcript (a reply),
    or one of a history that is matched against nothing (a preview)."""

    content: Content
    digest: None = Field(None, description="not taken: this turn is sent with its content")


class SyncParams(Params):
    """An app's history as it sends it with each model call, oldest first: the whole of it or its
    latest turns. Matched against what is stored by content: only what extends it is stored, and
    a history that leaves it partway (a regenerate, an edit) continues in a branch."""

    session: SessionId | None = Field(
        None, description="the conversation's name; None: found by its content (a new one if nothing matches)"
    )
    turns: list[SyncTurn] = Field(max_length=10_000)
    namespace: Namespace = "default"
    pending: bool = Field(
        False, description="for a model call not yet answered: the new turns wait to be confirmed or retracted"
    )
    forked_from: SessionId | None = Field(
        None,
        description="the conversation a new named session was forked from (a host's fork of a session: "
        "Claude Code's --fork-session): it inherits the turns the two share, stored once, as a branch of it",
    )


class RetractParams(Params):
    """Pending turns a refused model call stored, taken back (only while still the session's newest)."""

    session: SessionId
    seqs: list[int] = Field(min_length=1, max_length=10_000)
    namespace: Namespace = "default"


INGEST_DELETED_MAX = 5000  # deletions one channels.ingest call carries


class IngestParams(Params):
    """Messages of one chat, oldest first: an importer's batch, or one message a webhook received."""

    channel: Annotated[str, Field(pattern=r"^[a-z][a-z0-9_-]{0,31}$")]
    chat_id: Annotated[str, Field(min_length=1, max_length=300), AfterValidator(_utf8)]
    title: Annotated[str, Field(min_length=1, max_length=300), AfterValidator(_utf8)] | None = Field(
        None, description="the chat's name; None: the one it has, or its id for a new chat (a webhook may not know)"
    )
    kind: ChatKind
    messages: list[ChatMessage] = Field(max_length=5000, description="none only beside ``deleted``")
    owner: Annotated[str, Field(min_length=1, max_length=300)] | None = Field(
        None, description="the sender (id or name) who is the user the agent serves"
    )
    tz: str | None = Field(None, description="zone of times without one; None: the [channels] timezone")
    earlier_ids: list[Annotated[str, Field(min_length=1, max_length=300)]] = Field(
        [], max_length=4, description="ids the same chat may have been stored under by an earlier version"
    )
    # True: say what the batch would add (new messages, those already stored) and store nothing.
    dry_run: bool = False
    deleted: list[Annotated[str, Field(min_length=1, max_length=300), AfterValidator(_utf8)]] = Field(
        [],
        max_length=INGEST_DELETED_MAX,
        description="app ids of the chat's messages the export marks deleted: a stored one becomes a tombstone",
    )
    namespace: Namespace = "default"

    @model_validator(mode="after")
    def _something(self) -> "IngestParams":
        if not self.messages and not self.deleted:  # a bridge may report a deletion on its own
            raise ValueError("messages: give at least one message, or the ids of deleted ones in deleted")
        return self

    @field_validator("messages")
    @classmethod
    def _storable(cls, messages: list[ChatMessage]) -> list[ChatMessage]:
        for number, message in enumerate(messages, start=1):
            if not message.text.strip() or len(message.text) > 100_000:
                raise ValueError(f"message {number} (line {message.line}): text must be 1 to 100,000 characters")
            _utf8(message.text)
            _utf8(message.sender)
        return messages

    @field_validator("tz")
    @classmethod
    def _zone(cls, value: str | None) -> str | None:
        if value:
            zone_named(value)
        return value


ChannelName = Annotated[str, Field(pattern=r"^[a-z][a-z0-9_-]{0,31}$")]
ChatId = Annotated[str, Field(min_length=1, max_length=300), AfterValidator(_utf8)]
MessageId = Annotated[str, Field(min_length=1, max_length=300), AfterValidator(_utf8)]


class ChannelEditParams(Params):
    """A stored chat message its sender edited: the turn says ``text`` from now on, and what was
    made only from it gets a new version dated ``edited_at`` (memory/channels/corrections.py)."""

    channel: ChannelName
    chat_id: ChatId
    message_id: MessageId = Field(description="the app's id of the message, as channels.ingest was given it")
    text: Content
    edited_at: Timestamp
    namespace: Namespace = "default"


class ChannelDeleteParams(Params):
    """A stored chat message its sender deleted: the turn stays as a tombstone and what was made
    only from it is forgotten (memory/channels/corrections.py)."""

    channel: ChannelName
    chat_id: ChatId
    message_id: MessageId = Field(description="the app's id of the message, as channels.ingest was given it")
    deleted_at: Timestamp
    namespace: Namespace = "default"


class ChatsListParams(Params):
    namespace: Namespace = "default"


PENDING_SESSIONS_MAX = 10_000  # an import of more sessions asks about its whole namespace


class PendingParams(Params):
    """The turns asked about: a namespace's, or only those of some of its sessions (an import's)."""

    sessions: list[SessionId] | None = Field(
        None,
        max_length=PENDING_SESSIONS_MAX,
        description="these sessions only (as channels.ingest names them); None: all",
    )
    namespace: Namespace = "default"


class PersonParams(Params):
    person: Annotated[str, Field(min_length=1, max_length=64)]
    namespace: Namespace = "default"
    audience: Listener | None = None  # only the impressions a conversation of this audience may hear


class PeopleMergeParams(Params):
    """``person`` becomes ``into``: the same human on a second account."""

    person: Annotated[str, Field(min_length=1, max_length=64)]
    into: Annotated[str, Field(min_length=1, max_length=64)]
    namespace: Namespace = "default"
    # True: answer as the merge would (or refuse as it would), changing nothing: a preview.
    dry_run: bool = False


class TurnSearchParams(Params):
    """The raw turns of the namespace's conversations (chats included) that contain the query's words."""

    query: Content
    k: int = Field(20, ge=1, le=500)
    audience: Listener | None = None  # only turns this conversation's audience may hear
    chat: str | None = None
    person: str | None = None
    session: SessionId | None = None
    namespace: Namespace = "default"


class ShareParams(Params):
    """Set who may hear a memory: ``shared`` (anyone), ``user`` (the user's own), or a chat's audience."""

    id: MemoryId
    audience: Audience
    namespace: Namespace = "default"


class ContextOptions(Params):
    """How a conversation's context is built (conversation.context, conversation.prepare)."""

    budget_tokens: int | None = Field(None, gt=100, le=1_000_000)
    # Persona anchors as system-role messages (seed 002, 5.4 Strategy B), or inside user turns for
    # APIs that take no system messages mid-conversation (Anthropic's Messages API).
    anchors_as: Literal["system", "user"] = "system"


class ContextParams(ContextOptions):
    session: SessionId
    namespace: Namespace = "default"  # the session's: a session of another namespace is "not found"


class PrepareParams(SyncParams, ContextOptions):
    """A model call about to go out (the proxy's one call before it): its history synced (pending
    unless said otherwise) and the context built for the branch it continues."""

    pending: bool = Field(
        True, description="the new turns wait for conversation.confirm (the call answered) or conversation.retract"
    )


class PreviewParams(ContextOptions):
    """The context a model call with this history would get, built as for that call but stored
    nowhere: no turn, no context build, no drift action (a token count, a call kept out of memory)."""

    session: SessionId | None = Field(None, description="the conversation the call names; None: none yet")
    turns: list[TurnWithText] = Field(max_length=10_000, description="the app's history, oldest first, with content")
    namespace: Namespace = "default"
    logged: bool = Field(True, description="False: its Memory Pack leaves no entry in the pack log")


class ConfirmParams(Params):
    """A model call answered: the turns its history stored are confirmed and the reply stored after
    them, the history read from the transcript (not sent again)."""

    session: SessionId
    upto: int = Field(
        ge=1, le=SQLITE_MAX_INT, description="the stored turn the call's history ended at (prepare's last_seq)"
    )
    reply: list[TurnWithText] = Field(
        default_factory=list, max_length=1000, description="the reply's turns, with their content"
    )
    namespace: Namespace = "default"
    observe: bool = Field(False, description="then run the Observer on the session in the background")


class SessionParams(Params):
    session: SessionId
    namespace: Namespace = "default"


class ConversationListParams(Params):
    namespace: Namespace = "default"
    limit: int = Field(50, ge=1, le=500)
    offset: int = Field(0, ge=0, le=SQLITE_MAX_INT)


class TurnsParams(Params):
    session: SessionId
    namespace: Namespace = "default"
    limit: int = Field(50, ge=1, le=1000)
    offset: int = Field(0, ge=0, le=SQLITE_MAX_INT)  # from the newest turn


class ContextsParams(Params):
    session: SessionId
    namespace: Namespace = "default"
    limit: int = Field(5, ge=1, le=20)


class ObserveParams(Params):
    session: SessionId
    namespace: Namespace = "default"
    force: bool = True  # observe every unobserved turn now, threshold or not
    reflect: bool = False  # also run the Reflector now, threshold or not (else only when due)
    wait: bool = True
    timeout_seconds: float = Field(300.0, gt=0, le=3600)


class ObservationsListParams(Params):
    session: SessionId | None = None
    namespace: Namespace | None = None
    include_replaced: bool = False


# ---- persona (persona/) ---------------------------------------------------------------


class PersonaGetParams(Params):
    namespace: Namespace = "default"


class PersonaHistoryParams(Params):
    namespace: Namespace = "default"
    limit: int = Field(20, gt=0, le=1000)


class PersonaScoreParams(Params):
    response: Content
    session: SessionId | None = None  # scored into this session's EWMA, judged against its last turns and pack
    context: Annotated[str, Field(max_length=100_000), AfterValidator(_utf8)] | None = (
        None  # extra text the turn was given
    )
    pack_id: Annotated[str, Field(min_length=1, max_length=64)] | None = None  # the Memory Pack it was given
    namespace: Namespace | None = None  # default: the session's, else "default"


class PersonaScoresParams(Params):
    session: SessionId | None = None
    namespace: Namespace | None = None
    limit: int = Field(100, gt=0, le=10_000)


RuleText = Annotated[str, Field(min_length=1, max_length=300), AfterValidator(_utf8), AfterValidator(_non_blank)]


class RuleProposeParams(Params):
    rule: RuleText
    action: Literal["add", "remove"] = "add"
    namespace: Namespace = "default"


class RuleDecisionParams(Params):
    id: Annotated[str, Field(pattern=r"^rp_[0-9a-f]{24}$", description="the proposal's id, as proposed")]
    namespace: Namespace = "default"


class RulesListParams(Params):
    namespace: Namespace = "default"
    status: Literal["pending", "confirmed", "rejected", "all"] = "pending"


class WorkspaceReadParams(Params):
    path: Annotated[str, Field(min_length=1, max_length=1000), AfterValidator(_utf8)]


# ---- access (daemon/services/access.py) -----------------------------------------------

TokenName = Annotated[str, Field(pattern=NAME_PATTERN)]


class AuthParams(Params):
    token: Annotated[str, Field(min_length=1, max_length=200)]


class TokenCreateParams(Params):
    name: TokenName
    # The namespaces the token may use; its first is where a request that names none goes.
    # None: every namespace (a token as strong as the socket itself).
    namespaces: Annotated[list[Namespace], Field(min_length=1, max_length=64)] | None
    # What the token may hear: one conversation's audience ("private:telegram:1002", a group's, or
    # "user"), for a door serving one person. None: every audience, as the owner.
    hears: Listener | None = None

    @field_validator("namespaces")
    @classmethod
    def _distinct(cls, value: list[str] | None) -> list[str] | None:
        if value is not None and len(set(value)) != len(value):
            raise ValueError("lists a namespace twice")
        return value


class TokenNameParams(Params):
    name: TokenName


# ---- the dashboard's People and Chats pages (daemon/services/directory.py) ----------------------


class ChatParams(Params):
    """One chat: who spoke in it, a page of its sessions (newest first), and who may hear what."""

    chat: Annotated[str, Field(min_length=1, max_length=300), AfterValidator(_utf8)]
    namespace: Namespace = "default"
    limit: int = Field(50, ge=1, le=500)
    offset: int = Field(0, ge=0, le=SQLITE_MAX_INT)


# What an app may import from here (tests/test_public_surface.py keeps it whole).
__all__ = [
    "Params",
    "MemoryAffect",
    "AddParams",
    "AddManyParams",
    "IdParams",
    "SearchParams",
    "MemoryListParams",
    "ForgetParams",
    "PacksListParams",
    "ReinforceParams",
    "UpdateParams",
    "PackParams",
    "IdentityGraphParams",
    "IdentityNodeParams",
    "IdentityEdgeAddParams",
    "GoalAddParams",
    "GoalUpdateParams",
    "GoalDoneParams",
    "GoalGetParams",
    "GoalListParams",
    "ExplainParams",
    "StatsParams",
    "ClockAdvanceParams",
    "EmptyParams",
    "SimilarMemory",
    "AddResult",
    "AddManyResult",
    "MemoryRecord",
    "SignalsOut",
    "SearchHit",
    "SearchResult",
    "ReinforceResult",
    "UpdateResult",
    "ArchiveResult",
    "PackItem",
    "PackResult",
    "DoorState",
    "ProcessFacts",
    "ReembeddingProgress",
    "HealthResult",
    "JobRunParams",
    "JobRunsParams",
    "ConsolidationListParams",
    "AppendParams",
    "SyncTurn",
    "TurnWithText",
    "SyncParams",
    "RetractParams",
    "IngestParams",
    "ChannelEditParams",
    "ChannelDeleteParams",
    "ChatsListParams",
    "PendingParams",
    "PersonParams",
    "PeopleMergeParams",
    "TurnSearchParams",
    "ShareParams",
    "ContextOptions",
    "ContextParams",
    "PrepareParams",
    "PreviewParams",
    "ConfirmParams",
    "SessionParams",
    "ConversationListParams",
    "TurnsParams",
    "ContextsParams",
    "ObserveParams",
    "ObservationsListParams",
    "PersonaGetParams",
    "PersonaHistoryParams",
    "PersonaScoreParams",
    "PersonaScoresParams",
    "RuleProposeParams",
    "RuleDecisionParams",
    "RulesListParams",
    "WorkspaceReadParams",
    "AuthParams",
    "TokenCreateParams",
    "TokenNameParams",
    "ChatParams",
]
