"""The one scoring function, in one of two modes ([scoring] mode):

- "injection" (seed 002, 5.1, the default):
  score = w_sim*similarity + w_prio*priority + w_decay*retention + w_freq*frequency_boosts
- "park" (seed 004, 3.2 and appendix L.1; Park et al.'s generative agents):
  score = (recency + importance + relevance) / 3, recency = park_recency_per_hour ** hours since
  the memory was last accessed, importance its priority (0.1-1: the 1-10 scale over ten; the local
  Observer and a person set it, the anthropic provider's observations too), relevance its similarity.
  Each is already on [0, 1], so they are summed as they are (Park et al. min-max normalise each
  over the candidates; a fixed scale lets one candidate be scored again on its own, as the speaker
  and answer rules do).

In either mode, ``affect`` (seed 003, 3.3: a memory weighed by the emotional intensity that came
with it) adds [scoring] affect times the memory's arousal; 0 by default (measured: it did not help).
"""

from __future__ import annotations

from dataclasses import field, make_dataclass

import numpy as np

from agentmemd.memory.core.config import RetrievalConfig, ScoringConfig
from agentmemd.memory.core.signals import SIGNAL_NAMES


def _rounded(self) -> dict[str, float]:
    """Each signal rounded to 6 places, as hits and the pack log show them."""
    return {name: round(getattr(self, name), 6) for name in SIGNAL_NAMES}


# A candidate's signals (a plain dataclass: a pack builds a few hundred per call), one field for
# each signal declared in memory/core/signals.py, 0 where it did not move anything.
Signals = make_dataclass(
    "Signals",
    [(name, float, field(default=0.0)) for name in SIGNAL_NAMES],
    namespace={"rounded": _rounded, "__module__": __name__},
    slots=True,
)


def similarity_signal(cosines: np.ndarray, lexical: np.ndarray, cfg: RetrievalConfig) -> np.ndarray:
    """Hybrid relevance in [0, 1]: cosine (clipped at 0) blended with normalised BM25, for many
    candidates at once (arrays of their cosines and lexical signals)."""
    total = cfg.dense_weight + cfg.lexical_weight
    if total <= 0:
        return np.zeros(np.shape(cosines))
    value = (cfg.dense_weight * np.maximum(0.0, cosines) + cfg.lexical_weight * np.asarray(lexical)) / total
    return np.clip(value, 0.0, 1.0)


# A memory of this many tokens takes half the neighbour lift: a short turn ("yes, last Tuesday")
# is about what surrounds it; a long one says what it is about itself.
SELF_CONTAINED_TOKENS = 64


def episode_similarity(match, neighbourhood, tokens, cfg: RetrievalConfig):
    """A memory's relevance with its episode's: what was said just before or after a turn tells what
    the turn is about, the more so the shorter the turn. Measured (issue 16): with no context stored,
    LoCoMo evidence Recall@10 0.643 -> 0.675 and LongMemEval turn Recall@10 0.863 -> 0.892; the same
    lift for every length gave LoCoMo 0.703 but cost LongMemEval's long turns 0.12 of session
    Recall@5 (a long turn's neighbours crowded other sessions out).
    (Floats, or arrays of many candidates at once.)"""
    lift = cfg.neighbour_weight * SELF_CONTAINED_TOKENS / (SELF_CONTAINED_TOKENS + tokens)
    return np.minimum(1.0, match + lift * neighbourhood)


def lexical_signal(bm25: np.ndarray, full_match: float) -> np.ndarray:
    """BM25 in [0, 1] on an absolute scale: 1 for a memory holding each query term (the
    namespace's IDF-weighted share of the query), so a match on one common word stays weak
    however weak the best candidate is (issue 16; normalising by the best hit made it perfect).
    For many matches at once (an array of their BM25 scores)."""
    return np.minimum(1.0, bm25 / full_match) if full_match > 0 else np.zeros(np.shape(bm25))


def effective_priority(priority: float | None, memory_type: str, cfg: ScoringConfig) -> float:
    floor = cfg.priority_floors.get(memory_type, 0.0)
    return max(floor, priority if priority is not None else 0.0)


def injection_score(signals: Signals, cfg: ScoringConfig) -> float:
    s = signals
    return float(injection_scores(s.similarity, s.priority, s.decay, s.frequency, cfg, s.recency, s.affect))


def injection_scores(similarity, priority, decay, frequency, cfg: ScoringConfig, recency=0.0, affect=0.0):
    """The score of one candidate (floats) or of many at once (arrays), in the configured mode; in
    either, plus [scoring] affect times the memory's emotional intensity (seed 003, 3.3)."""
    if cfg.mode == "park":
        base = (recency + priority + similarity) / 3.0
    else:
        base = cfg.similarity * similarity + cfg.priority * priority + cfg.decay * decay + cfg.frequency * frequency
    return base + cfg.affect * affect


def park_recency(hours, cfg: ScoringConfig):
    """Park et al.'s recency: an exponential decay per hour since the memory was last accessed."""
    return np.power(cfg.park_recency_per_hour, np.maximum(0.0, hours))


def answer_lift(similarity, question, cfg: RetrievalConfig):
    """What a memory gains as the answer to a question asked just before it in its episode (the
    question's ``match``): it is at least [retrieval] answer_share as similar as the question. The
    evidence of a conversation is often the reply ("Oh, It Takes Two, no contest!") to a question
    that matches ("what's your favourite game to play with him?"), sharing no word with what is
    asked later. Measured on LoCoMo (plain memory.add, no context) R@5 / R@10 0.590 / 0.711 ->
    0.610 / 0.718 at 1.0 (0.606 / 0.718 at 0.9). (Floats, or arrays of many candidates at once.)"""
    return np.maximum(0.0, np.minimum(1.0, cfg.answer_share * question) - similarity)
