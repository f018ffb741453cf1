"""``agentmemd bench injection``: the neutraliser's catch rate on its corpus and its
false-positive rate on ordinary conversation turns (LoCoMo, and LongMemEval_S if given)."""

from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path
from typing import Any

from agentmemd.memory.safety.corpus import load_corpus
from agentmemd.memory.safety.neutraliser import as_data


def _false_positives(texts: list[str]) -> dict[str, Any]:
    as_data.cache_clear()
    start = time.perf_counter()
    flagged = [(t, as_data(t)) for t in texts]
    elapsed = time.perf_counter() - start
    hits = [(t, r) for t, r in flagged if r.rules]
    return {
        "texts": len(texts),
        "flagged": len(hits),
        "false_positive_rate": round(len(hits) / max(1, len(texts)), 5),
        "by_rule": dict(Counter(name for _, r in hits for name in r.rules).most_common()),
        "us_per_text": round(elapsed / max(1, len(texts)) * 1e6, 1),
        "examples": [t[:160] for t, _ in hits[:5]],
    }


def locomo_texts(samples: list[dict[str, Any]]) -> list[str]:
    """Every turn's text as said (no speaker prefix, no image caption): what conversation.append gets."""
    return [
        t["text"]
        for sample in samples
        for key, session in sample["conversation"].items()
        if key.startswith("session_") and isinstance(session, list)
        for t in session
        if t.get("text")
    ]


def bench_injection(args) -> dict[str, Any]:
    corpus = load_corpus()
    instructions, break_outs = corpus["instructions"], corpus["break-out"]
    missed = [a for a in instructions if not as_data(a).rules]
    escaped = [a for a in break_outs if any(ch in as_data(a).text for ch in "<>[]")]
    out: dict[str, Any] = {
        "corpus": {
            "instructions": len(instructions),
            "caught": len(instructions) - len(missed),
            "catch_rate": round(1 - len(missed) / len(instructions), 4),
            "missed": missed,
            "break_outs": len(break_outs),
            "wrapper_characters_left": len(escaped),
        }
    }
    if args.locomo:
        samples = json.loads(Path(args.locomo).read_text())
        out["locomo_turns"] = _false_positives(locomo_texts(samples))
    if args.longmemeval:
        questions = json.loads(Path(args.longmemeval).read_text())
        turns = {t["content"] for q in questions for s in q["haystack_sessions"] for t in s}
        out["longmemeval_turns"] = _false_positives(sorted(turns))
    return out
