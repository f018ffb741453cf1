"""Affect (seed 003, 3.3): how a memory feels, read from its words when it is stored (VADER's
valence, an emotion label, arousal as a proxy), given by an app or the anthropic Observer, kept
beside the memory (m031), shown by memory.get / memory.list / memory.search, and weighed by
[scoring] affect (default 0)."""

from __future__ import annotations

import json

import pytest
from fake_anthropic import KEY_ENV, FakeAnthropic, llm_config, message

from agentmemd.daemon.socket.client import RpcCallError
from agentmemd.memory.core.vocabulary import EMOTIONS
from agentmemd.memory.language.affect import _CUES, AROUSAL, NEUTRAL, read_affect

pytestmark = pytest.mark.inprocess


def affect_rows(d) -> int:
    return d.services.store.conn.execute("SELECT count(*) FROM memory_affect").fetchone()[0]


def test_the_words_give_valence_an_emotion_and_arousal():
    furious = read_affect("I'm furious with Bo, he lied to the whole council!")
    assert furious.valence < -0.4 and furious.emotion == "anger" and furious.arousal > 0.4
    glad = read_affect("I'm so happy the ferry is running again")
    assert glad.valence > 0.4 and glad.emotion == "joy"
    grief = read_affect("My mother died last week and I miss her terribly")
    assert grief.valence < 0 and grief.emotion == "sadness"
    assert grief.arousal < furious.arousal  # sadness is a low-arousal feeling (the circumplex)
    scared = read_affect("I'm terrified of the surgery on Friday")
    assert scared.emotion == "fear"
    # Negation turns the valence, and a joy word in an unpleasant sentence is not joy.
    not_happy = read_affect("I am not happy with the new rota")
    assert not_happy.valence < 0 and not_happy.emotion != "joy"
    # A plain fact feels nothing; other languages than English read as neutral (VADER is English).
    assert read_affect("The meeting moved to room 4 on Tuesday at 3 pm") == NEUTRAL
    assert read_affect("Die Besprechung ist am Dienstag um drei Uhr") == NEUTRAL


def test_a_long_text_is_read_in_pieces_of_bounded_size(monkeypatch):
    """VADER is quadratic in a text's words: a 90,000-character turn of emoji took hours on the
    episode thread and held a daemon's shutdown. A long text is read as a few bounded pieces."""
    from agentmemd.memory.language import affect

    given: list[int] = []
    real = affect._analyzer()

    class Counting:
        def polarity_scores(self, text):
            given.append(len(text))
            return real.polarity_scores(text)

    monkeypatch.setattr(affect, "_analyzer", lambda: Counting())
    read_affect("turn 0 " + "é🙂" * 45_000)
    assert 0 < len(given) <= affect.VALENCE_SAMPLES and max(given) <= affect.VALENCE_WHOLE_CHARS
    given.clear()
    glad = read_affect("I'm so happy the ferry is running again, what a wonderful day. " * 400)
    assert glad.valence > 0.4 and glad.emotion == "joy" and len(given) <= affect.VALENCE_SAMPLES
    given.clear()
    short = read_affect("I'm furious with Bo, he lied to the whole council!")
    assert given == [len("I'm furious with Bo, he lied to the whole council!")] and short.emotion == "anger"


def test_one_list_of_emotions():
    assert set(EMOTIONS) == {*_CUES, "positive", "negative", "neutral"} == set(AROUSAL)


def test_a_stored_memory_keeps_its_feeling_and_the_doors_show_it(in_process):
    d = in_process(fake_embedder=True)
    angry = d.call("memory.add", {"content": "I'm furious the landlord kept our whole deposit!", "type": "fact"})["id"]
    plain = d.call("memory.add", {"content": "The landlord's office is on Baker Street", "type": "fact"})["id"]
    got = d.call("memory.get", {"id": angry})["affect"]
    assert got["emotion"] == "anger" and got["valence"] < 0 and 0 < got["arousal"] <= 1
    assert d.call("memory.get", {"id": plain})["affect"] is None

    listed = d.call("memory.list", {"emotion": "anger"})
    assert [m["id"] for m in listed["items"]] == [angry] and listed["items"][0]["emotion"] == "anger"
    assert [m["id"] for m in d.call("memory.list", {"emotion": "neutral"})["items"]] == [plain]

    hits = {h["id"]: h for h in d.call("memory.search", {"query": "landlord deposit"})["results"]}
    assert hits[angry]["emotion"] == "anger" and hits[angry]["signals"]["affect"] == got["arousal"]
    assert hits[plain]["emotion"] == "neutral" and hits[plain]["signals"]["affect"] == 0


def test_an_app_may_say_how_a_memory_feels_and_bad_affect_is_refused(in_process):
    d = in_process(fake_embedder=True)
    given = {"valence": 0.6, "arousal": 0.2, "emotion": "joy"}
    mid = d.call("memory.add", {"content": "Moved into the flat on Elm Road", "type": "fact", "affect": given})["id"]
    assert d.call("memory.get", {"id": mid})["affect"] == given
    before = affect_rows(d)
    for bad, field in (
        ({"valence": 2.0, "arousal": 0.2, "emotion": "joy"}, "valence"),
        ({"valence": 0.1, "arousal": -1, "emotion": "joy"}, "arousal"),
        ({"valence": 0.1, "arousal": 0.2, "emotion": "smug"}, "emotion"),
    ):
        with pytest.raises(RpcCallError) as err:
            d.call("memory.add", {"content": "Something else entirely", "type": "fact", "affect": bad})
        assert err.value.code == -32602 and field in err.value.message
    assert affect_rows(d) == before and d.call("memory.list", {})["total"] == 1
    with pytest.raises(RpcCallError) as err:
        d.call("memory.list", {"emotion": "smug"})
    assert "emotion" in err.value.message


