"""Schema, as numbered migrations (sqlite-utils' Migrations, the helper llm uses).

Never edit an applied migration; add the next number.
"""

from __future__ import annotations

import secrets

from sqlite_utils import Migrations

# The set's name is what an agentmemd reads its applied migrations by. It was "agentmemd.memory"
# until the data dir had to keep out the releases before the version check (m026), which read none
# under the new name, try to create the tables again and stop at start with nothing changed
# (schema.py renames a data dir's rows as it opens it).
migrations = Migrations("agentmemd.store")
FORMER_SET_NAMES = ("agentmemd.memory",)

_MEMORY_COLUMNS = """
    id TEXT NOT NULL UNIQUE,
    namespace TEXT NOT NULL,
    content TEXT NOT NULL,
    context TEXT,
    type TEXT NOT NULL,
    priority REAL NOT NULL,
    source TEXT,
    tags TEXT NOT NULL DEFAULT '[]',
    created TEXT NOT NULL,
    ingested TEXT NOT NULL,
    last_accessed TEXT NOT NULL,
    access_count REAL NOT NULL,
    version INTEGER NOT NULL DEFAULT 1,
    supersedes TEXT,
    superseded_by TEXT,
    token_len INTEGER NOT NULL,
    embedding BLOB NOT NULL
"""


@migrations()
def m001_memories(db):
    # seq is the stable integer key shared with the vec0 and FTS5 indexes.
    db.execute(f"CREATE TABLE memories (seq INTEGER PRIMARY KEY, {_MEMORY_COLUMNS})")
    db.execute("CREATE INDEX idx_memories_ns_type ON memories(namespace, type)")
    db.execute("CREATE INDEX idx_memories_ns_accessed ON memories(namespace, last_accessed)")
    # The archive: memories that decayed below the Cold tier or were archived by hand.
    # Not indexed for search; restored to `memories` by a direct reference.
    db.execute(f"CREATE TABLE memory_archive (seq INTEGER PRIMARY KEY, {_MEMORY_COLUMNS}, archived_at TEXT NOT NULL)")
    db.execute("CREATE INDEX idx_archive_ns ON memory_archive(namespace)")
    # Contentless: it indexes content plus the optional context, which is not a column
    # of its own anywhere; contentless_delete lets a row leave the index by rowid.
    db.execute(
        "CREATE VIRTUAL TABLE memories_fts USING fts5("
        "text, content='', contentless_delete=1, "
        "tokenize='porter unicode61 remove_diacritics 2')"
    )
    db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")


@migrations()
def m002_pack_log(db):
    db.execute(
        """CREATE TABLE pack_log (
            pack_id TEXT PRIMARY KEY,
            namespace TEXT NOT NULL,
            query TEXT NOT NULL,
            budget_tokens INTEGER NOT NULL,
            at TEXT NOT NULL,
            tokens INTEGER NOT NULL,
            text TEXT NOT NULL,
            candidates TEXT NOT NULL,
            chosen TEXT NOT NULL
        )"""
    )
    db.execute("CREATE INDEX idx_pack_log_at ON pack_log(at)")


@migrations()
def m003_read_path_indexes(db):
    # Pinned and recent candidates are LIMIT queries; these indexes make them index walks
    # instead of sorts over every persona/relational (or every) memory of a namespace.
    db.execute("DROP INDEX IF EXISTS idx_memories_ns_type")
    db.execute("DROP INDEX IF EXISTS idx_memories_ns_accessed")
    db.execute("CREATE INDEX idx_memories_pinned ON memories(namespace, type, priority DESC, seq)")
    db.execute("CREATE INDEX idx_memories_recent ON memories(namespace, last_accessed DESC, seq DESC)")
    # health/stats count live memories; rows carry their embedding, so a table scan reads it all.
    db.execute("CREATE INDEX idx_memories_live ON memories(superseded_by, namespace, type)")


@migrations()
def m004_workspace(db):
    # Which memory each Markdown item became (memory_id is always the current version),
    # and what each file looked like when last indexed (to catch up after downtime).
    db.execute(
        """CREATE TABLE workspace_items (
            memory_id TEXT PRIMARY KEY,
            namespace TEXT NOT NULL,
            path TEXT NOT NULL,
            item_key TEXT NOT NULL,
            anchor TEXT NOT NULL,
            heading_path TEXT NOT NULL,
            content TEXT NOT NULL
        )"""
    )
    db.execute("CREATE INDEX idx_workspace_items_path ON workspace_items(path)")
    db.execute(
        """CREATE TABLE workspace_files (
            path TEXT PRIMARY KEY,
            sha256 TEXT,
            size INTEGER NOT NULL,
            status TEXT NOT NULL,
            reason TEXT,
            indexed_at TEXT NOT NULL
        )"""
    )


