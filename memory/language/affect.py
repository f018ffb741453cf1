"""Affect: how a memory feels (seed 003, 3.3), read from its words when it is stored.

    read_affect("I'm furious with Bo!")    # Affect(valence=-0.65, arousal=0.59, emotion="anger")

- **valence** in [-1, 1]: VADER's compound score (vaderSentiment, MIT; Hutto & Gilbert 2014), a
  rule-based lexicon built for short social text: negation ("not happy"), boosters ("so", "very"),
  capitals and exclamation marks move it. English only: text py3langid (detection.py) reads as
  another language is neutral (VADER would read German "Die" as the English verb).
- **emotion**: one of the six basic emotions of ``EMOTIONS`` where a cue word of that emotion is said and VADER's valence
  agrees in sign (a sad word in a positive sentence is not sadness); else "positive", "negative"
  or "neutral" by VADER's own thresholds (±0.05). The cue words are ours (a short English list):
  the permissively licensed emotion lexicons we found (NRC's) do not allow commercial use.
- **arousal** in [0, 1]: not measured by VADER, so a proxy, said plainly: the strength of the
  feeling (|valence|) times how activating its emotion is on Russell's circumplex (anger and fear
  high, sadness low; ``AROUSAL``). A neutral memory is 0.

Seed 003 weights a memory by the emotional intensity that accompanied it: the scoring's
``affect`` signal is this arousal ([scoring] affect, default 0: measured, it did not help).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from agentmemd.memory.language.detection import detect_language

NEUTRAL_BAND = 0.05  # VADER's own thresholds for positive / negative

# Cue words of six basic emotions (Ekman), as word starts ("terrif" finds terrified, terrifying).
_CUES: dict[str, tuple[str, ...]] = {
    "joy": (
        "happ",
        "glad",
        "delight",
        "thrill",
        "excit",
        "overjoy",
        "ecsta",
        "joy",
        "cheer",
        "proud",
        "grateful",
        "thankful",
        "relieved",
        "love",
        "wonderful",
        "amazing",
        "fantastic",
        "celebrat",
    ),
    "sadness": (
        "sad",
        "unhapp",
        "miss ",
        "missed",
        "lonel",
        "grief",
        "griev",
        "heartbr",
        "devastat",
        "depress",
        "cry",
        "cried",
        "tears",
        "mourn",
        "sorrow",
        "gloom",
        "disappoint",
        "hopeless",
        "passed away",
        "died",
    ),
    "anger": (
        "angr",
        "anger",
        "furious",
        "fury",
        "mad at",
        "annoy",
        "irritat",
        "outrag",
        "livid",
        "rage",
        "resent",
        "frustrat",
        "fed up",
        "pissed",
        "hate",
    ),
    "fear": (
        "afraid",
        "scare",
        "scary",
        "fright",
        "terrif",
        "fear",
        "anxi",
        "nervous",
        "worr",
        "panic",
        "dread",
        "alarm",
        "uneasy",
        "tense",
    ),
    "surprise": ("surpris", "astonish", "amaz", "shock", "stunn", "unexpected", "can't believe", "cannot believe"),
    "disgust": ("disgust", "gross", "revolt", "repuls", "sicken", "nause", "vile", "yuck"),
}
_POSITIVE = {"joy"}
_EITHER = {"surprise"}

# How activating each emotion is (Russell's circumplex of affect, 1980: anger, fear and surprise
# high; joy above the middle; disgust middling; sadness low); a plain positive or negative between.
AROUSAL: dict[str, float] = {
    "anger": 0.9,
    "fear": 0.9,
    "surprise": 0.85,
    "joy": 0.7,
    "disgust": 0.6,
    "sadness": 0.35,
    "positive": 0.5,
    "negative": 0.5,
    "neutral": 0.0,
}

_CUE_RX = {
    emotion: re.compile(r"\b(?:" + "|".join(re.escape(cue) for cue in cues) + r")", re.IGNORECASE)
    for emotion, cues in _CUES.items()
}


@dataclass(frozen=True, slots=True)
class Affect:
    valence: float
    arousal: float
    emotion: str


NEUTRAL = Affect(0.0, 0.0, "neutral")


@lru_cache(maxsize=1)
def _analyzer():
    from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

    return SentimentIntensityAnalyzer()


# VADER's negation check is quadratic in a text's words (an emoji counts as the words of its
# name): 8,000 characters of emoji took 16 s, a 90,000-character turn hours. A longer text is read
# as at most VALENCE_SAMPLES pieces of up to VALENCE_PIECE_CHARS, spread over it, averaged.
VALENCE_WHOLE_CHARS = 1_000
VALENCE_PIECE_CHARS = 400
VALENCE_SAMPLES = 8


def valence_of(text: str) -> float:
    """VADER's compound valence of ``text``, in bounded time whatever its length."""
    if len(text) <= VALENCE_WHOLE_CHARS:
        return float(_analyzer().polarity_scores(text)["compound"])
    pieces = _pieces(text)
    step = max(1, len(pieces) / VALENCE_SAMPLES)
    chosen = [pieces[int(i * step)] for i in range(min(VALENCE_SAMPLES, len(pieces)))]
    return sum(float(_analyzer().polarity_scores(piece)["compound"]) for piece in chosen) / len(chosen)


def _pieces(text: str) -> list[str]:
    """``text`` cut into pieces of at most VALENCE_PIECE_CHARS, at a sentence's or a word's end
    where there is one."""
    pieces, start = [], 0
    while start < len(text):
        end = min(len(text), start + VALENCE_PIECE_CHARS)
        if end < len(text):
            cut = max(text.rfind(". ", start, end), text.rfind("\n", start, end))
            cut = cut if cut > start else text.rfind(" ", start, end)
            end = cut + 1 if cut > start else end
        pieces.append(text[start:end])
        start = end
    return pieces


def read_affect(text: str) -> Affect:
    """The affect of ``text``: valence (VADER), an emotion label, and arousal (a proxy)."""
    valence = valence_of(text)
    # The language is asked only of what VADER finds feeling in (most stored text is neutral, and
    # asking costs twice VADER's 16 us).
    if abs(valence) < NEUTRAL_BAND or detect_language(text) not in (None, "english"):
        return NEUTRAL
    emotion = _emotion(text, valence)
    return Affect(round(valence, 4), round(abs(valence) * AROUSAL[emotion], 4), emotion)


def _emotion(text: str, valence: float) -> str:
    """The first basic emotion whose cue is said and whose sign agrees with the valence, by how
    many of its cues are said (ties: the order of ``_CUES``)."""
    best, hits = "positive" if valence > 0 else "negative", 0
    for emotion, rx in _CUE_RX.items():
        agrees = emotion in _EITHER or (emotion in _POSITIVE) == (valence > 0)
        found = len(rx.findall(text)) if agrees else 0
        if found > hits:
            best, hits = emotion, found
    return best
