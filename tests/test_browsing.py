"""memory.list, memory.history, memory.restore, memory.forget and packs.list (issue 18): the
service API the dashboard stands on, in process with the fake embedder."""

from __future__ import annotations

import pytest

from agentmemd.daemon.socket.client import RpcCallError

pytestmark = pytest.mark.inprocess  # the tier (pyproject.toml)


@pytest.fixture
def d(in_process):
    return in_process({"clock": {"start": "2026-01-01T00:00:00Z"}}, fake_embedder=True)


def add(d, content, mtype="fact", namespace="default", **extra):
    return d.call("memory.add", {"content": content, "type": mtype, "namespace": namespace, **extra})["id"]


def test_list_filters_and_pages(d):
    ids = [add(d, f"The user owns {n} bicycles", source="import:notes") for n in range(5)]
    pref = add(d, "The user prefers tea over coffee", "preference", source="USER.md L3")
    other = add(d, "Bob likes jazz", namespace="bob")

    page = d.call("memory.list", {"limit": 3})
    assert page["total"] == 7 and [i["id"] for i in page["items"]] == [other, pref, ids[4]]  # newest first
    second = d.call("memory.list", {"limit": 3, "offset": 3})
    assert [i["id"] for i in second["items"]] == [ids[3], ids[2], ids[1]]

    assert [i["id"] for i in d.call("memory.list", {"type": "preference"})["items"]] == [pref]
    assert d.call("memory.list", {"namespace": "bob"})["total"] == 1
    assert d.call("memory.list", {"source": "USER.md"})["total"] == 1
    assert d.call("memory.list", {"contains": "BICYCLES"})["total"] == 5  # case-insensitive
    assert d.call("memory.list", {"contains": "100%"})["total"] == 0  # wildcards are literal
    assert d.call("memory.list", {"created_from": "2026-01-01", "created_to": "2026-01-01"})["total"] == 7
    assert d.call("memory.list", {"created_from": "2026-01-02"})["total"] == 0


def test_list_by_tier_follows_the_clock(d):
    old = add(d, "An old fact nobody recalls")
    d.call("clock.advance", {"hours": 24 * 60})  # retention 0.5: warm
    fresh = add(d, "A fresh fact")
    assert [i["id"] for i in d.call("memory.list", {"tier": "active"})["items"]] == [fresh]
    colder = d.call("memory.list", {"tier": "cold"})["items"] + d.call("memory.list", {"tier": "warm"})["items"]
    assert [i["id"] for i in colder] == [old]
    d.call("memory.archive", {"id": fresh})
    archived = d.call("memory.list", {"tier": "archived"})
    assert [i["id"] for i in archived["items"]] == [fresh] and archived["items"][0]["tier"] == "archived"


def test_list_refuses_bad_filters_naming_them(d):
    with pytest.raises(RpcCallError, match="tier"):
        d.call("memory.list", {"tier": "lukewarm"})
    with pytest.raises(RpcCallError, match="created_from 2026-02-01 is after created_to 2026-01-01"):
        d.call("memory.list", {"created_from": "2026-02-01", "created_to": "2026-01-01"})
    with pytest.raises(RpcCallError, match="limit"):
        d.call("memory.list", {"limit": 0})


def test_history_has_versions_events_retention_and_origin(d):
    first = add(d, "The user lives in Lyon")
    d.call("clock.advance", {"hours": 24 * 10})
    d.call("memory.reinforce", {"id": first, "event": "direct"})
    d.call("clock.advance", {"hours": 24 * 10})
    second = d.call("memory.update", {"id": first, "content": "The user lives in Paris"})["id"]
    d.call("clock.advance", {"hours": 24 * 10})
    d.call("memory.reinforce", {"id": second, "event": "used"})

    h = d.call("memory.history", {"id": first})  # asked by an old id: the whole chain
    assert h["id"] == second
    assert [v["id"] for v in h["versions"]] == [first, second]
    assert [v["version"] for v in h["versions"]] == [1, 2]
    assert [e["kind"] for e in h["events"]] == ["reinforced", "new_version", "reinforced"]
    points = h["retention"]
    assert points[0]["retention"] == pytest.approx(1.0) and points[-1]["at"] == d.call("clock.now", {})["now"]
    assert any(p["retention"] < 0.99 for p in points)  # it decayed between the update and the reinforcement
    assert h["projected"][0]["retention"] == pytest.approx(points[-1]["retention"], abs=1e-3)
    assert h["projected"][-1]["retention"] < h["projected"][0]["retention"]
    assert h["origin"] == {"kind": "added", "source": None}


