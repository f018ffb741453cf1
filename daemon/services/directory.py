"""Directory: what the dashboard's People and Chats pages need beyond ``people.list``/``.get``
and ``chats.list``, read in one call each (never a call per person):

    directory = Directory(store, config.channels)
    directory.accounts(ChatsListParams(namespace="default"))   # every account, with its person
    directory.chat(ChatParams(chat="telegram:2002"))          # sessions, speakers, who may hear what

Read-only: the daemon runs both on its reader threads.
"""

from __future__ import annotations

from typing import Any

from agentmemd.memory.core.config import ChannelsConfig
from agentmemd.memory.core.disclosure import SHARED, USER, chat_audience, may_hear
from agentmemd.memory.core.errors import NotFound
from agentmemd.memory.core.models import ChatParams, ChatsListParams
from agentmemd.memory.core.sessions import named
from agentmemd.memory.store.database import Store
from agentmemd.memory.store.directory_tables import DirectoryTables


class Directory:
    def __init__(self, store: Store, rules: ChannelsConfig):
        self.tables = DirectoryTables(store)
        self.rules = rules  # [channels] private_reaches_user, group_reaches_user

    def accounts(self, p: ChatsListParams) -> dict[str, Any]:
        """Every account of the namespace's people (what people.list leaves out), by person."""
        return {"accounts": self.tables.accounts(p.namespace)}

    def chat(self, p: ChatParams) -> dict[str, Any]:
        """One chat: its counts, who spoke in it, a page of its sessions, its audience, and which
        of the namespace's memories its context may include (memory/core/disclosure.py)."""
        found = self.tables.chat(p.namespace, p.chat)
        if found is None:
            raise NotFound(f"no chat {p.chat!r} in namespace {p.namespace!r}", {"chat": p.chat})
        audience = chat_audience(found["channel"], found["kind"], found["chat"])
        counts = self.tables.memory_audiences(p.namespace)
        # This chat's own first, then shared, the user's own, and the other chats by name.
        listed = sorted(
            set(counts) | {SHARED, USER, audience}, key=lambda a: (a != audience, a != SHARED, a != USER, a)
        )
        return {
            "chat": found,
            "audience": audience,
            "reaches_user": may_hear(USER, audience, self.rules),
            "people": self.tables.chat_people(p.namespace, p.chat),
            "hears": [
                {"audience": a, "memories": counts.get(a, 0), "heard": may_hear(audience, a, self.rules)}
                for a in listed
            ],
            "sessions": named(self.tables.chat_sessions(p.namespace, p.chat, p.limit, p.offset)),
            "offset": p.offset,
            "limit": p.limit,
        }
