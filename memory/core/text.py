"""The one word tokenizer and the one stopword list, and the one way a text is cut short.

A word is a run of letters or digits in any script, with inner apostrophes and hyphens kept
("don't", "Oscar's", "well-known", "estàs"). Every module that splits text into words asks
``words``; what FTS5 indexes is derived from it in ``fts_terms`` (memory/store), split the way
FTS5's unicode61 tokenizer splits.
"""

from __future__ import annotations

import re
import unicodedata

from agentmemd.memory.core.disclosure import USER

WORD = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*")

# English function words and contractions: not what a text is about. One list for FTS query terms,
# content words, cache keywords and consolidation labels (it is the list the local provider's
# figures were measured with; the longer NLTK-style list FTS once used cost 4 points of LoCoMo
# evidence in `bench observe` when content words used it too).
STOPWORDS = frozenset(
    """a an the and or but if then so to of in on at for with from by as is are was were be been being am i me
    my we our us you your he she it its they them their this that these those there here what which who whom
    how why when where do does did done have has had having not no yes can could would should will shall may
    might must just really very too also about into out up down over again more most some any all each other
    such only own same than s t don't i'm it's that's you're i've i'll we're let's""".split()
)

# Search also leaves out pronouns, prepositions and conjunctions: in a question they match nearly
# everything. As content words they stay (the local Observer's information scores count them).
QUERY_STOPWORDS = STOPWORDS | frozenset(
    """above after against below between both because before during few further her hers herself him
    himself his itself myself nor now off once ours ourselves theirs themselves through under until while
    yours yourself yourselves doing ever""".split()
)


def words(text: str) -> list[str]:
    """The words of ``text``, lower-cased, in order (typographic apostrophes made plain)."""
    return [w.replace("’", "'") for w in WORD.findall(text.lower())]


def count_words(text: str) -> int:
    """How many words ``text`` has, a length measure: "don't" is one word, a bare number is none."""
    return sum(1 for w in WORD.findall(text) if not w.isdigit())


def content_words(text: str) -> list[str]:
    """The words that say something: not stopwords, and longer than two characters."""
    return [w for w in words(text) if w not in STOPWORDS and len(w) > 2]


SAID = " said: "
MAX_SPEAKER_CHARS = 60
USER_SPEAKER = "User"


def speaker_shown(speaker: str | None, person: str | None) -> str:
    """Who said a turn, as what the agent reads (episodes, their context, the Observer's notes)
    names them: the user as "User", whatever name an app or an export gave them ("Javier" in one
    WhatsApp export, "Javier Ortega" in a Telegram one), so every door and import speaks of one
    person; anyone else by the name they spoke under. The turn itself keeps the name as sent."""
    return USER_SPEAKER if person == USER else (speaker or "")


def attributed(speaker: str, said: str) -> str:
    """'Ana said: words': how an episode or an observation names who said it. Not 'Ana: words':
    with the default speakers that is 'User: ...', which the pack's neutraliser rightly takes
    for a forged turn marker (memory/safety) and removes."""
    return f"{speaker}{SAID}{said}"


EPISODE_MAX_CHARS = 100_000  # AddParams' limit; a turn may be that long before its speaker is put in front
EPISODE_CONTEXT_MAX_CHARS = 20_000


def episode_text(speaker: str, said: str) -> str:
    """A turn as its episode says it (memory/conversation/episodes.py)."""
    return attributed(speaker, said)[:EPISODE_MAX_CHARS]


def episode_context(before: list[tuple[str, str]]) -> str | None:
    """An episode's indexed neighbourhood: the (speaker, words) said before it in its session."""
    return "\n".join(episode_text(speaker, said) for speaker, said in before)[-EPISODE_CONTEXT_MAX_CHARS:] or None


def attribution(content: str) -> tuple[str, str]:
    """(speaker, words) of an attributed text; ('', content) when it names none. Also reads the
    older 'Ana: words' form that observations were stored in before."""
    for sep in (SAID, ": "):
        head, found, rest = content.partition(sep)
        if found and len(head) <= MAX_SPEAKER_CHARS:
            return head, rest
    return "", content


def fold(text: str) -> str:
    """``text`` as a person matches a name: without accents or case, its spaces one each ("Lucía
    Pérez" and "lucia  perez" are one name). A letter of its own, not a letter with a mark, stays:
    "ø" is not "o".

    >>> fold("Lucía  PÉREZ"), fold("Jürgen"), fold("Ærø")
    ('lucia perez', 'jurgen', 'ærø')
    """
    decomposed = unicodedata.normalize("NFKD", text)
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(plain.casefold().split())


# A forwarded chat message is stored with the words of whom it came from in front of it: the
# daemon's words, not the sender's (what someone talks about does not count them).
_FORWARDED = re.compile(r"^\(forwarded from [^)\n]{0,200}\) ")


def forwarded(who: str, text: str) -> str:
    """``text`` as a forwarded message is stored: "(forwarded from Ana) text"."""
    return f"(forwarded from {who}) {text}"


def without_forwarded_mark(text: str) -> str:
    return _FORWARDED.sub("", text, count=1)


def clip(text: str, limit: int) -> str:
    """``text`` on one line, cut at a word to at most ``limit`` characters, " …" marking the cut (one
    without a space in its second half, a pasted log or a URL, is cut where the limit falls)."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 2]
    return (cut.rsplit(" ", 1)[0] if " " in cut[limit // 2 :] else cut).rstrip() + " …"


def clip_words(text: str, limit: int) -> str:
    """``text`` cut to its first ``limit`` words, " …" marking the cut."""
    said = text.split()
    return text if len(said) <= limit else " ".join(said[:limit]).rstrip(",;:-–—") + " …"


_LINK_MARKS = re.compile(r"\[\[|\]\]|\|[^\]]*(?=\]\])")


def without_links(content: str) -> str:
    """A person's words without the identity files' wiki-link marks: "believes in [[public
    libraries]]" is "believes in public libraries" wherever it is shown to a model."""
    return " ".join(_LINK_MARKS.sub("", content).split()) if "[[" in content else content
