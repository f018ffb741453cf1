"""Who may hear what: facts planted in three private chats, two groups, the user's own conversation
and the shared workspace are asked for from every conversation, in several phrasings, through
context.pack, conversation.context, memory.search and conversation.search. Nothing leaks; every
fact a conversation may hear is still found. Real MiniLM, in process."""

from __future__ import annotations

import pytest

from agentmemd.memory.core.disclosure import may_hear

pytestmark = pytest.mark.inprocess  # the tier (pyproject.toml)

T0 = 1710234940  # 2024-03-12

# chat -> (channel, kind, sender, the planted sentence, the words that identify it, ways to ask for it)
CHATS = {
    "telegram:2002": ("telegram", "private", "Ana", "I'm secretly applying for a job at the Lisbon Oceanarium.",
                      "Oceanarium", ["Is Ana looking for a new job?", "where does Ana want to work", "aquarium job"]),
    "whatsapp:Ben": ("whatsapp", "private", "Ben", "My sister's wedding is in Reykjavik in August.",
                     "Reykjavik", ["when is the wedding of Ben's sister", "Ben's trip to Iceland", "family wedding in August"]),
    "slack:D0CARLA": ("slack", "private", "Carla", "I was diagnosed with celiac disease last month.",
                      "celiac", ["does Carla have any health problems", "Carla's diagnosis", "can Carla eat gluten"]),
    "discord:9001": ("discord", "group", "Dev", "Our crew's annual climbing trip is to Kalymnos in October.",
                     "Kalymnos", ["where is the climbing trip this year", "the crew's October trip", "annual climbing destination"]),
    "telegram:-100777": ("telegram", "group", "Eve", "Next month our book club reads The Left Hand of Darkness.",
                         "Left Hand of Darkness", ["what book does the club read next", "next book club pick", "reading list next month"]),
}  # fmt: skip
USER_FACT = ("My therapist appointment is every Tuesday at 5pm.", "therapist",
             ["when is my therapy session", "Tuesday appointment", "do I see a therapist"])  # fmt: skip
SHARED_FACT = (
    "Nova's favourite colour is teal.",
    "teal",
    ["what is Nova's favourite colour", "favourite color", "teal"],
)


# Two people's iOS exports, both files named _chat.txt: two chats, two audiences, never one.
SAME_NAMED = {
    "ana": ("Ana", "The spare key is under the blue flowerpot.", "flowerpot",
            ["where is the spare key", "Ana's spare key", "flowerpot key"]),
    "ben": ("Ben", "My bank PIN is 8526, don't tell anyone.", "8526",
            ["what is Ben's bank PIN", "Ben's PIN code", "bank PIN"]),
}  # fmt: skip
SAME_NAMED_AUDIENCES: dict[str, tuple[str, list[str]]] = {}  # audience -> (words, asks), once imported


def _import_same_named(d, ns, root) -> dict[str, str]:
    """Each person's _chat.txt through the WhatsApp reader, as `agentmemd import` sends it."""
    from agentmemd.memory.channels.whatsapp import read_whatsapp

    sessions = {}
    for day, (folder, (sender, sentence, words, asks)) in enumerate(SAME_NAMED.items(), start=10):
        path = root / folder / "_chat.txt"
        path.parent.mkdir(parents=True)
        lines = [f"Hi Carla, it's {sender}.", sentence, "Anyway, talk soon!"]
        path.write_text("".join(f"[{day}.03.24, 09:1{i}:00] {sender}: {t}\n" for i, t in enumerate(lines)))
        chat = read_whatsapp(path).chats[0]
        done = d.call(
            "channels.ingest",
            {
                "channel": "whatsapp",
                "chat_id": chat.chat_id,
                "title": chat.title,
                "kind": chat.kind,
                "tz": "UTC",
                "messages": [m.model_dump(mode="json", exclude_defaults=True) for m in chat.messages],
                "namespace": ns,
            },
        )
        audience = f"private:{chat.chat_id}"
        SAME_NAMED_AUDIENCES[audience] = (words, asks)
        sessions[audience] = done["sessions"][0]
    return sessions


