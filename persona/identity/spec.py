"""The persona as people write it: SOUL.md and IDENTITY.md items -> a PersonaSpec -> PersonaState.

What a line may say (any of them, in any bullet of either file):

    - I am Nova, a personal assistant who is warm, direct and honest.   name, trait adjectives
    - Voice: plain, friendly, no corporate filler.                       voice markers
    - Stance: peer-to-peer collaborator.                                 relational stance
    - Style: short paragraphs, code snippets when technical.             formatting preferences
    - Never use emoji.                                                   a hard rule (Never/Always/Do not/Only/Rule:)
    - Trait: warmth 80                                                   a built-in trait, 0-100
    - Trait: passive / assertive 70                                      a trait scale of your own (seed 004)

Adjectives ("warm", "direct", "concise", "formal", "playful", "technical" ...) set the
built-in traits. A person's file is the one place hard rules come from besides an explicit
confirmation (persona.rules.confirm): the person wrote them, so they count as confirmed.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field

from agentmemd.memory.language.speakers import SELF_NAMING
from agentmemd.persona.identity.state import (
    NEUTRAL_TRAITS,
    Evidence,
    HardRule,
    PersonaState,
    StyleProfile,
    Weighted,
    _merge_weighted,
)
from agentmemd.persona.identity.traits import BUILTIN_SCALES, TraitScale, scale_name, words_for_verbosity

PERSONA_FILES = ("SOUL.md", "IDENTITY.md")

_TRAIT_LINE = re.compile(r"^\s*traits?\s*:\s*(?P<scale>.+?)\s+(?P<score>\d{1,3})\s*%?\s*\.?\s*$", re.IGNORECASE)
_PREFIXED = re.compile(
    r"^\s*(?P<key>voice|tone|stance|relationship|role|style|format(?:ting)?|rule)\s*:\s*(?P<rest>.+)$", re.IGNORECASE
)
_RULE = re.compile(r"^\s*(?:never|always|do not|don't|must|only|avoid|no)\b", re.IGNORECASE)
_SPLIT = re.compile(r"\s*(?:,|;|\band\b)\s*")
_TRAIT_ALIASES = {
    "humour": "humor",
    "technical depth": "technical_depth",
    "technicaldepth": "technical_depth",
    "technical": "technical_depth",
    "tech": "technical_depth",
}

# adjective -> (trait, value): how people describe a voice.
ADJECTIVES: dict[str, tuple[str, float]] = {
    **{
        w: ("warmth", 0.75)
        for w in (
            "warm",
            "caring",
            "kind",
            "friendly",
            "empathetic",
            "gentle",
            "supportive",
            "affectionate",
            "compassionate",
        )
    },
    **{w: ("warmth", 0.25) for w in ("cold", "reserved", "aloof", "detached", "distant", "stern")},
    **{
        w: ("directness", 0.78)
        for w in ("direct", "blunt", "straightforward", "frank", "candid", "decisive", "assertive", "honest")
    },
    **{w: ("directness", 0.35) for w in ("diplomatic", "tactful", "indirect", "tentative", "cautious")},
    **{w: ("formality", 0.75) for w in ("formal", "professional", "polite", "courteous", "proper")},
    **{w: ("formality", 0.35) for w in ("casual", "informal", "relaxed", "laid-back", "chatty", "plain")},
    **{w: ("verbosity", 0.2) for w in ("concise", "brief", "short", "terse", "succinct", "crisp", "compact")},
    **{w: ("verbosity", 0.75) for w in ("detailed", "thorough", "expansive", "elaborate", "in-depth", "verbose")},
    **{w: ("humor", 0.6) for w in ("funny", "witty", "playful", "humorous", "cheeky", "silly", "jokey")},
    **{w: ("humor", 0.1) for w in ("serious", "sober", "solemn", "earnest")},
    **{w: ("technical_depth", 0.6) for w in ("technical", "precise", "rigorous", "nerdy", "engineer")},
    **{w: ("technical_depth", 0.1) for w in ("non-technical", "jargon-free", "simple", "layperson")},
}
_ADJ = re.compile(
    r"(?<![\w-])(" + "|".join(sorted(map(re.escape, ADJECTIVES), key=len, reverse=True)) + r")(?![\w-])", re.IGNORECASE
)
_NEGATED = re.compile(r"\b(?:not|never|no|without|avoid)\s+(?:\w+\s+){0,2}$", re.IGNORECASE)


@dataclass
class SpecLine:
    text: str
    source: str  # file and line, e.g. "IDENTITY.md L4"
    from_file: bool  # a SOUL.md / IDENTITY.md item (not a persona memory added over the socket)


@dataclass
class PersonaSpec:
    name: str | None = None
    traits: dict[str, list[float]] = field(default_factory=dict)
    scales: list[TraitScale] = field(default_factory=list)
    voice_markers: list[str] = field(default_factory=list)
    relational_stance: list[str] = field(default_factory=list)
    formatting_prefs: list[str] = field(default_factory=list)
    rules: list[str] = field(default_factory=list)
    lines: list[SpecLine] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "\n".join(f"- {' '.join(line.text.split())}" for line in self.lines)

    @property
    def hash(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()[:16]


def _items(rest: str) -> list[str]:
    return [p.strip(" .") for p in _SPLIT.split(rest.strip()) if p.strip(" .")]


def _trait(name: str) -> str | None:
    key = name.strip().lower().replace("-", " ")
    key = _TRAIT_ALIASES.get(key, key.replace(" ", "_"))
    return key if key in BUILTIN_SCALES else None


def _adjective_traits(text: str) -> list[tuple[str, float]]:
    """The traits the line's adjectives say ("warm, direct and honest"), but a negated one ("not formal")."""
    return [
        ADJECTIVES[m.group(1).lower()]
        for m in _ADJ.finditer(text)
        if not _NEGATED.search(text[: m.start()][-30:])  # "no corporate filler", "not formal"
    ]


