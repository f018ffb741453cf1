"""WhatsApp's "Export chat" text, from Android and iOS, in the shapes and languages real exports have.

    Android   12/03/2024, 14:05 - Ana: See you at the station
              3/12/24, 2:05 PM - Ana: See you at the station        (12 h; a narrow no-break space)
              12.03.24, 14:05 - Messages and calls are end-to-end encrypted. …   (a system line)
              14/06/2024 à 09:12 - Marie: À tout à l'heure          (French)
              14/6/24, 9:12 p. m. - Ana: Nos vemos                  (Spanish 12 h)
              14/06/24 09.12 - Budi: Sampai nanti                   (Indonesian: a dot in the time)
    iOS       [12/03/2024, 14:05:33] Ana: See you at the station
              ‎[3/12/24, 2:05:33 PM] Ana: ‎image omitted               (direction marks before both)

A line that does not start with a date and time continues the message before it. Dates are
day-first or month-first, which the export does not say: ``infer_date_order`` decides from the
whole file (a field over 12, then which order keeps the messages in time order); ``date_order``
overrides it. System lines (the encryption notice, "created group", "added") and deleted, undelivered
("waiting for this message") or media-only messages are reported as skipped, with the reason; an
attachment with a caption keeps the caption. A file whose first line is not a message, or a date no
order can read, is an error naming the line.

The export is in the phone's language. What WhatsApp writes in each (its notices, placeholders and
system lines) is data, in ``whatsapp_locales.py``; every language's strings of a kind are compiled
into one alternation, so each line is tried once. Only a whole-line notice is skipped: "Ich habe das
Foto gelöscht" is a message. The language is told from the strings the file has and reported in the
notes ("locale de (from its system lines)"); ``locale`` names it instead. A file in a language not
known here is still read: Android's system lines are known by having no author, but media and
deleted-message notices may be kept as messages, and the notes say so.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache, lru_cache
from pathlib import Path
from typing import Literal

from agentmemd.memory.channels.exports import NOT_A_ZIP, decode_text, first_byte, read_export, zip_contents
from agentmemd.memory.channels.identity import content_chat_id, title_from_people
from agentmemd.memory.channels.whatsapp_locales import BY_CODE, LOCALES, WhatsAppLocale
from agentmemd.memory.core.chats import Chat, ChatExport, ChatMessage, Skipped
from agentmemd.memory.core.errors import InvalidParams, MalformedExport

DateOrder = Literal["dmy", "mdy", "ymd"]

# Invisible marks WhatsApp puts around names, numbers and system text (LRM, RLM, embeddings,
# isolates, BOM), and the spaces it uses inside times.
_MARK_CHARS = "\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\ufeff"
_MARKS = dict.fromkeys(map(ord, _MARK_CHARS))
_SPACES = {0x202F: " ", 0x00A0: " "}


def _words(words: Iterable[str]) -> str:
    """An alternation of literal words, the longest first, any space in them optional."""
    return "|".join(re.escape(w).replace(r"\ ", r"\s?") for w in sorted(set(words), key=len, reverse=True))


def _header_words() -> dict[str, set[str]]:
    """Each language's 12-hour words and words between date and time, and who writes them."""
    words: dict[str, set[str]] = {}
    for locale in LOCALES:
        for word in [w for w, _ in locale.ampm] + list(locale.connectors):
            words.setdefault(word.lower(), set()).add(locale.code)
    return words


