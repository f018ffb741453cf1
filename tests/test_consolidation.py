"""Nightly consolidation on a real multi-day conversation (LoCoMo conv-26, 19 sessions over
five months), through a real daemon with a workspace (issue 3, seed 002 section 3.3)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import NO_JOBS, locomo_turns

from agentmemd.memory.workspace.markdown import OWNED_BEGIN
from agentmemd.memory.workspace.owned_sections import owned_body

pytestmark = pytest.mark.inprocess  # the tier (pyproject.toml)

ROOT = Path(__file__).resolve().parent.parent
NS = "conv26"


@pytest.fixture(scope="module")
def turns(locomo):
    return locomo_turns(locomo[0])


@pytest.fixture(scope="module")
def consolidated(turns, tmp_path_factory):
    """Sessions 1-18 stored, then one consolidation run."""
    import tempfile

    from inprocess import InProcessDaemon

    root = Path(tempfile.mkdtemp(prefix="amd", dir="/tmp"))
    ws = tmp_path_factory.mktemp("c") / "workspace"
    shutil.copytree(ROOT / "workspace_template", ws)
    d = InProcessDaemon(
        root,
        {"workspace": {"path": str(ws), "namespace": NS}, "clock": {"start": "2023-10-23T02:00:00Z"}, "jobs": NO_JOBS},
    )
    early = [t for t in turns if t["session"] < 19]
    ids = d.call(
        "memory.add_many",
        {"items": [{"content": t["text"], "type": "fact", "namespace": NS, "created": t["created"]} for t in early]},
    )["ids"]
    by_dia = dict(zip((t["dia_id"] for t in early), ids))
    template_memory = (ws / "MEMORY.md").read_text()
    run = d.call("jobs.run", {"name": "consolidate"})
    yield {"d": d, "ws": ws, "run": run, "by_dia": by_dia, "template_memory": template_memory}
    d.terminate()
    shutil.rmtree(root, ignore_errors=True)


def nodes(d, level=None) -> list[dict]:
    params = {"namespace": NS} | ({"level": level} if level else {})
    return d.call("consolidation.list", params)["nodes"]


def test_four_levels_are_built_with_provenance(consolidated):
    d, run, by_dia = consolidated["d"], consolidated["run"], consolidated["by_dia"]
    result = run["result"]
    assert run["status"] == "ok"
    # 376 turns + the template's facts; measured: 50 patterns, 10 principles, 1 insight.
    assert result["level0"] >= 376
    assert result["level1"] >= 25 and result["level2"] >= 4 and result["level3"] >= 1
    level0 = set(by_dia.values())
    l1, l2, l3 = nodes(d, 1), nodes(d, 2), nodes(d, 3)
    assert (len(l1), len(l2), len(l3)) == (result["level1"], result["level2"], result["level3"])
    l1_ids, l2_ids = {n["id"] for n in l1}, {n["id"] for n in l2}
    for n in l1:
        assert len(n["sources"]) >= 2 and n["leaves"] == len(n["sources"])
        # Sources are level-0 memories: the turns (or the workspace's facts), never other nodes.
        assert not set(n["sources"]) & (l1_ids | l2_ids)
    assert sum(len(set(n["sources"]) & level0) for n in l1) >= 0.8 * len(level0)  # most turns are in a pattern
    assert all(set(n["sources"]) <= l1_ids and len(n["sources"]) >= 2 for n in l2)
    assert all(set(n["sources"]) <= l2_ids and len(n["sources"]) >= 2 for n in l3)
    # Every node is a memory that search and packs see, tagged with its level.
    for n in l1[:5] + l2[:2] + l3:
        got = d.call("memory.get", {"id": n["id"], "namespace": NS})
        assert got["tags"] == ["consolidated", f"level{n['level']}"] and got["tier"] == "active"


def test_patterns_group_what_belongs_together(consolidated):
    """The conversation's known threads each become a pattern whose sources are about that thread."""
    d = consolidated["d"]
    l1 = nodes(d, 1)
    contents = {}
    for n in l1:
        for source in n["sources"]:
            contents[source] = d.call("memory.get", {"id": source, "namespace": NS})["content"].lower()

    def pattern_about(word: str) -> dict:
        candidates = [n for n in l1 if word in n["keywords"]]
        assert candidates, f"no pattern with keyword {word!r}: {[n['keywords'] for n in l1]}"
        return max(candidates, key=lambda n: len(n["sources"]))

    for word, stem in [("adoption", "adopt"), ("pottery", "pot"), ("counseling", "counsel")]:
        node = pattern_about(word)
        on_topic = sum(stem in contents[s] for s in node["sources"]) / len(node["sources"])
        assert on_topic >= 0.6, (word, on_topic, node["content"])
        assert word in node["content"].lower()


