"""`agentmemd bench agents`: one daemon hosting many agents (seeds 000, 001, 004).

Each agent is a namespace with its persona (the template's SOUL.md/IDENTITY.md worth of persona
and relational memories), ``--memories`` memories (caller-supplied vectors, so stocking is quick)
and a short conversation. Eight clients then send the mixed workload of `bench load`, each call
to a random agent. Reported: pack latency over all agents and per agent (the spread of their
medians, the worst p95), each agent's first pack (its vectors are read into RAM then), the
daemon's RSS by part and per 1,000 memories, and a restart's time to a first ``health`` answer
and to a first pack.
"""

from __future__ import annotations

import shutil
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

from agentmemd.daemon.bench.benchmarks import (
    _pct,
    add_with_vectors,
    bench_daemon,
    proc_status_mb,
    unit_vectors,
    zipf_phrases,
)
from agentmemd.daemon.bench.load import MIX, _params, _Texts, cpu_seconds
from agentmemd.daemon.socket.client import Client, RpcCallError

PERSONA = [
    ("persona", "Nova is warm, direct and curious; she answers in plain words."),
    ("persona", "Nova never pretends to remember what she does not."),
    ("persona", "Nova keeps answers short unless asked for detail."),
    ("persona", "Nova asks one question at a time."),
    ("persona", "Nova admits mistakes at once and corrects them."),
    ("relational", "The user is a nurse who works night shifts."),
    ("relational", "The user's sister Ana lives in Porto."),
    ("relational", "The user prefers to be called Sam."),
]


def _agent(i: int) -> str:
    return f"agent-{i:03d}"


def _stock(client: Client, agents: int, memories: int) -> None:
    rng = np.random.default_rng(5)
    phrases = zipf_phrases(rng, memories, 8)
    for a in range(agents):
        ns = _agent(a)
        client.call("memory.add_many", {"items": [{"content": c, "type": t, "namespace": ns} for t, c in PERSONA]})
        add_with_vectors(
            client,
            unit_vectors(rng, memories),
            lambda i, ns=ns: {
                "content": f"Memory {i} of {ns}: the user mentioned {phrases[i]}.",
                "type": "fact",
                "namespace": ns,
            },
        )
        for turn in range(4):
            role = "user" if turn % 2 == 0 else "assistant"
            client.call(
                "conversation.append",
                {"session": f"{ns}-chat", "namespace": ns, "role": role, "content": f"Turn {turn}: {phrases[turn]}."},
            )


def _traffic(sock: str, agents: int, clients: int, seconds: float, texts: _Texts) -> dict[str, Any]:
    calls: list[tuple[str, int, float, bool]] = []  # (method, agent, ms, first pack of that agent)
    errors: list[str] = []
    lock = threading.Lock()
    packed: set[int] = set()
    stop = threading.Event()
    methods, weights = [m for m, _ in MIX], np.array([w for _, w in MIX])

    def loop(n: int) -> None:
        rng = np.random.default_rng(2000 + n)
        with Client(sock, timeout=120) as client:
            while not stop.is_set():
                method = methods[int(rng.choice(len(methods), p=weights))]
                agent = int(rng.integers(agents))
                params = {**_params(method, texts.take(), n), "namespace": _agent(agent)}
                if method == "conversation.append":
                    params["session"] = f"{_agent(agent)}-chat"
                with lock:
                    first = method == "context.pack" and agent not in packed
                    if first:
                        packed.add(agent)
                t = time.perf_counter()
                try:
                    client.call(method, params)
                except (RpcCallError, OSError) as exc:
                    with lock:
                        errors.append(f"{method}: {exc}")
                    continue
                with lock:
                    calls.append((method, agent, (time.perf_counter() - t) * 1000, first))

    threads = [threading.Thread(target=loop, args=(n,), daemon=True) for n in range(clients)]
    started = time.perf_counter()
    for t in threads:
        t.start()
    time.sleep(seconds)
    stop.set()
    elapsed = time.perf_counter() - started
    for t in threads:
        t.join(120)
    packs = [c for c in calls if c[0] == "context.pack" and not c[3]]
    firsts = [c[2] for c in calls if c[3]]
    by_agent: dict[int, list[float]] = {}
    for _, agent, ms, _ in packs:
        by_agent.setdefault(agent, []).append(ms)
    medians = [float(np.median(v)) for v in by_agent.values() if len(v) >= 3]
    worst95 = [_pct(v, 95) for v in by_agent.values() if len(v) >= 5]
    return {
        "seconds": round(elapsed, 1),
        "calls": len(calls),
        "throughput_per_s": round(len(calls) / elapsed, 1),
        "errors": len(errors),
        "first_errors": errors[:3],
        "pack_ms_all_agents": {
            "calls": len(packs),
            "p50": _pct([c[2] for c in packs], 50),
            "p95": _pct([c[2] for c in packs], 95),
        },
        "pack_ms_per_agent": {
            "agents_with_3_or_more_packs": len(medians),
            "median_of_their_p50": round(float(np.median(medians)), 3) if medians else None,
            "highest_p50": round(max(medians), 3) if medians else None,
            "highest_p95_of_agents_with_5_or_more": max(worst95) if worst95 else None,
        },
        "first_pack_of_an_agent_ms": {"agents": len(firsts), "p50": _pct(firsts, 50), "p95": _pct(firsts, 95)}
        if firsts
        else None,
        "ms": {
            m: {"p50": _pct(v, 50), "p99": _pct(v, 99)} for m in methods if (v := [c[2] for c in calls if c[0] == m])
        },
    }


def bench_agents(args) -> dict[str, Any]:
    root = Path(args.work_dir) if args.work_dir else Path(tempfile.mkdtemp(prefix="amda", dir="/tmp"))
    total = args.agents * (args.memories + len(PERSONA))
    out: dict[str, Any] = {
        "agents": args.agents,
        "memories_per_agent": args.memories,
        "memories": total,
        "clients": args.clients,
    }
    try:
        with bench_daemon(root) as (client, proc):
            client.call("context.pack", {"query": "warm up", "budget_tokens": 500, "namespace": "empty"})
            empty_rss = proc_status_mb(proc.pid, "VmRSS")
            started = time.perf_counter()
            _stock(client, args.agents, args.memories)
            out["stocking_s"] = round(time.perf_counter() - started, 1)
            cpu = cpu_seconds(proc.pid)
            out["traffic"] = _traffic(client.socket_path, args.agents, args.clients, args.seconds, _Texts(13, 100_000))
            out["traffic"]["daemon_cpu_cores"] = round((cpu_seconds(proc.pid) - cpu) / out["traffic"]["seconds"], 2)
            ram = client.call("stats")["ram_mb"]
            out["ram_mb"] = {**ram, "rss_with_no_memories": round(empty_rss, 1)}
            out["rss_mb_per_1000_memories"] = round((ram["rss"] - empty_rss) / (total / 1000), 2)
        # A restart on the same data dir: the socket first, then the model in the background.
        launched = time.perf_counter()
        with bench_daemon(root, ready=False) as (client, proc):
            first_health = time.perf_counter() - launched
            client.call(
                "context.pack",
                {"query": "what does the user do for work?", "budget_tokens": 1000, "namespace": _agent(0)},
            )
            out["restart"] = {
                "first_health_s": round(first_health, 2),
                "first_pack_s": round(time.perf_counter() - launched, 2),
                "note": "from launching the process; the first pack waits for the model and reads the agent's vectors",
            }
    finally:
        if not args.work_dir:
            shutil.rmtree(root, ignore_errors=True)
    return out
