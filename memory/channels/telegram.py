"""Telegram Desktop's "Export chat history" JSON (``result.json``): one chat, or a whole account.

    one chat     {"name": "Ana", "type": "personal_chat", "id": 42, "messages": [...]}
    an account   {"chats": {"list": [<chat>, ...]}, "left_chats": {"list": [...]}, ...}

A message's ``text`` is a string, or an array of plain strings and entity objects
(``{"type": "bold", "text": "…"}``, links, mentions, code) that ``flatten_text`` joins; a word
linked elsewhere (``{"type": "text_link", "text": "the menu", "href": "https://…"}``) keeps its
address: "the menu (https://…)". A poll (``{"question", "answers": [{"text", "voters"}], "closed",
"total_voters"}``) is its question and options as text; a shared contact or location is named.
Service messages (created group, invited, pinned, calls) are skipped with their action; a reply
keeps the id it answers, a forward who it came from, an edit is flagged. ``date_unixtime`` (newer
exports) gives the instant; older ones only have ``date`` in the exporting machine's time zone.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from agentmemd.memory.channels.exports import edit_time, expect, from_epoch, from_iso, read_json_export
from agentmemd.memory.core.chats import Chat, ChatExport, ChatKind, ChatMessage, Skipped
from agentmemd.memory.core.errors import MalformedExport

PRIVATE_TYPES = {"personal_chat", "bot_chat", "saved_messages"}
GROUP_TYPES = {"private_group", "private_supergroup", "public_supergroup", "private_channel", "public_channel"}
MEDIA_KEYS = ("photo", "file", "media_type")  # file paths (or why a file was left out) and kinds, as written


def read_telegram(path: Path) -> ChatExport:
    """Parse ``result.json`` (or a zip holding it)."""
    return parse_telegram(read_json_export(path, "result.json", "Telegram"))


def parse_telegram(document: Any) -> ChatExport:
    expect(document, dict, "result.json")
    if "messages" in document:
        raw_chats = [document]
    elif isinstance(document.get("chats"), dict):
        raw_chats = [
            *expect(document["chats"].get("list", []), list, "chats.list"),
            *expect(document.get("left_chats", {}).get("list", []), list, "left_chats.list"),
        ]
    else:
        raise MalformedExport("result.json: neither one chat ('messages') nor an account export ('chats')", {"line": 0})
    chats = [_chat(raw, n) for n, raw in enumerate(raw_chats, start=1)]
    me = document.get("personal_information") or {}  # an account export says whose it is
    owner = f"user{me['user_id']}" if isinstance(me, dict) and me.get("user_id") else None
    return ChatExport(format="telegram", chats=chats, owner=owner)


def flatten_text(text: Any) -> str:
    """A message's text: the string itself, or the array's strings and entities' texts joined."""
    if isinstance(text, str):
        return text
    if isinstance(text, list):
        return "".join(_entity_text(part) for part in text)
    return ""


def _entity_text(part: Any) -> str:
    if isinstance(part, str):
        return part
    if not isinstance(part, dict):
        return ""
    shown, href = str(part.get("text", "")), part.get("href")
    if part.get("type") == "text_link" and href and str(href) != shown:  # the words alone lose where they point
        return f"{shown} ({href})" if shown.strip() else str(href)
    return shown


def poll_text(poll: dict) -> str:
    """``Poll: Dinner on Friday? — options: Sushi (3 votes), Tapas (1 vote, the user's) (closed)``:
    the question, each option with its votes as the export counts them, and the exporting user's
    own choice (``chosen``)."""
    options = [_option(a) for a in poll.get("answers") or [] if isinstance(a, dict)]
    text = f"Poll: {flatten_text(poll.get('question')).strip() or '(no question)'}"
    if options:
        text += " — options: " + ", ".join(o for o in options if o)
    return text + (" (closed)" if poll.get("closed") else "")


def _option(answer: dict) -> str:
    said = flatten_text(answer.get("text")).strip()
    votes = answer.get("voters")
    marks = (
        [f"{votes} vote{'s' if votes != 1 else ''}"] if isinstance(votes, int) and not isinstance(votes, bool) else []
    )
    if answer.get("chosen") is True:
        marks.append("the user's")
    return f"{said} ({', '.join(marks)})" if said and marks else said


