"""The PostgreSQL store (memory/store/postgres/) on a real PostgreSQL with pgvector: it answers as
SQLite's store does (BM25, nearest vectors), migrates from the same list, takes a whole memory
from SQLite and gives it back identical, refuses what it cannot keep, and serves several daemons
over one database (each sees the others' writes; a scheduled job runs once)."""

from __future__ import annotations

import threading
import time

import numpy as np
import psycopg
import pytest
from conftest import EPOCH, NO_JOBS

from agentmemd.daemon.services.archive import export_archive, import_archive
from agentmemd.daemon.socket.client import RpcCallError
from agentmemd.memory.core.errors import InvalidParams
from agentmemd.memory.store.archive import read_archive
from agentmemd.memory.store.postgres.schema import upgrade_postgres
from agentmemd.memory.store.postgres.store import PostgresStore
from agentmemd.memory.store.schema import known_migrations

pytestmark = pytest.mark.postgres

FACTS = [
    "I still remember the happy high school experiences, like the debate team and economics.",
    "High, so high, after the school gig.",
    "My sister Ana moved to Lisbon in March and works at a bakery there.",
    "Running every morning by the river keeps me sane; I run 5 km before work.",
    "The cat is called Miso and she hates the vacuum cleaner.",
    "We painted the hallway a pale yellow, then repainted it white.",
    "Café au lait at the corner bakery costs 2.80 euros.",
    "My brother Marc is a nurse at the Hospital del Mar.",
]
CONTEXT = "Said on a walk with Ana"


@pytest.fixture
def url(postgres_databases) -> str:
    return postgres_databases()


def _pair(in_process, url: str, together: bool = False):
    """The same memories in a SQLite daemon and a PostgreSQL one (the fake embedder), one by one;
    ``together``: into PostgreSQL in one ``memory.add_many`` (its batched statements)."""
    lite = in_process(fake_embedder=True)
    pg = in_process({"store": {"url": url}}, fake_embedder=True)
    items = [
        {"content": text, "type": "fact", "namespace": "n", **({"context": CONTEXT} if i % 3 == 0 else {})}
        for i, text in enumerate(FACTS)
    ]
    for item in items:
        lite.call("memory.add", item)
    if together:
        pg.call("memory.add_many", {"items": items})
    else:
        for item in items:
            pg.call("memory.add", item)
    return lite, pg


TOGETHER = pytest.mark.parametrize("together", [False, True], ids=["one_by_one", "add_many"])


def _by_id(d, scores: dict[int, float]) -> dict[str, float]:
    seqs = list(scores)
    return dict(zip(d.services.store.ids_of(seqs), (scores[s] for s in seqs)))


def _ids_by_content(d) -> dict[str, str]:
    rows = d.services.store.conn.execute("SELECT id, content FROM memories").fetchall()
    return {content: mid for mid, content in rows}


def test_a_lookup_of_words_reads_the_counts_and_frequencies_in_one_statement(in_process, url, monkeypatch):
    """A pack's BM25 asked the server for the namespace's counts, then for the words' frequencies,
    twice over (for the statistics, then for the scores), before the scores: five round trips, on
    the cores the query's embedding runs on. (Reading the idfs inside the scoring statement too
    was measured slower: the server plans each statement anew.)"""
    _, pg = _pair(in_process, url)
    store = pg.services.store
    statements: list[str] = []
    execute = store.conn.execute
    monkeypatch.setattr(store.conn, "execute", lambda sql, *args: statements.append(sql) or execute(sql, *args))
    assert store.term_statistics("n", ["bakery", "sister", "zebra"])[1][2] == 0
    assert len(statements) == 1
    statements.clear()
    assert store.fts_scores("n", ["bakery", "ana", "walk"], 0.3)
    assert len(statements) == 2  # the counts and frequencies, then the scores


