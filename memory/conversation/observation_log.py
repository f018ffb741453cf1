"""The observation log as a model reads it (seed 002, 5.4; Mastra's format): one 'Date:' header a
day, one line an observation, its words as data and any secret in it masked. The context's stable
prefix and the workspace's daily log both render it from here."""

from __future__ import annotations

from typing import Any

from agentmemd.memory.core.tokens import count_tokens
from agentmemd.memory.language.dates import human_date
from agentmemd.memory.safety.neutraliser import as_data
from agentmemd.memory.safety.secrets import mask

OBSERVATIONS_HEADER = "# What you have observed in this conversation\n"
_PRIORITY_ORDER = {"HIGH": 0, "MED": 1, "LOW": 2}


def observation_line(row: dict[str, Any], when: str | None = None) -> str:
    """One line of the observation log; the observation's words as data (they are the user's), any
    secret in them masked (a context's prefix and the daily log are read whatever is asked).
    ``when``: the time shown (default: the time of day it was said, under the log's day header)."""
    when = when or row["date"][11:16]
    line = f"- ({row['priority']}) {when} [{row['category']}] {as_data(mask(row['content'])).text}"
    if row.get("referenced_date"):
        said = f', "{as_data(row["relative_date"]).text}"' if row.get("relative_date") else ""
        line += f" (refers to {human_date(row['referenced_date'])}{said})"
    return line


def render_observations(rows: list[dict[str, Any]]) -> str:
    """Mastra-style log: one 'Date:' header per day, then one line per observation, in time order."""
    out: list[str] = []
    day = None
    for row in sorted(rows, key=lambda r: (r["date"], r["seq"])):
        if row["date"][:10] != day:
            day = row["date"][:10]
            out.append(f"Date: {day}")
        out.append(observation_line(row))
    return "\n".join(out)


def fit_observations(rows: list[dict[str, Any]], budget: int, fixed: str) -> tuple[str, list[dict[str, Any]]]:
    """The prefix text with as many observations as fit: HIGH before MED before LOW, newer first
    within a priority; shown in time order. Deterministic for the same rows and budget.
    Returns the text and the observations in it."""
    newest_first = sorted(rows, key=lambda r: (r["date"], r["seq"]), reverse=True)
    ranked = sorted(newest_first, key=lambda r: _PRIORITY_ORDER[r["priority"]])  # stable: newest first per priority
    chosen: list[dict[str, Any]] = []
    used = count_tokens(fixed + OBSERVATIONS_HEADER)
    for row in ranked:
        cost = count_tokens(observation_line(row)) + 1
        if used + cost > budget:
            continue
        chosen.append(row)
        used += cost
    text = fixed
    if chosen:
        text += OBSERVATIONS_HEADER + render_observations(chosen) + "\n"
    # Line-by-line counts can differ from the whole by a token here and there: trim to be exact.
    while chosen and count_tokens(text) > budget:
        chosen.pop()
        text = fixed + (OBSERVATIONS_HEADER + render_observations(chosen) + "\n" if chosen else "")
    return text, chosen