# A header is read the same whatever the language: every language's words are in it (which
# language wrote the file is told from its notices, or given).
_HALF_DAY = {re.sub(r"[\s.]", "", w.lower()): half for locale in LOCALES for w, half in locale.ampm}
_HEADER_WORDS = _header_words()
_DAY_HALVES = _words(w for locale in LOCALES for w, _ in locale.ampm)
_DATE = r"(?P<date>\d{1,4}[./-]\d{1,2}[./-]\d{1,4})"
# Some languages put the half of the day first ("ÖS 9:12"); AM/PM and a.m. come after.
_TIME = (
    rf"(?:(?P<ampm_first>{_DAY_HALVES}) )?(?P<time>\d{{1,2}}[:.]\d{{2}}(?:[:.]\d{{2}})?)"
    rf"(?:\s?(?P<ampm>[AaPp]\.?\s?[Mm]\.?|{_DAY_HALVES}))?"
)
_JOIN = rf",? (?:(?P<connector>{_words(w for locale in LOCALES for w in locale.connectors)}) )?"
_ANDROID = re.compile(rf"^{_DATE}{_JOIN}{_TIME} [-–] (?P<rest>.*)$", re.S | re.I)
_IOS = re.compile(rf"^\[{_DATE}{_JOIN}{_TIME}\] (?P<rest>.*)$", re.S | re.I)
# The export's file name in the phone's language: "WhatsApp Chat with Ana", "WhatsApp Chat mit Ana",
# "Chat de WhatsApp con Ana", "Conversa do WhatsApp com Ana", "Discussion WhatsApp avec Ana", …
_TITLE = re.compile(
    r"^(?:.{0,20}\bWhatsApp\b.{0,20}?)\s(?:with|-|mit|con|com|avec|met|amb|z|с|dengan|ile)\s(?P<title>.+)$", re.I
)
_FILE = r"[^\n]+?\.\w{1,5}"
# What an unknown language's media placeholder looks like on Android ("<メディアなし>"): only
# counted, to say the file's notices were not understood; such a message is kept.
_LIKE_A_PLACEHOLDER = re.compile(r"^<[^<>\n]{2,60}>$")


def _unclosed_quote(text: str) -> bool:
    """A quotation opened and not closed: „…“ (German), “…”, "…", «…», 「…」."""
    if text.count('"') % 2:
        return True
    if "„" in text:  # German closes with the mark English opens with
        return text.count("„") > text.count("“")
    return any(text.count(a) > text.count(b) for a, b in ("“”", "«»", "‹›", "「」", "『』"))


def _pattern(entry: str) -> str:
    """An entry of whatsapp_locales.py as a regex: ``…`` any text, ``{file}`` a file's name, any run
    of spaces for a space, ' or ’ for an apostrophe; the final full stop is left to the caller."""
    parts = []
    for piece in re.split(r"(…|\{file\})", entry.strip().rstrip(".")):
        if piece == "…":
            parts.append(r"[^\n]+?")
        elif piece == "{file}":
            parts.append(_FILE)
        else:
            parts.append(r"\s+".join(re.escape(word).replace("'", "['’]") for word in piece.split(" ")))
    return "".join(parts)


def _fragment(entry: str) -> str:
    """A system line's words, found anywhere in it but not inside a longer word."""
    core = entry.strip(" …")
    before = r"(?<!\w)" if core[0].isalnum() else ""
    after = r"(?!\w)" if core.rstrip(".")[-1].isalnum() else ""
    return before + _pattern(core) + after


_WORD = re.compile(r"\w+")


def _key(entry: str) -> str:
    """An entry's longest word, which a line must have for the entry to match it."""
    return max(_WORD.findall(entry.replace("{file}", "").lower()), key=len)


@lru_cache(maxsize=16)  # a message is tried against several tables in a row
def _words_in(text: str) -> frozenset[str]:
    return frozenset(_WORD.findall(text.lower()))


def _literal(word: str) -> str:
    return re.escape(word).replace(r"\ ", r"\s+")


