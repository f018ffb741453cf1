"""Clustering of embeddings: agglomerative groups (consolidation's and the local Reflector's) and the soft
Gaussian-mixture membership and splits of the consolidation tree (seed 002, 5.5).

It runs on a background thread beside requests, so its long steps are ones that let go of Python's
GIL (a request waits for the GIL, not for a core): the pairwise distances (scipy's ``pdist``), the
average linkage (``fastcluster``, the same merges as scipy's ``linkage``, which holds the GIL: 177 ms
at a time for 4,000 memories) and the reduction (numpy's SVD; scikit-learn's PCA called scipy's,
which holds it too: 78 ms for 500 rows). Between steps it yields to requests
(``yield_to_requests``)."""

from __future__ import annotations

import warnings

import numpy as np

from agentmemd.memory.core.threads import yield_to_requests


def load_clustering_libraries() -> None:
    """Import what clustering uses (scikit-learn's mixtures take ~0.7 s, all of it Python holding
    the GIL): the daemon does it once it is ready, not the first consolidation beside requests."""
    import fastcluster  # noqa: F401
    import scipy.cluster.hierarchy  # noqa: F401
    import scipy.spatial.distance  # noqa: F401
    import sklearn.exceptions  # noqa: F401
    import sklearn.mixture  # noqa: F401


def cluster(vectors: np.ndarray, similarity: float, min_size: int) -> list[list[int]]:
    """Groups of row indexes whose average pairwise cosine is >= similarity (singletons dropped):
    average-linkage agglomerative clustering over cosine distances, cut where a merge would be
    at a distance of ``1 - similarity`` or more (scikit-learn's ``distance_threshold``)."""
    if len(vectors) < max(min_size, 2):
        return []
    import fastcluster
    from scipy.cluster.hierarchy import fcluster
    from scipy.spatial.distance import pdist

    distances = pdist(np.asarray(vectors, dtype=np.float64), "cosine")
    yield_to_requests()
    merges = fastcluster.linkage(distances, method="average")
    yield_to_requests()
    # fcluster keeps merges at most t apart; scikit-learn's threshold keeps those under it.
    labels = fcluster(merges, t=np.nextafter(1.0 - similarity, -np.inf), criterion="distance")
    groups: dict[int, list[int]] = {}
    for i, label in enumerate(labels):
        groups.setdefault(int(label), []).append(i)
    return sorted((g for g in groups.values() if len(g) >= min_size), key=lambda g: (-len(g), g[0]))


REDUCED_DIMS = 10


def average_cosine(vectors: np.ndarray) -> float:
    """Mean pairwise cosine of unit rows (without a row's cosine with itself), from their mean."""
    n = len(vectors)
    if n < 2:
        return 1.0
    centre = vectors.mean(axis=0)
    return float((n * float(centre @ centre) - 1.0) / (n - 1))


def soft_clusters(
    vectors: np.ndarray,
    similarity: float,
    min_size: int,
    *,
    membership: float = 0.4,
    max_size: int = 40,
) -> list[list[int]]:
    """Soft clusters (seed 002, 5.5, after RAPTOR): groups of rows whose average pairwise cosine
    is at least ``similarity`` (average-linkage agglomerative clustering, which found the
    conversation's threads where a mixture fitted from scratch split or blurred them), then a
    Gaussian mixture over the embeddings reduced by PCA, one component per group started at its
    centre, gives every row its posterior for every group: a row also belongs to each group whose
    posterior for it is at least ``membership``, when the group stays that coherent with it (one
    memory can be part of two patterns, and a memory no group took can join one). A group larger
    than ``max_size`` is split by a mixture of two to four components of its own. Deterministic.
    Groups of row indexes, largest first."""
    hard = cluster(vectors, similarity, min_size)
    groups: list[list[int]] = []
    for group in hard:
        yield_to_requests()
        groups += _split_large(vectors, group, similarity, min_size, max_size) if len(group) > max_size else [group]
    if len(groups) >= 1 and len(vectors) > len(groups):
        groups = _soft_members(vectors, groups, similarity, membership, max_size)
    unique = {tuple(sorted(g)) for g in groups if len(g) >= min_size}
    return sorted((list(g) for g in unique), key=lambda g: (-len(g), g[0]))


def _reduce(vectors: np.ndarray) -> np.ndarray:
    """The embeddings in REDUCED_DIMS dimensions (PCA: a Gaussian mixture over 384 dimensions
    needs far more points than a namespace has): the centred rows' projections on their top
    right singular vectors, each signed so its largest loading is positive (scikit-learn's PCA
    gives the same numbers; numpy's SVD lets go of the GIL)."""
    dims = max(1, min(REDUCED_DIMS, len(vectors) - 1, vectors.shape[1]))
    wide = vectors.astype(np.float64)
    centred = wide - wide.mean(axis=0)
    u, singular, vt = np.linalg.svd(centred, full_matrices=False)
    signs = np.sign(vt[np.arange(len(vt)), np.argmax(np.abs(vt), axis=1)])
    signs[signs == 0] = 1.0
    return (u[:, :dims] * signs[:dims]) * singular[:dims]


def _soft_members(
    vectors: np.ndarray, groups: list[list[int]], similarity: float, membership: float, max_size: int
) -> list[list[int]]:
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.mixture import GaussianMixture

    reduced = _reduce(vectors)
    means = np.stack([reduced[g].mean(axis=0) for g in groups])
    gm = GaussianMixture(
        len(groups), covariance_type="diag", reg_covar=1e-3, means_init=means, max_iter=20, random_state=0
    )
    with warnings.catch_warnings():  # 20 EM steps from the groups' centres are enough for memberships
        warnings.simplefilter("ignore", ConvergenceWarning)
        gm.fit(reduced)
    posterior = gm.predict_proba(reduced)
    out = []
    for c, group in enumerate(groups):
        yield_to_requests()
        members = list(group)
        for i in np.flatnonzero(posterior[:, c] >= membership).tolist():
            if len(members) >= max_size:
                break
            if i not in members and average_cosine(vectors[[*members, i]]) >= similarity:
                members.append(i)
        out.append(members)
    return out


def _split_large(
    vectors: np.ndarray, group: list[int], similarity: float, min_size: int, max_size: int
) -> list[list[int]]:
    """A group past ``max_size`` split by the best (BIC) mixture of 2-4 components; each piece
    split again while still too large; pieces kept when coherent."""
    from sklearn.mixture import GaussianMixture

    reduced = _reduce(vectors[group])
    best, best_bic = None, np.inf
    for k in (2, 3, 4):
        if k * min_size > len(group):
            break
        yield_to_requests()
        gm = GaussianMixture(k, covariance_type="diag", reg_covar=1e-3, random_state=0).fit(reduced)
        bic = gm.bic(reduced)
        if bic < best_bic:
            best, best_bic = gm, bic
    if best is None:
        return [group]
    labels = best.predict(reduced)
    out: list[list[int]] = []
    for c in range(best.n_components):
        piece = [group[i] for i in np.flatnonzero(labels == c).tolist()]
        if len(piece) == len(group):
            return [group]  # no split found: keep it whole
        if len(piece) > max_size:
            out += _split_large(vectors, piece, similarity, min_size, max_size)
        elif len(piece) >= min_size and average_cosine(vectors[piece]) >= similarity:
            out.append(piece)
    return out
