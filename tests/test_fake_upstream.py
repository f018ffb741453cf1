"""The upstream fakes behave like the real APIs, as seen through the real `anthropic` and `openai` SDKs.

The proxy's tests trust these fakes to refuse what the providers refuse and to count cache tokens the way the
providers document; these tests pin that behaviour, so a fake that drifted would fail here first.
"""

from __future__ import annotations

import base64
import json
import struct
import time
import urllib.error
import urllib.request

import anthropic
import openai
import pytest

from agentmemd.daemon.bench.fake_upstream import (
    TOKENS_PER_BLOCK,
    FakeAnthropic,
    FakeOpenAI,
    fake_embedding,
    text_tokens,
)

pytestmark = pytest.mark.inprocess  # the tier (pyproject.toml)

MODEL = "claude-sonnet-4-6"
GPT = "gpt-4o-mini"
EPHEMERAL = {"type": "ephemeral"}
ONE_HOUR = {"type": "ephemeral", "ttl": "1h"}
LONG_SYSTEM = "You are a careful assistant who remembers what the user said. " * 80  # ~1300 tokens


@pytest.fixture
def fake_anthropic():
    with FakeAnthropic(min_cache_tokens=0) as fake:
        yield fake


@pytest.fixture
def claude(fake_anthropic):
    return anthropic.Anthropic(api_key="sk-ant-fake", base_url=fake_anthropic.base_url, max_retries=0)


@pytest.fixture
def fake_openai():
    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture
def gpt(fake_openai):
    return openai.OpenAI(api_key="sk-fake-openai", base_url=fake_openai.base_url + "/v1", max_retries=0)


def user(text: str, cache_control: dict | None = None) -> dict:
    block = {"type": "text", "text": text}
    if cache_control is not None:
        block["cache_control"] = cache_control
    return {"role": "user", "content": [block]}


def post_raw(url: str, body: dict, headers: dict[str, str]) -> tuple[int, str]:
    """A plain HTTP POST, for what the SDKs hide: the exact SSE bytes and requests without credentials."""
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"content-type": "application/json", **headers}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def _bearer(authorization: str | None) -> str | None:
    return authorization.removeprefix("Bearer ") if authorization else None


def sse_event_names(stream_text: str) -> list[str]:
    return [line[len("event: ") :] for line in stream_text.splitlines() if line.startswith("event: ")]


# ------------------------------------------------------------------------------------------------------------
# Anthropic: good requests, streaming, count_tokens


def test_a_good_request_gets_the_default_reply_with_full_usage(fake_anthropic, claude):
    body = {"model": MODEL, "max_tokens": 64, "messages": [{"role": "user", "content": "hello there, fake"}]}
    reply = claude.messages.create(**body)

    assert reply.content[0].text == "ok: hello there, fake"
    assert reply.stop_reason == "end_turn"
    usage = reply.usage
    assert usage.input_tokens == fake_anthropic.count_tokens(body)
    assert (usage.cache_creation_input_tokens, usage.cache_read_input_tokens) == (0, 0)
    assert usage.cache_creation.ephemeral_5m_input_tokens == usage.cache_creation.ephemeral_1h_input_tokens == 0
    assert usage.output_tokens == text_tokens("ok: hello there, fake")
    logged = fake_anthropic.requests[-1]
    assert (logged["method"], logged["path"]) == ("POST", "/v1/messages")
    # SDK 2.x sends the key as "authorization: Bearer"; older clients (and curl examples) use x-api-key
    assert "sk-ant-fake" in (logged["headers"].get("x-api-key"), _bearer(logged["headers"].get("authorization")))
    assert logged["body"]["messages"] == body["messages"]
    assert fake_anthropic.usage_log[-1]["input_tokens"] == usage.input_tokens


def test_the_stream_follows_the_documented_event_order(fake_anthropic):
    body = {
        "model": MODEL,
        "max_tokens": 64,
        "stream": True,
        "messages": [{"role": "user", "content": "a fairly long question to stream back"}],
    }
    headers = {"x-api-key": "sk-ant-fake", "anthropic-version": "2023-06-01"}
    status, text = post_raw(fake_anthropic.base_url + "/v1/messages", body, headers)

    assert status == 200
    names = sse_event_names(text)
    assert names[:3] == ["message_start", "content_block_start", "ping"]
    assert set(names[3:-3]) == {"content_block_delta"} and len(names[3:-3]) > 1
    assert names[-3:] == ["content_block_stop", "message_delta", "message_stop"]
    payloads = [json.loads(line[len("data: ") :]) for line in text.splitlines() if line.startswith("data: ")]
    start_usage, delta_usage = payloads[0]["message"]["usage"], payloads[-2]["usage"]
    assert start_usage["input_tokens"] == delta_usage["input_tokens"] == fake_anthropic.count_tokens(body)
    assert {"cache_creation_input_tokens", "cache_read_input_tokens", "cache_creation"} <= set(start_usage)
    assert delta_usage["output_tokens"] == text_tokens("ok: a fairly long question to stream back")


