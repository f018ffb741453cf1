"""The Identity page: the identity graph (who the agent is and whom it serves) as its files and
memories state it: nodes by kind, every relation with the line or memory it comes from, the lines
left out with why; and one node with its neighbourhood."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from starlette.requests import Request
from starlette.responses import Response

from agentmemd.daemon.dashboard.forms import chosen_namespace
from agentmemd.persona.identity.graph import NODE_KIND_LABELS

if TYPE_CHECKING:
    from agentmemd.daemon.dashboard.app import Dashboard, Handler

ROUTES = [
    ("/identity", "identity", ["GET"]),
    ("/identity/node", "identity_node", ["GET"]),
]


def _by_kind(graph: dict) -> dict[str, list[dict]]:
    """The nodes under their kind's heading (the agent and the user are the graph's centre, not listed)."""
    return {
        label: [n for n in graph["nodes"] if n["kind"] == kind and not n["owner"]]
        for kind, label in NODE_KIND_LABELS.items()
    }


def identity(d: "Dashboard") -> "Handler":
    async def page(request: Request) -> Response:
        namespace = chosen_namespace(request)
        graph = await d.call("identity.graph", {"namespace": namespace})
        return d.render(request, "identity.html", namespace=namespace, graph=graph, by_kind=_by_kind(graph), focus=None)

    return page


def identity_node(d: "Dashboard") -> "Handler":
    async def page(request: Request) -> Response:
        namespace = chosen_namespace(request)
        name = request.query_params.get("name", "")
        hops = request.query_params.get("hops", "1")
        graph, focus = await asyncio.gather(
            d.call("identity.graph", {"namespace": namespace}),
            d.call(
                "identity.node", {"namespace": namespace, "name": name, "hops": int(hops) if hops.isdigit() else hops}
            ),
        )
        return d.render(
            request, "identity.html", namespace=namespace, graph=graph, by_kind=_by_kind(graph), focus=focus
        )

    return page
