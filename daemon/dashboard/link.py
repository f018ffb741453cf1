"""The dashboard's line to the daemon: one socket call each, in a worker thread, a refusal or an
absent daemon turned into a PageError that the page shows in the daemon's own words.

A request made with an access token (app.py) makes every call with that token: the daemon admits
each against the token's namespaces, so the page shows what the token may reach and nothing else."""

from __future__ import annotations

from contextvars import ContextVar
from pathlib import Path
from typing import Any

from agentmemd.daemon.doors.calls import NO_DAEMON, call_daemon, http_status, token_scope
from agentmemd.daemon.socket.client import DaemonUnavailable, RpcCallError

# The access token the current request acts with; None: the owner's socket, every namespace.
ACTING_TOKEN: ContextVar[str | None] = ContextVar("acting_token", default=None)


class PageError(Exception):
    """What a page shows instead of its content, with the HTTP status it answers with."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status, self.message = status, message


class DaemonLink:
    def __init__(self, socket_path: Path, timeout: float = 60.0):
        self.socket_path, self.timeout = socket_path, timeout

    async def call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        """The method's result; PageError if the daemon refuses (400/403/404/409/500) or is not there (503)."""
        try:
            return await call_daemon(self.socket_path, method, params, token=ACTING_TOKEN.get(), timeout=self.timeout)
        except RpcCallError as exc:
            raise PageError(http_status(exc), exc.message) from None
        except DaemonUnavailable as exc:
            raise PageError(NO_DAEMON, str(exc)) from None

    async def scope_of(self, token: str) -> Any:
        """What an access token may reach (PageError 403 when the daemon refuses it), never on a
        connection the owner's calls share."""
        try:
            return await token_scope(self.socket_path, token, timeout=self.timeout)
        except RpcCallError as exc:
            raise PageError(http_status(exc), exc.message) from None
        except DaemonUnavailable as exc:
            raise PageError(NO_DAEMON, str(exc)) from None

    async def optional(self, method: str, params: dict[str, Any] | None = None) -> Any:
        """A call whose failure leaves part of a page empty, with the reason (no workspace, say)."""
        try:
            return await self.call(method, params)
        except PageError as exc:
            return {"unavailable": exc.message}
