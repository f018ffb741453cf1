"""The memory proxy: an Anthropic Messages (and OpenAI chat completions) endpoint that adds
agentmemd's memory, persona and drift repair to an app's calls, with zero code change.

    agentmemd token create my-app --namespace default
    agentmemd proxy --listen 127.0.0.1:8788 --upstream https://api.anthropic.com
    ANTHROPIC_BASE_URL=http://127.0.0.1:8788/t/amt_… python my_app.py

Built on Starlette (the listener, run by uvicorn) and httpx2 (the upstream client, the HTTP
stack the Anthropic and MCP SDKs use): async end to end, so a streamed reply passes through
chunk by chunk while the assistant's words are collected beside it.

Per `POST /v1/messages`: the turns the daemon has not seen are appended (conversation service),
`conversation.context` gives the stable prefix, the reminder + Memory Pack and any persona
anchors, the request goes upstream with them, and the reply is appended as an assistant turn
(so SyncScore scores it). Fail-open: if the daemon is down or errs, the request goes upstream
unchanged and a warning is logged. The API key passes through and is never logged or stored.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Literal

import anyio
import httpx2
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from agentmemd.daemon.proxy import messages as wire
from agentmemd.daemon.proxy.stream import ReplyTextCollector
from agentmemd.daemon.socket.client import Client, DaemonUnavailable, RpcCallError, call_once
from agentmemd.daemon.socket.rpc import CONFLICT
from agentmemd.memory.core.tokens import count_tokens

log = logging.getLogger("agentmemd.proxy")
HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "content-length", "host"}
OURS = ("x-agentmemd-",)
SESSION_HEADER, NAMESPACE_HEADER, TOKEN_HEADER = "x-agentmemd-session", "x-agentmemd-namespace", "x-agentmemd-token"


@dataclass(frozen=True)
class ProxySettings:
    socket_path: Path
    upstream: str = "https://api.anthropic.com"
    openai_upstream: str = "https://api.openai.com"
    mode: Literal["augment", "compact"] = "augment"
    budget_tokens: int | None = None  # the context budget; None: the daemon's [conversation] default
    timeout: float = 600.0
    daemon_timeout: float = 30.0


class Unauthorized(Exception):
    pass


# Where a request belongs: its session, its namespace, and its turns as (role, text).
Placement = tuple[str, str, list[tuple[str, str]]]


class MemoryLink:
    """The proxy's calls to the daemon (blocking; run in worker threads)."""

    def __init__(self, settings: ProxySettings):
        self.settings = settings
        # How many turns each session had stored at the last sync: the next sends only the rest.
        self._synced: OrderedDict[tuple[str, str], int] = OrderedDict()
        self._synced_lock = threading.Lock()

    def prepare(self, token: str, place: Callable[[dict[str, Any]], Placement]) -> tuple[dict[str, Any], Placement]:
        """On one connection: authenticate the token, ``place`` the request (its session,
        namespace and turns, given the token's scope), store the turns the daemon has not
        seen, and build the context for the newest. Unauthorized: the token was refused;
        DaemonUnavailable: no daemon to ask."""
        try:
            client = Client(self.settings.socket_path, timeout=self.settings.daemon_timeout, token=token)
        except RpcCallError as exc:
            raise Unauthorized(exc.message) from None
        except (ConnectionError, TimeoutError) as exc:
            raise DaemonUnavailable(str(exc)) from None
        with client:
            placement = place(client.scope or {})
            session, namespace, turns = placement
            self._sync(client, session, namespace, turns)
            params: dict[str, Any] = {"session": session, "namespace": namespace, "anchors_as": "user"}
            if self.settings.budget_tokens:
                params["budget_tokens"] = self.settings.budget_tokens
            return client.call("conversation.context", params), placement

    def _sync(self, client: Client, session: str, namespace: str, turns: list[tuple[str, str]]) -> None:
        """``conversation.sync`` from the turn this proxy last saw stored, in requests that fit
        the daemon's line limit; from where the daemon says, if it has fewer."""
        key = (namespace, session)
        with self._synced_lock:
            offset = min(self._synced.get(key, 0), len(turns))
        for attempt in range(2):
            try:
                for start, chunk in _frames(turns, offset):
                    params = {"session": session, "namespace": namespace, "offset": start, "turns": chunk}
                    stored = client.call("conversation.sync", params)["turns"]
                break
            except RpcCallError as exc:
                told = exc.data.get("turns") if isinstance(exc.data, dict) else None
                if attempt or exc.code != CONFLICT or not isinstance(told, int) or told >= offset:
                    raise
                offset = told  # the session has fewer turns than this proxy thought: send from there
        with self._synced_lock:
            self._synced[key] = stored
            self._synced.move_to_end(key)
            while len(self._synced) > SYNCED_SESSIONS:
                self._synced.popitem(last=False)

    def remember(self, token: str, session: str, namespace: str, text: str) -> None:
        params = {"session": session, "role": "assistant", "content": text, "namespace": namespace}
        try:
            call_once(self.settings.socket_path, "conversation.append", params, token=token, timeout=30)
        except (RpcCallError, DaemonUnavailable) as exc:
            log.warning("proxy: the reply was not recorded", extra={"session": session, "error": str(exc)})


