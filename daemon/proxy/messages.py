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
import json
from typing import Any

MAX_BREAKPOINTS = 4  # Anthropic's limit on cache_control blocks in one request
EPHEMERAL = {"type": "ephemeral"}


# ---- turns as the daemon stores them -------------------------------------------------------------


def _block_text(block: Any) -> str:
    """A block's words as they are stored: text as is; tools, images and files as short marks.
    A tool's result is not copied here: it is a turn of its own (``turns_of``), never words."""
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
        return "[tool result]"
    if kind in ("image", "image_url", "document", "input_audio"):
        return f"[{kind}]"
    return ""


def _result_text(block: dict[str, Any]) -> str:
    inner = block.get("content")
    if isinstance(inner, str):
        return inner
    return "\n".join(t for t in (_block_text(b) for b in inner or []) if t)


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
    text = "\n".join([text] + [_openai_call_text(c) for c in calls if isinstance(c, dict)]).strip()
    return text or "[empty]"


def _openai_call_text(call: dict[str, Any]) -> str:
    """An OpenAI tool call as the assistant's words, with its arguments as the model wrote them
    (a JSON string), as Anthropic's and the Responses API's calls are kept."""
    named = call.get("function")
    function: dict[str, Any] = named if isinstance(named, dict) else {}
    arguments = function.get("arguments")
    arguments = arguments if isinstance(arguments, str) else json.dumps(arguments or {}, ensure_ascii=False)
    return f"[tool call {function.get('name', '?')}: {arguments[:500]}]"


def _has_tool_results(message: dict[str, Any]) -> bool:
    content = message.get("content")
    return isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content)


def turns_of(message: dict[str, Any]) -> list[tuple[str, ...]]:
    """The turns of one message as the daemon stores them: (role, text), or (role, text, speaker)
    when the message names its speaker; none for a message that is not a turn.

    A tool's output (an OpenAI `tool` message, an Anthropic user message's `tool_result` blocks)
    is a `tool` turn: data the app handed the model, never the user's words. A user message that
    mixes results and text is both: the tool turn, then the user's words."""
    role = message.get("role")
    if role == "tool":
        return [("tool", message_text(message))]
    if role == "user" and _has_tool_results(message):
        blocks = [b for b in message["content"] if isinstance(b, dict)]
        results = [b for b in blocks if b.get("type") == "tool_result"]
        said = "\n".join(t for t in (_block_text(b) for b in blocks if b.get("type") != "tool_result") if t)
        output = "\n".join(_result_text(b) for b in results).strip() or "[empty]"
        turns: list[tuple[str, ...]] = [("tool", output)]
        return turns + ([("user", said)] if said.strip() else [])
    if role == "user" and isinstance(message.get("name"), str) and message["name"].strip():
        # OpenAI's `name`: who said it, where several people share the user role (a group chat).
        return [(role, message_text(message), message["name"].strip()[:100])]
    if role in ("user", "assistant"):
        return [(role, message_text(message))]
    return []


def turns(messages: list[dict[str, Any]]) -> list[tuple[str, ...]]:
    """The turns of an app's history, in order: what the daemon stores as turns."""
    return [t for m in messages for t in turns_of(m)]


def _with_text(content: Any, text: str, *, first: bool) -> list[Any]:
    """Content with a text block added; tool results must open a user turn, so it goes after them."""
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else list(content or [])
    block = {"type": "text", "text": text}
    if not first or any(isinstance(b, dict) and b.get("type") == "tool_result" for b in blocks):
        return blocks + [block]
    return [block] + blocks


# ---- Anthropic Messages ---------------------------------------------------------------------------


def augment_anthropic(body: dict[str, Any], context: dict[str, Any], keep: int | None) -> dict[str, Any]:
    """The request as it goes upstream. ``keep``: compact mode's number of newest messages kept
    (older ones are stood for by the observation log in the system block); None keeps them all.
    The stable block goes after the app's system prompt; what changes per turn, after the app's
    last breakpoint (see "the providers' prompt caches" below)."""
    out = copy.deepcopy(body)
    messages = out.get("messages") or []
    if keep is not None:
        messages = messages[start_of_kept(messages, keep) :]
        out["messages"] = messages
    block: dict[str, Any] = {"type": "text", "text": context["system"]}
    if context["system"].strip():
        if count_breakpoints(out) < MAX_BREAKPOINTS:
            block["cache_control"] = _system_control(out)
        system = out.get("system")
        blocks = [{"type": "text", "text": system}] if isinstance(system, str) and system else list(system or [])
        out["system"] = blocks + [block]
    injected = context.get("injected") or {}
    if injected.get("newest_user_prefix") or injected.get("anchor"):
        _pin_automatic(out, messages)
    _inject_turns(messages, context, ("user",), _last_breakpoint(messages))
    return out


