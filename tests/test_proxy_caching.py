"""The proxy and the providers' prompt caches: what it adds keeps an app's cache working.

Anthropic caches the prefix of a request (tools, then system, then messages) up to each
`cache_control` breakpoint; a later request reads it when its own prefix, up to a breakpoint or
one of the 20 blocks before it, is byte-identical. At most 4 breakpoints; a `"ttl": "1h"` one
may not come after a 5-minute one. OpenAI caches every request's prefix by itself. So what
changes from turn to turn (the Memory Pack, the persona reminder, anchors) must come after the
app's last breakpoint, and the proxy's own breakpoint must keep the TTL order valid.

The pure functions are checked with ``prefix_keys`` below (the prefix a breakpoint caches, as
Anthropic's docs describe it); the doors with the real SDKs against a local upstream.
"""

from __future__ import annotations

import hashlib
import json

import anthropic
import openai
import pytest
from conftest import wait_for
from doors import start_proxy
from fake_anthropic import FakeAnthropic, Reply, chat_completion, message

from agentmemd.daemon.bench.fake_upstream import FakeAnthropic as RuleKeepingAnthropic
from agentmemd.daemon.proxy.messages import MAX_BREAKPOINTS, augment_anthropic, augment_openai, count_breakpoints

pytestmark = pytest.mark.doors  # the tier (pyproject.toml)

KEY = "sk-ant-test-never-logged-4242"
EPH = {"type": "ephemeral"}
HOUR = {"type": "ephemeral", "ttl": "1h"}
LOOKBACK = 20


# ---- what a breakpoint caches ----------------------------------------------------------------------


def _blocks(content) -> list:
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content or [])


def _plain(block) -> str:
    return json.dumps({k: v for k, v in block.items() if k != "cache_control"}, sort_keys=True)


def flat(body: dict) -> list[tuple[str, dict]]:
    """The request as Anthropic reads it, one entry per block (tools, system, then each message's
    blocks, each tagged with where its message starts), with the breakpoints where they sit."""
    out = [(f"tool {_plain(t)}", t) for t in body.get("tools") or []]
    out += [(f"system {_plain(b)}", b) for b in _blocks(body.get("system"))]
    for m in body.get("messages") or []:
        for j, b in enumerate(_blocks(m.get("content"))):
            out.append((f"{'message ' + m['role'] if j == 0 else ''} {_plain(b)}", b))
    return out


def _key(entries: list[tuple[str, dict]], end: int) -> str:
    return hashlib.sha256("\n".join(text for text, _ in entries[: end + 1]).encode()).hexdigest()


def breakpoints(body: dict) -> list[int]:
    entries = flat(body)
    at = [i for i, (_, b) in enumerate(entries) if "cache_control" in b]
    if isinstance(body.get("cache_control"), dict):  # automatic caching: the last block
        at.append(len(entries) - 1)
    return at


def written(body: dict) -> set[str]:
    entries = flat(body)
    return {_key(entries, i) for i in breakpoints(body)}


def longest_read(body: dict, cache: set[str]) -> int:
    """How many blocks of ``body`` a cache holding ``cache`` serves: the longest prefix ending at a
    breakpoint or one of the 20 blocks before it whose key is cached (0: a miss)."""
    entries = flat(body)
    best = 0
    for bp in breakpoints(body):
        for end in range(bp, max(-1, bp - LOOKBACK - 1), -1):
            if _key(entries, end) in cache:
                best = max(best, end + 1)
                break
    return best


def ttl_order_ok(body: dict) -> bool:
    """1h breakpoints all before the 5-minute ones, in the order tools, system, messages."""
    ttls = [b["cache_control"].get("ttl", "5m") for _, b in flat(body) if "cache_control" in b]
    if isinstance(body.get("cache_control"), dict):  # automatic caching's breakpoint comes last
        ttls.append(body["cache_control"].get("ttl", "5m"))
    return ttls == sorted(ttls, key=lambda t: t != "1h")


def context(pack: str = "", *, system: str = "# Who you are\nA terse engineer.\n", anchor: str = "", anchors=()):
    """What `conversation.context` answers, as far as the proxy reads it."""
    return {
        "system": system,
        "messages": [],
        "anchors": list(anchors),
        "injected": {"newest_user_prefix": pack, "anchor": anchor},
    }


