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
import time
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Callable, Literal

import anyio
import httpx2
from pydantic import TypeAdapter, ValidationError
from starlette.applications import Starlette
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from agentmemd.daemon.doors.calls import for_http
from agentmemd.daemon.doors.history import sync_history, sync_turn
from agentmemd.daemon.doors.listen import LOOPBACK_NAMES, is_loopback
from agentmemd.daemon.doors.logs import reason
from agentmemd.daemon.proxy import counting
from agentmemd.daemon.proxy import messages as wire
from agentmemd.daemon.proxy import responses as responses_wire
from agentmemd.daemon.proxy.choices import OpenChoices, StoredFirst
from agentmemd.daemon.proxy.scope import Forbidden, refused_as_forbidden, scoped_namespace
from agentmemd.daemon.proxy.stream import ReplyCollector
from agentmemd.daemon.socket.client import Client, DaemonUnavailable, RpcCallError
from agentmemd.daemon.socket.codes import FORBIDDEN
from agentmemd.daemon.socket.rpc import validation_problems
from agentmemd.memory.conversation.transcript import as_stored
from agentmemd.memory.core.models import Namespace, SessionId
from agentmemd.memory.core.tokens import count_tokens

log = logging.getLogger("agentmemd.proxy")
HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "content-length", "host"}
OURS = ("x-agentmemd-",)
SESSION_HEADER, NAMESPACE_HEADER, TOKEN_HEADER = "x-agentmemd-session", "x-agentmemd-namespace", "x-agentmemd-token"
# `x-agentmemd-store: false` keeps one call out of memory (as `store: false` does on the Responses API).
STORE_HEADER = "x-agentmemd-store"
STORE_VALUES = {"true": True, "yes": True, "on": True, "1": True, "false": False, "no": False, "off": False, "0": False}


@dataclass(frozen=True)
class ProxySettings:
    socket_path: Path
    upstream: str = "https://api.anthropic.com"
    openai_upstream: str = "https://api.openai.com"
    mode: Literal["augment", "compact"] = "augment"
    budget_tokens: int | None = None  # the context budget; None: the daemon's [conversation] default
    timeout: float = 600.0
    memory_timeout: float = 2.0  # seconds for a request's whole memory step (connect, sync, context); then fail-open

    @property
    def daemon_timeout(self) -> float:
        """The socket client's own timeout: no longer than the memory step's budget, so a worker
        thread the budget gave up on ends about when the budget does."""
        return self.memory_timeout


class Unauthorized(Exception):
    pass


@dataclass
class Placement:
    """Where a request belongs: the session name the app gave (None: found by content), the
    namespace, the history's turns as (role, text), and once synced, the branch it continues and
    the turns this request stored (pending until the upstream answers)."""

    name: str | None
    namespace: str
    turns: list[tuple[str, ...]]  # (role, text) or (role, text, speaker)
    session: str = ""
    pending_seqs: list[int] = field(default_factory=list)
    last_seq: int | None = None  # the stored turn the history ends at: the reply goes after it
    observe_after: bool = False  # compact mode kept turns no observation covers yet
    # An Anthropic request ending in an assistant message is a prefill the model continues: it is
    # stored with the reply as one turn, as the app's next history carries them (else each prefilled
    # call stored two assistant turns, and the next request branched the conversation).
    prefill: str = ""


@dataclass(frozen=True)
class Reply:
    """What the app received: the Responses API's response id (else None), the reply's turns as
    the app's next request will carry them, and an `n` > 1 reply's other choices (their texts)."""

    response_id: str | None
    turns: list[tuple[str, str]]
    others: list[str] = field(default_factory=list)
    message: dict[str, Any] | None = None  # the assistant message as received (a prefill joins it)


