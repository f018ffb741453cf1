"""The semantic response cache in front of the LLM layer (seed 001, chapter 3).

Entries are keyed by task category, provider and namespace. A lookup tries

1. the exact-match fast path: the SHA-256 of the task, provider and canonical prompt;
2. for tasks marked ``semantic``: the cosine between the embedded prompt and every entry
   of the same task, category and namespace; at or above ``[cache] similarity_threshold``
   the cached answer is reused. With ``keyword_only`` only the prompt's keywords are
   embedded (seed 001's keyword-only caching: the shared template makes whole prompts
   look alike, so keywords separate them better).

Tasks marked uncacheable (sampled judgements) always go to the model and count as
``bypassed``. Hits, misses and the tokens a hit saved (prompt + answer, counted with the
one token counter) are kept per task and namespace and shown by ``agentmemd costs``.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Callable, TypeVar

import numpy as np
from pydantic import BaseModel

from agentmemd.memory.core.clock import Clock, format_time
from agentmemd.memory.core.config import CacheConfig
from agentmemd.memory.core.text import content_words
from agentmemd.memory.core.threads import RunOnStore, run_here
from agentmemd.memory.core.tokens import count_tokens
from agentmemd.memory.llm.tasks import TaskSpec
from agentmemd.memory.retrieval.embeddings import Embedder
from agentmemd.memory.store.database import Store, from_blob, to_blob
from agentmemd.memory.store.history_tables import HistoryTables
from agentmemd.memory.store.llm_tables import LLMTables

T = TypeVar("T", bound=BaseModel)


def canonical(payload: Any) -> str:
    """The variable part of a prompt as canonical JSON (models dumped, keys sorted)."""

    def plain(x: Any) -> Any:
        if isinstance(x, BaseModel):
            return x.model_dump(mode="json")
        if isinstance(x, (list, tuple)):
            return [plain(v) for v in x]
        return x

    return json.dumps(plain(payload), sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def keywords(text: str) -> str:
    """Seed 001's keyword description: the prompt's content words, once each, in order, space-joined."""
    return " ".join(dict.fromkeys(content_words(text)))


class ResponseCache:
    def __init__(self, store: Store, embedder: Embedder, clock: Clock, cfg: CacheConfig, provider: str):
        self.store = store
        self.tables = LLMTables(store)
        self.history = HistoryTables(store)
        self.embedder = embedder
        self.clock = clock
        self.cfg = cfg
        self.provider = provider

    def through(
        self,
        spec: TaskSpec,
        namespace: str,
        payload: Any,
        compute: Callable[[], T],
        *,
        run_on_store: RunOnStore = run_here,
    ) -> T:
        """The cached answer to this prompt, or ``compute()``'s (then cached)."""
        task = spec.name
        if not self.cfg.enabled or not spec.cacheable:
            run_on_store(lambda: self._count(task, namespace, "bypassed"))
            return compute()
        text = canonical(payload)
        category = f"{spec.category}:{self.provider}"
        digest = hashlib.sha256(f"{task}\0{self.provider}\0{text}".encode()).hexdigest()
        key_text = keywords(text) if self.cfg.keyword_only else text
        vector = None
        if spec.semantic:
            vector = self.embedder.embed([key_text or text])[0]
        hit, forgets = run_on_store(lambda: self._lookup(category, task, namespace, digest, vector))
        if hit is not None:
            kind, entry_id, response, tokens = hit
            run_on_store(lambda: self._count(task, namespace, kind, tokens=tokens, entry_id=entry_id))
            return spec.result.model_validate_json(response)  # type: ignore[return-value]
        answer = compute()
        response = answer.model_dump_json()
        tokens = count_tokens(text) + count_tokens(response)
        stored_vector = vector if vector is not None else np.zeros(self.embedder.dim, dtype=np.float32)
        entry = {
            "category": category,
            "task": task,
            "namespace": namespace,
            "prompt_hash": digest,
            "key_text": key_text[:20_000],
            "embedding": to_blob(stored_vector),
            "response": response,
            "tokens": tokens,
        }
        run_on_store(lambda: self._put(entry, forgets))
        return answer

    # ---- store-thread steps -------------------------------------------------------------

    def _lookup(
        self, category: str, task: str, namespace: str, digest: str, vector: np.ndarray | None
    ) -> tuple[tuple[str, int, str, int] | None, int]:
        """The entry this prompt may reuse (or None), and the namespace's forget generation now."""
        return self._entry(category, task, namespace, digest, vector), self.history.forget_generation(namespace)

    def _entry(
        self, category: str, task: str, namespace: str, digest: str, vector: np.ndarray | None
    ) -> tuple[str, int, str, int] | None:
        row = self.tables.exact(category, namespace, digest)
        if row is not None:
            return "hits_exact", row[0], row[1], row[2]
        if vector is None:
            return None
        rows = self.tables.entries(category, namespace, task)
        if not rows:
            return None
        sims = np.vstack([from_blob(r[3]) for r in rows]) @ vector
        best = int(np.argmax(sims))
        if float(sims[best]) >= self.cfg.similarity_threshold:
            return "hits_semantic", rows[best][0], rows[best][1], rows[best][2]
        return None

    def _count(self, task: str, namespace: str, kind: str, *, tokens: int = 0, entry_id: int | None = None) -> None:
        column = kind if kind in ("hits_exact", "hits_semantic", "bypassed") else "misses"
        with self.store.transaction():
            self.tables.count(task, namespace, column, tokens, entry_id)

    def _put(self, entry: dict[str, Any], forgets: int) -> None:
        """Keep a model's answer, unless something was forgotten in the namespace while the model
        was answering: its prompt may quote the forgotten words, and the forget has already looked
        for the cache entries to remove (the answer was used once; the next call asks again)."""
        with self.store.transaction():
            self._count(entry["task"], entry["namespace"], "misses")
            if self.history.forget_generation(entry["namespace"]) != forgets:
                return
            self.tables.put({**entry, "created": format_time(self.clock.now())}, self.cfg.max_entries)

    def totals(self) -> list[dict[str, Any]]:
        return self.tables.cache_totals()
