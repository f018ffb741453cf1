"""ChannelService: chat messages in (imports and live webhooks alike), people and raw turns out.

    service.ingest(IngestParams(channel="whatsapp", chat_id="whatsapp:Ana", title="Ana",
                                kind="private", messages=[...], owner="Carla"))

Every method runs on the store thread. A batch is one transaction: the chat and new people, the turns (through the
conversations' own append), and the messages' keys. So a batch is stored whole or not at all, and
re-sending it, or an import killed half-way and run again, stores nothing twice. The Observer is
queued afterwards for every session the batch made due; it runs on the compaction worker.
"""

from __future__ import annotations

import json
from collections import Counter
from datetime import timedelta, timezone
from functools import partial
from typing import Any, Callable

from agentmemd.daemon.services.sessions import by_name
from agentmemd.memory.channels.corrections import Corrections, TurnEdit, with_known_names
from agentmemd.memory.channels.ingest import ChatIngest
from agentmemd.memory.channels.people import People
from agentmemd.memory.conversation.compaction import CompactionWorker
from agentmemd.memory.conversation.conversations import Conversations
from agentmemd.memory.conversation.episodes import EpisodeWorker
from agentmemd.memory.core.chats import ChatMessage
from agentmemd.memory.core.clock import Clock, format_time, zone_named
from agentmemd.memory.core.config import Config
from agentmemd.memory.core.disclosure import chat_audience, heard, may_hear
from agentmemd.memory.core.errors import NotFound
from agentmemd.memory.core.models import (
    ChannelDeleteParams,
    ChannelEditParams,
    ChatsListParams,
    IngestParams,
    PendingParams,
    PeopleMergeParams,
    PersonParams,
    TurnSearchParams,
)
from agentmemd.memory.core.sessions import session_key
from agentmemd.memory.core.threads import RunOnStore, run_here, yield_to_requests
from agentmemd.memory.llm.tasks import ImpressionResult
from agentmemd.memory.retrieval.lineage import stay_forgotten
from agentmemd.memory.store.channel_tables import USER, ChannelTables
from agentmemd.memory.store.database import Store
from agentmemd.persona.impressions.impressions import (
    TURNS_READ,
    build_impression,
    from_model,
    masked_impression,
    merge_impressions,
    render_impression,
    without_secrets,
)

PEOPLE_SHOWN = 6  # impressions in one context's prefix
# (name, current impression as text, the memories of them, namespace) -> the model's impression
Describe = Callable[[str, str, list[str], str], ImpressionResult]


def _retimed(shifts: list[timedelta], messages: list, zone) -> dict[str, Any] | None:
    """The zone offsets of an earlier reading of these naive times and of this one, when they differ."""
    if not shifts:
        return None
    first = next(m.ts for m in messages if m.ts.tzinfo is None)
    this = first.replace(tzinfo=zone).utcoffset() or timedelta(0)
    shift = Counter(shifts).most_common(1)[0][0]  # stored instant - this reading = this offset - earlier offset
    return {"messages": len(shifts), "earlier_offset": _offset(this - shift), "this_offset": _offset(this)}