class MemoryLink:
    """The proxy's calls to the daemon (blocking; run in worker threads): two a proxied call, on a
    connection kept open for its token (``ConnectionPool``), `conversation.prepare` before the
    upstream call and `conversation.confirm` (or `conversation.retract`) after it."""

    def __init__(self, settings: ProxySettings):
        self.settings = settings
        self.responses = responses_wire.ResponseHistories()
        self.choices = OpenChoices()
        self.pool = ConnectionPool(settings.socket_path)

    def prepare(self, token: str, place: Callable[[dict[str, Any]], Placement]) -> tuple[dict[str, Any], Placement]:
        """On one connection: authenticate the token (once a connection), ``place`` the request
        (its session name, namespace and turns, given the token's scope), store what its history
        adds (pending) and build the context for the newest turn, in one call. Unauthorized: the
        token was refused; DaemonUnavailable: no daemon to ask."""
        try:
            return self._prepare(token, place, fresh=False)
        except RpcCallError as exc:
            if exc.code != FORBIDDEN:
                raise
        except (ConnectionError, OSError) as exc:
            if isinstance(exc, (DaemonUnavailable, TimeoutError)):
                raise  # no daemon, or a slow one: a new connection would not help
            # else a kept connection the daemon closed (it restarted): a new one, once
        # Refused on a kept connection: its token may have been revoked since it authenticated.
        # Asked again on a new one, whose `auth` says so (Unauthorized), or that finds it allowed.
        with refused_as_forbidden():  # refused still: the token may not keep this conversation
            return self._prepare(token, place, fresh=True)

    def _prepare(
        self, token: str, place: Callable[[dict[str, Any]], Placement], *, fresh: bool
    ) -> tuple[dict[str, Any], Placement]:
        with self.pool.connection(token, self.settings.daemon_timeout, fresh=fresh) as client:
            placement = place(client.scope or {})
            self._take_back_other_choice(client, placement)
            options: dict[str, Any] = {"anchors_as": "user"}
            if self.settings.budget_tokens:
                options["budget_tokens"] = self.settings.budget_tokens
            prepared = sync_history(
                client, placement.name, placement.namespace, placement.turns, pending=True, context=options
            )
            placement.session, placement.pending_seqs = prepared["session"], prepared["appended_seqs"]
            placement.last_seq = prepared["last_seq"]
            return prepared["context"], placement

    def _take_back_other_choice(self, client: Client, placement: Placement) -> None:
        """The app continues an `n` > 1 reply with another choice than the first, which is stored
        pending: the first goes, so the history's choice is stored in its place (not as a fork)."""
        stored = self.choices.taken_instead(placement.namespace, placement.turns)
        if stored is not None:
            params = {"session": stored.session, "namespace": placement.namespace, "seqs": [stored.seq]}
            client.call("conversation.retract", params)

    def settle(self, token: str, placement: Placement, reply: Reply | None, accepted: bool) -> None:
        """After the upstream answered: an accepted call's turns are confirmed, with the reply when
        the app received it whole (None: no reply, a stream cut short, or an app that hung up), the
        history not sent again; a refused call's turns are taken back. An `n` > 1 reply's first
        choice is stored pending until the app's next request shows which choice it took
        (proxy/choices.py)."""
        try:
            try:
                self._settle(token, placement, reply, accepted, fresh=False)
            except (ConnectionError, OSError) as exc:
                if isinstance(exc, (DaemonUnavailable, TimeoutError)):
                    raise
                self._settle(token, placement, reply, accepted, fresh=True)  # the daemon closed a kept one
        except (RpcCallError, DaemonUnavailable, ConnectionError, TimeoutError) as exc:
            log.warning(
                "proxy: the call's turns were not settled", extra={"session": placement.session, "error": reason(exc)}
            )

    def _settle(self, token: str, placement: Placement, reply: Reply | None, accepted: bool, *, fresh: bool) -> None:
        params = {"session": placement.session, "namespace": placement.namespace}
        timeout = SETTLE_TIMEOUT if accepted else self.settings.daemon_timeout
        with self.pool.connection(token, timeout, fresh=fresh) as client:
            if accepted and reply and reply.others and reply.turns and placement.turns:
                self._store_first_choice(client, placement, reply)
                if placement.observe_after:
                    client.call("conversation.observe", {**params, "force": True, "wait": False})
            elif accepted and placement.last_seq is not None:
                turns = list(reply.turns if reply else [])
                if placement.prefill and reply and reply.message is not None and turns:
                    turns[0] = ("assistant", prefilled(reply.message, placement.prefill))
                answer = [sync_turn(turn) for turn in turns]
                confirm = {
                    **params,
                    "upto": placement.last_seq,
                    "reply": answer,
                    "observe": placement.observe_after,
                }
                client.call("conversation.confirm", confirm)
            elif not accepted and placement.pending_seqs:
                client.call("conversation.retract", {**params, "seqs": placement.pending_seqs})

    def _store_first_choice(self, client: Client, placement: Placement, reply: Reply) -> None:
        sync_history(client, placement.name, placement.namespace, placement.turns, pending=False)
        turns = placement.turns + reply.turns
        synced = sync_history(client, placement.name, placement.namespace, turns, pending=True)
        if synced["appended_seqs"]:
            others = frozenset(as_stored(text) for text in reply.others)
            stored = StoredFirst(synced["session"], synced["appended_seqs"][-1], others)
            self.choices.remember(placement.namespace, placement.turns[-1], stored)