def test_memory_md_shows_the_tree_and_keeps_the_persons_text(consolidated):
    d, ws = consolidated["d"], consolidated["ws"]
    text = (ws / "MEMORY.md").read_text()
    assert text.startswith(consolidated["template_memory"].rstrip("\n"))
    section = owned_body(text)
    assert "### Level 3: strategic insights" in section and "### Level 1: patterns" in section
    for n in nodes(d):
        assert f"`{n['id']}` ← `{n['sources'][0]}`" in section
    # The section is never indexed: no memory has MEMORY.md's owned lines as a source.
    hits = d.call("memory.search", {"query": "Pattern adoption agencies Caroline", "k": 30, "namespace": NS})["results"]
    assert not [h for h in hits if (h["source"] or "").startswith("MEMORY.md") and h["content"].startswith("Pattern")]


def test_the_next_night_rederives_without_duplicating(consolidated, turns):
    d, ws = consolidated["d"], consolidated["ws"]
    first = {n["id"]: n for n in nodes(d)}
    again = d.call("jobs.run", {"name": "consolidate"})["result"]
    assert again["added"] == again.get("revised", 0) == again.get("archived", 0) == 0
    assert again["kept"] == len(first)
    assert again["memory_file_changed"] is False
    assert {n["id"] for n in nodes(d)} == set(first)

    # A new session arrives (session 19, Oct 2023); the next night re-derives the tree.
    d.call("clock.advance", {"hours": 24})
    late = [t for t in turns if t["session"] == 19]
    d.call(
        "memory.add_many",
        {"items": [{"content": t["text"], "type": "fact", "namespace": NS, "created": t["created"]} for t in late]},
    )
    run = d.call("jobs.run", {"name": "consolidate"})
    assert run["status"] == "ok", run["error"]
    result = run["result"]
    now = {n["id"]: n for n in nodes(d)}
    assert result["level0"] == consolidated["run"]["result"]["level0"] + len(late)
    assert result["kept"] + result.get("revised", 0) >= 0.6 * len(first)  # most of the tree carries over
    assert len(now) == result["level1"] + result["level2"] + result["level3"]  # nothing accumulates
    for gone in set(first) - set(now):
        old = d.call("memory.get", {"namespace": NS, "id": gone})
        assert old["superseded_by"] in now or old["tier"] == "archived"  # a new version, or archived
    revised = [n for n in now.values() if n["id"] not in first]
    assert len(revised) == result.get("revised", 0) + result.get("added", 0)
    section = owned_body((ws / "MEMORY.md").read_text())
    assert all(f"`{i}`" in section for i in now) and not any(f"`{i}`" in section for i in set(first) - set(now))
    assert (ws / "MEMORY.md").read_text().count(OWNED_BEGIN) == 1


def test_the_anthropic_provider_summarises_the_nodes_through_the_cache(in_process, monkeypatch):
    import json

    from fake_anthropic import KEY_ENV, FakeAnthropic, llm_config, message

    with FakeAnthropic() as fake:
        monkeypatch.setenv(KEY_ENV, "test-key")
        d = in_process(
            {"llm": llm_config(fake)},
            fake_embedder=True,
        )
        places = ["beach", "lake", "museum", "park"] * 10
        d.call(
            "memory.add_many",
            {
                "items": [
                    {"content": f"Melanie took the kids to the {place} on a sunny day {i}", "type": "fact"}
                    for i, place in enumerate(places)
                ]
            },
        )
        fake.replies.extend(message(json.dumps({"summary": f"Summary number {i}."})) for i in range(40))
        assert d.call("jobs.run", {"name": "consolidate"})["status"] == "ok"
        nodes = d.call("consolidation.list", {})["nodes"]
        asked = [r for r in fake.requests if r["body"]["system"][0]["text"].startswith("Summarise what these")]
        assert nodes and len(asked) == len(nodes)
        assert all("Summary number" in n["content"] and n["content"].endswith("]") for n in nodes)
        # The same sources again: answered from the response cache, nothing asked, nothing revised.
        before = len(fake.requests)
        again = d.call("jobs.run", {"name": "consolidate"})["result"]
        assert len(fake.requests) == before and again.get("revised", 0) == 0 and again.get("added", 0) == 0


TOPICS = {
    "pottery": [
        "I threw a new bowl on the pottery wheel today.",
        "My pottery class glazed mugs in blue this week.",
        "The kiln at the pottery studio fired our vases overnight.",
        "I love shaping clay pots on the wheel at pottery class.",
        "Our pottery teacher showed us how to trim a bowl.",
        "I made a clay plate in pottery and painted it.",
    ],
    "hiking": [
        "We hiked up the mountain trail to the summit at dawn.",
        "The hiking trail through the pine forest was steep.",
        "I bought new hiking boots for the mountain trek.",
        "We camped by the lake after a long hike in the hills.",
        "The mountain hike took six hours up and down the trail.",
        "Hiking the ridge trail gave us views of the valley.",
    ],
}


