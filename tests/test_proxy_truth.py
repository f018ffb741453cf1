"""The proxy stores only what happened, driven by the real anthropic and openai SDKs through a real
proxy process to the upstream fakes (daemon/bench/fake_upstream.py, written from the APIs' docs):
a reply the app hung up on is not stored, one choice of an `n` > 1 reply is, a message mixing tool
results and text keeps both, tool calls keep their arguments, a namespace the token may not use is
refused before anything goes upstream, and an app can keep a call out of memory."""

from __future__ import annotations

import json
import socket

import anthropic
import httpx2
import openai
import pytest
from conftest import wait_for
from doors import start_proxy

from agentmemd.daemon.bench.fake_upstream import FakeAnthropic, FakeOpenAI

pytestmark = pytest.mark.doors  # the tier (pyproject.toml)

ANTHROPIC_KEY, OPENAI_KEY = "sk-ant-truth", "sk-openai-truth"
MODEL = "claude-haiku-4-5"


@pytest.fixture
def world(in_namespace, short_tmp):
    d = in_namespace
    d.call("memory.add", {"content": "The user's dog is called Biscuit.", "type": "fact"})
    token = d.token()
    with FakeAnthropic(api_key=ANTHROPIC_KEY, min_cache_tokens=0) as claude, FakeOpenAI(api_key=OPENAI_KEY) as gpt:
        log = short_tmp / "proxy.log"
        proc, port = start_proxy(d.socket, claude.base_url, log, openai_upstream=gpt.base_url)
        base = f"http://127.0.0.1:{port}/t/{token}"
        try:
            yield World(d, claude, gpt, base, log)
        finally:
            proc.terminate()
            proc.wait(timeout=30)


class World:
    def __init__(self, d, claude, gpt, base, log):
        self.d, self.claude, self.gpt, self.base, self.log = d, claude, gpt, base, log

    def anthropic(self, **options) -> anthropic.Anthropic:
        return anthropic.Anthropic(base_url=self.base, api_key=ANTHROPIC_KEY, max_retries=0, **options)

    def openai(self, **options) -> openai.OpenAI:
        return openai.OpenAI(base_url=f"{self.base}/v1", api_key=OPENAI_KEY, max_retries=0, **options)

    def transcript(self, session: str) -> list[tuple[str, str]]:
        turns = self.d.call("conversation.turns", {"session": session, "limit": 1000})["turns"]
        return [(t["role"], t["content"]) for t in turns]

    def sessions(self) -> list[str]:
        return [s["session"] for s in self.d.call("conversation.list", {"limit": 100})["sessions"]]

    def every_turn(self) -> list[tuple[str, str]]:
        return [turn for s in self.sessions() for turn in self.transcript(s)]


# ---- a reply the app never received ------------------------------------------------------------------


def test_a_reply_the_app_hung_up_on_is_not_stored_and_its_resend_is_one_conversation(world):
    world.claude.script("The slow answer nobody waited for.", delay=30)
    question = [{"role": "user", "content": "Which train should I take to Girona?"}]
    # The app sends its call and gives up while the upstream is still answering (its own timeout, a
    # person pressing stop): its connection closes, at a moment the test chooses, not the machine's speed.
    body = json.dumps({"model": MODEL, "max_tokens": 100, "messages": question}).encode()
    url = httpx2.URL(world.base)
    head = (
        f"POST {url.raw_path.decode()}/v1/messages HTTP/1.1\r\nHost: {url.host}:{url.port}\r\n"
        f"x-api-key: {ANTHROPIC_KEY}\r\nanthropic-version: 2023-06-01\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\n\r\n"
    )
    with socket.create_connection((url.host, url.port)) as app:
        app.sendall(head.encode() + body)
        assert wait_for(lambda: len(world.claude.requests) == 1)  # the call is with the upstream
    assert wait_for(lambda: "hung up" in world.log.read_text())
    world.claude.script("The 9:15 from Sants.")
    answer = world.anthropic().messages.create(model=MODEL, max_tokens=100, messages=question)
    assert answer.content[0].text == "The 9:15 from Sants."
    expected = [("user", question[0]["content"]), ("assistant", "The 9:15 from Sants.")]
    assert wait_for(lambda: world.every_turn() == expected)
    assert len(world.sessions()) == 1  # the abandoned reply is stored nowhere, no branch made


