"""`agentmemd bench clients`: what the typed clients add to a call. The same context.pack, over one
daemon with the same memories, sent by name (``Client.call``: the socket's own round trip), as a
typed call (``Client.context_pack``: its params as keywords, its answer read into a PackResult),
and by ``AsyncClient`` (one call at a time, on its pooled connection), interleaved so the three see
the same machine; and reading an answer into its model, on its own."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import numpy as np

from agentmemd.daemon.bench.benchmarks import _pct, _stock_pack_daemon, bench_daemon, unit_vectors, zipf_phrases
from agentmemd.daemon.socket.async_client import AsyncClient
from agentmemd.daemon.socket.client import Client
from agentmemd.memory.core.models import PackResult


def bench_clients(args) -> dict[str, Any]:
    rng = np.random.default_rng(42)
    vectors = unit_vectors(rng, args.memories)
    phrases = zipf_phrases(rng, args.memories + args.queries, 8)
    queries = [" ".join(p.split()[:4]) + "?" for p in phrases[args.memories :]]
    times: dict[str, list[float]] = {"by_name": [], "typed": [], "async_typed": []}
    work_dir = Path(args.work_dir) if args.work_dir else None
    with bench_daemon(work_dir) as (client, _proc):
        _stock_pack_daemon(client, vectors, phrases)
        socket = client.socket_path
        for q in queries:  # their embeddings cached first: what is left is the pack and the transport
            client.call("context.pack", {"query": q, "budget_tokens": args.budget})
        answer = client.call("context.pack", {"query": queries[0], "budget_tokens": args.budget})

        async def timed_async(agentmemd: AsyncClient, q: str) -> float:
            t = time.perf_counter()
            await agentmemd.context_pack(query=q, budget_tokens=args.budget)
            return (time.perf_counter() - t) * 1000

        async def run() -> None:
            async with AsyncClient(socket) as agentmemd:
                with Client(socket) as typed:
                    for q in queries:
                        t = time.perf_counter()
                        client.call("context.pack", {"query": q, "budget_tokens": args.budget})
                        times["by_name"].append((time.perf_counter() - t) * 1000)
                        t = time.perf_counter()
                        typed.context_pack(query=q, budget_tokens=args.budget)
                        times["typed"].append((time.perf_counter() - t) * 1000)
                        times["async_typed"].append(await timed_async(agentmemd, q))

        asyncio.run(run())
    reads = []
    for _ in range(200):
        t = time.perf_counter()
        PackResult.model_validate(answer)
        reads.append((time.perf_counter() - t) * 1000)
    out: dict[str, Any] = {
        "memories": args.memories,
        "queries": args.queries,
        "budget_tokens": args.budget,
        "pack_items": len(answer["items"]),
        "reading_the_answer_into_its_model_ms": {"p50": _pct(reads, 50), "p95": _pct(reads, 95)},
    }
    for name, values in times.items():
        out[f"{name}_ms"] = {"p50": _pct(values, 50), "p95": _pct(values, 95)}
    for name in ("typed", "async_typed"):
        out[f"{name}_over_by_name_p50_ms"] = round(out[f"{name}_ms"]["p50"] - out["by_name_ms"]["p50"], 3)
    return out
