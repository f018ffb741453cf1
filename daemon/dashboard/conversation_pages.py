"""The Conversations pages: a namespace's conversations; one conversation's turns, observation
log, Observer/Reflector runs, and the context exactly as the agent received it."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from starlette.requests import Request
from starlette.responses import Response

from agentmemd.daemon.dashboard.forms import chosen_namespace, page_number

if TYPE_CHECKING:
    from agentmemd.daemon.dashboard.app import Dashboard, Handler

TURNS_PAGE = 50
SESSIONS_PAGE = 50

ROUTES = [
    ("/conversations", "conversations", ["GET"]),
    ("/conversations/{namespace}/{session:path}", "conversation", ["GET"]),
]


def conversations(d: "Dashboard") -> "Handler":
    async def page(request: Request) -> Response:
        namespace = chosen_namespace(request)
        page_no = page_number(request)
        listed, chats = await asyncio.gather(
            d.call(
                "conversation.list",
                {"namespace": namespace, "limit": SESSIONS_PAGE, "offset": (page_no - 1) * SESSIONS_PAGE},
            ),
            d.call("chats.list", {"namespace": namespace}),
        )
        return d.render(
            request,
            "conversations.html",
            namespace=namespace,
            listed=listed,
            titles={c["chat"]: c["title"] for c in chats["chats"]},
            page_no=page_no,
            page_size=SESSIONS_PAGE,
        )

    return page


def conversation(d: "Dashboard") -> "Handler":
    async def page(request: Request) -> Response:
        namespace, session = request.path_params["namespace"], request.path_params["session"]
        page_no = page_number(request)
        ids = {"session": session, "namespace": namespace}
        status, turns, observations, contexts = await asyncio.gather(
            d.call("conversation.status", ids),
            d.call("conversation.turns", {**ids, "limit": TURNS_PAGE, "offset": (page_no - 1) * TURNS_PAGE}),
            d.call("observations.list", {**ids, "include_replaced": True}),
            d.call("conversation.contexts", {**ids, "limit": 20}),
        )
        builds = contexts["contexts"]
        chosen = request.query_params.get("context")
        shown = next((b for b in builds if str(b["id"]) == chosen), builds[0] if builds else None)
        return d.render(
            request,
            "conversation.html",
            namespace=namespace,
            session=session,
            info=status,
            turns=turns,
            observations=observations["observations"],
            builds=builds,
            shown=shown,
            page_no=page_no,
            page_size=TURNS_PAGE,
        )

    return page
