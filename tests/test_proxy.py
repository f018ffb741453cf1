"""The memory proxy, driven by the real anthropic and openai SDKs against a local fake upstream."""

from __future__ import annotations

import json
from contextlib import contextmanager

import anthropic
import httpx2
import openai
import pytest
from conftest import InNamespace, wait_for
from doors import start_proxy
from fake_anthropic import FakeAnthropic, chat_completion, chat_stream, message, message_stream

from agentmemd.daemon.proxy.app import MemoryLink, Placement, ProxySettings

pytestmark = pytest.mark.doors  # the tier (pyproject.toml)

KEY = "sk-ant-test-never-logged-4242"


@pytest.fixture
def world(in_namespace, short_tmp):
    with _world(in_namespace, short_tmp) as world:
        yield world


@pytest.fixture
def world_alone(spawn, short_tmp):
    """``world`` on a daemon of its own, for a test that stops it."""
    with _world(InNamespace(spawn(), "default"), short_tmp) as world:
        yield world


@contextmanager
def _world(d: InNamespace, short_tmp):
    d.call(
        "memory.add", {"content": "The user's favourite coffee is a flat white with oat milk.", "type": "preference"}
    )
    d.call(
        "memory.add",
        {"content": "I speak tersely and technically, like a peer engineer; never use emoji.", "type": "persona"},
    )
    token = d.token()
    with FakeAnthropic() as fake:
        proc, port = start_proxy(d.socket, fake.base_url, short_tmp / "proxy.log")
        try:
            yield d, fake, token, port, short_tmp / "proxy.log"
        finally:
            proc.terminate()
            proc.wait(timeout=30)


def _turns(d, session: str) -> int:
    try:
        return d.call("conversation.status", {"session": session})["turns"]
    except Exception:
        return 0


def test_anthropic_sdk_gets_persona_and_memories_and_its_turns_are_kept(world):
    d, fake, token, port, log = world
    client = anthropic.Anthropic(
        base_url=f"http://127.0.0.1:{port}/t/{token}",
        api_key=KEY,
        max_retries=0,
        default_headers={"x-agentmemd-session": "coffee-chat"},
    )
    app_system = [
        {"type": "text", "text": "You are the barista app's assistant."},
        {"type": "text", "text": "House rules: be brief.", "cache_control": {"type": "ephemeral"}},
    ]
    fake.replies.append(message("A flat white with oat milk, as usual."))
    reply = client.messages.create(
        model="claude-haiku-4-5",
        max_tokens=200,
        system=app_system,
        messages=[{"role": "user", "content": "What coffee should I order for me?"}],
        metadata={"user_id": "u-1"},  # an unknown-to-us field passes untouched
    )
    assert reply.content[0].text == "A flat white with oat milk, as usual."
    sent = fake.requests[-1]
    key = sent["headers"].get("x-api-key") or sent["headers"]["authorization"].removeprefix("Bearer ")
    assert key == KEY and "x-agentmemd-session" not in sent["headers"]  # the key passes; our headers do not
    body = sent["body"]
    assert body["system"][:2] == app_system  # the app's own blocks and breakpoint, unmoved
    ours = body["system"][2]
    assert ours["cache_control"] == {"type": "ephemeral"} and ours["text"].startswith("# Who you are")
    last = body["messages"][-1]["content"]
    assert "<memories>" in last[0]["text"] and "flat white" in last[0]["text"]
    assert last[1] == {"type": "text", "text": "What coffee should I order for me?"}
    assert body["metadata"] == {"user_id": "u-1"}
    wait_for(lambda: _turns(d, "coffee-chat") == 2, timeout=30)  # the user turn and the reply
    wait_for(lambda: d.call("persona.scores", {"session": "coffee-chat"})["scores"], timeout=60)  # scored

    # Streaming: bytes pass through as they come; the whole reply is recorded.
    fake.replies.append(message_stream("Noted: oat milk, no sugar."))
    with client.messages.stream(
        model="claude-haiku-4-5",
        max_tokens=200,
        system=app_system,
        messages=[
            {"role": "user", "content": "What coffee should I order for me?"},
            {"role": "assistant", "content": "A flat white with oat milk, as usual."},
            {"role": "user", "content": "And no sugar, remember that."},
        ],
    ) as stream:
        assert stream.get_final_text() == "Noted: oat milk, no sugar."
    wait_for(lambda: _turns(d, "coffee-chat") == 4, timeout=30)
    status = d.call("conversation.status", {"session": "coffee-chat"})
    assert status["turns"] == 4  # nothing appended twice
    assert KEY not in log.read_text() and KEY not in d.log()


