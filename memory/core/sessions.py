"""A conversation's id is the caller's within its namespace: two namespaces may each have a
session "chat-1", and neither learns that the other has one.

The store keeps one key per conversation: the name itself in the default namespace (so ids kept
before namespaces scoped them are unchanged there), ``name|namespace`` elsewhere. ``|`` is never in
a name (models.SessionId's pattern), so a key never collides with a name. Keys are made where a
request names a session (``session_key``) and turned back into names in everything that answers
(``named``); nothing outside the store and this module sees one.
"""

from __future__ import annotations

import re
from typing import Any

DEFAULT_NAMESPACE = "default"
SEPARATOR = "|"
# Fields of an answer that hold a session's key; and those that hold a list of them.
SESSION_FIELDS = frozenset({"session", "forked_from", "stored_in"})
SESSION_LISTS = frozenset({"sessions", "observing"})


def session_key(namespace: str | None, name: str) -> str:
    """The store's key of session ``name`` in ``namespace``.

    >>> session_key("default", "chat-1"), session_key("work", "chat-1")
    ('chat-1', 'chat-1|work')
    """
    namespace = namespace or DEFAULT_NAMESPACE
    return name if namespace == DEFAULT_NAMESPACE else f"{name}{SEPARATOR}{namespace}"


def session_name(key: str) -> str:
    """The name a caller knows a session by.

    >>> session_name("chat-1|work"), session_name("chat-1")
    ('chat-1', 'chat-1')
    """
    return key.split(SEPARATOR, 1)[0]


# What makes a chat's session name unique (memory/channels/ingest.py session_id): the chat's digest
# and the session's first message time, "…:1a2b3c4d@20240312T091540Z".
_CHAT_SESSION_TAIL = re.compile(r":[0-9a-f]{8}@\d{8}T\d{6}Z(?=#|$)")


def short_source(source: str) -> str:
    """A memory's source as a pack line shows it: a chat session's digest and start time left out
    (the line's id names the memory; they cost a short message's line four times its words).

    >>> short_source("conversation:whatsapp:ana-silva:1a2b3c4d@20240312T091540Z#turn:12")
    'conversation:whatsapp:ana-silva#turn:12'
    >>> short_source("MEMORY.md L3-3"), short_source("conversation:s#turn:9")
    ('MEMORY.md L3-3', 'conversation:s#turn:9')
    """
    return _CHAT_SESSION_TAIL.sub("", source)


def named(value: Any) -> Any:
    """An answer with every session key in it turned into the session's name (dicts and lists,
    walked; anything else as it is)."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if k in SESSION_FIELDS and isinstance(v, str):
                out[k] = session_name(v)
            elif k in SESSION_LISTS and isinstance(v, list) and all(isinstance(s, str) for s in v):
                out[k] = [session_name(s) for s in v]
            else:
                out[k] = named(v)
        return out
    if isinstance(value, list):
        return [named(v) for v in value]
    return value
