"""Nightly consolidation (seed 002, 3.3; the tree of 5.5): level 0 -> 1 -> 2 -> 3.

Level 0 is the namespace's live memories (persona items, episodes and earlier consolidation
excluded). Each level above clusters the one below and summarises every cluster:

* level 1, patterns: memories that say related things (``soft_clusters``: average-linkage
  groups with average cosine >= ``level1_similarity``, then a Gaussian mixture started at their
  centres adds every memory whose posterior for a group is at least ``membership`` and that the
  group stays coherent with; a group past ``max_cluster_size`` is split by a small mixture);
* level 2, principles: patterns that belong together (the same, over pattern centroids);
* level 3, strategic insights: principles that belong together.

The local summariser is extractive: a node's text is its distinctive keywords (c-TF-IDF
against all level-0 memories) and the one or two member sentences that carry most of
them (nearest the centroid on ties), with the size and date span of what it covers. It never invents a sentence. It is a lower-quality
stand-in for an LLM summary, which the LLM layer (a later issue) can plug in here.

Every node is a memory (tags ``consolidated``, ``level<N>``), so search and packs see
it, and a ``consolidation_nodes`` row links it to its sources (the memories it was built
from) and its leaves (the level-0 memories under it). Re-running re-derives the tree
and reconciles it with the stored one by leaves: the same leaves keep their node, mostly
the same (Jaccard >= 0.5) become a new version of it, the rest are added or archived. Once a
tree is stored, a run grows it with the memories stored since (``grow_tree``) instead.
"""

from __future__ import annotations

import json
import logging
from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Mapping

import numpy as np

from agentmemd.memory.core.clock import format_time
from agentmemd.memory.core.config import ConsolidationConfig
from agentmemd.memory.core.disclosure import USER
from agentmemd.memory.core.models import AddParams, UpdateParams
from agentmemd.memory.core.text import STOPWORDS, clip
from agentmemd.memory.core.text import words as text_words
from agentmemd.memory.core.threads import run_here, yield_to_requests
from agentmemd.memory.core.vocabulary import CONSOLIDATED_SOURCE
from agentmemd.memory.retrieval.clustering import average_cosine, soft_clusters
from agentmemd.memory.retrieval.embeddings import normalise
from agentmemd.memory.safety.secrets import mask, without_masks
from agentmemd.memory.store.consolidation_tables import ConsolidationTables
from agentmemd.memory.workspace.owned_sections import neutralise

LEVEL_NAMES = {1: "pattern", 2: "principle", 3: "insight"}
LEVEL_PRIORITY = {1: 0.4, 2: 0.5, 3: 0.6}
MATCH_JACCARD = 0.5
QUOTE_CHARS = 220


log = logging.getLogger("agentmemd")


@dataclass
class Leaf:
    id: str
    content: str
    type: str
    created: str
    vector: np.ndarray
    ingested: str = ""  # when it was stored: a leaf stored since the last run is new to the tree
    audience: str = USER  # who may hear it (memory/core/disclosure.py)


@dataclass
class Node:
    level: int
    children: list["Node"]  # the nodes (or leaves) one level down it was built from
    leaves: frozenset[str]
    vector: np.ndarray  # normalised centroid of its leaves
    keywords: list[str]
    content: str
    type: str
    id: str | None = None  # memory id once stored
    head: str = ""  # "Pattern (hiking, alps): "; the content is head + the quotes (or a summary) + tail
    tail: str = ""  # " [5 memories, 2023-05-08 to 2023-06-01]"
    stored_sources: list[str] | None = None  # a stored node's sources as stored (grow_tree: unchanged?)
    audience: str = USER  # its compartment's: never heard by anyone who may not hear all it was built from

    @property
    def sources(self) -> list[str]:
        return [c.id for c in self.children if c.id is not None]


# Words too generic to name what a cluster of chat lines is about (beside the stopwords): small talk.
GENERIC_CHAT_WORDS = frozenset(
    "yeah like got thanks glad wow lot things thing know think sounds great awesome cool good love amazing hey".split()
)


