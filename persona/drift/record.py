"""The persona track of dual-track compaction (seed 002, 5.2): a Persona Preservation Record
from the agent's own turns, and the record's text as injected into the system prompt.

``local_record`` is the local provider's way: every assistant turn is measured
(persona/stylometry.py) and the record is what the turns show on average — traits, the
voice markers, stances and formatting habits seen in them (weighted by how many turns
show each), the emotional register, the reply shape, and the topics after which the voice
moved away from the batch's norm (the user turn before it, in its content words). The
evidence is up to 3 snippets of the turns that show the strongest markers.

``render_record`` writes a state's record in under ``max_tokens`` (200 by default), most
telling parts first, so it can always sit in the system prompt.
"""

from __future__ import annotations

from collections import Counter

from agentmemd.memory.core.sessions import session_name
from agentmemd.memory.core.text import content_words
from agentmemd.memory.core.tokens import count_tokens
from agentmemd.memory.llm.tasks import TaskSpec
from agentmemd.persona.identity.state import (
    NEUTRAL_TRAITS,
    Evidence,
    PersonaRecord,
    PersonaState,
    StyleProfile,
    Weighted,
)
from agentmemd.persona.identity.traits import adjective, percent
from agentmemd.persona.syncscore.stylometry import (
    emotional_register,
    estimate_traits,
    formatting_prefs,
    measure,
    relational_stances,
    voice_markers,
)


def _weighted(counter: Counter, turns: int) -> list[Weighted]:
    return [Weighted(text=k, weight=round(v / turns, 4)) for k, v in counter.most_common(8) if v > 0]


# A model's record of the same turns (the anthropic provider; persona/tracking/model.py asks it).
PERSONA_RECORD_PROMPT = """You are compacting a conversation segment for a personal AI agent.
This is the persona track: from the AGENT's own turns only, produce a Persona Preservation Record.
Extract and record:
- Voice markers: 3-5 characteristic language patterns observed (voice_markers, weight 0-1 = how strongly)
- Relational stance: how the agent positioned itself relative to the user (peer, advisor, friend, teacher...)
- Stylistic invariants: response structure, length, formatting patterns (formatting_prefs; style: typical
  words per reply, and the share of replies with bullets, headers, code, emoji; exclamations and
  questions per sentence)
- Emotional register: dominant emotional tone and any shifts
- Topics that triggered style changes (style_shifts: "after '<topic>': <how the voice changed>")
- traits: 0-1 for each trait scale named in the request, as the turns show it
- evidence: 1-3 short quotes of the agent's turns that show the markers best (source "turn:<seq>")
Keep the whole record under 200 tokens. Set turns to the number of agent turns you read.
It will be merged into the agent's PersonaState and injected into future sessions."""

PERSONA_RECORD = TaskSpec("persona_record", "compaction", cacheable=True, semantic=False, result=PersonaRecord)


