"""The channels' tables: people and their accounts, chats, stored-message keys, the turns'
full-text index (the raw messages stay searchable), and the corrections an edited or deleted
message makes to its turn and to what was made of it (m024)."""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from agentmemd.memory.core.vocabulary import EPISODE
from agentmemd.memory.store.conversation_tables import said_before
from agentmemd.memory.store.database import Store, _in_chunks, fts_terms, to_blob

USER = "user"  # the person the agent serves: no row of its own in ``people``


class ChannelTables:
    def __init__(self, store: Store):
        self.store = store

    @property
    def conn(self) -> Any:
        """The calling thread's connection: a reader's own inside ``Store.reading`` (people.get and
        the other reads run there), else the writer's. Never the writer's taken once at start."""
        return self.store.conn

    # ---- people ------------------------------------------------------------------------------

    def account(self, namespace: str, channel: str, account: str) -> str | None:
        row = self.conn.execute(
            "SELECT person FROM person_accounts WHERE namespace = ? AND channel = ? AND account = ?",
            (namespace, channel, account),
        ).fetchone()
        return row[0] if row else None

    def add_person(self, person: str, namespace: str, name: str, created: str) -> None:
        self.conn.execute(
            "INSERT INTO people (id, namespace, name, created) VALUES (?, ?, ?, ?)", (person, namespace, name, created)
        )

    def add_account(self, namespace: str, channel: str, account: str, person: str, name: str) -> None:
        self.conn.execute(
            "INSERT INTO person_accounts (namespace, channel, account, person, name) VALUES (?, ?, ?, ?, ?)",
            (namespace, channel, account, person, name),
        )

    def account_names(self, namespace: str, channel: str, accounts: list[str]) -> dict[str, str]:
        """account -> the name it is known by (its own, else its person's), for those of ``accounts``
        known by more than their id."""
        found: dict[str, str] = {}
        for chunk, marks in _in_chunks(accounts):
            rows = self.conn.execute(
                "SELECT a.account, coalesce(nullif(a.name, a.account), p.name) FROM person_accounts a "
                "LEFT JOIN people p ON p.namespace = a.namespace AND p.id = a.person "
                f"WHERE a.namespace = ? AND a.channel = ? AND a.account IN ({marks})",
                (namespace, channel, *chunk),
            )
            found.update({account: name for account, name in rows if name and name != account})
        return found

    def person(self, namespace: str, person: str) -> dict[str, Any] | None:
        rows = self.store._rows("SELECT * FROM people WHERE namespace = ? AND id = ?", (namespace, person))
        return rows[0] if rows else None

    def user_names(self, namespace: str) -> set[str]:
        """The names the user goes by in the namespace's chats (their accounts'), lower-cased."""
        rows = self.store.conn.execute(
            "SELECT DISTINCT name FROM person_accounts WHERE namespace = ? AND person = ?", (namespace, USER)
        )
        return {r[0].lower() for r in rows if r[0]}

    def names(self, namespace: str) -> list[tuple[str, str]]:
        """(person, a name they go by) for every live person of the namespace: their name and the
        names their accounts show; the user's accounts' names too (the user has no row of people)."""
        return [
            (r[0], r[1])
            for r in self.store.conn.execute(
                "SELECT id, name FROM people WHERE namespace = ? AND merged_into IS NULL "
                "UNION SELECT a.person, a.name FROM person_accounts a JOIN people p ON p.id = a.person "
                "AND p.merged_into IS NULL WHERE a.namespace = ? "
                "UNION SELECT person, name FROM person_accounts WHERE namespace = ? AND person = ? AND name IS NOT NULL",
                (namespace, namespace, namespace, USER),
            )
        ]

    def people(self, namespace: str) -> list[dict[str, Any]]:
        """Live people (not merged away) with their message counts and last message time."""
        return self.store._rows(
            "SELECT p.id, p.name, p.created, "
            # a forgotten message's tombstone is no message (its time and speaker are kept for order)
            "(SELECT count(*) FROM conversation_turns t WHERE t.person = p.id AND t.deleted IS NULL) AS messages, "
            "(SELECT min(ts) FROM conversation_turns t WHERE t.person = p.id) AS first_seen, "
            "(SELECT max(ts) FROM conversation_turns t WHERE t.person = p.id) AS last_seen "
            "FROM people p WHERE p.namespace = ? AND p.merged_into IS NULL ORDER BY p.name, p.id",
            (namespace,),
        )

    def accounts(self, namespace: str, person: str) -> list[dict[str, Any]]:
        return self.store._rows(
            "SELECT channel, account, name FROM person_accounts WHERE namespace = ? AND person = ? "
            "ORDER BY channel, account",
            (namespace, person),
        )

    def person_stats(self, namespace: str, person: str) -> dict[str, Any]:
        messages, first, last = self.conn.execute(
            "SELECT count(*) FILTER (WHERE deleted IS NULL), min(ts), max(ts) FROM conversation_turns "
            "WHERE namespace = ? AND person = ?",
            (namespace, person),
        ).fetchone()
        return {"messages": messages, "first_seen": first, "last_seen": last}

    def person_chats(self, namespace: str, person: str) -> list[dict[str, Any]]:
        """Each chat the person spoke in: its messages (a forgotten one's tombstone is none), first
        and last."""
        return self.store._rows(
            "SELECT c.chat, c.channel, c.title, c.kind, count(*) FILTER (WHERE t.deleted IS NULL) AS messages, "
            "min(t.ts) AS first_seen, max(t.ts) AS last_seen FROM conversation_turns t "
            "JOIN chats c ON c.namespace = t.namespace AND c.chat = t.chat "
            "WHERE t.person = ? AND t.namespace = ? GROUP BY c.namespace, c.chat ORDER BY messages DESC",
            (person, namespace),
        )

    def merge(self, namespace: str, source: str, target: str) -> int:
        """Repoint ``source``'s accounts and turns at ``target``; how many turns moved."""
        self.conn.execute(
            "UPDATE person_accounts SET person = ? WHERE namespace = ? AND person = ?", (target, namespace, source)
        )
        self.conn.execute(
            "UPDATE people SET merged_into = ? WHERE namespace = ? AND id = ?", (target, namespace, source)
        )
        # Anyone merged into the source earlier now points at the target too.
        self.conn.execute(
            "UPDATE people SET merged_into = ? WHERE namespace = ? AND merged_into = ?", (target, namespace, source)
        )
        moved = self.conn.execute(
            "UPDATE conversation_turns SET person = ? WHERE namespace = ? AND person = ?", (target, namespace, source)
        ).rowcount
        self.conn.execute(
            "UPDATE memories SET said_by = ? WHERE namespace = ? AND said_by = ?", (target, namespace, source)
        )
        # The source's impressions are rebuilt as the target's at the next Observer run; until then they go.
        self.conn.execute("DELETE FROM impressions WHERE namespace = ? AND person = ?", (namespace, source))
        return moved

    def name_in(self, namespace: str, person: str, audience: str) -> str | None:
        """The name the person's newest message in that audience was sent under."""
        row = self.conn.execute(
            "SELECT speaker FROM conversation_turns WHERE namespace = ? AND person = ? AND audience = ? "
            "ORDER BY seq DESC LIMIT 1",
            (namespace, person, audience),
        ).fetchone()
        return row[0] if row else None

    def sessions_of(self, namespace: str, person: str) -> list[str]:
        """The sessions the person spoke in."""
        return [
            r[0]
            for r in self.conn.execute(
                "SELECT DISTINCT session FROM conversation_turns WHERE namespace = ? AND person = ? ORDER BY session",
                (namespace, person),
            )
        ]

    def has_accounts(self, namespace: str, person: str) -> bool:
        return (
            self.conn.execute(
                "SELECT 1 FROM person_accounts WHERE namespace = ? AND person = ? LIMIT 1", (namespace, person)
            ).fetchone()
            is not None
        )

    def set_merged_into(self, namespace: str, person: str, into: str | None) -> None:
        self.conn.execute("UPDATE people SET merged_into = ? WHERE namespace = ? AND id = ?", (into, namespace, person))

    def merged_into_named(self, namespace: str, into: str | None = None) -> list[tuple[str, str]]:
        """(id, name) of the people merged into ``into`` (None: into anyone)."""
        where, params = (
            ("merged_into IS NOT NULL", (namespace,)) if into is None else ("merged_into = ?", (namespace, into))
        )
        return [
            (r[0], r[1])
            for r in self.conn.execute(
                f"SELECT id, name FROM people WHERE namespace = ? AND {where} ORDER BY id", params
            )
        ]

    def repoint_account(self, namespace: str, channel: str, account: str, name: str, source: str, target: str) -> int:
        """``account`` (shown as ``name``) belongs to ``target``, not ``source``: the account, the
        turns it said in the channel's chats and the memories made from them move; how many turns."""
        self.conn.execute(
            "UPDATE person_accounts SET person = ? WHERE namespace = ? AND channel = ? AND account = ?",
            (target, namespace, channel, account),
        )
        seqs = [
            seq
            for (seq,) in self.conn.execute(
                "SELECT t.seq FROM conversation_turns t JOIN chats c ON c.namespace = t.namespace AND c.chat = t.chat "
                "WHERE t.namespace = ? AND c.channel = ? AND t.person = ? AND t.speaker = ?",
                (namespace, channel, source, name),
            )
        ]
        for start in range(0, len(seqs), 500):
            chunk = seqs[start : start + 500]
            marks = ", ".join("?" * len(chunk))
            self.conn.execute(f"UPDATE conversation_turns SET person = ? WHERE seq IN ({marks})", (target, *chunk))
            self.conn.execute(
                f"UPDATE memories SET said_by = ? WHERE namespace = ? AND said_by = ? AND id IN "
                f"(SELECT memory_id FROM memory_turns WHERE turn_seq IN ({marks}))",
                (target, namespace, source, *chunk),
            )
        return len(seqs)

    # ---- chats and their stored messages -----------------------------------------------------

    def chat(self, namespace: str, chat: str) -> dict[str, Any] | None:
        rows = self.store._rows("SELECT * FROM chats WHERE namespace = ? AND chat = ?", (namespace, chat))
        return rows[0] if rows else None

    def add_chat(self, row: dict[str, Any]) -> None:
        self.store.db["chats"].insert(row)

    def update_chat(self, namespace: str, chat: str, title: str, kind: str) -> None:
        self.conn.execute(
            "UPDATE chats SET title = ?, kind = ? WHERE namespace = ? AND chat = ?", (title, kind, namespace, chat)
        )

    def stored_keys(self, namespace: str, keys: list[str]) -> dict[str, tuple[int, str, str]]:
        """key -> (turn seq, session, ts) for the keys already stored."""
        found: dict[str, tuple[int, str, str]] = {}
        for start in range(0, len(keys), 500):
            chunk = keys[start : start + 500]
            rows = self.conn.execute(
                "SELECT k.key, t.seq, t.session, t.ts FROM chat_message_keys k "
                "JOIN conversation_turns t ON t.seq = k.turn_seq "
                f"WHERE k.namespace = ? AND k.key IN ({', '.join('?' * len(chunk))})",
                (namespace, *chunk),
            )
            found.update({key: (seq, session, ts) for key, seq, session, ts in rows})
        return found

    def add_keys(self, namespace: str, pairs: list[tuple[str, int]]) -> None:
        self.conn.executemany(
            "INSERT INTO chat_message_keys (namespace, key, turn_seq) VALUES (?, ?, ?)",
            [(namespace, key, seq) for key, seq in pairs],
        )

    def last_turn_before(self, namespace: str, chat: str, ts: str) -> tuple[str, str] | None:
        """(session, ts) of the chat's latest stored turn at or before ``ts``."""
        row = self.conn.execute(
            "SELECT session, ts FROM conversation_turns WHERE namespace = ? AND chat = ? AND ts <= ? "
            "ORDER BY ts DESC, seq DESC LIMIT 1",
            (namespace, chat, ts),
        ).fetchone()
        return (row[0], row[1]) if row else None

    def turn_audiences(self, namespace: str) -> list[str]:
        return [
            r[0]
            for r in self.conn.execute(
                "SELECT DISTINCT audience FROM conversation_turns WHERE namespace = ?", (namespace,)
            )
        ]

    def finished_unobserved(self, namespace: str, chat: str) -> list[str]:
        """Sessions of the chat, all but its newest, that still have turns the Observer has not seen."""
        return [
            row[0]
            for row in self.conn.execute(
                "SELECT session FROM conversation_turns WHERE namespace = ? AND chat = ? GROUP BY session "
                "HAVING count(observed_run) < count(*) AND max(ts) < "
                "(SELECT max(ts) FROM conversation_turns WHERE namespace = ? AND chat = ?) ORDER BY max(ts)",
                (namespace, chat, namespace, chat),
            )
        ]

    def chats_known_by_content(self, namespace: str, channel: str) -> list[str]:
        """The namespace's chats of ``channel`` whose ids were made from their content (no app id)."""
        return [
            row[0]
            for row in self.conn.execute(
                "SELECT chat FROM chats WHERE namespace = ? AND channel = ? AND chat LIKE ? ORDER BY chat",
                (namespace, channel, f"{channel}:c-%"),
            )
        ]

    def chats(self, namespace: str) -> list[dict[str, Any]]:
        return self.store._rows(
            "SELECT c.chat, c.channel, c.title, c.kind, count(t.seq) AS messages, "
            "count(DISTINCT t.session) AS sessions, min(t.ts) AS first, max(t.ts) AS last "
            "FROM chats c LEFT JOIN conversation_turns t ON t.namespace = c.namespace AND t.chat = c.chat "
            "WHERE c.namespace = ? GROUP BY c.namespace, c.chat ORDER BY c.channel, c.title",
            (namespace,),
        )

    # ---- impressions ---------------------------------------------------------------------------

    def session_people(self, session: str) -> list[tuple[str, str]]:
        """(person, audience) of everyone but the user who spoke in the session."""
        return self.conn.execute(
            "SELECT DISTINCT person, audience FROM conversation_turns WHERE session = ? AND person IS NOT NULL "
            "AND person != 'user'",
            (session,),
        ).fetchall()

    def person_observations(self, namespace: str, person: str, audience: str) -> list[dict[str, Any]]:
        return self.store._rows(
            "SELECT o.id, o.content, o.category, o.priority, o.date FROM observations o "
            "JOIN memories m ON m.id = o.memory_id WHERE o.namespace = ? AND o.audience = ? AND m.said_by = ? "
            "AND o.status = 'live' ORDER BY o.date DESC LIMIT 200",
            (namespace, audience, person),
        )

    def person_turns(self, namespace: str, person: str, audience: str, limit: int) -> list[dict[str, Any]]:
        """What the person said in the audience, newest first (a tombstone says nothing)."""
        return self.store._rows(
            "SELECT seq, content, ts, chat FROM conversation_turns WHERE namespace = ? AND person = ? AND audience = ? "
            "AND deleted IS NULL ORDER BY seq DESC LIMIT ?",
            (namespace, person, audience, limit),
        )

    def said_by_others(self, namespace: str, person: str, audience: str, limit: int) -> list[str]:
        """What everyone else said in the audience, newest first (a tombstone says nothing)."""
        rows = self.conn.execute(
            "SELECT content FROM conversation_turns WHERE namespace = ? AND audience = ? AND (person IS NULL OR person <> ?) "
            "AND deleted IS NULL AND role <> 'tool' ORDER BY seq DESC LIMIT ?",
            (namespace, audience, person, limit),
        )
        return [row[0] for row in rows]

    def user_spoke_in(self, namespace: str, chat: str) -> bool:
        return bool(
            self.conn.execute(
                "SELECT 1 FROM conversation_turns WHERE namespace = ? AND chat = ? AND person = 'user' LIMIT 1",
                (namespace, chat),
            ).fetchone()
        )

    def known_names(self, namespace: str) -> dict[str, str]:
        """Every name an account shows -> its person."""
        rows = self.conn.execute("SELECT name, person FROM person_accounts WHERE namespace = ?", (namespace,))
        return dict(rows.fetchall())

    def put_impression(self, namespace: str, person: str, audience: str, content: str, updated: str) -> None:
        self.conn.execute(
            "INSERT INTO impressions (namespace, person, audience, content, version, updated) VALUES (?, ?, ?, ?, 1, ?) "
            "ON CONFLICT (namespace, person, audience) DO UPDATE SET content = excluded.content, "
            "version = impressions.version + 1, updated = excluded.updated",
            (namespace, person, audience, content, updated),
        )

    def impressions(self, namespace: str, person: str) -> list[dict[str, Any]]:
        return self.store._rows(
            "SELECT audience, content, version, updated FROM impressions WHERE namespace = ? AND person = ? "
            "ORDER BY audience",
            (namespace, person),
        )

    # ---- the raw turns, by their words -------------------------------------------------------

    def search_turns(
        self,
        namespace: str,
        query: str,
        k: int,
        *,
        chat: str | None = None,
        person: str | None = None,
        session: str | None = None,
        audiences: list[str] | None = None,
    ) -> list[dict[str, Any]]:
        """Turns matching any of the query's words, best BM25 first, with their provenance;
        ``audiences``: only turns said to one of them."""
        found = self.store.turn_match(fts_terms(query))
        if found is None or audiences == []:
            return []
        source, score, match, params = found
        filters = [match, "t.namespace = ?"]
        params = [*params, namespace]
        if audiences is not None:
            filters.append(f"t.audience IN ({', '.join('?' * len(audiences))})")
            params += audiences
        for column, value in (("chat", chat), ("person", person), ("session", session)):
            if value is not None:
                filters.append(f"t.{column} = ?")
                params.append(value)
        return self.store._rows(
            "SELECT t.seq, t.session, t.role, t.speaker, t.person, t.content, t.ts, t.chat, "
            f"c.title AS chat_title, c.channel, c.kind AS chat_kind, t.audience, {score} AS bm25 "
            f"FROM {source} LEFT JOIN chats c ON c.namespace = t.namespace AND c.chat = t.chat "
            f"WHERE {' AND '.join(filters)} ORDER BY bm25 LIMIT ?",
            (*params, k),
        )

    # ---- corrections: a message edited or deleted after it was stored (m024) ------------------

    _TURN = (
        "SELECT t.seq, t.session, t.namespace, t.speaker, t.person, t.audience, t.content, t.ts, t.chat, t.episode, "
        "t.edited, t.deleted, t.utc_offset FROM "
    )

    def message_turn(self, namespace: str, key: str) -> dict[str, Any] | None:
        """The turn stored for a message's key, with when an edit or a deletion last changed it."""
        rows = self.store._rows(
            self._TURN + "chat_message_keys k JOIN conversation_turns t ON t.seq = k.turn_seq "
            "WHERE k.namespace = ? AND k.key = ?",
            (namespace, key),
        )
        return rows[0] if rows else None

    def turn_at(self, namespace: str, seq: int) -> dict[str, Any] | None:
        """Turn ``seq`` of the namespace, as ``message_turn`` gives one."""
        rows = self.store._rows(
            self._TURN + "conversation_turns t WHERE t.namespace = ? AND t.seq = ?", (namespace, seq)
        )
        return rows[0] if rows else None

    def said_at(self, namespace: str, chat: str, ts: str, speaker: str) -> list[tuple[int, str]]:
        """(seq, text) of the turns of the chat that ``speaker`` sent at ``ts``, tombstones too (a
        deleted or forgotten message's turn: an edit of it is not applied)."""
        return [
            (r[0], r[1])
            for r in self.conn.execute(
                "SELECT seq, content FROM conversation_turns WHERE namespace = ? AND chat = ? AND ts = ? "
                "AND speaker = ? ORDER BY seq",
                (namespace, chat, ts, speaker),
            )
        ]

    def turn_memories(self, seq: int) -> list[dict[str, Any]]:
        """The current memories (live or archived) made from turn ``seq``, each with every turn it
        was made from (``turns``, sorted)."""
        rows = [
            row
            for table in ("memories", "memory_archive")
            for row in self.store._rows(
                "SELECT m.id, m.type, m.content, m.context, (SELECT json_group_array(b.turn_seq) FROM memory_turns b "
                f"WHERE b.memory_id = m.id) AS turns FROM memory_turns l JOIN {table} m ON m.id = l.memory_id "
                "WHERE l.turn_seq = ? AND m.superseded_by IS NULL ORDER BY m.seq",
                (seq,),
            )
        ]
        return [{**row, "turns": sorted(json.loads(row["turns"]))} for row in rows]

    def episodes_after(self, session: str, seq: int, count: int) -> list[dict[str, Any]]:
        """The live episodes of the ``count`` turns of the session after ``seq`` and of the turns
        replying to it (those whose neighbourhood holds it): turn, the memory's seq, id, content, context."""
        return self.store._rows(
            "SELECT t.seq AS turn, m.seq, m.id, m.content, m.context FROM (SELECT seq FROM (SELECT seq FROM "
            "conversation_turns WHERE session = ? AND seq > ? ORDER BY seq LIMIT ?) a "
            "UNION SELECT seq FROM conversation_turns WHERE reply_to = ? AND ? > 0) t "
            "JOIN memory_turns l ON l.turn_seq = t.seq "
            "JOIN memories m ON m.id = l.memory_id WHERE m.type = ? AND m.superseded_by IS NULL ORDER BY t.seq",
            (session, seq, count, seq, count, EPISODE),
        )

    def said_before(self, session: str, seq: int, count: int) -> list[tuple[int, str, str]]:
        """(seq, speaker, content) of what an episode of turn ``seq`` is indexed with (said_before)."""
        return said_before(self.conn, session, seq, count)

    def link_replies(self, pairs: list[tuple[int, int]]) -> None:
        """(turn, the turn it replies to) for turns just stored."""
        self.conn.executemany(
            "UPDATE conversation_turns SET reply_to = ? WHERE seq = ?", [(to, seq) for seq, to in pairs]
        )

    def revise_turn(self, seq: int, content: str, tokens: int, edited: str) -> None:
        """The turn says ``content`` now (an edit at ``edited``), and is found by its new words only."""
        self.store.unindex_turn(seq)
        self.conn.execute(
            "UPDATE conversation_turns SET content = ?, tokens = ?, edited = ? WHERE seq = ?",
            (content, tokens, edited, seq),
        )
        self.store.index_turn(seq, content)

    # ---- corrections that came before their message (m046) ---------------------------------------

    def remember_early(
        self, namespace: str, key: str, kind: str, text: str | None, edited_at: str | None, at: str
    ) -> None:
        """A deletion or an edit of a message not stored yet, for when it arrives: a deletion wins
        over any edit, and of two edits the later one (by ``edited_at``) stays."""
        found = self.conn.execute(
            "SELECT kind, edited_at FROM early_corrections WHERE namespace = ? AND key = ?", (namespace, key)
        ).fetchone()
        if found is not None and (found[0] == "deleted" or (kind == "edited" and (found[1] or "") > (edited_at or ""))):
            return
        self.conn.execute(
            "INSERT OR REPLACE INTO early_corrections (namespace, key, kind, text, edited_at, at) VALUES (?, ?, ?, ?, ?, ?)",
            (namespace, key, kind, text, edited_at, at),
        )

    def early_corrections(self, namespace: str, keys: list[str]) -> dict[str, dict[str, Any]]:
        """key -> the correction kept for that message (kind, text, edited_at), of these keys."""
        found: dict[str, dict[str, Any]] = {}
        for chunk, marks in _in_chunks(keys):
            for row in self.store._rows(
                f"SELECT key, kind, text, edited_at FROM early_corrections WHERE namespace = ? AND key IN ({marks})",
                (namespace, *chunk),
            ):
                found[row["key"]] = row
        return found

    def drop_early(self, namespace: str, keys: list[str]) -> None:
        for chunk, marks in _in_chunks(keys):
            self.conn.execute(
                f"DELETE FROM early_corrections WHERE namespace = ? AND key IN ({marks})", (namespace, *chunk)
            )

    def tombstone_turn(self, seq: int, marker: str, tokens: int, deleted: str) -> None:
        """The turn keeps its time and speaker; its words give way to ``marker`` and leave the index.
        It has no episode ('': none, by choice; the caller forgets the one it had) and no Observer
        run reads it (observed_run 0: no run's, when none had)."""
        self.store.unindex_turn(seq)
        self.conn.execute(
            "UPDATE conversation_turns SET content = ?, tokens = ?, deleted = ?, episode = '', "
            "observed_run = coalesce(observed_run, 0) WHERE seq = ?",
            (marker, tokens, deleted, seq),
        )

    def date_memory(self, memory_id: str, created: str) -> None:
        """When what the memory says was said (a new version made from an edit dates from the edit)."""
        self.conn.execute("UPDATE memories SET created = ? WHERE id = ?", (created, memory_id))

    def repoint_observations(
        self, old_id: str, new_id: str, content: str, tokens: int, dated: tuple[str | None, str | None]
    ) -> None:
        """The Observer's rows that were the memory ``old_id`` say what its new version ``new_id``
        says (a context's prefix shows them), and the date it refers to (``dated``: referenced
        date, relative date), read from the new words: "next month", not the old "last week"."""
        self.conn.execute(
            "UPDATE observations SET memory_id = ?, content = ?, tokens = ?, referenced_date = ?, relative_date = ? "
            "WHERE memory_id = ?",
            (new_id, content, tokens, *dated, old_id),
        )

    def set_context(self, seq: int, context: str | None, vectors: np.ndarray) -> None:
        """A live memory indexed with another context (an episode whose neighbourhood changed): its
        embedding, windows and index entries anew; its text and history as they were."""
        (namespace, content) = self.conn.execute(
            "SELECT namespace, content FROM memories WHERE seq = ?", (seq,)
        ).fetchone()
        vectors = np.atleast_2d(vectors)
        self.store._unindex(seq)
        self.conn.execute(
            "UPDATE memories SET context = ?, embedding = ? WHERE seq = ?", (context, to_blob(vectors[0]), seq)
        )
        self.conn.execute("DELETE FROM memory_windows WHERE seq = ?", (seq,))
        self.conn.executemany(
            "INSERT INTO memory_windows (seq, part, embedding) VALUES (?, ?, ?)",
            [(seq, part, to_blob(vec)) for part, vec in enumerate(vectors[1:], 1)],
        )
        self.store._index(seq, namespace, content, context, vectors)
