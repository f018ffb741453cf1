"""The other forms of a word that a stemmer cannot reach: "caught" is "catch", "mice" are "mouse",
"bought" is "buying". FTS5's Porter stemmer folds regular endings ("catches", "catching" ->
"catch"); irregular forms it leaves apart, so a question with one form missed the turn with the
other. LemmInflect's English tables (in its wheel, no download) give each word's lemmas and the
lemmas' inflections; the forms a stemmer already folds together are left out, so a match is
not counted twice. English only: a word LemmInflect does not know has no other forms.

    >>> other_forms("caught")
    ('catch',)
    >>> other_forms("buying")
    ('bought',)
    >>> other_forms("mice")
    ('mouse',)
    >>> other_forms("holiday")
    ()
"""

from __future__ import annotations

from functools import lru_cache

# Nouns and verbs: "better" as good/well or "wrong" as worse/worst would find other things.
_CLASSES = {"NOUN", "VERB"}


@lru_cache(maxsize=65536)  # a pack stems the words of a few hundred candidates: most repeat
def regular_stem(word: str) -> str:
    """``word`` without a regular ending, roughly as a stemmer takes it off: "catching", "catches"
    and "catch" -> "catch", "swimming" -> "swim", "moving" and "move" -> "mov"."""
    for ending in ("ing", "ed", "es", "s", "e"):
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            word = word[: -len(ending)]
            break
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiouls":  # "swimm" -> "swim"
        word = word[:-1]
    return word


@lru_cache(maxsize=4096)
def other_forms(word: str) -> tuple[str, ...]:
    """The lemmas and irregular inflections of ``word`` (lower-case) a stemmer would not fold into it."""
    import lemminflect  # its tables load on first use (~0.2 s), not when the daemon starts

    lemmas = {lemma for cls, found in lemminflect.getAllLemmas(word).items() if cls in _CLASSES for lemma in found}
    forms = set(lemmas)
    for lemma in lemmas:
        for cls in _CLASSES:
            for inflected in lemminflect.getAllInflections(lemma, upos=cls).values():
                forms.update(inflected)
    seen = {regular_stem(word)}
    kept: list[str] = []
    for form in sorted(forms, key=lambda f: (len(f), f)):  # the shortest of a stem stands for it
        if regular_stem(form) not in seen:
            seen.add(regular_stem(form))
            kept.append(form)
    return tuple(sorted(kept))
