"""The identity bench's world (daemon/bench/identity_world/) holds what `agentmemd bench identity`
relies on: each quiz and situation fact is an item of its agent's files, the identities are larger
than the persona floor can pin, every relation line parses, and the competitors are distinct and
stable."""

from __future__ import annotations

import json

import pytest

from agentmemd.daemon.bench.identity import FILES, WORLD, _agents
from agentmemd.daemon.bench.identity_world.competitors import competing_memories
from agentmemd.memory.workspace.markdown import parse_markdown
from agentmemd.persona.identity.graph import GraphItem, graph_of

pytestmark = pytest.mark.inprocess


def items_of(agent: str) -> dict[str, list[str]]:
    return {
        name: [it.content for it in parse_markdown(name, (WORLD / agent / name).read_text(encoding="utf-8"))]
        for name in FILES
    }


@pytest.mark.parametrize("agent", _agents(None))
def test_each_agents_facts_are_its_items_and_its_graph_parses(agent):
    items = items_of(agent)
    quiz = json.loads((WORLD / "quiz.json").read_text(encoding="utf-8"))[agent]
    situations = json.loads((WORLD / "situations.json").read_text(encoding="utf-8"))[agent]
    assert len(quiz) == 20 and len(situations) == 12
    for question in quiz:
        assert question["fact"] in items[question["file"]], question
    blind = json.loads((WORLD / "situations_blind.json").read_text(encoding="utf-8"))[agent]
    assert len(blind) >= 10 and all(1 <= len(s["facts"]) <= 3 for s in blind)
    fresh = json.loads((WORLD / "situations_blind2.json").read_text(encoding="utf-8"))[agent]
    assert len(fresh) == 15 and sum(1 <= len(s["facts"]) <= 3 for s in fresh) >= 9
    every = {text for texts in items.values() for text in texts}
    assert all(fact in every for s in situations + blind + fresh for fact in s["facts"])
    graph = graph_of(
        GraphItem(text, name, 0, "the user" if name == "USER.md" else agent)
        for name, texts in items.items()
        for text in texts
    )
    assert graph.problems == [] and len(graph.edges) >= 85


def test_the_competitors_are_distinct_and_a_prefix_of_more():
    few, more = competing_memories(2_000), competing_memories(5_000)
    assert len(set(more)) == 5_000 and more[:2_000] == few
    facts = {text for agent in _agents(None) for texts in items_of(agent).values() for text in texts}
    assert not facts & set(more)


def test_an_unknown_agent_is_named():
    with pytest.raises(ValueError, match="no agent nobody"):
        _agents(["nobody"])
