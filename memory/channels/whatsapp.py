"""WhatsApp's "Export chat" text, from Android and iOS, in the shapes real exports have.

    Android   12/03/2024, 14:05 - Ana: See you at the station
              3/12/24, 2:05 PM - Ana: See you at the station        (12 h; a narrow no-break space)
              12.03.24, 14:05 - Messages and calls are end-to-end encrypted. …   (a system line)
    iOS       [12/03/2024, 14:05:33] Ana: See you at the station
              ‎[3/12/24, 2:05:33 PM] Ana: ‎image omitted               (direction marks before both)

A line that does not start with a date and time continues the message before it. Dates are
day-first or month-first, which the export does not say: ``infer_date_order`` decides from the
whole file (a field over 12, then which order keeps the messages in time order); ``date_order``
overrides it. System lines (the encryption notice, "created group", "added") and deleted or
media-only messages are reported as skipped, with the reason; an attachment with a caption keeps
the caption. A file whose first line is not a message, or a date no order can read, is an error
naming the line.
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import Literal

from agentmemd.memory.channels.exports import decode_text, read_export
from agentmemd.memory.channels.identity import content_chat_id, title_from_people
from agentmemd.memory.core.chats import Chat, ChatExport, ChatMessage, Skipped
from agentmemd.memory.core.errors import MalformedExport

DateOrder = Literal["dmy", "mdy", "ymd"]

# Invisible marks WhatsApp puts around names, numbers and system text (LRM, RLM, embeddings,
# isolates, BOM), and the spaces it uses inside times.
_MARK_CHARS = "\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\ufeff"
_MARKS = dict.fromkeys(map(ord, _MARK_CHARS))
_SPACES = {0x202F: " ", 0x00A0: " "}

_DATE = r"(?P<date>\d{1,4}[./-]\d{1,2}[./-]\d{1,4})"
_TIME = r"(?P<time>\d{1,2}[:.]\d{2}(?:[:.]\d{2})?)(?:\s?(?P<ampm>[AaPp]\.?\s?[Mm]\.?))?"
_ANDROID = re.compile(rf"^{_DATE},? {_TIME} [-–] (?P<rest>.*)$", re.S)
_IOS = re.compile(rf"^\[{_DATE},? {_TIME}\] (?P<rest>.*)$", re.S)

_SYSTEM = re.compile(
    r"(messages and calls are end-to-end encrypted|messages to this (?:group|chat) are now|"
    r"created (?:the )?group|created this group|\badded\b|\bleft$|\bremoved\b|changed the (?:subject|group)|"
    r"changed this group's|joined using this group's invite link|now an admin|security code (?:with .* )?changed|"
    r"changed their phone number|missed (?:voice|video) call|disappearing messages|pinned a message)",
    re.I,
)
_GROUP_EVENT = re.compile(r"created (?:the )?group|created this group|\badded\b|changed the (?:subject|group)", re.I)
_MEDIA_ONLY = re.compile(
    r"^(?:<media omitted>|(?:image|video|audio|sticker|gif|document|contact card) omitted|null)$", re.I
)
_ATTACHED_IOS = re.compile(r"<attached: (?P<file>[^>]+)>")
_ATTACHED_ANDROID = re.compile(r"^(?P<file>\S+\.\w{2,5}) \(file attached\)\n?", re.I)
_DELETED = re.compile(r"^(?:this message was deleted|you deleted this message)\.?$", re.I)
_EDITED = re.compile(r"\s*<this message was edited>$", re.I)
_TITLE = re.compile(r"^WhatsApp Chat (?:with|-) (?P<title>.+)$", re.I)


def read_whatsapp(path: Path, date_order: DateOrder | None = None, title: str | None = None) -> ChatExport:
    """Parse a WhatsApp export: the ``.txt``, or the ``.zip`` WhatsApp makes with media."""
    text, name = _read_text(Path(path))
    chat_title = title or _title_from(name)
    export = parse_whatsapp(text, chat_title, date_order)
    chat = export.chats[0]
    # Known by its content, not its file's name (memory/channels/identity.py); the id imports
    # gave it before is kept to continue a chat stored under it.
    chat.earlier_ids = [chat.chat_id]
    chat.chat_id = content_chat_id("whatsapp", chat.messages)
    if not title and Path(name).stem.lower() == "_chat":  # iOS names every export so
        chat.title = title_from_people(chat.messages)
    return export


def parse_whatsapp(text: str, title: str, date_order: DateOrder | None = None) -> ChatExport:
    heads: list[tuple[int, re.Match, str]] = []  # (line number, header match, raw body)
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    bodies: list[list[str]] = []
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
    dates = [(n, m.group("date")) for n, m, _ in heads]
    order, note = (date_order, f"date order {date_order} (given)") if date_order else infer_date_order(dates, heads)
    chat = Chat(chat_id=f"whatsapp:{title}", title=title, kind="private")
    group_events = False
    for (number, match, rest), more in zip(heads, bodies):
        ts = _timestamp(match, order, number)
        body = "\n".join([rest, *more])
        sender, sep, said = body.partition(": ")
        said_clean = said.translate(_MARKS).strip()
        if not sep or (said.startswith("\u200e") and _SYSTEM.search(said_clean)) or _is_event(sender):
            group_events = group_events or bool(_GROUP_EVENT.search(body))
            chat.skipped.append(Skipped(line=number, reason="system message", text=body.translate(_MARKS)[:120]))
            continue
        chat.add(_message(sender.translate(_MARKS).strip(), said_clean, ts, number))
    if group_events or len(chat.senders) > 2:
        chat.kind = "group"
    return ChatExport(format="whatsapp", chats=[chat], notes=[note])


def _is_event(sender: str) -> bool:
    """What stands before the first ": " of an Android system line that quotes a colon (a group
    subject "Trip: June"): an event, not a person named 'Ana changed the subject …'."""
    return len(sender) > 60 or bool(_SYSTEM.search(sender) and " " in sender.strip())


def _message(sender: str, said: str, ts: datetime, number: int) -> ChatMessage | Skipped:
    if _DELETED.match(said):
        return Skipped(line=number, reason="deleted message", text=said[:120])
    edited = bool(_EDITED.search(said))
    said = _EDITED.sub("", said)
    attachments = [m.group("file") for m in _ATTACHED_IOS.finditer(said)]
    said = _ATTACHED_IOS.sub("", said)
    android = _ATTACHED_ANDROID.match(said)
    if android:
        attachments.append(android.group("file"))
        said = said[android.end() :]
    said = said.strip()
    if _MEDIA_ONLY.match(said):
        attachments.append(said.lower().strip("<>"))
        said = ""
    if not said:
        what = ", ".join(attachments) or "nothing"
        return Skipped(line=number, reason=f"media without text ({what})", text=sender)
    return ChatMessage(sender=sender, ts=ts, text=said, line=number, attachments=attachments, edited=edited)


def infer_date_order(dates: list[tuple[int, str]], heads: list | None = None) -> tuple[DateOrder, str]:
    """Day-first or month-first, from the whole file: an order under which some date is impossible
    (a month over 12) is ruled out; if both remain, the one that keeps the messages in time order;
    if that ties too, day-first, said in the note. Year-first dates are unambiguous."""
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
    return "dmy", "date order dmy assumed: every date fits both orders; pass --date-order mdy if it is month-first"


def _backwards(heads: list, order: DateOrder) -> int:
    stamps = [_timestamp(m, order, n) for n, m, _ in heads]
    return sum(1 for a, b in zip(stamps, stamps[1:]) if b < a)


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
    ampm = (match.group("ampm") or "").lower().replace(".", "").replace(" ", "")
    if ampm:
        hour = hour % 12 + (12 if ampm == "pm" else 0)
    try:
        return datetime(year, month, day, hour, minute, second)
    except ValueError as exc:
        raise MalformedExport(
            f"line {number}: {match.group('date')} {match.group('time')}: {exc}", {"line": number}
        ) from None


def _title_from(name: str) -> str:
    stem = Path(name).stem
    found = _TITLE.match(stem)
    return found.group("title").strip() if found else stem


def _read_text(path: Path) -> tuple[str, str]:
    """The export's text and the name to take its title from (a zip's own name: its .txt is "_chat.txt")."""
    data, archive = read_export(path)
    if archive is not None:
        texts = [n for n in archive.namelist() if n.lower().endswith(".txt")]
        if len(texts) != 1:
            raise MalformedExport(f"{path}: expected one .txt chat in the zip, found {len(texts)}", {"line": 0})
        data = archive.read(texts[0])
    return decode_text(data, path.name), path.name
