"""SyncScore (seed 002, 5.3): how well one reply keeps the persona, on five dimensions.

    voice       the reply's traits (stylometry; embeddings for user-defined scales) against
                PersonaState's, and marked habits the persona does not have
    relational  the stance the reply takes (peer, advisor, friend, teacher, servant,
                dismissive) against the persona's stances
    grounded    the reply's claims against the Memory Pack actually injected for that turn
                and the recent turns (not world truth): contradictions and recalled
                "facts" nothing supports lower it
    style       length against the persona's typical reply, formatting habits (bullets,
                headers, code, emoji, exclamations)
    constraint  hard rules: by rule where checkable (persona/rules.py), else judged

``score_locally`` is the local provider's judge: all five from embeddings and
stylometry. The composite is a weighted mean; the EWMA (lambda 0.3) smooths it over a
session; ``action_for`` maps the EWMA to 5.3's drift actions.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from agentmemd.memory.core.text import content_words, count_words
from agentmemd.memory.language.detection import detect_language
from agentmemd.memory.llm.tasks import ContextTurn, TaskSpec
from agentmemd.persona.identity.state import PersonaState
from agentmemd.persona.syncscore.rules import RuleCheck, check_all
from agentmemd.persona.syncscore.stylometry import (
    BRIEF_REQUEST,
    DEPTH_REQUEST,
    Style,
    estimate_traits,
    measure,
    relational_stances,
    voice_markers,
)

Trend = Literal["stable", "drifting", "recovering"]
Action = Literal["none", "reinforce", "anchor", "rebase"]


class Dimensions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    voice: float = Field(ge=0, le=1)
    relational: float = Field(ge=0, le=1)
    grounded: float = Field(ge=0, le=1)
    style: float = Field(ge=0, le=1)
    constraint: float = Field(ge=0, le=1)


class JudgeRequest(BaseModel):
    """What the SyncScore judge sees (seed 002, 5.3)."""

    model_config = ConfigDict(extra="forbid")

    persona: str = Field(description="the persona specification: PersonaState's record and the hard rules")
    response: str
    turns: list[ContextTurn] = Field(default_factory=list, description="the last 3 turns before the response")
    memories: list[str] = Field(default_factory=list, description="the Memory Pack injected for that turn")


# A model judge's prompt (the anthropic provider; persona/tracking/model.py asks it): it answers
# with the five dimensions. Sampled judgements are never cached.
JUDGE_PROMPT = """Rate this agent response on 5 dimensions (0.0-1.0):

1. Voice consistency (language patterns, metaphors, formality)
2. Relational alignment (peer/advisor/friend positioning)
3. Groundedness (faithfulness to injected memories and known context, not world truth)
4. Style adherence (formatting, length, structure)
5. Constraint adherence (hardRules respected?)

