"""The socket's method table: name -> params model + handler on MemoryService."""

from __future__ import annotations

from agentmemd.cron.scheduler import JobRunner
from agentmemd.daemon import __version__
from agentmemd.daemon.socket.rpc import Method
from agentmemd.memory.consolidation.consolidator import Consolidator
from agentmemd.memory.conversation.compaction import CompactionWorker
from agentmemd.memory.conversation.context import build_context
from agentmemd.memory.conversation.conversations import Conversations
from agentmemd.memory.core import models as m
from agentmemd.memory.core.clock import ManualClock, format_time
from agentmemd.memory.core.errors import Conflict
from agentmemd.memory.llm.cache import ResponseCache
from agentmemd.memory.llm.ledger import Ledger
from agentmemd.memory.retrieval.memories import MemoryService
from agentmemd.memory.services.persona import PersonaService
from agentmemd.memory.workspace.indexer import WorkspaceIndexer
from agentmemd.persona.identity.traits import adjective, percent


def build_methods(service: MemoryService, indexer: WorkspaceIndexer | None, jobs: JobRunner,
                  conversations: Conversations, worker: CompactionWorker, cache: ResponseCache,
                  run_on_store, persona: PersonaService) -> dict[str, Method]:
    consolidator = Consolidator(service, service.config.consolidation)
    persona_cfg = service.config.persona
    ledger = Ledger(service.store, service.clock, service.config.llm)

    def costs(_: m.EmptyParams) -> dict:
        rows = ledger.totals()
        cached = cache.totals()
        return {"provider": service.config.llm.provider, "by_task": rows,
                "calls": sum(r["calls"] for r in rows), "cost_usd": round(sum(r["cost_usd"] for r in rows), 6),
                "cache": {"by_task": cached,
                          **{k: sum(r[k] for r in cached) for k in ("hits_exact", "hits_semantic", "misses",
                                                                    "bypassed", "tokens_saved")}}}

    def conversation_append(p: m.AppendParams) -> dict:
        counts = conversations.append(p.session, p.role, p.content, ts=p.ts, namespace=p.namespace,
                                      speaker=p.speaker)
        scoring = p.role == "assistant" and persona_cfg.score_assistant_turns
        if scoring:  # SyncScore in the background, queued before any compaction this turn triggers
            worker.score(namespace=p.namespace, session=p.session, turn_seq=counts["seq"], response=p.content)
        scheduled = conversations.due(p.session)
        if scheduled:
            worker.request(p.session)  # the Observer/Reflector run in the background
        return {**counts, "compaction_scheduled": scheduled, "scoring_scheduled": scoring}

    def conversation_context(p: m.ContextParams) -> dict:
        budget = p.budget_tokens or service.config.conversation.context_budget_tokens

        def due() -> tuple[str, dict | None]:
            conversations.require(p.session)
            return persona.due_action(p.session)

        action, latest = run_on_store(due)
        if action == "rebase":  # 5.3 severe drift: compaction with persona preservation, then a fresh context
            try:
                worker.run_now(p.session, force=True).result(timeout=300)
            except TimeoutError:
                raise Conflict(f"the rebase compaction of {p.session!r} is still running after 300s") from None

        def build() -> dict:
            namespace = conversations.require(p.session)
            ctx = build_context(service, conversations, p.session, budget, persona_state=persona.state(namespace),
                                drift=action, anchor_min_turns=persona_cfg.anchor_min_turns,
                                anchors_as=p.anchors_as)
            persona.record_context(p.session, conversations.last_seq(p.session), ctx["pack_id"],
                                   ctx["drift_action"], latest["id"] if latest else None)
            ctx["drift"] = {"due": action, "applied": ctx["drift_action"],
                            "ewma": latest["ewma"] if latest else None, "trend": latest["trend"] if latest else None,
                            "score_id": latest["id"] if latest else None}
            return ctx

        return run_on_store(build)

    def persona_get(p: m.PersonaGetParams) -> dict:
        state = persona.state(p.namespace)
        traits = [{"name": sc.name, "low": sc.low, "high": sc.high, "builtin": sc.builtin,
                   "score": percent(state.traits.get(sc.name, 0.5)),
                   "adjective": adjective(sc, state.traits.get(sc.name, 0.5))} for sc in state.scales]
        return {**state.model_dump(), "readable_traits": traits,
                "pending_rules": persona.proposals(p.namespace, "pending")}

    def persona_score(p: m.PersonaScoreParams) -> dict:
        def namespace() -> str:
            if p.session is None:
                return p.namespace or "default"
            known = conversations.namespace_of(p.session)
            if known is not None and p.namespace is not None and known != p.namespace:
                raise Conflict(f"session {p.session!r} belongs to namespace {known!r}, not {p.namespace!r}")
            return known or p.namespace or "default"

        ns = run_on_store(namespace)
        try:
            return worker.score(namespace=ns, session=p.session, response=p.response,
                                context=p.context, pack_id=p.pack_id).result(timeout=120)
        except TimeoutError:
            raise Conflict("the SyncScore judge did not answer within 120s; the score is stored when it does") from None

    def rules_list(p: m.RulesListParams) -> dict:
        return {"proposals": persona.proposals(p.namespace, None if p.status == "all" else p.status),
                "hard_rules": [r.model_dump() for r in persona.state(p.namespace).hard_rules]}

    def conversation_observe(p: m.ObserveParams) -> dict:
        run_on_store(lambda: conversations.require(p.session))
        future = worker.run_now(p.session, force=p.force, reflect=p.reflect)
        if not p.wait:
            return {"session": p.session, "scheduled": True}
        try:
            return future.result(timeout=p.timeout_seconds)
        except TimeoutError:
            raise Conflict(f"compaction of {p.session!r} still running after {p.timeout_seconds:g}s; "
                           "it goes on in the background") from None

    def conversation_status(p: m.SessionParams) -> dict:
        conversations.require(p.session)
        return {**conversations.counts(p.session), "runs": conversations.runs(p.session),
                "idle": worker.idle()}

    def workspace_indexer() -> WorkspaceIndexer:
        if indexer is None:
            raise Conflict("no workspace: start the daemon with --workspace DIR or set [workspace] path")
        return indexer

    def workspace_status(_: m.EmptyParams) -> dict:
        ix = workspace_indexer()
        files = ix.store.workspace_files()
        return {"root": str(ix.root), "namespace": ix.namespace,
                "files": [files[k] for k in sorted(files)]}

    def health(_: m.EmptyParams) -> m.HealthResult:
        return m.HealthResult(status="ok", version=__version__, memories=service.health_count())

    def clock_now(_: m.EmptyParams) -> dict:
        return {"now": format_time(service.clock.now()), "manual": isinstance(service.clock, ManualClock)}

    def clock_advance(p: m.ClockAdvanceParams) -> dict:
        if not isinstance(service.clock, ManualClock):
            raise Conflict("the clock is the system clock; set [clock] start in the config for a manual clock")
        now = service.clock.advance(p.hours)
        # Scheduled jobs follow the daemon's clock: the ones that came due run now.
        return {"now": format_time(now), "manual": True, "jobs_ran": jobs.run_due()}

    def jobs_list(_: m.EmptyParams) -> dict:
        return {"timezone": str(jobs.zone), "jobs": jobs.status()}

    return {
        "health": Method(m.EmptyParams, health, "Liveness, version and live memory count."),
        "stats": Method(m.StatsParams, lambda p: service.stats(p.namespace), "Counts by type, tier and namespace."),
        "memory.add": Method(m.AddParams, lambda p: m.AddResult(id=service.add(p)), "Store one memory."),
        "memory.add_many": Method(
            m.AddManyParams, lambda p: m.AddManyResult(ids=service.add_many(p.items)), "Store many memories atomically."
        ),
        "memory.get": Method(m.IdParams, lambda p: service.get(p.id), "One memory, live, superseded or archived."),
        "memory.search": Method(m.SearchParams, service.search, "Scored hybrid search."),
        "memory.reinforce": Method(m.ReinforceParams, service.reinforce, "Record an access event."),
        "memory.update": Method(m.UpdateParams, service.update, "Write a new version; the old one is superseded."),
        "memory.archive": Method(m.IdParams, lambda p: service.archive(p.id), "Move a memory to the archive."),
        "memory.sweep": Method(m.EmptyParams, lambda p: service.sweep(), "Archive memories below the Cold tier."),
        "context.pack": Method(m.PackParams, service.pack, "Build a Memory Pack within a token budget."),
        "context.explain": Method(m.ExplainParams, lambda p: service.explain(p.pack_id), "Why a pack holds what it holds."),
        "workspace.status": Method(m.EmptyParams, workspace_status, "Indexed workspace files, skipped ones with why."),
        "workspace.sync": Method(
            m.EmptyParams, lambda p: workspace_indexer().catch_up().as_dict(), "Re-index every changed workspace file now."
        ),
        "jobs.list": Method(m.EmptyParams, jobs_list, "Scheduled jobs: cron, next run, last run and result."),
        "jobs.run": Method(m.JobRunParams, lambda p: jobs.run(p.name, "manual"), "Run one job now and wait for it."),
        "jobs.runs": Method(m.JobRunsParams, lambda p: {"runs": jobs.runs(p.name, p.limit)}, "Recent job runs, oldest first."),
        "consolidation.list": Method(
            m.ConsolidationListParams, lambda p: {"nodes": consolidator.nodes(p.namespace, p.level)},
            "Consolidated memories (levels 1-3) with the memories each was built from."),
        "conversation.append": Method(m.AppendParams, conversation_append,
                                      "Store one turn; the Observer/Reflector run in the background when due."),
        "conversation.context": Method(m.ContextParams, conversation_context,
                                       "Stable prefix + recent turns + Memory Pack within a token budget; "
                                       "carries out the SyncScore drift action.", waits=True),
        "conversation.observe": Method(m.ObserveParams, conversation_observe,
                                       "Run the Observer (and Reflector) now; waits for the report.", waits=True),
        "conversation.status": Method(m.SessionParams, conversation_status, "Turns, tokens and compaction runs."),
        "observations.list": Method(
            m.ObservationsListParams,
            lambda p: {"observations": conversations.observations(p.session, p.namespace, p.include_replaced)},
            "Observations, oldest first, with their source turns."),
        "persona.get": Method(m.PersonaGetParams, persona_get,
                              "PersonaState (traits as 0-100 and adjectives, markers, stance, rules, record)."),
        "persona.history": Method(m.PersonaHistoryParams, lambda p: {"versions": persona.history(p.namespace, p.limit)},
                                  "Every PersonaState version with why it changed and its evidence."),
        "persona.records": Method(m.PersonaHistoryParams, lambda p: {"records": persona.records(p.namespace, p.limit)},
                                  "Persona Preservation Records made by compactions."),
        "persona.score": Method(m.PersonaScoreParams, persona_score,
                                "SyncScore one response: five dimensions, composite, EWMA, trend, action.", waits=True),
        "persona.scores": Method(
            m.PersonaScoresParams,
            lambda p: {"scores": persona.scores(session=p.session, namespace=p.namespace, limit=p.limit)},
            "SyncScore history of a session or a namespace, oldest first."),
        "persona.rules.propose": Method(
            m.RuleProposeParams, lambda p: persona.propose_rule(p.namespace, p.action, p.rule, "api"),
            "Propose adding or removing a hard rule; nothing changes until it is confirmed."),
        "persona.rules.confirm": Method(m.RuleDecisionParams, lambda p: persona.decide_rule(p.id, confirm=True),
                                        "Confirm a hard-rule proposal: a new PersonaState version."),
        "persona.rules.reject": Method(m.RuleDecisionParams, lambda p: persona.decide_rule(p.id, confirm=False),
                                       "Reject a hard-rule proposal."),
        "persona.rules.list": Method(m.RulesListParams, rules_list, "Hard rules in force and proposals."),
        "costs": Method(m.EmptyParams, costs, "Language-model calls, tokens and USD by provider, model and task."),
        "clock.now": Method(m.EmptyParams, clock_now, "The daemon's current time."),
        "clock.advance": Method(m.ClockAdvanceParams, clock_advance, "Move a manual clock forward."),
    }
