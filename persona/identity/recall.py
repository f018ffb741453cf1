"""Identity recall (seed 000's ID-RAG, 3.3): the identity graph read from the live memories, and
at each pack the part of it the request is about.

The graph is not a second copy of anything: its edges are the relation items of SOUL.md,
IDENTITY.md and USER.md and the persona/relational memories that link with [[...]] (graph.py
reads them), each edge kept with the memory that states it. So a line changed in a file is a new
version of its memory (the old one superseded, as for every memory), and forgetting the memory
takes its edge with it. It is read again whenever those memories change (a count the store keeps, m040: one stored,
replaced, forgotten, archived, shared with other listeners or moved within the files).

For a pack (seed 000, 3.3): the identity query's vector is compared with every edge's (its
memory's embedding) and every node's (its name and description); the ``nodes`` best nodes are
the seeds, their ``hops``-hop neighbourhood is read (never through the agent or the user: every
fact hangs off them), and the edges and descriptions found are packed, seeds' first, most similar
first, within the block's budget. What the listener may not hear is left out, as in every pack.

    recall = IdentityRecall(tables, embedder, config.identity, may_hear)
    lines = recall.block("default", "where do you stand on reactors?", budget_tokens=250, listener=None)
"""

from __future__ import annotations

import math
import re
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agentmemd.memory.core.config import IdentityConfig
from agentmemd.memory.core.errors import NotFound
from agentmemd.memory.core.text import content_words, without_links
from agentmemd.memory.language.slots import AGENT, SELF, asked_slots, filled_slots
from agentmemd.memory.language.speakers import agent_name
from agentmemd.memory.retrieval.embeddings import Embedder, normalise_rows
from agentmemd.memory.retrieval.pack_fitting import BlockLine
from agentmemd.memory.safety.neutraliser import as_data
from agentmemd.memory.safety.secrets import mask
from agentmemd.memory.store.persona_tables import PersonaTables
from agentmemd.persona.identity.acts import acts_in, asks_to_act
from agentmemd.persona.identity.graph import Edge, GraphItem, Node, ParsedGraph, graph_of, node_key
from agentmemd.persona.identity.said_relations import said_relations
from agentmemd.persona.identity.spec import PERSONA_FILES

# Identity recall's match: the share of the lexical signal (IDF-weighted words in common) beside
# MiniLM's; a fact touching a seed node is lifted by HOP_LIFT, one a hop further by half that. On
# the identity bench at 100,000 memories, 0.3 put 0.912 of the quiz's facts in the top 12 (dense
# alone 0.887; 0.5: 0.863).
LEXICAL_WEIGHT = 0.3
HOP_LIFT = 0.05
# A request to act (acts.py) lifts the facts that speak of the kinds of act it asks about, by
# ACT_LIFT times their share of its kinds (each kind weighted by its rarity among the facts), and
# the values, which govern acts, by VALUE_LIFT. Chosen on the identity bench's situations, offline
# over the block alone (which is what reaches a 1,000-token pack at 100,000 memories): the 48
# written with the persona files 32 -> 34 in the block, the 50 written without them 30 -> 34, the
# quiz's 80 questions unchanged at 74 (docs/benchmarks.md).
ACT_LIFT = 0.05
VALUE_LIFT = 0.15
# A question that asks a fact slot of someone ("What is your job?", "Where does Callum live?",
# memory/language/slots.py) lifts the facts that fill that slot for them ("Juno works as a cycling
# coach") by SLOT_LIFT: such a fact answers it, though "job" and "works as" share no word and the
# question's other words ("with Callum") lean to a dozen facts. A lift above any match's spread.
SLOT_LIFT = 0.5
HUB_MIN_EDGES, HUB_SHARE = 8, 0.1  # a node with more edges than both is a hub

THE_USER = "the user"  # whom USER.md and relational memories speak of, until USER.md names them
THE_AGENT = "the agent"  # the agent, until SOUL.md or IDENTITY.md names it ("I am Nova")
_UNNAMED = (THE_USER, THE_AGENT)
_LINE = re.compile(r"\bL(\d+)")


