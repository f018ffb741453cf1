"""The assistant's reply out of a streamed (SSE) response, read beside the bytes passed through.

The reply is stored as the message the app will send back with its next request (text blocks
and tool calls, the same way ``messages.message_text`` reads that message), so the next request's
history matches the stored transcript. It is stored only when the stream completed: a stream the
upstream cut is an error to the app, and its partial text is not a reply.
"""

from __future__ import annotations

import json
from typing import Any


class ReplyCollector:
    """Fed the raw SSE bytes as they pass. ``message``: the reply as a message; ``completed``: the
    stream reached its end (Anthropic `message_stop`; OpenAI `[DONE]`; Responses `response.completed`);
    ``alternatives``: an OpenAI reply's other choices (`n` > 1), which are not the reply.

    Anthropic: content blocks from `content_block_start`, text from `text_delta`, a tool call's input
    from `input_json_delta`. OpenAI chat: each choice's `delta.content` and `.tool_calls` (name and arguments). Responses:
    `response.output_text.delta`, and the finished response in `response.completed`."""

    def __init__(self, api: str):
        self.api = api
        self.completed = False
        self._buffer = b""
        self._blocks: dict[int, dict[str, Any]] = {}
        self._parts: list[str] = []  # the Responses API's text
        self._choices: dict[int, dict[str, Any]] = {}  # OpenAI chat: per choice index, its text parts and calls
        self.final: dict[str, Any] | None = None  # the Responses API's finished response

    def feed(self, chunk: bytes) -> None:
        self._buffer += chunk.replace(b"\r\n", b"\n")
        while b"\n\n" in self._buffer:
            event, self._buffer = self._buffer.split(b"\n\n", 1)
            self._event(event)

    def _event(self, event: bytes) -> None:
        data = b"\n".join(line[5:].lstrip() for line in event.split(b"\n") if line.startswith(b"data:"))
        if data == b"[DONE]":
            self.completed = True
            return
        try:
            payload = json.loads(data) if data else None
        except ValueError:
            return
        if not isinstance(payload, dict):
            return
        if self.api == "anthropic":
            self._anthropic(payload)
        elif self.api == "responses":
            self._responses(payload)
        else:
            self._openai(payload)

    def _anthropic(self, payload: dict[str, Any]) -> None:
        kind, index = payload.get("type"), payload.get("index")
        if kind == "message_stop":
            self.completed = True
        elif (
            kind == "content_block_start" and isinstance(index, int) and isinstance(payload.get("content_block"), dict)
        ):
            self._blocks[index] = {**payload["content_block"], "_json": ""}
        elif kind == "content_block_delta" and index in self._blocks:
            delta, block = payload.get("delta") or {}, self._blocks[index]
            if delta.get("type") == "text_delta":
                block["text"] = block.get("text", "") + str(delta.get("text", ""))
            elif delta.get("type") == "input_json_delta":
                block["_json"] += str(delta.get("partial_json", ""))

    def _openai(self, payload: dict[str, Any]) -> None:
        for choice in payload.get("choices") or []:
            if not isinstance(choice, dict):
                continue
            # With `n` > 1 the choices' deltas interleave, each under its own index.
            slot = self._choices.setdefault(choice.get("index", 0), {"parts": [], "calls": {}})
            delta = choice.get("delta") or {}
            if isinstance(delta.get("content"), str):
                slot["parts"].append(delta["content"])
            for call in delta.get("tool_calls") or []:
                made = slot["calls"].setdefault(call.get("index", 0), {"function": {"name": "", "arguments": ""}})
                function = call.get("function") or {}
                for key in ("name", "arguments"):
                    if isinstance(function.get(key), str):
                        made["function"][key] += function[key]

    def _responses(self, payload: dict[str, Any]) -> None:
        kind = payload.get("type")
        if kind == "response.output_text.delta":
            self._parts.append(str(payload.get("delta", "")))
        elif kind == "response.completed":
            self.completed = True
            self.final = payload.get("response") if isinstance(payload.get("response"), dict) else None

    @property
    def reply(self) -> dict[str, Any] | None:
        """The reply as the app's next request will carry it: the assistant message, or for the
        Responses API the finished response."""
        if self.api == "responses":
            return self.final
        if self.api == "anthropic":
            content = []
            for _, block in sorted(self._blocks.items()):
                block = dict(block)
                raw = block.pop("_json")
                if block.get("type") == "tool_use" and raw:
                    try:
                        block["input"] = json.loads(raw)
                    except ValueError:
                        block["input"] = {}
                content.append(block)
            return {"role": "assistant", "content": content}
        return self._choice_message(min(self._choices, default=0))

    @property
    def alternatives(self) -> list[dict[str, Any]]:
        """The other choices of an OpenAI chat reply asked for with `n` > 1, in index order."""
        return [self._choice_message(i) for i in sorted(self._choices)[1:]] if self.api == "openai" else []

    def _choice_message(self, index: int) -> dict[str, Any]:
        slot = self._choices.get(index) or {"parts": [], "calls": {}}
        calls = [slot["calls"][i] for i in sorted(slot["calls"])]
        return {"role": "assistant", "content": "".join(slot["parts"]), **({"tool_calls": calls} if calls else {})}