def test_the_affect_weight_lifts_the_intense_memory_and_is_off_by_default(in_process):
    texts = {
        "calm": "Bo said the ferry timetable changes in May",
        "intense": "Bo said the ferry timetable changes in May and I'm furious about it!",
    }
    for weight in (0.0, 0.5):
        d = in_process({"scoring": {"affect": weight}}, fake_embedder=True)
        ids = {k: d.call("memory.add", {"content": v, "type": "fact"})["id"] for k, v in texts.items()}
        hits = {h["id"]: h for h in d.call("memory.search", {"query": "ferry timetable May"})["results"]}
        intense = hits[ids["intense"]]
        s = intense["signals"]
        base = 0.35 * s["similarity"] + 0.25 * s["priority"] + 0.20 * s["decay"] + 0.20 * s["frequency"]
        assert intense["score"] == pytest.approx(base + weight * s["affect"], abs=1e-5)
        if weight:
            assert hits[ids["intense"]]["score"] - hits[ids["calm"]]["score"] > 0.2


def test_forget_removes_the_feeling_and_an_update_reads_it_again(in_process):
    d = in_process(fake_embedder=True)
    mid = d.call("memory.add", {"content": "I'm thrilled we won the allotment prize!", "type": "fact"})["id"]
    new = d.call("memory.update", {"id": mid, "content": "We came second in the allotment show"})["id"]
    assert d.call("memory.get", {"id": mid})["affect"]["emotion"] == "joy"  # the old version keeps its own
    assert d.call("memory.get", {"id": new})["affect"] is None
    assert affect_rows(d) == 1
    d.call("memory.forget", {"id": new, "confirm": True})
    assert affect_rows(d) == 0


def test_memories_stored_before_affect_was_kept_are_read_once(in_process):
    d = in_process(fake_embedder=True)
    mid = d.call("memory.add", {"content": "I'm so scared of the exam tomorrow", "type": "fact"})["id"]
    store = d.services.store
    with store.transaction():  # as a store from before m031 stands just after the upgrade
        store.conn.execute("DELETE FROM memory_affect")
        store.conn.execute("INSERT INTO meta (key, value) SELECT 'memory_affect_backlog', max(seq) FROM memories")
    assert d.call("memory.get", {"id": mid})["affect"] is None
    assert d.run_on_store(d.services.memories.read_older_memories) == 1
    assert d.call("memory.get", {"id": mid})["affect"]["emotion"] == "fear"
    assert d.run_on_store(d.services.memories.read_older_memories) == 0


def test_the_anthropic_observer_gives_its_own_reading(in_process, monkeypatch):
    reply = json.dumps(
        {
            "observations": [
                {
                    "priority": "HIGH",
                    "category": "emotional",
                    "content": "The user is dreading Friday's review with her manager.",
                    "source_turns": [1],
                    "affect": {"valence": -0.7, "arousal": 0.8, "emotion": "fear"},
                },
                {"priority": "MED", "category": "fact", "content": "The review is on Friday.", "source_turns": [1]},
            ]
        }
    )
    with FakeAnthropic() as fake:
        monkeypatch.setenv(KEY_ENV, "test-key")
        d = in_process({"llm": llm_config(fake)}, fake_embedder=True)
        fake.replies.append(message(reply))
        d.call("conversation.append", {"session": "s", "role": "user", "content": "Friday's review, ugh. Dreading it."})
        d.call("conversation.observe", {"session": "s"})
        assert "affect" in json.dumps(fake.requests[-1]["body"]["system"])  # asked for, in the cached instructions
        observed = d.call("observations.list", {"session": "s"})["observations"]
        feelings = {o["content"]: d.call("memory.get", {"id": o["memory_id"]})["affect"] for o in observed}
        assert feelings["The user is dreading Friday's review with her manager."] == {
            "valence": -0.7,
            "arousal": 0.8,
            "emotion": "fear",
        }
        assert feelings["The review is on Friday."] is None  # none given: read from its words (a plain fact)


def test_the_words_are_read_beside_the_embedding_not_in_the_write_transaction(in_process, monkeypatch):
    """How a memory feels (VADER and a language check), its secrets and slots are read on the
    request's thread, like its embedding: the one store thread only writes. Through memory.add,
    memory.add_many and the episodes of appended turns."""
    import threading

    import agentmemd.memory.retrieval.memories as memories_module

    read_on: list[str] = []
    real = memories_module.read_affect

    def noted(text: str):
        read_on.append(threading.current_thread().name)
        return real(text)

    monkeypatch.setattr(memories_module, "read_affect", noted)
    d = in_process(fake_embedder=True)
    d.call("memory.add", {"content": "I am thrilled about the new job!", "type": "fact"})
    d.call(
        "memory.add_many", {"items": [{"content": f"Sad news {i}: the cat is ill.", "type": "fact"} for i in range(3)]}
    )
    d.call("conversation.append", {"session": "s", "role": "user", "content": "I love this song so much"})
    d.services.episodes.catch_up()
    assert len(read_on) >= 5
    assert not [name for name in read_on if name.startswith("test-store")], read_on
    found = d.call("memory.search", {"query": "thrilled new job", "k": 1})["results"][0]
    assert found["content"] == "I am thrilled about the new job!"
    assert d.call("memory.get", {"id": found["id"]})["affect"]["valence"] > 0.3  # read, and kept
