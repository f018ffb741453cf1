"""What the proxy does to a request body: the two wire formats it speaks, and nothing else.

Anthropic Messages (`POST /v1/messages`) and OpenAI chat completions (`POST /v1/chat/completions`)
differ in where the system prompt lives and how content is shaped; both get the same three
things from the daemon's `conversation.context`: the stable prefix (persona record and
observation log) as a system block, the reminder and Memory Pack in front of the newest user
turn, and persona anchors on earlier user turns. Unknown fields, tool blocks and images pass
untouched. Pure functions: no I/O, so every rule is tested without a network.
"""

from __future__ import annotations

import copy
import hashlib
import json
from typing import Any

MAX_BREAKPOINTS = 4  # Anthropic's limit on cache_control blocks in one request
EPHEMERAL = {"type": "ephemeral"}


# ---- turns as the daemon stores them -------------------------------------------------------------


def _block_text(block: Any) -> str:
    if isinstance(block, str):
        return block
    if not isinstance(block, dict):
        return ""
    kind = block.get("type")
    if kind == "text":
        return str(block.get("text", ""))
    if kind == "tool_use":
        return f"[tool call {block.get('name', '?')}: {json.dumps(block.get('input', {}), ensure_ascii=False)[:500]}]"
    if kind == "tool_result":
        inner = block.get("content")
        text = inner if isinstance(inner, str) else " ".join(_block_text(b) for b in inner or [])
        return f"[tool result: {text[:2000]}]"
    if kind in ("image", "image_url", "document", "input_audio"):
        return f"[{kind}]"
    return ""


def message_text(message: dict[str, Any]) -> str:
    """A message's words as one turn: text blocks joined; tools, images and files as short marks."""
    content = message.get("content")
    if isinstance(content, str):
        text = content
    elif isinstance(content, list):
        text = "\n".join(t for t in (_block_text(b) for b in content) if t)
    else:
        text = ""
    calls = message.get("tool_calls") or []  # OpenAI assistant tool calls
    text = "\n".join([text] + [f"[tool call {c.get('function', {}).get('name', '?')}]" for c in calls]).strip()
    return text or "[empty]"


