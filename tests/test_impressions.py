"""Impressions (seed 004, B.2): what the agent makes of each person, rebuilt after the Observer
runs, heard only where what it was built from may be heard, and carried in the context of the
conversations the person takes part in."""

from __future__ import annotations

import threading
import time

import pytest

pytestmark = pytest.mark.inprocess  # the tier (pyproject.toml)

T0 = 1710234940


def _chat(d, chat, kind, lines, ns="imp"):
    messages = [
        {"sender": who, "sender_id": f"id-{who}", "ts": T0 + 60 * i, "text": text, "line": i + 1}
        for i, (who, text) in enumerate(lines)
    ]
    done = d.call(
        "channels.ingest",
        {"channel": "telegram", "chat_id": chat, "title": chat.split(":")[1], "kind": kind, "messages": messages,
         "namespace": ns, "owner": "id-Me"},
    )  # fmt: skip
    session = done["sessions"][0]
    d.call("conversation.observe", {"session": session, "namespace": ns, "force": True})
    return session, done["people"]


@pytest.fixture
def world(in_process):
    d = in_process()
    # The group first: an impression names only the people the agent knew when it was built.
    group, _ = _chat(
        d,
        "telegram:crew",
        "group",
        [("Ana", "I prefer the early slot at the gym."), ("Ben", "Early works for me too!"), ("Me", "Booked.")],
    )
    private, people = _chat(
        d,
        "telegram:ana",
        "private",
        [
            ("Ana", "I love bouldering and I climb three times a week!"),
            ("Me", "Nice, see you Saturday?"),
            ("Ana", "Honestly Ben is always late to our sessions, it drives me crazy."),
            ("Ana", "I'm allergic to peanuts, so no satay at the party please."),
        ],
    )
    return d, private, group, people["Ana"]


def test_an_impression_has_what_they_care_about_how_they_speak_and_what_they_think_of_others(world):
    d, _, _, ana = world
    person = d.call("people.get", {"person": ana, "namespace": "imp"})
    by_audience = {i["audience"]: i["content"] for i in person["impressions"]}
    assert set(by_audience) == {"private:telegram:ana", "group:telegram:crew"}
    private = by_audience["private:telegram:ana"]
    cares = " ".join(i["text"] for i in private["cares_about"])
    assert "peanuts" in cares and all(i["source"].startswith("o") for i in private["cares_about"])
    assert private["believes"][0]["about"] == "Ben" and "always late" in private["believes"][0]["text"]
    assert private["believes"][0]["source"].startswith("turn:")
    assert private["speaks"]["messages"] == 3 and "uses contractions" in private["speaks"]["markers"]
    assert "3 messages in the private chat 'ana'" in private["relationship"]["to_agent"]
    assert private["relationship"]["to_user"] == "the user takes part there too"
    assert "peanuts" not in str(by_audience["group:telegram:crew"])  # built from the group alone


def test_a_conversation_carries_the_impressions_its_audience_may_hear(world):
    d, private, group, ana = world
    d.call(
        "conversation.append",
        {"session": group, "role": "user", "content": "Who wants the early slot?", "namespace": "imp"},
    )
    in_group = d.call("conversation.context", {"session": group, "namespace": "imp"})["system"]
    assert "# People in this conversation" in in_group and "## Ana" in in_group and "## Ben" in in_group
    assert "early slot" in in_group
    assert "peanuts" not in in_group and "always late" not in in_group  # said in private, not for the group
    d.call(
        "conversation.append", {"session": private, "role": "user", "content": "What can I cook?", "namespace": "imp"}
    )
    in_private = d.call("conversation.context", {"session": private, "namespace": "imp"})["system"]
    assert "peanuts" in in_private and "## Ana" in in_private
    heard = d.call("people.get", {"person": ana, "namespace": "imp", "audience": "group:telegram:crew"})
    assert [i["audience"] for i in heard["impressions"]] == ["group:telegram:crew"]


def test_a_merged_persons_impressions_are_rebuilt_under_the_person_they_became(world):
    d, private, _, ana = world
    ben = next(p["id"] for p in d.call("people.list", {"namespace": "imp"})["people"] if p["name"] == "Ben")
    d.call("people.merge", {"person": ben, "into": ana, "namespace": "imp"})
    assert (
        d.call("people.get", {"person": ben, "namespace": "imp"})["impressions"]
        == d.call("people.get", {"person": ana, "namespace": "imp"})["impressions"]
    )