The persona specification, the injected memories, the conversation context and the response
follow in the user turn.
Output as JSON: {"voice": 0.X, "relational": 0.X, "grounded": 0.X, "style": 0.X, "constraint": 0.X}"""

JUDGE = TaskSpec("judge", "judgement", cacheable=False, semantic=False, result=Dimensions)


@dataclass
class Judged:
    dimensions: Dimensions
    notes: dict = field(default_factory=dict)


def _clamp(x: float) -> float:
    return max(0.0, min(1.0, x))


# ---- drift control -------------------------------------------------------------------


def update_ewma(score: float, previous: float | None, lam: float) -> float:
    return score if previous is None else lam * score + (1 - lam) * previous


def trend_of(ewmas: list[float], window: int = 3, epsilon: float = 0.02) -> Trend:
    """Falling over the last ``window`` scores: drifting; rising: recovering; else stable."""
    if len(ewmas) < 2:
        return "stable"
    delta = ewmas[-1] - ewmas[max(0, len(ewmas) - 1 - window)]
    if delta < -epsilon:
        return "drifting"
    if delta > epsilon:
        return "recovering"
    return "stable"


def action_for(ewma: float, reinforce_below: float, anchor_below: float, rebase_below: float) -> Action:
    if ewma < rebase_below:
        return "rebase"
    if ewma < anchor_below:
        return "anchor"
    if ewma < reinforce_below:
        return "reinforce"
    return "none"


BASELINE_SCORES = 50  # the agent's own level: the median of its last this many composites
BASELINE_MIN_SCORES = 10  # fewer scored replies than this: no level to fall below yet


def baseline_of(composites: list[float]) -> float | None:
    """The agent's own level of SyncScore: the median of its recent composites (None: too few).
    A median, so the burst being judged barely moves it."""
    if len(composites) < BASELINE_MIN_SCORES:
        return None
    return float(np.median(composites))


OWN_VOICE_HISTORY = 200  # the agent's own voice: its last this many scored replies
OWN_VOICE_MIN = 20  # fewer than this: no voice of its own to depart from yet
_SPREAD_FLOOR = 0.05  # a habit the agent never varies still lets a reply depart by a little


def own_voice_departures(history: list[list[float]], recent: list[list[float]]) -> list[float] | None:
    """How far each of ``recent`` (OWN_VOICE vectors) departs from the agent's own replies
    ``history``, in units of how far those depart from themselves (0: as usual; 2: twice the usual
    spread further). A reply's departure is the root mean square over habits of its distance from
    the agent's mean, in the agent's standard deviations, each capped at 3 (one odd habit is not a
    voice). The square, not the plain mean: a voice that changes shows in a few habits by far (the
    emoji and exclamations gone, the figures gone), and averaging those over all 19 hid it.
    None: too little history."""
    if len(history) < OWN_VOICE_MIN or not recent:
        return None
    own = np.asarray(history, dtype=np.float64)
    mean, spread = own.mean(axis=0), np.maximum(own.std(axis=0), _SPREAD_FLOOR)

    def departure(x: np.ndarray) -> np.ndarray:
        distance = np.minimum(np.abs((x - mean) / spread), 3.0)
        return np.sqrt(np.square(distance).mean(axis=-1))

    usual = departure(own)
    level, scatter = float(usual.mean()), max(float(usual.std()), _SPREAD_FLOOR)
    return [round(float(d - level) / scatter, 3) for d in departure(np.asarray(recent, dtype=np.float64))]


def off_own_voice(departures: list[float] | None, replies: int, above: float) -> bool:
    """The session's last ``replies`` departures (newest last) a burst unlike the agent's own voice:
    on average at least ``above``, and each at least half that (one reply in its voice breaks it).

    >>> off_own_voice([0.1, 1.9, 1.0, 2.2], 3, 1.5), off_own_voice([1.9, 0.3, 2.2, 2.4], 3, 1.5)
    (True, False)
    """
    if departures is None or above <= 0 or replies < 1 or len(departures) < replies:
        return False
    last = departures[-replies:]
    return sum(last) / replies >= above and min(last) >= above / 2


def in_a_burst(recent: list[float], baseline: float | None, replies: int, below: float) -> bool:
    """The session's last ``replies`` composites (newest last) a short burst of out-of-character
    replies: on average at least ``below`` under the agent's own ``baseline``, and each at least
    half that under it (one reply in character breaks a burst). The EWMA smooths such a burst
    away when the agent's level sits far above the thresholds (0.95 against 0.7).

    >>> in_a_burst([0.96, 0.76, 0.82, 0.90], 0.97, 3, 0.1), in_a_burst([0.76, 0.96, 0.82, 0.90], 0.97, 3, 0.1)
    (True, False)
    """
    if baseline is None or replies < 1 or len(recent) < replies:
        return False
    last = recent[-replies:]
    return sum(last) / replies <= baseline - below and max(last) < baseline - below / 2


# ---- the local judge ---------------------------------------------------------------------

_VOICE_TRAITS = {"directness": 1.0, "formality": 1.0, "humor": 1.0, "warmth": 1.2, "technical_depth": 0.5}
# Habits a reply can show that mark a different voice when the persona lacks them.
_MARKED = {
    "pleasantries (great question, hope this helps)": 0.25,
    "curt or dismissive phrasing": 0.35,
    "assistant boilerplate (as an AI, I am unable)": 0.3,
    "exclamations": 0.12,
    "humour": 0.12,
    "hedges (maybe, perhaps, I think)": 0.12,
    "formal vocabulary": 0.12,
    "casual vocabulary": 0.12,
}
_STANCE_KEYS = {
    "peer": "peer-to-peer collaborator",
    "collaborat": "peer-to-peer collaborator",
    "partner": "peer-to-peer collaborator",
    "advis": "advisor",
    "coach": "advisor",
    "mentor": "advisor",
    "friend": "friend",
    "companion": "friend",
    "teach": "teacher",
    "tutor": "teacher",
    "servant": "deferential servant",
    "butler": "deferential servant",
    "assistant": "deferential servant",
}
_NEG = re.compile(
    r"\b(?:not|no|never|none|nothing|nobody|cannot|can't|don't|doesn't|didn't|isn't|wasn't|won't|"
    r"aren't|weren't|haven't|hasn't|stopped|quit|anymore|no longer)\b|n't\b",
    re.IGNORECASE,
)
_NUMBER = re.compile(
    r"\b(\d+)(?:[.,:]\d+)?(?:st|nd|rd|th|am|pm)?\b|\b(one|two|three|four|five|six|seven|eight|nine|ten|"
    r"twelve|twenty)\b",
    re.IGNORECASE,
)
_DAY = re.compile(
    r"\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|may|"
    r"june|july|august|september|october|november|december)\b",
    re.IGNORECASE,
)
_INTERJECTION = re.compile(r"^\W*(?:oh\s+)?no+\b[,!.]*|\bno worries\b|\bno problem\b", re.IGNORECASE)
_CAPITAL = re.compile(r"(?<=[a-z,;:] )[A-Z][a-z]{2,}")
# Words that cannot both be true of one thing: one in the claim, the other in the memory.
_ANTONYMS = [
    ("love", "hate"),
    ("like", "dislike"),
    ("love", "dislike"),
    ("enjoy", "dislike"),
    ("older", "younger"),
    ("before", "after"),
    ("early", "late"),
    ("morning", "evening"),
    ("allowed", "forbidden"),
    ("vegetarian", "steak"),
    ("vegetarian", "meat"),
    ("vegetarian", "chicken"),
    ("vegan", "cheese"),
    ("sister", "brother"),
    ("son", "daughter"),
    ("wife", "husband"),
    ("cat", "dog"),
    ("kitten", "dog"),
    ("tea", "coffee"),
    ("left", "right"),
    ("more", "less"),
    ("hot", "cold"),
    ("first", "last"),
    ("keep", "rip"),
    ("keeping", "replacing"),
    ("moved", "cancelled"),
    ("approved", "rejected"),
    ("never", "always"),
]
_RECALL = re.compile(
    r"\b(?:you (?:told|said|mentioned|shared|asked)|you'?ve (?:told|said|mentioned)|as you said|"
    r"your (?:sister|brother|mother|mum|mom|father|dad|wife|husband|partner|son|daughter|dog|cat|"
    r"friend|boss|job|birthday|name)|last (?:time|week|month) you|remember when you)\b",
    re.IGNORECASE,
)


def _stance_of(text: str) -> str | None:
    low = text.lower()
    if low in ("peer-to-peer collaborator", "advisor", "friend", "teacher", "deferential servant", "dismissive"):
        return low
    return next((v for k, v in _STANCE_KEYS.items() if k in low), None)


def _voice(state: PersonaState, style: Style, response: str, embedder) -> tuple[float, dict]:
    observed = estimate_traits(style)
    gaps: dict[str, float] = {}
    total = weight = 0.0
    for trait, w in _VOICE_TRAITS.items():
        gap = abs(observed[trait] - state.traits.get(trait, 0.5))
        gaps[trait] = round(gap, 3)
        total += w * _clamp((gap - 0.12) / 0.45)
        weight += w
    custom = [s for s in state.scales if not s.builtin]
    if custom and embedder is not None:
        vecs = embedder.embed_cached([response] + [a for s in custom for a in (s.low, s.high)])
        for k, s in enumerate(custom):
            position = _clamp(0.5 + 4.0 * float(vecs[0] @ vecs[2 * k + 2] - vecs[0] @ vecs[2 * k + 1]))
            gap = abs(position - state.traits.get(s.name, 0.5))
            gaps[s.name] = round(gap, 3)
            total += 0.6 * _clamp((gap - 0.15) / 0.45)
            weight += 0.6
    closeness = 1 - total / weight
    have = {w.text for w in state.voice_markers if w.weight >= 0.15}
    shown = voice_markers(style)
    foreign = {m: shown[m] for m in _MARKED if shown.get(m, 0) >= 0.2 and m not in have}
    penalty = sum(_MARKED[m] * min(1.0, 1.5 * v) for m, v in foreign.items())
    notes = {"trait_gaps": gaps, "foreign_markers": sorted(foreign)}
    language = detect_language(response)
    expected = detect_language(state.spec) or "english"
    if language is not None and language != expected:  # a different language is a different voice
        penalty += 0.45
        notes["language"] = language
    return _clamp(closeness - penalty), notes


# Stances that sit together: a warm peer is friendly, a teacher advises.
_COMPATIBLE = {
    "peer-to-peer collaborator": {"friend"},
    "friend": {"peer-to-peer collaborator"},
    "advisor": {"teacher"},
    "teacher": {"advisor"},
}


def _relational(state: PersonaState, style: Style) -> tuple[float, dict]:
    shown = relational_stances(style)
    expected: dict[str, float] = {}
    refused: set[str] = set()  # "not a servant": a stance the persona says it does not take
    for w in state.relational_stance:
        key = _stance_of(w.text)
        if key and _NEG.search(w.text):
            refused.add(key)
        elif key:
            expected[key] = expected.get(key, 0.0) + w.weight
    welcome = set(expected) | {c for e in expected for c in _COMPATIBLE.get(e, ())}
    score = 1.0
    score -= 0.9 * min(1.0, shown.get("dismissive", 0.0) * 2.5)
    for stance in refused - set(expected):  # taken though the persona refuses it: more than unasked
        score -= 0.7 * min(1.0, shown.get(stance, 0.0) * 2.5)
    for stance, weight in (("deferential servant", 0.5), ("distant, impersonal", 0.45)):
        if shown.get(stance) and stance not in expected and stance not in refused:
            score -= weight * min(1.0, shown[stance] * 2.5)
    advice = shown.get("advisor", 0.0)
    if expected and advice >= 0.3 and "advisor" not in welcome and not (set(shown) & welcome):
        score -= 0.3 * min(1.0, advice * 2)  # lecturing a peer
    notes: dict[str, Any] = {"stances": {k: round(v, 3) for k, v in shown.items()}}
    if refused & set(shown):
        notes["refused_stances"] = sorted(refused & set(shown))
    return _clamp(score), notes


def _numbers(text: str) -> set[str]:
    return {(a or b).lstrip("0").lower() or "0" for a, b in _NUMBER.findall(text)}


def _stems(text: str) -> set[str]:
    """Words without a plural/third-person -s, enough to match 'dislikes' with 'dislike'."""
    return {
        w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w
        for w in re.findall(r"[a-z]+", text.lower())
    }


def _conflict(claim: str, fact: str) -> str | None:
    """Why ``claim`` contradicts ``fact`` (two sentences about the same thing), or None."""
    nums_c, nums_f = _numbers(claim), _numbers(fact)
    if nums_c and nums_f and not nums_c & nums_f:
        return "number"
    days_c, days_f = {d.lower() for d in _DAY.findall(claim)}, {d.lower() for d in _DAY.findall(fact)}
    if days_c and days_f and not days_c & days_f:
        return "day"
    words_c, words_f = _stems(claim), _stems(fact)
    for a, b in _ANTONYMS:
        if (a in words_c and b in words_f and b not in words_c) or (b in words_c and a in words_f and a not in words_c):
            return f"{a}/{b}"
    caps_c, caps_f = set(_CAPITAL.findall(claim)), set(_CAPITAL.findall(fact))
    if caps_c - caps_f and caps_f - caps_c:  # "your sister Maria" where the memory says "sister Anna"
        return "name"
    if bool(_NEG.search(_INTERJECTION.sub("", claim))) != bool(_NEG.search(_INTERJECTION.sub("", fact))):
        return "negation"
    return None


# A conflict counts only between sentences about the same thing: a named detail (number, day,
# name, antonym) at a lower cosine than a bare negation, which flips meaning without changing words.
SAME_TOPIC = 0.4
SAME_CLAIM = 0.55


def _grounded(response_sentences: list[str], support: list[str], embedder) -> tuple[float, dict]:
    claims = [s for s in response_sentences if not s.rstrip().endswith("?") and len(content_words(s)) >= 3]
    if not claims:
        return 1.0, {"claims": 0}
    recalls = [c for c in claims if _RECALL.search(c)]
    facts = [f for f in support if not f.rstrip().endswith("?")]  # a question asserts nothing
    if not support:
        unsupported = len(recalls)
        return _clamp(1 - 0.3 * unsupported), {"claims": len(claims), "unsupported_recalls": unsupported}
    vecs = embedder.embed_cached(claims + support)
    sims = vecs[: len(claims)] @ vecs[len(claims) :].T
    contradictions, unsupported = [], 0
    for i, claim in enumerate(claims):
        found = None
        for j in np.argsort(-sims[i]):
            cosine = float(sims[i, j])
            if cosine < SAME_TOPIC:
                break
            if support[j] not in facts:
                continue
            why = _conflict(claim, support[j])
            if why and (why != "negation" or cosine >= SAME_CLAIM):
                found = {"claim": claim[:160], "memory": support[j][:160], "why": why, "cosine": round(cosine, 3)}
                break
        if found:
            contradictions.append(found)
        elif claim in recalls and float(sims[i].max()) < SAME_TOPIC:
            unsupported += 1
    score = 1 - 0.75 * len(contradictions) - 0.4 * unsupported
    return _clamp(score), {"claims": len(claims), "contradictions": contradictions, "unsupported_recalls": unsupported}


def _style(state: PersonaState, style: Style, asked: str = "") -> tuple[float, dict]:
    """Length against the persona's typical reply (longer when the user asked for depth,
    shorter when they asked for brevity), and formatting habits the persona does not have."""
    expected_words = state.style.words
    if DEPTH_REQUEST.search(asked):
        expected_words *= 4
    elif BRIEF_REQUEST.search(asked):
        expected_words *= 0.7
    ratio = max(style.words, 1) / max(expected_words, 1)
    length = _clamp(1 - (abs(math.log2(ratio)) - 0.8) / 2.2)
    used = {
        "bullets": style.bullets >= 2,
        "headers": style.headers > 0,
        "code": bool(style.code_blocks or style.inline_code),
        "emoji": style.emoji > 0,
    }
    misses = {}
    for name, on in used.items():
        rate = getattr(state.style, name)
        miss = (1 - rate) if on else 0.4 * rate  # an unusual habit shows more than a usual one skipped
        if name == "code":
            miss *= 0.5  # code is what a technical question calls for, whatever the habit
        elif name == "emoji":
            miss *= 0.6  # a forbidden emoji is the constraint dimension's to punish; here it is only style
        if miss >= 0.3:
            misses[name] = round(miss, 3)
    if style.bullets >= 6:  # a long list is a document, not a chat reply
        misses["long list"] = 0.3
    excess = max(0.0, style.per_sentence(style.exclamations) - state.style.exclamations - 0.3)
    shouting = min(0.5, 2 * style.per_word(style.shouting) * 3)
    formatting = _clamp(1 - sum(misses.values()) - min(0.6, excess) - shouting)
    return _clamp(0.5 * length + 0.5 * formatting), {
        "words": style.words,
        "expected_words": round(expected_words),
        "formatting_misses": misses,
    }


_PROHIBITION = re.compile(r"^\s*(?:never|don'?t|do not|avoid|no)\s+", re.IGNORECASE)


def judge_rules(
    unchecked: list[str], response_sentences: list[str], embedder, threshold: float = 0.55
) -> list[RuleCheck]:
    """The local judge of rules no rule check covers: a prohibition ("Never discuss politics")
    is broken when a sentence of the reply is about what it forbids (cosine >= threshold)."""
    out = []
    prohibitions = [(r, _PROHIBITION.sub("", r)) for r in unchecked if _PROHIBITION.match(r)]
    for rule in unchecked:
        if not _PROHIBITION.match(rule):
            out.append(RuleCheck(rule, False, None, "no local judgement for a rule that is not a prohibition"))
    if prohibitions and response_sentences and embedder is not None:
        vecs = embedder.embed_cached([obj for _, obj in prohibitions] + response_sentences)
        sims = vecs[: len(prohibitions)] @ vecs[len(prohibitions) :].T
        for k, (rule, _) in enumerate(prohibitions):
            j = int(np.argmax(sims[k]))
            hit = float(sims[k, j]) >= threshold
            out.append(
                RuleCheck(
                    rule, False, not hit, f"judged: {response_sentences[j][:100]!r} (cosine {float(sims[k, j]):.2f})"
                )
            )
    return out


def constraint_score(checks: list[RuleCheck]) -> float:
    """Near-binary: a broken checkable rule gives 0; a judged (uncertain) breach 0.3."""
    if any(c.checkable and c.ok is False for c in checks):
        return 0.0
    if any(not c.checkable and c.ok is False for c in checks):
        return 0.3
    return 1.0


# The local judge reads at most this much of a reply (~1,500 words): sentence splitting and
# embedding are linear in its length, and a 100k-character reply would hold the worker ~20 s.
# Its length in words is still counted over the whole reply.
MAX_JUDGED_CHARS = 8000


def score_locally(state: PersonaState, response: str, *, turns: list[dict], memories: list[str], embedder) -> Judged:
    style = measure(response[:MAX_JUDGED_CHARS])
    if len(response) > MAX_JUDGED_CHARS:
        style.words = count_words(response)
    voice, voice_notes = _voice(state, style, response, embedder)
    relational, rel_notes = _relational(state, style)
    support = [m for m in memories if m.strip()] + [t["content"] for t in turns if t["role"] == "user"][-3:]
    grounded, ground_notes = _grounded(style.sentence_texts, support, embedder)
    asked = next((t["content"] for t in reversed(turns) if t["role"] == "user"), "")
    style_score, style_notes = _style(state, style, asked)
    checks = check_all(state.rules(), response)
    checks = [c for c in checks if c.checkable] + judge_rules(
        [c.rule for c in checks if not c.checkable], style.sentence_texts, embedder
    )
    dims = Dimensions(
        voice=round(voice, 4),
        relational=round(relational, 4),
        grounded=round(grounded, 4),
        style=round(style_score, 4),
        constraint=constraint_score(checks),
    )
    notes = {
        "voice": voice_notes,
        "relational": rel_notes,
        "grounded": ground_notes,
        "style": style_notes,
        "rules": [c.as_dict() for c in checks],
    }
    if len(response) > MAX_JUDGED_CHARS:
        notes["judged_chars"] = MAX_JUDGED_CHARS
    return Judged(dims, notes)
