"""[scoring] mode = "park" (seed 004's retrieval, Park et al.): (recency + importance + relevance) / 3,
recency decaying 0.995 an hour since the memory was last accessed; beside the default mode."""

from __future__ import annotations

import pytest

from agentmemd.memory.core.config import load_config
from agentmemd.memory.retrieval.scoring import Signals, injection_score, park_recency

pytestmark = pytest.mark.inprocess


def test_the_park_score_is_the_mean_of_recency_importance_and_relevance():
    park = load_config(None, {"scoring": {"mode": "park"}}).scoring
    default = load_config(None).scoring
    s = Signals(similarity=0.6, priority=0.3, decay=0.9, frequency=0.0, recency=0.9)
    assert injection_score(s, park) == pytest.approx((0.9 + 0.3 + 0.6) / 3)
    assert injection_score(s, default) == pytest.approx(0.35 * 0.6 + 0.25 * 0.3 + 0.20 * 0.9)
    assert park_recency(0, park) == 1.0 and park_recency(24, park) == pytest.approx(0.995**24)
    assert park_recency(-3, park) == 1.0  # a time in the future is now


def test_in_park_mode_the_recent_and_the_important_rise(in_process):
    cfg = {"clock": {"start": "2026-11-01T12:00:00Z"}, "scoring": {"mode": "park"}}
    d = in_process(cfg, fake_embedder=True)
    old = d.call("memory.add", {"content": "The user's bike is a blue Canyon", "type": "fact"})["id"]
    d.call("clock.advance", {"hours": 200})
    new = d.call("memory.add", {"content": "The user's bike is a red Canyon", "type": "fact"})["id"]
    hits = d.call("memory.search", {"query": "which bike does the user ride"})["results"]
    order = [h["id"] for h in hits]
    assert order.index(new) < order.index(old)
    recency = {h["id"]: h["signals"]["recency"] for h in hits}
    assert recency[new] == pytest.approx(1.0) and recency[old] == pytest.approx(0.995**200, rel=1e-3)

    important = d.call("memory.add", {"content": "The user's bike is a green Canyon", "type": "fact", "priority": 1.0})[
        "id"
    ]
    hits = d.call("memory.search", {"query": "which bike does the user ride"})["results"]
    assert hits[0]["id"] == important
    assert hits[0]["score"] == pytest.approx(
        (hits[0]["signals"]["recency"] + hits[0]["signals"]["priority"] + hits[0]["signals"]["similarity"]) / 3,
        abs=1e-5,
    )


def test_a_mode_that_does_not_exist_is_refused():
    from agentmemd.memory.core.config import ConfigError

    with pytest.raises(ConfigError, match="mode"):
        load_config(None, {"scoring": {"mode": "vibes"}})
