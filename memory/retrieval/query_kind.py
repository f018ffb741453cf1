"""What kind of question a query is, which decides the consolidation tree's levels it searches
(seed 002, 5.5): a specific fact wants the leaves (the memories themselves), a thematic
question the patterns and principles above them (levels 1-2), a planning or "what is X like"
question the strategic insights (level 3) with the leaves that support them.

Cue phrases, not a model: no language model runs at query time. The kinds are English only, like
the local Observer's cues; a query in another language is taken for a specific fact (leaves only),
which is what search did before the tree was a retrieval structure. A list question is known in
German, Spanish, French, Italian, Portuguese and Dutch too (how many, all the, both…).
"""

from __future__ import annotations

import re
from typing import Literal

QueryKind = Literal["fact", "thematic", "planning"]

# Levels of the consolidation tree each kind searches (0 = leaves).
LEVELS: dict[str, frozenset[int]] = {
    "fact": frozenset({0}),
    "thematic": frozenset({0, 1, 2}),
    "planning": frozenset({0, 3}),
}

# Asking for a recommendation, a plan or a judgement of what someone is like, not about a plan
# someone made ("When is Melanie planning on going camping?" is a fact).
_PLANNING = re.compile(
    r"^(?:would|might|could) |\b(?:should (?:i|we)|recommend (?:me|us|for)|suggest (?:to me|to us|for|some|a|an)|"
    r"any (?:ideas|suggestions|tips)|ideas for|help me|what (?:is|are) \w+(?: \w+)? like|would \w+(?: \w+)? "
    r"(?:likely|probably|be|enjoy|like|want|prefer|still|pursue|consider)|likely|might|what would)\b",
    re.IGNORECASE,
)
# Asking across many memories: kinds of things, habits, interests, what someone has done.
_THEMATIC = re.compile(
    r"\b(?:what (?:kinds?|sorts?|types?) of (?:\w+ )?(?:things|activities|hobbies|books|music|food|places|events|art|"
    r"games|sports|pets)|what activities|in general|usually|tends? to|themes?|topics|interests?|hobbies|habits?|"
    r"(?:which|what) \w+ (?:has|have) \w+ (?:done|been to|tried|visited|made|read|painted|played)|"
    r"how (?:has|have) \w+ (?:changed|grown))\b",
    re.IGNORECASE,
)


def query_kind(query: str) -> QueryKind:
    """The kind of question ``query`` is, from its wording.

    >>> query_kind("When did Caroline go to the support group?")
    'fact'
    >>> query_kind("When is Melanie planning on going camping?")
    'fact'
    >>> query_kind("What kinds of activities does Melanie enjoy?")
    'thematic'
    >>> query_kind("Would Melanie likely enjoy a concert for her birthday?")
    'planning'
    """
    if _PLANNING.search(query):
        return "planning"
    if _THEMATIC.search(query):
        return "thematic"
    return "fact"


# Asking for several things that may lie in different conversations: "which cities have I been to",
# "what books has Melanie read", "all the ...", "so far", "how many", "do both ...", "what are
# Nate's favourite desserts", "what kinds of classes", "what has John cooked". A plural after
# which/what is known by its final s, not -us, -ss, -is ("which US state" is one thing).
_PLURAL = r"\w*[^\Wusi]s"
# "what did the kids do": the plural is who did it, not what is asked for.
_AUXILIARY = r"(?:did|do|does|is|are|was|were|has|have|had|will|would|can|could)"
_LIST = re.compile(
    r"\b(?:list|all (?:the|of|my|our)|every|each of|so far|how many|how often|both|"
    r"(?:which|what) (?:(?!{aux}\b)\S+[ /]){{0,2}}{plural} (?:have|has|had|did|do|does|are|were)|"
    r"what (?:are|were) (?:all )?(?:the |my |our |his |her |their |\w+'s )?(?:\w+ )?{plural}|"
    r"(?:kinds?|types?|sorts?) of {plural}|"
    r"what (?:has|have) \w+(?: \w+)? \w+ed|"
    # which of several, or comparing two: each one's part is its own
    r"which of (?:the|them|us|you)|who (?:\S+ ){{1,6}}\w+, \w+ or \w+\b|who did what)".format(
        plural=_PLURAL, aux=_AUXILIARY
    ),
    re.IGNORECASE,
)


# The same in the other languages people ask in: how many, how often, all the, both, and the
# interrogatives that are plural by their form (cuáles, quels, quais, quali).
_LIST_ELSEWHERE = re.compile(
    r"(?<!\w)(?:wie viele|wie oft|alle (?:die|unsere|meine|seine|ihre)|beide|was alles|"
    r"cu[aá]ntos|cu[aá]ntas|cu[aá]ntas veces|todos los|todas las|ambos|ambas|cu[aá]les|"
    r"combien|tous les|toutes les|les deux|quels|quelles|"
    r"quanti|quante|tutti i|tutte le|entrambi|quali|"
    r"quantos|quantas|todos os|todas as|quais|"
    r"hoeveel|hoe vaak|allebei|welke (?:\w+ )?(?:\w+en)\b)(?!\w)",
    re.IGNORECASE,
)


def asks_for_a_list(query: str) -> bool:
    """Does ``query`` ask for several things, likely said in different conversations? Its answer is
    spread: each part stands alone, in a session of its own, so search neither lifts a memory by
    its neighbours' match nor ranks the newest of a subject first, and fills its hits from as
    many conversations as it can (search.py).

    >>> asks_for_a_list("Which cities have I travelled to for work this year?")
    True
    >>> asks_for_a_list("What books has Melanie read?")
    True
    >>> asks_for_a_list("Do both Tom and Priya eat meat?")
    True
    >>> asks_for_a_list("What are Nate's favorite desserts?")
    True
    >>> asks_for_a_list("What LGBTQ+ events has Caroline participated in?")
    True
    >>> asks_for_a_list("When did Caroline go to the support group?")
    False
    >>> asks_for_a_list("Which city was Calvin in on October 3?")
    False
    >>> asks_for_a_list("What did the kids do at the weekend?")
    False
    >>> asks_for_a_list("Who has the longer commute, Ben or Aisha?")
    True
    >>> asks_for_a_list("How did Hannah's marathon training and race go?")
    False
    >>> asks_for_a_list("What is Caroline's relationship status?")
    False
    >>> asks_for_a_list("wie viele leute waren am ende bei omas geburtstag?")
    True
    >>> asks_for_a_list("¿qué entrevistas hizo álex con solarea?")
    False
    """
    return bool(_LIST.search(query) or _LIST_ELSEWHERE.search(query))
