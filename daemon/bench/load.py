"""`agentmemd bench load`: many clients at once over the socket, a mixed workload.

Each client is a thread of this process with its own connection; it draws its next call from
the mix (40 % memory.add with real text, 30 % memory.search, 20 % context.pack, 10 %
conversation.append to its own session) and sends it as soon as the last one is answered.
The same run is made with one client (the throughput to beat) and with `jobs.run consolidate`
started midway (pack p95 while it runs against pack p95 before it).
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import tomlkit

from agentmemd.daemon.bench.benchmarks import (
    PERSONA_RULES,
    _pct,
    _peak_rss_mb,
    add_with_vectors,
    bench_daemon,
    unit_vectors,
    zipf_phrases,
)
from agentmemd.daemon.bench.postgres import bench_database
from agentmemd.daemon.socket.client import Client, RpcCallError

MIX = (("memory.add", 0.4), ("memory.search", 0.3), ("context.pack", 0.2), ("conversation.append", 0.1))


class _Texts:
    """Fresh Zipf phrases (so no query embedding is a cache hit), drawn by many threads."""

    def __init__(self, seed: int, count: int):
        self._phrases = zipf_phrases(np.random.default_rng(seed), count, 10)
        self._next = 0
        self._lock = threading.Lock()

    def take(self) -> str:
        with self._lock:
            phrase = self._phrases[self._next % len(self._phrases)]
            self._next += 1
        return phrase


def _params(method: str, text: str, client_no: int, namespace: str) -> dict[str, Any]:
    if method == "memory.add":
        return {"content": f"The user said {text}.", "type": "fact", "namespace": namespace}
    if method == "memory.search":
        return {"query": " ".join(text.split()[:4]) + "?", "k": 10, "namespace": namespace}
    if method == "context.pack":
        return {"query": " ".join(text.split()[:4]) + "?", "budget_tokens": 1000, "namespace": namespace}
    return {
        "session": f"load-{client_no}",
        "role": "user",
        "content": f"I was thinking about {text}.",
        "namespace": namespace,
    }


class _Run:
    """Latencies (ms) per method with the time each call ended, and the errors, of one run."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, float, float]] = []  # (method, ended at, ms)
        self.errors: list[str] = []
        self._lock = threading.Lock()

    def record(self, method: str, ended: float, ms: float) -> None:
        with self._lock:
            self.calls.append((method, ended, ms))

    def fail(self, message: str) -> None:
        with self._lock:
            self.errors.append(message)

    def summary(self, start: float, end: float) -> dict[str, Any]:
        inside = [c for c in self.calls if start <= c[1] <= end]
        out: dict[str, Any] = {
            "seconds": round(end - start, 1),
            "calls": len(inside),
            "throughput_per_s": round(len(inside) / (end - start), 1),
            "errors": len(self.errors),
            "first_errors": self.errors[:3],
            "ms": {},
        }
        for method, _ in MIX:
            ms = [c[2] for c in inside if c[0] == method]
            if ms:
                out["ms"][method] = {"calls": len(ms), "p50": _pct(ms, 50), "p99": _pct(ms, 99)}
        return out

    def pack_p95(self, start: float, end: float) -> float | None:
        ms = [c[2] for c in self.calls if c[0] == "context.pack" and start <= c[1] <= end]
        return _pct(ms, 95) if ms else None


