"""OpenAI's Responses API (`POST /v1/responses`) as the proxy reads and augments it: pure functions.

A request carries `instructions` (the system prompt) and `input`: a string, or a list of items:
messages (`{"role": "user" | "assistant" | "system" | "developer", "content": str | parts}`,
with or without `"type": "message"`), `function_call` items (the model's tool calls) and
`function_call_output` items (the tools' output), reasoning items. A reply's `output` is a list of
the same items. An app that sends `previous_response_id` sends only the new items: the server
keeps the rest, so the proxy remembers which history each response it passed on continued
(``ResponseHistories``).

Turns as the daemon stores them: user and assistant messages by their text parts; a function call
as the assistant's `[tool call NAME: ARGS]`; a function's output as a `tool` turn (data, never the
user's words). The stable block goes after the app's `instructions`; the Memory Pack in front of
the newest user message, the last thing in the request, so the provider's prefix cache keeps
hitting on everything before it.
"""

from __future__ import annotations

import copy
import threading
from collections import OrderedDict
from typing import Any

TEXT_PARTS = ("input_text", "output_text", "text")


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts = []
    for part in content if isinstance(content, list) else []:
        if isinstance(part, dict) and part.get("type") in TEXT_PARTS:
            parts.append(str(part.get("text", "")))
        elif isinstance(part, dict) and part.get("type") in ("input_image", "input_file", "input_audio"):
            parts.append(f"[{part['type'][6:]}]")
    return "\n".join(p for p in parts if p)


def item_turn(item: Any) -> tuple[str, str] | None:
    """(role, text) of one input or output item; None for what is not a turn (system, reasoning)."""
    if isinstance(item, str):
        return "user", item
    if not isinstance(item, dict):
        return None
    kind = item.get("type", "message")
    if kind == "message" and item.get("role") in ("user", "assistant"):
        return item["role"], _text(item.get("content")).strip() or "[empty]"
    if kind == "function_call":
        return "assistant", f"[tool call {item.get('name', '?')}: {str(item.get('arguments', ''))[:500]}]"
    if kind == "function_call_output":
        output = item.get("output")
        return "tool", (output if isinstance(output, str) else _text(output)).strip() or "[empty]"
    return None


def items(body: dict[str, Any]) -> list[Any]:
    given = body.get("input")
    if isinstance(given, str):
        return [{"role": "user", "content": given}]
    return list(given) if isinstance(given, list) else []


def turns(body: dict[str, Any]) -> list[tuple[str, ...]]:
    """The turns a request's own input carries (without what `previous_response_id` stands for)."""
    return [t for t in (item_turn(i) for i in items(body)) if t is not None]


def reply_turns(response: dict[str, Any]) -> list[tuple[str, str]]:
    """The turns of a finished response's output, as the app's next request will carry them."""
    output = response.get("output")
    return [t for t in (item_turn(i) for i in output or [] if isinstance(i, dict)) if t is not None]


def system_text(body: dict[str, Any]) -> str:
    instructions = body.get("instructions")
    return instructions if isinstance(instructions, str) else ""


def augment(body: dict[str, Any], context: dict[str, Any]) -> dict[str, Any]:
    """The request as it goes upstream: the stable block after the app's instructions, the
    reminder and Memory Pack as a text part in front of the newest user message."""
    out = copy.deepcopy(body)
    if context["system"].strip():
        own = system_text(out)
        out["instructions"] = f"{own}\n\n{context['system']}" if own else context["system"]
    prefix = (context.get("injected") or {}).get("newest_user_prefix", "")
    if not prefix:
        return out
    given = items(out)
    newest = max(
        (
            i
            for i, item in enumerate(given)
            if isinstance(item, dict) and item.get("type", "message") == "message" and item.get("role") == "user"
        ),
        default=None,
    )
    if newest is None:
        return out
    item = dict(given[newest])
    content = item.get("content")
    parts = [{"type": "input_text", "text": content}] if isinstance(content, str) else list(content or [])
    item["content"] = [{"type": "input_text", "text": prefix}, *parts]
    given[newest] = item
    out["input"] = given
    return out


class ResponseHistories:
    """Which history each response the proxy passed on continued (response id -> its turns with
    the reply), so a request that sends only `previous_response_id` and its new items is placed
    with the whole history. Kept in memory, the newest ``size``; after a restart such a request
    is matched by its new items alone (and by its session header, when it has one)."""

    def __init__(self, size: int = 10_000):
        self.size = size
        self._histories: OrderedDict[str, list[tuple[str, str]]] = OrderedDict()
        self._lock = threading.Lock()

    def remember(self, response_id: str, history: list[tuple[str, str]]) -> None:
        with self._lock:
            self._histories[response_id] = history
            self._histories.move_to_end(response_id)
            while len(self._histories) > self.size:
                self._histories.popitem(last=False)

    def before(self, body: dict[str, Any]) -> list[tuple[str, ...]]:
        previous = body.get("previous_response_id")
        with self._lock:
            return list(self._histories.get(previous, [])) if isinstance(previous, str) else []
