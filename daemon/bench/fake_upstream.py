"""Rule-enforcing fakes of the two upstream LLM APIs the proxy sits in front of.

`FakeAnthropic` serves the Anthropic Messages API (`POST /v1/messages`, `POST /v1/messages/count_tokens`,
`GET /v1/models`) and simulates prompt caching; `FakeOpenAI` serves Chat Completions, the Responses API,
models and embeddings. Each starts a real HTTP server on 127.0.0.1 (a free port), so the official SDKs,
or a proxy in front of them, talk to it exactly as they would to the provider.

The rules were written from the providers' public documentation and from error texts the real APIs have
returned (quoted in public issue threads), not from the code under test: a fake written from the code it
tests agrees with that code's mistakes. Every enforced rule cites its source next to the check:

  [A-cache]   https://platform.claude.com/docs/en/build-with-claude/prompt-caching
  [A-stream]  https://platform.claude.com/docs/en/build-with-claude/streaming
  [A-errors]  https://platform.claude.com/docs/en/api/errors
  [A-count]   https://platform.claude.com/docs/en/build-with-claude/token-counting
  [A-tools]   https://platform.claude.com/docs/en/agents-and-tools/tool-use/handle-tool-calls
  [O-chat]    https://platform.openai.com/docs/api-reference/chat
  [O-resp]    https://platform.openai.com/docs/api-reference/responses (and .../responses-streaming)
  [O-emb]     https://platform.openai.com/docs/api-reference/embeddings
  (seen)      the message text was copied from a real API error quoted in a public GitHub issue.
  (summary)   the docs' wording could not be fetched verbatim; the rule is quoted as summaries of the docs
              page state it, and the report lists these as not confirmed word for word.

Token counting is a documented approximation, not a tokenizer: `text_tokens(s) = ceil(utf8_bytes(s) / 4)`;
every content block (a tool definition, a system block, a message content block) costs that for its text
(for non-text blocks: for the canonical JSON of the block without `cache_control`) plus `TOKENS_PER_BLOCK`,
and the first block of every message costs `TOKENS_PER_MESSAGE` more. `FakeAnthropic.count_tokens(body)`
is the sum over the whole prompt (tools, system, messages), and it is what `/v1/messages/count_tokens`
returns and what `usage` splits into cache reads, cache writes and plain input.

Stdlib only: the benchmark command ships this module and uses it too.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import itertools
import json
import math
import socket
import struct
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable
from urllib.parse import urlsplit

__all__ = [
    "CHARS_PER_TOKEN",
    "TOKENS_PER_BLOCK",
    "TOKENS_PER_MESSAGE",
    "FakeAnthropic",
    "FakeOpenAI",
    "PromptCache",
    "ScriptedReply",
    "fake_embedding",
    "flatten_prompt",
    "text_tokens",
]

CHARS_PER_TOKEN = 4  # UTF-8 bytes per token: the usual rule of thumb for English text
TOKENS_PER_BLOCK = 2  # framing of one content block / tool definition
TOKENS_PER_MESSAGE = 3  # role header of one message, charged to its first block
CHAT_REPLY_PRIMING_TOKENS = 3  # OpenAI-style "every reply is primed with <|start|>assistant"

# [A-cache] "You can define up to 4 cache breakpoints"
MAX_CACHE_BREAKPOINTS = 4
# [A-cache] (summary) each breakpoint looks back at most 20 blocks for an earlier cache hit: "20-block lookback
# from each breakpoint"; "An agentic turn that appends more than 20 tool_use/tool_result blocks silently misses
# the previous turn's cache"
CACHE_LOOKBACK_BLOCKS = 20
# [A-cache] (summary) minimum cacheable size: 1,024 tokens on Opus 4.1 / Sonnet 4.5 / Sonnet 4.6, 4,096 on
# Haiku 4.5 / Opus 4.5-4.7; "Shorter prompts marked with cache_control process without caching (no error)".
# One number is enough for a fake.
DEFAULT_MIN_CACHE_TOKENS = 1024
# [A-cache] "using automatic caching or explicit breakpoints with 5-minute or 1-hour TTLs"; 1 hour is asked
# for with cache_control {"type": "ephemeral", "ttl": "1h"}
TTL_SECONDS = {"5m": 300.0, "1h": 3600.0}

STREAM_PIECE_CHARS = 16  # characters per streamed text delta
DEFAULT_EMBEDDING_DIMENSIONS = 8
ANTHROPIC_MODELS = ("claude-sonnet-4-6", "claude-opus-4-8", "claude-haiku-4-5")
OPENAI_MODELS = ("gpt-4o-mini", "gpt-4.1", "gpt-5", "text-embedding-3-small")

# [A-errors] HTTP status -> error.type
ANTHROPIC_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}
OPENAI_ERROR_TYPES = {400: "invalid_request_error", 401: "invalid_request_error", 404: "invalid_request_error"}
OPENAI_ERROR_CODES = {429: "rate_limit_exceeded"}


# ----------------------------------------------------------------------------------------------------------
# Small shared helpers


def text_tokens(text: str) -> int:
    """The fake's token count of a text: ceil(UTF-8 bytes / 4)."""
    return math.ceil(len(text.encode("utf-8")) / CHARS_PER_TOKEN)


