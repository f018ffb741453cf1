"""Episodes: every conversation turn, appended or imported, also becomes a searchable memory, so a question finds what was said even before (or without) the Observer's
observations of it.

An episode is the turn as said ("Ana said: words"), of type ``episode``, dated when it was said,
heard by whom the turn's conversation may be heard, and indexed with its session neighbourhood:
the ``episode_context_turns`` turns said before it in its session (what the daemon knows when
the turn arrives; never a later turn). It is linked to the observations made from its turn
(m017 memory_turns), so a pack packs the turn once. The assistant's own replies become episodes
only with ``episodes_of_assistant``: what the agent said is not evidence of what is true, and a
reply it got wrong would come back in its packs as memory.

The worker is off the request path: ``conversation.append`` and chat imports only store the turn
and wake it. A run is

    next batch   (store thread: the oldest turns without an episode, with their neighbourhoods)
    embed        (worker thread: one batched model call, windows for long turns)
    store batch  (store thread: the episode memories, their links and the turns' marks, ONE
                  transaction; then the next batch is read in the same turn of the store thread)

so a crash leaves a turn either with its episode or without one, and the next start picks up
whatever has none (also every turn stored before episodes existed).
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
from pydantic import ValidationError

from agentmemd.memory.core.clock import parse_time
from agentmemd.memory.core.config import ConversationConfig
from agentmemd.memory.core.errors import Conflict, StoreUnavailable, store_retry_delay
from agentmemd.memory.core.models import AddParams
from agentmemd.memory.core.sessions import session_name
from agentmemd.memory.core.text import episode_context, episode_text, speaker_shown
from agentmemd.memory.core.threads import RunOnStore, become_background, return_freed_memory
from agentmemd.memory.core.vocabulary import EPISODE
from agentmemd.memory.retrieval.memories import WordsRead
from agentmemd.memory.store.conversation_tables import ConversationTables
from agentmemd.memory.store.database import indexed_text

log = logging.getLogger("agentmemd")

NOT_AN_EPISODE = ""  # conversation_turns.episode of a turn left out by choice (an assistant reply)


@dataclass
class EpisodeBatch:
    turns: list[dict[str, Any]]  # those that become episodes
    items: list[AddParams]
    skipped: list[int]  # seqs of the turns that do not (the assistant's, unless episodes_of_assistant; invalid ones)

    def texts(self) -> list[str]:
        return [indexed_text(item.content, item.context) for item in self.items]


class EpisodeWorker:
    """One thread that turns stored turns into episode memories, a batch at a time."""

    def __init__(
        self,
        memories,
        tables: ConversationTables,
        cfg: ConversationConfig,
        run_on_store: RunOnStore,
        *,
        background: bool = True,
    ):
        """``background`` False (a library whose caller's thread is the store thread): no thread,
        ``wake`` indexes the new turns before it returns."""
        self.memories = memories
        self.tables = tables
        self.cfg = cfg
        self.run_on_store = run_on_store
        self.background = background
        self._wanted = threading.Event()
        self._stopping = threading.Event()
        self._one_run = threading.Lock()  # the thread and a caller's catch_up never store a turn twice
        self._thread: threading.Thread | None = None
        # After a batch the store refused (a full disk): when to look again unwoken. Nothing may be
        # stored once the disk has room, so waiting for the next stored turn could wait for ever.
        self._retry_in: float | None = None
        self._refusals = 0  # in a row: the store refused the last ones (a full disk, a server gone)

    # ---- control -----------------------------------------------------------------------

    def start(self) -> None:
        """Start the thread; it first catches up on every turn that has no episode yet."""
        if not self.cfg.episodes or not self.background or self._thread is not None:
            return
        self._thread = threading.Thread(target=self._loop, name="agentmemd-episodes", daemon=True)
        self._thread.start()
        self.wake()

    def wake(self) -> None:
        """New turns were stored: index them soon (never waits), or now without a thread."""
        if self.background:
            self._wanted.set()
        else:
            self.catch_up()

    def stop(self) -> None:
        """Let the batch in progress commit, then end the thread."""
        self._stopping.set()
        self._wanted.set()
        if self._thread is not None:
            self._thread.join(timeout=60)

    def idle(self) -> bool:
        return not self._wanted.is_set() and not self._one_run.locked()

    def pending(self, session: str | None = None) -> int:
        """Turns (of the session, or all) that have no episode yet."""
        return self.tables.unindexed_count(session) if self.cfg.episodes else 0

    def unsearchable(self, namespace: str, sessions: list[str] | None = None) -> int:
        """Turns of the namespace (of these sessions, by key) a search cannot find yet: their episodes
        are still to be stored (0 with episodes off: none is coming)."""
        return self.tables.unsearchable_count(namespace, sessions) if self.cfg.episodes else 0

    def working(self) -> bool:
        """At a batch, or woken for one. Not working with turns left means stuck: a failed batch
        (the model failed to load, say) is tried again only at the next wake or start."""
        alive = not self.background or (self._thread is not None and self._thread.is_alive())
        return alive and not self.idle()

    # ---- work --------------------------------------------------------------------------

    def _loop(self) -> None:
        become_background()
        while not self._stopping.is_set():
            self._wanted.wait(timeout=self._retry_in)
            self._wanted.clear()
            if self._stopping.is_set():
                return
            self.catch_up_logged()

    def catch_up_logged(self) -> None:
        """catch_up, what goes wrong logged (the turns are stored; their episodes come with the next
        wake or start). Another daemon on the same PostgreSQL indexing the same turns first is normal
        work, said at info level, not an error with a traceback."""
        try:
            self.catch_up()
            self._retry_in, self._refusals = None, 0
        except Conflict as exc:
            log.info("episode indexing: another run indexed these turns first", extra={"reason": exc.message})
        except StoreUnavailable as exc:  # the store's fault is logged where it starts; the turns wait for it
            self._refusals += 1
            self._retry_in = store_retry_delay(self._refusals)
            log.info(
                "episode indexing waits for the store", extra={"reason": exc.message, "retry_in_s": self._retry_in}
            )
        except Exception:
            log.exception("episode indexing failed")

    def catch_up(self) -> int:
        """Index every turn that has no episode yet, a batch at a time; how many were indexed.
        The daemon's thread calls it when woken; a library user (or a test) may call it directly."""
        if not self.cfg.episodes:
            return 0
        done = 0
        with self._one_run:
            batch = self.run_on_store(self.next_batch)
            while batch is not None and not self._stopping.is_set():
                texts = batch.texts()
                vectors = self._embed(texts) if texts else []  # not on the store thread
                read = self.memories.read_words_of(batch.items)  # nor this
                stored, batch = self.run_on_store(partial(self._store_then_next, batch, vectors, read))
                done += stored
        if done:
            return_freed_memory()
        return done

    def _embed(self, texts: list[str]) -> list[np.ndarray]:
        """The embedder's bulk path where it has one (an import brings thousands of turns at once)."""
        embedder = self.memories.embedder
        return getattr(embedder, "embed_passages_in_bulk", embedder.embed_passages)(texts)

    def _store_then_next(
        self, batch: EpisodeBatch, vectors: list[np.ndarray], read: list[WordsRead]
    ) -> tuple[int, EpisodeBatch | None]:
        """A batch stored and the next one read in one turn of the store thread: behind an Observer's
        writes, each turn is a wait with the model idle."""
        return self.store_batch(batch, vectors, read), self.next_batch()

    def next_batch(self) -> EpisodeBatch | None:
        turns = self.tables.unindexed(self.cfg.episode_batch)
        if not turns:
            return None
        mine, items, skipped = [], [], []
        for turn in turns:
            # A tool's output is data an app handed the model, not something anyone said.
            if turn["role"] == "tool" or (turn["role"] == "assistant" and not self.cfg.episodes_of_assistant):
                skipped.append(turn["seq"])
                continue
            try:
                items.append(self._episode(turn))
            except ValidationError as exc:  # one bad turn must not hold up every turn after it
                log.warning("turn left without an episode", extra={"seq": turn["seq"], "error": str(exc)[:300]})
                skipped.append(turn["seq"])
                continue
            mine.append(turn)
        return EpisodeBatch(mine, items, skipped)

    def _episode(self, turn: dict[str, Any]) -> AddParams:
        before = self.tables.said_before(turn["session"], turn["seq"], self.cfg.episode_context_turns)
        context = episode_context(before)
        return AddParams(
            content=episode_text(speaker_shown(turn["speaker"], turn["person"]), turn["content"]),
            type=EPISODE,
            namespace=turn["namespace"],
            context=context,
            created=parse_time(turn["ts"]),
            source=f"conversation:{session_name(turn['session'])}#turn:{turn['seq']}"[:1000],
            tags=[EPISODE, turn["role"]],
            audience=turn["audience"],  # heard where the turn's conversation may be heard
            origin_chat=turn["chat"],
            said_by=turn["person"],
        )

    def store_batch(self, batch: EpisodeBatch, vectors: list[np.ndarray], read: list[WordsRead] | None = None) -> int:
        """The batch's episodes, their turn links and the turns' marks, in one transaction
        (``read``: the episodes' words read beside their embedding; else read here)."""
        read = read if read is not None else self.memories.read_words_of(batch.items)
        store = self.memories.store
        with store.transaction():
            # A turn edited while its text was being embedded (channels.edit) waits for the next run.
            now = self.tables.contents([t["seq"] for t in batch.turns])
            fresh = [i for i, t in enumerate(batch.turns) if now.get(t["seq"]) == t["content"]]
            if len(fresh) < len(batch.turns):
                batch = EpisodeBatch([batch.turns[i] for i in fresh], [batch.items[i] for i in fresh], batch.skipped)
                vectors = [vectors[i] for i in fresh]
                read = [read[i] for i in fresh]
            ids = self.memories.add_many(batch.items, vectors=vectors, read=read) if batch.items else []
            for turn, memory_id in zip(batch.turns, ids):
                store.link_turns(memory_id, [turn["seq"]])
            marks = {t["seq"]: mid for t, mid in zip(batch.turns, ids)} | dict.fromkeys(batch.skipped, NOT_AN_EPISODE)
            if self.tables.set_episodes(marks) != len(marks):
                raise Conflict("turns were indexed as episodes by another run")
        return len(ids)
