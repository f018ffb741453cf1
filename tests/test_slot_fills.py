"""Changes detected when stored (m027, memory/store/slot_tables.py): which fact slot of whom a
memory fills is recorded with it, so a question about the present reaches the newest filler even
when nothing but that record ties them (it is far outside the question's nearest neighbours and
shares no word with it); a store from before is read once; forgetting removes the record."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from agentmemd.memory.language.slots import SELF, asked_slots, filled_slots

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


QUESTION_TO_THE_AGENT = "Who are you working with on the council vote now?"
# A season of an island council, as an agent who is a member of it keeps it: its own messages are the
# owner's (channels.ingest's ``owner``), the pact it made first was replaced by a later one, and the
# group chats in between talk of the vote, of working and of who backs what.
COUNCIL_CHATS = [
    (
        "ines-tomas",
        "private",
        ["ines", "tomas"],
        "2026-03-02T10:00:00",
        [
            ("tomas", "Look, Ines. You want the wall, I want the wall. Nobody else cares about the east quay."),
            ("ines", "Agreed. The wall is the only sensible thing on the list."),
            ("tomas", "Fine. So we vote together for the sea wall on Saturday, you and me. Deal?"),
            ("ines", "Deal. You and me, together for the wall. Tell nobody yet."),
        ],
    ),
    (
        "council",
        "group",
        ["ines", "tomas", "oskar", "kofi", "leila"],
        "2026-03-03T09:00:00",
        [
            (who, text)
            for i in range(6)
            for who, text in (
                ("kofi", f"Item {i}: the council vote is on Saturday, and I am working late on the school numbers."),
                ("leila", f"Item {i}: my tidal figures are ready; whoever backs the scheme should read them first."),
                ("oskar", f"Item {i}: I trust the council will vote on the ferry with the report in hand."),
                ("tomas", f"Item {i}: the quay needs work before any vote, whatever the council says."),
            )
        ],
    ),
    (
        "ines-oskar",
        "private",
        ["ines", "oskar"],
        "2026-03-05T10:20:00",
        [
            ("oskar", "The report is here. Page six: the quay wall is rebuilt in full with the ferry."),
            ("ines", "Page six. I see it. The east section too?"),
            ("oskar", "The east section first. So I ask you plainly: will you vote with me for the electric ferry?"),
            ("ines", "Yes. I'm backing you now, Oskar, not Tomas. Ferry and wall together. You and me on Saturday."),
            ("oskar", "Thank you, Miss Moreira. Mr Novak will be disappointed."),
        ],
    ),
    (
        "market",
        "group",
        ["ines", "kofi", "leila", "tomas"],
        "2026-03-06T09:00:00",
        [
            (who, text)
            for i in range(5)
            for who, text in (
                (
                    "kofi",
                    f"Note {i}: the vote count keeps changing, and I am working on a fair agenda for the council.",
                ),
                ("leila", f"Note {i}: working with numbers is easier than working with the council."),
            )
        ],
    ),
]


def _live_the_season(daemon, namespace: str, owner: str, persona: list[str]) -> None:
    daemon.call(
        "memory.add_many",
        {"items": [{"content": t, "type": "persona", "namespace": namespace, "source": "SOUL.md"} for t in persona]},
    )
    for chat, kind, members, start, said in COUNCIL_CHATS:
        if owner not in members:
            continue
        messages = [
            {
                "sender": who.capitalize(),
                "sender_id": who,
                "ts": (
                    datetime.fromisoformat(start).replace(tzinfo=timezone.utc) + timedelta(minutes=2 * i)
                ).isoformat(),
                "text": text,
                "message_id": f"{chat}-{i}",
                "line": i + 1,
            }
            for i, (who, text) in enumerate(said)
        ]
        got = daemon.call(
            "channels.ingest",
            {"channel": "council", "chat_id": chat, "title": chat, "kind": kind, "messages": messages,
             "owner": owner, "tz": "UTC", "namespace": namespace},
        )  # fmt: skip
        for session in got["sessions"]:
            daemon.call("conversation.observe", {"session": session, "namespace": namespace})


def _sources(pack: dict) -> list[str]:
    return [i.get("source") or "" for i in pack["items"]]


def test_who_an_agent_works_with_now_is_its_newest_pact_whoever_said_it(in_process):
    """An agent that keeps its own memory (its user goes by the name its persona gives it) is asked
    who it works with now: "you" is the user there, and the pack holds the later pact (made in a
    private chat, sharing no word with the question but "now") over the first. From the other side
    of that pact, the ally's "I'm backing you" is what fills it. Before the ally slot the question
    asked about no slot, and the pact was not packed."""
    daemon = in_process()
    for namespace in ("ines", "oskar"):
        persona = [f"I am {namespace.capitalize()}, a member of the Port Skerra council.", "Voice: terse and plain."]
        _live_the_season(daemon, namespace, namespace, persona)
    budget = 300
    for namespace in ("ines", "oskar"):
        pack = daemon.call(
            "context.pack", {"query": QUESTION_TO_THE_AGENT, "namespace": namespace, "budget_tokens": budget}
        )
        assert any(s.startswith("conversation:ines-oskar:") for s in _sources(pack)), (namespace, pack["text"])
        assert not any(s.startswith("conversation:ines-tomas:") for s in _sources(pack)), (namespace, pack["text"])
    # Asked by her name in her own memory (the name her chats' account goes by), Ines is the user.
    named = daemon.call(
        "context.pack",
        {"query": "Who is Ines working with on the council vote now?", "namespace": "ines", "budget_tokens": budget},
    )
    assert any(s.startswith("conversation:ines-oskar:") for s in _sources(named)), named["text"]


def test_you_is_the_user_only_where_the_user_is_the_agent(in_process):
    """An assistant named Nova keeps Ines's chats: "who am I working with" is Ines's pact with Oskar,
    while "who are you working with" asks about Nova, who made none, so no statement is lifted as
    its current value."""
    daemon = in_process()
    _live_the_season(daemon, "nova", "ines", ["I am Nova, Ines's assistant.", "Voice: warm."])
    mine = daemon.call(
        "context.pack",
        {"query": "Who am I working with on the council vote now?", "namespace": "nova", "budget_tokens": 300},
    )
    assert any(s.startswith("conversation:ines-oskar:") for s in _sources(mine)), mine["text"]
    yours = daemon.call("context.pack", {"query": QUESTION_TO_THE_AGENT, "namespace": "nova", "budget_tokens": 300})
    explained = daemon.call("context.explain", {"pack_id": yours["pack_id"], "namespace": "nova"})
    assert all(c["signals"].get("slot", 0) == 0 for c in explained["candidates"]), explained["candidates"][:3]


def test_alliances_are_read_from_both_sides_and_not_from_courtesies():
    from agentmemd.memory.language.slots import asked_slots, filled_slots

    assert asked_slots(QUESTION_TO_THE_AGENT) == [("ally", "agent")]
    assert asked_slots("Who is Leila backing now?") == [("ally", "leila")]
    assert asked_slots("Who's on my side?") == [("ally", "self")]
    own = "User said: Yes. I'm with you now, Leila, not Oskar. You and me for the tidal scheme."
    assert filled_slots(own) == {("ally", "self")}
    theirs = "Aroha said: Yes. I'm with you now, Leila, not Oskar."
    assert filled_slots(theirs) == {("ally", "aroha"), ("ally", "self")}  # said to the user
    assert filled_slots("I've been working with Dana on the launch since May.") == {("ally", "self"), ("ally", "dana")}
    assert filled_slots("Between you and me, the boss is leaving.") == set()
    assert filled_slots("assistant: I'm with you on that, it is a hard call.") == set()
    assert filled_slots("assistant: I am working with Dana on your taxes.") == {("ally", "agent"), ("ally", "dana")}


ALLIANCE_SETS = Path(__file__).parent / "data" / "alliances"


def _alliance_figures(path: Path) -> dict[str, int]:
    """How many of a set's statements fill an ally slot they state (of someone they name), of its
    questions ask the ally slot of whom they ask about, and of its look-alikes fill one."""
    from agentmemd.memory.language.slots import asked_slots, filled_slots

    data = json.loads(path.read_text(encoding="utf-8"))

    def allies(text: str) -> set[str]:
        return {subject for slot, subject in filled_slots(text) if slot == "ally"}

    return {
        "found": sum(bool(allies(s["text"]) & set(s["fills"])) for s in data["statements"]),
        "asked": sum(
            [w for slot, w in asked_slots(q["text"]) if slot == "ally"] == [q["asks"]] for q in data["questions"]
        ),
        "false": sum(bool(allies(text)) for text in data["negatives"]),
    }


@pytest.mark.parametrize(
    ("name", "floor"),
    [
        # Written by a helper who had not seen the patterns; the patterns were then widened on it.
        ("tuned_on.json", {"found": 30, "asked": 15, "false": 1}),
        # Written by another, after: never tuned on (41 statements, 20 questions, 26 look-alikes).
        ("held_out.json", {"found": 13, "asked": 13, "false": 2}),
    ],
)
def test_alliances_said_in_words_nobody_here_chose_are_recognised_no_worse_than_measured(name, floor):
    """A guard on the figures docs/packing.md quotes: recognition may improve, not fall."""
    got = _alliance_figures(ALLIANCE_SETS / name)
    assert got["found"] >= floor["found"] and got["asked"] >= floor["asked"], got
    assert got["false"] <= floor["false"], got


@pytest.mark.parametrize(
    "question", ["where does Lucía live now?", "Where does Lucia Perez live?", "¿Dónde vive Lucía?"]
)
def test_a_slot_asked_of_a_name_finds_what_its_speaker_said_accents_and_surname_aside(in_process, question):
    """Lucía Pérez said "Me mudé a Valencia" in a WhatsApp chat: her residence, recorded under
    "lucía pérez". Asked of "Lucía" (accented: no name at all to the old pattern), of "Lucia"
    (the record's name has more words and an accent) or in Spanish (only "¿Dónde vivo?" was read),
    the question reached nothing, and a greeting ranked first."""
    d = in_process(fake_embedder=True)
    said = [("Lucía Pérez", "¡Hola Jonas! ¿Qué tal todo?"), ("Jonas", "Bien, ¿y tú?"),
            ("Lucía Pérez", "Me mudé a Valencia hace dos semanas, el piso es precioso"), ("Jonas", "¡Qué bien!"),
            ("Lucía Pérez", "Mi perro se llama Toby y le encanta la playa"),
            ("Lucía Pérez", "Diego trae la guitarra el sábado")]  # fmt: skip
    messages = [{"sender": who, "sender_id": who, "ts": f"2024-04-1{i}T10:00:00Z", "text": text, "line": i + 1}
                for i, (who, text) in enumerate(said)]  # fmt: skip
    d.call("channels.ingest", {"channel": "whatsapp", "chat_id": "whatsapp:lucia", "title": "Lucía", "kind": "private",
                               "messages": messages, "owner": "Jonas"})  # fmt: skip
    d.services.episodes.catch_up()
    hits = d.call("memory.search", {"query": question, "k": 3})["results"]
    assert "Me mudé a Valencia" in hits[0]["content"], [h["content"] for h in hits]


def test_whose_fact_a_line_states_an_offer_and_a_partners_name():
    """Found living a week of someone's life: an identity line's description ("Anna is the sister of
    the user: lives in Munich") was taken for the user's own residence, a job offer still being
    weighed for the job, and "My girlfriend is called Lena" / "what's my partner's name?" for nothing."""
    assert filled_slots("Anna is the sister of the user: lives in Munich") == {("residence", "anna")}
    assert filled_slots("[[Marc]] is the brother of [[the user]]: lives in Lyon") == {("residence", "marc")}
    assert filled_slots("Note: I live in Kiel now") == {("residence", SELF)}
    assert filled_slots("I got a job offer from Zalando, still thinking about it") == set()
    assert filled_slots("I accepted the offer from Zalando") == {("workplace", SELF)}
    assert filled_slots("I got a new job at Zalando") == {("workplace", SELF)}
    assert filled_slots("My girlfriend is called Lena") == {("partner", SELF)}
    assert filled_slots("My wife's name is Ana") == {("partner", SELF)}
    assert filled_slots("my girlfriend is amazing") == set()
    assert ("partner", SELF) in asked_slots("what's my partner's name?")


def test_where_i_live_is_mine_not_my_sisters(in_process):
    d = in_process({"clock": {"start": "2026-01-05T08:00:00Z"}}, fake_embedder=True)
    d.call("memory.add", {"content": "I live in Hamburg, in Altona.", "type": "fact", "namespace": "u"})
    d.call("clock.advance", {"hours": 1})
    d.call("memory.add", {"content": "Anna is the sister of the user: lives in Munich", "type": "relational", "namespace": "u"})  # fmt: skip
    hits = d.call("memory.search", {"query": "where do I live now?", "namespace": "u"})["results"]
    assert "Hamburg" in hits[0]["content"], [h["content"] for h in hits]


@pytest.mark.parametrize(
    "first, later, question",
    [
        ("Mi novio se llama Diego", "Estoy saliendo con Marta desde abril", "¿Con quién estoy saliendo ahora?"),
        ("Meine Freundin heißt Lena", "Meine neue Freundin heißt Jana", "Wie heißt meine Freundin?"),
        ("Je sors avec Camille", "Mon copain s'appelle Hugo", "Comment s'appelle mon copain ?"),
        ("Minha namorada se chama Ana", "Estou namorando com Bia", "Quem é a minha namorada?"),
        ("La mia ragazza si chiama Giulia", "Sto con Chiara da marzo", "Come si chiama la mia ragazza?"),
    ],
)
def test_a_partner_named_in_another_language_fills_the_slot_and_is_asked_for(in_process, first, later, question):
    """Found living a user's weeks: "mi novia se llama" filled no slot (only English did), so "who
    is my partner now?" found the old partner as readily as the new one."""
    assert filled_slots(first) == filled_slots(later) == {("partner", SELF)}
    assert ("partner", SELF) in asked_slots(question)
    d = in_process({"clock": {"start": "2026-01-05T08:00:00Z"}}, fake_embedder=True)
    d.call("memory.add", {"content": first, "type": "relational", "namespace": "u"})
    for i in range(30):  # the weeks between
        d.call("clock.advance", {"hours": 20})
        d.call("memory.add", {"content": f"Day {i}: groceries, laundry, a walk", "type": "fact", "namespace": "u"})
    d.call("memory.add", {"content": later, "type": "relational", "namespace": "u"})
    # The pack (a search keeps only hits that match, and the fake embedder sees no match between
    # words it has not seen together, "namorando" and "namorada").
    text = d.call("context.pack", {"query": question, "namespace": "u", "budget_tokens": 300})["text"]
    assert later in text and (first not in text or text.index(later) < text.index(first)), text


def test_a_partner_only_praised_or_a_friend_named_fills_nothing():
    for text in ["mi novia es genial", "Mi amiga se llama Lena", "Mein Mann ist Arzt", "Meine Freundin ist müde",
                 "ma copine est fatiguée", "la mia ragazza è stanca"]:  # fmt: skip
        assert ("partner", SELF) not in filled_slots(text), text


@pytest.mark.parametrize(
    "supposed",
    [
        "If I moved to Lisbon, I'd finally learn to surf.",
        "¿Debería dejar mi trabajo en el banco?",
        "Si me mudara a Lisboa, aprendería a surfear.",
        "Wenn ich in Berlin wohnen würde, hätte ich es leichter.",
        "Maybe I'll move to Leeds one day.",
        "Should I take the job at Siemens?",
    ],
)
def test_a_question_or_a_supposition_fills_no_slot(in_process, supposed):
    """ "If I moved to Lisbon…" was packed first for "where do I live now?", above "I live in
    Hamburg"; "¿Debería dejar mi trabajo en el banco?" was the only answer to "where do I work now?"."""
    assert filled_slots(supposed) == set()
    d = in_process({"clock": {"start": "2026-11-01T10:00:00Z"}}, fake_embedder=True)
    d.call("memory.add", {"content": "I live in Hamburg with my partner Tom.", "type": "fact", "namespace": "u"})
    d.call("memory.add", {"content": "I work at Siemens as an engineer.", "type": "fact", "namespace": "u"})
    d.call("clock.advance", {"hours": 24 * 5})
    d.call("memory.add", {"content": supposed, "type": "fact", "namespace": "u"})
    for question, answer in (("Where do I live now?", "Hamburg"), ("Where do I work now?", "Siemens")):
        hits = d.call("memory.search", {"query": question, "namespace": "u"})["results"]
        assert answer in hits[0]["content"], (question, [h["content"] for h in hits])
        assert all(h["signals"]["slot"] == 0 for h in hits if h["content"] == supposed), (question, hits)


def test_the_users_words_under_a_name_they_go_by_answer_where_i_live_and_a_surname_tells_two_apart(in_process):
    """Lena's own turns ("Lena said: We finally got the keys to the new flat in Hamburg") recorded
    her residence under "lena", and "where do I live now?" asked "self": the stale Berlin line
    ranked first. And "where does Lucía Gómez live now?" was asked of "lucía", so Lucía Pérez's
    move answered it."""
    d = in_process({"clock": {"start": "2026-11-01T10:00:00Z"}}, fake_embedder=True)
    chat = {"channel": "whatsapp", "chat_id": "whatsapp:club", "title": "Club", "kind": "group", "owner": "Lena",
            "namespace": "u", "messages": [
                {"sender": "Lena", "ts": "2026-10-01T10:00:00Z", "line": 1, "text": "I used to live in Berlin, loved it."},
                {"sender": "Lucía Pérez", "ts": "2026-10-01T10:01:00Z", "line": 2, "text": "Antes vivía en Madrid, ahora vivo en Valencia."},
                {"sender": "Lucía Gómez", "ts": "2026-10-01T10:02:00Z", "line": 3, "text": "Yo sigo viviendo en Sevilla, en Triana."},
            ]}  # fmt: skip
    d.call("channels.ingest", chat)
    for text in ("We finally got the keys to the new flat in Hamburg.", "The weather is grey today."):
        d.call("clock.advance", {"hours": 24})
        d.call("conversation.append", {"session": "me", "role": "user", "content": text, "speaker": "Lena", "namespace": "u"})  # fmt: skip
    d.services.episodes.catch_up()
    hits = d.call("memory.search", {"query": "Where do I live now?", "namespace": "u"})["results"]
    assert "Hamburg" in hits[0]["content"], [h["content"] for h in hits]
    hits = d.call("memory.search", {"query": "Where does Lucía Gómez live now?", "namespace": "u"})["results"]
    assert not any("Pérez" in h["content"] and h["signals"]["slot"] > 0 for h in hits), hits
    assert "Sevilla" in hits[0]["content"], [h["content"] for h in hits]