def _client_loop(
    sock, client_no: int, texts: _Texts, run: _Run, stop: threading.Event, seed: int, namespace: str = "default"
) -> None:
    rng = np.random.default_rng(seed)
    methods = [m for m, _ in MIX]
    weights = np.array([w for _, w in MIX])
    with Client(sock, timeout=120) as client:
        while not stop.is_set():
            method = methods[int(rng.choice(len(methods), p=weights))]
            params = _params(method, texts.take(), client_no, namespace)
            t = time.perf_counter()
            try:
                client.call(method, params)
            except (RpcCallError, OSError) as exc:
                run.fail(f"{method}: {exc}")
                continue
            ended = time.perf_counter()
            run.record(method, ended, (ended - t) * 1000)


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds a process has used (/proc/PID/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _drive(
    sock, pid: int, clients: int, seconds: float, texts: _Texts, during=None, *, socks=None, namespace="default"
) -> tuple[_Run, float, float, dict[str, float]]:
    """``clients`` loops for ``seconds``; ``during(run, start)`` runs on this thread meanwhile.
    Also returns the CPU cores the daemon and this process (the clients) used on average.
    ``socks``: the clients take these daemons' sockets in turn (``sock`` alone otherwise)."""
    run, stop = _Run(), threading.Event()
    socks = socks or [sock]
    threads = [
        threading.Thread(
            target=_client_loop, args=(socks[i % len(socks)], i, texts, run, stop, 1000 + i, namespace), daemon=True
        )
        for i in range(clients)
    ]
    daemon_cpu, own_cpu = cpu_seconds(pid), time.process_time()
    start = time.perf_counter()
    for t in threads:
        t.start()
    if during is not None:
        during(run, start)
    time.sleep(max(0.0, seconds - (time.perf_counter() - start)))
    stop.set()
    end = time.perf_counter()
    cores = {
        "daemon": round((cpu_seconds(pid) - daemon_cpu) / (end - start), 2),
        "clients": round((time.process_time() - own_cpu) / (end - start), 2),
    }
    for t in threads:
        t.join(120)
    return run, start, end, cores


def _stock(client: Client, memories: int) -> None:
    """``memories`` facts with caller-supplied vectors (fast), and the persona rules of an agent."""
    rng = np.random.default_rng(7)
    vectors = unit_vectors(rng, memories)
    phrases = zipf_phrases(rng, memories, 8)
    client.call("memory.add_many", {"items": PERSONA_RULES})
    add_with_vectors(
        client, vectors, lambda i: {"content": f"Memory {i}: the user mentioned {phrases[i]}.", "type": "fact"}
    )


def bench_load(args) -> dict[str, Any]:
    out: dict[str, Any] = {
        "memories": args.memories,
        "clients": args.clients,
        "seconds": args.seconds,
        "mix": dict(MIX),
        "note": "clients are threads of the bench process, on the same 2 cores as the daemon",
    }
    texts = _Texts(11, 200_000)
    settings = tomllib.loads(Path(args.config_file).read_text()) if args.config_file else {}
    settings.pop("jobs", None)  # the bench's daemon runs no scheduled job
    out["store"] = "postgresql" if args.store_url else "sqlite"
    if args.daemons > 1 and not args.store_url:
        raise ValueError("--daemons needs --store-url: daemons share a PostgreSQL store")
    with (
        bench_database(args.store_url, f"load_{args.memories}") as url,
        bench_daemon(args.work_dir, tomlkit.dumps(settings), store_url=url) as (client, proc),
    ):
        _stock(client, args.memories)
        sock = client.socket_path
        client.call("context.pack", {"query": "warm up", "budget_tokens": 1000})
        one, start, end, cores = _drive(sock, proc.pid, 1, args.seconds, texts)
        out["one_client"] = {**one.summary(start, end), "cpu_cores_used": cores}
        many, start, end, cores = _drive(sock, proc.pid, args.clients, args.seconds, texts)
        out["many_clients"] = {**many.summary(start, end), "cpu_cores_used": cores}
        out["throughput_over_one_client"] = round(
            out["many_clients"]["throughput_per_s"] / max(out["one_client"]["throughput_per_s"], 1e-9), 2
        )
        window: dict[str, float] = {}

        def consolidate_midway(run: _Run, begun: float) -> None:
            time.sleep(args.seconds / 2)
            window["start"] = time.perf_counter()
            with Client(sock, timeout=600) as jobs:
                window["report"] = jobs.call("jobs.run", {"name": "consolidate"})
            window["end"] = time.perf_counter()

        busy, start, end, cores = _drive(sock, proc.pid, args.clients, args.seconds, texts, during=consolidate_midway)
        idle_p95 = busy.pack_p95(start, window["start"])
        during_p95 = busy.pack_p95(window["start"], window["end"])
        out["with_consolidation"] = {
            **busy.summary(start, end),
            "cpu_cores_used": cores,
            "consolidation_s": round(window["end"] - window["start"], 2),
            "consolidation_status": window["report"].get("status"),
            "pack_p95_idle_ms": idle_p95,
            "pack_p95_during_consolidation_ms": during_p95,
            "ratio": round(during_p95 / idle_p95, 2) if idle_p95 and during_p95 else None,
        }
        out["daemon_peak_rss_mb"] = _peak_rss_mb(proc.pid)
        if args.daemons > 1:
            out["fleet"] = _fleet(args, settings, url, client, proc, texts)
    return out


def _fleet(args, settings: dict, url: str, client: Client, proc, texts: _Texts) -> dict[str, Any]:
    """The clients on one daemon, then spread over ``args.daemons`` sharing its store, each run in a
    namespace of its own; then every acknowledged write counted back from the store."""
    out: dict[str, Any] = {"daemons": args.daemons}
    with contextlib.ExitStack() as more:
        others = [
            more.enter_context(
                bench_daemon(
                    Path(args.work_dir) / f"daemon{i}" if args.work_dir else None,
                    tomlkit.dumps(settings),
                    store_url=url,
                )
            )
            for i in range(1, args.daemons)
        ]
        socks = [client.socket_path, *(c.socket_path for c, _ in others)]
        for label, used in (("one_daemon", socks[:1]), ("daemons", socks)):
            namespace = f"fleet-{label}"
            run, start, end, _ = _drive(
                None, proc.pid, args.clients, args.seconds, texts, socks=used, namespace=namespace
            )
            out[label] = {**run.summary(start, end), **_written_back(url, namespace, run)}
    out["throughput_over_one_daemon"] = round(
        out["daemons"]["throughput_per_s"] / max(out["one_daemon"]["throughput_per_s"], 1e-9), 2
    )
    return out


def _written_back(url: str, namespace: str, run: _Run) -> dict[str, int]:
    """Acknowledged writes against what the store holds: lost ones, and turns stored twice."""
    import psycopg

    acked = {method: sum(1 for c in run.calls if c[0] == method) for method in ("memory.add", "conversation.append")}
    with psycopg.connect(url) as conn:
        (memories,) = conn.execute(
            "SELECT count(*) FROM memories WHERE namespace = %s AND type = 'fact'", (namespace,)
        ).fetchone()
        turns, distinct = conn.execute(
            "SELECT count(*), count(DISTINCT (session, content)) FROM conversation_turns WHERE namespace = %s",
            (namespace,),
        ).fetchone()
    return {
        "adds_acknowledged": acked["memory.add"],
        "lost_memories": acked["memory.add"] - memories,
        "appends_acknowledged": acked["conversation.append"],
        "lost_turns": acked["conversation.append"] - turns,
        "duplicated_turns": turns - distinct,
    }