def _offset(delta: timedelta) -> str:
    minutes = int(delta.total_seconds() // 60)
    sign = "+" if minutes >= 0 else "-"
    return f"UTC{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


def zone_name(zone) -> str:
    """The IANA name of a zone ("Europe/Madrid"), as a person names it."""
    return getattr(zone, "key", None) or str(zone)


class _TakenBack(Exception):
    """Leaves a dry run's transaction, which rolls its writes back, with what it found (an import's
    plan, a merge's answer)."""

    def __init__(self, found: Any):
        super().__init__("a dry run takes its writes back")
        self.found = found


class ChannelService:
    episodes: EpisodeWorker | None = None  # the composition root's, for ``pending``

    def __init__(
        self,
        store: Store,
        conversations: Conversations,
        worker: CompactionWorker,
        config: Config,
        clock: Clock,
        run_on_store: RunOnStore = run_here,
        describe: Describe | None = None,
    ):
        self.store = store
        self.conversations = conversations
        self.worker = worker
        self.config = config.channels
        self.run_on_store = run_on_store
        self.describe = describe  # the anthropic provider's impression (seed 004); None: extractive only
        self.clock = clock
        self.tables = ChannelTables(store)
        self.people = People(self.tables, clock)
        self.ingest_ = ChatIngest(
            self.tables, self.people, clock, timedelta(minutes=config.channels.session_gap_minutes)
        )
        self.corrections = Corrections(
            conversations.memories, self.tables, config.conversation.episode_context_turns, run_on_store
        )

    @by_name
    def ingest(self, p: IngestParams) -> dict[str, Any]:
        """Store a batch of one chat's messages; what was added, what was already there. Runs beside
        the store thread: a stored message the export marks edited or deleted (an export downloaded
        after the one imported before) is corrected as channels.edit and .delete correct it, which
        embed off the store thread."""
        zone = zone_named(p.tz if p.tz is not None else self.config.timezone)
        if not p.messages:  # deletions alone, as a bridge reports them
            corrected: list[dict[str, Any]] = []
            deleted = 0 if p.dry_run else self._apply_deletions(p, corrected)
            self._refresh_after(corrected)
            audience = chat_audience(p.channel, p.kind, p.chat_id)
            return {"chat": p.chat_id, "audience": audience, "added": 0, "duplicates": 0, "sessions": [],
                    "people": {}, "observing": [], "deleted": deleted, "dry_run": p.dry_run}  # fmt: skip
        if p.dry_run:
            preview = self.run_on_store(partial(self._preview_batch, p, zone))
            return {**preview, "zone": zone_name(zone), "heard_by_user": self._heard_by_user(preview["audience"])}
        result, requests, edited, rewrites = self.run_on_store(partial(self._store_batch, p, zone))
        result["zone"] = zone_name(zone)
        result["heard_by_user"] = self._heard_by_user(result["audience"])
        corrected = []
        # A deletion or an edit that came before its message (a platform's retry out of order):
        # applied now, before any Observer run reads the message as it was sent.
        ids = [m.message_id for m in p.messages if m.message_id]
        early = self.run_on_store(lambda: self.corrections.early(p.namespace, p.chat_id, ids)) if ids else {}
        applied = self.corrections.apply_early(p.channel, p.chat_id, p.namespace, early) if early else []
        for session, force in requests:
            self.worker.request(session, force=force)
        result["edited"] = self._apply_edits(p, edited, corrected) + self._apply_rewrites(p, zone, rewrites, corrected)
        result["edited"] += sum(_tally(done, "edited", corrected) for done in applied)
        result["deleted"] = self._apply_deletions(p, corrected) + sum(
            _tally(done, "deleted", corrected) for done in applied
        )
        self._refresh_after(corrected)
        return result

    def _apply_edits(self, p: IngestParams, edited: list[ChatMessage], corrected: list[dict[str, Any]]) -> int:
        done = 0
        for message in edited:
            assert message.message_id is not None  # the plan lists only messages with the app's id
            when = message.edited_at or message.ts  # with no edit time, one before any later live edit
            params = ChannelEditParams(
                channel=p.channel,
                chat_id=p.chat_id,
                message_id=message.message_id,
                text=message.text,
                edited_at=when if when.tzinfo else when.replace(tzinfo=timezone.utc),
                namespace=p.namespace,
            )
            done += _tally(self.corrections.edit(params), "edited", corrected)
        return done

    def _apply_rewrites(self, p: IngestParams, zone, rewrites: list, corrected: list[dict[str, Any]]) -> int:
        """Stored turns an export without ids marks edited (same sender, same time): edited as
        channels.edit edits, dated at the message's time (the export gives no edit time)."""
        done = 0
        for seq, message, _ in rewrites:
            when = message.ts if message.ts.tzinfo else message.ts.replace(tzinfo=zone)
            done += _tally(
                self.corrections.edit(TurnEdit(p.namespace, p.chat_id, seq, message.text, when)), "edited", corrected
            )
        return done

    def _apply_deletions(self, p: IngestParams, corrected: list[dict[str, Any]]) -> int:
        done = 0
        for message_id in p.deleted:
            params = ChannelDeleteParams(
                channel=p.channel, chat_id=p.chat_id, message_id=message_id, deleted_at=self.clock.now(),
                namespace=p.namespace,
            )  # fmt: skip
            done += _tally(self.corrections.delete(params), "deleted", corrected)
        return done

    def _preview_batch(self, p: IngestParams, zone) -> dict[str, Any]:
        """What the batch would store, planned as an import plans it and then taken back: which
        messages are new and which are already stored (a later export's overlap)."""
        try:
            with self.store.transaction():
                plan = self._plan(p, zone)
                raise _TakenBack(plan)
        except _TakenBack as back:
            plan = back.found
        return {
            "chat": plan.chat,
            "audience": chat_audience(p.channel, p.kind, plan.chat),
            "added": len(plan.turns),
            "duplicates": plan.duplicates,
            "sessions": [],
            "people": {},
            "observing": [],
            "edited": len(plan.edited) + len(plan.rewrites),
            "dry_run": True,
        }

    def _heard_by_user(self, audience: str) -> bool:
        """Whether the user's own conversations hear what is said in a chat of this audience."""
        return may_hear(USER, audience, self.config)

    def _plan(self, p: IngestParams, zone):
        return self.ingest_.plan(
            p.namespace,
            p.channel,
            p.chat_id,
            p.title,
            p.kind,
            with_known_names(self.tables, p.namespace, p.channel, p.messages),
            owner=p.owner,
            zone=zone,
            earlier_ids=p.earlier_ids,
        )

    def _store_batch(
        self, p: IngestParams, zone
    ) -> tuple[dict[str, Any], list[tuple[str, bool]], list[ChatMessage], list[tuple[int, ChatMessage, str]]]:
        """What the batch stored, the Observer runs it calls for (session, observe it whole), the
        stored messages it holds marked edited, and the stored turns it rewrites (no ids)."""
        with self.store.transaction():
            plan = self._plan(p, zone)
            seqs = self.conversations.append_many(p.namespace, plan.turns) if plan.turns else []
            self.ingest_.record(p.namespace, plan, seqs)
            contents = [t["content"] for t in plan.turns]
            forgotten = stay_forgotten(self.store, p.namespace, seqs, contents, format_time(self.clock.now()))
        added = {t["session"] for t in plan.turns}
        # A session over the Observer's threshold is due as any conversation's is; a finished one
        # (the chat went on after a gap) is observed whole, as nothing more will join it.
        due = [s for s in plan.sessions if s in added and self.conversations.due(s)]
        finished = self.tables.finished_unobserved(p.namespace, plan.chat) if self.config.observe_finished else []
        requests = [(s, False) for s in due] + [(s, True) for s in finished if s not in due]
        result = {
            "chat": plan.chat,
            "audience": chat_audience(p.channel, p.kind, plan.chat),
            "added": len(plan.turns),
            "duplicates": plan.duplicates,
            "forgotten": forgotten,  # messages whose words were forgotten before: stored as tombstones
            "sessions": plan.sessions,
            "people": plan.people,
            "observing": [s for s, _ in requests],
            "retimed": _retimed(plan.retimed, p.messages, zone),
            "remapped": plan.remapped,
        }
        return result, requests, plan.edited, plan.rewrites

    def edit(self, p: ChannelEditParams) -> dict[str, Any]:
        """A stored message its sender edited (beside the store thread: it embeds the new text);
        the sender's impression is rebuilt from what the message says now."""
        done = self.corrections.edit(p)
        self._refresh_after([done] if done["status"] == "edited" else [])
        return done

    def delete(self, p: ChannelDeleteParams) -> dict[str, Any]:
        """A stored message its sender deleted: a tombstone, what was made only from it forgotten,
        and the sender's impression rebuilt from what remains."""
        done = self.corrections.delete(p)
        self._refresh_after([done] if done["status"] == "deleted" else [])
        return done

    def _refresh_after(self, corrected: list[dict[str, Any]]) -> None:
        """The impressions of the people who spoke in the corrected messages' sessions, rebuilt
        once each: they quoted what the messages said before."""
        if corrected:
            turns = self.run_on_store(lambda: self.corrections.lineage.turns([a["turn"] for a in corrected]))
            self.refresh_impressions(*sorted({t["session"] for t in turns}))

    def chats(self, p: ChatsListParams) -> dict[str, Any]:
        return {"chats": self.tables.chats(p.namespace)}

    def pending(self, p: PendingParams) -> dict[str, Any]:
        """How many turns (of the namespace, or of an import's sessions) a search cannot find yet,
        and whether the episode worker is on them: an import waits on this until they are searchable."""
        assert self.episodes is not None, "the composition root gives the channel service its episode worker"
        sessions = None if p.sessions is None else [session_key(p.namespace, s) for s in p.sessions]
        return {
            "pending": self.episodes.unsearchable(p.namespace, sessions),
            "indexing": self.episodes.working(),
            "episodes": self.episodes.cfg.episodes,
        }

    def people_list(self, p: ChatsListParams) -> dict[str, Any]:
        return {"people": self.people.list(p.namespace)}

    def person(self, p: PersonParams) -> dict[str, Any]:
        """A person, with the impressions of them the caller's audience may hear (all, for none).
        For an audience: only the chats it may hear, their messages and accounts; someone it never
        heard is not found, and no name it did not hear is offered as a near one."""
        found = self._heard_person(p.namespace, p.person, p.audience)
        found["impressions"] = self._heard_impressions(p.namespace, found["id"], p.audience)
        if p.audience is None:
            return found
        chats = [c for c in found["chats"] if self._hears_chat(p.audience, c)]
        if not chats and not found["impressions"] and found["id"] != USER:
            raise self._not_heard(p.namespace, p.person)
        channels = {c["channel"] for c in chats}
        return {
            **found,
            "chats": chats,
            "accounts": [a for a in found["accounts"] if a["channel"] in channels],
            "messages": sum(c["messages"] for c in chats),
            "first_seen": min((c["first_seen"] for c in chats), default=None),
            "last_seen": max((c["last_seen"] for c in chats), default=None),
        }

    def _heard_person(self, namespace: str, person: str, listener: str | None) -> dict[str, Any]:
        """people.get; for a listener, a NotFound that names no one it may not have heard."""
        try:
            return self.people.get(namespace, person)
        except NotFound:
            if listener is None:
                raise
            raise self._not_heard(namespace, person) from None

    @staticmethod
    def _not_heard(namespace: str, person: str) -> NotFound:
        return NotFound(f"no person {person!r} in namespace {namespace!r} (by id or by name)", {"person": person})

    def _hears_chat(self, listener: str, chat: dict[str, Any]) -> bool:
        return may_hear(listener, chat_audience(chat["channel"], chat["kind"], chat["chat"]), self.config)

    def _heard_impressions(self, namespace: str, person: str, listener: str | None) -> list[dict[str, Any]]:
        """The stored impressions of ``person`` a conversation of audience ``listener`` may hear, parsed."""
        return [
            {**row, "content": masked_impression(json.loads(row["content"]))}
            for row in self.tables.impressions(namespace, person)
            if may_hear(listener, row["audience"], self.config)
        ]

    # ---- impressions (seed 004, B.2) ---------------------------------------------------------

    def refresh_impressions(self, *sessions: str) -> int:
        """Rebuild the impression of everyone who spoke in these sessions, once each, from what was
        said in their audience (the compaction worker calls it after Observer runs, on its thread:
        a model writing impressions never holds the store); how many were rebuilt."""
        inputs = self.run_on_store(lambda: self._impression_inputs(sessions))
        built = []
        for namespace, person, audience, name, observations, turns, said_by_others, others, place, current in inputs:
            yield_to_requests()  # each is ~50 ms of Python on the compaction worker's thread
            observations, turns, said_by_others = without_secrets(observations, turns, said_by_others)
            impression = build_impression(name, observations, turns, others, place, said_by_others)
            if self.describe is not None and observations:
                memories = [o["content"] for o in observations[:60]]
                result = self.describe(name, current, memories, namespace)
                impression = from_model(impression, result, [o["id"] for o in observations[:60]])
            built.append((namespace, person, audience, json.dumps(impression)))

        def store() -> None:
            with self.store.transaction():
                for namespace, person, audience, content in built:
                    self.tables.put_impression(namespace, person, audience, content, format_time(self.clock.now()))

        self.run_on_store(store)
        return len(built)

    def _impression_inputs(self, sessions: tuple[str, ...]) -> list[tuple]:
        """What each person's impression is built from, read once per person and audience however
        many of the sessions they spoke in (the newest session's chat is the place)."""
        wanted: dict[tuple[str, str, str], dict[str, Any]] = {}
        for session in sessions:
            namespace = self.conversations.namespace_of(session)
            _, chat = self.conversations.origin(session)
            if namespace is None or chat is None:
                continue
            row = self.tables.chat(namespace, chat) or {"title": chat, "kind": "private"}
            place = {
                "title": row["title"],
                "kind": row["kind"],
                "user_present": self.tables.user_spoke_in(namespace, chat),
            }
            for person, audience in self.tables.session_people(session):
                known = self.people.get(namespace, person)
                # Named as they go by where the impression is heard: a surname known only from a
                # private chat (or another app's account) is not the group's to hear.
                name = self.tables.name_in(namespace, known["id"], audience) or known["name"]
                wanted[(namespace, known["id"], audience)] = {"name": name, "place": place}
        others_in: dict[str, dict[str, str]] = {}
        inputs = []
        for (namespace, person, audience), seen in wanted.items():
            if namespace not in others_in:  # one reading a namespace, not one a person
                others_in[namespace] = self.tables.known_names(namespace)
            others = others_in[namespace]
            current = next(
                (render_impression(masked_impression(json.loads(r["content"])))
                 for r in self.tables.impressions(namespace, person)
                 if r["audience"] == audience),
                "",
            )  # fmt: skip
            inputs.append(
                (
                    namespace,
                    person,
                    audience,
                    seen["name"],
                    self.tables.person_observations(namespace, person, audience),
                    self.tables.person_turns(namespace, person, audience, TURNS_READ),
                    self.tables.said_by_others(namespace, person, audience, TURNS_READ * 5),
                    others,
                    seen["place"],
                    current,
                )
            )
        return inputs

    def people_note(self, session: str, namespace: str) -> str:
        """The impressions of the people taking part in ``session`` that its audience may hear,
        for its context's stable prefix ("" when none)."""
        audience, chat = self.conversations.origin(session)
        if chat is None:
            return ""
        parts = []
        for person in dict.fromkeys(p for p, _ in self.tables.session_people(session)):
            heard = self._heard_impressions(namespace, person, audience)
            merged = merge_impressions([r["content"] for r in heard])
            if merged is not None:
                parts.append(render_impression(merged))
        return "# People in this conversation\n\n" + "\n\n".join(parts[:PEOPLE_SHOWN]) if parts else ""

    def merge(self, p: PeopleMergeParams) -> dict[str, Any]:
        """One person of two; the impressions of the one they became are rebuilt at once from every
        chat either spoke in (the merged-away one's went with it)."""

        def merge() -> dict[str, Any]:
            try:
                with self.store.transaction():
                    done = self.people.merge(p.namespace, p.person, p.into)
                    if p.dry_run:  # the same merge, its checks and its count, rolled back
                        raise _TakenBack(done)
            except _TakenBack as back:
                return {**back.found, "dry_run": True}
            return done

        done = self.run_on_store(merge)
        if done["into"] != USER and not p.dry_run:
            self.refresh_impressions(*self.run_on_store(lambda: self.tables.sessions_of(p.namespace, done["into"])))
        return done

    @by_name
    def search_turns(self, p: TurnSearchParams) -> dict[str, Any]:
        audiences = None
        if p.audience is not None:  # only what this conversation's audience may hear
            audiences = heard(p.audience, self.tables.turn_audiences(p.namespace), self.config)
        person = (
            None if p.person is None else self._heard_person(p.namespace, p.person, p.audience)["id"]
        )  # an id or a name
        rows = self.tables.search_turns(
            p.namespace, p.query, p.k, chat=p.chat, person=person, session=p.session, audiences=audiences
        )
        return {"turns": rows}


def _tally(answer: dict[str, Any], status: str, corrected: list[dict[str, Any]]) -> int:
    """1 when a correction's ``answer`` is ``status`` ("edited", "deleted"), kept in ``corrected``
    (its sender's impression is rebuilt after); else 0."""
    if answer["status"] != status:
        return 0
    corrected.append(answer)
    return 1
