"""Who said a memory, and whose words a question asks for.

A memory made from a turn knows its speaker: ``said_by`` where the caller gave it, and a content
written the way conversations are stored, "Name: words" or "Name said: words" (an episode, a
LoCoMo-style transcript, "user: ..." / "assistant: ..."). A question names a speaker when it says
one of the speakers' names; it asks for the assistant's own words when it says "you recommended",
"did you mention", "your advice" and the like (English cues: elsewhere nobody is preferred).

    >>> speaker_in("Caroline: I went to the support group yesterday.")
    'Caroline'
    >>> speaker_in("Ana said: we moved to Leeds")
    'Ana'
    >>> speaker_in("Note: the wifi password is on the fridge") is None
    True
    >>> asks_for_the_assistant("Can you remind me of the restaurant you recommended?")
    True
    >>> asks_for_the_assistant("What breed did I tell you our puppy is?")
    False
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from agentmemd.memory.core.text import words

# "Name: " or "Name said: " at the start: one to three words, each capitalised, or a role word.
_PREFIX = re.compile(r"^\s*([^\W\d_][\w'’.-]{0,30}(?: [^\W\d_][\w'’.-]{0,30}){0,2}?)(?: said)?:\s")
ASSISTANT_SPEAKERS = frozenset("assistant system ai bot agent model".split())
USER_SPEAKERS = frozenset({"user", "human", "me", "the user", "owner"})
ROLE_SPEAKERS = ASSISTANT_SPEAKERS | USER_SPEAKERS
# A capitalised word before a colon that labels a line rather than naming who said it.
LABELS = frozenset(
    """note notes update reminder todo to-do summary question answer q a title subject re fwd warning error
    tip fact rule goal step example source date time location address email phone name ps nb edit important
    idea correction fyi news context""".split()
)

# How SOUL.md or IDENTITY.md (and USER.md, of the user) name someone: "I am Nova, ...", "my name is
# Nova", "Name: Nova", and in German, Spanish, French, Italian and Portuguese the forms that only
# name ("Nombre: Laia", "je m'appelle Léa", "ich heiße Jonas"; not "ich bin", "soy", "je suis",
# whose capitalised word may be a noun: "Ich bin Lehrerin"); a title before the name is not it
# ("Name: Dr. Astrid Holm" is Astrid).
_TITLE = r"(?:(?:Dr|Mr|Mrs|Ms|Mx|Prof|Professor|Sir|Dame|Rev|Capt|Captain|Dra|Sra|Sr|Mme|Herr|Frau)\.?\s+)?"
_NAMING = (
    r"I am|I'm|my name is|name:|you are|call me|nombre:|me llamo|mi nombre es|nom ?:|je m'appelle|"
    r"mon nom est|name ist|mein name ist|ich hei(?:ß|ss)e|nome:|mi chiamo|il mio nome è|me chamo|meu nome é"
)
SELF_NAMING = re.compile(rf"\b(?i:{_NAMING})\s+{_TITLE}([A-ZÀ-ÖØ-Þ][\w'-]{{1,40}})\b")


def agent_name(lines: Iterable[str]) -> str | None:
    """The name the first naming line gives ("I am Nova, ..." -> "Nova").

    >>> agent_name(["Voice: warm", "I am Ines, harbour master of Port Skerra"])
    'Ines'
    >>> agent_name(["Name: Dr. Astrid Holm, 46, sea-ice modeller"])
    'Astrid'
    >>> agent_name(["Nombre: Laia Puig", "vive en [[Girona]]"])
    'Laia'
    >>> agent_name(["Ich bin Lehrerin", "Je m'appelle Élodie"])
    'Élodie'
    """
    for text in lines:
        if m := SELF_NAMING.search(text):
            return m.group(1)
    return None


# The question asks what the assistant itself said: "you recommended", "did you mention", "your advice".
_ASKS_ASSISTANT = re.compile(
    r"\byou(?:'d| had)? (?:recommended|suggested|said|mentioned|told me|gave me|listed|provided|shared|named|"
    r"described|proposed|explained|wrote|came up with)\b|"
    r"\b(?:did|have) you (?:recommend|suggest|say|mention|tell me|give me|list|provide|share|name|describe|"
    r"propose|explain|write|come up with)\b|"
    r"\byour (?:recommendations?|suggestions?|advice|answer|reply|response|list|explanation|tips?)\b",
    re.IGNORECASE,
)


def split_speaker(content: str) -> tuple[str | None, str]:
    """(the speaker a content names at its start, "Ana: ..." or "Ana said: ...", or None; what
    they said: the content after the name, or all of it)."""
    m = _PREFIX.match(content)
    if not m:
        return None, content
    name = m.group(1)
    if name.lower() not in ROLE_SPEAKERS and (
        name.lower() in LABELS or not all(part[0].isupper() for part in name.split())
    ):
        return None, content
    return name, content[m.end() :]


def speaker_in(content: str) -> str | None:
    """The speaker a content names at its start ("Ana: ...", "Ana said: ..."), or None."""
    return split_speaker(content)[0]


def speakers_of(content: str, said_by: str | None) -> frozenset[str]:
    """Every name a memory's speaker goes by, lower-cased: its ``said_by`` and the name its content
    starts with (empty when neither says)."""
    names = {n.lower() for n in (said_by, speaker_in(content)) if n}
    return frozenset(names)


def said_by_assistant(names: frozenset[str]) -> bool:
    """Is this the assistant's own turn (by its role's name)?"""
    return bool(names & ASSISTANT_SPEAKERS)


# "my card", "mi tarjeta", "meine Karte", "ma carte", "il mio conto", "mijn pas": the asker's own.
_ASKERS_OWN = frozenset(
    "my mine mi mis mío mía mein meine meinen meinem meiner meines mon ma mes meu minha meus minhas mijn mio mia miei mie".split()
)


def asks_about_own(query: str) -> bool:
    """Does the question ask about something of the asker's own ("what's my IBAN?")?"""
    return not _ASKERS_OWN.isdisjoint(words(query))


def asks_for_the_assistant(query: str) -> bool:
    """Does the question ask what the assistant said?"""
    return bool(_ASKS_ASSISTANT.search(query))


def speakers_named(query: str, known: set[str]) -> set[str]:
    """Which of the ``known`` speaker names (lower-cased) the question says: the whole name or its
    first word ("Caroline" names "caroline smith"); role names are not people.

    >>> sorted(speakers_named("What did Caroline research?", {"caroline smith", "melanie", "user"}))
    ['caroline smith']
    >>> sorted(speakers_named("What's Marco's IBAN?", {"marco", "user"}))
    ['marco']
    """
    said = [w.removesuffix("'s") for w in words(query)]  # "Marco's IBAN" names Marco
    text = f" {' '.join(said)} "
    return {name for name in known - ROLE_SPEAKERS if f" {name} " in text or name.split()[0] in said}