def words(text: str, stop: frozenset[str]) -> list[str]:
    """A memory's label candidates: its words less ``stop``, numbers and words of one or two letters."""
    return [w for w in text_words(text) if w not in stop and len(w) > 2 and not w.isdigit()]


def keywords_by_cluster(texts: list[list[str]], reference: list[list[str]], top: int = 4) -> list[list[str]]:
    """c-TF-IDF: words frequent in a cluster and rare in the reference documents (all
    level-0 memories), so the names in every line of a chat do not label every cluster."""
    df = Counter(w for doc in reference for w in set(doc))
    n = max(len(reference), 1)
    out = []
    for words_ in texts:
        c = Counter(words_)
        total = sum(c.values()) or 1
        # A keyword is said in at least two memories of the cluster (or the cluster has one word).
        scored = sorted(c, key=lambda w: (c[w] < 2, -(c[w] / total) * np.log(n / df[w]), w))
        out.append([w for w in scored[:top] if np.log(n / df[w]) > 0])
    return out


def _representative(vectors: np.ndarray, texts: list[list[str]], keywords: list[str], k: int) -> list[int]:
    """The k members that carry the most of the cluster's keywords, nearest the centre on ties:
    in a chat the most central line is often small talk, the keyword-rich one says what happened."""
    centroid = vectors.mean(axis=0)
    closeness = vectors @ centroid
    wanted = set(keywords)
    hits = [len(wanted & set(t)) for t in texts]
    order = sorted(range(len(texts)), key=lambda i: (-hits[i], -float(closeness[i]), i))
    return order[:k]


class _NodeMaker:
    """Makes a node's text (its keywords, quotes and span) from the leaves under it."""

    def __init__(self, leaves: list[Leaf], secrets: Mapping[str, str] | None = None):
        """``secrets``: the namespace's known secret values (known_secrets.py), kept out of the
        keywords as the patterns' secrets are: a node's keywords are never masked where it is shown."""
        self.stop = STOPWORDS | GENERIC_CHAT_WORDS
        self.by_id = {leaf.id: leaf for leaf in leaves}
        self.leaf_words = {
            leaf.id: words(without_masks(mask(leaf.content, values=secrets)), self.stop) for leaf in leaves
        }

    def make(self, level: int, members: list[Node]) -> Node:
        return self.make_many(level, [members])[0]

    def make_many(self, level: int, groups: list[list[Node]]) -> list[Node]:
        by_id, leaf_words = self.by_id, self.leaf_words
        covered = [sorted(frozenset().union(*(m.leaves for m in ms))) for ms in groups]
        keywords = keywords_by_cluster(
            [[w for lid in ids for w in leaf_words[lid]] for ids in covered], list(leaf_words.values()), top=4
        )
        nodes = []
        for ms, ids, kws in zip(groups, covered, keywords):
            yield_to_requests()  # consolidation runs beside requests, on a background thread
            leaf_vectors = np.stack([by_id[i].vector for i in ids])
            centre = normalise(leaf_vectors.mean(axis=0))
            picks = _representative(leaf_vectors, [leaf_words[i] for i in ids], kws, 2 if len(ids) >= 4 else 1)
            quotes = [clip(by_id[ids[i]].content, QUOTE_CHARS) for i in picks]
            dates = sorted(by_id[i].created[:10] for i in ids)
            span = dates[0] if dates[0] == dates[-1] else f"{dates[0]} to {dates[-1]}"
            size = f"{len(ids)} memories" if level == 1 else f"{len(ms)} {LEVEL_NAMES[level - 1]}s, {len(ids)} memories"
            head, tail = f"{LEVEL_NAMES[level].capitalize()} ({', '.join(kws)}): ", f" [{size}, {span}]"
            mtype = Counter(by_id[i].type for i in ids).most_common(1)[0][0]
            nodes.append(
                Node(level, ms, frozenset(ids), centre, kws, head + " / ".join(quotes) + tail, mtype, None, head, tail)
            )
        return nodes

    def leaf_node(self, leaf_id: str) -> Node:
        leaf = self.by_id[leaf_id]
        return Node(0, [], frozenset([leaf.id]), leaf.vector, [], leaf.content, leaf.type, id=leaf.id)

    def centre(self, leaves: frozenset[str]) -> np.ndarray:
        return normalise(np.stack([self.by_id[i].vector for i in sorted(leaves)]).mean(axis=0))


