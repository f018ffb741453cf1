"""The identity graph as people write it (persona/identity/graph.py): relation lines of SOUL.md,
IDENTITY.md and USER.md become typed nodes and edges; bad lines are problems naming their line,
and the rest of the file still counts."""

from __future__ import annotations

import pytest

from agentmemd.memory.workspace.markdown import parse_markdown
from agentmemd.persona.identity.graph import GraphItem, graph_of, node_key

pytestmark = pytest.mark.inprocess


def read(text: str, file: str, owner: str):
    """The graph of a file's items, as the workspace's parser reads them."""
    return graph_of(GraphItem(it.content, file, it.line_start, owner) for it in parse_markdown(file, text))


SOUL = """# SOUL
<!-- Relations: - values [[honesty]] -->
- I am Nova, a personal assistant who is warm, direct and honest.
- values [[honesty]]: never lie to spare feelings
- believes in [[open source]]
- works at [[Fernwood Labs|Fernwood]]
- wants to [[learn Catalan]] before the trip
- [[Fernwood Labs]] is a [[research lab]]
- [[Laia]]: the user's sister, a nurse in Girona
- Never use emoji.
"""


def test_relation_lines_become_typed_nodes_and_edges():
    graph = read(SOUL, "SOUL.md", "Nova")
    assert graph.problems == []
    kinds = {key: node.kind for key, node in graph.nodes.items()}
    assert kinds == {
        "nova": "entity",
        "honesty": "value",
        "open source": "belief",
        "fernwood labs": "entity",
        "learn catalan": "goal",
        "research lab": "entity",
        "laia": "entity",
    }
    triples = [(e.source, e.relation, e.target, e.kind) for e in graph.edges]
    assert triples == [
        ("nova", "values", "honesty", "attributive"),
        ("nova", "believes_in", "open source", "attributive"),
        ("nova", "works_at", "fernwood labs", "attributive"),
        ("nova", "wants_to", "learn catalan", "attributive"),
        ("fernwood labs", "is_a", "research lab", "ontological"),
    ]
    values = graph.edges[0]
    assert values.note == "never lie to spare feelings" and values.line == 4 and values.file == "SOUL.md"
    assert values.text == "Nova values honesty: never lie to spare feelings"
    assert graph.nodes["laia"].description == "the user's sister, a nurse in Girona"
    assert graph.nodes["fernwood labs"].name == "Fernwood Labs"  # the target, not how it is shown


@pytest.mark.parametrize(
    "line, problem",
    [
        ("- values [[]]", "empty"),
        ("- values [[honesty", "unclosed"),
        ("- [[A]] likes [[B]] and [[C]]", "at most two"),
        ("- [[A]] [[B]]", "no relation"),
        ("- Nova says [[A]] likes [[B]]", "starts with the first"),
    ],
)
def test_a_bad_line_is_a_problem_naming_its_line_and_the_rest_still_counts(line, problem):
    text = f"# SOUL\n{line}\n- values [[kindness]]\n"
    graph = read(text, "SOUL.md", "Nova")
    assert [(p.line, problem in p.message) for p in graph.problems] == [(2, True)]
    assert [(e.relation, e.target) for e in graph.edges] == [("values", "kindness")]


def test_an_ontological_or_causal_cycle_is_left_out_and_reported():
    text = """- [[cat]] is a [[pet]]
- [[pet]] is a [[animal]]
- [[animal]] is a [[cat]]
- [[stress]] causes [[bad sleep]]
- [[bad sleep]] causes [[stress]]
- [[bad sleep]] is before [[stress]]
- [[maths]] is a [[maths]]
"""
    graph = read(text, "IDENTITY.md", "Nova")
    assert [(p.line, "cycle" in p.message) for p in graph.problems] == [(3, True), (5, True), (7, True)]
    kept = [(e.source, e.relation, e.target) for e in graph.edges]
    assert ("animal", "is_a", "cat") not in kept and ("bad sleep", "causes", "stress") not in kept
    # A temporal edge back is no cycle of causes: it stays.
    assert ("bad sleep", "is_before", "stress", "temporal") in [
        (e.source, e.relation, e.target, e.kind) for e in graph.edges
    ]
    assert ("pet", "is_a", "animal") in kept


def test_names_are_one_node_whatever_their_case_and_spacing():
    graph = read("- likes [[Tea]]\n- [[tea]]  is a [[Drink]]\n", "USER.md", "the user")
    assert node_key("Fernwood  Labs") == "fernwood labs"
    assert set(graph.nodes) == {"the user", "tea", "drink"} and graph.nodes["tea"].kind == "preference"
    assert graph.nodes["tea"].name == "Tea"