@migrations()
def m005_jobs(db):
    # job_state.checked_through: every fire time of the job up to this instant has been
    # handled (run, or caught up at start). job_runs: one row per run, for `agentmemd jobs`.
    db.execute("CREATE TABLE job_state (name TEXT PRIMARY KEY, checked_through TEXT NOT NULL)")
    db.execute(
        """CREATE TABLE job_runs (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            trigger TEXT NOT NULL,
            started TEXT NOT NULL,
            finished TEXT,
            status TEXT NOT NULL,
            result TEXT,
            error TEXT
        )"""
    )
    db.execute("CREATE INDEX idx_job_runs_name ON job_runs(name, id)")
    db.execute("CREATE INDEX idx_job_runs_started ON job_runs(started)")
    # The daily log lists the memories learned on a day.
    db.execute("CREATE INDEX idx_memories_ingested ON memories(namespace, ingested)")
    # The text the daemon last wrote into each owned Markdown section, so a person's
    # edit inside the section is recognised (and kept) instead of overwritten.
    db.execute("CREATE TABLE owned_sections (path TEXT PRIMARY KEY, body TEXT NOT NULL, written_at TEXT NOT NULL)")
    # Consolidated memories (seed 002, 3.3): level 1-3 nodes over level-0 memories.
    # leaves: the level-0 memory ids under the node (its identity across nights);
    # sources: the memories it was built from directly (provenance).
    db.execute(
        """CREATE TABLE consolidation_nodes (
            memory_id TEXT PRIMARY KEY,
            namespace TEXT NOT NULL,
            level INTEGER NOT NULL,
            leaves TEXT NOT NULL,
            sources TEXT NOT NULL,
            keywords TEXT NOT NULL,
            derived_at TEXT NOT NULL
        )"""
    )
    db.execute("CREATE INDEX idx_consolidation_ns_level ON consolidation_nodes(namespace, level)")


@migrations()
def m006_llm_ledger(db):
    # One row per language-model call: exact token counts from the API's usage fields.
    db.execute(
        """CREATE TABLE llm_calls (
            id INTEGER PRIMARY KEY,
            at TEXT NOT NULL,
            provider TEXT NOT NULL,
            model TEXT NOT NULL,
            task TEXT NOT NULL,
            namespace TEXT,
            status TEXT NOT NULL,
            input_tokens INTEGER NOT NULL DEFAULT 0,
            output_tokens INTEGER NOT NULL DEFAULT 0,
            cache_creation_input_tokens INTEGER NOT NULL DEFAULT 0,
            cache_read_input_tokens INTEGER NOT NULL DEFAULT 0,
            cost_usd REAL NOT NULL DEFAULT 0,
            latency_ms REAL NOT NULL,
            error TEXT
        )"""
    )
    db.execute("CREATE INDEX idx_llm_calls_at ON llm_calls(at)")


@migrations()
def m007_conversations(db):
    # Raw turns, kept for good (seed 002, 8.1.3: transcripts kept for recovery). observed_run:
    # the Observer run that turned the turn into observations (NULL: not yet observed).
    db.execute(
        """CREATE TABLE conversation_turns (
            seq INTEGER PRIMARY KEY,
            session TEXT NOT NULL,
            namespace TEXT NOT NULL,
            role TEXT NOT NULL,
            speaker TEXT NOT NULL,
            content TEXT NOT NULL,
            ts TEXT NOT NULL,
            tokens INTEGER NOT NULL,
            observed_run INTEGER
        )"""
    )
    db.execute("CREATE INDEX idx_turns_session ON conversation_turns(session, seq)")
    db.execute("CREATE INDEX idx_turns_unobserved ON conversation_turns(session, observed_run, seq)")
    # Observations (seed 002, 5.6). status: live | merged | superseded | dropped (by the Reflector);
    # replaced_by: the observation that now carries it. memory_id: the memory it became.
    db.execute(
        """CREATE TABLE observations (
            seq INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            session TEXT NOT NULL,
            namespace TEXT NOT NULL,
            memory_id TEXT,
            date TEXT NOT NULL,
            referenced_date TEXT,
            relative_date TEXT,
            priority TEXT NOT NULL,
            category TEXT NOT NULL,
            content TEXT NOT NULL,
            source_turns TEXT NOT NULL,
            sources TEXT NOT NULL DEFAULT '[]',
            tokens INTEGER NOT NULL,
            status TEXT NOT NULL DEFAULT 'live',
            replaced_by TEXT,
            run_id INTEGER NOT NULL
        )"""
    )
    db.execute("CREATE INDEX idx_observations_session ON observations(session, status, date, seq)")
    db.execute("CREATE INDEX idx_observations_ns ON observations(namespace, status)")
    # Observer and Reflector runs: a run left 'running' by a crash is marked 'interrupted'
    # at the next start and its work is redone (its writes were never committed).
    db.execute(
        """CREATE TABLE conversation_runs (
            id INTEGER PRIMARY KEY,
            session TEXT NOT NULL,
            kind TEXT NOT NULL,
            trigger TEXT NOT NULL,
            provider TEXT NOT NULL,
            started TEXT NOT NULL,
            finished TEXT,
            status TEXT NOT NULL,
            tokens_in INTEGER NOT NULL DEFAULT 0,
            tokens_out INTEGER NOT NULL DEFAULT 0,
            items_in INTEGER NOT NULL DEFAULT 0,
            items_out INTEGER NOT NULL DEFAULT 0,
            wall_ms REAL,
            error TEXT
        )"""
    )
    db.execute("CREATE INDEX idx_conversation_runs ON conversation_runs(session, kind, id)")
    # The semantic response cache (seed 001): per task category and namespace; exact lookups by
    # prompt hash, semantic ones by cosine over the embedded key text.
    db.execute(
        """CREATE TABLE llm_cache (
            id INTEGER PRIMARY KEY,
            category TEXT NOT NULL,
            task TEXT NOT NULL,
            namespace TEXT NOT NULL,
            prompt_hash TEXT NOT NULL,
            key_text TEXT NOT NULL,
            embedding BLOB NOT NULL,
            response TEXT NOT NULL,
            tokens INTEGER NOT NULL,
            created TEXT NOT NULL,
            hits INTEGER NOT NULL DEFAULT 0
        )"""
    )
    db.execute("CREATE UNIQUE INDEX idx_llm_cache_exact ON llm_cache(category, namespace, prompt_hash)")
    db.execute(
        """CREATE TABLE llm_cache_stats (
            task TEXT NOT NULL,
            namespace TEXT NOT NULL,
            hits_exact INTEGER NOT NULL DEFAULT 0,
            hits_semantic INTEGER NOT NULL DEFAULT 0,
            misses INTEGER NOT NULL DEFAULT 0,
            bypassed INTEGER NOT NULL DEFAULT 0,
            tokens_saved INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (task, namespace)
        )"""
    )


