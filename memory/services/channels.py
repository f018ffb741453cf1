"""ChannelService: chat messages in (imports and live webhooks alike), people and raw turns out.

    service.ingest(IngestParams(channel="whatsapp", chat_id="whatsapp:Ana", title="Ana",
                                kind="private", messages=[...], owner="Carla"))

Every method runs on the store thread. A batch is one transaction: the chat and new people, the turns (through the
conversations' own append), and the messages' keys. So a batch is stored whole or not at all, and
re-sending it, or an import killed half-way and run again, stores nothing twice. The Observer is
queued afterwards for every session the batch made due; it runs on the compaction worker.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from agentmemd.memory.channels.ingest import ChatIngest
from agentmemd.memory.channels.people import People
from agentmemd.memory.conversation.compaction import CompactionWorker
from agentmemd.memory.conversation.conversations import Conversations
from agentmemd.memory.core.clock import Clock, zone_named
from agentmemd.memory.core.config import Config
from agentmemd.memory.core.disclosure import heard
from agentmemd.memory.core.models import (
    ChatsListParams,
    IngestParams,
    PeopleMergeParams,
    PersonParams,
    TurnSearchParams,
)
from agentmemd.memory.store.channel_tables import ChannelTables
from agentmemd.memory.store.database import Store


class ChannelService:
    def __init__(
        self,
        store: Store,
        conversations: Conversations,
        worker: CompactionWorker,
        config: Config,
        clock: Clock,
    ):
        self.store = store
        self.conversations = conversations
        self.worker = worker
        self.config = config.channels
        self.tables = ChannelTables(store)
        self.people = People(self.tables, clock)
        self.ingest_ = ChatIngest(
            self.tables, self.people, clock, timedelta(minutes=config.channels.session_gap_minutes)
        )

    def ingest(self, p: IngestParams) -> dict[str, Any]:
        """Store a batch of one chat's messages; what was added, what was already there."""
        zone = zone_named(p.tz if p.tz is not None else self.config.timezone)
        result = self._store_batch(p, zone)
        for session in result["observing"]:
            self.worker.request(session, force=session not in result["due"])
        del result["due"]
        return result

    def _store_batch(self, p: IngestParams, zone) -> dict[str, Any]:
        with self.store.transaction():
            plan = self.ingest_.plan(
                p.namespace, p.channel, p.chat_id, p.title, p.kind, p.messages, owner=p.owner, zone=zone
            )
            seqs = self.conversations.append_many(p.namespace, plan.turns) if plan.turns else []
            self.ingest_.record(p.namespace, plan.keys, seqs)
        added = {t["session"] for t in plan.turns}
        # A session over the Observer's threshold is due as any conversation's is; a finished one
        # (the chat went on after a gap) is observed whole, as nothing more will join it.
        due = [s for s in plan.sessions if s in added and self.conversations.due(s)]
        finished = self.tables.finished_unobserved(p.namespace, p.chat_id) if self.config.observe_finished else []
        return {
            "chat": p.chat_id,
            "added": len(plan.turns),
            "duplicates": plan.duplicates,
            "sessions": plan.sessions,
            "people": plan.people,
            "observing": list(dict.fromkeys([*due, *finished])),
            "due": due,
        }

    def chats(self, p: ChatsListParams) -> dict[str, Any]:
        return {"chats": self.tables.chats(p.namespace)}

    def people_list(self, p: ChatsListParams) -> dict[str, Any]:
        return {"people": self.people.list(p.namespace)}

    def person(self, p: PersonParams) -> dict[str, Any]:
        return self.people.get(p.namespace, p.person)

    def merge(self, p: PeopleMergeParams) -> dict[str, Any]:
        with self.store.transaction():
            return self.people.merge(p.namespace, p.person, p.into)

    def search_turns(self, p: TurnSearchParams) -> dict[str, Any]:
        audiences = None
        if p.audience is not None:  # only what this conversation's audience may hear
            audiences = heard(p.audience, self.tables.turn_audiences(p.namespace), self.config)
        rows = self.tables.search_turns(
            p.namespace, p.query, p.k, chat=p.chat, person=p.person, session=p.session, audiences=audiences
        )
        return {"turns": rows}
