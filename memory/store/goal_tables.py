"""The goals and goal_notes tables (m030): goals with their priority, status, due time or trigger
phrase, and the dated progress notes each has gathered.

    tables = GoalTables(store)
    tables.insert({...}); tables.open_goals("default"); tables.add_note(goal_id, at, "booked", "api")
"""

from __future__ import annotations

from typing import Any

from agentmemd.memory.store.database import Store


class GoalTables:
    def __init__(self, store: Store):
        self.store = store

    def insert(self, row: dict[str, Any]) -> None:
        self.store.db["goals"].insert(row)

    def get(self, goal_id: str) -> dict[str, Any] | None:
        rows = self.store._rows("SELECT * FROM goals WHERE id = ?", (goal_id,))
        return rows[0] if rows else None

    def update(self, goal_id: str, fields: dict[str, Any]) -> None:
        columns = ", ".join(f"{name} = ?" for name in fields)
        self.store.conn.execute(f"UPDATE goals SET {columns} WHERE id = ?", (*fields.values(), goal_id))

    def goals(self, namespace: str, statuses: tuple[str, ...], limit: int) -> list[dict[str, Any]]:
        """Goals of those statuses, the soonest due first, then the newest."""
        marks = ", ".join("?" for _ in statuses)
        return self.store._rows(
            f"SELECT * FROM goals WHERE namespace = ? AND status IN ({marks}) "
            "ORDER BY due IS NULL, due, created DESC LIMIT ?",
            (namespace, *statuses, limit),
        )

    def from_file(self, namespace: str, file: str) -> list[dict[str, Any]]:
        """Every goal written in ``file`` (any status), by its line."""
        return self.store._rows(
            "SELECT * FROM goals WHERE namespace = ? AND (source = ? OR source LIKE ?) ORDER BY source",
            (namespace, file, f"{file} L%"),
        )

    def by_door(self, namespace: str, finished_since: str) -> list[dict[str, Any]]:
        """Goals added over a door (no file), open or finished since ``finished_since``."""
        return self.store._rows(
            "SELECT * FROM goals WHERE namespace = ? AND source IS NULL "
            "AND (status = 'open' OR finished >= ?) ORDER BY created",
            (namespace, finished_since),
        )

    def open_ids(self, namespace: str) -> list[tuple[str, str, bool]]:
        """(id, updated, has a vector) of the namespace's open goals: what a pack's cached view checks
        (a goal's vector is made again after a change of model)."""
        rows = self.store.conn.execute(
            "SELECT id, updated, length(embedding) > 0 FROM goals WHERE namespace = ? AND status = 'open' ORDER BY id",
            (namespace,),
        ).fetchall()
        return [(r[0], r[1], bool(r[2])) for r in rows]

    def fallen_due(self, now: str) -> list[dict[str, Any]]:
        """Open goals whose due time has come and that were not surfaced yet, every namespace."""
        return self.store._rows(
            "SELECT * FROM goals WHERE status = 'open' AND due IS NOT NULL AND due <= ? AND surfaced IS NULL "
            "ORDER BY due",
            (now,),
        )

    def add_note(self, goal_id: str, at: str, text: str, origin: str) -> None:
        self.store.db["goal_notes"].insert({"goal": goal_id, "at": at, "text": text, "origin": origin})

    def notes(self, goal_ids: list[str]) -> dict[str, list[dict[str, Any]]]:
        """goal id -> its notes, oldest first."""
        if not goal_ids:
            return {}
        marks = ", ".join("?" for _ in goal_ids)
        out: dict[str, list[dict[str, Any]]] = {g: [] for g in goal_ids}
        for row in self.store._rows(
            f"SELECT goal, at, text, origin FROM goal_notes WHERE goal IN ({marks}) ORDER BY id", tuple(goal_ids)
        ):
            out[row.pop("goal")].append(row)
        return out