THRESHOLD = {1: "level1_similarity", 2: "level2_similarity", 3: "level3_similarity"}


def _cluster_nodes(maker: _NodeMaker, level: int, members: list[Node], cfg: ConsolidationConfig) -> list[Node]:
    """The level-``level`` nodes the soft clusters of ``members`` (nodes one level down) make."""
    if not members:
        return []
    groups = soft_clusters(
        np.stack([m.vector for m in members]),
        getattr(cfg, THRESHOLD[level]),
        cfg.min_sources,
        membership=cfg.membership,
        max_size=cfg.max_cluster_size,
    )
    return maker.make_many(level, [[members[i] for i in g] for g in groups])


def build_tree(
    leaves: list[Leaf], cfg: ConsolidationConfig, secrets: Mapping[str, str] | None = None
) -> dict[int, list[Node]]:
    """Levels 1-3 over the given level-0 memories (deterministic for the same input)."""
    maker = _NodeMaker(leaves, secrets)
    tree: dict[int, list[Node]] = {}
    below: list[Node] = [maker.leaf_node(leaf.id) for leaf in leaves]
    for level in (1, 2, 3):
        tree[level] = below = _cluster_nodes(maker, level, below, cfg)
        if not below:
            break
    for level in (1, 2, 3):
        tree.setdefault(level, [])
    return tree


def grow_tree(
    leaves: list[Leaf],
    new: set[str],
    stored: dict[int, list[dict[str, Any]]],
    cfg: ConsolidationConfig,
    secrets: Mapping[str, str] | None = None,
) -> dict[int, list[Node]]:
    """The stored tree with the new level-0 memories put in (RAPTOR's incremental insertion, seed
    002 5.5): each new memory joins the level-1 node it fits best, when the node's members stay as
    close to each other as a cluster's must (average cosine >= level1_similarity); the rest are
    clustered among themselves into new nodes, which join the nearest node of the level above in
    the same way. A node that grows past ``max_cluster_size`` is clustered again within itself.
    Memories that left level 0 leave their nodes, and a node left with fewer than ``min_sources``
    goes. Only the changed nodes and their ancestors get new text; the others keep theirs, so the
    commit keeps their memories as they are. ``new``: the ids of the leaves stored since the last
    run (an older leaf outside the tree found no cluster then, and waits for the next derivation)."""
    maker = _NodeMaker(leaves, secrets)
    current = set(maker.by_id)
    by_old_id: dict[str, list[Node]] = {}  # a stored node's id -> the node(s) it is now
    tree: dict[int, list[Node]] = {}
    below_new: list[Node] = [maker.leaf_node(i) for i in sorted((new & current) - _stored_leaves(stored))]
    for level in (1, 2, 3):
        nodes, changed = [], []
        for row in stored.get(level, []):
            children = _children(row, level, maker, by_old_id, current)
            if len(children) < cfg.min_sources:
                by_old_id[row["memory_id"]] = []
                continue
            leaves_now = frozenset().union(*(c.leaves for c in children))
            node = Node(
                level,
                children,
                leaves_now,
                maker.centre(leaves_now),
                json.loads(row["keywords"]),
                row["content"],
                row["type"],
                id=row["memory_id"],
                stored_sources=sorted(json.loads(row["sources"])),
            )
            by_old_id[row["memory_id"]] = [node]
            nodes.append(node)
        # New nodes (or leaves) from below join the node here they fit best, when the node stays as
        # coherent as a cluster must be (average cosine of its members); the rest cluster together.
        lonely: list[Node] = []
        for arrival in below_new:
            fits = [(average_cosine(np.stack([*(c.vector for c in n.children), arrival.vector])), n) for n in nodes]
            fit, best = max(fits, key=lambda f: f[0], default=(0.0, None))
            if best is not None and fit >= getattr(cfg, THRESHOLD[level]):
                best.children.append(arrival)
                best.leaves = best.leaves | arrival.leaves
            else:
                lonely.append(arrival)
        fresh = _cluster_nodes(maker, level, lonely, cfg)
        kept: list[Node] = []
        for node in nodes:
            ids = sorted(c.id or "" for c in node.children)
            if ids == node.stored_sources:
                kept.append(node)  # unchanged: its text and memory stay
                continue
            if len(node.children) > cfg.max_cluster_size:  # grown past its limit: split
                pieces = _cluster_nodes(maker, level, node.children, cfg)
                by_old_id[node.id or ""] = pieces
                changed += pieces
                continue
            remade = maker.make(level, node.children)
            remade.id = None
            by_old_id[node.id or ""] = [remade]
            changed.append(remade)
        tree[level] = kept + changed + fresh
        below_new = fresh  # changed nodes are their parents' children already
    return tree


