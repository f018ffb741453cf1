"""Chat messages into conversation turns: sessions by time gap, speakers as people, each message once.

    plan = ingest.plan("default", "whatsapp", chat, messages, owner="Carla", zone=ZoneInfo("Europe/Lisbon"))
    seqs = conversations.append_many("default", plan.turns)   # the caller's transaction
    ingest.record("default", plan.keys, seqs)

A chat becomes a conversation of sessions: a message more than ``gap`` after the one before it
starts a new session, whose id is the chat's and the first message's time, so the same export
gives the same sessions every time. Every message has a key (the app's message id, or its time,
sender, text and how many identical ones came before it in the batch); a key already stored is a
duplicate, which makes an import idempotent and lets one killed half-way resume where its last
committed batch ended. The importer never splits identical-time messages across batches.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta, tzinfo
from typing import Any, Iterator

from agentmemd.memory.channels.people import People
from agentmemd.memory.core.chats import ChatKind, ChatMessage
from agentmemd.memory.core.clock import Clock, format_time, parse_time, to_utc
from agentmemd.memory.core.disclosure import chat_audience
from agentmemd.memory.core.sessions import session_key
from agentmemd.memory.core.text import fold, forwarded
from agentmemd.memory.store.channel_tables import USER, ChannelTables


@dataclass
class IngestPlan:
    turns: list[dict[str, Any]] = field(default_factory=list)  # conversation_turns rows, without namespace/tokens
    keys: list[str] = field(default_factory=list)  # one per turn
    duplicates: int = 0
    sessions: list[str] = field(default_factory=list)  # every session the batch's messages are in
    people: dict[str, str] = field(default_factory=dict)  # sender as shown -> person id
    accounts: dict[str, str] = field(default_factory=dict)  # account -> person id, resolved once a batch
    chat: str = ""  # the chat the messages are stored in
    retimed: list[timedelta] = field(default_factory=list)  # stored instant - this reading, per such duplicate
    remapped: list[dict[str, Any]] = field(default_factory=list)  # accounts the owner given moved (see _claim_user)
    # Stored messages (by the app's id) the export marks edited: their text may be newer than the
    # stored one, and is applied as an edit (memory/channels/corrections.py), not stored again.
    edited: list[ChatMessage] = field(default_factory=list)
    # Stored turns a message without an id rewrites: an export marks it edited, sent by the same
    # sender at the same time as written (WhatsApp's "<This message was edited>"): (seq, message, key).
    rewrites: list[tuple[int, ChatMessage, str]] = field(default_factory=list)
    replies: list[str | None] = field(default_factory=list)  # per turn: the app's id of the message it replies to


# A chat known by its content whose export lost its opening messages is found by its oldest ones.
OVERLAP_SAMPLE = 20
OVERLAP_FOUND = 3


def message_key(chat: str, message: ChatMessage, when: datetime, occurrence: int) -> str:
    """``when``: the message's instant (its ``ts`` in the importer's zone). A message without the
    app's id is keyed by its time as the export wrote it: a naive time (WhatsApp) as wall-clock,
    so reading the file again with another ``--tz`` finds the same message."""
    if message.message_id:
        return id_key(chat, message.message_id)
    else:
        written = message.ts.isoformat() if message.ts.tzinfo is None else format_time(when)
        basis = f"{chat}\x1f{written}\x1f{message.sender}\x1f{message.text}\x1f{occurrence}"
    return hashlib.sha256(basis.encode()).hexdigest()[:32]


def id_key(chat: str, message_id: str) -> str:
    """The key of the chat's message with the app's id ``message_id`` (message_key's, for one with an id)."""
    return hashlib.sha256(f"{chat}\x1fid\x1f{message_id}".encode()).hexdigest()[:32]


def earlier_key(chat: str, message: ChatMessage, when: datetime, occurrence: int) -> str | None:
    """The key a message without an id and with a naive time had before keys were wall-clock (its
    instant in the zone of that import, under the chat's earlier id): what was imported then is
    still found when imported again."""
    if message.message_id or message.ts.tzinfo is not None:
        return None
    basis = f"{chat}\x1f{format_time(when)}\x1f{message.sender}\x1f{message.text}\x1f{occurrence}"
    return hashlib.sha256(basis.encode()).hexdigest()[:32]


# What a browser or a person adds to a downloaded export's file name: "(1)", "(later)", " - Copy".
_FILE_COPY = re.compile(r"\s*(?:\([^()]{1,40}\)|[-–]?\s*(?:copy|copia|kopie|copie)(?:\s*\d+)?)\s*$", re.IGNORECASE)


def _file_copy_of(known: str, title: str) -> bool:
    """``title`` is ``known`` with what a copy of its file adds: a title from a file's name
    (WhatsApp's) keeps the chat's first one.

    >>> _file_copy_of("Ana", "Ana (1)"), _file_copy_of("Piso", "Piso (later)"), _file_copy_of("Ana", "Anabel")
    (True, True, False)
    """
    return title != known and title.startswith(known) and bool(_FILE_COPY.fullmatch(title[len(known) :]))


def session_id(namespace: str, chat: str, title: str, first: datetime) -> str:
    """``whatsapp:ana-silva:1a2b3c4d@20240312T091540Z``: readable, unique per namespace and chat (the
    store's key of it: memory/core/sessions.py)."""
    channel = chat.split(":", 1)[0]
    ascii_title = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_title.lower()).strip("-")[:40].strip("-") or "chat"
    digest = hashlib.sha256(f"{namespace}\x1f{chat}".encode()).hexdigest()[:8]
    name = (
        f"{re.sub(r'[^a-z0-9]+', '-', channel.lower())[:20] or 'chat'}:{slug}:{digest}@{to_utc(first):%Y%m%dT%H%M%SZ}"
    )
    return session_key(namespace, name)