def _attachments(raw: dict) -> list[str]:
    """What came with a message, as a person reads it: file paths, media kinds, a contact, a place."""
    found = [str(raw[key]) for key in MEDIA_KEYS if raw.get(key)]
    contact = raw.get("contact_information")
    if isinstance(contact, dict):
        name = " ".join(str(contact.get(k) or "") for k in ("first_name", "last_name")).strip()
        phone = contact.get("phone_number")
        found.append(f"contact {name or 'unnamed'}" + (f" ({phone})" if phone else ""))
    point = raw.get("location_information")
    venue = ", ".join(str(p) for p in (raw.get("place_name"), raw.get("address")) if p)
    if isinstance(point, dict):
        found.append(f"location {point.get('latitude')}, {point.get('longitude')}" + (f" ({venue})" if venue else ""))
    elif venue:
        found.append(f"place {venue}")
    return found


def _chat(raw: Any, number: int) -> Chat:
    expect(raw, dict, f"chat {number}")
    kind: ChatKind = "group" if raw.get("type") in GROUP_TYPES else "private"
    title = str(
        raw.get("name") or ("Saved Messages" if raw.get("type") == "saved_messages" else f"chat {raw.get('id')}")
    )
    chat = Chat(chat_id=f"telegram:{raw.get('id', title)}", title=title, kind=kind)
    for position, message in enumerate(expect(raw.get("messages", []), list, f"chat '{title}': messages"), start=1):
        try:
            parsed = _message(expect(message, dict, f"message {position}", position), position)
        except MalformedExport as exc:  # an account export has many chats: say which
            raise MalformedExport(f"chat '{title}': {exc.message}", exc.data) from None
        chat.add(parsed)
    return chat


def _message(raw: dict, position: int) -> ChatMessage | Skipped:
    given = raw["text"] if "text" in raw else raw.get("text_entities", "")
    if not isinstance(given, (str, list)):  # Telegram writes a string or a list of parts, nothing else
        raise MalformedExport(
            f"message {position}: text is {type(given).__name__} {str(given)[:40]!r}, not a string or a list of parts",
            {"line": position},
        )
    text = flatten_text(given).strip()
    if raw.get("type") == "service":
        who = raw.get("actor") or "someone"
        return Skipped(
            line=position, reason=f"service message ({raw.get('action', 'unknown')})", text=f"{who} {text}"[:120]
        )
    if raw.get("type") != "message":
        return Skipped(line=position, reason=f"not a message (type {raw.get('type')!r})", text=text[:120])
    attachments = _attachments(raw)
    if isinstance(raw.get("poll"), dict):  # a poll has no caption: its question and options are what it says
        text = "\n".join(t for t in (text, poll_text(raw["poll"])) if t)
    if not text:
        what = ", ".join(attachments) or "nothing"
        return Skipped(line=position, reason=f"media without text ({what})", text=str(raw.get("from") or ""))
    sender = raw.get("from") or "Deleted Account"
    reply = raw.get("reply_to_message_id")
    return ChatMessage(
        sender=str(sender),
        sender_id=str(raw["from_id"]) if raw.get("from_id") else None,
        ts=_when(raw, position),
        text=text,
        line=position,
        attachments=attachments,
        edited=bool(raw.get("edited")),
        edited_at=edit_time(raw.get("edited_unixtime") or raw.get("edited")),
        reply_to=str(reply) if reply is not None else None,
        forwarded_from=str(raw["forwarded_from"]) if raw.get("forwarded_from") else None,
        message_id=str(raw["id"]) if raw.get("id") is not None else None,
    )


def _when(raw: dict, position: int) -> datetime:
    if raw.get("date_unixtime"):
        try:
            return from_epoch(raw["date_unixtime"])
        except (TypeError, ValueError):
            raise MalformedExport(
                f"message {position}: date_unixtime {raw['date_unixtime']!r}", {"line": position}
            ) from None
    if not raw.get("date"):
        raise MalformedExport(f"message {position}: no date", {"line": position})
    return from_iso(raw["date"], f"message {position}: date", position)
