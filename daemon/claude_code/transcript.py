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
from datetime import datetime
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
    # A compaction's summary, written as a user message for the model: nobody typed it.
    if entry.get("isCompactSummary") or entry.get("isVisibleInTranscriptOnly"):
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


# How much of another transcript is read to see whether it opens as this one does: a session's
# first prompt is within its first lines (Claude Code's bookkeeping and the prompt's attachments).
OPENING_BYTES = 64 * 1024


def forked_from(path: Path) -> str | None:
    """The session this transcript was forked from (`claude --resume S --fork-session`, `/branch`),
    else None. A fork is a copy of the parent's lines under a new session id, each line keeping its
    ``uuid``; nothing in it names the parent. So: the oldest other transcript of the project that
    holds this one's first prompt line (its uuid) near its start and began before this one did (its
    first line's time: the copied lines keep theirs, the fork's own first line is new); a
    transcript's file name is its session id."""
    try:
        with path.open("rb") as f:
            opening = f.read(OPENING_BYTES)
        siblings = [p for p in path.parent.glob("*.jsonl") if p.name != path.name]
    except OSError:
        return None
    first, began = _first_prompt_uuid(opening), _first_time(opening)
    if first is None or not began:
        return None
    needles = (f'"uuid":"{first}"'.encode(), f'"uuid": "{first}"'.encode())
    found: list[tuple[float, str]] = []
    for other in siblings:
        try:
            with other.open("rb") as f:
                theirs = f.read(OPENING_BYTES)
        except OSError:
            continue
        if any(n in theirs for n in needles) and 0 < (when := _first_time(theirs)) < began:
            found.append((when, other.stem))
    return min(found)[1] if found else None


def _first_prompt_uuid(opening: bytes) -> str | None:
    for line in opening.decode("utf-8", errors="replace").splitlines():
        entry = _entry(line)
        if entry is not None and entry["type"] == "user" and isinstance(entry.get("uuid"), str):
            if _prompt(entry["message"].get("content")) is not None:
                return entry["uuid"]
    return None


def _first_time(opening: bytes) -> float:
    """When a transcript began: its first timestamped line's time, as seconds (0.0: none)."""
    for line in opening.split(b"\n", 20)[:20]:
        try:
            stamp = json.loads(line).get("timestamp")
            return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
        except (ValueError, AttributeError, TypeError):
            continue
    return 0.0
