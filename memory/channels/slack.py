"""Slack's workspace export: a ``.zip`` of JSON files.

    users.json                     [{"id": "U1", "name": "ana", "real_name": "Ana Silva", "profile": {...}}]
    channels.json / groups.json    public / private channels: {"id": "C1", "name": "general", "members": [...]}
    dms.json / mpims.json          direct messages / group DMs: {"id": "D1", "members": ["U1", "U2"]}
    general/2024-03-12.json        a day of a channel's messages (a DM's folder is named by its id)

Messages carry Slack's markup: ``<@U1>`` mentions become ``@Ana Silva`` through users.json,
``<#C1|general>`` becomes ``#general``, ``<https://x|label>`` its label, and ``&amp;`` ``&lt;`` ``&gt;``
their characters. A thread reply keeps the ``thread_ts`` of the message it answers; joins, leaves,
topic changes and deleted-message tombstones are skipped with their subtype (a tombstone keeps the
deleted message's ``ts``: a message stored by an earlier import becomes a tombstone too). Folders no listing
names (an export with only some of the files) are read as channels.
"""

from __future__ import annotations

import html
import re
import zipfile
from pathlib import Path
from typing import Any

from agentmemd.memory.channels.exports import edit_time, expect, from_epoch, load_json, not_the_export, read_export
from agentmemd.memory.core.chats import Chat, ChatExport, ChatKind, ChatMessage, Skipped
from agentmemd.memory.core.errors import MalformedExport

LISTINGS: dict[str, ChatKind] = {
    "channels.json": "group",
    "groups.json": "group",
    "dms.json": "private",
    "mpims.json": "group",
}
SKIPPED_SUBTYPES = {
    "channel_join", "channel_leave", "channel_topic", "channel_purpose", "channel_name", "channel_archive",
    "channel_unarchive", "group_join", "group_leave", "group_topic", "group_purpose", "group_name",
    "pinned_item", "unpinned_item", "tombstone", "reminder_add", "bot_add", "bot_remove", "huddle_thread",
}  # fmt: skip
_DAY_FILE = re.compile(r"^(?P<folder>.+)/(?P<day>\d{4}-\d{2}-\d{2})\.json$")
_MARKUP = re.compile(r"<(?P<body>[^<>]+)>")


def read_slack(path: Path) -> ChatExport:
    """Parse a Slack export zip."""
    path = Path(path)
    _, archive = read_export(path)
    if archive is None:
        raise MalformedExport(
            f"not a zip: {path.name} (a Slack export is a .zip: Slack's 'Export data' download)", {"line": 0}
        )
    return parse_slack(archive, path.name)


def parse_slack(archive: zipfile.ZipFile, name: str = "export.zip") -> ChatExport:
    prefix = _prefix(archive)
    files = {n[len(prefix) :]: n for n in archive.namelist() if n.startswith(prefix) and not n.endswith("/")}
    read = lambda member: load_json(archive.read(files[member]), f"{name}: {member}")  # noqa: E731
    users = _users(read("users.json") if "users.json" in files else [])
    days: dict[str, list[str]] = {}
    for member in sorted(files):
        found = _DAY_FILE.match(member)
        if found:
            days.setdefault(found.group("folder"), []).append(member)
    if not days:
        lacking = ["channel folders of day files (e.g. general/2024-03-12.json)"]
        lacking += [listing for listing in ("users.json", "channels.json") if listing not in files]
        raise not_the_export(archive, name, " nor ".join(lacking), "Slack")
    listed = _listed(read, files, users)
    chats = []
    for folder, members in days.items():
        chat_id, title, kind = listed.get(folder, (folder, f"#{folder}", "group"))
        chat = Chat(chat_id=f"slack:{chat_id}", title=title, kind=kind)
        raw = [(member, m) for member in members for m in expect(read(member), list, f"{name}: {member}")]
        raw.sort(key=lambda pair: float(pair[1].get("ts", 0)) if isinstance(pair[1], dict) else 0.0)
        for position, (member, message) in enumerate(raw, start=1):
            expect(message, dict, f"{name}: {member}: a message", position)
            parsed = _message(message, position, users, listed, member)
            chat.add(parsed)
            if message.get("subtype") == "tombstone" and message.get("ts"):  # keeps the deleted message's ts
                chat.deleted.append(str(message["ts"]))
        chats.append(chat)
    return ChatExport(format="slack", chats=chats)


