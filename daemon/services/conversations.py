"""ConversationService: turns in, a stable context out, compaction and drift repair in between.

Runs on the store thread except ``context``, ``observe`` and ``score``-like calls that wait
on the background worker: those run beside it and hand their SQLite steps to ``run_on_store``.
"""

from __future__ import annotations

from contextlib import nullcontext
from typing import Any, Callable

from agentmemd.daemon.services.sessions import by_name
from agentmemd.memory.conversation.compaction import CompactionWorker
from agentmemd.memory.conversation.conversations import Conversations
from agentmemd.memory.conversation.episodes import EpisodeWorker
from agentmemd.memory.conversation.transcript import IncomingTurn, NeedText, as_stored, turn_digest
from agentmemd.memory.core.config import Config
from agentmemd.memory.core.disclosure import USER
from agentmemd.memory.core.errors import Conflict
from agentmemd.memory.core.models import (
    AppendParams,
    ConfirmParams,
    ContextOptions,
    ContextParams,
    ContextsParams,
    ConversationListParams,
    ObservationsListParams,
    ObserveParams,
    PrepareParams,
    PreviewParams,
    RetractParams,
    SessionParams,
    SyncParams,
    TurnsParams,
)
from agentmemd.memory.core.threads import RunOnStore, result_within, run_here
from agentmemd.memory.core.tokens import count_tokens
from agentmemd.memory.retrieval.memories import Memories
from agentmemd.memory.safety.secrets import shown_masked
from agentmemd.persona.context.context import assemble_context, build_context
from agentmemd.persona.tracking.tracker import PersonaTracker


def _incoming(turn) -> IncomingTurn:
    """A turn sent with its text, as stored (a huge one cut with a mark) and its digest."""
    text = as_stored(turn.content)
    return IncomingTurn(turn.role, text, turn_digest(turn.role, text), turn.speaker)


REBASE_WAIT_SECONDS = 300  # a forced rebase compaction the context waits for (seed 002, 5.3)
# What a context build keeps of what it gave the agent (conversation.contexts shows it).
CONTEXT_KEPT = ("system", "messages", "prefix_hash", "tokens", "budget_tokens", "parts", "anchors")