# ---- (a) the TTL order and the 4-breakpoint limit -----------------------------------------------------


def test_our_breakpoint_takes_the_apps_1h_ttl_when_a_later_breakpoint_is_1h():
    body = {
        "model": "m",
        "tools": [{"name": "t", "input_schema": {"type": "object"}, "cache_control": HOUR}],
        "system": [{"type": "text", "text": "App rules.", "cache_control": HOUR}],
        "messages": [{"role": "user", "content": [{"type": "text", "text": "Hi", "cache_control": HOUR}]}],
    }
    sent = augment_anthropic(body, context("<memories>\nx\n</memories>\n\n"), None)
    ours = sent["system"][-1]
    assert ours["text"].startswith("# Who you are") and ours["cache_control"] == HOUR
    assert ttl_order_ok(sent) and count_breakpoints(sent) == 4

    # Only a 1h breakpoint later forces it: an app whose 1h entries are all before ours gets a 5m one.
    body["messages"][0]["content"][0]["cache_control"] = EPH
    sent = augment_anthropic(body, context(), None)
    assert sent["system"][-1]["cache_control"] == EPH and ttl_order_ok(sent)


def test_automatic_caching_counts_as_a_breakpoint_and_sets_the_ttl():
    body = {
        "model": "m",
        "cache_control": HOUR,  # automatic caching: the last cacheable block, 1h
        "system": [{"type": "text", "text": f"part {i}", "cache_control": HOUR} for i in range(2)],
        "messages": [{"role": "user", "content": "Hi"}],
    }
    sent = augment_anthropic(body, context("<memories>\nx\n</memories>\n\n"), None)
    assert sent["system"][-1]["cache_control"] == HOUR and count_breakpoints(sent) == 4 and ttl_order_ok(sent)
    body["system"].append({"type": "text", "text": "part 2", "cache_control": HOUR})
    sent = augment_anthropic(body, context("<memories>\nx\n</memories>\n\n"), None)
    assert "cache_control" not in sent["system"][-1] and count_breakpoints(sent) == MAX_BREAKPOINTS


# ---- (b) nothing that changes per turn before the app's last breakpoint ---------------------------------


def _app_turn(n: int, ttl: dict = EPH) -> dict:
    """Turn ``n`` of an app that caches its history: a breakpoint on the newest user message's
    last block, moved there each turn (the Anthropic docs' multi-turn pattern)."""
    messages = []
    for i in range(n):
        messages.append({"role": "user", "content": f"Question {i}: what about topic {i}?"})
        messages.append({"role": "assistant", "content": f"Answer {i}: topic {i} is fine."})
    newest = {"type": "text", "text": f"Question {n}: what about topic {n}?", "cache_control": ttl}
    messages.append({"role": "user", "content": [newest]})
    return {"model": "m", "max_tokens": 10, "system": "You are the app.", "messages": messages}


def test_the_pack_goes_after_the_apps_moving_breakpoint_so_each_turn_reads_the_last_ones_history():
    cache: set[str] = set()
    for n in range(8):
        sent = augment_anthropic(_app_turn(n), context(f"<memories>\nmemory for turn {n}\n</memories>\n\n"), None)
        newest = sent["messages"][-1]["content"]
        assert newest[0] == _app_turn(n)["messages"][-1]["content"][0]  # the app's block, with its breakpoint
        assert "memory for turn" in newest[1]["text"] and "cache_control" not in newest[1]
        if n:
            # Everything up to the previous turn's newest message is read from the cache.
            previous = len(flat(augment_anthropic(_app_turn(n - 1), context(), None)))
            assert longest_read(sent, cache) >= previous, f"turn {n} missed the cached history"
        cache |= written(sent)


def test_a_pack_between_tool_results_waits_until_after_the_last_of_them():
    results = [{"type": "tool_result", "tool_use_id": f"tu_{i}", "content": f"result {i}"} for i in range(3)]
    results[0]["cache_control"] = EPH
    body = {
        "model": "m",
        "messages": [
            {"role": "user", "content": "Run the tools."},
            {"role": "assistant", "content": [{"type": "tool_use", "id": f"tu_{i}", "name": "t", "input": {}} for i in range(3)]},
            {"role": "user", "content": results},
        ],
    }  # fmt: skip
    sent = augment_anthropic(body, context("<memories>\nm\n</memories>\n\n"), None)
    last = sent["messages"][-1]["content"]
    assert last[:3] == results and last[3]["type"] == "text" and "<memories>" in last[3]["text"]


