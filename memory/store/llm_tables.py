"""The LLM layer's tables: every API call with its usage and cost (llm_calls), the semantic
response cache (llm_cache) and its hit counters (llm_cache_stats)."""

from __future__ import annotations

from typing import Any

from agentmemd.memory.store.database import Store


class LLMTables:
    def __init__(self, store: Store):
        self.store = store
        self.db = store.db

    # ---- llm_calls (the ledger) -----------------------------------------------------------

    def add_call(self, row: dict[str, Any]) -> int:
        table = self.db["llm_calls"]
        table.insert(row)
        return int(table.last_pk)

    def reject_call(self, call_id: int, problem: str) -> None:
        self.db["llm_calls"].update(call_id, {"status": "rejected", "error": problem})

    def call_totals(self) -> list[dict[str, Any]]:
        """Per provider, model and task: calls by status, tokens and cost."""
        return self.store._rows(
            "SELECT provider, model, task, count(*) AS calls, count(CASE WHEN status = 'ok' THEN 1 END) AS ok, "
            "count(CASE WHEN status = 'rejected' THEN 1 END) AS rejected, count(CASE WHEN status = 'error' THEN 1 END) AS errors, "
            "sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens, "
            "sum(cache_creation_input_tokens) AS cache_creation_input_tokens, "
            "sum(cache_read_input_tokens) AS cache_read_input_tokens, round(sum(cost_usd), 6) AS cost_usd "
            "FROM llm_calls GROUP BY provider, model, task ORDER BY provider, model, task"
        )

    # ---- llm_cache ------------------------------------------------------------------------------

    def exact(self, category: str, namespace: str, digest: str) -> tuple[int, str, int] | None:
        """(id, response, tokens) of the entry for exactly this prompt."""
        return self.store.conn.execute(
            "SELECT id, response, tokens FROM llm_cache WHERE category = ? AND namespace = ? AND prompt_hash = ?",
            (category, namespace, digest),
        ).fetchone()

    def entries(self, category: str, namespace: str, task: str) -> list[tuple[int, str, int, bytes]]:
        """(id, response, tokens, embedding) of every entry a similar prompt may reuse."""
        return self.store.conn.execute(
            "SELECT id, response, tokens, embedding FROM llm_cache WHERE category = ? AND namespace = ? AND task = ?",
            (category, namespace, task),
        ).fetchall()

    def put(self, row: dict[str, Any], max_entries: int) -> None:
        """Store an entry (replacing one for the same prompt); past ``max_entries`` the entries
        least used, then oldest, go."""
        self.db["llm_cache"].insert(row, replace=True)
        self.store.conn.execute(
            "DELETE FROM llm_cache WHERE id IN (SELECT id FROM llm_cache ORDER BY hits DESC, id DESC "
            "LIMIT -1 OFFSET ?)",
            (max_entries,),
        )

    def count(self, task: str, namespace: str, column: str, tokens: int, entry_id: int | None) -> None:
        """One more hit, miss or bypass (``column``) for a task and namespace."""
        assert column in ("hits_exact", "hits_semantic", "misses", "bypassed")
        self.store.conn.execute(
            f"INSERT INTO llm_cache_stats(task, namespace, {column}, tokens_saved) VALUES (?, ?, 1, ?) "
            f"ON CONFLICT(task, namespace) DO UPDATE SET {column} = llm_cache_stats.{column} + 1, "
            "tokens_saved = llm_cache_stats.tokens_saved + excluded.tokens_saved",
            (task, namespace, tokens),
        )
        if entry_id is not None:
            self.store.conn.execute("UPDATE llm_cache SET hits = hits + 1 WHERE id = ?", (entry_id,))

    def cache_totals(self) -> list[dict[str, Any]]:
        return self.store._rows(
            "SELECT task, sum(hits_exact) AS hits_exact, sum(hits_semantic) AS hits_semantic, sum(misses) AS misses, "
            "sum(bypassed) AS bypassed, sum(tokens_saved) AS tokens_saved FROM llm_cache_stats GROUP BY task ORDER BY task"
        )
