"""The dashboard: server-rendered pages over the daemon's socket API (the Starlette app of every page: routes.py).

    agentmemd dashboard --listen 127.0.0.1:8791
    # prints http://127.0.0.1:8791/?token=…  (the token also lies in <data dir>/dashboard.token)

Starlette routes, Jinja2 templates, htmx (vendored in static/, no CDN) for in-place updates; every
page is also a plain HTML page that works without scripts. A door only: each page calls the
daemon's methods over its socket (the owner's, mode 0600) and renders what they return; each
change is one method call (memory.update, memory.archive, memory.forget...). Access: access.py.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Awaitable, Callable
from urllib.parse import urlencode

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from agentmemd.daemon.dashboard.access import (
    CSRF_FIELD,
    CSRF_HEADER,
    SAFE_METHODS,
    Gate,
)
from agentmemd.daemon.dashboard.link import ACTING_TOKEN, DaemonLink, PageError
from agentmemd.memory.core.clock import shown_time
from agentmemd.memory.core.signals import SIGNALS
from agentmemd.memory.safety.secrets import mask

log = logging.getLogger("agentmemd.dashboard")
STATIC = Path(__file__).parent / "static"


# A listen address that is every address of the machine: no browser asks for it by that name.
WILDCARDS = frozenset({"0.0.0.0", "::"})


def link_host(settings: "DashboardSettings") -> str:
    """The host of the link the dashboard prints: its listen address, or for a wildcard one the first
    --host-name (else 127.0.0.1, which works on this machine)."""
    host = settings.host.strip("[]")
    if host not in WILDCARDS:
        return settings.host
    return settings.extra_hosts[0] if settings.extra_hosts else "127.0.0.1"


@dataclass(frozen=True)
class DashboardSettings:
    socket_path: Path
    token: str
    host: str = "127.0.0.1"
    port: int = 8791
    daemon_timeout: float = 60.0
    # Further names the dashboard answers to (Host) and is reached at (Origin), e.g. the machine's
    # name when it listens beyond loopback; the listen address and, on loopback, localhost always.
    extra_hosts: tuple[str, ...] = ()


def _when(at: Any) -> str:
    """A stored time as a person reads it: the dashboard's machine's zone, named (core/clock.py)."""
    if not at:
        return ""
    try:
        return shown_time(str(at), seconds=True)
    except ValueError:  # not a stored time: as it is
        return str(at)[:19].replace("T", " ")


def heard_by(audience: str | None, titles: dict[str, str] | None = None) -> str:
    """Who may hear a memory, in words, the chat by its title where one is known (``titles``: chat
    id -> title, as chats.list gives them).

    >>> heard_by("group:whatsapp:c-1", {"whatsapp:c-1": "Piso"}), heard_by("user"), heard_by("private:telegram:42")
    ("the group chat 'Piso'", "the user's own conversations", 'the private chat telegram:42')
    """
    if not audience:
        return ""
    if audience == "user":
        return "the user's own conversations"
    if audience == "shared":
        return "anyone (shared)"
    kind, _, chat = audience.partition(":")
    what = "private chat" if kind == "private" else "group chat"
    title = (titles or {}).get(chat)
    return f"the {what} {title!r}" if title else f"the {what} {chat}"


def templates() -> Environment:
    env = Environment(loader=PackageLoader("agentmemd.daemon.dashboard", "templates"), autoescape=select_autoescape())
    env.filters["when"] = _when
    env.globals["urlencode"] = urlencode
    env.filters["masked"] = mask  # a list never shows a secret whole (memory/safety/secrets.py)
    env.globals["heard_by"] = heard_by
    env.globals["signal_meaning"] = {s.name: s.meaning for s in SIGNALS}  # a signal's column says what it is
    return env


Handler = Callable[[Request], Awaitable[Response]]


class Dashboard:
    def __init__(self, settings: DashboardSettings):
        self.settings = settings
        self.link = DaemonLink(settings.socket_path, settings.daemon_timeout)
        self.env = templates()
        host = settings.host.strip("[]")
        loopback = {"localhost", "127.0.0.1", "::1"}
        if host in WILDCARDS:  # every address: the machine itself reaches it by loopback, others by --host-name
            names = set(loopback)
        else:
            names = {host, *loopback} if host in loopback else {host}
        names |= set(settings.extra_hosts)
        self.hosts = sorted(f"[{n}]" if ":" in n else n for n in names)
        self.gate = Gate(settings.token, {f"http://{n}:{settings.port}" for n in self.hosts})

    # ---- rendering -----------------------------------------------------------------------------

    def render(self, request: Request, name: str, status: int = 200, **context: Any) -> HTMLResponse:
        body = self.env.get_template(name).render(
            request=request,
            csrf=request.session.get("csrf", ""),
            csrf_field=CSRF_FIELD,
            acting=getattr(request.state, "acting", None),
            **context,
        )
        return HTMLResponse(body, status_code=status)

    def error_page(self, request: Request, status: int, message: str) -> HTMLResponse:
        return self.render(request, "error.html", status=status, message=message)

    async def call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        return await self.link.call(method, params)

    # ---- access --------------------------------------------------------------------------------

    def guarded(self, handler: Handler) -> Handler:
        """``handler`` behind the token, the session and, for a change, the CSRF and Origin checks."""

        async def run(request: Request) -> Response:
            token = request.query_params.get("token")
            if token is not None and request.method == "GET":
                if not self.gate.token_matches(token):
                    return self.error_page(request, 401, "That link's token is not this dashboard's.")
                self.gate.start_session(request)
                rest = [(k, v) for k, v in request.query_params.multi_items() if k != "token"]
                return RedirectResponse(request.url.path + (f"?{urlencode(rest)}" if rest else ""), status_code=303)
            access_token = self.gate.access_token(request)
            if access_token is not None:
                return await self._as_token(request, access_token, handler)
            by_bearer = self.gate.bearer(request)
            if not by_bearer and not self.gate.in_session(request):
                return self.error_page(
                    request,
                    401,
                    "Open the link `agentmemd dashboard` printed (it carries the token), or send it as a Bearer token.",
                )
            if request.method not in SAFE_METHODS and not by_bearer:
                refusal = await self._check_change(request)
                if refusal is not None:
                    return self.error_page(request, 403, refusal)
            return await self._page(request, handler)

        return run

    async def _page(self, request: Request, handler: Handler) -> Response:
        try:
            return await handler(request)
        except PageError as exc:
            return self.error_page(request, exc.status, exc.message)
        except Exception as exc:  # a bug of the page: said on the page and logged, the dashboard stays up
            log.exception("dashboard page failed", extra={"path": request.url.path})
            return self.error_page(request, 500, f"internal error in the dashboard: {type(exc).__name__}: {exc}")

    async def _as_token(self, request: Request, secret: str, handler: Handler) -> Response:
        """A request with an access token as its Bearer: checked by the daemon (`auth`), then served
        with every daemon call made with that token, so the page holds only what it may reach."""
        try:
            scope = await self.link.scope_of(secret)
        except PageError as exc:
            if exc.status not in (401, 403):
                return self.error_page(request, exc.status, exc.message)
            return self.error_page(
                request, 401, "That Bearer token is neither this dashboard's nor a live access token."
            )
        request.state.acting = scope
        acting = ACTING_TOKEN.set(secret)
        try:
            return await self._page(request, handler)
        finally:
            ACTING_TOKEN.reset(acting)

    async def _check_change(self, request: Request) -> str | None:
        if not self.gate.same_origin(request):
            return "Refused: this change did not come from the dashboard's own pages (Origin check)."
        sent = request.headers.get(CSRF_HEADER)
        if sent is None:
            field = (await request.form()).get(CSRF_FIELD)
            sent = field if isinstance(field, str) else None  # an uploaded file is no token
        if not self.gate.csrf_matches(request, sent):
            return "Refused: this change's CSRF token is missing or stale; reload the page and try again."
        return None