@migrations()
def m008_persona(db):
    # PersonaState, every version kept with the evidence for its change (seed 002, 5.2).
    db.execute(
        """CREATE TABLE persona_states (
            id INTEGER PRIMARY KEY,
            namespace TEXT NOT NULL,
            version INTEGER NOT NULL,
            state TEXT NOT NULL,
            reason TEXT NOT NULL,
            created TEXT NOT NULL,
            UNIQUE (namespace, version)
        )"""
    )
    # Hard rules change only when the user confirms a proposal.
    db.execute(
        """CREATE TABLE persona_rule_proposals (
            id INTEGER PRIMARY KEY,
            namespace TEXT NOT NULL,
            action TEXT NOT NULL,
            rule TEXT NOT NULL,
            origin TEXT NOT NULL,
            status TEXT NOT NULL DEFAULT 'pending',
            created TEXT NOT NULL,
            decided TEXT
        )"""
    )
    # Persona Preservation Records, one per compaction run that saw assistant turns.
    db.execute(
        """CREATE TABLE persona_records (
            id INTEGER PRIMARY KEY,
            namespace TEXT NOT NULL,
            session TEXT,
            run_id INTEGER,
            record TEXT NOT NULL,
            created TEXT NOT NULL
        )"""
    )
    # SyncScore history (seed 002, 5.3), per session and across sessions.
    db.execute(
        """CREATE TABLE sync_scores (
            id INTEGER PRIMARY KEY,
            namespace TEXT NOT NULL,
            session TEXT,
            turn_seq INTEGER,
            at TEXT NOT NULL,
            voice REAL NOT NULL,
            relational REAL NOT NULL,
            grounded REAL NOT NULL,
            style REAL NOT NULL,
            constraint_adherence REAL NOT NULL,
            composite REAL NOT NULL,
            ewma REAL NOT NULL,
            trend TEXT NOT NULL,
            action TEXT NOT NULL,
            provider TEXT NOT NULL,
            samples INTEGER NOT NULL,
            pack_id TEXT,
            details TEXT NOT NULL DEFAULT '{}'
        )"""
    )
    db.execute("CREATE INDEX idx_sync_scores_session ON sync_scores(session, id)")
    db.execute("CREATE INDEX idx_sync_scores_ns ON sync_scores(namespace, at)")
    db.execute("CREATE UNIQUE INDEX idx_sync_scores_turn ON sync_scores(session, turn_seq) WHERE turn_seq IS NOT NULL")
    # What conversation.context built: the pack each turn was given (grounded is judged
    # against it) and the drift action it carried out.
    db.execute(
        """CREATE TABLE context_builds (
            id INTEGER PRIMARY KEY,
            session TEXT NOT NULL,
            at TEXT NOT NULL,
            last_seq INTEGER,
            pack_id TEXT,
            drift_action TEXT NOT NULL,
            score_id INTEGER
        )"""
    )
    db.execute("CREATE INDEX idx_context_builds ON context_builds(session, id)")


@migrations()
def m009_unguessable_proposal_ids(db):
    """A hard-rule proposal is addressed by a random id, so no caller can confirm another
    namespace's proposal by counting (issue 13); existing proposals get one too."""
    db.execute("ALTER TABLE persona_rule_proposals ADD COLUMN public_id TEXT")
    for (rowid,) in db.execute("SELECT id FROM persona_rule_proposals").fetchall():
        db.execute("UPDATE persona_rule_proposals SET public_id = ? WHERE id = ?", (new_proposal_id(), rowid))
    db.execute("CREATE UNIQUE INDEX idx_rule_proposals_public ON persona_rule_proposals(public_id)")


@migrations()
def m010_access_tokens(db):
    """Scoped access (issue 13): a door serving someone else presents a token bound to a set of
    namespaces. Only a SHA-256 of each token is kept; namespaces NULL means every namespace."""
    db.execute(
        """CREATE TABLE access_tokens (
            name TEXT PRIMARY KEY,
            token_sha256 TEXT NOT NULL UNIQUE,
            namespaces TEXT,
            created TEXT NOT NULL,
            revoked TEXT
        )"""
    )