# ---- where what the proxy adds goes: the providers' prompt caches ------------------------------------
#
# Anthropic caches a request's prefix (tools, then system, then messages) up to each `cache_control`
# breakpoint, at most 4 of them, and a later request reads it only where its own prefix is byte-identical
# up to one of its breakpoints or one of the 20 blocks before it; a breakpoint with "ttl": "1h" may not
# come after a 5-minute one (the API answers 400). OpenAI caches every request's prefix by itself. So:
# the stable block goes after the app's system prompt, the same every turn while the observations are,
# with a breakpoint that keeps the TTL order valid and the count within 4; what changes per turn (the
# persona reminder, the Memory Pack, persona anchors) goes after the app's last breakpoint. An app that
# moves its breakpoint to its newest message each turn then reads all it sent before from the cache, as
# it does without the proxy, and the pack costs only its own tokens.

LONG_TTL = "1h"


def _controls(value: Any) -> list[Any]:
    """The `cache_control` values in a request or any part of it, in order."""
    if isinstance(value, dict):
        own = [value["cache_control"]] if "cache_control" in value else []
        return own + [c for k, v in value.items() if k != "cache_control" for c in _controls(v)]
    if isinstance(value, list):
        return [c for v in value for c in _controls(v)]
    return []


def count_breakpoints(value: Any) -> int:
    """Breakpoints in a request (a top-level `cache_control`, automatic caching's, is one too)."""
    return len(_controls(value))


def _ttl(control: Any) -> str:
    return str(control.get("ttl", "5m")) if isinstance(control, dict) else "5m"


def _system_control(body: dict[str, Any]) -> dict[str, Any]:
    """Our system block's breakpoint: 5 minutes, or 1 hour when a breakpoint after it (in the messages,
    or automatic caching's on the last block) is 1h, since every 1h entry must come before the 5m ones."""
    later = _controls(body.get("messages")) + ([body["cache_control"]] if "cache_control" in body else [])
    return {**EPHEMERAL, "ttl": LONG_TTL} if any(_ttl(c) == LONG_TTL for c in later) else dict(EPHEMERAL)


def _blocks(content: Any) -> list[Any]:
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content or [])


def _last_breakpoint(messages: list[dict[str, Any]]) -> tuple[int, int | None] | None:
    """(message, block) of the app's last breakpoint in its messages; None when it has none there."""
    for i in range(len(messages) - 1, -1, -1):
        content = messages[i].get("content")
        if isinstance(content, list):
            for j in range(len(content) - 1, -1, -1):
                if _controls(content[j]):
                    return i, j
    return None


def _pin_automatic(out: dict[str, Any], messages: list[dict[str, Any]]) -> None:
    """Automatic caching (a top-level `cache_control`) puts its breakpoint on the request's last block,
    which would be the pack: it goes on the app's own last block instead, where it would be without us."""
    control = out.get("cache_control")
    blocks = _blocks(messages[-1].get("content")) if control is not None and messages else []
    if not blocks or not isinstance(blocks[-1], dict):
        return
    del out["cache_control"]
    if "cache_control" not in blocks[-1]:
        blocks[-1] = {**blocks[-1], "cache_control": control}
    messages[-1] = {**messages[-1], "content": blocks}


def _after_results(blocks: list[Any]) -> int:
    """Where text may go in a user turn at the earliest: after its tool results, which must open it."""
    results = [j for j, b in enumerate(blocks) if isinstance(b, dict) and b.get("type") == "tool_result"]
    return results[-1] + 1 if results else 0