@TOGETHER
def test_bm25_is_fts5s_on_both_stores_words_phrases_and_context_weight(in_process, url, together):
    lite, pg = _pair(in_process, url, together)
    named = [_ids_by_content(lite), _ids_by_content(pg)]
    for terms, weight in [
        (["high", "school"], 1.0),
        (["high school"], 0.5),
        (["bakery", "ana", "walk"], 0.3),
        (["run"], 1.0),
    ]:
        scores = []
        for d, ids in zip((lite, pg), named):
            by_id = _by_id(d, d.services.store.fts_scores("n", terms, weight))
            content_of = {mid: content for content, mid in ids.items()}
            scores.append({content_of[mid]: s for mid, s in by_id.items()})
        assert scores[0].keys() == scores[1].keys() and scores[0], (terms, scores)
        for content, s in scores[0].items():
            assert scores[1][content] == pytest.approx(s, rel=1e-9), (terms, content)
    for terms in (["bakery", "sister", "zebra"], ["running"]):
        assert lite.services.store.term_statistics("n", terms) == pg.services.store.term_statistics("n", terms)
    for d, ids in zip((lite, pg), named):  # a memory forgotten leaves the word counts on both
        d.call("memory.forget", {"id": ids[FACTS[2]], "namespace": "n", "confirm": True})
    assert (
        lite.services.store.term_statistics("n", ["bakery", "sister"])
        == pg.services.store.term_statistics("n", ["bakery", "sister"])
        == (len(FACTS) - 1, [1, 0])
    )
    (together,) = pg.services.store.conn.execute("SELECT seq FROM memories WHERE content = ?", (FACTS[0],)).fetchone()
    assert pg.services.store.phrase_matches("n", ("high school",), 5) == [together]


@TOGETHER
def test_nearest_vectors_are_the_same_memories_with_the_same_cosines(in_process, url, together):
    lite, pg = _pair(in_process, url, together)
    query = lite.services.memories.embedder.embed_query("where does my sister live and work")
    found = []
    for d in (lite, pg):
        hits = d.services.store.knn("n", query, 4)
        found.append(list(zip(d.services.store.ids_of([s for s, _ in hits]), (c for _, c in hits))))
    contents = [[_content(d, mid) for mid, _ in hits] for d, hits in zip((lite, pg), found)]
    assert contents[0] == contents[1]
    assert [c for _, c in found[1]] == pytest.approx([c for _, c in found[0]], abs=1e-5)
    asked = {"query": "where does my sister Ana live", "namespace": "n", "k": 3}
    found = [
        [(h["content"], round(h["score"], 5)) for h in d.call("memory.search", asked)["results"]] for d in (lite, pg)
    ]
    assert found[0] == found[1] and "Lisbon" in found[0][0][0]


def _content(d, mid: str) -> str:
    return d.services.store.conn.execute("SELECT content FROM memories WHERE id = ?", (mid,)).fetchone()[0]


def test_an_older_schema_is_upgraded_by_the_same_migrations(url):
    """A database made before the newest migrations gets them, run as written for SQLite."""
    known = known_migrations()
    before = known.index("m032_goal_source")
    _empty(url)
    with psycopg.connect(url, autocommit=True) as raw:
        upgrade_postgres(raw, 384, known=known[:before])
        assert "source" not in _columns(raw, "goals")
    store = PostgresStore(url, dim=384, model="all-MiniLM-L6-v2")
    try:
        assert store.schema.applied == known[before:] and store.schema.from_schema == known[before - 1]
        assert store.applied_migrations() == known
    finally:
        store.close()
    with psycopg.connect(url, autocommit=True) as raw:
        assert "source" in _columns(raw, "goals") and "fingerprint" in _columns(raw, "forgotten_words")