@migrations()
def m011_channels(db):
    """Chats and the people in them (issue 15). A person is stable across channels: each account
    (a channel's user id, or the name where the app has none) points at one person, and merging
    two people repoints the accounts. "user" is the person the agent serves."""
    db.execute(
        """CREATE TABLE people (
            id TEXT PRIMARY KEY,
            namespace TEXT NOT NULL,
            name TEXT NOT NULL,
            created TEXT NOT NULL,
            merged_into TEXT
        )"""
    )
    db.execute("CREATE INDEX idx_people_ns ON people(namespace, merged_into)")
    db.execute(
        """CREATE TABLE person_accounts (
            namespace TEXT NOT NULL,
            channel TEXT NOT NULL,
            account TEXT NOT NULL,
            person TEXT NOT NULL,
            name TEXT NOT NULL,
            PRIMARY KEY (namespace, channel, account)
        ) WITHOUT ROWID"""
    )
    db.execute("CREATE INDEX idx_person_accounts_person ON person_accounts(person)")
    db.execute(
        """CREATE TABLE chats (
            namespace TEXT NOT NULL,
            chat TEXT NOT NULL,
            channel TEXT NOT NULL,
            title TEXT NOT NULL,
            kind TEXT NOT NULL,
            created TEXT NOT NULL,
            PRIMARY KEY (namespace, chat)
        ) WITHOUT ROWID"""
    )
    # One row per message stored from a chat: what makes an import idempotent and resumable.
    db.execute(
        """CREATE TABLE chat_message_keys (
            namespace TEXT NOT NULL,
            key TEXT NOT NULL,
            turn_seq INTEGER NOT NULL,
            PRIMARY KEY (namespace, key)
        ) WITHOUT ROWID"""
    )
    # A turn's provenance: the chat it was said in and the person who said it (NULL: an app's
    # own user/assistant turns, as before).
    db.execute("ALTER TABLE conversation_turns ADD COLUMN chat TEXT")
    db.execute("ALTER TABLE conversation_turns ADD COLUMN person TEXT")
    db.execute("CREATE INDEX idx_turns_person ON conversation_turns(person, seq)")
    db.execute("CREATE INDEX idx_turns_chat ON conversation_turns(chat, seq)")
    # The raw turns stay searchable by their words (external content: the text is not stored twice).
    db.execute(
        "CREATE VIRTUAL TABLE conversation_turns_fts USING fts5(content, content='conversation_turns', "
        "content_rowid='seq', tokenize='porter unicode61 remove_diacritics 2')"
    )
    db.execute(
        "CREATE TRIGGER conversation_turns_fts_insert AFTER INSERT ON conversation_turns BEGIN "
        "INSERT INTO conversation_turns_fts(rowid, content) VALUES (new.seq, new.content); END"
    )
    db.execute("INSERT INTO conversation_turns_fts(rowid, content) SELECT seq, content FROM conversation_turns")


@migrations()
def m012_disclosure(db):
    """Who may hear what (memory/core/disclosure.py): an audience on every memory, turn and
    observation, and a memory's origin (the chat it came from, the person who said it)."""
    for table in ("memories", "memory_archive"):
        db.execute(f"ALTER TABLE {table} ADD COLUMN audience TEXT NOT NULL DEFAULT 'user'")
        db.execute(f"ALTER TABLE {table} ADD COLUMN origin_chat TEXT")
        db.execute(f"ALTER TABLE {table} ADD COLUMN said_by TEXT")
    db.execute("ALTER TABLE observations ADD COLUMN audience TEXT NOT NULL DEFAULT 'user'")
    db.execute("ALTER TABLE conversation_turns ADD COLUMN audience TEXT NOT NULL DEFAULT 'user'")
    db.execute("CREATE INDEX idx_memories_audience ON memories(namespace, audience)")
    db.execute("ALTER TABLE pack_log ADD COLUMN audience TEXT")  # whom the pack was for (None: no one said)
    # What was stored before: a chat's turns are its chat's; observations and the memories they
    # became follow their session; the workspace is shared except MEMORY.md and USER.md.
    db.execute(
        "UPDATE conversation_turns SET audience = (SELECT CASE WHEN c.channel IN ('chatgpt', 'claude') THEN 'user' "
        "ELSE c.kind || ':' || c.chat END FROM chats c WHERE c.namespace = conversation_turns.namespace "
        "AND c.chat = conversation_turns.chat) WHERE chat IS NOT NULL"
    )
    db.execute(
        "UPDATE observations SET audience = coalesce((SELECT t.audience FROM conversation_turns t "
        "WHERE t.session = observations.session LIMIT 1), 'user')"
    )
    db.execute(
        "UPDATE memories SET audience = (SELECT o.audience FROM observations o WHERE o.memory_id = memories.id "
        "LIMIT 1) WHERE id IN (SELECT memory_id FROM observations WHERE memory_id IS NOT NULL)"
    )
    db.execute(
        "UPDATE memories SET audience = 'shared' WHERE tags LIKE '%\"workspace\"%' "
        "AND source NOT LIKE 'MEMORY.md%' AND source NOT LIKE 'USER.md%'"
    )


@migrations()
def m013_impressions(db):
    """The agent's impression of each person (seed 004, B.2), one per audience it was built in,
    so it is heard only where what it was built from may be (persona/impressions/impressions.py)."""
    db.execute(
        """CREATE TABLE impressions (
            namespace TEXT NOT NULL,
            person TEXT NOT NULL,
            audience TEXT NOT NULL,
            content TEXT NOT NULL,
            version INTEGER NOT NULL,
            updated TEXT NOT NULL,
            PRIMARY KEY (namespace, person, audience)
        ) WITHOUT ROWID"""
    )


