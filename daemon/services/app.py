"""The composition root: ``Services.open`` builds the engine over one data dir.

    services = Services.open(load_config(), Path("data"), workspace=Path("ws"))
    services.memories.add(AddParams(content="The user prefers short answers", type="preference"))
    services.close()

As a library every call runs on the caller's thread (``run_on_store`` calls directly).
The daemon passes a ``run_on_store`` that hands SQLite work to its single store thread.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, TypeVar

import psutil

from agentmemd.cron.jobs import register_jobs
from agentmemd.cron.scheduler import JobRunner
from agentmemd.daemon.services.access import AccessService
from agentmemd.daemon.services.channels import ChannelService
from agentmemd.daemon.services.conversations import ConversationService
from agentmemd.daemon.services.costs import CostService
from agentmemd.daemon.services.directory import Directory
from agentmemd.daemon.services.forgetting import ForgetService
from agentmemd.daemon.services.goals import GoalService
from agentmemd.daemon.services.identity import IdentityService
from agentmemd.daemon.services.jobs import JobService
from agentmemd.daemon.services.memory_writes import MemoryWrites
from agentmemd.daemon.services.persona import PersonaService
from agentmemd.daemon.services.workspace import WorkspaceService
from agentmemd.memory.consolidation.consolidator import Consolidator
from agentmemd.memory.conversation.compaction import CompactionWorker
from agentmemd.memory.conversation.conversations import Conversations
from agentmemd.memory.conversation.episodes import EpisodeWorker
from agentmemd.memory.core import __version__
from agentmemd.memory.core.clock import make_clock, zone_named
from agentmemd.memory.core.config import Config
from agentmemd.memory.core.errors import LLMError, StartupError, StoreError, StoreUnavailable
from agentmemd.memory.core.models import HealthResult, ProcessFacts
from agentmemd.memory.core.results import RamUsage
from agentmemd.memory.core.threads import RunOnStore, run_here
from agentmemd.memory.llm import make_provider
from agentmemd.memory.llm.cache import ResponseCache
from agentmemd.memory.llm.ledger import Ledger
from agentmemd.memory.llm.tasks import IMPRESSION, SUMMARISE
from agentmemd.memory.retrieval.audit import MemoryAudit
from agentmemd.memory.retrieval.embedding_models import embedder_in_background
from agentmemd.memory.retrieval.embeddings import BackgroundEmbedder, Embedder
from agentmemd.memory.retrieval.memories import Memories
from agentmemd.memory.retrieval.reembedding import Reembedding
from agentmemd.memory.store.database import Store, secure_data_dir
from agentmemd.memory.store.goal_tables import GoalTables
from agentmemd.memory.store.opening import open_store
from agentmemd.memory.store.schema import SchemaUpgrade, short
from agentmemd.memory.workspace.indexer import WorkspaceIndexer
from agentmemd.memory.workspace.writeback import WorkspaceWriter
from agentmemd.persona.goals.goals import Goals, GoalsFile
from agentmemd.persona.identity.recall import IdentityRecall
from agentmemd.persona.tracking.model import PersonaModel
from agentmemd.persona.tracking.tracker import PersonaTracker

T = TypeVar("T")
R = TypeVar("R")
log = logging.getLogger("agentmemd")


def _log_schema_upgrade(schema: SchemaUpgrade) -> None:
    """One line when an existing data dir was migrated: which migrations, from which versions to which."""
    if schema.upgraded:
        log.info(
            "data dir upgraded",
            extra={
                "migrations": schema.applied,
                "from_schema": short(schema.from_schema or ""),
                "to_schema": short(schema.to_schema),
                "from_version": schema.from_version,
                "to_version": schema.to_version,
            },
        )


@dataclass
class Services:
    config: Config
    store: Store
    memories: Memories
    audit: MemoryAudit
    forgetting: ForgetService  # memory.forget: every copy of a memory's words, by lineage
    memory_writes: MemoryWrites
    conversations: ConversationService
    persona: PersonaService
    workspace: WorkspaceService
    jobs: JobService
    costs: CostService
    access: AccessService
    channels: ChannelService
    directory: Directory  # the dashboard's People and Chats reads
    identity: IdentityService  # the identity graph (its block in every pack is the packs' own)
    goals: GoalService
    # What the daemon runs beside the requests: the watcher's indexer, the job runner, the worker.
    indexer: WorkspaceIndexer | None
    runner: JobRunner
    worker: CompactionWorker
    episodes: EpisodeWorker
    reembedding: Reembedding  # a change of embedding model: the new vectors, made in the background
    # Start-up work still running in the background ("workspace", "jobs"), as health reports it.
    catching_up: set[str] = field(default_factory=set)
    # The daemon's facts (pid, paths, the doors it started), set by the host that runs these services.
    process_facts: Callable[[], ProcessFacts] | None = None

    @classmethod
    def open(
        cls,
        config: Config,
        data_dir: Path,
        *,
        workspace: Path | None = None,
        embedder: Embedder | None = None,
        run_on_store: RunOnStore = run_here,
        run_in_background: RunOnStore = run_here,
        load_model_later: bool = False,
    ) -> "Services":
        """``load_model_later``: the embedding model starts loading at ``start_model()`` (the daemon
        calls it once its socket listens), not now. ``run_in_background``: runs a job someone asked
        for on a background thread (the daemon's jobs thread) and waits for it."""
        tightened = secure_data_dir(Path(data_dir))
        if tightened:
            log.warning("data dir permissions tightened (memories are private)", extra={"changed": tightened})
        if embedder is None:  # loaded beside the start-up: health answers meanwhile ("starting")
            embedder = embedder_in_background(config.embedding, start=not load_model_later)
        try:
            store = open_store(config.store, Path(data_dir), dim=embedder.dim, model=embedder.name)
        except StoreError as exc:  # a data dir this agentmemd cannot use (a newer one's, another model's)
            raise StartupError(exc.message, exc.data) from None
        _log_schema_upgrade(store.schema)
        try:
            return cls._build(config, store, embedder, workspace, run_on_store, run_in_background)
        except BaseException:
            store.close()
            raise

    @classmethod
    def _build(
        cls,
        config: Config,
        store: Store,
        embedder: Embedder,
        workspace: Path | None,
        run_on_store: RunOnStore,
        run_in_background: RunOnStore = run_here,
    ) -> "Services":
        memories = Memories(store, embedder, make_clock(config.clock.start), config, run_on_store)
        started = time.monotonic()
        read = run_on_store(memories.read_older_memories)  # once, after an upgrade that records more of them
        if read:
            log.info("older memories read", extra={"rows": read, "seconds": round(time.monotonic() - started, 2)})
        indexer = None
        if workspace is not None:
            indexer = WorkspaceIndexer(
                memories,
                workspace,
                namespace=config.workspace.namespace,
                max_file_bytes=config.workspace.max_file_bytes,
                max_items_per_file=config.workspace.max_items_per_file,
                batch_files=config.workspace.sync_batch_files,
                run_on_store=run_on_store,
            )
        ledger = Ledger(store, memories.clock, config.llm, run_on_store)
        try:
            provider = make_provider(config, ledger, embedder)
        except LLMError as exc:
            raise StartupError(str(exc)) from None
        cache = ResponseCache(store, embedder, memories.clock, config.cache, provider.name)
        runner = JobRunner(store, memories.clock, zone_named(config.jobs.timezone), run_on_store)
        writer = WorkspaceWriter(store, workspace) if workspace is not None else None
        summarise = None
        if config.llm.provider == "anthropic":  # a model writes the consolidated nodes; locally they stay extractive

            def summarise(texts: list[str], namespace: str) -> str:
                compute = lambda: provider.summarise(texts, namespace=namespace)  # noqa: E731
                return cache.through(SUMMARISE, namespace, texts, compute, run_on_store=run_on_store).summary

        goals = Goals(
            GoalTables(store), embedder, memories.clock, config.goals, memories.may_hear, memories.known_secrets.of
        )
        memories.packing.blocks["goals"] = goals.block
        if indexer is not None:
            indexer.own(GoalsFile(goals))  # GOALS.md's task-list items are goals
        register_jobs(runner, memories, config, writer, config.workspace.namespace, summarise=summarise, goals=goals)
        conversations = Conversations(memories, config, provider.name)
        conversations.on_observed = goals.note_progress  # observations that speak to a goal: its progress notes
        episodes = EpisodeWorker(
            memories, conversations.tables, config.conversation, run_on_store, background=run_on_store is not run_here
        )
        conversations.on_turns_stored = episodes.wake
        episodes.start()
        tracker = PersonaTracker(memories, config, provider.name)
        identity = IdentityRecall(tracker.tables, embedder, config.identity, memories.may_hear)
        memories.packing.blocks["identity"] = identity.block
        if indexer is not None:
            indexer.on_synced = lambda: identity.warm(config.workspace.namespace)
        worker = CompactionWorker(
            conversations,
            provider,
            cache,
            run_on_store,
            target_ratio=config.conversation.reflector_target,
            persona=tracker,
            persona_model=PersonaModel(provider, embedder),
        )
        describe = None
        if (
            config.llm.provider == "anthropic"
        ):  # a model writes the impressions (seed 004); locally they stay extractive

            def describe(name: str, current: str, texts: list[str], namespace: str):
                compute = lambda: provider.impression(name, current, texts, namespace=namespace)  # noqa: E731
                payload = [name, current, *texts]
                return cache.through(IMPRESSION, namespace, payload, compute, run_on_store=run_on_store)

        channels = ChannelService(store, conversations, worker, config, memories.clock, run_on_store, describe)
        worker.on_observed = channels.refresh_impressions
        worker.indexing = episodes.working
        channels.episodes = episodes
        conversation_service = ConversationService(
            memories, conversations, tracker, worker, config, run_on_store, episodes
        )
        conversation_service.people_note = channels.people_note
        conversation_service.standing_goals = goals.standing
        writes = MemoryWrites(memories, run_on_store)
        audit = MemoryAudit(memories, person_id=lambda namespace, person: channels.people.get(namespace, person)["id"])
        reembedding = Reembedding(
            store, embedder, config.embedding.model, run_on_store, background=run_on_store is not run_here
        )
        reembedding.start()
        return cls(
            config=config,
            store=store,
            memories=memories,
            audit=audit,
            forgetting=ForgetService(audit, writer, run_on_store, channels.refresh_impressions, goals),
            memory_writes=writes,
            conversations=conversation_service,
            persona=PersonaService(tracker, conversations, worker, run_on_store),
            workspace=WorkspaceService(indexer),
            jobs=JobService(
                runner, Consolidator(memories, config.consolidation, run_on_store), memories.clock, run_in_background
            ),
            costs=CostService(ledger, cache, config.llm.provider),
            access=AccessService(store, memories.clock, config.workspace.namespace, memories.require_audience),
            channels=channels,
            directory=Directory(store, config.channels),
            identity=IdentityService(identity, writes),
            goals=GoalService(goals, store, run_on_store),
            indexer=indexer,
            runner=runner,
            worker=worker,
            episodes=episodes,
            reembedding=reembedding,
        )

    def reading(self, handler: Callable[[T], R]) -> Callable[[T], R]:
        """``handler`` run on the calling thread's read-only connection (Store.reading): the daemon
        runs read-only methods so, on reader threads beside the store thread."""

        def read(params: T) -> R:
            with self.store.reading():
                return handler(params)

        return read

    def ram(self) -> RamUsage:
        """The process's resident memory by part, in MB."""
        mb = 1024 * 1024
        rss = psutil.Process().memory_info().rss / mb
        embedder = self.memories.embedder
        model = getattr(embedder, "weights_bytes", lambda: 0)() / mb
        vectors = self.store.vectors.nbytes() / mb
        return RamUsage(
            rss=round(rss, 1),
            model=round(model, 1),
            vectors=round(vectors, 1),
            sqlite_cache_max=round(self.store.cache_max_bytes() / mb, 1),
            rest=round(rss - model - vectors, 1),
        )

    def stats(self, namespace: str | None) -> dict:
        """Counts by type, tier and namespace; asked about every namespace (the owner: a token bound
        to namespaces always asks about one), the process's memory by part too."""
        counts = self.memories.stats(namespace)
        return counts if namespace is not None else {**counts, "ram_mb": self.ram()}

    def start_model(self) -> None:
        """Start loading the embedding model, if it is loaded in the background and has not begun."""
        if isinstance(self.memories.embedder, BackgroundEmbedder):
            self.memories.embedder.start()

    def wait_for_model(self) -> float | None:
        """Wait until the embedding model is loaded: the seconds its load took (None: it was not
        loaded in the background). StartupError if the load failed, Timeout if it is still loading."""
        embedder = self.memories.embedder
        if not isinstance(embedder, BackgroundEmbedder):
            return None
        embedder.wait()
        return embedder.load_seconds

    def health(self) -> HealthResult:
        status, detail = "ok", None
        embedder = self.memories.embedder
        if isinstance(embedder, BackgroundEmbedder) and not embedder.ready:
            detail = embedder.failure
            status = "model_failed" if detail else "starting"
        memories: int | None = None
        reembedding = None
        try:
            with self.store.reading():
                memories = self.memories.health_count()
                reembedding = self.reembedding.progress()
        except StoreUnavailable as exc:
            status, detail = "store_unavailable", exc.message
        fault = self.store.write_fault
        if fault is not None and status == "ok":  # reads go on, writes fail: said, not "ok"
            status = "store_unavailable"
            detail = f"the store refuses writes ({fault.replace('_', ' ')}); reads go on, and writes once it is over"
        catching_up = self.catching_up | ({"embeddings"} if reembedding and reembedding["running"] else set())
        return HealthResult(
            status=status,
            detail=detail,
            version=__version__,
            memories=memories,
            catching_up=sorted(catching_up),
            reembedding=reembedding,
            process=self.process_facts() if self.process_facts else None,
        )

    def recover(self) -> list[str]:
        """Sessions whose Observer/Reflector run a crash interrupted; the worker looks at them again."""
        return self.conversations.recover()

    def stop_workers(self) -> None:
        """Stop the background workers; the run or batch in progress finishes (its writes are one
        transaction), what is queued is left for the next start."""
        self.reembedding.stop()
        self.episodes.stop()
        self.worker.stop()
        self.memories.pack_log.stop()

    def close(self) -> None:
        """Stop the background workers, then close the store."""
        self.stop_workers()
        self.store.close()


# What an app may import from here (tests/test_public_surface.py keeps it whole).
__all__ = [
    "Services",
]