SYNCED_SESSIONS = 10_000
SYNC_FRAME_BYTES = 512_000  # of the daemon's max_line_bytes (1 MiB by default)


def _frames(turns: list[tuple[str, str]], offset: int) -> Iterator[tuple[int, list[dict[str, str]]]]:
    """(offset, turns) requests from ``offset`` on, each of SYNC_FRAME_BYTES of JSON at most
    (or one turn); one empty request when nothing is new, which still answers the count."""
    start, chunk, size = offset, [], 0
    for i in range(offset, len(turns)):
        role, text = turns[i]
        encoded = len(json.dumps(text)) + 32  # as the client sends it (\u escapes), with its keys
        if chunk and size + encoded > SYNC_FRAME_BYTES:
            yield start, chunk
            start, chunk, size = i, [], 0
        chunk.append({"role": role, "content": text})
        size += encoded
    yield start, chunk


def _forward_headers(request: Request) -> dict[str, str]:
    headers = {
        k: v for k, v in request.headers.items() if k.lower() not in HOP_BY_HOP and not k.lower().startswith(OURS)
    }
    headers["accept-encoding"] = "identity"  # the bytes we read are the bytes the app gets
    return headers


def _reply_headers(response: httpx2.Response) -> dict[str, str]:
    return {k: v for k, v in response.headers.items() if k.lower() not in HOP_BY_HOP}


