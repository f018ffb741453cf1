"""Conversations over the real socket: durable turns, the background Observer and Reflector,
observations, and the stable context (issue 4). LoCoMo conv-26 is the real text."""

from __future__ import annotations

import json
import shutil
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from conftest import NO_JOBS, locomo_date, wait_for
from fake_anthropic import KEY_ENV, FakeAnthropic, llm_config, message
from inprocess import InProcessDaemon

from agentmemd.daemon.bench.benchmarks import wait_idle
from agentmemd.daemon.socket.client import RpcCallError
from agentmemd.memory.core.text import attribution

pytestmark = pytest.mark.process  # the tier (pyproject.toml)

LOW_THRESHOLDS = {"observer_threshold_tokens": 600, "reflector_threshold_tokens": 1_000_000, "keep_recent_turns": 2}


def append_turn(d, conv: dict, turn: dict, session: str, when: str, **extra) -> dict:
    """Append one LoCoMo-format turn: speaker_a is the user, speaker_b the assistant."""
    role = "user" if turn["speaker"] == conv["speaker_a"] else "assistant"
    params = {"session": session, "role": role, "content": turn["text"], "ts": when, "speaker": turn["speaker"]}
    return d.call("conversation.append", {**params, **extra})


def stream(d, sample, session: str, sessions: range, **extra) -> list[dict]:
    """Append whole LoCoMo-format sessions, each turn at its session's time."""
    conv = sample["conversation"]
    answers = []
    for n in sessions:
        when = locomo_date(conv[f"session_{n}_date_time"]).isoformat()
        answers += [append_turn(d, conv, turn, session, when, **extra) for turn in conv[f"session_{n}"]]
    return answers


@pytest.fixture(scope="module")
def talk():
    """One daemon for this module (manual clock, low thresholds); tests use their own sessions."""
    root = Path(tempfile.mkdtemp(prefix="amc", dir="/tmp"))
    d = InProcessDaemon(
        root, {"clock": {"start": "2023-05-08T00:00:00Z"}, "jobs": NO_JOBS, "conversation": LOW_THRESHOLDS}
    )
    yield d
    d.terminate()
    shutil.rmtree(root, ignore_errors=True)


def test_bad_turns_are_refused_with_the_field_named_and_nothing_stored(talk):
    for params, field in [
        ({"session": "s1", "role": "system", "content": "hi"}, "role"),
        ({"session": "s1", "role": "user", "content": "   "}, "content"),
        ({"session": "bad session!", "role": "user", "content": "hi"}, "session"),
        ({"session": "s1", "role": "user", "content": "hi", "ts": "yesterday"}, "ts"),
    ]:
        with pytest.raises(RpcCallError) as err:
            talk.call("conversation.append", params)
        assert err.value.code == -32602 and field in err.value.message
    with pytest.raises(RpcCallError) as err:
        talk.call("conversation.status", {"session": "s1"})
    assert "no conversation" in err.value.message
    talk.call("conversation.append", {"session": "s-ns", "role": "user", "content": "hello", "namespace": "a"})
    # Session ids are the caller's within its namespace: b's "s-ns" is its own, and b learns nothing of a's.
    b = talk.call("conversation.append", {"session": "s-ns", "role": "user", "content": "hi", "namespace": "b"})
    assert b["turns"] == 1


