"""identity.graph, identity.node, identity.edge.add and identity.edge.remove: the identity graph as
the doors show and change it; bad input is refused with the field and the reason, and changes
nothing."""

from __future__ import annotations

import pytest

from agentmemd.daemon.socket.client import RpcCallError

pytestmark = pytest.mark.inprocess

SOUL = """# SOUL
- I am Nova, a personal assistant.
- values [[honesty]]: never lie to spare feelings
- [[cats]] is a [[pet]]
- [[pet]] is a [[cats]]
"""
USER = """# USER
- Name: Callum Price, a radiographer.
- works as a [[radiographer]]: at the Northern General
"""


@pytest.fixture
def nova(in_process, tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "SOUL.md").write_text(SOUL)
    (ws / "USER.md").write_text(USER)
    return in_process(fake_embedder=True, workspace=ws)


def refused(d, method: str, params: dict) -> RpcCallError:
    before = d.call("stats", {"namespace": "default"})["live"]
    with pytest.raises(RpcCallError) as caught:
        d.call(method, params)
    assert d.call("stats", {"namespace": "default"})["live"] == before  # nothing changed
    return caught.value


def test_the_graph_names_the_agent_and_the_user_and_reports_the_cycle(nova):
    graph = nova.call("identity.graph", {})
    assert graph["agent"] == "Nova"
    texts = [e["text"] for e in graph["edges"]]
    assert texts == [
        "Nova values honesty: never lie to spare feelings",
        "cats is a pet",
        "Callum works as a radiographer: at the Northern General",
    ]
    honesty = graph["edges"][0]
    assert (honesty["file"], honesty["line"], honesty["kind"]) == ("SOUL.md", 3, "attributive")
    assert [(p["file"], p["line"]) for p in graph["problems"]] == [("SOUL.md", 5)]
    assert "ontological cycle" in graph["problems"][0]["message"]
    assert {n["key"] for n in graph["nodes"] if n["owner"]} == {"nova", "callum"}


def test_a_node_and_its_neighbourhood(nova):
    nova.call("identity.edge.add", {"relation": "is a kind of", "target": "animal", "source": "pet"})
    one = nova.call("identity.node", {"name": "CATS"})
    assert one["node"]["name"] == "cats" and [n["name"] for n in one["neighbours"]] == ["pet"]
    two = nova.call("identity.node", {"name": "cats", "hops": 2})
    assert {(n["name"], n["hops"]) for n in two["neighbours"]} == {("pet", 1), ("animal", 2)}
    assert {e["text"] for e in two["edges"]} == {"cats is a pet", "pet is a kind of animal"}
    error = refused(nova, "identity.node", {"name": "Nobody"})
    assert error.code == -32001 and "no node named 'Nobody'" in error.message


def test_added_relations_are_memories_and_bad_ones_are_refused(nova):
    added = nova.call(
        "identity.edge.add", {"relation": "believes in", "target": "open source", "note": "share what we build"}
    )
    assert added["edge"]["text"] == "Nova believes in open source: share what we build"
    memory = nova.call("memory.get", {"id": added["id"]})
    assert memory["type"] == "persona" and memory["content"] == "believes in [[open source]]: share what we build"
    user = nova.call("identity.edge.add", {"relation": "is the sister of", "target": "the user", "source": "Callum"})
    assert nova.call("memory.get", {"id": user["id"]})["type"] == "persona"
    sister = nova.call("identity.edge.add", {"relation": "plays", "target": "chess", "about": "user"})
    assert sister["edge"]["text"] == "Callum plays chess"
    assert nova.call("memory.get", {"id": sister["id"]})["type"] == "relational"

    missing = refused(nova, "identity.edge.add", {"relation": "knows", "target": "Bo", "source": "Nobody"})
    assert "source" in missing.message and "no node named 'Nobody'" in missing.message
    cycle = refused(nova, "identity.edge.add", {"relation": "is a", "target": "cats", "source": "pet"})
    assert "target" in cycle.message and "an ontological cycle" in cycle.message
    caused = nova.call("identity.edge.add", {"relation": "led to", "target": "calm", "source": "honesty"})
    assert caused["edge"]["kind"] == "causal"
    loop = refused(nova, "identity.edge.add", {"relation": "causes", "target": "honesty", "source": "calm"})
    assert "causal cycle" in loop.message
    # A relation the graph states already was added again, and listed twice in every identity block.
    twice = refused(nova, "identity.edge.add", {"relation": "values", "target": "honesty", "note": "never lie"})
    assert "is stated already (SOUL.md line" in twice.message and "nothing added" in twice.message
    again = refused(nova, "identity.edge.add", {"relation": "plays", "target": "chess", "about": "user"})
    assert f"memory {sister['id']}" in again.message
    for bad in (
        {"relation": "values", "target": "[[x]]"},
        {"relation": "", "target": "x"},
        {"relation": "a:b", "target": "x"},
    ):
        assert refused(nova, "identity.edge.add", bad).code == -32602


def test_remove_archives_an_added_relation_and_refuses_a_written_one(nova):
    added = nova.call("identity.edge.add", {"relation": "likes", "target": "jazz"})
    removed = nova.call("identity.edge.remove", {"id": added["id"]})
    assert removed["removed"]["text"] == "Nova likes jazz"
    assert "jazz" not in {n["key"] for n in nova.call("identity.graph", {})["nodes"]}
    nova.call("memory.restore", {"id": added["id"]})  # recoverable, as every archive is
    assert "jazz" in {n["key"] for n in nova.call("identity.graph", {})["nodes"]}

    written = nova.call("identity.graph", {})["edges"][0]
    error = refused(nova, "identity.edge.remove", {"id": written["memory_id"]})
    assert "written in SOUL.md line 3" in error.message
    assert refused(nova, "identity.edge.remove", {"id": "m0000000000000000"}).code == -32001


def test_another_namespace_has_its_own_graph(nova):
    nova.call("identity.edge.add", {"relation": "values", "target": "thrift", "namespace": "bob"})
    bob = nova.call("identity.graph", {"namespace": "bob"})
    assert [e["text"] for e in bob["edges"]] == ["the agent values thrift"]
    assert "thrift" not in {n["key"] for n in nova.call("identity.graph", {})["nodes"]}