def test_persona_anchors_before_the_last_breakpoint_give_way_to_a_reminder_after_it():
    body = _app_turn(6)
    anchor = "[Persona anchor: You are Ada. Voice: terse.]"
    ctx = context("<memories>\nm\n</memories>\n\n", anchor=anchor, anchors=[4, 8])
    ctx["messages"] = [{"role": m["role"], "content": "x"} for m in body["messages"]]
    sent = augment_anthropic(body, ctx, None)
    assert sent["messages"][:-1] == body["messages"][:-1]  # the cached history is as the app sent it
    added = sent["messages"][-1]["content"][1]["text"]
    assert added.startswith(f"<persona-anchor>{anchor}</persona-anchor>") and "<memories>" in added
    # Where the app caches nothing in its messages, the anchors stay where the daemon put them.
    plain = _app_turn(6)
    del plain["messages"][-1]["content"][0]["cache_control"]
    sent = augment_anthropic(plain, ctx, None)
    assert anchor in sent["messages"][4]["content"][0]["text"] and anchor in sent["messages"][8]["content"][0]["text"]
    assert anchor not in json.dumps(sent["messages"][-1])


def test_automatic_caching_keeps_its_breakpoint_on_the_apps_last_block_not_on_the_pack():
    cache: set[str] = set()
    for n in range(5):
        body = _app_turn(n)
        del body["messages"][-1]["content"][0]["cache_control"]
        body["cache_control"] = EPH
        sent = augment_anthropic(body, context(f"<memories>\nturn {n}\n</memories>\n\n"), None)
        assert count_breakpoints(sent) <= MAX_BREAKPOINTS and "turn" in sent["messages"][-1]["content"][-1]["text"]
        if n:
            assert longest_read(sent, cache) > len(flat(sent)) - 4, f"turn {n} missed the cached history"
        cache |= written(sent)


def test_openai_gets_nothing_per_turn_before_its_newest_message():
    chat = [{"role": "system", "content": "You are the app."}]
    for i in range(6):
        chat += [{"role": "user", "content": f"Q{i}"}, {"role": "assistant", "content": f"A{i}"}]
    chat.append({"role": "user", "content": "Q6"})
    anchor = "[Persona anchor: You are Ada.]"
    ctx = context("<memories>\nm\n</memories>\n\n", anchor=anchor, anchors=[4, 8])
    ctx["messages"] = [{"role": m["role"], "content": "x"} for m in chat[1:]]
    sent = augment_openai({"model": "g", "messages": chat}, ctx, None)["messages"]
    assert sent[0] == chat[0] and sent[1]["role"] == "system" and sent[2:-1] == chat[1:-1]  # the prefix, unchanged
    assert (
        sent[-1]["content"][0]["text"].startswith(f"<persona-anchor>{anchor}")
        and sent[-1]["content"][1]["text"] == "Q6"
    )

    # A tool loop: the newest user message is behind the tool's answer; the pack goes after it.
    loop = chat + [
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "42"},
    ]  # fmt: skip
    sent = augment_openai({"model": "g", "messages": loop}, context("<memories>\nm\n</memories>\n\n"), None)["messages"]
    assert sent[2:-1] == loop[1:] and sent[-1]["role"] == "user" and "<memories>" in sent[-1]["content"]


# ---- through the doors, with the real SDKs ---------------------------------------------------------------


def _wait_turns(d, session: str, turns: int) -> None:
    wait_for(lambda: d.call("conversation.status", {"session": session})["turns"] >= turns, timeout=30)


@pytest.fixture
def world(in_namespace, short_tmp):
    d = in_namespace
    d.call(
        "memory.add", {"content": "The user's favourite coffee is a flat white with oat milk.", "type": "preference"}
    )
    d.call("memory.add", {"content": "I speak tersely, like a peer engineer; never use emoji.", "type": "persona"})
    token = d.token()
    with FakeAnthropic() as fake:
        proc, port = start_proxy(d.socket, fake.base_url, short_tmp / "proxy.log")
        try:
            yield d, fake, token, port
        finally:
            proc.terminate()
            proc.wait(timeout=30)


