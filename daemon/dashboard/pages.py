"""The dashboard's pages: each a function that takes the Dashboard and returns its handler, which
calls the daemon's methods and renders a template. Nothing here decides what a memory is; the
services do (a door only translates).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from agentmemd.daemon.dashboard.charts import bar_chart, time_chart
from agentmemd.daemon.dashboard.forms import chosen_namespace, form_fields, page_number
from agentmemd.daemon.dashboard.link import PageError
from agentmemd.memory.core.vocabulary import EMOTIONS, MEMORY_TYPES, TIERS

if TYPE_CHECKING:
    from agentmemd.daemon.dashboard.app import Dashboard, Handler

PAGE_SIZE = 50
LIST_FILTERS = ("namespace", "type", "tier", "emotion", "source", "contains", "created_from", "created_to", "secrets")
SPREAD_LABELS = [f"{i / 10:.1f}" for i in range(10)]

ROUTES = [
    ("/", "overview", ["GET"]),
    ("/memories", "memories", ["GET"]),
    ("/memories/{namespace}/{id}", "memory", ["GET"]),
    ("/memories/{namespace}/{id}/edit", "memory_edit", ["POST"]),
    ("/memories/{namespace}/{id}/archive", "memory_archive", ["POST"]),
    ("/memories/{namespace}/{id}/restore", "memory_restore", ["POST"]),
    ("/memories/{namespace}/{id}/forget", "memory_forget", ["GET", "POST"]),
    ("/packs", "packs", ["GET"]),
    ("/packs/{namespace}/{pack_id}", "pack", ["GET"]),
    ("/workspace/{path:path}", "workspace_file", ["GET"]),
    ("/consolidation", "consolidation", ["GET"]),
]


def _memory_url(namespace: str, memory_id: str, suffix: str = "") -> str:
    return f"/memories/{namespace}/{memory_id}{suffix}"


def overview(d: "Dashboard") -> "Handler":
    async def page(request: Request) -> Response:
        stats, packs, jobs, costs, workspace = await asyncio.gather(
            d.call("stats", {}),
            d.call("packs.list", {"limit": 10}),
            d.link.optional("jobs.list"),  # the owner's: a scoped token's overview shows the rest
            d.link.optional("costs"),
            d.link.optional("workspace.status"),
        )
        by_namespace = stats.get("by_namespace")
        if by_namespace is None:  # a scoped token's: the counts of each namespace it reaches, one by one
            reached = (getattr(request.state, "acting", None) or {}).get("namespaces") or stats["namespaces"]
            counted = await asyncio.gather(*(d.call("stats", {"namespace": ns}) for ns in reached))
            by_namespace = dict(zip(reached, counted))
        return d.render(
            request,
            "overview.html",
            stats=stats,
            namespaces=sorted(by_namespace.items()),
            spread=bar_chart(stats["retention_spread"], SPREAD_LABELS),
            packs=packs,
            jobs=jobs,
            costs=costs,
            workspace=workspace,
            types=MEMORY_TYPES,
        )

    return page


def _list_params(request: Request) -> tuple[dict[str, Any], int]:
    query = request.query_params
    params: dict[str, Any] = {k: query[k] for k in LIST_FILTERS if query.get(k)}
    return params, page_number(request)


def memories(d: "Dashboard") -> "Handler":
    async def page(request: Request) -> Response:
        filters, page_no = _list_params(request)
        listing, error, status = None, None, 200
        try:
            listing = await d.call("memory.list", {**filters, "limit": PAGE_SIZE, "offset": (page_no - 1) * PAGE_SIZE})
        except PageError as exc:  # a malformed filter, a namespace out of reach: the form comes back with why
            error, status = exc.message, exc.status
        pages = 0 if listing is None else max(1, -(-listing["total"] // PAGE_SIZE))
        return d.render(
            request,
            "memories.html",
            status=status,
            filters=filters,
            listing=listing,
            error=error,
            page_no=page_no,
            pages=pages,
            namespaces=listing["namespaces"] if listing else [],
            types=MEMORY_TYPES,
            tiers=TIERS,
            emotions=EMOTIONS,
        )

    return page


def memory(d: "Dashboard") -> "Handler":
    async def page(request: Request) -> Response:
        namespace, memory_id = request.path_params["namespace"], request.path_params["id"]
        return await _memory_page(d, request, namespace, memory_id)

    return page


async def _memory_page(
    d: "Dashboard",
    request: Request,
    namespace: str,
    memory_id: str,
    *,
    error: str | None = None,
    draft: dict | None = None,
) -> Response:
    ids = {"id": memory_id, "namespace": namespace}
    record, history, chats, people = await asyncio.gather(
        d.call("memory.get", ids),
        d.call("memory.history", ids),
        d.call("chats.list", {"namespace": namespace}),
        d.call("people.list", {"namespace": namespace}),
    )
    chart = time_chart(
        {
            "retention": [(p["at"], p["retention"]) for p in history["retention"]],
            "projected": [(p["at"], p["retention"]) for p in history["projected"]],
        },
        rules=[(value, f"{tier} above {value:g}") for tier, value in history["thresholds"].items()],
        marks=[(e["at"], e["kind"]) for e in history["events"] if e["memory_id"] == history["id"]],
        dashed=frozenset({"projected"}),
    )
    return d.render(
        request,
        "memory.html",
        status=400 if error else 200,
        m=record,
        titles={c["chat"]: c["title"] for c in chats["chats"]},
        people={p["id"]: p["name"] for p in people["people"]},
        history=history,
        chart=chart,
        error=error,
        draft=draft or {},
        types=MEMORY_TYPES,
    )


def memory_edit(d: "Dashboard") -> "Handler":
    async def page(request: Request) -> Response:
        namespace, memory_id = request.path_params["namespace"], request.path_params["id"]
        form = await form_fields(request)
        params: dict[str, Any] = {"id": memory_id, "namespace": namespace, "content": form.get("content", "")}
        params["correction"] = not form.get("changed")  # a correction is no new event: it keeps the date
        if form.get("type"):
            params["type"] = form["type"]
        if form.get("priority"):
            try:
                params["priority"] = float(form["priority"])
            except ValueError:
                return await _memory_page(
                    d,
                    request,
                    namespace,
                    memory_id,
                    error=f"priority: {form['priority']!r} is not a number",
                    draft=form,
                )
        try:
            updated = await d.call("memory.update", params)
        except PageError as exc:  # the edit is refused: the page again, with the error and the draft
            if exc.status == 404:
                raise
            return await _memory_page(d, request, namespace, memory_id, error=exc.message, draft=form)
        return RedirectResponse(_memory_url(namespace, updated["id"]), status_code=303)

    return page


def _memory_action(method: str):
    """A button on a memory's page: one call with its id, then the page again."""

    def handler(d: "Dashboard") -> "Handler":
        async def page(request: Request) -> Response:
            namespace, memory_id = request.path_params["namespace"], request.path_params["id"]
            await d.call(method, {"id": memory_id, "namespace": namespace})
            return RedirectResponse(_memory_url(namespace, memory_id), status_code=303)

        return page

    return handler