def test_the_observer_runs_in_the_background_and_its_observations_are_memories(talk, locomo):
    sample = locomo[0]
    answers = stream(talk, sample, "conv26-a", range(1, 4), namespace="obs-a")
    assert answers[-1]["turns"] == sum(len(sample["conversation"][f"session_{n}"]) for n in range(1, 4))
    assert any(a["compaction_scheduled"] for a in answers)
    status = wait_idle(talk, "conv26-a", namespace="obs-a")
    assert status["observed"] > 0 and status["unobserved_tokens"] <= 600 + 200
    observe_runs = [r for r in status["runs"] if r["kind"] == "observe"]
    assert observe_runs and all(r["status"] == "ok" and r["trigger"] == "threshold" for r in observe_runs)

    observations = talk.call("observations.list", {"namespace": "obs-a", "session": "conv26-a"})["observations"]
    assert len(observations) >= 20
    for o in observations:
        assert o["priority"] in ("HIGH", "MED", "LOW") and o["category"] in (
            "fact",
            "preference",
            "decision",
            "emotional",
            "relational",
        )
        assert o["source_turns"] and attribution(o["content"])[0] in ("Caroline", "Melanie")
    assert [o["date"] for o in observations] == sorted(o["date"] for o in observations)
    # "I went to a LGBTQ support group yesterday" (said 8 May 2023) refers to 7 May 2023.
    group = next(o for o in observations if "support group yesterday" in o["content"])
    assert (group["date"][:10], group["referenced_date"], group["relative_date"]) == (
        "2023-05-08",
        "2023-05-07",
        "yesterday",
    )
    assert group["priority"] in ("HIGH", "MED")
    # Observations are memories: search sees them, with provenance to their turns.
    hits = talk.call(
        "memory.search", {"query": "When did Caroline go to the LGBTQ support group?", "namespace": "obs-a", "k": 5}
    )["results"]
    assert hits[0]["id"] == group["memory_id"]
    assert hits[0]["source"].startswith("conversation:conv26-a#turns:")


def test_the_reflector_condenses_to_30_to_50_percent_keeping_every_high_observation(talk, locomo):
    stream(talk, locomo[0], "conv26-r", range(1, 7), namespace="obs-r")
    wait_idle(talk, "conv26-r", namespace="obs-r")
    report = talk.call(
        "conversation.observe", {"namespace": "obs-r", "session": "conv26-r", "reflect": True}
    )  # the rest, then reflect
    assert report["reflect_runs"], report
    run = next(
        r
        for r in talk.call("conversation.status", {"namespace": "obs-r", "session": "conv26-r"})["runs"]
        if r["kind"] == "reflect"
    )
    share = run["tokens_out"] / run["tokens_in"]
    assert 0.3 <= share <= 0.5, run
    every = talk.call("observations.list", {"namespace": "obs-r", "session": "conv26-r", "include_replaced": True})[
        "observations"
    ]
    by_id = {o["id"]: o for o in every}
    live = [o for o in every if o["status"] == "live"]
    assert [o["date"] for o in live] == sorted(o["date"] for o in live)  # time order kept
    for o in every:
        if o["priority"] == "HIGH":  # kept, or carried by the live entry that replaced it
            assert o["status"] in ("live", "merged", "superseded"), o
            carrier = o
            while carrier["status"] != "live":
                carrier = by_id[carrier["replaced_by"]]
            assert carrier["status"] == "live"
    dropped = [o for o in every if o["status"] == "dropped"]
    assert dropped and all(o["priority"] != "HIGH" for o in dropped)
    # A dropped observation's memory is archived, not deleted: memory.get still finds it.
    assert talk.call("memory.get", {"namespace": "obs-r", "id": dropped[0]["memory_id"]})["tier"] == "archived"


def test_a_changed_preference_supersedes_the_old_one_as_a_new_version(talk):
    turns = [
        ("user", "I love coffee and I drink a big mug of black coffee every single morning before work."),
        ("assistant", "Noted, coffee first thing in the morning."),
        ("user", "We adopted a rescue dog named Biscuit last weekend and she is settling in well."),
        ("assistant", "Congratulations on Biscuit!"),
        ("user", "Actually I don't drink coffee anymore, I switched to green tea in the morning instead."),
        ("assistant", "Green tea it is."),
    ]
    for i, (role, text) in enumerate(turns):
        day = "2023-06-01" if i < 4 else "2023-06-12"  # the change said eleven days later
        talk.call(
            "conversation.append",
            {"session": "pref", "role": role, "content": text, "namespace": "pref", "ts": f"{day}T09:00:00Z"},
        )
    talk.call("conversation.observe", {"namespace": "pref", "session": "pref", "reflect": True})
    every = talk.call("observations.list", {"namespace": "pref", "session": "pref", "include_replaced": True})[
        "observations"
    ]
    old = next(o for o in every if "black coffee" in o["content"])
    assert old["status"] == "superseded"
    new = next(o for o in every if o["id"] == old["replaced_by"])
    assert "green tea" in new["content"] and new["status"] == "live"
    old_memory = talk.call("memory.get", {"namespace": "pref", "id": old["memory_id"]})
    assert old_memory["superseded_by"] == new["memory_id"]
    newer = talk.call("memory.get", {"namespace": "pref", "id": new["memory_id"]})
    assert newer["supersedes"] == old["memory_id"]
    # Dated when the change was said, from its turn: not the reflection's time and the old turn.
    assert newer["created"].startswith("2023-06-12T09:00:00"), newer["created"]
    tea_turn = next(t["seq"] for t in talk.call("conversation.turns", {"namespace": "pref", "session": "pref"})["turns"] if "green tea" in t["content"])  # fmt: skip
    assert newer["source"].endswith(f"#turns:{tea_turn}"), newer["source"]
    assert any("Biscuit" in o["content"] and o["status"] == "live" for o in every)