def test_four_breakpoints_of_the_app_leave_ours_without_one_and_tools_pass_untouched(world):
    d, fake, token, port, _ = world
    client = anthropic.Anthropic(base_url=f"http://127.0.0.1:{port}/t/{token}", api_key=KEY, max_retries=0)
    eph = {"type": "ephemeral"}
    system = [{"type": "text", "text": f"part {i}", "cache_control": eph} for i in range(3)]
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "Weather in Lisbon?", "cache_control": eph}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "tu_1", "name": "weather", "input": {"city": "Lisbon"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu_1", "content": "21 C, sunny"}]},
    ]  # fmt: skip
    fake.replies.append(message("21 degrees and sunny."))
    client.messages.create(model="claude-haiku-4-5", max_tokens=100, system=system, messages=messages)
    body = fake.requests[-1]["body"]
    assert body["system"][:3] == system and "cache_control" not in body["system"][3]
    assert sum(json.dumps(body).count('"cache_control"') for _ in [0]) == 4
    assert body["messages"][:2] == messages[:2]
    last = body["messages"][2]["content"]
    assert last[0] == messages[2]["content"][0]  # a tool result stays first in its turn
    assert all(b["type"] == "text" for b in last[1:])


def test_openai_sdk_chat_completions_stream_and_not_and_other_endpoints_pass(world):
    d, fake, token, port, _ = world
    client = openai.OpenAI(base_url=f"http://127.0.0.1:{port}/t/{token}/v1", api_key=KEY, max_retries=0)
    fake.replies.append(chat_completion("Oat flat white."))
    out = client.chat.completions.create(
        model="gpt-test",
        messages=[
            {"role": "system", "content": "You are the barista app."},
            {"role": "user", "content": "My usual coffee?"},
        ],
        extra_headers={"x-agentmemd-session": "oa-1"},
    )
    assert out.choices[0].message.content == "Oat flat white."
    sent = fake.requests[-1]
    assert sent["path"] == "/v1/chat/completions" and sent["headers"]["authorization"] == f"Bearer {KEY}"
    roles = [m["role"] for m in sent["body"]["messages"]]
    assert roles == ["system", "system", "user"] and "flat white" in sent["body"]["messages"][2]["content"][0]["text"]
    fake.replies.append(chat_stream("Sure, oat again."))
    stream = client.chat.completions.create(
        model="gpt-test",
        stream=True,
        messages=[
            {"role": "user", "content": "My usual coffee?"},
            {"role": "assistant", "content": "Oat flat white."},
            {"role": "user", "content": "Again please."},
        ],
        extra_headers={"x-agentmemd-session": "oa-1"},
    )
    assert "".join(c.choices[0].delta.content or "" for c in stream if c.choices) == "Sure, oat again."
    wait_for(lambda: _turns(d, "oa-1") == 4, timeout=30)
    models = anthropic.Anthropic(base_url=f"http://127.0.0.1:{port}/t/{token}", api_key=KEY).models.list()
    assert [m.id for m in models.data] == ["claude-haiku-4-5"] and fake.requests[-1]["path"] == "/v1/models"


