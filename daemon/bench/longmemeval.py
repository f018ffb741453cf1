"""`agentmemd bench longmemeval`: session and turn recall on LongMemEval_S.

The protocol of ../shared/bench/longmemeval/README.md: each question's haystack (about 50
sessions, 500 turns) in a namespace of its own, every turn one memory (`role: content`,
source `session_id#turn`, created at its session's date), the question searched with k = 10;
session Recall@5/@10 (the share of the answer sessions hit by a retrieved turn) and turn
Recall@10 (the share of `has_answer` turns retrieved), per question type and overall. A plain
FTS5 BM25 over the same turn text runs beside it as the baseline.

Turns go in as text through `memory.add_many`, so the daemon embeds them: the ingest time is
the plain path's. Embedding 30,000 long turns takes most of an hour on two cores, so with
``--work-dir`` the store is kept and a rerun searches the haystacks already ingested there
(delete the folder after a change to what is indexed).
"""

from __future__ import annotations

import json
import statistics
import time
import tomllib
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np
import tomlkit

from agentmemd.daemon.bench.benchmarks import _pct, bench_daemon
from agentmemd.daemon.socket.client import Client

MANIFEST = "longmemeval-ingested.json"
BATCH_BYTES = 400_000  # an add_many line stays well under [server] max_line_bytes
BATCH_ITEMS = 64


def longmemeval_date(text: str) -> datetime:
    """'2023/05/20 (Sat) 01:04' -> aware UTC datetime."""
    return datetime.strptime(text.split(" (")[0] + text.split(")")[1], "%Y/%m/%d %H:%M").replace(tzinfo=timezone.utc)


def haystack_turns(question: dict[str, Any]) -> list[dict[str, Any]]:
    """Every turn of a question's haystack, in session order, with where it came from."""
    out: list[dict[str, Any]] = []
    for session_id, date, turns in zip(
        question["haystack_session_ids"], question["haystack_dates"], question["haystack_sessions"]
    ):
        when = longmemeval_date(date).isoformat()
        for index, turn in enumerate(turns):
            out.append(
                {
                    "text": f"{turn['role']}: {turn['content']}",
                    "source": f"{session_id}#{index}",
                    "session": session_id,
                    "created": when,
                    "evidence": bool(turn.get("has_answer")),
                    # Probe sets mark the statement a knowledge update replaced (not in LongMemEval).
                    "stale": bool(turn.get("stale")),
                }
            )
    return out