SETTLE_TIMEOUT = 30.0  # confirming an accepted call's turns runs beside the app, never before it
IDLE_SECONDS = 30.0  # a pooled connection unused this long is closed rather than reused


class ConnectionPool:
    """Open, authenticated daemon connections kept per token between requests, so a proxied call
    costs its two calls and no connect or `auth` (a revoked token's connections are refused by the
    daemon from the revoke on). A connection that failed in any way is closed, never reused."""

    def __init__(self, socket_path: Path):
        self.socket_path = socket_path
        self._idle: dict[str, list[tuple[float, Client]]] = {}
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def connection(self, token: str, timeout: float, *, fresh: bool = False):
        """A connection authenticated with ``token``: a kept one unless ``fresh``; kept again
        after a ``with`` block that raised nothing."""
        client = None if fresh else self._take(token)
        if client is None:
            try:
                client = Client(self.socket_path, timeout=timeout, token=token)
            except RpcCallError as exc:
                raise Unauthorized(for_http(exc.message)) from None
            except (ConnectionError, TimeoutError) as exc:
                raise DaemonUnavailable(str(exc)) from None
        client.set_timeout(timeout)
        try:
            yield client
        except BaseException:
            client.close()
            raise
        with self._lock:
            self._idle.setdefault(token, []).append((time.monotonic(), client))

    def _take(self, token: str) -> Client | None:
        """The token's most recently used connection, if one is idle; every one unused for
        IDLE_SECONDS is closed (a burst of requests leaves no connections open for good)."""
        now = time.monotonic()
        with self._lock:
            idle = self._idle.get(token, [])
            fresh = [(since, client) for since, client in idle if now - since < IDLE_SECONDS]
            stale = [client for since, client in idle if now - since >= IDLE_SECONDS]
            taken = fresh.pop()[1] if fresh else None
            self._idle[token] = fresh
        for old in stale:
            old.close()
        return taken

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, {}
        for clients in idle.values():
            for _, client in clients:
                client.close()


# Paths only one provider has; the rest (/v1/models, /v1/files, /v1/batches, …) go by the
# `anthropic-version` header, which every Anthropic client sends and no OpenAI client does.
ANTHROPIC_PATHS = ("/v1/messages", "/v1/complete")
OPENAI_PATHS = (
    "/v1/chat/",
    "/v1/responses",
    "/v1/embeddings",
    "/v1/completions",
    "/v1/audio/",
    "/v1/images/",
    "/v1/moderations",
    "/v1/fine_tuning/",
    "/v1/vector_stores",
    "/v1/assistants",
    "/v1/threads",
    "/v1/realtime",
    "/v1/uploads",
    "/v1/conversations",
    "/v1/evals",
    "/v1/containers",
)