def parse_spec(lines: list[SpecLine]) -> PersonaSpec:
    spec = PersonaSpec(lines=lines)
    worded: dict[str, list[float]] = {}  # what the adjectives say of a trait ("warm"), where no Trait: line does
    for line in lines:
        text = " ".join(line.text.split())
        if spec.name is None and (m := SELF_NAMING.search(text)):  # as agent_name() reads it
            spec.name = m.group(1)
        if m := _TRAIT_LINE.match(text):
            score = min(100, int(m.group("score"))) / 100
            raw = m.group("scale")
            if "/" in raw or " - " in raw or "—" in raw:
                low, high = [p.strip() for p in re.split(r"/| - |—", raw, maxsplit=1)]
                scale = TraitScale(name=scale_name(low, high), low=low.lower()[:40], high=high.lower()[:40])
                if all(s.name != scale.name for s in spec.scales):
                    spec.scales.append(scale)
                spec.traits.setdefault(scale.name, []).append(score)
            elif name := _trait(raw):
                spec.traits.setdefault(name, []).append(score)
            continue
        if m := _PREFIXED.match(text):
            key, rest = m.group("key").lower(), m.group("rest")
            if key in ("voice", "tone"):
                spec.voice_markers += _items(rest)
            elif key in ("stance", "relationship", "role"):
                spec.relational_stance += _items(rest)
            elif key.startswith("format") or key == "style":
                spec.formatting_prefs += _items(rest)
            elif key == "rule" and line.from_file:
                spec.rules.append(rest.strip())
                continue
        elif _RULE.match(text) and line.from_file:
            spec.rules.append(text)
        for trait, value in _adjective_traits(text):
            worded.setdefault(trait, []).append(value)
    # "Trait: warmth 30" is the score, not one voice among the adjectives' ("warm" made it 60).
    spec.traits = {**worded, **spec.traits}
    return spec


def apply_spec(state: PersonaState, spec: PersonaSpec, *, now: str, top_k: int) -> PersonaState:
    """The next version after the person's files changed: their word replaces learned values."""
    scales = [*BUILTIN_SCALES.values(), *spec.scales]
    traits = {s.name: state.traits.get(s.name, NEUTRAL_TRAITS.get(s.name, 0.5)) for s in scales}
    for name, values in spec.traits.items():
        if name in traits:
            traits[name] = round(sum(values) / len(values), 4)
    kept = [r for r in state.hard_rules if r.source == "confirmed" and r.rule not in spec.rules]
    rules = [HardRule(rule=r, source="workspace", added_at=now) for r in dict.fromkeys(spec.rules)] + kept

    # What the files said before this edit: an item the person took out of them goes (it stayed in
    # the prompt, "Stance: a trusted helper; not a servant", after "not a servant" was deleted).
    before = parse_spec(
        [SpecLine(line[2:], "", True) for line in (state.spec or "").splitlines() if line.startswith("- ")]
    )

    def declared(old: list[Weighted], texts: list[str], said_before: list[str]) -> list[Weighted]:
        """What the person wrote weighs at least 1.0 (a learned item's full weight); learned ones
        stay, and what the person wrote before and took out goes."""
        now = {t[:200] for t in texts}
        withdrawn = {t[:200] for t in said_before} - now
        weights = {w.text: w.weight for w in old if w.text not in withdrawn}
        for text in dict.fromkeys(t[:200] for t in texts):
            weights[text] = max(weights.get(text, 0.0), 1.0)
        return _merge_weighted([Weighted(text=k, weight=v) for k, v in weights.items()], [], 1.0, top_k)

    style = state.style
    if not style.replies:  # nothing measured yet: the declared verbosity, style lines and rules shape it
        forbids = " ".join(spec.rules).lower()
        declared_style = " ".join(spec.formatting_prefs).lower()

        def rate(words: tuple[str, ...], forbidden: tuple[str, ...], usual: float, default: float) -> float:
            if any(w in forbids for w in forbidden):
                return 0.0
            return usual if any(w in declared_style for w in words) else default

        style = StyleProfile(
            words=round(words_for_verbosity(traits["verbosity"]), 1),
            emoji=rate(("emoji",), ("emoji",), 0.6, style.emoji),
            bullets=rate(("bullet", "list"), ("bullet",), 0.6, style.bullets),
            headers=rate(("header", "heading"), ("header", "markdown"), 0.5, style.headers),
            code=rate(("code",), ("code",), 0.6, style.code),
        )
    return state.model_copy(
        update={
            "version": state.version + 1,
            "name": spec.name or state.name,
            "scales": scales,
            "traits": traits,
            "voice_markers": declared(state.voice_markers, spec.voice_markers, before.voice_markers),
            "relational_stance": declared(state.relational_stance, spec.relational_stance, before.relational_stance),
            "formatting_prefs": declared(state.formatting_prefs, spec.formatting_prefs, before.formatting_prefs),
            "hard_rules": rules,
            "style": style,
            "spec": spec.text,
            "spec_hash": spec.hash,
            "evidence": [Evidence(snippet=line.text[:400], source=line.source[:300]) for line in spec.lines[:3]],
            "reason": (
                "the persona items changed (SOUL.md, IDENTITY.md or persona memories)"
                if state.version
                else "initialised from the persona items"
            ),
            "updated_at": now,
        }
    )
