"""The one config loader: ``agentmemd.toml`` parsed with tomllib, validated by pydantic.

Every key has a default, so an empty or missing file is a valid config. Unknown
keys are rejected so a typo never silently does nothing.
"""

from __future__ import annotations

import os
import re
import tomllib
from datetime import datetime
from pathlib import Path
from typing import Annotated, Literal, get_args

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    create_model,
    field_validator,
    model_validator,
)

from agentmemd.memory.core.clock import zone_named
from agentmemd.memory.core.errors import ConfigError
from agentmemd.memory.core.models import NAME_PATTERN
from agentmemd.memory.core.signals import Section, knobs_of
from agentmemd.memory.core.vocabulary import DIMENSIONS, Dimension, MemoryType


def _known_zone(value: str) -> str:
    if value:
        zone_named(value)  # ValueError names an unknown zone
    return value


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _with_signal_knobs(section: Section) -> type[_Section]:
    """A section's base holding the keys the ranking signals declare for it (memory/core/signals.py):
    a signal's weight or share is declared with the signal, once."""
    return create_model(f"_{section.title()}Knobs", __base__=_Section, **knobs_of(section))  # type: ignore[call-overload]


class ServerConfig(_Section):
    max_line_bytes: int = Field(1_048_576, gt=0, description="Longest accepted request line.")
    log_level: Literal["debug", "info", "warning", "error"] = Field(
        "info", description="Log from this level up (JSON lines on stderr; `serve --log-level` wins)."
    )
    reader_threads: int = Field(
        2, ge=1, le=64, description="Threads for read-only methods (search, pack, ...), each with its own connection."
    )


def _http_url(value: str) -> str:
    if not value.startswith(("http://", "https://")):
        raise ValueError(f"expected an http:// or https:// URL, got {value!r}")
    return value


class DoorSection(_Section):
    """A door the daemon can start itself: its section's ``listen`` and ``allow_remote`` (the doors'
    declarations, daemon/host/door_children.py's DOORS, say how each starts)."""

    listen: str = Field(
        "",
        description='HOST:PORT the daemon serves this door on, e.g. "127.0.0.1:8791" (its output in '
        'DATA_DIR/<door>.log); "" = not started.',
    )
    allow_remote: bool = Field(False, description="Let listen be an address other than loopback.")


class DashboardConfig(DoorSection):
    """The web dashboard, when the daemon starts it itself (`agentmemd dashboard` otherwise; its log
    holds the link with the token)."""

    host_names: list[str] = Field(default_factory=list, description="Further names browsers reach it by.")


class ProxyConfig(DoorSection):
    """The memory proxy: started by the daemon when `listen` is set; `agentmemd proxy --config` reads
    this section too (its flags win over it, `--listen` over listen)."""

    upstream: str = Field(
        "https://api.anthropic.com", description="The Messages API it forwards to (`--upstream` overrides it)."
    )
    openai_upstream: str = Field(
        "https://api.openai.com",
        description="Where /v1/chat/completions goes, an OpenAI-compatible server (`--openai-upstream` overrides it).",
    )
    memory_timeout_seconds: float = Field(
        2.0,
        gt=0,
        description="Time budget of a request's memory step (connect, sync, context); past it the request goes "
        "upstream unchanged and a warning is logged (`--memory-timeout` overrides it).",
    )
    _urls = field_validator("upstream", "openai_upstream")(classmethod(lambda cls, value: _http_url(value)))


class McpConfig(DoorSection):
    """MCP over Streamable HTTP at http://HOST:PORT/mcp, when the daemon starts it itself (`agentmemd
    mcp --http` otherwise; every request needs a bearer token; MCP hosts that launch `agentmemd mcp`
    over stdio need nothing here)."""


