"""Identity recall (seed 000's ID-RAG, 3.3): the identity graph read from the live memories, and
at each pack the part of it the request is about.

The graph is not a second copy of anything: its edges are the relation items of SOUL.md,
IDENTITY.md and USER.md and the persona/relational memories that link with [[...]] (graph.py
reads them), each edge kept with the memory that states it. So a line changed in a file is a new
version of its memory (the old one superseded, as for every memory), and forgetting the memory
takes its edge with it. It is read again whenever those memories change (their ids say so).

For a pack (seed 000, 3.3): the identity query's vector is compared with every edge's (its
memory's embedding) and every node's (its name and description); the ``nodes`` best nodes are
the seeds, their ``hops``-hop neighbourhood is read (never through the agent or the user: every
fact hangs off them), and the edges and descriptions found are packed, seeds' first, most similar
first, within the block's budget. What the listener may not hear is left out, as in every pack.

    recall = IdentityRecall(tables, embedder, config.identity, may_hear)
    lines = recall.block("default", "where do you stand on reactors?", budget_tokens=250, listener=None)
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agentmemd.memory.core.config import IdentityConfig
from agentmemd.memory.core.errors import NotFound
from agentmemd.memory.retrieval.embeddings import Embedder
from agentmemd.memory.retrieval.packing import BlockLine
from agentmemd.memory.store.persona_tables import PersonaTables
from agentmemd.persona.identity.graph import Edge, GraphItem, Node, ParsedGraph, graph_of, node_key
from agentmemd.persona.identity.spec import PERSONA_FILES, agent_name

THE_USER = "the user"  # whom USER.md and relational memories speak of, until USER.md names them
THE_AGENT = "the agent"  # the agent, until SOUL.md or IDENTITY.md names it ("I am Nova")
_LINE = re.compile(r"\bL(\d+)")


@dataclass
class LoadedGraph:
    """One namespace's graph with what a query is compared with."""

    ids: tuple[str, ...]  # the memories it was read from: a change in them is a new graph
    graph: ParsedGraph
    owners: frozenset[str]  # the agent's and the user's node keys
    agent: str
    edge_vectors: np.ndarray  # (edges, dim): each edge's sentence
    node_keys: list[str]
    node_vectors: np.ndarray  # (nodes, dim): name and description
    items: list[GraphItem] = field(
        default_factory=list
    )  # what it was read from (a new relation is checked against them)
    rows: dict[str, dict[str, Any]] = field(default_factory=dict)  # memory id -> type, source, audience
    incident: dict[str, list[int]] = field(default_factory=dict)  # node key -> its edges' indexes

    def neighbours(self, key: str) -> set[str]:
        out = set()
        for i in self.incident.get(key, ()):
            edge = self.graph.edges[i]
            out.add(edge.target if edge.source == key else edge.source)
        return out - self.owners


def _owner(row: dict[str, Any], agent: str) -> str:
    if row["path"] == "USER.md" or (row["path"] is None and row["type"] == "relational"):
        return THE_USER
    return agent


