"""``agentmemd bench centre``: the mean vector multilingual-e5-small's vectors are centred on
(memory/retrieval/e5.py says why).

The mean of e5's raw vectors over chat turns (as stored, "passage: ") and questions ("query: "),
half each, from LoCoMo's first three conversations and LongMemEval_S's first twenty haystacks:
English chats, so nothing of the cross-language probe set it is then measured on.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

TURNS_EACH = 1500  # turns from each set
LOCOMO_QUESTIONS = 500


def chat_texts(locomo: Path, longmemeval: Path) -> tuple[list[str], list[str]]:
    """(turns as "Speaker: text", questions) of the two sets."""
    turns: list[str] = []
    questions: list[str] = []
    for conversation in json.loads(locomo.read_text())[:3]:
        for value in conversation["conversation"].values():
            if isinstance(value, list):
                turns.extend(f"{t['speaker']}: {t['text']}" for t in value)
        questions.extend(q["question"] for q in conversation["qa"])
    turns = turns[:TURNS_EACH]
    questions = questions[:LOCOMO_QUESTIONS]
    haystack: list[str] = []
    for item in json.loads(longmemeval.read_text())[:20]:
        questions.append(item["question"])
        for session in item["haystack_sessions"][:5]:
            haystack.extend(t["content"][:400] for t in session)
    return turns + haystack[:TURNS_EACH], questions


def bench_centre(args) -> dict[str, Any]:
    from agentmemd.memory.retrieval.e5 import CENTRE_FILE, E5Embedder

    turns, questions = chat_texts(Path(args.locomo), Path(args.longmemeval))
    raw = E5Embedder(0, 2, centred=False)
    passages = raw._embed(turns, urgent=False)
    asked = raw._embed(questions, urgent=False, query=True)
    centre = ((passages.mean(0) + asked.mean(0)) / 2).astype(np.float32)
    out = Path(args.out) if args.out else CENTRE_FILE
    np.save(out, centre)
    return {
        "written": str(out),
        "turns": len(turns),
        "questions": len(questions),
        "norm": float(np.linalg.norm(centre)),
    }