def test_messages_stream_in_the_sdk_accumulates_the_reply(fake_anthropic, claude):
    fake_anthropic.script("streamed words arrive in several pieces")
    with claude.messages.stream(model=MODEL, max_tokens=64, messages=[user("go")]) as stream:
        text = "".join(stream.text_stream)
        final = stream.get_final_message()

    assert text == "streamed words arrive in several pieces"
    assert final.content[0].text == text
    assert final.usage.output_tokens == text_tokens(text)
    assert fake_anthropic.usage_log[-1]["stream"] is True


def test_count_tokens_counts_everything_sent(fake_anthropic, claude):
    messages = [user("how many tokens is this?")]
    tools = [{"name": "lookup", "description": "Look a word up.", "input_schema": {"type": "object", "properties": {}}}]
    bare = claude.messages.count_tokens(model=MODEL, messages=messages).input_tokens
    with_system = claude.messages.count_tokens(model=MODEL, messages=messages, system="Be terse.").input_tokens
    with_tools = claude.messages.count_tokens(
        model=MODEL, messages=messages, system="Be terse.", tools=tools
    ).input_tokens

    assert bare == fake_anthropic.count_tokens({"messages": messages})
    assert with_system == bare + TOKENS_PER_BLOCK + text_tokens("Be terse.")
    assert (
        with_tools
        == fake_anthropic.count_tokens({"messages": messages, "system": "Be terse.", "tools": tools})
        > with_system
    )
    assert fake_anthropic.usage_log == []  # counting is not a generation


# ------------------------------------------------------------------------------------------------------------
# Anthropic: what the API refuses


def five_cache_controls_across_sections() -> dict:
    tools = [{"name": f"t{i}", "input_schema": {"type": "object"}, "cache_control": EPHEMERAL} for i in range(2)]
    system = [{"type": "text", "text": "rules", "cache_control": EPHEMERAL}]
    messages = [
        {"role": "user", "content": [{"type": "text", "text": w, "cache_control": EPHEMERAL} for w in ("a", "b")]}
    ]
    return {"model": MODEL, "max_tokens": 8, "tools": tools, "system": system, "messages": messages}


REJECTED_REQUESTS = [
    pytest.param(
        {
            "model": MODEL,
            "max_tokens": 8,
            "system": [{"type": "text", "text": str(i), "cache_control": EPHEMERAL} for i in range(5)],
            "messages": [user("hi")],
        },
        "A maximum of 4 blocks with cache_control may be provided. Found 5.",
        id="five-breakpoints-in-system",
    ),
    pytest.param(five_cache_controls_across_sections(), "Found 5.", id="five-breakpoints-across-tools-system-messages"),
    pytest.param(
        {
            "model": MODEL,
            "max_tokens": 8,
            "tools": [{"name": "t", "input_schema": {"type": "object"}, "cache_control": EPHEMERAL}],
            "system": [{"type": "text", "text": "s", "cache_control": ONE_HOUR}],
            "messages": [user("hi")],
        },
        "system.0.cache_control.ttl: a ttl='1h' cache_control block must not come after a ttl='5m' cache_control block",
        id="1h-after-5m",
    ),
    pytest.param(
        {
            "model": MODEL,
            "max_tokens": 8,
            "messages": [
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "42"}]}
            ],
        },
        "messages.0.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_1",
        id="tool-result-without-tool-use",
    ),
    pytest.param(
        {
            "model": MODEL,
            "max_tokens": 8,
            "messages": [
                user("look it up"),
                {
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {}}],
                },
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "42"}]},
                {"role": "assistant", "content": "It is 42."},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "again"}]},
            ],
        },
        "messages.4.content.0: unexpected `tool_use_id`",
        id="tool-result-for-an-older-assistant-message",
    ),
    pytest.param(
        {
            "model": MODEL,
            "max_tokens": 8,
            "messages": [
                user("go"),
                {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_9", "name": "x", "input": {}}]},
                user("ignored the tool"),
            ],
        },
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_9",
        id="tool-use-never-answered",
    ),
    pytest.param(
        {"model": MODEL, "max_tokens": 8, "messages": []},
        "messages: at least one message is required",
        id="empty-messages",
    ),
    pytest.param(
        {"model": MODEL, "max_tokens": 8, "messages": [{"role": "system", "content": "hi"}]},
        "messages.0.role: Input should be 'user' or 'assistant'",
        id="system-role",
    ),
    pytest.param({"max_tokens": 8, "messages": [user("hi")]}, "model: Field required", id="missing-model"),
    pytest.param({"model": MODEL, "messages": [user("hi")]}, "max_tokens: Field required", id="missing-max-tokens"),
    pytest.param(
        {"model": MODEL, "max_tokens": 8, "messages": [user("hi", {"type": "persistent"})]},
        "messages.0.content.0.cache_control.type: Input should be 'ephemeral'",
        id="bad-cache-control-type",
    ),
    pytest.param(
        {"model": MODEL, "max_tokens": 8, "messages": [user("hi", {"type": "ephemeral", "ttl": "10m"})]},
        "Input should be '5m' or '1h'",
        id="bad-ttl",
    ),
    pytest.param(
        {"model": MODEL, "max_tokens": 8, "messages": [{"role": "user", "content": ""}]},
        "messages.0: all messages must have non-empty content",
        id="empty-content",
    ),
]


