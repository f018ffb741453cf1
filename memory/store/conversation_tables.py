"""The conversations' tables: turns, Observer/Reflector runs, and observations."""

from __future__ import annotations

import json
from typing import Any

from agentmemd.memory.store.database import Store

TURN_COLUMNS = "seq, role, speaker, content, ts, tokens, person, episode"


class ConversationTables:
    def __init__(self, store: Store):
        self.store = store
        self.db = store.db

    # ---- conversation_turns -----------------------------------------------------------------

    def add_turn(self, row: dict[str, Any]) -> int:
        """Store one turn; its ``seq``."""
        table = self.db["conversation_turns"]
        table.insert(row)
        return int(table.last_rowid)

    def add_turns(self, rows: list[dict[str, Any]]) -> list[int]:
        """Store many turns (an import's batch); their seqs, in order."""
        columns = list(rows[0]) if rows else []
        sql = f"INSERT INTO conversation_turns ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"
        return [int(self.store.conn.execute(sql, [row[c] for c in columns]).lastrowid) for row in rows]

    def origin(self, session: str) -> tuple[str, str | None]:
        """(audience, chat) of a session: every turn of a session has its chat's (the user's own, no chat, else)."""
        row = self.store.conn.execute(
            "SELECT audience, chat FROM conversation_turns WHERE session = ? ORDER BY seq LIMIT 1", (session,)
        ).fetchone()
        return (row[0], row[1]) if row else ("user", None)

    def namespace_of(self, session: str) -> str | None:
        row = self.store.conn.execute(
            "SELECT namespace FROM conversation_turns WHERE session = ? LIMIT 1", (session,)
        ).fetchone()
        return row[0] if row else None

    def turn_counts(self, session: str) -> tuple[int, int, int, int]:
        """(turns, observed turns, unobserved tokens, successful reflections)."""
        turns, observed, unobserved_tokens = self.store.conn.execute(
            "SELECT count(*), count(observed_run), coalesce(sum(CASE WHEN observed_run IS NULL THEN tokens END), 0) "
            "FROM conversation_turns WHERE session = ?",
            (session,),
        ).fetchone()
        reflected = self.store.conn.execute(
            "SELECT count(*) FROM conversation_runs WHERE session = ? AND kind = 'reflect' AND status = 'ok'",
            (session,),
        ).fetchone()[0]
        return turns, observed, unobserved_tokens, reflected

    def unobserved(self, session: str) -> list[dict[str, Any]]:
        return self.store._rows(
            f"SELECT {TURN_COLUMNS} FROM conversation_turns WHERE session = ? AND observed_run IS NULL ORDER BY seq",
            (session,),
        )

    def recent(self, session: str, count: int) -> list[dict[str, Any]]:
        """The newest ``count`` turns, observed or not, oldest first."""
        rows = self.store._rows(
            f"SELECT {TURN_COLUMNS} FROM conversation_turns WHERE session = ? ORDER BY seq DESC LIMIT ?",
            (session, count),
        )
        return rows[::-1]

    def turns_before(self, session: str, before_seq: int | None, count: int) -> list[dict[str, Any]]:
        """Up to ``count`` turns before ``before_seq`` (None: the newest), oldest first."""
        before = "AND seq < ?" if before_seq is not None else ""
        params: tuple = (session, before_seq, count) if before_seq is not None else (session, count)
        rows = self.store._rows(
            f"SELECT role, content FROM conversation_turns WHERE session = ? {before} ORDER BY seq DESC LIMIT ?",
            params,
        )
        return rows[::-1]

    def unindexed(self, limit: int) -> list[dict[str, Any]]:
        """The oldest turns not yet stored as episodes (m017), with who may hear them."""
        return self.store._rows(
            "SELECT seq, session, namespace, role, speaker, content, ts, person, chat, audience "
            "FROM conversation_turns WHERE episode IS NULL ORDER BY seq LIMIT ?",
            (limit,),
        )

    def unindexed_count(self, session: str | None = None) -> int:
        where, params = ("AND session = ?", (session,)) if session else ("", ())
        return self.store.conn.execute(
            f"SELECT count(*) FROM conversation_turns WHERE episode IS NULL {where}", params
        ).fetchone()[0]

    def said_before(self, session: str, seq: int, count: int) -> list[tuple[str, str]]:
        """Up to ``count`` (speaker, content) of the session's turns before ``seq``, oldest first."""
        rows = self.store.conn.execute(
            "SELECT speaker, content FROM conversation_turns WHERE session = ? AND seq < ? ORDER BY seq DESC LIMIT ?",
            (session, seq, count),
        ).fetchall()
        return [(speaker, content) for speaker, content in reversed(rows)]

    def set_episodes(self, episodes: dict[int, str]) -> int:
        """Mark turns as stored, each as its episode memory; how many were still unmarked."""
        return self.store.conn.executemany(
            "UPDATE conversation_turns SET episode = ? WHERE seq = ? AND episode IS NULL",
            [(memory_id, seq) for seq, memory_id in episodes.items()],
        ).rowcount  # executemany sums the rows each statement changed

    def last_seq(self, session: str) -> int | None:
        return self.store.conn.execute(
            "SELECT max(seq) FROM conversation_turns WHERE session = ?", (session,)
        ).fetchone()[0]

    def replies_after(self, session: str, seq: int) -> int:
        """How many assistant turns the session has after ``seq``."""
        return self.store.conn.execute(
            "SELECT count(*) FROM conversation_turns WHERE session = ? AND role = 'assistant' AND seq > ?",
            (session, seq),
        ).fetchone()[0]

    def session_page(self, namespace: str, limit: int, offset: int) -> tuple[list[dict[str, Any]], int]:
        """A namespace's conversations, the latest active first: turns, first and last time, how
        many were observed, the chat (if an import's or a channel's); and how many in all."""
        total = self.store.conn.execute(
            "SELECT count(DISTINCT session) FROM conversation_turns WHERE namespace = ?", (namespace,)
        ).fetchone()[0]
        rows = self.store._rows(
            "SELECT session, count(*) AS turns, min(ts) AS first, max(ts) AS last, "
            "sum(observed_run IS NOT NULL) AS observed, max(chat) AS chat, max(seq) AS last_seq "
            "FROM conversation_turns WHERE namespace = ? GROUP BY session ORDER BY last_seq DESC LIMIT ? OFFSET ?",
            (namespace, limit, offset),
        )
        return rows, total

    def turn_page(self, session: str, limit: int, offset: int) -> list[dict[str, Any]]:
        """``limit`` turns of a session, ``offset`` from its newest, oldest first."""
        rows = self.store._rows(
            "SELECT seq, role, speaker, content, ts, tokens, observed_run, chat FROM conversation_turns "
            "WHERE session = ? ORDER BY seq DESC LIMIT ? OFFSET ?",
            (session, limit, offset),
        )
        return rows[::-1]

    def sessions(self) -> list[str]:
        return [r[0] for r in self.store.conn.execute("SELECT DISTINCT session FROM conversation_turns")]

    def mark_observed(self, seqs: list[int], run_id: int) -> int:
        """Claim unobserved turns for a run; how many were still unobserved."""
        return self.store.conn.execute(
            f"UPDATE conversation_turns SET observed_run = ? WHERE observed_run IS NULL AND seq IN "
            f"({', '.join('?' * len(seqs))})",
            (run_id, *sorted(seqs)),
        ).rowcount

    # ---- conversation_runs --------------------------------------------------------------------

    def start_run(self, session: str, kind: str, trigger: str, provider: str, started: str) -> int:
        table = self.db["conversation_runs"]
        table.insert(
            {
                "session": session,
                "kind": kind,
                "trigger": trigger,
                "provider": provider,
                "started": started,
                "status": "running",
            }
        )
        return int(table.last_pk)

    def finish_run(self, run_id: int, finished: str, wall_ms: float, **counts: int) -> None:
        self.db["conversation_runs"].update(
            run_id, {"status": "ok", "finished": finished, "wall_ms": wall_ms, **counts}
        )

    def fail_run(self, run_id: int, finished: str, error: str) -> None:
        self.db["conversation_runs"].update(run_id, {"status": "failed", "finished": finished, "error": error})

    def interrupt_running(self, finished: str) -> None:
        """Runs a crash left 'running' are over."""
        self.store.conn.execute(
            "UPDATE conversation_runs SET status = 'interrupted', finished = ? WHERE status = 'running'", (finished,)
        )

    def runs(self, session: str | None, limit: int) -> list[dict[str, Any]]:
        """The newest ``limit`` runs (of one session, or all), oldest first."""
        where, params = ("WHERE session = ?", (session,)) if session else ("", ())
        rows = self.store._rows(f"SELECT * FROM conversation_runs {where} ORDER BY id DESC LIMIT ?", (*params, limit))
        return rows[::-1]

    # ---- observations ---------------------------------------------------------------------------

    def add_observation(self, row: dict[str, Any]) -> None:
        self.db["observations"].insert(
            {**row, "source_turns": json.dumps(row["source_turns"]), "sources": json.dumps(row["sources"])}
        )

    def retire_observation(self, observation_id: str, status: str, replaced_by: str | None) -> None:
        self.store.conn.execute(
            "UPDATE observations SET status = ?, replaced_by = ? WHERE id = ?", (status, replaced_by, observation_id)
        )

    def live_tokens(self, session: str) -> int:
        return self.store.conn.execute(
            "SELECT coalesce(sum(tokens), 0) FROM observations WHERE session = ? AND status = 'live'", (session,)
        ).fetchone()[0]

    def live(self, session: str) -> list[dict[str, Any]]:
        return self.store._rows(
            "SELECT * FROM observations WHERE session = ? AND status = 'live' ORDER BY date, seq", (session,)
        )

    def observations(self, session: str | None, namespace: str | None, include_replaced: bool) -> list[dict]:
        clauses, params = [], []
        if session:
            clauses.append("session = ?")
            params.append(session)
        if namespace:
            clauses.append("namespace = ?")
            params.append(namespace)
        if not include_replaced:
            clauses.append("status = 'live'")
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        return self.store._rows(f"SELECT * FROM observations {where} ORDER BY session, date, seq", params)

    def observed_between(self, namespace: str, start: str, end: str, limit: int) -> tuple[list[dict[str, Any]], int]:
        """(first ``limit`` live observations made in [start, end), how many in all): the daily log's."""
        where = (
            "FROM observations o JOIN conversation_runs r ON r.id = o.run_id "
            "WHERE o.namespace = ? AND o.status = 'live' AND r.finished >= ? AND r.finished < ?"
        )
        params = (namespace, start, end)
        total = self.store.conn.execute(f"SELECT count(*) {where}", params).fetchone()[0]
        rows = self.store._rows(f"SELECT o.* {where} ORDER BY o.date, o.seq LIMIT ?", params + (limit,))
        return rows, total
