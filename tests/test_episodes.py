"""Episodes (issue 16): every conversation turn, appended or imported, becomes a searchable memory,
indexed with its session neighbourhood, linked both ways with the observations made of it; a
pack prefers the observation and falls back to the episode."""

from __future__ import annotations

import pytest

from agentmemd.memory.core.sessions import session_key

pytestmark = pytest.mark.inprocess  # the tier (pyproject.toml)

NS = "ep"
TURNS = [
    ("user", "Ana", "I finally moved to Lisbon last spring.", "2024-03-01T10:00:00Z"),
    ("assistant", "Assistant", "How do you like the city so far?", "2024-03-01T10:01:00Z"),
    ("user", "Ana", "The trams are wonderful, I ride the 28 every morning.", "2024-03-01T10:02:00Z"),
    ("assistant", "Assistant", "Which one is it?", "2024-03-01T10:03:00Z"),
    ("user", "Ana", "Yes, that one.", "2024-03-01T10:04:00Z"),
]


def _append(d, session="ep-1", turns=TURNS, namespace=NS):
    return [
        d.call(
            "conversation.append",
            {"session": session, "role": role, "speaker": who, "content": text, "ts": ts, "namespace": namespace},
        )["seq"]
        for role, who, text, ts in turns
    ]


def _episodes(d, query, namespace=NS, **extra):
    hits = d.call("memory.search", {"query": query, "k": 10, "namespace": namespace, **extra})["results"]
    return [h for h in hits if h["type"] == "episode"]


@pytest.fixture
def fake(in_process):
    return in_process(fake_embedder=True, config={"clock": {"start": "2024-03-02T00:00:00Z"}})


def test_appended_turns_become_episodes_with_their_session_speaker_and_time(fake):
    seqs = _append(fake)
    fake.services.episodes.catch_up()
    assert fake.call("conversation.status", {"session": "ep-1", "namespace": NS})["episodes_pending"] == 0
    said = "Ana said: The trams are wonderful, I ride the 28 every morning."
    hit = next(h for h in _episodes(fake, "trams every morning") if h["content"] == said)
    assert hit["source"] == f"conversation:ep-1#turn:{seqs[2]}"
    assert hit["created"].startswith("2024-03-01T10:02:00")
    record = fake.call("memory.get", {"id": hit["id"], "namespace": NS})
    assert record["type"] == "episode" and record["audience"] == "user" and "episode" in record["tags"]
    # Indexed with its session neighbourhood: a bare "Yes, that one." is found by what came before it.
    found = [h["content"] for h in _episodes(fake, "which tram line")]
    assert "Ana said: Yes, that one." in found
    # ... the two turns said before it in its session, never a later one.
    context = fake.services.store.get(hit["id"])[0]["context"]
    assert (
        context == "Ana said: I finally moved to Lisbon last spring.\nAssistant said: How do you like the city so far?"
    )
    first = next(h for h in _episodes(fake, "moved to Lisbon") if h["source"].endswith(f"#turn:{seqs[0]}"))
    assert fake.services.store.get(first["id"])[0]["context"] is None


def test_observations_and_episodes_are_linked_both_ways_and_a_turn_is_packed_once(fake):
    seqs = _append(fake)
    fake.services.episodes.catch_up()
    # Before the Observer: the pack falls back to the episode.
    pack = fake.call("context.pack", {"query": "moved to Lisbon", "budget_tokens": 400, "namespace": NS})
    assert "Ana said: I finally moved to Lisbon last spring." in pack["text"]
    episode = next(h for h in _episodes(fake, "moved to Lisbon") if h["source"].endswith(f"#turn:{seqs[0]}"))

    fake.call("conversation.observe", {"session": "ep-1", "namespace": NS, "force": True, "wait": True})
    observations = fake.call("observations.list", {"session": "ep-1", "namespace": NS})["observations"]
    made = [o for o in observations if seqs[0] in o["source_turns"]]
    assert made, "the Observer made nothing of the first turn"
    observation_id = made[0]["memory_id"]
    assert fake.call("memory.get", {"id": episode["id"], "namespace": NS})["observations"] == [observation_id]
    assert fake.call("memory.get", {"id": observation_id, "namespace": NS})["episodes"] == [episode["id"]]

    def packed(query):
        pack = fake.call("context.pack", {"query": query, "budget_tokens": 400, "namespace": NS})
        explained = fake.call("context.explain", {"pack_id": pack["pack_id"], "namespace": NS})
        return [item["id"] for item in pack["items"]], {c["id"]: c["why_not"] for c in explained["candidates"]}

    # The local Observer's observation is a sentence cut from the turn: the episode says all it
    # says, so the episode is packed and the cut is not (its tokens are not spent twice).
    ids, why = packed("moved to Lisbon")
    assert episode["id"] in ids and observation_id not in ids
    assert episode["id"] in why[observation_id]
    # An observation that says more than the turn's words (as a model's does: a date resolved) is
    # preferred to the episode. Here a person's edit makes it so; the new version keeps its links.
    rewritten = fake.call(
        "memory.update", {"id": observation_id, "namespace": NS, "content": "Ana moved to Lisbon in spring 2023."}
    )["id"]
    assert fake.call("memory.get", {"id": rewritten, "namespace": NS})["episodes"] == [episode["id"]]
    ids, why = packed("moved to Lisbon")
    assert rewritten in ids and episode["id"] not in ids
    assert rewritten in why[episode["id"]]
    observation_id = rewritten

    # A search shows the fact once: the lower of the two is folded into the better one.
    hits = fake.call("memory.search", {"query": "moved to Lisbon", "k": 10, "namespace": NS})["results"]
    ids = [h["id"] for h in hits]
    assert not (episode["id"] in ids and observation_id in ids)
    folded = {f for h in hits for f in h["folded"]}
    assert episode["id"] in folded or observation_id in folded


