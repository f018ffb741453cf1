"""Persona reminders and anchors (seed 002, 5.3 drift actions and 5.4 mid-context re-injection).

* ``reminder``: the "reinforce" action, a short persona reminder placed with the newest
  user turn (the end of the context, where attention is high). It never touches the
  stable prefix, so the provider's prompt cache keeps hitting.
* ``anchor_positions`` is 5.4's ``computeAnchorPositions``: none under 10 turns, else
  every ``floor(n / 3)`` turns (~33 % and ~66 %).
* ``anchor``: the 50-100 token anchor message of 5.4 (name, voice, stance, style, rules).
"""

from __future__ import annotations

from agentmemd.memory.core.tokens import count_tokens
from agentmemd.memory.safety.neutraliser import as_data
from agentmemd.persona.drift.record import trait_phrase
from agentmemd.persona.identity.state import PersonaState

ANCHOR_MIN_TURNS = 10
ANCHOR_MAX_TOKENS = 100
ANCHOR_MIN_TOKENS = 50


def anchor_positions(total_turns: int, min_turns: int = ANCHOR_MIN_TURNS) -> list[int]:
    """Indexes into the turn list before which an anchor goes: [n//3, 2*(n//3)] for n >= 10."""
    if total_turns < min_turns:
        return []
    interval = total_turns // 3
    return list(range(interval, total_turns, interval))[:2]


def _fit(parts: list[str], limit: int) -> str:
    text = ""
    for part in parts:
        candidate = f"{text} {part}".strip()
        if count_tokens(candidate) > limit:
            break
        text = candidate
    return text


def anchor(state: PersonaState, *, context_note: str = "") -> str:
    """A compact reminder of who the agent is, 50-100 tokens (5.4's persona anchor)."""
    # The persona's words come from persona memories and replies: data, never instructions.
    who = f"You are {as_data(state.name).text}." if state.name else "Stay in persona."
    parts = [f"[Persona anchor: {who}", f"Voice: {trait_phrase(state, 4)}."]
    if state.voice_markers:
        parts.append("Markers: " + "; ".join(as_data(w.text).text for w in state.voice_markers[:3]) + ".")
    if state.relational_stance:
        parts.append(f"Stance: {as_data(state.relational_stance[0].text).text}.")
    parts.append(f"Style: about {round(state.style.words)} words per reply.")
    for rule in state.hard_rules:
        parts.append(f"Rule: {as_data(rule.rule).text.rstrip('.')}.")
    if context_note:
        parts.append(f"Now: {as_data(context_note).text}.")
    text = _fit(parts, ANCHOR_MAX_TOKENS - 1) + "]"
    if count_tokens(text) < ANCHOR_MIN_TOKENS:  # a sparse persona: repeat its traits in full to reach 50
        text = (
            text[:-1]
            + " "
            + _fit(
                [
                    f"Keep these traits: {trait_phrase(state, 6)}.",
                    "Answer in this same voice for the rest of the conversation.",
                ],
                ANCHOR_MAX_TOKENS - count_tokens(text),
            )
            + "]"
        )
    return text


def reminder(state: PersonaState) -> str:
    """The 'reinforce' action's persona reminder, placed with the newest user turn."""
    rules = " ".join(f"{as_data(r.rule).text.rstrip('.')}." for r in state.hard_rules)
    who = f"you are {as_data(state.name).text}: " if state.name else ""
    return (
        f"<persona-reminder>Your last replies drifted from your voice; {who}{trait_phrase(state, 4)}."
        f"{' ' + rules if rules else ''}</persona-reminder>"
    )
