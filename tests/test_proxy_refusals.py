"""What the proxy must not change, found by a user with the real SDKs' shapes: a request the
upstream would refuse is refused by the upstream, as sent, and leaves no turn behind; a header the
daemon would refuse is the proxy's 400, before anything goes upstream; an empty token in the path
is a 401; the app gets each response header once. A real daemon, `agentmemd proxy` and a fake
upstream."""

from __future__ import annotations

import httpx
import pytest
from doors import start_proxy
from fake_anthropic import FakeAnthropic, chat_completion, error, message

pytestmark = pytest.mark.doors  # the tier (pyproject.toml)

HEADERS = {"x-api-key": "sk-ant-test", "anthropic-version": "2023-06-01"}


@pytest.fixture
def proxied(in_namespace, short_tmp):
    token = in_namespace.token(name="refusals")
    with FakeAnthropic() as fake:
        proc, port = start_proxy(in_namespace.socket, fake.base_url, short_tmp / "proxy.log")
        try:
            yield in_namespace, fake, f"http://127.0.0.1:{port}", token
        finally:
            proc.terminate()
            proc.wait(timeout=30)


def _stored(d, words: str) -> list[str]:
    return [
        t["content"]
        for s in d.call("conversation.list", {})["sessions"]
        for t in d.call("conversation.turns", {"session": s["session"], "limit": 100})["turns"]
        if words in t["content"]
    ]


def test_a_chat_completion_without_messages_goes_upstream_as_sent(proxied):
    """With `messages` empty or missing the proxy added its own system message, and the upstream
    answered 200 to a request it refuses."""
    d, fake, base, token = proxied
    for body in ({"model": "g", "messages": []}, {"model": "g"}):
        fake.replies.append(error(400, "invalid_request_error"))
        sent = httpx.post(f"{base}/t/{token}/v1/chat/completions", json=body, headers={"authorization": "Bearer k"})
        assert sent.status_code == 400 and fake.requests[-1]["body"] == body


def test_a_refused_call_whose_memory_step_failed_leaves_no_turn(proxied):
    """`system: 5` broke the memory step after its turn was stored pending; the upstream's 400
    went back and the turn stayed, pending for good."""
    d, fake, base, token = proxied
    fake.replies.append(error(400, "invalid_request_error"))
    body = {"model": "claude-x", "max_tokens": 5, "system": 5, "messages": [{"role": "user", "content": "BADSYS-42 x"}]}
    sent = httpx.post(f"{base}/t/{token}/v1/messages", json=body, headers=HEADERS)
    assert sent.status_code == 400 and fake.requests[-1]["body"] == body  # as sent: no memory could be added
    assert _stored(d, "BADSYS-42") == []
    fake.replies.append(message("Noted."))
    body["system"] = "Be brief."
    assert httpx.post(f"{base}/t/{token}/v1/messages", json=body, headers=HEADERS).status_code == 200
    assert _stored(d, "BADSYS-42") == ["BADSYS-42 x"]  # the corrected resend is the turn that stays


@pytest.mark.parametrize(
    ("header", "value"),
    [("x-agentmemd-session", "a|beta"), ("x-agentmemd-session", "s" * 5000), ("x-agentmemd-namespace", "../../x")],
)
def test_a_header_the_daemon_would_refuse_is_a_400_before_anything_goes_upstream(proxied, header, value):
    """It went upstream without memory (200), the refusal only in the proxy's log."""
    d, fake, base, token = proxied
    asked = len(fake.requests)
    body = {"model": "claude-x", "max_tokens": 5, "messages": [{"role": "user", "content": "hello"}]}
    sent = httpx.post(f"{base}/t/{token}/v1/messages", json=body, headers={**HEADERS, header: value})
    assert sent.status_code == 400 and header in sent.json()["error"]["message"], sent.text
    assert len(fake.requests) == asked


def test_an_empty_token_in_the_path_is_a_401_and_each_header_comes_once(proxied):
    d, fake, base, token = proxied
    asked = len(fake.requests)
    body = {"model": "claude-x", "max_tokens": 5, "messages": [{"role": "user", "content": "hello"}]}
    assert httpx.post(f"{base}/t//v1/messages", json=body, headers=HEADERS).status_code == 401
    assert len(fake.requests) == asked  # it went upstream, with the app's key, as /t//v1/messages
    fake.replies.append(chat_completion("Hi."))
    sent = httpx.post(f"{base}/t/{token}/v1/chat/completions", json={"model": "g", "messages": [
        {"role": "user", "content": "hello"}]}, headers={"authorization": "Bearer k"})  # fmt: skip
    assert sent.status_code == 200
    assert [len(sent.headers.get_list(name)) for name in ("date", "server")] == [1, 1], sent.headers


def test_a_call_no_upstream_answered_leaves_no_turn(in_namespace, short_tmp):
    """Found with the real SDKs: with the upstream unreachable (the proxy's own 502), the user's
    turn stayed pending in a conversation no model ever answered."""
    from conftest import free_port

    token = in_namespace.token(name="unreachable")
    nowhere = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    proc, port = start_proxy(in_namespace.socket, nowhere, short_tmp / "proxy.log")
    try:
        body = {"model": "claude-x", "max_tokens": 5, "messages": [{"role": "user", "content": "NOWHERE-77 hello"}]}
        sent = httpx.post(f"http://127.0.0.1:{port}/t/{token}/v1/messages", json=body, headers=HEADERS, timeout=60)
        assert sent.status_code == 502
        assert _stored(in_namespace, "NOWHERE-77") == []
    finally:
        proc.terminate()
        proc.wait(timeout=30)
