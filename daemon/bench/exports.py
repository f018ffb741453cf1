"""LoCoMo conversations rendered as the chat exports people have, with the quirks real ones carry.

Used at test time and by `agentmemd bench import`; nothing rendered is kept in the repo. A LoCoMo
turn has no time of its own, so the turns of a session are a minute apart from the session's
time; sessions are days apart, so an import's time-gap split gives LoCoMo's sessions back.

    WhatsApp   Android (24 h, day-first, the encryption notice, "<Media omitted>" for a shared
               image) or iOS (12 h month-first with a narrow no-break space before PM, direction
               marks, "<attached: …>" lines), a long turn split over two lines
    Telegram   an account export: text as a string or an entity array, a service message, a
               photo with the caption, replies
    Slack      a channel's day files in a zip: a join message, "&amp;" escapes, <@U…> mentions,
               a file share
    Discord    DiscordChatExporter JSON: a member-join message, nickname mentions, attachments
"""

from __future__ import annotations

import json
import zipfile
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from agentmemd.daemon.bench.benchmarks import locomo_date

NNBSP, LRM = "\u202f", "\u200e"


def sessions(sample: dict[str, Any], shift: timedelta = timedelta(0)) -> list[list[dict[str, Any]]]:
    """Each session's turns with a time each (session time + one minute per turn)."""
    conv = sample["conversation"]
    out, n = [], 1
    while f"session_{n}" in conv:
        start = locomo_date(conv[f"session_{n}_date_time"]) + shift
        out.append([{**t, "ts": start + timedelta(minutes=i)} for i, t in enumerate(conv[f"session_{n}"])])
        n += 1
    return out


def speakers(sample: dict[str, Any]) -> tuple[str, str]:
    return sample["conversation"]["speaker_a"], sample["conversation"]["speaker_b"]


def _text(turn: dict[str, Any]) -> str:
    return turn["text"].strip()


def render_whatsapp(sample: dict[str, Any], *, ios: bool = False, shift: timedelta = timedelta(0)) -> str:
    lines = []
    first = sessions(sample, shift)[0][0]["ts"]
    notice = "Messages and calls are end-to-end encrypted. No one outside of this chat, not even WhatsApp, can read or listen to them."
    lines.append(_wa_head(first, ios) + (f"{LRM}{notice}" if ios else notice))
    for session in sessions(sample, shift):
        for turn in session:
            head, text = _wa_head(turn["ts"], ios), _text(turn)
            if len(text) > 160 and ". " in text:  # a long message, written over two lines
                cut = text.index(". ") + 1
                text = text[:cut] + "\n" + text[cut + 1 :]
            if turn.get("blip_caption"):
                if ios:
                    lines.append(
                        f"{LRM}{head}{turn['speaker']}: {LRM}<attached: 00000{turn['dia_id'][1:].replace(':', '')}-PHOTO.jpg>"
                    )
                else:
                    lines.append(f"{head}{turn['speaker']}: <Media omitted>")
            lines.append(f"{head}{turn['speaker']}: {text}")
    return "\n".join(lines) + "\n"


def _wa_head(ts: datetime, ios: bool) -> str:
    if ios:  # month-first, 12 h, seconds, narrow no-break space before AM/PM
        hour = ts.hour % 12 or 12
        return f"[{ts.month}/{ts.day}/{ts:%y}, {hour}:{ts:%M:%S}{NNBSP}{'AM' if ts.hour < 12 else 'PM'}] "
    return f"{ts:%d/%m/%Y, %H:%M} - "


def whatsapp_message_count(sample: dict[str, Any]) -> int:
    """Messages the WhatsApp rendering has (a shared image's media line is skipped, its caption kept)."""
    return sum(len(s) for s in sessions(sample))


def render_telegram(samples: list[dict[str, Any]], shift: timedelta = timedelta(0)) -> dict[str, Any]:
    chats = []
    for number, sample in enumerate(samples):
        a, b = speakers(sample)
        ids = {a: f"user{1000 + 2 * number}", b: f"user{1001 + 2 * number}"}
        messages: list[dict[str, Any]] = []
        first = sessions(sample, shift)[0][0]["ts"]
        messages.append(_tg_service(len(messages) + 1, first, a, ids[a]))
        for session in sessions(sample, shift):
            for turn in session:
                mid = len(messages) + 1
                message = {
                    "id": mid,
                    "type": "message",
                    "date": turn["ts"].replace(tzinfo=None).isoformat(timespec="seconds"),
                    "date_unixtime": str(int(turn["ts"].timestamp())),
                    "from": turn["speaker"],
                    "from_id": ids[turn["speaker"]],
                    "text": _tg_text(_text(turn), mid),
                }
                if turn.get("blip_caption"):
                    message["photo"] = f"photos/photo_{mid}.jpg"
                if mid % 11 == 0:
                    message["reply_to_message_id"] = mid - 1
                messages.append(message)
        chats.append({"name": b, "type": "personal_chat", "id": 1001 + 2 * number, "messages": messages})
    return {"about": "rendered from LoCoMo", "chats": {"about": "", "list": chats}, "left_chats": {"list": []}}


