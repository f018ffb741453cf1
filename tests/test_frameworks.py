"""agentmemd behind the frameworks' own memory interfaces (daemon/frameworks/), run with the real
packages: the OpenAI Agents SDK's Runner with an AgentmemdSession, its model the project's fake
upstream, over a real daemon."""

from __future__ import annotations

import asyncio

import pytest
from conftest import served_daemon
from fake_anthropic import FakeAnthropic, chat_completion

from agentmemd.daemon.socket.client import Client

agents = pytest.importorskip("agents")  # openai-agents, in the [test] extra

from agentmemd.daemon.frameworks.openai_agents import AgentmemdSession, session_name  # noqa: E402

pytestmark = pytest.mark.process  # the tier (pyproject.toml)


@pytest.fixture(scope="module")
def served():
    with served_daemon() as d:
        yield d


def _agent(upstream: FakeAnthropic):
    from openai import AsyncOpenAI

    agents.set_tracing_disabled(True)
    client = AsyncOpenAI(base_url=upstream.base_url + "/v1", api_key="sk-test", max_retries=0)
    model = agents.OpenAIChatCompletionsModel(model="gpt-test", openai_client=client)
    return agents.Agent(name="assistant", instructions="Be brief.", model=model)


def test_a_runner_with_an_agentmemd_session_keeps_what_was_said_once(served, tmp_path):
    session = AgentmemdSession("ana chat", db_path=tmp_path / "items.db", socket=served.socket, namespace="oa")
    with FakeAnthropic() as upstream:
        agent = _agent(upstream)
        upstream.replies.append(chat_completion("Noted: Porto."))
        first = asyncio.run(agents.Runner.run(agent, "I moved to Porto in May", session=session))
        assert first.final_output == "Noted: Porto."
        upstream.replies.append(chat_completion("In Porto."))
        asyncio.run(agents.Runner.run(agent, "Where do I live?", session=session))
        # The second call was sent the first exchange from the session.
        sent = upstream.requests[-1]["body"]["messages"]
        assert [m["content"] for m in sent if m["role"] == "user"] == ["I moved to Porto in May", "Where do I live?"]
    with Client(served.socket) as owner:
        turns = owner.conversation_turns(session=session_name("ana chat"), namespace="oa").turns
        assert [(t.role, t.content) for t in turns] == [
            ("user", "I moved to Porto in May"),
            ("assistant", "Noted: Porto."),
            ("user", "Where do I live?"),
            ("assistant", "In Porto."),
        ]
    # A new object on the same file: the SDK's items come back exactly.
    again = AgentmemdSession("ana chat", db_path=tmp_path / "items.db", socket=served.socket, namespace="oa")
    items = asyncio.run(again.get_items())
    assert len(items) == 4 and items[0] == {"content": "I moved to Porto in May", "role": "user"}


def test_the_session_behaves_as_the_sdk_documents(served):
    """get_items(limit): the latest N, oldest first; pop_item: the newest or None; clear_session."""
    session = AgentmemdSession("documented", socket=served.socket, namespace="oa")

    async def run():
        assert await session.get_items() == [] and await session.pop_item() is None
        said = [{"role": "user", "content": f"message {i}"} for i in range(5)]
        await session.add_items(said[:3])
        await session.add_items(said[3:])
        assert await session.get_items(limit=2) == said[3:]
        assert await session.pop_item() == said[4]
        assert await session.get_items() == said[:4]
        await session.clear_session()
        assert await session.get_items() == []

    asyncio.run(run())
    with Client(served.socket) as owner:
        kept = owner.conversation_turns(session=session_name("documented"), namespace="oa").turns
    # What was said stays in agentmemd (clearing the SDK's items is not forgetting).
    assert [t.content for t in kept][:3] == ["message 0", "message 1", "message 2"]


def test_a_daemon_that_is_down_does_not_stop_a_run_and_misses_nothing(served, caplog):
    session = AgentmemdSession("while down", socket="/nonexistent/agentmemd.sock", namespace="oa")
    asyncio.run(session.add_items([{"role": "user", "content": "said while it was down"}]))
    assert "/nonexistent/agentmemd.sock" in caplog.text
    session.socket = str(served.socket)  # back
    asyncio.run(session.add_items([{"role": "user", "content": "said after"}]))
    with Client(served.socket) as owner:
        kept = owner.conversation_turns(session=session_name("while down"), namespace="oa").turns
    assert [t.content for t in kept] == ["said while it was down", "said after"]
