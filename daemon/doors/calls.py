"""A door's call to the daemon from async code (the dashboard, the webhooks, MCP over HTTP), and
the HTTP status its refusal answers with: one map, so the doors agree."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio

from agentmemd.daemon.socket.client import RpcCallError, call_once
from agentmemd.daemon.socket.codes import CONFLICT, FORBIDDEN, INVALID_PARAMS, NOT_FOUND

# The daemon's refusals as HTTP statuses; a refused token is 401 (see http_status). A daemon
# that is not there: 503.
HTTP_STATUS = {NOT_FOUND: 404, INVALID_PARAMS: 400, FORBIDDEN: 403, CONFLICT: 409}
NO_DAEMON = 503


def http_status(exc: RpcCallError, otherwise: int = 500) -> int:
    """The status a door answers a daemon's refusal with: 400 bad params, 401 a token refused,
    403 a namespace the token may not reach, 404, 409; ``otherwise`` for anything else."""
    if exc.code == FORBIDDEN and exc.message.startswith("auth failed"):
        return 401
    return HTTP_STATUS.get(exc.code, otherwise)


async def call_daemon(
    socket_path: Path, method: str, params: dict[str, Any] | None = None, *, token: str | None, timeout: float
) -> Any:
    """One socket call in a worker thread (the socket client blocks); the daemon's refusal
    raises RpcCallError, its absence DaemonUnavailable."""
    return await anyio.to_thread.run_sync(
        lambda: call_once(socket_path, method, params or {}, token=token, timeout=timeout)
    )
