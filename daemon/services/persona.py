"""PersonaService: the PersonaState as a person reads it, SyncScores, and hard-rule decisions."""

from __future__ import annotations

from typing import Any

from agentmemd.daemon.services.sessions import by_name
from agentmemd.memory.conversation.compaction import CompactionWorker
from agentmemd.memory.conversation.conversations import Conversations
from agentmemd.memory.core.models import (
    PersonaGetParams,
    PersonaHistoryParams,
    PersonaScoreParams,
    PersonaScoresParams,
    RuleDecisionParams,
    RuleProposeParams,
    RulesListParams,
)
from agentmemd.memory.core.threads import RunOnStore, result_within
from agentmemd.persona.identity.traits import adjective, percent
from agentmemd.persona.tracking.tracker import PersonaTracker

SCORE_WAIT_SECONDS = 120  # persona.score waits this long for the judge; the score is stored anyway


class PersonaService:
    def __init__(
        self,
        tracker: PersonaTracker,
        conversations: Conversations,
        worker: CompactionWorker,
        run_on_store: RunOnStore,
    ):
        self.tracker = tracker
        self.conversations = conversations
        self.worker = worker
        self.run_on_store = run_on_store

    def get(self, p: PersonaGetParams) -> dict[str, Any]:
        """The PersonaState with its traits as 0-100 scores and adjectives, and pending rule proposals."""
        state = self.tracker.state(p.namespace)
        traits = [
            {
                "name": sc.name,
                "low": sc.low,
                "high": sc.high,
                "builtin": sc.builtin,
                "score": percent(state.traits.get(sc.name, 0.5)),
                "adjective": adjective(sc, state.traits.get(sc.name, 0.5)),
            }
            for sc in state.scales
        ]
        return {
            **state.model_dump(),
            "readable_traits": traits,
            "pending_rules": self.tracker.proposals(p.namespace, "pending"),
        }

    def history(self, p: PersonaHistoryParams) -> dict[str, Any]:
        return {"versions": self.tracker.history(p.namespace, p.limit)}

    def records(self, p: PersonaHistoryParams) -> dict[str, Any]:
        return {"records": self.tracker.records(p.namespace, p.limit)}

    @by_name
    def score(self, p: PersonaScoreParams) -> dict[str, Any]:
        """SyncScore one response on the background judge and wait for it (runs off the store thread)."""
        namespace = self.run_on_store(lambda: self._namespace_of(p))
        future = self.worker.score(
            namespace=namespace, session=p.session, response=p.response, context=p.context, pack_id=p.pack_id
        )
        return result_within(
            future,
            SCORE_WAIT_SECONDS,
            f"the SyncScore judge did not answer within {SCORE_WAIT_SECONDS}s; the score is stored when it does",
        )

    def _namespace_of(self, p: PersonaScoreParams) -> str:
        """The caller's namespace (default "default"); a session, when named, must be one of its own
        or not started yet."""
        namespace = p.namespace or "default"
        if p.session is not None and self.conversations.namespace_of(p.session) is not None:
            self.conversations.require(p.session, namespace)  # another namespace's session is not found
        return namespace

    @by_name
    def scores(self, p: PersonaScoresParams) -> dict[str, Any]:
        if p.session is not None:
            self.conversations.require(p.session, p.namespace or "default")
        # Neither a session nor a namespace: every conversation of the default namespace, as the CLI says.
        namespace = p.namespace or (None if p.session is not None else "default")
        scores = self.tracker.scores(session=p.session, namespace=namespace, limit=p.limit)
        cfg = self.tracker.cfg
        return {
            "scores": scores,
            # Where a context build carried out a drift action, and the EWMA thresholds that call for them.
            "applied": self.tracker.tables.applied_actions(p.namespace or "default", p.session),
            "thresholds": {"reinforce": cfg.reinforce_below, "anchor": cfg.anchor_below, "rebase": cfg.rebase_below},
        }

    def propose_rule(self, p: RuleProposeParams) -> dict[str, Any]:
        return self.tracker.propose_rule(p.namespace, p.action, p.rule, "api")

    def confirm_rule(self, p: RuleDecisionParams) -> dict[str, Any]:
        return self.tracker.decide_rule(p.id, p.namespace, confirm=True)

    def reject_rule(self, p: RuleDecisionParams) -> dict[str, Any]:
        return self.tracker.decide_rule(p.id, p.namespace, confirm=False)

    def rules(self, p: RulesListParams) -> dict[str, Any]:
        return {
            "proposals": self.tracker.proposals(p.namespace, None if p.status == "all" else p.status),
            "hard_rules": [r.model_dump() for r in self.tracker.state(p.namespace).hard_rules],
        }
