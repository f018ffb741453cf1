"""The asyncio client of the daemon's socket: every method as an awaitable typed call (typed.py),
over a small pool of connections, so concurrent calls do not wait on one another and a call
reuses a connection (and its `auth`) instead of opening one. A refusal raises as the synchronous
client's does (``RpcCallError``, of the error tree's class).

    from agentmemd.daemon.socket.async_client import AsyncClient

    async with AsyncClient(token=app_token) as agentmemd:
        pack, hits = await asyncio.gather(
            agentmemd.context_pack(query="what does Ana like?", budget_tokens=400),
            agentmemd.memory_search(query="Ana"),
        )
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
from pathlib import Path
from typing import Any

from agentmemd.daemon.socket.client import DaemonUnavailable, RpcCallError, default_socket, given, refusal, request_line
from agentmemd.daemon.socket.typed import AsyncTypedCalls, R

# An answer line may be as long as a result is (a whole explained pack): far past asyncio's 64 KiB default.
MAX_ANSWER_BYTES = 1 << 30


class _Stale(ConnectionError):
    """A kept connection found closed before the request went out."""


class _Connection:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.reader, self.writer = reader, writer
        self.ids = itertools.count(1)

    async def call(self, method: str, params: dict[str, Any]) -> Any:
        request = {"jsonrpc": "2.0", "id": next(self.ids), "method": method, "params": params}
        if self.reader.at_eof():  # closed by the daemon while it was kept
            raise _Stale()
        try:
            self.writer.write(request_line(request) + b"\n")
            await self.writer.drain()
        except (BrokenPipeError, ConnectionResetError):
            raise _Stale() from None
        line = await self.reader.readline()
        if not line:
            raise ConnectionError("the daemon closed the connection")
        response = json.loads(line)
        if "error" in response:
            err = response["error"]
            raise refusal(err["code"], err["message"], err.get("data"))
        return response["result"]

    def close(self) -> None:
        self.writer.close()


class AsyncClient(AsyncTypedCalls):
    """Up to ``max_connections`` connections to the daemon, opened as calls need them and kept for
    the next. With ``token``, each connection's first call is `auth` (a refused token raises on the
    first call). ``timeout``: how long one call may take, its connection's opening included."""

    def __init__(
        self,
        socket_path: str | os.PathLike | None = None,
        *,
        token: str | None = None,
        timeout: float = 120.0,
        max_connections: int = 4,
    ):
        if max_connections < 1:
            raise ValueError("max_connections must be at least 1")
        self.socket_path = str(socket_path or default_socket())
        self.token = token
        self.timeout = timeout
        self._idle: list[_Connection] = []
        self._slots = asyncio.Semaphore(max_connections)
        self._closed = False

    async def call(self, method: str, params: dict[str, Any] | None = None, *, timeout: float | None = None) -> Any:
        """One method by name, its params as JSON; its result as JSON. ``timeout``: this call's own
        (default: the client's)."""
        if self._closed:
            raise RuntimeError("this AsyncClient is closed")
        limit = self.timeout if timeout is None else timeout
        async with self._slots:
            connection = self._idle.pop() if self._idle else None
            try:
                async with asyncio.timeout(limit):
                    if connection is not None:
                        try:
                            result = await connection.call(method, params or {})
                        except _Stale:
                            # A kept connection the daemon closed while it waited (a restart, an
                            # upgrade): the request never reached a daemon, so it goes on a new one.
                            connection.close()
                            connection = None
                    if connection is None:
                        connection = await self._open()
                        result = await connection.call(method, params or {})
            except TimeoutError:
                self._drop(connection)  # an answer may still come: that connection is out of step
                raise DaemonUnavailable(
                    f"agentmemd at {self.socket_path} did not answer {method} within {limit:g} s"
                ) from None
            except (ConnectionError, OSError) as exc:
                self._drop(connection)
                raise DaemonUnavailable(f"cannot reach agentmemd at {self.socket_path}: {exc}") from None
            except RpcCallError:
                if connection is not None:
                    self._idle.append(connection)  # a refusal leaves its connection in step
                raise
            except BaseException:
                self._drop(connection)  # cancelled mid-call: its answer may still come
                raise
            self._idle.append(connection)
            return result

    async def _typed(self, method: str, result: type[R], params: dict[str, Any]) -> R:
        return result.model_validate(await self.call(method, given(params)))

    async def _open(self) -> _Connection:
        if not Path(self.socket_path).exists():
            raise ConnectionError(f"no socket at {self.socket_path}; is the daemon running?")
        reader, writer = await asyncio.open_unix_connection(self.socket_path, limit=MAX_ANSWER_BYTES)
        connection = _Connection(reader, writer)
        if self.token is not None:
            try:
                await connection.call("auth", {"token": self.token})
            except BaseException:
                connection.close()
                raise
        return connection

    def _drop(self, connection: _Connection | None) -> None:
        if connection is not None:
            connection.close()

    async def aclose(self) -> None:
        """Close every idle connection; calls made after it raise."""
        self._closed = True
        idle, self._idle = self._idle, []
        for connection in idle:
            connection.close()
            await connection.writer.wait_closed()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


# What an app may import from here (tests/test_public_surface.py keeps it whole).
__all__ = ["AsyncClient"]
