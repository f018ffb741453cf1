"""The People pages: everyone who spoke in a namespace's chats (their accounts per channel, how
much they said, when last); one person's accounts, chats, activity and the agent's impressions of
them by audience; and merging two people who are one human (a preview of what moves, then the
change, one `people.merge` call)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from agentmemd.daemon.dashboard.charts import bar_chart
from agentmemd.daemon.dashboard.forms import chosen_namespace, form_fields, page_number
from agentmemd.daemon.dashboard.link import PageError

if TYPE_CHECKING:
    from agentmemd.daemon.dashboard.app import Dashboard, Handler

PEOPLE_PAGE = 100
# How the list may be ordered: (key, descending). By name, the user first (as people.list has it).
SORTS = {
    "name": (lambda p: (p["id"] != "user", p["name"].casefold(), p["id"]), False),
    "messages": (lambda p: p["messages"], True),
    "last_seen": (lambda p: p["last_seen"] or "", True),
}

ROUTES = [
    ("/people", "people", ["GET"]),
    ("/people/{namespace}/{person}", "person", ["GET"]),
    ("/people/{namespace}/{person}/merge", "person_merge", ["GET", "POST"]),
]


def accounts_by_channel(accounts: list[dict[str, Any]]) -> dict[str, dict[str, list[dict[str, Any]]]]:
    """person -> channel -> that person's accounts on it."""
    out: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for a in accounts:
        out.setdefault(a["person"], {}).setdefault(a["channel"], []).append(a)
    return out


def chat_of(audience: str) -> str | None:
    """The chat an audience is a chat's (``private:telegram:2002`` -> ``telegram:2002``), else None."""
    kind, _, chat = audience.partition(":")
    return chat if kind in ("private", "group") and chat else None


def people(d: "Dashboard") -> "Handler":
    async def page(request: Request) -> Response:
        namespace = chosen_namespace(request)
        ns = {"namespace": namespace}
        listed, accounts = await asyncio.gather(d.call("people.list", ns), d.call("people.accounts", ns))
        asked = request.query_params.get("sort", "")
        sort = asked if asked in SORTS else "name"
        key, descending = SORTS[sort]
        everyone = sorted(listed["people"], key=key, reverse=descending)
        page_no = page_number(request)
        shown = everyone[(page_no - 1) * PEOPLE_PAGE : page_no * PEOPLE_PAGE]
        return d.render(
            request,
            "people.html",
            namespace=namespace,
            people=shown,
            total=len(everyone),
            accounts=accounts_by_channel(accounts["accounts"]),
            sort=sort,
            page_no=page_no,
            page_size=PEOPLE_PAGE,
        )

    return page


def person(d: "Dashboard") -> "Handler":
    async def page(request: Request) -> Response:
        namespace, person_id = request.path_params["namespace"], request.path_params["person"]
        ns = {"namespace": namespace}
        found, everyone = await asyncio.gather(
            d.call("people.get", {**ns, "person": person_id}), d.call("people.list", ns)
        )
        chats = found["chats"]
        return d.render(
            request,
            "person.html",
            namespace=namespace,
            p=found,
            others=[o for o in everyone["people"] if o["id"] != found["id"]],
            activity=bar_chart([c["messages"] for c in chats[:12]], [c["title"][:14] for c in chats[:12]]),
            impressions=[{**i, "chat": chat_of(i["audience"])} for i in found["impressions"]],
            titles={c["chat"]: c["title"] for c in chats},
            merged=request.query_params.get("merged"),
            moved=request.query_params.get("moved"),
        )

    return page


def person_merge(d: "Dashboard") -> "Handler":
    """GET: what merging this person into another moves, and a form to confirm. POST: merge."""

    async def page(request: Request) -> Response:
        namespace, person_id = request.path_params["namespace"], request.path_params["person"]
        form = await form_fields(request) if request.method == "POST" else {}
        into = form.get("into") or request.query_params.get("into") or ""
        if not into:
            return RedirectResponse(f"/people/{namespace}/{person_id}#merge", status_code=303)
        error, status = None, 200
        if request.method == "POST" and form.get("confirm") == "yes":
            params = {"person": person_id, "into": into, "namespace": namespace}
            try:
                done = await d.call("people.merge", params)
            except PageError as exc:  # refused: the preview again, with the daemon's words; nothing changed
                error, status = exc.message, exc.status
            else:
                query = f"merged={done['merged']}&moved={done['turns_moved']}"
                return RedirectResponse(f"/people/{namespace}/{done['into']}?{query}", status_code=303)
        ids = {"namespace": namespace}
        source, target = await asyncio.gather(
            d.call("people.get", {**ids, "person": person_id}), d.call("people.get", {**ids, "person": into})
        )
        refused = None  # the daemon's own checks, asked with a dry run: a merge it refuses is offered to no one
        if error is None:
            try:
                await d.call(
                    "people.merge", {"person": person_id, "into": into, "namespace": namespace, "dry_run": True}
                )
            except PageError as exc:
                refused, status = exc.message, exc.status
        return d.render(
            request,
            "merge.html",
            status=status,
            namespace=namespace,
            source=source,
            target=target,
            error=error or refused,
            refused=refused is not None,
        )

    return page
