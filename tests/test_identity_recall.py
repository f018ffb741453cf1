"""Identity recall (persona/identity/recall.py): the identity graph read from the live memories of
SOUL.md, IDENTITY.md and USER.md, and the pack's identity block for a request."""

from __future__ import annotations

import pytest
from conftest import template_workspace

pytestmark = pytest.mark.inprocess

SOUL = """# SOUL
- I am Nova, a personal assistant who is warm, direct and honest.
- values [[honesty]]: never lie to spare feelings
- believes in [[nuclear power]]: the fastest route off coal
- [[nuclear power]] led to [[cheaper winters]]
- [[cheaper winters]] is part of [[the family budget plan]]
- likes [[jazz]]: Coltrane on Sunday mornings
- Never use emoji.
"""

IDENTITY = """# IDENTITY
- works at [[Fernwood Labs]]: since 2021, on the records team
- [[Fernwood Labs]]: a research lab in Girona with 40 people
"""

USER = """# USER
## Relationships
- [[Laia]] is the sister of [[the user]]: a nurse in Girona
- prefers [[tea]] over coffee
"""


@pytest.fixture
def make_nova(in_process, tmp_path):
    def make(config: dict | None = None):
        ws = tmp_path / f"ws{len(list(tmp_path.iterdir()))}"
        ws.mkdir()
        (ws / "SOUL.md").write_text(SOUL)
        (ws / "IDENTITY.md").write_text(IDENTITY)
        (ws / "USER.md").write_text(USER)
        d = in_process(config, fake_embedder=True, workspace=ws)
        d.ws = ws
        return d

    return make


@pytest.fixture
def nova(make_nova):
    return make_nova()


def identity_lines(pack: dict) -> list[str]:
    text = pack["text"]
    if not text.startswith("[IDENTITY"):
        return []
    block = text.split("[END IDENTITY]")[0]
    return [line.split("] ", 1)[1] for line in block.splitlines()[1:]]


def test_the_pack_holds_the_identity_facts_the_request_is_about(make_nova):
    nova = make_nova({"identity": {"nodes": 1}})  # one seed: what comes after it is its neighbourhood
    pack = nova.call("context.pack", {"query": "what do you think about nuclear power?", "budget_tokens": 800})
    lines = identity_lines(pack)
    assert set(lines[:2]) == {
        "Nova believes in nuclear power: the fastest route off coal",
        "nuclear power led to cheaper winters",
    }
    # The seeds' neighbourhood (one hop, never through the agent) comes after them.
    assert "cheaper winters is part of the family budget plan" in lines[2:]
    block = [i for i in pack["items"] if i["block"] == "identity"]
    assert [i["id"] for i in block] == [i["id"] for i in pack["items"][: len(block)]]
    assert block[0]["source"].startswith("SOUL.md") and block[0]["tokens"] > 0
    # Its facts are not packed a second time among the memories.
    assert len({i["id"] for i in pack["items"]}) == len(pack["items"])
    assert pack["tokens"] <= 800


def test_the_block_keeps_within_its_share_of_the_budget(make_nova):
    nova = make_nova({"identity": {"budget_share": 0.25}})
    from agentmemd.memory.core.tokens import count_tokens

    asked = "nuclear power jazz honesty Laia tea Fernwood"
    pack = nova.call("context.pack", {"query": asked, "budget_tokens": 600})
    block = pack["text"].split("[END IDENTITY]")[0] + "[END IDENTITY]"
    assert 2 <= len(identity_lines(pack)) < 9 and count_tokens(block) <= 600 * 0.25
    assert pack["tokens"] == count_tokens(pack["text"]) and pack["tokens"] <= 600
    # A budget whose share cannot hold the block's wrapper and one line gets no block at all.
    small = nova.call("context.pack", {"query": asked, "budget_tokens": 100})
    assert identity_lines(small) == [] and small["tokens"] <= 100


def test_a_relevance_floor_leaves_the_rest_of_the_share_to_the_memories(make_nova):
    full = identity_lines(make_nova().call("context.pack", {"query": "nuclear power", "budget_tokens": 1000}))
    floored = make_nova({"identity": {"relevance_floor": 0.9}})
    lines = identity_lines(floored.call("context.pack", {"query": "nuclear power", "budget_tokens": 1000}))
    assert len(full) == 9 and 1 <= len(lines) < len(full) and lines[0] == full[0]