class _Table:
    """Every language's entries of one kind as one alternation (one try per line, not one per
    language); a match says which languages write that string. A line with none of the entries'
    key words is not tried at all: most lines are people's, and have none."""

    def __init__(self, entries: dict[str, set[str]], to_regex: Callable[[str], str], shape: str):
        """``entries``: each as whatsapp_locales.py writes it, with the languages that write it;
        ``shape``: the regex around the alternation, ``ALTERNATIVES``."""
        self._languages = [frozenset(codes) for codes in entries.values()]
        either = "|".join(f"(?P<e{i}>{to_regex(entry)})" for i, entry in enumerate(entries)) or "(?!)"
        self._regex = re.compile(shape.replace("ALTERNATIVES", either), re.I | re.S)
        self._keys = frozenset(_key(entry) for entry in entries)

    def _may_match(self, text: str) -> bool:
        return not self._keys.isdisjoint(_words_in(text))

    def find(self, text: str) -> tuple[re.Match, frozenset[str]] | None:
        found = self._regex.search(text) if self._may_match(text) else None
        return (found, self._languages[self._which(found)]) if found else None

    def find_all(self, text: str) -> list[tuple[re.Match, frozenset[str]]]:
        if not self._may_match(text):
            return []
        return [(found, self._languages[self._which(found)]) for found in self._regex.finditer(text)]

    def remove(self, text: str) -> str:
        return self._regex.sub("", text) if self._may_match(text) else text

    @staticmethod
    def _which(found: re.Match) -> int:
        name = found.lastgroup or ""
        if not name.startswith("e"):  # a group after the alternatives (a file's name) closed last
            name = next(k for k, v in found.groupdict().items() if v is not None and k.startswith("e"))
        return int(name[1:])


def _entries(locales: Iterable[WhatsAppLocale], *kinds: str) -> dict[str, set[str]]:
    entries: dict[str, set[str]] = {}
    for locale in locales:
        for kind in kinds:
            for entry in getattr(locale, kind):
                entries.setdefault(entry, set()).add(locale.code)
    return entries


def _media_entries(locales) -> dict[str, set[str]]:
    """The media placeholders, and each locale's media word with each of its "left out" words:
    WhatsApp words them differently by phone and version ("sticker non incluso" and "sticker
    omesso" on Italian iPhones), and a placeholder kept as a message ranks for questions.

    >>> "sticker omesso" in _media_entries([BY_CODE["it"]])
    True
    """
    entries = _entries(locales, "media")
    for locale in locales:
        plain = [e.split(" ") for e in locale.media if "{" not in e and "<" not in e]
        nouns = {words[0] for words in plain if 2 <= len(words) <= 3}
        left_out = {words[-1] for words in plain if len(words) == 2}
        for noun in nouns:
            for word in left_out:
                entries.setdefault(f"{noun} {word}", set()).add(locale.code)
    return entries


def _starts(system: dict[str, set[str]]) -> dict[str, set[str]]:
    """The words of a system line before its first ``…`` ("hat die Gruppe" of "hat die Gruppe …
    erstellt"), where they are enough to tell one (two words or more)."""
    starts: dict[str, set[str]] = {}
    for entry, codes in system.items():
        whole = entry.strip(" …")
        start = whole.split("…")[0].strip()
        if " " in start and start != whole:
            starts.setdefault(start, set()).update(codes)
    return starts


@dataclass(frozen=True)
class _Notices:
    """What WhatsApp writes itself, in the languages a file is read in, compiled once per set of them."""

    system: _Table  # words of a system line (the encryption notice, events)
    system_starts: _Table  # also how one starts, for an Android line cut at a colon its subject quotes
    group: _Table  # words of a system line only a group has
    media: _Table  # whole message: media left out of the export
    deleted: _Table  # whole message: a deleted message's notice
    waiting: _Table  # whole message: a message the phone had not received when it exported
    calls: _Table  # whole message: a missed call
    edited: _Table  # the mark at the end of an edited message
    attached_ios: _Table  # "<attached: 00000012-PHOTO-….jpg>", anywhere in the message
    attached_android: _Table  # "IMG-….jpg (file attached)", its first line


