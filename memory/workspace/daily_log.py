"""What the daemon writes into the day's log, ``memory/YYYY-MM-DD.md``.

The owned section lists the memories the daemon learned that day (stored through the
socket, not read from the workspace, not made by consolidation), each with its id so a
person can correct it (``agentmemd memory update ID TEXT``) or drop it (``agentmemd memory archive
ID``), and the day's job runs that changed something. Days are calendar days in the
jobs' time zone.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta, tzinfo
from typing import Any, Callable

from agentmemd.memory.conversation.observation_log import observation_line
from agentmemd.memory.core.clock import format_time, parse_time
from agentmemd.memory.core.disclosure import USER
from agentmemd.memory.core.text import clip
from agentmemd.memory.store.conversation_tables import ConversationTables
from agentmemd.memory.store.database import Store
from agentmemd.memory.workspace.owned_sections import neutralise

LINE_CHARS = 300


def log_path(day: date) -> str:
    return f"memory/{day.isoformat()}.md"


def day_bounds(day: date, zone: tzinfo) -> tuple[datetime, datetime]:
    start = datetime.combine(day, time(0), tzinfo=zone)
    return start, datetime.combine(day + timedelta(days=1), time(0), tzinfo=zone)


def heard_in_the_log(store: Store, namespace: str, may_hear: Callable[[str | None, str], bool]) -> list[str]:
    """The audiences whose words the daily log may hold: those the user's own conversations hear
    (the log is the user's own file). A private chat's words stay out unless ``[channels]
    private_reaches_user`` lets them reach the user; a line a person keeps is theirs, heard by no chat."""
    return [a for a in store.audiences_of(namespace) if may_hear(USER, a)]


def learned(
    store: Store, namespace: str, start: datetime, end: datetime, limit: int, audiences: list[str]
) -> tuple[list[dict[str, Any]], int]:
    """(first ``limit`` memories heard by ``audiences`` learned in [start, end), how many in all)."""
    return store.learned_between(namespace, format_time(start), format_time(end), limit, audiences)


def observed(
    store: Store, namespace: str, start: datetime, end: datetime, limit: int, audiences: list[str]
) -> tuple[list[dict[str, Any]], int]:
    """(first ``limit`` live observations heard by ``audiences`` that the Observer/Reflector made in
    [start, end), how many in all)."""
    return ConversationTables(store).observed_between(namespace, format_time(start), format_time(end), limit, audiences)


def _summary(result: dict[str, Any] | None) -> str:
    if not result:
        return "done"
    return ", ".join(f"{k} {v}" for k, v in result.items() if isinstance(v, (int, float, str)))


def syncscore_line(summary: dict[str, Any]) -> str:
    acted = ", ".join(f"{n} {a}" for a, n in sorted(summary["actions"].items())) or "no drift actions"
    return (
        f"- SyncScore: {summary['scored']} replies scored in {summary['sessions']} session(s), "
        f"mean {summary['mean']:.2f}, lowest {summary['min']:.2f}; EWMA at the last score "
        f"{summary['last_ewma']:.2f} ({summary['last_trend']}); {acted}"
    )


def render(
    zone: tzinfo,
    memories: list[dict[str, Any]],
    total: int,
    runs: list[dict[str, Any]],
    observations: list[dict[str, Any]] = (),
    observations_total: int = 0,
    syncscore: dict[str, Any] | None = None,
    day: date | None = None,
) -> str | None:
    """The section's body, or None when there is nothing to say for the day (``day``: an
    observation said on another shows its date, in ``zone``)."""
    shown_runs = [
        r
        for r in runs
        if r["name"] != "daily_log"
        and (r["status"] != "ok" or any(isinstance(v, (int, float)) and v for v in (r["result"] or {}).values()))
    ]
    if not memories and not shown_runs and not observations and not syncscore:
        return None
    out = [
        "## agentmemd",
        "",
        "<!-- Written by agentmemd: what it learned today. Lines you edit here are moved above this "
        "section on the next write; to correct a memory run `agentmemd memory update ID TEXT`, to drop it "
        "`agentmemd memory archive ID`. -->",
    ]
    if memories:
        out += ["", f"### Learned ({total})", ""]
        for m in memories:
            at = parse_time(m["ingested"]).astimezone(zone)
            out.append(f"- {at:%H:%M} {m['type']}: {clip(neutralise(m['content']), LINE_CHARS)} `{m['id']}`")
        if total > len(memories):
            out.append(f"- … and {total - len(memories)} more (`agentmemd search`)")
    if observations:
        out += ["", f"### Observations ({observations_total})", ""]
        for o in observations:
            # Observed today, said maybe days before: the day it was said, where it is another.
            said = parse_time(o["date"]).astimezone(zone)
            when = f"{said:%H:%M}" if day is None or said.date() == day else f"{said:%Y-%m-%d %H:%M}"
            line = observation_line({**o, "content": clip(neutralise(o["content"]), LINE_CHARS)}, when)
            out.append(f"{line} `{o['memory_id']}`")
        if observations_total > len(observations):
            out.append(f"- … and {observations_total - len(observations)} more (`agentmemd conversation observations`)")
    if syncscore:
        out += ["", "### Persona", "", syncscore_line(syncscore)]
    if shown_runs:
        out += ["", "### Jobs", ""]
        for r in shown_runs:
            at = parse_time(r["started"]).astimezone(zone)
            what = _summary(r["result"]) if r["status"] == "ok" else f"{r['status']}: {neutralise(r['error'] or '')}"
            out.append(f"- {at:%H:%M} {r['name']} ({r['trigger']}): {what}")
    return "\n".join(out)