class IdentityRecall:
    def __init__(
        self,
        tables: PersonaTables,
        embedder: Embedder,
        config: IdentityConfig,
        may_hear: Callable[[str | None, str], bool],
    ):
        self.tables = tables
        self.embedder = embedder
        self.config = config
        self.may_hear = may_hear
        self._graphs: dict[str, LoadedGraph] = {}
        self._lock = threading.Lock()  # packs read graphs on several reader threads

    # ---- the graph -----------------------------------------------------------------

    def graph(self, namespace: str) -> LoadedGraph:
        """The namespace's graph as its memories say now (read again only when they changed)."""
        ids = tuple(r["id"] for r in self.tables.identity_items(namespace, ids_only=True))
        with self._lock:
            known = self._graphs.get(namespace)
        if known is not None and known.ids == ids:
            return known
        loaded = self._load(namespace)
        with self._lock:
            self._graphs[namespace] = loaded
        return loaded

    def _load(self, namespace: str) -> LoadedGraph:
        rows = self.tables.identity_items(namespace)
        agent = agent_name(r["content"] for r in rows if r["type"] == "persona" or r["path"] in PERSONA_FILES)
        agent = agent or THE_AGENT
        # USER.md's "Name: Callum Price" names the user as SOUL.md's "I am Nova" names the agent.
        user = agent_name(r["content"] for r in rows if _owner(r, agent) == THE_USER) or THE_USER
        items = [
            GraphItem(
                r["content"],
                r["path"] or "",
                int(m.group(1)) if (m := _LINE.search(r["source"] or "")) else 0,
                user if _owner(r, agent) == THE_USER else agent,
                r["id"],
            )
            for r in rows
        ]
        graph = graph_of(items)
        node_keys = list(graph.nodes)
        # Each edge as its sentence ("Callum works as a radiographer: ..."), not its memory's words
        # ("works as a [[radiographer]]: ..."): a question names whom it is about.
        texts = [e.text for e in graph.edges] + [_node_text(graph.nodes[k]) for k in node_keys]
        vectors = _normalised(self.embedder.embed(texts)) if texts else np.zeros((0, self.embedder.dim), np.float32)
        incident: dict[str, list[int]] = {}
        for i, edge in enumerate(graph.edges):
            incident.setdefault(edge.source, []).append(i)
            if edge.target != edge.source:
                incident.setdefault(edge.target, []).append(i)
        keep = ("type", "source", "audience", "content")
        return LoadedGraph(
            ids=tuple(r["id"] for r in rows),
            graph=graph,
            owners=frozenset({node_key(agent), node_key(user), node_key(THE_USER)}),
            agent=agent,
            edge_vectors=vectors[: len(graph.edges)],
            node_keys=node_keys,
            node_vectors=vectors[len(graph.edges) :],
            items=items,
            rows={r["id"]: {k: r[k] for k in keep} for r in rows},
            incident=incident,
        )

    # ---- a pack's block --------------------------------------------------------------

    def block(self, namespace: str, query: str, budget_tokens: int, listener: str | None) -> list[BlockLine]:
        """The identity lines for a request, best first, within ``budget_tokens`` (the lines' own
        tokens with their provenance; the block's wrapper is the pack's to count)."""
        if not self.config.retrieval or budget_tokens <= 0:
            return []
        loaded = self.graph(namespace)
        if not loaded.graph.edges and not any(n.description for n in loaded.graph.nodes.values()):
            return []
        ranked = self.ranked(loaded, self.embedder.embed_query(query), self.config.nodes, self.config.hops)
        out: list[BlockLine] = []
        used = 0
        for memory_id, text in ranked:
            row = loaded.rows[memory_id]
            if not self.may_hear(listener, row["audience"]):
                continue
            line = BlockLine(memory_id, "identity", _short_source(row["source"]), text, row["type"])
            if used + line.tokens > budget_tokens:
                continue  # a shorter line further down may still fit
            out.append(line)
            used += line.tokens
        return out

    @staticmethod
    def ranked(loaded: LoadedGraph, query: np.ndarray, nodes: int, hops: int) -> list[tuple[str, str]]:
        """(memory id, text) of the edges and descriptions near the query's best ``nodes`` nodes, by
        hop (the seeds' own first), then by similarity; then the remaining edges by similarity."""
        graph = loaded.graph
        q = np.asarray(query, dtype=np.float32)
        edge_sim = loaded.edge_vectors @ q if len(graph.edges) else np.zeros(0)
        node_sim = dict(zip(loaded.node_keys, (loaded.node_vectors @ q).tolist())) if loaded.node_keys else {}
        score = {
            key: max([node_sim[key], *(float(edge_sim[i]) for i in loaded.incident.get(key, ()))])
            for key in loaded.node_keys
            if key not in loaded.owners
        }
        seeds = sorted(score, key=lambda k: (-score[k], k))[:nodes]
        hop = {key: 0 for key in seeds}
        frontier = list(seeds)
        for depth in range(1, hops + 1):
            frontier = [n for key in frontier for n in sorted(loaded.neighbours(key)) if n not in hop]
            for n in frontier:
                hop.setdefault(n, depth)
        far = hops + 1  # what the neighbourhood did not reach: by similarity alone, after it
        facts: list[tuple[int, float, str, str]] = []
        for i, edge in enumerate(graph.edges):
            near = min(
                (hop.get(end, far) for end in (edge.source, edge.target) if end not in loaded.owners), default=far
            )
            facts.append((near, -float(edge_sim[i]), edge.memory_id or "", edge.text))
        for key, node in graph.nodes.items():
            if node.description and node.memory_id:
                facts.append((hop.get(key, far), -node_sim[key], node.memory_id, _node_text(node)))
        facts.sort()
        seen: set[str] = set()
        out = []
        for _near, _sim, memory_id, text in facts:
            if memory_id and memory_id not in seen:
                seen.add(memory_id)
                out.append((memory_id, text))
        return out

    # ---- browsing --------------------------------------------------------------------

    def node(self, namespace: str, name: str, hops: int) -> dict[str, Any]:
        """A node, its neighbourhood within ``hops`` and the edges among them, each with where it came from."""
        loaded = self.graph(namespace)
        key = node_key(name)
        if key not in loaded.graph.nodes:
            raise NotFound(f"no node named {name!r} in the identity graph of namespace {namespace!r}", {"name": name})
        reach = {key: 0}
        frontier = [key]
        for depth in range(1, hops + 1):
            nxt = []
            for k in frontier:
                near = {e.target if e.source == k else e.source for e in _edges_of(loaded, k)}
                nxt.extend(n for n in sorted(near) if n not in reach)
            for n in nxt:
                reach.setdefault(n, depth)
            frontier = [n for n in nxt if n not in loaded.owners]  # the agent and the user are not walked through
        edges = [
            e
            for e in loaded.graph.edges
            if e.source in reach and e.target in reach and (key in (e.source, e.target) or hops > 1)
        ]
        return {
            "node": node_view(loaded, loaded.graph.nodes[key]),
            "neighbours": [
                {**node_view(loaded, loaded.graph.nodes[k]), "hops": d} for k, d in sorted(reach.items()) if k != key
            ],
            "edges": [edge_view(loaded, e) for e in edges],
        }