@cache
def _notices(codes: tuple[str, ...]) -> _Notices:
    locales = [BY_CODE[code] for code in codes]
    system = _entries(locales, "encrypted", "group_events", "events", "calls")
    whole = r"\A(?:ALTERNATIVES)\.?\Z"
    return _Notices(
        system=_Table(system, _fragment, "(?:ALTERNATIVES)"),
        system_starts=_Table({**system, **_starts(system)}, _fragment, "(?:ALTERNATIVES)"),
        group=_Table(_entries(locales, "group_events"), _fragment, "(?:ALTERNATIVES)"),
        media=_Table(_media_entries(locales), _pattern, whole),
        deleted=_Table(_entries(locales, "deleted"), _pattern, whole),
        waiting=_Table(_entries(locales, "waiting"), _pattern, whole),
        calls=_Table(_entries(locales, "calls"), _pattern, whole),
        edited=_Table(_entries(locales, "edited"), _pattern, r"\s*<(?:ALTERNATIVES)\.?>\s*\Z"),
        attached_ios=_Table(
            _entries(locales, "attached_ios"), _literal, r"<(?:ALTERNATIVES)\s?:\s?(?P<file>[^<>\n]+)>"
        ),
        attached_android=_Table(
            _entries(locales, "attached_android"),
            _literal,
            rf"\A(?P<file>{_FILE})(?: • [^\n(]*?)? \((?:ALTERNATIVES)\)\n?",
        ),
    )


def _languages(locale: str | None) -> tuple[str, ...]:
    if locale is None:
        return tuple(BY_CODE)
    if locale not in BY_CODE:
        raise InvalidParams("locale", f"no WhatsApp strings for {locale!r}; known: {', '.join(BY_CODE)}")
    return (locale,)


def read_whatsapp(
    path: Path, date_order: DateOrder | None = None, title: str | None = None, locale: str | None = None
) -> ChatExport:
    """Parse a WhatsApp export: the ``.txt``, or the ``.zip`` WhatsApp makes with media."""
    text, name = _read_text(Path(path))
    chat_title = title or _title_from(name)
    export = parse_whatsapp(text, chat_title, date_order, locale)
    chat = export.chats[0]
    # Known by its content, not its file's name (memory/channels/identity.py); the id imports
    # gave it before is kept to continue a chat stored under it.
    chat.earlier_ids = [chat.chat_id]
    chat.chat_id = content_chat_id("whatsapp", chat.messages)
    if not title and Path(name).stem.lower() == "_chat":  # iOS names every export so
        chat.title = title_from_people(chat.messages)
    return export


def parse_whatsapp(text: str, title: str, date_order: DateOrder | None = None, locale: str | None = None) -> ChatExport:
    reader = _Reader(_notices(_languages(locale)))
    heads, bodies = _heads(text)
    dates = [(n, m.group("date")) for n, m, _ in heads]
    order, note = (date_order, f"date order {date_order} (given)") if date_order else infer_date_order(dates, heads)
    chat = Chat(chat_id=f"whatsapp:{title}", title=title, kind="private")
    group_events = False
    for (number, match, rest), more in zip(heads, bodies):
        ts = _timestamp(match, order, number)
        reader.hear_header(match)
        body = "\n".join([rest, *more])
        sender, sep, said = body.partition(": ")
        said_clean = said.translate(_MARKS).strip()
        if reader.is_system(body, sender, sep, said, said_clean):
            group_events = group_events or reader.is_group_event(body)
            chat.skipped.append(Skipped(line=number, reason="system message", text=body.translate(_MARKS)[:120]))
            continue
        chat.add(reader.message(sender.translate(_MARKS).strip(), said, said_clean, ts, number))
    if group_events or len(chat.senders) > 2:
        chat.kind = "group"
    return ChatExport(format="whatsapp", chats=[chat], notes=[note, reader.locale_note(locale)])