def local_record(turns: list[dict], *, session: str = "") -> PersonaRecord | None:
    """``turns``: the batch's turns in order (dicts with seq, role, content). None without assistant turns."""
    mine = [(i, t) for i, t in enumerate(turns) if t["role"] == "assistant" and t["content"].strip()]
    if not mine:
        return None
    styles = [(i, t, measure(t["content"])) for i, t in mine]
    traits_each = [estimate_traits(s) for _, _, s in styles]
    n = len(styles)
    traits = {k: round(sum(tr[k] for tr in traits_each) / n, 4) for k in traits_each[0]}
    markers, stances, formats, registers = Counter(), Counter(), Counter(), Counter()
    strongest: list[tuple[float, dict]] = []
    for _, t, s in styles:
        vm = voice_markers(s)
        markers.update({k: min(1.0, v * 2) for k, v in vm.items()})
        stances.update(relational_stances(s))
        formats.update(formatting_prefs(s))
        registers[emotional_register(s)] += 1
        strongest.append((sum(vm.values()), t))
    style = StyleProfile(
        words=max(1.0, sum(s.words for *_, s in styles) / n),
        bullets=sum(1 for *_, s in styles if s.bullets >= 2) / n,
        headers=sum(1 for *_, s in styles if s.headers) / n,
        code=sum(1 for *_, s in styles if s.code_blocks or s.inline_code) / n,
        emoji=sum(1 for *_, s in styles if s.emoji) / n,
        exclamations=sum(s.per_sentence(s.exclamations) for *_, s in styles) / n,
        questions=sum(s.per_sentence(s.questions) for *_, s in styles) / n,
        replies=n,
    )
    shifts: list[str] = []
    if n >= 3:
        for (i, _t, _s), tr in zip(styles, traits_each):
            moved = {
                k: tr[k] - traits[k]
                for k in ("warmth", "formality", "humor", "verbosity", "directness")
                if abs(tr[k] - traits[k]) >= 0.2
            }
            if not moved:
                continue
            before = next((turns[j] for j in range(i - 1, -1, -1) if turns[j]["role"] == "user"), None)
            topic = ", ".join(content_words(before["content"])[:3]) if before else "(no user turn)"
            how = ", ".join(f"{'more' if d > 0 else 'less'} {k}" for k, d in sorted(moved.items()))
            shifts.append(f"after '{topic}': {how}")
    strongest.sort(key=lambda x: -x[0])
    evidence = [
        Evidence(snippet=t["content"][:300], source=f"conversation:{session_name(session)}#turn:{t['seq']}")
        for _, t in strongest[:3]
    ]
    return PersonaRecord(
        traits=traits,
        voice_markers=_weighted(markers, n),
        relational_stance=_weighted(stances, n),
        formatting_prefs=_weighted(formats, n),
        emotional_register=_weighted(registers, n),
        style_shifts=shifts[:3],
        style=style,
        evidence=evidence,
        turns=n,
    )


def trait_phrase(state: PersonaState, limit: int = 6) -> str:
    """The most pronounced traits as adjectives: 'warm (85), direct (80), concise (20)'."""

    def distinct(s) -> float:  # how far from plain text with no cue either way
        return abs(state.traits.get(s.name, 0.5) - NEUTRAL_TRAITS.get(s.name, 0.5))

    ranked = [s for s in sorted(state.scales, key=lambda s: -distinct(s)) if distinct(s) >= 0.05] or state.scales
    parts = [
        f"{adjective(s, state.traits.get(s.name, 0.5))} ({percent(state.traits.get(s.name, 0.5))})"
        for s in ranked[:limit]
    ]
    return ", ".join(parts)


def _top(items: list[Weighted], k: int) -> str:
    return "; ".join(w.text for w in items[:k])


def render_record(state: PersonaState, max_tokens: int = 200) -> str:
    """The Persona Preservation Record as injected: most telling parts first, within max_tokens."""
    who = f"You are {state.name}. " if state.name else ""
    lines = [f"{who}Traits: {trait_phrase(state)}."]
    if state.hard_rules:  # right after who you are: a broken rule is the worst drift
        lines.append("Rules: " + " ".join(r.rule.rstrip(".") + "." for r in state.hard_rules))
    if state.voice_markers:
        lines.append(f"Voice: {_top(state.voice_markers, 5)}.")
    if state.relational_stance:
        lines.append(f"Stance: {_top(state.relational_stance, 2)}.")
    style = state.style
    shape = [f"about {round(style.words)} words"]
    shape += [
        f"{name} {'often' if rate >= 0.5 else 'sometimes'}"
        for name, rate in (
            ("bullets", style.bullets),
            ("headers", style.headers),
            ("code", style.code),
            ("emoji", style.emoji),
        )
        if rate >= 0.25
    ]
    prefs = _top(state.formatting_prefs, 4)
    lines.append(f"Style: {', '.join(shape)}{'; ' + prefs if prefs else ''}.")
    if state.emotional_register:
        lines.append(f"Register: {_top(state.emotional_register, 2)}.")
    text = ""
    for line in lines:
        candidate = f"{text}\n{line}" if text else line
        if count_tokens(candidate) > max_tokens:
            break
        text = candidate
    return text