def channel_account(value: str) -> str:
    """An account that is the user, as the webhooks match senders: CHANNEL:ACCOUNT. A Telegram
    account given as the Bot API's numeric ``from.id`` ("telegram:9009") is the form its updates and
    exports carry ("telegram:user9009"). ValueError for no channel, or a channel no route serves."""
    channel, _, account = value.strip().partition(":")
    if not channel or not account:
        raise ValueError(f"expected CHANNEL:ACCOUNT, e.g. telegram:user123, got {value!r}")
    if not re.fullmatch(r"[a-z][a-z0-9_-]{0,31}", channel):
        raise ValueError(f"{channel!r} in {value!r} is no channel name (telegram, slack, or a bridge's, lower case)")
    if channel == "telegram" and account.isdigit():
        account = f"user{account}"
    return f"{channel}:{account}"


class WebhooksConfig(DoorSection):
    """Chats' live messages (Telegram, Slack, the generic route), when the daemon starts the listener
    itself (`agentmemd webhooks` otherwise). Its secrets come from the daemon's environment:
    AGENTMEMD_TELEGRAM_SECRET and AGENTMEMD_SLACK_SIGNING_SECRET."""

    namespace: str = Field(
        "",
        pattern="^(|" + NAME_PATTERN[1:-1] + ")$",
        description="Telegram's and Slack's messages' namespace; \"\" = the daemon's default.",
    )
    me: list[Annotated[str, AfterValidator(channel_account)]] = Field(
        default_factory=list,
        description='The accounts that are the user the agent serves, e.g. ["telegram:user123", "slack:U01ANA"].',
    )


STORE_URL_ENV = "AGENTMEMD_STORE_URL"


# A share or a priority: between 0 and 1.
Share = Annotated[float, Field(ge=0, le=1)]


def redact(url: str) -> str:
    """A store URL without its password (``user:PASSWORD@`` or ``?password=…``), for messages and logs."""
    url = re.sub(r"(://[^:/@]*):[^/?#]*@", r"\1:***@", url)
    return re.sub(r"([?&]password=)[^&#]*", r"\1***", url, flags=re.IGNORECASE)


class StoreConfig(_Section):
    url: str = Field(
        default_factory=lambda: os.environ.get(STORE_URL_ENV, ""),
        pattern=r"^$|^postgres(ql)?://",
        description=f'"" keeps the memory in SQLite in the data dir; "postgresql://USER@HOST/DB" puts it in that '
        f"PostgreSQL (15 or later, with pgvector), which several daemons may share. Unset, ${STORE_URL_ENV} if set.",
    )
    # NORMAL in WAL mode survives a killed process; FULL also survives power loss.
    synchronous: Literal["NORMAL", "FULL"] = Field(
        "NORMAL",
        description="SQLite's synchronous (WAL): NORMAL, a commit survives the process dying; FULL, a power cut too.",
    )


# The embedding models that ship (memory/retrieval/embedding_models.py loads them).
EmbeddingModelName = Literal["all-MiniLM-L6-v2", "multilingual-e5-small"]
EMBEDDING_MODELS: tuple[str, ...] = get_args(EmbeddingModelName)


class EmbeddingConfig(_Section):
    model: EmbeddingModelName = Field(
        "all-MiniLM-L6-v2",
        description="The embedding model: all-MiniLM-L6-v2 (English) or multilingual-e5-small (about 100 "
        "languages). Changing it re-embeds every memory in the background; search serves meanwhile.",
    )
    query_cache_size: int = Field(
        512, ge=0, description="Query embeddings kept, so a query asked again is not embedded again."
    )
    workers: int = Field(
        2,
        ge=1,
        le=64,
        description="Forward passes of the model at once, one thread each (a batch's chunks side by side).",
    )