@dataclass(frozen=True)
class Fact:
    """What a block line says: an edge's sentence or a node's description, with its memory."""

    memory_id: str
    text: str
    ends: tuple[str, ...]  # the node keys it touches
    words: frozenset[str]  # its content words (the lexical half of its match)
    acts: frozenset[str] = frozenset()  # the kinds of act it speaks of (acts.py)
    kind: str = "entity"  # what it links to: a value, a belief, a preference, a goal, a trait or an entity
    slots: frozenset[tuple[str, str]] = frozenset()  # (slot, whose, by first name lower case) it fills


@dataclass
class LoadedGraph:
    """One namespace's graph with what a query is compared with."""

    generation: int  # the store's count of changes to its sources when it was read (m040)
    graph: ParsedGraph
    owners: frozenset[str]  # the agent's and the user's node keys
    agent: str
    node_keys: list[str]
    node_vectors: np.ndarray  # (nodes, dim): name and description
    # The facts a block may hold: every edge, then every described node.
    facts: list[Fact] = field(default_factory=list)
    fact_vectors: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), np.float32))
    idf: dict[str, float] = field(default_factory=dict)  # a content word -> its rarity among the facts
    act_idf: dict[str, float] = field(default_factory=dict)  # a kind of act -> its rarity among the facts
    hubs: frozenset[str] = frozenset()  # the owners, and nodes too many facts hang off to lead anywhere
    user: str = THE_USER  # USER.md's name for the user
    items: list[GraphItem] = field(
        default_factory=list
    )  # what it was read from (a new relation is checked against them)
    rows: dict[str, dict[str, Any]] = field(default_factory=dict)  # memory id -> seq, type, source, audience
    incident: dict[str, list[int]] = field(default_factory=dict)  # node key -> its edges' indexes
    embedded: dict[str, np.ndarray] = field(default_factory=dict)  # each text it embedded -> its vector

    def neighbours(self, key: str) -> set[str]:
        out = set()
        for i in self.incident.get(key, ()):
            edge = self.graph.edges[i]
            out.add(edge.target if edge.source == key else edge.source)
        return out - self.hubs


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
        # Read before the sources: a change that lands between the two reads the graph again next time.
        generation = self.tables.identity_generation(namespace)
        with self._lock:
            known = self._graphs.get(namespace)
        if known is not None and known.generation == generation:
            return known
        loaded = self._load(namespace, generation)
        with self._lock:
            self._graphs[namespace] = loaded
        return loaded

    def warm(self, namespace: str) -> None:
        """Read the namespace's graph now (after a workspace sync), so the next pack does not wait
        for it (0.6 s for a graph of 90 facts)."""
        with self.tables.store.reading():
            self.graph(namespace)

    def _load(self, namespace: str, generation: int) -> LoadedGraph:
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
        # "my sister Ana" in what was said (a relational observation): the graph's too, as that memory's.
        items += [
            GraphItem(said, "", 0, user, r["id"])
            for r in rows
            if r["type"] == "relational" and not r["path"] and "[[" not in r["content"]
            for said in said_relations(r["content"], user)
        ]
        graph = graph_of(items)
        node_keys = list(graph.nodes)
        whose = _whose(agent, user)
        facts = [
            Fact(
                e.memory_id or "",
                e.text,
                (e.source, e.target),
                _words(e.text),
                acts_in(e.text),
                graph.nodes[e.target].kind,
                _slots_of(e.text, whose),
            )
            for e in graph.edges
        ] + [
            Fact(
                n.memory_id,
                _node_text(n),
                (n.key,),
                _words(_node_text(n)),
                acts_in(_node_text(n)),
                n.kind,
                _slots_of(_node_text(n), whose),
            )
            for n in graph.nodes.values()
            if n.description and n.memory_id
        ]
        by_id = {r["id"]: r for r in rows}
        # A fact is matched by its sentence ("Callum works as a radiographer: ...") and by its words
        # as written ("works as a radiographer: ..."), averaged: the sentence says whom it is about,
        # but a question naming the user then leans to every fact that names them. On the identity
        # bench (100,000 memories) the average put 0.875 of the quiz's facts in the top 8, against
        # 0.812 and 0.838 for either alone.
        written = [without_links(by_id[f.memory_id]["content"]) for f in facts]
        texts = [f.text for f in facts] + written + [_node_text(graph.nodes[k]) for k in node_keys]
        dim = self.embedder.dim
        embedded = self._embedded(namespace, texts)
        vectors = np.stack([embedded[t] for t in texts]) if texts else np.zeros((0, dim), np.float32)
        n = len(facts)
        fact_vectors = normalise_rows((vectors[:n] + vectors[n : 2 * n]) / 2) if n else np.zeros((0, dim), np.float32)
        incident: dict[str, list[int]] = {}
        for i, edge in enumerate(graph.edges):
            incident.setdefault(edge.source, []).append(i)
            if edge.target != edge.source:
                incident.setdefault(edge.target, []).append(i)
        owners = frozenset({node_key(agent), node_key(user), node_key(THE_USER)})
        # A node as central as the owners ("Callum Price", whom the coach's every goal names) is
        # walked through no more than they are: its neighbourhood is the whole graph.
        busy = max(HUB_MIN_EDGES, HUB_SHARE * len(graph.edges))
        hubs = owners | {key for key, edges in incident.items() if len(edges) > busy}
        df: dict[str, int] = {}
        for fact in facts:
            for word in fact.words:
                df[word] = df.get(word, 0) + 1
        keep = ("seq", "type", "source", "audience", "content")
        return LoadedGraph(
            generation=generation,
            graph=graph,
            owners=owners,
            agent=agent,
            node_keys=node_keys,
            node_vectors=vectors[2 * n :],
            facts=facts,
            fact_vectors=fact_vectors,
            idf={word: math.log(1 + n / count) for word, count in df.items()},
            act_idf={act: math.log(1 + n / count) for act, count in Counter(a for f in facts for a in f.acts).items()},
            hubs=hubs,
            user=user,
            items=items,
            rows={r["id"]: {k: r[k] for k in keep} for r in rows},
            incident=incident,
            embedded=embedded,
        )

    def _embedded(self, namespace: str, texts: list[str]) -> dict[str, np.ndarray]:
        """Each text's (normalised) vector: those the namespace's last graph had, kept; only new ones
        embedded. A new relational memory reads the graph again (a new observation may add a
        relation), and most of its texts are the last graph's: 0.6 s for a 90-fact graph embedded
        whole."""
        with self._lock:
            known = self._graphs.get(namespace)
        before = known.embedded if known is not None else {}
        new = sorted({t for t in texts if t not in before})
        out = {t: before[t] for t in texts if t in before}
        if new:
            out.update(zip(new, normalise_rows(self.embedder.embed(new))))
        return out

    # ---- a pack's block --------------------------------------------------------------

    def block(
        self,
        namespace: str,
        query: str,
        budget_tokens: int,
        listener: str | None,
        withheld: frozenset[int] = frozenset(),
    ) -> list[BlockLine]:
        """The identity lines for a request, best first, within ``budget_tokens`` (the lines' own
        tokens with their provenance; the block's wrapper is the pack's to count); none of a memory
        in ``withheld`` (holding a secret the pack may not carry: "[[home wifi]]: the password is ...")."""
        if not self.config.retrieval or budget_tokens <= 0:
            return []
        loaded = self.graph(namespace)
        if not loaded.facts:
            return []
        ranked = self.ranked(loaded, query, self.embedder.embed_query(query), self.config.nodes, self.config.hops)
        out: list[BlockLine] = []
        used = 0
        floor = self.config.relevance_floor * (ranked[0][1] if ranked else 0.0)
        for fact, match in ranked:
            if match < floor:
                break
            row = loaded.rows[fact.memory_id]
            if not self.may_hear(listener, row["audience"]) or row["seq"] in withheld:
                continue
            source = _short_source(row["source"])
            label = as_data(source, provenance=True).text if source else "added"
            line = BlockLine(fact.memory_id, label, source, fact.text, row["type"])
            if used + line.tokens > budget_tokens:
                continue  # a shorter line further down may still fit
            out.append(line)
            used += line.tokens
        return out

    @staticmethod
    def ranked(loaded: LoadedGraph, query: str, vector: np.ndarray, nodes: int, hops: int) -> list[tuple[Fact, float]]:
        """(fact, its lifted match), best first: each fact by its match with the request (dense and
        lexical, as memories are matched), lifted a little when it touches one of the ``nodes`` best
        nodes (hop 0) or their neighbourhood within ``hops`` (seed 000's ID-RAG: what surrounds a
        relevant node comes with it). The seeds and the walk leave out the hubs (the agent, the
        user, a node most facts touch)."""
        asked = set(content_words(query))
        full = sum(loaded.idf.get(w, 0.0) for w in asked)
        dense = np.maximum(0.0, loaded.fact_vectors @ np.asarray(vector, dtype=np.float32))
        match = [
            (1 - LEXICAL_WEIGHT) * float(d)
            + LEXICAL_WEIGHT * (sum(loaded.idf[w] for w in f.words & asked) / full if full else 0.0)
            for f, d in zip(loaded.facts, dense.tolist())
        ]
        own = dict(zip(loaded.node_keys, (loaded.node_vectors @ np.asarray(vector, dtype=np.float32)).tolist()))
        best: dict[str, float] = {}
        for fact, m in zip(loaded.facts, match):
            for end in fact.ends:
                if end not in loaded.hubs:
                    best[end] = max(best.get(end, own.get(end, 0.0)), m)
        seeds = sorted(best, key=lambda k: (-best[k], k))[:nodes]
        hop = {key: 0 for key in seeds}
        frontier = list(seeds)
        for depth in range(1, hops + 1):
            frontier = [n for key in frontier for n in sorted(loaded.neighbours(key)) if n not in hop]
            for n in frontier:
                hop.setdefault(n, depth)

        # The rule that governs an act rarely shares the request's words (ACT_LIFT, VALUE_LIFT).
        acting = asks_to_act(query)
        asked_acts = acts_in(query) if acting else frozenset()
        act_weight = {a: loaded.act_idf.get(a, 0.0) for a in asked_acts}
        act_total = sum(act_weight.values())

        # The question asks a slot of someone: the facts that fill it for them (SLOT_LIFT).
        whose = _whose(loaded.agent, loaded.user)
        asked_slots_of = {(slot, whose.get(who, who)) for slot, who in asked_slots(query)}

        def lifted(i: int) -> float:
            fact = loaded.facts[i]
            near = min((hop[end] for end in fact.ends if end in hop), default=None)
            out = match[i] + (0.0 if near is None else HOP_LIFT / (1 + near))
            if fact.slots & asked_slots_of:
                out += SLOT_LIFT
            if acting:
                out += VALUE_LIFT if fact.kind == "value" else 0.0
                if act_total:
                    out += ACT_LIFT * sum(act_weight[a] for a in fact.acts & asked_acts) / act_total
            return out

        order = sorted(range(len(loaded.facts)), key=lambda i: (-lifted(i), loaded.facts[i].memory_id))
        return [(loaded.facts[i], lifted(i)) for i in order]

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
            frontier = [n for n in nxt if n not in loaded.hubs]  # the agent, the user and hubs are not walked through
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


# The graph's views mask secrets as every list does ("[[home wifi]]: the password is [password withheld]").
def node_view(loaded: LoadedGraph, node: Node) -> dict[str, Any]:
    return {
        "key": node.key,
        "name": node.name,
        "kind": node.kind,
        "description": mask(node.description) if node.description else node.description,
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
        "note": mask(edge.note) if edge.note else edge.note,
        "text": mask(edge.text),
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


def _whose(agent: str, user: str) -> dict[str, str]:
    """The slots' subjects "agent" ("you" asked of it, "I" in SOUL.md) and "self" (the user) as the
    first names the facts' sentences use, lower case, as slots.py gives a name."""
    return {who: name.split()[0].lower() for who, name in ((AGENT, agent), (SELF, user)) if name not in _UNNAMED}


def _slots_of(text: str, whose: dict[str, str]) -> frozenset[tuple[str, str]]:
    return frozenset((slot, whose.get(who, who)) for slot, who in filled_slots(text))


def _words(text: str) -> frozenset[str]:
    return frozenset(content_words(text))


def _node_text(node: Node) -> str:
    return f"{node.name}: {node.description}" if node.description else node.name
