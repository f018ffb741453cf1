"""``agentmemd bench stalls``: does anything stall the socket?

Three measurements on real daemons, each printed as JSON:

* ``start``: time until ``health`` answers, and until the background catch-up is done, after a
  daemon was killed (-9) while indexing a big edit of a workspace file;
* ``consolidation``: ``health``, ``context.pack`` and ``memory.add`` latency while ``jobs.run consolidate`` runs
  over ``--memories`` memories, next to the same probes idle;
* ``mixed_load``: 8 clients (40 % add, 40 % search, 20 % pack) with a consolidation midway: errors;
* ``huge_edits``: ``health`` latency, time to index and peak RSS while the watcher syncs a 1 MB
  file of 200,000 one-word bullets, then 1,500 new small files;
* ``growth``: RSS added by read-only requests to 1,000 never-seen namespaces, and bytes on disk
  (database + WAL) per logged pack over 500 packs;
* ``import``: ``context.pack`` and ``memory.add`` latency while `agentmemd import` brings a
  WhatsApp export of ``--import-messages`` LoCoMo messages into a store of ``--memories``, until
  every message is searchable and the Observer has caught up, next to the same probes idle; and the
  daemon's RSS after the import next to the same data dir loaded by a fresh daemon.
"""

from __future__ import annotations

import json
import random
import shutil
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from agentmemd.daemon.bench.benchmarks import _pct, bench_daemon, proc_status_mb
from agentmemd.daemon.socket.client import Client

TOPICS = ("hiking", "cooking", "python", "guitar", "garden", "travel", "chess", "running", "coffee", "books")


def _wait_caught_up(client: Client, timeout: float = 600.0) -> None:
    deadline = time.monotonic() + timeout
    while client.call("health")["catching_up"]:
        if time.monotonic() > deadline:
            raise RuntimeError("the start-up catch-up did not finish")
        time.sleep(0.05)


def _start_after_killed_edit(root: Path, bullets: int) -> dict[str, Any]:
    ws = root / "ws"
    (ws / "memory").mkdir(parents=True)
    (ws / "MEMORY.md").write_text("# MEMORY\n- A seed fact.\n")
    toml = f'[workspace]\npath = "{ws}"\n'
    with bench_daemon(root, toml) as (client, proc):
        _wait_caught_up(client)
        (ws / "memory" / "big.md").write_text(
            "# Notes\n" + "".join(f"- Note {i} about {TOPICS[i % 10]}, detail {i * 7}.\n" for i in range(bullets))
        )
        time.sleep(0.5)  # past the watcher's 300 ms debounce: the sync is under way
        proc.kill()
        proc.wait()
    started = time.monotonic()
    with bench_daemon(root, toml) as (client, _):
        answered = time.monotonic() - started
        _wait_caught_up(client)
        caught_up = time.monotonic() - started
        memories = client.call("health")["memories"]
    return {
        "edit_bullets": bullets,
        "health_answers_s": round(answered, 2),
        "caught_up_s": round(caught_up, 2),
        "memories": memories,
    }


def _probe(sock: Path, method: str, params, out: list[float], stop: threading.Event) -> None:
    """``method`` called until ``stop``, its latencies in ``out``; ``params`` a dict, or a function
    of the call's number (each ``memory.add`` its own content)."""
    with Client(sock, timeout=600) as c:
        n = 0
        while not stop.is_set():
            t = time.perf_counter()
            c.call(method, params(n) if callable(params) else params)
            out.append((time.perf_counter() - t) * 1000)
            n += 1
            time.sleep(0.02)


def _probe_note(n: int) -> dict[str, Any]:
    return {"content": f"Probe note {n} about {TOPICS[n % 10]}.", "type": "fact"}


def _latency(values: list[float]) -> dict[str, Any]:
    return {"n": len(values), "p50_ms": round(_pct(values, 50), 1), "p99_ms": round(_pct(values, 99), 1)}