def _tg_service(mid: int, ts: datetime, actor: str, actor_id: str) -> dict[str, Any]:
    return {
        "id": mid,
        "type": "service",
        "date": ts.replace(tzinfo=None).isoformat(timespec="seconds"),
        "date_unixtime": str(int(ts.timestamp()) - 60),
        "actor": actor,
        "actor_id": actor_id,
        "action": "phone_call",
        "text": "",
    }


def _tg_text(text: str, mid: int) -> Any:
    """Every third message as an entity array (its first word bold), as Telegram writes formatted text."""
    if mid % 3 or " " not in text:
        return text
    word, rest = text.split(" ", 1)
    return [{"type": "bold", "text": word}, " " + rest]


def render_slack(samples: list[dict[str, Any]], into: Path, shift: timedelta = timedelta(0)) -> Path:
    """One public channel per conversation, in one workspace export zip."""
    users, channels, files = [], [], {}
    for number, sample in enumerate(samples):
        a, b = speakers(sample)
        ids = {a: f"U{number:03d}A", b: f"U{number:03d}B"}
        users += [{"id": ids[s], "name": s.lower(), "real_name": s, "profile": {"real_name": s}} for s in (a, b)]
        name = f"chat-{number}"
        channels.append({"id": f"C{number:04d}", "name": name, "members": list(ids.values())})
        for session in sessions(sample, shift):
            for turn in session:
                text = _text(turn).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
                other = b if turn["speaker"] == a else a
                text = text.replace(other, f"<@{ids[other]}>", 1)
                message = {
                    "type": "message",
                    "ts": f"{turn['ts'].timestamp():.6f}",
                    "user": ids[turn["speaker"]],
                    "text": text,
                }
                if turn.get("blip_caption"):
                    message["files"] = [{"id": f"F{turn['dia_id']}", "name": "photo.jpg"}]
                files.setdefault(f"{name}/{turn['ts']:%Y-%m-%d}.json", []).append(message)
        first = sessions(sample, shift)[0][0]["ts"]
        files[f"{name}/{first:%Y-%m-%d}.json"].insert(
            0,
            {
                "type": "message",
                "subtype": "channel_join",
                "ts": f"{first.timestamp() - 30:.6f}",
                "user": ids[a],
                "text": f"<@{ids[a]}> has joined the channel",
            },
        )
    with zipfile.ZipFile(into, "w") as archive:
        archive.writestr("users.json", json.dumps(users))
        archive.writestr("channels.json", json.dumps(channels))
        for member, messages in files.items():
            archive.writestr(member, json.dumps(messages))
    return into


def render_discord(sample: dict[str, Any], number: int = 0, shift: timedelta = timedelta(0)) -> dict[str, Any]:
    a, b = speakers(sample)
    authors = {
        s: {"id": str(800 + 2 * number + i), "name": s.lower(), "nickname": s, "isBot": False}
        for i, s in enumerate((a, b))
    }
    first = sessions(sample, shift)[0][0]["ts"]
    messages = [
        {
            "id": f"{number}000",
            "type": "GuildMemberJoin",
            "timestamp": (first - timedelta(seconds=30)).isoformat(),
            "timestampEdited": None,
            "content": "",
            "author": authors[b],
            "attachments": [],
            "mentions": [],
        }
    ]
    for session in sessions(sample, shift):
        for turn in session:
            other = b if turn["speaker"] == a else a
            text = _text(turn)
            mentions = []
            if other in text:
                text = text.replace(other, f"<@{authors[other]['id']}>", 1)
                mentions = [authors[other]]
            messages.append(
                {
                    "id": f"{number}{len(messages):06d}",
                    "type": "Default",
                    "timestamp": turn["ts"].astimezone(timezone.utc).isoformat(timespec="milliseconds"),
                    "timestampEdited": None,
                    "content": text,
                    "author": authors[turn["speaker"]],
                    "attachments": [{"id": "1", "fileName": "photo.jpg"}] if turn.get("blip_caption") else [],
                    "mentions": mentions,
                }
            )
    return {
        "guild": {"id": "1", "name": "LoCoMo"},
        "channel": {"id": f"9{number:05d}", "type": "GuildTextChat", "name": f"chat-{number}"},
        "messages": messages,
    }