@pytest.mark.parametrize("body, expected", REJECTED_REQUESTS)
def test_the_fake_refuses_what_the_api_refuses(fake_anthropic, claude, body, expected):
    fake_anthropic.script("never sent")
    with pytest.raises(anthropic.BadRequestError) as caught:
        claude.post("/v1/messages", cast_to=anthropic.types.Message, body=body)

    assert expected in caught.value.message
    assert caught.value.body["error"]["type"] == "invalid_request_error"
    assert fake_anthropic.usage_log == []
    assert claude.messages.create(model=MODEL, max_tokens=8, messages=[user("then")]).content[0].text == "never sent"


def test_count_tokens_needs_no_max_tokens_but_applies_the_other_rules(claude):
    assert claude.messages.count_tokens(model=MODEL, messages=[user("fine")]).input_tokens > 0
    with pytest.raises(anthropic.BadRequestError, match="Found 5"):
        claude.messages.count_tokens(
            **{k: v for k, v in five_cache_controls_across_sections().items() if k != "max_tokens"}
        )


def test_a_request_without_anthropic_version_is_refused(fake_anthropic):
    status, text = post_raw(
        fake_anthropic.base_url + "/v1/messages",
        {"model": MODEL, "max_tokens": 8, "messages": [user("hi")]},
        {"x-api-key": "sk-ant-fake"},
    )

    assert status == 400
    assert json.loads(text) == {
        "type": "error",
        "error": {"type": "invalid_request_error", "message": "anthropic-version: header is required"},
    }


def test_1h_breakpoints_before_5m_ones_are_accepted_and_written_at_their_ttl(fake_anthropic, claude):
    tools = [{"name": "lookup", "input_schema": {"type": "object"}, "cache_control": ONE_HOUR}]
    system = [{"type": "text", "text": "stable rules", "cache_control": ONE_HOUR}]
    messages = [user("first question", EPHEMERAL)]
    reply = claude.messages.create(model=MODEL, max_tokens=8, tools=tools, system=system, messages=messages)

    prefix = fake_anthropic.count_tokens({"tools": tools, "system": system})
    whole = fake_anthropic.count_tokens({"tools": tools, "system": system, "messages": messages})
    assert reply.usage.cache_creation.ephemeral_1h_input_tokens == prefix
    assert reply.usage.cache_creation.ephemeral_5m_input_tokens == whole - prefix
    assert reply.usage.cache_creation_input_tokens == whole
    assert reply.usage.input_tokens == 0


# ------------------------------------------------------------------------------------------------------------
# Anthropic: prompt caching