def test_a_changed_line_is_a_new_version_and_forget_takes_the_edge(make_nova):
    nova = make_nova({"identity": {"nodes": 1}})
    asked = {"query": "jazz", "budget_tokens": 800}
    assert identity_lines(nova.call("context.pack", asked))[0] == "Nova likes jazz: Coltrane on Sunday mornings"
    (nova.ws / "SOUL.md").write_text(SOUL.replace("Coltrane on Sunday mornings", "Nina Simone on rainy evenings"))
    nova.services.indexer.sync(["SOUL.md"])
    # The sync read the graph again already: the next pack does not wait for it.
    warmed = nova.services.identity.recall._graphs["default"]
    assert any("Nina Simone" in fact.text for fact in warmed.facts)
    second = nova.call("context.pack", asked)
    lines = identity_lines(second)
    assert lines[0] == "Nova likes jazz: Nina Simone on rainy evenings"
    assert not any("Coltrane" in line for line in lines)
    jazz = second["items"][0]["id"]
    history = nova.call("memory.history", {"id": jazz})
    assert any("Coltrane" in (v.get("content") or "") for v in history["versions"])  # superseded, not overwritten
    graph = nova.call("identity.graph", {})
    assert [e["text"] for e in graph["edges"] if e["memory_id"] == jazz] == [lines[0]]

    nova.call("memory.forget", {"id": jazz, "confirm": True})
    graph = nova.call("identity.graph", {})
    assert "jazz" not in {n["key"] for n in graph["nodes"]} and not any("jazz" in e["text"] for e in graph["edges"])
    assert not any("jazz" in line for line in identity_lines(nova.call("context.pack", asked)))


def test_what_the_listener_may_not_hear_stays_out_of_the_block(nova):
    # USER.md is the user's own: a group chat's pack does not carry it.
    own = nova.call("context.pack", {"query": "who is Laia, the sister?", "budget_tokens": 400})
    assert any("Laia" in line for line in identity_lines(own))
    group = nova.call(
        "context.pack",
        {"query": "who is Laia, the sister?", "budget_tokens": 400, "audience": "group:telegram:-100123"},
    )
    assert not any("Laia" in line for line in identity_lines(group))


def test_no_relation_lines_no_block_and_the_switch_turns_it_off(in_process, tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "SOUL.md").write_text("# SOUL\n- I am Nova.\n- Never use emoji.\n")
    plain = in_process(fake_embedder=True, workspace=ws)
    pack = plain.call("context.pack", {"query": "emoji?", "budget_tokens": 300})
    assert not pack["text"].startswith("[IDENTITY") and all(i["block"] == "memories" for i in pack["items"])

    ws2 = tmp_path / "ws2"
    ws2.mkdir()
    (ws2 / "SOUL.md").write_text(SOUL)
    off = in_process({"identity": {"retrieval": False}}, fake_embedder=True, workspace=ws2)
    pack = off.call("context.pack", {"query": "what do you think about nuclear power?", "budget_tokens": 400})
    assert not pack["text"].startswith("[IDENTITY")


def test_the_identity_query_reads_the_turns_before_the_request(make_nova):
    nova = make_nova({"identity": {"budget_share": 0.15}})
    earlier = ["They want to build nuclear power reactors near our town.", "That is a big decision for the town."]
    asked = {"query": "What do you think?", "budget_tokens": 1000}
    with_turns = identity_lines(nova.call("context.pack", {**asked, "recent": earlier}))
    assert "Nova believes in nuclear power: the fastest route off coal" in with_turns[:2]
    assert not any("nuclear" in line for line in identity_lines(nova.call("context.pack", asked))[:2])

    # A conversation's context passes its turns before the request (the persona's own lines are in
    # its stable prefix already, so a USER.md fact shows it).
    for role, text in (
        ("user", "Should I order tea or coffee for the meeting?"),
        ("assistant", "Whatever the team drinks."),
        ("user", "What would I pick?"),
    ):
        nova.call("conversation.append", {"session": "drinks", "role": role, "content": text})
    context = nova.call("conversation.context", {"session": "drinks", "budget_tokens": 1000})
    block = context["messages"][-1]["content"].split("[END IDENTITY]")[0]
    assert "the user prefers tea: over coffee" in block


