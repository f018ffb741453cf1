"""Top-N cosine neighbours per namespace, over an in-process float16 matrix.

The durable vector index is sqlite-vec's ``memories_vec`` (vec0) table, written in
the same transaction as the memory. vec0's KNN is a brute-force scan that measured
~80 ms at 100k vectors on this 2-core machine; a float32 numpy scan takes ~10 ms and
a float16 torch matrix-vector product plus top-k ~4 ms (half the memory traffic).
So candidate search runs here: each namespace's live vectors are loaded from vec0
on first use and kept in step with every committed write (the store applies changes
after COMMIT, never for a rolled-back transaction).

float16 only chooses the candidates: it agrees with an exact float32 scan on 99.9 of
the top 100 (random unit vectors, 100k). Every score is then computed in float32
from the stored vectors. RAM: 2 bytes x dim per live memory (77 MB at 100k x 384).
"""

from __future__ import annotations

from typing import Callable, Iterable

import numpy as np
import torch

# namespace -> (seqs, float32 blobs in the same order, in chunks)
Loader = Callable[[str], tuple[list[int], Iterable[list[bytes]]]]


class _NamespaceMatrix:
    """Rows in arbitrary order; ``pos`` maps seq -> row. Deletion swaps the last row in."""

    def __init__(self, dim: int, seqs: list[int], chunks: Iterable[list[bytes]]):
        n = len(seqs)
        capacity = max(64, n + n // 4)
        self.vectors = torch.zeros((capacity, dim), dtype=torch.float16)
        self.seqs = np.zeros(capacity, dtype=np.int64)
        self.seqs[:n] = seqs
        row = 0
        for blobs in chunks:  # chunk by chunk, so loading never holds a float32 copy of everything
            block = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(blobs), dim)
            self.vectors[row : row + len(blobs)] = torch.from_numpy(block.copy()).to(torch.float16)
            row += len(blobs)
        if row != n:
            raise RuntimeError(f"vector loader gave {row} vectors for {n} seqs")
        self.size = n
        self.pos = {seq: i for i, seq in enumerate(seqs)}

    def add(self, seq: int, vec: np.ndarray) -> None:
        row = self.pos.get(seq)
        if row is None:
            if self.size == len(self.seqs):
                grown = torch.zeros((len(self.seqs) * 2, self.vectors.shape[1]), dtype=torch.float16)
                grown[: self.size] = self.vectors[: self.size]
                self.vectors = grown
                self.seqs = np.resize(self.seqs, len(self.seqs) * 2)
            row = self.size
            self.size += 1
            self.seqs[row] = seq
            self.pos[seq] = row
        self.vectors[row] = torch.from_numpy(np.array(vec, dtype=np.float32)).to(torch.float16)

    def remove(self, seq: int) -> None:
        row = self.pos.pop(seq, None)
        if row is None:
            return
        last = self.size - 1
        if row != last:
            self.vectors[row] = self.vectors[last]
            self.seqs[row] = self.seqs[last]
            self.pos[int(self.seqs[row])] = row
        self.size = last

    def top(self, qvec: np.ndarray, n: int, skip: set[int] | None = None) -> list[tuple[int, float]]:
        if self.size == 0 or n <= 0:
            return []
        query = torch.from_numpy(np.ascontiguousarray(qvec, dtype=np.float32)).to(torch.float16)
        with torch.inference_mode():
            sims = torch.mv(self.vectors[: self.size], query).float()
            if skip:  # memories this caller may not hear never take a place among the n
                rows = [self.pos[seq] for seq in skip if seq in self.pos]
                sims[torch.tensor(rows, dtype=torch.long)] = float("-inf")
                n = min(n, self.size - len(rows))
                if n <= 0:
                    return []
            values, rows = torch.topk(sims, min(n, self.size))
        seqs = self.seqs[rows.numpy()]
        sims_np = values.numpy()
        # Order by similarity, then seq, so equal similarities always resolve the same way.
        order = np.lexsort((seqs, -sims_np))
        return [(int(seqs[i]), float(sims_np[i])) for i in order]


class VectorIndex:
    """Namespace -> matrix, loaded lazily through ``loader``."""

    def __init__(self, dim: int, loader: Loader):
        self.dim = dim
        self._loader = loader
        self._spaces: dict[str, _NamespaceMatrix] = {}
        self._empty = _NamespaceMatrix(dim, [], [])  # read-only: what a namespace with no memories searches

    def _space(self, namespace: str) -> _NamespaceMatrix:
        space = self._spaces.get(namespace)
        if space is None:
            seqs, chunks = self._loader(namespace)
            if not seqs:
                # Nothing is kept for a namespace with no memories, so reads of made-up names cost
                # no RAM; its first memory is read from vec0 by the next search.
                return self._empty
            space = self._spaces[namespace] = _NamespaceMatrix(self.dim, seqs, chunks)
        return space

    def loaded(self) -> int:
        """How many namespaces have a matrix in RAM."""
        return len(self._spaces)

    def search(self, namespace: str, qvec: np.ndarray, n: int, skip: set[int] | None = None) -> list[tuple[int, float]]:
        """[(seq, cosine)] best first, leaving out ``skip``; vectors are L2-normalised, so cosine is a dot product."""
        return self._space(namespace).top(np.asarray(qvec, dtype=np.float32), n, skip)

    def members(self, namespace: str) -> dict[int, int]:
        """The namespace's live seqs (a read-only view: seq -> row)."""
        return self._space(namespace).pos

    def size(self, namespace: str) -> int:
        return self._space(namespace).size

    # Called by the store after a transaction commits.
    def add(self, namespace: str, seq: int, vec: np.ndarray) -> None:
        if namespace in self._spaces:  # not loaded yet: the loader will read it from vec0
            self._spaces[namespace].add(seq, vec)

    def remove(self, seq: int) -> None:
        for space in self._spaces.values():  # a seq lives in one namespace; few are loaded
            space.remove(seq)