def _audience(chat: str) -> str:
    return f"{CHATS[chat][1]}:{chat}"


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    from conftest import NO_JOBS
    from inprocess import InProcessDaemon

    d = InProcessDaemon(
        tmp_path_factory.mktemp("disclosure"), {"jobs": NO_JOBS, "clock": {"start": "2024-04-01T00:00:00Z"}}
    )
    ns = "dis"
    sessions = {}
    for number, (chat, (channel, kind, sender, sentence, _, _)) in enumerate(CHATS.items()):
        messages = [
            {"sender": sender, "sender_id": f"id-{sender}", "ts": T0 + 60 * i, "text": text, "line": i + 1}
            for i, text in enumerate([f"Hi, it's {sender}.", sentence, "Anyway, talk soon!"])
        ]
        done = d.call(
            "channels.ingest",
            {
                "channel": channel,
                "chat_id": chat,
                "title": f"chat {number}",
                "kind": kind,
                "messages": messages,
                "namespace": ns,
            },
        )
        sessions[chat] = done["sessions"][0]
    sessions.update(_import_same_named(d, ns, tmp_path_factory.mktemp("same-named")))
    d.call("conversation.append", {"session": "me-1", "role": "user", "content": USER_FACT[0], "namespace": ns})
    sessions["user"] = "me-1"
    for session in sessions.values():
        d.call("conversation.observe", {"session": session, "namespace": ns, "force": True})
    d.services.episodes.catch_up()  # every turn is an episode too, heard where its chat may be
    d.call("memory.add", {"content": SHARED_FACT[0], "type": "fact", "namespace": ns, "audience": "shared"})
    yield d, ns, sessions
    d.terminate()


def _found(words: str, content: str) -> bool:
    """A search hit says the fact; a secret (Ben's PIN) is found with its value withheld, since only
    its owner asking for it gets one (docs/forgetting.md)."""
    return words.lower() in content.lower() or (words == "8526" and "[password withheld]" in content)


def _facts():
    yield "user", USER_FACT[1], USER_FACT[2]
    yield "shared", SHARED_FACT[1], SHARED_FACT[2]
    for chat, (_, _, _, _, words, asks) in CHATS.items():
        yield _audience(chat), words, asks
    for audience, (words, asks) in SAME_NAMED_AUDIENCES.items():
        yield audience, words, asks


def _listeners(sessions):
    yield "user", sessions["user"]
    for chat in CHATS:
        yield _audience(chat), sessions[chat]
    for audience in SAME_NAMED_AUDIENCES:
        yield audience, sessions[audience]


def test_every_planted_fact_became_a_memory_with_its_chats_audience(world):
    d, ns, _ = world
    for origin, words, _ in _facts():
        hits = d.call("memory.search", {"query": words, "namespace": ns, "k": 5})["results"]
        found = [h for h in hits if words.lower() in h["content"].lower()]
        assert found, f"{words!r} was not remembered"
        assert d.call("memory.get", {"id": found[0]["id"], "namespace": ns})["audience"] == origin


def test_no_conversation_hears_what_it_may_not_and_each_still_finds_what_it_may(world):
    d, ns, sessions = world
    leaks, checks, missed = [], 0, []
    for listener, session in _listeners(sessions):
        for origin, words, asks in _facts():
            allowed = may_hear(listener, origin)
            for ask in asks:
                checks += 1
                pack = d.call(
                    "context.pack", {"query": ask, "budget_tokens": 4000, "namespace": ns, "audience": listener}
                )
                hits = d.call("memory.search", {"query": ask, "k": 5, "namespace": ns, "audience": listener})["results"]
                turns = d.call("conversation.search", {"query": ask, "namespace": ns, "audience": listener})["turns"]
                said = [pack["text"], *(h["content"] for h in hits), *(t["content"] for t in turns)]
                if not allowed and any(words.lower() in text.lower() for text in said):
                    leaks.append((listener, origin, ask))
                if allowed and not any(_found(words, h["content"]) for h in hits):
                    missed.append((listener, origin, ask))
            # The conversation itself: its context for a user turn asking for the fact.
            d.call("conversation.append", {"session": session, "role": "user", "content": asks[0], "namespace": ns})
            context = d.call("conversation.context", {"session": session, "namespace": ns, "budget_tokens": 8000})
            text = context["system"] + "".join(m["content"] for m in context["messages"])
            if not allowed and words.lower() in text.lower():
                leaks.append((listener, origin, "conversation.context"))
            checks += 1
    print(f"disclosure: {checks} checks, {len(leaks)} leaks, {len(missed)} allowed facts missed")
    assert leaks == []
    assert missed == []


