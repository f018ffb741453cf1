"""Conversations: durable raw turns, and the Observer and Reflector steps over them (seed 002, 5.6).

Every method here runs on the store thread (it reads or writes SQLite). The language-model
work in between (``provider.observe`` / ``provider.reflect``) runs on the compaction worker
(memory/compaction.py), so a slow model never blocks a request. A run is

    begin_*  (store thread: a 'running' run row, a snapshot of its input; committed)
    provider (worker thread)
    finish_* (store thread: every write of the run in ONE transaction, run row 'ok')

so a crash anywhere before that transaction commits leaves the turns unobserved (or the
observations unreflected) and the run 'running'; the next start marks it 'interrupted' and
does the work again.
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from agentmemd.memory.conversation.transcript import (
    IncomingTurn,
    NeedText,
    Placement,
    TranscriptMatcher,
    chain_next,
    turn_digest,
)
from agentmemd.memory.core.clock import format_time, on_writers_clock, parse_time, zone_named
from agentmemd.memory.core.config import Config
from agentmemd.memory.core.errors import Conflict, InvalidParams, NotFound
from agentmemd.memory.core.models import AddParams, UpdateParams
from agentmemd.memory.core.sessions import session_name
from agentmemd.memory.core.text import speaker_shown
from agentmemd.memory.core.tokens import count_tokens, count_tokens_many
from agentmemd.memory.llm.tasks import (
    ObservationIn,
    ObserveResult,
    ReflectResult,
    TurnIn,
)
from agentmemd.memory.retrieval.lineage import stay_forgotten
from agentmemd.memory.store.conversation_tables import ConversationTables
from agentmemd.memory.store.database import indexed_text

if TYPE_CHECKING:
    from agentmemd.memory.retrieval.memories import Memories

# Observation category -> memory type (packs and search see observations as memories).
MEMORY_TYPE = {
    "fact": "fact",
    "preference": "preference",
    "decision": "fact",
    "emotional": "fact",
    "relational": "relational",
}
MEMORY_PRIORITY = {"HIGH": 0.8, "MED": 0.5, "LOW": 0.2}
PENDING_KEPT_AFTER = timedelta(minutes=10)


def new_observation_id() -> str:
    return "o" + uuid.uuid4().hex[:15]


@dataclass
class ObserveJob:
    run_id: int
    session: str
    namespace: str
    turns: list[TurnIn]
    tokens: int  # of the turns, as counted when they were appended
    started: float = field(default_factory=time.monotonic)
    persons: dict[int, str | None] = field(default_factory=dict)  # turn seq -> the person who said it (chats)
    tool_turns: list[int] = field(default_factory=list)  # marked observed, not shown to the Observer


class ChangedWhileRead(Conflict):
    """What a model run read (the Observer's turns, the Reflector's observations) was edited or
    forgotten before its result was stored: nothing is stored, and the run is made again."""


@dataclass
class ReflectJob:
    run_id: int
    session: str
    namespace: str
    observations: list[ObservationIn]
    rows: dict[str, dict[str, Any]]
    started: float = field(default_factory=time.monotonic)


class Conversations:
    def __init__(self, memories: Memories, config: Config, provider_name: str):
        self.memories = memories
        self.store = memories.store
        self.tables = ConversationTables(memories.store)
        self.matcher = TranscriptMatcher(self.tables, lambda: format_time(self.memories.clock.now()))
        self.cfg = config.conversation
        # The clock of a turn that names none (a conversation's, an import from before m053): the
        # user's, as [channels] timezone says (unset: this machine's).
        self.zone = zone_named(config.channels.timezone)
        self.provider_name = provider_name
        # Called once turns are stored (the episode worker's wake-up); set by the composition root.
        self.on_turns_stored: Callable[[], None] = lambda: None
        # After an Observer run stores its observations (same transaction): namespace, their memory
        # ids -> progress notes on the goals they speak to (Goals.note_progress); set by the services.
        self.on_observed: Callable[[str, list[str]], Any] | None = None

    # ---- turns -----------------------------------------------------------------------

    def append(
        self,
        session: str,
        role: str,
        content: str,
        *,
        ts=None,
        namespace: str = "default",
        speaker: str | None = None,
        pending: bool = False,
    ) -> dict[str, Any]:
        self.claim(session, namespace)
        with self.store.transaction():
            seq = self._add_turn(session, namespace, role, content, ts=ts, speaker=speaker, pending=pending)
            stay_forgotten(self.store, namespace, [seq], [content], format_time(self.memories.clock.now()))
        self.on_turns_stored()
        return {"seq": seq, **self.counts(session)}

    def _add_turn(
        self, session, namespace, role, content, *, ts=None, speaker=None, pending=False, after=None, origin=None
    ) -> int:
        """One turn, with its digest and the conversation's chain up to it (inside a transaction);
        ``after``: the chain of the turn before it, and ``origin`` the session's (audience, chat),
        when the caller knows them (a sync adds many turns to one session)."""
        digest = turn_digest(role, content)
        chain = chain_next(after or self.matcher.head_chain(session, namespace), digest)
        when = format_time(ts) if ts is not None else format_time(self.memories.clock.now())
        # A turn added to a chat's session is of that chat, heard by its audience only, as the
        # chat's imported or received messages are (filed as the user's own, Leo's private words
        # reached the user's conversations); its speaker is the person who spoke so there before.
        audience, chat = origin or self.tables.origin(session)
        spoken = speaker or role.capitalize()
        person = self.tables.person_speaking(namespace, chat, spoken) if chat is not None else None
        row = {
            "session": session,
            "namespace": namespace,
            "role": role,
            "speaker": spoken,
            "content": content,
            "ts": when,
            "tokens": count_tokens(content),
            "digest": digest,
            "chain": chain,
            "pending": int(pending),
            "audience": audience,
            "chat": chat,
            "person": person,
        }
        return self.tables.add_turn(row)

    def sync(
        self,
        namespace: str,
        name: str | None,
        turns: list[IncomingTurn],
        *,
        pending: bool = False,
        forked_from: str | None = None,
    ) -> tuple[Placement, list[int]]:
        """Store what an app's history adds to the stored transcript, matched by content: where it
        stands (the branch it continues, forked where it diverged) and the seqs of the turns
        appended. Turns sent as digests only must already be stored (else NeedText).
        ``forked_from``: the session a new named one was forked from (it inherits what they share)."""
        if name is not None:
            self.claim(name, namespace)
        with self.store.transaction():
            placement = self.matcher.place(namespace, name, turns, forked_from)
            fresh = turns[placement.new_from :]
            missing = [placement.new_from + i for i, t in enumerate(fresh) if t.text is None]
            if missing:
                raise NeedText(missing)
            chain, seqs = self.matcher.head_chain(placement.session, namespace), []
            origin = self.tables.origin(placement.session)
            for turn in fresh:
                seqs.append(
                    self._add_turn(
                        placement.session,
                        namespace,
                        turn.role,
                        turn.text,
                        speaker=turn.speaker,
                        pending=pending,
                        after=chain,
                        origin=origin,
                    )
                )
                chain = chain_next(chain, turn.digest)
            # Words forgotten before, said again (in another conversation too): a tombstone at once.
            stay_forgotten(
                self.store, namespace, seqs, [t.text or "" for t in fresh], format_time(self.memories.clock.now())
            )
            confirmed = 0 if pending else self.tables.confirm(placement.session)
        if seqs or confirmed:
            self.on_turns_stored()
        return placement, seqs

    def history_upto(self, session: str, namespace: str, upto: int) -> tuple[str | None, list[IncomingTurn]]:
        """The history an app sent that ended at turn ``upto`` of the session's transcript, as
        digests (what the app would send again), and the name to sync it under (None: a
        conversation found by its content). NotFound when the turn is not in the transcript."""
        self.require(session, namespace)
        turns = [t for t in self.tables.transcript(session) if t["seq"] <= upto]
        if not turns or turns[-1]["seq"] != upto:
            raise NotFound(f"turn {upto} is not in the transcript of conversation {session_name(session)!r}")
        branch = self.tables.branch(session)
        name = session if branch is not None and branch["family"] else None
        return name, [IncomingTurn(t["role"], None, t["digest"]) for t in turns]

    def retract(self, session: str, namespace: str, seqs: list[int]) -> int:
        """Take back pending turns a refused model call stored (still the session's newest)."""
        self.require(session, namespace)
        with self.store.transaction():
            return self.tables.retract(session, seqs)

    def transcript(self, session: str) -> list[dict[str, Any]]:
        return self.tables.transcript(session)

    def append_many(self, namespace: str, turns: list[dict[str, Any]]) -> list[int]:
        """Store turns of one or more sessions in one transaction (a chat import's batch); their seqs.

        Each turn has session, role, speaker, content, ts, and may have chat and person. No
        SyncScore is queued: an imported assistant is not this agent speaking."""
        for session in dict.fromkeys(t["session"] for t in turns):
            self.claim(session, namespace)
        rows = [
            {"chat": None, "person": None, **turn, "namespace": namespace, "tokens": count_tokens(turn["content"])}
            for turn in turns
        ]
        with self.store.transaction():
            seqs = self.tables.add_turns(rows)
        self.on_turns_stored()
        return seqs

    def claim(self, session: str, namespace: str) -> None:
        """Conflict unless ``session`` is new or already one of ``namespace``'s conversations."""
        known = self.namespace_of(session)
        if known is not None and known != namespace:
            # Session ids are unique across the daemon; saying whose it is would leak a namespace.
            raise Conflict(
                f"session id {session!r} is taken by a conversation outside namespace {namespace!r}; "
                "session ids are unique across the daemon: choose another",
                {"session": session},
            )

    def namespace_of(self, session: str) -> str | None:
        return self.tables.namespace_of(session)

    def origin(self, session: str) -> tuple[str, str | None]:
        """(audience, chat) of the session: who may hear what is said in it, and the chat it is part of."""
        return self.tables.origin(session)

    def require(self, session: str, namespace: str) -> str:
        """``namespace`` when ``session`` is one of its conversations; else NotFound, the same
        words whether the session does not exist or belongs to another namespace."""
        if self.namespace_of(session) != namespace:
            named = session_name(session)  # the caller's name, never the store's NAME|NAMESPACE key
            raise NotFound(
                f"no conversation with session {named!r} in namespace {namespace!r}",
                {"session": named, "namespace": namespace},
            )
        return namespace

    def counts(self, session: str) -> dict[str, Any]:
        turns, observed, unobserved_tokens, reflected = self.tables.turn_counts(session)
        return {
            "turns": turns,
            "observed": observed,
            "reflected": reflected,
            "unobserved_tokens": unobserved_tokens,
            "observation_tokens": self.live_tokens(session),
        }

    def live_tokens(self, session: str) -> int:
        return self.tables.live_tokens(session)

    def unobserved(self, session: str) -> list[dict[str, Any]]:
        return self.tables.unobserved(session)

    def recent(self, session: str, count: int) -> list[dict[str, Any]]:
        """The newest ``count`` turns, observed or not, oldest first."""
        return self.tables.recent(session, count)

    def last_seq(self, session: str) -> int | None:
        return self.tables.last_seq(session)

    def due(self, session: str) -> bool:
        c = self.counts(session)
        return (
            c["unobserved_tokens"] > self.cfg.observer_threshold_tokens
            or c["observation_tokens"] > self.cfg.reflector_threshold_tokens
        )

    # ---- runs ------------------------------------------------------------------------

    def _start_run(self, session: str, kind: str, trigger: str) -> int:
        with self.store.transaction():
            return self.tables.start_run(
                session, kind, trigger, self.provider_name, format_time(self.memories.clock.now())
            )

    def _finish_run(self, run_id: int, started: float, **counts: int) -> None:
        self.tables.finish_run(
            run_id, format_time(self.memories.clock.now()), (time.monotonic() - started) * 1000, **counts
        )

    def fail_run(self, run_id: int, error: str) -> None:
        with self.store.transaction():
            self.tables.fail_run(run_id, format_time(self.memories.clock.now()), error[:2000])

    def recover(self) -> list[str]:
        """At start: runs a crash left 'running' become 'interrupted'; the sessions whose work is due again."""
        with self.store.transaction():
            self.tables.interrupt_running(format_time(self.memories.clock.now()))
            # Turns a door stored for a call whose answer never came back (the door stopped): what
            # the app sent, kept as said.
            self.tables.confirm_older_than(format_time(self.memories.clock.now() - PENDING_KEPT_AFTER))
        return [s for s in self.tables.sessions() if self.due(s)]

    def runs(self, session: str | None = None, limit: int = 50) -> list[dict[str, Any]]:
        return self.tables.runs(session, limit)

    # ---- Observer ----------------------------------------------------------------------

    def begin_observe(self, session: str, *, force: bool = False) -> ObserveJob | None:
        """The oldest unobserved turns (at most observer_batch_tokens), or None when nothing is due.

        Not forced: only when unobserved tokens exceed the threshold, and the newest
        ``keep_recent_turns`` stay raw. Forced: every unobserved turn."""
        namespace = self.namespace_of(session)
        if namespace is None:
            return None
        pending = self.unobserved(session)
        if not force:
            if sum(t["tokens"] for t in pending) <= self.cfg.observer_threshold_tokens:
                return None
            pending = pending[: max(0, len(pending) - self.cfg.keep_recent_turns)]
        batch, total = [], 0
        for turn in pending:
            if batch and total + turn["tokens"] > self.cfg.observer_batch_tokens:
                break
            batch.append(turn)
            total += turn["tokens"]
        if not batch:
            return None
        run_id = self._start_run(session, "observe", "forced" if force else "threshold")
        # A tool's output is marked observed with the batch but never shown to the Observer: what
        # a web page or a file says is not a fact about the user.
        turns = [
            TurnIn(
                seq=t["seq"],
                role=t["role"],
                speaker=speaker_shown(t["speaker"], t["person"]),
                content=t["content"],
                ts=self._as_said(t),
            )
            for t in batch
            if t["role"] != "tool"
        ]
        return ObserveJob(
            run_id,
            session,
            namespace,
            turns,
            total,
            persons={t["seq"]: t["person"] for t in batch},
            tool_turns=[t["seq"] for t in batch if t["role"] == "tool"],
        )

    def _as_said(self, turn: dict[str, Any]) -> str:
        """The turn's time on the clock of whoever wrote it (ISO with its offset): a relative date
        in it ("tomorrow" at 00:30 in Berlin) is of that day, not of the UTC day."""
        return on_writers_clock(turn["ts"], turn.get("utc_offset"), self.zone).isoformat()

    def embed_observations(self, job: ObserveJob, result: ObserveResult) -> list[np.ndarray]:
        """The observations' memory vectors, computed off the store thread (no SQLite here), so
        the run's one transaction does not hold up requests while the model embeds."""
        context = {t.seq: t.content for t in job.turns}
        texts = [
            indexed_text(d.content, context.get(d.source_turns[0], "")[:20_000] or None) for d in result.observations
        ]
        return self.memories.embedder.embed_passages(texts) if texts else []

    def finish_observe(
        self,
        job: ObserveJob,
        result: ObserveResult,
        vectors: list[np.ndarray] | None = None,
        also: Callable[[], Any] | None = None,
    ) -> dict[str, int]:
        """Store the run's observations in one transaction; ``also`` (the persona track's merge)
        runs inside it, so a crash leaves neither or both."""
        seqs = {t.seq for t in job.turns}
        when = {t.seq: format_time(parse_time(t.ts)) for t in job.turns}  # stored in UTC
        context = {t.seq: t.content for t in job.turns}
        drafts = []
        for d in result.observations:
            unknown = sorted(set(d.source_turns) - seqs)
            if unknown:  # a model citing turns it was not shown: refuse the run, store nothing
                raise InvalidParams("observations", f"an observation cites turns {unknown} outside the batch")
            drafts.append(d)
        tokens = count_tokens_many([d.content for d in drafts])
        audience, chat = self.tables.origin(job.session)
        with self.store.transaction():
            now = self.tables.contents(sorted(seqs))
            if any(now.get(t.seq) != t.content for t in job.turns):
                # Edited while the model read it (channels.edit, a later export): what it observed
                # was said otherwise. Nothing is stored; the turns are observed again as they are now.
                raise ChangedWhileRead(f"turns of session {job.session!r} were edited while the Observer read them")
            marked = self.tables.mark_observed(sorted(seqs | set(job.tool_turns)), job.run_id)
            if marked != len(seqs | set(job.tool_turns)):
                raise Conflict(f"turns of session {job.session!r} were observed by another run")
            memory_ids = (
                self.memories.add_many(
                    [
                        AddParams(
                            content=d.content,
                            type=MEMORY_TYPE[d.category],
                            priority=MEMORY_PRIORITY[d.priority],
                            namespace=job.namespace,
                            created=parse_time(when[d.source_turns[0]]),
                            context=context[d.source_turns[0]][:20_000],
                            source=f"conversation:{session_name(job.session)}#turns:{','.join(map(str, d.source_turns))}"[
                                :1000
                            ],
                            tags=["observation", d.category, d.priority],
                            audience=audience,  # what was said in a chat is heard where that chat's may be
                            origin_chat=chat,
                            said_by=job.persons.get(d.source_turns[0]),
                            affect=d.affect,  # the model's reading, where it gave one; else the words'
                        )
                        for d in drafts
                    ],
                    vectors=vectors or None,
                )
                if drafts
                else []
            )
            for d, memory_id, ntok in zip(drafts, memory_ids, tokens):
                self.store.link_turns(memory_id, d.source_turns)  # and so to the turns' episodes (m017)
                self._insert_observation(
                    session=job.session,
                    namespace=job.namespace,
                    memory_id=memory_id,
                    date=when[min(d.source_turns)],
                    priority=d.priority,
                    category=d.category,
                    content=d.content,
                    referenced_date=d.referenced_date,
                    relative_date=d.relative_date,
                    source_turns=sorted(d.source_turns),
                    sources=[],
                    tokens=ntok,
                    run_id=job.run_id,
                )
            if also is not None:
                also()
            if self.on_observed is not None and memory_ids:
                self.on_observed(job.namespace, memory_ids)
            self._finish_run(
                job.run_id,
                job.started,
                tokens_in=job.tokens,
                tokens_out=sum(tokens),
                items_in=len(job.turns),
                items_out=len(drafts),
            )
        return {"turns": len(job.turns), "observations": len(drafts)}

    def _insert_observation(self, **row: Any) -> str:
        oid = new_observation_id()
        self.tables.add_observation({"id": oid, "audience": self.tables.origin(row["session"])[0], **row})
        return oid

    # ---- Reflector ---------------------------------------------------------------------

    def begin_reflect(self, session: str, *, force: bool = False) -> ReflectJob | None:
        namespace = self.namespace_of(session)
        if namespace is None:
            return None
        rows = self.live(session)
        size = sum(r["tokens"] for r in rows)
        if len(rows) < 2 or (not force and size <= self.cfg.reflector_threshold_tokens):
            return None
        run_id = self._start_run(session, "reflect", "forced" if force else "threshold")
        observations = [
            ObservationIn(
                id=r["id"],
                date=r["date"],
                priority=r["priority"],
                category=r["category"],
                content=r["content"],
                referenced_date=r["referenced_date"],
                relative_date=r["relative_date"],
            )
            for r in rows
        ]
        return ReflectJob(run_id, session, namespace, observations, {r["id"]: r for r in rows})

    @staticmethod
    def _unchanged(rows: dict[str, dict[str, Any]], item) -> bool:
        """A Reflector entry that is one observation as it was: nothing to write."""
        source = rows.get(item.sources[0]) if len(item.sources) == 1 else None
        return (
            source is not None
            and not item.supersedes
            and source["content"] == item.content
            and source["priority"] == item.priority
        )

    def embed_reflection(self, job: ReflectJob, result: ReflectResult, run_on_store) -> dict[int, np.ndarray]:
        """The memory vectors of the entries a Reflector run rewrites, made off the store thread.
        A changed preference becomes a new version of the memory it supersedes, embedded with
        that memory's context, as ``update`` would."""
        changed = {n: item for n, item in enumerate(result.observations) if not self._unchanged(job.rows, item)}
        if not changed:
            return {}
        first_old = {
            n: job.rows[item.supersedes[0]]["memory_id"]
            for n, item in changed.items()
            if item.supersedes and item.supersedes[0] in job.rows and job.rows[item.supersedes[0]]["memory_id"]
        }

        def contexts() -> dict[str, str | None]:
            found = {mid: self.store.get(mid) for mid in set(first_old.values())}
            return {mid: f[0]["context"] for mid, f in found.items() if f is not None}

        context_of = run_on_store(contexts) if first_old else {}
        order = list(changed)
        texts = [indexed_text(changed[n].content, context_of.get(first_old.get(n, ""))) for n in order]
        return dict(zip(order, self.memories.embedder.embed_passages(texts)))

    def finish_reflect(
        self, job: ReflectJob, result: ReflectResult, vectors: dict[int, np.ndarray] | None = None
    ) -> dict[str, int]:
        vectors = vectors or {}
        rows = job.rows
        claimed: dict[str, int] = {}
        for n, item in enumerate(result.observations):
            for oid in [*item.sources, *item.supersedes]:
                if oid not in rows:
                    raise InvalidParams("observations", f"entry {n} cites {oid!r}, which is not a current observation")
                if oid in claimed:
                    raise InvalidParams("observations", f"{oid!r} is claimed by entries {claimed[oid]} and {n}")
                claimed[oid] = n
        lost_high = [oid for oid, r in rows.items() if r["priority"] == "HIGH" and oid not in claimed]
        if lost_high:  # seed 002 5.6 rule 4: every HIGH observation is kept unless contradicted
            raise InvalidParams(
                "observations", f"HIGH observations dropped without a superseding entry: {lost_high[:5]}"
            )
        tokens = count_tokens_many([it.content for it in result.observations])
        kept = changed = 0
        with self.store.transaction():
            now = {r["id"]: r["content"] for r in self.live(job.session)}
            if any(now.get(oid) != row["content"] for oid, row in rows.items()):
                # Forgotten or edited while the model read them: a merge would bring the old words back.
                raise ChangedWhileRead(f"observations of session {job.session!r} changed while the Reflector read them")
            for n, (item, ntok) in enumerate(zip(result.observations, tokens)):
                if self._unchanged(rows, item):
                    kept += 1
                    continue
                changed += 1
                members = [rows[s] for s in item.sources]
                turns = sorted({t for m in members for t in json.loads(m["source_turns"])})
                memory_id = self._memory_for(job, item, members, turns, vectors.get(n))
                self.store.link_turns(memory_id, turns)
                oid = self._insert_observation(
                    session=job.session,
                    namespace=job.namespace,
                    memory_id=memory_id,
                    date=min(m["date"] for m in members),
                    priority=item.priority,
                    category=item.category,
                    content=item.content,
                    referenced_date=item.referenced_date,
                    relative_date=item.relative_date,
                    source_turns=turns,
                    sources=sorted(item.sources),
                    tokens=ntok,
                    run_id=job.run_id,
                )
                for old in item.sources:
                    self._retire(rows[old], "merged", oid)
                for old in item.supersedes:
                    self._retire(rows[old], "superseded", oid)
            dropped = [oid for oid in rows if oid not in claimed]
            for oid in dropped:
                self._retire(rows[oid], "dropped", None)
            self._finish_run(
                job.run_id,
                job.started,
                tokens_in=sum(r["tokens"] for r in rows.values()),
                tokens_out=sum(tokens),
                items_in=len(rows),
                items_out=len(result.observations),
            )
        return {
            "in": len(rows),
            "out": len(result.observations),
            "kept": kept,
            "rewritten": changed,
            "dropped": len(dropped),
        }

    def _memory_for(
        self, job: ReflectJob, item, members: list[dict[str, Any]], turns: list[int], vector: np.ndarray | None
    ) -> str:
        """A changed preference becomes a new version of the old one's memory; anything else a new memory.
        ``vector`` was made off the store thread (for the first superseded memory, or a new one)."""
        source = f"conversation:{session_name(job.session)}#turns:{','.join(map(str, turns))}"[:1000]
        for i, old in enumerate(item.supersedes):
            memory_id = job.rows[old]["memory_id"]
            try:
                return self.memories.update(
                    UpdateParams(
                        id=memory_id,
                        namespace=job.namespace,
                        content=item.content,
                        type=MEMORY_TYPE[item.category],
                        priority=MEMORY_PRIORITY[item.priority],
                        # When the newer statement was said, and its turns: not the reflection's
                        # time and the turn of the statement it replaces.
                        created=parse_time(max(m["date"] for m in members)),
                        source=source,
                    ),
                    vector=vector if i == 0 else None,
                ).id
            except (NotFound, Conflict):
                continue  # the person edited or removed that memory meanwhile
        audience, chat = self.tables.origin(job.session)
        return self.memories.add_many(
            [
                AddParams(
                    content=item.content,
                    type=MEMORY_TYPE[item.category],
                    priority=MEMORY_PRIORITY[item.priority],
                    namespace=job.namespace,
                    created=parse_time(min(m["date"] for m in members)),
                    source=source,
                    tags=["observation", "reflected", item.category, item.priority],
                    audience=audience,
                    origin_chat=chat,
                )
            ],
            vectors=[None if item.supersedes else vector],
        )[0]

    def _retire(self, row: dict[str, Any], status: str, replaced_by: str | None) -> None:
        self.tables.retire_observation(row["id"], status, replaced_by)
        memory_id = row["memory_id"]
        if not memory_id:
            return
        found = self.store.get(memory_id)
        if found is not None and not found[1] and not found[0]["superseded_by"]:
            self.memories.archive(
                memory_id, why=f"the Reflector {status} its observation"
            )  # still recoverable by deep search and memory.get

    # ---- reads -------------------------------------------------------------------------

    def live(self, session: str) -> list[dict[str, Any]]:
        return self.tables.live(session)

    # What a context shows of a branch: its transcript, inherited turns included, and the live
    # observations of every part of it (a parent's only for the turns the branch inherits).

    def transcript_unobserved(self, session: str) -> list[dict[str, Any]]:
        return self.tables.transcript_unobserved(session)

    def transcript_recent(self, session: str, count: int) -> list[dict[str, Any]]:
        return self.tables.transcript_recent(session, count)

    def live_transcript(self, session: str) -> list[dict[str, Any]]:
        rows = []
        for part, upto in self.tables.segments(session):
            for row in self.tables.live(part):
                if upto is None or max(json.loads(row["source_turns"]) or [0]) <= upto:
                    rows.append(row)
        return rows

    def observations(self, session: str | None, namespace: str | None, include_replaced: bool = False) -> list[dict]:
        rows = self.tables.observations(session, namespace, include_replaced)
        return [
            {
                "id": r["id"],
                "session": r["session"],
                "namespace": r["namespace"],
                "date": r["date"],
                "referenced_date": r["referenced_date"],
                "relative_date": r["relative_date"],
                "priority": r["priority"],
                "category": r["category"],
                "content": r["content"],
                "source_turns": json.loads(r["source_turns"]),
                "sources": json.loads(r["sources"]),
                "memory_id": r["memory_id"],
                "status": r["status"],
                "replaced_by": r["replaced_by"],
                "tokens": r["tokens"],
            }
            for r in rows
        ]
