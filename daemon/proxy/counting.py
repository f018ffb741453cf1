"""What `POST /v1/messages/count_tokens` counts through the proxy: the request as `/v1/messages`
would send it (the stable block and the Memory Pack added). A count is not a conversation: it
stores no turn and records no context build. So it asks `conversation.preview`, which builds the
context as `conversation.context` would for this history, with the daemon's own budget shares, and
stores nothing (no turn, no build, no drift action; its pack is logged unless the call is kept out
of memory). Not counted: the persona reminder or anchors a drift action would add. A call kept out
of memory gets this same context.
"""

from __future__ import annotations

import json
from typing import Any

from agentmemd.daemon.doors.calls import for_http
from agentmemd.daemon.doors.history import sync_turn
from agentmemd.daemon.proxy import messages as wire
from agentmemd.daemon.proxy.scope import refused_as_forbidden, scoped_namespace
from agentmemd.daemon.socket.client import Client, RpcCallError
from agentmemd.memory.core.tokens import count_tokens

PREVIEW_BYTES = 512_000  # of the daemon's max_line_bytes (1 MiB by default): the newest turns that fit


class Refused(Exception):
    """The daemon refused the token."""


def count_context(
    socket_path: Any,
    timeout: float,
    token: str,
    session: str | None,
    namespace: str | None,
    history: list[dict[str, Any]],
    budget_tokens: int | None,
    compact: bool,
    logged: bool = True,
) -> tuple[dict[str, Any], int | None]:
    """The context `augment_anthropic` takes, and compact mode's ``keep``, for counting ``history``
    (``logged`` False: its pack leaves no entry in the pack log, for a call kept out of memory).
    Refused: the token was refused; Forbidden: it may not use the namespace; ConnectionError/
    TimeoutError: no daemon to ask."""
    try:
        client = Client(socket_path, timeout=timeout, token=token)
    except RpcCallError as exc:
        raise Refused(for_http(exc.message)) from None
    with client:
        params: dict[str, Any] = {
            "namespace": scoped_namespace(namespace, client.scope or {}),
            "turns": _newest_turns(wire.turns(history)),
            "anchors_as": "user",
            "logged": logged,
        }
        params |= ({"session": session} if session else {}) | (
            {"budget_tokens": budget_tokens} if budget_tokens else {}
        )
        with refused_as_forbidden():
            built = client.call("conversation.preview", params)
    sizes = [count_tokens(wire.message_text(m)) for m in history]
    compacted = compact and sum(sizes) > built["budget_tokens"]
    keep = _kept(sizes, built["parts"]["history_budget"]) if compacted else None
    context = {
        "system": built["system"],
        "messages": [],
        "anchors": [],
        "budget_tokens": built["budget_tokens"],
        "injected": built["injected"],
    }
    return context, keep


def _newest_turns(turns: list[tuple[str, ...]]) -> list[dict[str, Any]]:
    """The history's turns as the daemon takes them, the newest that fit one request: older ones
    would not fit any context budget a request can carry."""
    kept: list[dict[str, Any]] = []
    size = 0
    for turn in map(sync_turn, reversed(turns)):
        size += len(json.dumps(turn))
        if size > PREVIEW_BYTES and kept:
            break
        kept.append(turn)
    return kept[::-1]


def _kept(sizes: list[int], budget: int) -> int:
    """Compact mode: how many of the newest messages fit ``budget`` (one at least)."""
    used, kept = 0, 0
    for size in reversed(sizes):
        if used + size > budget:
            break
        used, kept = used + size, kept + 1
    return max(1, kept)
