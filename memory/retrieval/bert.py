"""all-MiniLM-L6-v2's BERT encoder in plain torch, read from the wheel's ``model.safetensors``.

Why not ``transformers.BertModel``: importing transformers (its modeling utilities pull in
torch._dynamo, torch.distributed, sympy and scipy) took 5.0 s of the daemon's 10.7 s start here,
for a forward pass that is ~40 lines. This module computes the same ``last_hidden_state`` (the
embedding tests compare the two when transformers is installed), with the parameter names of
the checkpoint so the weights load by name, strictly.
"""

from __future__ import annotations

import json
from pathlib import Path

import torch
from torch import nn
from torch.nn import functional


class _Embeddings(nn.Module):
    def __init__(self, config: dict):
        super().__init__()
        hidden = config["hidden_size"]
        self.word_embeddings = nn.Embedding(config["vocab_size"], hidden, padding_idx=config.get("pad_token_id", 0))
        self.position_embeddings = nn.Embedding(config["max_position_embeddings"], hidden)
        self.token_type_embeddings = nn.Embedding(config["type_vocab_size"], hidden)
        self.LayerNorm = nn.LayerNorm(hidden, eps=config["layer_norm_eps"])

    def forward(self, input_ids: torch.Tensor, token_type_ids: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(input_ids.shape[1], device=input_ids.device).unsqueeze(0)
        summed = (
            self.word_embeddings(input_ids)
            + self.token_type_embeddings(token_type_ids)
            + self.position_embeddings(positions)
        )
        return self.LayerNorm(summed)


class _Linear(nn.Module):
    """A dense layer under the checkpoint's name for it (``dense``), with a LayerNorm where the
    checkpoint has one after the residual."""

    def __init__(self, inputs: int, outputs: int, eps: float | None = None):
        super().__init__()
        self.dense = nn.Linear(inputs, outputs)
        if eps is not None:
            self.LayerNorm = nn.LayerNorm(outputs, eps=eps)


class _SelfAttention(nn.Module):
    def __init__(self, config: dict):
        super().__init__()
        hidden = config["hidden_size"]
        self.heads = config["num_attention_heads"]
        self.query = nn.Linear(hidden, hidden)
        self.key = nn.Linear(hidden, hidden)
        self.value = nn.Linear(hidden, hidden)

    def forward(self, hidden: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        batch, length, width = hidden.shape

        def split(x: torch.Tensor) -> torch.Tensor:
            return x.view(batch, length, self.heads, width // self.heads).transpose(1, 2)

        context = functional.scaled_dot_product_attention(
            split(self.query(hidden)), split(self.key(hidden)), split(self.value(hidden)), attn_mask=mask
        )
        return context.transpose(1, 2).reshape(batch, length, width)


class _Attention(nn.Module):
    def __init__(self, config: dict):
        super().__init__()
        self.self = _SelfAttention(config)  # the checkpoint's name: attention.self.query
        self.output = _Linear(config["hidden_size"], config["hidden_size"], config["layer_norm_eps"])

    def forward(self, hidden: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        attended = self.self(hidden, mask)
        return self.output.LayerNorm(self.output.dense(attended) + hidden)


class _Layer(nn.Module):
    def __init__(self, config: dict):
        super().__init__()
        self.attention = _Attention(config)
        self.intermediate = _Linear(config["hidden_size"], config["intermediate_size"])
        self.output = _Linear(config["intermediate_size"], config["hidden_size"], config["layer_norm_eps"])

    def forward(self, hidden: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        attended = self.attention(hidden, mask)
        expanded = functional.gelu(self.intermediate.dense(attended))  # "gelu": the exact (erf) one
        return self.output.LayerNorm(self.output.dense(expanded) + attended)


class _Encoder(nn.Module):
    def __init__(self, config: dict):
        super().__init__()
        self.layer = nn.ModuleList(_Layer(config) for _ in range(config["num_hidden_layers"]))

    def forward(self, hidden: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        for layer in self.layer:
            hidden = layer(hidden, mask)
        return hidden


class BertEncoder(nn.Module):
    """BERT's embeddings and encoder (no pooler: sentence-transformers mean-pools the last
    hidden state). ``forward`` returns that state, (batch, tokens, hidden)."""

    def __init__(self, config: dict):
        super().__init__()
        if (
            config.get("hidden_act", "gelu") != "gelu"
            or config.get("position_embedding_type", "absolute") != "absolute"
        ):
            raise ValueError("only BERT with GELU and absolute positions is supported")
        self.embeddings = _Embeddings(config)
        self.encoder = _Encoder(config)

    def forward(
        self, input_ids: torch.Tensor, attention_mask: torch.Tensor, token_type_ids: torch.Tensor
    ) -> torch.Tensor:
        hidden = self.embeddings(input_ids, token_type_ids)
        # Padding is never attended to: a boolean mask (True = attend) over the keys, every head.
        keys = attention_mask.bool()[:, None, None, :]
        return self.encoder(hidden, keys)

    @classmethod
    def from_directory(cls, model_dir: Path) -> "BertEncoder":
        """The model in ``model_dir`` (config.json, model.safetensors), in eval mode. Every
        weight of the encoder must be in the file (strict); the pooler's are not used."""
        from safetensors.torch import load_file

        config = json.loads((model_dir / "config.json").read_text())
        model = cls(config)
        weights = {
            name: tensor
            for name, tensor in load_file(str(model_dir / "model.safetensors")).items()
            if not name.startswith("pooler.") and name != "embeddings.position_ids"
        }
        model.load_state_dict(weights, strict=True)
        return model.eval()