def api_path(request: Request) -> str:
    """The request's path as the provider knows it: without our `/t/<token>` prefix."""
    path = request.url.path
    token = request.path_params.get("token")
    return path[len(f"/t/{token}") :] if token else path


def api_of(request: Request) -> str:
    """Which provider a passed-through request is for: by its path where only one has it, else by
    its headers. A key is never sent to the other provider."""
    path = api_path(request)
    if path.startswith(ANTHROPIC_PATHS):
        return "anthropic"
    if path.startswith(OPENAI_PATHS):
        return "openai"
    return "anthropic" if "anthropic-version" in request.headers else "openai"


def _json_or_none(content: bytes) -> Any:
    try:
        return json.loads(content)
    except ValueError:
        return None


def reply_of(api: str, reply: Any, others: list[dict[str, Any]] | None = None) -> Reply | None:
    """The reply as the app's next request will carry it: from a whole body, or from what a
    stream's collector rebuilt (``others``: its other choices, for a stream)."""
    if not isinstance(reply, dict):
        return None
    if api == "responses":
        response_id = reply.get("id") if isinstance(reply.get("id"), str) else None
        return Reply(response_id, responses_wire.reply_turns(reply))
    message = reply if reply.get("role") == "assistant" else wire.reply_message(reply, api)
    if not message:
        return None
    if others is None:
        others = wire.other_choices(reply) if api == "openai" else []
    return Reply(None, [("assistant", wire.message_text(message))], [wire.message_text(m) for m in others], message)


def prefilled(message: dict[str, Any], prefill: str) -> str:
    """The turn a prefill and the model's continuation make, as the app's next history sends it:
    the prefill's words joined to the reply's first text, not two turns (nor the reply's leading
    space lost: '{"city":' + ' "Lisbon"}')."""
    content = message.get("content")
    if isinstance(content, str):
        content = prefill + content
    elif isinstance(content, list):
        blocks = [dict(b) if isinstance(b, dict) else b for b in content]
        first = next((b for b in blocks if isinstance(b, dict) and b.get("type") == "text"), None)
        if first is not None:
            first["text"] = prefill + str(first.get("text", ""))
        else:
            blocks.insert(0, {"type": "text", "text": prefill})
        content = blocks
    return wire.message_text({**message, "content": content})


