"""What `POST /v1/messages/count_tokens` counts through the proxy: the request as `/v1/messages`
would send it (the stable block and the Memory Pack added), built from read-only daemon calls.

A count is not a conversation: it stores no turn and records no context build. So the context is
not `conversation.context`, which records the build it gave (`conversation.contexts` lists them)
and may carry out a drift action (a rebase compaction, even), but an approximation of it, made of
reads:

* the stable block: the `system` of the session's newest context build (`conversation.contexts`),
  which is what the session's next model call sends while its observations do not change. For a
  session with no build yet, or when the app names none (`x-agentmemd-session`; without it the
  daemon finds a conversation by its content, which only a model call's sync does), the persona
  memories as the block lists them without a Persona Preservation Record (`memory.list`), and no
  observation log;
* the Memory Pack: `context.pack` for the newest user text, within what the budget leaves it (the
  pack's share at least, as `conversation.context` gives it), without what the context shows
  otherwise: the persona memories, and the session's newest 500 turns as episodes (`memory.list`).
  Like every pack it leaves an entry in the pack log (for `context.explain`); no conversation is
  touched;
* compact mode: the newest messages that fit the history's share of the budget.

Not counted: the persona reminder or anchors a drift action would add, and the people note; the
pack may differ by the observations the stable block shows (the model call's pack leaves them out)
and by the session's audience: it is packed for the user's own (what a proxied conversation
hears), so a session that is a chat's may hear less. So the count is the model call's give or take
those. A call kept out of memory gets this same context.
"""

from __future__ import annotations

from typing import Any

from agentmemd.daemon.proxy import messages as wire
from agentmemd.daemon.proxy.scope import scoped_namespace
from agentmemd.daemon.socket.client import Client, RpcCallError
from agentmemd.memory.conversation.context import MEMORIES_CLOSE, MEMORIES_OPEN, persona_contract
from agentmemd.memory.core.config import ConversationConfig
from agentmemd.memory.core.disclosure import USER
from agentmemd.memory.core.tokens import count_tokens

DEFAULTS = ConversationConfig()  # the daemon's [conversation] defaults: the proxy does not read its config
PAGE = 500  # memory.list's page limit


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
        raise Refused(exc.message) from None
    with client:
        namespace = scoped_namespace(namespace, client.scope or {})
        build = _newest_build(client, session, namespace) if session else None
        budget = budget_tokens or (build or {}).get("budget_tokens") or DEFAULTS.context_budget_tokens
        listed = {"namespace": namespace, "type": "persona", "limit": PAGE}
        persona = client.call("memory.list", listed)["items"]
        if build is not None:
            system = build["system"]
        else:
            system = persona_contract(persona, int(budget * DEFAULTS.system_share))[0]
        system_tokens = count_tokens(system)
        share = int(budget * DEFAULTS.memories_share)
        history_budget = max(0, budget - system_tokens - share)
        sizes = [count_tokens(wire.message_text(m)) for m in history]
        left = budget - system_tokens - min(sum(sizes), history_budget)
        newest = next((wire.message_text(m) for m in reversed(history) if m.get("role") == "user"), "")
        shown = [row["id"] for row in persona] + (_episodes(client, session, namespace) if session else [])
        prefix = _pack(client, newest, left, namespace, shown, logged)
    keep = _kept(sizes, history_budget) if compact and sum(sizes) > budget else None
    context = {
        "system": system,
        "messages": [],
        "anchors": [],
        "budget_tokens": budget,
        "injected": {"newest_user_prefix": prefix, "anchor": ""},
    }
    return context, keep


def _newest_build(client: Client, session: str, namespace: str) -> dict[str, Any] | None:
    """What the session's newest context build gave (None: no such session, or no build kept)."""
    try:
        builds = client.call("conversation.contexts", {"session": session, "namespace": namespace, "limit": 1})
    except RpcCallError:
        return None
    newest = (builds.get("contexts") or [None])[0]
    return newest.get("context") if newest else None


def _episodes(client: Client, session: str, namespace: str) -> list[str]:
    """The session's newest turns as episodes: the context shows them as turns, so its pack leaves them out."""
    source = f"conversation:{session}#"  # the session's name: the namespace is the memory's own
    listed = {"namespace": namespace, "type": "episode", "source": source, "limit": PAGE}
    return [row["id"] for row in client.call("memory.list", listed)["items"]]


def _pack(client: Client, query: str, left: int, namespace: str, exclude: list[str], logged: bool) -> str:
    """The Memory Pack as `conversation.context` puts it in front of the newest user turn."""
    budget = left - count_tokens(MEMORIES_OPEN) - count_tokens(MEMORIES_CLOSE)
    if not query.strip() or budget <= 20:
        return ""
    params = {"query": query[:100_000], "budget_tokens": budget, "namespace": namespace, "exclude": exclude}
    # For the user's own audience, as a proxied conversation is: never what a private chat said.
    params |= {"audience": USER} | ({} if logged else {"logged": False})
    pack = client.call("context.pack", params)
    return f"{MEMORIES_OPEN}{pack['text']}{MEMORIES_CLOSE}" if pack.get("items") else ""


def _kept(sizes: list[int], budget: int) -> int:
    """Compact mode: how many of the newest messages fit ``budget`` (one at least)."""
    used, kept = 0, 0
    for size in reversed(sizes):
        if used + size > budget:
            break
        used, kept = used + size, kept + 1
    return max(1, kept)
