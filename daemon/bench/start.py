"""``agentmemd bench start``: how long a fresh daemon takes to answer, to be ready, and to stop, and
the CPU time that costs.

Each round starts ``agentmemd serve`` on a new temp data dir with the bench's config (scheduled jobs
off), as a person's first start and every test that starts a daemon do; it waits until ``health``
answers (the socket), then until it says ``ok`` with nothing to catch up (the model loaded), reads
the model's ``load_seconds`` from the ready line, and stops it with SIGTERM. The CPU seconds are
the daemon's own (user and system, from the kernel's account of the finished child): on a
machine running many daemons at once (a test suite) that, not the wall time, is what they cost
each other.
"""

from __future__ import annotations

import json
import resource
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from agentmemd.daemon.bench.benchmarks import _pct, bench_daemon


def _children_cpu_s() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _load_seconds(log: Path) -> float | None:
    for line in log.read_text(errors="replace").splitlines():
        if line.startswith("{") and '"event": "ready"' in line:
            return json.loads(line)["model"]["load_seconds"]
    return None


def _one_round() -> dict[str, Any]:
    root = Path(tempfile.mkdtemp(prefix="amdb", dir="/tmp"))
    cpu_before = _children_cpu_s()
    began = time.perf_counter()
    try:
        with bench_daemon(root, ready=False) as (client, _proc):
            answered = time.perf_counter() - began
            while True:
                health = client.call("health")
                if health["status"] == "model_failed":
                    raise RuntimeError(f"bench daemon: {health['detail']}")
                if health["status"] == "ok" and not health["catching_up"]:
                    break
                time.sleep(0.01)
            ready = time.perf_counter() - began
            # The ready line (with the model's load_seconds) follows health's "ok": stopped before
            # it is written, the daemon never writes it.
            deadline = time.monotonic() + 60
            while _load_seconds(root / "daemon.log") is None and time.monotonic() < deadline:
                time.sleep(0.01)
            stopping = time.perf_counter()
        stopped = time.perf_counter() - stopping
        return {
            "first_answer_s": round(answered, 3),
            "ready_s": round(ready, 3),
            "model_load_s": _load_seconds(root / "daemon.log"),
            "stop_s": round(stopped, 3),
            "daemon_cpu_s": round(_children_cpu_s() - cpu_before, 3),
        }
    finally:
        shutil.rmtree(root, ignore_errors=True)


def bench_start(args) -> dict[str, Any]:
    rounds = [_one_round() for _ in range(args.rounds)]
    out: dict[str, Any] = {"rounds": args.rounds}
    for field in ("first_answer_s", "ready_s", "model_load_s", "stop_s", "daemon_cpu_s"):
        values = [r[field] for r in rounds if r[field] is not None]
        out[field] = {"p50": _pct(values, 50), "max": round(max(values), 3)} if values else None
    out["each"] = rounds
    return out