def test_new_memories_grow_the_tree_and_only_their_branch_is_rewritten(in_process):
    """RAPTOR's incremental insertion (issue 16): a new memory joins the nearest pattern, whose
    text (and its ancestors') is rewritten; the other nodes keep their memories; a pattern that
    grows past max_cluster_size is clustered again; a run with nothing new changes nothing."""
    d = in_process({"clock": {"start": "2024-05-01T00:00:00Z"}, "consolidation": {"max_cluster_size": 8}})

    def add(texts):
        d.call("memory.add_many", {"items": [{"content": t, "type": "fact", "namespace": "g"} for t in texts]})

    def patterns():
        return {n["id"]: n for n in d.call("consolidation.list", {"namespace": "g", "level": 1})["nodes"]}

    add(TOPICS["pottery"] + TOPICS["hiking"])
    first = d.call("jobs.run", {"name": "consolidate"})["result"]
    assert first["derived"] == 1 and first["level1"] >= 2
    before = patterns()
    hiking = {i for i, n in before.items() if "hiking" in n["content"].lower() or "trail" in n["content"].lower()}
    assert hiking and hiking != set(before)

    again = d.call("jobs.run", {"name": "consolidate"})["result"]
    assert (again["grown"], again["new_leaves"], again["added"], again.get("revised", 0)) == (1, 0, 0, 0)

    d.call("clock.advance", {"hours": 24})
    add(["At pottery class I glazed a clay bowl and fired it in the kiln."])
    grown = d.call("jobs.run", {"name": "consolidate"})["result"]
    assert grown["grown"] == 1 and grown["new_leaves"] == 1
    after = patterns()
    assert hiking <= set(after)  # the hiking patterns were not touched: same memories
    changed = set(after) - set(before)
    assert changed and all(
        "pottery" in after[i]["content"].lower() or "clay" in after[i]["content"].lower() for i in changed
    )
    new_leaf = d.call("memory.search", {"query": "glazed a clay bowl fired in the kiln", "k": 1, "namespace": "g"})
    assert any(new_leaf["results"][0]["id"] in after[i]["sources"] for i in changed)

    d.call("clock.advance", {"hours": 24})
    add([f"Pottery night {n}: I threw a clay bowl on the wheel and glazed it." for n in range(5)])
    split = d.call("jobs.run", {"name": "consolidate"})["result"]
    assert split["grown"] == 1
    assert all(len(n["sources"]) <= 8 for n in patterns().values())  # past the limit: clustered again
    assert hiking <= set(patterns())


def test_the_query_kind_chooses_the_levels_and_a_node_states_only_what_it_quotes(consolidated):
    """Seed 002 5.5 (issue 16): a specific fact is answered from memories, a thematic question may
    reach patterns and principles, a planning one insights with the memories under them; a node's
    `stated` lists only the memories whose words it carries."""
    d = consolidated["d"]
    levels = {n["id"]: n["level"] for n in nodes(d)}

    def found(query):
        hits = d.call("memory.search", {"query": query, "k": 30, "namespace": NS})["results"]
        return hits, {levels.get(h["id"], 0) for h in hits}

    _, fact = found("When did Caroline go to the LGBTQ support group?")
    assert fact == {0}
    hits, thematic = found("What kinds of activities does Melanie do with her family in general?")
    assert thematic <= {0, 1, 2} and thematic & {1, 2}
    _, planning = found("Would Melanie likely enjoy a pottery workshop with her kids?")
    assert planning <= {0, 3}
    for hit in (h for h in hits if h["id"] in levels):
        assert hit["stated"], hit["content"]
        for leaf in hit["stated"]:
            said = d.call("memory.get", {"id": leaf, "namespace": NS})["content"]
            assert said[:60].strip() in hit["content"]


@pytest.mark.parametrize(
    "query, kind",
    [
        ("When did Caroline go to the LGBTQ support group?", "fact"),
        ("When is Melanie planning on going camping?", "fact"),
        ("What kinds of activities does Melanie enjoy?", "thematic"),
        ("What are Ana's hobbies?", "thematic"),
        ("Would Caroline likely have Dr. Seuss books on her bookshelf?", "planning"),
        ("What should we plan for the weekend? Any ideas for a trip?", "planning"),
        ("What is Lisbon like in winter?", "planning"),
    ],
)
def test_query_kinds(query, kind):
    from agentmemd.memory.retrieval.query_kind import query_kind

    assert query_kind(query) == kind


