"""Maximal Marginal Relevance (seed 002, 5.1), deterministic: ties keep input order."""

from __future__ import annotations

from typing import Iterator

import numpy as np


class MmrOrder:
    """Candidate indices in MMR selection order, computed as far as they are read.

    ``scores`` are relevance values, ``vectors`` L2-normalised rows. Each step picks
    argmax(lam*score - (1-lam)*max cosine to anything already picked). The caller
    sorts its input (score desc, id) first so equal values resolve the same way.
    A pack reads the order only until its budget is full (its log gives the ranks that far);
    ``complete`` computes the rest.

    >>> import numpy as np
    >>> MmrOrder(np.array([1.0, 0.9, 0.5]), np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]]), 0.5).complete()
    [0, 2, 1]
    """

    def __init__(self, scores: np.ndarray, vectors: np.ndarray, lam: float):
        self._vectors = vectors
        self._lam = lam
        self._penalty: np.ndarray | None = None  # (1 - lam) * cosine, made at the first pick
        # lam * score, -inf once picked; minus the worst penalty so far (none before the first pick).
        self._open = lam * np.asarray(scores, dtype=np.float64)
        self._worst: np.ndarray | None = None
        self._value = self._open.copy()
        self.picked: list[int] = []

    def _pick(self) -> int:
        # A few numpy calls per pick: a pack reads 100-200 picks per request.
        best = int(np.argmax(self._value))  # argmax returns the first of equal maxima
        self.picked.append(best)
        self._open[best] = -np.inf
        if self._penalty is None:
            self._penalty = (1.0 - self._lam) * (self._vectors @ self._vectors.T).astype(np.float64)
            self._worst = self._penalty[best].copy()
        else:
            np.maximum(self._worst, self._penalty[best], out=self._worst)
        np.subtract(self._open, self._worst, out=self._value)
        return best

    def __iter__(self) -> Iterator[int]:
        at = 0
        while True:
            if at < len(self.picked):
                yield self.picked[at]
            elif len(self.picked) < len(self._open):
                yield self._pick()
            else:
                return
            at += 1

    def complete(self) -> list[int]:
        """The whole order."""
        while len(self.picked) < len(self._open):
            self._pick()
        return self.picked


def mmr_order(scores: np.ndarray, vectors: np.ndarray, lam: float, limit: int | None = None) -> list[int]:
    """Indices in MMR selection order (all, or the first ``limit``)."""
    order = MmrOrder(scores, vectors, lam)
    if limit is None:
        return order.complete()
    out: list[int] = []
    for idx in order:
        if len(out) >= limit:
            break
        out.append(idx)
    return out