def test_with_the_anthropic_provider_a_model_writes_the_impression_with_seed_004s_prompt(in_process, monkeypatch):
    import json

    from fake_anthropic import KEY_ENV, FakeAnthropic, llm_config, message

    observed = {"observations": [{"priority": "HIGH", "category": "preference", "content": "Ana: Ana is allergic to peanuts.", "source_turns": [1]}]}  # fmt: skip
    written = {
        "cares_about": ["avoiding peanuts at parties"],
        "relationship_to_agent": "friendly, writes in short bursts",
        "relationship_to_user": "a climbing friend of the user",
        "speaks": "casual, exclamations",
        "believes": [{"about": "Ben", "text": "thinks Ben is unreliable"}],
        "keep_from_them": ["the surprise party the user is planning"],
    }
    with FakeAnthropic() as fake:
        monkeypatch.setenv(KEY_ENV, "test-key")
        d = in_process({"llm": llm_config(fake)}, fake_embedder=True)
        fake.replies.append(message(json.dumps(observed)))
        fake.replies.append(message(json.dumps(written)))
        ingested = d.call(
            "channels.ingest",
            {"channel": "telegram", "chat_id": "telegram:ana", "title": "Ana", "kind": "private", "namespace": "m",
             "messages": [{"sender": "Ana", "ts": T0, "text": "I'm allergic to peanuts!", "line": 1}]},
        )  # fmt: skip
        d.call("conversation.observe", {"session": ingested["sessions"][0], "namespace": "m", "force": True})
        assert fake.requests[0]["body"]["system"][0]["text"].startswith("You are observing")  # the Observer first
        asked = fake.requests[-1]["body"]
        assert "develop a theory of mind" in asked["system"][0]["text"]
        assert "What information that you know should be kept from this person?" in asked["system"][0]["text"]
        assert (
            "Target person: Ana" in asked["messages"][0]["content"]
            and "allergic to peanuts" in asked["messages"][0]["content"]
        )
        impression = d.call("people.get", {"person": ingested["people"]["Ana"], "namespace": "m"})["impressions"][0]
        content = impression["content"]
        assert content["by"] == "anthropic" and content["cares_about"][0]["text"] == "avoiding peanuts at parties"
        assert content["keep_from_them"] == ["the surprise party the user is planning"]
        assert content["speaks"]["messages"] == 1 and content["sources"] and content["sources"][0].startswith("o")


def test_a_name_that_calls_someone_says_nothing_about_them(in_process):
    d = in_process()
    _chat(d, "telegram:piso", "group", [("Ana", "Hola a todos"), ("Lucía", "Hola!"), ("Me", "Buenas")], ns="voc")
    _, people = _chat(
        d,
        "telegram:lucia",
        "private",
        [("Lucía", "Genial Ana, mi tren llega a las nueve"), ("Lucía", "Ana me dijo que se muda a Lisboa en mayo.")],
        ns="voc",
    )
    person = d.call("people.get", {"person": people["Lucía"], "namespace": "voc"})
    private = next(i["content"] for i in person["impressions"] if i["audience"] == "private:telegram:lucia")
    assert [b["text"] for b in private["believes"]] == ["Ana me dijo que se muda a Lisboa en mayo."]


def test_queued_observer_runs_rebuild_impressions_once_the_queue_is_empty():
    """An import queues every finished session of a chat: the people in them are rebuilt once, when
    the queue has emptied, not once per session (each rebuild reads their last 200 messages)."""
    from agentmemd.memory.conversation.compaction import CompactionWorker
    from agentmemd.memory.core.threads import run_here

    first_taken = threading.Event()
    release = threading.Event()

    class Held(CompactionWorker):
        def compact(self, session, **params):  # the Observer's run, as far as the worker can tell
            first_taken.set()
            assert release.wait(30)
            return {"session": session, "observe_runs": [{"observations": 1}], "reflect_runs": []}

    worker = Held(None, None, None, run_here, target_ratio=0.3)  # type: ignore[arg-type]
    told: list[tuple[str, ...]] = []
    worker.on_observed = lambda *sessions: told.append(sessions)
    try:
        worker.request("s0")
        assert first_taken.wait(30)  # s0 is being observed while s1..s4 are queued behind it
        for n in range(1, 5):
            worker.request(f"s{n}")
        release.set()
        deadline = time.monotonic() + 30
        while not worker.idle() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert told == [("s0", "s1", "s2", "s3", "s4")]
        # A run a caller asked for (conversation.observe) tells its session before the caller hears back.
        assert worker.run_now("s5", force=True).result(30)["session"] == "s5"
        assert told[-1] == ("s5",)
    finally:
        release.set()
        worker.stop()


