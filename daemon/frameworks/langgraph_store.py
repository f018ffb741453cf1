"""A LangGraph ``BaseStore`` whose items are memories in agentmemd.

    from agentmemd.daemon.frameworks.langgraph_store import AgentmemdStore

    store = AgentmemdStore(namespace="myapp")
    store.put(("users", "ana"), "home", {"content": "Ana lives in Porto"})
    store.search(("users", "ana"), query="where does Ana live?")
    graph = builder.compile(store=store)          # a graph's nodes reach it as `store`

Each item is one memory of agentmemd's ``namespace``, so it is ranked, decays, is packed, shown in
the dashboard and forgotten like any other, and a memory forgotten there is gone from the store
too (there is no second copy). Where an item is kept is its memory's ``source``,
``langgraph:<namespace path>#<key>;<form>`` (each part percent-encoded): a value that is one text
field (``{"content": ...}`` or ``{"text": ...}``, as LangGraph's memory tools write them) is stored
as that text, any other value as its JSON; either way ``get`` gives back the value that was put.
``put`` over a key stores a new version of its memory (the old one stays in its history), a
``None`` value forgets it. A search with a query is agentmemd's own hybrid search (the ``index``
argument of ``put`` is not needed: every item is searchable); ``filter`` is LangGraph's own
matching (equality, ``$eq``, ``$ne``, ``$gt``, ``$gte``, ``$lt``, ``$lte``). An item's
``created_at`` and ``updated_at`` are both its current version's date. TTLs are not supported.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)
from langgraph.store.memory import _compare_values, _does_match  # LangGraph's own matching

from agentmemd.daemon.socket.client import Client, default_socket

SOURCE_PREFIX = "langgraph:"
TEXT_FIELDS = ("content", "text")
LIST_PAGE = 500  # memory.list's most
SEARCH_MOST = 1000  # memory.search's most


def _path(namespace: tuple[str, ...]) -> str:
    return "/".join(quote(part, safe="") for part in namespace)


def source_of(namespace: tuple[str, ...], key: str, form: str = "") -> str:
    """Where an item is kept, as its memory's source (without ``form``: what finds it)."""
    return f"{SOURCE_PREFIX}{_path(namespace)}#{quote(key, safe='')};{form}"


def _parsed(source: str | None) -> tuple[tuple[str, ...], str, str] | None:
    """(namespace, key, form) of a source this store wrote; None for any other memory's."""
    if not source or not source.startswith(SOURCE_PREFIX) or "#" not in source or ";" not in source:
        return None
    path, _, rest = source[len(SOURCE_PREFIX) :].partition("#")
    key, _, form = rest.partition(";")
    return tuple(unquote(part) for part in path.split("/")), unquote(key), form


def _stored(value: dict[str, Any]) -> tuple[str, str]:
    """(content, form) of a value."""
    if len(value) == 1:
        ((field, text),) = value.items()
        if field in TEXT_FIELDS and isinstance(text, str) and text.strip():
            return text, f"field={field}"
    return json.dumps(value, ensure_ascii=False), "json"


def _value(content: str, form: str) -> dict[str, Any]:
    if form.startswith("field="):
        return {form.removeprefix("field="): content}
    try:
        value = json.loads(content)
    except ValueError:  # a person corrected it as words (the dashboard, memory update): the words, as text
        return {"content": content}
    return value if isinstance(value, dict) else {"value": value}