def test_history_of_an_observation_links_its_turns(d):
    d.call("conversation.append", {"session": "s1", "role": "user", "content": "I adopted a cat named Miso yesterday"})
    d.call("conversation.observe", {"session": "s1"})
    episode = d.call("memory.list", {"type": "episode"})["items"][0]
    origin = d.call("memory.history", {"id": episode["id"]})["origin"]
    assert origin["kind"] == "conversation" and origin["session"] == "s1"
    assert "Miso" in origin["turns"][0]["content"]


def test_restore_brings_an_archived_memory_back_to_search(d):
    mid = add(d, "The user's passport number ends in 42")
    d.call("memory.archive", {"id": mid})
    assert not d.call("memory.search", {"query": "passport number"})["results"]
    restored = d.call("memory.restore", {"id": mid})
    assert restored["tier"] != "archived"
    assert [h["id"] for h in d.call("memory.search", {"query": "passport number"})["results"]] == [mid]
    assert [e["kind"] for e in d.call("memory.history", {"id": mid})["events"]] == ["archived", "restored"]


def test_a_memory_the_sweep_archived_stays_restored(d):
    """Restoring a memory archived for having decayed answered tier 'archived', and the next sweep
    archived it again: only `memory reinforce ID direct` brought it back for good."""
    mid = add(d, "The user's locker at the pool is number 217")
    d.call("clock.advance", {"hours": 24 * 400})
    d.call("memory.sweep", {})
    assert d.call("memory.get", {"id": mid})["tier"] == "archived"
    assert d.call("memory.restore", {"id": mid})["tier"] == "active"
    d.call("memory.sweep", {})
    assert d.call("memory.get", {"id": mid})["tier"] == "active"


def test_forget_says_what_goes_then_removes_every_trace(d):
    first = add(d, "The user's secret diary is in the blue box")
    second = d.call("memory.update", {"id": first, "content": "The user's secret diary is in the red box"})["id"]
    pack = d.call("context.pack", {"query": "where is the secret diary", "budget_tokens": 200})
    keep = add(d, "The user likes mornings")
    d.services.store.conn.execute(  # a cached summary that quotes it
        "INSERT INTO llm_cache (category, task, namespace, prompt_hash, key_text, embedding, response, tokens, created) "
        "VALUES ('summarise', 'summarise', 'default', 'h', 'x', x'00', 'Summary: The user''s secret diary is in the red box', 9, 't')"
    )

    plan = d.call("memory.forget", {"id": second})
    assert plan["forgotten"] is False and plan["versions"] == [first, second]
    assert plan["search_index_entries"] == 1 and plan["events"] == 1 and plan["packs_logged"] == 1
    assert plan["cached_responses"] == 1
    assert d.call("memory.get", {"id": second})["content"].endswith("red box")  # nothing changed yet

    gone = d.call("memory.forget", {"id": first, "confirm": True})
    assert gone["forgotten"] is True and gone["versions"] == [first, second]
    for mid in (first, second):
        with pytest.raises(RpcCallError, match="no memory with id"):
            d.call("memory.get", {"id": mid})
    found = d.call("memory.search", {"query": "secret diary box", "include_archived": True})["results"]
    assert {h["id"] for h in found} <= {keep}
    with pytest.raises(RpcCallError, match="no pack"):
        d.call("context.explain", {"pack_id": pack["pack_id"]})
    assert d.call("memory.list", {})["total"] == 1
    assert d.services.store.conn.execute("SELECT count(*) FROM llm_cache").fetchone()[0] == 0
    assert d.call("stats", {})["live"] == 1


def test_forget_of_an_unknown_or_foreign_memory_changes_nothing(d):
    mid = add(d, "Bob's birthday is in May", namespace="bob")
    with pytest.raises(RpcCallError, match="no memory with id"):
        d.call("memory.forget", {"id": mid, "namespace": "default", "confirm": True})
    assert d.call("memory.get", {"id": mid, "namespace": "bob"})["content"] == "Bob's birthday is in May"


