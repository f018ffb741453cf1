"""Who may hear what: every memory, turn and observation has an audience, and a conversation
hears only what its audience allows (contextual integrity).

    user              the user's own: their conversations with the agent, MEMORY.md, USER.md,
                      memories added through the API, their ChatGPT and Claude histories
    shared            anyone: the persona files and the workspace's knowledge, or marked so
    private:<chat>    a private chat with one person (`private:telegram:2002`)
    group:<chat>      a group chat (`group:slack:C01GEN`)

A listener (the audience of the conversation a pack or search is for) hears ``shared`` and its
own audience. The user's own conversations also hear every group (the user is in them) and,
where ``[channels] private_reaches_user`` names the channel, private chats. So by default what
was said in a private chat with X never reaches a group, a private chat with Y, or even the
user's own conversations; and nothing of the user's own reaches any chat. No listener (an
owner's call that names no audience) hears everything, as before audiences existed.
"""

from __future__ import annotations

from typing import Annotated, Iterable, Protocol

from pydantic import Field

USER, SHARED = "user", "shared"
AUDIENCE_PATTERN = r"^(user|shared|(private|group):[a-z][a-z0-9_-]{0,31}:.{1,300})$"
Audience = Annotated[str, Field(pattern=AUDIENCE_PATTERN, max_length=340)]
# A listener is never "shared": a conversation is the user's own, or a chat's.
LISTENER_PATTERN = r"^(user|(private|group):[a-z][a-z0-9_-]{0,31}:.{1,300})$"
Listener = Annotated[str, Field(pattern=LISTENER_PATTERN, max_length=340)]
# Chat exports of a person's own conversations with an assistant: theirs, not a third party's.
OWN_CHANNELS = frozenset({"chatgpt", "claude"})


def chat_audience(channel: str, kind: str, chat: str) -> str:
    """The audience of what is said in a chat: ``private:telegram:2002`` for the chat the importers
    name ``telegram:2002``; a chat id an app gave without its channel ("book-club") gets it."""
    if channel in OWN_CHANNELS:
        return USER
    return f"{kind}:{chat}" if chat.startswith(f"{channel}:") else f"{kind}:{channel}:{chat}"


def channel_of(audience: str) -> str | None:
    """``private:telegram:2002`` -> ``telegram``; None for user and shared."""
    parts = audience.split(":", 2)
    return parts[1] if len(parts) == 3 else None


def _named(channel: str | None, channels: Iterable[str]) -> bool:
    names = set(channels)
    return "*" in names or channel in names


class Rules(Protocol):
    """The [channels] keys that loosen the defaults (memory/core/config.py's ChannelsConfig)."""

    private_reaches_user: list[str]
    group_reaches_user: list[str]


def may_hear(listener: str | None, origin: str, rules: Rules | None = None) -> bool:
    """May a conversation whose audience is ``listener`` hear something said to ``origin``?"""
    if listener is None or origin in (SHARED, listener):
        return True
    if listener != USER:
        return False
    if origin.startswith("group:"):
        return _named(channel_of(origin), rules.group_reaches_user if rules else ("*",))
    if origin.startswith("private:"):
        return _named(channel_of(origin), rules.private_reaches_user if rules else ())
    return False


def heard(listener: str | None, origins: Iterable[str], rules: Rules | None = None) -> list[str]:
    """Those of ``origins`` the listener may hear."""
    return [o for o in origins if may_hear(listener, o, rules)]


def why_not(listener: str, origin: str) -> str:
    """Why ``origin`` was kept from ``listener``, for context.explain."""
    if origin == USER:
        return f"disclosure: the user's own, and this is {listener}"
    if listener == USER:
        return f"disclosure: said in {origin}, which [channels] does not let reach the user's conversations"
    return f"disclosure: said in {origin}, not for {listener}"