@migrations()
def m014_namespace_fts(db):
    """BM25 per namespace (issue 16): one FTS5 table per namespace, so its IDF, document count,
    average length and stop-word cut are the namespace's own, not the whole store's (a word
    common in one agent's memories must not be a stop word in another's). fts_namespaces
    numbers the tables; the store-wide memories_fts is rebuilt into them and dropped."""
    db.execute("CREATE TABLE fts_namespaces (namespace TEXT PRIMARY KEY, number INTEGER NOT NULL UNIQUE)")
    live = "FROM memories WHERE superseded_by IS NULL"
    for number, (namespace,) in enumerate(db.execute(f"SELECT DISTINCT namespace {live} ORDER BY 1").fetchall(), 1):
        db.execute("INSERT INTO fts_namespaces (namespace, number) VALUES (?, ?)", (namespace, number))
        db.execute(
            f"CREATE VIRTUAL TABLE {namespace_fts_table(number)} USING fts5("
            "text, content='', contentless_delete=1, tokenize='porter unicode61 remove_diacritics 2')"
        )
        db.execute(
            f"INSERT INTO {namespace_fts_table(number)} (rowid, text) SELECT seq, CASE WHEN coalesce(context, '') = '' "
            f"THEN content ELSE context || char(10) || content END {live} AND namespace = ?",
            (namespace,),
        )
    db.execute("DROP TABLE memories_fts")


@migrations()
def m015_memory_windows(db):
    """Long texts (issue 16): a memory longer than the embedding model's window has a vector per
    overlapping window. The first stays in memories.embedding and memories_vec; the others are
    kept here (part 1, 2, ...) for as long as the memory, archived or not."""
    db.execute(
        """CREATE TABLE memory_windows (
            seq INTEGER NOT NULL,
            part INTEGER NOT NULL,
            embedding BLOB NOT NULL,
            PRIMARY KEY (seq, part)
        ) WITHOUT ROWID"""
    )


@migrations()
def m016_episode_index(db):
    """A memory's neighbours in its namespace (the live memories stored just before and after it)
    are one index seek each: retrieval lifts a memory by its episode's match (issue 16)."""
    db.execute("CREATE INDEX idx_memories_episode ON memories(namespace, superseded_by, seq)")


@migrations()
def m017_episodes(db):
    """Episodes (issue 16): every conversation turn also becomes a memory of type 'episode'.

    conversation_turns.episode: the memory id of the turn's episode (NULL: not indexed yet; the
    episode worker picks those up, also after a crash or an upgrade). memory_turns: the turns a
    memory was made from (an episode's own turn, an observation's source turns); two memories
    sharing a turn are linked, so a pack can prefer the observation to the episode it restates.
    """
    db.execute("ALTER TABLE conversation_turns ADD COLUMN episode TEXT")
    db.execute("CREATE INDEX idx_turns_unindexed ON conversation_turns(seq) WHERE episode IS NULL")
    db.execute("CREATE INDEX idx_turns_session_unindexed ON conversation_turns(session) WHERE episode IS NULL")
    db.execute(
        """CREATE TABLE memory_turns (
            memory_id TEXT NOT NULL,
            turn_seq INTEGER NOT NULL,
            PRIMARY KEY (memory_id, turn_seq)
        ) WITHOUT ROWID"""
    )
    db.execute("CREATE INDEX idx_memory_turns_turn ON memory_turns(turn_seq)")
    db.execute(
        "INSERT OR IGNORE INTO memory_turns (memory_id, turn_seq) "
        "SELECT o.memory_id, j.value FROM observations o, json_each(o.source_turns) j WHERE o.memory_id IS NOT NULL"
    )


@migrations()
def m018_fts_context_column(db):
    """A memory's context gets an FTS5 column of its own (issue 16), so BM25 can weigh the words
    of the memory above the words around it ([retrieval] context_weight): a short turn indexed
    with the turns before it no longer outranks the turn that says what was asked. Every
    namespace's table is rebuilt from the live memories."""
    live = "FROM memories WHERE superseded_by IS NULL"
    for number, namespace in db.execute("SELECT number, namespace FROM fts_namespaces ORDER BY number").fetchall():
        db.execute(f"DROP TABLE {namespace_fts_table(number)}")
        create_namespace_fts(db, number)
        db.execute(
            f"INSERT INTO {namespace_fts_table(number)} (rowid, text, context) "
            f"SELECT seq, content, coalesce(context, '') {live} AND namespace = ?",
            (namespace,),
        )


@migrations()
def m019_memory_events(db):
    """What happened to a memory after it was stored (issue 18): reinforced, a new version,
    archived, restored, shared. A memory's page shows it, and its retention over time is redrawn
    from it. access_count: the count after the event (NULL where the event does not change it)."""
    db.execute(
        """CREATE TABLE memory_events (
            id INTEGER PRIMARY KEY,
            memory_id TEXT NOT NULL,
            at TEXT NOT NULL,
            kind TEXT NOT NULL,
            access_count REAL,
            detail TEXT
        )"""
    )
    db.execute("CREATE INDEX idx_memory_events ON memory_events(memory_id, id)")
    # Tiers are computed from these columns: stats, the sweep and a listing by tier read them from
    # this index instead of the rows (which carry their embeddings).
    db.execute(
        "CREATE INDEX idx_memories_access ON memories(superseded_by, namespace, seq, type, last_accessed, access_count)"
    )


@migrations()
def m020_listing_order(db):
    """The dashboard's memory list walks current versions newest first (issue 18): by this index,
    instead of sorting every live memory for each page."""
    db.execute("CREATE INDEX idx_memories_current ON memories(superseded_by, seq)")


@migrations()
def m021_context_text(db):
    """What conversation.context gave the agent, kept for the dashboard (issue 18): the stable
    prefix, the messages and their token parts, zlib-compressed JSON. The newest few per session
    (persona_tables.KEEP_CONTEXTS); older builds keep their row without it."""
    db.execute("ALTER TABLE context_builds ADD COLUMN context BLOB")


