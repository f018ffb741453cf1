"""The socket's method table: each JSON-RPC method is a params model and one service call.

Wiring only. What a method does lives in ``memory/services``; the CLI and every other
door call the same services.
"""

from __future__ import annotations

from agentmemd.daemon.socket.rpc import Method
from agentmemd.memory.core import models as m
from agentmemd.memory.services.app import Services


def build_methods(s: Services) -> dict[str, Method]:
    mem, conv, persona, jobs = s.memories, s.conversations, s.persona, s.jobs
    return {
        "health": Method(m.EmptyParams, lambda p: s.health(), "Liveness, version and live memory count."),
        "stats": Method(m.StatsParams, lambda p: mem.stats(p.namespace), "Counts by type, tier and namespace."),
        "memory.add": Method(m.AddParams, lambda p: m.AddResult(id=mem.add(p)), "Store one memory."),
        "memory.add_many": Method(
            m.AddManyParams, lambda p: m.AddManyResult(ids=mem.add_many(p.items)), "Store many memories atomically."
        ),
        "memory.get": Method(m.IdParams, lambda p: mem.get(p.id), "One memory, live, superseded or archived."),
        "memory.search": Method(m.SearchParams, mem.search, "Scored hybrid search."),
        "memory.reinforce": Method(m.ReinforceParams, mem.reinforce, "Record an access event."),
        "memory.update": Method(m.UpdateParams, mem.update, "Write a new version; the old one is superseded."),
        "memory.archive": Method(m.IdParams, lambda p: mem.archive(p.id), "Move a memory to the archive."),
        "memory.sweep": Method(m.EmptyParams, lambda p: mem.sweep(), "Archive memories below the Cold tier."),
        "context.pack": Method(m.PackParams, mem.pack, "Build a Memory Pack within a token budget."),
        "context.explain": Method(m.ExplainParams, lambda p: mem.explain(p.pack_id), "Why a pack holds what it holds."),
        "workspace.status": Method(
            m.EmptyParams, lambda p: s.workspace.status(), "Indexed workspace files, skipped ones with why."
        ),
        "workspace.sync": Method(
            m.EmptyParams, lambda p: s.workspace.sync(), "Re-index every changed workspace file now.", waits=True
        ),
        "jobs.list": Method(
            m.EmptyParams, lambda p: jobs.list(), "Scheduled jobs: cron, next run, last run and result."
        ),
        "jobs.run": Method(m.JobRunParams, jobs.run, "Run one job now and wait for it.", waits=True),
        "jobs.runs": Method(m.JobRunsParams, jobs.runs, "Recent job runs, oldest first."),
        "consolidation.list": Method(
            m.ConsolidationListParams,
            jobs.consolidation,
            "Consolidated memories (levels 1-3) with the memories each was built from.",
        ),
        "conversation.append": Method(
            m.AppendParams, conv.append, "Store one turn; the Observer/Reflector run in the background when due."
        ),
        "conversation.context": Method(
            m.ContextParams,
            conv.context,
            "Stable prefix + recent turns + Memory Pack within a token budget; carries out the SyncScore drift action.",
            waits=True,
        ),
        "conversation.observe": Method(
            m.ObserveParams, conv.observe, "Run the Observer (and Reflector) now; waits for the report.", waits=True
        ),
        "conversation.status": Method(
            m.SessionParams, lambda p: conv.status(p.session), "Turns, tokens and compaction runs."
        ),
        "observations.list": Method(
            m.ObservationsListParams, conv.observations, "Observations, oldest first, with their source turns."
        ),
        "persona.get": Method(
            m.PersonaGetParams,
            persona.get,
            "PersonaState (traits as 0-100 and adjectives, markers, stance, rules, record).",
        ),
        "persona.history": Method(
            m.PersonaHistoryParams, persona.history, "Every PersonaState version with why it changed and its evidence."
        ),
        "persona.records": Method(
            m.PersonaHistoryParams, persona.records, "Persona Preservation Records made by compactions."
        ),
        "persona.score": Method(
            m.PersonaScoreParams,
            persona.score,
            "SyncScore one response: five dimensions, composite, EWMA, trend, action.",
            waits=True,
        ),
        "persona.scores": Method(
            m.PersonaScoresParams, persona.scores, "SyncScore history of a session or a namespace, oldest first."
        ),
        "persona.rules.propose": Method(
            m.RuleProposeParams,
            persona.propose_rule,
            "Propose adding or removing a hard rule; nothing changes until it is confirmed.",
        ),
        "persona.rules.confirm": Method(
            m.RuleDecisionParams, persona.confirm_rule, "Confirm a hard-rule proposal: a new PersonaState version."
        ),
        "persona.rules.reject": Method(m.RuleDecisionParams, persona.reject_rule, "Reject a hard-rule proposal."),
        "persona.rules.list": Method(m.RulesListParams, persona.rules, "Hard rules in force and proposals."),
        "costs": Method(
            m.EmptyParams,
            lambda p: s.costs.costs(),
            "Language-model calls, tokens and USD by provider, model and task.",
        ),
        "clock.now": Method(m.EmptyParams, lambda p: jobs.now(), "The daemon's current time."),
        "clock.advance": Method(m.ClockAdvanceParams, jobs.advance_clock, "Move a manual clock forward.", waits=True),
    }
