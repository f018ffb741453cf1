"""A change of ``[embedding] model`` on a store that has memories: every vector of the old model
goes, the new model's are made in the background (newest first, a batch per commit, resumable),
search is served meanwhile by words, and health shows the progress."""

from __future__ import annotations

import hashlib
import threading

import numpy as np
import pytest
from conftest import NO_JOBS, wait_for
from inprocess import HashEmbedder, InProcessDaemon

from agentmemd.memory.retrieval import reembedding
from agentmemd.memory.store.database import from_blob, indexed_text

pytestmark = pytest.mark.inprocess  # the tier (pyproject.toml)


class OtherModel(HashEmbedder):
    """Another model: the same kind of vectors in another space (salted hashes), held at a gate so a
    test can look while re-embedding is under way."""

    name = "multilingual-e5-small"

    def __init__(self, free_batches: int = 10**9) -> None:
        """``free_batches``: batches embedded before the gate holds the next."""
        self.gate = threading.Event()
        self.gate.set()
        self.batches = 0
        self.free_batches = free_batches
        self.held = threading.Event()  # a batch is waiting at the gate

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            seed = int.from_bytes(hashlib.sha256(("other " + text).encode()).digest()[:8], "little")
            out[row] = np.random.default_rng(seed).standard_normal(self.dim).astype(np.float32)
            out[row] /= float(np.linalg.norm(out[row]))
        return out

    def embed_passages(self, texts: list[str]) -> list[np.ndarray]:
        if self.batches >= self.free_batches:
            self.held.set()
            self.gate.wait(30)
        self.batches += 1
        return [self.embed([t]) for t in texts]


def _open(root, embedder, model: str) -> InProcessDaemon:
    return InProcessDaemon(root, {"jobs": NO_JOBS, "embedding": {"model": model}}, embedder=embedder)


def _stored_vectors(d: InProcessDaemon) -> dict[str, tuple[bytes, str]]:
    rows = d.services.store.conn.execute("SELECT id, embedding, content, context FROM memories").fetchall()
    return {r[0]: (r[1], indexed_text(r[2], r[3])) for r in rows}


def test_a_new_model_re_embeds_every_memory_in_the_background_while_search_is_served(short_tmp):
    root = short_tmp / "d"
    old = _open(root, HashEmbedder(), "all-MiniLM-L6-v2")
    first = old.call("memory.add", {"content": "Lucía se mudó a Valencia, al barrio de Ruzafa", "type": "fact"})
    changed = old.call("memory.add", {"content": "Marco trae el vino el sábado", "type": "fact"})
    old.call("memory.update", {"id": changed["id"], "content": "Marco trae la tarta el sábado"})
    old.call("goal.add", {"text": "Preguntar a Lucía por el piso nuevo"})
    old.terminate()

    other = OtherModel(free_batches=0)
    other.gate.clear()  # held: the re-embedding waits at its first batch
    d = _open(root, other, "multilingual-e5-small")
    try:
        health = d.call("health")
        assert health["reembedding"]["from_model"] == "all-MiniLM-L6-v2"
        assert health["reembedding"]["model"] == "multilingual-e5-small"
        assert health["reembedding"]["waiting"] == health["reembedding"]["memories"] >= 3
        assert "embeddings" in health["catching_up"]
        # Served meanwhile: found by its words, never by an old model's vector.
        hits = d.call("memory.search", {"query": "Valencia Ruzafa", "k": 5})["results"]
        assert [h["id"] for h in hits][:1] == [first["id"]]

        other.gate.set()
        wait_for(lambda: d.call("health")["reembedding"] is None, timeout=60)
        assert "embeddings" not in d.call("health")["catching_up"]
        for memory_id, (blob, text) in _stored_vectors(d).items():
            assert np.allclose(from_blob(blob), other.embed([text])[0]), memory_id
        goal_blob = d.services.store.conn.execute("SELECT embedding FROM goals").fetchone()[0]
        assert np.allclose(from_blob(goal_blob), other.embed(["Preguntar a Lucía por el piso nuevo"])[0])
        # In the vector index now: the new model's vector of its text finds it.
        text = "Lucía se mudó a Valencia, al barrio de Ruzafa"
        ((seq, cosine),) = d.services.store.knn("default", other.embed([text])[0], 1)
        (found,) = d.services.store.conn.execute("SELECT id FROM memories WHERE seq = ?", (seq,)).fetchone()
        assert found == first["id"] and cosine > 0.99
    finally:
        other.gate.set()
        d.terminate()
    reopened = _open(root, OtherModel(), "multilingual-e5-small")  # the same model again: nothing to do
    try:
        assert reopened.call("health")["reembedding"] is None
    finally:
        reopened.terminate()