class RetrievalConfig(_with_signal_knobs("retrieval")):  # type: ignore[misc]
    """Candidates, the similarity signal's parts and what moves it (its keys declared with the signals)."""

    vector_candidates: int = Field(
        100, gt=0, description="N for top-N nearest vectors (exact cosine over the vec0 vectors, held in RAM)."
    )
    fts_candidates: int = Field(50, gt=0, description="N for top-N FTS5/BM25 hits.")
    fts_max_postings: int = Field(
        5000,
        gt=0,
        description="BM25 work bound: a query term in more memories than this is a stop word; "
        "the others are used rarest first while their document frequencies add up to at most this.",
    )
    pinned_candidates: int = Field(20, ge=0, description="Always-considered persona/relational items.")
    recent_candidates: int = Field(20, ge=0, description="Most recently accessed items.")
    context_weight: float = Field(
        0.5,
        ge=0,
        le=1,
        description="In BM25, what a word of a memory's context counts for against a word of the memory itself.",
    )
    episode_gap_minutes: float = Field(
        240,
        gt=0,
        description="Memories stored one after another with less than this between their dates are one episode.",
    )
    constraint_candidates: int = Field(
        20, ge=0, description="For a request for advice, the newest N memories stating a standing constraint."
    )
    episode_diversity: float = Field(
        0.1,
        ge=0,
        le=1,
        description="A search's first 5 hits come from distinct episodes (dated further apart than episode_gap_minutes) "
        "where another episode's hit is at most this much less similar (0: off).",
    )
    time_candidates: int = Field(
        20,
        ge=0,
        description="... and the newest N memories that speak of a day of it are candidates, whatever their words.",
    )
    newer_margin: float = Field(
        0.3,
        ge=0,
        le=1,
        description="Current over stale: in a search, a later memory holding the query words an earlier one holds "
        "ranks above it if its similarity is at most this much lower (0: off; a question about the past is exempt).",
    )
    slot_candidates: int = Field(
        20,
        ge=0,
        description="For a question about a fact slot in the present (where someone lives or works, their manager, "
        "partner, whom they work with or back, children, car, name, phone, e-mail, diet, what a subscription costs), "
        "the newest N memories "
        "filling that slot of the person asked about (recorded when each was stored) are candidates.",
    )


class ScoringConfig(_with_signal_knobs("scoring")):  # type: ignore[misc]
    """The one score's mode and weights (the weights declared with the signals)."""

    mode: Literal["injection", "park"] = Field(
        "injection",
        description="injection: seed 002's weighted score (this section's weights); park: Park et al.'s "
        "(recency + importance + relevance) / 3, as seed 004 retrieves.",
    )
    priority_floors: dict[MemoryType, Share] = Field(
        description="The least priority a memory of each type has, whatever it was given.",
        default_factory=lambda: {
            "persona": 0.7,
            "relational": 0.6,
            "preference": 0.5,
            "procedural": 0.3,
            "fact": 0.1,
            "episode": 0.1,
        },
    )


class DecayConfig(_Section):
    base_half_life_hours: float = Field(
        720.0, gt=0, description="Half-life of retention at one access; half_life = base · (1 + log2(1 + accesses))."
    )
    active_above: float = Field(0.7, description="Retention above which a memory is Active: packed and searched.")
    warm_above: float = Field(0.3, description="... Warm: searched, not packed.")
    cold_above: float = Field(0.1, description="... Cold: found by a deep search; below it, the sweep archives it.")
    identity_min_retention: float = Field(0.5, ge=0, le=1, description="Floor for persona and relational.")

    @model_validator(mode="after")
    def _ordered(self) -> "DecayConfig":
        if not (1 >= self.active_above > self.warm_above > self.cold_above >= 0):
            raise ValueError("decay tiers must satisfy 1 >= active_above > warm_above > cold_above >= 0")
        return self


class ReinforcementConfig(_Section):
    direct: float = Field(3.0, description="What a `direct` reinforcement adds to a memory's access count.")
    indirect: float = Field(1.0, description="... an `indirect` one.")
    used: float = Field(2.0, description="... a `used` one (the agent used it in a reply).")
    retrieved_unused: float = Field(0.5, description="... a `retrieved_unused` one (packed, not used).")


