"""`agentmemd bench dashboard`: how long each dashboard page takes to render at a store's size
(target: under 300 ms at 100,000 memories).

A real daemon stocked with caller-vector memories (one updated, some reinforced, some archived,
packs logged, a conversation of 200 turns observed, with its contexts and scored replies, the
consolidation tree built), a real `agentmemd dashboard` process, and each page fetched
``--repeat`` times over HTTP with the Bearer token: p50/p95/max per page, with its size.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx2
import numpy as np

from agentmemd.daemon.bench.benchmarks import (
    PERSONA_RULES,
    _pct,
    add_with_vectors,
    bench_daemon,
    free_port,
    start_listener,
    unit_vectors,
    zipf_phrases,
)

SESSION = "bench-chat"


def _stock(client, n: int, rng: np.random.Generator) -> dict[str, Any]:
    """``n`` memories, a tenth of them updated to a second version, some reinforced, some archived,
    and 50 packs logged; the ids the pages are asked about."""
    phrases = zipf_phrases(rng, n, 8)
    types = ["fact"] * 7 + ["preference", "procedural", "relational"]
    client.call("memory.add_many", {"items": PERSONA_RULES})
    t0 = time.perf_counter()
    add_with_vectors(
        client,
        unit_vectors(rng, n),
        lambda i: {"content": f"Memory {i}: the user mentioned {phrases[i]}.", "type": types[i % 10]},
    )
    stocked_s = time.perf_counter() - t0
    listed = client.call("memory.list", {"limit": 500})["items"]
    sample = [m["id"] for m in listed]
    for memory_id in sample[:50]:
        client.call("memory.reinforce", {"id": memory_id, "event": "used"})
    updated = client.call("memory.update", {"id": sample[0], "content": "Memory 0, corrected: the user moved."})["id"]
    for memory_id in sample[100:150]:
        client.call("memory.archive", {"id": memory_id})
    for i in range(50):
        client.call("context.pack", {"query": phrases[i], "budget_tokens": 800})
    pack_id = client.call("packs.list", {"limit": 1})["packs"][0]["pack_id"]
    # A conversation of 200 turns, observed, with its contexts and scored replies; the tree built.
    for i in range(100):
        client.call(
            "conversation.append", {"session": SESSION, "role": "user", "content": f"Did I mention {phrases[i]}?"}
        )
        client.call(
            "conversation.append", {"session": SESSION, "role": "assistant", "content": f"Yes: {phrases[i + 1]}."}
        )
    client.call("conversation.observe", {"session": SESSION})
    for _ in range(5):
        client.call("conversation.context", {"session": SESSION, "budget_tokens": 4000})
    client.call("jobs.run", {"name": "consolidate"})
    return {"memory": updated, "pack": pack_id, "query": phrases[7], "stocked_s": round(stocked_s, 1)}


def _pages(ids: dict[str, Any], n: int) -> dict[str, str]:
    last_page = max(1, -(-n // 50))
    return {
        "overview": "/",
        "memories": "/memories",
        "memories, last page": f"/memories?page={last_page}",
        "memories, type + text filter": "/memories?type=preference&contains=user",
        "memories, tier filter (every memory's retention)": "/memories?tier=active",
        "memories, archived": "/memories?tier=archived",
        "memory page": f"/memories/default/{ids['memory']}",
        "forget plan": f"/memories/default/{ids['memory']}/forget",
        "packs": "/packs",
        "packs, building one": f"/packs?query={ids['query'].replace(' ', '+')}&budget_tokens=800",
        "pack explanation": f"/packs/default/{ids['pack']}",
        "conversations": "/conversations",
        "a conversation (200 turns)": f"/conversations/default/{SESSION}",
        "persona": "/persona",
        "consolidation": "/consolidation",
    }


def bench_dashboard(args) -> dict[str, Any]:
    rng = np.random.default_rng(7)
    out: dict[str, Any] = {"memories": args.memories, "repeat": args.repeat, "target_ms": 300, "pages": {}}
    root = Path(args.work_dir) if args.work_dir else Path(tempfile.mkdtemp(prefix="amdd", dir="/tmp"))
    stocked = root / "stocked.json"  # a --work-dir stocked by an earlier run with as many memories is reused
    with bench_daemon(root) as (client, _):
        if stocked.exists() and json.loads(stocked.read_text())["memories"] == args.memories:
            ids = json.loads(stocked.read_text())
            out["stocked_s"] = None
        else:
            ids = _stock(client, args.memories, rng)
            stocked.write_text(json.dumps({**ids, "memories": args.memories}))
            out["stocked_s"] = ids["stocked_s"]
        port = free_port()
        proc = start_listener(
            [
                "dashboard",
                "--socket",
                client.socket_path,
                "--listen",
                f"127.0.0.1:{port}",
                "--data-dir",
                str(root),
            ],
            port,
            root / "dashboard.log",
        )
        try:
            token = (root / "dashboard.token").read_text().strip()
            http = httpx2.Client(
                base_url=f"http://127.0.0.1:{port}", headers={"Authorization": f"Bearer {token}"}, timeout=120
            )
            for name, path in _pages(ids, args.memories).items():
                first = http.get(path)
                if first.status_code != 200:
                    raise RuntimeError(f"{path}: HTTP {first.status_code}: {first.text[:300]}")
                times = []
                for _ in range(args.repeat):
                    t0 = time.perf_counter()
                    http.get(path).raise_for_status()
                    times.append((time.perf_counter() - t0) * 1000)
                out["pages"][name] = {
                    "path": path,
                    "p50_ms": _pct(times, 50),
                    "p95_ms": _pct(times, 95),
                    "max_ms": round(max(times), 1),
                    "kb": round(len(first.content) / 1024, 1),
                }
        finally:
            proc.terminate()
            proc.wait(10)
    if not args.work_dir:
        shutil.rmtree(root, ignore_errors=True)
    worst = max(p["p95_ms"] for p in out["pages"].values())
    out["worst_p95_ms"] = worst
    out["all_under_target"] = worst < 300
    return out
