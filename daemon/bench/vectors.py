"""`agentmemd bench vectors --store-url URL`: which pgvector index the PostgreSQL store should use.

At each size, the same queries three ways in one namespace (``ORDER BY embedding <=> q LIMIT k``):
an exact scan, HNSW (the store's choice, ef_search 200) and IVFFlat (lists = rows / 1000, probes
10): p50/p95 and recall@k against the exact answer. The vectors are unit-length 384-d points in
200 Gaussian clusters, nearer text embeddings than uniform noise; a new database for each size.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from agentmemd.daemon.bench.benchmarks import _pct
from agentmemd.daemon.bench.postgres import bench_database
from agentmemd.memory.store.postgres.store import EF_SEARCH, vector_literal

CLUSTERS, SPREAD, DIM = 200, 0.6, 384


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
                db.execute("DROP INDEX ann")
        out["sizes"].append(size)
    return out