def _heads(text: str) -> tuple[list[tuple[int, re.Match, str]], list[list[str]]]:
    """Each message's first line (line number, header match, what follows the header) and the
    lines that continue it."""
    heads: list[tuple[int, re.Match, str]] = []
    bodies: list[list[str]] = []
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    for number, raw in enumerate(lines, start=1):
        clean = raw.translate(_SPACES).lstrip(_MARK_CHARS)
        match = _ANDROID.match(clean) or _IOS.match(clean)
        if match:
            heads.append((number, match, match.group("rest")))
            bodies.append([])
        elif heads:
            bodies[-1].append(raw)
        elif raw.strip():
            raise MalformedExport(
                f"line {number}: not a WhatsApp message line (expected e.g. '12/03/2024, 14:05 - Name: text' "
                f"or '[12/03/2024, 14:05:33] Name: text'): {raw[:80]!r}",
                {"line": number},
            )
    if not heads:
        raise MalformedExport("no WhatsApp message lines in the file", {"line": 1})
    return heads, bodies


class _Reader:
    """Tells WhatsApp's own lines from people's, and keeps count of which language's strings it met."""

    def __init__(self, notices: _Notices):
        self.notices = notices
        self.heard: Counter[str] = Counter()  # language -> its notices met
        self.heard_in_headers: Counter[str] = Counter()  # language -> its clock words met ("à", "p. m.")
        self.system_unexplained = 0  # system lines in no language known here (skipped all the same)
        self.kept_unexplained: list[str] = []  # messages kept that look like a notice of an unknown language

    def _hear(self, found: tuple[re.Match, frozenset[str]] | None) -> bool:
        if found:
            self.heard.update(found[1])
        return found is not None

    def hear_header(self, match: re.Match) -> None:
        for word in (match.group("connector"), match.group("ampm") or match.group("ampm_first")):
            codes = _HEADER_WORDS.get(re.sub(r"\s+", " ", word.lower())) if word else None
            if codes:
                self.heard_in_headers.update(codes)

    def is_system(self, body: str, sender: str, sep: str, said: str, said_clean: str) -> bool:
        """Android's system lines have no author ("Ana added Ben"), unless a subject they quote has a
        colon; iOS gives them one (the group's name) and a direction mark before the text."""
        if not sep:
            if not self._hear(self.notices.system.find(body.translate(_MARKS))):
                self.system_unexplained += 1
            return True
        if self._is_event(sender):
            return True
        if not said.startswith("\u200e") or self._is_notice(said_clean):
            return False
        return self._hear(self.notices.system.find(said_clean))

    def _is_notice(self, text: str) -> bool:
        """A message's whole text is a notice WhatsApp left in its place (some read like an event:
        "Je hebt dit bericht verwijderd" has the words of "Je hebt Ben verwijderd")."""
        notices = self.notices
        return any(table.find(text) for table in (notices.deleted, notices.waiting, notices.media))

    def _is_event(self, sender: str) -> bool:
        """What stands before the first ": " of an Android system line that quotes a colon (a group
        subject "Trip: June"): an event, not a person named 'Ana changed the subject …'. A quote
        opened and not closed ('Ali "Tatil') is a subject cut in two, whatever the language."""
        if len(sender) > 60 or _unclosed_quote(sender):
            return True
        return " " in sender.strip() and self._hear(self.notices.system_starts.find(sender.translate(_MARKS)))

    def is_group_event(self, body: str) -> bool:
        return self.notices.group.find(body.translate(_MARKS)) is not None

    def message(self, sender: str, said: str, text: str, ts: datetime, number: int) -> ChatMessage | Skipped:
        notices = self.notices
        if self._hear(notices.deleted.find(text)):
            return Skipped(line=number, reason="deleted message", text=text[:120])
        if self._hear(notices.waiting.find(text)):
            return Skipped(line=number, reason="waiting for this message (not in the export)", text=text[:120])
        if self._hear(notices.calls.find(text)):  # iOS marks it as a system line; Android does not
            return Skipped(line=number, reason="system message", text=text[:120])
        edited = self._hear(notices.edited.find(text))
        text = notices.edited.remove(text) if edited else text
        attachments, text = self._take_attachments(text)
        if self._hear(notices.media.find(text)):
            attachments.append(text.lower().strip("<>"))
            text = ""
        if not text:
            what = ", ".join(attachments) or "nothing"
            return Skipped(line=number, reason=f"media without text ({what})", text=sender)
        if not attachments and not edited and (said.startswith("\u200e") or _LIKE_A_PLACEHOLDER.match(text)):
            self.kept_unexplained.append(text)
        return ChatMessage(sender=sender, ts=ts, text=text, line=number, attachments=attachments, edited=edited)

    def _take_attachments(self, text: str) -> tuple[list[str], str]:
        """The files a message names ("<attached: …>" anywhere; "… (file attached)" first on
        Android, its caption after), and the message without them."""
        files = []
        for found, codes in self.notices.attached_ios.find_all(text):
            self.heard.update(codes)
            files.append(found.group("file").strip())
        text = self.notices.attached_ios.remove(text)
        android = self.notices.attached_android.find(text)
        if self._hear(android):
            files.append(android[0].group("file"))
            text = text[android[0].end() :]
        return files, text.strip()

    def locale_note(self, given: str | None) -> str:
        if given:
            return f"locale {given} (given)"
        heard, source = (self.heard, "its system lines") if self.heard else (self.heard_in_headers, "its timestamps")
        if heard:
            rank = {code: i for i, code in enumerate(BY_CODE)}
            best = max(heard, key=lambda code: (heard[code], -rank[code]))
            return f"locale {best} (from {source})"
        if self.system_unexplained or self.kept_unexplained:
            kept = ""
            if self.kept_unexplained:
                example = self.kept_unexplained[0][:60]
                kept = f" ({len(self.kept_unexplained)} kept look like one, e.g. {example!r})"
            return (
                f"locale not recognised (known: {', '.join(BY_CODE)}): lines without an author were skipped as "
                f"system lines, but media, deleted-message and other notices may have been kept as messages{kept}"
            )
        return "locale not detected (no system lines or notices to tell it by)"


