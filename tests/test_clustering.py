"""Consolidation's clustering: scikit-learn's groups and reduction, from steps that let a request
beside them have the interpreter (in-process)."""

from __future__ import annotations

import threading
import time
from unittest import mock

import numpy as np
import pytest

from agentmemd.memory.core.threads import become_background, serving_request, yielding
from agentmemd.memory.retrieval.clustering import _reduce, cluster, soft_clusters

pytestmark = pytest.mark.inprocess  # the tier (pyproject.toml)


def _threads_of_talk(seed: int, groups: int = 12, per_group: int = 15, dim: int = 48) -> np.ndarray:
    """Unit rows around ``groups`` centres, some tight and some loose, and a few strays."""
    rng = np.random.default_rng(seed)
    rows = []
    for g in range(groups):
        centre = rng.normal(size=dim)
        spread = 0.2 + 0.6 * (g % 4) / 3
        rows += [
            centre + spread * rng.normal(size=dim) * np.linalg.norm(centre) / np.sqrt(dim) for _ in range(per_group)
        ]
    rows += list(rng.normal(size=(10, dim)))
    vectors = np.array(rows, dtype=np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def _sklearn_groups(vectors: np.ndarray, similarity: float, min_size: int) -> list[list[int]]:
    from sklearn.cluster import AgglomerativeClustering

    labels = AgglomerativeClustering(
        n_clusters=None, metric="cosine", linkage="average", distance_threshold=1.0 - similarity
    ).fit_predict(vectors)
    groups: dict[int, list[int]] = {}
    for i, label in enumerate(labels):
        groups.setdefault(int(label), []).append(i)
    return sorted((g for g in groups.values() if len(g) >= min_size), key=lambda g: (-len(g), g[0]))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_groups_are_scikit_learns_average_linkage_groups(seed):
    """The linkage is fastcluster's now (scipy's, under scikit-learn, held the GIL for 177 ms at a
    time at 4,000 memories): the same groups at every threshold."""
    vectors = _threads_of_talk(seed)
    for similarity in (0.3, 0.5, 0.62, 0.75, 0.9):
        assert cluster(vectors, similarity, 2) == _sklearn_groups(vectors, similarity, 2), similarity
    assert cluster(vectors[:1], 0.5, 1) == []


def test_the_reduction_is_scikit_learns_exact_pca():
    from sklearn.decomposition import PCA

    for rows in (3, 11, 40, 300):
        vectors = _threads_of_talk(rows)[:rows]
        dims = min(10, rows - 1)
        expected = PCA(n_components=dims, svd_solver="full").fit_transform(vectors.astype(np.float64))
        assert np.abs(_reduce(vectors) - expected).max() < 1e-9


def test_clustering_waits_between_its_steps_while_a_request_is_served():
    """Consolidation beside requests: packs' p99 was 5x idle while it clustered 4,000 memories.
    While a request is served, the clustering waits at its next step; once it is answered, the
    clustering finishes with the groups it finds alone."""
    vectors = _threads_of_talk(3)
    alone = soft_clusters(vectors, 0.5, 3)
    got: list[list[list[int]]] = []
    done = threading.Event()

    def consolidate() -> None:
        become_background()
        got.append(soft_clusters(vectors, 0.5, 3))
        done.set()

    with mock.patch("agentmemd.memory.core.threads.YIELD_LONGEST", 60):
        with serving_request():
            thread = threading.Thread(target=consolidate)
            thread.start()
            deadline = time.monotonic() + 30
            while thread.ident not in yielding():
                assert not done.is_set(), "the clustering finished without waiting for the request"
                assert time.monotonic() < deadline, "the clustering never waited for the request"
                time.sleep(0.005)
            assert not done.is_set()
        assert done.wait(30)
    thread.join(30)
    assert got == [alone]