def test_the_context_prefix_is_stable_until_the_observer_fires_and_fits_the_budget(talk, locomo):
    conv = locomo[0]["conversation"]
    session, ns = "ctx", "ctx"
    talk.call(
        "memory.add", {"content": "You are Sol, a warm and direct companion.", "type": "persona", "namespace": ns}
    )
    known = talk.call(
        "memory.add",
        {"content": "Caroline enrolled in a counseling certificate course in April.", "type": "fact", "namespace": ns},
    )["id"]
    when = locomo_date(conv["session_1_date_time"]).isoformat()
    turns = conv["session_1"]

    def append(turn):
        append_turn(talk, conv, turn, session, when, namespace=ns)

    for turn in turns[:8]:
        append(turn)
    talk.call("conversation.observe", {"namespace": ns, "session": session})  # everything so far becomes observations
    first = talk.call("conversation.context", {"namespace": ns, "session": session, "budget_tokens": 2000})
    hashes = [first["prefix_hash"]]
    for turn in turns[8:12]:  # below the threshold: no Observer, the prefix must not move
        append(turn)
        ctx = talk.call("conversation.context", {"namespace": ns, "session": session, "budget_tokens": 2000})
        hashes.append(ctx["prefix_hash"])
        assert ctx["system"] == first["system"]
    assert len(set(hashes)) == 1
    assert "Sol" in first["system"] and "Date: 2023-05-08" in first["system"]
    talk.call("clock.advance", {"hours": 72})  # nothing in the prefix is relative to "now"
    assert (
        talk.call("conversation.context", {"namespace": ns, "session": session, "budget_tokens": 2000})["prefix_hash"]
        == hashes[0]
    )

    # The Memory Pack rides with the newest user turn, at the end.
    newest_user = max(i for i, m in enumerate(ctx["messages"]) if m["role"] == "user")
    assert ctx["messages"][newest_user]["content"].startswith("<memories>")
    assert ctx["pack_id"]
    # The pack does not repeat what the prefix already shows (the persona, the observations in it).
    packed = {
        c["id"]
        for c in talk.call("context.explain", {"namespace": ns, "pack_id": ctx["pack_id"]})["candidates"]
        if c["chosen"]
    }
    shown = {
        o["memory_id"]
        for o in talk.call("observations.list", {"namespace": ns, "session": session})["observations"]
        if o["content"] in ctx["system"]
    }
    assert shown and not packed & shown and known in packed
    assert not any("You are Sol" in line for line in ctx["messages"][newest_user]["content"].splitlines())
    assert [m["content"] for m in ctx["messages"] if not m["content"].startswith("<memories>")] == [
        t["text"] for t in turns[8:12] if t is not turns[8:12][newest_user]
    ]

    talk.call("conversation.observe", {"namespace": ns, "session": session})
    after = talk.call("conversation.context", {"namespace": ns, "session": session, "budget_tokens": 2000})
    assert after["prefix_hash"] != hashes[0]

    from agentmemd.memory.core.tokens import count_tokens

    # The prefix keeps to its 10 % share, except that the persona record is always in it (up to
    # half the budget, clipped past that).
    record = talk.call("persona.get", {"namespace": ns})["record"]
    assert "You are Sol" in record
    for budget in (150, 400, 1000, 4000):
        ctx = talk.call("conversation.context", {"namespace": ns, "session": session, "budget_tokens": budget})
        counted = count_tokens(ctx["system"]) + sum(count_tokens(m["content"]) for m in ctx["messages"])
        assert counted == ctx["tokens"] <= budget
        with_record = min(count_tokens(f"# Who you are\n{record}\n\n"), budget // 2)
        assert count_tokens(ctx["system"]) <= max(int(budget * 0.1), with_record)
        assert ctx["system"].startswith("# Who you are\nYou are Sol")


def test_a_run_killed_mid_way_loses_nothing_and_is_redone_at_start(spawn, short_tmp, monkeypatch):
    """The anthropic provider answers slowly; the daemon is killed while it waits. At the
    next start the interrupted run is redone and every turn is observed exactly once."""
    reply = json.dumps(
        {
            "observations": [
                {
                    "priority": "HIGH",
                    "category": "preference",
                    "content": "User loves hiking in the Alps.",
                    "source_turns": [1],
                }
            ]
        }
    )
    with FakeAnthropic() as fake:
        monkeypatch.setenv(KEY_ENV, "test-key")
        config = {
            "llm": llm_config(fake, timeout_seconds=20),
            "conversation": {"observer_threshold_tokens": 10, "keep_recent_turns": 0},
        }
        fake.replies.append(message(reply, input_tokens=400, output_tokens=60))
        fake.replies[-1].delay = 8.0
        d = spawn(config)
        d.call(
            "conversation.append",
            {
                "session": "hike",
                "role": "user",
                "content": "I love hiking in the Alps, we go every summer with friends.",
            },
        )
        wait_for(lambda: fake.requests, timeout=10)  # the Observer called the model
        d.kill9()
        fake.replies.append(message(reply, input_tokens=400, output_tokens=60))
        d.start()
        status = wait_idle(d, "hike")
        assert [r["status"] for r in status["runs"]] == ["interrupted", "ok"]
        assert status["observed"] == 1 and status["turns"] == 1
        observations = d.call("observations.list", {"session": "hike"})["observations"]
        assert [o["content"] for o in observations] == ["User loves hiking in the Alps."]
        assert observations[0]["source_turns"] == [1]
        costs = d.call("costs")
        assert any(r["task"] == "observe" and r["ok"] >= 1 for r in costs["by_task"])
        assert costs["cache"]["misses"] >= 1


def test_a_model_citing_turns_it_was_not_shown_is_refused_and_stores_nothing(in_process, monkeypatch):
    bad = json.dumps(
        {"observations": [{"priority": "LOW", "category": "fact", "content": "Invented.", "source_turns": [999]}]}
    )
    with FakeAnthropic() as fake:
        monkeypatch.setenv(KEY_ENV, "test-key")
        d = in_process(
            {"llm": llm_config(fake)},
            fake_embedder=True,
        )
        fake.replies.append(message(bad))
        d.call("conversation.append", {"session": "x", "role": "user", "content": "My sister Ana lives in Lisbon."})
        with pytest.raises(RpcCallError) as err:
            d.call("conversation.observe", {"session": "x"})
        assert "outside the batch" in err.value.message
        status = d.call("conversation.status", {"session": "x"})
        assert status["observed"] == 0 and status["runs"][-1]["status"] == "failed"
        assert d.call("observations.list", {"session": "x"})["observations"] == []


SMALL_THRESHOLDS = {"observer_threshold_tokens": 150, "reflector_threshold_tokens": 1_000_000, "keep_recent_turns": 2}


def test_invariants_on_a_small_conversation_observer_memories_and_dates(in_process, small_conversation):
    d = in_process({"clock": {"start": "2023-05-08T00:00:00Z"}, "conversation": SMALL_THRESHOLDS})
    answers = stream(d, small_conversation, "s", range(1, 4), namespace="small")
    assert answers[-1]["turns"] == 38 and any(a["compaction_scheduled"] for a in answers)
    status = wait_idle(d, "s", namespace="small")
    assert status["observed"] > 0 and status["unobserved_tokens"] <= 150 + 60
    observations = d.call("observations.list", {"namespace": "small", "session": "s"})["observations"]
    assert observations and [o["date"] for o in observations] == sorted(o["date"] for o in observations)
    for o in observations:
        assert o["priority"] in ("HIGH", "MED", "LOW") and o["source_turns"]
        assert attribution(o["content"])[0] in ("Ana", "Ben")
    # "I went to a pottery workshop yesterday" (said 8 May 2023) refers to 7 May 2023.
    workshop = next(o for o in observations if "pottery workshop yesterday" in o["content"])
    assert (workshop["date"][:10], workshop["referenced_date"], workshop["relative_date"]) == (
        "2023-05-08",
        "2023-05-07",
        "yesterday",
    )
    # Observations are memories: search finds this one, with provenance to its turns.
    hits = d.call("memory.search", {"query": "When did Ana go to the pottery workshop?", "namespace": "small", "k": 3})
    hit = next(h for h in hits["results"] if h["id"] == workshop["memory_id"])
    assert hit["source"].startswith("conversation:s#turns:")


def test_invariants_on_a_small_conversation_reflector_keeps_every_high(in_process, small_conversation):
    d = in_process({"clock": {"start": "2023-05-08T00:00:00Z"}, "conversation": SMALL_THRESHOLDS})
    stream(d, small_conversation, "r", range(1, 4), namespace="small-r")
    wait_idle(d, "r", namespace="small-r")
    report = d.call("conversation.observe", {"namespace": "small-r", "session": "r", "reflect": True})
    assert report["reflect_runs"], report
    run = next(
        r
        for r in d.call("conversation.status", {"namespace": "small-r", "session": "r"})["runs"]
        if r["kind"] == "reflect"
    )
    assert run["tokens_out"] < run["tokens_in"], run
    every = d.call("observations.list", {"namespace": "small-r", "session": "r", "include_replaced": True})[
        "observations"
    ]
    by_id = {o["id"]: o for o in every}
    live = [o for o in every if o["status"] == "live"]
    assert [o["date"] for o in live] == sorted(o["date"] for o in live)
    for o in every:
        if o["priority"] == "HIGH":  # kept, or carried by the live entry that replaced it
            carrier = o
            while carrier["status"] != "live":
                assert carrier["status"] in ("merged", "superseded"), carrier
                carrier = by_id[carrier["replaced_by"]]


def test_invariants_on_a_small_conversation_the_prefix_is_stable_and_fits(in_process, small_conversation):
    d = in_process(
        {
            "clock": {"start": "2023-05-08T00:00:00Z"},
            "conversation": SMALL_THRESHOLDS | {"observer_threshold_tokens": 100_000},
        }
    )
    d.call("memory.add", {"content": "You are Sol, a warm and direct companion.", "type": "persona", "namespace": "c"})
    conv = small_conversation["conversation"]
    when = locomo_date(conv["session_1_date_time"]).isoformat()

    def append(turn):
        append_turn(d, conv, turn, "c", when, namespace="c")

    for turn in conv["session_1"][:8]:
        append(turn)
    d.call("conversation.observe", {"namespace": "c", "session": "c"})
    first = d.call("conversation.context", {"namespace": "c", "session": "c", "budget_tokens": 2000})
    for turn in conv["session_1"][8:12]:  # below the threshold: no Observer, the prefix must not move
        append(turn)
        ctx = d.call("conversation.context", {"namespace": "c", "session": "c", "budget_tokens": 2000})
        assert ctx["prefix_hash"] == first["prefix_hash"] and ctx["tokens"] <= 2000
    assert "Sol" in first["system"] and "Date: 2023-05-08" in first["system"]
    d.call("clock.advance", {"hours": 72})  # nothing in the prefix is relative to "now"
    assert (
        d.call("conversation.context", {"namespace": "c", "session": "c", "budget_tokens": 2000})["prefix_hash"]
        == first["prefix_hash"]
    )


def test_sync_stores_each_turn_of_an_app_history_once_even_when_two_doors_send_it_at_once(in_process):
    d = in_process(fake_embedder=True)
    history = [{"role": "user" if i % 2 == 0 else "assistant", "content": f"turn {i} about tea"} for i in range(12)]
    first = d.call("conversation.sync", {"session": "app", "turns": history[:5]})
    assert (first["appended"], first["turns"]) == (5, 5)
    again = d.call("conversation.sync", {"session": "app", "turns": history[:5]})  # nothing new
    assert (again["appended"], again["turns"]) == (0, 5)
    tail = d.call("conversation.sync", {"session": "app", "turns": history[3:7]})  # a window that overlaps
    assert (tail["appended"], tail["turns"]) == (2, 7)
    other = d.call("conversation.sync", {"session": "app", "turns": history[:1], "namespace": "other"})
    assert (other["session"], other["appended"]) == ("app", 1)  # its own "app": ids are per namespace
    # Two doors with the same history at once (a status, then appends, would store it twice).
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda _: d.connect().call("conversation.sync", {"session": "app", "turns": history}), range(4)))
    turns = d.call("conversation.status", {"session": "app"})["turns"]
    assert turns == 12
    context = d.call("conversation.context", {"session": "app"})
    assert [m["content"] for m in context["messages"]][-1].endswith("turn 11 about tea")