def _batches(items: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    out: list[list[dict[str, Any]]] = [[]]
    size = 0
    for item in items:
        length = len(json.dumps(item))
        if out[-1] and (size + length > BATCH_BYTES or len(out[-1]) >= BATCH_ITEMS):
            out.append([])
            size = 0
        out[-1].append(item)
        size += length
    return out


def ingest(client: Client, namespace: str, turns: list[dict[str, Any]]) -> float:
    """Store the haystack as memories; seconds taken."""
    items = [
        {"content": t["text"], "type": "fact", "namespace": namespace, "created": t["created"], "source": t["source"]}
        for t in turns
    ]
    started = time.perf_counter()
    for batch in _batches(items):
        client.call("memory.add_many", {"items": batch})
    return time.perf_counter() - started


def bm25_ranking(turns: list[dict[str, Any]], question: str) -> list[str]:
    """Sources of the 10 best turns by plain FTS5 BM25 (Porter, the query's terms OR'ed)."""
    import sqlean

    from agentmemd.memory.store.database import fts_query

    conn = sqlean.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE f USING fts5(content, tokenize='porter unicode61 remove_diacritics 2')")
    conn.executemany("INSERT INTO f(rowid, content) VALUES (?, ?)", [(i, t["text"]) for i, t in enumerate(turns)])
    match = fts_query(question)
    rows = conn.execute("SELECT rowid FROM f WHERE f MATCH ? ORDER BY bm25(f) LIMIT 10", (match,)) if match else []
    ranked = [turns[r[0]]["source"] for r in rows]
    conn.close()
    return ranked


def recalls(ranked: list[str], turns: list[dict[str, Any]], answer_sessions: list[str]) -> dict[str, float]:
    session_of = {t["source"]: t["session"] for t in turns}
    evidence = {t["source"] for t in turns if t["evidence"]}
    out = {}
    for k in (5, 10):
        hit = {session_of[s] for s in ranked[:k]}
        out[f"session_recall@{k}"] = len(hit & set(answer_sessions)) / len(answer_sessions)
    out["turn_recall@10"] = len(set(ranked[:10]) & evidence) / len(evidence) if evidence else float("nan")
    return out


def stale_first(ranked: list[str], turns: list[dict[str, Any]]) -> bool | None:
    """Does the stale statement of a knowledge update rank above the current one? With turns
    marked ``stale`` (probe sets): True when a stale turn ranks above every current (evidence)
    turn, or only stale ones are retrieved; None when neither is. Else (LongMemEval marks only
    evidence) from the evidence's dates: does a turn of an older date rank above every turn of
    the newest (None: evidence from one date only, or none of it retrieved)?"""
    stale = {t["source"] for t in turns if t.get("stale")}
    if stale:
        current = {t["source"] for t in turns if t["evidence"]}
        first = next((s for s in ranked if s in stale or s in current), None)
        return None if first is None else first in stale
    dated = {t["source"]: t["created"] for t in turns if t["evidence"]}
    if len(set(dated.values())) < 2:
        return None
    newest = max(dated.values())
    ranks = [(i, dated[s]) for i, s in enumerate(ranked) if s in dated]
    if not ranks:
        return None
    return ranks[0][1] != newest


def _summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    keys = ("session_recall@5", "session_recall@10", "turn_recall@10")
    out: dict[str, Any] = {"n": len(rows)}
    for key in keys:
        values = [r[key] for r in rows if not np.isnan(r[key])]
        out[key] = round(statistics.fmean(values), 3) if values else None
    return out


def bench_longmemeval(args) -> dict[str, Any]:
    questions = json.loads(Path(args.data).read_text())
    if args.questions:
        questions = questions[: args.questions]
    work_dir = Path(args.work_dir) if args.work_dir else None
    manifest_path = work_dir / MANIFEST if work_dir else None
    done: dict[str, Any] = json.loads(manifest_path.read_text()) if manifest_path and manifest_path.exists() else {}
    ingest_rows: list[dict[str, Any]] = []
    results: dict[str, list[dict[str, Any]]] = {"memory.search": [], "bm25": []}
    stale: dict[str, list[bool]] = {"memory.search": [], "bm25": []}
    search_ms: list[float] = []
    again_ms: list[float] = []
    settings = tomllib.loads(Path(args.config_file).read_text()) if getattr(args, "config_file", None) else {}
    settings.pop("jobs", None)  # the bench's daemon runs no scheduled job
    with bench_daemon(work_dir, tomlkit.dumps(settings)) as (client, _proc):
        for question in questions:
            namespace = f"lme-{question['question_id']}"
            turns = haystack_turns(question)
            if namespace not in done:
                seconds = ingest(client, namespace, turns)
                ingest_rows.append({"turns": len(turns), "seconds": seconds})
                if manifest_path:
                    done[namespace] = {"turns": len(turns), "seconds": round(seconds, 2)}
                    manifest_path.write_text(json.dumps(done))
            search = {
                "query": question["question"],
                "k": 10,
                "namespace": namespace,
                "asked_at": longmemeval_date(question["question_date"]).isoformat(),
            }
            started = time.perf_counter()
            hits = client.call("memory.search", search)
            search_ms.append((time.perf_counter() - started) * 1000)
            # Again: the namespace's vectors are in RAM now, and the query's embedding in the cache.
            started = time.perf_counter()
            client.call("memory.search", search)
            again_ms.append((time.perf_counter() - started) * 1000)
            rankings = {
                "memory.search": [h["source"] for h in hits["results"]],
                "bm25": bm25_ranking(turns, question["question"]),
            }
            for system, ranked in rankings.items():
                results[system].append(
                    {"type": question["question_type"], **recalls(ranked, turns, question["answer_session_ids"])}
                )
                if question["question_type"] == "knowledge-update":
                    verdict = stale_first(ranked, turns)
                    if verdict is not None:
                        stale[system].append(verdict)
    report: dict[str, Any] = {"questions": len(questions), "k": 10}
    if ingest_rows:
        turns_total = sum(r["turns"] for r in ingest_rows)
        seconds_total = sum(r["seconds"] for r in ingest_rows)
        report["ingest"] = {
            "haystacks": len(ingest_rows),
            "turns": turns_total,
            "seconds": round(seconds_total, 1),
            "turns_per_s": round(turns_total / seconds_total, 1),
            "seconds_per_haystack_p50": round(statistics.median(r["seconds"] for r in ingest_rows), 1),
        }
    else:
        report["ingest"] = f"every haystack was already in {work_dir} (see its {MANIFEST})"
    for system, rows in results.items():
        types = sorted({r["type"] for r in rows})
        report[system] = {
            **_summary(rows),
            "by_type": {t: _summary([r for r in rows if r["type"] == t]) for t in types},
            "knowledge_update_stale_first": (
                f"{sum(stale[system])}/{len(stale[system])}" if stale[system] else "no question with dated evidence"
            ),
        }
    # Each haystack is searched once: the first search of a namespace loads its vectors into RAM.
    report["memory.search_ms"] = {"p50": _pct(search_ms, 50), "p95": _pct(search_ms, 95)}
    report["memory.search_ms_again"] = {"p50": _pct(again_ms, 50), "p95": _pct(again_ms, 95)}
    return report
