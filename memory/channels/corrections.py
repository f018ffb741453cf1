"""Corrections: a chat message its sender edited or deleted after it was stored, and a live
message whose sender the app named only by an account id.

    corrections = Corrections(memories, tables, context_turns=2, run_on_store=run_on_store)
    corrections.edit(ChannelEditParams(channel="slack", chat_id="slack:C01GEN", message_id="1710234940.000200",
                                       text="Deploy moved to 15:00", edited_at=...))
    corrections.delete(ChannelDeleteParams(channel="slack", chat_id="slack:C01GEN",
                                           message_id="1710234940.000200", deleted_at=...))

A message is found by its key (memory/channels/ingest.py), so only one stored with the app's id
can be corrected; one never stored (sent before the bot was there, say) is an "unknown message"
and nothing changes. The transcript keeps one turn per message, as it was sent last:

- an edit replaces the turn's text in place, in the full-text index too. Every memory made only
  from that turn (its episode, an observation of it alone) gets a new version that says the new
  text, dated at the edit; the old version keeps the old words for memory.history, out of search.
  The turn itself keeps no earlier text: turns have no versions.
- a deletion leaves a tombstone: the turn keeps its time and speaker, its text becomes
  ``DELETED``, it leaves the full-text index and no Observer run reads it. Every memory made only
  from it is forgotten as memory.forget forgets (every version, its turn links and observations,
  the logged packs and cached model responses that hold it), with the consolidated memories built
  from any of them, and the message's words are remembered as gone, so another export of the chat
  (other keys) stores it as forgotten.

Either way a memory made from it and other turns is left as it is and listed (``kept``): what it
should say now is a judgement, not a substitution. The episodes of the next turns of its session,
indexed with a neighbourhood that quoted it, are indexed again without the old words.

The embedding runs beside the store thread; the writes are one transaction, made only if nothing
changed the turn or its memories since they were read (else it is read again). The same correction
twice changes nothing the second time ("unchanged", "already deleted"), and an edit older than the
one applied ("stale") is not applied over it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import partial
from typing import Any

import numpy as np

from agentmemd.memory.channels.ingest import message_key
from agentmemd.memory.core.chats import ChatMessage
from agentmemd.memory.core.clock import format_time, on_writers_clock, parse_time, zone_named
from agentmemd.memory.core.errors import Conflict
from agentmemd.memory.core.models import ChannelDeleteParams, ChannelEditParams, UpdateParams
from agentmemd.memory.core.text import episode_context, episode_text, speaker_shown
from agentmemd.memory.core.threads import RunOnStore, run_here
from agentmemd.memory.core.tokens import count_tokens
from agentmemd.memory.language.dates import find_dates
from agentmemd.memory.retrieval.lineage import words_of_episodes
from agentmemd.memory.retrieval.memories import Memories
from agentmemd.memory.store.channel_tables import ChannelTables
from agentmemd.memory.store.database import indexed_text
from agentmemd.memory.store.lineage_tables import LineageTables

DELETED = "(deleted)"  # a deleted message's text in the transcript


@dataclass(frozen=True)
class TurnEdit:
    """An edit of a stored turn found by its place, not by the app's id: a WhatsApp export marks a
    message edited ("<This message was edited>") with its sender and time, but gives no id."""

    namespace: str
    chat_id: str
    seq: int
    text: str
    edited_at: datetime

    @property
    def message_id(self) -> str:
        return f"turn {self.seq}"


PLAN_TRIES = 3  # reads, embedding, writes: again when the turn changed between them
KEPT_CHARS = 300


def with_known_names(
    tables: ChannelTables, namespace: str, channel: str, messages: list[ChatMessage]
) -> list[ChatMessage]:
    """``messages``, each sender the door could name only by its account id (``sender`` equal to
    ``sender_id``: a live Slack event without a user_profile) shown by the name that account is
    known by (an imported export's, say). Only messages with the app's id: their key does not
    hold the sender's name, so a message sent again is still the same message."""
    bare = sorted({m.sender_id for m in messages if m.sender_id and m.sender == m.sender_id and m.message_id})
    names = tables.account_names(namespace, channel, bare) if bare else {}
    renamed = []
    for m in messages:
        if m.message_id and m.sender == m.sender_id and m.sender in names:
            m = m.model_copy(update={"sender": names[m.sender]})
        renamed.append(m)
    return renamed


def _key(chat: str, message_id: str) -> str:
    """The stored key of the message with the app's id ``message_id`` (with an id, neither its
    time nor its text is part of the key)."""
    keyed = ChatMessage(sender="", ts=datetime(1970, 1, 1, tzinfo=timezone.utc), text="", line=0, message_id=message_id)
    return message_key(chat, keyed, keyed.ts, 0)


@dataclass
class _Plan:
    """What a correction will write, read on the store thread; ``texts`` are embedded beside it."""

    turn: dict[str, Any]
    own: list[dict[str, Any]]  # current memories made only from the turn
    kept: list[dict[str, Any]]  # made from it and other turns
    neighbours: list[dict[str, Any]] = field(default_factory=list)  # later episodes, with their new context
    texts: list[str] = field(default_factory=list)

    def key(self) -> tuple:
        """What must not have changed between the reads and the writes."""
        t = self.turn
        return (
            (t["content"], t["edited"], t["deleted"], t["episode"]),
            [(m["id"], m["turns"]) for m in self.own + self.kept],
            [(n["id"], n["context"]) for n in self.neighbours],
        )


class Corrections:
    def __init__(
        self, memories: Memories, tables: ChannelTables, context_turns: int, run_on_store: RunOnStore = run_here
    ):
        self.memories = memories
        self.store = memories.store
        self.tables = tables
        self.context_turns = context_turns  # [conversation] episode_context_turns
        self.lineage = LineageTables(memories.store)
        self.run_on_store = run_on_store
        self.zone = zone_named(memories.config.channels.timezone)  # a turn's clock where it names none

    # ---- the two corrections --------------------------------------------------------------------

    def edit(self, p: ChannelEditParams | TurnEdit) -> dict[str, Any]:
        done = self._correct(partial(self._plan_edit, p), partial(self._write_edit, p))
        if done["status"] == "unknown message" and isinstance(p, ChannelEditParams):
            self._keep_early(p.namespace, p.chat_id, p.message_id, "edited", p.text, p.edited_at)
        return done

    def delete(self, p: ChannelDeleteParams) -> dict[str, Any]:
        done = self._correct(partial(self._plan_delete, p), partial(self._write_delete, p))
        if done["status"] == "unknown message":
            self._keep_early(p.namespace, p.chat_id, p.message_id, "deleted", None, p.deleted_at)
        return done

    def _keep_early(
        self, namespace: str, chat: str, message_id: str, kind: str, text: str | None, when: datetime
    ) -> None:
        """A correction of a message not stored yet, kept for when it arrives (apply_early): a
        platform retries and does not promise order, and a deleted message must never be stored live."""

        def keep() -> None:
            with self.store.transaction():
                self.tables.remember_early(
                    namespace,
                    _key(chat, message_id),
                    kind,
                    text,
                    format_time(when),
                    format_time(self.memories.clock.now()),
                )

        self.run_on_store(keep)

    def early(self, namespace: str, chat: str, message_ids: list[str]) -> dict[str, dict[str, Any]]:
        """message id -> the correction kept for it before it arrived (on the store thread)."""
        keys = {_key(chat, m): m for m in message_ids}
        return {keys[k]: row for k, row in self.tables.early_corrections(namespace, list(keys)).items()}

    def apply_early(
        self, channel: str, chat: str, namespace: str, found: dict[str, dict[str, Any]]
    ) -> list[dict[str, Any]]:
        """The corrections kept for messages just stored, applied as they would have been (beside
        the store thread: an edit embeds), then dropped; each one's answer."""
        done = []
        for message_id, row in found.items():
            when = parse_time(row["edited_at"])
            if row["kind"] == "deleted":
                done.append(self.delete(ChannelDeleteParams(
                    channel=channel, chat_id=chat, message_id=message_id, deleted_at=when, namespace=namespace,
                )))  # fmt: skip
            else:
                done.append(self.edit(ChannelEditParams(
                    channel=channel, chat_id=chat, message_id=message_id, text=row["text"], edited_at=when,
                    namespace=namespace,
                )))  # fmt: skip

        def drop() -> None:
            with self.store.transaction():
                self.tables.drop_early(namespace, [_key(chat, m) for m in found])

        self.run_on_store(drop)
        return done

    def _correct(self, plan_it, write) -> dict[str, Any]:
        """Read on the store thread, embed beside it, write on it if nothing changed meanwhile."""
        for _ in range(PLAN_TRIES):
            plan = self.run_on_store(plan_it)
            if isinstance(plan, dict):  # nothing to write: the answer
                return plan
            vectors = self.memories.embedder.embed_passages(plan.texts) if plan.texts else []
            done = self.run_on_store(partial(self._write_unless_changed, plan_it, write, plan, vectors))
            if done is not None:
                return done
        raise Conflict("the message kept changing while it was being corrected; send the correction again")

    def _write_unless_changed(self, plan_it, write, plan: _Plan, vectors: list[np.ndarray]) -> dict[str, Any] | None:
        now = plan_it()
        if isinstance(now, dict):  # corrected meanwhile (the same edit twice at once, say)
            return now
        if now.key() != plan.key():
            return None
        return write(plan, vectors)

    # ---- edit -------------------------------------------------------------------------------------

    def _live_turn(
        self, p: ChannelEditParams | ChannelDeleteParams | TurnEdit
    ) -> tuple[dict[str, Any] | None, dict[str, Any]]:
        """The message's turn, or None with the answer to give (unknown, already deleted)."""
        if isinstance(p, TurnEdit):
            turn = self.tables.turn_at(p.namespace, p.seq)
        else:
            turn = self.tables.message_turn(p.namespace, _key(p.chat_id, p.message_id))
        answer = _answer(p.chat_id, p.message_id, turn)
        if turn is not None and turn["deleted"]:
            return None, {**answer, "status": "already deleted"}
        return turn, answer

    def _plan_edit(self, p: ChannelEditParams | TurnEdit) -> _Plan | dict[str, Any]:
        turn, answer = self._live_turn(p)
        if turn is None:
            return answer
        if turn["edited"] and turn["edited"] > format_time(p.edited_at):
            return {**answer, "status": "stale"}
        if turn["content"] == p.text:
            return {**answer, "status": "unchanged"}
        plan = self._plan(turn, p.text)
        said = episode_text(speaker_shown(turn["speaker"], turn["person"]), p.text)
        plan.texts = [indexed_text(said, m["context"]) for m in plan.own] + plan.texts  # as memory.update embeds
        return plan

    def _write_edit(self, p: ChannelEditParams | TurnEdit, plan: _Plan, vectors: list[np.ndarray]) -> dict[str, Any]:
        turn, edited = plan.turn, format_time(p.edited_at)
        said = episode_text(speaker_shown(turn["speaker"], turn["person"]), p.text)
        versions = []
        # The date the new words refer to, as the Observer reads it (on the writer's clock, when it was said).
        refs = find_dates(p.text, on_writers_clock(turn["ts"], turn.get("utc_offset"), self.zone))
        dated = (refs[0].referenced, refs[0].phrase) if refs else (None, None)
        with self.store.transaction():
            self.tables.revise_turn(turn["seq"], p.text, count_tokens(p.text), edited)
            for memory, vector in zip(plan.own, vectors):
                new = self.memories.update(
                    UpdateParams(id=memory["id"], namespace=turn["namespace"], content=said), vector=vector
                ).id
                self.tables.date_memory(new, edited)
                self.tables.repoint_observations(memory["id"], new, said, count_tokens(said), dated)
                versions.append({"id": new, "supersedes": memory["id"], "type": memory["type"]})
            self._reindex(plan, vectors[len(plan.own) :])
        return {**self._done(p.chat_id, p.message_id, plan, "edited"), "new_versions": versions}

    # ---- delete -----------------------------------------------------------------------------------

    def _plan_delete(self, p: ChannelDeleteParams) -> _Plan | dict[str, Any]:
        turn, answer = self._live_turn(p)
        return answer if turn is None else self._plan(turn, DELETED)

    def _write_delete(self, p: ChannelDeleteParams, plan: _Plan, vectors: list[np.ndarray]) -> dict[str, Any]:
        """memory.forget's removal (memory/retrieval/lineage.py) of every memory made only from the
        turn and of the consolidated memories built from any of them (a derived copy never outlives
        its sources), the tombstone, the message's words remembered as gone (another export of the
        chat does not bring it back) and the neighbours' new index entries, in one transaction."""
        history = self.memories.history
        own = {v["id"] for memory in plan.own for v in history.chain(memory["id"])}
        built_into = [chain[-1]["id"] for chain in map(history.chain, self.lineage.consolidated_from(own)) if chain]
        chains = [history.chain(memory_id) for memory_id in [m["id"] for m in plan.own] + built_into]
        versions = [v for chain in chains for v in chain]
        every = [v["id"] for v in versions]
        packs, cached = history.packs_holding(every), history.cache_entries_holding(versions, [plan.turn])
        unwritten = self.memories.pack_log.discard_holding(set(every))
        at = format_time(p.deleted_at)
        turn = plan.turn
        # The sender's impression in that chat quoted the message (rebuilt after, from what remains),
        # and every context it rode into did.
        impressions = [(turn["namespace"], turn["person"], turn["audience"])] if turn["person"] else []
        with self.store.transaction():
            history.forget({turn["namespace"]}, versions, packs, cached)
            hearing = self.lineage.sessions_hearing(impressions)
            self.lineage.drop_context_copies(sorted({turn["session"], *hearing}), packs + unwritten)
            self.lineage.delete_observations(self.lineage.observation_rows_of(every))
            self.lineage.drop_impressions(impressions)
            self.tables.tombstone_turn(turn["seq"], DELETED, count_tokens(DELETED), at)
            earlier = words_of_episodes(versions).get(turn["namespace"], [])
            self.lineage.remember_forgotten(turn["namespace"], [turn["content"], *earlier], at)
            self._reindex(plan, vectors)
        done = self._done(p.chat_id, p.message_id, plan, "deleted")
        return {**done, "forgotten": [m["id"] for m in plan.own] + built_into, "built_into": built_into}

    # ---- shared -----------------------------------------------------------------------------------

    def _plan(self, turn: dict[str, Any], content: str) -> _Plan:
        """The turn's memories, those made only from it apart, and the episodes after it indexed
        with what the turn says now (``content``) in their neighbourhood."""
        memories = self.tables.turn_memories(turn["seq"])
        plan = _Plan(
            turn=turn,
            own=[m for m in memories if m["turns"] == [turn["seq"]]],
            kept=[m for m in memories if m["turns"] != [turn["seq"]]],
        )
        if self.context_turns:
            for episode in self.tables.episodes_after(turn["session"], turn["seq"], self.context_turns):
                context = self._neighbourhood(turn, content, episode["turn"])
                if context != episode["context"]:
                    plan.neighbours.append({**episode, "new_context": context})
                    plan.texts.append(indexed_text(episode["content"], context))
        return plan

    def _neighbourhood(self, turn: dict[str, Any], content: str, seq: int) -> str | None:
        """The context the episode of turn ``seq`` is indexed with once ``turn`` says ``content``."""
        before = self.tables.said_before(turn["session"], seq, self.context_turns)
        return episode_context([(speaker, content if at == turn["seq"] else said) for at, speaker, said in before])

    def _reindex(self, plan: _Plan, vectors: list[np.ndarray]) -> None:
        for episode, vector in zip(plan.neighbours, vectors):
            self.tables.set_context(episode["seq"], episode["new_context"], vector)

    def _done(self, chat: str, message_id: str, plan: _Plan, status: str) -> dict[str, Any]:
        return {
            **_answer(chat, message_id, plan.turn),
            "status": status,
            "kept": [
                {"id": m["id"], "content": m["content"][:KEPT_CHARS], "type": m["type"], "turns": m["turns"]}
                for m in plan.kept
            ],
            "reindexed": [episode["id"] for episode in plan.neighbours],
        }


def _answer(chat: str, message_id: str, turn: dict[str, Any] | None) -> dict[str, Any]:
    if turn is None:
        return {"chat": chat, "message_id": message_id, "status": "unknown message"}
    return {"chat": chat, "message_id": message_id, "status": "unchanged", "turn": turn["seq"]}
