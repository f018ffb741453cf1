"""Model work never runs on the store thread: workspace syncs, Reflector rewrites and consolidation
prepare (embed, cluster) beside it and commit in one short transaction on it (in-process)."""

from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path

import pytest
from inprocess import HashEmbedder, InProcessDaemon

from agentmemd.daemon.socket.client import RpcCallError
from agentmemd.memory.retrieval.lexical import bm25_hits

pytestmark = pytest.mark.inprocess  # the tier (pyproject.toml)

ROOT = Path(__file__).resolve().parent.parent


class RecordingEmbedder(HashEmbedder):
    """The fake embedder, noting which thread asked."""

    def __init__(self) -> None:
        self.threads: list[str] = []

    def embed(self, texts: list[str]):
        self.threads.append(threading.current_thread().name)
        return super().embed(texts)


def test_syncs_reflections_and_consolidation_embed_beside_the_store_thread(short_tmp):
    ws = short_tmp / "ws"
    shutil.copytree(ROOT / "workspace_template", ws, ignore=shutil.ignore_patterns("__init__.py", "*.toml"))
    embedder = RecordingEmbedder()
    d = InProcessDaemon(
        short_tmp / "d",
        {"clock": {"start": "2024-05-01T09:00:00Z"}, "conversation": {"keep_recent_turns": 0}},
        embedder=embedder,
        workspace=ws,
    )
    try:
        assert embedder.threads, "the start-up catch-up embedded the template's items"
        d.call(
            "memory.add_many",
            {
                "items": [
                    {"content": f"Melanie took the kids to the beach on day {i}", "type": "fact"} for i in range(12)
                ]
            },
        )
        embedder.threads.clear()  # memory.add_many embeds on its request's thread; what follows must not
        # A person's edit, synced on request.
        with open(ws / "USER.md", "a") as f:
            f.write("\n## Pets\n- Oscar has a grey cat called Miso.\n- Oscar's cat Miso hates the vet.\n")
        assert d.call("workspace.sync")["added"] == 2
        # A conversation observed and reflected (the local provider embeds to merge near-duplicates).
        turns = [
            "I love hiking in the Alps, we go every summer.",
            "My sister Ana just moved to Lisbon for a new job.",
            "I decided to learn Portuguese before visiting her.",
            "Honestly I prefer tea over coffee in the mornings.",
            "We adopted a grey cat called Miso last week!",
            "Actually I now prefer coffee over tea, since the new job.",
        ]
        for text in turns:
            d.call("conversation.append", {"session": "s", "role": "user", "content": text})
        report = d.call("conversation.observe", {"session": "s", "reflect": True})
        assert report["reflect_runs"], report
        # Consolidation clusters the memories and embeds the new nodes.
        assert d.call("jobs.run", {"name": "consolidate"})["status"] == "ok"
        assert len(embedder.threads) >= 3
        assert not [t for t in embedder.threads if t.startswith("test-store")], embedder.threads
    finally:
        d.terminate()


def test_reads_are_answered_while_a_write_holds_the_store_thread(short_tmp):
    """Search, pack, explain, get and health run on reader threads with read-only connections: a
    write transaction held open on the store thread delays none of them, and they see only what
    was committed (issue 17)."""
    d = InProcessDaemon(short_tmp / "d", embedder=HashEmbedder())
    try:
        mid = d.call("memory.add", {"content": "Ana keeps bees behind the old mill", "type": "fact"})["id"]
        d.call("conversation.append", {"session": "s", "role": "user", "content": "Hello there"})
        store = d.services.store
        inside, release = threading.Event(), threading.Event()

        def hold_a_write() -> None:
            with store.transaction():
                store.conn.execute("UPDATE memories SET content = 'changed, not committed' WHERE id = ?", (mid,))
                inside.set()
                release.wait(60)
                store.conn.execute("UPDATE memories SET content = 'Ana keeps bees' WHERE id = ?", (mid,))

        held = d.executor.submit(hold_a_write)
        assert inside.wait(30)
        try:
            hits = d.call("memory.search", {"query": "bees mill"})["results"]
            assert [h["content"] for h in hits] == ["Ana keeps bees behind the old mill"]  # committed state only
            pack = d.call("context.pack", {"query": "bees", "budget_tokens": 200})
            assert "old mill" in pack["text"]
            assert d.call("context.explain", {"pack_id": pack["pack_id"]})["text"] == pack["text"]
            assert d.call("memory.get", {"id": mid})["content"].endswith("old mill")
            assert d.call("health")["memories"] >= 1
            # What the dashboard's pages read, likewise (issue 18).
            assert d.call("memory.list", {"contains": "bees"})["items"][0]["content"].endswith("old mill")
            assert d.call("memory.history", {"id": mid})["versions"][0]["content"].endswith("old mill")
            assert d.call("packs.list", {})["total"] >= 1
            assert d.call("conversation.status", {"session": "s"})["turns"] == 1
            assert d.call("conversation.turns", {"session": "s"})["total"] == 1
            for method in ("conversation.list", "observations.list", "persona.scores", "consolidation.list"):
                d.call(method, {"namespace": "default"})
            for method in ("jobs.list", "jobs.runs", "costs", "chats.list"):
                d.call(method, {})
            assert not held.done()  # all of it answered while the write was still open
        finally:
            release.set()
        held.result(30)
        assert d.call("memory.get", {"id": mid})["content"] == "Ana keeps bees"
    finally:
        d.terminate()