def test_a_conversations_context_does_not_pack_the_turns_it_shows(fake):
    _append(fake)
    fake.services.episodes.catch_up()
    fake.call(
        "conversation.append",
        {"session": "ep-1", "role": "user", "content": "Remind me about the trams?", "namespace": NS},
    )
    fake.services.episodes.catch_up()
    context = fake.call("conversation.context", {"session": "ep-1", "namespace": NS, "budget_tokens": 4000})
    shown = "".join(m["content"] for m in context["messages"])
    assert shown.count("I ride the 28 every morning") == 1  # the raw turn, not also its episode in the pack


def test_turns_without_episodes_are_indexed_at_the_next_start(in_process, short_tmp):
    """The path a crash between a turn's commit and its episode's takes, and an upgrade's."""
    config = {"clock": {"start": "2024-03-02T00:00:00Z"}}
    off = in_process({**config, "conversation": {"episodes": False}}, fake_embedder=True, root=short_tmp / "d")
    _append(off)
    assert _episodes(off, "trams every morning") == []
    assert off.services.episodes.tables.unindexed_count(session_key(NS, "ep-1")) == len(TURNS)
    off.terminate()
    on = in_process(config, fake_embedder=True, root=short_tmp / "d")
    on.services.episodes.catch_up()  # the worker started on them already; this waits for the rest
    assert on.call("conversation.status", {"session": "ep-1", "namespace": NS})["episodes_pending"] == 0
    for role, who, text, _ in TURNS:
        if role == "user":
            assert f"{who} said: {text}" in [h["content"] for h in _episodes(on, text)]


def test_the_assistants_own_replies_are_episodes_only_when_asked(in_process):
    """What the agent said is not evidence of what is true: by default its replies stay out."""
    for asked in (False, True):
        d = in_process(
            {"clock": {"start": "2024-03-02T00:00:00Z"}, "conversation": {"episodes_of_assistant": asked}},
            fake_embedder=True,
        )
        _append(d)
        d.services.episodes.catch_up()
        assert d.call("conversation.status", {"session": "ep-1", "namespace": NS})["episodes_pending"] == 0
        found = [h["content"] for h in _episodes(d, "How do you like the city so far")]
        assert ("Assistant said: How do you like the city so far?" in found) is asked


def test_imported_chat_turns_are_episodes_heard_only_where_the_chat_may_be(fake):
    messages = [
        {"sender": "Rui", "sender_id": "rui", "ts": 1_709_287_200 + 60 * i, "text": text, "line": i + 1}
        for i, text in enumerate(["Hi all", "My surprise party for Eva is on Friday, keep it quiet", "ok"])
    ]
    chat = "discord:9001"
    fake.call(
        "channels.ingest",
        {
            "channel": "discord",
            "chat_id": chat,
            "title": "friends",
            "kind": "group",
            "messages": messages,
            "namespace": NS,
        },
    )
    fake.services.episodes.catch_up()
    hits = _episodes(fake, "surprise party Friday")
    assert hits and hits[0]["content"] == "Rui said: My surprise party for Eva is on Friday, keep it quiet"
    record = fake.call("memory.get", {"id": hits[0]["id"], "namespace": NS})
    assert record["audience"] == f"group:{chat}" and record["origin_chat"] == chat and record["said_by"]
    # Another chat does not hear it; the chat itself does.
    assert _episodes(fake, "surprise party Friday", audience="group:discord:42") == []
    assert _episodes(fake, "surprise party Friday", audience=f"group:{chat}")


def test_a_turn_that_cannot_be_an_episode_does_not_hold_up_the_rest(fake, monkeypatch):
    """A turn whose episode fails validation is left without one, logged; the next turns still
    become episodes (else the worker would retry the same turn forever)."""
    worker = fake.services.episodes
    real = worker._episode

    def refusing(turn):
        if "Lisbon" in turn["content"]:
            return real({**turn, "person": "x" * 100})  # said_by longer than AddParams allows
        return real(turn)

    monkeypatch.setattr(worker, "_episode", refusing)
    _append(fake)
    worker.catch_up()
    assert fake.call("conversation.status", {"session": "ep-1", "namespace": NS})["episodes_pending"] == 0
    found = [h["content"] for h in _episodes(fake, "trams every morning Lisbon")]
    assert "Ana said: The trams are wonderful, I ride the 28 every morning." in found
    assert "Ana said: I finally moved to Lisbon last spring." not in found


def test_another_run_indexing_the_same_turns_first_is_an_info_line_not_an_error(fake, caplog):
    """Two daemons on one PostgreSQL index the same new turns: the one that loses the race logged an
    error with a traceback each time (20 in 15 s of ordinary load), tripping every error alert."""
    tables = fake.services.episodes.tables
    real = tables.set_episodes
    tables.set_episodes = lambda marks: real(marks) - 1  # as when the other daemon marked one first
    with caplog.at_level("INFO", logger="agentmemd"):
        fake.call("conversation.append", {"session": "race", "role": "user", "content": "We moved to Leeds in May"})
        fake.services.episodes.catch_up_logged()  # the worker's own run may have met the race first: both say so
    raced = [r for r in caplog.records if "another run" in r.getMessage()]
    assert raced and all(r.levelname == "INFO" and not r.exc_info for r in raced)
    assert not [r for r in caplog.records if r.levelname == "ERROR"]