def _when(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00"))


class AgentmemdStore(BaseStore):
    """LangGraph's store interface over a running agentmemd (its socket, as the CLI finds it)."""

    supports_ttl = False

    def __init__(
        self,
        *,
        namespace: str | None = None,
        socket: str | Path | None = None,
        token: str | None = None,
        memory_type: str = "fact",
        timeout: float = 30.0,
    ):
        self.namespace = namespace
        self.socket = str(socket or default_socket())
        self.token = token
        self.memory_type = memory_type
        self.timeout = timeout

    # ---- BaseStore -----------------------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        with Client(self.socket, timeout=self.timeout, token=self.token) as agentmemd:
            return [self._one(agentmemd, op) for op in ops]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return await asyncio.to_thread(self.batch, list(ops))

    # ---- one op --------------------------------------------------------------------

    def _one(self, agentmemd: Client, op: Op) -> Result:
        if isinstance(op, GetOp):
            found = self._find(agentmemd, op.namespace, op.key)
            return self._item(found) if found else None
        if isinstance(op, PutOp):
            self._put(agentmemd, op)
            return None
        if isinstance(op, SearchOp):
            return self._search(agentmemd, op)
        if isinstance(op, ListNamespacesOp):
            return self._namespaces(agentmemd, op)
        raise ValueError(f"unknown operation {type(op).__name__}")

    def _where(self) -> dict[str, Any]:
        return {"namespace": self.namespace} if self.namespace else {}

    def _listed(self, agentmemd: Client, source: str) -> list[dict[str, Any]]:
        """Every current memory whose source holds ``source``."""
        rows: list[dict[str, Any]] = []
        while True:
            page = agentmemd.call(
                "memory.list", {"source": source, "limit": LIST_PAGE, "offset": len(rows), **self._where()}
            )
            rows += page["items"]
            if not page["items"] or len(rows) >= page["total"]:
                return rows

    def _find(self, agentmemd: Client, namespace: tuple[str, ...], key: str) -> dict[str, Any] | None:
        for row in self._listed(agentmemd, source_of(namespace, key)):
            parsed = _parsed(row["source"])
            if parsed and parsed[:2] == (tuple(namespace), key):
                return row
        return None

    def _item(self, row: dict[str, Any], score: float | None = None) -> Item:
        namespace, key, form = _parsed(row["source"])  # type: ignore[misc]
        at, value = _when(row["created"]), _value(row["content"], form)
        if score is None:
            return Item(value=value, key=key, namespace=namespace, created_at=at, updated_at=at)
        return SearchItem(namespace, key, value, at, at, score)

    def _put(self, agentmemd: Client, op: PutOp) -> None:
        found = self._find(agentmemd, op.namespace, op.key)
        if op.value is None:
            if found:
                # This key's memory alone: another key (or another app) holding the same words keeps its own.
                agentmemd.call(
                    "memory.forget", {"id": found["id"], "confirm": True, "same_words": False, **self._where()}
                )
            return
        content, form = _stored(dict(op.value))
        source = source_of(op.namespace, op.key, form)
        if found:
            agentmemd.call("memory.update", {"id": found["id"], "content": content, "source": source, **self._where()})
            return
        # memory.add_many stores what it is given: memory.add would take an equal text under
        # another key for the same memory.
        item = {"content": content, "type": self.memory_type, "source": source, **self._where()}
        agentmemd.call("memory.add_many", {"items": [item]})

    def _in(self, row: dict[str, Any], op: SearchOp) -> bool:
        parsed = _parsed(row.get("source"))
        if not parsed or parsed[0][: len(op.namespace_prefix)] != tuple(op.namespace_prefix):
            return False
        if not op.filter:
            return True
        value = _value(row["content"], parsed[2])
        return all(_compare_values(value.get(field), wanted) for field, wanted in op.filter.items())

    def _search(self, agentmemd: Client, op: SearchOp) -> list[SearchItem]:
        if op.query and op.filter:
            # Every item the filter keeps, ranked by the query (as InMemoryStore does): filtered from
            # the search's top hits alone, an item past them was missed however well it matched.
            hits = agentmemd.call("memory.search", {"query": op.query, "k": SEARCH_MOST, **self._where()})["results"]
            scores = {hit["id"]: hit["score"] for hit in hits}
            rows = [
                row for row in self._listed(agentmemd, SOURCE_PREFIX + _path(op.namespace_prefix)) if self._in(row, op)
            ]
            rows.sort(key=lambda row: (scores.get(row["id"], 0.0), row["created"]), reverse=True)
            kept = [(row, scores.get(row["id"], 0.0)) for row in rows]
        elif op.query:
            k = min(SEARCH_MOST, max(50, (op.offset + op.limit) * 4))
            hits = agentmemd.call("memory.search", {"query": op.query, "k": k, **self._where()})["results"]
            kept = [(hit, hit["score"]) for hit in hits if self._in(hit, op)]
        else:
            rows = self._listed(agentmemd, SOURCE_PREFIX + _path(op.namespace_prefix))
            rows.sort(key=lambda row: (row["created"], row["id"]), reverse=True)
            kept = [(row, None) for row in rows if self._in(row, op)]
        return [self._item(row, score) for row, score in kept[op.offset : op.offset + op.limit]]  # type: ignore[misc]

    def _namespaces(self, agentmemd: Client, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        namespaces = {parsed[0] for row in self._listed(agentmemd, SOURCE_PREFIX) if (parsed := _parsed(row["source"]))}
        if op.match_conditions:
            namespaces = {ns for ns in namespaces if all(_does_match(c, ns) for c in op.match_conditions)}
        if op.max_depth is not None:
            namespaces = {ns[: op.max_depth] for ns in namespaces}
        return sorted(namespaces)[op.offset : op.offset + op.limit]


# What an app may import from here (tests/test_public_surface.py keeps it whole).
__all__ = ["AgentmemdStore", "source_of"]
