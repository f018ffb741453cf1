"""Trait scales (seed 004, 3.1, figure 2): each trait is a 0-100 scale between two anchor
words, and a score along it reads as an adjective.

The six built-in traits are the numeric traits of seed 002's PersonaState (5.2). A person
adds their own scales in IDENTITY.md (``- Trait: passive / assertive 70``). Scores are
kept 0..1 in PersonaState and shown 0-100 to people, as the seed's figure does.

The translation to an adjective is a fixed banding ("very passive", "somewhat assertive"),
not a model call, so the same score always reads the same.
"""

from __future__ import annotations

import math
import re

from pydantic import BaseModel, ConfigDict, Field

AnchorWord = str


class TraitScale(BaseModel):
    """One dichotomous scale: ``low`` is 0, ``high`` is 100."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=r"^[a-z][a-z0-9_-]{0,47}$")
    low: AnchorWord = Field(min_length=1, max_length=40)
    high: AnchorWord = Field(min_length=1, max_length=40)
    builtin: bool = False


BUILTIN_SCALES: dict[str, TraitScale] = {
    s.name: s
    for s in (
        TraitScale(name="directness", low="indirect", high="direct", builtin=True),
        TraitScale(name="formality", low="casual", high="formal", builtin=True),
        TraitScale(name="verbosity", low="concise", high="expansive", builtin=True),
        TraitScale(name="humor", low="serious", high="playful", builtin=True),
        TraitScale(name="warmth", low="reserved", high="warm", builtin=True),
        TraitScale(name="technical_depth", low="plain-spoken", high="technical", builtin=True),
    )
}
BUILTIN_TRAITS: tuple[str, ...] = tuple(BUILTIN_SCALES)

# Bands of a 0..1 score and how each reads; the middle band names both anchors.
_BANDS = (
    (0.15, "very {low}"),
    (0.35, "{low}"),
    (0.45, "somewhat {low}"),
    (0.55, "between {low} and {high}"),
    (0.65, "somewhat {high}"),
    (0.85, "{high}"),
    (1.01, "very {high}"),
)


def adjective(scale: TraitScale, score: float) -> str:
    """0.1 on passive/assertive -> 'very passive'; 0.7 -> 'assertive'."""
    for upper, template in _BANDS:
        if score < upper:
            return template.format(low=scale.low, high=scale.high)
    return f"very {scale.high}"


def scale_name(low: str, high: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", f"{low}-{high}".lower()).strip("-")[:48] or "trait"


def percent(score: float) -> int:
    return round(max(0.0, min(1.0, score)) * 100)


# The verbosity trait is a reply's length on a log scale (stylometry measures it, IDENTITY.md's
# verbosity sets the length it expects).
def length_score(words: int) -> float:
    """Verbosity on a log scale: 8 words -> 0, 30 -> ~0.38, 80 -> ~0.66, 350 and more -> 1."""
    return max(0.0, min(1.0, (math.log2(max(words, 1)) - 3.0) / (math.log2(350) - 3.0)))


def words_for_verbosity(verbosity: float) -> float:
    """The inverse of length_score: the reply length a verbosity trait stands for."""
    return 2 ** (3.0 + max(0.0, min(1.0, verbosity)) * (math.log2(350) - 3.0))