def _raw_text(message: dict[str, Any]) -> str:
    """A message's text as the app wrote it (a prefill keeps its spaces)."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(b.get("text", "")) for b in content if isinstance(b, dict) and b.get("type") == "text")
    return ""


def _forward_headers(request: Request) -> dict[str, str]:
    headers = {
        k: v for k, v in request.headers.items() if k.lower() not in HOP_BY_HOP and not k.lower().startswith(OURS)
    }
    headers["accept-encoding"] = "identity"  # the bytes we read are the bytes the app gets
    return headers


def _reply_headers(response: httpx2.Response) -> dict[str, str]:
    """The upstream's headers for the app, but those the proxy's server writes itself (it sent
    `date` and `server` twice)."""
    return {k: v for k, v in response.headers.items() if k.lower() not in HOP_BY_HOP | OWN_SERVER_HEADERS}


OWN_SERVER_HEADERS = {"date", "server"}


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
            Route("/t/{token}/v1/messages/count_tokens", self.count_message_tokens, methods=["POST"]),
            Route("/v1/messages/count_tokens", self.count_message_tokens, methods=["POST"]),
            Route("/t/{token}/v1/chat/completions", self.chat_completions, methods=["POST"]),
            Route("/v1/chat/completions", self.chat_completions, methods=["POST"]),
            Route("/t/{token}/v1/responses", self.responses, methods=["POST"]),
            Route("/v1/responses", self.responses, methods=["POST"]),
            Route("/t/{token}/{rest:path}", self.passthrough, methods=["GET", "POST", "PUT", "DELETE", "PATCH"]),
            Route("/{rest:path}", self.passthrough, methods=["GET", "POST", "PUT", "DELETE", "PATCH"]),
        ]

        @contextlib.asynccontextmanager
        async def lifespan(app):
            try:
                yield
            finally:
                await self.http.aclose()
                self.link.pool.close()

        return Starlette(routes=routes, lifespan=lifespan)

    def _upstream_url(self, request: Request, api: str) -> str:
        path = api_path(request)
        openai = api != "anthropic"
        base = (self.settings.openai_upstream if openai else self.settings.upstream).rstrip("/")
        if openai and base.endswith("/v1") and path.startswith("/v1/"):
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

    async def responses(self, request: Request) -> Response:
        return await self._with_memory(request, "responses")

    async def count_message_tokens(self, request: Request) -> Response:
        """`POST /v1/messages/count_tokens`: counts what `/v1/messages` would send for the same body,
        the stable block and the Memory Pack added, from read-only daemon calls (proxy/counting.py):
        a count stores no turn. Without a token, or when the memory step fails, the body as it is."""
        raw = await request.body()
        url = self._upstream_url(request, "anthropic")
        token = self._token(request)
        if token:
            try:
                body = json.loads(raw)
                history = wire.history_messages(body, "anthropic")
                compact = self.settings.mode == "compact"
                # A count keeps nothing: no turn, and no pack log entry (its question kept nowhere).
                context, keep = await self._read_only_context(request, token, history, compact, logged=False)
                raw = json.dumps(wire.augment_anthropic(body, context, keep), ensure_ascii=False).encode("utf-8")
            except counting.Refused as exc:
                return _unauthorized("anthropic", str(exc))
            except Forbidden as exc:
                return _forbidden("anthropic", str(exc))
            except Exception as exc:  # fail-open, as /v1/messages: the app's body is counted as it is
                log.warning("proxy: counting without memory; the body passes unchanged", extra={"error": reason(exc)})
        return await self._send(request, url, raw, "anthropic", None)

    async def _read_only_context(
        self, request: Request, token: str, history: list[dict[str, Any]], compact: bool, *, logged: bool
    ) -> tuple[dict[str, Any], int | None]:
        """The context for a call that stores nothing (a count, a call kept out of memory), from
        read-only daemon calls within the memory budget (proxy/counting.py)."""
        session, namespace = request.headers.get(SESSION_HEADER), request.headers.get(NAMESPACE_HEADER)
        settings = self.settings
        ask = (settings.socket_path, settings.daemon_timeout, token, session, namespace, history)
        with anyio.fail_after(settings.memory_timeout):
            return await anyio.to_thread.run_sync(
                counting.count_context, *ask, settings.budget_tokens, compact, logged, abandon_on_cancel=True
            )

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
            turns: list[tuple[str, ...]] | None
            history: list[dict[str, Any]] | None
            if api == "responses":
                history, turns = [], self.link.responses.before(body) + responses_wire.turns(body)
            else:
                if not (isinstance(body.get("messages"), list) and body["messages"]):
                    raise ValueError("no messages")  # the upstream's own 400, not one we made valid
                history = wire.history_messages(body, api)
                turns = wire.turns(history)
        except Exception:  # not a request we understand: it still goes upstream once the token checks out
            body = history = turns = None
        try:
            _check_headers(request)
            stored = _stores(request, body)
        except ValueError as exc:
            return _bad_request(api, str(exc))
        if not stored and turns is not None and history is not None:
            return await self._kept_out(request, url, raw, api, token, body, history, turns)

        def place(scope: dict[str, Any]) -> Placement:
            namespace = scoped_namespace(request.headers.get(NAMESPACE_HEADER), scope)
            if turns is None:
                raise ValueError(f"the request body is not a {api} request")
            # No session header: the daemon finds the conversation by its content (no two chats share one).
            if api == "anthropic" and history and len(turns) > 1 and turns[-1][0] == "assistant":
                prefill = _raw_text(history[-1])
                return Placement(request.headers.get(SESSION_HEADER), namespace, turns[:-1], prefill=prefill)
            return Placement(request.headers.get(SESSION_HEADER), namespace, turns)

        budget = self.settings.memory_timeout
        deadline, prepared = anyio.current_time() + budget, False
        try:
            # Past the budget the worker thread is abandoned and what it returns is dropped: what it
            # still stores is the app's own history, which the next request's sync finds stored.
            with anyio.fail_after(budget):
                context, placement = await anyio.to_thread.run_sync(
                    self.link.prepare, token, place, abandon_on_cancel=True
                )
            prepared = True
            if api == "responses":  # compact mode keeps a Responses request whole: its items are the app's state
                augmented = responses_wire.augment(body, context)
            else:
                keep = None
                if self.settings.mode == "compact" and history is not None:  # a body it understood
                    keep = self._compact_keep(context, history, placement)
                augment = wire.augment_anthropic if api == "anthropic" else wire.augment_openai
                augmented = augment(body, context, keep)
            upstream_body = json.dumps(augmented, ensure_ascii=False).encode("utf-8")
        except Unauthorized as exc:
            return _unauthorized(api, exc.args[0])
        except Forbidden as exc:
            return _forbidden(api, str(exc))
        except Exception as exc:  # fail-open: the app never sees an error the upstream would not give
            _log_fail_open(exc, budget, timed_out=not prepared and anyio.current_time() >= deadline)
            # Prepared, its turns are stored pending: settled as for any call (a refusal takes them back).
            return await self._send(request, url, raw, api, (token, placement) if prepared else None)
        return await self._send(request, url, upstream_body, api, (token, placement))

    async def _kept_out(
        self, request: Request, url: str, raw: bytes, api: str, token: str, body: Any, history: list, turns: list
    ) -> Response:
        """A call kept out of memory (`x-agentmemd-store: false`, or `store: false` on the Responses
        API): it still gets the stable block and the Memory Pack, from read-only daemon calls as a
        count does, and nothing of it is stored: no turn, no reply, no score, no pack log entry."""
        if api == "responses":
            history = [{"role": role, "content": text} for role, text, *_ in turns]
        try:
            compact = api != "responses" and self.settings.mode == "compact"
            context, keep = await self._read_only_context(request, token, history, compact, logged=False)
            if api == "responses":
                augmented = responses_wire.augment(body, context)
            else:
                augment = wire.augment_anthropic if api == "anthropic" else wire.augment_openai
                augmented = augment(body, context, keep)
            raw = json.dumps(augmented, ensure_ascii=False).encode("utf-8")
        except counting.Refused as exc:
            return _unauthorized(api, str(exc))
        except Forbidden as exc:
            return _forbidden(api, str(exc))
        except Exception as exc:  # fail-open, as a stored call
            _log_fail_open(exc, self.settings.memory_timeout, timed_out=isinstance(exc, TimeoutError))
        return await self._send(request, url, raw, api, None)

    @staticmethod
    def _compact_keep(context: dict[str, Any], history: list[dict[str, Any]], placement: Placement) -> int | None:
        """Compact mode: how many of the newest messages go upstream (None: all). Older ones leave
        only once observations in the stable block cover them; turns not yet observed stay, and the
        Observer is asked to cover them after this call."""
        if sum(count_tokens(wire.message_text(m)) for m in history) <= context["budget_tokens"]:
            return None
        uncovered = context["parts"]["unobserved_turns"]
        placement.observe_after = uncovered > len(context["messages"])
        return max(len(context["messages"]), uncovered)

    async def passthrough(self, request: Request) -> Response:
        api = api_of(request)
        if request.url.path.startswith("/t/") and not request.path_params.get("token"):
            return _unauthorized(api, "an empty agentmemd token in the path: use /t/<token>/…")
        return await self._send(request, self._upstream_url(request, api), await request.body(), api, None)

    # ---- upstream -------------------------------------------------------------------------------

    async def _send(self, request: Request, url: str, body: bytes, api: str, remember) -> Response:
        """The request upstream and its reply back to the app. ``remember``: (token, placement) of a
        call whose turns are stored, settled once the reply has reached the app; if the app hangs up
        first, the upstream call is dropped too (as it would be without the proxy) and the app's
        turns are kept without a reply: a reply nobody received never happened."""
        upstream_request = self.http.build_request(request.method, url, content=body, headers=_forward_headers(request))
        try:
            response = await _unless_app_left(request, lambda: self.http.send(upstream_request, stream=True))
        except httpx2.HTTPError as exc:
            log.warning("proxy: upstream unreachable", extra={"url": url, "error": type(exc).__name__})
            if remember is not None:  # no model answered: the call's turns are taken back, as a refusal's
                token, placement = remember
                with anyio.move_on_after(self.settings.memory_timeout):
                    await anyio.to_thread.run_sync(
                        partial(self.link.settle, token, placement, None, False), abandon_on_cancel=True
                    )
            return JSONResponse(
                {
                    "type": "error",
                    "error": {"type": "api_error", "message": f"upstream unreachable: {type(exc).__name__}"},
                },
                status_code=502,
            )
        if response is None:
            return await self._app_left(remember, None)
        headers = _reply_headers(response)
        accepted = 200 <= response.status_code < 300

        async def settle(reply: Reply | None) -> None:
            """An accepted call's turns are confirmed on a thread of their own: the app never waits
            for it (its next request, which carries the reply, matches by content whichever comes
            first). A refused call's are taken back before the app has the error, within the memory
            budget, so its corrected resend finds them gone."""
            if remember is None:
                return
            if accepted:
                if reply and reply.response_id:  # before the app can continue from it: at once, in memory
                    self.link.responses.remember(reply.response_id, remember[1].turns + reply.turns)
                threading.Thread(target=self.link.settle, args=(*remember, reply, True), daemon=True).start()
                return
            token, placement = remember
            with anyio.move_on_after(self.settings.memory_timeout):
                await anyio.to_thread.run_sync(
                    partial(self.link.settle, token, placement, None, False), abandon_on_cancel=True
                )

        if response.headers.get("content-type", "").startswith("text/event-stream"):
            collector = ReplyCollector(api)

            async def chunks():
                ended = "app left"  # until the stream ends or the upstream breaks it
                try:
                    async for chunk in response.aiter_raw():
                        collector.feed(chunk)
                        yield chunk
                    ended = "delivered"
                except httpx2.HTTPError:
                    ended = "upstream broke"
                    raise
                finally:
                    # Starlette cancels this when the app hangs up: the closing and settling still run.
                    with anyio.CancelScope(shield=True):
                        await response.aclose()
                        whole = accepted and ended == "delivered" and collector.completed
                        await settle(reply_of(api, collector.reply, collector.alternatives) if whole else None)
                    if accepted and ended == "app left" and remember is not None:
                        _log_app_left(remember)

            return StreamingResponse(chunks(), status_code=response.status_code, headers=headers)
        try:
            content = await _unless_app_left(request, response.aread)
        finally:
            await response.aclose()
        if content is None:
            return await self._app_left(remember, settle if accepted else None)
        await settle(reply_of(api, _json_or_none(content)) if accepted else None)
        return Response(content, status_code=response.status_code, headers=headers)

    async def _app_left(self, remember, settle) -> Response:
        """The app hung up before its reply came: its turns are kept (what it said was said), the
        reply is not. The answer goes nowhere; the server drops it."""
        if remember is not None:
            _log_app_left(remember)
            if settle is not None:
                await settle(None)
            else:
                threading.Thread(target=self.link.settle, args=(*remember, None, True), daemon=True).start()
        return Response(status_code=499)


async def _unless_app_left(request: Request, work: Callable[[], Any]) -> Any:
    """``work``'s result, or None when the app hung up first (``work`` is then cancelled)."""
    outcome: dict[str, Any] = {}
    async with anyio.create_task_group() as group:

        async def run() -> None:
            try:
                outcome["result"] = await work()
            except Exception as exc:  # raised below, outside the task group (which would wrap it)
                outcome["error"] = exc
            group.cancel_scope.cancel()

        async def watch() -> None:
            while (await request.receive())["type"] != "http.disconnect":
                pass
            group.cancel_scope.cancel()

        group.start_soon(run)
        group.start_soon(watch)
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("result")