class PackConfig(_Section):
    mmr_lambda: float = Field(
        0.7, ge=0, le=1, description="MMR's balance of relevance against novelty (1: relevance only)."
    )
    min_items: dict[MemoryType, Annotated[int, Field(ge=0, le=1000)]] = Field(
        default_factory=lambda: {"persona": 1},
        description="Memories of a type a pack holds at least, where there are any.",
    )
    max_share: dict[MemoryType, Annotated[float, Field(gt=0, le=1)]] = Field(
        default_factory=dict, description="The most of a pack's budget memories of a type may fill (none: no quota)."
    )
    relevance_floor: float = Field(
        0.5,
        ge=0,
        le=1,
        description="Past the type quotas, a candidate is packed only if its similarity is at least this share "
        "of the best candidate's: priority orders what matches, it does not bring in what does not (0: off).",
    )
    log_keep_packs: int = Field(10_000, ge=1, description="context.explain can explain this many of the newest packs.")
    log_keep_days: float = Field(30.0, gt=0, description="... and none older than this.")


class IdentityConfig(_Section):
    """Identity recall (seed 000's ID-RAG): the identity graph's facts a request is about, as a block
    of the pack. The graph is read from SOUL.md, IDENTITY.md, USER.md and persona/relational
    memories that link with [[...]]: without such lines the block is empty and costs nothing."""

    retrieval: bool = Field(
        True, description="Put an identity block in every pack (context.pack, conversation.context)."
    )
    nodes: int = Field(5, ge=1, le=100, description="The nodes nearest the request that seed the block (top-k).")
    hops: int = Field(1, ge=0, le=3, description="How far from those nodes the block reads (r-hop neighbourhood).")
    # Measured on `agentmemd bench identity` at 100,000 memories (2026-11-26): quiz recall 0.875 at
    # 0.25, 0.912 at 0.4, 0.925 at 0.5 and at 0.6; action alignment 0.521, 0.625, 0.667, 0.688.
    budget_share: float = Field(
        0.5,
        ge=0,
        le=1,
        description="The most of a pack's budget the identity block may fill; the memories get the rest.",
    )
    relevance_floor: float = Field(
        0.0,
        ge=0,
        le=1,
        description="A fact is in the block only if its match is at least this share of the best fact's: what "
        "the block leaves is the memories' (0: the block fills its share).",
    )


class GoalsConfig(_Section):
    """Goals (prospective memory): what the agent is working towards, in a block of every pack when
    due or relevant."""

    in_pack: bool = Field(True, description="Put due and relevant open goals in a block of every pack.")
    budget_share: float = Field(
        0.15, ge=0, le=1, description="The most of a pack's budget the goals block may fill (one goal: ~25 tokens)."
    )
    due_within_hours: float = Field(
        24.0, ge=0, le=24 * 365, description="A goal due this soon (or overdue) is in every pack, relevant or not."
    )
    relevance: float = Field(
        0.45, ge=0, le=1, description="Otherwise a goal is packed when its similarity to the request is at least this."
    )
    progress_similarity: float = Field(
        0.6,
        ge=0,
        le=1,
        description="An observation this similar to an open goal (or saying its trigger) becomes a progress "
        "note on it; 1: only the trigger.",
    )


class ClockConfig(_Section):
    # Empty: the system clock. An ISO-8601 time: a manual clock that starts there and
    # moves only through the `clock.advance` method (tests, replays).
    start: str = Field(
        "",
        description="Empty: the system clock. An ISO time: a manual clock from there, moved only by clock.advance.",
    )

    @field_validator("start")
    @classmethod
    def _an_iso_time(cls, value: str) -> str:
        if value:
            try:
                datetime.fromisoformat(value)
            except ValueError:
                raise ValueError(f"{value!r} is not an ISO-8601 time (e.g. 2026-03-02T08:00:00Z), nor empty") from None
        return value


class WorkspaceConfig(_Section):
    path: str = Field(
        "",
        description="Markdown workspace directory ('' = none; `serve --workspace` overrides). `~` is your home; a "
        "relative path is relative to the config file.",
    )
    namespace: str = Field("default", min_length=1, max_length=200, description="Namespace its items live in.")
    max_file_bytes: int = Field(1_048_576, gt=0, description="Larger files are skipped with a logged reason.")
    debounce_ms: int = Field(300, ge=0, le=10_000, description="Quiet time after a save before indexing.")
    max_items_per_file: int = Field(
        2000, gt=0, le=1_000_000, description="Items indexed from one file; the rest are cut, with a logged reason."
    )
    sync_batch_files: int = Field(
        32, gt=0, le=10_000, description="Files read, embedded and committed together; requests run between batches."
    )

    # No shell reads a TOML file: "~/notes" was taken as a folder named "~" beside the config.
    _home = field_validator("path")(classmethod(lambda cls, value: os.path.expanduser(value) if value else value))


