"""What a proxied call asks of the daemon, counted on the socket between them (a tap that passes
every line through): the real anthropic SDK through `agentmemd proxy` in front of a real daemon
and a fake upstream. One `conversation.prepare` before the upstream call and one
`conversation.confirm` after it, on a connection kept open and authenticated once; the reply is
stored without the history being sent again; a token revoked meanwhile is refused at once."""

from __future__ import annotations

from contextlib import contextmanager

import anthropic
import pytest
from conftest import wait_for
from doors import start_proxy
from fake_anthropic import FakeAnthropic, Reply, message

from agentmemd.daemon.bench.socket_tap import SocketTap
from agentmemd.memory.core.tokens import count_tokens

pytestmark = pytest.mark.doors  # the tier (pyproject.toml)

KEY = "sk-ant-test-round-trips"
LONG = ("Here is everything about my move, in detail: " + "boxes, keys, the van, the new flat. " * 60).strip()


@contextmanager
def _tapped(d, token: str, short_tmp):
    d.call(
        "memory.add", {"content": "The user's favourite coffee is a flat white with oat milk.", "type": "preference"}
    )
    with FakeAnthropic() as fake, SocketTap(short_tmp / "tap.sock", d.socket) as tap:
        proc, port = start_proxy(tap.path, fake.base_url, short_tmp / "proxy.log")
        client = anthropic.Anthropic(
            base_url=f"http://127.0.0.1:{port}/t/{token}",
            api_key=KEY,
            max_retries=0,
            default_headers={"x-agentmemd-session": "move"},
        )
        try:
            yield d, fake, tap, client
        finally:
            proc.terminate()
            proc.wait(timeout=30)


@pytest.fixture
def tapped(in_namespace, short_tmp):
    """The module's daemon, seen from a namespace of the test's own, behind a tap and a proxy."""
    with _tapped(in_namespace, in_namespace.token(name="app"), short_tmp) as parts:
        yield parts


@pytest.fixture
def tapped_alone(spawn, short_tmp):
    """A daemon of the test's own (it is restarted), behind a tap and a proxy."""
    d = spawn()
    token = d.call("access.tokens.create", {"name": "app", "namespaces": ["default"]})["secret"]
    with _tapped(d, token, short_tmp) as parts:
        yield parts


def _ask(fake, client, history: list[dict], answer: str) -> list[dict]:
    fake.replies.append(message(answer))
    reply = client.messages.create(model="claude-haiku-4-5", max_tokens=100, messages=history)
    assert reply.content[0].text == answer
    return [*history, {"role": "assistant", "content": answer}]


def test_a_proxied_call_is_two_daemon_calls_on_a_kept_connection_and_the_history_is_not_sent_back(tapped):
    d, fake, tap, client = tapped
    history: list[dict] = [{"role": "user", "content": LONG}]
    for n, (question, answer) in enumerate(
        [(None, "Noted."), ("What coffee do I like?", "A flat white with oat milk."), ("And tea?", "No tea noted.")]
    ):
        if question:
            history.append({"role": "user", "content": question})
        before = len(tap.requests)
        history = _ask(fake, client, history, answer)
        # The confirm runs beside the app: the next call goes once it is in.
        wait_for(lambda b=before: "conversation.confirm" in tap.methods()[b:], timeout=60)
        asked = [m for m in tap.methods()[before:] if m != "auth"]
        assert asked == ["conversation.prepare", "conversation.confirm"], (n, tap.requests[before:])
    assert tap.methods().count("auth") <= 2  # once a connection: the prepare's and the confirm's, then kept
    confirms = [size for _, method, size in tap.requests if method == "conversation.confirm"]
    assert max(confirms) < 600 < len(LONG)  # the reply alone, not the history again
    wait_for(lambda: d.call("conversation.status", {"session": "move"})["turns"] >= len(history), timeout=60)
    turns = d.call("conversation.turns", {"session": "move"})["turns"]
    assert [t["content"] for t in turns] == [m["content"] for m in history]  # each once, in order
    assert "flat white" in fake.requests[1]["body"]["messages"][-1]["content"][0]["text"]  # memory was added


