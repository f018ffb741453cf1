"""Every door logs as the daemon does: JSON lines on stderr, each warning about a failure with
its reason (exception type and message). Real door processes against a daemon that errs or is
not there, a local fake upstream, real HTTP."""

from __future__ import annotations

import subprocess
from pathlib import Path

import httpx2
import pytest
from click.testing import CliRunner
from conftest import free_port, wait_for
from doors import REQUEST, start_door, stop, warnings_about
from fake_anthropic import FakeAnthropic, message
from fake_daemon import SCOPE, FakeDaemon, error

from agentmemd.daemon.cli.main import cli

pytestmark = pytest.mark.doors  # the tier (pyproject.toml)

DOORS = ("serve", "proxy", "webhooks", "dashboard", "mcp")


def _proxy(sock: Path, upstream: str, log: Path, *extra: str) -> tuple[subprocess.Popen, int]:
    port = free_port()
    args = ["proxy", "--socket", str(sock), "--listen", f"127.0.0.1:{port}", "--upstream", upstream, *extra]
    return start_door(args, port, log), port


def _ask(port: int, token: str = "amt_app") -> httpx2.Response:
    headers = {"x-api-key": "sk-test", "anthropic-version": "2023-06-01"}
    return httpx2.post(f"http://127.0.0.1:{port}/t/{token}/v1/messages", json=REQUEST, headers=headers, timeout=20)


def test_the_proxy_logs_why_its_memory_step_failed_as_a_json_line(short_tmp):
    def answer(method: str, params: dict):
        return {"result": SCOPE} if method == "auth" else error(-32603, "internal error: database is locked")

    with FakeAnthropic() as fake, FakeDaemon(short_tmp / "errs.sock", answer):
        proc, port = _proxy(short_tmp / "errs.sock", fake.base_url, short_tmp / "proxy.log")
        try:
            fake.replies.append(message("Plain answer."))
            assert _ask(port).json()["content"][0]["text"] == "Plain answer."
            assert fake.requests[-1]["body"] == REQUEST  # fail-open: upstream unchanged
            [line] = wait_for(lambda: warnings_about(short_tmp / "proxy.log", "memory step failed"), timeout=10)
        finally:
            stop(proc)
    assert line["error"] == "RpcCallError: internal error: database is locked (code -32603)"
    assert line["ts"].endswith("Z") and line["logger"] == "agentmemd.proxy"


def test_the_proxy_logs_why_the_daemon_is_unreachable_and_log_level_error_quiets_it(short_tmp):
    with FakeAnthropic() as fake:
        for level in ("info", "error"):
            log = short_tmp / f"proxy-{level}.log"
            proc, port = _proxy(short_tmp / "nobody.sock", fake.base_url, log, "--log-level", level)
            try:
                fake.replies.append(message("Plain answer."))
                assert _ask(port).status_code == 200 and fake.requests[-1]["body"] == REQUEST
            finally:
                stop(proc)
            lines = warnings_about(log, "daemon unreachable")
            if level == "error":
                assert lines == []
                continue
            [line] = lines
            assert line["error"].startswith("DaemonUnavailable: cannot reach agentmemd at ")
            assert "nobody.sock" in line["error"]


def test_webhooks_log_why_the_daemon_is_unreachable_as_a_json_line(short_tmp):
    port = free_port()
    log = short_tmp / "webhooks.log"
    args = ["--socket", str(short_tmp / "nobody.sock"), "webhooks", "--listen", f"127.0.0.1:{port}"]
    proc = start_door(args, port, log)
    try:
        sent = httpx2.post(
            f"http://127.0.0.1:{port}/messages",
            json={"channel": "generic", "chat": "c1", "messages": [{"sender_id": "a", "text": "hello"}]},
            headers={"authorization": "Bearer amt_hooks"},
            timeout=20,
        )
        assert sent.status_code == 503
        [line] = wait_for(lambda: warnings_about(log, "webhooks: no daemon"), timeout=10)
    finally:
        stop(proc)
    assert line["error"].startswith("DaemonUnavailable: cannot reach agentmemd at ")
    assert line["logger"] == "agentmemd.webhooks"


@pytest.mark.parametrize("door", DOORS)
def test_every_door_takes_the_same_log_level_option(door):
    shown = CliRunner().invoke(cli, [door, "--help"])
    assert shown.exit_code == 0
    assert "--log-level [debug|info|warning|error]" in shown.output
