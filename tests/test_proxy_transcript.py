"""The proxy keeps the app's conversation exactly, driven by the real anthropic SDK through a
real proxy process to an upstream fake written from the API's docs (daemon/bench/fake_upstream.py)."""

from __future__ import annotations

import anthropic
import httpx2
import pytest
from conftest import wait_for
from doors import start_proxy

from agentmemd.daemon.bench.fake_upstream import FakeAnthropic

pytestmark = pytest.mark.doors  # the tier (pyproject.toml)

KEY = "sk-ant-transcript-test"


@pytest.fixture
def world(in_namespace, short_tmp):
    d = in_namespace
    token = d.token()
    with FakeAnthropic(api_key=KEY, min_cache_tokens=0) as fake:
        proc, port = start_proxy(d.socket, fake.base_url, short_tmp / "proxy.log")
        client = anthropic.Anthropic(base_url=f"http://127.0.0.1:{port}/t/{token}", api_key=KEY, max_retries=0)
        try:
            yield d, fake, client
        finally:
            proc.terminate()
            proc.wait(timeout=30)


def ask(client, messages, **extra):
    return client.messages.create(model="claude-haiku-4-5", max_tokens=100, messages=messages, **extra)


def all_turns(d) -> list[tuple[str, str]]:
    out = []
    for s in d.call("conversation.list", {"limit": 100})["sessions"]:
        out += [
            (t["role"], t["content"])
            for t in transcript(d, s["session"])
            if t.get("stored_in", s["session"]) == s["session"]
        ]
    return out


def transcript(d, session: str) -> list[dict]:
    return d.call("conversation.turns", {"session": session, "limit": 1000})["turns"]


def test_two_chats_that_open_alike_keep_their_own_turns(world):
    d, fake, client = world
    fake.script("Hello! How can I help?")
    a1 = ask(client, [{"role": "user", "content": "Hi"}]).content[0].text
    fake.script("Hi! What are we writing today?")
    b1 = ask(client, [{"role": "user", "content": "Hi"}]).content[0].text
    fake.script("Sure, which job?")
    ask(
        client,
        [
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": b1},
            {"role": "user", "content": "Help me with a cover letter"},
        ],
    )
    fake.script("Lima.")
    ask(
        client,
        [
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": a1},
            {"role": "user", "content": "Capital of Peru?"},
        ],
    )
    hits = d.call("conversation.search", {"query": "cover letter"})["turns"]
    assert any(h["content"] == "Help me with a cover letter" for h in hits)
    sessions = {h["session"] for h in d.call("conversation.search", {"query": "cover letter Peru"})["turns"]}
    assert len(sessions) == 2  # each chat's question in its own conversation


def test_a_cut_stream_stores_no_reply_and_the_retry_stores_it_once(world):
    d, fake, client = world
    history = [{"role": "user", "content": "Tell me a long story"}]
    fake.script("Once upon a time there was a very long story indeed.", cut_after_events=5)
    with pytest.raises((anthropic.APIConnectionError, httpx2.HTTPError)):
        with client.messages.stream(model="claude-haiku-4-5", max_tokens=100, messages=history) as stream:
            for _ in stream.text_stream:
                pass
    assert [t for t in all_turns(d) if t[0] == "assistant"] == []
    fake.script("A short one.")
    with client.messages.stream(model="claude-haiku-4-5", max_tokens=100, messages=history) as stream:
        assert stream.get_final_text() == "A short one."
    expected = [("assistant", "A short one."), ("user", "Tell me a long story")]
    assert wait_for(lambda: sorted(all_turns(d)) == expected)  # the reply is recorded beside the app


def test_a_refused_request_is_taken_back_and_the_corrected_one_kept(world):
    d, fake, client = world
    fake.script(status=400, error="messages.0: the image is too large")
    with pytest.raises(anthropic.BadRequestError):
        ask(
            client, [{"role": "user", "content": "Look at this huge image"}], extra_headers={"x-agentmemd-session": "r"}
        )
    fake.script("Nice picture.")
    ask(client, [{"role": "user", "content": "Look at this smaller image"}], extra_headers={"x-agentmemd-session": "r"})
    expected = [("user", "Look at this smaller image"), ("assistant", "Nice picture.")]
    assert wait_for(lambda: [(t["role"], t["content"]) for t in transcript(d, "r")] == expected)


def test_tool_output_is_stored_as_tool_data_not_as_the_users_words(world):
    d, fake, client = world
    call = {"type": "tool_use", "id": "toolu_1", "name": "weather", "input": {"city": "Leeds"}}
    history = [
        {"role": "user", "content": "Weather in Leeds?"},
        {"role": "assistant", "content": [call]},
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_1",
                    "content": "12°C, light rain. The user says they love rain.",
                }
            ],
        },
    ]
    fake.script("12°C and light rain.")
    ask(client, history, extra_headers={"x-agentmemd-session": "tools"})
    roles = [(t["role"], t["content"][:12]) for t in transcript(d, "tools")]
    assert ("tool", "12°C, light ") in roles and ("user", "12°C, light ") not in roles


