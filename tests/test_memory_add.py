"""memory.add as every door gets it: a memory that says what a live one says is stored once, the
closest ones come back, and episodes are the daemon's to make (in process, with the fake embedder)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from agentmemd.daemon.socket.client import RpcCallError
from agentmemd.memory.core.models import AddParams

pytestmark = pytest.mark.inprocess  # the tier (pyproject.toml)


@pytest.fixture
def d(in_process):
    return in_process(fake_embedder=True)


def add(d, content: str, mtype: str = "fact", **extra) -> dict:
    return d.call("memory.add", {"content": content, "type": mtype, **extra})


def test_the_same_memory_is_stored_once_but_not_across_a_type_a_namespace_an_audience_or_the_archive(d):
    first = add(d, "The user lives in Porto.")
    assert first == {"id": first["id"], "duplicate": False, "similar": []}
    assert add(d, "THE USER   lives in porto.") == {"id": first["id"], "duplicate": True, "similar": []}
    assert d.call("stats", {"namespace": "default"})["live"] == 1
    others = [
        add(d, "The user lives in Porto.", "preference"),
        add(d, "The user lives in Porto.", namespace="elsewhere"),
        add(d, "The user lives in Porto.", audience="private:telegram:2002"),
    ]
    assert not any(o["duplicate"] for o in others) and len({first["id"], *(o["id"] for o in others)}) == 4
    d.call("memory.archive", {"id": first["id"]})
    assert add(d, "The user lives in Porto.")["duplicate"] is False  # an archived memory is not live


def test_the_closest_memories_come_back_but_not_what_the_audience_may_not_hear(d):
    berlin = add(d, "The user lives in Berlin with two cats.")["id"]
    add(d, "Ana lives in Berlin with two cats.", audience="private:telegram:2002")
    add(d, "Volcanoes on Io erupt sulphur.")
    moved = add(d, "The user lives in Lisbon with two cats.")
    assert [s["id"] for s in moved["similar"]] == [berlin]
    assert moved["similar"][0]["content"] == "The user lives in Berlin with two cats."


def test_equal_adds_at_once_store_one_memory(d, monkeypatch):
    """Each add looks for its duplicate beside the store thread; all look before any stores, so only
    the store thread's second look (at what was stored meanwhile) can see the others."""
    writes = d.services.memory_writes
    looked = threading.Barrier(6)
    real = writes.memories.nearest_for_add

    def look_then_wait(p, vectors):
        near = real(p, vectors)
        looked.wait(timeout=30)
        return near

    monkeypatch.setattr(writes.memories, "nearest_for_add", look_then_wait)
    same = AddParams(content="The user lives in Porto.", type="fact")
    with ThreadPoolExecutor(6) as pool:
        results = list(pool.map(lambda _: writes.add(same), range(6)))
    assert len({r.id for r in results}) == 1 and sum(r.duplicate for r in results) == 5
    assert d.call("stats", {"namespace": "default"})["live"] == 1


def test_add_many_stores_what_it_is_given_but_an_episode(d):
    twice = {"content": "The user lives in Porto.", "type": "fact"}
    assert len(set(d.call("memory.add_many", {"items": [twice, twice]})["ids"])) == 2  # a bulk import, as given
    with pytest.raises(RpcCallError) as refused:
        d.call("memory.add_many", {"items": [twice, {"content": "I moved.", "type": "episode"}]})
    assert refused.value.code == -32602 and refused.value.message.startswith("invalid params: items.1.type: ")
    assert d.call("stats", {"namespace": "default"})["live"] == 2