JOB_NAMES: tuple[str, ...] = ("decay_sweep", "consolidate", "daily_log", "goals_due")


class JobsConfig(_Section):
    """When the scheduled jobs run: a crontab expression each ('' = never on a schedule)."""

    timezone: str = Field("", description="Zone the cron times are in ('' = this machine's local zone).")
    decay_sweep: str = Field("17 * * * *", description="Archive memories that decayed below the Cold tier.")
    consolidate: str = Field("30 3 * * *", description="Nightly 4-level consolidation into MEMORY.md.")
    daily_log: str = Field("*/10 * * * *", description="Write what was learned today into memory/YYYY-MM-DD.md.")
    goals_due: str = Field("* * * * *", description="Mark open goals whose due time has come (goal.list shows it).")

    _zone = field_validator("timezone")(classmethod(lambda cls, value: _known_zone(value)))

    @field_validator(*JOB_NAMES)
    @classmethod
    def _crontab(cls, value: str) -> str:
        if value.strip():
            from apscheduler.triggers.cron import CronTrigger

            try:
                CronTrigger.from_crontab(value, timezone="UTC")
            except ValueError as exc:
                raise ValueError(
                    f"not a crontab expression (minute hour day month weekday): {value!r}: {exc}"
                ) from None
        return value.strip()

    def schedule(self) -> dict[str, str]:
        return {name: getattr(self, name) for name in JOB_NAMES}


class ConsolidationConfig(_Section):
    """Nightly consolidation (seed 002, 3.3): level 0 memories -> 1 patterns -> 2 principles -> 3 insights."""

    max_level0: int = Field(4000, gt=1, description="Most recently used level-0 memories clustered per namespace.")
    level1_similarity: float = Field(
        0.55, gt=0, lt=1, description="A pattern's memories have at least this average cosine (else it is split)."
    )
    level2_similarity: float = Field(
        0.6, gt=0, lt=1, description="Average cosine that joins patterns into a principle."
    )
    level3_similarity: float = Field(
        0.55, gt=0, lt=1, description="Average cosine that joins principles into an insight."
    )
    min_sources: int = Field(2, ge=2, description="A node needs at least this many sources.")
    membership: float = Field(
        0.4,
        gt=0,
        le=1,
        description="Soft clustering (a Gaussian mixture): a memory is part of every cluster whose posterior "
        "probability for it is at least this, and always of its likeliest one.",
    )
    max_cluster_size: int = Field(
        40, ge=2, description="A cluster larger than this is clustered again within itself (RAPTOR's recursion)."
    )
    rebuild_share: float = Field(
        0.5,
        ge=0,
        le=1,
        description="New memories are put into the stored tree, unless more than this share of level 0 is new: "
        "then the whole tree is derived again.",
    )
    memory_file: str = Field(
        "MEMORY.md", min_length=1, description="Workspace file whose owned section shows the result."
    )


class LLMConfig(_Section):
    """The daemon's language-model work (observing, reflecting, judging, summarising)."""

    provider: Literal["local", "anthropic"] = Field(
        "local", description="local: offline methods; anthropic: the Messages API."
    )
    model: str = Field("claude-haiku-4-5", min_length=1, description="Model for the anthropic provider.")
    base_url: str = Field("", description="Messages API base URL ('' = the SDK's default, api.anthropic.com).")
    api_key_env: str = Field("ANTHROPIC_API_KEY", min_length=1, description="Environment variable holding the key.")
    timeout_seconds: float = Field(30.0, gt=0, description="Per-request timeout.")
    max_retries: int = Field(
        3, ge=0, le=10, description="Retries with backoff on 429, 5xx, timeouts, connection errors."
    )
    max_output_tokens: int = Field(1024, gt=0, le=64000, description="The most tokens a model's answer may take.")
    json_repair_attempts: int = Field(1, ge=0, le=3, description="Re-asks when a JSON reply does not validate.")
    # USD per million tokens (Claude Haiku 4.5 list prices); cache writes/reads are priced apart.
    input_per_mtok: float = Field(1.0, ge=0, description="USD per million input tokens (the ledger's costs).")
    output_per_mtok: float = Field(5.0, ge=0, description="... output tokens.")
    cache_write_per_mtok: float = Field(1.25, ge=0, description="... tokens written to the provider's prompt cache.")
    cache_read_per_mtok: float = Field(0.1, ge=0, description="... tokens read from it.")


