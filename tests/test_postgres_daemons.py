"""Several `agentmemd serve` processes over one PostgreSQL (real daemons, real sockets): each has
its own data dir and socket; one killed with kill -9 in the middle of writes loses nothing it
acknowledged and leaves nothing half-written, while the other goes on serving."""

from __future__ import annotations

import threading
import time

import psycopg
import pytest
from conftest import DaemonProcess

pytestmark = pytest.mark.postgres


def _writers(daemons, acked: list[str], stop: threading.Event) -> list[threading.Thread]:
    lock = threading.Lock()

    def writer(d, n: int) -> None:
        try:
            with d.client() as c:
                i = 0
                while not stop.is_set():
                    mid = c.call("memory.add", {"content": f"writer {n} fact {i}: the kettle is blue", "type": "fact"})
                    c.call("conversation.append", {"session": f"w{n}", "role": "user", "content": f"turn {i} of {n}"})
                    with lock:
                        acked.append(mid["id"])
                    i += 1
        except (ConnectionError, OSError, ValueError):
            pass  # its daemon died under it: expected

    return [threading.Thread(target=writer, args=(d, n)) for n, d in enumerate(daemons * 2)]


def test_two_daemons_share_a_store_and_a_kill_9_loses_nothing_acknowledged(spawn, short_tmp, postgres_databases):
    url = postgres_databases()
    for name in ("a", "b"):
        (short_tmp / name).mkdir()
    first = spawn({"store": {"url": url}}, root=short_tmp / "a")
    second = spawn({"store": {"url": url}}, root=short_tmp / "b")
    acked: list[str] = []
    stop = threading.Event()
    threads = _writers([first, second], acked, stop)
    for t in threads:
        t.start()
    while len(acked) < 80:
        time.sleep(0.05)
    first.kill9()
    time.sleep(0.5)  # the second daemon's writers go on meanwhile
    stop.set()
    for t in threads:
        t.join(10)
    with second.client() as c:
        for mid in acked:
            assert c.call("memory.get", {"id": mid})["id"] == mid
        assert (
            "kettle" in c.call("memory.search", {"query": "what colour is the kettle", "k": 1})["results"][0]["content"]
        )
    with psycopg.connect(url) as db:
        live = db.execute("SELECT count(*) FROM memories WHERE superseded_by IS NULL").fetchone()[0]
        worded = db.execute("SELECT documents FROM memory_terms_stats WHERE namespace = 'default'").fetchone()[0]
        vectors = db.execute("SELECT count(DISTINCT seq) FROM memory_vectors").fetchone()[0]
        turns, distinct = db.execute(
            "SELECT count(*), count(DISTINCT (session, content)) FROM conversation_turns"
        ).fetchone()
    assert live == worded == vectors >= len(acked)  # every memory wholly there, or not at all
    assert turns == distinct
    restarted = DaemonProcess(first.root, {"store": {"url": url}}).start()
    try:
        with restarted.client() as c:
            assert all(c.call("memory.get", {"id": mid})["id"] == mid for mid in acked[-20:])
    finally:
        restarted.terminate()
