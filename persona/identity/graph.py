"""The identity graph as people write it (seed 000, 3.2): who the agent (or the person it serves)
is, as nodes and typed, directed edges, read from the relation items of SOUL.md, IDENTITY.md and
USER.md (their items as the workspace's Markdown parser reads them: comments, owned sections and
list markers already gone, memory/workspace/markdown.py). An item names what it links to in
double brackets; the words before say how:

    - values [[honesty]]: never lie to spare feelings     (Nova) -values-> (honesty)
    - works at [[Fernwood Labs]]                          (Nova) -works_at-> (Fernwood Labs)
    - [[Laia]] is the sister of [[the user]]              (Laia) -is_the_sister_of-> (the user)
    - [[Maths]] is a [[science]]                          (Maths) -is_a-> (science)
    - [[Laia]]: my sister, a nurse in Girona              a node and what is said of it, no edge

A line with one link says something of the file's owner: the agent for SOUL.md and IDENTITY.md
(named as the persona spec finds it, "I am Nova"), the person for USER.md. A line with two links
says it of the first. What follows the last link after ":" or " - " is the edge's note. Lines
without a link are left to the persona spec (spec.py) and USER.md's memories, as before.

Nodes are typed by the relation that reaches them (``values`` a value, ``believes`` a belief,
``likes`` a preference, ``wants`` a goal, ``is`` a trait; any other an entity) and edges by
kind (seed 000: temporal, causal, ontological, attributive). An ontological or causal chain that
comes back to where it started ("[[cats]] is a [[pet]]", "[[pet]] is a [[cat]]") is a problem
reported with its lines, not an edge: the rest of the file still counts.

    graph = graph_of(GraphItem(item.content, "SOUL.md", item.line_start, owner="Nova") for item in items)
    graph.nodes, graph.edges, graph.problems

Every item may carry the memory it is stored as (``memory_id``): its edge or description keeps it,
so a changed line is a new version of that memory (superseded, not overwritten) and forgetting the
memory removes the edge (persona/identity/retrieval.py reads the graph from the live memories).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

# [[Target]] or [[Target|shown as]]; a target holds no bracket or bar.
_LINK = re.compile(r"\[\[([^\[\]|]*)(?:\|([^\[\]]*))?\]\]")
_NOTE = re.compile(r"^\s*(?::|\s-\s|—|–)\s*")

# Relation words -> the type of the node they reach (seed 000: beliefs, traits, values,
# preferences, goals; anything else an entity: a person, a place, an organisation).
NODE_TYPES: dict[str, str] = {
    "values": "value",
    "cares_about": "value",
    "stands_for": "value",
    "believes": "belief",
    "believes_in": "belief",
    "believes_that": "belief",
    "thinks": "belief",
    "is_politically": "belief",
    "likes": "preference",
    "loves": "preference",
    "enjoys": "preference",
    "prefers": "preference",
    "dislikes": "preference",
    "hates": "preference",
    "wants": "goal",
    "wants_to": "goal",
    "aims_to": "goal",
    "plans_to": "goal",
    "hopes_to": "goal",
    "is_working_towards": "goal",
    "goal": "goal",
    "is": "trait",
    "is_known_for_being": "trait",
}
NODE_KINDS = ("value", "belief", "preference", "goal", "trait", "entity")
# How a person reads each kind's nodes (the CLI and the dashboard head them so).
NODE_KIND_LABELS = {
    "value": "values",
    "belief": "beliefs and stances",
    "preference": "preferences",
    "goal": "goals",
    "trait": "traits",
    "entity": "people, places and things",
}

# Relation words -> the edge's kind (seed 000's temporal, causal, ontological, attributive).
EDGE_KINDS = ("temporal", "causal", "ontological", "attributive")
_KIND_OF: dict[str, str] = {
    **dict.fromkeys(("before", "after", "since", "until", "happened_before", "happened_after", "followed"), "temporal"),
    **dict.fromkeys(("because_of", "causes", "caused", "leads_to", "led_to", "results_from", "because"), "causal"),
    **dict.fromkeys(
        ("is_a", "is_an", "is_a_kind_of", "is_a_type_of", "is_part_of", "part_of", "belongs_to"), "ontological"
    ),
}
# Kinds whose chains may not come back to where they started.
ACYCLIC_KINDS = ("ontological", "causal")


@dataclass(frozen=True)
class GraphItem:
    text: str  # the item as the workspace's parser reads it (or a memory's content)
    file: str  # where it is written ("SOUL.md"); "" for a memory added over the socket
    line: int  # its first line (0: none)
    owner: str  # whom a one-link item is about: the agent's name, or "the user"
    memory_id: str | None = None


@dataclass(frozen=True)
class Node:
    name: str  # as written first (the key is its lower case)
    kind: str  # NODE_KINDS
    file: str
    line: int  # where it was first named
    description: str = ""  # what a line of its own says of it ("[[Laia]]: my sister, a nurse in Girona")
    memory_id: str | None = None  # the memory that describes it, where one does

    @property
    def key(self) -> str:
        return node_key(self.name)


@dataclass(frozen=True)
class Edge:
    source: str  # node keys
    relation: str  # the words before the link, lower case, joined by "_" ("works_at")
    target: str
    kind: str  # EDGE_KINDS
    note: str  # what the line says after the link, or ""
    text: str  # the line as a sentence, for embedding and for the context ("Nova works at Fernwood Labs")
    file: str
    line: int
    memory_id: str | None = None


@dataclass(frozen=True)
class Problem:
    file: str
    line: int
    message: str


@dataclass
class ParsedGraph:
    nodes: dict[str, Node] = field(default_factory=dict)  # key -> node
    edges: list[Edge] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


def node_key(name: str) -> str:
    """How a node is told apart: its name in lower case, spaces squeezed ("Fernwood  Labs" is "fernwood labs")."""
    return " ".join(name.split()).casefold()


def relation_name(words: str) -> str:
    """The relation a line's words say: lower case, joined by "_", punctuation out ("works at" -> "works_at")."""
    return "_".join(re.findall(r"[^\W_]+", words.casefold()))


