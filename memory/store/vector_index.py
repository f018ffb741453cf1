"""Top-N cosine neighbours per namespace, over an in-process float16 matrix.

The durable vector index is sqlite-vec's ``memories_vec`` (vec0) table, written in
the same transaction as the memory. vec0's KNN is a brute-force scan that measured
~80 ms at 100k vectors on this 2-core machine; a float32 numpy scan takes ~10 ms and
a float16 torch matrix-vector product plus top-k ~4 ms (half the memory traffic).
So candidate search runs here: each namespace's live vectors are loaded on first use
(from ``memories.embedding`` and ``memory_windows`` by index: a plain scan of vec0 reads
every namespace's chunks, 220 ms for 1,000 of 40,000) and kept in step with every committed
write (the store applies changes after COMMIT, never for a rolled-back transaction).

float16 only chooses the candidates: it agrees with an exact float32 scan on 99.9 of
the top 100 (random unit vectors, 100k). Every score is then computed in float32
from the stored vectors. RAM: 2 bytes x dim per vector: a live memory, or each window of a long
one (77 MB at 100k x 384 short ones). The float16 product's speed depends on the CPU (~4 ms for
100k on one machine, 17.6 ms on another that multiplies bfloat16 in 4.6 ms): a namespace of over
SCAN_COPY_ROWS rows on a CPU with native bfloat16 keeps a bfloat16 copy (the same RAM again) to
shortlist rows, then ranks the shortlist by its float16 rows.
"""

from __future__ import annotations

import threading
from functools import cache
from typing import Callable, Iterable

import numpy as np


def _torch():
    """torch, imported on first use: it takes ~1 s, and the daemon answers ``health`` before it."""
    import torch

    return torch


# A namespace this large is scanned first through a bfloat16 copy of its rows where the CPU
# multiplies bfloat16 in hardware (AMX, AVX-512 BF16): there torch's float16 product can be 4x
# slower (17.6 ms against 4.6 ms for 100,000 x 384, 2026-11-26). The copy only shortlists rows;
# they are ranked by the float16 rows as before, so the candidates are the same but in a
# pathological tie. Below this size the float16 scan takes under a millisecond: no copy.
SCAN_COPY_ROWS = 16_384
SHORTLIST_FACTOR = 3  # rows shortlisted per row wanted (bfloat16 keeps ~3 significant digits)


@cache
def _native_bf16(torch) -> bool:
    try:
        return bool(torch.cpu._is_amx_tile_supported() or torch.cpu._is_avx512_bf16_supported())
    except Exception:  # private probes of this torch; without them, no copy
        return False


# namespace -> (the seq of each vector, float32 blobs in the same order, in chunks); a memory
# whose text is longer than the model's window has a vector per window (embeddings.py).
Loader = Callable[[str], tuple[list[int], Iterable[list[bytes]]]]


