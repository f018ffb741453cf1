"""What a page reads from its request: a form's text fields, the page number of a list."""

from __future__ import annotations

from starlette.requests import Request


async def form_fields(request: Request) -> dict[str, str]:
    """The posted form's text fields (files are not taken)."""
    form = await request.form()
    return {k: v for k, v in form.items() if isinstance(v, str)}


def page_number(request: Request) -> int:
    """The ``page`` query parameter: 1 when missing or not a whole number."""
    try:
        return max(1, int(request.query_params.get("page", "1")))
    except ValueError:
        return 1


def chosen_namespace(request: Request) -> str:
    """The ``namespace`` query parameter; when it is missing or empty, the daemon's default namespace
    (an access token's first, for a request acting with one)."""
    acting = getattr(request.state, "acting", None)
    return request.query_params.get("namespace") or (acting or {}).get("default_namespace") or "default"