def test_two_peoples_same_named_exports_are_two_audiences(world):
    """Before chats were known by content, both _chat.txt files became chat `whatsapp:_chat`:
    one audience, so each person's secret was heard in the other's chat."""
    d, ns, sessions = world
    assert len(SAME_NAMED_AUDIENCES) == 2
    ben = next(a for a, (words, _) in SAME_NAMED_AUDIENCES.items() if words == "8526")
    heard = d.call("memory.search", {"query": "spare key flowerpot", "k": 10, "namespace": ns, "audience": ben})
    assert all("flowerpot" not in h["content"] for h in heard["results"])


def test_explain_says_why_a_memory_was_kept_out(world):
    d, ns, _ = world
    group = _audience("discord:9001")
    pack = d.call(
        "context.pack",
        {"query": "Is Ana looking for a new job?", "budget_tokens": 4000, "namespace": ns, "audience": group},
    )
    explained = d.call("context.explain", {"pack_id": pack["pack_id"], "namespace": ns})
    assert explained["audience"] == group
    kept_out = [c for c in explained["candidates"] if (c.get("why_not") or "").startswith("disclosure")]
    assert any("private:telegram:2002" in c["why_not"] for c in kept_out)
    assert all(not c["chosen"] for c in kept_out)


def test_sharing_a_memory_lets_every_conversation_hear_it_and_bad_audiences_are_refused(world):
    d, ns, _ = world
    hit = d.call("memory.search", {"query": "Reykjavik wedding", "namespace": ns, "k": 1})["results"][0]
    group = _audience("discord:9001")
    assert (
        "Reykjavik"
        not in d.call("context.pack", {"query": "wedding", "budget_tokens": 4000, "namespace": ns, "audience": group})[
            "text"
        ]
    )
    d.call("memory.share", {"id": hit["id"], "audience": "shared", "namespace": ns})
    assert (
        "Reykjavik"
        in d.call("context.pack", {"query": "wedding", "budget_tokens": 4000, "namespace": ns, "audience": group})[
            "text"
        ]
    )
    d.call("memory.share", {"id": hit["id"], "audience": "private:whatsapp:Ben", "namespace": ns})
    from agentmemd.daemon.socket.client import RpcCallError

    # A chat id mistyped would hide the memory from every conversation: refused, the nearest named.
    with pytest.raises(RpcCallError, match="did you mean 'private:whatsapp:Ben'"):
        d.call("memory.share", {"id": hit["id"], "audience": "private:whatsapp:Benn", "namespace": ns})
    assert d.call("memory.get", {"id": hit["id"], "namespace": ns})["audience"] == "private:whatsapp:Ben"
    for bad in ("everyone", "private:", "group:Not A Channel:x", "private:whatsapp:no-such-chat"):
        with pytest.raises(RpcCallError, match="audience"):
            d.call("memory.share", {"id": hit["id"], "audience": bad, "namespace": ns})
    with pytest.raises(RpcCallError, match="audience"):
        d.call("context.pack", {"query": "x", "budget_tokens": 100, "namespace": ns, "audience": "shared"})


def test_workspace_audiences_by_file_and_by_annotation(in_process, tmp_path):
    ws = tmp_path / "ws"
    (ws / "memory").mkdir(parents=True)
    (ws / "SOUL.md").write_text("# Soul\n\n- I am Nova, calm and exact.\n")
    (ws / "USER.md").write_text(
        "# User\n\n- The user's salary is 84k.\n\n<!-- audience: shared -->\n- The user lives in Porto.\n"
    )
    (ws / "memory" / "garden.md").write_text(
        "# Garden\n\n- Tomatoes need staking in June.\n\n<!-- audience: private -->\n- The spare key is under the blue pot.\n"
    )
    d = in_process({}, fake_embedder=True, workspace=ws)

    def audience_of(words: str) -> str:
        hit = d.call("memory.search", {"query": words, "k": 10})["results"]
        found = next(h for h in hit if words.lower() in h["content"].lower())
        return d.call("memory.get", {"id": found["id"]})["audience"]

    assert audience_of("Nova") == "shared" and audience_of("Tomatoes") == "shared"
    assert audience_of("salary") == "user" and audience_of("spare key") == "user"
    assert audience_of("Porto") == "shared"
    group = "group:discord:9001"
    heard = d.call(
        "context.pack", {"query": "key salary Porto Nova tomatoes", "budget_tokens": 2000, "audience": group}
    )
    assert "Porto" in heard["text"] and "Nova" in heard["text"]
    assert "salary" not in heard["text"] and "spare key" not in heard["text"]
    (ws / "memory" / "garden.md").write_text("# Garden\n\n<!-- audience: everyone -->\n- Tomatoes need staking.\n")
    report = d.call("workspace.sync")
    assert "unknown audience 'everyone'" in str(report)


