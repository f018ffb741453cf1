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
from agentmemd.memory.llm.tasks import ContextTurn, JudgeRequest
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
from agentmemd.persona.syncscore.judge import Judged, action_for, trend_of, update_ewma


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
        self.cfg = config.persona
        self.provider_name = provider_name

    def _now(self) -> str:
        return format_time(self.service.clock.now())

    # ---- state -------------------------------------------------------------------------

    def _latest(self, namespace: str) -> PersonaState | None:
        row = self.store.conn.execute(
            "SELECT state FROM persona_states WHERE namespace = ? ORDER BY version DESC LIMIT 1", (namespace,)
        ).fetchone()
        return PersonaState.model_validate_json(row[0]) if row else None

    def _save(self, state: PersonaState) -> PersonaState:
        state = state.model_copy(update={"record": render_record(state, self.cfg.record_max_tokens)})
        with self.store.transaction():
            self.store.conn.execute(
                "INSERT INTO persona_states(namespace, version, state, reason, created) VALUES (?, ?, ?, ?, ?)",
                (state.namespace, state.version, state.model_dump_json(), state.reason, state.updated_at),
            )
        return state

    def spec_lines(self, namespace: str) -> list[SpecLine]:
        """The namespace's live persona memories: SOUL.md / IDENTITY.md items first, in file order.
        Whether an item is the person's own comes from ``workspace_items`` (what the indexer wrote),
        never from a memory's ``source`` text, which any client of memory.add can set."""
        rows = self.store._rows(
            "SELECT m.content, m.source, w.path FROM memories m LEFT JOIN workspace_items w ON w.memory_id = m.id "
            "WHERE m.namespace = ? AND m.type = 'persona' AND m.superseded_by IS NULL",
            (namespace,),
        )

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

    def state(self, namespace: str) -> PersonaState:
        latest = self._latest(namespace)
        spec = parse_spec(self.spec_lines(namespace))
        if latest is not None and latest.spec_hash == spec.hash:
            return latest
        base = latest or PersonaState(namespace=namespace)
        return self._save(apply_spec(base, spec, now=self._now(), top_k=self.cfg.top_k))

    def history(self, namespace: str, limit: int = 20) -> list[dict[str, Any]]:
        self.state(namespace)
        rows = self.store._rows(
            "SELECT version, reason, created, state FROM persona_states WHERE namespace = ? "
            "ORDER BY version DESC LIMIT ?",
            (namespace, limit),
        )
        out = []
        for r in rows[::-1]:
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
            self.store.conn.execute(
                "INSERT INTO persona_records(namespace, session, run_id, record, created) VALUES (?, ?, ?, ?, ?)",
                (namespace, session, run_id, record.model_dump_json(), self._now()),
            )
            return self._save(nxt)

    def low_scored_turns(self, session: str) -> set[int]:
        """Assistant turns whose SyncScore was below record_min_score: drift is not learned as persona."""
        return {
            r[0]
            for r in self.store.conn.execute(
                "SELECT turn_seq FROM sync_scores WHERE session = ? AND turn_seq IS NOT NULL AND composite < ?",
                (session, self.cfg.record_min_score),
            )
        }

    def records(self, namespace: str, limit: int = 20) -> list[dict[str, Any]]:
        rows = self.store._rows(
            "SELECT * FROM persona_records WHERE namespace = ? ORDER BY id DESC LIMIT ?", (namespace, limit)
        )
        return [{**r, "record": json.loads(r["record"])} for r in rows[::-1]]

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
        pending = self.store.conn.execute(
            "SELECT id FROM persona_rule_proposals WHERE namespace = ? AND action = ? AND lower(rule) = lower(?) "
            "AND status = 'pending'",
            (namespace, action, rule),
        ).fetchone()
        if pending:
            return self.proposal(pending[0])
        with self.store.transaction():
            cur = self.store.conn.execute(
                "INSERT INTO persona_rule_proposals(namespace, action, rule, origin, created) VALUES (?, ?, ?, ?, ?)",
                (namespace, action, rule, origin, self._now()),
            )
        return self.proposal(int(cur.lastrowid))

    def proposal(self, proposal_id: int) -> dict[str, Any]:
        rows = self.store._rows("SELECT * FROM persona_rule_proposals WHERE id = ?", (proposal_id,))
        if not rows:
            raise NotFound(f"no hard-rule proposal {proposal_id}", {"id": proposal_id})
        return rows[0]

    def proposals(self, namespace: str, status: str | None = "pending") -> list[dict[str, Any]]:
        where, params = ("AND status = ?", (namespace, status)) if status else ("", (namespace,))
        return self.store._rows(f"SELECT * FROM persona_rule_proposals WHERE namespace = ? {where} ORDER BY id", params)

    def decide_rule(self, proposal_id: int, *, confirm: bool) -> dict[str, Any]:
        prop = self.proposal(proposal_id)
        if prop["status"] != "pending":
            raise Conflict(f"proposal {proposal_id} was already {prop['status']}", {"id": proposal_id})
        with self.store.transaction():
            self.store.conn.execute(
                "UPDATE persona_rule_proposals SET status = ?, decided = ? WHERE id = ?",
                ("confirmed" if confirm else "rejected", self._now(), proposal_id),
            )
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
            before = "AND seq < ?" if turn_seq is not None else ""
            params: tuple = (session, turn_seq) if turn_seq is not None else (session,)
            rows = self.store._rows(
                f"SELECT role, content FROM conversation_turns WHERE session = ? {before} ORDER BY seq DESC LIMIT 3",
                params,
            )
            turns = [ContextTurn(role=r["role"], content=r["content"]) for r in rows[::-1]]
            if pack_id is None:
                built = self.store.conn.execute(
                    "SELECT pack_id FROM context_builds WHERE session = ? ORDER BY id DESC LIMIT 1", (session,)
                ).fetchone()
                pack_id = built[0] if built else None
        if pack_id is not None:
            memories = self.pack_items(pack_id)
        if context:  # one fact per line, like a pack's items
            memories += [line.strip(" -*\t") for line in context.splitlines() if line.strip(" -*\t")]
        request = JudgeRequest(persona=self.judge_spec(state), response=response, turns=turns, memories=memories)
        return ScoreJob(namespace, session, turn_seq, pack_id, state, request)

    def pack_items(self, pack_id: str) -> list[str]:
        row = self.store.conn.execute("SELECT chosen FROM pack_log WHERE pack_id = ?", (pack_id,)).fetchone()
        if not row:
            return []
        ids = [c["id"] if isinstance(c, dict) else c for c in json.loads(row[0])]
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
            previous = [
                r[0]
                for r in self.store.conn.execute(
                    "SELECT ewma FROM sync_scores WHERE session = ? ORDER BY id DESC LIMIT 4", (job.session,)
                )
            ][::-1]
        ewma = round(update_ewma(composite, previous[-1] if previous else None, self.cfg.ewma_lambda), 4)
        trend = trend_of(previous + [ewma])
        c = self.cfg
        action = action_for(ewma, c.reinforce_below, c.anchor_below, c.rebase_below)
        details = {
            **judged[0].notes,
            **({"samples": [j.dimensions.model_dump() for j in judged]} if len(judged) > 1 else {}),
        }
        with self.store.transaction():
            cur = self.store.conn.execute(
                "INSERT INTO sync_scores(namespace, session, turn_seq, at, voice, relational, grounded, style, "
                "constraint_adherence, composite, ewma, trend, action, provider, samples, pack_id, details) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    job.namespace,
                    job.session,
                    job.turn_seq,
                    self._now(),
                    dims["voice"],
                    dims["relational"],
                    dims["grounded"],
                    dims["style"],
                    dims["constraint"],
                    composite,
                    ewma,
                    trend,
                    action,
                    self.provider_name,
                    len(judged),
                    job.pack_id,
                    json.dumps(details, default=str),
                ),
            )
        return {
            "id": int(cur.lastrowid),
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

    def scores(
        self, *, session: str | None = None, namespace: str | None = None, limit: int = 100
    ) -> list[dict[str, Any]]:
        if session is None and namespace is None:
            raise InvalidParams("session", "give a session or a namespace")
        where, params = ("session = ?", session) if session is not None else ("namespace = ?", namespace)
        rows = self.store._rows(f"SELECT * FROM sync_scores WHERE {where} ORDER BY id DESC LIMIT ?", (params, limit))
        return [self._score_row(r) for r in rows[::-1]]

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
        rows = self.store._rows("SELECT * FROM sync_scores WHERE session = ? ORDER BY id DESC LIMIT 1", (session,))
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
            last = self.store.conn.execute(
                "SELECT score_id, last_seq FROM context_builds WHERE session = ? AND drift_action = 'rebase' "
                "ORDER BY id DESC LIMIT 1",
                (session,),
            ).fetchone()
            if last is not None:
                replies_since = self.store.conn.execute(
                    "SELECT count(*) FROM conversation_turns WHERE session = ? AND role = 'assistant' AND seq > ?",
                    (session, last[1] or 0),
                ).fetchone()[0]
                if last[0] == latest["id"] or replies_since < self.cfg.rebase_cooldown_turns:
                    action = "anchor"  # a fresh context was just built: anchors until the cool-down ends
        return action, latest

    def record_context(
        self, session: str, last_seq: int | None, pack_id: str | None, action: str, score_id: int | None
    ) -> None:
        with self.store.transaction():
            self.store.conn.execute(
                "INSERT INTO context_builds(session, at, last_seq, pack_id, drift_action, score_id) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (session, self._now(), last_seq, pack_id, action, score_id),
            )


def sync_day_summary(store, namespace: str, start: datetime, end: datetime) -> dict[str, Any] | None:
    """The day's SyncScore line for the workspace log: how many replies were scored, the mean
    and lowest composite, the EWMA at the day's last score, and the drift actions carried out."""
    span = (namespace, format_time(start), format_time(end))
    row = store.conn.execute(
        "SELECT count(*), avg(composite), min(composite), count(DISTINCT session) FROM sync_scores "
        "WHERE namespace = ? AND at >= ? AND at < ?",
        span,
    ).fetchone()
    if not row[0]:
        return None
    last = store.conn.execute(
        "SELECT ewma, trend, session FROM sync_scores WHERE namespace = ? AND at >= ? AND at < ? "
        "ORDER BY id DESC LIMIT 1",
        span,
    ).fetchone()
    actions = dict(
        store.conn.execute(
            "SELECT drift_action, count(*) FROM context_builds WHERE at >= ? AND at < ? AND drift_action != 'none' "
            "AND session IN (SELECT DISTINCT session FROM sync_scores WHERE namespace = ?) GROUP BY drift_action",
            (span[1], span[2], namespace),
        )
    )
    return {
        "scored": row[0],
        "mean": round(row[1], 3),
        "min": round(row[2], 3),
        "sessions": row[3],
        "last_ewma": round(last[0], 3),
        "last_trend": last[1],
        "last_session": last[2],
        "actions": actions,
    }
