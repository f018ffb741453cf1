"""Standing constraints: what a person cannot or will not have, relevant to any advice.

"Gluten makes me ill" shares no word with "which bakery should we order the birthday cake from?"
and MiniLM puts them nowhere near each other (cosine 0.04; a word-level "gluten" to "cake" is no
closer than "cake" to "knee"), so no similarity finds it. What makes it relevant is what it is: a
standing constraint (an allergy, an intolerance, a diet, a fear, a condition, something that makes
the person ill or that they will not do), and what the query is: a request for advice or a plan
(query_kind "planning"). For such a query the namespace's constraints are candidates whatever they
say, ranked among themselves by their own match.

The vocabulary is data, constraints.toml (diets and allergies, fears and phobias, medical
conditions, "I don't fly" habits, ethical and religious limits); the grammar around it is here:
who says it ("I", "we") and how ("I'm terrified of", "I have a bad back", "I never fly", "it makes
me sick"). Each entry in its frame is also an FTS5 phrase that finds candidates; the pattern
confirms them. English only, like the local Observer's cues. On LongMemEval's 30,000 turns about
one user turn in 600 states one, so the lift crowds little else out.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

VOCABULARY = tomllib.loads((Path(__file__).with_name("constraints.toml")).read_text(encoding="utf-8"))

_NEGATIONS = ("can't", "cannot", "can not", "don't", "do not", "never", "won't", "will not", "no longer", "refuse to")
_MAKES, _GIVES = ("makes me", "made me"), ("gives me", "gave me")


def _states() -> list[str]:
    return [term for terms in VOCABULARY["states"].values() for term in terms]


def _phrases() -> tuple[str, ...]:
    """The FTS5 phrases (Porter-stemmed like the index) that find a constraint's memory; the
    pattern then decides. Each is an entry of the vocabulary in its frame, so the search reads the
    postings of specific phrases only ("never fly", not "fly")."""
    limits = [
        f"{neg} {verb}" for verb in VOCABULARY["limits"]["verbs"] for neg in ("can't", "cannot", "don't", "never")
    ]
    effects = [f"{frame} {word}" for frame in _MAKES for word in VOCABULARY["effects"]["makes_me"]]
    effects += [f"{frame} {word}" for frame in _GIVES for word in VOCABULARY["effects"]["gives_me"]]
    found = [*_states(), *VOCABULARY["conditions"]["words"], *limits, *VOCABULARY["avoidance"]["verbs"], *effects]
    found += VOCABULARY["phrases"]["words"]
    return tuple(dict.fromkeys(found))


def _any(terms: list[str] | tuple[str, ...]) -> str:
    """A regex alternation of ``terms``, longest first, each space matching any run of spaces."""
    return "|".join(re.escape(t).replace(r"\ ", r"\s+") for t in sorted(set(terms), key=len, reverse=True))


def _pattern() -> re.Pattern[str]:
    """In the first person: what the person says of themselves. An assistant's "I don't have
    personal preferences" or its recipe "for a gluten-free crust" is no constraint (measured on
    LongMemEval: an earlier pattern without the person lifted assistant turns into preference
    questions' top 10)."""
    degree = r"(?:(?:severely|very|really|strictly|fully|quite|extremely|deathly|badly|so|a\s+bit|kind\s+of)\s+)*"
    having = r"(?:\s+have(?:\s+got)?|'ve(?:\s+got)?|\s+got|\s+suffer\s+from|\s+live\s+with)"
    return re.compile(
        rf"\b(?:(?:i'm|i\s+am|we're|we\s+are)\s+{degree}(?:{_any(_states())})"
        rf"|(?:i|we){having}\s+(?:a\s+|an\s+)?(?:\w+\s+)?(?:{_any(VOCABULARY['conditions']['words'])})"
        rf"|my\s+(?:\w+\s+)?(?:{_any(VOCABULARY['conditions']['words'])})"
        rf"|(?:i|we)\s+(?:{_any(_NEGATIONS)})\s+(?:{_any(VOCABULARY['limits']['verbs'])})"
        rf"|(?:i|we)\s+(?:try\s+to\s+|always\s+|strictly\s+)?(?:{_any(VOCABULARY['avoidance']['verbs'])})"
        rf"|(?:makes?|made)\s+me\s+(?:feel\s+)?(?:{_any(VOCABULARY['effects']['makes_me'])})"
        rf"|(?:gives?|gave)\s+me\s+(?:{_any(VOCABULARY['effects']['gives_me'])})"
        rf"|(?:{_any(VOCABULARY['phrases']['words'])}))\b",
        re.IGNORECASE,
    )


CONSTRAINT_PHRASES: tuple[str, ...] = _phrases()
_CONSTRAINT = _pattern()


def states_constraint(text: str) -> bool:
    """Does ``text`` state a standing constraint: an allergy, an intolerance, a diet, something
    that makes its speaker ill or that they cannot have?

    >>> states_constraint("Gluten makes me ill, sadly.")
    True
    >>> states_constraint("I'm lactose intolerant")
    True
    >>> states_constraint("I had a great cake at the bakery")
    False
    >>> states_constraint("As an AI, I don't have preferences; try a gluten-free crust.")
    False
    """
    return bool(_CONSTRAINT.search(text))
