"""GoalService: goal.add, goal.update, goal.done, goal.get and goal.list (persona/goals/goals.py). A goal's
text is embedded beside the store thread; the change is one transaction on it."""

from __future__ import annotations

from typing import Any

from agentmemd.memory.core.models import GoalAddParams, GoalDoneParams, GoalGetParams, GoalListParams, GoalUpdateParams
from agentmemd.memory.core.threads import RunOnStore
from agentmemd.memory.store.database import Store
from agentmemd.persona.goals.goals import Goals


class GoalService:
    def __init__(self, goals: Goals, store: Store, run_on_store: RunOnStore):
        self.goals = goals
        self.store = store
        self.run_on_store = run_on_store

    def _in_transaction(self, change):
        def run():
            with self.store.transaction():
                return change()

        return self.run_on_store(run)

    def add(self, p: GoalAddParams) -> dict[str, Any]:
        vector = self.goals.embedder.embed([p.text])[0]
        return self._in_transaction(lambda: self.goals.add(p, vector))

    def update(self, p: GoalUpdateParams) -> dict[str, Any]:
        vector = self.goals.embedder.embed([p.text])[0] if p.text is not None else None
        return self._in_transaction(lambda: self.goals.update(p, vector))

    def done(self, p: GoalDoneParams) -> dict[str, Any]:
        return self._in_transaction(lambda: self.goals.done(p))

    def get(self, p: GoalGetParams) -> dict[str, Any]:
        return self.goals.get(p.id, p.namespace)

    def list(self, p: GoalListParams) -> dict[str, Any]:
        return self.goals.list(p)