def test_a_regenerated_reply_goes_in_a_branch_from_the_kept_history(tapped):
    d, fake, tap, client = tapped
    first = _ask(fake, client, [{"role": "user", "content": "Name a colour."}], "Blue.")
    wait_for(lambda: d.call("conversation.status", {"session": "move"})["turns"] == 2, timeout=60)
    _ask(fake, client, first[:1], "Green.")  # the app regenerates: the same history, another reply
    wait_for(lambda: tap.methods().count("conversation.confirm") == 2, timeout=60)
    branch = "move@2"  # the daemon's name for the first branch of "move"
    wait_for(lambda: branch in [s["session"] for s in d.call("conversation.list", {})["sessions"]], timeout=60)
    wait_for(lambda: d.call("conversation.status", {"session": branch})["turns"] == 1, timeout=60)  # its own: the reply
    assert [t["content"] for t in d.call("conversation.turns", {"session": branch})["turns"]] == [
        "Name a colour.",
        "Green.",
    ]
    assert [t["content"] for t in d.call("conversation.turns", {"session": "move"})["turns"]] == [
        "Name a colour.",
        "Blue.",
    ]


def test_a_token_revoked_after_its_connection_was_kept_is_refused_at_once(tapped):
    d, fake, tap, client = tapped
    _ask(fake, client, [{"role": "user", "content": "Hello there."}], "Hi.")
    wait_for(lambda: "conversation.confirm" in tap.methods(), timeout=60)
    d.call("access.tokens.revoke", {"name": f"app-{d.namespace}"})
    calls = len(fake.requests)
    with pytest.raises(anthropic.AuthenticationError):
        client.messages.create(model="claude-haiku-4-5", max_tokens=100, messages=[{"role": "user", "content": "Hi?"}])
    assert len(fake.requests) == calls  # refused by the proxy, not passed upstream without memory


def test_count_tokens_counts_the_context_the_daemon_would_build_with_its_own_budget(spawn, short_tmp):
    """A daemon whose `[conversation]` budget is not the default: the count carries the same
    stable block and Memory Pack as the model call that follows (the daemon builds both, with one
    budget arithmetic), where the proxy once re-derived them from the defaults."""
    d = spawn(
        {
            "conversation": {
                "context_budget_tokens": 600,
                "system_share": 0.2,
                "memories_share": 0.4,
                "history_share": 0.4,
            }
        }
    )
    d.call(
        "memory.add_many",
        {
            "items": [
                {"content": f"Coffee note {i}: the user liked the {i}th roast, a dark one.", "type": "fact"}
                for i in range(60)
            ]
        },
    )
    token = d.call("access.tokens.create", {"name": "app", "namespaces": ["default"]})["secret"]
    question = [{"role": "user", "content": "Which coffee roast do I like?"}]
    with FakeAnthropic() as fake:
        proc, port = start_proxy(d.socket, fake.base_url, short_tmp / "proxy.log")
        try:
            client = anthropic.Anthropic(base_url=f"http://127.0.0.1:{port}/t/{token}", api_key=KEY, max_retries=0)
            headers = {"x-agentmemd-session": "roasts"}
            fake.replies.append(Reply(body={"input_tokens": 321}))
            client.messages.count_tokens(model="claude-haiku-4-5", messages=question, extra_headers=headers)
            counted = fake.requests[-1]["body"]
            _ask(
                fake,
                anthropic.Anthropic(
                    base_url=f"http://127.0.0.1:{port}/t/{token}", api_key=KEY, max_retries=0, default_headers=headers
                ),
                question,
                "The dark one.",
            )
            sent = fake.requests[-1]["body"]
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    assert counted["system"] == sent["system"]
    assert counted["messages"] == sent["messages"]  # the same pack, cut to the same budget
    pack = sent["messages"][-1]["content"][0]["text"]
    assert "Coffee note" in pack and count_tokens(pack) < 600


def test_a_restarted_daemon_is_asked_again_on_a_new_connection_not_passed_by(tapped_alone):
    """The proxy keeps its connections; the daemon restarts and closes them. The next call still
    gets its memory (a new connection, once), and its turns are stored."""
    d, fake, tap, client = tapped_alone
    _ask(fake, client, [{"role": "user", "content": "What coffee do I like?"}], "A flat white.")
    wait_for(lambda: d.call("conversation.status", {"session": "move"})["turns"] == 2, timeout=60)
    assert d.terminate() == 0
    d.start()
    history = [
        {"role": "user", "content": "What coffee do I like?"},
        {"role": "assistant", "content": "A flat white."},
        {"role": "user", "content": "With which milk?"},
    ]
    _ask(fake, client, history, "Oat milk.")
    assert "flat white" in fake.requests[-1]["body"]["messages"][-1]["content"][0]["text"]  # memory added
    wait_for(lambda: d.call("conversation.status", {"session": "move"})["turns"] == 4, timeout=60)