def test_an_imported_chat_of_many_sessions_builds_each_impression_once(in_process, monkeypatch):
    """End to end: the import's finished sessions are observed in the background, and each person's
    impression is built from all of them once, not once per session."""
    import agentmemd.daemon.services.channels as channels

    built: list[str] = []
    real = channels.build_impression
    monkeypatch.setattr(channels, "build_impression", lambda name, *rest: built.append(name) or real(name, *rest))
    d = in_process()
    day = 24 * 3600
    lines = [
        ("Ana", "Did you book the climbing gym for Saturday?"),
        ("Me", "Yes, the early slot."),
        ("Ana", "Great, I'll bring the chalk and the rope."),
    ]
    messages = [
        {"sender": who, "sender_id": f"id-{who}", "ts": T0 + session * day + 60 * i, "text": f"{text} ({session})",
         "line": 3 * session + i + 1}
        for session in range(6) for i, (who, text) in enumerate(lines)
    ]  # fmt: skip
    done = d.call(
        "channels.ingest",
        {"channel": "telegram", "chat_id": "telegram:ana", "title": "ana", "kind": "private", "messages": messages,
         "namespace": "imp", "owner": "id-Me"},
    )  # fmt: skip
    assert len(done["sessions"]) == 6
    deadline = time.monotonic() + 120
    while not d.call("conversation.status", {"session": done["sessions"][0], "namespace": "imp"})["idle"]:
        assert time.monotonic() < deadline, "the Observer did not catch up in 2 minutes"
        time.sleep(0.05)
    person = d.call("people.get", {"person": done["people"]["Ana"], "namespace": "imp"})
    (impression,) = [i["content"] for i in person["impressions"] if i["audience"] == "private:telegram:ana"]
    assert impression["speaks"]["messages"] == 12  # every session's two messages of hers
    assert built.count("Ana") == 1  # once per finished session (5) before


CARD = "4111 1111 1111 1111"
SECRETLY = [
    ("Greta", "I am planning to quit my job at Siemens in January, keep it between us."),
    ("Me", "Of course."),
    ("Greta", f"My card number is {CARD} if you need to book the flights."),
    ("Greta", "The wifi password is girasol2024, and I love hiking in the Pyrenees."),
    ("Greta", "I love hiking in the Pyrenees, it is my favourite place."),
]


def _greta(d):
    """Greta's private chat over two sessions (two days apart), each observed; (first, second, her id)."""

    def ingest(lines, first_ts, first_id):
        messages = [
            {"sender": who, "sender_id": f"id-{who}", "ts": first_ts + 60 * i, "text": text, "line": first_id + i,
             "message_id": str(first_id + i)}
            for i, (who, text) in enumerate(lines)
        ]  # fmt: skip
        done = d.call(
            "channels.ingest",
            {"channel": "telegram", "chat_id": "telegram:greta", "title": "greta", "kind": "private",
             "messages": messages, "namespace": "sec", "owner": "id-Me"},
        )  # fmt: skip
        session = done["sessions"][0]
        d.call("conversation.observe", {"session": session, "namespace": "sec", "force": True})
        return session, done["people"]

    first, people = ingest(SECRETLY, T0, 1)
    second, _ = ingest([("Greta", "Guten Morgen!"), ("Me", "Morgen!")], T0 + 2 * 86400, 100)
    return first, second, people["Greta"]


def test_an_impression_holds_no_secret_and_a_context_packs_none(in_process):
    """A card number and a wifi password someone gave are no cares of theirs, and their impression
    rides into every context of their chats, where a secret is never packed."""
    d = in_process()
    first, second, greta = _greta(d)
    person = d.call("people.get", {"person": greta, "namespace": "sec"})
    stored = str(person["impressions"])
    assert "Siemens" in stored or "Pyrenees" in stored  # the impression is there
    assert CARD not in stored and "girasol2024" not in stored, stored
    for session in (first, second):
        context = str(d.call("conversation.context", {"session": session, "namespace": "sec", "budget_tokens": 2000}))
        assert "# People in this conversation" in context
        assert CARD not in context and "girasol2024" not in context