@migrations()
def m022_transcript_by_content(db):
    """An app's history is matched against the stored transcript by content, not by count: each
    turn keeps its digest and the running chain of its conversation up to it (NULL until first
    needed: chats imported in bulk never need one). A history that leaves a stored one partway
    (a regenerate, an edit, another chat that opens alike) continues in a branch: a session that
    inherits its parent's turns up to ``fork_seq`` and stores only its own. ``pending``: turns a
    door stored for a model call whose answer has not come back; they are neither observed nor
    made episodes until confirmed, and a refused call takes them back."""
    db.execute("ALTER TABLE conversation_turns ADD COLUMN digest TEXT")
    db.execute("ALTER TABLE conversation_turns ADD COLUMN chain TEXT")
    db.execute("ALTER TABLE conversation_turns ADD COLUMN pending INTEGER NOT NULL DEFAULT 0")
    db.execute("CREATE INDEX idx_turns_chain ON conversation_turns(namespace, chain) WHERE chain IS NOT NULL")
    db.execute("CREATE INDEX idx_turns_digest ON conversation_turns(namespace, digest) WHERE digest IS NOT NULL")
    db.execute("CREATE INDEX idx_turns_pending ON conversation_turns(pending) WHERE pending = 1")
    db.execute(
        """CREATE TABLE conversation_branches (
            session TEXT PRIMARY KEY,
            namespace TEXT NOT NULL,
            family TEXT NOT NULL,
            parent TEXT,
            fork_seq INTEGER,
            created TEXT NOT NULL
        )"""
    )
    db.execute("CREATE INDEX idx_branches_family ON conversation_branches(namespace, family)")
    db.execute("CREATE INDEX idx_branches_parent ON conversation_branches(parent, fork_seq)")


@migrations()
def m023_sessions_by_namespace(db):
    """Session ids are scoped by namespace (memory/core/sessions.py): outside the default namespace
    a conversation's key becomes ``name|namespace``, in every table that names it, so another
    namespace may use the same id. Keys in the default namespace stay as they are. A memory's source
    (conversation:NAME#turn…) keeps the name: the memory's namespace says whose it is."""
    db.execute("CREATE TEMP TABLE renamed (old TEXT PRIMARY KEY, new TEXT NOT NULL, namespace TEXT NOT NULL)")
    db.execute(
        "INSERT OR IGNORE INTO renamed SELECT DISTINCT session, session || '|' || namespace, namespace FROM ("
        "SELECT session, namespace FROM conversation_turns UNION SELECT session, namespace FROM conversation_branches"
        ") WHERE namespace != 'default' AND instr(session, '|') = 0"
    )
    for table, column in (
        ("conversation_turns", "session"),
        ("observations", "session"),
        ("conversation_runs", "session"),
        ("persona_records", "session"),
        ("sync_scores", "session"),
        ("context_builds", "session"),
        ("conversation_branches", "session"),
        ("conversation_branches", "parent"),
        ("conversation_branches", "family"),
    ):
        db.execute(
            f"UPDATE {table} SET {column} = (SELECT new FROM renamed WHERE old = {table}.{column}) "
            f"WHERE {column} IN (SELECT old FROM renamed)"
        )
    db.execute("DROP TABLE renamed")


@migrations()
def m024_corrected_turns(db):
    """A chat message its sender edited or deleted after it was stored (memory/channels/corrections.py):
    ``edited``, when the turn's text was last replaced by an edit (an older edit arriving later is
    not applied over it); ``deleted``, when it was deleted: the turn stays as a tombstone, its time and
    speaker kept, its text a marker, and no edit brings it back."""
    db.execute("ALTER TABLE conversation_turns ADD COLUMN edited TEXT")
    db.execute("ALTER TABLE conversation_turns ADD COLUMN deleted TEXT")


@migrations()
def m025_token_last_use(db):
    """When each access token was last used, by which door (the process at the socket's other
    end: mcp, proxy, webhooks, the CLI) and for which method: the dashboard's Access tokens page.
    Noted in memory on every call and written at most once a minute per token (services/access.py)."""
    for column in ("last_used", "last_door", "last_method"):
        db.execute(f"ALTER TABLE access_tokens ADD COLUMN {column} TEXT")


@migrations()
def m026_schema_versions(db):
    """Which agentmemd wrote the schema: a row each time one applies migrations (its version, the
    newest migration then, the ones it applied, when). An older agentmemd reads the last row to
    refuse a data dir a newer one wrote, naming both versions (store/schema.py)."""
    db.execute(
        """CREATE TABLE schema_versions (
            seq INTEGER PRIMARY KEY,
            agentmemd TEXT NOT NULL,
            schema TEXT NOT NULL,
            applied TEXT NOT NULL,
            at TEXT NOT NULL
        )"""
    )


def _mark_backlog(db, key: str) -> None:
    """Every memory stored so far (live and archived) is to be read once by the daemon that applied
    the migration: the highest seq under ``key`` in meta (store/backlog.py), none for an empty store."""
    db.execute(
        "INSERT OR REPLACE INTO meta (key, value) SELECT ?, CAST(max(seq) AS TEXT) FROM "
        "(SELECT seq FROM memories UNION ALL SELECT seq FROM memory_archive) HAVING max(seq) IS NOT NULL",
        (key,),
    )


