"""What the daemon derived from what: the reads and writes that let forgetting reach every copy
(memory/retrieval/lineage.py). Lineage is recorded where each copy is made: memory_turns (an
episode's turn, an observation's and a reflection's source turns), observations.source_turns and
.sources, consolidation_nodes.sources and .leaves, and the memory ids the daemon's workspace
sections quote."""

from __future__ import annotations

import hashlib
import json
import unicodedata
from typing import Any

from agentmemd.memory.store.channel_tables import ChannelTables
from agentmemd.memory.store.database import Store, _in_chunks

FORGOTTEN_EVIDENCE = "(forgotten)"


def _topic_from(shift: str, said: list[set[str]]) -> bool:
    """Whether a style shift ("after 'bilbao, winters, rainy': more warmth") names a topic whose
    words one of ``said`` (a forgotten turn's words, lower-cased) holds."""
    if not shift.startswith("after '") or "':" not in shift:
        return False
    words = {w.strip().lower() for w in shift[len("after '") : shift.index("':")].split(",") if w.strip()}
    return bool(words) and any(words <= {w.strip(".,!?;:") for w in turn} for turn in said)


def fingerprint(words: str) -> str:
    """The words of a message folded for case, width and spacing, hashed: the same message read
    from another export (another phone, another zone) has the same fingerprint."""
    folded = " ".join(unicodedata.normalize("NFKC", words).casefold().split())
    return hashlib.sha256(folded.encode("utf-8")).hexdigest()


MIN_QUOTED = 12  # a forgotten text shorter than this is looked for nowhere (it could be anyone's words)


def _scrubbed(value: Any, gone: list[str]) -> Any:
    """``value`` (a score's details) with every string that quotes a forgotten text replaced."""
    if isinstance(value, dict):
        return {k: _scrubbed(v, gone) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrubbed(v, gone) for v in value]
    if isinstance(value, str) and len(value) >= MIN_QUOTED:
        said = " ".join(value.split())
        if any(said in text or text in said for text in gone):
            return FORGOTTEN_EVIDENCE
    return value