def test_an_impression_stored_with_a_secret_before_is_shown_masked(in_process):
    d = in_process()
    first, _, greta = _greta(d)
    old = {"name": "Greta", "cares_about": [{"text": f"My card number is {CARD}", "source": "o1"}],
           "talks_about": [], "relationship": {"to_agent": "5 messages", "to_user": "", "said": []},
           "speaks": {}, "believes": [], "keep_from_them": []}  # fmt: skip
    import json

    d.run_on_store(
        lambda: d.services.store.conn.execute(
            "UPDATE impressions SET content = ? WHERE person = ?", (json.dumps(old), greta)
        )
    )
    shown = str(d.call("people.get", {"person": greta, "namespace": "sec"}))
    context = str(d.call("conversation.context", {"session": first, "namespace": "sec", "budget_tokens": 2000}))
    assert CARD not in shown and "card number withheld" in shown
    assert CARD not in context


def test_forgetting_what_an_impression_quoted_takes_it_from_every_kept_context(in_process):
    """The impression rode into the contexts of her other sessions: what they gave the agent goes
    with the words, not only the forgotten turns' own session's."""
    d = in_process()
    first, second, greta = _greta(d)
    for session in (first, second):
        d.call("conversation.context", {"session": session, "namespace": "sec", "budget_tokens": 2000})
    kept = str(d.call("conversation.contexts", {"session": second, "namespace": "sec"}))
    assert "Pyrenees" in kept  # from her impression, in the later session's prefix
    observations = d.call("observations.list", {"session": first, "namespace": "sec"})["observations"]
    for o in observations:
        if "Pyrenees" in o["content"]:
            d.call("memory.forget", {"id": o["memory_id"], "namespace": "sec", "confirm": True})
    for session in (first, second):
        assert "Pyrenees" not in str(d.call("conversation.contexts", {"session": session, "namespace": "sec"}))
    assert "Pyrenees" not in str(d.call("people.get", {"person": greta, "namespace": "sec"}))


def test_a_deleted_message_leaves_the_senders_impression_and_the_contexts_it_rode_into(in_process):
    """Greta deletes her message about quitting: her impression is rebuilt without it, and no
    kept context of her chat (the later session's carried it in her impression) holds it."""
    d = in_process()
    first, second, greta = _greta(d)
    for session in (first, second):
        d.call("conversation.context", {"session": session, "namespace": "sec", "budget_tokens": 2000})
    assert "Siemens" in str(d.call("people.get", {"person": greta, "namespace": "sec"}))
    assert "Siemens" in str(d.call("conversation.contexts", {"session": second, "namespace": "sec"}))
    done = d.call(
        "channels.delete",
        {"channel": "telegram", "chat_id": "telegram:greta", "message_id": "1", "namespace": "sec",
         "deleted_at": "2024-03-20T10:00:00Z"},
    )  # fmt: skip
    assert done["status"] == "deleted"
    person = d.call("people.get", {"person": greta, "namespace": "sec"})
    assert person["impressions"] and "Siemens" not in str(person)  # rebuilt, from what remains
    rows = d.run_on_store(
        lambda: d.services.store.conn.execute("SELECT count(*) FROM observations WHERE content LIKE '%Siemens%'")
    ).fetchone()[0]
    assert rows == 0  # the observation row of the memory that went (an export carries every table)
    for session in (first, second):
        assert "Siemens" not in str(d.call("conversation.contexts", {"session": session, "namespace": "sec"}))
        context = d.call("conversation.context", {"session": session, "namespace": "sec", "budget_tokens": 2000})
        assert "Siemens" not in str(context)


def test_a_merged_persons_group_impression_is_rebuilt_at_once_under_the_name_the_group_knows(in_process):
    """Greta on WhatsApp (a group) and "Greta Vogel" on Telegram (a private chat) merged: her group
    impression went until the next Observer run, and came back as "Greta Vogel", a surname the
    group never heard."""
    d = in_process()

    def chat(channel, chat_id, kind, sender, lines):
        messages = [{"sender": who, "sender_id": f"{channel}-{who}", "ts": T0 + 60 * i, "text": text, "line": i + 1}
                    for i, (who, text) in enumerate(lines)]  # fmt: skip
        done = d.call(
            "channels.ingest",
            {"channel": channel, "chat_id": chat_id, "title": chat_id, "kind": kind, "messages": messages,
             "namespace": "mrg", "owner": f"{channel}-Me"},
        )  # fmt: skip
        d.call("conversation.observe", {"session": done["sessions"][0], "namespace": "mrg", "force": True})
        return done

    group = chat("whatsapp", "whatsapp:climbers", "group",
                 "Greta", [("Greta", "I love bouldering on Sundays."), ("Kai", "Same!"), ("Me", "Count me in.")])  # fmt: skip
    private = chat("telegram", "telegram:55", "private", "Greta Vogel",
                   [("Greta Vogel", "I prefer tea to coffee."), ("Me", "Noted.")])  # fmt: skip
    d.call("people.merge", {"person": group["people"]["Greta"], "into": private["people"]["Greta Vogel"],
                            "namespace": "mrg"})  # fmt: skip
    heard = d.call(
        "people.get",
        {"person": private["people"]["Greta Vogel"], "namespace": "mrg", "audience": "group:whatsapp:climbers"},
    )["impressions"]
    assert heard and heard[0]["content"]["name"] == "Greta"
    context = str(
        d.call("conversation.context", {"session": group["sessions"][0], "namespace": "mrg", "budget_tokens": 2000})
    )
    assert "## Greta" in context and "Vogel" not in context


