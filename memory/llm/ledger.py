"""The cost ledger: one row per language-model call, from the API's own usage fields."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agentmemd.memory.core.clock import Clock, format_time
from agentmemd.memory.core.config import LLMConfig
from agentmemd.memory.core.threads import run_here
from agentmemd.memory.store.database import Store
from agentmemd.memory.store.llm_tables import LLMTables


@dataclass(frozen=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0

    def cost_usd(self, cfg: LLMConfig) -> float:
        return (
            self.input_tokens * cfg.input_per_mtok
            + self.output_tokens * cfg.output_per_mtok
            + self.cache_creation_input_tokens * cfg.cache_write_per_mtok
            + self.cache_read_input_tokens * cfg.cache_read_per_mtok
        ) / 1_000_000


class Ledger:
    """Books every API call. Providers call it from the background worker, so its writes go
    through ``run_on_store`` (the daemon's store thread; a direct call as a library): a write from
    another thread would land inside whatever transaction the store thread has open."""

    def __init__(self, store: Store, clock: Clock, cfg: LLMConfig, run_on_store=None):
        self.store = store
        self.tables = LLMTables(store)
        self.clock = clock
        self.cfg = cfg
        self.run_on_store = run_on_store or run_here

    def record(
        self,
        *,
        provider: str,
        model: str,
        task: str,
        namespace: str | None,
        status: str,
        usage: Usage,
        latency_ms: float,
        error: str | None = None,
    ) -> int:
        """Record one call; returns its ledger id."""
        row = {
            "at": format_time(self.clock.now()),
            "provider": provider,
            "model": model,
            "task": task,
            "namespace": namespace,
            "status": status,
            "input_tokens": usage.input_tokens,
            "output_tokens": usage.output_tokens,
            "cache_creation_input_tokens": usage.cache_creation_input_tokens,
            "cache_read_input_tokens": usage.cache_read_input_tokens,
            "cost_usd": usage.cost_usd(self.cfg),
            "latency_ms": latency_ms,
            "error": error,
        }
        return self.run_on_store(lambda: self.tables.add_call(row))

    def mark_rejected(self, call_id: int, problem: str) -> None:
        """The call was paid for (its tokens stay counted) but its output was refused."""
        self.run_on_store(lambda: self.tables.reject_call(call_id, problem))

    def totals(self) -> list[dict[str, Any]]:
        """Per provider, model and task: calls by status, tokens and cost."""
        return self.tables.call_totals()