def _log_app_left(remember) -> None:
    log.info(
        "proxy: the app hung up before it had the whole reply; its turns are kept, the reply is not stored",
        extra={"session": remember[1].session},
    )


def _log_fail_open(exc: Exception, budget: float, timed_out: bool) -> None:
    """The warning of a request that goes upstream unchanged, with why. ``timed_out``: the failure
    came at the budget's end (the socket's own timeout is the budget, so it may be first to say)."""
    if timed_out or isinstance(exc, TimeoutError):
        log.warning(
            "proxy: memory step timed out; passing the request through unchanged",
            extra={"timeout_seconds": budget, "error": f"TimeoutError: no answer from the daemon within {budget:g} s"},
        )
    elif isinstance(exc, DaemonUnavailable):
        log.warning("proxy: daemon unreachable; passing the request through unchanged", extra={"error": reason(exc)})
    else:
        log.warning("proxy: memory step failed; passing the request through unchanged", extra={"error": reason(exc)})


_HEADER_TYPES = {SESSION_HEADER: TypeAdapter(SessionId), NAMESPACE_HEADER: TypeAdapter(Namespace)}


def _check_headers(request: Request) -> None:
    """ValueError naming the header: a session or namespace the daemon would refuse. Checked before
    anything goes upstream, as a bad `x-agentmemd-store` is: the call would have gone without the
    memory it asked for (the daemon refused it, and the proxy failed open)."""
    for header, kind in _HEADER_TYPES.items():
        given = request.headers.get(header)
        if given is None:
            continue
        try:
            kind.validate_python(given)
        except ValidationError as exc:
            raise ValueError(f"{header}: {validation_problems(exc)[0]['message']}: {given[:60]!r}") from None