def _latency_and_worst(values: list[float]) -> dict[str, Any]:
    return {**_latency(values), "max_ms": round(max(values), 1), "over_1s": sum(v > 1000 for v in values)}


def _seed(client: Client, memories: int) -> None:
    for start in range(0, memories, 500):
        items = [
            {"content": f"The user talked about {TOPICS[i % 10]}, detail {i}, with friend {i % 53}.", "type": "fact"}
            for i in range(start, min(memories, start + 500))
        ]
        client.call("memory.add_many", {"items": items})


def _during_consolidation(root: Path, memories: int) -> dict[str, Any]:
    out: dict[str, Any] = {"memories": memories}
    with bench_daemon(root) as (client, _):
        _seed(client, memories)
        sock = root / "s.sock"
        for phase in ("idle", "consolidating"):
            health: list[float] = []
            packs: list[float] = []
            adds: list[float] = []
            stop = threading.Event()
            probes = [
                threading.Thread(target=_probe, args=(sock, "health", {}, health, stop)),
                threading.Thread(target=_probe, args=(sock, "memory.add", _probe_note, adds, stop)),
                threading.Thread(
                    target=_probe,
                    args=(
                        sock,
                        "context.pack",
                        {"query": "what does the user cook", "budget_tokens": 800},
                        packs,
                        stop,
                    ),
                ),
            ]
            for t in probes:
                t.start()
            began = time.perf_counter()
            if phase == "idle":
                time.sleep(5)
            else:
                out["consolidate_status"] = client.call("jobs.run", {"name": "consolidate"})["status"]
                out["consolidate_s"] = round(time.perf_counter() - began, 2)
            stop.set()
            for t in probes:
                t.join()
            out[phase] = {
                "health": _latency(health),
                "pack": _latency_and_worst(packs),
                "add": _latency_and_worst(adds),
            }
    return out


def _mixed_load(root: Path, clients: int, ops: int) -> dict[str, Any]:
    errors: list[str] = []
    latencies: list[float] = []
    lock = threading.Lock()
    with bench_daemon(root) as (client, _):
        _seed(client, 2000)
        sock = root / "s.sock"

        def run(n: int) -> None:
            rnd = random.Random(n)
            with Client(sock, timeout=600) as c:
                for i in range(ops):
                    draw, began = rnd.random(), time.perf_counter()
                    try:
                        if draw < 0.4:
                            c.call(
                                "memory.add", {"content": f"Client {n} note {i} on {TOPICS[i % 10]}.", "type": "fact"}
                            )
                        elif draw < 0.8:
                            c.call("memory.search", {"query": f"{TOPICS[i % 10]} notes", "k": 5})
                        else:
                            c.call("context.pack", {"query": f"what about {TOPICS[i % 10]}", "budget_tokens": 600})
                    except Exception as exc:  # counted, not raised: the figure is how many
                        with lock:
                            errors.append(repr(exc))
                    with lock:
                        latencies.append((time.perf_counter() - began) * 1000)

        threads = [threading.Thread(target=run, args=(n,)) for n in range(clients)]
        for t in threads:
            t.start()
        time.sleep(1.0)
        status = client.call("jobs.run", {"name": "consolidate"})["status"]
        for t in threads:
            t.join()
    return {
        "clients": clients,
        "ops": len(latencies),
        "errors": len(errors),
        "first_errors": errors[:3],
        "consolidate_status": status,
        **_latency(latencies),
    }


def _indexed(client: Client, paths: set[str]) -> bool:
    recorded = {f["path"] for f in client.call("workspace.status")["files"]}
    return paths <= recorded


