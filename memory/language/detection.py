"""What a text is written in, and the emoji in it: well-kept libraries, not hand-made lists.

* ``detect_language`` asks py3langid (langid.py's naive Bayes model, 97 languages, shipped
  inside the wheel) and answers with the language's English name, or None when the text is
  too short or the model is unsure.
* ``emoji_in`` asks the ``emoji`` package (the Unicode emoji list), so a check mark like
  "Done ✓" is not an emoji while "✔️" is.
"""

from __future__ import annotations

from functools import lru_cache

import emoji

from agentmemd.memory.core.text import count_words

# The languages a person names in a rule ("Always answer in Catalan"), by ISO 639-1 code.
LANGUAGE_NAMES: dict[str, str] = {
    "ar": "arabic",
    "bg": "bulgarian",
    "ca": "catalan",
    "cs": "czech",
    "cy": "welsh",
    "da": "danish",
    "de": "german",
    "el": "greek",
    "en": "english",
    "eo": "esperanto",
    "es": "spanish",
    "et": "estonian",
    "eu": "basque",
    "fi": "finnish",
    "fr": "french",
    "ga": "irish",
    "gl": "galician",
    "he": "hebrew",
    "hi": "hindi",
    "hr": "croatian",
    "hu": "hungarian",
    "id": "indonesian",
    "is": "icelandic",
    "it": "italian",
    "ja": "japanese",
    "ko": "korean",
    "lt": "lithuanian",
    "lv": "latvian",
    "nl": "dutch",
    "no": "norwegian",
    "nb": "norwegian",
    "pl": "polish",
    "pt": "portuguese",
    "ro": "romanian",
    "ru": "russian",
    "sk": "slovak",
    "sl": "slovenian",
    "sr": "serbian",
    "sv": "swedish",
    "th": "thai",
    "tr": "turkish",
    "uk": "ukrainian",
    "vi": "vietnamese",
    "zh": "chinese",
}
LANGUAGES: tuple[str, ...] = tuple(sorted(set(LANGUAGE_NAMES.values())))
MIN_WORDS = 4  # fewer words than this: too little text to tell
MIN_PROBABILITY = 0.5  # the model's normalised probability below this: unsure


@lru_cache(maxsize=1)
def _identifier():
    from py3langid.langid import MODEL_DIR, MODEL_FILE, LanguageIdentifier

    return LanguageIdentifier.from_modelpath(MODEL_DIR / MODEL_FILE, norm_probs=True)


def detect_language(text: str) -> str | None:
    """The English name of the language ``text`` is written in; None if too short or unsure.

    >>> detect_language("Bon dia, com estàs? Avui fa molt bon temps a Barcelona.")
    'catalan'
    """
    if count_words(text) < MIN_WORDS:
        return None
    code, probability = _identifier().classify(text)
    if probability < MIN_PROBABILITY:
        return None
    return LANGUAGE_NAMES.get(code, code)


def emoji_in(text: str) -> list[str]:
    """Every emoji in ``text``, in order (a multi-codepoint emoji counts once)."""
    return [found["emoji"] for found in emoji.emoji_list(text)]