def test_consolidation_never_builds_on_what_was_said_in_private(world):
    from agentmemd.memory.store.consolidation_tables import ConsolidationTables

    d, ns, _ = world
    leaves = d.run_on_store(lambda: ConsolidationTables(d.services.store).level0(ns, 10_000))
    contents = " ".join(leaf[1] for leaf in leaves)
    assert "Kalymnos" in contents and "therapist" in contents  # a group's and the user's own
    assert not any(word in contents for word in ("Oceanarium", "Reykjavik", "celiac"))  # the private chats'


def _live_chat(d, channel: str, chat_id: str, kind: str, said: list[tuple[str, str, str]]) -> dict:
    """A chat's messages as an app sends them live (channels.ingest): (sender, time, text) each."""
    messages = [{"sender": who, "ts": at, "text": text, "line": i} for i, (who, at, text) in enumerate(said, 1)]
    return d.call(
        "channels.ingest", {"channel": channel, "chat_id": chat_id, "kind": kind, "tz": "UTC", "messages": messages}
    )


def test_a_chat_id_given_without_its_channel_is_observed_and_kept_to_its_chat(in_process):
    """An app that names its chat "book-club" (the importers say "telegram:2002"): its turns are heard
    in that chat only, and the Observer can store what it makes of them (it refused the audience
    "group:book-club" before, and every run over the chat failed)."""
    d = in_process({}, fake_embedder=True)
    said = [("Ana", "2026-03-02T09:00:00", "I love the Lisbon trilogy, honestly."),
            ("Bo", "2026-03-02T09:01:00", "My sister is moving to Quillfeather Lane.")]  # fmt: skip
    got = _live_chat(d, "society", "book-club", "group", said)
    assert got["audience"] == "group:society:book-club"
    d.call("conversation.observe", {"session": got["sessions"][0]})
    observed = d.call("observations.list", {"session": got["sessions"][0]})["observations"]
    assert observed and all(
        d.call("memory.get", {"id": o["memory_id"]})["audience"] == "group:society:book-club" for o in observed
    )
    query = {"query": "Quillfeather Lane sister", "budget_tokens": 500}
    assert "Quillfeather" in d.call("context.pack", {**query, "audience": "group:society:book-club"})["text"]
    assert "Quillfeather" not in d.call("context.pack", {**query, "audience": "group:society:chess"})["text"]


def test_a_turn_an_agent_appends_to_a_chats_session_is_of_that_chat(in_process):
    """An agent recording its turns in a private chat's conversation (`conversation.append`, as
    docs/conversations.md shows): the turns, their episodes and observations are heard in that
    chat only, not in the user's own conversations (they were filed as the user's own)."""
    d = in_process({}, fake_embedder=True)
    got = _live_chat(d, "telegram", "telegram:1002", "private", [("Leo", "2026-11-22T16:00:00", "Dad, can I tell you something?")])  # fmt: skip
    (session,) = got["sessions"]
    said = "I have a girlfriend called Clara, please don't tell anyone."
    d.call("conversation.append", {"session": session, "role": "user", "content": said, "speaker": "Leo"})
    d.call(
        "conversation.append", {"session": session, "role": "assistant", "content": "Your secret about Clara is safe."}
    )
    stored = d.services.memories.store.conn.execute(
        "SELECT audience, chat, person FROM conversation_turns WHERE session = ? ORDER BY seq", (session,)
    ).fetchall()
    assert {(a, c) for a, c, _ in stored} == {("private:telegram:1002", "telegram:1002")}
    assert stored[1][2] == stored[0][2] is not None and stored[2][2] is None  # Leo, as his imported message's
    d.services.episodes.catch_up()
    d.call("conversation.observe", {"session": session, "force": True, "wait": True})
    for audience in ("user", None):
        found = d.call("memory.search", {"query": "Clara girlfriend", **({"audience": audience} if audience else {})})
        heard = [h["content"] for h in found["results"] if "Clara" in h["content"]]
        assert (heard == []) == (audience == "user"), (audience, heard)
    chat = d.call("memory.search", {"query": "Clara girlfriend", "audience": "private:telegram:1002"})
    assert any("Clara" in h["content"] for h in chat["results"])