def turns(messages: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """(role, text) per user/assistant message, in order: what the daemon stores as turns.
    OpenAI's `tool` messages count as the user side (their results come back to the model)."""
    out = []
    for m in messages:
        role = m.get("role")
        if role in ("user", "tool"):
            out.append(("user", message_text(m)))
        elif role == "assistant":
            out.append(("assistant", message_text(m)))
    return out


def default_session(system_text: str, messages: list[dict[str, Any]]) -> str:
    """A conversation's id when the app sends no `x-agentmemd-session`: its system prompt and first
    user turn, hashed, so each conversation an app starts is a session of its own."""
    first_user = next((message_text(m) for m in messages if m.get("role") == "user"), "")
    digest = hashlib.sha256(f"{system_text}\0{first_user}".encode("utf-8", "surrogatepass")).hexdigest()
    return f"proxy-{digest[:20]}"


def _with_text(content: Any, text: str, *, first: bool) -> list[Any]:
    """Content with a text block added; tool results must open a user turn, so it goes after them."""
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else list(content or [])
    block = {"type": "text", "text": text}
    if not first or any(isinstance(b, dict) and b.get("type") == "tool_result" for b in blocks):
        return blocks + [block]
    return [block] + blocks


# ---- Anthropic Messages ---------------------------------------------------------------------------


def anthropic_system_text(body: dict[str, Any]) -> str:
    system = body.get("system")
    if isinstance(system, list):
        return "\n".join(_block_text(b) for b in system)
    return system if isinstance(system, str) else ""


def count_breakpoints(value: Any) -> int:
    if isinstance(value, dict):
        return int("cache_control" in value) + sum(count_breakpoints(v) for v in value.values())
    if isinstance(value, list):
        return sum(count_breakpoints(v) for v in value)
    return 0


def augment_anthropic(body: dict[str, Any], context: dict[str, Any], keep: int | None) -> dict[str, Any]:
    """The request as it goes upstream. ``keep``: compact mode's number of newest messages kept
    (older ones are stood for by the observation log in the system block); None keeps them all."""
    out = copy.deepcopy(body)
    messages = out.get("messages") or []
    if keep is not None:
        messages = messages[start_of_kept(messages, keep) :]
        out["messages"] = messages
    block: dict[str, Any] = {"type": "text", "text": context["system"]}
    if context["system"].strip():
        if count_breakpoints(out) < MAX_BREAKPOINTS:
            block["cache_control"] = dict(EPHEMERAL)
        system = out.get("system")
        blocks = [{"type": "text", "text": system}] if isinstance(system, str) and system else list(system or [])
        out["system"] = blocks + [block]
    _inject_turns(messages, context, user_roles=("user",))
    return out


def _inject_turns(messages: list[dict[str, Any]], context: dict[str, Any], user_roles: tuple[str, ...]) -> None:
    injected = context.get("injected") or {}
    prefix = injected.get("newest_user_prefix", "")
    newest = max((i for i, m in enumerate(messages) if m.get("role") in user_roles), default=None)
    if prefix and newest is not None:
        messages[newest] = {
            **messages[newest],
            "content": _with_text(messages[newest].get("content"), prefix, first=True),
        }
    anchor = injected.get("anchor", "")
    if anchor:
        offset = len(messages) - len(context["messages"])
        for position in context.get("anchors", []):
            i = offset + position
            if 0 <= i < len(messages) and i != newest and messages[i].get("role") in user_roles:
                tagged = f"<persona-anchor>{anchor}</persona-anchor>"
                messages[i] = {**messages[i], "content": _with_text(messages[i].get("content"), tagged, first=True)}


def start_of_kept(messages: list[dict[str, Any]], keep: int) -> int:
    """Where compact mode's kept tail starts: at most ``keep`` messages, at least the last one,
    beginning with a user turn that is not a lone tool result (whose call would be cut off)."""
    start = max(0, len(messages) - max(1, keep))
    while start < len(messages) - 1 and not _opens_exchange(messages[start]):
        start += 1
    return start


def _opens_exchange(message: dict[str, Any]) -> bool:
    if message.get("role") != "user":
        return False
    content = message.get("content")
    return not (
        isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content)
    )


def anthropic_reply_text(body: dict[str, Any]) -> str:
    return "\n".join(b.get("text", "") for b in body.get("content") or [] if b.get("type") == "text").strip()


# ---- OpenAI chat completions -----------------------------------------------------------------------


def openai_system_text(body: dict[str, Any]) -> str:
    return "\n".join(message_text(m) for m in body.get("messages") or [] if m.get("role") in ("system", "developer"))


def augment_openai(body: dict[str, Any], context: dict[str, Any], keep: int | None) -> dict[str, Any]:
    out = copy.deepcopy(body)
    messages = out.get("messages") or []
    leading = [m for m in messages if m.get("role") in ("system", "developer")]
    chat = [m for m in messages if m.get("role") not in ("system", "developer")]
    if keep is not None:
        chat = chat[start_of_kept(chat, keep) :]
    _inject_turns(chat, context, user_roles=("user",))
    ours = [{"role": "system", "content": context["system"]}] if context["system"].strip() else []
    out["messages"] = leading + ours + chat
    return out


def openai_reply_text(body: dict[str, Any]) -> str:
    choices = body.get("choices") or []
    message = choices[0].get("message", {}) if choices else {}
    content = message.get("content")
    return content.strip() if isinstance(content, str) else ""


def history_messages(body: dict[str, Any], api: str) -> list[dict[str, Any]]:
    messages = body.get("messages") or []
    return messages if api == "anthropic" else [m for m in messages if m.get("role") not in ("system", "developer")]
