"""OpenAI apps through the proxy, with the real openai SDK: every path goes to the provider it is
for (a key never reaches the other), the Responses API gets memory like chat completions, and a
developer message keeps its place. Upstreams: daemon/bench/fake_upstream.py, written from the docs."""

from __future__ import annotations

import anthropic
import openai
import pytest
from doors import start_proxy

from agentmemd.daemon.bench.fake_upstream import FakeAnthropic, FakeOpenAI

pytestmark = pytest.mark.doors  # the tier (pyproject.toml)

ANTHROPIC_KEY, OPENAI_KEY = "sk-ant-routing", "sk-openai-routing"


@pytest.fixture
def world(in_namespace, short_tmp):
    d = in_namespace
    d.call("memory.add", {"content": "The user's dog is called Biscuit.", "type": "fact"})
    token = d.token()
    with FakeAnthropic(api_key=ANTHROPIC_KEY) as claude, FakeOpenAI(api_key=OPENAI_KEY) as gpt:
        log = short_tmp / "proxy.log"
        proc, port = start_proxy(d.socket, claude.base_url, log, openai_upstream=gpt.base_url)
        base = f"http://127.0.0.1:{port}/t/{token}"
        try:
            yield d, claude, gpt, base
        finally:
            proc.terminate()
            proc.wait(timeout=30)


def test_openai_paths_go_to_openai_with_the_openai_key_only(world):
    d, claude, gpt, base = world
    client = openai.OpenAI(base_url=f"{base}/v1", api_key=OPENAI_KEY, max_retries=0)
    assert [m.id for m in client.models.list()]
    assert len(client.embeddings.create(model="text-embedding-3-small", input="hello").data) == 1
    anthropic.Anthropic(base_url=base, api_key=ANTHROPIC_KEY, max_retries=0).models.list()
    assert gpt.wrong_keys == [] and claude.wrong_keys == []
    assert {r["path"] for r in gpt.requests} >= {"/v1/models", "/v1/embeddings"}
    assert [r["path"] for r in claude.requests] == ["/v1/models"]


def test_the_responses_api_gets_memory_and_its_turns_are_kept(world):
    d, claude, gpt, base = world
    client = openai.OpenAI(base_url=f"{base}/v1", api_key=OPENAI_KEY, max_retries=0)
    gpt.script("Biscuit, of course.")
    first = client.responses.create(
        model="gpt-5",
        instructions="You are a pet app.",
        input="What is my dog called?",
        extra_headers={"x-agentmemd-session": "pets"},
    )
    assert first.output_text == "Biscuit, of course."
    sent = gpt.requests[-1]["body"]
    assert sent["instructions"].startswith("You are a pet app.")
    assert "Biscuit" in str(sent["input"])  # the Memory Pack went in front of the question
    # The app continues with previous_response_id and only its new input, streamed.
    gpt.script("Walk him at noon.")
    with client.responses.stream(
        model="gpt-5",
        previous_response_id=first.id,
        input=[{"role": "user", "content": "When should I walk him?"}],
        extra_headers={"x-agentmemd-session": "pets"},
    ) as stream:
        for _ in stream:
            pass
    turns = d.call("conversation.turns", {"session": "pets"})["turns"]
    assert [(t["role"], t["content"]) for t in turns] == [
        ("user", "What is my dog called?"),
        ("assistant", "Biscuit, of course."),
        ("user", "When should I walk him?"),
        ("assistant", "Walk him at noon."),
    ]


def test_a_developer_message_mid_conversation_keeps_its_place(world):
    d, claude, gpt, base = world
    client = openai.OpenAI(base_url=f"{base}/v1", api_key=OPENAI_KEY, max_retries=0)
    messages = [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello."},
        {"role": "developer", "content": "From now on, answer in French."},
        {"role": "user", "content": "What is my dog called?"},
    ]
    gpt.script("Biscuit.")
    client.chat.completions.create(model="gpt-5", messages=messages)
    sent = [m["role"] for m in gpt.requests[-1]["body"]["messages"]]
    assert sent == ["system", "system", "user", "assistant", "developer", "user"]


def test_a_group_chats_speakers_are_kept_and_named_in_its_context(world):
    """Several people on the user side, told apart by OpenAI's `name`: each turn is stored as its
    speaker's, and the daemon's context for the conversation says who said what."""
    d, claude, gpt, base = world
    client = openai.OpenAI(base_url=f"{base}/v1", api_key=OPENAI_KEY, max_retries=0)
    gpt.script("Ana brings the tent, Ben drives.")
    messages = [
        {"role": "user", "name": "ana", "content": "I can bring the tent"},
        {"role": "user", "name": "ben", "content": "I'll drive"},
        {"role": "user", "name": "ana", "content": "Bot, who does what?"},
    ]
    client.chat.completions.create(model="gpt-5", messages=messages, extra_headers={"x-agentmemd-session": "camping"})
    assert gpt.requests[-1]["body"]["messages"][-2]["name"] == "ben"  # the app's messages go on as sent
    turns = d.call("conversation.turns", {"session": "camping"})["turns"]
    assert [(t["speaker"], t["content"]) for t in turns[:3]] == [
        ("ana", "I can bring the tent"),
        ("ben", "I'll drive"),
        ("ana", "Bot, who does what?"),
    ]
    context = d.call("conversation.context", {"session": "camping"})
    said = [m["content"] for m in context["messages"] if m["role"] == "user"]
    assert said[0] == "ana: I can bring the tent" and said[1] == "ben: I'll drive"
