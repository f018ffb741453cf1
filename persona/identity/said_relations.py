"""Relations said in conversation, for the identity graph: "my sister Ana" in what the user said
becomes ``[[Ana]] is the sister of [[the user]]``; in what Tomas said, ``... of [[Tomas]]``.

The local Observer keeps such a turn as a relational observation ("User said: My sister Ana lives
in Lisbon."); the graph reads relational memories that link, and this reads the ones that do not.
One pattern only, "my <relation> <Name>": the looser "<Name>, my <relation>" and "<Name> is my
<relation>" matched "Thankfully, my son" and "Yeah, my mom" in 5 of 7 LoCoMo hits (of 5,882 turns),
this one matched "my colleague Rob" and "my daughter Sara" and nothing wrong. English only.

    said_relations("User said: My sister Ana lives in Lisbon.", "the user")
    # ["[[Ana]] is the sister of [[the user]]"]
"""

from __future__ import annotations

import re

from agentmemd.memory.language.slots import stated

RELATIONS = (
    "best friend|friend|sister|brother|mother|mum|mom|father|dad|wife|husband|partner|son|daughter|cousin|aunt|"
    "uncle|niece|nephew|grandmother|grandma|grandfather|grandpa|boss|colleague|neighbour|neighbor|girlfriend|"
    "boyfriend|fiancée|fiancee|fiancé|fiance|roommate|mentor|stepmother|stepfather|stepson|stepdaughter"
)
_MY_RELATION_NAME = re.compile(rf"(?i:\bmy ({RELATIONS})),? ([^\W\d_][\w'’-]*(?: [^\W\d_][\w'’-]*)?)")
_SAID = re.compile(r"^([^:\n]{1,60}) said: ")
# Capitalised words that follow "my sister" without being her name ("my sister In May ...").
_NOT_NAMES = frozenset(
    "i in on at and but or so the a an if when while since for to from with today tomorrow yesterday monday tuesday "
    "wednesday thursday friday saturday sunday january february march april may june july august september october "
    "november december".split()
)


_PARTNERS = frozenset("wife husband partner girlfriend boyfriend fiancée fiancee fiancé fiance".split())
_ENDED = re.compile(r"(?i)\b(broke up|broken up|split up|splitting up|divorced|divorcing|separated|my ex|ex-\w+)\b")


def _sentence_of(text: str, at: int) -> str:
    opening = max(text.rfind(mark, 0, at) for mark in ".!?\n") + 1
    ends = [i for i in (text.find(mark, at) for mark in ".!?\n") if i != -1]
    return text[opening : min(ends) if ends else len(text)]


def said_relations(content: str, user: str) -> list[str]:
    """The relations "my <relation> <Name>" says, as linked relation lines, whose "my" is the speaker
    named by the observation's "X said: "; the user's own words ("User said: ", or no speaker) are
    ``user``'s (the graph's name for them)."""
    said = _SAID.match(content)
    who = said.group(1).strip() if said else "User"
    owner = user if who.casefold() in ("user", "the user") else who
    out = []
    words_said = content[said.end() if said else 0 :]
    for found in _MY_RELATION_NAME.finditer(words_said):
        relation = found.group(1).lower()
        if not stated(words_said, found.start(), found.end()):
            continue  # "If my brother Paul existed…", "Should my boss Ana know?"
        if relation in _PARTNERS and _ENDED.search(_sentence_of(words_said, found.start())):
            continue  # "My boyfriend Marco and I broke up": no partner now
        words = []
        for word in found.group(2).split():  # a name: capitalised words, not "In" or "May"
            if not word[0].isupper() or word.casefold() in _NOT_NAMES:
                break
            words.append(re.sub(r"['’]s$", "", word))
            if word != words[-1]:  # "Sara's school": the name ends at the possessive
                break
        name = " ".join(words)
        if name and name != owner:
            out.append(f"[[{name}]] is the {relation} of [[{owner}]]")
    return list(dict.fromkeys(out))
