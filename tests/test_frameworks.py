"""agentmemd behind the frameworks' own memory interfaces (daemon/frameworks/), run with the real
packages: the OpenAI Agents SDK's Runner with an AgentmemdSession, its model the project's fake
upstream, over a real daemon."""

from __future__ import annotations

import asyncio
import json

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


def test_a_session_file_in_a_folder_not_made_yet_is_made_there(served, tmp_path):
    """docs/api.md's db_path="~/.local/state/myapp/sessions.db" failed on a fresh machine: sqlite
    makes the file, not its folder ("unable to open database file")."""
    where = tmp_path / "state" / "myapp" / "sessions.db"
    session = AgentmemdSession("fresh", db_path=where, socket=served.socket, namespace="oa-fresh")
    asyncio.run(session.add_items([{"role": "user", "content": "hello there"}]))
    session.close()
    assert where.is_file()


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


def test_a_langgraph_store_answers_as_langgraphs_own_in_memory_store(served):
    """The same operations on LangGraph's InMemoryStore (the reference) and on AgentmemdStore."""
    from langgraph.store.memory import InMemoryStore

    from agentmemd.daemon.frameworks.langgraph_store import AgentmemdStore

    ours, reference = AgentmemdStore(socket=served.socket, namespace="lg"), InMemoryStore()
    writes = [
        (("users", "ana"), "home", {"content": "Ana lives in Porto"}),
        (("users", "ana"), "tea", {"text": "Ana drinks oolong"}),
        (("users", "ana"), "profile", {"name": "Ana", "age": 34, "tags": ["porto", "tea"], "pets": {"cat": "Miso"}}),
        (("users", "bo"), "home", {"content": "Ana lives in Porto"}),  # the same text under another key
        (("users", "bo", "work"), "desk", {"content": "Bo's desk is by the window"}),
        (("teams/ops", "a:b"), "k#1;x", {"content": "odd characters in every part"}),
        (("users", "ana"), "empty", {}),
    ]
    for store in (ours, reference):
        for namespace, key, value in writes:
            store.put(namespace, key, value)
        store.put(("users", "ana"), "home", {"content": "Ana moved to Lisbon"})  # a new version
        store.put(("users", "bo"), "home", None)  # deleted

    def seen(items):
        return sorted((tuple(i.namespace), i.key, json.dumps(i.value, sort_keys=True)) for i in items)

    for namespace, key, _ in writes:
        got, want = ours.get(namespace, key), reference.get(namespace, key)
        assert (got and got.value) == (want and want.value), (namespace, key)
    for prefix in [(), ("users",), ("users", "ana"), ("users", "an"), ("teams/ops",)]:
        assert seen(ours.search(prefix, limit=100)) == seen(reference.search(prefix, limit=100)), prefix
    # (LangGraph's numeric operators raise on an item without the field: left to its own tests.)
    for wanted in [{"name": "Ana"}, {"name": {"$ne": "Bo"}}, {"pets": {"cat": "Miso"}}, {"text": "Ana drinks oolong"}]:
        assert seen(ours.search(("users",), filter=wanted)) == seen(reference.search(("users",), filter=wanted))
    # InMemoryStore lists a namespace whose items were all deleted; a namespace here is one with items.
    populated = {tuple(i.namespace) for i in reference.search((), limit=100)}
    assert ours.list_namespaces() == [ns for ns in reference.list_namespaces() if ns in populated]
    assert ours.list_namespaces(prefix=("users",), max_depth=2) == reference.list_namespaces(
        prefix=("users",), max_depth=2
    )
    assert ours.list_namespaces(suffix=("work",)) == reference.list_namespaces(suffix=("work",))
    assert len(ours.search(("users",), limit=2)) == 2 and len(ours.search(("users",), limit=2, offset=4)) == 1

    # A search with a query is agentmemd's: the item that answers comes first, with its score.
    hits = ours.search(("users",), query="which city does Ana live in now?", limit=3)
    assert hits[0].key == "home" and hits[0].value == {"content": "Ana moved to Lisbon"} and hits[0].score > 0

    # They are agentmemd's memories: forgotten there, gone from the store.
    with Client(served.socket) as owner:
        tea = ours.get(("users", "ana"), "tea")
        found = owner.memory_list(namespace="lg", source="langgraph:users/ana#tea;").items
        assert [m.content for m in found] == ["Ana drinks oolong"] and tea is not None
        owner.memory_forget(id=found[0].id, namespace="lg", confirm=True)
    assert ours.get(("users", "ana"), "tea") is None