def test_a_conversation_not_found_is_named_as_the_caller_named_it(in_process):
    """`agentmemd conversation context chat-1 --namespace alice` answered "no conversation with
    session 'chat-1|alice'": the store's key, which no answer shows."""
    d = in_process(fake_embedder=True)
    with pytest.raises(RpcCallError) as missing:
        d.call("conversation.context", {"session": "chat-1", "namespace": "alice"})
    assert "'chat-1'" in missing.value.message and "|" not in missing.value.message
    assert missing.value.data["session"] == "chat-1"


def test_an_observation_the_prefix_has_no_room_for_is_packed_when_asked_about(in_process, small_conversation):
    """A small budget shows few observations in the stable prefix (HIGH first, newest first); the
    rest are memories still: a request about one brings its words in the pack. Compact mode leaves
    the turns they cover out of the request on this (docs/proxy.md)."""
    d = in_process({"clock": {"start": "2023-05-08T00:00:00Z"}, "conversation": SMALL_THRESHOLDS})
    # Ana and Ben are two people talking (the agent's own replies are not observed as evidence).
    stream(d, small_conversation, "s", range(1, 4), namespace="small", role="user")
    wait_idle(d, "s", namespace="small")
    d.call("conversation.observe", {"namespace": "small", "session": "s", "force": True, "wait": True})
    observed = d.call("conversation.context", {"namespace": "small", "session": "s", "budget_tokens": 600})
    assert observed["parts"]["unobserved_turns"] == 0 and observed["parts"]["observations"] > 20
    assert "knee" not in observed["system"]  # no room for it
    d.call("conversation.append", {"namespace": "small", "session": "s", "role": "user", "content": "what happened to Ben's knee?"})  # fmt: skip
    asked = d.call("conversation.context", {"namespace": "small", "session": "s", "budget_tokens": 600})
    packed = asked["injected"]["newest_user_prefix"].split("[MEMORY PACK")[1]
    assert "Ben said: My knee is better" in packed or "I hurt my knee on a trail run" in packed
    assert asked["tokens"] <= 600