def with_breakpoint_on_last_message(messages: list[dict]) -> list[dict]:
    """The conversation as a client with a moving breakpoint sends it: only the newest block is marked."""
    marked = []
    for message in messages:
        content = message["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else [dict(b) for b in content]
        for block in blocks:
            block.pop("cache_control", None)
        marked.append({"role": message["role"], "content": blocks})
    marked[-1]["content"][-1]["cache_control"] = EPHEMERAL
    return marked


def test_a_moving_breakpoint_reads_the_past_and_writes_only_the_new_part(fake_anthropic, claude):
    system = [{"type": "text", "text": LONG_SYSTEM}]
    history: list[dict] = []
    previous_total, reads = 0, []
    for turn in range(5):
        history.append({"role": "user", "content": f"turn {turn}: tell me something new about caching"})
        body = {
            "model": MODEL,
            "max_tokens": 64,
            "system": system,
            "messages": with_breakpoint_on_last_message(history),
        }
        if turn == 2:  # a streamed turn reports the same usage through message_start / message_delta
            with claude.messages.stream(**body) as stream:
                reply = stream.get_final_message()
        else:
            reply = claude.messages.create(**body)
        total = fake_anthropic.count_tokens(body)
        usage = reply.usage

        assert usage.cache_read_input_tokens == previous_total
        assert (
            usage.cache_creation_input_tokens
            == usage.cache_creation.ephemeral_5m_input_tokens
            == total - previous_total
        )
        assert usage.input_tokens == 0  # the breakpoint is the last block: nothing after it
        assert usage.cache_read_input_tokens + usage.cache_creation_input_tokens + usage.input_tokens == total
        reads.append(usage.cache_read_input_tokens)
        history.append({"role": "assistant", "content": reply.content[0].text})
        previous_total = total

    assert reads[0] == 0
    assert all(later > earlier for earlier, later in zip(reads, reads[1:]))
    assert [entry["cache_read_input_tokens"] for entry in fake_anthropic.usage_log] == reads


def test_tokens_after_the_last_breakpoint_are_plain_input(fake_anthropic, claude):
    system = [{"type": "text", "text": LONG_SYSTEM, "cache_control": EPHEMERAL}]
    first = claude.messages.create(model=MODEL, max_tokens=8, system=system, messages=[user("one")])
    second = claude.messages.create(model=MODEL, max_tokens=8, system=system, messages=[user("a different question")])

    system_tokens = fake_anthropic.count_tokens({"system": system})
    assert first.usage.cache_creation_input_tokens == system_tokens
    assert second.usage.cache_read_input_tokens == system_tokens
    assert second.usage.cache_creation_input_tokens == 0
    assert second.usage.input_tokens == fake_anthropic.count_tokens({"messages": [user("a different question")]})


def test_cache_entries_expire_by_ttl_and_a_hit_refreshes_them(claude_with_clock):
    claude, fake, now = claude_with_clock
    body = {"model": MODEL, "max_tokens": 8, "messages": [user(LONG_SYSTEM, EPHEMERAL)]}
    assert claude.messages.create(**body).usage.cache_creation_input_tokens > 0
    now[0] = 299.0
    assert claude.messages.create(**body).usage.cache_read_input_tokens > 0  # hit at 299s refreshes to 599s
    now[0] = 598.0
    assert claude.messages.create(**body).usage.cache_read_input_tokens > 0
    now[0] = 598.0 + 301.0
    expired = claude.messages.create(**body).usage
    assert (expired.cache_read_input_tokens, expired.cache_creation_input_tokens > 0) == (0, True)
    assert fake.usage_log[-1]["cache_read_input_tokens"] == 0


def test_a_1h_entry_outlives_five_minutes(claude_with_clock):
    claude, _, now = claude_with_clock
    body = {"model": MODEL, "max_tokens": 8, "messages": [user(LONG_SYSTEM, ONE_HOUR)]}
    assert claude.messages.create(**body).usage.cache_creation.ephemeral_1h_input_tokens > 0
    now[0] = 3000.0
    assert claude.messages.create(**body).usage.cache_read_input_tokens > 0
    now[0] = 3000.0 + 3601.0
    assert claude.messages.create(**body).usage.cache_read_input_tokens == 0


@pytest.fixture
def claude_with_clock():
    now = [0.0]
    with FakeAnthropic(min_cache_tokens=0, clock=lambda: now[0]) as fake:
        yield anthropic.Anthropic(api_key="sk-ant-fake", base_url=fake.base_url, max_retries=0), fake, now


def test_prefixes_under_the_minimum_length_are_not_cached():
    with FakeAnthropic() as fake:  # the default minimum, 1024 tokens
        claude = anthropic.Anthropic(api_key="sk-ant-fake", base_url=fake.base_url, max_retries=0)
        short = {"model": MODEL, "max_tokens": 8, "messages": [user("too short to cache", EPHEMERAL)]}
        for _ in range(2):
            usage = claude.messages.create(**short).usage
            assert (usage.cache_creation_input_tokens, usage.cache_read_input_tokens) == (0, 0)
            assert usage.input_tokens == fake.count_tokens(short)
        long = {"model": MODEL, "max_tokens": 8, "messages": [user(LONG_SYSTEM, EPHEMERAL)]}
        assert fake.count_tokens(long) >= 1024
        assert claude.messages.create(**long).usage.cache_creation_input_tokens == fake.count_tokens(long)
        assert claude.messages.create(**long).usage.cache_read_input_tokens == fake.count_tokens(long)


def test_a_hit_is_found_at_most_20_blocks_before_a_breakpoint(fake_anthropic, claude):
    words = [f"block number {i} " * 5 for i in range(30)]

    def request(marked: int) -> dict:
        blocks = [
            {"type": "text", "text": w, **({"cache_control": EPHEMERAL} if i == marked else {})}
            for i, w in enumerate(words)
        ]
        return {"model": MODEL, "max_tokens": 8, "messages": [{"role": "user", "content": blocks}]}

    claude.messages.create(**request(0))  # caches the prefix ending at block 0
    first_block = fake_anthropic.count_tokens(
        {"messages": [{"role": "user", "content": [{"type": "text", "text": words[0]}]}]}
    )
    assert claude.messages.create(**request(21)).usage.cache_read_input_tokens == 0  # 21 blocks back: out of reach
    assert claude.messages.create(**request(20)).usage.cache_read_input_tokens == first_block


def test_a_different_model_does_not_share_the_cache(fake_anthropic, claude):
    messages = [user(LONG_SYSTEM, EPHEMERAL)]
    claude.messages.create(model=MODEL, max_tokens=8, messages=messages)
    assert (
        claude.messages.create(model="claude-opus-4-8", max_tokens=8, messages=messages).usage.cache_read_input_tokens
        == 0
    )


# ------------------------------------------------------------------------------------------------------------
# Anthropic: scripted replies, dropped connections, auth


def test_a_cut_stream_makes_the_sdk_raise(fake_anthropic, claude):
    fake_anthropic.script("this answer never finishes", cut_after_events=3)
    seen = []
    with pytest.raises(Exception, match="peer closed connection|incomplete"):
        for event in claude.messages.create(model=MODEL, max_tokens=64, messages=[user("go")], stream=True):
            seen.append(event.type)
    assert seen == ["message_start", "content_block_start"]  # the third event sent was the ping the SDK skips


def test_a_cut_non_streamed_reply_is_a_connection_error(fake_anthropic, claude):
    fake_anthropic.script("half a body", cut_after_events=0)
    with pytest.raises(anthropic.APIConnectionError):
        claude.messages.create(model=MODEL, max_tokens=8, messages=[user("go")])


def test_scripted_errors_use_the_provider_error_shape(fake_anthropic, claude):
    fake_anthropic.script(status=529, error="Overloaded")
    with pytest.raises(anthropic.APIStatusError) as caught:
        claude.messages.create(model=MODEL, max_tokens=8, messages=[user("go")])
    assert caught.value.status_code == 529
    assert caught.value.body == {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}


def test_a_mid_stream_error_event_makes_the_sdk_raise(fake_anthropic, claude):
    fake_anthropic.script("partial", error="Overloaded", cut_after_events=2)
    with pytest.raises(anthropic.APIStatusError, match="overloaded_error"):
        with claude.messages.stream(model=MODEL, max_tokens=8, messages=[user("go")]) as stream:
            stream.get_final_message()


def test_a_scripted_tool_use_and_its_answer(fake_anthropic, claude):
    fake_anthropic.script(tool_use={"name": "lookup", "input": {"word": "cache"}, "id": "toolu_fixed"})
    fake_anthropic.script("the word means a store")
    first = claude.messages.create(model=MODEL, max_tokens=64, messages=[user("define cache")])
    assert first.stop_reason == "tool_use"
    assert (first.content[0].type, first.content[0].name, first.content[0].input) == (
        "tool_use",
        "lookup",
        {"word": "cache"},
    )

    answer = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_fixed", "content": "a store"}]}
    messages = [user("define cache"), {"role": "assistant", "content": [b.model_dump() for b in first.content]}, answer]
    assert (
        claude.messages.create(model=MODEL, max_tokens=64, messages=messages).content[0].text
        == "the word means a store"
    )


def test_a_streamed_tool_use_arrives_as_input_json_deltas(fake_anthropic, claude):
    fake_anthropic.script("Let me look.", tool_use={"name": "lookup", "input": {"word": "a rather long word to split"}})
    with claude.messages.stream(model=MODEL, max_tokens=64, messages=[user("define")]) as stream:
        final = stream.get_final_message()
    assert [block.type for block in final.content] == ["text", "tool_use"]
    assert final.content[1].input == {"word": "a rather long word to split"}


def test_a_scripted_delay_holds_the_reply(fake_anthropic, claude):
    fake_anthropic.script("late", delay=0.3)
    started = time.monotonic()
    assert claude.messages.create(model=MODEL, max_tokens=8, messages=[user("go")]).content[0].text == "late"
    assert time.monotonic() - started >= 0.3


def test_a_wrong_or_missing_key_is_401_and_recorded(fake_anthropic):
    wrong = anthropic.Anthropic(api_key="sk-fake-openai", base_url=fake_anthropic.base_url, max_retries=0)
    with pytest.raises(anthropic.AuthenticationError) as caught:
        wrong.messages.create(model=MODEL, max_tokens=8, messages=[user("hi")])
    assert caught.value.body == {
        "type": "error",
        "error": {"type": "authentication_error", "message": "invalid x-api-key"},
    }

    status, _ = post_raw(
        fake_anthropic.base_url + "/v1/messages", {"model": MODEL}, {"anthropic-version": "2023-06-01"}
    )
    assert status == 401
    assert fake_anthropic.wrong_keys == [("/v1/messages", "sk-fake-openai"), ("/v1/messages", None)]
    assert fake_anthropic.usage_log == []


def test_the_model_list(claude):
    assert "claude-sonnet-4-6" in [model.id for model in claude.models.list()]


# ------------------------------------------------------------------------------------------------------------
# OpenAI: chat completions


def test_a_chat_completion_has_the_default_reply_and_usage(fake_openai, gpt):
    completion = gpt.chat.completions.create(
        model=GPT, messages=[{"role": "developer", "content": "be brief"}, {"role": "user", "content": "hi chat"}]
    )

    assert completion.choices[0].message.content == "ok: hi chat"
    assert completion.choices[0].finish_reason == "stop"
    usage = completion.usage
    assert usage.total_tokens == usage.prompt_tokens + usage.completion_tokens
    assert usage.prompt_tokens_details.cached_tokens == 0
    assert fake_openai.requests[-1]["headers"]["authorization"] == "Bearer sk-fake-openai"
    assert fake_openai.usage_log[-1]["prompt_tokens"] == usage.prompt_tokens


def test_a_chat_stream_is_chunks_then_done(fake_openai, gpt):
    fake_openai.script("a chat answer long enough for several chunks")
    chunks = list(
        gpt.chat.completions.create(
            model=GPT, messages=[{"role": "user", "content": "go"}], stream=True, stream_options={"include_usage": True}
        )
    )

    text = "".join(chunk.choices[0].delta.content or "" for chunk in chunks if chunk.choices)
    assert text == "a chat answer long enough for several chunks"
    assert chunks[-2].choices[0].finish_reason == "stop"
    assert chunks[-1].choices == [] and chunks[-1].usage.completion_tokens == text_tokens(text)

    status, raw = post_raw(
        fake_openai.base_url + "/v1/chat/completions",
        {"model": GPT, "messages": [{"role": "user", "content": "x"}], "stream": True},
        {"authorization": "Bearer sk-fake-openai"},
    )
    assert status == 200 and raw.rstrip().endswith("data: [DONE]")


TOOL_CALL = {"id": "call_1", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}

REJECTED_CHATS = [
    pytest.param(
        [{"role": "user", "content": "hi"}, {"role": "tool", "tool_call_id": "call_1", "content": "42"}],
        "messages with role 'tool' must be a response to a preceeding message with 'tool_calls'",
        id="tool-without-tool-calls",
    ),
    pytest.param(
        [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": None, "tool_calls": [TOOL_CALL]},
            {"role": "tool", "tool_call_id": "call_2", "content": "42"},
        ],
        "'tool_call_id' of 'call_2' not found in 'tool_calls' of previous message",
        id="tool-answering-another-call",
    ),
    pytest.param(
        [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": None, "tool_calls": [TOOL_CALL]},
            {"role": "user", "content": "never mind"},
        ],
        "must be followed by tool messages responding to each 'tool_call_id'",
        id="tool-call-never-answered",
    ),
    pytest.param([{"role": "robot", "content": "hi"}], "Invalid value: 'robot'", id="unknown-role"),
    pytest.param([], "Invalid 'messages': empty array", id="empty-messages"),
]


@pytest.mark.parametrize("messages, expected", REJECTED_CHATS)
def test_the_chat_fake_refuses_what_the_api_refuses(gpt, messages, expected):
    with pytest.raises(openai.BadRequestError) as caught:
        gpt.chat.completions.create(model=GPT, messages=messages)
    assert expected in caught.value.message
    assert caught.value.body["type"] == "invalid_request_error"


def test_a_chat_without_a_model_is_refused(gpt):
    with pytest.raises(openai.BadRequestError, match="you must provide a model parameter"):
        gpt.post(
            "/chat/completions",
            cast_to=openai.types.chat.ChatCompletion,
            body={"messages": [{"role": "user", "content": "x"}]},
        )


def test_a_scripted_tool_call_and_its_answer(fake_openai, gpt):
    fake_openai.script(tool_use={"name": "lookup", "input": {"word": "cache"}})
    first = gpt.chat.completions.create(model=GPT, messages=[{"role": "user", "content": "define cache"}])
    call = first.choices[0].message.tool_calls[0]
    assert first.choices[0].finish_reason == "tool_calls"
    assert (call.function.name, json.loads(call.function.arguments)) == ("lookup", {"word": "cache"})

    messages = [
        {"role": "user", "content": "define cache"},
        first.choices[0].message.model_dump(exclude_none=True),
        {"role": "tool", "tool_call_id": call.id, "content": "a store"},
    ]
    assert gpt.chat.completions.create(model=GPT, messages=messages).choices[0].message.content == "ok: define cache"


def test_a_cut_chat_stream_makes_the_sdk_raise(fake_openai, gpt):
    fake_openai.script("never completes", cut_after_events=2)
    seen = []
    with pytest.raises(openai.APIConnectionError):
        for chunk in gpt.chat.completions.create(model=GPT, messages=[{"role": "user", "content": "go"}], stream=True):
            seen.append(chunk)
    assert len(seen) == 2


# ------------------------------------------------------------------------------------------------------------
# OpenAI: responses


def test_responses_chain_through_previous_response_id(fake_openai, gpt):
    first = gpt.responses.create(model=GPT, instructions="be brief", input="remember the word teal")
    second = gpt.responses.create(
        model=GPT, input=[{"role": "user", "content": "what was the word?"}], previous_response_id=first.id
    )

    assert first.output_text == "ok: remember the word teal"
    assert second.output_text == "ok: what was the word?"
    # the second response is billed for the whole conversation it continues
    assert second.usage.input_tokens > first.usage.input_tokens - text_tokens("be brief")
    assert second.usage.total_tokens == second.usage.input_tokens + second.usage.output_tokens
    assert gpt.responses.retrieve(first.id).id == first.id


def test_an_unknown_or_unstored_previous_response_is_refused(gpt):
    with pytest.raises(openai.BadRequestError) as caught:
        gpt.responses.create(model=GPT, input="hi", previous_response_id="resp_nope")
    assert caught.value.code == "previous_response_not_found"
    assert "Previous response with id 'resp_nope' not found." in caught.value.message

    unstored = gpt.responses.create(model=GPT, input="forget me", store=False)
    with pytest.raises(openai.BadRequestError, match="not found"):
        gpt.responses.create(model=GPT, input="hi", previous_response_id=unstored.id)


def test_function_call_outputs_must_answer_a_known_call(fake_openai, gpt):
    fake_openai.script(tool_use={"name": "lookup", "input": {"q": "x"}, "id": "call_abc"})
    asked = gpt.responses.create(model=GPT, input="look it up")
    assert asked.output[0].type == "function_call" and asked.output[0].call_id == "call_abc"

    answered = gpt.responses.create(
        model=GPT,
        previous_response_id=asked.id,
        input=[{"type": "function_call_output", "call_id": "call_abc", "output": "42"}],
    )
    assert answered.status == "completed"
    with pytest.raises(
        openai.BadRequestError, match="No tool call found for function call output with call_id call_zzz"
    ):
        gpt.responses.create(model=GPT, input=[{"type": "function_call_output", "call_id": "call_zzz", "output": "42"}])


def test_a_responses_stream_emits_the_documented_events(fake_openai, gpt):
    fake_openai.script("a streamed response in a few pieces")
    events = list(gpt.responses.create(model=GPT, input="go", stream=True))

    types = [event.type for event in events]
    assert types[:4] == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
    ]
    assert types[-4:] == [
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.completed",
    ]
    assert set(types[4:-4]) == {"response.output_text.delta"}
    assert [event.sequence_number for event in events] == list(range(len(events)))
    assert (
        "".join(event.delta for event in events if event.type == "response.output_text.delta")
        == "a streamed response in a few pieces"
    )
    assert events[-1].response.output_text == "a streamed response in a few pieces"
    assert events[-1].response.usage.output_tokens == text_tokens("a streamed response in a few pieces")


