"""The store's indexes: the in-RAM vector matrix follows committed writes only, and BM25's work bound."""

from __future__ import annotations

import numpy as np
import pytest

from agentmemd.memory.store.database import Store

DIM = 8


def unit(i: int) -> np.ndarray:
    v = np.zeros(DIM, dtype=np.float32)
    v[i % DIM] = 1.0
    v[(i + 1) % DIM] = 0.1 * (i // DIM)  # distinct but near the axis
    return v / np.linalg.norm(v)


def row(i: int, namespace: str = "default", content: str | None = None) -> dict:
    return {
        "id": f"m{i:015d}",
        "namespace": namespace,
        "content": content or f"memory number {i}",
        "context": None,
        "type": "fact",
        "priority": 0.1,
        "source": None,
        "tags": [],
        "created": "2024-01-01T00:00:00Z",
        "ingested": "2024-01-01T00:00:00Z",
        "last_accessed": "2024-01-01T00:00:00Z",
        "access_count": 1.0,
        "version": 1,
        "supersedes": None,
        "superseded_by": None,
        "token_len": 3,
    }


@pytest.fixture()
def store(tmp_path):
    s = Store(tmp_path / "t.db", dim=DIM, model="test")
    yield s
    s.close()


def test_vector_index_sees_commits_not_rollbacks(tmp_path):
    store = Store(tmp_path / "t.db", dim=DIM, model="test")
    with store.transaction():
        seqs = [store.insert(row(i), unit(i)) for i in range(20)]
    assert store.knn("default", unit(3), 1)[0][0] == seqs[3]
    with pytest.raises(RuntimeError):
        with store.transaction():
            store.insert(row(100), unit(3) * 1.0)
            raise RuntimeError("client went away")
    assert [s for s, _ in store.knn("default", unit(3), 20)].count(seqs[3]) == 1
    assert len(store.knn("default", unit(3), 100)) == 20
    # Archive and supersession take a memory out; restore puts it back.
    with store.transaction():
        store.move_to_archive(seqs[3], "2024-02-01T00:00:00Z")
        store.mark_superseded(seqs[4], "mNEW")
    found = {s for s, _ in store.knn("default", unit(3), 100)}
    assert seqs[3] not in found and seqs[4] not in found and len(found) == 18
    with store.transaction():
        store.restore_from_archive(seqs[3])
    assert store.knn("default", unit(3), 1)[0][0] == seqs[3]
    # A fresh process loads the same live set from vec0.
    store.close()
    again = Store(tmp_path / "t.db", dim=DIM, model="test")
    assert sorted(s for s, _ in again.knn("default", unit(0), 100)) == sorted(found | {seqs[3]})
    again.close()


def test_vector_index_keeps_namespaces_apart(store):
    with store.transaction():
        a = store.insert(row(1, "a"), unit(1))
        b = store.insert(row(2, "b"), unit(1))
    assert [s for s, _ in store.knn("a", unit(1), 10)] == [a]
    assert [s for s, _ in store.knn("b", unit(1), 10)] == [b]
    assert store.knn("nobody", unit(1), 10) == []


def test_vector_index_grows_past_its_capacity(store):
    store.knn("default", unit(0), 1)  # load the (empty) namespace first, so every add goes to the matrix
    vecs = np.random.default_rng(0).standard_normal((300, DIM)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    with store.transaction():
        seqs = [store.insert(row(i), v) for i, v in enumerate(vecs)]
    for i in (0, 150, 299):
        top = store.knn("default", vecs[i], 300)
        assert len(top) == 300 and top[0][0] == seqs[i]


def test_bm25_treats_very_common_terms_as_stop_words(store):
    with store.transaction():
        for i in range(30):
            store.insert(row(i, content=f"coffee talk number {i}" + (" with aardvark" if i == 7 else "")), unit(i))
    both = store.bm25("default", ["coffee", "aardvark"], max_postings=100)
    assert len(both) == 30 and min(both, key=both.get) == 8  # seq of i=7 scores best
    # "coffee" is in 30 memories: above the bound it no longer counts; the rare term still does.
    rare_only = store.bm25("default", ["coffee", "aardvark"], max_postings=10)
    assert list(rare_only) == [8]
    assert store.bm25("default", ["coffee"], max_postings=10) == {}
    assert store.bm25("other", ["coffee", "aardvark"], max_postings=100) == {}
