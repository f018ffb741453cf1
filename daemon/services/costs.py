"""CostService: language-model calls, tokens and USD, and what the response cache saved."""

from __future__ import annotations

from typing import Any

from agentmemd.memory.llm.cache import ResponseCache
from agentmemd.memory.llm.ledger import Ledger

CACHE_COUNTERS = ("hits_exact", "hits_semantic", "misses", "bypassed", "tokens_saved")


class CostService:
    def __init__(self, ledger: Ledger, cache: ResponseCache, provider: str):
        self.ledger = ledger
        self.cache = cache
        self.provider = provider

    def costs(self) -> dict[str, Any]:
        rows = self.ledger.totals()
        cached = self.cache.totals()
        return {
            "provider": self.provider,
            "by_task": rows,
            "calls": sum(r["calls"] for r in rows),
            "cost_usd": round(sum(r["cost_usd"] for r in rows), 6),
            "cache": {"by_task": cached, **{k: sum(r[k] for r in cached) for k in CACHE_COUNTERS}},
        }
