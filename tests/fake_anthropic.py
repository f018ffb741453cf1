"""A local HTTP server that speaks enough of the Anthropic Messages API for the real SDK.

Each test scripts the replies (status, body, headers, delay); the server records every
request body it received, so tests can check what the SDK sent.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Reply:
    status: int = 200
    body: dict | str | None = None
    headers: dict = field(default_factory=dict)
    delay: float = 0.0
    events: list[bytes] | None = None  # a streamed (SSE) reply: these chunks, flushed one by one


def _sse(kind: str | None, data: dict | str) -> bytes:
    payload = data if isinstance(data, str) else json.dumps(data)
    return (f"event: {kind}\n" if kind else "").encode() + f"data: {payload}\n\n".encode()


def _message_start(message_id: str) -> bytes:
    start = {
        "type": "message",
        "id": message_id,
        "role": "assistant",
        "content": [],
        "model": "claude-haiku-4-5",
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 50, "output_tokens": 1},
    }
    return _sse("message_start", {"type": "message_start", "message": start})


def _message_end(stop_reason: str, output_tokens: int) -> list[bytes]:
    delta = {"stop_reason": stop_reason, "stop_sequence": None}
    return [
        _sse("message_delta", {"type": "message_delta", "delta": delta, "usage": {"output_tokens": output_tokens}}),
        _sse("message_stop", {"type": "message_stop"}),
    ]


def message_stream(text: str, pieces: int = 3) -> Reply:
    """An Anthropic Messages stream whose text deltas add up to ``text``."""
    step = max(1, len(text) // pieces)
    deltas = [text[i : i + step] for i in range(0, len(text), step)]
    events = [
        _message_start("msg_stream"),
        _sse(
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        ),
        _sse("ping", {"type": "ping"}),
        *[
            _sse(
                "content_block_delta",
                {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": d}},
            )
            for d in deltas
        ],
        _sse("content_block_stop", {"type": "content_block_stop", "index": 0}),
        *_message_end("end_turn", 12),
    ]
    return Reply(events=events, headers={"content-type": "text/event-stream"})


def tool_use_stream(name: str, arguments: dict, call_id: str = "toolu_fake1") -> Reply:
    """An Anthropic Messages stream in which the model calls one tool (its input streamed as
    input_json_delta pieces, as the API sends it) and stops with stop_reason tool_use."""
    encoded = json.dumps(arguments)
    half = len(encoded) // 2
    block = {"type": "tool_use", "id": call_id, "name": name, "input": {}}
    events = [
        _message_start("msg_tool"),
        _sse("content_block_start", {"type": "content_block_start", "index": 0, "content_block": block}),
        *[
            _sse(
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "input_json_delta", "partial_json": part},
                },
            )
            for part in (encoded[:half], encoded[half:])
        ],
        _sse("content_block_stop", {"type": "content_block_stop", "index": 0}),
        *_message_end("tool_use", 20),
    ]
    return Reply(events=events, headers={"content-type": "text/event-stream"})


def chat_completion(text: str) -> Reply:
    """An OpenAI chat completion."""
    return Reply(
        body={
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "created": 1700000000,
            "model": "gpt-test",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 50, "completion_tokens": 10, "total_tokens": 60},
        }
    )


def chat_stream(text: str, pieces: int = 3) -> Reply:
    step = max(1, len(text) // pieces)
    chunk = {"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": 1700000000, "model": "gpt-test"}
    events = [
        _sse(
            None,
            {**chunk, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}]},
        )
    ]
    events += [
        _sse(
            None, {**chunk, "choices": [{"index": 0, "delta": {"content": text[i : i + step]}, "finish_reason": None}]}
        )
        for i in range(0, len(text), step)
    ]
    events += [
        _sse(None, {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
        _sse(None, "[DONE]"),
    ]
    return Reply(events=events, headers={"content-type": "text/event-stream"})


def message(
    text: str,
    *,
    input_tokens: int = 120,
    output_tokens: int = 30,
    cache_creation: int = 0,
    cache_read: int = 0,
    model: str = "claude-haiku-4-5",
) -> Reply:
    return Reply(
        body={
            "id": "msg_test",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {
                "input_tokens": input_tokens,
                "output_tokens": output_tokens,
                "cache_creation_input_tokens": cache_creation,
                "cache_read_input_tokens": cache_read,
            },
        }
    )


def error(status: int, kind: str, headers: dict | None = None) -> Reply:
    return Reply(
        status=status,
        body={"type": "error", "error": {"type": kind, "message": f"{kind} (test)"}},
        headers=headers or {},
    )


class FakeAnthropic:
    def __init__(self):
        self.replies: deque[Reply] = deque()
        self.requests: list[dict] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def do_POST(self):
                length = int(self.headers.get("content-length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                fake.requests.append(
                    {"path": self.path, "body": body, "headers": {k.lower(): v for k, v in self.headers.items()}}
                )
                reply = fake.replies.popleft() if fake.replies else error(500, "api_error")
                if reply.delay:
                    time.sleep(reply.delay)
                if reply.events is not None:
                    self._stream(reply)
                    return
                data = reply.body if isinstance(reply.body, str) else json.dumps(reply.body)
                try:
                    self.send_response(reply.status)
                    self.send_header("content-type", "application/json")
                    for k, v in reply.headers.items():
                        self.send_header(k, v)
                    self.send_header("content-length", str(len(data.encode())))
                    self.end_headers()
                    self.wfile.write(data.encode())
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout test)

            def do_GET(self):
                fake.requests.append(
                    {"path": self.path, "body": None, "headers": {k.lower(): v for k, v in self.headers.items()}}
                )
                data = json.dumps({"data": [{"type": "model", "id": "claude-haiku-4-5"}], "has_more": False}).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, reply: Reply) -> None:
                self.send_response(reply.status)
                for k, v in reply.headers.items():
                    self.send_header(k, v)
                self.send_header("cache-control", "no-cache")
                self.end_headers()  # no content-length: the body ends when the connection closes
                self.close_connection = True
                for event in reply.events:
                    self.wfile.write(event)
                    self.wfile.flush()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> "FakeAnthropic":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


KEY_ENV = "AGENTMEMD_TEST_KEY"


def llm_config(fake: FakeAnthropic, **extra) -> dict:
    """The [llm] section that points agentmemd at this fake server (the key is read from KEY_ENV)."""
    return {"provider": "anthropic", "base_url": fake.base_url, "api_key_env": KEY_ENV, "max_retries": 0, **extra}