def _synced_while_probed(client: Client, sock: Path, write, paths: set[str]) -> dict[str, Any]:
    health: list[float] = []
    stop = threading.Event()
    probe = threading.Thread(target=_probe, args=(sock, "health", {}, health, stop))
    probe.start()
    began = time.monotonic()
    write()
    deadline = began + 600
    while not _indexed(client, paths):
        if time.monotonic() > deadline:
            raise RuntimeError("the workspace sync did not finish in 10 minutes")
        time.sleep(0.1)
    indexed_s = time.monotonic() - began
    stop.set()
    probe.join()
    return {"indexed_s": round(indexed_s, 2), "health": _latency(health)}


def _huge_edits(root: Path, bullets: int, files: int) -> dict[str, Any]:
    """What stalled the daemon for 8 minutes at 1.5 GB (one file) and health for 9-18 s (many files)."""
    ws = root / "ws"
    (ws / "memory").mkdir(parents=True)
    (ws / "MEMORY.md").write_text("# MEMORY\n- A seed fact.\n")
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = [a + b for a in letters for b in letters]
    big = "".join(f"- {words[i % len(words)]}\n" for i in range(bullets))  # 5 bytes a bullet
    with bench_daemon(root, f'[workspace]\npath = "{ws}"\n') as (client, proc):
        _wait_caught_up(client)
        sock = root / "s.sock"
        one = _synced_while_probed(
            client, sock, lambda: (ws / "memory" / "words.md").write_text(big), {"memory/words.md"}
        )
        record = next(f for f in client.call("workspace.status")["files"] if f["path"] == "memory/words.md")
        one.update(file_bytes=len(big), bullets=bullets, recorded=record["reason"] or record["status"])

        def write_many() -> None:
            for n in range(files):
                (ws / "memory" / f"note{n:04d}.md").write_text(f"# Note {n}\n\n- Fact {n} about {TOPICS[n % 10]}.\n")

        many = _synced_while_probed(client, sock, write_many, {f"memory/note{n:04d}.md" for n in range(files)})
        many["files"] = files
        peak = proc_status_mb(proc.pid, "VmHWM")
    return {"one_huge_file": one, "many_small_files": many, "peak_rss_mb": round(peak, 1)}


def _data_bytes(data_dir: Path) -> int:
    return sum(f.stat().st_size for f in data_dir.glob("agentmemd.db*"))


def _growth(root: Path, namespaces: int, packs: int) -> dict[str, Any]:
    """RSS after read-only requests to never-seen namespaces, and bytes on disk per logged pack."""
    with bench_daemon(root) as (client, proc):
        _seed(client, 2000)
        client.call("context.pack", {"query": "warm up", "budget_tokens": 800})
        before = proc_status_mb(proc.pid, "VmRSS")
        for n in range(namespaces):
            client.call("memory.search", {"query": "anything at all", "namespace": f"fresh-{n}"})
            client.call("context.pack", {"query": "anything at all", "budget_tokens": 300, "namespace": f"fresh-{n}"})
        after = proc_status_mb(proc.pid, "VmRSS")
        start_bytes, start_logged = _data_bytes(root / "data"), client.call("stats")["packs_logged"]
        for i in range(packs):
            client.call("context.pack", {"query": f"what about {TOPICS[i % 10]} and friend {i}", "budget_tokens": 800})
        logged = client.call("stats")["packs_logged"] - start_logged
        grown = _data_bytes(root / "data") - start_bytes
    return {
        "fresh_namespaces": namespaces,
        "rss_mb_per_1000_fresh_namespaces": round((after - before) * 1000 / namespaces, 2),
        "packs": packs,
        "packs_logged": logged,
        "bytes_per_pack": round(grown / max(1, logged)),
    }


PACK_PROBE = {"query": "what did she say about the trip", "budget_tokens": 800}