def test_the_agents_claims_are_no_observations_and_the_users_correction_is_one(in_process):
    """The agent said the user's flight was on March 3 and that they were allergic to peanuts; the
    user corrected both. The Observer made the agent's claim a HIGH decision ("I'll keep that in
    mind"), dropped the correction, and a pack for the flight held the false date alone."""
    d = in_process({"clock": {"start": "2026-11-01T10:05:00Z"}}, fake_embedder=True)
    said = [
        ("user", "Remind me what I told you about flights?"),
        ("assistant", "Your flight to Oslo is on March 3, and you mentioned you are allergic to peanuts, so I'll keep that in mind for meals."),  # noqa: E501
        ("user", "No, the flight is on March 5, not March 3. And I never said I'm allergic to peanuts, I'm not allergic to anything."),  # noqa: E501
        ("assistant", "Sorry about that. I'll remind you on March 4 to pack."),
    ]  # fmt: skip
    for role, text in said:
        d.call("conversation.append", {"session": "b1", "role": role, "content": text})
    d.call("conversation.observe", {"session": "b1"})
    observed = {o["content"]: o["priority"] for o in d.call("observations.list", {"session": "b1"})["observations"]}
    assert not any("March 3, and" in text or "Sorry about" in text for text in observed), observed
    assert observed.get("User said: No, the flight is on March 5, not March 3.") == "HIGH", observed
    assert any(text.startswith("Assistant said: I'll remind you on March 4") for text in observed), observed
    pack = d.call("context.pack", {"query": "When is my flight to Oslo?", "budget_tokens": 400})["text"]
    assert "March 5" in pack
