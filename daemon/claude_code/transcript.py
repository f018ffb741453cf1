"""A Claude Code session's transcript read back into the turns agentmemd keeps: what the person
typed, and what the assistant answered to it.

The transcript (``transcript_path`` in every hook's input) is JSON lines, appended as the session
goes. Lines of type ``user`` and ``assistant`` carry a ``message`` as the Messages API has it; an
assistant reply is one line per content block (sharing ``message.id``); tool results come back as
``user`` lines of ``tool_result`` blocks; many other line types are Claude Code's own bookkeeping.
Kept: each prompt the person typed (a ``user`` line with text), and all the assistant's text until
the next prompt as one turn (tool calls, tool results, thinking and side chains left out: they are
the work, not the conversation). Lines not understood are skipped, so a newer Claude Code that
adds kinds of line still reads.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentmemd.daemon.doors.history import fold_turns

# What Claude Code writes as a user line for its own slash commands, not the person's words.
COMMAND_MARKS = (
    "<command-name>",
    "<command-message>",
    "<local-command-stdout>",
    "<local-command-stderr>",
    "[Request interrupted by user",
)


def turns_of(path: Path, last_reply: str | None = None) -> list[tuple[str, str]]:
    """The session's turns, oldest first, as (role, text). ``last_reply``: the Stop hook's
    ``last_assistant_message``, which the file may not hold yet (it is written as the session goes)."""
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except FileNotFoundError:
        lines = []
    said = list(_said(lines))
    replied = []
    for role, text in reversed(said):  # the reply to the newest prompt, as written so far
        if role != "assistant":
            break
        replied.append(text)
    if last_reply and last_reply.strip() and not any(last_reply.strip() in part for part in replied):
        said.append(("assistant", last_reply))
    return fold_turns(said, reply_first=False)


def _said(lines: list[str]):
    """(role, text) of each prompt the person typed and each text block of the assistant."""
    for line in lines:
        entry = _entry(line)
        if entry is None:
            continue
        message = entry["message"]
        if entry["type"] == "user":
            said = _prompt(message.get("content"))
            if said is not None:  # else tool results: part of the assistant's turn
                yield "user", said
        else:
            for block in message.get("content") or []:
                if _is_text(block) and block["text"].strip():
                    yield "assistant", block["text"]


def _entry(line: str) -> dict[str, Any] | None:
    try:
        entry = json.loads(line)
    except ValueError:
        return None  # a line cut short while it was written
    if not isinstance(entry, dict) or entry.get("type") not in ("user", "assistant"):
        return None
    if entry.get("isSidechain") or entry.get("isMeta") or not isinstance(entry.get("message"), dict):
        return None
    return entry


def _is_text(block: Any) -> bool:
    return isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str)


def _prompt(content: Any) -> str | None:
    """What the person typed, or None for a line that is not a prompt (tool results, commands)."""
    if isinstance(content, str):
        text = content
    elif isinstance(content, list):
        if any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content):
            return None
        text = "\n".join(b["text"] for b in content if _is_text(b))
    else:
        return None
    text = text.strip()
    if not text or text.startswith(COMMAND_MARKS):
        return None
    return text