def _probed(sock: Path, during) -> tuple[dict[str, Any], Any]:
    """Packs and adds, each on its own connection, while ``during()`` runs; their latencies and
    what ``during`` returned."""
    packs: list[float] = []
    adds: list[float] = []
    stop = threading.Event()
    probes = [
        threading.Thread(target=_probe, args=(sock, "context.pack", PACK_PROBE, packs, stop)),
        threading.Thread(target=_probe, args=(sock, "memory.add", _probe_note, adds, stop)),
    ]
    for t in probes:
        t.start()
    try:
        result = during()
    finally:
        stop.set()
        for t in probes:
            t.join()
    return {"pack": _latency_and_worst(packs), "add": _latency_and_worst(adds)}, result


def _during_import(root: Path, data: Path, messages: int, memories: int) -> dict[str, Any]:
    """What an import does to the requests beside it, and what it leaves in the daemon's memory."""
    from agentmemd.daemon.bench import imports

    root.mkdir(parents=True, exist_ok=True)
    export = imports._render("whatsapp", imports._samples(json.loads(Path(data).read_text()), messages), root)
    namespace = "imported"
    out: dict[str, Any] = {"memories": memories}
    with bench_daemon(root / "daemon") as (client, proc):
        _seed(client, memories)
        sock = root / "daemon" / "s.sock"
        client.call("context.pack", PACK_PROBE)  # the query's embedding cached in both phases
        out["idle"], _ = _probed(sock, lambda: time.sleep(10))

        def run_import() -> dict[str, float]:
            began = time.perf_counter()
            wall, report = imports._import(sock, "whatsapp", export, namespace)
            searchable = imports._searchable_at(client, report, namespace) - began
            caught_up = imports._observer_caught_up(client, report, namespace) - began
            return {
                "messages": report["added"],
                "import_wall_s": round(wall, 1),
                "searchable_s": round(searchable, 1),
                "observer_caught_up_s": round(caught_up, 1),
            }

        out["importing"], out["import"] = _probed(sock, run_import)
        out["rss_after_import_mb"] = round(proc_status_mb(proc.pid, "VmRSS") or 0, 1)
        out["ram_after_import_mb"] = client.call("stats")["ram_mb"]
        out["peak_rss_mb"] = round(proc_status_mb(proc.pid, "VmHWM") or 0, 1)
    with bench_daemon(root / "daemon") as (client, proc):  # the same store, loaded without an import
        for _ in range(20):
            client.call("context.pack", PACK_PROBE)
            client.call("context.pack", {**PACK_PROBE, "namespace": namespace})
        out["rss_same_store_fresh_mb"] = round(proc_status_mb(proc.pid, "VmRSS") or 0, 1)
        out["ram_same_store_fresh_mb"] = client.call("stats")["ram_mb"]
    idle, busy = out["idle"], out["importing"]
    out["pack_p99_during_over_idle"] = round(busy["pack"]["p99_ms"] / idle["pack"]["p99_ms"], 2)
    out["rss_after_import_over_fresh"] = round(out["rss_after_import_mb"] / out["rss_same_store_fresh_mb"], 2)
    return out


CASES = ("start", "consolidation", "mixed_load", "huge_edits", "growth", "import")


def bench_stalls(args) -> dict[str, Any]:
    base = Path(args.work_dir) if args.work_dir else Path(tempfile.mkdtemp(prefix="amds", dir="/tmp"))
    cases = {
        "start": lambda: _start_after_killed_edit(base / "start", args.edit_bullets),
        "consolidation": lambda: _during_consolidation(base / "consolidation", args.memories),
        "mixed_load": lambda: _mixed_load(base / "mixed", 8, args.ops),
        "huge_edits": lambda: _huge_edits(base / "huge", 200_000, 1500),
        "growth": lambda: _growth(base / "growth", 1000, 500),
        "import": lambda: _during_import(base / "import", args.data, args.import_messages, args.memories),
    }

    try:
        chosen = args.only or [name for name in CASES if name != "import" or args.data]
        return {name: cases[name]() for name in CASES if name in chosen}
    finally:
        if not args.work_dir:
            shutil.rmtree(base, ignore_errors=True)