def test_an_app_moving_its_breakpoint_reads_its_history_each_turn_and_our_block_stays_byte_identical(world):
    d, fake, token, port = world
    client = anthropic.Anthropic(
        base_url=f"http://127.0.0.1:{port}/t/{token}",
        api_key=KEY,
        max_retries=0,
        default_headers={"x-agentmemd-session": "cached-chat"},
    )
    system = [{"type": "text", "text": "You are the barista app.", "cache_control": HOUR}]
    history: list[dict] = []
    cache: set[str] = set()
    ours = []
    for n in range(5):
        question = f"Question {n}: which coffee for me, and how about topic {n}?"
        fake.replies.append(message(f"Answer {n}: a flat white."))
        messages = [*history, {"role": "user", "content": [{"type": "text", "text": question, "cache_control": HOUR}]}]
        client.messages.create(model="claude-haiku-4-5", max_tokens=50, system=system, messages=messages)
        sent = fake.requests[-1]["body"]
        assert ttl_order_ok(sent) and count_breakpoints(sent) <= MAX_BREAKPOINTS
        assert sent["messages"][-1]["content"][0]["text"] == question  # the pack comes after it
        assert "<memories>" in json.dumps(sent["messages"][-1]["content"][1:])
        if n:
            # Read: everything up to the previous question (then come its answer and the new question).
            assert longest_read(sent, cache) >= len(flat(sent)) - len(sent["messages"][-1]["content"]) - 1
        cache |= written(sent)
        ours.append(sent["system"][-1])
        history = [
            *messages[:-1],
            {"role": "user", "content": question},
            {"role": "assistant", "content": f"Answer {n}: a flat white."},
        ]
        _wait_turns(d, "cached-chat", 2 * (n + 1))
    assert ours[0]["text"].startswith("# Who you are") and all(o == ours[0] for o in ours)


def test_against_an_upstream_that_keeps_the_cache_rules_1h_apps_work_and_reads_grow(in_namespace, short_tmp):
    """The rule-keeping fake upstream (daemon/bench/fake_upstream.py): an app whose breakpoints are
    all 1h gets no 400 through the proxy, and each turn reads the history the turn before wrote."""
    d = in_namespace
    d.call(
        "memory.add", {"content": "The user's favourite coffee is a flat white with oat milk.", "type": "preference"}
    )
    token = d.token()
    with RuleKeepingAnthropic(api_key=KEY, min_cache_tokens=64) as fake:
        proc, port = start_proxy(d.socket, fake.base_url, short_tmp / "proxy.log")
        try:
            client = anthropic.Anthropic(
                base_url=f"http://127.0.0.1:{port}/t/{token}",
                api_key=KEY,
                max_retries=0,
                default_headers={"x-agentmemd-session": "hour-app"},
            )
            system = [{"type": "text", "text": "You are the barista app. " * 40, "cache_control": HOUR}]
            history: list[dict] = []
            for n in range(6):
                question = f"Turn {n}: which coffee for me today, and why that one?"
                fake.script(text=f"A flat white, turn {n}.")
                newest = {"role": "user", "content": [{"type": "text", "text": question, "cache_control": HOUR}]}
                reply = client.messages.create(
                    model="claude-haiku-4-5", max_tokens=50, system=system, messages=[*history, newest]
                )
                history += [
                    {"role": "user", "content": question},
                    {"role": "assistant", "content": reply.content[0].text},
                ]
                _wait_turns(d, "hour-app", 2 * (n + 1))
        finally:
            proc.terminate()
            proc.wait(timeout=30)
        reads = [u["cache_read_input_tokens"] for u in fake.usage_log]
        writes = [u["cache_creation_input_tokens"] for u in fake.usage_log]
        assert len(reads) == 6 and all(later > earlier for earlier, later in zip(reads[1:], reads[2:])), reads
        assert all(w < writes[0] / 2 for w in writes[1:]), writes  # a turn writes only what it added


def test_openai_requests_keep_their_prefix_from_turn_to_turn(world):
    d, fake, token, port = world
    client = openai.OpenAI(base_url=f"http://127.0.0.1:{port}/t/{token}/v1", api_key=KEY, max_retries=0)
    chat = [{"role": "system", "content": "You are the barista app."}]
    sent_before = None
    for n in range(3):
        chat.append({"role": "user", "content": f"Coffee question {n}?"})
        fake.replies.append(chat_completion(f"Oat flat white {n}."))
        client.chat.completions.create(model="g", messages=chat, extra_headers={"x-agentmemd-session": "oa-cache"})
        sent = fake.requests[-1]["body"]["messages"]
        if sent_before is not None:  # all but the previous newest message are sent again as they were
            assert sent[: len(sent_before) - 1] == sent_before[:-1]
        sent_before = sent
        chat.append({"role": "assistant", "content": f"Oat flat white {n}."})
        _wait_turns(d, "oa-cache", 2 * (n + 1))


