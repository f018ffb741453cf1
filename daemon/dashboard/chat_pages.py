"""The Chats pages: a namespace's chats (channel, kind, how many messages and sessions, the last
message); one chat's messages found by their words, its sessions (each a link to its
conversation's page), who spoke in it, and who may hear what: the chat's audience and which
memories its context may include (memory/core/disclosure.py, said in words)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import Response

from agentmemd.daemon.dashboard.forms import chosen_namespace, page_number
from agentmemd.daemon.dashboard.link import PageError

if TYPE_CHECKING:
    from agentmemd.daemon.dashboard.app import Dashboard, Handler

SESSIONS_PAGE = 50
FOUND = 50  # messages a search in a chat shows
SORTS = {
    "title": (lambda c: (c["channel"], c["title"].casefold()), False),
    "messages": (lambda c: c["messages"], True),
    "last": (lambda c: c["last"] or "", True),
}

ROUTES = [
    ("/chats", "chats", ["GET"]),
    ("/chats/{namespace}/{chat:path}", "chat", ["GET"]),
]


def hearing_in_words(found: dict[str, Any]) -> dict[str, str]:
    """What a chat's audience means, as sentences: what its context may include (``hears``), and
    where what is said in it may be heard (``heard_by``). The rules are the daemon's: ``reaches_user``
    and each audience's ``heard`` come from memory/core/disclosure.py with its [channels] settings."""
    audience, channel = found["audience"], found["chat"]["channel"]
    if audience == "user":
        others = [h["audience"] for h in found["hears"] if h["heard"] and h["audience"] not in ("user", "shared")]
        chats = (
            f", and what was said in the {len(others)} chat{'s' if len(others) != 1 else ''} marked below, which "
            "[channels] lets reach the user's own conversations"
        )
        return {
            "hears": "This is the user's own conversation with an assistant: its context may include the user's own "
            f"memories and shared ones{chats if others else ''}. Nothing said in a chat it may not hear reaches it.",
            "heard_by": "What is said here is the user's own: heard in the user's own conversations, and never in "
            "a chat with anyone else.",
        }
    kind = "private chat" if audience.startswith("private:") else "group"
    hears = (
        f"A {kind}: its context may include shared memories and what was said in this {kind}, and nothing else: "
        f"not the user's own memories, not what was said in any other chat or group."
    )
    if not found["reaches_user"]:
        setting = "private_reaches_user" if kind == "private chat" else "group_reaches_user"
        heard_by = (
            f"What is said here is heard in this {kind} only: never in another chat, and not in the user's own "
            f"conversations ([channels] {setting} does not name {channel})."
        )
    elif kind == "group":
        heard_by = (
            "What is said here is heard in this group and in the user's own conversations (the user is in the group)."
        )
    else:
        heard_by = (
            "What is said here is heard in this chat and in the user's own conversations ([channels] "
            f"private_reaches_user names {channel}); never in another chat or a group."
        )
    return {"hears": hears, "heard_by": heard_by}


def chats(d: "Dashboard") -> "Handler":
    async def page(request: Request) -> Response:
        namespace = chosen_namespace(request)
        listed = await d.call("chats.list", {"namespace": namespace})
        asked = request.query_params.get("sort", "")
        sort = asked if asked in SORTS else "title"
        key, descending = SORTS[sort]
        return d.render(
            request,
            "chats.html",
            namespace=namespace,
            chats=sorted(listed["chats"], key=key, reverse=descending),
            sort=sort,
        )

    return page


def chat(d: "Dashboard") -> "Handler":
    async def page(request: Request) -> Response:
        namespace, chat_id = request.path_params["namespace"], request.path_params["chat"]
        query = request.query_params.get("q", "")
        page_no = page_number(request)
        ids = {"chat": chat_id, "namespace": namespace}
        found, chats = await asyncio.gather(
            d.call("chats.get", {**ids, "limit": SESSIONS_PAGE, "offset": (page_no - 1) * SESSIONS_PAGE}),
            d.call("chats.list", {"namespace": namespace}),
        )
        hits, error = None, None
        if query:
            try:
                hits = (await d.call("conversation.search", {**ids, "query": query, "k": FOUND}))["turns"]
            except PageError as exc:  # a query with no words, say: the page with the daemon's words
                error = exc.message
        return d.render(
            request,
            "chat.html",
            status=400 if error else 200,
            namespace=namespace,
            c=found,
            titles={c["chat"]: c["title"] for c in chats["chats"]},
            words=hearing_in_words(found),
            query=query,
            hits=hits,
            error=error,
            page_no=page_no,
            page_size=SESSIONS_PAGE,
        )

    return page