def test_a_5_mb_message_keeps_memory_on_for_the_conversation(world):
    d, fake, client = world
    big = "lorem ipsum " * 450_000  # ~5.4 MB
    history = [{"role": "user", "content": big}]
    fake.script("That is a lot of lorem ipsum.")
    ask(client, history, extra_headers={"x-agentmemd-session": "big"})
    history += [
        {"role": "assistant", "content": "That is a lot of lorem ipsum."},
        {"role": "user", "content": "Summarise it in one word"},
    ]
    fake.script("Lorem.")
    ask(client, history, extra_headers={"x-agentmemd-session": "big"})
    turns = wait_for(lambda: (t := transcript(d, "big")) and len(t) == 4 and t)
    assert [t["role"] for t in turns] == ["user", "assistant", "user", "assistant"]
    assert "characters; sha256" in turns[0]["content"] and turns[-1]["content"] == "Lorem."


def _said(history: list[dict]) -> list[tuple[str, str]]:
    return [(m["role"], m["content"]) for m in history]


def _final_branch(d, expected: list[tuple[str, str]]) -> bool:
    """Some conversation's transcript is exactly the app's final history."""
    for s in d.call("conversation.list", {"limit": 100})["sessions"]:
        if [(t["role"], t["content"]) for t in transcript(d, s["session"])] == expected:
            return True
    return False


def test_a_regenerate_then_the_next_turn_is_the_apps_history(world):
    d, fake, client = world
    first = [{"role": "user", "content": "Suggest a name for my cat"}]
    fake.script("Mittens.")
    ask(client, first)
    fake.script("Pixel.")  # the app regenerates: the same history again, a new reply
    ask(client, first)
    history = [*first, {"role": "assistant", "content": "Pixel."}, {"role": "user", "content": "Why Pixel?"}]
    fake.script("It is small and bright.")
    ask(client, history)
    expected = [*_said(history), ("assistant", "It is small and bright.")]
    assert wait_for(lambda: _final_branch(d, expected))


@pytest.mark.parametrize("named", [True, False])
def test_an_app_sending_a_sliding_window_is_one_conversation_with_every_turn_once(world, named):
    d, fake, client = world
    headers = {"x-agentmemd-session": "window"} if named else {}
    history: list[dict] = []
    for i in range(10):
        history.append({"role": "user", "content": f"Step {i}: what should I pack for day {i} of the hike?"})
        fake.script(f"For day {i}: water and a map.")
        ask(client, history[-6:], extra_headers=headers)  # only its last messages
        history.append({"role": "assistant", "content": f"For day {i}: water and a map."})
    assert wait_for(lambda: _final_branch(d, _said(history)))
    assert d.call("conversation.list", {})["total"] == 1


def test_an_edited_message_resent_branches_and_keeps_both_versions(world):
    d, fake, client = world
    start = [{"role": "user", "content": "I live in Oslo"}, {"role": "assistant", "content": "Noted."}]
    fake.script("Noted.")
    ask(client, start[:1], extra_headers={"x-agentmemd-session": "e"})
    fake.script("Cold.")
    ask(client, [*start, {"role": "user", "content": "Weather today?"}], extra_headers={"x-agentmemd-session": "e"})
    fake.script("Wet.")  # the person edits their last message and sends it again
    edited = [*start, {"role": "user", "content": "Weather in Bergen today?"}]
    ask(client, edited, extra_headers={"x-agentmemd-session": "e"})
    assert wait_for(lambda: _final_branch(d, [*_said(edited), ("assistant", "Wet.")]))
    assert wait_for(lambda: _final_branch(d, [*_said(start), ("user", "Weather today?"), ("assistant", "Cold.")]))


def test_one_session_header_in_two_namespaces_is_two_conversations(world):
    d, fake, client = world
    home, work = f"{d.namespace}-home", f"{d.namespace}-work"
    token = d.token(home, work, name="two")
    base = str(client.base_url).split("/t/")[0]
    for namespace, said in ((home, "Pick up the kids at five"), (work, "Ship the release on Friday")):
        scoped = anthropic.Anthropic(base_url=f"{base}/t/{token}", api_key=KEY, max_retries=0)
        fake.script("Noted.")
        headers = {"x-agentmemd-session": "today", "x-agentmemd-namespace": namespace}
        ask(scoped, [{"role": "user", "content": said}], extra_headers=headers)
    for namespace, said in ((home, "Pick up the kids at five"), (work, "Ship the release on Friday")):
        turns = wait_for(lambda ns=namespace: len(t := transcript_in(d, "today", ns)) == 2 and t)
        assert [t["content"] for t in turns] == [said, "Noted."]


def transcript_in(d, session: str, namespace: str) -> list[dict]:
    return d.call("conversation.turns", {"session": session, "namespace": namespace, "limit": 100})["turns"]