# ---- (c) count_tokens counts what would be sent, and stores nothing -----------------------------------


def test_count_tokens_counts_what_the_proxy_would_send_and_stores_no_turn(world):
    d, fake, token, port = world
    client = anthropic.Anthropic(base_url=f"http://127.0.0.1:{port}/t/{token}", api_key=KEY, max_retries=0)
    question = {"role": "user", "content": "What coffee should I order for me?"}
    fake.replies.append(Reply(body={"input_tokens": 844}))
    counted = client.messages.count_tokens(
        model="claude-haiku-4-5",
        system="You are the app.",
        messages=[question],
        extra_headers={"x-agentmemd-session": "count-only"},
    )
    assert counted.input_tokens == 844
    asked = fake.requests[-1]
    key = asked["headers"].get("x-api-key") or asked["headers"]["authorization"].removeprefix("Bearer ")
    assert asked["path"] == "/v1/messages/count_tokens" and key == KEY
    assert asked["body"]["system"][0] == {"type": "text", "text": "You are the app."}
    assert asked["body"]["system"][1]["text"].startswith("# Who you are")  # the persona, as sent
    assert "flat white" in json.dumps(asked["body"]["messages"][-1])  # the Memory Pack, as sent
    with pytest.raises(Exception, match="no conversation"):
        d.call("conversation.status", {"session": "count-only"})  # a count is not a conversation
    # Nor a logged pack: its question was kept in the pack log ("Only counting: my divorce lawyer...").
    logged = d.call("packs.list", {"limit": 50})["packs"]
    assert not [p for p in logged if "What coffee should I order" in p["query"]], logged

    # A session the app has talked in: the count's stable block is the one its messages get.
    fake.replies.append(message("A flat white."))
    client.messages.create(
        model="claude-haiku-4-5",
        max_tokens=20,
        system="You are the app.",
        messages=[question],
        extra_headers={"x-agentmemd-session": "talked"},
    )
    sent = fake.requests[-1]["body"]
    wait_for(lambda: d.call("conversation.status", {"session": "talked"})["turns"] == 2, timeout=30)
    builds = len(d.call("conversation.contexts", {"session": "talked", "limit": 20})["contexts"])
    fake.replies.append(Reply(body={"input_tokens": 900}))
    follow_up = [
        question,
        {"role": "assistant", "content": "A flat white."},
        {"role": "user", "content": "With oat milk?"},
    ]
    client.messages.count_tokens(
        model="claude-haiku-4-5",
        system="You are the app.",
        messages=follow_up,
        extra_headers={"x-agentmemd-session": "talked"},
    )
    asked = fake.requests[-1]["body"]
    assert asked["system"] == sent["system"] and asked["messages"][:2] == follow_up[:2]
    assert "<memories>" in json.dumps(asked["messages"][-1])
    assert d.call("conversation.status", {"session": "talked"})["turns"] == 2  # nothing stored
    assert len(d.call("conversation.contexts", {"session": "talked", "limit": 20})["contexts"]) == builds

    # A token the daemon refuses is refused here too, and nothing goes upstream.
    asked_before = len(fake.requests)
    with pytest.raises(anthropic.AuthenticationError):
        anthropic.Anthropic(
            base_url=f"http://127.0.0.1:{port}/t/amt_wrong", api_key=KEY, max_retries=0
        ).messages.count_tokens(model="claude-haiku-4-5", messages=[question])
    assert len(fake.requests) == asked_before

    # Without a token there is no memory to add: the count passes through as the app sent it.
    fake.replies.append(Reply(body={"input_tokens": 25}))
    plain = {"model": "claude-haiku-4-5", "messages": [question]}
    anthropic.Anthropic(base_url=f"http://127.0.0.1:{port}", api_key=KEY, max_retries=0).messages.count_tokens(**plain)
    assert fake.requests[-1]["body"] == plain
