"""The proxy's memory step has a time budget (`--memory-timeout`, `[proxy] memory_timeout_seconds`,
2 s by default): a daemon that accepts and never answers costs an app that much, not the socket's
30 s, and the request goes upstream unchanged. Bounds here are correctness bounds (the budget
was kept, a smaller one is kept sooner); how fast the proxy is belongs to `agentmemd bench proxy`."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable

import httpx2
import pytest
from click.testing import CliRunner
from conftest import free_port, wait_for, write_config
from doors import REQUEST, start_door, stop, warnings_about
from fake_anthropic import FakeAnthropic, message, message_stream
from fake_daemon import FakeDaemon, hang_everything, hangs_after_the_context

from agentmemd.daemon.cli.main import cli
from agentmemd.memory.core.config import ConfigError, load_config

pytestmark = pytest.mark.inprocess  # the tier (pyproject.toml)

HEADERS = {"x-api-key": "sk-test", "anthropic-version": "2023-06-01"}


def _timed_request(
    sock: Path,
    fake: FakeAnthropic,
    log: Path,
    *extra: str,
    stream: bool = False,
    then: Callable[[], None] | None = None,
) -> float:
    """Seconds one Messages request through a fresh proxy took; it must reach the upstream unchanged.
    ``then`` runs before the proxy stops."""
    port = free_port()
    args = ["proxy", "--socket", str(sock), "--listen", f"127.0.0.1:{port}", "--upstream", fake.base_url, *extra]
    proc = start_door(args, port, log)
    try:
        body = {**REQUEST, "stream": True} if stream else REQUEST
        fake.replies.append(message_stream("Plain answer.") if stream else message("Plain answer."))
        started = time.monotonic()
        # Well under the socket's old 30 s: a proxy that waits that long fails here, not in 30 s.
        reply = httpx2.post(f"http://127.0.0.1:{port}/t/amt_app/v1/messages", json=body, headers=HEADERS, timeout=8)
        took = time.monotonic() - started
        assert reply.status_code == 200
        assert "message_stop" in reply.text if stream else reply.json()["content"][0]["text"] == "Plain answer."
        assert fake.requests[-1]["body"] == body
        if then:
            then()
        return took
    finally:
        stop(proc)


def test_a_hung_daemon_costs_the_memory_budget_and_the_request_passes_through_unchanged(short_tmp):
    sock = short_tmp / "hung.sock"
    config = write_config(short_tmp / "agentmemd.toml", {"proxy": {"memory_timeout_seconds": 0.5}})
    with FakeAnthropic() as fake, FakeDaemon(sock, hang_everything) as hung:
        default = _timed_request(sock, fake, short_tmp / "default.log")
        flag = _timed_request(sock, fake, short_tmp / "flag.log", "--memory-timeout", "0.5")
        from_config = _timed_request(sock, fake, short_tmp / "config.log", "--config", str(config))
        # The flag wins over the file: a config that says 0.5 s, a flag that says the default.
        flag_over_config = _timed_request(
            sock, fake, short_tmp / "both.log", "--config", str(config), "--memory-timeout", "2"
        )
    assert "auth" in hung.methods  # the proxy did ask the daemon
    assert 2 <= default < 5  # the budget was waited for, and no more than about that
    assert flag < default and from_config < default and flag_over_config >= 2
    for name, budget in (("default", "2"), ("flag", "0.5"), ("config", "0.5")):
        [line] = warnings_about(short_tmp / f"{name}.log", "memory step timed out")
        assert line["timeout_seconds"] == float(budget)
        assert line["error"] == f"TimeoutError: no answer from the daemon within {budget} s"


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_recording_the_reply_to_a_hung_daemon_does_not_stall_the_app(short_tmp, stream):
    sock = short_tmp / "hangs.sock"
    with FakeAnthropic() as fake, FakeDaemon(sock, hangs_after_the_context()) as daemon:

        def tried_to_record():  # after the context, the proxy asked again (and got no answer)
            asked = daemon.methods
            wait_for(lambda: "conversation.prepare" in asked and asked[-1] != "conversation.prepare", timeout=10)

        took = _timed_request(
            sock, fake, short_tmp / "proxy.log", "--memory-timeout", "0.5", stream=stream, then=tried_to_record
        )
    assert took < 5


def test_the_budget_is_a_proxy_config_key_checked_by_the_one_loader(short_tmp):
    assert load_config(None).proxy.memory_timeout_seconds == 2.0
    assert load_config(None, {"proxy": {"memory_timeout_seconds": 0.25}}).proxy.memory_timeout_seconds == 0.25
    for bad in (0, -1, "soon"):
        with pytest.raises(ConfigError, match="proxy.memory_timeout_seconds"):
            load_config(None, {"proxy": {"memory_timeout_seconds": bad}})
    bad_file = write_config(short_tmp / "bad.toml", {"proxy": {"memory_timeout_seconds": 0}})
    refused = CliRunner().invoke(cli, ["proxy", "--config", str(bad_file)])
    assert refused.exit_code == 2 and "proxy.memory_timeout_seconds" in refused.output
    refused = CliRunner().invoke(cli, ["proxy", "--memory-timeout", "0"])
    assert refused.exit_code == 2 and "--memory-timeout" in refused.output


def test_the_proxys_kept_connections_are_reused_newest_first_and_closed_once_idle(short_tmp, monkeypatch):
    """A burst of requests opens several connections; the next request reuses the newest, and
    every one unused for IDLE_SECONDS is closed then, not kept open for good."""
    from fake_daemon import SCOPE

    from agentmemd.daemon.proxy import app as proxy_app

    def answer(method, params):
        return {"result": SCOPE if method == "auth" else {}}

    now = [1000.0]
    monkeypatch.setattr(proxy_app.time, "monotonic", lambda: now[0])
    with FakeDaemon(short_tmp / "pool.sock", answer) as daemon:
        pool = proxy_app.ConnectionPool(short_tmp / "pool.sock")
        with pool.connection("amt_app", 5) as first, pool.connection("amt_app", 5) as second:
            with pool.connection("amt_app", 5) as third:
                pass
        now[0] += 5
        with pool.connection("amt_app", 5) as again:
            assert again is first  # the one kept last (the outermost block ends last)
        now[0] = 1000.0 + proxy_app.IDLE_SECONDS + 1  # the burst's others idle too long; the reused one not
        with pool.connection("amt_app", 5) as still:
            assert still is first
        for stale in (second, third):  # closed when the pool was next asked, though not the newest
            with pytest.raises((OSError, ValueError)):
                stale.call("health")
        now[0] += proxy_app.IDLE_SECONDS + 1
        with pool.connection("amt_app", 5) as later:
            assert later not in (first, second, third)  # all idle too long: a new one
        assert daemon.methods.count("auth") == 4
        pool.close()
