"""Maximal Marginal Relevance (seed 002, 5.1), deterministic: ties keep input order."""

from __future__ import annotations

import numpy as np


def mmr_order(scores: np.ndarray, vectors: np.ndarray, lam: float, limit: int | None = None) -> list[int]:
    """Return indices in MMR selection order.

    ``scores`` are relevance values, ``vectors`` L2-normalised rows. Each step picks
    argmax(lam*score - (1-lam)*max cosine to anything already picked). The caller
    sorts its input (score desc, id) first so equal values resolve the same way.
    """
    n = len(scores)
    limit = n if limit is None else min(limit, n)
    if n == 0 or limit == 0:
        return []
    sims = vectors @ vectors.T
    max_sim = np.full(n, -np.inf)
    chosen: list[int] = []
    remaining = np.ones(n, dtype=bool)
    for _ in range(limit):
        redundancy = np.where(np.isfinite(max_sim), max_sim, 0.0)
        value = lam * scores - (1.0 - lam) * redundancy
        value = np.where(remaining, value, -np.inf)
        best = int(np.argmax(value))  # argmax returns the first of equal maxima
        chosen.append(best)
        remaining[best] = False
        max_sim = np.maximum(max_sim, sims[best])
    return chosen
