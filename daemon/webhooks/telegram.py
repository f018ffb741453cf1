"""Telegram Bot API updates (https://core.telegram.org/bots/api#update) as chat messages.

A bot's webhook receives one ``Update`` per request: a ``message``, ``edited_message``,
``channel_post`` or ``business_message`` with its ``chat`` and ``from``. The sender's account is
``user<id>``, the form Telegram Desktop's export uses, so a person imported from an export and
the same person writing to the bot later are one person. An edit is stored as a new turn marked
edited (its key carries the edit time); an update with no text or caption is acknowledged and
ignored (Telegram retries anything but a 2xx).
"""

from __future__ import annotations

from typing import Any

from agentmemd.memory.channels.exports import from_epoch
from agentmemd.memory.core.chats import ChatMessage

MESSAGE_KEYS = ("message", "edited_message", "channel_post", "edited_channel_post", "business_message")


def _name(user: dict[str, Any]) -> str:
    full = " ".join(p for p in (user.get("first_name"), user.get("last_name")) if p)
    return full or user.get("username") or user.get("title") or str(user.get("id", "unknown"))


def telegram_batch(update: dict[str, Any]) -> tuple[dict[str, Any] | None, str]:
    """``channels.ingest`` params for the update (without namespace), or None and why it is ignored."""
    key = next((k for k in MESSAGE_KEYS if isinstance(update.get(k), dict)), None)
    if key is None:
        return None, "not a message update"
    message = update[key]
    chat = message.get("chat") or {}
    text = (message.get("text") or message.get("caption") or "").strip()
    if not text:
        return None, "a message without text"
    if "id" not in chat or "date" not in message:
        return None, "a message without chat.id or date"
    sender = message.get("from") or message.get("sender_chat") or chat
    edited = message.get("edit_date")
    origin = message.get("forward_origin") or {}
    forwarded = origin.get("sender_user") or origin.get("chat") or message.get("forward_from")
    said = ChatMessage(
        sender=_name(sender),
        sender_id=f"user{sender['id']}" if "id" in sender else None,
        ts=from_epoch(edited or message["date"]),
        text=text,
        line=int(update.get("update_id", 0)),
        edited=bool(edited),
        reply_to=str(message["reply_to_message"]["message_id"]) if message.get("reply_to_message") else None,
        forwarded_from=_name(forwarded) if isinstance(forwarded, dict) else origin.get("sender_user_name"),
        message_id=f"{message.get('message_id')}" + (f"@{edited}" if edited else ""),
    )
    private = chat.get("type") == "private"
    return {
        "channel": "telegram",
        "chat_id": f"telegram:{chat['id']}",
        "title": chat.get("title") or _name(chat),
        "kind": "private" if private else "group",
        "messages": [said.model_dump(mode="json", exclude_defaults=True)],
    }, ""