def _stored_within(
    stored: dict[int, list[dict[str, Any]]], audience: str, elsewhere: set[str]
) -> dict[int, list[dict[str, Any]]]:
    """The stored nodes of one compartment: of its audience, and built from none of the leaves now in
    another (``elsewhere``): a node that would mix compartments is derived again, apart."""
    return {
        level: [r for r in rows if r["audience"] == audience and elsewhere.isdisjoint(r["leaves"])]
        for level, rows in stored.items()
    }


def _by_level(rows: list[dict[str, Any]]) -> dict[int, list[dict[str, Any]]]:
    """Stored node rows whose memory is live, by level, their leaves as a set."""
    out: dict[int, list[dict[str, Any]]] = {1: [], 2: [], 3: []}
    for r in rows:
        if r["content"] is not None:
            out[r["level"]].append({**r, "leaves": frozenset(json.loads(r["leaves"]))})
    return out


def _stored_leaves(stored: dict[int, list[dict[str, Any]]]) -> frozenset[str]:
    return frozenset().union(*(row["leaves"] for row in stored.get(1, [])))


def _children(row, level: int, maker: _NodeMaker, by_old_id: dict[str, list[Node]], current: set[str]) -> list[Node]:
    """A stored node's children as they are now: its leaves still at level 0 (level 1), or the
    nodes its stored sources became (above)."""
    if level == 1:  # in the stored order, so an unchanged node is written back as it was
        return [maker.leaf_node(i) for i in json.loads(row["sources"]) if i in current]
    out: dict[int, Node] = {}
    for source in json.loads(row["sources"]):
        for node in by_old_id.get(source, []):
            out[id(node)] = node
    return list(out.values())


