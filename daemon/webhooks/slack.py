"""Slack's Events API (https://api.slack.com/apis/events-api): request signing and message events.

Every request is signed: ``X-Slack-Signature`` is ``v0=`` + HMAC-SHA256 of
``v0:<X-Slack-Request-Timestamp>:<raw body>`` with the app's signing secret. A request older
than five minutes is refused too (a replay). ``url_verification`` is answered with its challenge;
a ``message`` event (not a join or a bot post) becomes a chat message, its sender named by the
event's ``user_profile`` when it carries one, else by the name the daemon knows the account by
(an imported export's users.json), else by the id. The channel's account ids are Slack's user
ids, as in a workspace export, so imported people carry over.

An edit (subtype ``message_changed``: ``message`` is the message as it is now, its ``ts`` the
original's) becomes ``channels.edit``; a deletion (``message_deleted``: ``deleted_ts``, or a
``message_changed`` to a ``tombstone``, which is how a thread's first message is deleted while
its replies stay) becomes ``channels.delete``. Both name the message by its ts, the id it was
stored under.
"""

from __future__ import annotations

import hashlib
import hmac
import time
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from agentmemd.memory.channels.exports import from_epoch
from agentmemd.memory.channels.slack import render_markup
from agentmemd.memory.core.chats import ChatMessage

MAX_AGE_SECONDS = 300
PRIVATE_CHANNEL_TYPES = {"im"}


def slack_signature_problem(secret: str, timestamp: str | None, signature: str | None, body: bytes) -> str | None:
    """None when the request is Slack's; else what is wrong with it."""
    if not timestamp or not signature:
        return "missing X-Slack-Request-Timestamp or X-Slack-Signature"
    if not timestamp.isdigit() or len(timestamp) > 12:
        return "X-Slack-Request-Timestamp is not Unix seconds"
    age = time.time() - int(timestamp)
    if age > MAX_AGE_SECONDS:
        return f"the request is {int(age)} s old (more than {MAX_AGE_SECONDS} s: a replay?)"
    if -age > MAX_AGE_SECONDS:
        return f"the request is dated {int(-age)} s ahead of this machine's clock (more than {MAX_AGE_SECONDS} s)"
    base = b"v0:" + timestamp.encode() + b":" + body
    expected = "v0=" + hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected, signature):
        return "the signature does not match the signing secret"
    return None


SlackTs = Annotated[str, Field(pattern=r"^\d{1,12}(\.\d{1,9})?$")]  # "1710234940.000200"
CORRECTIONS = {"message_changed", "message_deleted"}


# The fields of an event callback the listener reads, with the Events API's types (others pass
# unread), so a payload that breaks them is a 400 naming the field, never a crash.
class _Part(BaseModel):
    model_config = ConfigDict(extra="allow")


class SlackUserProfile(_Part):
    real_name: str | None = None
    display_name: str | None = None


class SlackEdit(_Part):
    ts: SlackTs | None = None


class SlackChangedMessage(_Part):
    subtype: str | None = None
    text: str | None = None
    ts: SlackTs | None = None
    edited: SlackEdit | None = None


class SlackMessageEvent(_Part):
    type: str
    subtype: str | None = None
    bot_id: str | None = None
    text: str | None = None
    user: str | None = None
    user_profile: SlackUserProfile | None = None
    channel: str | None = None
    channel_type: str | None = None
    ts: SlackTs | None = None
    thread_ts: SlackTs | None = None
    event_ts: SlackTs | None = None
    message: SlackChangedMessage | None = None  # message_changed: the message as it is now
    deleted_ts: SlackTs | None = None  # message_deleted: the ts of the message deleted


class SlackPayload(BaseModel):
    model_config = ConfigDict(extra="allow")
    type: str
    challenge: str | None = None
    event: SlackMessageEvent | None = None


# Message subtypes a person sends (Slack's message subtypes): a file with its comment, a thread reply
# also sent to the channel, a /me action. Stored; joins, bots, topics and the like are not.
PEOPLES_SUBTYPES = frozenset({"file_share", "thread_broadcast", "me_message"})


def slack_batch(payload: dict[str, Any]) -> tuple[dict[str, Any] | None, str]:
    """``channels.ingest`` params for an event callback (without namespace), or None and why not.
    ValidationError when a field the Events API types is of another type (the listener's 400)."""
    SlackPayload.model_validate(payload)
    event = payload.get("event") or {}
    if payload.get("type") != "event_callback" or event.get("type") != "message":
        return None, f"not a message event ({payload.get('type')}/{event.get('type')})"
    if (event.get("subtype") and event["subtype"] not in PEOPLES_SUBTYPES) or event.get("bot_id"):
        return None, f"a {event.get('subtype') or 'bot'} message"
    text = render_markup(str(event.get("text") or ""), {}).strip()
    if not text or "channel" not in event or "ts" not in event:
        return None, "a message without text, channel or ts"
    thread = event.get("thread_ts")
    profile = event.get("user_profile") or {}
    # No name: the id, which the daemon shows by the name it knows the account by, if any.
    said = ChatMessage(
        sender=str(profile.get("real_name") or profile.get("display_name") or event.get("user") or "unknown"),
        sender_id=event.get("user"),
        ts=from_epoch(event["ts"]),
        text=text,
        line=0,
        reply_to=str(thread) if thread and thread != event["ts"] else None,
        message_id=str(event["ts"]),
    )
    return {
        "channel": "slack",
        "chat_id": f"slack:{event['channel']}",
        "kind": "private" if event.get("channel_type") in PRIVATE_CHANNEL_TYPES else "group",
        "messages": [said.model_dump(mode="json", exclude_defaults=True)],
    }, ""


def slack_correction(payload: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """(``channels.edit`` or ``channels.delete``, its params without namespace) for an edit or a
    deletion event; None for any other event, or one without what it needs (``slack_batch`` says
    why it is ignored). ValidationError as for ``slack_batch``."""
    SlackPayload.model_validate(payload)
    event = payload.get("event") or {}
    if payload.get("type") != "event_callback" or event.get("subtype") not in CORRECTIONS or "channel" not in event:
        return None
    at = event.get("event_ts") or event.get("ts")
    message = event.get("message") or {}
    if event["subtype"] == "message_deleted" or message.get("subtype") == "tombstone":
        original = event.get("deleted_ts") or message.get("ts")
        if not original or not at:
            return None
        return "channels.delete", _naming(event, original) | {"deleted_at": from_epoch(at).isoformat()}
    text = render_markup(str(message.get("text") or ""), {}).strip()
    edited = (message.get("edited") or {}).get("ts") or at
    if not text or not message.get("ts") or not edited:
        return None
    return "channels.edit", _naming(event, message["ts"]) | {"text": text, "edited_at": from_epoch(edited).isoformat()}


def _naming(event: dict[str, Any], ts: str) -> dict[str, Any]:
    return {"channel": "slack", "chat_id": f"slack:{event['channel']}", "message_id": str(ts)}