def edge_kind(relation: str) -> str:
    """The kind of an edge by its relation ("is_before" is temporal as "before" is; "is_a" ontological)."""
    if relation in _KIND_OF:
        return _KIND_OF[relation]
    bare = re.sub(r"^(?:is|was|are|were|has_been|had_been|happened)_", "", relation)
    return _KIND_OF.get(bare, "attributive")


def graph_of(items: Iterable[GraphItem]) -> ParsedGraph:
    """The nodes and edges of the relation items (those with a [[link]]; the rest are passed over)."""
    graph = ParsedGraph()
    for item in items:
        if "[[" in item.text:
            _read_item(graph, item)
    _drop_cycles(graph)
    graph.problems.sort(key=lambda p: (p.file, p.line))
    return graph


def _read_item(graph: ParsedGraph, item: GraphItem) -> None:
    text, file, number, owner = item.text, item.file, item.line, item.owner
    links = list(_LINK.finditer(text))
    if not links:
        graph.problems.append(Problem(file, number, "an unclosed [[link]]"))
        return
    names = [link.group(1).strip() for link in links]
    if not all(names):
        graph.problems.append(Problem(file, number, "an empty [[]] link: write what it links to inside the brackets"))
        return
    if len(links) > 2:
        graph.problems.append(Problem(file, number, "a line links at most two things: [[A]] relation [[B]]"))
        return
    note = _NOTE.sub("", text[links[-1].end() :]).strip()
    if len(links) == 1:
        source_name, words, target_name = owner, text[: links[0].start()], names[0]
        if not relation_name(words):  # "- [[Laia]]: my sister": a node, and what is said of it
            node = _add_node(graph, target_name, "entity", file, number)
            said = " ".join(_NOTE.sub("", text[links[0].end() :]).split())
            if said and not node.description:
                graph.nodes[node.key] = replace(node, description=said, memory_id=item.memory_id)
            return
    else:
        if text[: links[0].start()].strip():
            graph.problems.append(
                Problem(file, number, "a line with two links starts with the first: [[A]] relation [[B]]")
            )
            return
        source_name, words, target_name = names[0], text[links[0].end() : links[1].start()], names[1]
    relation = relation_name(words)
    if not relation:
        graph.problems.append(Problem(file, number, "no relation between the two links: [[A]] relation [[B]]"))
        return
    source = _add_node(graph, source_name, "entity", file, number)
    target = _add_node(graph, target_name, NODE_TYPES.get(relation, "entity"), file, number)
    sentence = f"{source_name} {' '.join(words.split())} {target_name}" + (f": {note}" if note else "")
    graph.edges.append(
        Edge(source.key, relation, target.key, edge_kind(relation), note, sentence, file, number, item.memory_id)
    )


def _add_node(graph: ParsedGraph, name: str, kind: str, file: str, number: int) -> Node:
    """The node of that name, made if new; an entity named again as a value (say) becomes one."""
    key = node_key(name)
    known = graph.nodes.get(key)
    if known is None or (known.kind == "entity" and kind != "entity"):
        graph.nodes[key] = replace(known, kind=kind) if known else Node(name, kind, file, number)
    return graph.nodes[key]


def _drop_cycles(graph: ParsedGraph) -> None:
    """An ontological or causal edge that closes a chain back to its start is a problem, not an edge."""
    for kind in ACYCLIC_KINDS:
        kept: dict[str, set[str]] = {}
        for edge in list(graph.edges):
            if edge.kind != kind:
                continue
            if edge.source == edge.target or _reaches(kept, edge.target, edge.source):
                graph.edges.remove(edge)
                graph.problems.append(
                    Problem(
                        edge.file,
                        edge.line,
                        f"{'an' if kind[0] in 'aeiou' else 'a'} {kind} cycle: {graph.nodes[edge.target].name} already leads back to "
                        f"{graph.nodes[edge.source].name}; the line is left out",
                    )
                )
                continue
            kept.setdefault(edge.source, set()).add(edge.target)


def _reaches(edges: dict[str, set[str]], start: str, goal: str) -> bool:
    seen, todo = {start}, [start]
    while todo:
        node = todo.pop()
        if node == goal:
            return True
        for nxt in edges.get(node, ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return False