class ConversationConfig(_Section):
    """Conversations: Observer/Reflector compaction and the stable context (seed 002, 5.4 and 5.6)."""

    observer_threshold_tokens: int = Field(
        30_000, gt=0, description="Unobserved turn tokens that trigger the Observer."
    )
    reflector_threshold_tokens: int = Field(40_000, gt=0, description="Observation tokens that trigger the Reflector.")
    observer_batch_tokens: int = Field(8_000, gt=0, description="Most turn tokens handed to one Observer call.")
    keep_recent_turns: int = Field(4, ge=0, description="Newest turns left raw when the Observer runs (not forced).")
    reflector_target: float = Field(
        0.45, gt=0.05, lt=1, description="The Reflector's output size as a share of its input."
    )
    context_budget_tokens: int = Field(16_000, gt=100, description="conversation.context budget when none is given.")
    system_share: float = Field(
        0.1, gt=0, lt=1, description="Budget share of the stable prefix (persona + observations)."
    )
    memories_share: float = Field(0.3, ge=0, lt=1, description="Budget share of the Memory Pack.")
    history_share: float = Field(0.6, gt=0, lt=1, description="Budget share of the recent turns.")
    episodes: bool = Field(
        True, description="Every turn (appended or imported) also becomes a searchable episode memory."
    )
    episodes_of_assistant: bool = Field(
        False,
        description="The assistant's own replies become episodes too. Off: what the agent said is not evidence "
        "of what is true, and a reply it got wrong would come back in its packs as memory.",
    )
    episode_context_turns: int = Field(
        2, ge=0, le=20, description="Earlier turns of its session an episode is indexed with (its neighbourhood)."
    )
    episode_batch: int = Field(64, gt=0, le=1024, description="Turns the episode worker embeds and stores at once.")

    @model_validator(mode="after")
    def _shares(self) -> "ConversationConfig":
        total = self.system_share + self.memories_share + self.history_share
        if abs(total - 1.0) > 1e-6:
            raise ValueError(f"system_share + memories_share + history_share must be 1 (they add up to {total:g})")
        return self


class CacheConfig(_Section):
    """The semantic response cache in front of the LLM layer (seed 001, chapter 3)."""

    enabled: bool = Field(True, description="Answer a task from the cache when a prompt similar enough was answered.")
    similarity_threshold: float = Field(
        0.95, gt=0, le=1, description="Cosine at or above which a cached answer is reused."
    )
    keyword_only: bool = Field(False, description="Embed only the prompt's keywords, not the whole variable part.")
    max_entries: int = Field(10_000, gt=0, description="Oldest unused entries are evicted past this many.")


