"""The MCP door, driven end to end by the official SDK's client over both transports:
`agentmemd mcp` launched over stdio as a host launches it, and `agentmemd mcp --http`."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import anyio
import httpx2
import pytest
from conftest import free_port, served_daemon, start_listener
from mcp import Client, MCPError
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from agentmemd.daemon.socket.client import RpcCallError
from agentmemd.memory.core.models import PackParams, SearchParams
from agentmemd.memory.core.tokens import count_tokens

pytestmark = pytest.mark.doors  # the tier (pyproject.toml)

TOOLS = {
    "memory_search": (True, False, True),  # readOnlyHint, destructiveHint, idempotentHint
    "memory_get": (True, False, True),
    "memory_add": (False, False, False),
    "memory_update": (False, False, False),
    "memory_archive": (False, False, True),
    "memory_forget": (False, True, True),
    "context_pack": (True, False, True),
    "conversation_append": (False, False, False),
    "conversation_context": (False, False, False),
    "persona_get": (True, False, True),
    "observations_list": (True, False, True),
    "identity_graph": (True, False, True),
    "identity_node": (True, False, True),
    "identity_edge_add": (False, False, False),
    "goal_add": (False, False, False),
    "goal_update": (False, False, False),
    "goal_list": (True, False, True),
    "goal_get": (True, False, True),
}
ENV = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}


def _stdio(sock: Path, *extra: str) -> Client:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "agentmemd.daemon.cli", "mcp", "--socket", str(sock), *extra],
        env={**ENV, "PYTHONPATH": os.environ.get("PYTHONPATH", "")},
    )
    return Client(params, read_timeout_seconds=60)


def _data(result) -> dict:
    assert not result.is_error, result.content
    return json.loads(result.content[0].text)


def _text(result) -> str:
    assert not result.is_error and len(result.content) == 1, result.content
    return result.content[0].text


def _error_text(result) -> str:
    assert result.is_error, result.content
    return result.content[0].text


def test_every_tool_over_stdio_with_truthful_hints_and_errors_that_name_the_argument(spawn):
    d = spawn()

    async def main() -> None:
        async with _stdio(d.socket) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert set(tools) == set(TOOLS)
            for name, (read_only, destructive, idempotent) in TOOLS.items():
                hints = tools[name].annotations
                assert (hints.read_only_hint, hints.destructive_hint, hints.idempotent_hint) == (
                    read_only,
                    destructive,
                    idempotent,
                ), name
                assert tools[name].description and "namespace" in tools[name].input_schema["properties"]

            added = _data(
                await client.call_tool(
                    "memory_add", {"content": "The user's favourite coffee is a flat white.", "type": "preference"}
                )
            )
            other = _data(
                await client.call_tool(
                    "memory_add", {"content": "Bob's locker code is 7788.", "type": "fact", "namespace": "bob"}
                )
            )
            hits = _data(await client.call_tool("memory_search", {"query": "what coffee does the user like"}))
            assert [h["id"] for h in hits["results"]] == [added["id"]]  # bob's namespace is a hard filter
            assert _data(await client.call_tool("memory_get", {"id": added["id"]}))["type"] == "preference"
            pack = _text(await client.call_tool("context_pack", {"query": "coffee", "budget_tokens": 200}))
            assert "flat white" in pack and "7788" not in pack
            new = _data(
                await client.call_tool("memory_update", {"id": added["id"], "content": "The user now drinks tea."})
            )
            assert new["supersedes"] == added["id"]
            assert _data(await client.call_tool("memory_archive", {"id": other["id"], "namespace": "bob"}))
            assert _data(
                await client.call_tool("memory_archive", {"id": other["id"], "namespace": "bob"})
            )  # idempotent
            turn = {"session": "chat-1", "role": "user", "content": "I moved to Lisbon last month."}
            assert _data(await client.call_tool("conversation_append", turn))["turns"] == 1
            tool_turn = {"session": "chat-2", "role": "tool", "content": "weather: 18C, light rain"}
            assert _data(await client.call_tool("conversation_append", tool_turn))["turns"] == 1  # as documented
            context = _data(await client.call_tool("conversation_context", {"session": "chat-1"}))
            assert context["messages"][-1]["content"].endswith("I moved to Lisbon last month.")
            assert "traits" in _data(await client.call_tool("persona_get", {}))
            assert _data(await client.call_tool("observations_list", {"session": "chat-1"}))["observations"] == []
            # A model reads observations as a screen shows them: a secret, and its repeat, masked.
            for role, said in (("user", "my Netflix password is Koala!Pink31"), ("assistant", "Noted Koala!Pink31.")):
                said = {"session": "chat-3", "role": role, "content": said, "namespace": "phone"}
                await client.call_tool("conversation_append", said)
            d.call("conversation.observe", {"session": "chat-3", "namespace": "phone"})
            listed = _data(await client.call_tool("observations_list", {"session": "chat-3", "namespace": "phone"}))
            listed = listed["observations"]
            assert listed and "Koala" not in json.dumps(listed) and "withheld" in json.dumps(listed)
            assert not any("shown" in o for o in listed)  # the masked words once, as content
            edge = _data(
                await client.call_tool(
                    "identity_edge_add", {"relation": "values", "target": "honesty", "note": "never lie"}
                )
            )
            graph = _data(await client.call_tool("identity_graph", {}))
            assert [e["memory_id"] for e in graph["edges"]] == [edge["id"]]
            assert _data(await client.call_tool("identity_node", {"name": "Honesty"}))["node"]["kind"] == "value"
            assert "source" in _error_text(
                await client.call_tool("identity_edge_add", {"relation": "knows", "target": "Bo", "source": "Nobody"})
            )
            goal = _data(
                await client.call_tool("goal_add", {"text": "Ask how the interview went", "trigger": "interview"})
            )
            _data(await client.call_tool("goal_update", {"id": goal["id"], "note": "she has a second round"}))
            listed = _data(await client.call_tool("goal_list", {}))["goals"]
            assert [g["notes"][0]["text"] for g in listed] == ["she has a second round"]
            # goal_get: a tool generated from its method's declaration, as the goal tools are.
            got = _data(await client.call_tool("goal_get", {"id": goal["id"]}))
            assert (got["text"], [n["text"] for n in got["notes"]]) == (goal["text"], ["she has a second round"])
            assert "id" in _error_text(await client.call_tool("goal_get", {"id": "not-a-goal"}))
            assert "due" in _error_text(
                await client.call_tool("goal_add", {"text": "x", "due": "2026-02-30T10:00:00Z"})
            )

            # Bad arguments: a tool error whose text names the argument; nothing is written.
            assert "type" in _error_text(await client.call_tool("memory_add", {"content": "x", "type": "opinion"}))
            assert "query" in _error_text(await client.call_tool("memory_search", {"query": ""}))
            # An argument the tool does not take was dropped without a word.
            unknown = _error_text(await client.call_tool("memory_search", {"query": "x", "bogus": True}))
            assert "invalid params: bogus: not an argument of memory_search" in unknown
            assert "invalid params: type:" in _error_text(
                await client.call_tool("memory_add", {"content": "x", "type": "opinion"})
            )
            assert "budget_tokens" in _error_text(
                await client.call_tool("context_pack", {"query": "x", "budget_tokens": 0})
            )
            assert "namespace" in _error_text(
                await client.call_tool("memory_search", {"query": "x", "namespace": "no spaces allowed"})
            )
            assert "no memory with id" in _error_text(await client.call_tool("memory_get", {"id": "m0000000000000000"}))
            assert "created" in _error_text(
                await client.call_tool(
                    "memory_add", {"content": "x", "type": "fact", "created": "9999-12-31T23:59:59-12:00"}
                )
            )

            # Resources and the prompt.
            persona = await client.read_resource("agentmemd://persona")
            assert "traits" in json.loads(persona.contents[0].text)
            memory = await client.read_resource(f"agentmemd://memory/{new['id']}")
            assert json.loads(memory.contents[0].text)["content"] == "The user now drinks tea."
            prompt = await client.get_prompt("persona", {})
            assert prompt.messages and prompt.messages[0].content.text

    anyio.run(main)
    stats = d.call("stats", {"namespace": "default"})
    # The tea (the flat white is superseded) and the relation; the appended turn may be an episode by
    # now; the refused relation stored nothing.
    assert stats["live"] - stats["by_type"].get("episode", 0) == 2 and stats["by_type"]["persona"] == 1


def test_workspace_files_are_resources_and_a_link_out_is_not(spawn, tmp_path):
    workspace = tmp_path / "workspace"
    shutil.copytree(Path(__file__).resolve().parent.parent / "workspace_template", workspace)
    outside = tmp_path / "secret.md"
    outside.write_text("# Secret\n- outside the workspace\n")
    (workspace / "memory" / "linked.md").symlink_to(outside)
    d = spawn({"workspace": {"path": str(workspace)}})

    async def main() -> None:
        async with _stdio(d.socket) as client:
            index = json.loads((await client.read_resource("agentmemd://workspace")).contents[0].text)
            uris = {f["uri"] for f in index["files"]}
            assert "agentmemd://workspace/USER.md" in uris
            user = await client.read_resource("agentmemd://workspace/USER.md")
            assert user.contents[0].text == (workspace / "USER.md").read_text()
            with pytest.raises(MCPError, match="no readable workspace Markdown file 'memory/linked.md'"):
                await client.read_resource("agentmemd://workspace/memory/linked.md")
            with pytest.raises(MCPError):  # the SDK's own path-traversal check
                await client.read_resource("agentmemd://workspace/../etc/passwd")

    anyio.run(main)


def test_a_daemon_that_is_down_gives_a_clear_tool_error_and_no_hang(short_tmp):
    async def main() -> None:
        async with _stdio(short_tmp / "nobody.sock") as client:
            started = time.monotonic()
            text = _error_text(await client.call_tool("memory_search", {"query": "anything"}))
            assert "is the daemon running" in text and time.monotonic() - started < 10
            # The prompt says why too (it said "Error rendering prompt persona", whatever the cause).
            with pytest.raises(Exception, match="is the daemon running"):
                await client.get_prompt("persona", {})

    anyio.run(main)


def test_streamable_http_checks_the_token_the_origin_and_scopes_every_call(spawn, short_tmp):
    d = spawn()
    d.call("memory.add", {"content": "Bob's locker code is 7788.", "type": "fact", "namespace": "bob"})
    alice = d.call("access.tokens.create", {"name": "alice-http", "namespaces": ["alice"]})["secret"]
    port = free_port()
    args = ["mcp", "--socket", str(d.socket), "--http", f"127.0.0.1:{port}"]
    proc = start_listener(args, port, short_tmp / "mcp-http.log")
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        accept = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
        with httpx2.Client(timeout=30) as http:
            missing = http.post(url, json=ping, headers=accept)
            assert missing.status_code == 401 and "token create" in missing.json()["error"]
            wrong = http.post(url, json=ping, headers={**accept, "authorization": "Bearer amt_wrong"})
            assert wrong.status_code == 401 and "unknown or revoked token" in wrong.json()["error"]
            assert "this connection" not in wrong.json()["error"]  # said of the socket's, not of a request
            rebound = {**accept, "authorization": f"Bearer {alice}", "origin": "http://evil.example"}
            assert http.post(url, json=ping, headers=rebound).status_code == 403
            for local in ("http://localhost:3000", "http://127.0.0.1"):  # loopback, as the docs say: allowed
                origin = {**accept, "authorization": f"Bearer {alice}", "origin": local}
                assert http.post(url, json=ping, headers=origin).status_code != 403, local
            near = {**accept, "authorization": f"Bearer {alice}", "origin": "http://localhost.evil.example"}
            assert http.post(url, json=ping, headers=near).status_code == 403
            host = {**accept, "authorization": f"Bearer {alice}", "host": f"evil.example:{port}"}
            assert http.post(url, json=ping, headers=host).status_code == 421
            # A stateless endpoint offers no SSE stream: GET is 405 at once (it held the connection open).
            listen = http.get(url, headers={"accept": "text/event-stream", "authorization": f"Bearer {alice}"})
            assert listen.status_code == 405 and listen.headers["allow"] == "POST"
            assert http.get(url).status_code == 401  # the token first

        async def main() -> None:
            headers = {"authorization": f"Bearer {alice}"}
            async with httpx2.AsyncClient(headers=headers, timeout=60) as http:
                async with Client(streamable_http_client(url, http_client=http)) as client:
                    assert len((await client.list_tools()).tools) == len(TOOLS)
                    added = _data(
                        await client.call_tool("memory_add", {"content": "Alice likes oat milk.", "type": "preference"})
                    )
                    assert d.call("memory.get", {"id": added["id"], "namespace": "alice"})["namespace"] == "alice"
                    hits = _data(await client.call_tool("memory_search", {"query": "locker code"}))
                    assert "is 7788" not in json.dumps(hits)
                    refused = _error_text(
                        await client.call_tool("memory_search", {"query": "locker", "namespace": "bob"})
                    )
                    assert "may not use namespace 'bob'" in refused
                    templates = {t.uri_template for t in (await client.list_resource_templates()).resource_templates}
                    assert "agentmemd://memory/{id}" in templates
                    assert (await client.list_resources()).resources == []  # static ones need one identity

        anyio.run(main)
        d.call("access.tokens.revoke", {"name": "alice-http"})
        with httpx2.Client(timeout=30) as http:
            revoked = http.post(url, json=ping, headers={**accept, "authorization": f"Bearer {alice}"})
            assert revoked.status_code == 401
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_http_refuses_a_public_address_unless_told(short_tmp):
    out = subprocess.run(
        [sys.executable, "-m", "agentmemd.daemon.cli", "mcp", "--socket", str(short_tmp / "s"), "--http", "0.0.0.0:1"],
        capture_output=True,
        text=True,
        env={**os.environ, **ENV},
        timeout=60,
    )
    assert out.returncode == 2 and "--allow-remote" in out.stderr


@pytest.mark.parametrize("page", ["README.md", "docs/mcp.md"])
def test_the_docs_config_snippet_launches_as_written(served, page):
    """The JSON a person pastes into Claude Desktop or Claude Code, launched the way a host does;
    only the placeholder socket path and the venv's `agentmemd` are filled in. (The module's
    daemon: its other tests write only in namespaces of their own, never the default one.)"""
    d = served
    readme = (Path(__file__).resolve().parent.parent / page).read_text()
    block = readme.split("<!-- mcp-config -->", 1)[1].split("```json", 1)[1].split("```", 1)[0]
    server = json.loads(block)["mcpServers"]["agentmemd"]
    args = [str(d.socket) if a.endswith("agentmemd.sock") else a for a in server["args"]]
    command = shutil.which(server["command"], path=str(Path(sys.executable).parent))
    assert command, "the agentmemd command is installed next to this Python"

    async def main() -> None:
        params = StdioServerParameters(command=command, args=args, env=ENV)
        async with Client(params, read_timeout_seconds=60) as client:
            assert {t.name for t in (await client.list_tools()).tools} == set(TOOLS)
            hits = await client.call_tool("memory_search", {"query": "anything"})
            assert _data(hits)["results"] == []

    anyio.run(main)


def test_an_mcp_host_hears_what_the_users_own_conversations_may_unless_it_names_a_chat(spawn):
    d = spawn()
    d.call("memory.add", {"content": "Ana is secretly applying to the Oceanarium.", "type": "fact",
                          "audience": "private:telegram:2002"})  # fmt: skip
    d.call("memory.add", {"content": "The user's favourite coffee is a flat white.", "type": "preference"})

    async def main() -> None:
        async with _stdio(d.socket) as client:
            default = _data(await client.call_tool("memory_search", {"query": "Ana Oceanarium coffee"}))
            assert [h["content"] for h in default["results"]] == ["The user's favourite coffee is a flat white."]
            pack = _text(await client.call_tool("context_pack", {"query": "Ana Oceanarium", "budget_tokens": 300}))
            assert "Oceanarium" not in pack
            in_chat = {"query": "Ana Oceanarium", "budget_tokens": 300, "audience": "private:telegram:2002"}
            assert "Oceanarium" in _text(await client.call_tool("context_pack", in_chat))
            assert "audience" in _error_text(
                await client.call_tool("memory_search", {"query": "x", "audience": "everyone"})
            )
        # A door serving Ana's chat with a token that hears it alone: her chat by default, and
        # nothing of another audience whatever the host asks.
        ana = d.call(
            "access.tokens.create", {"name": "ana-bot", "namespaces": ["default"], "hears": "private:telegram:2002"}
        )["secret"]
        async with _stdio(d.socket, "--token", ana) as client:
            heard = _data(await client.call_tool("memory_search", {"query": "Ana Oceanarium coffee"}))
            assert [h["content"] for h in heard["results"]] == ["Ana is secretly applying to the Oceanarium."]
            pack = _text(await client.call_tool("context_pack", {"query": "coffee", "budget_tokens": 300}))
            assert "flat white" not in pack
            asked = {"query": "coffee", "budget_tokens": 300, "audience": "user"}
            assert "hears only" in _error_text(await client.call_tool("context_pack", asked))
            assert "hears only" in _error_text(await client.call_tool("persona_get", {}))

    anyio.run(main)


# ---- The door as a model reads it (issue: what the tools say, return and refuse) -------------------


@pytest.fixture(scope="module")
def served():
    """One daemon for the tests below; each works in its own namespace."""
    with served_daemon() as d:
        yield d


def _most(model, field: str) -> int:
    return next(m.le for m in model.model_fields[field].metadata if hasattr(m, "le"))


def _lines(*facts: str, ns: str, type: str = "fact") -> dict:
    return {"items": [{"content": f, "type": type, "namespace": ns} for f in facts]}


def test_the_instructions_and_memory_add_say_to_update_a_fact_that_changed(served):
    async def main() -> None:
        async with _stdio(served.socket) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            for text in (client.instructions, tools["memory_add"].description):
                assert "memory_search" in text and "memory_update" in text, text
                assert re.search(r"\bchanged\b", text) and "moved" in text, text  # the case, with an example
            assert "changed" in tools["memory_update"].description

    anyio.run(main)


def test_adding_the_same_memory_twice_stores_it_once_and_names_the_similar_ones(served, ns):
    async def main() -> None:
        async with _stdio(served.socket) as client:
            first = _data(await client.call_tool("memory_add", {"content": "The user lives in Berlin.", "type": "fact",
                                                                "namespace": ns}))  # fmt: skip
            assert not first.get("duplicate") and not first.get("similar")
            again = _data(await client.call_tool("memory_add", {"content": "  the user lives in  berlin. ",
                                                                "type": "fact", "namespace": ns}))  # fmt: skip
            assert again["id"] == first["id"] and again["duplicate"] is True
            moved = _data(await client.call_tool("memory_add", {"content": "The user lives in Lisbon now.",
                                                                "type": "fact", "namespace": ns}))  # fmt: skip
            assert moved["id"] != first["id"] and not moved.get("duplicate")
            similar = moved["similar"]
            assert similar[0]["id"] == first["id"] and similar[0]["content"] == "The user lives in Berlin."
            assert 0 < similar[0]["similarity"] <= 1 and len(similar) <= 3
            assert "memory_update" in moved["note"]
            # Another type is another memory.
            other = _data(await client.call_tool("memory_add", {"content": "The user lives in Berlin.",
                                                                "type": "preference", "namespace": ns}))  # fmt: skip
            assert other["id"] != first["id"] and not other.get("duplicate")

    anyio.run(main)
    # Every door: the socket's memory.add says the same and stores nothing new.
    again = served.call("memory.add", {"content": "The user lives in Berlin.", "type": "fact", "namespace": ns})
    assert again["duplicate"] is True
    assert served.call("stats", {"namespace": ns})["live"] == 3


def test_search_is_lean_unless_scores_are_asked_for(served, ns):
    facts = [f"The user {verb} {thing}." for verb in ("likes", "owns", "plans to buy")
             for thing in ("vintage cameras", "a red bicycle", "green tea", "jazz records", "hiking boots")]  # fmt: skip
    served.call("memory.add_many", _lines(*facts, ns=ns))

    async def main() -> None:
        async with _stdio(served.socket) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            schema = tools["memory_search"].input_schema["properties"]
            assert schema["k"]["maximum"] == _most(SearchParams, "k")  # the socket's bound
            budget = tools["context_pack"].input_schema["properties"]["budget_tokens"]
            assert budget["maximum"] == _most(PackParams, "budget_tokens")
            query = {"query": "what does the user like", "k": 10, "namespace": ns}
            lean = await client.call_tool("memory_search", query)
            full = await client.call_tool("memory_search", {**query, "with_scores": True})
            lean_tokens, full_tokens = count_tokens(lean.content[0].text), count_tokens(full.content[0].text)
            print(f"memory_search, 10 hits: {lean_tokens} tokens lean, {full_tokens} with scores")
            hits = _data(lean)["results"]
            assert len(hits) == 10
            assert set(hits[0]) <= {"id", "content", "type", "date", "relevance", "archived", "emotion"}
            assert "signals" in _data(full)["results"][0]
            assert lean_tokens * 2 < full_tokens

    anyio.run(main)


def test_a_lean_hit_names_a_basic_emotion_and_memory_get_the_whole_affect(served, ns):
    served.call(
        "memory.add_many", _lines("I'm furious the boiler broke again!", "The boiler is a Worcester 30i.", ns=ns)
    )

    async def main() -> None:
        async with _stdio(served.socket) as client:
            found = _data(await client.call_tool("memory_search", {"query": "the boiler", "namespace": ns}))
            feeling = {h["content"]: h.get("emotion") for h in found["results"]}
            assert feeling == {"I'm furious the boiler broke again!": "anger", "The boiler is a Worcester 30i.": None}
            angry = next(h["id"] for h in found["results"] if h.get("emotion"))
            got = _data(await client.call_tool("memory_get", {"id": angry, "namespace": ns}))
            assert got["affect"]["emotion"] == "anger" and got["affect"]["valence"] < 0

    anyio.run(main)


def test_context_pack_gives_the_model_no_more_than_the_budget(served, ns):
    facts = [f"Note {i}: the user mentioned {topic} on day {i} of the trip to Portugal."
             for i, topic in enumerate(["sardines", "trams", "fado", "tiles", "port wine", "surfing"] * 12)]  # fmt: skip
    served.call("memory.add_many", _lines(*facts, ns=ns))

    async def main() -> None:
        async with _stdio(served.socket) as client:
            for budget in (800, 300, 60, 30, 3):
                args = {"query": "what happened on the trip to Portugal?", "budget_tokens": budget, "namespace": ns}
                text = _text(await client.call_tool("context_pack", args))
                assert count_tokens(text) <= budget, (budget, count_tokens(text), text)
                if budget >= 300:
                    assert "[MEMORY PACK" in text and "the user mentioned" in text
                    assert '"score"' not in text and "signals" not in text
                if budget == 30:  # too small for any memory: said so, not an empty answer
                    assert text == "(no memory matched)", text

    from agentmemd.daemon.mcp.server import NO_MATCH, NO_MATCH_TOKENS

    assert count_tokens(NO_MATCH) == NO_MATCH_TOKENS

    anyio.run(main)


def test_episodes_are_the_daemons_to_make_not_a_callers_to_add(served, ns):
    async def main() -> None:
        async with _stdio(served.socket) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            offered = json.dumps(tools["memory_add"].input_schema["properties"]["type"])
            assert "fact" in offered and "episode" not in offered

    anyio.run(main)
    with pytest.raises(RpcCallError) as refused:
        served.call("memory.add", {"content": "I moved to Lisbon.", "type": "episode", "namespace": ns})
    assert refused.value.code == -32602 and "type" in refused.value.message
    assert "conversation" in refused.value.message  # says where episodes come from
    assert served.call("stats", {"namespace": ns})["live"] == 0


def test_the_persona_prompts_argument_is_described(served):
    async def main() -> None:
        async with _stdio(served.socket) as client:
            (prompt,) = (await client.list_prompts()).prompts
            assert all(a.description for a in prompt.arguments)

    anyio.run(main)


BOILERPLATE = ("errors.pydantic.dev", "validation error for", "Value error,", "[type=", "input_value")


def test_errors_name_the_field_and_the_problem_without_pydantics_boilerplate(served):
    bad = [
        ("memory_add", {"content": "x", "type": "opinion"}, "type"),
        ("memory_search", {"query": "x", "k": 0}, "k"),
        ("context_pack", {"query": "x", "budget_tokens": 0}, "budget_tokens"),
        ("memory_add", {"content": "   ", "type": "fact"}, "content"),
        ("memory_add", {"content": "x", "type": "fact", "created": "9999-12-31T23:59:59-12:00"}, "created"),
    ]

    async def main() -> None:
        async with _stdio(served.socket) as client:
            for tool, args, field in bad:
                text = _error_text(await client.call_tool(tool, args))
                assert f"{field}:" in text and not any(b in text for b in BOILERPLATE), text

    anyio.run(main)
    for params, field in [
        ({"content": "   ", "type": "fact"}, "content"),
        ({"content": "x", "type": "fact", "created": "9999-12-31T23:59:59-12:00"}, "created"),
        ({"content": "x", "type": "opinion"}, "type"),
    ]:
        with pytest.raises(RpcCallError) as refused:
            served.call("memory.add", params)
        message = refused.value.message
        assert f"{field}:" in message and not any(b in message for b in BOILERPLATE), message
        assert not any(b in json.dumps(refused.value.data) for b in BOILERPLATE)


def test_a_goal_with_a_due_date_is_added_and_updated_and_a_past_one_refused_naming_it(served, ns):
    """Found by a host: goal_add and goal_update failed on every `due` ("Error executing tool
    goal_add", no reason): the validated date reached the socket as a datetime, not JSON."""

    async def main() -> None:
        async with _stdio(served.socket) as client:
            added = await client.call_tool("goal_add", {"text": "ask how the interview went", "due": "2099-01-05T09:00:00Z", "namespace": ns})  # fmt: skip
            assert not added.is_error, added
            goal = json.loads(added.content[0].text)
            assert goal["due"].startswith("2099-01-05T09:00:00")
            moved = await client.call_tool("goal_update", {"id": goal["id"], "due": "2099-02-01", "namespace": ns})
            assert not moved.is_error and json.loads(moved.content[0].text)["due"].startswith("2099-02-01"), moved
            past = await client.call_tool(
                "goal_add", {"text": "too late", "due": "2001-01-01T00:00:00Z", "namespace": ns}
            )
            assert past.is_error and "due:" in _error_text(past), _error_text(past)

    anyio.run(main)


def test_forget_deletes_after_a_preview_and_archive_keeps_it_recoverable(served, ns):
    kept = served.call("memory.add", {"content": "The user's gym code is 4411.", "type": "fact", "namespace": ns})
    gone = served.call("memory.add", {"content": "The user's old PIN was 1234.", "type": "fact", "namespace": ns})

    async def main() -> None:
        async with _stdio(served.socket) as client:
            archived = _data(await client.call_tool("memory_archive", {"id": kept["id"], "namespace": ns}))
            assert archived["tier"] == "archived"
            assert (
                _data(await client.call_tool("memory_get", {"id": kept["id"], "namespace": ns}))["tier"] == "archived"
            )

            preview = _data(await client.call_tool("memory_forget", {"id": gone["id"], "namespace": ns}))
            assert preview["forgotten"] is False and preview["content"] == "The user's old PIN was 1234."
            assert "confirm" in preview["note"]
            assert _data(await client.call_tool("memory_get", {"id": gone["id"], "namespace": ns}))  # still there
            for loose in ("on", "yes", 1):  # a model's loose "yes" forgot it for good
                refused = await client.call_tool("memory_forget", {"id": gone["id"], "namespace": ns, "confirm": loose})
                assert "confirm" in _error_text(refused) and "boolean" in _error_text(refused)
            assert _data(await client.call_tool("memory_get", {"id": gone["id"], "namespace": ns}))  # still there
            done = _data(await client.call_tool("memory_forget", {"id": gone["id"], "namespace": ns, "confirm": True}))
            assert done["forgotten"] is True
            assert "no memory with id" in _error_text(
                await client.call_tool("memory_get", {"id": gone["id"], "namespace": ns})
            )

    anyio.run(main)