memory_archive = _memory_action("memory.archive")
memory_restore = _memory_action("memory.restore")


def memory_forget(d: "Dashboard") -> "Handler":
    """GET: what forgetting would remove, and a form to confirm. POST: forget it."""

    async def page(request: Request) -> Response:
        namespace, memory_id = request.path_params["namespace"], request.path_params["id"]
        confirm = request.method == "POST"
        if confirm and (await form_fields(request)).get("confirm") != "yes":
            confirm = False
        ids = {"id": memory_id, "namespace": namespace}
        record = None if confirm else await d.call("memory.get", ids)
        plan = await d.call("memory.forget", {**ids, "confirm": confirm})
        return d.render(request, "forget.html", plan=plan, m=record)

    return page


def packs(d: "Dashboard") -> "Handler":
    """A pack built now from a query and a budget, explained; and the logged packs."""

    async def page(request: Request) -> Response:
        query = request.query_params
        form = {k: query.get(k, "") for k in ("query", "budget_tokens", "namespace", "audience")}
        acting = getattr(request.state, "acting", None)  # a scoped token's first namespace is its own
        form["namespace"] = form["namespace"] or ((acting or {}).get("default_namespace") or "default")
        explained, error = None, None
        if form["query"]:
            params: dict[str, Any] = {"query": form["query"], "namespace": form["namespace"]}
            if form["audience"]:
                params["audience"] = form["audience"]
            try:
                params["budget_tokens"] = int(form["budget_tokens"] or 500)
                pack = await d.call("context.pack", params)
                explained = await d.call(
                    "context.explain", {"pack_id": pack["pack_id"], "namespace": params["namespace"]}
                )
            except ValueError:
                error = f"budget_tokens: {form['budget_tokens']!r} is not a whole number"
            except PageError as exc:
                error = exc.message
        page_no = page_number(request)
        logged = await d.call("packs.list", {"limit": 20, "offset": (page_no - 1) * 20})
        return d.render(
            request,
            "packs.html",
            status=400 if error else 200,
            form=form,
            explained=explained,
            error=error,
            logged=logged,
            page_no=page_no,
        )

    return page


def pack(d: "Dashboard") -> "Handler":
    async def page(request: Request) -> Response:
        namespace, pack_id = request.path_params["namespace"], request.path_params["pack_id"]
        explained, chats = await asyncio.gather(
            d.call("context.explain", {"pack_id": pack_id, "namespace": namespace}),
            d.call("chats.list", {"namespace": namespace}),
        )
        titles = {c["chat"]: c["title"] for c in chats["chats"]}
        return d.render(request, "pack.html", explained=explained, titles=titles)

    return page


def workspace_file(d: "Dashboard") -> "Handler":
    async def page(request: Request) -> Response:
        found = await d.call("workspace.read", {"path": request.path_params["path"]})
        return d.render(request, "workspace_file.html", path=found["path"], lines=found["text"].splitlines())

    return page


def consolidation_tree(nodes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The consolidated nodes as a tree: each with ``children`` (the nodes among its sources) and
    ``memories`` (its other sources: level-0 memories); the roots are the nodes no other is built from."""
    by_id = {n["id"]: {**n, "children": [], "memories": []} for n in nodes}
    used: set[str] = set()
    for node in by_id.values():
        for source in node["sources"]:
            if source in by_id:
                node["children"].append(by_id[source])
                used.add(source)
            else:
                node["memories"].append(source)
    roots = [n for n in by_id.values() if n["id"] not in used]
    return sorted(roots, key=lambda n: (-n["level"], n["id"]))


def consolidation(d: "Dashboard") -> "Handler":
    """The tree of patterns, principles and insights, each linked to what it was built from."""

    async def page(request: Request) -> Response:
        namespace = chosen_namespace(request)
        listed = await d.call("consolidation.list", {"namespace": namespace})
        levels = [sum(1 for n in listed["nodes"] if n["level"] == level) for level in (1, 2, 3)]
        return d.render(
            request, "consolidation.html", namespace=namespace, roots=consolidation_tree(listed["nodes"]), levels=levels
        )

    return page
