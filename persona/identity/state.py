"""PersonaState (seed 002, 5.2): the agent's voice as numbers and weighted lists, and its
deterministic merge rules.

    traits             0..1 per trait scale (six built-in, more from IDENTITY.md), EWMA-updated
    voice_markers      weighted, top-K   e.g. "collaborative ('let's', 'we')"
    relational_stance  weighted, top-K   e.g. "peer-to-peer collaborator"
    formatting_prefs   weighted, top-K   e.g. "code snippets"
    hard_rules         never learned: from the workspace files or confirmed by the user
    style              the measured reply shape (words, bullets, emoji ...) the style score compares with

Merge rule (``merge_record``), exactly as 5.2:
* a trait moves by EWMA: ``t_new = alpha * t_observed + (1 - alpha) * t_old`` (alpha 0.3);
* categorical weights decay (``* marker_decay``), the record's observations add weight, and
  only the top K of each list are kept;
* hard rules are not touched (they change only through a confirmed proposal);
* the record's 1-3 evidence snippets are kept with the new version, for auditing.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from agentmemd.persona.identity.traits import BUILTIN_SCALES, TraitScale

Snippet = str
# What stylometry reads from text with no cue either way (persona/stylometry.estimate_traits):
# an undeclared, unlearned trait starts there, so plain replies do not count as drift.
NEUTRAL_TRAITS = {
    "directness": 0.6,
    "formality": 0.5,
    "verbosity": 0.5,
    "humor": 0.15,
    "warmth": 0.45,
    "technical_depth": 0.1,
}


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Weighted(_Model):
    text: str = Field(min_length=1, max_length=200)
    weight: float = Field(ge=0)


class HardRule(_Model):
    rule: str = Field(min_length=1, max_length=300)
    source: Literal["workspace", "confirmed"]
    added_at: str


class Evidence(_Model):
    snippet: Snippet = Field(max_length=400)
    source: str = Field(max_length=300, description="where it was seen, e.g. conversation:s1#turn:12 or SOUL.md L4")


class StyleProfile(_Model):
    """The reply shape the persona has: EWMA of measured replies, seeded from the traits."""

    words: float = Field(60.0, gt=0, description="typical reply length in words")
    bullets: float = Field(0.1, ge=0, le=1, description="share of replies with bullet lists")
    headers: float = Field(0.02, ge=0, le=1)
    code: float = Field(0.05, ge=0, le=1)
    emoji: float = Field(0.05, ge=0, le=1)
    exclamations: float = Field(0.1, ge=0, description="per sentence")
    questions: float = Field(0.15, ge=0, description="per sentence")
    replies: int = Field(0, ge=0, description="how many measured replies shaped this profile")


class PersonaState(_Model):
    namespace: str
    version: int = 0
    name: str | None = Field(None, description="the agent's name, from SOUL.md ('I am Nova')")
    scales: list[TraitScale] = Field(default_factory=lambda: list(BUILTIN_SCALES.values()))
    traits: dict[str, float] = Field(default_factory=lambda: dict(NEUTRAL_TRAITS))
    voice_markers: list[Weighted] = Field(default_factory=list)
    relational_stance: list[Weighted] = Field(default_factory=list)
    formatting_prefs: list[Weighted] = Field(default_factory=list)
    emotional_register: list[Weighted] = Field(default_factory=list)
    hard_rules: list[HardRule] = Field(default_factory=list)
    style: StyleProfile = Field(default_factory=StyleProfile)
    spec: str = Field("", description="the persona items of SOUL.md / IDENTITY.md, as written")
    spec_hash: str = ""
    record: str = Field("", description="the latest Persona Preservation Record, as injected (~200 tokens)")
    evidence: list[Evidence] = Field(default_factory=list, max_length=3)
    reason: str = "initial"
    updated_at: str = ""

    def scale(self, name: str) -> TraitScale | None:
        return next((s for s in self.scales if s.name == name), None)

    def rules(self) -> list[str]:
        return [r.rule for r in self.hard_rules]


class PersonaRecord(_Model):
    """What the persona track of a compaction saw in the agent's own turns (seed 002, 5.2)."""

    traits: dict[str, float] = Field(default_factory=dict, description="0..1 per trait name, as observed")
    voice_markers: list[Weighted] = Field(default_factory=list)
    relational_stance: list[Weighted] = Field(default_factory=list)
    formatting_prefs: list[Weighted] = Field(default_factory=list)
    emotional_register: list[Weighted] = Field(default_factory=list)
    style_shifts: list[str] = Field(default_factory=list, description="topics after which the voice changed, and how")
    style: StyleProfile | None = None
    evidence: list[Evidence] = Field(min_length=1, max_length=3, description="1-3 quotes of the turns, for auditing")
    turns: int = Field(0, ge=0, description="assistant turns it was made from")


def _merge_weighted(old: list[Weighted], new: list[Weighted], decay: float, top_k: int) -> list[Weighted]:
    weights: dict[str, float] = {w.text: w.weight * decay for w in old}
    for w in new:
        weights[w.text] = weights.get(w.text, 0.0) + w.weight
    ranked = sorted(weights.items(), key=lambda kv: (-kv[1], kv[0]))
    return [Weighted(text=t, weight=round(v, 4)) for t, v in ranked[:top_k] if v > 1e-4]


def ewma(new: float, old: float, alpha: float) -> float:
    return alpha * new + (1 - alpha) * old


def merge_record(
    state: PersonaState, record: PersonaRecord, *, alpha: float, decay: float, top_k: int, now: str, reason: str
) -> PersonaState:
    """The next version of ``state`` after a Persona Preservation Record (5.2's merge rule)."""
    traits = dict(state.traits)
    for name, value in record.traits.items():
        if name in traits:  # a record cannot invent a scale; scales come from the person
            traits[name] = round(ewma(max(0.0, min(1.0, value)), traits[name], alpha), 4)
    style = state.style
    if record.style is not None and record.turns:
        # Style follows the same EWMA, weighted up by how many replies the record measured (up to
        # three); the profile the persona files declared is the prior, so one short reply cannot replace it.
        a = 1 - (1 - alpha) ** min(record.turns, 3)
        rs = record.style
        style = StyleProfile(
            words=round(ewma(rs.words, style.words, a), 2),
            bullets=round(ewma(rs.bullets, style.bullets, a), 4),
            headers=round(ewma(rs.headers, style.headers, a), 4),
            code=round(ewma(rs.code, style.code, a), 4),
            emoji=round(ewma(rs.emoji, style.emoji, a), 4),
            exclamations=round(ewma(rs.exclamations, style.exclamations, a), 4),
            questions=round(ewma(rs.questions, style.questions, a), 4),
            replies=style.replies + record.turns,
        )
    return state.model_copy(
        update={
            "version": state.version + 1,
            "traits": traits,
            "voice_markers": _merge_weighted(state.voice_markers, record.voice_markers, decay, top_k),
            "relational_stance": _merge_weighted(state.relational_stance, record.relational_stance, decay, top_k),
            "formatting_prefs": _merge_weighted(state.formatting_prefs, record.formatting_prefs, decay, top_k),
            "emotional_register": _merge_weighted(state.emotional_register, record.emotional_register, decay, top_k),
            "style": style,
            "evidence": record.evidence[:3],
            "reason": reason,
            "updated_at": now,
        }
    )
