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


def function_words(text: str) -> frozenset[str]:
    """The function words of ``text``'s language and of English, lower-cased.

    >>> sorted({"que", "the", "piso"} & function_words("el piso nuevo me sale a 850 al mes con gastos incluidos"))
    ['que', 'the']
    """
    found = detect_language(text)
    code = _CODES.get(found, found) if found else None
    english = (_listed("en") - ENGLISH_TOPICS) | STOPWORDS
    return english | _listed(code) if code and code != "en" else english
