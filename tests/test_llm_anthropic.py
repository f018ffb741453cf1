"""The anthropic provider through the real SDK against a local Messages API server (issue 4)."""

from __future__ import annotations

import json

import pytest
from fake_anthropic import FakeAnthropic, Reply, error, message
from pydantic import BaseModel, Field

from agentmemd.memory.core.clock import ManualClock, parse_time
from agentmemd.memory.core.config import LLMConfig
from agentmemd.memory.llm.anthropic_provider import (
    AnthropicProvider,
    LLMOutputError,
    LLMUnavailable,
)
from agentmemd.memory.llm.ledger import Ledger
from agentmemd.memory.store.database import Store

pytestmark = pytest.mark.doors  # the tier (pyproject.toml)

STABLE = "You condense conversation turns into dated observations. Keep names and dates exact."
TURN = "Caroline: I went to a LGBTQ support group yesterday and it was so powerful."


class Observation(BaseModel):
    content: str = Field(min_length=1)
    priority: str = Field(pattern="^(HIGH|MED|LOW)$")


class Observations(BaseModel):
    observations: list[Observation]


@pytest.fixture
def server():
    with FakeAnthropic() as fake:
        yield fake


@pytest.fixture
def ledger(tmp_path):
    store = Store(tmp_path / "db", dim=4, model="test")
    yield Ledger(store, ManualClock(parse_time("2026-11-22T10:00:00Z")), LLMConfig())
    store.close()


def provider(server, ledger, **cfg) -> AnthropicProvider:
    config = LLMConfig(provider="anthropic", base_url=server.base_url, **{"max_retries": 2, **cfg})
    ledger.cfg = config
    return AnthropicProvider(config, ledger, api_key="test-key")


def rows(ledger) -> list[dict]:
    return ledger.store._rows("SELECT * FROM llm_calls ORDER BY id")


def test_a_call_sends_the_stable_prefix_cached_and_books_exact_usage(server, ledger):
    server.replies.append(
        message(
            "Caroline found the support group powerful.",
            input_tokens=1200,
            output_tokens=40,
            cache_creation=900,
            cache_read=0,
        )
    )
    server.replies.append(message("Second.", input_tokens=300, output_tokens=10, cache_creation=0, cache_read=900))
    p = provider(server, ledger)
    first = p.complete("observe", stable=STABLE, prompt=TURN, namespace="default")
    second = p.complete("observe", stable=STABLE, prompt="Melanie: I signed up for a pottery class.")
    assert first.text == "Caroline found the support group powerful." and second.text == "Second."
    sent = server.requests[0]
    assert sent["path"] == "/v1/messages"
    # The SDK authenticates with the key (SDK 2.x as a bearer token, older ones as x-api-key).
    assert "test-key" in (sent["headers"].get("x-api-key") or sent["headers"].get("authorization", ""))
    assert sent["body"]["model"] == "claude-haiku-4-5" and sent["body"]["max_tokens"] == 1024
    assert sent["body"]["system"] == [{"type": "text", "text": STABLE, "cache_control": {"type": "ephemeral"}}]
    assert sent["body"]["messages"] == [{"role": "user", "content": TURN}]
    # The second call's system block is byte-identical: what makes the provider's cache hit.
    assert server.requests[1]["body"]["system"] == sent["body"]["system"]
    booked = rows(ledger)
    assert [
        (
            r["task"],
            r["status"],
            r["input_tokens"],
            r["output_tokens"],
            r["cache_creation_input_tokens"],
            r["cache_read_input_tokens"],
        )
        for r in booked
    ] == [("observe", "ok", 1200, 40, 900, 0), ("observe", "ok", 300, 10, 0, 900)]
    # Haiku list prices per MTok: input 1, output 5, cache write 1.25, cache read 0.1.
    assert booked[0]["cost_usd"] == pytest.approx((1200 * 1 + 40 * 5 + 900 * 1.25) / 1e6)
    assert booked[1]["cost_usd"] == pytest.approx((300 * 1 + 10 * 5 + 900 * 0.1) / 1e6)
    totals = ledger.totals()
    assert totals[0]["calls"] == 2 and totals[0]["cost_usd"] == pytest.approx(0.002525 + 0.00044)


def test_a_json_reply_is_validated_against_the_schema(server, ledger):
    reply = {
        "observations": [{"content": "Caroline attended an LGBTQ support group on 2023-05-07.", "priority": "HIGH"}]
    }
    server.replies.append(message("```json\n" + json.dumps(reply) + "\n```"))
    got = provider(server, ledger).complete_json("observe", Observations, stable=STABLE, prompt=TURN)
    assert got.observations[0].priority == "HIGH"
    system = server.requests[0]["body"]["system"][0]["text"]
    assert system.startswith(STABLE) and '"observations"' in system  # the schema rides in the cached prefix