def test_said_relations_read_my_relation_name_and_nothing_looser():
    from agentmemd.persona.identity.said_relations import said_relations

    assert said_relations("User said: My sister Ana lives in Lisbon.", "Laia") == ["[[Ana]] is the sister of [[Laia]]"]
    assert said_relations("Tomas said: my cousin Ines Moreira runs the harbour.", "the user") == [
        "[[Ines Moreira]] is the cousin of [[Tomas]]"
    ]
    assert said_relations("John said: my colleague Rob and my daughter Sara's school", "x") == [
        "[[Rob]] is the colleague of [[John]]",
        "[[Sara]] is the daughter of [[John]]",
    ]
    assert said_relations("User said: My friend Lucía Pérez is coming", "the user") == [
        "[[Lucía Pérez]] is the friend of [[the user]]"
    ]
    for loose in (
        "User said: my sister In May we went",
        "Deborah said: Yeah, my mom was there",
        "Marc, my brother, ...",
        # Found living a user's weeks: a supposition and an ended partner became "facts" of the
        # identity block ("Paul is the brother of the user", for a user who has none).
        "User said: I don't have a brother. If my brother Paul existed, he would be taller than me.",
        "User said: My boyfriend Marco and I broke up, he's my ex now.",
        "User said: Should my boss Ana know about it?",
    ):
        assert said_relations(loose, "the user") == [], loose


def test_a_relation_said_in_conversation_joins_the_graph_and_leaves_with_its_memory(in_process):
    d = in_process(fake_embedder=True)
    for text in ("My sister Ana lives in Lisbon and works as a nurse.", "We watched a film about whales."):
        d.call("conversation.append", {"session": "s", "role": "user", "content": text})
    d.call("conversation.observe", {"session": "s"})
    edges = d.call("identity.graph", {})["edges"]
    assert [e["text"] for e in edges] == ["Ana is the sister of the user"]
    packed = d.call("context.pack", {"query": "a birthday present for Ana?", "budget_tokens": 600})["text"]
    assert "Ana is the sister of the user" in packed.split("[END IDENTITY]")[0]
    d.call("memory.forget", {"id": edges[0]["memory_id"], "confirm": True})
    assert d.call("identity.graph", {})["edges"] == []


def test_a_new_relational_memory_reads_the_graph_again_but_embeds_only_what_is_new(in_process):
    d = in_process(fake_embedder=True)
    d.call(
        "memory.add_many",
        {"items": [{"content": f"values [[thing {i}]]: reason number {i}", "type": "persona"} for i in range(30)]},
    )
    recall = d.services.identity.recall
    embedded: list[str] = []
    real = recall.embedder.embed
    recall.embedder.embed = lambda texts: embedded.extend(texts) or real(texts)
    first = d.call("identity.graph", {})
    assert len(first["edges"]) == 30 and len(embedded) >= 60
    d.call("memory.add", {"content": "Ana mentioned she likes jazz", "type": "relational"})  # links nothing
    d.call("memory.add", {"content": "values [[patience]]: slow is smooth", "type": "persona"})
    embedded.clear()  # what memory.add embedded for itself
    assert len(d.call("identity.graph", {})["edges"]) == 31
    # The new relation's sentence, its words as written, its node: not the 30 relations before.
    assert sorted(embedded) == [
        "patience",
        "the agent values patience: slow is smooth",
        "values patience: slow is smooth",
    ]


def test_a_fact_made_private_after_the_graph_was_read_leaves_other_audiences_blocks(in_process):
    """The graph is read once and kept while its memories stay the same; a memory shared with fewer
    listeners in place (memory.share) is a change, or the block kept showing it to the old ones."""
    d = in_process(fake_embedder=True)
    said = d.call(
        "memory.add",
        {"content": "The user's sister [[Laia]] is a nurse in Girona", "type": "relational", "audience": "shared"},
    )
    asked = {"query": "who is Laia, the sister?", "budget_tokens": 400, "audience": "group:telegram:-100123"}
    assert any("Laia" in line for line in identity_lines(d.call("context.pack", asked)))  # shared: the group hears it
    d.call("memory.share", {"id": said["id"], "audience": "user"})
    assert not any("Laia" in line for line in identity_lines(d.call("context.pack", asked)))
    mine = d.call("context.pack", {**asked, "audience": "user"})
    assert any("Laia" in line for line in identity_lines(mine))


