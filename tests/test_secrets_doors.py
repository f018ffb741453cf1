"""Secrets through the real doors: a real daemon process, the MCP server over stdio with the mcp
SDK, the proxy with the anthropic SDK in front of the upstream fake, the CLI (`memories --secrets`,
`doctor`), and the log lines every door writes. A secret reaches a model only when its owner asks
for that kind; a person can list and review them; no list or log line shows one whole."""

from __future__ import annotations

import json
import logging
import sys

import anthropic
import anyio
import pytest
from click.testing import CliRunner
from doors import start_proxy
from test_mcp import _data, _stdio, _text

from agentmemd.daemon.bench.fake_upstream import FakeAnthropic
from agentmemd.daemon.cli.main import cli
from agentmemd.daemon.doors.logs import JsonFormatter

pytestmark = pytest.mark.doors  # the tier (pyproject.toml)

CARD, KEY, WIFI = "5500 0000 0000 0004", "sk-ant-api03-Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0LzXcVbNm-_q1w2", "Naranja2024"
TOLD = [
    f"Spare card {CARD} exp 09/28 cvv 321, for the dinner reservations",
    f"The Anthropic key for the dinner-planner bot is {KEY}",
    f"La contraseña del wifi es {WIFI}",
    "Dinner tonight: maybe pasta with pesto",
    "Mia's birthday is on 14 March; she likes climbing",
]
ANTHROPIC_KEY = "sk-ant-doors"


def holds_a_secret(text: str) -> list[str]:
    return [value for value in (CARD, KEY, WIFI) if value in text]


@pytest.fixture(scope="module")
def told(tmp_path_factory):
    from conftest import served_daemon

    with served_daemon() as d:
        ids = [d.call("memory.add", {"content": said, "type": "fact"})["id"] for said in TOLD]
        yield d, ids


def test_mcp_packs_and_searches_carry_a_secret_only_when_its_kind_is_asked_for(told):
    d, _ = told

    async def main() -> None:
        async with _stdio(d.socket) as client:
            dinner = _text(await client.call_tool("context_pack", {"query": "What should I cook for dinner tonight?", "budget_tokens": 2000}))  # fmt: skip
            assert "pasta" in dinner and holds_a_secret(dinner) == []
            found = _data(await client.call_tool("memory_search", {"query": "dinner card key reservations"}))
            shown = " ".join(h["content"] for h in found["results"])
            assert "[card number withheld]" in shown and holds_a_secret(shown) == []
            card = _text(await client.call_tool("context_pack", {"query": "What's my credit card number?", "budget_tokens": 2000}))  # fmt: skip
            assert holds_a_secret(card) == [CARD]
            asked = _data(await client.call_tool("memory_search", {"query": "what is my card number?"}))
            assert CARD in " ".join(h["content"] for h in asked["results"])

    anyio.run(main)


def test_the_proxy_sends_a_secret_upstream_only_when_asked_for(told, short_tmp):
    d, _ = told
    token = d.call("access.tokens.create", {"name": "secrets-app", "namespaces": ["default"]})["secret"]
    with FakeAnthropic(api_key=ANTHROPIC_KEY, min_cache_tokens=0) as fake:
        proc, port = start_proxy(d.socket, fake.base_url, short_tmp / "proxy.log")
        try:
            client = anthropic.Anthropic(base_url=f"http://127.0.0.1:{port}/t/{token}", api_key=ANTHROPIC_KEY)
            for question in ("What should I cook for dinner tonight?", "How should I reply to Mia?"):
                fake.script("Something nice.")
                client.messages.create(
                    model="claude-haiku-4-5", max_tokens=50, messages=[{"role": "user", "content": question}]
                )
                sent = json.dumps(fake.requests[-1]["body"], ensure_ascii=False)
                assert holds_a_secret(sent) == [], question
            fake.script("Here it is.")
            client.messages.create(
                model="claude-haiku-4-5",
                max_tokens=50,
                messages=[{"role": "user", "content": "What's my credit card number?"}],
            )
            assert holds_a_secret(json.dumps(fake.requests[-1]["body"], ensure_ascii=False)) == [CARD]
        finally:
            proc.terminate()
            proc.wait(timeout=30)
        assert holds_a_secret((short_tmp / "proxy.log").read_text()) == []


def test_the_cli_lists_them_masked_and_doctor_counts_them(told):
    d, ids = told
    listed = CliRunner().invoke(cli, ["--socket", str(d.socket), "memories", "--secrets"])
    assert listed.exit_code == 0, listed.output
    assert listed.output.startswith("3 memories")
    assert "secret: card_number" in listed.output and "[card number withheld]" in listed.output
    assert holds_a_secret(listed.output) == [] and ids[3] not in listed.output
    whole = CliRunner().invoke(cli, ["--socket", str(d.socket), "get", ids[0]])
    assert CARD in whole.output  # one memory asked for by its id is shown whole, to its owner
    doctor = CliRunner().invoke(cli, ["--socket", str(d.socket), "--json", "doctor"])
    found = {f["check"]: f for f in json.loads(doctor.output)}
    assert found["secrets"]["status"] == "warn"
    assert found["secrets"]["detail"].startswith("3 memories hold a secret: ")
    assert all(f"1 {kind}" in found["secrets"]["detail"] for kind in ("card number", "credential", "password"))
    assert "agentmemd memory list --secrets" in found["secrets"]["fix"]


def test_a_log_line_never_holds_a_secret_whole():
    try:
        raise ValueError(f"could not parse card {CARD}")
    except ValueError:
        record = logging.LogRecord(
            "agentmemd.socket", logging.ERROR, __file__, 1, "internal error", None, sys.exc_info()
        )
    record.method, record.error, record.params = (
        "memory.add",
        f"RpcCallError: key {KEY}",
        {"said": [f"la contraseña del wifi es {WIFI}"]},
    )
    line = JsonFormatter().format(record)
    parsed = json.loads(line)  # still one JSON object
    assert holds_a_secret(line) == [] and "[card number withheld]" in parsed["traceback"]
    assert parsed["error"] == "RpcCallError: key [credential withheld]" and parsed["method"] == "memory.add"