def _empty(url: str) -> None:
    """The database as a new one: none of the tables the template's store made."""
    with psycopg.connect(url, autocommit=True) as raw:
        for table in [r[0] for r in raw.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")]:
            raw.execute(f"DROP TABLE IF EXISTS {table} CASCADE")


def _columns(raw, table: str) -> list[str]:
    return [
        r[0] for r in raw.execute("SELECT column_name FROM information_schema.columns WHERE table_name = %s", (table,))
    ]


def _fill(d) -> None:
    """A little of everything: memories with contexts and a long text, a new version, a forgotten
    one, a conversation, a goal, a pack."""
    for i, text in enumerate(FACTS):
        d.call("memory.add", {"content": text, "type": "fact", **({"context": CONTEXT} if i % 2 else {})})
    d.call(
        "memory.add",
        {"content": " ".join(["A long day at the allotment, weeding and watering."] * 60), "type": "fact"},
    )
    first = d.call("memory.add", {"content": "I live in Girona", "type": "fact"})["id"]
    d.call("memory.update", {"id": first, "content": "I live in Barcelona now"})
    gone = d.call("memory.add", {"content": "My locker code is 4411", "type": "fact"})["id"]
    d.call("memory.forget", {"id": gone, "confirm": True})
    d.call(
        "conversation.append", {"session": "s1", "role": "user", "content": "Book the dentist for Quillfeather Tuesday"}
    )
    d.call("conversation.append", {"session": "s1", "role": "assistant", "content": "Booked for Tuesday at 10."})
    d.call("goal.add", {"text": "Run a half marathon in spring"})
    d.call("context.pack", {"query": "where do I live", "budget_tokens": 300})
    # The turns' episodes are memories too: indexed now, not by the worker at some moment after
    # the counts below (on a loaded machine it indexed them after, so the archive held one more).
    d.services.episodes.catch_up()


def test_a_memory_goes_to_postgresql_and_back_identical_by_checksums(in_process, url, tmp_path):
    lite = in_process(fake_embedder=True)
    _fill(lite)
    words = ["barcelona", "bakery", "allotment", "dentist"]
    counted = lite.services.store.term_statistics("default", words)
    lite.terminate()
    first, second, back = tmp_path / "a.tar.gz", tmp_path / "b.tar.gz", tmp_path / "back"
    export_archive(lite.data_dir, first)
    _empty(url)
    imported = import_archive(first, None, url)
    assert imported["verified"] == "every table matches its checksum" and imported["memories"] >= 10
    export_archive(None, second, url)
    import_archive(second, back)
    sums = [{t: about["sha256"] for t, about in read_archive(path)[0]["tables"].items()} for path in (first, second)]
    assert sums[0] == sums[1]
    pg = in_process({"store": {"url": url}}, fake_embedder=True)
    assert pg.services.store.term_statistics("default", words) == counted  # the word counts made in bulk
    assert "Barcelona" in pg.call("memory.search", {"query": "where do I live", "k": 1})["results"][0]["content"]
    assert pg.call("memory.search", {"query": "locker code", "k": 5})["results"] == [] or all(
        "4411" not in r["content"] for r in pg.call("memory.search", {"query": "locker code", "k": 5})["results"]
    )
    assert pg.call("conversation.search", {"query": "Quillfeather"})["turns"]  # the turns' index rebuilt
    added = pg.call("memory.add", {"content": "A new memory after the move", "type": "fact"})["id"]
    assert pg.call("memory.get", {"id": added})["content"] == "A new memory after the move"


def test_an_import_into_a_used_database_or_an_export_of_an_empty_one_is_refused(
    in_process, url, postgres_databases, tmp_path
):
    archive = tmp_path / "a.tar.gz"
    lite = in_process(fake_embedder=True)
    lite.call("memory.add", {"content": "One memory", "type": "fact"})
    export_archive(lite.data_dir, archive)
    _empty(url)
    PostgresStore(url, dim=384, model="all-MiniLM-L6-v2").close()  # what an import stopped part way leaves
    import_archive(archive, None, url)  # read in all the same: that store held nothing of anyone's
    with pytest.raises(InvalidParams, match="already holds a store"):
        import_archive(archive, None, url)
    empty = postgres_databases()
    _empty(empty)
    with pytest.raises(InvalidParams, match="no agentmemd store"):
        export_archive(None, tmp_path / "b.tar.gz", empty)
    assert not (tmp_path / "b.tar.gz").exists()


def test_a_text_postgresql_cannot_keep_is_refused_by_name_and_nothing_is_stored(in_process, url):
    pg = in_process({"store": {"url": url}}, fake_embedder=True)
    with pytest.raises(RpcCallError, match="NUL"):
        pg.call("memory.add", {"content": "before\x00after", "type": "fact"})
    assert pg.services.store.conn.execute("SELECT count(*) FROM memories").fetchone()[0] == 0


def test_two_daemons_over_one_database_see_each_others_writes_and_lose_none(in_process, url):
    a = in_process({"store": {"url": url}}, fake_embedder=True)
    b = in_process({"store": {"url": url}}, fake_embedder=True)
    a.call("memory.add", {"content": "The spare key is under the blue pot", "type": "fact", "namespace": "home"})
    assert (
        "blue pot"
        in b.call("memory.search", {"query": "spare key", "namespace": "home", "k": 1})["results"][0]["content"]
    )
    ids: list[str] = []
    lock = threading.Lock()

    def writer(d, who: str) -> None:
        for i in range(15):
            mid = d.call(
                "memory.add", {"content": f"{who} wrote note number {i}", "type": "fact", "namespace": "home"}
            )["id"]
            with lock:
                ids.append(mid)

    threads = [
        threading.Thread(target=writer, args=(d, w)) for d, w in ((a, "alpha"), (b, "beta"), (a, "gamma"), (b, "delta"))
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(ids)) == 60
    (count,) = a.services.store.conn.execute("SELECT count(*) FROM memories WHERE namespace = 'home'").fetchone()
    (indexed,) = a.services.store.conn.execute(
        "SELECT documents FROM memory_terms_stats WHERE namespace = 'home'"
    ).fetchone()
    assert count == indexed == 61
    assert "delta wrote note number 14" in [
        r["content"]
        # k 10: what this checks is that b's write is found through a, not its rank among the other
        # threads' "… note number 14", which the neighbour lift can reorder by how they interleaved.
        for r in a.call("memory.search", {"query": "delta note number 14", "namespace": "home", "k": 10})["results"]
    ]


def test_each_daemons_vectors_in_ram_follow_the_other_daemons_writes(in_process, url, monkeypatch):
    """Vectors are searched in RAM on PostgreSQL too: a daemon's matrix follows what another daemon
    adds, forgets and archives (the change log, read at each search), reads its namespaces again
    when it fell behind the log's pruning or by more changes than it reads one by one, and never
    sees a write that was rolled back."""
    from agentmemd.memory.store.postgres import store as pg_store

    a = in_process({"store": {"url": url}}, fake_embedder=True)
    b = in_process({"store": {"url": url}}, fake_embedder=True)
    rng = np.random.default_rng(7)
    vectors = rng.standard_normal((12, 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)

    def add(i: int) -> str:
        item = {"content": f"note {i}", "type": "fact", "namespace": "v", "embedding": vectors[i].tolist()}
        return a.call("memory.add", item)["id"]

    def nearest(i: int) -> tuple[str | None, float]:
        found = b.services.store.knn("v", vectors[i], 1)
        return (b.services.store.ids_of([found[0][0]])[0], found[0][1]) if found else (None, 0.0)

    first = add(0)
    assert nearest(0) == (first, pytest.approx(1.0, abs=1e-5))  # b reads the namespace whole
    second = add(1)
    assert nearest(1)[0] == second  # then each change, by the log
    a.call("memory.forget", {"id": first, "namespace": "v", "confirm": True})
    assert nearest(0)[0] != first
    a.call("memory.archive", {"id": second, "namespace": "v"})
    assert nearest(1)[0] != second
    a.call("memory.restore", {"id": second, "namespace": "v"})
    assert nearest(1)[0] == second
    # A write rolled back leaves nothing: its changes were never committed.
    store = a.services.store
    with pytest.raises(RuntimeError), store.transaction():
        store._index_vectors(999_999, "v", vectors[2])
        raise RuntimeError("rolled back")
    assert nearest(2)[0] in (None, second)
    # More changes than a search reads one by one: the namespace is read again, whole.
    monkeypatch.setattr(pg_store, "VECTOR_CHANGES_READ", 2)
    many = [add(i) for i in (3, 4, 5, 6)]
    assert [nearest(i)[0] for i in (3, 4, 5, 6)] == many
    # Behind the log's pruning: read again too.
    monkeypatch.setattr(pg_store, "VECTOR_CHANGES_KEPT", 1)
    later = add(7)
    store._prune_vector_changes()
    assert store.conn.execute("SELECT count(*) FROM memory_vector_changes").fetchone()[0] == 1
    assert nearest(7)[0] == later
    assert b.call("stats")["ram_mb"]["vectors"] > 0


def test_a_batch_stored_together_keeps_long_texts_windows_and_marks_the_identity_changed(in_process, url):
    """memory.add_many on PostgreSQL writes a batch in a few statements: a long text keeps a vector
    a window (in memory_windows and memory_vectors), and a persona memory in it changes the
    identity graph's count, as one stored alone does."""
    pg = in_process({"store": {"url": url}}, fake_embedder=True)
    store = pg.services.store
    long_text = " ".join(f"Sentence {i} about the allotment, the greenhouse and the tomatoes." for i in range(120))
    before = store.conn.execute("SELECT generation FROM identity_generations WHERE namespace = 'default'").fetchone()
    ids = pg.call(
        "memory.add_many",
        {
            "items": [
                {"content": long_text, "type": "fact"},
                {"content": "Speak plainly and warmly.", "type": "persona"},
            ]
        },
    )["ids"]
    (seq,) = store.conn.execute("SELECT seq FROM memories WHERE id = ?", (ids[0],)).fetchone()
    (windows,) = store.conn.execute("SELECT count(*) FROM memory_windows WHERE seq = ?", (seq,)).fetchone()
    (parts,) = store.conn.execute("SELECT count(*) FROM memory_vectors WHERE seq = ?", (seq,)).fetchone()
    assert windows >= 1 and parts == windows + 1
    after = store.conn.execute("SELECT generation FROM identity_generations WHERE namespace = 'default'").fetchone()
    assert after[0] == (before[0] if before else 0) + 1
    assert [r["id"] for r in pg.call("memory.search", {"query": "greenhouse tomatoes", "k": 1})["results"]] == ids[:1]


def test_rows_read_with_their_vectors_from_ram_are_the_stored_rows(in_process, url):
    """rows_by_seq takes a live memory's embedding from the matrix in RAM, not over the wire: every
    row, vector included, is the stored one, loaded namespace or not, superseded versions too."""
    pg = in_process({"store": {"url": url}}, fake_embedder=True)
    store = pg.services.store
    first = pg.call("memory.add", {"content": "The boiler is serviced in May", "type": "fact"})["id"]
    pg.call("memory.add_many", {"items": [{"content": f"note {i} on the garden", "type": "fact"} for i in range(5)]})
    pg.call("memory.update", {"id": first, "content": "The boiler is serviced in June"})
    seqs = [r[0] for r in store.conn.execute("SELECT seq FROM memories ORDER BY seq").fetchall()]
    stored = {r["seq"]: r for r in store._rows("SELECT * FROM memories WHERE seq = ANY(?::bigint[])", (seqs,))}

    def same() -> None:
        read = {r["seq"]: r for r in store.rows_by_seq(seqs)}
        assert read.keys() == stored.keys()
        for seq, row in read.items():
            assert {k: row[k] for k in row} == {k: stored[seq][k] for k in row}, seq

    assert store.vectors.loaded() == 0
    same()  # nothing in RAM: every vector read
    pg.call("memory.search", {"query": "boiler", "k": 1})  # the namespace is loaded
    assert store.vectors.loaded() == 1
    same()


def test_a_scheduled_job_runs_once_across_daemons_sharing_the_store(in_process, url):
    jobs = {**NO_JOBS, "decay_sweep": "0 3 * * *"}
    config = {"store": {"url": url}, "jobs": jobs, "clock": {"start": EPOCH}}
    a, b = in_process(config, fake_embedder=True), in_process(config, fake_embedder=True)
    ran = []
    # Each daemon's clock passes 03:00 at once: both find the sweep due, one runs it.
    threads = [
        threading.Thread(target=lambda d=d: ran.extend(d.call("clock.advance", {"hours": 4})["jobs_ran"]))
        for d in (a, b)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [r["name"] for r in ran] == ["decay_sweep"]
    assert [r["name"] for r in a.services.runner.runs("decay_sweep")] == ["decay_sweep"]


def test_a_connection_the_server_dropped_is_opened_again(in_process, url):
    """A PostgreSQL restart or failover drops every connection: the next request opens a new one."""
    pg = in_process({"store": {"url": url}}, fake_embedder=True)
    pg.call("memory.add", {"content": "The boiler was serviced in May", "type": "fact"})
    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
    assert "boiler" in pg.call("memory.search", {"query": "boiler service", "k": 1})["results"][0]["content"]
    pg.call("memory.add", {"content": "The boiler pressure is 1.5 bar", "type": "fact"})
    assert len(pg.call("memory.search", {"query": "boiler", "k": 5})["results"]) == 2


def test_bench_vectors_measures_each_index_against_the_exact_answer(postgres_url):
    from types import SimpleNamespace

    from agentmemd.daemon.bench.benchmarks import run_bench

    out = run_bench(SimpleNamespace(bench="vectors", vectors=[400], queries=5, k=10, store_url=postgres_url))
    (size,) = out["sizes"]
    assert size["exact_scan"]["recall@10"] == size["in_ram"]["recall@10"] == 1.0
    assert size["hnsw_insert_ms"] > 0
    assert 0.5 <= size["hnsw"]["recall@10"] <= 1.0 and 0.5 <= size["ivfflat"]["recall@10"] <= 1.0
    with psycopg.connect(postgres_url) as admin:  # its database is gone
        assert not admin.execute("SELECT 1 FROM pg_database WHERE datname LIKE 'agentmemd_bench_vectors%'").fetchall()


def test_an_import_into_postgresql_that_cannot_open_the_store_leaves_the_working_dirs_files(
    in_process, url, tmp_path, monkeypatch
):
    """A store that cannot be made in the database is refused by name, and nothing else is touched:
    before, the clean-up removed ./agentmemd.db of the directory the command ran in."""
    from agentmemd.daemon.services import archive as archive_service
    from agentmemd.memory.core.errors import StoreError

    lite = in_process(fake_embedder=True)
    lite.call("memory.add", {"content": "One memory", "type": "fact"})
    export_archive(lite.data_dir, tmp_path / "a.tar.gz")
    _empty(url)
    here = tmp_path / "here"
    here.mkdir()
    (here / "agentmemd.db").write_bytes(b"someone's store")
    monkeypatch.chdir(here)

    def cannot(*args, **kwargs):
        raise StoreError('permission denied to create extension "vector"')

    monkeypatch.setattr(archive_service, "open_store", cannot)
    with pytest.raises(InvalidParams, match="store_url: permission denied"):
        import_archive(tmp_path / "a.tar.gz", None, url)
    assert (here / "agentmemd.db").read_bytes() == b"someone's store"


def _backend_alive(url: str, pid: int) -> bool:
    with psycopg.connect(url) as db:
        return db.execute("SELECT 1 FROM pg_stat_activity WHERE pid = %s", (pid,)).fetchone() is not None


def test_a_starting_daemon_marks_only_the_runs_of_daemons_that_are_gone_as_interrupted(url):
    """Two daemons share the database: one starting (which marks the runs a crash left 'running'
    as interrupted) leaves the other's job and Observer runs at work alone; once that daemon is
    gone (its connection closed, as a kill -9 closes it), its runs are over."""
    from agentmemd.memory.store.conversation_tables import ConversationTables
    from agentmemd.memory.store.job_tables import JobTables

    working = PostgresStore(url, dim=384, model="all-MiniLM-L6-v2")
    job = JobTables(working).start_run("consolidate", "schedule", "2026-11-28T10:00:00Z")
    observer = ConversationTables(working).start_run("s1", "observe", "threshold", "local", "2026-11-28T10:00:00Z")
    starting = PostgresStore(url, dim=384, model="all-MiniLM-L6-v2")
    try:
        statuses = (
            "SELECT (SELECT status FROM job_runs WHERE id = %s), (SELECT status FROM conversation_runs WHERE id = %s)"
        )

        def both() -> tuple:
            with psycopg.connect(url) as db:
                return db.execute(statuses, (job, observer)).fetchone()

        with starting.transaction():
            JobTables(starting).interrupt_running()
            ConversationTables(starting).interrupt_running("2026-11-28T10:01:00Z")
        assert both() == ("running", "running")  # the other daemon is at work
        with working.transaction():
            working_backend = working.conn.execute("SELECT pg_backend_pid()").fetchone()[0]
        working.close()
        # The server lets the session lock go when the closed connection's backend exits, a moment
        # after the client hangs up: the daemon that starts next finds it gone only then.
        deadline = time.monotonic() + 60
        while _backend_alive(url, working_backend):
            assert time.monotonic() < deadline, "the closed connection's backend is still there after 60 s"
            time.sleep(0.05)
        with starting.transaction():
            JobTables(starting).interrupt_running()
            ConversationTables(starting).interrupt_running("2026-11-28T10:02:00Z")
        assert both() == ("interrupted", "interrupted")
    finally:
        starting.close()


def test_word_counts_written_once_a_transaction_equal_a_recount(in_process, url):
    """A transaction writes each namespace's word counts once, at its end: after a bulk add, an
    update, a forget and a search inside the same daemon, they are what counting memory_terms again
    gives, and BM25 ranks as on SQLite."""
    pg = in_process({"store": {"url": url}}, fake_embedder=True)
    items = [{"content": f"Note {i}: the {['red', 'blue', 'green'][i % 3]} kettle is on shelf {i % 7}", "type": "fact"}
             for i in range(120)]  # fmt: skip
    ids = pg.call("memory.add_many", {"items": items})["ids"]
    pg.call("memory.update", {"id": ids[0], "content": "Note 0: the purple kettle moved to the attic"})
    pg.call("memory.forget", {"id": ids[1], "confirm": True})
    hits = pg.call("memory.search", {"query": "purple kettle attic", "k": 3})["results"]
    assert "purple" in hits[0]["content"]
    with psycopg.connect(url) as db:
        stats = db.execute("SELECT documents, tokens FROM memory_terms_stats WHERE namespace = 'default'").fetchone()
        recount = db.execute("SELECT count(*), sum(size) FROM memory_terms WHERE namespace = 'default'").fetchone()
        counts = dict(
            db.execute("SELECT term, documents FROM memory_term_counts WHERE namespace = 'default' AND documents > 0")
        )
        terms = dict(db.execute(
            "SELECT t, count(*) FROM memory_terms, unnest(all_terms) t WHERE namespace = 'default' GROUP BY t"
        ))  # fmt: skip
        posted, held = db.execute(POSTED).fetchall(), db.execute(HELD).fetchall()
    assert tuple(stats) == tuple(recount) and stats[0] == 119
    assert counts == terms and max(counts.values()) == 119 and len(counts) > 10
    assert posted == held  # the postings BM25 reads: the forgotten and replaced memories' went with them


POSTED = "SELECT namespace, term, seq, text_tf, context_tf, size FROM memory_postings ORDER BY namespace, term, seq"
HELD = (
    "SELECT f.namespace, t, f.seq, cardinality(array_positions(f.text_terms, t)), "
    "cardinality(array_positions(f.context_terms, t)), f.size FROM memory_terms f, unnest(f.all_terms) t ORDER BY 1, 2, 3"
)


def test_a_store_from_before_the_postings_gets_them_when_opened(in_process, url):
    first = in_process({"store": {"url": url}}, fake_embedder=True)
    items = [
        {"content": f"Note {i}: the {['red', 'blue'][i % 2]} kettle is on shelf {i}", "type": "fact"} for i in range(30)
    ]
    first.call("memory.add_many", {"items": items})
    first.call(
        "memory.add", {"content": "The purple kettle went to the attic", "type": "fact", "context": "spring clean"}
    )
    first.terminate()
    with psycopg.connect(url) as db:
        db.execute("DROP TABLE memory_postings")  # as an older agentmemd left it
    again = in_process({"store": {"url": url}}, fake_embedder=True)
    with psycopg.connect(url) as db:
        posted, held = db.execute(POSTED).fetchall(), db.execute(HELD).fetchall()
    assert posted == held and len(posted) > 100
    assert again.call("memory.search", {"query": "purple kettle", "k": 1})["results"][0]["content"].startswith(
        "The purple"
    )


def test_a_server_that_goes_away_while_a_connection_is_set_up_is_the_stores_error(url):
    """A server shutting down ends a connection it has just accepted (AdminShutdown): that happens
    between psycopg's connect and the connection's own settings as easily as during a statement.
    Every way the server goes away is the store's "unavailable", never an internal error; the
    next call after it is back works. (Before, a shutdown met while the session was being set up
    left psycopg's error raw, and the daemon answered -32603.)"""
    from agentmemd.memory.core.errors import StoreUnavailable
    from agentmemd.memory.store.postgres.connection import connect

    setups = []

    def prepare(raw) -> None:
        setups.append(raw)
        if len(setups) == 2:  # the server ends the session it has just opened, as a fast shutdown does
            raw.execute("SELECT pg_terminate_backend(pg_backend_pid())")

    conn = connect(url, None, on_connect=prepare)
    conn.raw.close()  # dropped between transactions: the next statement reconnects
    with pytest.raises(StoreUnavailable, match="unavailable"):
        conn.execute("SELECT 1")
    assert conn.execute("SELECT 1").fetchone() == (1,)  # the server is back: a third session works
    assert len(setups) == 3
    cursor = conn.execute("SELECT 1")
    with psycopg.connect(url, autocommit=True) as admin:  # gone between a statement and its lastrowid
        admin.execute("SELECT pg_terminate_backend(%s)", (conn.raw.info.backend_pid,))
    with pytest.raises(StoreUnavailable):
        cursor.lastrowid  # noqa: B018 - the property asks the server


def test_a_database_without_pgvector_that_its_user_may_not_create_says_what_to_run(postgres_url):
    """The likeliest slip of the documented setup: the database made, but `CREATE EXTENSION vector`
    not run as the superuser. A StoreError says what to run (was psycopg's traceback); nothing is made."""
    from urllib.parse import urlsplit

    from agentmemd.memory.core.errors import StoreError

    name = "agentmemd_no_vector"
    with psycopg.connect(postgres_url, autocommit=True) as admin:
        admin.execute("CREATE ROLE plain_agent LOGIN PASSWORD 'p@ss:w/rd'")
        admin.execute(f"CREATE DATABASE {name} OWNER plain_agent")
    try:
        parts = urlsplit(postgres_url)
        url = f"postgresql://plain_agent:p%40ss%3Aw%2Frd@{parts.netloc.split('@')[-1]}/{name}?{parts.query}"
        with pytest.raises(StoreError, match=rf"psql -U postgres -d {name} -c 'CREATE EXTENSION vector'"):
            PostgresStore(url, dim=384, model="all-MiniLM-L6-v2")
        with psycopg.connect(url, autocommit=True) as plain:
            assert plain.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").fetchone() == (0,)
    finally:
        with psycopg.connect(postgres_url, autocommit=True) as admin:
            admin.execute(f"DROP DATABASE {name}")
            admin.execute("DROP ROLE plain_agent")


def test_a_store_urls_password_is_never_in_a_message():
    """`?password=` was shown whole by health and the ready line's redaction; libpq quotes a
    malformed percent-encoding whole ("s3cr%et"), and that message went to the service's log."""
    from agentmemd.memory.core.config import redact
    from agentmemd.memory.core.errors import StoreError
    from agentmemd.memory.store.postgres.connection import connect

    assert redact("postgresql://agent:p%40ss@db/agentmemd") == "postgresql://agent:***@db/agentmemd"
    assert redact("postgresql://agent@db/a?sslmode=require&password=s3cr%40t&x=1") == (
        "postgresql://agent@db/a?sslmode=require&password=***&x=1"
    )
    with pytest.raises(StoreError) as refused:
        connect("postgresql://agent:s3cr%et@127.0.0.1:1/agentmemd", None)
    assert "s3cr" not in refused.value.message and "%25" in refused.value.message


def test_a_memory_postgresql_cannot_keep_is_named_when_a_store_moves_there(in_process, url, tmp_path):
    """SQLite keeps a NUL in a text, PostgreSQL cannot: the move failed on 'text: holds a NUL
    character' naming no table, row or memory, so the one memory blocking it could not be found."""
    from agentmemd.daemon.services.archive import export_archive, import_archive
    from agentmemd.memory.core.errors import InvalidParams

    lite = in_process(fake_embedder=True)
    lite.call("memory.add", {"content": "A clean one", "type": "fact"})
    bad = lite.call("memory.add", {"content": "A pasted one", "type": "fact"})["id"]
    lite.run_on_store(
        lambda: lite.services.store.conn.execute(
            "UPDATE memories SET content = ? WHERE id = ?", ("A pasted\x00one", bad)
        )
    )
    export_archive(lite.data_dir, tmp_path / "a.tar.gz")
    _empty(url)
    with pytest.raises(InvalidParams, match=rf"table memories, the row with .*'{bad}'.* \(in content\): holds a NUL"):
        import_archive(tmp_path / "a.tar.gz", None, url)


def test_an_archive_of_an_older_schema_goes_into_postgresql_and_is_upgraded(in_process, url):
    """An archive an older agentmemd wrote (schema m032) was refused; it is read into a store of its
    schema, checked table by table, then upgraded as an older store is."""
    from conftest import REPO

    _empty(url)
    imported = import_archive(REPO / "tests" / "data" / "archive_m032.tar.gz", None, url)
    assert imported["verified"] == "every table matches its checksum"
    assert imported["schema"] == known_migrations()[-1] and imported["upgraded"].startswith("from m032")
    pg = in_process({"store": {"url": url}}, fake_embedder=True)
    hits = pg.call("memory.search", {"query": "where does my sister Ana live"})["results"]
    assert hits[0]["content"] == "My sister Ana lives in Lisbon now"
    assert pg.call("conversation.search", {"query": "Quillfeather"})["turns"]
    added = pg.call("memory.add", {"content": "A new memory after the move", "type": "fact"})["id"]
    assert pg.call("memory.get", {"id": added})["content"] == "A new memory after the move"
