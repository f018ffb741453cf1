"""An OpenAI Agents SDK ``Session`` whose conversation agentmemd keeps.

    from agents import Agent, Runner
    from agentmemd.daemon.frameworks.openai_agents import AgentmemdSession

    session = AgentmemdSession("ana-chat", db_path="~/.local/state/myapp/sessions.db")
    result = await Runner.run(agent, "I moved to Porto", session=session)

The SDK hands a session items of many kinds (messages, function calls and their output,
reasoning) and wants them back exactly. Those are kept by the SDK's own ``SQLiteSession`` (at
``db_path``; the default, ":memory:", lasts as long as the object). What was *said* (the user's
messages and the assistant's text) is kept in agentmemd after every change, with
``conversation.sync`` as the session ``openai-agents-<session_id>``: the Observer, search and
packs then know it, and sending the history again stores nothing twice. ``pop_item`` (the SDK's
way to redo a turn) syncs the shortened history, which agentmemd keeps as a branch, as it does an
app's regenerated reply; ``clear_session`` clears the items only: forgetting what agentmemd
learned is ``agentmemd memory forget``. A daemon that is down does not stop a run: it is logged, and
the next change sends the whole history, so nothing said is missed.

For recall, give the agent agentmemd's MCP server (``agentmemd mcp``, its tools search and pack).
"""

from __future__ import annotations

import asyncio
import logging
import re
from pathlib import Path
from typing import Any

from agents.memory import SQLiteSession
from agents.memory.session import SessionABC

from agentmemd.daemon.doors.history import fold_turns, sync_history
from agentmemd.daemon.socket.client import Client, DaemonUnavailable, default_socket

SESSION_PREFIX = "openai-agents-"
log = logging.getLogger("agentmemd")


def session_name(session_id: str) -> str:
    """The agentmemd session of an SDK session id, in the characters a session name may have."""
    return SESSION_PREFIX + re.sub(r"[^A-Za-z0-9_.:@/-]", "-", session_id)[:100]


def _text(content: Any) -> str:
    """A message's text: a string, or its text parts (input_text, output_text, text) joined."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts = [
        p.get("text") for p in content if isinstance(p, dict) and p.get("type") in ("input_text", "output_text", "text")
    ]
    return "\n".join(p for p in parts if isinstance(p, str))


def turns_of(items: list[Any]) -> list[tuple[str, str]]:
    """The items as the turns agentmemd keeps: each user message with text, and the assistant's
    text until the next one as one turn (function calls, their output and reasoning left out:
    they are the work, not the conversation)."""
    messages = (
        item
        for item in items
        if isinstance(item, dict) and item.get("type", "message") == "message" and item.get("role") in ROLES
    )
    return fold_turns((message["role"], _text(message.get("content")).strip()) for message in messages)


ROLES = ("user", "assistant")


class AgentmemdSession(SessionABC):
    """The SDK's items in its own SQLiteSession; what was said, in agentmemd too."""

    def __init__(
        self,
        session_id: str,
        *,
        db_path: str | Path = ":memory:",
        socket: str | Path | None = None,
        token: str | None = None,
        namespace: str | None = None,
        timeout: float = 30.0,
    ):
        self.session_id = session_id
        self.name = session_name(session_id)
        path = db_path if str(db_path) == ":memory:" else Path(db_path).expanduser()
        if isinstance(path, Path):  # sqlite makes the file, not its folder ("unable to open database file")
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        self._items = SQLiteSession(session_id, path)
        self.socket = str(socket or default_socket())
        self.token = token
        self.namespace = namespace
        self.timeout = timeout
        self._syncing = asyncio.Lock()  # one sync at a time: each sends the whole history as it then is
        self._client: Client | None = None  # kept between changes (used under _syncing only)

    async def get_items(self, limit: int | None = None) -> list[Any]:
        return await self._items.get_items(limit)

    async def add_items(self, items: list[Any]) -> None:
        await self._items.add_items(items)
        await self._sync()

    async def pop_item(self) -> Any | None:
        item = await self._items.pop_item()
        if item is not None:
            await self._sync()
        return item

    async def clear_session(self) -> None:
        await self._items.clear_session()

    async def _sync(self) -> None:
        async with self._syncing:
            turns = turns_of(await self._items.get_items())
            if not turns:
                return
            try:
                await asyncio.to_thread(self._sync_now, turns)
            except ConnectionError as exc:
                # The run goes on: the items are kept, and the next change sends the whole history.
                log.warning("agentmemd did not get this session's turns yet: %s", exc)

    def _sync_now(self, turns: list[tuple[str, str]]) -> None:
        """On the session's kept connection; on a new one once if the daemon had closed it (it
        restarted since the last change)."""
        try:
            self._sync_on(self._connection(), turns)
        except (ConnectionError, OSError) as exc:
            if isinstance(exc, (DaemonUnavailable, TimeoutError)):
                raise  # no daemon, or a slow one: a new connection would not help
            self._sync_on(self._connection(), turns)

    def _connection(self) -> Client:
        if self._client is None:
            self._client = Client(self.socket, timeout=self.timeout, token=self.token)
        return self._client

    def _sync_on(self, client: Client, turns: list[tuple[str, str]]) -> None:
        try:
            sync_history(client, self.name, self.namespace, list(turns), pending=False)
        except BaseException:
            self._client = None  # a connection that failed in any way is not used again
            client.close()
            raise

    def close(self) -> None:
        self._items.close()
        if self._client is not None:
            self._client.close()
            self._client = None


# What an app may import from here (tests/test_public_surface.py keeps it whole).
__all__ = ["AgentmemdSession", "session_name", "turns_of"]