def test_packs_list_newest_first(d):
    add(d, "The user drinks green tea")
    ids = [d.call("context.pack", {"query": f"tea {n}", "budget_tokens": 100})["pack_id"] for n in range(3)]
    at_once = d.call("packs.list", {"limit": 5})  # listed at once, written to the log or still on their way
    assert at_once["total"] == 3 and [p["pack_id"] for p in at_once["packs"]] == ids[::-1]
    d.services.memories.pack_log.flush()
    listed = d.call("packs.list", {"limit": 2})
    assert listed["total"] == 3 and [p["pack_id"] for p in listed["packs"]] == ids[::-1][:2]
    assert listed["packs"][0]["chosen"] == 1 and listed["packs"][0]["query"] == "tea 2"


def test_a_scoped_token_lists_only_its_namespace(d):
    add(d, "Alice's secret", namespace="alice")
    add(d, "Bob's secret", namespace="bob")
    secret = d.call("access.tokens.create", {"name": "alice-dash", "namespaces": ["alice"]})["secret"]
    alice = d.connect(token=secret)
    listed = alice.call("memory.list", {})
    assert [i["content"] for i in listed["items"]] == ["Alice's secret"]
    with pytest.raises(RpcCallError, match="may not use namespace 'bob'"):
        alice.call("memory.list", {"namespace": "bob"})


def test_explain_gives_each_candidate_its_text_and_why_it_was_left_out(d):
    twice = {"content": "The user rides a red road bike every day", "type": "fact"}
    d.call("memory.add_many", {"items": [twice, twice]})  # says the same (memory.add would store it once)
    add(d, "The user rides a red road bike every day, " * 30)  # too long
    add(d, "Volcanoes on Io erupt sulphur")  # matches nothing the query says
    pack = d.call("context.pack", {"query": "what bike does the user ride", "budget_tokens": 150})
    explained = d.call("context.explain", {"pack_id": pack["pack_id"]})
    by_text = {c["content"]: c for c in explained["candidates"]}
    assert set(by_text) >= {"The user rides a red road bike every day", "Volcanoes on Io erupt sulphur"}
    reasons = [c["why_not"] or "" for c in explained["candidates"] if not c["chosen"]]
    assert any(r.startswith("says what a packed memory says") for r in reasons), reasons
    assert any(r.startswith("budget: ") for r in reasons), reasons
    assert by_text["Volcanoes on Io erupt sulphur"]["why_not"].startswith("below [pack] relevance_floor"), reasons


def test_conversations_turns_and_the_contexts_the_agent_was_given(d):
    for i in range(3):
        d.call("conversation.append", {"session": "chat-a", "role": "user", "content": f"Question {i} about tea"})
        d.call("conversation.append", {"session": "chat-a", "role": "assistant", "content": f"Answer {i}"})
    d.call("conversation.append", {"session": "chat-b", "role": "user", "content": "Hello"})
    d.call("conversation.append", {"session": "other", "role": "user", "content": "Elsewhere", "namespace": "bob"})

    listed = d.call("conversation.list", {})
    assert listed["total"] == 2 and [s["session"] for s in listed["sessions"]] == ["chat-b", "chat-a"]
    assert listed["sessions"][1]["turns"] == 6

    page = d.call("conversation.turns", {"session": "chat-a", "limit": 4})
    assert page["total"] == 6 and [t["content"] for t in page["turns"]][-1] == "Answer 2"
    assert [t["seq"] for t in page["turns"]] == sorted(t["seq"] for t in page["turns"])  # oldest first
    older = d.call("conversation.turns", {"session": "chat-a", "limit": 4, "offset": 4})
    assert [t["content"] for t in older["turns"]] == ["Question 0 about tea", "Answer 0"]
    with pytest.raises(RpcCallError, match="no conversation with session 'other' in namespace 'default'"):
        d.call("conversation.turns", {"session": "other"})

    built = d.call("conversation.context", {"session": "chat-a", "budget_tokens": 2000})
    kept = d.call("conversation.contexts", {"session": "chat-a"})["contexts"]
    assert len(kept) == 1 and kept[0]["pack_id"] == built["pack_id"]
    assert kept[0]["context"]["system"] == built["system"] and kept[0]["context"]["messages"] == built["messages"]
    assert kept[0]["context"]["prefix_hash"] == built["prefix_hash"]