def _prefix(archive: zipfile.ZipFile) -> str:
    """Re-zipped exports put everything under one top folder: that folder, to strip."""
    names = archive.namelist()
    tops = {n.split("/", 1)[0] for n in names}
    if len(tops) == 1:
        top = tops.pop()
        if any(n in (f"{top}/users.json", f"{top}/channels.json") for n in names):
            return top + "/"
    return ""


def _users(raw: Any) -> dict[str, str]:
    names = {}
    for user in expect(raw, list, "users.json"):
        if isinstance(user, dict) and user.get("id"):
            profile = user.get("profile") or {}
            names[user["id"]] = (
                profile.get("real_name")
                or user.get("real_name")
                or profile.get("display_name")
                or user.get("name")
                or user["id"]
            )
    return names


def _listed(read, files: dict[str, str], users: dict[str, str]) -> dict[str, tuple[str, str, ChatKind]]:
    """folder -> (chat id, title, kind), from the listings the export has."""
    listed: dict[str, tuple[str, str, ChatKind]] = {}
    for listing, kind in LISTINGS.items():
        if listing not in files:
            continue
        for entry in expect(read(listing), list, listing):
            if not isinstance(entry, dict) or not entry.get("id"):
                continue
            if listing == "dms.json":
                people = [users.get(m, m) for m in entry.get("members", [])]
                title = "DM: " + ", ".join(people)
            elif listing == "mpims.json":
                title = "Group DM: " + ", ".join(users.get(m, m) for m in entry.get("members", []))
            else:
                title = f"#{entry.get('name', entry['id'])}"
            folder = entry.get("name") if listing != "dms.json" else entry["id"]
            listed[str(folder or entry["id"])] = (entry["id"], title, kind)
    return listed


def _message(raw: dict, position: int, users: dict[str, str], listed: dict, member: str) -> ChatMessage | Skipped:
    subtype = raw.get("subtype")
    text = render_markup(str(raw.get("text") or ""), users, listed)
    if subtype in SKIPPED_SUBTYPES or raw.get("type", "message") != "message":
        return Skipped(line=position, reason=f"{subtype or raw.get('type')} message", text=text[:120])
    files = [str(f.get("name") or f.get("title") or "file") for f in raw.get("files") or [] if isinstance(f, dict)]
    user = raw.get("user") or raw.get("bot_id")
    profile = raw.get("user_profile") or {}
    sender = users.get(user) if user else None
    sender = sender or profile.get("real_name") or raw.get("username") or user or "unknown"
    if not text.strip():
        return Skipped(line=position, reason=f"media without text ({', '.join(files) or 'nothing'})", text=sender)
    try:
        ts = from_epoch(raw["ts"])
    except (KeyError, TypeError, ValueError):
        raise MalformedExport(
            f"{member}: message {position}: no valid ts ({raw.get('ts')!r})", {"line": position}
        ) from None
    thread = raw.get("thread_ts")
    return ChatMessage(
        sender=sender,
        sender_id=str(user) if user else None,
        ts=ts,
        text=text.strip(),
        line=position,
        attachments=files,
        edited=bool(raw.get("edited")),
        edited_at=edit_time(raw["edited"].get("ts")) if isinstance(raw.get("edited"), dict) else None,
        reply_to=str(thread) if thread and thread != raw.get("ts") else None,
        message_id=str(raw["ts"]),
    )


def render_markup(text: str, users: dict[str, str], listed: dict | None = None) -> str:
    """Slack's mrkdwn references as a person reads them."""
    channels = {chat_id: title for chat_id, title, _ in (listed or {}).values()}

    def one(found: re.Match) -> str:
        body = found.group("body")
        target, _, label = body.partition("|")
        if target.startswith("@"):
            return "@" + (users.get(target[1:]) or label or target[1:])
        if target.startswith("#"):
            return channels.get(target[1:]) or f"#{label or target[1:]}"
        if target.startswith("!"):
            return "@" + (label or target[1:].split("^")[0])
        link = target.removeprefix("mailto:")
        # A labelled link keeps its address too ("menu (https://…)", as the Telegram reader writes it):
        # the address is often what is asked for later. One labelled with itself, once.
        return f"{label} ({link})" if label and label != link else link

    return html.unescape(_MARKUP.sub(one, text))