def test_a_cut_responses_stream_never_completes(fake_openai, gpt):
    fake_openai.script("unfinished", cut_after_events=4)
    seen = []
    with pytest.raises(openai.APIConnectionError):
        for event in gpt.responses.create(model=GPT, input="go", stream=True):
            seen.append(event.type)
    assert len(seen) == 4 and "response.completed" not in seen


# ------------------------------------------------------------------------------------------------------------
# OpenAI: models, embeddings, auth


def test_models_and_embeddings(fake_openai, gpt):
    assert GPT in [model.id for model in gpt.models.list()]

    default = gpt.embeddings.create(model="text-embedding-3-small", input=["alpha", "beta"])  # the SDK asks for base64
    assert [item.index for item in default.data] == [0, 1]
    assert default.data[0].embedding == pytest.approx(fake_embedding("alpha"), abs=1e-6)
    assert fake_openai.requests[-1]["body"]["encoding_format"] == "base64"

    floats = gpt.embeddings.create(model="text-embedding-3-small", input="alpha", dimensions=4, encoding_format="float")
    assert floats.data[0].embedding == pytest.approx(fake_embedding("alpha", 4))
    assert floats.usage.prompt_tokens == text_tokens("alpha")


def test_fake_embeddings_decode_as_little_endian_float32():
    vector = fake_embedding("x", 3)
    encoded = base64.b64encode(struct.pack("<3f", *vector))
    assert list(struct.unpack("<3f", base64.b64decode(encoded))) == pytest.approx(vector)