def test_a_reader_connection_refuses_to_write(short_tmp):
    from agentmemd.memory.core.errors import StoreError

    d = InProcessDaemon(short_tmp / "d", embedder=HashEmbedder())
    try:
        store = d.services.store
        with store.reading(), pytest.raises(StoreError, match="read-only"):
            with store.transaction():
                pass
    finally:
        d.terminate()


def test_health_says_starting_while_the_model_loads_and_requests_wait_for_it(short_tmp):
    """The model loads beside the start-up (issue 17): health answers at once with "starting", a
    search that needs the model waits for it and is then answered; a failed load is reported by
    health and by every call that needs the model."""
    from concurrent.futures import ThreadPoolExecutor

    from agentmemd.memory.retrieval.embeddings import BackgroundEmbedder

    loaded = threading.Event()

    def load_slowly():
        assert loaded.wait(60)
        return HashEmbedder()

    d = InProcessDaemon(short_tmp / "d", embedder=BackgroundEmbedder(load_slowly))
    try:
        assert d.call("health")["status"] == "starting"
        with ThreadPoolExecutor(1) as pool:
            search = pool.submit(d.connect().call, "memory.search", {"query": "bees"})
            assert not search.done()  # waiting for the model
            assert d.call("health")["status"] == "starting"  # health never waits
            loaded.set()
            assert search.result(30) == {"results": []}
        assert d.call("health")["status"] == "ok"
    finally:
        d.terminate()

    def fail():
        raise OSError("weights not found")

    broken = InProcessDaemon(short_tmp / "b", embedder=BackgroundEmbedder(fail))
    try:
        broken.services.memories.embedder._ready.wait(30)
        health = broken.call("health")
        assert health["status"] == "model_failed" and "weights not found" in health["detail"]
        with pytest.raises(RpcCallError, match="failed to load: OSError: weights not found"):
            broken.call("memory.search", {"query": "bees"})
    finally:
        broken.terminate()


@pytest.mark.sqlite_file
def test_stats_report_the_daemons_memory_by_part(short_tmp):
    d = InProcessDaemon(short_tmp / "d", embedder=HashEmbedder())
    try:
        before = d.call("stats")["ram_mb"]
        assert before["vectors"] == 0  # no namespace searched yet: no matrix in RAM
        d.call(
            "memory.add_many", {"items": [{"content": f"Fact {i} about the hives", "type": "fact"} for i in range(300)]}
        )
        d.call("memory.search", {"query": "hives"})  # loads the namespace's matrix
        assert "ram_mb" not in d.call("stats", {"namespace": "default"})  # a whole-daemon figure
        ram = d.call("stats")["ram_mb"]
        assert ram["vectors"] > 0 and ram["model"] == 0  # the fake embedder has no weights
        assert ram["rss"] >= ram["vectors"] + ram["model"] and abs(ram["rest"] - (ram["rss"] - ram["vectors"])) <= 0.2
        assert ram["sqlite_cache_max"] > 0
    finally:
        d.terminate()


def test_background_threads_yield_the_cores_to_requests():
    """Background threads (jobs, workspace syncs, the episode and compaction workers) run niced
    (Linux: per thread), so a consolidation's distance matrix does not take a core from the packs
    (issue 17); marking a thread twice nices it once, and the caller's thread stays as it was."""
    from agentmemd.memory.core.threads import BACKGROUND_NICE, become_background, in_background

    seen: list[tuple[int, bool]] = []

    def run() -> None:
        before = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
        become_background()
        become_background()
        seen.append((os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) - before, in_background()))

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    assert seen == [(min(BACKGROUND_NICE, 19 - os.getpriority(os.PRIO_PROCESS, 0)), True)]
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == os.getpriority(os.PRIO_PROCESS, 0)
    assert not in_background()


def test_a_reader_whose_snapshot_predates_a_new_namespace_finds_nothing_there(short_tmp):
    """The writer records a new namespace's FTS table as it creates it; a reader whose snapshot
    began before that commit must not query the table it cannot see (it did: "no such table")."""
    d = InProcessDaemon(short_tmp / "d", embedder=HashEmbedder())
    try:
        d.call("memory.add", {"content": "Something old", "type": "fact"})
        store = d.services.store
        with store.reading():
            store.conn.execute("SELECT count(*) FROM memories").fetchone()  # the snapshot begins
            added = threading.Thread(
                target=d.call,
                args=("memory.add", {"content": "Bees in a new place", "type": "fact", "namespace": "fresh"}),
            )
            added.start()
            added.join(30)
            assert bm25_hits(store, "fresh", ["bee"], 1000).scores == {}
        assert bm25_hits(store, "fresh", ["bee"], 1000).scores  # a new snapshot sees it
    finally:
        d.terminate()


def test_the_channel_tables_read_on_the_reading_threads_own_connection(in_process):
    """people.list, people.get and the chat reads run on reader threads: their queries must go to
    that thread's read-only connection, not the writer's (taken once when the tables were made)."""
    d = in_process(fake_embedder=True)
    tables = d.services.channels.tables
    store = tables.store
    writer = store.conn
    with store.reading():
        assert store.conn is not writer and tables.conn is store.conn
