"""Telegram Bot API updates (https://core.telegram.org/bots/api#update) as chat messages.

A bot's webhook receives one ``Update`` per request: a ``message``, ``channel_post`` or
``business_message`` with its ``chat`` and ``from``. The sender's account is ``user<id>``, the
form Telegram Desktop's export uses, so a person imported from an export and the same person
writing to the bot later are one person. A message sent on behalf of a chat (``sender_chat``: a
channel's post, an anonymous group admin, whose ``from`` is Telegram's stand-in "Group") is that
chat's, ``channel<id>`` or ``chat<id>`` as the export writes them, and is signed with the admin's
title (``author_signature``) where it has one. A poll is its question and options as text, as the
importer keeps it (the votes it is sent with are none yet, so none are said). An update with no
text, caption or poll is acknowledged and ignored (Telegram retries anything but a 2xx).

An edit (``edited_message``, ``edited_channel_post``, ``edited_business_message``: the same
``message_id``, the new text, ``edit_date``) becomes ``channels.edit``: the message's one turn
says the new text. A deletion cannot be followed: the Bot API tells a bot of none (only a
business connection's ``deleted_business_messages``, which this listener does not take), so a
message deleted in Telegram stays in memory until forgotten by hand (``agentmemd memory forget``).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from agentmemd.memory.channels.exports import from_epoch
from agentmemd.memory.channels.telegram import poll_text
from agentmemd.memory.core.chats import ChatMessage

MESSAGE_KEYS = ("message", "channel_post", "business_message")
EDIT_KEYS = ("edited_message", "edited_channel_post", "edited_business_message")
EPOCH_MAX = 2**33  # Unix seconds beyond year 2200: no message was sent then


# The fields of an Update the listener reads, with the Bot API's types (others pass unread), so a
# request that breaks them is a 400 naming the field, never a crash.
class _Part(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)


class TelegramUser(_Part):
    id: int
    first_name: str | None = None
    last_name: str | None = None
    username: str | None = None
    title: str | None = None
    type: str | None = None


class TelegramPollOption(_Part):
    text: str


class TelegramPoll(_Part):
    question: str
    options: list[TelegramPollOption] = []
    is_closed: bool = False


class TelegramMessage(_Part):
    message_id: int | None = None
    date: int = Field(ge=0, le=EPOCH_MAX)
    edit_date: int | None = Field(None, ge=0, le=EPOCH_MAX)
    chat: TelegramUser
    sender: TelegramUser | None = Field(None, alias="from")
    sender_chat: TelegramUser | None = None
    text: str | None = None
    caption: str | None = None
    reply_to_message: dict[str, Any] | None = None
    forward_origin: dict[str, Any] | None = None
    forward_from: TelegramUser | None = None
    author_signature: str | None = None
    poll: TelegramPoll | None = None


class TelegramUpdate(_Part):
    update_id: int = Field(0, ge=0, le=2**53)
    message: TelegramMessage | None = None
    edited_message: TelegramMessage | None = None
    channel_post: TelegramMessage | None = None
    edited_channel_post: TelegramMessage | None = None
    business_message: TelegramMessage | None = None
    edited_business_message: TelegramMessage | None = None


def _name(user: dict[str, Any]) -> str:
    full = " ".join(p for p in (user.get("first_name"), user.get("last_name")) if p)
    return full or user.get("username") or user.get("title") or str(user.get("id", "unknown"))


def _account(peer: dict[str, Any], is_chat: bool) -> str | None:
    """A sender's account as Telegram Desktop's export writes it: ``user42``; a chat's ``channel<id>``
    (a supergroup or channel, the Bot API's -100<id>) or ``chat<id>`` (a basic group, -<id>)."""
    if "id" not in peer:
        return None
    number = str(peer["id"])
    if not is_chat:
        return f"user{number}"
    return f"channel{number[4:]}" if number.startswith("-100") else f"chat{number.lstrip('-')}"


def _text(message: dict[str, Any]) -> str:
    """What a message says: its text or caption, and a poll's question and options."""
    text = (message.get("text") or message.get("caption") or "").strip()
    poll = message.get("poll")
    if isinstance(poll, dict):
        # The export's shape (memory/channels/telegram.py), without the votes: a poll is sent with none.
        said = {
            "question": poll.get("question"),
            "answers": [{"text": o.get("text")} for o in poll.get("options") or [] if isinstance(o, dict)],
            "closed": poll.get("is_closed"),
        }
        text = "\n".join(t for t in (text, poll_text(said)) if t)
    return text


def telegram_batch(update: dict[str, Any]) -> tuple[dict[str, Any] | None, str]:
    """``channels.ingest`` params for the update (without namespace), or None and why it is ignored.
    ValidationError when a field the Bot API types is of another type (the listener's 400)."""
    TelegramUpdate.model_validate(update)
    if any(isinstance(update.get(k), dict) for k in EDIT_KEYS):  # telegram_correction's, when it has what it needs
        return None, "an edit without text, chat.id or message_id"
    key = next((k for k in MESSAGE_KEYS if isinstance(update.get(k), dict)), None)
    if key is None:
        return None, "not a message update"
    message = update[key]
    chat = message.get("chat") or {}
    text = _text(message)
    if not text:
        return None, "a message without text"
    if "id" not in chat or "date" not in message:
        return None, "a message without chat.id or date"
    # Sent on behalf of a chat, the chat is the sender: ``from`` is then a stand-in ("Group",
    # @GroupAnonymousBot) shared by every anonymous admin of every group.
    on_behalf = message.get("sender_chat")
    sender = on_behalf or message.get("from") or chat
    is_chat = bool(on_behalf) or not message.get("from")
    name = (message.get("author_signature") or "").strip() if on_behalf else ""
    origin = message.get("forward_origin") or {}
    forwarded = origin.get("sender_user") or origin.get("chat") or message.get("forward_from")
    said = ChatMessage(
        sender=name or _name(sender),
        sender_id=_account(sender, is_chat and chat.get("type") != "private"),
        ts=from_epoch(message["date"]),
        text=text,
        line=int(update.get("update_id", 0)),
        reply_to=str(message["reply_to_message"]["message_id"]) if message.get("reply_to_message") else None,
        forwarded_from=_name(forwarded) if isinstance(forwarded, dict) else origin.get("sender_user_name"),
        message_id=f"{message.get('message_id')}",
    )
    private = chat.get("type") == "private"
    return {
        "channel": "telegram",
        "chat_id": f"telegram:{chat['id']}",
        "title": chat.get("title") or _name(chat),
        "kind": "private" if private else "group",
        "messages": [said.model_dump(mode="json", exclude_defaults=True)],
    }, ""


def telegram_correction(update: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """(``channels.edit``, its params without namespace) for an edit with text; None for any other
    update (``telegram_batch`` says why it is ignored). ValidationError as for ``telegram_batch``."""
    TelegramUpdate.model_validate(update)
    message = next((update[k] for k in EDIT_KEYS if isinstance(update.get(k), dict)), None)
    if message is None:
        return None
    chat = message.get("chat") or {}
    text = _text(message)
    if not text or "id" not in chat or message.get("message_id") is None:
        return None
    return "channels.edit", {
        "channel": "telegram",
        "chat_id": f"telegram:{chat['id']}",
        "message_id": str(message["message_id"]),
        "text": text,
        "edited_at": from_epoch(message.get("edit_date") or message["date"]).isoformat(),
    }