# ---- n > 1 -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("taken", [0, 1])
def test_a_streamed_reply_with_two_choices_stores_the_one_the_app_continues_with(world, taken):
    client = world.openai()
    world.gpt.script("Try the lentil curry tonight.", others=("Try the mushroom risotto tonight.",))
    first = [{"role": "user", "content": "What should I cook for dinner?"}]
    texts = ["", ""]
    for chunk in client.chat.completions.create(model="gpt-4o-mini", messages=first, n=2, stream=True):
        for choice in chunk.choices:
            texts[choice.index] += choice.delta.content or ""
    assert texts == ["Try the lentil curry tonight.", "Try the mushroom risotto tonight."]
    # Stored: one choice (the first), never the two run together.
    assert wait_for(lambda: world.every_turn() == [("user", first[0]["content"]), ("assistant", texts[0])])
    world.gpt.script("About forty minutes.")
    history = [*first, {"role": "assistant", "content": texts[taken]}, {"role": "user", "content": "How long?"}]
    client.chat.completions.create(model="gpt-4o-mini", messages=history)
    expected = [(m["role"], m["content"]) for m in history] + [("assistant", "About forty minutes.")]
    assert wait_for(lambda: world.every_turn() == expected)  # one conversation, the app's own, no fork
    assert len(world.sessions()) == 1


def test_a_whole_reply_with_two_choices_stores_the_first(world):
    world.gpt.script("Call her tonight.", others=("Write her a card.",))
    question = [{"role": "user", "content": "How do I wish Mia a happy birthday?"}]
    reply = world.openai().chat.completions.create(model="gpt-4o-mini", messages=question, n=2)
    assert [c.message.content for c in reply.choices] == ["Call her tonight.", "Write her a card."]
    assert wait_for(
        lambda: world.every_turn() == [("user", question[0]["content"]), ("assistant", "Call her tonight.")]
    )


# ---- tools ---------------------------------------------------------------------------------------------


def test_tool_results_and_text_in_one_message_are_a_tool_turn_and_a_user_turn(world):
    call = {"type": "tool_use", "id": "toolu_7", "name": "calendar", "input": {"day": "Friday"}}
    result = {"type": "tool_result", "tool_use_id": "toolu_7", "content": "Friday: dentist at 10:00, free after 12."}
    history = [
        {"role": "user", "content": "Am I free on Friday?"},
        {"role": "assistant", "content": [call]},
        {"role": "user", "content": [result, {"type": "text", "text": "Book lunch with Ana if I am."}]},
    ]
    world.claude.script("You are free after 12; lunch with Ana at 13:00?")
    world.anthropic().messages.create(
        model=MODEL, max_tokens=100, messages=history, extra_headers={"x-agentmemd-session": "cal"}
    )
    expected = [
        ("user", "Am I free on Friday?"),
        ("assistant", '[tool call calendar: {"day": "Friday"}]'),
        ("tool", "Friday: dentist at 10:00, free after 12."),
        ("user", "Book lunch with Ana if I am."),
        ("assistant", "You are free after 12; lunch with Ana at 13:00?"),
    ]
    assert wait_for(lambda: world.transcript("cal") == expected)