def _inject_turns(
    messages: list[dict[str, Any]],
    context: dict[str, Any],
    user_roles: tuple[str, ...],
    cached: tuple[int, int | None] | None,
    *,
    trailing: bool = False,
) -> None:
    """The reminder and Memory Pack with the newest user turn, persona anchors on earlier ones, none of
    it inside the prefix the app caches: ``cached`` is (message, block) of its last breakpoint (block
    None: the whole message), None when no message is cached. ``trailing``: when the newest user turn
    is inside it, the pack may go in a user message of its own at the end (OpenAI's tool loops)."""
    injected = context.get("injected") or {}
    text = injected.get("newest_user_prefix", "")
    newest = max((i for i, m in enumerate(messages) if m.get("role") in user_roles), default=None)
    anchor = injected.get("anchor", "")
    frozen = cached[0] if cached else -1
    offset = len(messages) - len(context.get("messages") or [])
    dropped = False
    for position in context.get("anchors", []) if anchor else []:
        i = offset + position
        if not (0 <= i < len(messages)) or i == newest or messages[i].get("role") not in user_roles:
            continue
        if i <= frozen:
            # An anchor here would change the history the app caches, so every later turn would write
            # it all again: it is dropped, and the same words go with the newest turn as its reminder.
            dropped = True
            continue
        tagged = f"<persona-anchor>{anchor}</persona-anchor>"
        messages[i] = {**messages[i], "content": _with_text(messages[i].get("content"), tagged, first=True)}
    if dropped:
        text = f"<persona-anchor>{anchor}</persona-anchor>\n\n{text}"
    if text and newest is not None:
        _place_per_turn(messages, text, newest, cached, trailing=trailing)


def _place_per_turn(
    messages: list[dict[str, Any]], text: str, newest: int, cached: tuple[int, int | None] | None, *, trailing: bool
) -> None:
    message = messages[newest]
    if cached is None or cached[0] < newest:  # the newest user turn is past the cached prefix: in front of it
        content = _with_text(message.get("content"), text, first=True)
    elif cached[0] == newest and cached[1] is not None:  # the app's breakpoint is in it: right after that block
        blocks = _blocks(message.get("content"))
        at = max(cached[1] + 1, _after_results(blocks))
        content = blocks[:at] + [{"type": "text", "text": text}] + blocks[at:]
    elif trailing:
        messages.append({"role": "user", "content": text})
        return
    else:
        # A breakpoint on a later message (an assistant prefill): no user turn comes after it, and the
        # pack is worth more than that one prefix (read again only by an identical request).
        content = _with_text(message.get("content"), text, first=True)
    messages[newest] = {**message, "content": content}


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


def reply_message(body: dict[str, Any], api: str) -> dict[str, Any] | None:
    """The assistant message of a whole (not streamed) reply's parsed body, as the app's next
    request will carry it; None when the body is not a reply."""
    if api == "anthropic":
        blocks = body.get("content")
        return {"role": "assistant", "content": blocks} if isinstance(blocks, list) else None
    choices = body.get("choices") or []
    message = choices[0].get("message") if choices and isinstance(choices[0], dict) else None
    return message if isinstance(message, dict) else None


def other_choices(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The assistant messages of an OpenAI reply's choices after the first (`n` > 1), in index order."""
    choices = [c for c in body.get("choices") or [] if isinstance(c, dict) and isinstance(c.get("message"), dict)]
    choices.sort(key=lambda c: c.get("index", 0) if isinstance(c.get("index"), int) else 0)
    return [c["message"] for c in choices[1:]]


# ---- OpenAI chat completions -----------------------------------------------------------------------


def augment_openai(body: dict[str, Any], context: dict[str, Any], keep: int | None) -> dict[str, Any]:
    out = copy.deepcopy(body)
    messages = out.get("messages") or []
    # The app's opening system/developer messages stay first and ours follows them; one later in the
    # conversation (an instruction given mid-way) keeps its place.
    opening = next((i for i, m in enumerate(messages) if m.get("role") not in ("system", "developer")), len(messages))
    leading, chat = messages[:opening], messages[opening:]
    if keep is not None:
        chat = chat[start_of_kept(chat, keep) :]
    # OpenAI caches each request's prefix by itself: all but the newest message is the next request's
    # prefix, so nothing that changes per turn goes there (a tool loop's pack goes after its results).
    _inject_turns(chat, context, ("user",), (len(chat) - 2, None) if len(chat) > 1 else None, trailing=True)
    ours = [{"role": "system", "content": context["system"]}] if context["system"].strip() else []
    out["messages"] = leading + ours + chat
    return out


def history_messages(body: dict[str, Any], api: str) -> list[dict[str, Any]]:
    messages = body.get("messages") or []
    return messages if api == "anthropic" else [m for m in messages if m.get("role") not in ("system", "developer")]
