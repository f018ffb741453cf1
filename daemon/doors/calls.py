"""A door's call to the daemon from async code (the dashboard, the webhooks, MCP over HTTP), on the
typed clients' pooled connections, and the HTTP status its refusal answers with: one map, so the
doors agree."""

from __future__ import annotations

import asyncio
import weakref
from collections import OrderedDict
from pathlib import Path
from typing import Any

from agentmemd.daemon.socket.async_client import AsyncClient
from agentmemd.daemon.socket.client import RpcCallError
from agentmemd.daemon.socket.codes import CONFLICT, FORBIDDEN, INVALID_PARAMS, NOT_FOUND, STORE_UNAVAILABLE

# The daemon's refusals as HTTP statuses; a refused token is 401 (see http_status). A daemon
# that is not there: 503.
# A store that refuses writes for now (a full disk, a server restarting): 503, try again later.
HTTP_STATUS = {NOT_FOUND: 404, INVALID_PARAMS: 400, FORBIDDEN: 403, CONFLICT: 409, STORE_UNAVAILABLE: 503}
NO_DAEMON = 503


def http_status(exc: RpcCallError, otherwise: int = 500) -> int:
    """The status a door answers a daemon's refusal with: 400 bad params, 401 a token refused,
    403 a namespace the token may not reach, 404, 409, 503 a store refusing writes for now;
    ``otherwise`` for anything else."""
    if exc.code == FORBIDDEN and exc.message.startswith("auth failed"):
        return 401
    return HTTP_STATUS.get(exc.code, otherwise)


async def call_daemon(
    socket_path: Path, method: str, params: dict[str, Any] | None = None, *, token: str | None, timeout: float
) -> Any:
    """One socket call on a connection kept for the next (a pool per token, per event loop: a call
    does not open a connection and send `auth` again); the daemon's refusal raises RpcCallError,
    its absence DaemonUnavailable."""
    try:
        return await _pool(socket_path, token).call(method, params or {}, timeout=timeout)
    except RpcCallError as exc:
        if not (exc.code == FORBIDDEN and "was revoked" in exc.message):
            raise
    # Its token was revoked while its connections were kept: a new connection's `auth` says so
    # as it would have for a new caller (a 401, not the kept connection's 403).
    await _forget(socket_path, token)
    return await _pool(socket_path, token).call(method, params or {}, timeout=timeout)


# The pools of this process: per event loop (a connection belongs to the loop that opened it), per
# socket and token. A door serves a handful of tokens; past POOLS_KEPT the oldest pool is closed.
POOLS_KEPT = 32
_POOLS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, OrderedDict[tuple[str, str | None], AsyncClient]] = (
    weakref.WeakKeyDictionary()
)


async def check_token(socket_path: Path, token: str, *, timeout: float) -> None:
    """Whether ``token`` is good now, on a connection of its own: its `auth` decides (a kept
    connection was admitted when it opened, and may still ask health after a revocation).
    RpcCallError when it is refused, DaemonUnavailable when no daemon answers."""
    try:
        async with AsyncClient(socket_path, token=token, timeout=timeout, max_connections=1) as fresh:
            await fresh.call("health")
    except RpcCallError as exc:
        raise type(exc)(exc.code, for_http(exc.message), exc.data) from None


# What `auth`'s refusal says of the socket connection it leaves without access (services/access.py).
SOCKET_ONLY_WORDS = "; this connection now has no access"


def for_http(message: str) -> str:
    """A refusal's words for an HTTP caller: said of a socket connection, not of a request."""
    return message.replace(SOCKET_ONLY_WORDS, "")


async def token_scope(socket_path: Path, token: str, *, timeout: float) -> Any:
    """What ``token`` may reach (the daemon's `auth` answer), asked on a connection of its own and
    closed after: an `auth` on a kept connection would make it that token's (or a failed one's)
    for every later call of whoever shares it. RpcCallError when refused."""
    async with AsyncClient(socket_path, token=None, timeout=timeout, max_connections=1) as fresh:
        return await fresh.call("auth", {"token": token})


async def _forget(socket_path: Path, token: str | None) -> None:
    pools = _POOLS.get(asyncio.get_running_loop(), OrderedDict())
    client = pools.pop((str(socket_path), token), None)
    if client is not None:
        await client.aclose()


_CLOSING: set[asyncio.Task[None]] = set()


def _pool(socket_path: Path, token: str | None) -> AsyncClient:
    pools = _POOLS.setdefault(asyncio.get_running_loop(), OrderedDict())
    key = (str(socket_path), token)
    if key in pools:
        pools.move_to_end(key)
        return pools[key]
    if len(pools) >= POOLS_KEPT:
        _, oldest = pools.popitem(last=False)
        closing = asyncio.get_running_loop().create_task(oldest.aclose())
        _CLOSING.add(closing)  # held until done: a task nothing refers to may be collected unrun
        closing.add_done_callback(_CLOSING.discard)
    pools[key] = AsyncClient(socket_path, token=token)
    return pools[key]
