"""The MCP door over Streamable HTTP: one `/mcp` endpoint, on loopback unless told otherwise.

Every request must carry `Authorization: Bearer <access token>` (an `agentmemd token create`
secret): a TCP port on loopback is open to every local user and to any web page the browser
runs, unlike the daemon's 0600 socket. The daemon checks the token (a missing, unknown or
revoked one is a 401) and later scopes each tool call to the token's namespaces. The SDK's
transport security refuses a `Host` that is not this listener (421) and an `Origin` that is
not loopback (403), which stops DNS rebinding.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from starlette.types import ASGIApp, Receive, Scope, Send

from agentmemd.daemon.doors.calls import NO_DAEMON, check_token
from agentmemd.daemon.doors.listen import LOOPBACK_NAMES
from agentmemd.daemon.doors.tokens import bearer_token
from agentmemd.daemon.socket.client import DaemonUnavailable, RpcCallError


def _security(host: str, port: int) -> TransportSecuritySettings:
    hosts = {f"{name}:{port}" for name in LOOPBACK_NAMES} | {f"{host}:{port}"}
    # Any loopback origin, whatever its port (a local web app on :3000 is loopback too; a page a DNS
    # rebinding serves is not), and this listener's own.
    origins = {f"{scheme}://{name}{port_part}" for scheme in ("http", "https") for name in LOOPBACK_NAMES
               for port_part in ("", ":*")} | {f"http://{host}:{port}"}  # fmt: skip
    return TransportSecuritySettings(allowed_hosts=sorted(hosts), allowed_origins=sorted(origins))


class BearerTokenCheck:
    """ASGI middleware: 401 unless the request's bearer token is a live access token."""

    def __init__(self, app: ASGIApp, socket_path: Path):
        self.app = app
        self.socket_path = socket_path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        token = bearer_token(headers.get("authorization"))
        if not token:
            await _answer(
                send,
                401,
                "missing bearer token: create one with `agentmemd token create NAME --namespace NS` "
                "and send `Authorization: Bearer <secret>`",
            )
            return
        try:
            await check_token(self.socket_path, token, timeout=10)
        except RpcCallError as exc:
            await _answer(send, 401, exc.message)  # health is open to every token: a refusal is the token's
            return
        except DaemonUnavailable as exc:
            await _answer(send, NO_DAEMON, str(exc))
            return
        if scope["method"] == "GET":
            # A stateless server has no stream of its own to offer: the spec's answer is 405 (the
            # SDK's app opened an SSE stream that never ended, a connection held for every GET).
            await _answer(send, 405, "this MCP endpoint answers POST only: it is stateless, with no SSE stream")
            return
        await self.app(scope, receive, send)


async def _answer(send: Send, status: int, message: str) -> None:
    body = json.dumps({"error": message}).encode()
    headers: list[tuple[bytes, bytes]] = [
        (b"content-type", b"application/json"),
        (b"content-length", b"%d" % len(body)),
    ]
    if status == 401:
        headers.append((b"www-authenticate", b'Bearer realm="agentmemd"'))
    if status == 405:
        headers.append((b"allow", b"POST"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def build_http_app(server: MCPServer, socket_path: Path, host: str, port: int) -> Any:
    """The ASGI app: the token check around the SDK's Streamable HTTP app at `/mcp`.

    Stateless: each POST stands alone, so nothing one caller's session holds can serve another.
    """
    app = server.streamable_http_app(
        streamable_http_path="/mcp",
        stateless_http=True,
        json_response=True,
        transport_security=_security(host, port),
        host=host,
    )
    return BearerTokenCheck(app, Path(socket_path))


def serve_http(server: MCPServer, socket_path: Path, host: str, port: int, **uvicorn_options: Any) -> None:
    """Serve it; ``uvicorn_options``: how uvicorn logs (daemon/doors/logs.uvicorn_options)."""
    import uvicorn

    app = build_http_app(server, socket_path, host, port)
    options = {"log_level": "warning", **uvicorn_options}
    uvicorn.run(app, host=host.strip("[]"), port=port, lifespan="on", **options)
