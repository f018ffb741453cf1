"""The cost ledger: one row per language-model call, from the API's own usage fields."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agentmemd.memory.core.clock import Clock, format_time
from agentmemd.memory.core.config import LLMConfig
from agentmemd.memory.store.database import Store


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
    def __init__(self, store: Store, clock: Clock, cfg: LLMConfig):
        self.store = store
        self.clock = clock
        self.cfg = cfg

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
        cur = self.store.conn.execute(
            "INSERT INTO llm_calls(at, provider, model, task, namespace, status, input_tokens, output_tokens, "
            "cache_creation_input_tokens, cache_read_input_tokens, cost_usd, latency_ms, error) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                format_time(self.clock.now()),
                provider,
                model,
                task,
                namespace,
                status,
                usage.input_tokens,
                usage.output_tokens,
                usage.cache_creation_input_tokens,
                usage.cache_read_input_tokens,
                usage.cost_usd(self.cfg),
                latency_ms,
                error,
            ),
        )
        return int(cur.lastrowid)

    def mark_rejected(self, call_id: int, problem: str) -> None:
        """The call was paid for (its tokens stay counted) but its output was refused."""
        self.store.conn.execute("UPDATE llm_calls SET status = 'rejected', error = ? WHERE id = ?", (problem, call_id))

    def totals(self) -> list[dict[str, Any]]:
        """Per provider, model and task: calls by status, tokens and cost."""
        return self.store._rows(
            "SELECT provider, model, task, count(*) AS calls, sum(status = 'ok') AS ok, "
            "sum(status = 'rejected') AS rejected, sum(status = 'error') AS errors, "
            "sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens, "
            "sum(cache_creation_input_tokens) AS cache_creation_input_tokens, "
            "sum(cache_read_input_tokens) AS cache_read_input_tokens, round(sum(cost_usd), 6) AS cost_usd "
            "FROM llm_calls GROUP BY provider, model, task ORDER BY provider, model, task"
        )