def infer_date_order(dates: list[tuple[int, str]], heads: list | None = None) -> tuple[DateOrder, str]:
    """Day-first or month-first, from the whole file: an order under which some date is impossible
    (a month over 12) is ruled out; if both remain, the one that keeps the messages in time order;
    if that ties, the one under which the chat spans less time (a chat read in the wrong order
    jumps a month each time the day changes: 3/1 then 3/6 is five days, or January to June); if
    that ties too (one day), day-first, said in the note. Year-first dates are unambiguous."""
    parts = [(n, _split(d)) for n, d in dates]
    if all(len(p[0]) == 4 for _, p in parts):
        return "ymd", "date order ymd (year first)"
    possible = [o for o in ("dmy", "mdy") if all(_valid(p, o) for _, p in parts)]
    if not possible:
        line = next(n for n, p in parts if not _valid(p, "dmy") and not _valid(p, "mdy"))
        raise MalformedExport(f"line {line}: a date no day/month order can read: {dict(dates)[line]!r}", {"line": line})
    if len(possible) == 1:
        return possible[0], f"date order {possible[0]} (the only one every date fits)"
    if heads is not None:
        backwards = {o: _backwards(heads, o) for o in possible}
        if backwards["dmy"] != backwards["mdy"]:
            best = min(possible, key=lambda o: backwards[o])
            return best, f"date order {best} (keeps the messages in time order)"
        spans = {o: _span(heads, o) for o in possible}
        if spans["dmy"] != spans["mdy"]:
            best = min(possible, key=lambda o: spans[o])
            other = "mdy" if best == "dmy" else "dmy"
            return best, (
                f"date order {best} (every date fits both; read {best} the chat spans {_days(spans[best])}, "
                f"read {other} {_days(spans[other])}); pass --date-order {other} if it is {_ORDER_NAMES[other]}"
            )
    return "dmy", "date order dmy assumed: every date fits both orders; pass --date-order mdy if it is month-first"


_ORDER_NAMES = {"dmy": "day-first", "mdy": "month-first"}


