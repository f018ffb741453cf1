"""The Identity page: the identity graph (who the agent is and whom it serves) as its files and
memories state it: nodes by kind, every relation with the line or memory it comes from, the lines
left out with why; one node with its neighbourhood; and the open goals, with a form to add one and
a button to mark one done."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from agentmemd.daemon.dashboard.forms import chosen_namespace, form_fields
from agentmemd.daemon.dashboard.link import PageError
from agentmemd.persona.identity.graph import NODE_KIND_LABELS

if TYPE_CHECKING:
    from agentmemd.daemon.dashboard.app import Dashboard, Handler

ROUTES = [
    ("/identity", "identity", ["GET"]),
    ("/identity/node", "identity_node", ["GET"]),
    ("/identity/goals", "goal_add", ["POST"]),
    ("/identity/goals/{id}/done", "goal_done", ["POST"]),
]


def _by_kind(graph: dict) -> dict[str, list[dict]]:
    """The nodes under their kind's heading (the agent and the user are the graph's centre, not listed)."""
    return {
        label: [n for n in graph["nodes"] if n["kind"] == kind and not n["owner"]]
        for kind, label in NODE_KIND_LABELS.items()
    }


async def identity_page(
    d: "Dashboard",
    request: Request,
    *,
    focus=None,
    error: str | None = None,
    status: int = 200,
    typed: dict[str, str] | None = None,
) -> Response:
    namespace = chosen_namespace(request)
    graph, goals = await asyncio.gather(
        d.call("identity.graph", {"namespace": namespace}), d.call("goal.list", {"namespace": namespace})
    )
    return d.render(
        request,
        "identity.html",
        status=status,
        namespace=namespace,
        graph=graph,
        by_kind=_by_kind(graph),
        focus=focus,
        goals=goals["goals"],
        error=error,
        typed=typed or {},  # a refused goal's form, as it was typed
    )


def identity(d: "Dashboard") -> "Handler":
    async def page(request: Request) -> Response:
        return await identity_page(d, request)

    return page


def goal_add(d: "Dashboard") -> "Handler":
    """A goal from the page's form (its bad input shown on the page, nothing stored)."""

    async def page(request: Request) -> Response:
        form = await form_fields(request)
        params = {"text": form.get("text", ""), "namespace": chosen_namespace(request)}
        for field in ("priority", "due", "trigger"):
            if form.get(field):
                params[field] = form[field]
        try:
            await d.call("goal.add", params)
        except PageError as exc:
            typed = {k: v for k, v in form.items() if isinstance(v, str)}
            return await identity_page(d, request, error=exc.message, status=exc.status, typed=typed)
        return RedirectResponse(f"/identity?namespace={params['namespace']}#goals", status_code=303)

    return page


def goal_done(d: "Dashboard") -> "Handler":
    async def page(request: Request) -> Response:
        namespace = chosen_namespace(request)
        await d.call("goal.done", {"id": request.path_params["id"], "namespace": namespace})
        return RedirectResponse(f"/identity?namespace={namespace}#goals", status_code=303)

    return page


def identity_node(d: "Dashboard") -> "Handler":
    async def page(request: Request) -> Response:
        namespace = chosen_namespace(request)
        name = request.query_params.get("name", "")
        hops = request.query_params.get("hops", "1")
        params = {"namespace": namespace, "name": name, "hops": int(hops) if hops.isdigit() else hops}
        return await identity_page(d, request, focus=await d.call("identity.node", params))

    return page