def test_a_missing_or_wrong_token_is_refused_and_a_down_daemon_passes_the_request_through(world_alone):
    d, fake, token, port, _ = world_alone
    for base in (f"http://127.0.0.1:{port}", f"http://127.0.0.1:{port}/t/amt_wrong"):
        with pytest.raises(anthropic.AuthenticationError) as refused:
            anthropic.Anthropic(base_url=base, api_key=KEY, max_retries=0).messages.create(
                model="m", max_tokens=10, messages=[{"role": "user", "content": "hi"}]
            )
        assert "this connection" not in str(refused.value)  # said of the socket's, not of a request
    assert not fake.requests  # nothing went upstream without a token
    d.daemon.terminate()  # the daemon goes down under the proxy
    fake.replies.append(message("Plain answer."))
    request = {"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}]}
    reply = anthropic.Anthropic(
        base_url=f"http://127.0.0.1:{port}/t/{token}", api_key=KEY, max_retries=0
    ).messages.create(**request)
    assert reply.content[0].text == "Plain answer."
    assert fake.requests[-1]["body"] == request  # unchanged


def test_compact_mode_sends_fewer_tokens_than_the_apps_history(spawn, short_tmp):
    d = spawn()
    token = d.call("access.tokens.create", {"name": "app", "namespaces": ["default"]})["secret"]
    history = []
    for i in range(30):
        history.append(
            {"role": "user", "content": f"Turn {i}: I went hiking near Sintra and saw {i} hawks over the cliffs."}
        )
        history.append({"role": "assistant", "content": f"Noted turn {i}: {i} hawks near Sintra, a good day out."})
    history.append({"role": "user", "content": "How many hawks did I see on turn 3?"})
    sizes = {}
    with FakeAnthropic() as fake:
        for mode in ("augment", "compact"):
            proc, port = start_proxy(
                d.socket, fake.base_url, short_tmp / f"{mode}.log", "--mode", mode, "--budget", "600"
            )
            try:
                client = anthropic.Anthropic(base_url=f"http://127.0.0.1:{port}/t/{token}", api_key=KEY, max_retries=0)
                session = {"x-agentmemd-session": f"hawks-{mode}"}
                fake.replies.append(message("Three."))
                client.messages.create(model="m", max_tokens=10, messages=history, extra_headers=session)
                if mode == "compact":
                    # Nothing covers the older turns yet: they all go upstream, and the Observer is
                    # asked to cover them; once it has, the next call leaves them out.
                    assert len(fake.requests[-1]["body"]["messages"]) == len(history)
                    # (Up to 300 s: the Observer's pace is the machine's, not what this tests.)
                    wait_for(lambda: d.call("conversation.status", {"session": "hawks-compact"})["observed"] >= 50, 300)
                    fake.replies.append(message("Three."))
                    client.messages.create(model="m", max_tokens=10, messages=history, extra_headers=session)
                sizes[mode] = fake.requests[-1]["body"]["messages"]
            finally:
                proc.terminate()
                proc.wait(timeout=30)
    assert len(sizes["augment"]) == len(history)
    assert 1 <= len(sizes["compact"]) < len(history) / 2
    last = sizes["compact"][-1]["content"]
    assert sizes["compact"][0]["role"] == "user"
    assert (last if isinstance(last, str) else last[-1]["text"]) == history[-1]["content"]
    assert len(json.dumps(sizes["compact"])) < len(json.dumps(history)) / 2


def test_a_reply_is_recorded_once_even_when_the_next_request_comes_at_once_on_a_new_connection(world):
    """The next request carries the reply in its history; it must not find the reply missing and
    append it again (each request here goes on a fresh connection, right after the last reply)."""
    d, fake, token, port, _ = world
    history: list[dict] = []
    headers = {"x-api-key": KEY, "anthropic-version": "2023-06-01", "x-agentmemd-session": "quick"}
    for i in range(12):
        history.append({"role": "user", "content": f"Question {i} about coffee?"})
        fake.replies.append(message(f"Answer {i}."))
        body = {"model": "m", "max_tokens": 10, "messages": history}
        reply = httpx2.post(f"http://127.0.0.1:{port}/t/{token}/v1/messages", json=body, headers=headers, timeout=60)
        history.append({"role": "assistant", "content": reply.json()["content"][0]["text"]})
    # The last reply is recorded beside the app (it never waits for it): once there, each turn is there once.
    wait_for(lambda: _turns(d, "quick") >= len(history))
    turns = d.call("conversation.turns", {"session": "quick", "limit": 100})["turns"]
    assert [t["content"] for t in turns] == [m["content"] for m in history]
    assert d.call("conversation.list", {})["total"] == 1


def test_a_history_over_the_daemons_line_limit_is_stored_whole_in_steps_and_matched_by_digest(spawn):
    d = spawn()
    token = d.call("access.tokens.create", {"name": "link", "namespaces": ["default"]})["secret"]
    # Twelve turns of 90,000 characters: over the daemon's 1 MiB line, so they go in several requests.
    history = [("user" if i % 2 == 0 else "assistant", f"turn {i} " + "tea " * 22_400) for i in range(12)]

    def place(turns):
        return lambda scope: Placement("long-chat", "default", turns)

    link = MemoryLink(ProxySettings(socket_path=d.socket, memory_timeout=30))
    link.prepare(token, place(history))
    assert _turns(d, "long-chat") == 12
    fresh_proxy = MemoryLink(ProxySettings(socket_path=d.socket, memory_timeout=30))  # stores none twice
    fresh_proxy.prepare(token, place(history + [("user", "and one more")]))
    assert _turns(d, "long-chat") == 13
    link.prepare(token, place(history + [("user", "and one more"), ("assistant", "sure"), ("user", "thanks")]))
    assert _turns(d, "long-chat") == 15
