"""Kinds of act: what a request to act and the identity's rules about it both speak of.

A request names the act ("Book Lucas's dentist for Wednesday at 18:00"), the rule that governs it
names the principle ("wants to keep Wednesday evenings free: the one evening the family eats
together"); they share few words, and MiniLM does not place them near. Both speak of one kind of
act, though: scheduling. Each identity fact is read for the kinds of act its words speak of when
the graph is read (recall.py), a request for the kinds it asks about, and a request to act (an
imperative, an offer, an invitation, a plan: not a question about what is so) lifts the facts of
its kinds in the identity block. The vocabulary is data, acts.toml; no model.

    >>> sorted(acts_in("Book Lucas's dentist check-up for Wednesday at 18:00"))
    ['scheduling']
    >>> sorted(acts_in("wants to keep Wednesday evenings free: the one evening the family eats together"))
    ['food', 'scheduling']
    >>> asks_to_act("Book Lucas's dentist check-up for Wednesday"), asks_to_act("What does Lucas eat?")
    (True, False)
    >>> asks_to_act("Could you send Mira's report to my work email?"), asks_to_act("Gareth invites Callum to a ride.")
    (True, True)
    >>> asks_to_act("Lucas wants the new game on his tablet. Can you just approve the download?")
    True
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

VOCABULARY = tomllib.loads(Path(__file__).with_name("acts.toml").read_text(encoding="utf-8"))
ACTS: dict[str, tuple[str, ...]] = {act: tuple(" " + w for w in words) for act, words in VOCABULARY["acts"].items()}
_ASKING = tuple(" " + w for w in VOCABULARY["asks_to_act"]["openings"])
_VERBS = frozenset(VOCABULARY["asks_to_act"]["verbs"])
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_APART = str.maketrans(dict.fromkeys('\n\t\r"()[]{}<>/.,;:!?*_', " "))


def _spaced(text: str) -> str:
    """Lower case, words apart, a space at both ends: each vocabulary entry is found at a word's start."""
    return " " + " ".join(text.lower().replace("’", "'").translate(_APART).split()) + " "


def acts_in(text: str) -> frozenset[str]:
    """The kinds of act ``text`` speaks of (acts.toml)."""
    spaced = _spaced(text)
    return frozenset(act for act, starts in ACTS.items() if any(s in spaced for s in starts))


def asks_to_act(request: str) -> bool:
    """Is ``request`` a request to act, or a situation that calls for one (an offer, an invitation,
    a plan), rather than a question about what is so?"""
    sentences = [_spaced(part) for part in _SENTENCE_END.split(request) if part.strip()]
    if not sentences:
        return False
    if any(sentence.split()[0] in _VERBS or sentence.startswith(_ASKING) for sentence in sentences):
        return True
    return not request.rstrip().endswith("?")  # a question about what is so, or a situation told