class Consolidator:
    """Derives the tree for a namespace and reconciles it with the stored one."""

    def __init__(self, service, cfg: ConsolidationConfig, run_on_store=None, summarise=None):
        """``summarise(texts, namespace) -> str``: a language model's summary of a node's sources
        (the `anthropic` provider's, through the response cache); None keeps the extractive quotes."""
        self.service = service
        self.store = service.store
        self.tables = ConsolidationTables(service.store)
        self.cfg = cfg
        self.run_on_store = run_on_store or run_here
        self.summarise = summarise
        self._vectors: dict = {}  # content -> embedding, made off the store thread for the commit

    def level0(self, namespace: str) -> list[Leaf]:
        return [Leaf(*row) for row in self.tables.level0(namespace, self.cfg.max_level0)]

    def stored(self, namespace: str) -> dict[int, list[dict[str, Any]]]:
        """Stored nodes whose memory is still live; rows of archived nodes are dropped."""
        rows = self.tables.stored(namespace)
        for r in rows:
            if r["content"] is None:
                self._drop_node(r["memory_id"])
        return _by_level(rows)

    def namespaces(self) -> list[str]:
        return self.tables.namespaces()

    def run(self, namespace: str, now: datetime) -> dict[str, int]:
        """Cluster and embed on the calling thread; then one short transaction on the store thread.
        With a tree stored, new memories are put into it (``grow_tree``) unless more than
        ``rebuild_share`` of level 0 is new, when the whole tree is derived again. Each compartment
        of audiences (``compartment``) gets a tree of its own: a node is never built from what two
        compartments heard, so it never reaches a listener one of its sources may not."""
        leaves, stored = self.run_on_store(lambda: (self.level0(namespace), self._stored_rows(namespace)))
        secrets = self.run_on_store(lambda: self.service.known_secrets.of(namespace))
        last_run = max((r["derived_at"] for rows in stored.values() for r in rows), default="")
        tree: dict[int, list[Node]] = {1: [], 2: [], 3: []}
        fresh, grown, derived = 0, 0, 0
        for audience, members in self._compartments(leaves).items():
            elsewhere = {leaf.id for leaf in leaves} - {leaf.id for leaf in members}
            own = _stored_within(stored, audience, elsewhere)
            in_tree = _stored_leaves(own)
            new = {leaf.id for leaf in members if leaf.id not in in_tree and leaf.ingested > last_run}
            grow = bool(in_tree) and len(new) <= self.cfg.rebuild_share * len(members)
            part = grow_tree(members, new, own, self.cfg, secrets) if grow else build_tree(members, self.cfg, secrets)
            for level in (1, 2, 3):
                for node in part[level]:
                    node.audience = audience
                tree[level] += part[level]
            fresh, grown, derived = fresh + len(new), grown + int(grow), derived + int(not grow)
        if self.summarise is not None:
            self._summarise(tree, namespace)
        # Only new or changed text is embedded: a node the growth left alone keeps its memory.
        contents = sorted({node.content for level in (1, 2, 3) for node in tree[level] if node.id is None})
        vectors = dict(zip(contents, self.service.embedder.embed_passages(contents))) if contents else {}
        counts = self.run_on_store(lambda: self._commit(namespace, leaves, tree, now, vectors))
        # Namespaces whose tree grew (new memories put in) or was derived again; the new memories.
        return {**counts, "grown": int(grown > 0), "derived": int(grown == 0), "new_leaves": fresh}

    def _compartments(self, leaves: list[Leaf]) -> dict[str, list[Leaf]]:
        """The leaves by the audience their nodes get: ``user`` for all the user's own conversations
        may hear (their own, shared, and the chats `[channels]` lets reach them), else the chat's own
        (a group that does not reach the user): the narrowest audience every source allows."""
        parts: dict[str, list[Leaf]] = {}
        for leaf in leaves:
            key = USER if self.service.may_hear(USER, leaf.audience) else leaf.audience
            parts.setdefault(key, []).append(leaf)
        return dict(sorted(parts.items()))

    def _stored_rows(self, namespace: str) -> dict[int, list[dict[str, Any]]]:
        """Stored nodes whose memory is live, by level (read only; ``stored`` also drops the rest)."""
        return _by_level(self.tables.stored(namespace))

    def _summarise(self, tree: dict[int, list[Node]], namespace: str) -> None:
        """Each new or changed node's quotes become a summary of what it was built from, level by
        level (a level-2 node summarises its patterns' summaries). A failed call keeps the quotes."""
        for level in (1, 2, 3):
            for node in tree[level]:
                if node.id is not None:
                    continue  # unchanged since it was summarised
                texts = [child.content for child in node.children]
                try:
                    summary = self.summarise(texts, namespace)
                except Exception as exc:  # the nightly job goes on; the node keeps its quotes
                    log.warning("consolidation summary failed; the quotes stay", extra={"error": repr(exc)})
                    continue
                node.content = node.head + " ".join(summary.split()) + node.tail

    def _commit(
        self, namespace: str, leaves: list[Leaf], tree: dict[int, list[Node]], now: datetime, vectors: dict
    ) -> dict[str, int]:
        counts = Counter(level0=len(leaves), level1=0, level2=0, level3=0, added=0, revised=0, kept=0, archived=0)
        self._vectors = vectors
        try:
            with self.store.transaction():
                old = self.stored(namespace)
                for level in (1, 2, 3):
                    self._reconcile(namespace, level, tree[level], old[level], now, counts)
                    counts[f"level{level}"] = len(tree[level])
        finally:
            self._vectors = {}
        return dict(counts)

    def _reconcile(
        self, namespace: str, level: int, new: list[Node], old: list[dict[str, Any]], now: datetime, counts: Counter
    ) -> None:
        pairs = sorted(
            (
                (_jaccard(n.leaves, o["leaves"]), i, j)
                for i, n in enumerate(new)
                for j, o in enumerate(old)
                if n.audience == o["audience"] and not n.leaves.isdisjoint(o["leaves"])
            ),
            key=lambda t: (-t[0], t[1], t[2]),
        )
        taken_new: dict[int, int] = {}
        taken_old: set[int] = set()
        for score, i, j in pairs:
            if score < MATCH_JACCARD or i in taken_new or j in taken_old:
                continue
            taken_new[i] = j
            taken_old.add(j)
        source = f"{CONSOLIDATED_SOURCE} {level} ({LEVEL_NAMES[level]})"
        additions: list[int] = []
        for i, node in enumerate(new):
            if i not in taken_new:
                additions.append(i)
                continue
            prev = old[taken_new[i]]
            if prev["content"] == node.content:
                node.id = prev["memory_id"]
                counts["kept"] += 1
            else:
                node.id = self.service.update(
                    UpdateParams(id=prev["memory_id"], namespace=namespace, content=node.content, source=source),
                    vector=self._vectors.get(node.content),
                ).id
                self._drop_node(prev["memory_id"])
                counts["revised"] += 1
        if additions:
            ids = self.service.add_many(
                [
                    AddParams(
                        content=new[i].content,
                        type=new[i].type,
                        namespace=namespace,
                        source=source,
                        audience=new[i].audience,
                        priority=LEVEL_PRIORITY[level],
                        tags=["consolidated", f"level{level}"],
                    )
                    for i in additions
                ],
                vectors=[self._vectors.get(new[i].content) for i in additions],
            )
            for i, memory_id in zip(additions, ids):
                new[i].id = memory_id
            counts["added"] += len(additions)
        for j, prev in enumerate(old):
            if j not in taken_old:
                self.service.archive(prev["memory_id"], why="the night's consolidation no longer finds it")
                self._drop_node(prev["memory_id"])
                counts["archived"] += 1
        for node in new:
            self.tables.put_node(
                node.id, namespace, level, sorted(node.leaves), node.sources, node.keywords, format_time(now)
            )

    def _drop_node(self, memory_id: str) -> None:
        self.tables.drop_node(memory_id)

    def nodes(self, namespace: str, level: int | None = None) -> list[dict[str, Any]]:
        rows = self.tables.nodes(namespace, level)
        for r in rows:
            r["sources"] = json.loads(r["sources"])
            r["leaves"] = len(json.loads(r["leaves"]))
            r["keywords"] = json.loads(r["keywords"])
        return rows


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 1.0


def render_section(nodes: list[dict[str, Any]]) -> str:
    """The owned section of MEMORY.md: every node, highest level first, with its sources."""
    out = [
        "## agentmemd: consolidated memory",
        "",
        "<!-- Written by agentmemd's nightly consolidation from the memories listed after each arrow; "
        "re-derived every night (an unchanged item keeps its id). Lines you edit here are moved above this section "
        "(and indexed as yours); to drop an item run `agentmemd memory archive ID`. -->",
    ]
    titles = {3: "Level 3: strategic insights", 2: "Level 2: principles", 1: "Level 1: patterns"}
    for level in (3, 2, 1):
        rows = [n for n in nodes if n["level"] == level]
        if not rows:
            continue
        out += ["", f"### {titles[level]} ({len(rows)})", ""]
        for n in rows:
            sources = ", ".join(f"`{s}`" for s in n["sources"][:8])
            more = f" +{len(n['sources']) - 8} more" if len(n["sources"]) > 8 else ""
            out.append(f"- {neutralise(n['content'])} `{n['id']}` ← {sources}{more}")
    if len(out) == 3:
        out += ["", "_Nothing to consolidate yet._"]
    return "\n".join(out)
