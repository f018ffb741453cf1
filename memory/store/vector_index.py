"""Top-N cosine neighbours per namespace, over an in-process float32 matrix.

The durable vector index is sqlite-vec's ``memories_vec`` (vec0) table, written in
the same transaction as the memory. vec0's KNN is a brute-force scan that measured
~80 ms at 100k vectors on this 2-core machine. So candidate search runs here: each
namespace's live vectors are loaded on first use (from ``memories.embedding`` and
``memory_windows`` by index: a plain scan of vec0 reads every namespace's chunks, 220 ms
for 1,000 of 40,000) and kept in step with every committed write (the store applies
changes after COMMIT, never for a rolled-back transaction).

Why float32 and numpy (BLAS sgemv): it is the exact score, and the fastest product on every CPU
measured at small sizes, and portable: 2026-11-26, this machine, one thread, 384-d: 2,000 rows
0.025 ms (torch float16 0.35 ms, bfloat16 0.10 ms), 20,000 rows 1.2 ms (2.5 / 0.90 ms). A large
namespace's scan is bound by memory bandwidth (100,000 rows: 154 MB read, 10.5 ms on one thread),
so past SPLIT_ROWS its rows are scanned in two halves on two threads (6.1 ms; BLAS itself runs one
thread in the daemon, whose idle second thread spun after every small product). The price is RAM:
4 bytes x dim per vector, a live memory or each window of a long one (154 MB at 100k x 384 short
ones), what the float16 matrix with its bfloat16 copy for large namespaces held before.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Iterable

import numpy as np

SPLIT_ROWS = 32_768  # a namespace this large is scanned in two halves side by side
_half_scans = ThreadPoolExecutor(max_workers=1, thread_name_prefix="agentmemd-scan")


def _scan(rows: np.ndarray, query: np.ndarray) -> np.ndarray:
    """``rows @ query``; past SPLIT_ROWS, the second half on another thread (numpy lets go of the
    GIL in the product), since one core alone cannot read a large matrix as fast."""
    if len(rows) < SPLIT_ROWS:
        return rows @ query
    half = len(rows) // 2
    out = np.empty(len(rows), dtype=np.float32)
    second = _half_scans.submit(np.matmul, rows[half:], query, out=out[half:])
    np.matmul(rows[:half], query, out=out[:half])
    second.result()
    return out


# namespace -> (the seq of each vector, float32 blobs in the same order, in chunks); a memory
# whose text is longer than the model's window has a vector per window (embeddings.py).
Loader = Callable[[str], tuple[list[int], Iterable[list[bytes]]]]


class _NamespaceMatrix:
    """Rows in arbitrary order, a memory owning one or more; ``rows`` maps seq -> its rows.
    Deletion swaps the last row in."""

    def __init__(self, dim: int, seqs: list[int], chunks: Iterable[list[bytes]]):
        n = len(seqs)
        capacity = max(64, n + n // 4)
        self.vectors = np.zeros((capacity, dim), dtype=np.float32)
        self.seqs = np.zeros(capacity, dtype=np.int64)
        self.seqs[:n] = seqs
        row = 0
        for blobs in chunks:  # chunk by chunk, so loading never holds a second copy of everything
            block = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(blobs), dim)
            self.vectors[row : row + len(blobs)] = block
            row += len(blobs)
        if row != n:
            raise RuntimeError(f"vector loader gave {row} vectors for {n} seqs")
        self.size = n
        self.rows: dict[int, list[int]] = {}
        for i, seq in enumerate(seqs):
            self.rows.setdefault(seq, []).append(i)
        self._ordered: np.ndarray | None = None  # the live seqs, ascending (made again after a write)

    def ordered(self) -> np.ndarray:
        if self._ordered is None:
            self._ordered = np.fromiter(sorted(self.rows), dtype=np.int64, count=len(self.rows))
        return self._ordered

    def adjacent(self, seqs: list[int]) -> dict[int, tuple[int | None, int | None]]:
        """seq -> the live memories stored just before and just after it (by seq)."""
        ordered = self.ordered()
        at = np.searchsorted(ordered, np.asarray(seqs, dtype=np.int64))
        out: dict[int, tuple[int | None, int | None]] = {}
        for seq, i in zip(seqs, at.tolist()):
            after = i + 1 if i < len(ordered) and ordered[i] == seq else i
            out[seq] = (
                int(ordered[i - 1]) if i > 0 else None,
                int(ordered[after]) if after < len(ordered) else None,
            )
        return out

    def best_cosines(self, seqs: list[int], qvec: np.ndarray) -> dict[int, float]:
        """seq -> its best row's cosine with ``qvec``."""
        wanted = [(seq, row) for seq in seqs for row in self.rows.get(seq, ())]
        if not wanted:
            return {}
        rows = self.vectors[np.fromiter((row for _, row in wanted), dtype=np.int64, count=len(wanted))]
        sims = (rows @ np.asarray(qvec, dtype=np.float32)).tolist()
        out: dict[int, float] = {}
        for (seq, _), sim in zip(wanted, sims):
            out[seq] = max(out.get(seq, -1.0), sim)
        return out

    def add(self, seq: int, vectors: np.ndarray) -> None:
        self.remove(seq)  # a memory re-indexed (restored from the archive) replaces its rows
        self._ordered = None
        for vec in np.atleast_2d(vectors):
            if self.size == len(self.seqs):
                grown = np.zeros((len(self.seqs) * 2, self.vectors.shape[1]), dtype=np.float32)
                grown[: self.size] = self.vectors[: self.size]
                self.vectors = grown
                self.seqs = np.resize(self.seqs, len(self.seqs) * 2)
            row = self.size
            self.size += 1
            self.seqs[row] = seq
            self.rows.setdefault(seq, []).append(row)
            self.vectors[row] = vec

    def remove(self, seq: int) -> None:
        if seq in self.rows:
            self._ordered = None
        for row in sorted(self.rows.pop(seq, ()), reverse=True):
            last = self.size - 1
            if row != last:
                moved = int(self.seqs[last])
                self.vectors[row] = self.vectors[last]
                self.seqs[row] = moved
                owned = self.rows[moved]
                owned[owned.index(last)] = row
            self.size = last

    def top(self, qvec: np.ndarray, n: int, skip: set[int] | None = None) -> list[tuple[int, float]]:
        """The n best memories, each by its best row."""
        if self.size == 0 or n <= 0:
            return []
        sims = _scan(self.vectors[: self.size], np.ascontiguousarray(qvec, dtype=np.float32))
        skipped = [row for seq in skip for row in self.rows.get(seq, ())] if skip else []
        if skipped:  # memories this caller may not hear never take a place among the n
            sims[skipped] = -np.inf
        masked = len(skipped)
        wanted = min(n, len(self.rows) - len(skip & self.rows.keys() if skip else ()))
        if wanted <= 0:
            return []
        # A memory's other windows may crowd the first n rows: take more rows until n memories.
        k = min(self.size - masked, n + 8)
        while True:
            rows_found = np.argpartition(-sims, k - 1)[:k] if k < self.size else np.arange(self.size)
            best: dict[int, float] = {}
            order = rows_found[np.argsort(-sims[rows_found], kind="stable")]
            for seq, sim in zip(self.seqs[order].tolist(), sims[order].tolist()):
                best.setdefault(seq, sim)
            if len(best) >= wanted or k >= self.size - masked:
                break
            k = min(self.size - masked, k * 2)
        seqs = np.fromiter(best, dtype=np.int64)
        sims_np = np.fromiter(best.values(), dtype=np.float64)
        # Order by similarity, then seq, so equal similarities always resolve the same way.
        order = np.lexsort((seqs, -sims_np))[:n]
        return [(int(seqs[i]), float(sims_np[i])) for i in order]


