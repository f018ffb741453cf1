"""What each hook does when Claude Code runs it (`python -m agentmemd.daemon.claude_code HOOK`, the
event's JSON on stdin): SessionStart and UserPromptSubmit answer with a memory pack as
``hookSpecificOutput.additionalContext`` (Claude Code adds it to the model's context); Stop and
SessionEnd keep the session's transcript in agentmemd (``conversation.sync``: only what is new is
stored, so running one twice stores nothing twice) and print nothing.

A hook never stands in Claude Code's way: whatever fails (no daemon, a refused token, a bad
input) is said on stderr (Claude Code's debug log) and the hook exits 0 with nothing on stdout, so
the prompt goes on without memory rather than being blocked.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentmemd.daemon.claude_code.transcript import forked_from, turns_of
from agentmemd.daemon.doors.history import sync_history
from agentmemd.daemon.socket.client import Client

HOOKS = ("session-start", "user-prompt-submit", "stop", "session-end")
DEFAULT_BUDGET = 800  # tokens of memory a prompt gets: about 3,200 characters
# Claude Code moves a context over 10,000 characters into a file and shows the model a preview:
# a pack is kept under it.
MAX_CONTEXT_CHARS = 9_500
MAX_INPUT_BYTES = 1_000_000
SESSION_PREFIX = "claude-code-"


class HookInputError(ValueError):
    """The event's JSON on stdin is not what Claude Code sends."""


@dataclass(frozen=True)
class HookSettings:
    socket_path: Path
    token: str | None
    namespace: str | None
    budget_tokens: int
    timeout: float


def run_hook(hook: str, stdin: str, settings: HookSettings) -> str:
    """What the hook prints on stdout for Claude Code (an empty string: nothing)."""
    event = _event(stdin)
    with Client(settings.socket_path, timeout=settings.timeout, token=settings.token) as agentmemd:
        if hook in ("session-start", "user-prompt-submit"):
            query = event.get("prompt") if hook == "user-prompt-submit" else _project_query(event)
            if not isinstance(query, str) or not query.strip():
                return ""
            return _context(agentmemd, hook, query, settings)
        if hook in ("stop", "session-end"):
            _keep_transcript(agentmemd, event, settings)
            return ""
    raise HookInputError(f"unknown hook {hook!r}; one of {', '.join(HOOKS)}")


def _event(stdin: str) -> dict[str, Any]:
    if len(stdin.encode("utf-8", errors="replace")) > MAX_INPUT_BYTES:
        raise HookInputError(f"the hook's input is over {MAX_INPUT_BYTES} bytes")
    try:
        event = json.loads(stdin)
    except ValueError as exc:
        raise HookInputError(f"the hook's input is not JSON: {exc}") from None
    if not isinstance(event, dict) or not isinstance(event.get("session_id"), str):
        raise HookInputError("the hook's input has no session_id")
    return event


def _project_query(event: dict[str, Any]) -> str:
    """At a session's start there is no prompt yet: the project's name asks for what is known of it
    (the persona and the people's standing facts come with any pack)."""
    cwd = event.get("cwd")
    return Path(cwd).name if isinstance(cwd, str) and cwd else ""


def _context(agentmemd: Client, hook: str, query: str, settings: HookSettings) -> str:
    # By name, not the typed call: a prompt waits for this, and its models take longer to load than it runs.
    # Claude Code is the user's own agent: it hears what their own conversations hear, never what
    # was said to the agent in a private chat (an owner's call naming no audience hears everything).
    where = {"audience": "user", **({"namespace": settings.namespace} if settings.namespace else {})}
    pack = agentmemd.call("context.pack", {"query": query[:2000], "budget_tokens": settings.budget_tokens, **where})
    if not pack["items"]:
        return ""
    text = pack["text"][:MAX_CONTEXT_CHARS]
    event_name = "SessionStart" if hook == "session-start" else "UserPromptSubmit"
    return json.dumps({"hookSpecificOutput": {"hookEventName": event_name, "additionalContext": text}})


def session_name(session_id: str) -> str:
    """The agentmemd session of a Claude Code session: its id, prefixed, in the characters a
    session name may have."""
    return SESSION_PREFIX + re.sub(r"[^A-Za-z0-9_.:@/-]", "-", session_id)[:100]


def _keep_transcript(agentmemd: Client, event: dict[str, Any], settings: HookSettings) -> None:
    path = event.get("transcript_path")
    if not isinstance(path, str) or not path:
        raise HookInputError("the hook's input has no transcript_path")
    if not Path(path).is_file():
        raise HookInputError(f"the hook's transcript_path {path} is not a file: nothing kept")
    last = event.get("last_assistant_message")
    turns = turns_of(Path(path), last if isinstance(last, str) else None)
    if turns:
        # A forked session (--fork-session, /branch) holds its parent's turns: inherited, not stored again.
        parent = forked_from(Path(path))
        sync_history(
            agentmemd,
            session_name(event["session_id"]),
            settings.namespace,
            list(turns),
            pending=False,
            forked_from=session_name(parent) if parent else None,
        )
