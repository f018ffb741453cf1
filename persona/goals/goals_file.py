"""GOALS.md: goals written and finished by hand, two-way (like MEMORY.md).

A person writes a goal as a task-list item; what follows in a last parenthesis, if every part of
it is one of these, sets it (the rest is the goal's text)::

    - [ ] Ask Laia how the interview went (high; due 2026-11-27 18:00)
    - [ ] Suggest the Basque cookbook (when "birthday present")
    - [x] Renew the passport

``high`` / ``medium`` / ``low`` is the priority (medium when none), ``due YYYY-MM-DD[ HH:MM]`` the
due time in UTC (09:00 when no time is given), ``when "phrase"`` the trigger phrase. A ticked box
is a finished goal; unticking opens it again; a line removed drops its goal (kept, with a note).

The daemon's own section (between its markers) lists the goals added over the socket, the CLI,
MCP or the dashboard, each with its id. Ticking or editing one there makes it the person's: the
owned-section write-back moves the edited line above the section, where its id ties it to the
goal it was, so it is that goal from then on, not a new one.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from agentmemd.memory.core.models import DUE_HOUR

GOALS_FILE = "GOALS.md"
_CHECKBOX = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+\[([ xX])\]\s")
_GOAL_ID = re.compile(r"\s*`(g[0-9a-f]{15})`\s*")
_OPTIONS = re.compile(r"\s*\(([^()]*)\)\s*$")
_DUE = re.compile(r"^due\s+(\d{4}-\d{2}-\d{2})(?:[ T](\d{1,2}:\d{2}))?(?:\s*UTC)?$", re.IGNORECASE)
_WHEN = re.compile(r'^when\s+"([^"]+)"$', re.IGNORECASE)
PRIORITIES = ("high", "medium", "low")


@dataclass(frozen=True)
class GoalLine:
    line: int
    text: str
    done: bool
    priority: str
    due: datetime | None
    trigger: str | None
    id: str | None  # the goal a moved-out line of the daemon's section was


@dataclass(frozen=True)
class LineProblem:
    line: int
    reason: str


def read_goal_lines(items: list[Any], text: str) -> tuple[list[GoalLine], list[LineProblem]]:
    """The task-list items of GOALS.md (``items``: the workspace parser's, owned section and comments
    already left out; ``text``: the file, for the checkbox the parser drops). Items without a checkbox
    are notes, not goals."""
    lines = text.splitlines()
    goals, problems = [], []
    for item in items:
        box = _CHECKBOX.match(lines[item.line_start - 1]) if item.line_start <= len(lines) else None
        if box is None:
            continue
        try:
            goals.append(_goal_line(item.line_start, " ".join(item.content.split()), box.group(1) != " "))
        except ValueError as exc:
            problems.append(LineProblem(item.line_start, str(exc)))
    return goals, problems


def _goal_line(line: int, content: str, done: bool) -> GoalLine:
    found = _GOAL_ID.search(content)
    goal_id = found.group(1) if found else None
    content = _GOAL_ID.sub(" ", content).strip()
    priority, due, trigger = "medium", None, None
    options = _OPTIONS.search(content)
    parts = [p.strip() for p in options.group(1).split(";")] if options else []
    if parts and all(_is_option(p) for p in parts):
        content = content[: options.start()].strip()
        for part in parts:
            if part.lower() in PRIORITIES:
                priority = part.lower()
            elif (when := _WHEN.match(part)) is not None:
                trigger = when.group(1).strip()
            else:
                due = _due(part)
    if not content:
        raise ValueError("a goal with no text")
    return GoalLine(line, content, done, priority, due, trigger, goal_id)


def _is_option(part: str) -> bool:
    return part.lower() in PRIORITIES or bool(_DUE.match(part)) or bool(_WHEN.match(part))


def _due(part: str) -> datetime:
    day, clock = _DUE.match(part).groups()
    try:
        return datetime.fromisoformat(f"{day}T{clock or DUE_HOUR}:00").replace(tzinfo=timezone.utc)
    except ValueError:
        raise ValueError(f"{part!r} is not a real date and time") from None


def taken_over(section_now: str | None, last_written: str | None) -> set[str]:
    """The ids of the goals a person ticked or edited inside the daemon's section since it last wrote
    it: the write about to be made moves those lines out as theirs, so the section must not list
    those goals again (they are the file's now)."""
    if section_now is None or last_written is None:
        return set()
    ours = set(last_written.split("\n"))
    return {found.group(1) for line in section_now.split("\n") if line not in ours for found in _GOAL_ID.finditer(line)}


def render_section(goals: list[dict[str, Any]], one_line: Callable[[str], str]) -> str:
    """The daemon's section of GOALS.md: the goals added by a door, open ones first; ``one_line``
    makes a goal's text one line that cannot close the section (owned_sections.neutralise)."""
    if not goals:
        return "## agentmemd\n\nNo goals added by your agent."
    lines = [
        "## agentmemd",
        "",
        "Goals your agent added. Tick one to finish it, or edit it: the line then becomes yours.",
        "",
    ]
    for g in sorted(goals, key=lambda g: (g["status"] != "open", g["created"])):
        options = [g["priority"]]
        if g["due"]:
            options.append(f"due {g['due'][:16].replace('T', ' ')}")
        if g["trigger"]:
            options.append(f'when "{g["trigger"]}"')
        if g["status"] == "dropped":  # no box: a ticked one reads as done (and, moved out, would finish it)
            lines.append(f"- ~~{one_line(g['text'])}~~ (dropped) `{g['id']}`")
            continue
        box = " " if g["status"] == "open" else "x"
        lines.append(f"- [{box}] {one_line(g['text'])} ({'; '.join(options)}) `{g['id']}`")
    return "\n".join(lines)
