"""PersonaTracker: PersonaState in SQLite with its whole history, hard-rule proposals, Persona
Preservation Records and the SyncScore history. Every method here runs on the store
thread; language-model work (records, judgements) happens on the background worker.

* ``state(namespace)`` is the latest version. When the persona items of SOUL.md /
  IDENTITY.md changed since that version was made, a new version is made from them first
  (the person's word replaces learned values), so an edit while the daemon was down counts.
* Every change is a new row in ``persona_states``: nothing is overwritten.
* Hard rules change only through ``propose_rule`` + ``decide_rule(confirm=True)``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from agentmemd.memory.core.clock import format_time
from agentmemd.memory.core.errors import Conflict, InvalidParams, NotFound
from agentmemd.memory.core.vocabulary import DIMENSIONS
from agentmemd.memory.llm.tasks import ContextTurn
from agentmemd.memory.store.conversation_tables import ConversationTables
from agentmemd.memory.store.persona_tables import PersonaTables
from agentmemd.persona.drift.record import render_record
from agentmemd.persona.identity.spec import (
    PERSONA_FILES,
    SpecLine,
    apply_spec,
    parse_spec,
)
from agentmemd.persona.identity.state import (
    Evidence,
    HardRule,
    PersonaRecord,
    PersonaState,
    merge_record,
)
from agentmemd.persona.syncscore.judge import (
    BASELINE_SCORES,
    OWN_VOICE_HISTORY,
    Judged,
    JudgeRequest,
    action_for,
    baseline_of,
    in_a_burst,
    off_own_voice,
    own_voice_departures,
    trend_of,
    update_ewma,
)
from agentmemd.persona.syncscore.stylometry import OWN_VOICE, own_voice


@dataclass
class ScoreJob:
    namespace: str
    session: str | None
    turn_seq: int | None
    pack_id: str | None
    state: PersonaState
    request: JudgeRequest


class PersonaTracker:
    def __init__(self, service, config, provider_name: str):
        self.service = service
        self.store = service.store
        self.tables = PersonaTables(service.store)
        self.conversation_tables = ConversationTables(service.store)
        self.cfg = config.persona
        self.provider_name = provider_name

    def _now(self) -> str:
        return format_time(self.service.clock.now())

    # ---- state -------------------------------------------------------------------------

    def _latest(self, namespace: str) -> PersonaState | None:
        latest = self.tables.latest_state(namespace)
        return PersonaState.model_validate_json(latest) if latest else None

    def _save(self, state: PersonaState) -> PersonaState:
        state = state.model_copy(update={"record": render_record(state, self.cfg.record_max_tokens)})
        with self.store.transaction():
            self.tables.add_state(
                state.namespace, state.version, state.model_dump_json(), state.reason, state.updated_at
            )
        return state

    def spec_lines(self, namespace: str) -> list[SpecLine]:
        """The namespace's live persona memories: SOUL.md / IDENTITY.md items first, in file order.
        Whether an item is the person's own comes from ``workspace_items`` (what the indexer wrote),
        never from a memory's ``source`` text, which any client of memory.add can set."""
        rows = self.tables.persona_items(namespace)

        def order(row: dict[str, Any]) -> tuple:
            path, source = row["path"] or "", row["source"] or ""
            line = source.rsplit(" L", 1)[-1].split("-")[0] if path and " L" in source else "0"
            return (
                PERSONA_FILES.index(path) if path in PERSONA_FILES else 9,
                path,
                int(line) if line.isdigit() else 0,
                row["content"],
            )

        lines = []
        for row in sorted(rows, key=order):
            source = row["source"] or "memory"
            for part in row["content"].splitlines() or [row["content"]]:
                if part.strip():
                    lines.append(SpecLine(part.strip(" -*\t"), source, row["path"] in PERSONA_FILES))
        return lines

    def state_if_current(self, namespace: str) -> PersonaState | None:
        """The namespace's PersonaState if its spec is unchanged since it was saved (a read only),
        else None: ``state`` makes the new version."""
        latest = self._latest(namespace)
        if latest is not None and latest.spec_hash == parse_spec(self.spec_lines(namespace)).hash:
            return latest
        return None

    def state(self, namespace: str) -> PersonaState:
        latest = self._latest(namespace)
        spec = parse_spec(self.spec_lines(namespace))
        if latest is not None and latest.spec_hash == spec.hash:
            return latest
        base = latest or PersonaState(namespace=namespace)
        return self._save(apply_spec(base, spec, now=self._now(), top_k=self.cfg.top_k))

    def history(self, namespace: str, limit: int = 20) -> list[dict[str, Any]]:
        self.state(namespace)
        out = []
        for r in self.tables.states(namespace, limit):
            st = PersonaState.model_validate_json(r["state"])
            out.append(
                {
                    "version": r["version"],
                    "reason": r["reason"],
                    "created": r["created"],
                    "traits": st.traits,
                    "hard_rules": st.rules(),
                    "evidence": [e.model_dump() for e in st.evidence],
                }
            )
        return out

    # ---- the persona track of compaction --------------------------------------------------

    def merge_record(
        self, namespace: str, record: PersonaRecord, *, session: str | None, run_id: int | None
    ) -> PersonaState:
        """5.2's merge rule; the record is kept too. Joins the caller's transaction if any."""
        with self.store.transaction():
            current = self.state(namespace)
            nxt = merge_record(
                current,
                record,
                alpha=self.cfg.trait_alpha,
                decay=self.cfg.marker_decay,
                top_k=self.cfg.top_k,
                now=self._now(),
                reason=f"compaction of {session or 'a conversation'}: {record.turns} agent turns",
            )
            self.tables.add_record(namespace, session, run_id, record.model_dump_json(), self._now())
            return self._save(nxt)

    def low_scored_turns(self, session: str) -> set[int]:
        """Assistant turns whose SyncScore was below record_min_score: drift is not learned as persona."""
        return self.tables.low_scored_turns(session, self.cfg.record_min_score)

    def records(self, namespace: str, limit: int = 20) -> list[dict[str, Any]]:
        return [{**r, "record": json.loads(r["record"])} for r in self.tables.records(namespace, limit)]

    # ---- hard rules: never inferred silently -------------------------------------------------

    def propose_rule(self, namespace: str, action: str, rule: str, origin: str) -> dict[str, Any]:
        rule = " ".join(rule.split())
        state = self.state(namespace)
        present = rule.lower() in {r.lower() for r in state.rules()}
        if action == "add" and present:
            raise Conflict(f"the hard rule {rule!r} is already in force", {"rule": rule})
        if action == "remove":
            if not present:
                raise NotFound(f"no hard rule {rule!r}; current rules: {state.rules()}", {"rule": rule})
            held = next(r for r in state.hard_rules if r.rule.lower() == rule.lower())
            if held.source == "workspace":
                raise Conflict(
                    f"{rule!r} is written in the persona files; remove it there ({', '.join(PERSONA_FILES)})",
                    {"rule": rule},
                )
        pending = self.tables.pending_proposal(namespace, action, rule)
        if pending is not None:
            return self.proposal(pending)
        with self.store.transaction():
            proposal_id = self.tables.add_proposal(namespace, action, rule, origin, self._now())
        return self.proposal(proposal_id)

    def proposal(self, proposal_id: str, namespace: str | None = None) -> dict[str, Any]:
        """The proposal, or NotFound; with ``namespace``, one of another namespace is not found either."""
        found = self.tables.proposal(proposal_id)
        if found is None or (namespace is not None and found["namespace"] != namespace):
            where = f" in namespace {namespace!r}" if namespace else ""
            raise NotFound(f"no hard-rule proposal {proposal_id}{where}", {"id": proposal_id})
        return found

    def proposals(self, namespace: str, status: str | None = "pending") -> list[dict[str, Any]]:
        return self.tables.proposals(namespace, status)

    def decide_rule(self, proposal_id: str, namespace: str, *, confirm: bool) -> dict[str, Any]:
        prop = self.proposal(proposal_id, namespace)
        if prop["status"] != "pending":
            raise Conflict(f"proposal {proposal_id} was already {prop['status']}", {"id": proposal_id})
        with self.store.transaction():
            self.tables.decide_proposal(proposal_id, "confirmed" if confirm else "rejected", self._now())
            if not confirm:
                return {**self.proposal(proposal_id), "version": self.state(prop["namespace"]).version}
            state = self.state(prop["namespace"])
            if prop["action"] == "add":
                rules = [*state.hard_rules, HardRule(rule=prop["rule"], source="confirmed", added_at=self._now())]
            else:
                rules = [r for r in state.hard_rules if r.rule.lower() != prop["rule"].lower()]
            nxt = state.model_copy(
                update={
                    "version": state.version + 1,
                    "hard_rules": rules,
                    "updated_at": self._now(),
                    "reason": f"hard rule {prop['action']} confirmed by the user: {prop['rule']}",
                    "evidence": [Evidence(snippet=prop["rule"], source=f"proposal {proposal_id} ({prop['origin']})")],
                }
            )
            saved = self._save(nxt)
        return {**self.proposal(proposal_id), "version": saved.version}

    # ---- SyncScore ---------------------------------------------------------------------

    def begin_score(
        self,
        *,
        namespace: str,
        response: str,
        session: str | None = None,
        turn_seq: int | None = None,
        context: str | None = None,
        pack_id: str | None = None,
    ) -> ScoreJob:
        """What the judge needs: the state, the last 3 turns before the response, and the
        Memory Pack the turn was given (the session's latest context build, or ``pack_id``)."""
        state = self.state(namespace)
        turns: list[ContextTurn] = []
        memories: list[str] = []
        if session is not None:
            rows = self.conversation_tables.turns_before(session, turn_seq, 3)
            turns = [ContextTurn(role=r["role"], content=r["content"]) for r in rows]
            if pack_id is None:
                pack_id = self.tables.latest_pack_of(session)
        if pack_id is not None:
            memories = self.pack_items(pack_id)
        if context:  # one fact per line, like a pack's items
            memories += [line.strip(" -*\t") for line in context.splitlines() if line.strip(" -*\t")]
        request = JudgeRequest(persona=self.judge_spec(state), response=response, turns=turns, memories=memories)
        return ScoreJob(namespace, session, turn_seq, pack_id, state, request)

    def pack_items(self, pack_id: str) -> list[str]:
        chosen = self.service.pack_log.chosen(pack_id)
        if chosen is None:
            return []
        ids = [c["id"] if isinstance(c, dict) else c for c in chosen]
        out = []
        for memory_id in ids:
            found = self.store.get(memory_id)
            if found is not None:
                out.append(found[0]["content"])
        return out

    @staticmethod
    def judge_spec(state: PersonaState) -> str:
        parts = [state.record]
        if state.spec:
            parts.append("As written by the person:\n" + state.spec)
        return "\n\n".join(p for p in parts if p)

    def composite(self, dims: dict[str, float]) -> float:
        return sum(self.cfg.weights[d] * dims[d] for d in DIMENSIONS)

    def near_threshold(self, composite: float) -> bool:
        c = self.cfg
        return any(abs(composite - t) <= c.near_threshold for t in (c.reinforce_below, c.anchor_below, c.rebase_below))

    def finish_score(self, job: ScoreJob, judged: list[Judged]) -> dict[str, Any]:
        """Average the samples, update the session's EWMA and trend, store the row."""
        dims = {d: round(sum(getattr(j.dimensions, d) for j in judged) / len(judged), 4) for d in DIMENSIONS}
        composite = round(self.composite(dims), 4)
        previous: list[float] = []
        if job.session is not None:
            previous = self.tables.recent_ewmas(job.session, 4)
        ewma = round(update_ewma(composite, previous[-1] if previous else None, self.cfg.ewma_lambda), 4)
        trend = trend_of(previous + [ewma])
        c = self.cfg
        action = action_for(ewma, c.reinforce_below, c.anchor_below, c.rebase_below)
        details = {
            **judged[0].notes,
            **({"samples": [j.dimensions.model_dump() for j in judged]} if len(judged) > 1 else {}),
        }
        details["own_voice"] = own_voice(job.request.response)
        if action == "none" and job.session is not None and c.burst_replies:
            burst = self._burst(job, composite) or self._off_own_voice(job, details["own_voice"])
            if burst is not None:
                action, details["burst"] = "reinforce", burst
        with self.store.transaction():
            score_id = self.tables.add_score(
                {
                    "namespace": job.namespace,
                    "session": job.session,
                    "turn_seq": job.turn_seq,
                    "at": self._now(),
                    "voice": dims["voice"],
                    "relational": dims["relational"],
                    "grounded": dims["grounded"],
                    "style": dims["style"],
                    "constraint_adherence": dims["constraint"],
                    "composite": composite,
                    "ewma": ewma,
                    "trend": trend,
                    "action": action,
                    "provider": self.provider_name,
                    "samples": len(judged),
                    "pack_id": job.pack_id,
                    "details": json.dumps(details, default=str),
                }
            )
        return {
            "id": score_id,
            "namespace": job.namespace,
            "session": job.session,
            "turn_seq": job.turn_seq,
            "dimensions": dims,
            "composite": composite,
            "ewma": ewma,
            "trend": trend,
            "action": action,
            "samples": len(judged),
            "pack_id": job.pack_id,
            "details": details,
        }

    def _burst(self, job: ScoreJob, composite: float) -> dict[str, Any] | None:
        """The burst this reply ends, if it ends one: the session's last ``burst_replies`` replies
        (this one included) under the agent's own level as ``in_a_burst`` says."""
        c = self.cfg
        recent = self.tables.recent_composites(job.session, c.burst_replies - 1) + [composite]
        baseline = baseline_of(self.tables.namespace_composites(job.namespace, BASELINE_SCORES))
        if not in_a_burst(recent, baseline, c.burst_replies, c.burst_below):
            return None
        return {"replies": len(recent), "composites": recent, "baseline": round(baseline or 0, 4)}

    def _off_own_voice(self, job: ScoreJob, voice: list[float]) -> dict[str, Any] | None:
        """The burst this reply ends, if it ends one unlike the agent's own voice: the session's last
        ``burst_replies`` replies (this one included) as ``off_own_voice`` says, against the
        namespace's other recent replies."""
        c = self.cfg
        if not c.burst_voice_above:
            return None
        recent = self.tables.recent_details(job.session, c.burst_replies - 1)
        mine = {score_id for score_id, _ in recent}
        earlier = [_voice_of(d) for _, d in recent]
        if any(v is None for v in earlier):  # scored before the voice was kept
            return None
        voices = [v for v in earlier if v is not None] + [voice]
        history = [
            v
            for score_id, d in self.tables.namespace_details(job.namespace, OWN_VOICE_HISTORY)
            if score_id not in mine and (v := _voice_of(d)) is not None
        ]
        departures = own_voice_departures(history, voices)
        if not off_own_voice(departures, c.burst_replies, c.burst_voice_above):
            return None
        return {"replies": len(voices), "own_voice_departures": departures, "history": len(history)}

    def scores(
        self, *, session: str | None = None, namespace: str | None = None, limit: int = 100
    ) -> list[dict[str, Any]]:
        if session is None and namespace is None:
            raise InvalidParams("session", "give a session or a namespace")
        return [self._score_row(r) for r in self.tables.scores(session=session, namespace=namespace, limit=limit)]

    @staticmethod
    def _score_row(r: dict[str, Any]) -> dict[str, Any]:
        return {
            "id": r["id"],
            "namespace": r["namespace"],
            "session": r["session"],
            "turn_seq": r["turn_seq"],
            "at": r["at"],
            "dimensions": {
                "voice": r["voice"],
                "relational": r["relational"],
                "grounded": r["grounded"],
                "style": r["style"],
                "constraint": r["constraint_adherence"],
            },
            "composite": r["composite"],
            "ewma": r["ewma"],
            "trend": r["trend"],
            "action": r["action"],
            "provider": r["provider"],
            "samples": r["samples"],
            "pack_id": r["pack_id"],
            "details": json.loads(r["details"]),
        }

    def latest_score(self, session: str) -> dict[str, Any] | None:
        rows = self.tables.scores(session=session, namespace=None, limit=1)
        return self._score_row(rows[0]) if rows else None

    # ---- drift actions in conversation.context -----------------------------------------

    def due_action(self, session: str) -> tuple[str, dict[str, Any] | None]:
        """The action the session's latest EWMA calls for. A rebase is done once per score and at
        most once per ``rebase_cooldown_turns`` agent replies; in between, anchors."""
        latest = self.latest_score(session)
        if latest is None:
            return "none", None
        action = latest["action"]
        if action == "rebase":
            last = self.tables.last_rebase(session)
            if last is not None:
                replies_since = self.conversation_tables.replies_after(session, last[1] or 0)
                if last[0] == latest["id"] or replies_since < self.cfg.rebase_cooldown_turns:
                    action = "anchor"  # a fresh context was just built: anchors until the cool-down ends
        return action, latest

    def record_context(
        self,
        session: str,
        last_seq: int | None,
        pack_id: str | None,
        action: str,
        score_id: int | None,
        context: dict[str, Any] | None = None,
    ) -> None:
        """``context``: what the build gave the agent (kept for the newest few of the session)."""
        with self.store.transaction():
            self.tables.add_context_build(session, self._now(), last_seq, pack_id, action, score_id, context)


def sync_day_summary(store, namespace: str, start: datetime, end: datetime) -> dict[str, Any] | None:
    """The day's SyncScore line for the workspace log: how many replies were scored, the mean
    and lowest composite, the EWMA at the day's last score, and the drift actions carried out."""
    day = PersonaTables(store).day_summary(namespace, format_time(start), format_time(end))
    if day is None:
        return None
    ewma, trend, session = day["last"]
    return {
        "scored": day["count"],
        "mean": round(day["mean"], 3),
        "min": round(day["min"], 3),
        "sessions": day["sessions"],
        "last_ewma": round(ewma, 3),
        "last_trend": trend,
        "last_session": session,
        "actions": day["actions"],
    }


def _voice_of(details: str | None) -> list[float] | None:
    """A score's OWN_VOICE vector, kept in its details (None before it was kept)."""
    voice = json.loads(details or "{}").get("own_voice")
    return voice if isinstance(voice, list) and len(voice) == len(OWN_VOICE) else None
