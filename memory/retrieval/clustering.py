"""Agglomerative clustering of embeddings: consolidation's groups and the local Reflector's."""

from __future__ import annotations

import numpy as np


def cluster(vectors: np.ndarray, similarity: float, min_size: int) -> list[list[int]]:
    """Groups of row indexes whose average pairwise cosine is >= similarity (singletons dropped)."""
    if len(vectors) < min_size:
        return []
    from sklearn.cluster import AgglomerativeClustering

    labels = AgglomerativeClustering(
        n_clusters=None, metric="cosine", linkage="average", distance_threshold=1.0 - similarity
    ).fit_predict(vectors)
    groups: dict[int, list[int]] = {}
    for i, label in enumerate(labels):
        groups.setdefault(int(label), []).append(i)
    return sorted((g for g in groups.values() if len(g) >= min_size), key=lambda g: (-len(g), g[0]))
