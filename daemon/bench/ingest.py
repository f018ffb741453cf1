"""`agentmemd bench ingest`: real text through memory.add_many against the bare model.

Short turns (LoCoMo) and long ones (LongMemEval_S haystacks) are sent in batches of up to 64 by
one client, as an importer would. The floor is the bare sentence-transformers model embedding
the same texts in this run, in chunks of 16 sorted by length: on one torch thread (the issue's
yardstick) and on all cores. A text longer than the model's window is stored as one vector per
window (embeddings.py), so the floor is also given for those windows: the work the daemon must do.
Meanwhile one thread asks ``health`` every 20 ms and another ``memory.search`` every 200 ms.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

from agentmemd.daemon.bench.benchmarks import _pct, _peak_rss_mb, bench_daemon, locomo_turns
from agentmemd.daemon.bench.longmemeval import haystack_turns
from agentmemd.daemon.socket.client import Client, RpcCallError

BATCH = 64


def _texts(args) -> dict[str, list[str]]:
    locomo = json.loads(Path(args.locomo).read_text())
    short = [t["text"] for sample in locomo for t in locomo_turns(sample)][: args.locomo_turns]
    lme = json.loads(Path(args.longmemeval).read_text())
    long: list[str] = []
    for question in lme:
        long += [t["text"] for t in haystack_turns(question)]
        if len(long) >= args.longmemeval_turns:
            break
    return {"locomo": short, "longmemeval": long[: args.longmemeval_turns]}


def _floor(texts: list[str], threads: int) -> float:
    """Seconds the bare model takes to embed ``texts`` (chunks of 16, longest first)."""
    import torch
    from sentence_transformers import SentenceTransformer

    from agentmemd.memory.core.tokens import bundled_model_dir

    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        model = _floor.model = getattr(_floor, "model", None) or SentenceTransformer(  # type: ignore[attr-defined]
            str(bundled_model_dir()), device="cpu"
        )
        model.encode(["warm up"])
        started = time.perf_counter()
        ordered = sorted(texts, key=len, reverse=True)
        for i in range(0, len(ordered), 16):
            model.encode(ordered[i : i + 16], batch_size=16, normalize_embeddings=True, show_progress_bar=False)
        return time.perf_counter() - started
    finally:
        torch.set_num_threads(before)


def _windows(texts: list[str]) -> list[str]:
    """The pieces the daemon embeds: one per model window of each text."""
    from agentmemd.memory.retrieval.embeddings import MiniLMEmbedder

    embedder = _windows.embedder = getattr(_windows, "embedder", None) or MiniLMEmbedder(0)  # type: ignore[attr-defined]
    return [piece for text in texts for piece in embedder._windows(text)]


class _Beside:
    """health every 20 ms and memory.search every 200 ms, on their own connections, while ingesting."""

    def __init__(self, sock: str):
        self.sock = sock
        self.health_ms: list[float] = []
        self.search_ms: list[float] = []
        self.errors: list[str] = []
        self._stop = threading.Event()
        self._threads = [
            threading.Thread(target=self._loop, args=("health", {}, self.health_ms, 0.02), daemon=True),
            threading.Thread(
                target=self._loop,
                args=(
                    "memory.search",
                    {"query": "what did we talk about?", "namespace": "bench-search"},
                    self.search_ms,
                    0.2,
                ),
                daemon=True,
            ),
        ]

    def _loop(self, method: str, params: dict[str, Any], into: list[float], every: float) -> None:
        with Client(self.sock, timeout=120) as client:
            while not self._stop.is_set():
                t = time.perf_counter()
                try:
                    client.call(method, params)
                    into.append((time.perf_counter() - t) * 1000)
                except (RpcCallError, OSError) as exc:
                    self.errors.append(f"{method}: {exc}")
                self._stop.wait(every)

    def __enter__(self) -> "_Beside":
        for t in self._threads:
            t.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        for t in self._threads:
            t.join(60)


def bench_ingest(args) -> dict[str, Any]:
    corpora = _texts(args)
    out: dict[str, Any] = {"batch": BATCH, "corpora": {}}
    with bench_daemon(args.work_dir) as (client, proc):
        client.call(
            "memory.add", {"content": "We talked about the garden.", "type": "fact", "namespace": "bench-search"}
        )
        for name, texts in corpora.items():
            items = [{"content": text, "type": "fact", "namespace": f"bench-{name}"} for text in texts]
            with _Beside(client.socket_path) as beside:
                started = time.perf_counter()
                for i in range(0, len(items), BATCH):
                    client.call("memory.add_many", {"items": items[i : i + BATCH]})
                seconds = time.perf_counter() - started
            out["corpora"][name] = {
                "texts": len(texts),
                "mean_chars": round(sum(map(len, texts)) / len(texts)),
                "seconds": round(seconds, 2),
                "per_s": round(len(texts) / seconds, 1),
                "health_ms": {
                    "calls": len(beside.health_ms),
                    "p50": _pct(beside.health_ms, 50),
                    "p99": _pct(beside.health_ms, 99),
                },
                "search_ms": {
                    "calls": len(beside.search_ms),
                    "p50": _pct(beside.search_ms, 50),
                    "p99": _pct(beside.search_ms, 99),
                },
                "errors_beside": beside.errors[:3],
            }
        out["daemon_peak_rss_mb"] = _peak_rss_mb(proc.pid)
    # The floor, in this process after the daemon has stopped (the two never share the cores).
    for name, texts in corpora.items():
        row = out["corpora"][name]
        pieces = _windows(texts)
        row["windows"] = len(pieces)
        one = _floor(pieces, 1)
        every = _floor(pieces, 2)
        row["floor_s"] = {
            "bare_model_one_thread": round(one, 2),
            "bare_model_two_threads": round(every, 2),
            "bare_model_one_thread_texts_cut_at_256_tokens": round(_floor(texts, 1), 2),
        }
        row["seconds_over_floor_one_thread"] = round(row["seconds"] / one, 2)
        row["seconds_over_floor_two_threads"] = round(row["seconds"] / every, 2)
    return out