@pytest.mark.sqlite_file
def test_re_embedding_stopped_half_way_goes_on_at_the_next_start(short_tmp, monkeypatch):
    monkeypatch.setattr(reembedding, "BATCH", 2)
    root = short_tmp / "d"
    old = _open(root, HashEmbedder(), "all-MiniLM-L6-v2")
    old.call(
        "memory.add_many", {"items": [{"content": f"note number {i} about trains", "type": "fact"} for i in range(7)]}
    )
    old.terminate()

    held = OtherModel(free_batches=1)
    held.gate.clear()
    d = _open(root, held, "multilingual-e5-small")
    # The second batch must be at the gate before the stop: waiting for the first batch's commit
    # alone raced the worker on a loaded machine (it stopped before taking the second batch).
    wait_for(lambda: held.held.is_set() and d.call("health")["reembedding"]["waiting"] == 5)
    d.services.reembedding.stop(wait=False)  # while the second batch is held: it commits, then it stops
    held.gate.set()
    d.terminate()
    (waiting, total) = _reopen_counts(root)
    assert (waiting, total) == (3, 7)

    again = OtherModel()
    d = _open(root, again, "multilingual-e5-small")
    try:
        wait_for(lambda: d.call("health")["reembedding"] is None, timeout=60)
        assert again.batches == -(-waiting // 2)  # only what was left, two at a time
        assert all(blob for blob, _ in _stored_vectors(d).values())
    finally:
        d.terminate()


def _reopen_counts(root) -> tuple[int, int]:
    import sqlite3

    conn = sqlite3.connect(root / "data" / "agentmemd.db")
    try:
        return conn.execute("SELECT sum(length(embedding) = 0), count(*) FROM memories").fetchone()
    finally:
        conn.close()


def test_a_memory_forgotten_while_its_batch_is_embedded_stays_forgotten(short_tmp):
    """The worker reads a batch, embeds it off the store thread, then writes the vectors: a memory
    forgotten in between must not come back into the row or the vector index."""
    root = short_tmp / "d"
    old = _open(root, HashEmbedder(), "all-MiniLM-L6-v2")
    kept = old.call("memory.add", {"content": "Marco trae la tortilla el sábado", "type": "fact"})
    gone = old.call("memory.add", {"content": "La clave del wifi es naranja42", "type": "fact"})
    old.terminate()

    held = OtherModel(free_batches=0)
    held.gate.clear()  # the first batch (both memories) is read, then waits at the model
    d = _open(root, held, "multilingual-e5-small")
    try:
        assert held.held.wait(30)  # both memories read, their vectors being made
        d.call("memory.forget", {"id": gone["id"], "confirm": True})
        held.gate.set()
        wait_for(lambda: d.call("health")["reembedding"] is None, timeout=60)
        ids = [r[0] for r in d.services.store.conn.execute("SELECT id FROM memories").fetchall()]
        assert ids == [kept["id"]]
        text = "La clave del wifi es naranja42"
        found = [seq for seq, _ in d.services.store.knn("default", held.embed([text])[0], 5)]
        assert len(found) == 1 and "naranja42" not in str(d.call("memory.search", {"query": "wifi naranja42"}))
    finally:
        held.gate.set()
        d.terminate()