def test_malformed_output_is_asked_again_then_accepted(server, ledger):
    server.replies.append(message("Sure! Here are the observations: Caroline went to a group."))
    server.replies.append(
        message(json.dumps({"observations": [{"content": "Caroline went to a group.", "priority": "MED"}]}))
    )
    got = provider(server, ledger).complete_json("observe", Observations, stable=STABLE, prompt=TURN)
    assert got.observations[0].content == "Caroline went to a group."
    retry = server.requests[1]["body"]["messages"]
    assert [m["role"] for m in retry] == ["user", "assistant", "user"]
    assert retry[1]["content"].startswith("Sure! Here are") and "not valid" in retry[2]["content"]
    assert [r["status"] for r in rows(ledger)] == ["rejected", "ok"]  # the bad reply's tokens stay booked


def test_output_that_never_validates_is_rejected_not_returned(server, ledger):
    server.replies.append(message(json.dumps({"observations": [{"content": "x", "priority": "URGENT"}]})))
    server.replies.append(message("{not json"))
    with pytest.raises(LLMOutputError, match="no valid JSON after 2 replies"):
        provider(server, ledger).complete_json("observe", Observations, stable=STABLE, prompt=TURN)
    booked = rows(ledger)
    assert [r["status"] for r in booked] == ["rejected", "rejected"]
    assert "observations.0.priority" in booked[0]["error"]


def test_429_then_success_is_retried_by_the_sdk(server, ledger):
    server.replies.append(error(429, "rate_limit_error", {"retry-after": "0"}))
    server.replies.append(error(529, "overloaded_error", {"retry-after": "0"}))
    server.replies.append(message("ok"))
    assert provider(server, ledger).complete("judge", stable=STABLE, prompt=TURN).text == "ok"
    assert len(server.requests) == 3
    assert [r["status"] for r in rows(ledger)] == ["ok"]  # one logical call


def test_persistent_failure_is_an_error_and_booked(server, ledger):
    server.replies.extend([error(500, "api_error", {"retry-after": "0"})] * 3)
    with pytest.raises(LLMUnavailable, match="failed after 2 retries: InternalServerError"):
        provider(server, ledger).complete("judge", stable=STABLE, prompt=TURN)
    assert len(server.requests) == 3
    assert [(r["status"], r["input_tokens"]) for r in rows(ledger)] == [("error", 0)]


def test_a_timeout_is_retried_then_reported(server, ledger):
    server.replies.extend([Reply(delay=1.5, body=message("late").body), message("in time")])
    p = provider(server, ledger, timeout_seconds=0.5, max_retries=1)
    assert p.complete("summarise", stable=STABLE, prompt=TURN).text == "in time"
    server.replies.extend([Reply(delay=1.5, body=message("late").body)] * 2)
    with pytest.raises(LLMUnavailable, match="APITimeoutError"):
        p.complete("summarise", stable=STABLE, prompt=TURN)
    assert [r["status"] for r in rows(ledger)] == ["ok", "error"]


def test_no_key_is_a_clear_error(ledger, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(LLMUnavailable, match=r"\$ANTHROPIC_API_KEY is not set"):
        AnthropicProvider(LLMConfig(provider="anthropic"), ledger)


def test_costs_reports_the_ledger_over_the_socket(spawn, server):
    """Calls booked by the provider (here into the daemon's own data dir while it is down)
    are what `costs` reports once it is up."""
    from click.testing import CliRunner

    from agentmemd.daemon.cli.main import cli

    d = spawn()
    d.terminate()
    store = Store(d.data_dir / "agentmemd.db", dim=384, model="all-MiniLM-L6-v2")
    ledger = Ledger(store, ManualClock(parse_time("2026-11-22T10:00:00Z")), LLMConfig())
    server.replies.extend(
        [
            message("a", input_tokens=1000, output_tokens=100, cache_read=2000),
            message("not json"),
            message("still not json"),
        ]
    )
    p = provider(server, ledger, max_retries=0)
    p.complete("observe", stable=STABLE, prompt=TURN)
    with pytest.raises(LLMOutputError):
        p.complete_json("reflect", Observations, stable=STABLE, prompt=TURN)
    store.close()
    d.start()
    got = d.call("costs")
    assert got["provider"] == "local" and got["calls"] == 3
    by_task = {r["task"]: r for r in got["by_task"]}
    assert (by_task["observe"]["ok"], by_task["observe"]["cache_read_input_tokens"]) == (1, 2000)
    assert (by_task["reflect"]["calls"], by_task["reflect"]["rejected"]) == (2, 2)
    assert got["cost_usd"] == pytest.approx((1000 + 100 * 5 + 2000 * 0.1 + 2 * (120 + 30 * 5)) / 1e6)
    out = CliRunner().invoke(cli, ["--socket", str(d.socket), "costs"])
    assert out.exit_code == 0 and "3 calls" in out.stdout and "2 rejected" in out.stdout