class _Loading:
    """A namespace being read into RAM: the changes committed meanwhile, replayed once it is in."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.changes: list[tuple[int, np.ndarray | None]] = []  # (seq, vectors) added, (seq, None) removed


class VectorIndex:
    """Namespace -> matrix, loaded lazily through ``loader``. One lock around every read and write
    of the matrices: reader threads search while the store thread applies a commit (a search holds
    it ~0.1-4 ms). A namespace is read into RAM outside that lock (other namespaces are searched
    meanwhile); what commits during its load is replayed onto it (adding and removing are
    idempotent), so nothing committed is missed, provided the loader reads a snapshot that begins
    when it is called: never an older one (a reader's open transaction), nor uncommitted writes."""

    def __init__(self, dim: int, loader: Loader):
        self.dim = dim
        self._loader = loader
        self._lock = threading.Lock()
        self._spaces: dict[str, _NamespaceMatrix] = {}
        self._loading: dict[str, _Loading] = {}
        self._empty: _NamespaceMatrix | None = None  # read-only: what a namespace with no memories searches

    def _space(self, namespace: str) -> _NamespaceMatrix:
        """The namespace's matrix (call with the lock held: it is released while loading)."""
        while True:
            space = self._spaces.get(namespace)
            if space is not None:
                return space
            loading = self._loading.get(namespace)
            if loading is None:
                break
            self._lock.release()  # another thread is loading it: wait for that load
            try:
                loading.done.wait()
            finally:
                self._lock.acquire()
            if namespace not in self._spaces:
                return self._empty_space()  # it had no memories (or its load failed: the next call retries)
        loading = self._loading[namespace] = _Loading()
        self._lock.release()
        try:
            seqs, chunks = self._loader(namespace)
            space = _NamespaceMatrix(self.dim, seqs, chunks) if seqs else None
        finally:
            self._lock.acquire()
            del self._loading[namespace]
            loading.done.set()
        if space is None:
            # Nothing is kept for a namespace with no memories, so reads of made-up names cost no RAM;
            # its first memory is read from the store by the next search.
            return self._empty_space()
        for seq, vectors in loading.changes:
            if vectors is None:
                space.remove(seq)
            else:
                space.add(seq, vectors)
        self._spaces[namespace] = space
        return space

    def _empty_space(self) -> _NamespaceMatrix:
        if self._empty is None:
            self._empty = _NamespaceMatrix(self.dim, [], [])
        return self._empty

    def clear(self) -> None:
        """Forget every namespace's vectors (the store dropped them all as it opened, before any
        search): each is loaded again when next searched."""
        with self._lock:
            self._spaces.clear()

    def nbytes(self) -> int:
        """Bytes the matrices hold (their rows, spare capacity included, and seqs)."""
        with self._lock:
            return sum(space.vectors.nbytes + space.seqs.nbytes for space in self._spaces.values())

    def loaded(self) -> int:
        """How many namespaces have a matrix in RAM."""
        with self._lock:
            return len(self._spaces)

    def search(self, namespace: str, qvec: np.ndarray, n: int, skip: set[int] | None = None) -> list[tuple[int, float]]:
        """[(seq, cosine)] best first, leaving out ``skip``; vectors are L2-normalised, so cosine is a dot product."""
        with self._lock:
            return self._space(namespace).top(np.asarray(qvec, dtype=np.float32), n, skip)

    def size(self, namespace: str) -> int:
        """How many live memories the namespace has (not vectors: a long one has several)."""
        with self._lock:
            return len(self._space(namespace).rows)

    def adjacent(self, namespace: str, seqs: list[int]) -> dict[int, tuple[int | None, int | None]]:
        """seq -> the namespace's live memories stored just before and just after it."""
        with self._lock:
            return self._space(namespace).adjacent(seqs)

    def best_cosines(self, namespace: str, seqs: list[int], qvec: np.ndarray) -> dict[int, float]:
        with self._lock:
            return self._space(namespace).best_cosines(seqs, qvec)

    def first_vectors(self, namespace: str, seqs: list[int]) -> dict[int, bytes]:
        """seq -> its first vector (the memory's ``embedding``) as float32 bytes, for those of ``seqs``
        in the namespace's matrix; nothing for a namespace not loaded (nothing is read here)."""
        with self._lock:
            space = self._spaces.get(namespace)
            if space is None:
                return {}
            return {seq: space.vectors[space.rows[seq][0]].tobytes() for seq in seqs if seq in space.rows}

    # Called by the store after a transaction commits.
    def add(self, namespace: str, seq: int, vectors: np.ndarray) -> None:
        """A memory's vector, or its windows' (one row each)."""
        with self._lock:
            if namespace in self._spaces:
                self._spaces[namespace].add(seq, vectors)
            elif namespace in self._loading:
                self._loading[namespace].changes.append((seq, np.array(vectors, dtype=np.float32)))
            # else: not loaded yet, the loader will read it from the store

    def remove(self, seq: int) -> None:
        with self._lock:
            for space in self._spaces.values():  # a seq lives in one namespace; few are loaded
                space.remove(seq)
            for loading in self._loading.values():
                loading.changes.append((seq, None))