def canonical_json(value: Any) -> str:
    """One spelling per value, so equal prompts hash equal whatever key order the client used."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _split_for_stream(text: str) -> list[str]:
    return [text[i : i + STREAM_PIECE_CHARS] for i in range(0, len(text), STREAM_PIECE_CHARS)]


def _bearer_token(authorization: str | None) -> str | None:
    if authorization and authorization.lower().startswith("bearer "):
        return authorization[len("bearer ") :].strip()
    return None


def fake_embedding(text: str, dimensions: int = DEFAULT_EMBEDDING_DIMENSIONS) -> list[float]:
    """A deterministic unit vector derived from sha256 of the text (same text, same vector)."""
    values: list[float] = []
    for counter in itertools.count():
        if len(values) >= dimensions:
            break
        digest = hashlib.sha256(f"{counter}:{text}".encode()).digest()
        values.extend(byte / 127.5 - 1.0 for byte in digest)
    values = values[:dimensions]
    norm = math.sqrt(sum(v * v for v in values)) or 1.0
    return [v / norm for v in values]


@dataclass
class ScriptedReply:
    """The next reply a fake gives, queued by `script()`.

    text: the reply text; None means the default "ok: " + the first 40 characters of the last user text
        (or no text at all when `tool_use` is given).
    status: 200, or the HTTP status of a scripted error reply in the provider's error shape.
    error: the error message (str) or error object (dict with message/type/code/param) for that status. With
        status 200 a streamed reply sends it as a mid-stream error event after `cut_after_events` events
        (default 1), as a provider does when it overloads mid-answer; a non-streamed one answers 500 with it.
    cut_after_events: close the connection abruptly after this many stream events (no message_stop / [DONE] /
        response.completed), as a dropped upstream does; for a non-streamed reply, after half the body.
    delay: seconds to wait before answering at all.
    tool_use: {"name": ..., "input": {...}} (or "arguments": JSON string; optional "id"): the reply calls a tool.
    others: the texts of the choices after the first, for an OpenAI chat request with `n` > 1 (a choice
        without one says the first's text with " (choice N)" added).
    """

    text: str | None = None
    status: int = 200
    error: str | dict | None = None
    cut_after_events: int | None = None
    delay: float = 0.0
    tool_use: dict | None = None
    others: tuple[str, ...] = ()


@dataclass
class _ReplyPlan:
    """What the model "says", before a provider formats it."""

    text: str
    tool_name: str | None = None
    tool_input: Any = None  # dict, or the raw JSON string a script gave as "arguments"
    tool_id: str | None = None

    @property
    def tool_arguments(self) -> str:
        return self.tool_input if isinstance(self.tool_input, str) else json.dumps(self.tool_input or {})

    @property
    def output_tokens(self) -> int:
        tokens = text_tokens(self.text)
        if self.tool_name is not None:
            tokens += text_tokens(self.tool_name) + text_tokens(self.tool_arguments)
        return max(tokens, 1)


class Rejected(Exception):
    """A request the upstream refuses; each fake renders it in its provider's error shape."""

    def __init__(self, status: int, message: str, *, error_type: str | None = None, param=None, code=None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.error_type = error_type
        self.param = param
        self.code = code


# ----------------------------------------------------------------------------------------------------------
# HTTP plumbing shared by both fakes


class _Handler(BaseHTTPRequestHandler):
    # HTTP/1.1: keep-alive for the SDKs' connection pools, and chunked bodies so a cut stream is an
    # incomplete body the client notices, not a clean end of file.
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        self.server.fake._handle(self)  # type: ignore[attr-defined]

    do_POST = do_GET
    do_DELETE = do_GET

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's signature
        pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    fake: _FakeUpstream

    def handle_error(self, request, client_address) -> None:
        # A client hanging up mid-reply, or a deliberate cut, is expected here; anything else is a bug.
        if not isinstance(sys.exc_info()[1], OSError):
            super().handle_error(request, client_address)


def _drop_connection(handler: BaseHTTPRequestHandler) -> None:
    """Hang up without finishing the body, as a dropped upstream connection does."""
    handler.close_connection = True
    try:
        handler.wfile.flush()
        handler.connection.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass


def _write_json(handler, status: int, payload: Any, headers: dict[str, str], *, cut: bool = False) -> None:
    data = json.dumps(payload).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    for name, value in headers.items():
        handler.send_header(name, value)
    handler.end_headers()
    if cut:
        handler.wfile.write(data[: len(data) // 2])
        _drop_connection(handler)
        return
    handler.wfile.write(data)


def _sse_bytes(event_name: str | None, payload: Any) -> bytes:
    data = payload if isinstance(payload, str) else json.dumps(payload)
    head = f"event: {event_name}\n" if event_name else ""
    return f"{head}data: {data}\n\n".encode()


def _write_sse(handler, events: list[tuple[str | None, Any]], headers: dict[str, str], cut_after) -> None:
    handler.send_response(200)
    handler.send_header("Content-Type", "text/event-stream; charset=utf-8")
    handler.send_header("Cache-Control", "no-cache")
    handler.send_header("Transfer-Encoding", "chunked")
    for name, value in headers.items():
        handler.send_header(name, value)
    handler.end_headers()
    for sent, (event_name, payload) in enumerate(events):
        if cut_after is not None and sent >= cut_after:
            _drop_connection(handler)  # no terminating chunk: the client sees an incomplete body
            return
        chunk = _sse_bytes(event_name, payload)
        handler.wfile.write(f"{len(chunk):X}\r\n".encode() + chunk + b"\r\n")
        handler.wfile.flush()
    handler.wfile.write(b"0\r\n\r\n")


def _parse_body(raw: bytes) -> Any:
    if not raw:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return raw.decode("utf-8", errors="replace")


Endpoint = Callable[[BaseHTTPRequestHandler, dict, str], None]


class _FakeUpstream:
    """Server lifecycle, request log, auth, scripting and reply writing; subclasses add the provider."""

    request_id_header = "request-id"
    request_id_prefix = "req_fake_"

    def __init__(self, api_key: str, models: tuple[str, ...]):
        self.api_key = api_key
        self.models = tuple(models)
        self.requests: list[dict] = []  # method, path, headers (lowercased keys), body (JSON or raw text)
        self.wrong_keys: list[tuple[str, str | None]] = []  # (path, key seen) for every refused key
        self.usage_log: list[dict] = []  # one dict per completed generation: path, model, stream + usage
        self.internal_errors: list[str] = []  # bugs in the fake itself, answered as 500
        self._scripts: deque[ScriptedReply] = deque()
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.fake = self
        host, port = self._server.server_address[:2]
        self.base_url = f"http://{host}:{port}"
        self._closed = False
        # A short poll interval keeps close() (which waits for the serving loop to notice) fast in tests.
        serve = lambda: self._server.serve_forever(poll_interval=0.02)  # noqa: E731
        self._thread = threading.Thread(target=serve, name=type(self).__name__, daemon=True)
        self._thread.start()

    # -- lifecycle ----------------------------------------------------------------------------------------

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self):
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    # -- scripting ----------------------------------------------------------------------------------------

    def script(
        self,
        text: str | None = None,
        status: int = 200,
        error: str | dict | None = None,
        cut_after_events: int | None = None,
        delay: float = 0.0,
        tool_use: dict | None = None,
        others: tuple[str, ...] = (),
    ) -> None:
        """Queue the next reply (see `ScriptedReply`); replies are used in order, one per generation."""
        reply = ScriptedReply(text, status, error, cut_after_events, delay, tool_use, tuple(others))
        with self._lock:
            self._scripts.append(reply)

    def _take_script(self) -> ScriptedReply:
        """The next scripted reply (or the default one), after its delay; raises a scripted error status."""
        with self._lock:
            reply = self._scripts.popleft() if self._scripts else ScriptedReply()
        if reply.delay:
            time.sleep(reply.delay)
        if reply.status != 200:
            raise self._scripted_rejection(reply, reply.status)
        return reply

    def _scripted_rejection(self, reply: ScriptedReply, status: int) -> Rejected:
        error = reply.error if isinstance(reply.error, dict) else {"message": reply.error}
        message = error.get("message") or f"scripted error {status}"
        return Rejected(status, message, error_type=error.get("type"), param=error.get("param"), code=error.get("code"))

    def _plan_reply(self, reply: ScriptedReply, last_user_text: str, tool_id_prefix: str) -> _ReplyPlan:
        text = reply.text
        if text is None:
            text = "" if reply.tool_use is not None else "ok: " + last_user_text[:40]
        if reply.tool_use is None:
            return _ReplyPlan(text)
        tool = reply.tool_use
        tool_input = tool["input"] if "input" in tool else tool.get("arguments", {})
        return _ReplyPlan(text, tool["name"], tool_input, tool.get("id") or self._new_id(tool_id_prefix))

    # -- request handling ---------------------------------------------------------------------------------

    def _new_id(self, prefix: str) -> str:
        with self._lock:
            return f"{prefix}{next(self._ids):06d}"

    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        path = urlsplit(handler.path).path
        headers = {name.lower(): value for name, value in handler.headers.items()}
        length = int(headers.get("content-length") or 0)
        body = _parse_body(handler.rfile.read(length) if length else b"")
        with self._lock:
            self.requests.append({"method": handler.command, "path": path, "headers": headers, "body": body})
        try:
            self._authenticate(path, headers)
            endpoint = self._find_endpoint(handler.command, path)
            if handler.command == "POST" and not isinstance(body, dict):
                raise Rejected(400, self._malformed_body_message())
            endpoint(handler, body if isinstance(body, dict) else {}, path)
        except Rejected as rejected:
            self._write_json(handler, rejected.status, self._error_body(rejected))
        except OSError:
            handler.close_connection = True  # the client went away mid-reply
        except Exception as exc:  # a bug in the fake: answer, and keep it for the test to see
            self.internal_errors.append(f"{handler.command} {path}: {exc!r}")
            self._write_json(handler, 500, self._error_body(Rejected(500, f"fake upstream bug: {exc!r}")))

    def _authenticate(self, path: str, headers: dict[str, str]) -> None:
        key = self._presented_key(headers)
        if key == self.api_key:
            return
        with self._lock:
            self.wrong_keys.append((path, key))
        raise self._auth_rejection(key)

    def _find_endpoint(self, method: str, path: str) -> Endpoint:
        endpoint = self._endpoints().get((method, path))
        if endpoint is None:
            raise self._not_found(method, path)
        return endpoint

    def _write_json(self, handler, status: int, payload: Any, *, cut: bool = False) -> None:
        _write_json(handler, status, payload, self._reply_headers(), cut=cut)

    def _send_reply(self, handler, reply: ScriptedReply, payload: dict, events: list | None, path: str) -> None:
        """Send a generated reply as JSON or, when `events` is given, as SSE, honouring cuts and errors."""
        if reply.error is not None and events is None:
            raise self._scripted_rejection(reply, 500)
        if events is None:
            self._write_json(handler, 200, payload, cut=reply.cut_after_events is not None)
            return
        cut_after = reply.cut_after_events
        if reply.error is not None:
            kept = events[: cut_after if cut_after is not None else 1]
            events = kept + [self._midstream_error(reply, path, len(kept))]
            cut_after = None
        _write_sse(handler, events, self._reply_headers(), cut_after)

    def _reply_headers(self) -> dict[str, str]:
        return {self.request_id_header: self._new_id(self.request_id_prefix)}

    def _log_usage(self, path: str, body: dict, usage: dict) -> None:
        entry = {"path": path, "model": body.get("model"), "stream": bool(body.get("stream")), **copy.deepcopy(usage)}
        with self._lock:
            self.usage_log.append(entry)

    # -- provider hooks -----------------------------------------------------------------------------------

    def _endpoints(self) -> dict[tuple[str, str], Endpoint]:
        raise NotImplementedError

    def _presented_key(self, headers: dict[str, str]) -> str | None:
        raise NotImplementedError

    def _auth_rejection(self, key: str | None) -> Rejected:
        raise NotImplementedError

    def _not_found(self, method: str, path: str) -> Rejected:
        raise NotImplementedError

    def _malformed_body_message(self) -> str:
        raise NotImplementedError

    def _error_body(self, rejected: Rejected) -> dict:
        raise NotImplementedError

    def _midstream_error(self, reply: ScriptedReply, path: str, sequence_number: int) -> tuple[str | None, Any]:
        raise NotImplementedError


# ----------------------------------------------------------------------------------------------------------
# Anthropic: the prompt as blocks, validation, caching


@dataclass
class PromptBlock:
    """One block of the prompt in cache order: a tool definition, a system block or a message content block."""

    path: str  # where the API's error messages point, e.g. "messages.2.content.0"
    material: str  # canonical JSON the cache key hashes; cache_control excluded
    tokens: int
    cache_controls: list[tuple[str, Any]] = field(default_factory=list)  # (path, cache_control) on/in the block


def _content_blocks(content: Any) -> list[dict]:
    """A message's content as blocks: a plain string is one text block, as the API renders it."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    return [block for block in content or [] if isinstance(block, dict)]


def _without_cache_control(block: dict) -> dict:
    stripped = {key: value for key, value in block.items() if key != "cache_control"}
    if isinstance(stripped.get("content"), list):
        stripped["content"] = [
            _without_cache_control(inner) if isinstance(inner, dict) else inner for inner in stripped["content"]
        ]
    return stripped


def _cache_controls_in(block: dict, path: str) -> list[tuple[str, Any]]:
    """cache_control on the block and on blocks nested in it (tool_result content)."""
    found = [(f"{path}.cache_control", block["cache_control"])] if "cache_control" in block else []
    inner = block.get("content")
    if isinstance(inner, list):
        for k, nested in enumerate(inner):
            if isinstance(nested, dict) and "cache_control" in nested:
                found.append((f"{path}.content.{k}.cache_control", nested["cache_control"]))
    return found


def _block_tokens(block: dict) -> int:
    if block.get("type") == "text" and isinstance(block.get("text"), str):
        return TOKENS_PER_BLOCK + text_tokens(block["text"])
    return TOKENS_PER_BLOCK + text_tokens(canonical_json(_without_cache_control(block)))


def _make_block(path: str, section: str, block: dict, extra: dict, overhead: int = 0) -> PromptBlock:
    material = canonical_json({"section": section, **extra, "block": _without_cache_control(block)})
    return PromptBlock(path, material, _block_tokens(block) + overhead, _cache_controls_in(block, path))


def flatten_prompt(body: dict) -> list[PromptBlock]:
    """The prompt as the cache sees it. [A-cache] "Cache prefixes are created in the following order:
    tools, system, then messages." A top-level `cache_control` (automatic caching) marks the last block:
    [A-cache] "the system automatically applies the cache breakpoint to the last cacheable block"."""
    blocks = [_make_block(f"tools.{i}", "tools", tool, {}) for i, tool in enumerate(body.get("tools") or [])]
    system = body.get("system")
    system_blocks = _content_blocks(system) if isinstance(system, (str, list)) else []
    blocks += [_make_block(f"system.{i}", "system", block, {}) for i, block in enumerate(system_blocks)]
    for i, message in enumerate(body.get("messages") or []):
        if not isinstance(message, dict):
            continue
        role = message.get("role")
        for j, block in enumerate(_content_blocks(message.get("content"))):
            first = j == 0  # the role header belongs to the message, so a new message is a new prefix
            extra = {"role": role, "starts_message": first}
            blocks.append(
                _make_block(f"messages.{i}.content.{j}", "messages", block, extra, TOKENS_PER_MESSAGE * first)
            )
    if "cache_control" in body and blocks:
        blocks[-1].cache_controls.append(("cache_control", body["cache_control"]))
    return blocks


def _invalid(message: str) -> Rejected:
    return Rejected(400, message)


def _ttl_of(cache_control: Any) -> str:
    return cache_control.get("ttl", "5m") if isinstance(cache_control, dict) else "5m"


def _check_required_fields(body: dict, *, counting: bool) -> list:
    # "(seen)" "max_tokens: Field required"; the same pydantic-style text for the other fields.
    required = ("model", "messages") if counting else ("model", "max_tokens", "messages")
    for name in required:
        if body.get(name) is None:
            raise _invalid(f"{name}: Field required")
    messages = body["messages"]
    if not isinstance(messages, list):
        raise _invalid("messages: Input should be a valid list")
    if not messages:
        raise _invalid("messages: at least one message is required")  # (seen)
    return messages


def _check_roles_and_content(messages: list) -> None:
    for i, message in enumerate(messages):
        role = message.get("role") if isinstance(message, dict) else None
        if role not in ("user", "assistant"):
            raise _invalid(f"messages.{i}.role: Input should be 'user' or 'assistant'")
        final_assistant = role == "assistant" and i == len(messages) - 1
        if not message.get("content") and not final_assistant:
            # (seen) "messages.11: all messages must have non-empty content except for the optional final
            # assistant message"
            raise _invalid(
                f"messages.{i}: all messages must have non-empty content except for the optional final assistant message"
            )


def _check_cache_controls(blocks: list[PromptBlock]) -> None:
    markers = [marker for block in blocks for marker in block.cache_controls]
    for path, cache_control in markers:
        if not isinstance(cache_control, dict) or cache_control.get("type") != "ephemeral":
            raise _invalid(f"{path}.type: Input should be 'ephemeral'")
        if _ttl_of(cache_control) not in TTL_SECONDS:
            raise _invalid(f"{path}.ttl: Input should be '5m' or '1h'")
    if len(markers) > MAX_CACHE_BREAKPOINTS:
        # (seen) "A maximum of 4 blocks with cache_control may be provided. Found 5."
        raise _invalid(
            f"A maximum of {MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. Found {len(markers)}."
        )
    seen_short_ttl = False
    for path, cache_control in markers:
        if _ttl_of(cache_control) == "5m":
            seen_short_ttl = True
        elif seen_short_ttl:
            # [A-cache] (summary) a longer TTL must come before a shorter one in the order tools, system,
            # messages; message text (seen).
            raise _invalid(
                f"{path}.ttl: a ttl='1h' cache_control block must not come after a ttl='5m' cache_control block. "
                "Note that blocks are processed in the following order: `tools`, `system`, `messages`."
            )


def _tool_use_ids(message: Any) -> list[str]:
    if not isinstance(message, dict) or message.get("role") != "assistant":
        return []
    return [block.get("id") for block in _content_blocks(message.get("content")) if block.get("type") == "tool_use"]


def _tool_result_ids(message: Any) -> list[tuple[int, str]]:
    if not isinstance(message, dict) or message.get("role") != "user":
        return []
    blocks = _content_blocks(message.get("content"))
    return [(j, block.get("tool_use_id")) for j, block in enumerate(blocks) if block.get("type") == "tool_result"]


def _check_tool_pairing(messages: list) -> None:
    """A tool_result answers a tool_use of the immediately preceding assistant message, and every tool_use
    is answered in the next message. [A-tools] the reply is a user message of tool_result blocks whose
    "tool_use_id: The id of the tool use request this is a result for"; both error texts (seen)."""
    for i, message in enumerate(messages):
        offered = set(_tool_use_ids(messages[i - 1])) if i > 0 else set()
        for j, tool_use_id in _tool_result_ids(message):
            if tool_use_id not in offered:
                raise _invalid(
                    f"messages.{i}.content.{j}: unexpected `tool_use_id` found in `tool_result` blocks: {tool_use_id}. "
                    "Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
                )
        if i + 1 < len(messages):
            answered = {tool_use_id for _, tool_use_id in _tool_result_ids(messages[i + 1])}
            unanswered = [tool_id for tool_id in _tool_use_ids(message) if tool_id not in answered]
            if unanswered:
                raise _invalid(
                    f"messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately after: "
                    f"{', '.join(unanswered)}. Each `tool_use` block must have a corresponding `tool_result` block "
                    "in the next message."
                )


def validate_messages_request(body: dict, *, counting: bool = False) -> list[PromptBlock]:
    """Raise `Rejected` (400 invalid_request_error) as the real API would; return the flattened prompt."""
    messages = _check_required_fields(body, counting=counting)
    _check_roles_and_content(messages)
    blocks = flatten_prompt(body)
    _check_cache_controls(blocks)
    _check_tool_pairing(messages)
    return blocks


@dataclass
class _CacheEntry:
    ttl: str
    expires_at: float


@dataclass
class _Breakpoint:
    position: int  # index of the marked block in the flattened prompt
    ttl: str


class PromptCache:
    """Prefix caching as [A-cache] describes it.

    The prompt is "tools, system, messages (in that order) up to and including the block designated with
    cache_control" (the docs, via their Japanese edition). Each breakpoint caches the prefix ending at its
    block, keyed by a chained sha256 of the blocks' canonical JSON (cache_control excluded, the model mixed
    in: a prefix is only byte-identical for the same model). A request reads the longest live cached prefix
    that ends at, or up to `lookback` blocks before, one of its breakpoints. (summary) "total_input_tokens =
    cache_read_input_tokens + cache_creation_input_tokens + input_tokens", "input_tokens here means tokens
    after the last breakpoint": so the tokens before the hit are reads, those from the hit to the last
    breakpoint are writes (split by the TTL of the breakpoint closing each segment), the rest plain input.
    A hit refreshes its entry ("The cache entry is refreshed (TTL resets) each time the cached content is
    used"). Prefixes under `min_tokens` are neither written nor read: they "process without caching (no
    error)".
    """

    def __init__(self, clock: Callable[[], float], min_tokens: int, lookback: int = CACHE_LOOKBACK_BLOCKS):
        self.clock = clock
        self.min_tokens = min_tokens
        self.lookback = lookback
        self.entries: dict[str, _CacheEntry] = {}

    def account(self, model: str, blocks: list[PromptBlock]) -> dict:
        """Usage for one request, updating the cache as the request would."""
        now = self.clock()
        self.entries = {key: entry for key, entry in self.entries.items() if entry.expires_at > now}
        keys = _prefix_keys(model, blocks)
        totals = list(itertools.accumulate((block.tokens for block in blocks), initial=0))
        breakpoints = [bp for bp in _breakpoints(blocks) if totals[bp.position + 1] >= self.min_tokens]
        if not breakpoints:
            return _anthropic_usage(uncached=totals[-1])
        read_upto = max(self._lookup(keys, bp.position, now) for bp in breakpoints)
        written = _written_tokens(breakpoints, read_upto, totals)
        for bp in breakpoints:
            self._store(keys[bp.position], bp.ttl, now)
        uncached = totals[-1] - totals[breakpoints[-1].position + 1]
        return _anthropic_usage(uncached, read=totals[read_upto], written_5m=written["5m"], written_1h=written["1h"])

    def _lookup(self, keys: list[str], position: int, now: float) -> int:
        """Blocks covered by the longest live cached prefix ending in the lookback window, 0 if none."""
        for candidate in range(position, max(position - self.lookback, 0) - 1, -1):
            entry = self.entries.get(keys[candidate])
            if entry is not None:
                entry.expires_at = now + TTL_SECONDS[entry.ttl]  # a hit refreshes the entry
                return candidate + 1
        return 0

    def _store(self, key: str, ttl: str, now: float) -> None:
        entry = self.entries.get(key)
        if entry is not None and TTL_SECONDS[entry.ttl] >= TTL_SECONDS[ttl]:
            entry.expires_at = max(entry.expires_at, now + TTL_SECONDS[entry.ttl])
            return
        self.entries[key] = _CacheEntry(ttl, now + TTL_SECONDS[ttl])


def _prefix_keys(model: str, blocks: list[PromptBlock]) -> list[str]:
    keys, running = [], hashlib.sha256(f"model:{model}".encode()).hexdigest()
    for block in blocks:
        running = hashlib.sha256(f"{running}\n{block.material}".encode()).hexdigest()
        keys.append(running)
    return keys


def _breakpoints(blocks: list[PromptBlock]) -> list[_Breakpoint]:
    marked = [(i, block) for i, block in enumerate(blocks) if block.cache_controls]
    return [
        _Breakpoint(i, "1h" if any(_ttl_of(cc) == "1h" for _, cc in block.cache_controls) else "5m")
        for i, block in marked
    ]


def _written_tokens(breakpoints: list[_Breakpoint], read_upto: int, totals: list[int]) -> dict[str, int]:
    """Tokens from the read point to the last breakpoint, each segment charged at its closing breakpoint's TTL."""
    written = {"5m": 0, "1h": 0}
    segment_start = 0
    for bp in breakpoints:
        start, end = max(segment_start, read_upto), bp.position + 1
        if end > start:
            written[bp.ttl] += totals[end] - totals[start]
        segment_start = end
    return written


def _anthropic_usage(uncached: int, read: int = 0, written_5m: int = 0, written_1h: int = 0) -> dict:
    return {
        "input_tokens": uncached,
        "cache_creation_input_tokens": written_5m + written_1h,
        "cache_read_input_tokens": read,
        "cache_creation": {"ephemeral_5m_input_tokens": written_5m, "ephemeral_1h_input_tokens": written_1h},
        "output_tokens": 0,
        "service_tier": "standard",
    }


def _last_user_text_anthropic(messages: list) -> str:
    for message in reversed(messages):
        if message.get("role") != "user":
            continue
        for block in reversed(_content_blocks(message.get("content"))):
            if block.get("type") == "text":
                return block.get("text", "")
            if block.get("type") == "tool_result":
                return _last_user_text_anthropic([{"role": "user", "content": block.get("content") or ""}])
        return ""
    return ""


def _anthropic_block_events(index: int, block: dict) -> list[tuple[str, dict]]:
    """content_block_start, its deltas, content_block_stop. [A-stream] "Each content block will have a
    content_block_start event, one or more content_block_delta events, and a content_block_stop event"."""
    if block["type"] == "tool_use":
        opening = {**block, "input": {}}
        pieces = _split_for_stream(json.dumps(block["input"]))
        deltas = [{"type": "input_json_delta", "partial_json": piece} for piece in pieces]
    else:
        opening = {"type": "text", "text": ""}
        deltas = [{"type": "text_delta", "text": piece} for piece in _split_for_stream(block["text"])]
    events = [("content_block_start", {"type": "content_block_start", "index": index, "content_block": opening})]
    events += [("content_block_delta", {"type": "content_block_delta", "index": index, "delta": d}) for d in deltas]
    events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    return events


def anthropic_stream_events(message: dict) -> list[tuple[str, dict]]:
    """[A-stream] "1. A message_start event ... 2. A series of content blocks ... 3. One or more message_delta
    events ... 4. A final message_stop event"; the docs' example sends a ping after the first
    content_block_start. "The token counts shown in the usage field of the message_delta event are cumulative.\""""
    usage = message["usage"]
    start_usage = {**usage, "output_tokens": 1}  # the docs' message_start example reports output_tokens: 1
    start = {**message, "content": [], "stop_reason": None, "stop_sequence": None, "usage": start_usage}
    events: list[tuple[str, dict]] = [("message_start", {"type": "message_start", "message": start})]
    for index, block in enumerate(message["content"]):
        events += _anthropic_block_events(index, block)
    events.insert(2 if message["content"] else 1, ("ping", {"type": "ping"}))
    delta_usage = {
        name: usage[name] for name in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    }
    events.append(
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                "usage": {**delta_usage, "output_tokens": usage["output_tokens"]},
            },
        )
    )
    events.append(("message_stop", {"type": "message_stop"}))
    return events


class FakeAnthropic(_FakeUpstream):
    """A local Anthropic Messages API that enforces the request rules and simulates prompt caching.

    Constructor: api_key ("sk-ant-fake"), min_cache_tokens (1024), clock (time.monotonic, for cache TTLs),
    lookback_blocks (20), require_version_header (True: refuse a request without `anthropic-version`, as the
    API does), models (ids listed by GET /v1/models).
    Auth: the key in `x-api-key` (documented) or `Authorization: Bearer` (what the Python SDK 2.x sends); a
    missing or different key is a 401 authentication_error and is recorded in `wrong_keys`.
    Attributes: base_url, requests, wrong_keys, usage_log, internal_errors, cache (the `PromptCache`).
    Methods: script(...), count_tokens(body), close(); usable as a context manager.
    """

    def __init__(
        self,
        api_key: str = "sk-ant-fake",
        *,
        min_cache_tokens: int = DEFAULT_MIN_CACHE_TOKENS,
        clock: Callable[[], float] = time.monotonic,
        lookback_blocks: int = CACHE_LOOKBACK_BLOCKS,
        require_version_header: bool = True,
        models: tuple[str, ...] = ANTHROPIC_MODELS,
    ):
        self.cache = PromptCache(clock, min_cache_tokens, lookback_blocks)
        self.require_version_header = require_version_header
        super().__init__(api_key, models)

    def count_tokens(self, request_body: dict) -> int:
        """The fake's token count of everything a request sends: tools, system and messages."""
        return sum(block.tokens for block in flatten_prompt(request_body))

    # -- endpoints ----------------------------------------------------------------------------------------

    def _endpoints(self) -> dict[tuple[str, str], Endpoint]:
        return {
            ("POST", "/v1/messages"): self._create_message,
            ("POST", "/v1/messages/count_tokens"): self._count_tokens_endpoint,
            ("GET", "/v1/models"): self._list_models,
        }

    def _check_version_header(self, handler) -> None:
        if self.require_version_header and not handler.headers.get("anthropic-version"):
            raise _invalid("anthropic-version: header is required")

    def _count_tokens_endpoint(self, handler, body: dict, path: str) -> None:
        """[A-count] "The token counting endpoint accepts the same structured list of inputs for creating a
        message" and answers {"input_tokens": n}."""
        self._check_version_header(handler)
        blocks = validate_messages_request(body, counting=True)
        self._write_json(handler, 200, {"input_tokens": sum(block.tokens for block in blocks)})

    def _list_models(self, handler, body: dict, path: str) -> None:
        data = [
            {"type": "model", "id": model, "display_name": model, "created_at": "2025-01-01T00:00:00Z"}
            for model in self.models
        ]
        first, last = (data[0]["id"], data[-1]["id"]) if data else (None, None)
        self._write_json(handler, 200, {"data": data, "has_more": False, "first_id": first, "last_id": last})

    def _create_message(self, handler, body: dict, path: str) -> None:
        self._check_version_header(handler)
        blocks = validate_messages_request(body)
        reply = self._take_script()
        plan = self._plan_reply(reply, _last_user_text_anthropic(body["messages"]), "toolu_fake_")
        with self._lock:
            usage = self.cache.account(body["model"], blocks)
        usage["output_tokens"] = plan.output_tokens
        self._log_usage(path, body, usage)
        message = self._message(body, plan, usage)
        events = anthropic_stream_events(message) if body.get("stream") else None
        self._send_reply(handler, reply, message, events, path)

    def _message(self, body: dict, plan: _ReplyPlan, usage: dict) -> dict:
        content: list[dict] = [{"type": "text", "text": plan.text}] if plan.text else []
        if plan.tool_name is not None:
            tool_input = json.loads(plan.tool_input) if isinstance(plan.tool_input, str) else plan.tool_input
            content.append({"type": "tool_use", "id": plan.tool_id, "name": plan.tool_name, "input": tool_input or {}})
        return {
            "id": self._new_id("msg_fake_"),
            "type": "message",
            "role": "assistant",
            "model": body["model"],
            "content": content,
            "stop_reason": "tool_use" if plan.tool_name is not None else "end_turn",
            "stop_sequence": None,
            "usage": usage,
        }

    # -- provider hooks -----------------------------------------------------------------------------------

    def _presented_key(self, headers: dict[str, str]) -> str | None:
        # The documented header is x-api-key; the Python SDK 2.x sends "Authorization: Bearer <key>" instead.
        return headers.get("x-api-key") or _bearer_token(headers.get("authorization"))

    def _auth_rejection(self, key: str | None) -> Rejected:
        # (seen) {"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}
        message = "x-api-key header is required" if key is None else "invalid x-api-key"
        return Rejected(401, message)

    def _not_found(self, method: str, path: str) -> Rejected:
        return Rejected(404, "Not found")

    def _malformed_body_message(self) -> str:
        return "There was an issue with the format or content of your request: the body is not a JSON object."

    def _error_body(self, rejected: Rejected) -> dict:
        # [A-errors] {"type": "error", "error": {"type": "not_found_error", "message": "..."}}
        error_type = rejected.error_type or ANTHROPIC_ERROR_TYPES.get(rejected.status, "api_error")
        return {"type": "error", "error": {"type": error_type, "message": rejected.message}}

    def _midstream_error(self, reply: ScriptedReply, path: str, sequence_number: int) -> tuple[str, dict]:
        # [A-stream] "We may occasionally send errors in the event stream ... event: error
        # data: {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}"
        rejected = self._scripted_rejection(reply, 529)
        body = self._error_body(rejected)
        if rejected.error_type is None:
            body["error"]["type"] = "overloaded_error"
        return ("error", body)


# ----------------------------------------------------------------------------------------------------------
# OpenAI: chat completions, responses, models, embeddings


def _openai_invalid(message: str, param: str | None = None, code: str | None = None) -> Rejected:
    return Rejected(400, message, error_type="invalid_request_error", param=param, code=code)


def _openai_content_text(content: Any) -> str:
    """The text of a chat message / response item content: a string, or the text of its parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(part.get("text") or "" for part in content if isinstance(part, dict))
    return ""


def _openai_content_tokens(content: Any) -> int:
    if isinstance(content, list):
        parts = [part for part in content if isinstance(part, dict)]
        return sum(text_tokens(part["text"] if "text" in part else canonical_json(part)) for part in parts)
    return text_tokens(content) if isinstance(content, str) else 0


def _openai_item_tokens(item: dict) -> int:
    """One chat message or Responses input item: role header plus its content, calls and outputs."""
    tokens = TOKENS_PER_MESSAGE + _openai_content_tokens(item.get("content"))
    if item.get("tool_calls"):
        tokens += text_tokens(canonical_json(item["tool_calls"]))
    for key in ("name", "arguments"):
        if item.get("type") == "function_call" and item.get(key):
            tokens += text_tokens(str(item[key]))
    if item.get("type") == "function_call_output":
        output = item.get("output")
        tokens += text_tokens(output if isinstance(output, str) else canonical_json(output))
    return tokens


def _tools_tokens(body: dict) -> int:
    return text_tokens(canonical_json(body["tools"])) if body.get("tools") else 0


CHAT_ROLES = ("system", "developer", "user", "assistant", "tool", "function")
RESPONSES_ROLES = ("user", "assistant", "system", "developer")


def _check_chat_roles(messages: list) -> None:
    for i, message in enumerate(messages):
        role = message.get("role") if isinstance(message, dict) else None
        if role not in CHAT_ROLES:
            raise _openai_invalid(
                f"Invalid value: '{role}'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', "
                "and 'developer'.",
                param=f"messages[{i}].role",
                code="invalid_value",
            )


def _require_answered(opener: int | None, calls: list[str], answered: set[str]) -> None:
    missing = [call_id for call_id in calls if call_id not in answered]
    if opener is not None and missing:
        # (seen) "An assistant message with 'tool_calls' must be followed by tool messages responding to each
        # 'tool_call_id'."
        raise _openai_invalid(
            "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
            f"'tool_call_id'. The following tool_call_ids did not have response messages: {', '.join(missing)}",
            param=f"messages.[{opener}].role",
        )


def _check_chat_tool_pairing(messages: list) -> None:
    """[O-chat] a `tool` message answers a tool call of the assistant message it follows."""
    opener, calls, answered = None, [], set()
    for i, message in enumerate(messages):
        if message["role"] == "tool":
            call_id = message.get("tool_call_id")
            if opener is None:
                # (seen) "Invalid parameter: messages with role 'tool' must be a response to a preceeding message
                # with 'tool_calls'." (sic: the API's spelling)
                raise _openai_invalid(
                    "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with "
                    "'tool_calls'.",
                    param=f"messages.[{i}].role",
                )
            if call_id not in calls:
                raise _openai_invalid(
                    f"Invalid parameter: 'tool_call_id' of '{call_id}' not found in 'tool_calls' of previous message.",
                    param=f"messages.[{i}].tool_call_id",
                )
            answered.add(call_id)
            continue
        _require_answered(opener, calls, answered)
        tool_calls = message.get("tool_calls") if message["role"] == "assistant" else None
        opener = i if tool_calls else None
        calls, answered = [call.get("id") for call in tool_calls or []], set()
    _require_answered(opener, calls, answered)


def validate_chat_request(body: dict) -> list[dict]:
    if not body.get("model"):
        raise _openai_invalid("you must provide a model parameter")
    messages = body.get("messages")
    if messages is None:
        raise _openai_invalid("Missing required parameter: 'messages'.", "messages", "missing_required_parameter")
    if not isinstance(messages, list) or not messages:
        raise _openai_invalid(
            "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
            "messages",
            "empty_array",
        )
    # [O-chat] n: "How many chat completion choices to generate for each input message", integer, default 1.
    # (summary) at most 128; a value out of range is a 400 naming 'n'.
    choices = body.get("n")
    if choices is not None and (not isinstance(choices, int) or isinstance(choices, bool) or not 1 <= choices <= 128):
        raise _openai_invalid(f"Invalid 'n': expected an integer from 1 to 128, got {choices!r}.", "n", "invalid_value")
    _check_chat_roles(messages)
    _check_chat_tool_pairing(messages)
    return messages


def _last_user_text_openai(items: list) -> str:
    for item in reversed(items):
        if isinstance(item, dict) and item.get("role") == "user":
            return _openai_content_text(item.get("content"))
    return ""


def _chat_choice(index: int, plan: _ReplyPlan) -> dict:
    message: dict[str, Any] = {"role": "assistant", "content": plan.text or None, "refusal": None}
    if plan.tool_name is not None:
        function = {"name": plan.tool_name, "arguments": plan.tool_arguments}
        message["tool_calls"] = [{"id": plan.tool_id, "type": "function", "function": function}]
    finish_reason = "tool_calls" if plan.tool_name is not None else "stop"
    return {"index": index, "message": message, "logprobs": None, "finish_reason": finish_reason}


def chat_stream_events(completion: dict, include_usage: bool) -> list[tuple[None, Any]]:
    """[O-chat] "data-only server-sent events ... terminated by a data: [DONE] message"; with
    stream_options.include_usage "an additional chunk will be streamed before the data: [DONE] message. The
    usage field on this chunk shows the token usage statistics for the entire request, and the choices field
    will always be an empty array. All other chunks will also include a usage field, but with a null value."""
    base = {k: completion[k] for k in ("id", "created", "model", "system_fingerprint")}
    base["object"] = "chat.completion.chunk"
    if include_usage:
        base["usage"] = None

    def chunk(index: int, delta: dict, finish_reason: str | None = None) -> tuple[None, dict]:
        choice = {"index": index, "delta": delta, "logprobs": None, "finish_reason": finish_reason}
        return (None, {**base, "choices": [choice]})

    def choice_events(index: int, choice: dict) -> list[tuple[None, dict]]:
        message = choice["message"]
        events = [chunk(index, {"role": "assistant", "content": ""})]
        events += [chunk(index, {"content": piece}) for piece in _split_for_stream(message["content"] or "")]
        for call_index, call in enumerate(message.get("tool_calls") or []):
            opening = {
                "index": call_index,
                "id": call["id"],
                "type": "function",
                "function": {"name": call["function"]["name"], "arguments": ""},
            }
            events.append(chunk(index, {"tool_calls": [opening]}))
            for piece in _split_for_stream(call["function"]["arguments"]):
                events.append(chunk(index, {"tool_calls": [{"index": call_index, "function": {"arguments": piece}}]}))
        return events + [chunk(index, {}, choice["finish_reason"])]

    # (seen) with n > 1 the choices' chunks interleave, each carrying its own index.
    per_choice = [choice_events(i, c) for i, c in enumerate(completion["choices"])]
    events = [e for row in itertools.zip_longest(*per_choice) for e in row if e is not None]
    if include_usage:
        events.append((None, {**base, "choices": [], "usage": completion["usage"]}))
    events.append((None, "[DONE]"))
    return events


def _response_input_items(raw_input: Any) -> list[dict]:
    """[O-resp] input: "Text, image, or file inputs to the model" - a string is one user message."""
    if raw_input is None:
        return []
    if isinstance(raw_input, str):
        return [{"type": "message", "role": "user", "content": raw_input}]
    if not isinstance(raw_input, list):
        raise _openai_invalid("Invalid type for 'input': expected a string or an array.", "input", "invalid_type")
    return [item for item in raw_input if isinstance(item, dict)]


def _check_response_items(items: list[dict], context: list[dict]) -> None:
    known_calls = {item.get("call_id") for item in context + items if item.get("type") == "function_call"}
    for i, item in enumerate(items):
        kind = item.get("type", "message")
        if kind == "message" and item.get("role") not in RESPONSES_ROLES:
            raise _openai_invalid(
                f"Invalid value: '{item.get('role')}'. Supported values are: 'assistant', 'system', 'developer', and 'user'.",
                param=f"input[{i}].role",
                code="invalid_value",
            )
        if kind == "function_call_output" and item.get("call_id") not in known_calls:
            raise _openai_invalid(
                f"No tool call found for function call output with call_id {item.get('call_id')}.", param="input"
            )


def _responses_message_events(emit, output_index: int, item: dict) -> list:
    text = item["content"][0]["text"]
    part_ref = {"item_id": item["id"], "output_index": output_index, "content_index": 0}
    empty_part = {"type": "output_text", "text": "", "annotations": []}
    events = [
        emit(
            "response.output_item.added",
            output_index=output_index,
            item={**item, "status": "in_progress", "content": []},
        ),
        emit("response.content_part.added", **part_ref, part=empty_part),
    ]
    events += [
        emit("response.output_text.delta", **part_ref, delta=piece, logprobs=[]) for piece in _split_for_stream(text)
    ]
    events += [
        emit("response.output_text.done", **part_ref, text=text, logprobs=[]),
        emit("response.content_part.done", **part_ref, part=item["content"][0]),
        emit("response.output_item.done", output_index=output_index, item=item),
    ]
    return events


def _responses_function_call_events(emit, output_index: int, item: dict) -> list:
    ref = {"item_id": item["id"], "output_index": output_index}
    events = [
        emit(
            "response.output_item.added",
            output_index=output_index,
            item={**item, "arguments": "", "status": "in_progress"},
        )
    ]
    events += [
        emit("response.function_call_arguments.delta", **ref, delta=piece)
        for piece in _split_for_stream(item["arguments"])
    ]
    events += [
        emit("response.function_call_arguments.done", **ref, arguments=item["arguments"]),
        emit("response.output_item.done", output_index=output_index, item=item),
    ]
    return events


def responses_stream_events(response: dict) -> list[tuple[str, dict]]:
    """[O-resp] streaming events: response.created, response.in_progress, then per output item
    response.output_item.added / response.content_part.added / response.output_text.delta ... /
    response.output_text.done / response.content_part.done / response.output_item.done, and finally
    response.completed; every event carries a sequence_number. No [DONE] sentinel."""
    sequence = itertools.count()

    def emit(event_type: str, **fields: Any) -> tuple[str, dict]:
        return (event_type, {"type": event_type, "sequence_number": next(sequence), **fields})

    pending = {**response, "status": "in_progress", "output": [], "usage": None}
    events = [emit("response.created", response=pending), emit("response.in_progress", response=pending)]
    for output_index, item in enumerate(response["output"]):
        build = _responses_function_call_events if item["type"] == "function_call" else _responses_message_events
        events += build(emit, output_index, item)
    events.append(emit("response.completed", response=response))
    return events


@dataclass
class _StoredResponse:
    response: dict
    context: list[dict]  # every input item of the conversation so far, plus this response's output


class FakeOpenAI(_FakeUpstream):
    """A local OpenAI API: chat completions, responses (with stored responses), models and embeddings.

    Constructor: api_key ("sk-fake-openai"), models (ids listed by GET /v1/models), embedding_dimensions (8;
    a request's `dimensions` wins).
    Auth: `Authorization: Bearer <key>`; a missing or different key is a 401 (code invalid_api_key when wrong)
    and is recorded in `wrong_keys`.
    Attributes: base_url, requests, wrong_keys, usage_log, internal_errors, stored_responses (id -> response).
    Methods: script(...), close(); usable as a context manager.
    """

    request_id_header = "x-request-id"

    def __init__(
        self,
        api_key: str = "sk-fake-openai",
        *,
        models: tuple[str, ...] = OPENAI_MODELS,
        embedding_dimensions: int = DEFAULT_EMBEDDING_DIMENSIONS,
    ):
        self.embedding_dimensions = embedding_dimensions
        self._stored: dict[str, _StoredResponse] = {}
        super().__init__(api_key, models)

    @property
    def stored_responses(self) -> dict[str, dict]:
        with self._lock:
            return {response_id: stored.response for response_id, stored in self._stored.items()}

    # -- endpoints ----------------------------------------------------------------------------------------

    def _endpoints(self) -> dict[tuple[str, str], Endpoint]:
        return {
            ("POST", "/v1/chat/completions"): self._create_chat_completion,
            ("POST", "/v1/responses"): self._create_response,
            ("GET", "/v1/models"): self._list_models,
            ("POST", "/v1/embeddings"): self._create_embeddings,
        }

    def _find_endpoint(self, method: str, path: str) -> Endpoint:
        if method == "GET" and path.startswith("/v1/responses/"):
            return self._retrieve_response
        return super()._find_endpoint(method, path)

    def _create_chat_completion(self, handler, body: dict, path: str) -> None:
        messages = validate_chat_request(body)
        reply = self._take_script()
        plan = self._plan_reply(reply, _last_user_text_openai(messages), "call_fake_")
        choices = body.get("n") or 1
        plans = [plan] + [
            _ReplyPlan(reply.others[i - 1] if i <= len(reply.others) else f"{plan.text} (choice {i + 1})")
            for i in range(1, choices)
        ]
        prompt_tokens = CHAT_REPLY_PRIMING_TOKENS + sum(_openai_item_tokens(m) for m in messages) + _tools_tokens(body)
        usage = {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": sum(p.output_tokens for p in plans),
            "total_tokens": prompt_tokens + sum(p.output_tokens for p in plans),
            "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
            "completion_tokens_details": {
                "reasoning_tokens": 0,
                "audio_tokens": 0,
                "accepted_prediction_tokens": 0,
                "rejected_prediction_tokens": 0,
            },
        }
        self._log_usage(path, body, usage)
        completion = self._chat_completion(body, plans, usage)
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        events = chat_stream_events(completion, include_usage) if body.get("stream") else None
        self._send_reply(handler, reply, completion, events, path)

    def _chat_completion(self, body: dict, plans: list[_ReplyPlan], usage: dict) -> dict:
        return {
            "id": self._new_id("chatcmpl-fake"),
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body["model"],
            "system_fingerprint": None,
            "choices": [_chat_choice(index, plan) for index, plan in enumerate(plans)],
            "usage": usage,
        }

    def _conversation_so_far(self, body: dict) -> list[dict]:
        """[O-resp] previous_response_id: "The unique ID of the previous response to the model. Use this to
        create multi-turn conversations." It must name a stored response of this fake; (seen) error code
        previous_response_not_found, "Previous response with id '...' not found."."""
        previous_id = body.get("previous_response_id")
        if previous_id is None:
            return []
        with self._lock:
            stored = self._stored.get(previous_id)
        if stored is None:
            raise _openai_invalid(
                f"Previous response with id '{previous_id}' not found.",
                "previous_response_id",
                "previous_response_not_found",
            )
        return list(stored.context)

    def _create_response(self, handler, body: dict, path: str) -> None:
        if not body.get("model"):
            raise _openai_invalid("Missing required parameter: 'model'.", "model", "missing_required_parameter")
        earlier = self._conversation_so_far(body)
        items = _response_input_items(body.get("input"))
        _check_response_items(items, earlier)
        reply = self._take_script()
        plan = self._plan_reply(reply, _last_user_text_openai(earlier + items), "call_fake_")
        instructions = body.get("instructions") or ""
        input_tokens = text_tokens(instructions) + sum(_openai_item_tokens(item) for item in earlier + items)
        input_tokens += _tools_tokens(body)
        usage = {
            "input_tokens": input_tokens,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": plan.output_tokens,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": input_tokens + plan.output_tokens,
        }
        self._log_usage(path, body, usage)
        response = self._response_object(body, plan, usage)
        if body.get("store", True):  # [O-resp] store: "Whether to store the generated model response" (default true)
            with self._lock:
                self._stored[response["id"]] = _StoredResponse(response, earlier + items + response["output"])
        events = responses_stream_events(response) if body.get("stream") else None
        self._send_reply(handler, reply, response, events, path)

    def _response_output(self, plan: _ReplyPlan) -> list[dict]:
        output: list[dict] = []
        if plan.text:
            content = [{"type": "output_text", "text": plan.text, "annotations": [], "logprobs": []}]
            output.append(
                {
                    "type": "message",
                    "id": self._new_id("msg_fake_"),
                    "status": "completed",
                    "role": "assistant",
                    "content": content,
                }
            )
        if plan.tool_name is not None:
            output.append(
                {
                    "type": "function_call",
                    "id": self._new_id("fc_fake_"),
                    "call_id": plan.tool_id,
                    "name": plan.tool_name,
                    "arguments": plan.tool_arguments,
                    "status": "completed",
                }
            )
        return output

    def _response_object(self, body: dict, plan: _ReplyPlan, usage: dict) -> dict:
        return {
            "id": self._new_id("resp_fake_"),
            "object": "response",
            "created_at": int(time.time()),
            "status": "completed",
            "error": None,
            "incomplete_details": None,
            "instructions": body.get("instructions"),
            "max_output_tokens": body.get("max_output_tokens"),
            "model": body["model"],
            "output": self._response_output(plan),
            "parallel_tool_calls": True,
            "previous_response_id": body.get("previous_response_id"),
            "store": body.get("store", True),
            "temperature": 1.0,
            "text": {"format": {"type": "text"}},
            "tool_choice": body.get("tool_choice", "auto"),
            "tools": body.get("tools") or [],
            "top_p": 1.0,
            "truncation": "disabled",
            "metadata": body.get("metadata") or {},
            "usage": usage,
        }

    def _retrieve_response(self, handler, body: dict, path: str) -> None:
        response_id = path.rsplit("/", 1)[-1]
        with self._lock:
            stored = self._stored.get(response_id)
        if stored is None:
            raise Rejected(404, f"Response with id '{response_id}' not found.", error_type="invalid_request_error")
        self._write_json(handler, 200, stored.response)

    def _list_models(self, handler, body: dict, path: str) -> None:
        data = [{"id": model, "object": "model", "created": 1700000000, "owned_by": "openai"} for model in self.models]
        self._write_json(handler, 200, {"object": "list", "data": data})

    def _create_embeddings(self, handler, body: dict, path: str) -> None:
        """[O-emb] input: "Input text to embed, encoded as a string or array of tokens"; encoding_format: "float"
        or "base64" (the Python SDK asks for base64 by default and decodes little-endian float32)."""
        if not body.get("model"):
            raise _openai_invalid("you must provide a model parameter")
        raw_input = body.get("input")
        if raw_input is None or raw_input == [] or raw_input == "":
            raise _openai_invalid("'$.input' is invalid. Please check the API reference.", "input")
        texts = [raw_input] if isinstance(raw_input, str) or _is_token_list(raw_input) else list(raw_input)
        texts = [text if isinstance(text, str) else canonical_json(text) for text in texts]
        dimensions = body.get("dimensions") or self.embedding_dimensions
        as_base64 = body.get("encoding_format") == "base64"
        data = [
            {
                "object": "embedding",
                "index": i,
                "embedding": _encode_vector(fake_embedding(text, dimensions), as_base64),
            }
            for i, text in enumerate(texts)
        ]
        tokens = sum(text_tokens(text) for text in texts)
        usage = {"prompt_tokens": tokens, "total_tokens": tokens}
        self._write_json(handler, 200, {"object": "list", "data": data, "model": body["model"], "usage": usage})

    # -- provider hooks -----------------------------------------------------------------------------------

    def _presented_key(self, headers: dict[str, str]) -> str | None:
        return _bearer_token(headers.get("authorization"))

    def _auth_rejection(self, key: str | None) -> Rejected:
        if key is None:
            return Rejected(
                401,
                "You didn't provide an API key. You need to provide your API key in an Authorization header using "
                "Bearer auth (i.e. Authorization: Bearer YOUR_KEY). You can obtain an API key from "
                "https://platform.openai.com/account/api-keys.",
                error_type="invalid_request_error",
            )
        # (seen) "Incorrect API key provided: sk-PMafP***...E873. You can find your API key at
        # https://platform.openai.com/account/api-keys." type invalid_request_error, code invalid_api_key
        masked = key[:8] + "*" * max(len(key) - 12, 0) + key[-4:] if len(key) > 12 else "*" * len(key)
        return Rejected(
            401,
            f"Incorrect API key provided: {masked}. You can find your API key at https://platform.openai.com/account/api-keys.",
            error_type="invalid_request_error",
            code="invalid_api_key",
        )

    def _not_found(self, method: str, path: str) -> Rejected:
        return Rejected(404, f"Invalid URL ({method} {path})", error_type="invalid_request_error")

    def _malformed_body_message(self) -> str:
        return "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly.)"

    def _error_body(self, rejected: Rejected) -> dict:
        # [O-chat] errors: {"error": {"message": ..., "type": ..., "param": ..., "code": ...}}
        error_type = rejected.error_type or OPENAI_ERROR_TYPES.get(rejected.status, "server_error")
        code = rejected.code if rejected.code is not None else OPENAI_ERROR_CODES.get(rejected.status)
        return {"error": {"message": rejected.message, "type": error_type, "param": rejected.param, "code": code}}

    def _midstream_error(self, reply: ScriptedReply, path: str, sequence_number: int) -> tuple[str | None, Any]:
        # A chat stream carries an error as a data-only payload {"error": {...}}; [O-resp] the Responses
        # stream has an `error` event: "Emitted when an error occurs" {type, code, message, param,
        # sequence_number}.
        body = self._error_body(self._scripted_rejection(reply, 500))
        if path == "/v1/responses":
            error = body["error"]
            return (
                "error",
                {
                    "type": "error",
                    "code": error["code"],
                    "message": error["message"],
                    "param": error["param"],
                    "sequence_number": sequence_number,
                },
            )
        return (None, body)


def _is_token_list(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(token, int) for token in value)


def _encode_vector(vector: list[float], as_base64: bool) -> list[float] | str:
    if not as_base64:
        return vector
    return base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode()