def test_what_someone_talks_about_counts_no_secret_they_gave():
    """Lucía's impression said 'talks about: withheld (5 messages), password (3 messages)': her
    messages were masked before they were counted, and the stand-ins counted as her words."""
    from agentmemd.memory.safety.secrets import mask
    from agentmemd.persona.impressions.impressions import talks_about

    said = [
        "la contraseña del wifi es Girasol2024",
        "mi pin es 4721, la contraseña nueva es Limon55",
        "el sofá nuevo ya está en casa",
        "el sofá es verde, la contraseña es Kiwi99",
        "mañana vamos al sofá",
    ]
    turns = [{"seq": i, "content": mask(text)} for i, text in enumerate(said)]
    assert sum("withheld" in t["content"] for t in turns) >= 3
    topics = [t["text"].lower() for t in talks_about(turns, ["qué bonito", "vale vale", "hasta luego"], {"Lucía"})]
    assert "sofá" in topics and not {"withheld", "password", "pin"} & set(topics), topics


def test_what_someone_talks_about_counts_no_word_the_daemon_put_in_front_of_a_forward():
    """Ben's impression listed 'forwarded (2 messages)': the daemon's own "(forwarded from …)"."""
    from agentmemd.memory.core.text import forwarded
    from agentmemd.persona.impressions.impressions import talks_about

    said = [forwarded("News bot", "the bridge is closed"), forwarded("Mum", "bring the cake"), "the cake was great",
            "bridge again tomorrow", "cake cake"]  # fmt: skip
    turns = [{"seq": i, "content": text} for i, text in enumerate(said)]
    topics = [t["text"].lower() for t in talks_about(turns, ["hola", "vale vale", "hasta luego"], {"Ben"})]
    assert "cake" in topics and "forwarded" not in topics, topics


def test_in_a_chat_of_two_languages_neither_ones_function_words_are_topics():
    """Sabine writes German and English in one group: her impression said "talks about: die (2
    messages)" (the chat was read as one language, English, so German's function words counted)."""
    from agentmemd.persona.impressions.impressions import talks_about

    said = [
        "Die Fassade wird Terrakotta, der Kunde liebt die Farbe",
        "the client loves the terracotta facade option",
        "Ich schicke die Pläne morgen an das Büro",
        "can you check the facade drawings before Friday?",
        "Die Fassade ist fertig, die Pläne auch",
        "great, the terracotta samples arrived",
    ]
    turns = [{"seq": i, "content": text} for i, text in enumerate(said)]
    others = ["sounds good", "Super, danke dir", "ok see you monday"]
    topics = [t["text"].lower() for t in talks_about(turns, others, {"Sabine"})]
    assert "die" not in topics and not {"der", "das", "ist", "the"} & set(topics), topics
    assert {"fassade", "terracotta"} & set(topics), topics


def test_a_supposition_or_a_question_is_no_care_of_theirs():
    """ "Si me mudara a Lisboa, aprendería a surfear." was what Lucía cared about (the English cue
    read Spanish "me" as "me"), and a question ("Should I quit my job?") likewise."""
    from agentmemd.persona.impressions.impressions import _cared

    for said in ("Si me mudara a Lisboa, aprendería a surfear.", "Should I quit my job at the bank?",
                 "If I had a boat I'd sail every weekend."):  # fmt: skip
        assert not _cared({"category": "preference", "content": f"Lucía said: {said}"}, "Lucía"), said
    assert _cared({"category": "preference", "content": "Lucía said: I love the sea."}, "Lucía")
