"""Decay with reinforcement (seed 002, 5.7), driven through a daemon whose clock tests move."""

from __future__ import annotations

import math

import pytest

pytestmark = pytest.mark.inprocess  # the tier (pyproject.toml)

BASE = 720.0


@pytest.fixture(scope="module")
def clocked(tmp_path_factory):
    import shutil
    import tempfile
    from pathlib import Path

    from conftest import EPOCH, NO_JOBS
    from inprocess import InProcessDaemon

    root = Path(tempfile.mkdtemp(prefix="amd", dir="/tmp"))
    d = InProcessDaemon(root, {"clock": {"start": EPOCH}, "jobs": NO_JOBS})
    yield d
    d.terminate()
    shutil.rmtree(root, ignore_errors=True)


def expected(hours: float, count: float) -> float:
    return math.exp(-0.693 * hours / (BASE * (1 + math.log2(1 + count))))


def advance(d, hours: float) -> None:
    d.call("clock.advance", {"hours": hours})


def test_retention_tiers_and_persona_floor(clocked):
    ns = "decay-tiers"
    fact = clocked.call(
        "memory.add", {"content": "The user's gym is on Baker Street.", "type": "fact", "namespace": ns}
    )["id"]
    persona = clocked.call(
        "memory.add", {"content": "I am Nova and I keep answers short.", "type": "persona", "namespace": ns}
    )["id"]
    rel = clocked.call("memory.add", {"content": "Laia is the user's sister.", "type": "relational", "namespace": ns})[
        "id"
    ]
    assert clocked.call("memory.get", {"namespace": ns, "id": fact})["retention"] == pytest.approx(1.0)
    seen = {}
    elapsed = 0.0
    for hours, _tier in ((500, "active"), (1500, "warm"), (3000, "cold"), (6000, "archived")):
        advance(clocked, hours - elapsed)
        elapsed = hours
        rec = clocked.call("memory.get", {"namespace": ns, "id": fact})
        assert rec["retention"] == pytest.approx(expected(hours, 1.0), rel=1e-6)
        seen[hours] = rec["tier"]
        for ident in (persona, rel):
            assert clocked.call("memory.get", {"namespace": ns, "id": ident})["retention"] >= 0.5
    assert seen == {500: "active", 1500: "warm", 3000: "cold", 6000: "archived"}
    # The sweep moves what fell below Cold into the archive; identity items stay.
    assert clocked.call("memory.sweep")["archived"] >= 1
    assert clocked.call("memory.get", {"namespace": ns, "id": fact})["tier"] == "archived"
    assert clocked.call("memory.get", {"namespace": ns, "id": persona})["tier"] == "warm"
    assert clocked.call("stats", {"namespace": ns})["archived"] == 1
    # A direct reference brings it back to Active.
    assert clocked.call("memory.reinforce", {"namespace": ns, "id": fact, "event": "direct"})["tier"] == "active"


def test_reinforcement_amounts_and_slower_decay(clocked):
    ns = "decay-reinforce"
    a = clocked.call("memory.add", {"content": "The user takes the 8:15 train.", "type": "fact", "namespace": ns})["id"]
    b = clocked.call("memory.add", {"content": "The user's train is usually late.", "type": "fact", "namespace": ns})[
        "id"
    ]
    counts = [
        clocked.call("memory.reinforce", {"namespace": ns, "id": a, "event": e})["access_count"]
        for e in ("direct", "indirect", "used", "retrieved_unused")
    ]
    assert counts == [4.0, 5.0, 7.0, 7.5]
    advance(clocked, 2000)
    ra, rb = (clocked.call("memory.get", {"namespace": ns, "id": i})["retention"] for i in (a, b))
    assert ra == pytest.approx(expected(2000, 7.5), rel=1e-6)
    assert rb == pytest.approx(expected(2000, 1.0), rel=1e-6)
    assert ra > rb


def test_importing_old_history_does_not_archive_it(clocked):
    ns = "decay-import"
    mid = clocked.call(
        "memory.add",
        {
            "content": "In 2019 the user ran the Berlin marathon.",
            "type": "fact",
            "namespace": ns,
            "created": "2019-09-29T09:00:00Z",
        },
    )["id"]
    rec = clocked.call("memory.get", {"namespace": ns, "id": mid})
    assert rec["created"].startswith("2019-09-29") and rec["tier"] == "active"
    clocked.call("memory.sweep")
    assert clocked.call("memory.get", {"namespace": ns, "id": mid})["tier"] == "active"


def test_tier_decides_pack_search_and_deep_search(clocked):
    ns = "decay-visibility"
    mid = clocked.call(
        "memory.add", {"content": "The user's passport expires in March.", "type": "fact", "namespace": ns}
    )["id"]
    q = {"query": "when does the passport expire", "namespace": ns}
    assert mid in clocked.call("context.pack", {**q, "budget_tokens": 200})["text"]
    advance(clocked, 1500)  # Warm: searchable, not packed
    assert clocked.call("memory.get", {"namespace": ns, "id": mid})["tier"] == "warm"
    assert [r["id"] for r in clocked.call("memory.search", q)["results"]] == [mid]
    assert mid not in clocked.call("context.pack", {**q, "budget_tokens": 200})["text"]
    advance(clocked, 1500)  # Cold: deep search only
    assert clocked.call("memory.get", {"namespace": ns, "id": mid})["tier"] == "cold"
    assert clocked.call("memory.search", q)["results"] == []
    deep = clocked.call("memory.search", {**q, "include_archived": True})["results"]
    assert deep[0]["id"] == mid and deep[0]["tier"] == "cold"


def test_manual_clock_only_moves_forward(clocked):
    from agentmemd.daemon.socket.client import RpcCallError

    with pytest.raises(RpcCallError) as exc:
        clocked.call("clock.advance", {"hours": -1})
    assert exc.value.code == -32602 and "hours" in exc.value.message
