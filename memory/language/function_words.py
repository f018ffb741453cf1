"""Function words of the language a text is written in, for telling what someone talks about
from how they say it: stopwords-iso's lists (the ``stopwordsiso`` package, 57 languages, shipped
in its wheel) for the language py3langid finds and for English (chats mix it in), with the one
English stopword list (memory/core/text.py).

Search keeps its short English list: FTS5 and the recall benches were measured with it.
"""

from __future__ import annotations

from functools import lru_cache

import stopwordsiso

from agentmemd.memory.core.text import STOPWORDS
from agentmemd.memory.language.detection import LANGUAGE_NAMES, detect_language

# stopwords-iso's English list counts these as function words; in a chat they are topics.
ENGLISH_TOPICS = frozenset({"work", "home", "year", "years", "world", "school", "money", "house", "car"})
_CODES = {name: code for code, name in LANGUAGE_NAMES.items()}


@lru_cache(maxsize=64)
def _listed(code: str) -> frozenset[str]:
    return frozenset(stopwordsiso.stopwords(code)) if code in stopwordsiso.langs() else frozenset()


# Of a chat's messages whose language is sure, the share a language needs for its function words
# to be left out too (a German/English group: "die" is no topic of anyone's).
LANGUAGE_SHARE = 0.15


def function_words_of(texts: list[str]) -> frozenset[str]:
    """The function words of English and of each language a good share of ``texts`` is in (each
    read on its own: a mixed chat is no one language), lower-cased.

    >>> sorted({"die", "the", "umzug"} & function_words_of(["Wir planen die Feier im Garten", "ok see you at the station", "Die Kisten sind schon gepackt"]))
    ['die', 'the']
    >>> sorted({"que", "the", "piso"} & function_words_of(["el piso nuevo me sale a 850 al mes con gastos incluidos"]))
    ['que', 'the']
    """
    english = (_listed("en") - ENGLISH_TOPICS) | STOPWORDS
    found = [language for text in texts if (language := detect_language(text)) is not None]
    if not found and texts:  # each too short to say: read them together, as one text
        joined = detect_language(" ".join(texts))
        found = [joined] if joined else []
    out = set(english)
    for language in set(found):
        code = _CODES.get(language, language)
        if code != "en" and found.count(language) >= LANGUAGE_SHARE * len(found):
            out |= _listed(code)
    return frozenset(out)
