"""Goals: prospective memory (seed 004, 3.2: goals at three priority levels, used as retrieval
context), and a person's standing intents ("remind me to ask how the interview went on Friday").

A goal has a priority (high, medium, low), a status (open, done, dropped), an optional due time
and an optional trigger phrase, and gathers dated progress notes. An open goal is in a pack's
goals block when it is due within [goals] due_within_hours (or overdue), when the request says
every word of its trigger, or when it is similar enough to the request ([goals] relevance); due
and triggered first, then by priority, then by similarity. Goals are the user's own: a chat that
may not hear the user's memories does not hear them either.

    goals = Goals(GoalTables(store), embedder, clock, config.goals, may_hear)
    goals.add(GoalAddParams(text="Ask Laia how the interview went", due=friday, priority="high"))
    goals.block("default", "how was your week?", budget_tokens=100, listener=None)
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Mapping
from datetime import timedelta
from typing import Any

import numpy as np

from agentmemd.memory.core.clock import Clock, format_time, parse_time
from agentmemd.memory.core.config import GoalsConfig
from agentmemd.memory.core.disclosure import USER
from agentmemd.memory.core.errors import InvalidParams, NotFound
from agentmemd.memory.core.models import GoalAddParams, GoalDoneParams, GoalListParams, GoalUpdateParams
from agentmemd.memory.core.text import content_words
from agentmemd.memory.retrieval.embeddings import Embedder
from agentmemd.memory.retrieval.memories import said_the_same
from agentmemd.memory.retrieval.pack_fitting import BlockLine
from agentmemd.memory.safety.neutraliser import as_data
from agentmemd.memory.safety.secrets import asked_kinds, find_secrets, mask, mask_repeats, repeats_any, unmask
from agentmemd.memory.store.database import to_blob, vector_or_zeros
from agentmemd.memory.store.goal_tables import GoalTables
from agentmemd.persona.goals.goals_file import GOALS_FILE, GoalLine, read_goal_lines

PRIORITY_RANK = {"high": 0, "medium": 1, "low": 2}
AUDIENCE = "user"  # whose goals they are: heard where the user's own memories are
STANDING_SHOWN = 5  # goals a conversation's stable prefix holds at most
STANDING_HEADER = "# What you are working towards\n"


def _shown_text(text: str, asked_for: set[str], known: Mapping[str, str]) -> str:
    """A goal's text as a pack carries it: whole when every secret it holds is of a kind asked
    for, else with its secrets masked (the goal still says what is to be done)."""
    held = {s.kind for s in find_secrets(text, known)}
    return text if held <= asked_for else mask(text, values=known)


def new_goal_id() -> str:
    return "g" + uuid.uuid4().hex[:15]


class Goals:
    def __init__(
        self,
        tables: GoalTables,
        embedder: Embedder,
        clock: Clock,
        config: GoalsConfig,
        may_hear: Callable[[str | None, str], bool],
        known_secrets: Callable[[str], Mapping[str, str]] = lambda namespace: {},
    ):
        self.tables = tables
        # A namespace's secret values said before (memory/safety/known_secrets.py): a goal that
        # repeats one ("Change Tortuga$Lenta42 before Friday") holds it too.
        self.known_secrets = known_secrets
        self.embedder = embedder
        self.clock = clock
        self.config = config
        self.may_hear = may_hear
        self._open: dict[str, tuple[list[tuple[str, str]], list[dict[str, Any]], np.ndarray]] = {}
        self._lock = threading.Lock()  # packs read on several reader threads

    # ---- changes (on the store thread; the text's embedding made by the caller) -----------------

    def add(self, p: GoalAddParams, vector: np.ndarray) -> dict[str, Any]:
        now = self.clock.now()
        self._check_due(p.due, now)
        self._check_trigger(p.trigger)
        at = format_time(now)
        goal_id = new_goal_id()
        self.tables.insert(
            {
                "id": goal_id,
                "namespace": p.namespace,
                "text": " ".join(p.text.split()),
                "priority": p.priority,
                "status": "open",
                "due": format_time(p.due) if p.due else None,
                "trigger": " ".join(p.trigger.split()) if p.trigger else None,
                "created": at,
                "updated": at,
                "finished": None,
                "surfaced": None,
                "embedding": to_blob(vector),
                "source": None,  # added by a door: GOALS.md's daemon section lists it
            }
        )
        return self.get(goal_id, p.namespace)

    def update(self, p: GoalUpdateParams, vector: np.ndarray | None) -> dict[str, Any]:
        goal = self._goal(p.id, p.namespace)
        now = self.clock.now()
        at = format_time(now)
        fields: dict[str, Any] = {}
        if p.text is not None:
            fields["text"] = " ".join(p.text.split())
            fields["embedding"] = to_blob(vector) if vector is not None else goal["embedding"]
        if p.priority is not None:
            fields["priority"] = p.priority
        if p.due is not None:
            self._check_due(p.due, now)
            fields.update(due=format_time(p.due), surfaced=None)  # a new due time surfaces again
        if p.trigger is not None:
            self._check_trigger(p.trigger)
            fields["trigger"] = " ".join(p.trigger.split())
        if p.status is not None and p.status != goal["status"]:
            fields.update(status=p.status, finished=None if p.status == "open" else at)
        if not fields and p.note is None:
            raise InvalidParams("id", "nothing to change: give text, priority, due, trigger, status or note")
        source = goal.get("source") or ""
        if fields and source.startswith(GOALS_FILE):
            # The file is the goal: a change made here was undone by its next save (a note is kept).
            raise InvalidParams(
                "id",
                f"{p.id} is written in {source}: change it there (tick its box to finish it); a note can be added here",
            )
        if fields:
            self.tables.update(p.id, {**fields, "updated": at})
        if p.note is not None:
            self.tables.add_note(p.id, at, " ".join(p.note.split()), "api")
            if not fields:
                self.tables.update(p.id, {"updated": at})
        return self.get(p.id, p.namespace)

    def holding_secrets(self, namespace: str, values: Mapping[str, str]) -> list[dict[str, Any]]:
        """The namespace's goals (any status) whose text states one of these secret values (value ->
        kind): copies of a secret being forgotten."""
        if not values:
            return []
        return [
            g
            for g in self.tables.goals(namespace, ("open", "done", "dropped"), 10_000)
            if repeats_any(g["text"], values)
        ]

    def forget_secrets(self, namespace: str, values: Mapping[str, str]) -> list[str]:
        """Mask these secret values in the goals a door added that state them (a goal stays: what
        is to be done is the person's; the secret was forgotten), in the caller's transaction; the
        goals' ids. A goal written in GOALS.md is the person's line and is left (its file is named
        by the forget, as a workspace file's item is)."""
        changed = []
        at = format_time(self.clock.now())
        for goal in self.holding_secrets(namespace, values):
            if (goal.get("source") or "").startswith(GOALS_FILE):
                continue
            text = mask_repeats(goal["text"], values)
            self.tables.update(goal["id"], {"text": text, "updated": at})
            self.tables.add_note(goal["id"], at, "a secret it stated was forgotten: masked here", "forget")
            changed.append(goal["id"])
        return changed

    def done(self, p: GoalDoneParams) -> dict[str, Any]:
        """Finish a goal; one done already stays as it is (its note, if given, is added)."""
        if self._goal(p.id, p.namespace)["status"] == "done":
            if p.note is None:
                return self.get(p.id, p.namespace)
            return self.update(GoalUpdateParams(id=p.id, note=p.note, namespace=p.namespace), None)
        return self.update(GoalUpdateParams(id=p.id, status="done", note=p.note, namespace=p.namespace), None)

    def sync_file(
        self, namespace: str, lines: list[GoalLine], vectors: dict[str, np.ndarray], file: str = GOALS_FILE
    ) -> dict[str, int]:
        """Make the goals written in ``file`` match its task-list lines (in the caller's transaction).
        A line is the goal its id names (a line moved out of the daemon's section), else the file's
        goal with its text, else the one on its line, else one it rewords; otherwise a new goal. A
        file goal whose line is gone is dropped, with a note. ``vectors``: a line's text -> embedding."""
        at = format_time(self.clock.now())
        known = {g["id"]: g for g in self.tables.from_file(namespace, file)}
        secrets = self.known_secrets(namespace)
        counts = {"added": 0, "changed": 0, "dropped": 0}
        matched: dict[int, dict[str, Any]] = {}
        for line in lines:
            named = self.tables.get(line.id) if line.id else None
            if named is not None and named["namespace"] == namespace:
                matched[line.line] = named
        taken = {g["id"] for g in matched.values()}
        for how in (
            lambda g, ln: said_the_same(g["text"], unmask(ln.text, g["text"], secrets)),
            lambda g, ln: g["source"] == f"{file} L{ln.line}",
            lambda g, ln: _reworded(g["text"], ln.text),
        ):
            for line in (ln for ln in lines if ln.line not in matched):
                goal = next((g for g in known.values() if g["id"] not in taken and how(g, line)), None)
                if goal is not None:
                    matched[line.line] = goal
                    taken.add(goal["id"])
        for line in lines:
            goal = matched.get(line.line)
            # The daemon writes a goal's secret masked into the file (owned_sections.py): the line's
            # stand-ins are the goal's own secrets, not words the person wrote.
            text = unmask(line.text, goal["text"], secrets) if goal is not None else line.text
            fields = {
                "text": text,
                "priority": line.priority,
                "due": format_time(line.due) if line.due else None,
                "trigger": line.trigger,
                "status": "done" if line.done else "open",
                "source": f"{file} L{line.line}",
            }
            if goal is None:
                goal_id = new_goal_id()
                self.tables.insert(
                    {
                        "id": goal_id,
                        "namespace": namespace,
                        **fields,
                        "created": at,
                        "updated": at,
                        "finished": at if line.done else None,
                        "surfaced": None,
                        "embedding": to_blob(vectors[line.text]),
                    }
                )
                self.tables.add_note(goal_id, at, f"written in {file} (line {line.line})", "workspace")
                counts["added"] += 1
                continue
            changed = {k: v for k, v in fields.items() if goal[k] != v}
            if not changed:
                continue
            if "text" in changed:
                changed["embedding"] = to_blob(vectors[line.text])
            if "status" in changed:
                changed["finished"] = at if line.done else None
            if "due" in changed:
                changed["surfaced"] = None
            self.tables.update(goal["id"], {**changed, "updated": at})
            what = ", ".join(sorted(k for k in changed if k not in ("embedding", "finished", "surfaced", "source")))
            if what:
                self.tables.add_note(goal["id"], at, f"{what} changed in {file} (line {line.line})", "workspace")
                counts["changed"] += 1
        for goal in known.values():
            if goal["id"] not in taken and goal["status"] != "dropped":
                self.tables.update(goal["id"], {"status": "dropped", "finished": at, "updated": at})
                self.tables.add_note(goal["id"], at, f"its line was removed from {file}", "workspace")
                counts["dropped"] += 1
        return counts

    def note_progress(self, namespace: str, memory_ids: list[str]) -> int:
        """Progress notes from observations the Observer just stored (in its transaction): an
        observation that says every content word of an open goal's trigger, or is at least
        [goals] progress_similarity like the goal, is noted on it with its id. Only observations the
        goal's audience may hear. How many notes were added."""
        goals, vectors = self._open_goals(namespace)
        if not goals:
            return 0
        rows = [r for r in self.tables.store.rows_by_id(memory_ids) if self.may_hear(AUDIENCE, r["audience"])]
        if not rows:
            return 0
        dim = self.embedder.dim
        similarity = np.stack([vector_or_zeros(r["embedding"], dim) for r in rows]) @ vectors.T
        at, added = format_time(self.clock.now()), 0
        for i, row in enumerate(rows):
            said = set(content_words(row["content"]))
            for j, goal in enumerate(goals):
                if _triggered(goal, said) or similarity[i, j] >= self.config.progress_similarity:
                    self.tables.add_note(
                        goal["id"], at, f"{' '.join(row['content'].split())} ({row['id']})", "observer"
                    )
                    added += 1
        return added

    def written_by_doors(self, namespace: str, days: int = 7) -> list[dict[str, Any]]:
        """The goals GOALS.md's daemon section lists: added by a door, open or finished in ``days``."""
        since = format_time(self.clock.now() - timedelta(days=days))
        return [_without_embedding(g) for g in self.tables.by_door(namespace, since)]

    def surface_due(self) -> list[dict[str, Any]]:
        """Open goals whose due time has come, not surfaced before: each is marked (with a note) so
        the dashboard and goal.list say it fell due; packs hold it anyway while it is open."""
        now = format_time(self.clock.now())
        fallen = self.tables.fallen_due(now)
        for goal in fallen:
            self.tables.update(goal["id"], {"surfaced": now})
            self.tables.add_note(goal["id"], now, f"fell due ({goal['due'][:16].replace('T', ' ')} UTC)", "scheduler")
        return [{"id": g["id"], "namespace": g["namespace"], "text": g["text"]} for g in fallen]

    @staticmethod
    def _check_trigger(trigger: str | None) -> None:
        """A trigger of no content word ("to be") would be said by every request."""
        if trigger is not None and not content_words(trigger):
            raise InvalidParams("trigger", f"{trigger!r} has no word a request could be matched on (only common words)")

    def _check_due(self, due, now) -> None:
        if due is not None and due <= now:
            raise InvalidParams("due", f"{format_time(due)} is not in the future (now is {format_time(now)})")

    # ---- reads -------------------------------------------------------------------------------------

    def get(self, goal_id: str, namespace: str) -> dict[str, Any]:
        return self._view(self._goal(goal_id, namespace))

    def list(self, p: GoalListParams) -> dict[str, Any]:
        statuses = ("open", "done", "dropped") if p.status == "all" else (p.status,)
        goals = self.tables.goals(p.namespace, statuses, p.limit)
        notes = self.tables.notes([g["id"] for g in goals])
        return {"goals": [self._view(g, notes[g["id"]]) for g in goals]}

    def _goal(self, goal_id: str, namespace: str) -> dict[str, Any]:
        goal = self.tables.get(goal_id)
        if goal is None or goal["namespace"] != namespace:
            raise NotFound(f"no goal with id {goal_id!r} in namespace {namespace!r}", {"id": goal_id})
        return goal

    def _view(self, goal: dict[str, Any], notes: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        if notes is None:
            notes = self.tables.notes([goal["id"]])[goal["id"]]
        return {**_without_embedding(goal), "notes": notes}

    # ---- a pack's block ----------------------------------------------------------------------------

    def block(
        self,
        namespace: str,
        query: str,
        budget_tokens: int,
        listener: str | None,
        withheld: frozenset[int] = frozenset(),
    ) -> list[BlockLine]:
        """The open goals due or relevant now, as block lines within ``budget_tokens`` (a goal is no
        memory: ``withheld``, the memories a pack may not carry, names none of them)."""
        if not self.may_hear(listener, AUDIENCE):
            return []
        goals, vectors = self._open_goals(namespace)
        if not goals:
            return []
        soon = self._due_by()
        asked = set(content_words(query))
        similarity = vectors @ np.asarray(self.embedder.embed_query(query), dtype=np.float32)
        chosen = []
        for goal, sim in zip(goals, similarity.tolist()):
            due = _due(goal, soon)
            triggered = _triggered(goal, asked)
            if due or triggered or sim >= self.config.relevance:
                chosen.append((not (due or triggered), PRIORITY_RANK[goal["priority"]], -sim, goal["id"], goal))
        if not chosen:  # most packs: no goal, and nothing below to read
            return []
        # A goal's secret is masked as a memory's would be withheld: shown only when the question
        # asks for that kind of secret and its owner asks (the user's own conversation or none).
        asked_for = asked_kinds(query) if listener in (None, USER) else set()
        known = self.known_secrets(namespace)
        out, used = [], 0
        for *_, goal in sorted(chosen):
            due = f" | due {_shown(goal['due'])}" if goal["due"] else ""
            label = f"goal | {goal['priority']}{due} | id={goal['id']}"
            line = BlockLine(goal["id"], label, None, _shown_text(goal["text"], asked_for, known))
            if used + line.tokens <= budget_tokens:
                out.append(line)
                used += line.tokens
        return out

    def standing(self, namespace: str, listener: str | None) -> tuple[str, list[str]]:
        """The goals a conversation's stable prefix holds, and their ids: the open high-priority
        ones and any due within [goals] due_within_hours (or overdue), due first, at most
        ``STANDING_SHOWN``. It changes when one is added, finished or falls due, not per request."""
        if not self.may_hear(listener, AUDIENCE):
            return "", []
        goals, _ = self._open_goals(namespace)
        soon = self._due_by()
        due = [g for g in goals if _due(g, soon)]
        high = [g for g in goals if g["priority"] == "high" and g not in due]
        shown = (sorted(due, key=lambda g: g["due"]) + high)[:STANDING_SHOWN]
        if not shown:
            return "", []
        known = self.known_secrets(namespace)  # the prefix answers no question: its secrets are masked
        lines = [
            f"- {as_data(mask(g['text'], values=known)).text} ({g['priority']}"
            + (f", due {_shown(g['due'])}" if g["due"] else "")
            + f"; id {g['id']})"
            for g in shown
        ]
        return STANDING_HEADER + "\n".join(lines), [g["id"] for g in shown]

    def _due_by(self) -> str:
        """A goal due before this (stored time) is due now: [goals] due_within_hours from now."""
        return format_time(self.clock.now() + timedelta(hours=self.config.due_within_hours))

    def _open_goals(self, namespace: str) -> tuple[list[dict[str, Any]], np.ndarray]:
        """The namespace's open goals and their vectors, read again only when one changed."""
        marks = self.tables.open_ids(namespace)
        with self._lock:
            known = self._open.get(namespace)
        if known is not None and known[0] == marks:
            return known[1], known[2]
        goals = self.tables.goals(namespace, ("open",), 10_000)
        dim = self.embedder.dim
        vectors = (
            np.stack([vector_or_zeros(g["embedding"], dim) for g in goals]) if goals else np.zeros((0, dim), np.float32)
        )
        goals = [_without_embedding(g) for g in goals]
        with self._lock:
            self._open[namespace] = (marks, goals, vectors)
        return goals, vectors


def _due(goal: dict[str, Any], by: str) -> bool:
    return goal["due"] is not None and goal["due"] <= by


def _triggered(goal: dict[str, Any], words: set[str]) -> bool:
    """Every content word of the goal's trigger phrase is among ``words`` (none: never)."""
    trigger = set(content_words(goal["trigger"] or ""))
    return bool(trigger) and trigger <= words


def _without_embedding(goal: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in goal.items() if k != "embedding"}


REWORDED = 0.5  # shared content words over all of both: "the Basque cookbook" -> "... or the Catalan one"


def _reworded(a: str, b: str) -> bool:
    old, new = set(content_words(a)), set(content_words(b))
    return bool(old and new) and len(old & new) / len(old | new) >= REWORDED


def _shown(stored: str) -> str:
    """A stored time as a person reads it in a pack: "2026-11-28 09:00 UTC"."""
    return parse_time(stored).strftime("%Y-%m-%d %H:%M UTC")


class GoalsFile:
    """GOALS.md as the workspace indexer's owned file (memory/workspace/owned_files.py): its task-list
    items are these goals, none of them a memory."""

    path = GOALS_FILE
    report_key = "goals"  # the sync report's goals added, changed and dropped

    def __init__(self, goals: Goals):
        self.goals = goals

    def read(self, items: list[Any], text: str) -> tuple[tuple[list[GoalLine], dict[str, np.ndarray]], list[str]]:
        """The file's goal lines and their embeddings (off the store thread), and the lines left out."""
        lines, problems = read_goal_lines(items, text)
        texts = sorted({line.text for line in lines})
        vectors = dict(zip(texts, self.goals.embedder.embed(texts))) if texts else {}
        return (lines, vectors), [f"line {p.line}: {p.reason}, left out" for p in problems]

    def write(self, namespace: str, prepared: tuple[list[GoalLine], dict[str, np.ndarray]] | None) -> dict[str, int]:
        lines, vectors = prepared if prepared is not None else ([], {})  # a file gone: its goals are dropped
        return self.goals.sync_file(namespace, lines, vectors)
