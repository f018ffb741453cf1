"""Changes detected when stored (m027, memory/store/slot_tables.py): which fact slot of whom a
memory fills is recorded with it, so a question about the present reaches the newest filler even
when nothing but that record ties them (it is far outside the question's nearest neighbours and
shares no word with it); a store from before is read once; forgetting removes the record."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.inprocess

STALE = "My manager Pieter wants the campaign deck by Friday."
CHANGE = "Naledi officially took over the team on Monday."
QUESTION = "Who do I report to at work now?"


def _fills(daemon) -> list[tuple]:
    conn = daemon.services.store.conn
    return conn.execute("SELECT seq, namespace, slot, subject FROM slot_fills ORDER BY seq").fetchall()


def test_a_change_far_outside_the_nearest_neighbours_is_still_found(in_process):
    """With 5 vector and 5 BM25 candidates, forty later-stored lines about reporting and taking
    over crowd the change out of both, and out of the newest 20 holding the slot's words (how the
    fillers were looked for before they were recorded); the record still finds it."""
    config = {"retrieval": {"vector_candidates": 5, "fts_candidates": 5}}
    daemon, ns = in_process(config), "work"
    daemon.call("memory.add", {"content": STALE, "type": "fact", "namespace": ns, "created": "2023-09-07T09:00:00Z"})
    change = daemon.call(
        "memory.add", {"content": CHANGE, "type": "fact", "namespace": ns, "created": "2024-01-07T09:00:00Z"}
    )["id"]
    for i in range(40):
        text = f"Work note {i}: I report to the client at work, and the intern took over the filing."
        daemon.call("memory.add", {"content": text, "type": "fact", "namespace": ns, "created": "2023-10-01T09:00:00Z"})
    hits = daemon.call("memory.search", {"query": QUESTION, "namespace": ns, "k": 3})["results"]
    assert hits[0]["id"] == change, [h["content"] for h in hits]
    pack = daemon.call("context.pack", {"query": QUESTION, "namespace": ns, "budget_tokens": 200})
    assert change in [i["id"] for i in pack["items"]]


def test_fills_are_recorded_for_new_memories_and_versions_but_not_persona(in_process):
    daemon, ns = in_process(), "rec"
    first = daemon.call("memory.add", {"content": "I moved to Leeds in May.", "type": "fact", "namespace": ns})["id"]
    daemon.call(
        "memory.add", {"content": "My name is Nova and I live in the cloud.", "type": "persona", "namespace": ns}
    )
    daemon.call("memory.add", {"content": "The weather was lovely.", "type": "fact", "namespace": ns})
    assert [(r[2], r[3]) for r in _fills(daemon)] == [("residence", "self")]
    daemon.call("memory.update", {"id": first, "content": "I moved to York in May.", "namespace": ns})
    assert [(r[2], r[3]) for r in _fills(daemon)] == [("residence", "self")] * 2  # each version its own


def test_a_store_from_before_is_read_once(in_process):
    """The migration leaves the memories already stored to the daemon that applied it: read once,
    newest first, then the backlog mark is gone."""
    daemon, ns = in_process(), "old"
    for text in (STALE, CHANGE, "I moved to Leeds in May.", "Nothing to see here."):
        daemon.call("memory.add", {"content": text, "type": "fact", "namespace": ns})
    recorded = _fills(daemon)
    conn = daemon.services.store.conn
    with daemon.services.store.transaction():  # as m027 leaves a store it upgrades
        conn.execute("DELETE FROM slot_fills")
        conn.execute("INSERT INTO meta (key, value) SELECT 'slot_fills_backlog', max(seq) FROM memories")
    assert _fills(daemon) == []
    read = daemon.run_on_store(lambda: daemon.services.memories.read_older_memories(chunk=2))
    assert read == 4 and _fills(daemon) == recorded
    assert conn.execute("SELECT count(*) FROM meta WHERE key = 'slot_fills_backlog'").fetchone()[0] == 0
    assert daemon.run_on_store(daemon.services.memories.read_older_memories) == 0


def test_forgetting_a_memory_removes_its_fills(in_process):
    daemon, ns = in_process(), "forget"
    mid = daemon.call("memory.add", {"content": CHANGE, "type": "fact", "namespace": ns})["id"]
    assert _fills(daemon)
    daemon.call("memory.forget", {"id": mid, "namespace": ns, "confirm": True})
    assert _fills(daemon) == []


def test_a_slot_added_later_is_found_in_a_store_from_before(in_process):
    """m029 (the subscription slot) reads the memories stored before it once more: the new slot
    is found in them, and the fills they had stay as they were, once each."""
    from agentmemd.memory.store.migrations.m029_subscription_slot import m029_subscription_slot

    daemon, ns = in_process(), "later"
    for text in ("I moved to Leeds in May.", "From September our monthly fee goes up to 599 kroner."):
        daemon.call("memory.add", {"content": text, "type": "fact", "namespace": ns})
    recorded = _fills(daemon)
    assert sorted(r[2] for r in recorded) == ["residence", "subscription"]
    conn = daemon.services.store.conn
    with daemon.services.store.transaction():  # a store from before the slot existed
        conn.execute("DELETE FROM slot_fills WHERE slot = 'subscription'")
        m029_subscription_slot(conn)
    assert daemon.run_on_store(daemon.services.memories.read_older_memories) == 2
    assert _fills(daemon) == recorded