def test_only_the_newest_contexts_keep_their_text(d):
    from agentmemd.memory.store.persona_tables import KEEP_CONTEXTS

    d.call("conversation.append", {"session": "long", "role": "user", "content": "Tell me about tea"})
    for _ in range(KEEP_CONTEXTS + 2):
        d.call("conversation.context", {"session": "long", "budget_tokens": 500})
    kept = d.call("conversation.contexts", {"session": "long", "limit": 20})["contexts"]
    assert all(c["context"] is not None for c in kept)
    rows = d.services.store.conn.execute("SELECT count(*), count(context) FROM context_builds WHERE session = 'long'")
    assert rows.fetchone() == (KEEP_CONTEXTS + 2, KEEP_CONTEXTS)


def test_scores_say_where_drift_actions_were_applied(in_process):
    # Any EWMA below 0.999 calls for a reminder, so one scored reply makes the next context apply one.
    thresholds = {"reinforce_below": 0.999, "anchor_below": 0.02, "rebase_below": 0.01}
    d = in_process({"persona": thresholds}, fake_embedder=True)
    d.call("conversation.append", {"session": "s", "role": "user", "content": "Hi, how are you?"})
    assert d.call("persona.scores", {"session": "s"})["applied"] == []
    d.call("persona.score", {"session": "s", "response": "Fine."})
    built = d.call("conversation.context", {"session": "s", "budget_tokens": 800})
    assert built["drift_action"] == "reinforce"
    scored = d.call("persona.scores", {"session": "s"})
    assert scored["thresholds"] == {"reinforce": 0.999, "anchor": 0.02, "rebase": 0.01}
    assert [(a["session"], a["action"], a["score_id"]) for a in scored["applied"]] == [
        ("s", "reinforce", scored["scores"][-1]["id"])
    ]
    assert d.call("persona.scores", {"namespace": "default"})["applied"] == scored["applied"]


def test_forget_takes_the_episode_and_copies_that_hold_the_same_words(d):
    """A wifi password said in a conversation becomes an observation (a fact) and the turn's episode;
    forgetting the fact must not leave the episode to bring the password back in the next pack."""
    said = "The wifi password at home is tangerine-47."
    d.call("conversation.append", {"session": "home", "role": "user", "content": said})
    d.call("conversation.observe", {"session": "home", "force": True, "wait": True})
    d.services.episodes.catch_up()
    fact = d.call("memory.search", {"query": "wifi password", "types": ["fact"]})["results"][0]
    assert "tangerine-47" in fact["content"]
    copy = d.call("memory.add_many", {"items": [{"content": fact["content"].lower(), "type": "fact"}]})
    plan = d.call("memory.forget", {"id": fact["id"]})
    assert not plan["forgotten"]
    assert d.call("memory.forget", {"id": fact["id"], "confirm": True})["forgotten"]
    assert d.call("memory.search", {"query": "wifi password tangerine"})["results"] == []
    pack = d.call("context.pack", {"query": "what is the wifi password?", "budget_tokens": 300})
    assert "tangerine" not in pack["text"]
    also = {a["id"]: a["why"] for a in plan["also"]}  # the plan said so first
    assert also.get(copy["ids"][0]) == "says the same"
    assert "episode" in {a["type"] for a in plan["also"]}  # the turn's episode
    assert plan["turns"] == 1 and plan["sessions"] == ["home"]  # and the turn's words, at the source


def test_text_contains_matches_accents_and_case_aside(d):
    said = add(d, "Lucía se mudó a Valencia, al barrio de Ruzafa")
    add(d, "Lucas prefers the mountains")
    for asked in ("lucia", "LUCÍA", "lucía se  mudo", "ruzafa"):
        found = d.call("memory.list", {"contains": asked})
        assert [m["id"] for m in found["items"]] == [said], asked
    assert d.call("memory.list", {"contains": "50%_off"})["total"] == 0  # wildcards are literal
