"""Sentence segmentation: pysbd's rule-based splitter (Golden Rules for English), offline.

pysbd handles abbreviations ("Dr.", "e.g."), decimals, ellipses and quotes that a
regex split on ". " gets wrong. A Segmenter keeps state while it works, so each
thread gets its own.
"""

from __future__ import annotations

import functools
import re
import threading

import pysbd

from agentmemd.memory.core.threads import yield_to_requests

_local = threading.local()


def _segmenter() -> pysbd.Segmenter:
    seg = getattr(_local, "segmenter", None)
    if seg is None:
        seg = _local.segmenter = pysbd.Segmenter(language="en", clean=False)
    return seg


# What no sentence ends inside: a link ("…/?q=41.8996,3.1836" split at its "?") and an aside in
# parentheses ("(at the cafe? no, the bar)"). Each is stood for by one private-use character while
# the segmenter works, then put back.
_UNSPLIT = re.compile(r"(?:https?://|www\.)\S+?(?=[.,;:!?)\]]*(?:\s|$))|\([^()\n]{1,300}\)", re.IGNORECASE)
_MARK = 0xE000  # the first of Unicode's private-use characters
# A word with a "!" or "?" inside it, a letter or digit straight after ("Girasol!2024",
# "Kiwi!Berg55": a password; "¿Qué?Nada"): no sentence ends there, and a password cut in two
# left its second half in a sentence of its own that no rule took for a secret.
_GLUED = re.compile(r"\S*[!?]+(?=\w)\S*")

# An ordinal or a day written with a stop ("am 14. Juni", "der 3. Platz", "am 24.12. frei"), which
# the English rules take for a sentence's end: kept with its next word when that word is lower
# case, a month, or the number follows an article or a preposition that takes a date.
_ORDINAL = re.compile(r"(?<![\w.])(?:\d{1,2}\.){1,2}\s+\w+")
_MONTHS = frozenset(
    "januar jänner februar feber märz maerz april mai juni juli august september oktober november dezember "
    "jan feb mär mrz apr jun jul aug sep sept okt nov dez "  # German, Austrian
    "januari februari maart mei augustus oktober "  # Dutch (the rest as German)
    "marts maj juni juli oktober januar februar".split()  # Danish, Norwegian
)
_BEFORE_ORDINAL = frozenset(
    "am vom zum bis ab seit dem den der die das des im zur ihr ihrem ihren sein seinem seinen mein meinem meinen "
    "jeden jedem jeder unser unserem op de het".split()
)


# A message is split again and again: by the Observer, by the impression of whoever said it (from
# their last 200 messages, after every Observer run of a chat being imported), by the SyncScore
# judge. pysbd takes ~1.4 ms a message, holding the interpreter, so a rebuild of impressions made
# packs beside it wait (p99 70 ms against 15 ms idle during an import). Messages up to KEPT_CHARS
# are kept, the KEPT split most recently: ~8 MB at most.
KEPT = 4096
KEPT_CHARS = 1000


def sentences(text: str) -> list[str]:
    """The sentences of ``text``, stripped, empty ones dropped; never one cut inside a link or a
    parenthesis.

    >>> sentences("Mira https://maps.google.com/?q=41.8996,3.1836 y dime. ¿Vale?")
    ['Mira https://maps.google.com/?q=41.8996,3.1836 y dime.', '¿Vale?']
    """
    text = " ".join(text.split())
    if not text:
        return []
    return list(_split_kept(text) if len(text) <= KEPT_CHARS else _split(text))


@functools.lru_cache(maxsize=KEPT)
def _split_kept(text: str) -> tuple[str, ...]:
    return _split(text)


def _split(text: str) -> tuple[str, ...]:
    yield_to_requests()  # on a background thread: a request beside it gets the interpreter first
    kept: list[str] = []

    def stand_in(match: re.Match) -> str:
        kept.append(match.group(0))
        return chr(_MARK + len(kept) - 1) if len(kept) <= 6400 else match.group(0)

    def ordinal(match: re.Match) -> str:
        number, _, word = match.group(0).partition(" ")
        word = word.strip()
        before = match.string[: match.start()].split()[-1:]
        if word[:1].islower() or word.lower() in _MONTHS or (before and before[0].lower() in _BEFORE_ORDINAL):
            return stand_in(match)
        return match.group(0)

    masked = _UNSPLIT.sub(stand_in, text) if "(" in text or "/" in text or "www" in text.lower() else text
    masked = _ORDINAL.sub(ordinal, masked) if re.search(r"\d\.\s", masked) else masked
    masked = _GLUED.sub(stand_in, masked) if "!" in masked or "?" in masked else masked
    out: list[str] = []
    for sentence in _segmenter().segment(masked):
        for i, span in reversed(list(enumerate(kept[:6400]))):  # the last first: one may hold an earlier one
            sentence = sentence.replace(chr(_MARK + i), span)
        sentence = sentence.strip()
        lead = _LEADING_SYMBOLS.match(sentence)
        if lead and out:  # "Sie wird 90! 🎂 Alle kommen.": the emoji ends the sentence before
            out[-1] += " " + lead.group(1)
            sentence = sentence[lead.end() :]
        if sentence:
            out.append(sentence)
    return tuple(out)


# Emoji and other symbols opening a segment: pysbd puts those after a "!" at the next sentence's start.
_LEADING_SYMBOLS = re.compile(r"^([\U0001F000-\U0001FAFF\u2600-\u27BF\u2B00-\u2BFF\uFE0F\u200D]+)\s+")
