"""The conversations' tables: turns, Observer/Reflector runs, and observations."""

from __future__ import annotations

import json
from typing import Any

from agentmemd.memory.core.text import speaker_shown
from agentmemd.memory.store.database import Store, _in_chunks, dead_owners

TURN_COLUMNS = "seq, role, speaker, content, ts, tokens, person, episode, utc_offset"


def said_before(conn, session: str, seq: int, count: int) -> list[tuple[int, str, str]]:
    """Up to ``count`` (seq, speaker, content) of the session's turns before ``seq``, oldest first:
    what an episode of turn ``seq`` is indexed with. A reply (a chat's reply to an earlier message)
    is indexed with what it answers first, however far back that was said, in place of the oldest
    turn before it: read with its question, not diluted among the messages in between."""
    rows = conn.execute(
        "SELECT seq, speaker, content, person FROM conversation_turns WHERE session = ? AND seq < ? "
        "ORDER BY seq DESC LIMIT ?",
        (session, seq, count),
    ).fetchall()
    said = [(row[0], speaker_shown(row[1], row[3]), row[2]) for row in reversed(rows)]
    if not count:
        return said
    answered = conn.execute(
        "SELECT r.seq, r.speaker, r.content, r.person FROM conversation_turns t JOIN conversation_turns r "
        "ON r.seq = t.reply_to WHERE t.seq = ?",
        (seq,),
    ).fetchone()
    if answered is not None and all(answered[0] != s for s, _, _ in said):
        said = [(answered[0], speaker_shown(answered[1], answered[3]), answered[2])] + said[len(said) - count + 1 :]
    return said


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
        """(audience, chat) of a session: every turn of a session has its chat's (the user's own, no chat, else).
        A branch with no turn of its own yet has its parent's."""
        for name, _ in self.segments(session):
            row = self.store.conn.execute(
                "SELECT audience, chat FROM conversation_turns WHERE session = ? ORDER BY seq LIMIT 1", (name,)
            ).fetchone()
            if row:
                return row[0], row[1]
        return "user", None

    def person_speaking(self, namespace: str, chat: str, speaker: str) -> str | None:
        """The person who last spoke in ``chat`` under the name ``speaker`` (None: nobody has)."""
        row = self.store.conn.execute(
            "SELECT person FROM conversation_turns WHERE namespace = ? AND chat = ? AND speaker = ? "
            "AND person IS NOT NULL ORDER BY seq DESC LIMIT 1",
            (namespace, chat, speaker),
        ).fetchone()
        return row[0] if row else None

    def namespace_of(self, session: str) -> str | None:
        row = (
            self.store.conn.execute(
                "SELECT namespace FROM conversation_turns WHERE session = ? LIMIT 1", (session,)
            ).fetchone()
            or self.store.conn.execute(
                "SELECT namespace FROM conversation_branches WHERE session = ?", (session,)
            ).fetchone()
        )
        return row[0] if row else None

    # ---- the transcript by content (m022) ------------------------------------------------------

    def branch(self, session: str) -> dict[str, Any] | None:
        rows = self.store._rows("SELECT * FROM conversation_branches WHERE session = ?", (session,))
        return rows[0] if rows else None

    def add_branch(self, row: dict[str, Any]) -> None:
        self.db["conversation_branches"].insert(row)

    def segments(self, session: str) -> list[tuple[str, int | None]]:
        """The sessions a transcript is made of, newest first: (session, last seq it contributes;
        None for all). A branch inherits its parent's transcript up to the turn it forked at."""
        out: list[tuple[str, int | None]] = [(session, None)]
        seen = {session}
        row = self.branch(session)
        while row and row["parent"] and row["parent"] not in seen:
            out.append((row["parent"], row["fork_seq"]))
            seen.add(row["parent"])
            parent = self.branch(row["parent"])
            # A grandparent's part ends where the parent forked, or earlier if this fork was earlier.
            if parent and parent["fork_seq"] is not None:
                parent = {**parent, "fork_seq": min(parent["fork_seq"], row["fork_seq"])}
            row = parent
        return out

    def _in_transcript(self, session: str) -> tuple[str, list[Any]]:
        """A WHERE clause (and its parameters) for the turns of a session's transcript."""
        parts, params = [], []
        for name, upto in self.segments(session):
            if upto is None:
                parts.append("session = ?")
                params.append(name)
            else:
                parts.append("(session = ? AND seq <= ?)")
                params += [name, upto]
        return "(" + " OR ".join(parts) + ")", params

    def transcript(self, session: str) -> list[dict[str, Any]]:
        """Every turn of the session's transcript, inherited ones too, oldest first."""
        where, params = self._in_transcript(session)
        return self.store._rows(
            f"SELECT {TURN_COLUMNS}, session, digest, chain, pending FROM conversation_turns WHERE {where} "
            "ORDER BY seq",
            params,
        )

    def transcript_unobserved(self, session: str) -> list[dict[str, Any]]:
        where, params = self._in_transcript(session)
        return self.store._rows(
            f"SELECT {TURN_COLUMNS} FROM conversation_turns WHERE {where} AND observed_run IS NULL ORDER BY seq",
            params,
        )

    def transcript_recent(self, session: str, count: int) -> list[dict[str, Any]]:
        where, params = self._in_transcript(session)
        rows = self.store._rows(
            f"SELECT {TURN_COLUMNS} FROM conversation_turns WHERE {where} ORDER BY seq DESC LIMIT ?", (*params, count)
        )
        return rows[::-1]

    def transcript_length(self, session: str) -> int:
        where, params = self._in_transcript(session)
        return self.store.conn.execute(f"SELECT count(*) FROM conversation_turns WHERE {where}", params).fetchone()[0]

    def newest_chain(self, session: str) -> tuple[int, str | None] | None:
        """(seq, chain) of the newest turn of the session's transcript; None when it has none."""
        where, params = self._in_transcript(session)
        row = self.store.conn.execute(
            f"SELECT seq, chain FROM conversation_turns WHERE {where} ORDER BY seq DESC LIMIT 1", params
        ).fetchone()
        return (row[0], row[1]) if row else None

    def own_turns(self, session: str, after_seq: int = -1) -> list[dict[str, Any]]:
        """The session's own turns after ``after_seq``: seq, role, digest, chain, pending (not their text)."""
        return self.store._rows(
            "SELECT seq, role, digest, chain, pending FROM conversation_turns WHERE session = ? AND seq > ? ORDER BY seq",
            (session, after_seq),
        )

    def lacks_chains(self, sessions: list[str]) -> bool:
        """Whether any turn of these sessions was stored before turns had chains."""
        return (
            self.store.conn.execute(
                f"SELECT 1 FROM conversation_turns WHERE chain IS NULL AND session IN ({', '.join('?' * len(sessions))}) "
                "LIMIT 1",
                sessions,
            ).fetchone()
            is not None
        )

    def set_chains(self, rows: list[tuple[str, str, int]]) -> None:
        """(digest, chain, seq) for turns stored before they had one."""
        self.store.conn.executemany("UPDATE conversation_turns SET digest = ?, chain = ? WHERE seq = ?", rows)

    def by_chain(self, namespace: str, chains: list[str]) -> dict[str, tuple[str, int]]:
        """chain -> (session, seq) of the stored turns ending in one of ``chains`` (the newest of equals)."""
        found: dict[str, tuple[str, int]] = {}
        for start in range(0, len(chains), 500):
            part = chains[start : start + 500]
            for chain, session, seq in self.store.conn.execute(
                f"SELECT chain, session, seq FROM conversation_turns WHERE namespace = ? AND chain IN "
                f"({', '.join('?' * len(part))}) ORDER BY seq",
                (namespace, *part),
            ):
                found[chain] = (session, seq)
        return found

    def by_digest(self, namespace: str, digest: str, limit: int = 50) -> list[tuple[str, int]]:
        """(session, seq) of the newest stored turns with this digest."""
        return [
            (session, seq)
            for session, seq in self.store.conn.execute(
                "SELECT session, seq FROM conversation_turns WHERE namespace = ? AND digest = ? "
                "ORDER BY seq DESC LIMIT ?",
                (namespace, digest, limit),
            )
        ]

    def forks_at(self, parent: str, fork_seq: int) -> list[str]:
        return [
            r[0]
            for r in self.store.conn.execute(
                "SELECT session FROM conversation_branches WHERE parent = ? AND fork_seq = ? ORDER BY rowid",
                (parent, fork_seq),
            )
        ]

    def family(self, namespace: str, family: str) -> list[str]:
        """The sessions of a named conversation: its branches, the most recently active last."""
        return [
            r[0]
            for r in self.store.conn.execute(
                "SELECT b.session FROM conversation_branches b LEFT JOIN conversation_turns t ON t.session = b.session "
                "WHERE b.namespace = ? AND b.family = ? GROUP BY b.session ORDER BY coalesce(max(t.seq), 0), b.rowid",
                (namespace, family),
            )
        ]

    def confirm(self, session: str) -> int:
        """Turns of the session's transcript a door stored pending become confirmed; how many."""
        where, params = self._in_transcript(session)
        return self.store.conn.execute(
            f"UPDATE conversation_turns SET pending = 0 WHERE pending = 1 AND {where}", params
        ).rowcount

    def confirm_older_than(self, ts: str) -> int:
        """Pending turns whose call never came back (a door stopped): kept, as what was said."""
        return self.store.conn.execute(
            "UPDATE conversation_turns SET pending = 0 WHERE pending = 1 AND ts < ?", (ts,)
        ).rowcount

    def retract(self, session: str, seqs: list[int]) -> int:
        """Delete pending turns of the session that are still its newest; how many went."""
        gone = 0
        for seq in sorted(seqs, reverse=True):
            newest = self.store.conn.execute(
                "SELECT max(seq) FROM conversation_turns WHERE session = ?", (session,)
            ).fetchone()[0]
            if newest != seq:
                break
            gone += self.store.conn.execute(
                "DELETE FROM conversation_turns WHERE seq = ? AND session = ? AND pending = 1", (seq, session)
            ).rowcount
        return gone

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
        """The session's own turns not yet observed nor pending (the Observer's input)."""
        return self.store._rows(
            f"SELECT {TURN_COLUMNS} FROM conversation_turns WHERE session = ? AND observed_run IS NULL "
            "AND pending = 0 ORDER BY seq",
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
            "FROM conversation_turns WHERE episode IS NULL AND pending = 0 ORDER BY seq LIMIT ?",
            (limit,),
        )

    def unindexed_count(self, session: str | None = None) -> int:
        where, params = ("AND session = ?", (session,)) if session else ("", ())
        return self.store.conn.execute(
            f"SELECT count(*) FROM conversation_turns WHERE episode IS NULL {where}", params
        ).fetchone()[0]

    def unsearchable_count(self, namespace: str, sessions: list[str] | None = None) -> int:
        """Turns of ``namespace`` (of these sessions, by key, when given) the episode worker has still
        to store as episodes; not pending ones (a model call's, unanswered): no episode is due for them."""
        sql = "SELECT count(*) FROM conversation_turns WHERE episode IS NULL AND pending = 0 AND namespace = ?"
        if sessions is None:
            return self.store.conn.execute(sql, (namespace,)).fetchone()[0]
        return sum(
            self.store.conn.execute(f"{sql} AND session IN ({marks})", (namespace, *chunk)).fetchone()[0]
            for chunk, marks in _in_chunks(sorted(set(sessions)))
        )

    def said_before(self, session: str, seq: int, count: int) -> list[tuple[str, str]]:
        """(speaker, content) of what an episode of turn ``seq`` is indexed with (said_before)."""
        return [(speaker, content) for _, speaker, content in said_before(self.store.conn, session, seq, count)]

    def contents(self, seqs: list[int]) -> dict[int, str]:
        """seq -> the turn's text now."""
        out: dict[int, str] = {}
        for chunk, marks in _in_chunks(list(seqs)):
            out.update(
                self.store.conn.execute(f"SELECT seq, content FROM conversation_turns WHERE seq IN ({marks})", chunk)
            )
        return out

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
            "count(observed_run) AS observed, max(chat) AS chat, max(seq) AS last_seq "
            "FROM conversation_turns WHERE namespace = ? GROUP BY session ORDER BY last_seq DESC LIMIT ? OFFSET ?",
            (namespace, limit, offset),
        )
        return rows, total

    def turn_page(self, session: str, limit: int, offset: int) -> list[dict[str, Any]]:
        """``limit`` turns of a session's transcript (a branch's inherited ones too), ``offset``
        from its newest, oldest first."""
        where, params = self._in_transcript(session)
        rows = self.store._rows(
            "SELECT seq, role, speaker, content, ts, tokens, observed_run, chat, session AS stored_in, pending "
            f"FROM conversation_turns WHERE {where} ORDER BY seq DESC LIMIT ? OFFSET ?",
            (*params, limit, offset),
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
                "owner": self.store.owner,
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
        """Runs a crash left 'running' are over; another daemon's run at work (PostgreSQL) is not."""
        update = "UPDATE conversation_runs SET status = 'interrupted', finished = ? WHERE status = 'running' AND "
        for chunk, marks in _in_chunks(dead_owners(self.store, "conversation_runs")):
            self.store.conn.execute(update + f"owner IN ({marks})", (finished, *chunk))
        self.store.conn.execute(update + "owner IS NULL", (finished,))

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

    def observed_between(
        self, namespace: str, start: str, end: str, limit: int, audiences: list[str]
    ) -> tuple[list[dict[str, Any]], int]:
        """(first ``limit`` live observations heard by ``audiences``, made in [start, end), how many
        in all): the daily log's."""
        if not audiences:
            return [], 0
        where = (
            "FROM observations o JOIN conversation_runs r ON r.id = o.run_id "
            "WHERE o.namespace = ? AND o.status = 'live' AND r.finished >= ? AND r.finished < ? "
            f"AND o.audience IN ({', '.join('?' * len(audiences))})"
        )
        params = (namespace, start, end, *audiences)
        total = self.store.conn.execute(f"SELECT count(*) {where}", params).fetchone()[0]
        rows = self.store._rows(f"SELECT o.* {where} ORDER BY o.date, o.seq LIMIT ?", params + (limit,))
        return rows, total
