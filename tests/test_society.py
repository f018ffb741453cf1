"""`agentmemd bench society`: its world keeps the rules its checks rely on, and a short season over a
real daemon finds no leak where there is none and finds the one a test plants."""

from __future__ import annotations

import re
from collections import Counter
from types import SimpleNamespace

import pytest

from agentmemd.daemon.bench.benchmarks import bench_daemon
from agentmemd.daemon.bench.society import Season, bench_society, load_world, soul_items

pytestmark = pytest.mark.process  # real daemons over their sockets

WORLD = load_world()


def test_the_world_keeps_the_rules_its_checks_rely_on():
    agents = {a["id"]: a for a in WORLD["agents"]}
    assert len(agents) >= 8
    chats = {c["id"]: (r["round"], c) for r in WORLD["rounds"] for c in r["chats"]}
    assert len(chats) == sum(len(r["chats"]) for r in WORLD["rounds"])  # chat ids are unique
    for _, chat in chats.values():
        assert all(m["from"] in chat["members"] for m in chat["messages"])
        assert chat["kind"] == "group" or len(chat["members"]) == 2
    assert Counter(m["from"] for _, c in chats.values() for m in c["messages"] if m["drift"]).keys() <= agents.keys()
    for agent in agents.values():
        relations = [t for t in soul_items(agent["soul"]) if "[[" in t]
        for q in agent["quiz"]:
            assert sum(q["answer"] in t for t in relations) >= 1, q
        for goal in agent["goals"]:
            if goal["trigger"]:
                words = set(re.findall(r"[a-z0-9']+", goal["request"].lower()))
                assert set(goal["trigger"].lower().split()) <= words, goal
    text = str(WORLD).lower()
    for secret in WORLD["secrets"]:
        round_, chat = chats[secret["chat"]]
        assert chat["kind"] == "private" and set(chat["members"]) == {secret["teller"], *secret["told"]}
        said = sum(m["text"].lower().count(secret["marker"].lower()) for m in chat["messages"])
        assert said >= 1 and text.count(secret["marker"].lower()) == said + 1  # nowhere else but its own field
    for truth in WORLD["impressions"]:
        assert any(
            r <= truth["round"]
            and {truth["by"], truth["of"]} <= set(c["members"])
            and any(m["from"] == truth["of"] and truth["cares_about"] in m["text"] for m in c["messages"])
            for r, c in chats.values()
        ), truth
    for alliance in WORLD["alliances"]:
        pair = {alliance["agent"], alliance["ally"]}
        assert any(r == alliance["round"] and set(c["members"]) == pair for r, c in chats.values()), alliance


def test_a_short_season_keeps_its_secrets_and_the_leak_check_can_fail(short_tmp):
    world = {**WORLD, "rounds": WORLD["rounds"][:2]}  # the first secret is told in round 2
    secret = next(s for s in world["secrets"] if s["round"] <= 2)
    with bench_daemon(short_tmp / "d", '[clock]\nstart = "2026-03-02T08:00:00Z"\n') as (client, _):
        season = Season(client, world, budget=1000)
        season.set_up()
        for round_ in world["rounds"]:
            season.play(round_)
        leaks, looked, kept = season.leaks(2)
        assert leaks == [] and looked > 0 and kept == 2  # the teller and the told read it back
        recall, _ = season.identity_recall(secret["teller"])
        goals, stale = season.goal_recall(secret["teller"], 2)
        assert recall >= 0.8 and goals == 1.0 and stale == 0

        # The told agent shares what it was told with everyone: the group it sits in now hears it.
        told = secret["told"][0]
        hits = client.call("memory.search", {"query": secret["marker"], "namespace": told, "k": 50})["results"]
        for hit in hits:
            if secret["marker"] in hit["content"]:
                client.call("memory.share", {"id": hit["id"], "audience": "shared", "namespace": told})
        leaks, _, _ = season.leaks(2)
    assert leaks and all(secret["marker"] in leak and f"heard by {told}" in leak for leak in leaks)


def test_bench_society_prints_its_figures(short_tmp, monkeypatch):
    """The command's path, on the world's first round and a little filler."""
    import agentmemd.daemon.bench.society as society

    monkeypatch.setattr(society, "load_world", lambda path=None: {**WORLD, "rounds": WORLD["rounds"][:1]})
    bursts = society.load_bursts()
    monkeypatch.setattr(society, "load_bursts", lambda: {"bursts": [bursts["bursts"][0], bursts["bursts"][-1]]})
    args = SimpleNamespace(filler=20, budget=800, config_file=None, work_dir=short_tmp / "w", world=None)
    report = bench_society(args)
    assert [r["round"] for r in report["by_round"]] == [1]
    assert report["season"]["leaks"] == 0 and report["by_round"][0]["pack_ms_p50"] > 0
    assert report["by_round"][0]["memories"] > 8 * 20
    assert report["by_round"][0]["mean"]["identity_recall"] is not None
    assert set(report["drift"]) == {a["id"] for a in WORLD["agents"]}
    played = report["drift_bursts"]["bursts"]
    assert played["bursts_acted_on"].endswith(" of 1") and played["in_character_replies_acted_on"].endswith(" of 7")


def test_the_burst_chats_keep_their_shape():
    """Each burst: its agent in character twice, then three or more replies in a row out of
    character (and in character after, if at all); a steady chat: every reply in character."""
    from agentmemd.daemon.bench.society import load_bursts

    agents = {a["id"] for a in WORLD["agents"]}
    seen: set[str] = set()
    for name, chats in load_bursts().items():
        assert sum("burst" in c["id"] for c in chats) >= 7 and sum("steady" in c["id"] for c in chats) >= 7, name
        for chat in chats:
            assert chat["id"] not in seen and chat["kind"] == "private" and set(chat["members"]) <= agents
            seen.add(chat["id"])
            assert chat["agent"] in chat["members"] and all(m["from"] in chat["members"] for m in chat["messages"])
            assert not any(m["drift"] for m in chat["messages"] if m["from"] != chat["agent"])
            labels = "".join("D" if m["drift"] else "." for m in chat["messages"] if m["from"] == chat["agent"])
            if "steady" in chat["id"]:
                assert "D" not in labels, chat["id"]
            else:
                assert re.fullmatch(r"\.\.D{3,}\.?", labels), (chat["id"], labels)