class _NamespaceMatrix:
    """Rows in arbitrary order, a memory owning one or more; ``rows`` maps seq -> its rows.
    Deletion swaps the last row in."""

    def __init__(self, dim: int, seqs: list[int], chunks: Iterable[list[bytes]]):
        torch = _torch()
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
        self.rows: dict[int, list[int]] = {}
        for i, seq in enumerate(seqs):
            self.rows.setdefault(seq, []).append(i)
        self._ordered: np.ndarray | None = None  # the live seqs, ascending (made again after a write)
        self.scan = None  # the bfloat16 copy (SCAN_COPY_ROWS), made by the first search that wants it

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
        """seq -> its best row's cosine with ``qvec`` (float16 rows: a lift, not a score)."""
        wanted = [(seq, row) for seq in seqs for row in self.rows.get(seq, ())]
        if not wanted:
            return {}
        # numpy on a zero-copy view: a few hundred rows are not worth torch's thread pool, whose
        # wake-ups made this 10x slower on a busy machine.
        rows = self.vectors.numpy()[np.fromiter((row for _, row in wanted), dtype=np.int64, count=len(wanted))]
        sims = (rows.astype(np.float32) @ np.asarray(qvec, dtype=np.float32)).tolist()
        out: dict[int, float] = {}
        for (seq, _), sim in zip(wanted, sims):
            out[seq] = max(out.get(seq, -1.0), sim)
        return out

    def add(self, seq: int, vectors: np.ndarray) -> None:
        torch = _torch()
        self.remove(seq)  # a memory re-indexed (restored from the archive) replaces its rows
        self._ordered = None
        for vec in np.atleast_2d(vectors):
            if self.size == len(self.seqs):
                grown = torch.zeros((len(self.seqs) * 2, self.vectors.shape[1]), dtype=torch.float16)
                grown[: self.size] = self.vectors[: self.size]
                self.vectors = grown
                self.seqs = np.resize(self.seqs, len(self.seqs) * 2)
                self.scan = None  # made again, at the new size, by the next search
            row = self.size
            self.size += 1
            self.seqs[row] = seq
            self.rows.setdefault(seq, []).append(row)
            self.vectors[row] = torch.from_numpy(np.array(vec, dtype=np.float32)).to(torch.float16)
            if self.scan is not None:
                self.scan[row] = self.vectors[row].to(torch.bfloat16)

    def remove(self, seq: int) -> None:
        if seq in self.rows:
            self._ordered = None
        for row in sorted(self.rows.pop(seq, ()), reverse=True):
            last = self.size - 1
            if row != last:
                moved = int(self.seqs[last])
                self.vectors[row] = self.vectors[last]
                if self.scan is not None:
                    self.scan[row] = self.scan[last]
                self.seqs[row] = moved
                owned = self.rows[moved]
                owned[owned.index(last)] = row
            self.size = last

    def _shortlist(self, torch, wanted: int) -> int | None:
        """How many rows the bfloat16 copy shortlists for ``wanted`` rows; None where it does not
        apply (a small namespace, a CPU without native bfloat16): every row is computed."""
        if self.size < SCAN_COPY_ROWS or not _native_bf16(torch):
            return None
        if self.scan is None:
            with torch.inference_mode(False):  # a normal tensor: adds and removes write into it later
                self.scan = self.vectors.to(torch.bfloat16)
        return min(self.size, SHORTLIST_FACTOR * wanted + 64)

    def _similarities(self, torch, query, skipped: list[int], shortlist: int | None):
        """Each row's float16 cosine, -inf for the ``skipped`` rows; with a ``shortlist``, only the
        rows the bfloat16 copy ranks first are computed (the others -inf: the float16 product over a
        shortlist costs next to nothing)."""
        if shortlist is None:
            sims = torch.mv(self.vectors[: self.size], query).float()
        else:
            coarse = torch.mv(self.scan[: self.size], query.to(torch.bfloat16))
            rows = torch.topk(coarse, shortlist).indices
            sims = torch.full((self.size,), float("-inf"))
            sims[rows] = torch.mv(self.vectors[rows], query).float()
        if skipped:  # memories this caller may not hear never take a place among the n
            sims[torch.tensor(skipped, dtype=torch.long)] = float("-inf")
        return sims

    def top(self, qvec: np.ndarray, n: int, skip: set[int] | None = None) -> list[tuple[int, float]]:
        """The n best memories, each by its best row."""
        torch = _torch()
        if self.size == 0 or n <= 0:
            return []
        query = torch.from_numpy(np.ascontiguousarray(qvec, dtype=np.float32)).to(torch.float16)
        with torch.inference_mode():
            skipped = [row for seq in skip for row in self.rows.get(seq, ())] if skip else []
            masked = len(skipped)
            shortlist = self._shortlist(torch, n + 8 + masked)
            sims = self._similarities(torch, query, skipped, shortlist)
            wanted = min(n, len(self.rows) - len(skip & self.rows.keys() if skip else ()))
            if wanted <= 0:
                return []
            # A memory's other windows may crowd the first n rows: take more rows until n memories.
            k = min(self.size - masked, n + 8)
            while True:
                values, rows_found = torch.topk(sims, k)
                if shortlist is not None and bool(torch.isinf(values[-1])):  # past the shortlist: all rows
                    shortlist = None
                    sims = self._similarities(torch, query, skipped, shortlist)
                    continue
                best: dict[int, float] = {}
                for seq, sim in zip(self.seqs[rows_found.numpy()].tolist(), values.tolist()):
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
    idempotent), so nothing committed is missed whichever snapshot the load read."""

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

    def nbytes(self) -> int:
        """Bytes the matrices hold (their float16 rows, spare capacity included, the bfloat16
        copies of the large ones, and seqs)."""
        with self._lock:
            return sum(
                space.vectors.element_size() * space.vectors.numel()
                + space.seqs.nbytes
                + (space.scan.element_size() * space.scan.numel() if space.scan is not None else 0)
                for space in self._spaces.values()
            )

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
