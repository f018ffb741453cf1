"""An app's whole conversation history sent to the daemon with ``conversation.sync`` (or
``prepare``) within the daemon's line limit, the older turns as digests where the whole would not
fit: what the proxy does with each model call and the Claude Code hooks with each turn."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from agentmemd.daemon.socket.client import Client, RpcCallError
from agentmemd.daemon.socket.codes import CONFLICT
from agentmemd.memory.conversation.transcript import as_stored, turn_digest

SYNC_FRAME_BYTES = 512_000  # of the daemon's max_line_bytes (1 MiB by default)


def fold_turns(said: Iterable[tuple[str, str]], *, reply_first: bool = True) -> list[tuple[str, str]]:
    """A host's messages, (role, text) oldest first, as the turns agentmemd keeps: each user
    message, and the assistant's texts until the next one joined as one turn (a host writes a reply
    as several messages around its tool calls). Empty texts are skipped. ``reply_first`` False: an
    assistant's text before any user message is left out (a host's own greeting, not an answer).

    >>> fold_turns([("user", "hi"), ("assistant", "Let me look."), ("assistant", "Found it."), ("user", "thanks")])
    [('user', 'hi'), ('assistant', 'Let me look.\\n\\nFound it.'), ('user', 'thanks')]
    """
    turns: list[tuple[str, str]] = []
    reply: list[str] = []
    for role, text in said:
        if not text.strip():
            continue
        if role == "assistant":
            reply.append(text)
            continue
        if reply and (turns or reply_first):
            turns.append(("assistant", "\n\n".join(reply)))
        reply = []
        turns.append((role, text))
    if reply and (turns or reply_first):
        turns.append(("assistant", "\n\n".join(reply)))
    return turns


def sync_turn(turn: tuple[str, ...]) -> dict[str, Any]:
    """A turn, (role, text) or (role, text, speaker), as the daemon's sync, prepare, preview and
    confirm take it with its text: stored as the daemon stores it (a huge one cut with a mark)."""
    role, text, *rest = turn
    return {"role": role, "content": as_stored(text), **({"speaker": rest[0]} if rest else {})}


def sync_history(
    client: Client,
    name: str | None,
    namespace: str | None,
    turns: list[tuple[str, ...]],
    *,
    pending: bool,
    context: dict[str, Any] | None = None,
    forked_from: str | None = None,
) -> dict[str, Any]:
    """``conversation.sync`` of a whole history within the daemon's line limit: the turns as stored
    (a huge one cut with a mark), the newest with their text and the older ones as digests where
    the whole would not fit. When the daemon needs text it was sent only the digest of (turns new
    to it), the history goes in steps, each a prefix of it whose new turns fit one request.
    ``context``: the options of the context to build as well (``conversation.prepare``, one call
    where the history fits one request; its answer holds the ``context``). ``forked_from``: the
    session a new ``name`` was forked from (the turns they share are inherited, not stored again)."""
    stored = [(role, as_stored(text), *rest) for role, text, *rest in turns]
    sizes = [len(json.dumps(text)) + 32 for _, text, *_ in stored]  # as the client sends it, with its keys
    # No namespace: the caller's (a scoped token's own, else the default).
    where = {"namespace": namespace} if namespace else {}
    params: dict[str, Any] = {**where, "pending": pending, **({"session": name} if name else {})}
    if forked_from and name:
        params["forked_from"] = forked_from

    def send(upto: int, with_text: set[int], method: str = "conversation.sync") -> dict[str, Any]:
        payload = [
            sync_turn(turn) if i in with_text else {"role": turn[0], "digest": turn_digest(turn[0], turn[1])}
            for i, turn in enumerate(stored[:upto])
        ]
        extra = context if method == "conversation.prepare" and context else {}
        return client.call(method, {**params, **extra, "turns": payload})

    try:
        first = "conversation.prepare" if context is not None else "conversation.sync"
        return send(len(stored), _fitting(sizes, len(stored), len(stored)), first)
    except RpcCallError as exc:
        needs = exc.data.get("needs") if isinstance(exc.data, dict) else None
        if exc.code != CONFLICT or not isinstance(needs, list) or not needs:
            raise
    position, appended, result = min(needs), [], {}
    while position < len(stored):
        upto = max(position + 1, max(_fitting(sizes, len(stored), position, from_start=True), default=position) + 1)
        result = send(upto, set(range(position, upto)))
        appended += result["appended_seqs"]
        position = upto
    result = {**result, "appended_seqs": appended, "appended": len(appended)}  # every step's, not the last's
    if context is not None:  # a history too big for one request: its context asked for on its own
        result["context"] = client.call("conversation.context", {"session": result["session"], **where, **context})
    return result


DIGEST_BYTES = 80  # a turn sent as its digest, with its keys


def _fitting(sizes: list[int], count: int, edge: int, *, from_start: bool = False) -> set[int]:
    """Positions whose text fits one request beside the others' digests: the newest ones before
    ``edge`` (or, ``from_start``, the first ones from ``edge`` on)."""
    budget = SYNC_FRAME_BYTES - DIGEST_BYTES * count
    order = range(edge, count) if from_start else range(edge - 1, -1, -1)
    chosen: set[int] = set()
    for i in order:
        if sizes[i] - DIGEST_BYTES > budget and (chosen or not from_start):
            break
        chosen.add(i)
        budget -= sizes[i] - DIGEST_BYTES
    return chosen