class Proxy:
    def __init__(self, settings: ProxySettings, http: httpx2.AsyncClient | None = None):
        self.settings = settings
        self.link = MemoryLink(settings)
        self.http = http or httpx2.AsyncClient(timeout=httpx2.Timeout(settings.timeout, connect=30.0))

    # ---- routing ---------------------------------------------------------------------------

    def app(self) -> Starlette:
        routes = [
            Route("/t/{token}/v1/messages", self.messages, methods=["POST"]),
            Route("/v1/messages", self.messages, methods=["POST"]),
            Route("/t/{token}/v1/chat/completions", self.chat_completions, methods=["POST"]),
            Route("/v1/chat/completions", self.chat_completions, methods=["POST"]),
            Route("/t/{token}/{rest:path}", self.passthrough, methods=["GET", "POST", "PUT", "DELETE", "PATCH"]),
            Route("/{rest:path}", self.passthrough, methods=["GET", "POST", "PUT", "DELETE", "PATCH"]),
        ]

        @contextlib.asynccontextmanager
        async def lifespan(app):
            try:
                yield
            finally:
                await self.http.aclose()

        return Starlette(routes=routes, lifespan=lifespan)

    def _upstream_url(self, request: Request, api: str) -> str:
        path = request.url.path
        token = request.path_params.get("token")
        if token:
            path = path[len(f"/t/{token}") :]
        base = (self.settings.openai_upstream if api == "openai" else self.settings.upstream).rstrip("/")
        if api == "openai" and base.endswith("/v1") and path.startswith("/v1/"):
            path = path[3:]  # an OpenAI-compatible base URL that already ends in /v1
        query = f"?{request.url.query}" if request.url.query else ""
        return f"{base}{path}{query}"

    @staticmethod
    def _token(request: Request) -> str | None:
        return request.path_params.get("token") or request.headers.get(TOKEN_HEADER)

    # ---- the two memory endpoints ------------------------------------------------------------

    async def messages(self, request: Request) -> Response:
        return await self._with_memory(request, "anthropic")

    async def chat_completions(self, request: Request) -> Response:
        return await self._with_memory(request, "openai")

    async def _with_memory(self, request: Request, api: str) -> Response:
        raw = await request.body()
        url = self._upstream_url(request, api)
        token = self._token(request)
        if not token:
            return _unauthorized(
                api, "no agentmemd token: use base URL http://HOST:PORT/t/<token> or send x-agentmemd-token"
            )
        try:
            body: Any = json.loads(raw)
            history = wire.history_messages(body, api)
        except Exception:  # not a request we understand: it still goes upstream once the token checks out
            body = history = None

        def place(scope: dict[str, Any]) -> Placement:
            if history is None:
                raise ValueError("the request body is not a Messages request")
            system_text = wire.anthropic_system_text(body) if api == "anthropic" else wire.openai_system_text(body)
            namespace = request.headers.get(NAMESPACE_HEADER) or scope.get("default_namespace") or "default"
            session = request.headers.get(SESSION_HEADER) or wire.default_session(
                f"{namespace}\0{system_text}", history
            )
            return session, namespace, wire.turns(history)

        try:
            context, (session, namespace, _) = await anyio.to_thread.run_sync(self.link.prepare, token, place)
            keep = None
            if self.settings.mode == "compact":
                full = sum(count_tokens(wire.message_text(m)) for m in history)
                if full > context["budget_tokens"]:
                    keep = len(context["messages"])
            augment = wire.augment_anthropic if api == "anthropic" else wire.augment_openai
            upstream_body = json.dumps(augment(body, context, keep), ensure_ascii=False).encode("utf-8")
        except Unauthorized as exc:
            return _unauthorized(api, exc.args[0])
        except DaemonUnavailable as exc:
            log.warning("proxy: daemon unreachable; passing the request through unchanged", extra={"error": str(exc)})
            return await self._send(request, url, raw, api, None)
        except Exception as exc:  # fail-open: the app never sees an error the upstream would not give
            log.warning(
                "proxy: memory step failed; passing the request through unchanged",
                extra={"error": f"{type(exc).__name__}: {exc}"},
            )
            return await self._send(request, url, raw, api, None)
        return await self._send(request, url, upstream_body, api, (token, session, namespace))

    async def passthrough(self, request: Request) -> Response:
        api = "openai" if "/chat/" in request.url.path or "/completions" in request.url.path else "anthropic"
        return await self._send(request, self._upstream_url(request, api), await request.body(), api, None)

    # ---- upstream -------------------------------------------------------------------------------

    async def _send(self, request: Request, url: str, body: bytes, api: str, remember) -> Response:
        upstream_request = self.http.build_request(request.method, url, content=body, headers=_forward_headers(request))
        try:
            response = await self.http.send(upstream_request, stream=True)
        except httpx2.HTTPError as exc:
            log.warning("proxy: upstream unreachable", extra={"url": url, "error": type(exc).__name__})
            return JSONResponse(
                {
                    "type": "error",
                    "error": {"type": "api_error", "message": f"upstream unreachable: {type(exc).__name__}"},
                },
                status_code=502,
            )
        headers = _reply_headers(response)
        recording = remember is not None and response.status_code == 200
        # The reply is recorded before the app has the whole response: its next request, which
        # carries the reply in its history, must not find it missing and append it a second time.
        if response.headers.get("content-type", "").startswith("text/event-stream"):
            collector = ReplyTextCollector(api)

            async def chunks():
                try:
                    async for chunk in response.aiter_raw():
                        collector.feed(chunk)
                        yield chunk
                finally:
                    await response.aclose()
                    if recording and collector.text:
                        await anyio.to_thread.run_sync(self.link.remember, *remember, collector.text)

            return StreamingResponse(chunks(), status_code=response.status_code, headers=headers)
        content = await response.aread()
        await response.aclose()
        if recording:
            try:
                parsed = json.loads(content)
                text = wire.anthropic_reply_text(parsed) if api == "anthropic" else wire.openai_reply_text(parsed)
            except (ValueError, AttributeError):
                text = ""
            if text:
                await anyio.to_thread.run_sync(self.link.remember, *remember, text)
        return Response(content, status_code=response.status_code, headers=headers)


def _unauthorized(api: str, message: str) -> Response:
    if api == "openai":
        body = {"error": {"message": message, "type": "invalid_request_error", "code": "agentmemd_token"}}
    else:
        body = {"type": "error", "error": {"type": "authentication_error", "message": message}}
    return JSONResponse(body, status_code=401)


def build_proxy_app(settings: ProxySettings) -> Starlette:
    return Proxy(settings).app()