def test_a_conversations_pack_embeds_the_identity_query_only_where_there_is_a_graph(in_process, make_nova):
    """A conversation's pack embeds the identity query (the request with the turns before it) only in
    a namespace with an identity graph. A change that embedded it for every pack, beside the pack's
    own work, cost the proxy a third more time (bench proxy: 2.42x its floor -> 3.31x) and was reverted."""

    def embedded(d) -> list[str]:
        asked: list[str] = []
        embedder = d.services.memories.embedder
        real = embedder.embed_query
        embedder.embed_query = lambda text: (asked.append(text), real(text))[1]
        d.call("context.pack", {"query": "what do you think of it?", "budget_tokens": 400,
                                "recent": ["they want to build a reactor near the village"]})  # fmt: skip
        embedder.embed_query = real
        return asked

    plain = in_process(fake_embedder=True)
    plain.call("memory.add", {"content": "The user likes long walks", "type": "preference"})
    assert embedded(plain) == ["what do you think of it?"]
    nova = make_nova()
    # (the block's own call for the identity query is a lookup in a real embedder's cache by then)
    identity_query = "they want to build a reactor near the village what do you think of it?"
    assert set(embedded(nova)) == {"what do you think of it?", identity_query}


def test_a_request_to_act_brings_the_rule_that_governs_it_though_they_share_few_words(in_process, tmp_path):
    """Juno (the identity bench's cycling coach, 88 facts) is told Callum plans VO2 intervals on an
    open road: the rule is "values [[rider safety]]: no intervals on open roads with traffic". Its
    MiniLM match ranked it 26th, outside the block; a request to act now lifts the facts of the
    kinds of act it speaks of (training, safety: acts.toml) and the values, and it is in. A
    question about what is so is matched as before."""
    import shutil

    from agentmemd.daemon.bench.identity import FILES, WORLD

    ws = tmp_path / "juno"
    ws.mkdir()
    for name in FILES:
        shutil.copy(WORLD / "juno" / name, ws / name)
    d = in_process(workspace=ws)
    block = d.services.memories.packing.blocks["identity"]
    texts = {row["id"]: row["content"] for row in d.services.store._rows("SELECT id, content FROM memories")}

    def in_block(query: str) -> list[str]:
        return [texts[line.id] for line in block("default", query, 500, None)]

    plan = "Callum messages that he plans to do five 5-minute VO2 intervals on the Snake Pass road after work tonight."
    assert any("[[rider safety]]" in t for t in in_block(plan)), in_block(plan)
    question = "What does Callum do when he is not on the bike?"
    assert not any("[[rider safety]]" in t for t in in_block(question))


def _bench_agent(in_process, tmp_path, agent: str):
    """One of the identity bench's agents (identity_world/), its files indexed, with the real model:
    (its identity recall, the identity block's memory texts for a request)."""
    import shutil

    from agentmemd.daemon.bench.identity import FILES, WORLD

    ws = tmp_path / agent
    ws.mkdir()
    for name in FILES:
        shutil.copy(WORLD / agent / name, ws / name)
    d = in_process(workspace=ws)
    block = d.services.memories.packing.blocks["identity"]
    texts = {row["id"]: row["content"] for row in d.services.store._rows("SELECT id, content FROM memories")}
    return block.__self__, lambda query: [texts[line.id] for line in block("default", query, 500, None)]


def test_a_question_that_asks_a_slot_of_someone_brings_the_fact_that_fills_it(in_process, tmp_path):
    """ "What is your job with Callum?" asked of Juno (88 facts): "works as a [[cycling coach]]"
    shares no word with it and its MiniLM match ranked it 47th, under a dozen facts that name
    Callum. The question asks the agent's workplace slot (slots.py), the fact fills it: it is in.
    Asked of Callum, the same slot brings his job first, not the coach's."""
    _, in_block = _bench_agent(in_process, tmp_path, "juno")
    assert any("[[cycling coach]]" in t for t in in_block("What is your job with Callum?"))
    asked_of_callum = in_block("Where does Callum work?")
    assert "[[radiographer]]" in asked_of_callum[0], asked_of_callum