class PersonaConfig(_Section):
    """PersonaState merging, SyncScore and drift actions (seed 002, 5.2-5.4)."""

    trait_alpha: float = Field(0.3, gt=0, le=1, description="EWMA weight of a compaction's observed traits.")
    marker_decay: float = Field(
        0.8, gt=0, le=1, description="Old voice-marker/stance/format weights are multiplied by this at each merge."
    )
    top_k: int = Field(8, gt=0, le=50, description="Weighted items kept per categorical field.")
    record_max_tokens: int = Field(200, ge=50, le=1000, description="The injected Persona Preservation Record's size.")
    ewma_lambda: float = Field(0.3, gt=0, le=1, description="SyncScore EWMA: lambda*score + (1-lambda)*previous.")
    reinforce_below: float = Field(
        0.7, gt=0, le=1, description="EWMA below this: a persona reminder in the next context."
    )
    anchor_below: float = Field(0.6, gt=0, le=1, description="EWMA below this: persona anchors at ~33 % and ~66 %.")
    rebase_below: float = Field(0.5, gt=0, le=1, description="EWMA below this: forced compaction and a fresh context.")
    rebase_cooldown_turns: int = Field(
        4, ge=0, description="Agent replies after a rebase before another one; anchors meanwhile."
    )
    burst_replies: int = Field(
        3,
        ge=0,
        le=20,
        description="This many replies in a row in a session, on average burst_below under the agent's own "
        "median SyncScore (each half that), bring a persona reminder though the EWMA is above reinforce_below "
        "(0: off).",
    )
    burst_below: float = Field(
        0.1, gt=0, le=1, description="How far under the agent's own median SyncScore a burst's replies are on average."
    )
    burst_voice_above: float = Field(
        1.5,
        ge=0,
        le=10,
        description="Or how far a burst's replies depart, on average, from the agent's own voice (its habits over its "
        "last 200 scored replies), in units of how far its own replies usually depart; each at least half that (0: "
        "only burst_below).",
    )
    near_threshold: float = Field(
        0.05, ge=0, le=0.5, description="A judged composite this close to a threshold is sampled twice."
    )
    anchor_min_turns: int = Field(
        10, ge=2, description="Anchors are placed in conversations of at least this many turns."
    )
    record_min_score: float = Field(
        0.6, ge=0, le=1, description="Assistant turns scored below this are left out of persona records."
    )
    score_assistant_turns: bool = Field(True, description="Score every assistant turn conversation.append receives.")
    weights: dict[Dimension, float] = Field(
        default_factory=lambda: {"voice": 0.25, "relational": 0.2, "grounded": 0.2, "style": 0.15, "constraint": 0.2},
        description="Composite = weighted mean of the five dimensions.",
    )

    @model_validator(mode="after")
    def _ordered(self) -> "PersonaConfig":
        if not self.rebase_below < self.anchor_below < self.reinforce_below:
            raise ValueError("thresholds must satisfy rebase_below < anchor_below < reinforce_below")
        if set(self.weights) != set(DIMENSIONS):
            raise ValueError(f"weights must name {', '.join(DIMENSIONS)}")
        total = sum(self.weights.values())
        if abs(total - 1.0) > 1e-6 or min(self.weights.values()) < 0:
            raise ValueError(f"weights must be >= 0 and add up to 1 (they add up to {total:g})")
        return self


class DailyLogConfig(_Section):
    max_items: int = Field(200, gt=0, description="Learned memories listed per day; the rest are counted.")


class ChannelsConfig(_Section):
    """Chats imported or received live (issue 15)."""

    session_gap_minutes: float = Field(
        240, gt=0, description="A message this long after the one before it starts a new session of its chat."
    )
    timezone: str = Field(
        "", description="Zone of export times written without one (WhatsApp, old Telegram); '' = this machine's."
    )
    private_reaches_user: list[str] = Field(
        default_factory=list,
        description="Channels whose private chats may be heard in the user's own conversations ('*': all). "
        "Empty by default: what X said to the agent in private stays in that chat.",
    )
    group_reaches_user: list[str] = Field(
        default_factory=lambda: ["*"],
        description="Channels whose group chats may be heard in the user's own conversations ('*': all).",
    )
    observe_finished: bool = Field(
        True,
        description="Run the Observer over every finished session of a chat (one the chat went on from after a "
        "gap), not only over those past observer_threshold_tokens. With the anthropic provider: a call per session.",
    )
    _zone = field_validator("timezone")(classmethod(lambda cls, value: _known_zone(value)))