def _edges_of(loaded: LoadedGraph, key: str) -> list[Edge]:
    return [loaded.graph.edges[i] for i in loaded.incident.get(key, ())]


def node_view(loaded: LoadedGraph, node: Node) -> dict[str, Any]:
    return {
        "key": node.key,
        "name": node.name,
        "kind": node.kind,
        "description": node.description,
        "file": node.file,
        "line": node.line,
        "memory_id": node.memory_id,
        "owner": node.key in loaded.owners,
        "edges": len(loaded.incident.get(node.key, ())),
    }


def edge_view(loaded: LoadedGraph, edge: Edge) -> dict[str, Any]:
    row = loaded.rows.get(edge.memory_id or "", {})
    return {
        "source": edge.source,
        "relation": edge.relation,
        "target": edge.target,
        "kind": edge.kind,
        "note": edge.note,
        "text": edge.text,
        "file": edge.file,
        "line": edge.line,
        "memory_id": edge.memory_id,
        "audience": row.get("audience"),
    }


def _short_source(source: str | None) -> str | None:
    """ "USER.md#USER > House rules L46" -> "USER.md L46": the block's lines are many and short."""
    if not source or "#" not in source:
        return source
    line = _LINE.search(source)
    return source.split("#", 1)[0] + (f" L{line.group(1)}" if line else "")


def _node_text(node: Node) -> str:
    return f"{node.name}: {node.description}" if node.description else node.name


def _normalised(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return (vectors / np.where(norms == 0, 1, norms)).astype(np.float32)