def batches(
    messages: list[ChatMessage], max_messages: int = 500, max_bytes: int = 400_000
) -> Iterator[list[ChatMessage]]:
    """The messages, in time order, in slices small enough for one request line (the socket
    takes 1 MiB) and one short transaction; messages of the same time stay in one slice, as
    their keys count identical ones."""
    ordered = sorted(messages, key=lambda m: to_utc(m.ts))
    batch: list[ChatMessage] = []
    size = 0
    for message in ordered:
        weight = len(json.dumps(message.text)) + len(json.dumps(message.sender)) + 300  # + the other fields
        full = len(batch) >= max_messages or size + weight > max_bytes
        if batch and full and to_utc(message.ts) != to_utc(batch[-1].ts):
            yield batch
            batch, size = [], 0
        batch.append(message)
        size += weight
    if batch:
        yield batch


class ChatIngest:
    def __init__(self, tables: ChannelTables, people: People, clock: Clock, gap: timedelta):
        self.tables = tables
        self.people = people
        self.clock = clock
        self.gap = gap

    def plan(
        self,
        namespace: str,
        channel: str,
        chat: str,
        title: str | None,
        kind: ChatKind,
        messages: list[ChatMessage],
        *,
        owner: str | None,
        zone: tzinfo,
        earlier_ids: list[str] = (),  # type: ignore[assignment]
    ) -> IngestPlan:
        """What storing ``messages`` adds; people and the chat row are written now (the caller's transaction)."""
        stamped = sorted(((m, to_utc(_as_written(m, zone))) for m in messages), key=lambda p: p[1])
        occurrences: dict[tuple, int] = {}
        counted = []
        for message, _when in stamped:
            ident = (message.ts, message.sender, message.text)
            occurrences[ident] = occurrences.get(ident, -1) + 1
            counted.append(occurrences[ident])
        plan = IngestPlan(chat=self._continued_chat(namespace, channel, chat, earlier_ids, stamped, counted))
        chat = plan.chat
        keys = [message_key(chat, m, when, n) for (m, when), n in zip(stamped, counted)]
        before = [earlier_key(chat, m, when, n) for (m, when), n in zip(stamped, counted)]
        stored = self.tables.stored_keys(namespace, keys + [k for k in before if k])
        title = self._chat_row(namespace, channel, chat, title, kind)
        audience = chat_audience(channel, kind, chat)
        if owner is not None:
            plan.remapped = self._claim_user(namespace, channel, owner, [m for m, _ in stamped])
        previous = self.tables.last_turn_before(namespace, chat, format_time(stamped[0][1])) if stamped else None
        prev_session, prev_ts = (previous[0], parse_time(previous[1])) if previous else (None, None)
        seen: set[str] = set()
        texts = {(m.ts, m.sender, m.text) for m, _ in stamped}
        for (message, when), key, old in zip(stamped, keys, before):
            known = stored.get(key) or (stored.get(old) if old else None)
            if not known and key not in seen and (rewritten := self._rewritten(namespace, chat, message, when, texts)):
                plan.rewrites.append((rewritten, message, key))
                plan.duplicates += 1  # stored before: it is corrected, not added
                seen.add(key)
                continue
            if known or key in seen:
                plan.duplicates += 1
                if known:
                    if message.message_id and message.edited:
                        plan.edited.append(message)
                    prev_session, prev_ts = known[1], parse_time(known[2])
                    if prev_session not in plan.sessions:
                        plan.sessions.append(prev_session)
                    if message.ts.tzinfo is None and prev_ts != when:  # the same line, read in another zone
                        plan.retimed.append(prev_ts - when)
                continue
            seen.add(key)
            if prev_session is None or when - prev_ts > self.gap:
                prev_session = session_id(namespace, chat, title, when)
            prev_ts = when
            plan.turns.append(
                self._turn(namespace, channel, chat, audience, message, when, prev_session, owner, plan, zone)
            )
            plan.keys.append(key)
            plan.replies.append(message.reply_to)
            if prev_session not in plan.sessions:
                plan.sessions.append(prev_session)
        return plan

    def _rewritten(self, namespace: str, chat: str, message: ChatMessage, when: datetime, texts: set) -> int | None:
        """The stored turn an edited message without the app's id is a new text of: the one turn its
        sender sent at its time (as written) whose text this export no longer has. A tombstone too:
        the edit of a message deleted or forgotten is then not applied (corrections.py), never
        stored as a message of its own."""
        if message.message_id or not message.edited or message.ts.tzinfo is not None:
            return None
        earlier = [
            (seq, text)
            for seq, text in self.tables.said_at(namespace, chat, format_time(when), message.sender)
            if (message.ts, message.sender, text) not in texts
        ]
        return earlier[0][0] if len(earlier) == 1 else None

    def _continued_chat(
        self, namespace: str, channel: str, chat: str, earlier_ids: list[str], stamped: list, counted: list[int]
    ) -> str:
        """``chat``, or the earlier id this chat was stored under when that one holds these very
        messages (so a chat imported before chats were known by their content goes on as one), or,
        for a chat known by its content, another such chat of the channel that already holds its
        oldest messages: a WhatsApp export keeps only a long chat's newest 40,000 messages (10,000
        with media), so a later one opens with other messages than the first did."""
        if self.tables.chat(namespace, chat) is not None:
            return chat
        for earlier in earlier_ids:
            if self.tables.chat(namespace, earlier) is None:
                continue
            keys = [k for (m, when), n in zip(stamped, counted) if (k := earlier_key(earlier, m, when, n))]
            keys += [message_key(earlier, m, when, n) for (m, when), n in zip(stamped, counted)]
            if self.tables.stored_keys(namespace, keys):
                return earlier
        if f"{channel}:c-" in chat:
            return self._chat_holding(namespace, channel, stamped, counted) or chat
        return chat

    def _chat_holding(self, namespace: str, channel: str, stamped: list, counted: list[int]) -> str | None:
        """The chat of ``channel`` known by its content that holds most of this batch's oldest
        messages (at least OVERLAP_FOUND of the OVERLAP_SAMPLE oldest, and half of them: one
        message sent to two chats at one minute is not the same chat), if one does."""
        sample = list(zip(stamped, counted))[:OVERLAP_SAMPLE]
        chats = self.tables.chats_known_by_content(namespace, channel)
        chat_of = {message_key(other, m, when, n): other for other in chats for (m, when), n in sample}
        held = Counter(chat_of[key] for key in self.tables.stored_keys(namespace, list(chat_of)))
        # A message the export marks edited holds other words than its stored turn: it is held when
        # that chat has a turn of its sender at its time (an edit among a short chat's few opening
        # messages made its later export another chat, every message stored twice).
        for (m, when), _ in sample:
            if m.edited and not m.message_id and m.ts.tzinfo is None:
                held.update(c for c in chats if self.tables.said_at(namespace, c, format_time(when), m.sender))
        if not held:
            return None
        best, found = held.most_common(1)[0]
        return best if found >= min(OVERLAP_FOUND, len(sample)) and 2 * found >= len(sample) else None

    def _claim_user(self, namespace: str, channel: str, owner: str, messages: list[ChatMessage]) -> list[dict]:
        """``owner``'s account becomes the user's, and an account of the batch that an earlier
        import wrongly gave the user becomes a person of its own: a re-import with the right
        ``--me`` corrects the one before it. What moved, for the import's report."""
        moved = []
        for account, name in dict.fromkeys((m.sender_id or m.sender, m.sender) for m in messages if not m.by_assistant):
            person = self.tables.account(namespace, channel, account)
            is_owner = owner in (account, name)
            if person is None or (person == USER) == is_owner:
                continue
            target = USER if is_owner else self._person_again(namespace, name)
            turns = self.tables.repoint_account(namespace, channel, account, name, person, target)
            if is_owner and not self.tables.has_accounts(namespace, person):
                # Someone a wrong --me had made of the user, or the user a person before: was the user
                # all along (found as them, not as an empty namesake), and comes back if moved off again.
                self.tables.set_merged_into(namespace, person, USER)
            moved.append({"account": account, "name": name, "was": person, "now": target, "turns": turns})
        return moved

    def _person_again(self, namespace: str, name: str) -> str:
        """The person an account moved off the user becomes: the one it was before it moved to the
        user (merged into the user since, by that name), or a new one."""
        for person, said in self.tables.merged_into_named(namespace, USER):
            if fold(said) == fold(name):
                self.tables.set_merged_into(namespace, person, None)
                return person
        return self.people.create(namespace, name)

    def record(self, namespace: str, plan: IngestPlan, seqs: list[int]) -> None:
        """The stored turns' keys; and the turn each reply answers, found among what was stored
        before and this batch (by the app's id of the message it replies to)."""
        self.tables.add_keys(namespace, list(zip(plan.keys, seqs)) + [(key, seq) for seq, _, key in plan.rewrites])
        if any(plan.replies):
            self._link_replies(namespace, plan, seqs)

    def _link_replies(self, namespace: str, plan: IngestPlan, seqs: list[int]) -> None:
        wanted = {seq: id_key(plan.chat, to) for seq, to in zip(seqs, plan.replies) if to}
        here = dict(zip(plan.keys, seqs))
        stored = self.tables.stored_keys(namespace, sorted(set(wanted.values()) - set(here)))
        pairs = []
        for seq, key in wanted.items():
            target = here.get(key) or (stored[key][0] if key in stored else None)
            if target is not None and target != seq:
                pairs.append((seq, target))
        self.tables.link_replies(pairs)

    def _turn(
        self,
        namespace: str,
        channel: str,
        chat: str,
        audience: str,
        message: ChatMessage,
        when: datetime,
        session: str,
        owner: str | None,
        plan: IngestPlan,
        zone: tzinfo,
    ) -> dict[str, Any]:
        person = None
        if not message.by_assistant:  # an assistant in an export is not a person the agent knows
            account = message.sender_id or message.sender
            person = plan.accounts.get(account)
            if person is None:  # an account's person is looked up once a batch, not once a message
                is_user = owner is not None and owner in (message.sender_id, message.sender)
                person = plan.accounts[account] = self.people.resolve(
                    namespace, channel, account, message.sender, is_user=is_user
                )
            plan.people[message.sender] = person
        content = message.text
        if message.forwarded_from:
            content = forwarded(message.forwarded_from, content)
        return {
            "session": session,
            "role": "assistant" if message.by_assistant else "user",
            "speaker": message.sender,
            "content": content,
            "ts": format_time(when),
            # The clock it was written by: its relative dates ("morgen" at 00:30) are of that day.
            "utc_offset": _minutes_east(_as_written(message, zone)),
            "chat": chat,
            "person": person,
            "audience": audience,
        }

    def _chat_row(self, namespace: str, channel: str, chat: str, title: str | None, kind: ChatKind) -> str:
        """The chat's row, made or brought up to date; its title (the known one when none is given)."""
        known = self.tables.chat(namespace, chat)
        title = title or (known["title"] if known else chat)
        if known is None:
            self.tables.add_chat(
                {
                    "namespace": namespace,
                    "chat": chat,
                    "channel": channel,
                    "title": title,
                    "kind": kind,
                    "created": format_time(self.clock.now()),
                }
            )
        elif _file_copy_of(known["title"], title):  # "Ana (1)", "Ana (later)": the file was renamed, not the chat
            title = known["title"]
            if known["kind"] != kind:
                self.tables.update_chat(namespace, chat, title, kind)
        elif (known["title"], known["kind"]) != (title, kind):  # a renamed group, a DM that became one
            self.tables.update_chat(namespace, chat, title, kind)
        return title


def _as_written(message: ChatMessage, zone: tzinfo) -> datetime:
    """The message's time on the clock it was written by: its own offset, else the import's zone."""
    return message.ts if message.ts.tzinfo else message.ts.replace(tzinfo=zone)


def _minutes_east(local: datetime) -> int:
    offset = local.utcoffset()
    return int(offset.total_seconds() // 60) if offset is not None else 0