def _days(span: timedelta) -> str:
    return "1 day" if span.days == 1 else f"{span.days} days"


def _backwards(heads: list, order: DateOrder) -> int:
    stamps = [_timestamp(m, order, n) for n, m, _ in heads]
    return sum(1 for a, b in zip(stamps, stamps[1:]) if b < a)


def _span(heads: list, order: DateOrder) -> timedelta:
    """How long the chat lasts read in ``order``: the sum of the steps between its messages."""
    stamps = [_timestamp(m, order, n) for n, m, _ in heads]
    return sum((abs(b - a) for a, b in zip(stamps, stamps[1:])), timedelta())


def _split(date: str) -> tuple[str, str, str]:
    a, b, c = re.split(r"[./-]", date)
    return a, b, c


def _valid(parts: tuple[str, str, str], order: str) -> bool:
    a, b, _ = (int(p) for p in parts)
    day, month = (a, b) if order == "dmy" else (b, a)
    return 1 <= month <= 12 and 1 <= day <= 31


def _timestamp(match: re.Match, order: DateOrder, number: int) -> datetime:
    a, b, c = _split(match.group("date"))
    if order == "ymd":
        year, month, day = int(a), int(b), int(c)
    else:
        day, month = (int(a), int(b)) if order == "dmy" else (int(b), int(a))
        year = int(c) + (2000 if len(c) <= 2 else 0)
    pieces = [int(x) for x in re.split(r"[:.]", match.group("time"))]
    hour, minute, second = pieces[0], pieces[1], pieces[2] if len(pieces) > 2 else 0
    word = re.sub(r"[\s.]", "", (match.group("ampm") or match.group("ampm_first") or "").lower())
    half = _HALF_DAY.get(word, word)  # "vorm." -> am, "p. m." -> pm
    if half:
        hour = hour % 12 + (12 if half == "pm" else 0)
    try:
        return datetime(year, month, day, hour, minute, second)
    except ValueError as exc:
        raise MalformedExport(
            f"line {number}: {match.group('date')} {match.group('time')}: {exc}", {"line": number}
        ) from None


def _title_from(name: str) -> str:
    """The chat's title from the export's file name, without the " (1)" a second download of the
    same name gets (a later export of Jonas's chat renamed it "Jonas Weber (1)").

    >>> _title_from("WhatsApp Chat with Jonas Weber (1).txt"), _title_from("Chat de WhatsApp con Ana.zip")
    ('Jonas Weber', 'Ana')
    """
    stem = _DOWNLOADED_AGAIN.sub("", Path(name).stem)
    found = _TITLE.match(stem)
    return found.group("title").strip() if found else stem


_DOWNLOADED_AGAIN = re.compile(r"\s\(\d{1,3}\)$")


def _json_like(data: bytes) -> bool:
    """An object, or an array that parses (an iPhone's lines open with "[" too)."""
    head = first_byte(data)
    if head == b"{":
        return True
    if head != b"[":
        return False
    try:
        return isinstance(json.loads(data.decode("utf-8-sig")), list)
    except (ValueError, UnicodeDecodeError):
        return False


def _read_text(path: Path) -> tuple[str, str]:
    """The export's text and the name to take its title from (a zip's own name: its .txt is "_chat.txt")."""
    data, archive = read_export(path)
    if archive is not None:
        texts = [n for n in archive.namelist() if n.lower().endswith(".txt")]
        if len(texts) != 1:
            raise MalformedExport(
                f"expected one .txt chat in the zip, found {len(texts)}. {zip_contents(archive)}", {"line": 0}
            )
        data = archive.read(texts[0])
    elif path.suffix.lower() == ".zip":
        raise MalformedExport(NOT_A_ZIP, {"line": 0})
    elif _json_like(data):
        raise MalformedExport(
            "this is JSON, not WhatsApp's text export (another app's export? `agentmemd import auto` tells which)",
            {"line": 1},
        )
    return decode_text(data, path.name), path.name