@migrations()
def m027_slot_fills(db):
    """Which fact slot of whom each memory fills (where someone lives or works, their partner, ...:
    memory/language/slots.py), found when it is stored, so that a change of fact is linked to the
    facts it changes however few words they share. Memories stored before this migration are read
    once by the daemon that applies it (``slot_fills_backlog`` in meta: the highest seq to read)."""
    db.execute(
        """CREATE TABLE slot_fills (
            seq INTEGER NOT NULL,
            namespace TEXT NOT NULL,
            slot TEXT NOT NULL,
            subject TEXT NOT NULL,
            created TEXT NOT NULL,
            PRIMARY KEY (seq, slot, subject)
        ) WITHOUT ROWID"""
    )
    db.execute("CREATE INDEX slot_fills_by_subject ON slot_fills (namespace, slot, subject, created)")
    _mark_backlog(db, "slot_fills_backlog")


@migrations()
def m028_memory_times(db):
    """The days each memory speaks of ("yesterday", "last weekend", "in March 2023"), resolved
    against the moment it was said when it is stored (memory/language/dates.py): when it happened,
    beside when it was said (``created``). Memories stored before are read once, as for m027."""
    db.execute(
        """CREATE TABLE memory_times (
            seq INTEGER NOT NULL,
            namespace TEXT NOT NULL,
            first_day TEXT NOT NULL,
            after_day TEXT NOT NULL,
            PRIMARY KEY (seq, first_day, after_day)
        ) WITHOUT ROWID"""
    )
    db.execute("CREATE INDEX memory_times_by_day ON memory_times (namespace, first_day)")
    _mark_backlog(db, "memory_times_backlog")


@migrations()
def m029_subscription_slot(db):
    """A slot added since m027 (what a membership or subscription costs): the memories stored
    before are read once more, as for m027, so the slot is found in them too (recording a memory's
    slots twice changes nothing)."""
    _mark_backlog(db, "slot_fills_backlog")


@migrations()
def m030_goals(db):
    """Goals (seed 004's, and a person's standing intents): what the agent is working towards, with
    a priority, a status, an optional due time or trigger phrase, and dated progress notes. The
    embedding of the goal's text is what a request is compared with."""
    db.execute(
        """CREATE TABLE goals (
            id TEXT PRIMARY KEY,
            namespace TEXT NOT NULL,
            text TEXT NOT NULL,
            priority TEXT NOT NULL,
            status TEXT NOT NULL,
            due TEXT,
            trigger TEXT,
            created TEXT NOT NULL,
            updated TEXT NOT NULL,
            finished TEXT,
            surfaced TEXT,
            embedding BLOB NOT NULL
        )"""
    )
    db.execute("CREATE INDEX idx_goals_ns_status ON goals(namespace, status, due)")
    db.execute(
        """CREATE TABLE goal_notes (
            id INTEGER PRIMARY KEY,
            goal TEXT NOT NULL REFERENCES goals(id) ON DELETE CASCADE,
            at TEXT NOT NULL,
            text TEXT NOT NULL,
            origin TEXT NOT NULL
        )"""
    )
    db.execute("CREATE INDEX idx_goal_notes_goal ON goal_notes(goal, id)")


@migrations()
def m031_memory_affect(db):
    """How each memory feels (seed 003, 3.3; memory/language/affect.py): valence, arousal and an
    emotion, read from its words when it is stored (or given with it). Only memories that feel
    something have a row. Memories stored before are read once, as for m027."""
    db.execute(
        """CREATE TABLE memory_affect (
            seq INTEGER PRIMARY KEY,
            namespace TEXT NOT NULL,
            valence REAL NOT NULL,
            arousal REAL NOT NULL,
            emotion TEXT NOT NULL
        )"""
    )
    db.execute("CREATE INDEX memory_affect_by_emotion ON memory_affect (namespace, emotion)")
    _mark_backlog(db, "memory_affect_backlog")


@migrations()
def m032_goal_source(db):
    """Where a goal was written: NULL for one added by a door (goal.add), "GOALS.md L<n>" for a line
    of the workspace's GOALS.md (persona/goals/goals_file.py), which the file then owns."""
    db.execute("ALTER TABLE goals ADD COLUMN source TEXT")


@migrations()
def m033_forgotten_words(db):
    """What a person forgot stays forgotten (memory/retrieval/lineage.py): a fingerprint of each
    forgotten turn's words (SHA-256 of the words folded for case, width and spacing), so a later
    export, a re-import under another key or a resent webhook stores that message as forgotten
    instead of bringing its words back. The words themselves are not kept."""
    db.execute(
        """CREATE TABLE forgotten_words (
            namespace TEXT NOT NULL,
            fingerprint TEXT NOT NULL,
            at TEXT NOT NULL,
            PRIMARY KEY (namespace, fingerprint)
        ) WITHOUT ROWID"""
    )


@migrations()
def m034_daily_logs_are_the_users(db):
    """The daily logs (memory/YYYY-MM-DD.md) are the user's own, as MEMORY.md is: a line a person
    keeps from the daemon's section must not be heard by every chat. Items indexed as shared
    before become the user's (an item annotated shared gets it back at its file's next sync)."""
    for table in ("memories", "memory_archive"):
        db.execute(
            f"UPDATE {table} SET audience = 'user' WHERE audience = 'shared' AND source LIKE 'memory/____-__-__.md%' "
            "AND tags LIKE '%\"workspace\"%'"
        )