def test_deleting_a_store_key_deletes_that_key_alone(served):
    """LangGraph's delete is one item's; it ran agentmemd's whole forget, which also forgets every
    memory that says the same words: another key's item, another namespace's, an app's own."""
    from agentmemd.daemon.frameworks.langgraph_store import AgentmemdStore

    store = AgentmemdStore(socket=served.socket, namespace="lg-del")
    for namespace in (("users", "ana"), ("users", "bob")):
        store.put(namespace, "k1", {"content": "The spare key is under the blue pot"})
    store.put(("users", "ana"), "k2", {"content": "The spare key is under the blue pot"})
    with Client(served.socket) as owner:
        item = {"content": "The spare key is under the blue pot", "type": "fact", "namespace": "lg-del"}
        [own] = owner.call("memory.add_many", {"items": [item]})["ids"]  # as given: memory.add would take the same
        store.delete(("users", "ana"), "k1")
        assert store.get(("users", "ana"), "k1") is None
        assert store.get(("users", "ana"), "k2") is not None and store.get(("users", "bob"), "k1") is not None
        assert owner.memory_get(id=own, namespace="lg-del").content == "The spare key is under the blue pot"
        store.put(("users", "bob"), "k1", None)
        assert store.get(("users", "bob"), "k1") is None and store.get(("users", "ana"), "k2") is not None


def test_a_json_item_a_person_corrected_in_agentmemd_reads_as_their_words(served):
    """memory update (the dashboard's Correct it) of an item stored as JSON made get and search over
    its namespace raise JSONDecodeError: the store's other items were unreadable too."""
    from agentmemd.daemon.frameworks.langgraph_store import AgentmemdStore

    store = AgentmemdStore(socket=served.socket, namespace="lg-fix")
    store.put(("users", "ana"), "profile", {"name": "Ana", "city": "Porto"})
    store.put(("users", "ana"), "tea", {"content": "Ana drinks oolong"})
    with Client(served.socket) as owner:
        [row] = owner.memory_list(namespace="lg-fix", source="langgraph:users/ana#profile;").items
        owner.memory_update(id=row.id, content="Ana lives in Lisbon now", namespace="lg-fix")
    assert store.get(("users", "ana"), "profile").value == {"content": "Ana lives in Lisbon now"}
    assert {i.key for i in store.search(("users",))} == {"profile", "tea"}


def test_a_search_with_a_query_and_a_filter_finds_every_item_the_filter_keeps(served):
    """Of 61 notes, query 'invoice meeting' with filter {'client': 7} gave [] (InMemoryStore: n7):
    the filter was applied to the query's top hits alone."""
    from agentmemd.daemon.frameworks.langgraph_store import AgentmemdStore

    store = AgentmemdStore(socket=served.socket, namespace="lg-filter")
    for i in range(61):
        store.put(("notes",), f"n{i}", {"text": f"Invoice meeting notes number {i}", "client": i % 60})
    found = store.search(("notes",), query="invoice meeting", filter={"client": 7})
    assert sorted(item.key for item in found) == ["n7"]
    assert all(item.score is not None for item in found)


def test_a_langgraph_graph_keeps_its_memories_in_agentmemd(served):
    from typing import TypedDict

    from langgraph.graph import END, START, StateGraph
    from langgraph.store.base import BaseStore

    from agentmemd.daemon.frameworks.langgraph_store import AgentmemdStore

    class State(TypedDict):
        said: str
        recalled: str

    def remember(state: State, *, store: BaseStore) -> dict:
        store.put(("memories", "ana"), "latest", {"content": state["said"]})
        hits = store.search(("memories", "ana"), query=state["said"], limit=1)
        return {"recalled": hits[0].value["content"]}

    builder = StateGraph(State)
    builder.add_node("remember", remember)
    builder.add_edge(START, "remember")
    builder.add_edge("remember", END)
    graph = builder.compile(store=AgentmemdStore(socket=served.socket, namespace="lg-graph"))
    out = asyncio.run(graph.ainvoke({"said": "I adopted a greyhound called Pixel", "recalled": ""}))
    assert out["recalled"] == "I adopted a greyhound called Pixel"
    with Client(served.socket) as owner:
        pack = owner.context_pack(query="what is my dog called?", namespace="lg-graph", budget_tokens=200)
    assert "Pixel" in pack.text


def test_the_session_keeps_one_connection_and_opens_another_when_the_daemon_closed_it(served, monkeypatch):
    import socket

    from agentmemd.daemon.frameworks import openai_agents

    opened = []

    class Counted(Client):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            opened.append(self)

    monkeypatch.setattr(openai_agents, "Client", Counted)
    session = AgentmemdSession("kept", socket=served.socket, namespace="oa")

    async def run():
        for i in range(3):
            await session.add_items([{"role": "user", "content": f"change {i}"}])
        assert len(opened) == 1  # one connection for every change
        closed = opened[0]._sock
        closed.shutdown(socket.SHUT_RDWR)  # as a daemon that restarted closed it
        await session.add_items([{"role": "user", "content": "after the restart"}])
        assert len(opened) == 1 and opened[0]._sock is not closed  # the client opened a new connection itself

    asyncio.run(run())
    session.close()
    with Client(served.socket) as owner:
        kept = owner.conversation_turns(session=session_name("kept"), namespace="oa").turns
    assert [t.content for t in kept] == ["change 0", "change 1", "change 2", "after the restart"]
