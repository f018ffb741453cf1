"""The persona's tables: PersonaState versions, Persona Preservation Records, hard-rule proposals,
SyncScores and the drift actions each context build carried out."""

from __future__ import annotations

from typing import Any

from agentmemd.memory.core.vocabulary import CONSOLIDATED_SOURCE, IDENTITY_FILES, IDENTITY_TYPES
from agentmemd.memory.store.database import Store, _pack_json, _unpack_json
from agentmemd.memory.store.migrations.shared import new_proposal_id

KEEP_CONTEXTS = 20  # per session, what the newest context builds gave the agent (the dashboard shows it)


class PersonaTables:
    def __init__(self, store: Store):
        self.store = store
        self.db = store.db

    # ---- persona_states ----------------------------------------------------------------

    def latest_state(self, namespace: str) -> str | None:
        """The newest version's JSON."""
        row = self.store.conn.execute(
            "SELECT state FROM persona_states WHERE namespace = ? ORDER BY version DESC LIMIT 1", (namespace,)
        ).fetchone()
        return row[0] if row else None

    def add_state(self, namespace: str, version: int, state_json: str, reason: str, created: str) -> None:
        self.db["persona_states"].insert(
            {"namespace": namespace, "version": version, "state": state_json, "reason": reason, "created": created}
        )

    def states(self, namespace: str, limit: int) -> list[dict[str, Any]]:
        """The newest ``limit`` versions, oldest first."""
        rows = self.store._rows(
            "SELECT version, reason, created, state FROM persona_states WHERE namespace = ? "
            "ORDER BY version DESC LIMIT ?",
            (namespace, limit),
        )
        return rows[::-1]

    def persona_items(self, namespace: str) -> list[dict[str, Any]]:
        """Live persona memories with the workspace file each came from (None: not the person's file)."""
        return self.store._rows(
            "SELECT m.content, m.source, w.path FROM memories m LEFT JOIN workspace_items w ON w.memory_id = m.id "
            "WHERE m.namespace = ? AND m.type = 'persona' AND m.superseded_by IS NULL",
            (namespace,),
        )

    def identity_generation(self, namespace: str) -> int:
        """A number that changes whenever the identity graph's sources in ``namespace`` do (m040;
        Store.identity_changed): what the graph was read at."""
        row = self.store.conn.execute(
            "SELECT generation FROM identity_generations WHERE namespace = ?", (namespace,)
        ).fetchone()
        return row[0] if row else 0

    def identity_items(self, namespace: str) -> list[dict[str, Any]]:
        """The live memories the identity graph is read from, oldest first: persona and relational
        memories (IDENTITY_TYPES), and every item of the person's IDENTITY_FILES (whatever its
        type), with the file each came from."""
        columns = "m.seq, m.id, m.type, m.content, m.source, m.audience, w.path"
        types = ", ".join(f"'{t}'" for t in sorted(IDENTITY_TYPES))
        files = ", ".join(f"'{f}'" for f in IDENTITY_FILES)
        # Two indexed reads (a memory's type; a file's items), not one OR over the namespace's rows.
        rows = self.store._rows(
            f"SELECT {columns} FROM memories m LEFT JOIN workspace_items w ON w.memory_id = m.id "
            f"WHERE m.namespace = ? AND m.type IN ({types}) AND m.superseded_by IS NULL "
            # A consolidated pattern of relational memories is a summary, not a relation anyone stated.
            f"AND (m.source IS NULL OR m.source NOT LIKE '{CONSOLIDATED_SOURCE} %') "
            # CROSS JOIN keeps the file's items first: left to itself SQLite walked every live
            # memory to find them (232 ms at 100,000 memories against 0.2 ms).
            f"UNION SELECT {columns} FROM workspace_items w CROSS JOIN memories m ON m.id = w.memory_id "
            f"WHERE w.path IN ({files}) AND w.namespace = ? AND m.superseded_by IS NULL",
            (namespace, namespace),
        )
        rows.sort(key=lambda r: r["seq"])
        return rows

    # ---- persona_records -------------------------------------------------------------------

    def add_record(self, namespace: str, session: str | None, run_id: int | None, record_json: str, created: str):
        self.db["persona_records"].insert(
            {"namespace": namespace, "session": session, "run_id": run_id, "record": record_json, "created": created}
        )

    def records(self, namespace: str, limit: int) -> list[dict[str, Any]]:
        rows = self.store._rows(
            "SELECT * FROM persona_records WHERE namespace = ? ORDER BY id DESC LIMIT ?", (namespace, limit)
        )
        return rows[::-1]

    # ---- persona_rule_proposals ----------------------------------------------------------------

    # A proposal's id, as callers see it, is its random public_id (m009); the row id stays inside.
    _PROPOSAL = (
        "SELECT public_id AS id, namespace, action, rule, origin, status, created, decided FROM persona_rule_proposals"
    )

    def pending_proposal(self, namespace: str, action: str, rule: str) -> str | None:
        row = self.store.conn.execute(
            "SELECT public_id FROM persona_rule_proposals WHERE namespace = ? AND action = ? AND lower(rule) = lower(?) "
            "AND status = 'pending'",
            (namespace, action, rule),
        ).fetchone()
        return row[0] if row else None

    def add_proposal(self, namespace: str, action: str, rule: str, origin: str, created: str) -> str:
        public_id = new_proposal_id()
        self.db["persona_rule_proposals"].insert(
            {
                "namespace": namespace,
                "action": action,
                "rule": rule,
                "origin": origin,
                "created": created,
                "public_id": public_id,
            }
        )
        return public_id

    def proposal(self, proposal_id: str) -> dict[str, Any] | None:
        rows = self.store._rows(f"{self._PROPOSAL} WHERE public_id = ?", (proposal_id,))
        return rows[0] if rows else None

    def proposals(self, namespace: str, status: str | None) -> list[dict[str, Any]]:
        where, params = ("AND status = ?", (namespace, status)) if status else ("", (namespace,))
        return self.store._rows(
            f"{self._PROPOSAL} WHERE namespace = ? {where} ORDER BY persona_rule_proposals.id", params
        )

    def decide_proposal(self, proposal_id: str, status: str, decided: str) -> None:
        self.store.conn.execute(
            "UPDATE persona_rule_proposals SET status = ?, decided = ? WHERE public_id = ?",
            (status, decided, proposal_id),
        )

    # ---- sync_scores --------------------------------------------------------------------------

    def add_score(self, row: dict[str, Any]) -> int:
        table = self.db["sync_scores"]
        table.insert(row)
        return int(table.last_pk)

    def recent_ewmas(self, session: str, n: int) -> list[float]:
        """The session's last ``n`` EWMAs, oldest first."""
        rows = self.store.conn.execute(
            "SELECT ewma FROM sync_scores WHERE session = ? ORDER BY id DESC LIMIT ?", (session, n)
        ).fetchall()
        return [r[0] for r in rows][::-1]

    def recent_composites(self, session: str, n: int) -> list[float]:
        """The session's last ``n`` composite scores, oldest first."""
        rows = self.store.conn.execute(
            "SELECT composite FROM sync_scores WHERE session = ? ORDER BY id DESC LIMIT ?", (session, n)
        ).fetchall()
        return [r[0] for r in rows][::-1]

    def namespace_composites(self, namespace: str, n: int) -> list[float]:
        """The namespace's last ``n`` composite scores, every session's (the agent's own level)."""
        rows = self.store.conn.execute(
            "SELECT composite FROM sync_scores WHERE namespace = ? ORDER BY at DESC, id DESC LIMIT ?", (namespace, n)
        ).fetchall()
        return [r[0] for r in rows]

    def recent_details(self, session: str, n: int) -> list[tuple[int, str]]:
        """The session's last ``n`` scores' (id, details JSON), oldest first."""
        rows = self.store.conn.execute(
            "SELECT id, details FROM sync_scores WHERE session = ? ORDER BY id DESC LIMIT ?", (session, n)
        ).fetchall()
        return [(r[0], r[1]) for r in rows][::-1]

    def namespace_details(self, namespace: str, n: int) -> list[tuple[int, str]]:
        """The namespace's last ``n`` scores' (id, details JSON), every session's, newest first."""
        rows = self.store.conn.execute(
            "SELECT id, details FROM sync_scores WHERE namespace = ? ORDER BY at DESC, id DESC LIMIT ?",
            (namespace, n),
        ).fetchall()
        return [(r[0], r[1]) for r in rows]

    def low_scored_turns(self, session: str, below: float) -> set[int]:
        return {
            r[0]
            for r in self.store.conn.execute(
                "SELECT turn_seq FROM sync_scores WHERE session = ? AND turn_seq IS NOT NULL AND composite < ?",
                (session, below),
            )
        }

    def scores(self, *, session: str | None, namespace: str | None, limit: int) -> list[dict[str, Any]]:
        """A session's (or else a namespace's) newest ``limit`` scores, oldest first."""
        where, value = ("session = ?", session) if session is not None else ("namespace = ?", namespace)
        rows = self.store._rows(f"SELECT * FROM sync_scores WHERE {where} ORDER BY id DESC LIMIT ?", (value, limit))
        return rows[::-1]

    def day_summary(self, namespace: str, start: str, end: str) -> dict[str, Any] | None:
        """Scores of [start, end): count, mean, min, sessions, the last one, and drift actions carried out."""
        span = (namespace, start, end)
        row = self.store.conn.execute(
            "SELECT count(*), avg(composite), min(composite), count(DISTINCT session) FROM sync_scores "
            "WHERE namespace = ? AND at >= ? AND at < ?",
            span,
        ).fetchone()
        if not row[0]:
            return None
        last = self.store.conn.execute(
            "SELECT ewma, trend, session FROM sync_scores WHERE namespace = ? AND at >= ? AND at < ? "
            "ORDER BY id DESC LIMIT 1",
            span,
        ).fetchone()
        actions = dict(
            self.store.conn.execute(
                "SELECT drift_action, count(*) FROM context_builds WHERE at >= ? AND at < ? AND drift_action != 'none' "
                "AND session IN (SELECT DISTINCT session FROM sync_scores WHERE namespace = ?) GROUP BY drift_action",
                (start, end, namespace),
            )
        )
        return {"count": row[0], "mean": row[1], "min": row[2], "sessions": row[3], "last": last, "actions": actions}

    # ---- context_builds ------------------------------------------------------------------------

    def add_context_build(
        self,
        session: str,
        at: str,
        last_seq: int | None,
        pack_id: str | None,
        action: str,
        score_id: int | None,
        context: dict[str, Any] | None = None,
    ) -> None:
        """Record a build; ``context``: what it gave the agent, kept for the session's newest
        KEEP_CONTEXTS builds."""
        self.db["context_builds"].insert(
            {
                "session": session,
                "at": at,
                "last_seq": last_seq,
                "pack_id": pack_id,
                "drift_action": action,
                "score_id": score_id,
                "context": None if context is None else _pack_json(context),
            }
        )
        self.store.conn.execute(
            "UPDATE context_builds SET context = NULL WHERE session = ? AND context IS NOT NULL AND id NOT IN "
            "(SELECT id FROM context_builds WHERE session = ? AND context IS NOT NULL ORDER BY id DESC LIMIT ?)",
            (session, session, KEEP_CONTEXTS),
        )

    def context_builds(self, session: str, limit: int) -> list[dict[str, Any]]:
        """The session's newest builds, newest first, each with what it gave the agent (None: not kept)."""
        rows = self.store._rows(
            "SELECT id, at, last_seq, pack_id, drift_action, score_id, context FROM context_builds "
            "WHERE session = ? ORDER BY id DESC LIMIT ?",
            (session, limit),
        )
        return [{**r, "context": None if r["context"] is None else _unpack_json(r["context"])} for r in rows]

    def applied_actions(self, namespace: str, session: str | None) -> list[dict[str, Any]]:
        """Drift actions context builds carried out (not "none"), oldest first: where a SyncScore
        plot marks them."""
        where, params = (
            ("session = ?", (session,))
            if session
            else (
                "session IN (SELECT DISTINCT session FROM conversation_turns WHERE namespace = ?)",
                (namespace,),
            )
        )
        return self.store._rows(
            f"SELECT session, at, drift_action AS action, score_id FROM context_builds WHERE {where} "
            "AND drift_action != 'none' ORDER BY id",
            params,
        )

    def latest_pack_of(self, session: str) -> str | None:
        """The pack the session's latest context build held."""
        row = self.store.conn.execute(
            "SELECT pack_id FROM context_builds WHERE session = ? ORDER BY id DESC LIMIT 1", (session,)
        ).fetchone()
        return row[0] if row else None

    def last_rebase(self, session: str) -> tuple[int | None, int | None] | None:
        """(score_id, last_seq) of the session's latest rebase, or None."""
        return self.store.conn.execute(
            "SELECT score_id, last_seq FROM context_builds WHERE session = ? AND drift_action = 'rebase' "
            "ORDER BY id DESC LIMIT 1",
            (session,),
        ).fetchone()