@pytest.mark.parametrize("group_reaches_user", [[], ["*"]])
def test_a_node_is_never_heard_by_anyone_who_may_not_hear_all_it_was_built_from(in_process, group_reaches_user):
    """Lineage for consolidation: what a club's group chat said about pottery and what the user said
    about it are two compartments when the group does not reach the user's conversations; each
    node takes the narrowest audience its sources allow, and MEMORY.md holds only the user's."""
    config = {"clock": {"start": "2024-05-01T00:00:00Z"}, "channels": {"group_reaches_user": group_reaches_user}}
    d = in_process(config)
    club = "group:telegram:potters"
    said_in_club = [f"Club chat: {t}" for t in TOPICS["pottery"]]
    d.call("memory.add_many", {"items": [{"content": t, "type": "fact"} for t in TOPICS["pottery"]]})
    d.call("memory.add_many", {"items": [{"content": t, "type": "fact", "audience": club} for t in said_in_club]})
    d.call("jobs.run", {"name": "consolidate"})
    nodes = d.call("consolidation.list", {})["nodes"]
    assert nodes
    leaves_of = {m["id"]: m["audience"] for m in d.call("memory.list", {"limit": 500})["items"]}
    for node in nodes:
        audience = d.call("memory.get", {"id": node["id"]})["audience"]
        below = {leaves_of[s] for s in node["sources"] if s in leaves_of}
        # Whoever may hear the node may hear every source of it.
        for listener in ("user", club):
            if d.services.memories.may_hear(listener, audience):
                assert all(d.services.memories.may_hear(listener, a) for a in below), (node, audience, below)
    heard_by_user = d.call(
        "memory.search", {"query": "club chat pottery wheel glazed mugs", "audience": "user", "k": 20}
    )["results"]
    club_words = [h for h in heard_by_user if "Club chat" in h["content"]]
    assert (club_words == []) == (group_reaches_user == [])


@pytest.mark.inprocess
def test_what_a_person_took_out_of_a_file_leaves_the_consolidated_memories_built_from_it(in_process, tmp_path):
    """'prefers tea: green, no sugar' deleted from USER.md still rode into packs inside the pattern
    consolidation had built from it, until the next nightly consolidation."""
    from agentmemd.memory.store.consolidation_tables import ConsolidationTables

    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "USER.md").write_text("# USER\n\n- Laia prefers green tea, no sugar\n- Laia lives in Girona\n")
    d = in_process(fake_embedder=True, workspace=ws)
    tea = next(m for m in d.call("memory.list", {"limit": 50})["items"] if "green tea" in m["content"])
    pattern = d.call("memory.add", {"content": "Pattern: Laia takes her tea green, without sugar", "type": "fact"})
    store = d.services.store
    with store.transaction():
        ConsolidationTables(store).put_node(
            pattern["id"], "default", 1, [tea["id"]], [tea["id"]], ["tea"], "2026-11-30"
        )
    (ws / "USER.md").write_text("# USER\n\n- Laia lives in Girona\n")
    d.call("workspace.sync", {})
    assert d.call("memory.get", {"id": tea["id"]})["tier"] == "archived"
    assert d.call("memory.get", {"id": pattern["id"]})["tier"] == "archived"  # recoverable, not packed
    assert "green" not in d.call("context.pack", {"query": "how does Laia take her tea?", "budget_tokens": 400})["text"]


@pytest.mark.inprocess
def test_an_item_that_left_its_file_and_came_back_is_the_memory_it_was(in_process, tmp_path):
    """MEMORY.md emptied for longer than the debounce, then saved again: its unchanged items got new
    ids, the old ones archived with their use (goals kept theirs)."""
    ws = tmp_path / "ws"
    ws.mkdir()
    text = "# MEMORY\n\n- Laia's bike is a red Orbea\n- The gym opens at six\n"
    (ws / "MEMORY.md").write_text(text)
    d = in_process(fake_embedder=True, workspace=ws)
    before = {m["content"]: m["id"] for m in d.call("memory.list", {"limit": 50})["items"]}
    d.call("memory.reinforce", {"id": before["Laia's bike is a red Orbea"], "event": "used"})
    (ws / "MEMORY.md").write_text("")
    d.call("workspace.sync", {})
    assert d.call("memory.get", {"id": before["Laia's bike is a red Orbea"]})["tier"] == "archived"
    (ws / "MEMORY.md").write_text(text)
    d.call("workspace.sync", {})
    after = {m["content"]: m["id"] for m in d.call("memory.list", {"limit": 50})["items"]}
    assert after == before
    bike = d.call("memory.get", {"id": before["Laia's bike is a red Orbea"]})
    assert bike["tier"] != "archived" and bike["access_count"] >= 1
    (ws / "MEMORY.md").write_text(text.replace("red Orbea", "blue Orbea"))  # an edit is still a new version
    d.call("workspace.sync", {})
    assert d.call("memory.get", {"id": before["Laia's bike is a red Orbea"]})["superseded_by"]