def test_an_anthropic_key_never_gets_into_openai(fake_openai):
    wrong = openai.OpenAI(api_key="sk-ant-fake", base_url=fake_openai.base_url + "/v1", max_retries=0)
    with pytest.raises(openai.AuthenticationError) as caught:
        wrong.chat.completions.create(model=GPT, messages=[{"role": "user", "content": "hi"}])
    assert caught.value.code == "invalid_api_key"
    assert caught.value.body["type"] == "invalid_request_error"
    assert fake_openai.wrong_keys == [("/v1/chat/completions", "sk-ant-fake")]
    assert fake_openai.usage_log == []


def test_an_unknown_path_is_a_404_in_the_provider_shape(fake_openai, fake_anthropic):
    status, text = post_raw(fake_openai.base_url + "/v1/nope", {}, {"authorization": "Bearer sk-fake-openai"})
    assert (status, json.loads(text)["error"]["message"]) == (404, "Invalid URL (POST /v1/nope)")
    status, text = post_raw(fake_anthropic.base_url + "/v1/nope", {}, {"x-api-key": "sk-ant-fake"})
    assert (status, json.loads(text)["error"]["type"]) == (404, "not_found_error")


def test_a_mid_stream_error_reaches_the_openai_sdk(fake_openai, gpt):
    fake_openai.script("partial", error={"message": "The server had an error", "type": "server_error"})
    with pytest.raises(openai.APIError, match="The server had an error"):
        list(gpt.chat.completions.create(model=GPT, messages=[{"role": "user", "content": "go"}], stream=True))
    fake_openai.script("partial", error="The server had an error")  # the Responses stream reports it as an event
    events = list(gpt.responses.create(model=GPT, input="go", stream=True))
    assert [event.type for event in events] == ["response.created", "error"]
    assert (events[-1].message, events[-1].sequence_number) == ("The server had an error", 1)
