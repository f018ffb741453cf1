"""The memories as a person audits them: pages of them filtered, one memory's
history (its versions, what happened to it, its retention over time, where it came from), and
forgetting one for good.

    audit = MemoryAudit(memories)
    audit.list(MemoryListParams(type="preference", tier="active", limit=20))
    audit.history(IdParams(id="m_...", namespace="default"))
    audit.forget(ForgetParams(id="m_...", namespace="default"))               # what would go
    audit.forget(ForgetParams(id="m_...", namespace="default", confirm=True))  # gone
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, Callable

from agentmemd.memory.core.clock import format_time, parse_time
from agentmemd.memory.core.models import ForgetParams, IdParams, MemoryListParams, PacksListParams
from agentmemd.memory.core.results import (
    AlsoForgotten,
    ForgetResult,
    MemoryHistoryResult,
    MemoryListItem,
    MemoryListResult,
    PacksListResult,
    PackSummary,
    RetentionPoint,
)
from agentmemd.memory.core.sessions import named, session_name
from agentmemd.memory.retrieval.decay import retention, retention_curve, retention_many, tier_of, tiers_many
from agentmemd.memory.retrieval.lineage import Lineage, LineagePlan
from agentmemd.memory.retrieval.memories import Memories, said_the_same
from agentmemd.memory.safety.secrets import mask, repeats_any, secret_values, shown_masked
from agentmemd.memory.store.lineage_tables import LineageTables
from agentmemd.memory.store.listing_tables import ListingFilter, ListingTables

PROJECTION_MAX = timedelta(days=90)
# Events after which a memory's retention restarts from 1 (its last access moved).
ACCESS_EVENTS = ("reinforced",)


def _point(at: datetime, value: float) -> RetentionPoint:
    return RetentionPoint(at=format_time(at), retention=round(value, 4))


class MemoryAudit:
    def __init__(self, memories: Memories, person_id: Callable[[str, str], str] | None = None):
        """``person_id(namespace, id or name)``: the person's id (NotFound for no one), for a list by
        person; without it only ids are taken."""
        self.memories = memories
        self.person_id = person_id or (lambda namespace, person: person)
        self.listing = ListingTables(memories.store)
        self.history_tables = memories.history

    # ---- a page of memories ------------------------------------------------------------------

    def list(self, p: MemoryListParams) -> MemoryListResult:
        f = ListingFilter(
            namespace=p.namespace,
            type=p.type,
            source_contains=p.source,
            content_contains=p.contains,
            created_from=p.created_from.isoformat() if p.created_from else None,
            created_before=(p.created_to + timedelta(days=1)).isoformat() if p.created_to else None,
            emotion=p.emotion,
            holds_secret=p.secrets,
            said_by=self.person_id(p.namespace or "default", p.person) if p.person else None,
            archived=p.tier == "archived",
        )
        now, cfg = self.memories.clock.now(), self.memories.config.decay
        if p.tier in (None, "archived"):
            total = self.listing.count(f)
            rows = self.listing.page(f, p.limit, p.offset)
        else:  # a tier is a function of time: computed now for every match, at once
            seqs, ages = self.listing.access_ages(f, format_time(now))
            matching = seqs[tiers_many(retention_many(ages, cfg), cfg) == p.tier].tolist()
            total = len(matching)
            rows = self.listing.rows(f, matching[p.offset : p.offset + p.limit])
        felt = self.memories.affect.of([r["seq"] for r in rows])
        secret = self.memories.secrets.of([r["seq"] for r in rows])
        known = {ns: self.memories.known_secrets.of(ns) for ns in {r["namespace"] for r in rows if r["seq"] in secret}}
        items = []
        for r in rows:
            value = retention(parse_time(r["last_accessed"]), r["access_count"], r["type"], now, cfg)
            tier = "archived" if f.archived else tier_of(value, cfg)
            items.append(
                MemoryListItem(
                    **{k: v for k, v in r.items() if k in MemoryListItem.model_fields},
                    tier=tier,
                    retention=round(value, 4),
                    emotion=felt[r["seq"]][2] if r["seq"] in felt else "neutral",
                    secrets=list(secret.get(r["seq"], ())),
                    shown=mask(r["content"], values=known[r["namespace"]]) if r["seq"] in secret else None,
                )
            )
        namespaces = self.listing.namespaces() if p.namespace is None else [p.namespace]
        return MemoryListResult(items=items, total=total, offset=p.offset, limit=p.limit, namespaces=namespaces)

    # ---- one memory's history ----------------------------------------------------------------

    def history(self, p: IdParams) -> MemoryHistoryResult:
        self.memories._lookup(p.id, p.namespace)  # NotFound, in the caller's namespace
        chain = self.history_tables.chain(p.id)
        current = chain[-1]
        events = self.history_tables.events([v["id"] for v in chain])
        cfg, now = self.memories.config.decay, self.memories.clock.now()
        accesses = self._accesses(current, events)
        last, count = accesses[-1]
        projected = self._projection(last, count, current["type"], now)
        return MemoryHistoryResult(
            id=current["id"],
            namespace=current["namespace"],
            versions=chain,
            events=events,
            retention=[_point(t, v) for t, v in retention_curve(accesses, current["type"], now, cfg)],
            projected=projected,
            origin=self._origin(current, [v["id"] for v in chain]),
            thresholds={"active": cfg.active_above, "warm": cfg.warm_above, "cold": cfg.cold_above},
        )

    def _accesses(self, current: dict[str, Any], events: list[dict[str, Any]]) -> list[tuple[datetime, float]]:
        """(time, access count after it) of the current version: stored, then each reinforcement.
        An access the history does not hold (made before m019 kept events) is added from the row."""
        mine = [e for e in events if e["memory_id"] == current["id"]]
        start = next((e["access_count"] for e in mine if e["kind"] == "new_version"), None)
        accesses = [(parse_time(current["ingested"]), 1.0 if start is None else start)]
        accesses += [(parse_time(e["at"]), e["access_count"]) for e in mine if e["kind"] in ACCESS_EVENTS]
        last = parse_time(current["last_accessed"])
        if accesses[-1][0] != last or accesses[-1][1] != current["access_count"]:
            accesses.append((last, current["access_count"]))
        return sorted(accesses, key=lambda a: a[0])

    def _projection(self, last: datetime, count: float, mtype: str, now: datetime) -> list[RetentionPoint]:
        """Retention from now on if nothing reinforces the memory: until it falls below the Cold
        tier (the sweep archives it then), at most PROJECTION_MAX ahead."""
        cfg = self.memories.config.decay
        horizon = timedelta(days=1)
        while horizon < PROJECTION_MAX and retention(last, count, mtype, now + horizon, cfg) >= cfg.cold_above:
            horizon *= 2
        horizon = min(horizon, PROJECTION_MAX)
        steps = 24
        return [
            _point(now + horizon * (i / steps), retention(last, count, mtype, now + horizon * (i / steps), cfg))
            for i in range(steps + 1)
        ]

    def _origin(self, current: dict[str, Any], chain_ids: list[str]) -> dict[str, Any]:
        tables = self.history_tables
        item = tables.workspace_item(current["id"])
        if item is not None:
            return {"kind": "workspace", "path": item["path"], "where": current["source"]}
        node = tables.consolidation_node(current["id"])
        if node is not None:
            return {"kind": "consolidation", **node}
        turns = tables.source_turns(chain_ids, limit=20)
        if turns:
            return named({"kind": "conversation", "session": turns[0]["session"], "turns": turns})
        return {"kind": "added", "source": current["source"]}

    # ---- forgetting ----------------------------------------------------------------------------

    def forget(self, p: ForgetParams, lineage: Lineage | None = None) -> ForgetResult:
        """Forget a memory and every copy of its words (memory/retrieval/lineage.py), in one go: the
        library's path (the daemon plans on the store thread and embeds beside it)."""
        lineage = lineage or Lineage(self.memories, self.memories.config.conversation.episode_context_turns)
        plan = self.plan_forget(p, lineage)
        counted = self.footprint(plan)
        if p.confirm:
            vectors = self.memories.embedder.embed_passages(plan.texts) if plan.texts else []
            self.write_forget(plan, vectors, lineage)
        return self.forget_result(p, plan, counted)

    def plan_forget(self, p: ForgetParams, lineage: Lineage) -> LineagePlan:
        """What forgetting ``p.id`` removes (nothing changes): its versions, the memories that say
        the same, and every copy lineage reaches from them."""
        self.memories._lookup(p.id, p.namespace)
        chain = self.history_tables.chain(p.id)
        same = self._says_the_same(chain) if p.same_words else []
        why = dict.fromkeys(same, "says the same")
        why.update({mid: "repeats its secret" for mid in self._repeating_its_secrets(chain) if mid not in why})
        repeating = self._turns_repeating_its_secrets(chain)
        return lineage.plan([chain] + [self.history_tables.chain(mid) for mid in why], why, repeating)

    def footprint(self, plan: LineagePlan) -> dict[str, Any]:
        """What the plan removes besides the memories' rows, counted by place (before it is written)."""
        versions = [v for c in plan.chains for v in c]
        counted = self.history_tables.forget_footprint(versions, plan.turns)
        counted["packs_logged"] = len(counted["packs_logged"]) + self.memories.pack_log.pending_holding(set(plan.every))
        counted["cached_responses"] = len(counted["cached_responses"])
        counted["impressions"] = LineageTables(self.memories.store).impressions_of(plan.impressions)
        counted["workspace_files"] = counted.pop("workspace_items")
        return counted

    def write_forget(self, plan: LineagePlan, vectors: list, lineage: Lineage) -> None:
        unwritten = self.memories.pack_log.discard_holding(set(plan.every))
        with self.memories.store.transaction():
            lineage.write(plan, vectors, format_time(self.memories.clock.now()), unwritten_packs=unwritten)
        self.memories.store.scrub(plan.chains[0][-1]["namespace"])

    def forget_result(self, p: ForgetParams, plan: LineagePlan, counted: dict[str, Any], **more: Any) -> ForgetResult:
        chain, others = plan.chains[0], plan.chains[1:]
        # known before the forget, or stated by what goes
        values = {**self.memories.known_secrets.of(chain[-1]["namespace"]), **chain_secrets(chain)}

        def shown(content: str) -> str | None:
            return shown_masked(content, values)

        return ForgetResult(
            id=p.id,
            namespace=chain[-1]["namespace"],
            forgotten=p.confirm,
            versions=[v["id"] for v in chain],
            also=[
                AlsoForgotten(
                    id=c[-1]["id"],
                    content=c[-1]["content"][:300],
                    type=c[-1]["type"],
                    why=plan.why[c[-1]["id"]],
                    shown=shown(c[-1]["content"][:300]),
                )
                for c in others
            ],
            turns=len(plan.turns),
            sessions=[session_name(s) for s in plan.sessions],
            observations=len(plan.observations),
            reindexed=len(plan.neighbours),
            **counted,
            **more,
        )

    def _repeating_its_secrets(self, chain: list[dict[str, Any]]) -> list[str]:
        """Current memories of the namespace that repeat a secret ``chain``'s versions state ("Noted:
        Tortuga$Lenta42", marked when stored: memory/safety/known_secrets.py): copies of its words."""
        values = chain_secrets(chain)
        if not values:
            return []
        ids = {v["id"] for v in chain}
        return [
            row["id"]
            for row in self.memories.secrets.current_holding(chain[-1]["namespace"])
            if row["id"] not in ids and repeats_any(row["content"], values)
        ]

    def _turns_repeating_its_secrets(self, chain: list[dict[str, Any]]) -> set[int]:
        """Live turns of the namespace that repeat a secret ``chain``'s versions state: an agent's
        "Noted, the wifi is Kiwi$Lemon77" is a turn with no memory of its own when its replies are
        not indexed ([conversation] episodes_of_assistant), so no memory's lineage reached it."""
        values = chain_secrets(chain)
        if not values:
            return set()
        turns = LineageTables(self.memories.store).live_turns_holding(chain[-1]["namespace"], sorted(values))
        return {seq for seq, content in turns if repeats_any(content, values)}

    def _says_the_same(self, chain: list[dict[str, Any]]) -> list[str]:
        """Current memories of the namespace saying what ``chain``'s current version says (the same
        text but for case, spacing and Unicode forms)."""
        ids, current = {v["id"] for v in chain}, chain[-1]
        return [
            row["id"]
            for row in self.history_tables.same_words(current["namespace"], current["content"])
            if row["id"] not in ids and said_the_same(row["content"], current["content"])
        ]

    # ---- logged packs --------------------------------------------------------------------------

    def packs(self, p: PacksListParams) -> PacksListResult:
        """Newest first: those still on their way to the log (pending), then those written."""
        pending = self.memories.pack_log.pending_summaries(p.namespace)
        first = pending[p.offset : p.offset + p.limit]
        rows, written = self.history_tables.logged_packs(
            p.namespace, p.limit - len(first), max(0, p.offset - len(pending))
        )
        # One written this instant is pending for a moment more: counted and listed once.
        on_the_way = [r["pack_id"] for r in pending]
        rows = [r for r in rows if r["pack_id"] not in on_the_way]
        written -= self.history_tables.packs_logged_of(on_the_way)
        return PacksListResult(packs=[PackSummary(**r) for r in first + rows], total=len(pending) + written)


def chain_secrets(chain: list[dict[str, Any]]) -> dict[str, str]:
    """The secret values a memory's versions state (value -> kind): what its forget takes from
    everything that repeats them."""
    values: dict[str, str] = {}
    for version in chain:
        values.update(secret_values(version["content"]))
    return values