@migrations()
def m035_memory_secrets(db):
    """Which memories hold a secret, and of what kinds (memory/safety/secrets.py): a credential, a
    password, a card number, an IBAN, a national ID, a passport number. Such a memory is kept and
    marked, and never packed unless its owner asks for that kind. Only memories holding one have a
    row. Memories stored before are read once, as for m027."""
    db.execute(
        """CREATE TABLE memory_secrets (
            seq INTEGER PRIMARY KEY,
            namespace TEXT NOT NULL,
            kinds TEXT NOT NULL
        )"""
    )
    db.execute("CREATE INDEX memory_secrets_by_namespace ON memory_secrets (namespace)")
    _mark_backlog(db, "memory_secrets_backlog")


@migrations()
def m036_turn_replies(db):
    """The turn a chat message replies to (a Telegram, Slack or Discord reply, a thread): its
    episode is indexed with what it answers, however far back that was said."""
    db.execute("ALTER TABLE conversation_turns ADD COLUMN reply_to INTEGER")
    db.execute("CREATE INDEX idx_turns_reply_to ON conversation_turns(reply_to) WHERE reply_to IS NOT NULL")


@migrations()
def m037_forget_generations(db):
    """How many times something was forgotten in each namespace (memory/store/history_tables.py):
    a language-model answer computed while a forget ran is not cached, since its prompt may quote
    what was just forgotten (memory/llm/cache.py)."""
    db.execute(
        """CREATE TABLE forget_generations (
            namespace TEXT PRIMARY KEY,
            generation INTEGER NOT NULL
        )"""
    )


@migrations()
def m038_run_owners(db):
    """Who started each job run and Observer/Reflector run (``Store.owner``): a daemon starting on a
    PostgreSQL database other daemons share marks only the runs of daemons that are gone as
    interrupted, not another's run at work. Runs from before have none: theirs are over."""
    db.execute("ALTER TABLE job_runs ADD COLUMN owner TEXT")
    db.execute("ALTER TABLE conversation_runs ADD COLUMN owner TEXT")


@migrations()
def m039_pack_log_goals_and_stages(db):
    """A logged pack's goals block and how long each of its stages took (JSON), for
    context.explain: before, the goals were shown only until the entry was written."""
    db.execute("ALTER TABLE pack_log ADD COLUMN goals TEXT")
    db.execute("ALTER TABLE pack_log ADD COLUMN stages TEXT")


@migrations()
def m040_identity_generations(db):
    """How many times the identity graph's sources changed in each namespace (a persona or
    relational memory, or an item of SOUL.md, IDENTITY.md or USER.md, stored, replaced, forgotten,
    archived, shared with others or moved): a graph read before is read again when it changes
    (persona/identity/recall.py), without reading every source's id at each pack."""
    db.execute(
        """CREATE TABLE identity_generations (
            namespace TEXT PRIMARY KEY,
            generation INTEGER NOT NULL
        )"""
    )


@migrations()
def m041_key_columns_first(db):
    """slot_fills and memory_times again, their key's columns declared first and in the key's order:
    SQLite 3.40.0 to 3.41.0 (Debian 12's sqlite3 is 3.40.1) report every row of a WITHOUT ROWID
    table declared otherwise as "NULL value in ..." in PRAGMA integrity_check, so a person checking
    the database with the system's tool saw corruption that was not there."""
    db.execute(
        """CREATE TABLE slot_fills_keyed (
            seq INTEGER NOT NULL,
            slot TEXT NOT NULL,
            subject TEXT NOT NULL,
            namespace TEXT NOT NULL,
            created TEXT NOT NULL,
            PRIMARY KEY (seq, slot, subject)
        ) WITHOUT ROWID"""
    )
    db.execute(
        "INSERT INTO slot_fills_keyed (seq, slot, subject, namespace, created) "
        "SELECT seq, slot, subject, namespace, created FROM slot_fills"
    )
    db.execute("DROP TABLE slot_fills")
    db.execute("ALTER TABLE slot_fills_keyed RENAME TO slot_fills")
    db.execute("CREATE INDEX slot_fills_by_subject ON slot_fills (namespace, slot, subject, created)")
    db.execute(
        """CREATE TABLE memory_times_keyed (
            seq INTEGER NOT NULL,
            first_day TEXT NOT NULL,
            after_day TEXT NOT NULL,
            namespace TEXT NOT NULL,
            PRIMARY KEY (seq, first_day, after_day)
        ) WITHOUT ROWID"""
    )
    db.execute(
        "INSERT INTO memory_times_keyed (seq, first_day, after_day, namespace) "
        "SELECT seq, first_day, after_day, namespace FROM memory_times"
    )
    db.execute("DROP TABLE memory_times")
    db.execute("ALTER TABLE memory_times_keyed RENAME TO memory_times")
    db.execute("CREATE INDEX memory_times_by_day ON memory_times (namespace, first_day)")


def new_proposal_id() -> str:
    return "rp_" + secrets.token_hex(12)


def create_vector_index(db, dim: int) -> None:
    """The vec0 table needs the embedding dimension, known only once an embedder is chosen."""
    db.execute(
        f"CREATE VIRTUAL TABLE IF NOT EXISTS memories_vec USING vec0("
        f"embedding float[{dim}] distance_metric=cosine, namespace text partition key)"
    )


def namespace_fts_table(number: int) -> str:
    return f"memories_fts_{number}"


def create_namespace_fts(db, number: int) -> None:
    """A namespace's FTS5 index (m018): the memory's text and its context, two columns so that
    BM25 can weigh them apart. Contentless (the memories table holds the text);
    contentless_delete lets a row leave it by rowid."""
    db.execute(
        f"CREATE VIRTUAL TABLE {namespace_fts_table(number)} USING fts5("
        "text, context, content='', contentless_delete=1, tokenize='porter unicode61 remove_diacritics 2')"
    )
