"""IdentityService: the identity graph as the doors show and change it (identity.graph,
identity.node, identity.edge.add, identity.edge.remove). The graph itself is read from the
memories (persona/identity/recall.py); a relation added here is a memory like any other, so it
has versions, an audience, and goes with `memory.forget`. A relation written in SOUL.md,
IDENTITY.md or USER.md is changed by editing the file: the person's Markdown is theirs."""

from __future__ import annotations

from typing import Any

from agentmemd.daemon.services.memory_writes import MemoryWrites
from agentmemd.memory.core.errors import InvalidParams, NotFound
from agentmemd.memory.core.models import (
    AddParams,
    IdentityEdgeAddParams,
    IdentityGraphParams,
    IdentityNodeParams,
    IdParams,
)
from agentmemd.memory.core.results import IdentityEdgeAddResult
from agentmemd.persona.identity.graph import GraphItem, graph_of, node_key
from agentmemd.persona.identity.recall import THE_USER, IdentityRecall, edge_view, node_view

_NEW = "(new)"  # the memory id a relation has while it is checked, before it is stored


class IdentityService:
    def __init__(self, recall: IdentityRecall, writes: MemoryWrites):
        self.recall = recall
        self.writes = writes
        self.memories = writes.memories
        self.store = writes.memories.store

    def graph(self, p: IdentityGraphParams) -> dict[str, Any]:
        loaded = self.recall.graph(p.namespace)
        graph = loaded.graph
        return {
            "agent": loaded.agent,
            "nodes": [node_view(loaded, n) for n in sorted(graph.nodes.values(), key=lambda n: n.key)],
            "edges": [edge_view(loaded, e) for e in graph.edges],
            "problems": [{"file": pr.file, "line": pr.line, "message": pr.message} for pr in graph.problems],
        }

    def node(self, p: IdentityNodeParams) -> dict[str, Any]:
        return self.recall.node(p.namespace, p.name, p.hops)

    def add_edge(self, p: IdentityEdgeAddParams) -> IdentityEdgeAddResult:
        """Check the relation against the graph as it is (a source it has, no cycle), then store it.
        Runs beside the store thread: the memory is embedded there (memory_writes.py)."""
        with self.store.reading():
            loaded = self.recall.graph(p.namespace)
        owner = THE_USER if p.about == "user" else loaded.agent
        relation = " ".join(p.relation.split())
        note = f": {' '.join(p.note.split())}" if p.note and p.note.strip() else ""
        if p.source is None:
            text = f"{relation} [[{p.target.strip()}]]{note}"
        else:
            if node_key(p.source) not in loaded.graph.nodes and node_key(p.source) != node_key(owner):
                raise InvalidParams(
                    "source",
                    f"no node named {p.source!r} in the identity graph of namespace {p.namespace!r}: add a relation "
                    f"that reaches it first (e.g. relation 'knows', target {p.source!r}), or leave source out to "
                    f"relate {owner} itself",
                )
            text = f"[[{p.source.strip()}]] {relation} [[{p.target.strip()}]]{note}"
        trial = graph_of([*loaded.items, GraphItem(text, "", 0, owner, _NEW)])
        if not any(e.memory_id == _NEW for e in trial.edges):
            why = next((pr.message for pr in trial.problems if pr.file == "" and pr.line == 0), "not a relation")
            raise InvalidParams("target", f"{text!r} is not added: {why}")
        new = next(e for e in trial.edges if e.memory_id == _NEW)
        # The user is "the user" in the trial and named in the graph (USER.md's "Name: Callum Price").
        named_user = next((k for k in sorted(loaded.owners) if k != node_key(loaded.agent)), node_key(THE_USER))
        said = (named_user if new.source == node_key(THE_USER) else new.source, new.relation, new.target)
        stated = next((e for e in loaded.graph.edges if (e.source, e.relation, e.target) == said), None)
        if stated is not None:  # listed twice in the graph and in every identity block
            where = f"{stated.file} line {stated.line}" if stated.file else f"memory {stated.memory_id}"
            raise InvalidParams("target", f"{stated.text!r} is stated already ({where}): nothing added")
        added = self.writes.add(
            AddParams(
                content=text,
                type="relational" if p.about == "user" else "persona",
                namespace=p.namespace,
                source="identity.edge.add",
            )
        )
        with self.store.reading():
            loaded = self.recall.graph(p.namespace)
        edge = next(e for e in loaded.graph.edges if e.memory_id == added.id)
        return IdentityEdgeAddResult(id=added.id, edge=edge_view(loaded, edge))

    def remove_edge(self, p: IdParams) -> dict[str, Any]:
        """Archive the memory that states a relation added over the socket (recoverable with
        memory.restore); one written in a file is changed there."""
        loaded = self.recall.graph(p.namespace)
        edge = next((e for e in loaded.graph.edges if e.memory_id == p.id), None)
        if edge is None:
            raise NotFound(
                f"no relation of the identity graph of namespace {p.namespace!r} is stated by memory {p.id!r}",
                {"id": p.id},
            )
        if edge.file:
            raise InvalidParams(
                "id", f"the relation {edge.text!r} is written in {edge.file} line {edge.line}: change it there"
            )
        self.memories.archive(p.id, p.namespace, why="removed from the identity graph (identity.edge.remove)")
        return {"id": p.id, "removed": edge_view(loaded, edge)}
