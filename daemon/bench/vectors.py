"""`agentmemd bench vectors --store-url URL`: how the PostgreSQL store should search its vectors.

At each size, the same queries four ways in one namespace: the store's own way, a float32 matrix
in RAM (vector_index.py, what SQLite's store does too), and three of pgvector's (``ORDER BY
embedding <=> q LIMIT k``): an exact scan, HNSW (ef_search 200) and IVFFlat (lists = rows / 1000,
probes 10): p50/p95 and recall@k against the exact answer, each index's build, and what keeping
HNSW costs a vector stored one at a time (``hnsw_insert_ms``, as a daemon stores them). The
vectors are unit-length 384-d points in 200 Gaussian clusters, nearer text embeddings than
uniform noise; a new database for each size.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from agentmemd.daemon.bench.benchmarks import _pct
from agentmemd.daemon.bench.postgres import bench_database
from agentmemd.memory.store.postgres.store import vector_literal
from agentmemd.memory.store.vector_index import VectorIndex

CLUSTERS, SPREAD, DIM = 200, 0.6, 384
EF_SEARCH = 200  # HNSW candidates per search: above any pack's candidate count
INSERTS = 200  # vectors added one at a time to the HNSW index, timed


def _points(rng: np.random.Generator, centres: np.ndarray, n: int) -> np.ndarray:
    points = centres[rng.integers(0, len(centres), n)] + SPREAD * rng.standard_normal((n, DIM)).astype(np.float32)
    return points / np.linalg.norm(points, axis=1, keepdims=True)


def _timed(db, queries: np.ndarray, exact: list[set[int]], k: int) -> dict[str, float]:
    """Each query's k nearest as the table's index (or none) finds them: latency and recall."""
    ms, found = [], []
    for q, truth in zip(queries, exact):
        t = time.perf_counter()
        rows = db.execute(
            "SELECT id FROM v WHERE namespace = 'default' ORDER BY embedding <=> %s::vector LIMIT %s",
            (vector_literal(q), k),
        ).fetchall()
        ms.append((time.perf_counter() - t) * 1000)
        found.append(len(truth & {r[0] for r in rows}) / k)
    return {"p50_ms": _pct(ms, 50), "p95_ms": _pct(ms, 95), f"recall@{k}": round(float(np.mean(found)), 4)}


def _timed_in_ram(stored: np.ndarray, queries: np.ndarray, exact: list[set[int]], k: int) -> dict[str, float]:
    """The same, from the in-RAM matrix the store keeps (its seqs are the rows' ids)."""
    blobs = [v.tobytes() for v in stored]
    index = VectorIndex(DIM, lambda namespace: (list(range(len(stored))), [blobs]))
    index.size("default")  # loaded before the timing, as a daemon's is after its first search
    ms, found = [], []
    for q, truth in zip(queries, exact):
        t = time.perf_counter()
        rows = index.search("default", q, k)
        ms.append((time.perf_counter() - t) * 1000)
        found.append(len(truth & {seq for seq, _ in rows}) / k)
    return {"p50_ms": _pct(ms, 50), "p95_ms": _pct(ms, 95), f"recall@{k}": round(float(np.mean(found)), 4)}


def _hnsw_insert_ms(db, rng: np.random.Generator, centres: np.ndarray, first_id: int) -> float:
    """Per vector, INSERTS more vectors added one statement each to the HNSW index, then removed."""
    extra = _points(rng, centres, INSERTS)
    t = time.perf_counter()
    for i, point in enumerate(extra):
        db.execute("INSERT INTO v VALUES (%s, 'default', %s::vector)", (first_id + i, vector_literal(point)))
    per = (time.perf_counter() - t) * 1000 / INSERTS
    db.execute("DELETE FROM v WHERE id >= %s", (first_id,))
    return round(per, 2)


def bench_vectors(args) -> dict[str, Any]:
    import psycopg

    if not args.store_url:
        raise ValueError("bench vectors needs --store-url (a PostgreSQL server with pgvector)")
    out: dict[str, Any] = {
        "queries": args.queries,
        "k": args.k,
        "data": f"{CLUSTERS} Gaussian clusters, {DIM}-d",
        "sizes": [],
    }
    for n in args.vectors:
        rng = np.random.default_rng(3)
        centres = rng.standard_normal((CLUSTERS, DIM)).astype(np.float32)
        stored, queries = _points(rng, centres, n), _points(rng, centres, args.queries)
        exact = [set(np.argsort(-(stored @ q))[: args.k].tolist()) for q in queries]
        size: dict[str, Any] = {"vectors": n}
        with bench_database(args.store_url, f"vectors_{n}") as url, psycopg.connect(url, autocommit=True) as db:
            db.execute("CREATE EXTENSION IF NOT EXISTS vector")
            db.execute(f"CREATE TABLE v (id int PRIMARY KEY, namespace text, embedding vector({DIM}))")
            with db.cursor().copy("COPY v (id, namespace, embedding) FROM STDIN") as copy:
                for i, point in enumerate(stored):
                    copy.write_row((i, "default", vector_literal(point)))
            db.execute("ANALYZE v")

            size["in_ram"] = _timed_in_ram(stored, queries, exact, args.k)
            size["exact_scan"] = _timed(db, queries, exact, args.k)
            for label, index, settings in (
                ("hnsw", "hnsw (embedding vector_cosine_ops)", [f"SET hnsw.ef_search = {EF_SEARCH}"]),
                (
                    "ivfflat",
                    f"ivfflat (embedding vector_cosine_ops) WITH (lists = {max(10, n // 1000)})",
                    ["SET ivfflat.probes = 10"],
                ),
            ):
                t = time.perf_counter()
                db.execute(f"CREATE INDEX ann ON v USING {index}")
                size[f"{label}_build_s"] = round(time.perf_counter() - t, 1)
                for setting in settings:
                    db.execute(setting)
                size[label] = _timed(db, queries, exact, args.k)
                if label == "hnsw":
                    size["hnsw_insert_ms"] = _hnsw_insert_ms(db, rng, centres, n)
                db.execute("DROP INDEX ann")
        out["sizes"].append(size)
    return out
