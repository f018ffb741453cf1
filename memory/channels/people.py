"""People: everyone who speaks in a chat, with an id that stays theirs across channels.

An account is what a channel knows someone by: the app's user id, or their name where the app
has none (WhatsApp). Each account points at one person; ``merge`` repoints a second account's
person (and their turns) at the first when one human used two. ``user`` is the person the agent
serves: the export's owner (``--me``) and every ChatGPT or Claude question are theirs.

Runs on the store thread; the caller holds the transaction.
"""

from __future__ import annotations

import difflib
import secrets
from typing import Any

from agentmemd.memory.core.clock import Clock, format_time
from agentmemd.memory.core.errors import InvalidParams, NotFound
from agentmemd.memory.core.text import fold
from agentmemd.memory.store.channel_tables import USER, ChannelTables

USER_NAME = "the user"


def new_person_id() -> str:
    return "pe_" + secrets.token_hex(6)


class People:
    def __init__(self, tables: ChannelTables, clock: Clock):
        self.tables = tables
        self.clock = clock

    def resolve(self, namespace: str, channel: str, account: str, name: str, *, is_user: bool = False) -> str:
        """The person behind ``account`` on ``channel``: known, or created now (the user's, if ``is_user``)."""
        known = self.tables.account(namespace, channel, account)
        if known is not None:
            return known
        person = USER if is_user else self.create(namespace, name)
        self.tables.add_account(namespace, channel, account, person, name)
        return person

    def create(self, namespace: str, name: str) -> str:
        """A new person with no account yet."""
        person = new_person_id()
        self.tables.add_person(person, namespace, name, format_time(self.clock.now()))
        return person

    def list(self, namespace: str) -> list[dict[str, Any]]:
        """Everyone who has spoken in the namespace's chats; the user first when they have."""
        user = {"id": USER, "name": USER_NAME, "created": None, **self.tables.person_stats(namespace, USER)}
        return ([user] if user["messages"] else []) + self.tables.people(namespace)

    def get(self, namespace: str, person: str) -> dict[str, Any]:
        """A person with their accounts, chats and activity; a merged-away id answers with the person it became."""
        found = None if person == USER else self.tables.person(namespace, person) or self._named(namespace, person)
        if found is None or found["id"] == USER:  # the user, by id or by a name they go by in the chats
            row: dict[str, Any] = {"id": USER, "name": USER_NAME, "created": None, "merged_into": None}
        else:
            if found["merged_into"]:
                merged = self.get(namespace, found["merged_into"])
                return {**merged, "requested": person}
            row = found
        return {
            "id": row["id"],
            "name": row["name"],
            "created": row["created"],
            **self.tables.person_stats(namespace, row["id"]),
            "accounts": self.tables.accounts(namespace, row["id"]),
            "chats": self.tables.person_chats(namespace, row["id"]),
        }

    def _named(self, namespace: str, name: str) -> dict[str, Any]:
        """The one person who goes by ``name`` (their name or an account's, accents and case aside),
        or else whose name holds its words ("lucia" for Lucía Pérez); NotFound for none (with the
        nearest names), InvalidParams naming them for several."""
        wanted = fold(name)
        names = self.tables.names(namespace)
        ids = sorted({person for person, said in names if fold(said) == wanted})
        if not ids and wanted.split():
            words = set(wanted.split())
            ids = sorted({person for person, said in names if words <= set(fold(said).split())})
        if not ids:  # someone merged into another (the user, for a wrong --me corrected): who they became
            merged = {person for person, said in self.tables.merged_into_named(namespace) if fold(said) == wanted}
            ids = sorted(merged) if len(merged) == 1 else []
        if not ids:
            near = difflib.get_close_matches(wanted, sorted({fold(said) for _, said in names}), n=3, cutoff=0.6)
            said_near = [said for _, said in names if fold(said) in near]
            hint = f"; did you mean {', '.join(map(repr, dict.fromkeys(said_near)))}?" if said_near else ""
            raise NotFound(f"no person {name!r} in namespace {namespace!r} (by id or by name){hint}", {"person": name})
        if len(ids) > 1:
            people = ", ".join(f"{i} ({self._name_of(namespace, i)})" for i in ids[:10])
            raise InvalidParams("person", f"{name!r} is {len(ids)} people: {people}; give the id")
        if ids[0] == USER:
            return {"id": USER, "name": USER_NAME, "created": None, "merged_into": None}
        return self.tables.person(namespace, ids[0])

    def _name_of(self, namespace: str, person: str) -> str:
        return USER_NAME if person == USER else self.tables.person(namespace, person)["name"]

    def merge(self, namespace: str, source: str, target: str) -> dict[str, Any]:
        """Make ``source`` the same person as ``target``: its accounts and turns move to ``target``."""
        if source == target:
            raise InvalidParams("into", "a person cannot be merged into themselves")
        if source == USER:
            raise InvalidParams("person", "the user cannot be merged into someone else; merge them into 'user'")
        for person in (source, target):
            if person != USER:
                found = self.tables.person(namespace, person)
                if found is None:
                    raise NotFound(f"no person {person!r} in namespace {namespace!r}", {"person": person})
                if found["merged_into"]:
                    raise InvalidParams("person", f"{person!r} was already merged into {found['merged_into']!r}")
        moved = self.tables.merge(namespace, source, target)
        return {"merged": source, "into": target, "turns_moved": moved}