def _stores(request: Request, body: Any) -> bool:
    """Whether the call's turns and reply are stored: not when the app says `x-agentmemd-store:
    false`, nor for a Responses request with `store: false`. ValueError: a header value we do not know."""
    given = request.headers.get(STORE_HEADER)
    if given is not None:
        if given.strip().lower() not in STORE_VALUES:
            raise ValueError(f"{STORE_HEADER} must be true or false, not {given[:40]!r}")
        return STORE_VALUES[given.strip().lower()]
    return not (isinstance(body, dict) and body.get("store") is False and api_path(request).endswith("/responses"))


def _bad_request(api: str, message: str) -> Response:
    return _refusal(api, 400, message, ("invalid_request_error", "invalid_request_error", "agentmemd_header"))


def _forbidden(api: str, message: str) -> Response:
    return _refusal(api, 403, message, ("permission_error", "permission_error", "agentmemd_namespace"))


def _unauthorized(api: str, message: str) -> Response:
    return _refusal(api, 401, message, ("authentication_error", "invalid_request_error", "agentmemd_token"))


def _refusal(api: str, status: int, message: str, kinds: tuple[str, str, str]) -> Response:
    """An error of ours in the provider's shape. ``kinds``: Anthropic's error type, then OpenAI's
    type and code."""
    anthropic_type, openai_type, openai_code = kinds
    if api != "anthropic":
        body: dict[str, Any] = {"error": {"message": message, "type": openai_type, "code": openai_code}}
    else:
        body = {"type": "error", "error": {"type": anthropic_type, "message": message}}
    return JSONResponse(body, status_code=status)


def build_proxy_app(settings: ProxySettings, host: str | None = None) -> Starlette:
    """The proxy's app. Bound to loopback (``host``), it answers only a ``Host`` that names loopback
    or that address: a page a DNS rebinding serves from another name is refused (400), as the
    dashboard and the MCP door refuse it. Bound elsewhere (--allow-remote), any name reaches it."""
    app = Proxy(settings).app()
    if host is not None and is_loopback(host):
        names = sorted({*(n.strip("[]") for n in LOOPBACK_NAMES), host.strip("[]")})
        app.add_middleware(TrustedHostMiddleware, allowed_hosts=names)
    return app