class ConversationService:
    def __init__(
        self,
        memories: Memories,
        conversations: Conversations,
        tracker: PersonaTracker,
        worker: CompactionWorker,
        config: Config,
        run_on_store: RunOnStore,
        episodes: EpisodeWorker,
    ):
        self.memories = memories
        self.episodes = episodes  # turns become searchable episodes on it (memory/conversation/episodes.py)
        self.conversations = conversations
        self.tracker = tracker
        self.worker = worker
        self.config = config
        self.run_on_store = run_on_store
        # The impressions of a session's participants for its prefix (ChannelService.people_note).
        self.people_note: Callable[[str, str], str] | None = None
        # The standing goals for its prefix (Goals.standing): (namespace, audience) -> (text, ids).
        self.standing_goals: Callable[[str, str | None], tuple[str, list[str]]] | None = None

    @by_name
    def append(self, p: AppendParams) -> dict[str, Any]:
        """Store one turn; the SyncScore of an assistant turn and any due compaction are queued."""
        counts = self.conversations.append(
            p.session, p.role, p.content, ts=p.ts, namespace=p.namespace, speaker=p.speaker
        )
        return {**counts, **self._after_stored(p.session, p.namespace, [(counts["seq"], p.role, p.content)])}

    @by_name
    def sync(self, p: SyncParams) -> dict[str, Any]:
        """Store what an app's history adds to the stored transcript, matched by content (one call
        on the store thread, so two doors sending the same history at once store each turn once).
        A history sent with some turns as digests whose text is needed gets Conflict naming them."""
        incoming = [_incoming(t) if t.digest is None else IncomingTurn(t.role, None, t.digest) for t in p.turns]
        return self._sync(p.namespace, p.session, incoming, p.pending, p.forked_from)

    def _sync(
        self,
        namespace: str,
        name: str | None,
        incoming: list[IncomingTurn],
        pending: bool,
        forked_from: str | None = None,
    ) -> dict[str, Any]:
        try:
            placement, seqs = self.conversations.sync(
                namespace, name, incoming, pending=pending, forked_from=forked_from
            )
        except NeedText as exc:
            raise Conflict(
                f"the history's new turns {exc.positions[:10]} were sent as digests: send their content",
                {"needs": exc.positions},
            ) from None
        scheduled = {"compaction_scheduled": False, "scoring_scheduled": False}
        if seqs and not pending:
            # Every new turn came with its text (a digest alone is NeedText above).
            stored = [(seq, t.role, t.text or "") for seq, t in zip(seqs, incoming[placement.new_from :])]
            scheduled = self._after_stored(placement.session, namespace, stored)
        return {
            **self.conversations.counts(placement.session),
            "session": placement.session,
            "forked_from": (self.conversations.tables.branch(placement.session) or {}).get("parent"),
            "transcript_turns": self.conversations.tables.transcript_length(placement.session),
            "appended": len(seqs),
            "appended_seqs": seqs,
            "last_seq": seqs[-1] if seqs else placement.end_seq,
            **scheduled,
        }

    def prepare(self, p: PrepareParams) -> dict[str, Any]:
        """A model call about to go out, in one request: its history synced (pending) and the
        context built for the branch it continues (the sync on the store thread, the build beside it)."""
        sync = SyncParams.model_construct(**{name: getattr(p, name) for name in SyncParams.model_fields})  # validated
        synced = self.run_on_store(lambda: self.sync(sync))
        options = {name: getattr(p, name) for name in ContextOptions.model_fields}
        context = self.context(ContextParams(session=synced["session"], namespace=p.namespace, **options))
        return {**synced, "context": context}

    @by_name
    def preview(self, p: PreviewParams) -> dict[str, Any]:
        """The context a model call with this history would get (the same assembly as
        conversation.context, the daemon's own budget shares), stored nowhere: for a session the
        daemon knows, its audience, observation log and the turns' episodes (left out of the pack
        as shown); otherwise the user's own audience and no log. No drift action is carried out."""
        budget = p.budget_tokens or self.config.conversation.context_budget_tokens
        with self._reading():
            state = self.tracker.state_if_current(p.namespace)
        if state is None:  # the persona files changed: its new version is a write, as for any context
            state = self.run_on_store(lambda: self.tracker.state(p.namespace))
        with self._reading():
            known = p.session is not None and self.conversations.namespace_of(p.session) == p.namespace
            session = p.session if known else None
            episodes = (
                {t["digest"]: t["episode"] for t in self.conversations.tables.transcript(session)}
                if session is not None
                else {}
            )
            turns = []
            for t in p.turns:
                text = as_stored(t.content)
                digest = turn_digest(t.role, text)
                episode = episodes.get(digest)
                turns.append(
                    {
                        "role": t.role,
                        "content": text,
                        "tokens": count_tokens(text),
                        "speaker": t.speaker,
                        "episode": episode,
                    }
                )
            audience = self.conversations.origin(session)[0] if session is not None else USER
            built = assemble_context(
                self.memories,
                p.namespace,
                budget,
                audience=audience,
                live=self.conversations.live_transcript(session) if session is not None else [],
                turns=turns,
                persona_state=state,
                anchors_as=p.anchors_as,
                people=self.people_note(session, p.namespace) if session is not None and self.people_note else "",
                goals=self.standing_goals,
                logged=p.logged,
            )
        del built["drift_action"], built["anchors"]  # none is carried out
        return {"session": p.session, **built}

    @by_name
    def confirm(self, p: ConfirmParams) -> dict[str, Any]:
        """A model call answered: the history that ended at turn ``upto`` (read from the transcript,
        not sent again) and the reply, synced as confirmed; the Observer scheduled if asked."""
        name, history = self.conversations.history_upto(p.session, p.namespace, p.upto)
        done = self._sync(p.namespace, name, history + [_incoming(t) for t in p.reply], pending=False)
        if p.observe:
            self.worker.run_now(done["session"], force=True)
        return {**done, "observe_scheduled": p.observe}

    def _after_stored(self, session: str, namespace: str, stored: list[tuple[int, str, str]]) -> dict:
        """After turns (seq, role, text) are stored: each assistant reply's SyncScore is queued, then
        a compaction when one is due (the score first, so a compaction sees it)."""
        replies = [(seq, text) for seq, role, text in stored if role == "assistant"]
        scoring = bool(replies) and self.config.persona.score_assistant_turns
        for seq, text in replies if scoring else []:
            self.worker.score(namespace=namespace, session=session, turn_seq=seq, response=text)
        due = self.conversations.due(session)
        if due:
            self.worker.request(session)
        return {"compaction_scheduled": due, "scoring_scheduled": scoring}

    @by_name
    def retract(self, p: RetractParams) -> dict[str, Any]:
        """Take back the pending turns of a model call the provider refused."""
        return {"retracted": self.conversations.retract(p.session, p.namespace, p.seqs)}

    @by_name
    def context(self, p: ContextParams) -> dict[str, Any]:
        """Stable prefix + observations + recent turns + Memory Pack, carrying out the drift action due."""
        budget = p.budget_tokens or self.config.conversation.context_budget_tokens
        action, latest = self.run_on_store(lambda: self._due_action(p.session, p.namespace))
        if action == "rebase":  # severe drift: compaction with persona preservation, then a fresh context
            result_within(
                self.worker.run_now(p.session, force=True),
                REBASE_WAIT_SECONDS,
                f"the rebase compaction of {p.session!r} is still running after {REBASE_WAIT_SECONDS}s",
            )
        return self._build(p, budget, action, latest)

    def _reading(self):
        """Reads beside the store thread on a read-only connection (issue 17), where there is a
        store thread; used as a library, on the caller's."""
        return self.memories.store.reading() if self.run_on_store is not run_here else nullcontext()

    def _due_action(self, session: str, namespace: str) -> tuple[str, dict | None]:
        self.conversations.require(session, namespace)
        return self.tracker.due_action(session)

    def _build(self, p: ContextParams, budget: int, action: str, latest: dict | None) -> dict[str, Any]:
        namespace = p.namespace  # the session is of it: _due_action required it
        with self._reading():
            state = self.tracker.state_if_current(namespace)
        if state is None:  # the persona files changed: its new version is a write
            state = self.run_on_store(lambda: self.tracker.state(namespace))
        with self._reading():
            ctx = build_context(
                self.memories,
                self.conversations,
                p.session,
                namespace,
                budget,
                persona_state=state,
                drift=action,
                anchor_min_turns=self.config.persona.anchor_min_turns,
                anchors_as=p.anchors_as,
                people=self.people_note(p.session, namespace) if self.people_note else "",
                goals=self.standing_goals,
            )
            last_seq = self.conversations.last_seq(p.session)
        score_id = latest["id"] if latest else None
        given = {k: ctx[k] for k in CONTEXT_KEPT}
        self.run_on_store(
            lambda: self.tracker.record_context(
                p.session, last_seq, ctx["pack_id"], ctx["drift_action"], score_id, given
            )
        )
        ctx["drift"] = {
            "due": action,
            "applied": ctx["drift_action"],
            "ewma": latest["ewma"] if latest else None,
            "trend": latest["trend"] if latest else None,
            "score_id": score_id,
            "burst": bool(latest and (latest.get("details") or {}).get("burst")),
        }
        return ctx

    @by_name
    def observe(self, p: ObserveParams) -> dict[str, Any]:
        """Run the Observer (and Reflector) now; with ``wait``, return their report."""
        self.run_on_store(lambda: self.conversations.require(p.session, p.namespace))
        future = self.worker.run_now(p.session, force=p.force, reflect=p.reflect)
        if not p.wait:
            return {"session": p.session, "scheduled": True}
        return result_within(
            future,
            p.timeout_seconds,
            f"compaction of {p.session!r} still running after {p.timeout_seconds:g}s; it goes on in the background",
        )

    def recover(self) -> list[str]:
        """At start: runs a crash interrupted are marked so, and their sessions queued again."""
        sessions = self.conversations.recover()
        for session in sessions:
            self.worker.request(session)
        return sessions

    @by_name
    def status(self, p: SessionParams) -> dict[str, Any]:
        self.conversations.require(p.session, p.namespace)
        return {
            **self.conversations.counts(p.session),
            "episodes_pending": self.episodes.pending(p.session),
            "runs": self.conversations.runs(p.session),
            "idle": self.worker.idle(),
        }

    @by_name
    def sessions(self, p: ConversationListParams) -> dict[str, Any]:
        """A namespace's conversations, the latest active first."""
        rows, total = self.conversations.tables.session_page(p.namespace, p.limit, p.offset)
        return {"sessions": rows, "total": total}

    @by_name
    def turns(self, p: TurnsParams) -> dict[str, Any]:
        """A page of a session's turns (``offset`` from the newest), oldest first."""
        namespace = self.conversations.require(p.session, p.namespace)
        total = self.conversations.tables.transcript_length(p.session)
        turns = self.conversations.tables.turn_page(p.session, p.limit, p.offset)
        return {"turns": self._shown(turns, namespace), "total": total}

    @by_name
    def contexts(self, p: ContextsParams) -> dict[str, Any]:
        """What the session's newest context builds gave the agent: the stable prefix (``system``)
        and the messages, with the pack and the drift action each carried."""
        self.conversations.require(p.session, p.namespace)
        return {"contexts": self.tracker.tables.context_builds(p.session, p.limit)}

    @by_name
    def observations(self, p: ObservationsListParams) -> dict[str, Any]:
        namespace = p.namespace or "default"  # the caller's: never another namespace's observations
        if p.session is not None:
            self.conversations.require(p.session, namespace)
        observations = self.conversations.observations(p.session, namespace, p.include_replaced)
        return {"observations": self._shown(observations, namespace)}

    def _shown(self, rows: list[dict[str, Any]], namespace: str) -> list[dict[str, Any]]:
        """Each row with ``shown``: its words with their secrets masked, and the namespace's known
        secrets where they are said again ("Noted: Koala!Pink31"); None when it holds none."""
        known = self.memories.known_secrets.of(namespace)
        return [{**row, "shown": shown_masked(row["content"], known)} for row in rows]