def test_a_title_before_the_users_name_is_not_their_name(in_process, tmp_path):
    """USER.md's "Name: Dr. Astrid Holm" names the user Astrid: before, the graph called her "Dr"
    ("Dr works as a sea-ice modeller"), and a question naming Astrid missed her job."""
    recall, in_block = _bench_agent(in_process, tmp_path, "kestrel")
    assert recall.graph("default").user == "Astrid"
    got = in_block("What is Astrid's field, and what does her group run?")
    assert any("[[sea-ice modeller]]" in t for t in got), got


def test_the_block_never_pushes_out_the_memory_that_best_answers(nova):
    """The README's own example at a small budget: two unrelated identity facts, no memory at all
    ("its 38 tokens did not fit in the 34 left"). The block's least lines go until the best fits."""
    nova.call("memory.add", {"content": "Oscar works on the Ofertes project for a commercial client.", "type": "fact"})
    # Whatever ranks first is packed beside the block: which memory that is, the fake embedder (it
    # ranks by shared words, hashed) and the module's other memories decide, so it is read back.
    # (At 120 tokens the longer question's best memory may not fit even without the block, beside
    # the persona item a pack always holds: the block then keeps its lines.)
    asked = [("what is Oscar working on?", b) for b in (120, 160, 200)]
    asked += [("what is Oscar working on in the Ofertes project?", b) for b in (160, 200)]
    for query, budget in asked:
        pack = nova.call("context.pack", {"query": query, "budget_tokens": budget})
        ranked = nova.call("context.explain", {"pack_id": pack["pack_id"]})["candidates"]
        block = {i["id"] for i in pack["items"] if i.get("block") == "identity"}
        first = next(c for c in ranked if "identity block" not in (c.get("why_not") or ""))
        assert first["chosen"] and pack["tokens"] <= budget, (query, budget, first, pack["text"])
        # What explain says of a line is what the pack holds (a line that gave way was said to be
        # "in the pack's identity block", which then held none).
        for c in ranked:
            if (c.get("why_not") or "").startswith("in the pack's identity block"):
                assert c["id"] in block, (query, budget, c)
            elif "left the pack's identity block" in (c.get("why_not") or ""):
                assert c["id"] not in block, (query, budget, c)
    # A budget the best memory cannot fit in even alone leaves the block as it was.
    tiny = nova.call("context.pack", {"query": "honesty nuclear power", "budget_tokens": 110})
    assert tiny["tokens"] <= 110


def test_a_consolidated_pattern_is_no_relation_of_the_graph(nova):
    """A pattern consolidation built of relational memories showed in `identity graph` as a
    relation nobody stated ("Laia Pattern (lives, lyon, marc, cousin): is the cousin of Marc…")."""
    before = nova.call("identity.graph", {})
    pattern = nova.call(
        "memory.add",
        {"content": "[[Laia]] is the sister of [[the user]] and a nurse in Girona (2 memories)", "type": "relational",
         "source": "consolidation level 1 (patterns)"},
    )  # fmt: skip
    after = nova.call("identity.graph", {})
    assert pattern["id"] not in [e["memory_id"] for e in after["edges"]]
    assert len(after["edges"]) == len(before["edges"])


def test_a_user_named_in_spanish_is_named_in_the_graph(in_process, short_tmp):
    """Found writing USER.md in Spanish: "Nombre: Laia Puig" was not read as the user's name, so
    the graph said "the user vive en Girona"."""

    ws = template_workspace(short_tmp / "ws")
    (ws / "USER.md").write_text(
        "# USER\n\nNombre: Laia Puig\n\n- vive en [[Girona]]\n- trabaja en [[Hospital Trueta]]\n"
    )
    d = in_process({"clock": {"start": "2026-11-21T09:00:00Z"}}, fake_embedder=True, workspace=ws)
    graph = d.call("identity.graph", {})
    texts = [e["text"] for e in graph["edges"]]
    assert any(t.startswith("Laia vive en") for t in texts) and not any("the user vive" in t for t in texts), texts