class LineageTables:
    def __init__(self, store: Store):
        self.store = store

    @property
    def conn(self) -> Any:
        return self.store.conn

    # ---- turns and what was made from them -------------------------------------------------------

    def turns(self, seqs: list[int]) -> list[dict[str, Any]]:
        """The turns, live or already tombstoned: seq, session, namespace, speaker, content, person, audience, deleted."""
        rows: list[dict[str, Any]] = []
        for chunk, marks in _in_chunks(sorted(set(seqs))):
            rows += self.store._rows(
                "SELECT seq, session, namespace, speaker, content, person, audience, deleted "
                f"FROM conversation_turns WHERE seq IN ({marks}) ORDER BY seq",
                chunk,
            )
        return rows

    def live_turns_holding(self, namespace: str, values: list[str]) -> list[tuple[int, str]]:
        """(seq, content) of the namespace's live turns whose words hold any of ``values`` (a scan:
        a forget's rare work, not a request's)."""
        found: dict[int, str] = {}
        for value in values:
            escaped = value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            for seq, content in self.conn.execute(
                "SELECT seq, content FROM conversation_turns WHERE namespace = ? AND deleted IS NULL "
                "AND content LIKE ? ESCAPE '\\'",
                (namespace, f"%{escaped}%"),
            ):
                found[seq] = content
        return sorted(found.items())

    def live_turns_saying(self, namespace: str, texts: list[str], besides: set[int]) -> list[int]:
        """The namespace's live turns but ``besides`` whose words are one of ``texts``, folded for
        case, width and spacing (``fingerprint``): the same message stored from another phone's
        export (other sender names, other keys) before it was forgotten. A scan, bounded by length:
        a forget's rare work, not a request's."""
        prints = {fingerprint(t) for t in texts if len(" ".join(t.split())) >= MIN_QUOTED}
        if not prints:
            return []
        lengths = [len(t) for t in texts]
        shortest, longest = min(lengths) // 2, max(lengths) * 2 + 16  # spacing and width may differ
        return [
            seq
            for seq, content in self.conn.execute(
                "SELECT seq, content FROM conversation_turns WHERE namespace = ? AND deleted IS NULL "
                "AND length(content) BETWEEN ? AND ?",
                (namespace, shortest, longest),
            )
            if seq not in besides and fingerprint(content) in prints
        ]

    def made_from_turns(self, seqs: list[int]) -> list[str]:
        """Every memory version (live or archived) made from any of these turns."""
        found: set[str] = set()
        for chunk, marks in _in_chunks(sorted(set(seqs))):
            found.update(
                row[0]
                for row in self.conn.execute(f"SELECT memory_id FROM memory_turns WHERE turn_seq IN ({marks})", chunk)
            )
        return sorted(found)

    def observations_of(self, sessions: list[str], turns: set[int], memory_ids: set[str]) -> list[str]:
        """Observation rows (any status) of these sessions that were made from any of ``turns``, are
        one of ``memory_ids``, or were merged from such a row (the Reflector's), however many steps away."""
        rows = [
            row
            for session in sorted(set(sessions))
            for row in self.conn.execute(
                "SELECT id, memory_id, source_turns, sources FROM observations WHERE session = ?", (session,)
            )
        ]
        gone = {oid for oid, mid, made_from, _ in rows if mid in memory_ids or turns & set(json.loads(made_from))}
        grew = True
        while grew:
            more = {oid for oid, _, _, sources in rows if oid not in gone and gone & set(json.loads(sources))}
            gone |= more
            grew = bool(more)
        return sorted(gone)

    def merged_into(self, observation_ids: list[str]) -> list[dict[str, Any]]:
        """id and memory_id of the observations the Reflector merged into any of these."""
        rows: list[dict[str, Any]] = []
        for chunk, marks in _in_chunks(observation_ids):
            rows += self.store._rows(
                f"SELECT id, memory_id FROM observations WHERE status = 'merged' AND replaced_by IN ({marks})", chunk
            )
        return rows

    def unretire_observation(self, observation_id: str) -> None:
        self.conn.execute("UPDATE observations SET status = 'live', replaced_by = NULL WHERE id = ?", (observation_id,))

    def observation_memories(self, observation_ids: list[str]) -> list[str]:
        found: set[str] = set()
        for chunk, marks in _in_chunks(observation_ids):
            found.update(
                row[0]
                for row in self.conn.execute(
                    f"SELECT memory_id FROM observations WHERE id IN ({marks}) AND memory_id IS NOT NULL", chunk
                )
            )
        return sorted(found)

    def consolidated_from(self, memory_ids: set[str]) -> list[str]:
        """Consolidated memories built from any of these (directly or as a leaf), and those built from them."""
        nodes = [
            (node, set(json.loads(sources)) | set(json.loads(leaves)))
            for node, sources, leaves in self.conn.execute("SELECT memory_id, sources, leaves FROM consolidation_nodes")
        ]
        gone: set[str] = set()
        reached = set(memory_ids)
        grew = True
        while grew:
            more = {node for node, made_from in nodes if node not in gone and made_from & reached}
            gone |= more
            reached |= more
            grew = bool(more)
        return sorted(gone)

    # ---- removing the words -----------------------------------------------------------------------

    def delete_observations(self, observation_ids: list[str]) -> None:
        for chunk, marks in _in_chunks(observation_ids):
            self.conn.execute(f"DELETE FROM observations WHERE id IN ({marks})", chunk)

    def drop_context_copies(self, sessions: list[str], pack_ids: list[str]) -> int:
        """Forget what the kept context builds gave the agent (`conversation.contexts`) in these
        sessions, or with one of these packs: it quoted the turns or the memories that go; how many."""
        dropped = 0
        for column, values in (("session", sessions), ("pack_id", pack_ids)):
            for start in range(0, len(values), 500):
                chunk = values[start : start + 500]
                dropped += self.conn.execute(
                    f"UPDATE context_builds SET context = NULL WHERE context IS NOT NULL "
                    f"AND {column} IN ({', '.join('?' * len(chunk))})",
                    chunk,
                ).rowcount
        return dropped

    def scrub_persona(self, turns: list[dict[str, Any]]) -> int:
        """Take the forgotten turns' words out of the persona track: a Persona Preservation Record
        and a PersonaState quote up to 3 of the agent's turns as evidence (source
        "conversation:SESSION#turn:SEQ"), and a record's style shifts name the topic of the user's
        turn before (its first content words). Each quote becomes FORGOTTEN_EVIDENCE; a shift whose
        topic words all come from a forgotten turn goes. How many rows changed."""
        changed = 0
        for namespace in sorted({t["namespace"] for t in turns}):
            mine = [t for t in turns if t["namespace"] == namespace]
            marks = [f'#turn:{t["seq"]}"' for t in mine]
            said = [set(t["content"].lower().split()) for t in mine]
            sessions = {t["session"] for t in mine}
            for table, column, session in (
                ("persona_records", "record", "session"),
                ("persona_states", "state", "NULL"),  # a state is the namespace's, of every session
            ):
                for row_id, text, of in self.conn.execute(
                    f"SELECT id, {column}, {session} FROM {table} WHERE namespace = ?", (namespace,)
                ).fetchall():
                    if of not in sessions and not any(mark in text for mark in marks):
                        continue
                    data = json.loads(text)
                    before = json.dumps(data, sort_keys=True)
                    for evidence in data.get("evidence", []):
                        if any(f'{evidence.get("source", "")}"'.endswith(mark) for mark in marks):
                            evidence["snippet"] = FORGOTTEN_EVIDENCE
                    if "style_shifts" in data:
                        data["style_shifts"] = [shift for shift in data["style_shifts"] if not _topic_from(shift, said)]
                    if json.dumps(data, sort_keys=True) != before:
                        self.conn.execute(f"UPDATE {table} SET {column} = ? WHERE id = ?", (json.dumps(data), row_id))
                        changed += 1
        return changed

    def scrub_scores(self, namespace: str, texts: list[str]) -> int:
        """Take forgotten words out of the SyncScore records: a score's details quote the reply and
        the memory or turn it contradicted (up to 160 characters each). A quoted text that is part
        of a forgotten one (or holds one) becomes FORGOTTEN_EVIDENCE; how many rows changed."""
        gone = [" ".join(t.split()) for t in texts if len(t.strip()) >= MIN_QUOTED]
        if not gone:
            return 0
        changed = 0
        found: dict[int, str] = {}
        for text in gone:  # the rows that may quote it, by its opening as the JSON holds it
            opening = json.dumps(text[:MIN_QUOTED])[1:-1]
            for row_id, details in self.conn.execute(
                "SELECT id, details FROM sync_scores WHERE namespace = ? AND instr(details, ?) > 0",
                (namespace, opening),
            ).fetchall():
                found[row_id] = details
        for row_id, details in found.items():
            data = json.loads(details)
            scrubbed = _scrubbed(data, gone)
            if scrubbed != data:
                self.conn.execute("UPDATE sync_scores SET details = ? WHERE id = ?", (json.dumps(scrubbed), row_id))
                changed += 1
        return changed

    def drop_goal_notes(self, memory_ids: list[str]) -> int:
        """Drop the goals' progress notes the Observer wrote from these memories (each note ends
        with its observation's id); how many."""
        return sum(
            self.conn.execute(
                "DELETE FROM goal_notes WHERE origin = 'observer' AND text LIKE ?", (f"%({memory_id})",)
            ).rowcount
            for memory_id in memory_ids
        )

    def drop_impressions(self, keys: list[tuple[str, str, str]]) -> int:
        """Drop the impressions (namespace, person, audience) built from words now forgotten; how many."""
        return sum(
            self.conn.execute(
                "DELETE FROM impressions WHERE namespace = ? AND person = ? AND audience = ?", key
            ).rowcount
            for key in keys
        )

    def sessions_hearing(self, keys: list[tuple[str, str, str]]) -> list[str]:
        """The sessions whose contexts put these impressions (namespace, person, audience) in their
        prefix: those the person spoke in (a context hears its participants' impressions)."""
        tables = ChannelTables(self.store)
        return sorted({session for namespace, person, _ in keys for session in tables.sessions_of(namespace, person)})

    def observation_rows_of(self, memory_ids: list[str]) -> list[str]:
        """The observation rows whose memory is one of these."""
        found: list[str] = []
        for chunk, marks in _in_chunks(sorted(set(memory_ids))):
            found += [
                row[0] for row in self.conn.execute(f"SELECT id FROM observations WHERE memory_id IN ({marks})", chunk)
            ]
        return sorted(found)

    def impressions_of(self, keys: list[tuple[str, str, str]]) -> int:
        return sum(
            self.conn.execute(
                "SELECT count(*) FROM impressions WHERE namespace = ? AND person = ? AND audience = ?", key
            ).fetchone()[0]
            for key in keys
        )

    # ---- what stays forgotten ---------------------------------------------------------------------

    def remember_forgotten(self, namespace: str, words: list[str], at: str) -> None:
        self.conn.executemany(
            "INSERT OR IGNORE INTO forgotten_words (namespace, fingerprint, at) VALUES (?, ?, ?)",
            [(namespace, fingerprint(w), at) for w in words if w.strip()],
        )

    def forgotten(self, namespace: str, words: list[str]) -> set[str]:
        """Those of ``words`` that were forgotten in the namespace (by their fingerprints)."""
        prints = {fingerprint(w): w for w in words}
        found: set[str] = set()
        for chunk, marks in _in_chunks(sorted(prints)):
            found.update(
                prints[row[0]]
                for row in self.conn.execute(
                    f"SELECT fingerprint FROM forgotten_words WHERE namespace = ? AND fingerprint IN ({marks})",
                    [namespace, *chunk],
                )
            )
        return found

    # ---- the daemon's workspace sections ----------------------------------------------------------

    def sections_quoting(self, memory_ids: list[str]) -> list[str]:
        """Workspace files whose daemon-written section quotes any of these memory ids."""
        needles = [f"`{mid}`" for mid in memory_ids]
        return [
            path
            for path, body in self.conn.execute("SELECT path, body FROM owned_sections ORDER BY path")
            if any(n in body for n in needles)
        ]
