"""The Access tokens page: each token with its scope (namespaces, and what that permits), when it
was created, and what it last did (when, through which door, which method), as OpenMemory shows
per app; creating one (its secret shown once, on the answer to the POST only) and revoking one."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from agentmemd.daemon.dashboard.forms import form_fields
from agentmemd.daemon.dashboard.link import PageError

if TYPE_CHECKING:
    from agentmemd.daemon.dashboard.app import Dashboard, Handler

ROUTES = [
    ("/tokens", "tokens", ["GET", "POST"]),
    ("/tokens/{name}/revoke", "token_revoke", ["POST"]),
]


def namespaces_of(form: dict[str, str]) -> list[str] | None:
    """The namespaces the create form names (commas or spaces between them); None: every namespace."""
    if form.get("every") == "yes":
        return None
    return [n for n in re.split(r"[\s,]+", form.get("namespaces", "")) if n]


def tokens(d: "Dashboard") -> "Handler":
    """GET: the tokens. POST: create one, and show its secret on this answer alone."""

    async def page(request: Request) -> Response:
        created, error, status, draft = None, None, 200, {}
        if request.method == "POST":
            draft = await form_fields(request)
            params = {"name": draft.get("name", "").strip(), "namespaces": namespaces_of(draft)}
            try:
                created = await d.call("access.tokens.create", params)
            except PageError as exc:  # a bad name, a taken one, no namespace: said on the page, nothing made
                error, status = exc.message, exc.status
        return await tokens_page(d, request, created=created, error=error, status=status, draft=draft)

    return page


async def tokens_page(
    d: "Dashboard", request: Request, *, created: dict | None, error: str | None, status: int, draft: dict[str, Any]
) -> Response:
    listed = await d.call("access.tokens.list", {})
    live = [t for t in listed["tokens"] if not t["revoked"]]
    revoked = [t for t in listed["tokens"] if t["revoked"]]
    response = d.render(
        request,
        "tokens.html",
        status=status,
        tokens=live + revoked,
        live=len(live),
        created=created,
        error=error,
        draft=draft,
        revoked_now=request.query_params.get("revoked"),
    )
    if created:  # the secret must not be kept by a cache or shown again by the back button
        response.headers["Cache-Control"] = "no-store"
    return response


def token_revoke(d: "Dashboard") -> "Handler":
    async def page(request: Request) -> Response:
        done = await d.call("access.tokens.revoke", {"name": request.path_params["name"]})
        return RedirectResponse(f"/tokens?revoked={done['name']}", status_code=303)

    return page
