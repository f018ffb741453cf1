"""The assistant's words out of a streamed (SSE) reply, read beside the bytes passed through."""

from __future__ import annotations

import json


class ReplyTextCollector:
    """Fed the raw SSE bytes as they pass; ``text`` is the reply's text once the stream ended.

    Anthropic: `content_block_delta` events with a `text_delta`. OpenAI: `choices[0].delta.content`
    chunks, then `data: [DONE]`. Anything else (tool input, thinking, pings) is ignored.
    """

    def __init__(self, api: str):
        self.api = api
        self._buffer = b""
        self._parts: list[str] = []

    def feed(self, chunk: bytes) -> None:
        self._buffer += chunk.replace(b"\r\n", b"\n")
        while b"\n\n" in self._buffer:
            event, self._buffer = self._buffer.split(b"\n\n", 1)
            self._event(event)

    def _event(self, event: bytes) -> None:
        data = b"\n".join(line[5:].lstrip() for line in event.split(b"\n") if line.startswith(b"data:"))
        if not data or data == b"[DONE]":
            return
        try:
            payload = json.loads(data)
        except ValueError:
            return
        if not isinstance(payload, dict):
            return
        if self.api == "anthropic":
            delta = payload.get("delta") or {}
            if payload.get("type") == "content_block_delta" and delta.get("type") == "text_delta":
                self._parts.append(str(delta.get("text", "")))
            return
        for choice in payload.get("choices") or []:
            content = (choice.get("delta") or {}).get("content")
            if isinstance(content, str):
                self._parts.append(content)

    @property
    def text(self) -> str:
        return "".join(self._parts).strip()