@pytest.mark.parametrize("stream", [False, True])
def test_openai_tool_calls_keep_their_arguments(world, stream):
    client = world.openai()
    arguments = json.dumps({"city": "Leeds", "unit": "celsius"})
    world.gpt.script(tool_use={"name": "get_weather", "arguments": arguments, "id": "call_1"})
    question = [{"role": "user", "content": "Weather in Leeds?"}]
    headers = {"x-agentmemd-session": f"tools-{stream}"}
    if stream:
        for _ in client.chat.completions.create(
            model="gpt-4o-mini", messages=question, stream=True, extra_headers=headers
        ):
            pass
    else:
        client.chat.completions.create(model="gpt-4o-mini", messages=question, extra_headers=headers)
    said = f"[tool call get_weather: {arguments}]"
    assert wait_for(lambda: world.transcript(f"tools-{stream}") == [("user", "Weather in Leeds?"), ("assistant", said)])
    # The app's next request carries the call back: the same turn, so no fork.
    call = {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": arguments}}
    history = [
        *question,
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_1", "content": "9°C, drizzle"},
    ]
    world.gpt.script("9°C and drizzle in Leeds.")
    client.chat.completions.create(model="gpt-4o-mini", messages=history, extra_headers=headers)
    expected = [("user", "Weather in Leeds?"), ("assistant", said), ("tool", "9°C, drizzle")]
    assert wait_for(
        lambda: world.transcript(f"tools-{stream}") == [*expected, ("assistant", "9°C and drizzle in Leeds.")]
    )
    assert len(world.sessions()) == 1


# ---- a namespace the token may not use ---------------------------------------------------------------


def test_a_namespace_the_token_may_not_use_is_refused_and_nothing_goes_upstream(world):
    headers = {"x-agentmemd-namespace": "work"}
    question = [{"role": "user", "content": "Summarise the board meeting"}]
    with pytest.raises(anthropic.PermissionDeniedError, match="may not use namespace 'work'"):
        world.anthropic().messages.create(model=MODEL, max_tokens=100, messages=question, extra_headers=headers)
    with pytest.raises(anthropic.PermissionDeniedError):
        world.anthropic().messages.count_tokens(model=MODEL, messages=question, extra_headers=headers)
    with pytest.raises(openai.PermissionDeniedError, match="may not use namespace 'work'"):
        world.openai().chat.completions.create(model="gpt-4o-mini", messages=question, extra_headers=headers)
    with pytest.raises(openai.PermissionDeniedError):
        world.openai().responses.create(model="gpt-5", input="Summarise the board meeting", extra_headers=headers)
    assert world.claude.requests == [] and world.gpt.requests == []
    assert world.every_turn() == []


def test_a_token_that_hears_one_chat_is_refused_by_the_proxy_and_nothing_goes_upstream(world):
    """Its conversations would be stored as the user's own: the proxy let it through without memory
    (a warning in its log) instead of the 403 a refused token gets."""
    message = {"sender": "Leo", "ts": "2026-03-12T21:14:00", "text": "hi dad", "line": 1}
    leo = world.d.call(
        "channels.ingest",
        {"channel": "telegram", "chat_id": "telegram:1002", "kind": "private", "tz": "UTC", "messages": [message]},
    )
    secret = world.d.call(
        "access.tokens.create",
        {"name": f"leo-app-{world.d.namespace}", "namespaces": [world.d.namespace], "hears": leo["audience"]},
    )["secret"]
    base = world.base.rsplit("/t/", 1)[0] + f"/t/{secret}"
    question = [{"role": "user", "content": "What is my dog called?"}]
    client = anthropic.Anthropic(base_url=base, api_key=ANTHROPIC_KEY, max_retries=0)
    with pytest.raises(anthropic.PermissionDeniedError, match="hears only 'private:telegram:1002'"):
        client.messages.create(model=MODEL, max_tokens=100, messages=question)
    with pytest.raises(anthropic.PermissionDeniedError):
        client.messages.count_tokens(model=MODEL, messages=question)
    gpt = openai.OpenAI(base_url=f"{base}/v1", api_key=OPENAI_KEY, max_retries=0)
    with pytest.raises(openai.PermissionDeniedError, match="hears only"):
        gpt.chat.completions.create(model="gpt-4o-mini", messages=question)
    assert world.claude.requests == [] and world.gpt.requests == []
    assert [s for s in world.sessions() if not s.startswith("telegram:")] == []  # none but Leo's chat


def test_a_host_that_is_not_loopback_is_refused_and_nothing_goes_upstream(world):
    """A page a DNS rebinding serves from another name reaches a loopback port too: the proxy
    answered it (the dashboard and the MCP door refuse such a Host)."""
    port = world.base.split("://", 1)[1].split("/", 1)[0].rsplit(":", 1)[1]
    path = world.base.split(f":{port}", 1)[1]
    body = {"model": MODEL, "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}]}
    headers = {"x-api-key": ANTHROPIC_KEY, "anthropic-version": "2023-06-01"}
    rebound = httpx2.post(
        f"http://127.0.0.1:{port}{path}/v1/messages", json=body, headers={**headers, "host": f"evil.example:{port}"}
    )
    assert rebound.status_code == 400 and world.claude.requests == []
    for name in ("localhost", "127.0.0.1"):  # loopback, by any of its names
        world.claude.script("Hi.")
        client = anthropic.Anthropic(base_url=f"http://{name}:{port}{path}", api_key=ANTHROPIC_KEY, max_retries=0)
        assert client.messages.create(**body).content[0].text == "Hi."


# ---- a call kept out of memory -----------------------------------------------------------------------


def test_a_call_kept_out_of_memory_gets_the_pack_and_stores_nothing(world):
    packs_before = world.d.call("packs.list", {})["total"]
    world.claude.script("Biscuit.")
    question = [{"role": "user", "content": "What is my dog called? (incognito)"}]
    reply = world.anthropic().messages.create(
        model=MODEL, max_tokens=100, messages=question, extra_headers={"x-agentmemd-store": "false"}
    )
    assert reply.content[0].text == "Biscuit."
    assert "Biscuit" in json.dumps(world.claude.requests[-1]["body"])  # the Memory Pack still went up
    world.gpt.script("Biscuit, still.")
    world.openai().responses.create(model="gpt-5", input="What is my dog called? (no store)", store=False)
    assert "Biscuit" in json.dumps(world.gpt.requests[-1]["body"]["input"])
    assert world.gpt.requests[-1]["body"]["store"] is False
    # A stored call afterwards is the only thing kept: its turns settle, the kept-out ones never do.
    world.claude.script("Noted.")
    world.anthropic().messages.create(
        model=MODEL, max_tokens=100, messages=[{"role": "user", "content": "Remember: walk Biscuit at 7"}]
    )
    assert wait_for(lambda: len(world.every_turn()) == 2)
    assert "incognito" not in str(world.every_turn()) and "no store" not in str(world.every_turn())
    searched = world.d.call("conversation.search", {"query": "incognito no store dog called"})["turns"]
    assert all("incognito" not in t["content"] and "no store" not in t["content"] for t in searched)
    packs = world.d.call("packs.list", {"limit": 100})
    assert packs["total"] == packs_before + 1  # the stored call's pack only
    assert "incognito" not in json.dumps(packs) and "no store" not in json.dumps(packs)


def test_an_unknown_store_header_is_a_clear_400_and_nothing_goes_upstream(world):
    headers = {"x-agentmemd-store": "maybe"}
    with pytest.raises(anthropic.BadRequestError, match="x-agentmemd-store must be true or false"):
        world.anthropic().messages.create(
            model=MODEL, max_tokens=100, messages=[{"role": "user", "content": "hi"}], extra_headers=headers
        )
    assert world.claude.requests == []


def test_a_call_kept_out_of_memory_hears_only_what_the_users_conversations_may(world):
    world.d.call("memory.add", {"content": "Ana's surprise party is on Friday at the boathouse.", "type": "fact",
                                "audience": "private:whatsapp:ana"})  # fmt: skip
    world.claude.script("Nothing planned that I know of.")
    world.anthropic().messages.create(
        model=MODEL,
        max_tokens=100,
        messages=[{"role": "user", "content": "What is happening on Friday at the boathouse?"}],
        extra_headers={"x-agentmemd-store": "false"},
    )
    assert "surprise party" not in json.dumps(world.claude.requests[-1]["body"])


def test_a_prefilled_reply_is_one_turn_and_the_next_request_continues_the_conversation(world):
    """Found with the real SDK: a prefill ('{"city":') and the model's continuation were stored as
    two assistant turns; the app's next history holds them as one message, so every prefilled
    call branched the conversation."""
    client = world.anthropic()
    question = {"role": "user", "content": "Where does my sister live? Answer as JSON."}
    world.claude.script(' "Lisbon"}')
    first = client.messages.create(model="claude-haiku-4-5", max_tokens=50, messages=[question, {"role": "assistant", "content": '{"city":'}])  # fmt: skip
    said = '{"city":' + first.content[0].text
    assert wait_for(lambda: world.every_turn() == [("user", question["content"]), ("assistant", said)]), (
        world.every_turn()
    )
    world.claude.script("Porto, before that.")
    follow = {"role": "user", "content": "And before that?"}
    client.messages.create(model="claude-haiku-4-5", max_tokens=50, messages=[question, {"role": "assistant", "content": said}, follow])  # fmt: skip
    assert wait_for(lambda: len(world.every_turn()) == 4)
    assert len(world.sessions()) == 1 and world.every_turn() == [
        ("user", question["content"]), ("assistant", said), ("user", follow["content"]), ("assistant", "Porto, before that."),
    ]  # fmt: skip