class Config(_Section):
    server: ServerConfig = Field(default_factory=ServerConfig)
    dashboard: DashboardConfig = Field(default_factory=DashboardConfig)
    proxy: ProxyConfig = Field(default_factory=ProxyConfig)
    mcp: McpConfig = Field(default_factory=McpConfig)
    webhooks: WebhooksConfig = Field(default_factory=WebhooksConfig)
    workspace: WorkspaceConfig = Field(default_factory=WorkspaceConfig)
    store: StoreConfig = Field(default_factory=StoreConfig)
    embedding: EmbeddingConfig = Field(default_factory=EmbeddingConfig)
    retrieval: RetrievalConfig = Field(default_factory=RetrievalConfig)
    scoring: ScoringConfig = Field(default_factory=ScoringConfig)
    decay: DecayConfig = Field(default_factory=DecayConfig)
    reinforcement: ReinforcementConfig = Field(default_factory=ReinforcementConfig)
    pack: PackConfig = Field(default_factory=PackConfig)
    identity: IdentityConfig = Field(default_factory=IdentityConfig)
    goals: GoalsConfig = Field(default_factory=GoalsConfig)
    clock: ClockConfig = Field(default_factory=ClockConfig)
    jobs: JobsConfig = Field(default_factory=JobsConfig)
    consolidation: ConsolidationConfig = Field(default_factory=ConsolidationConfig)
    daily_log: DailyLogConfig = Field(default_factory=DailyLogConfig)
    llm: LLMConfig = Field(default_factory=LLMConfig)
    conversation: ConversationConfig = Field(default_factory=ConversationConfig)
    cache: CacheConfig = Field(default_factory=CacheConfig)
    persona: PersonaConfig = Field(default_factory=PersonaConfig)
    channels: ChannelsConfig = Field(default_factory=ChannelsConfig)


def load_config(path: str | Path | None = None, overrides: dict | None = None) -> Config:
    """Load and validate a config file; ``None`` gives the defaults.

    ``overrides`` is a nested dict merged over the file (used by tests and benches).
    """
    text = ""
    if path is not None:
        p = Path(path)
        try:
            text = p.read_text(encoding="utf-8-sig")  # a byte-order mark (Windows' Notepad writes one) read past
        except FileNotFoundError:
            raise ConfigError(f"config file not found: {p}") from None
        except IsADirectoryError:
            raise ConfigError(f"config file {p} is a directory: give the TOML file in it (agentmemd.toml)") from None
        except PermissionError:
            raise ConfigError(f"config file {p} cannot be read: permission denied") from None
        except UnicodeDecodeError as exc:
            raise ConfigError(f"config file {p} is not valid TOML: {exc}") from None
    config = load_config_text(text, overrides, name=str(path) if path is not None else None)
    if path is not None and config.workspace.path and not Path(config.workspace.path).is_absolute():
        config.workspace.path = str((Path(path).resolve().parent / config.workspace.path).resolve())
    return config


def load_config_text(text: str, overrides: dict | None = None, *, name: str | None = None) -> Config:
    """Validate config TOML given as text (``name`` labels errors); relative paths stay as written."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config file {name} is not valid TOML: {exc}") from None
    if overrides:
        data = _merge(data, overrides)
    try:
        config = Config.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(x) for x in err['loc'])}: {err['msg']}" for err in exc.errors())
        raise ConfigError(f"invalid config{f' {name}' if name else ''}: {problems}") from None
    return config


def _merge(base: dict, over: dict) -> dict:
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


# What an app may import from here (tests/test_public_surface.py keeps it whole).
__all__ = [
    "Config",
    "load_config",
    "load_config_text",
    "EMBEDDING_MODELS",
    "ServerConfig",
    "DashboardConfig",
    "ProxyConfig",
    "McpConfig",
    "WebhooksConfig",
    "DoorSection",
    "StoreConfig",
    "EmbeddingConfig",
    "RetrievalConfig",
    "ScoringConfig",
    "DecayConfig",
    "ReinforcementConfig",
    "PackConfig",
    "IdentityConfig",
    "GoalsConfig",
    "ClockConfig",
    "WorkspaceConfig",
    "JobsConfig",
    "ConsolidationConfig",
    "LLMConfig",
    "ConversationConfig",
    "CacheConfig",
    "PersonaConfig",
    "DailyLogConfig",
    "ChannelsConfig",
]
