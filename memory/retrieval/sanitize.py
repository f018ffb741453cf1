"""Neutralise instruction-like text before a memory is injected (seed 002, 5.1 security).

The stored memory is never changed; only its rendering inside a Memory Pack is.
"""

from __future__ import annotations

import re

REPLACEMENT = "[instruction-like text removed]"

_PATTERNS = [
    # "ignore (all) (of) (the/your) previous/prior/above instructions", "disregard all rules"
    r"\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+)?(?:of\s+)?(?:the\s+|your\s+|my\s+|these\s+)?"
    r"(?:previous|prior|above|earlier|preceding|system|original|all|any)\s+(?:\w+\s+)?"
    r"(?:instructions?|prompts?|rules|directions|context|messages|guidelines)\b",
    r"\byou\s+are\s+now\b",
    r"\bfrom\s+now\s+on,?\s+you\b",
    r"\bact\s+as\s+(?:if\s+you\s+(?:are|were)|an?|the)\b",
    r"\bpretend\s+(?:to\s+be|you\s+are)\b",
    r"\bnew\s+(?:system\s+)?instructions?\s*:",
    r"\bsystem\s+prompt\b",
    # fake role / chat-template tags
    r"</?\s*(?:system|assistant|user|instructions?)\s*>",
    r"<\|[a-z_]*\|>",
    r"\[/?(?:INST|SYS|SYSTEM)\]",
    r"<<\s*/?SYS\s*>>",
    r"^\s*#{0,3}\s*(?:system|assistant|developer)\s*:",
    # pack delimiters: a memory must not close the pack early
    r"\[\s*(?:END\s+)?MEMORY\s+PACK[^\]]*\]",
]
_REGEX = re.compile("|".join(f"(?:{p})" for p in _PATTERNS), re.IGNORECASE | re.MULTILINE)


def sanitize(text: str) -> tuple[str, bool]:
    """Return (safe_text, changed)."""
    cleaned, count = _REGEX.subn(REPLACEMENT, text)
    # Newlines inside one memory would let it forge extra pack lines.
    flattened = " ".join(cleaned.split())
    return flattened, count > 0


def is_clean(text: str) -> bool:
    """True when sanitize() would leave the words (so the token count) as they are."""
    return _REGEX.search(text) is None
