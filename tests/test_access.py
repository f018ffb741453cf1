"""Scoped access: a token bound to namespaces, enforced in the service layer for every method.

In-process for the rules (every method, escalation, failed auth, revocation); one real daemon
for what only it shows: the socket, the CLI's --token, tokens surviving a restart.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from agentmemd.daemon.cli.main import cli
from agentmemd.daemon.services.access import LISTENING_METHODS, OPEN_METHODS, WORKSPACE_METHODS, listens
from agentmemd.daemon.socket.client import Client, RpcCallError
from agentmemd.daemon.socket.methods import build_methods

pytestmark = pytest.mark.process  # the tier (pyproject.toml)

FORBIDDEN = -32004
# Methods that act on every namespace at once: a scoped token is refused them. A new method
# without a namespace lands here by default; this list makes adding one a decision.
OWNER_ONLY = {
    "memory.sweep",
    "workspace.sync",
    "jobs.list",
    "jobs.run",
    "jobs.runs",
    "costs",
    "clock.advance",
    "access.tokens.create",
    "access.tokens.list",
    "access.tokens.revoke",
}


def _refused(conn, method: str, params: dict) -> RpcCallError:
    with pytest.raises(RpcCallError) as err:
        conn.call(method, params)
    assert err.value.code == FORBIDDEN, (method, err.value)
    return err.value


def test_every_method_is_either_open_namespaced_or_the_owners(in_process):
    d = in_process(fake_embedder=True)
    methods = build_methods(d.services)
    owner_only = {
        name
        for name, method in methods.items()
        if name not in OPEN_METHODS | WORKSPACE_METHODS
        and "namespace" not in method.params.model_fields
        and "items" not in method.params.model_fields
    }
    assert owner_only == OWNER_ONLY
    assert OPEN_METHODS <= set(methods)


def test_a_scoped_token_reaches_only_its_namespaces_and_cannot_widen_itself(in_process):
    d = in_process({"clock": {"start": "2026-03-01T09:00:00Z"}}, fake_embedder=True)
    bob = d.call("memory.add", {"content": "Bob's locker code is 7788.", "type": "fact", "namespace": "bob"})["id"]
    bob_pack = d.call("context.pack", {"query": "locker code", "budget_tokens": 200, "namespace": "bob"})
    d.call("conversation.append", {"session": "bob-dm", "role": "user", "content": "code 7788", "namespace": "bob"})
    bob_rule = d.call("persona.rules.propose", {"rule": "Share locker codes.", "namespace": "bob"})
    created = d.call("access.tokens.create", {"name": "alice-door", "namespaces": ["alice", "alice-work"]})
    assert created["secret"].startswith("amt_") and created["namespaces"] == ["alice", "alice-work"]
    assert created["secret"] not in json.dumps(d.call("access.tokens.list"))  # only its hash is kept

    alice = d.connect(created["secret"])
    # A request that names no namespace goes to the token's first one.
    mine = alice.call("memory.add", {"content": "Alice's locker code is 1234.", "type": "fact"})["id"]
    assert d.call("memory.get", {"id": mine, "namespace": "alice"})["namespace"] == "alice"
    alice.call("memory.add", {"content": "Alice's work locker is 55.", "type": "fact", "namespace": "alice-work"})
    hits = alice.call("memory.search", {"query": "locker code"})["results"]
    assert [h["id"] for h in hits] == [mine]
    assert "7788" not in alice.call("context.pack", {"query": "locker code", "budget_tokens": 300})["text"]
    stats = alice.call("stats", {})
    assert stats["namespaces"] == ["alice"] and "bob" not in json.dumps(stats)
    alice.call("conversation.append", {"session": "alice-dm", "role": "user", "content": "hi"})
    assert alice.call("conversation.status", {"session": "alice-dm"})["turns"] == 1

    # Everything of bob's, by namespace, id or session, is refused, and nothing changes.
    into_bob = [
        ("stats", {"namespace": "bob"}),
        ("memory.add", {"content": "x", "type": "fact", "namespace": "bob"}),
        (
            "memory.add_many",
            {"items": [{"content": "ok", "type": "fact"}, {"content": "x", "type": "fact", "namespace": "bob"}]},
        ),
        ("memory.get", {"id": bob, "namespace": "bob"}),
        ("memory.search", {"query": "locker", "namespace": "bob"}),
        ("memory.update", {"id": bob, "content": "0000", "namespace": "bob"}),
        ("memory.archive", {"id": bob, "namespace": "bob"}),
        ("memory.reinforce", {"id": bob, "event": "direct", "namespace": "bob"}),
        ("context.pack", {"query": "locker", "budget_tokens": 100, "namespace": "bob"}),
        ("context.explain", {"pack_id": bob_pack["pack_id"], "namespace": "bob"}),
        ("conversation.append", {"session": "bob-dm", "role": "user", "content": "x", "namespace": "bob"}),
        ("conversation.context", {"session": "bob-dm", "namespace": "bob"}),
        ("conversation.status", {"session": "bob-dm", "namespace": "bob"}),
        ("conversation.observe", {"session": "bob-dm", "namespace": "bob"}),
        ("observations.list", {"session": "bob-dm", "namespace": "bob"}),
        ("persona.get", {"namespace": "bob"}),
        ("persona.history", {"namespace": "bob"}),
        ("persona.records", {"namespace": "bob"}),
        ("persona.score", {"response": "hi", "session": "bob-dm", "namespace": "bob"}),
        ("persona.scores", {"namespace": "bob"}),
        ("persona.rules.propose", {"rule": "x", "namespace": "bob"}),
        ("persona.rules.confirm", {"id": bob_rule["id"], "namespace": "bob"}),
        ("persona.rules.reject", {"id": bob_rule["id"], "namespace": "bob"}),
        ("persona.rules.list", {"namespace": "bob"}),
        ("consolidation.list", {"namespace": "bob"}),
        ("workspace.status", {}),  # the workspace is the "default" namespace's
    ]
    into_bob += [  # every namespace at once, or widening itself: the owner's
        ("memory.sweep", {}),
        ("workspace.sync", {}),
        ("jobs.list", {}),
        ("jobs.run", {"name": "consolidate"}),
        ("jobs.runs", {}),
        ("costs", {}),
        ("clock.advance", {"hours": 1}),
        ("access.tokens.create", {"name": "escalate", "namespaces": None}),
        ("access.tokens.list", {}),
        ("access.tokens.revoke", {"name": "alice-door"}),
    ]
    assert {m for m, _ in into_bob} >= OWNER_ONLY
    for method, params in into_bob:
        _refused(alice, method, params)
    # By id without a namespace the lookup is in alice's: bob's objects are simply not found there.
    with pytest.raises(RpcCallError) as err:
        alice.call("memory.get", {"id": bob})
    assert err.value.code == -32001
    assert d.call("memory.get", {"id": bob, "namespace": "bob"})["content"] == "Bob's locker code is 7788."
    stats = d.call("stats", {"namespace": "alice"})
    # The refused add_many added nothing (alice's appended turn may be an episode by now).
    assert stats["live"] - stats["by_type"].get("episode", 0) == 1
    assert d.call("persona.rules.list", {"namespace": "bob"})["proposals"][0]["status"] == "pending"
    assert [t["name"] for t in d.call("access.tokens.list")["tokens"]] == ["alice-door"]
    # The open methods still answer, and the owner's connection is untouched.
    assert alice.call("health")["status"] == "ok" and alice.call("clock.now")["manual"] is True
    assert d.call("stats", {})["namespaces"] == ["alice", "alice-work", "bob"]


def test_a_token_that_hears_one_audience_reads_only_what_it_may_hear(in_process):
    """A household: Leo's bot door has a token that hears Leo's private chat only. Its search,
    pack, person and turn search are run for that audience (another audience is refused), and
    every method that reads or changes what other audiences hear is refused: a memory by id, the
    persona, the identity graph, observations, transcripts, sharing. Without it, a scoped token's
    call that named no audience heard every private chat of its namespace."""
    d = in_process({"clock": {"start": "2026-03-01T09:00:00Z"}}, fake_embedder=True)

    def chat(chat_id: str, kind: str, sender: str, text: str) -> dict:
        message = {"sender": sender, "ts": "2026-03-01T08:00:00", "text": text, "line": 1}
        return d.call(
            "channels.ingest",
            {"channel": "telegram", "chat_id": chat_id, "kind": kind, "tz": "UTC", "messages": [message]},
        )

    leo = chat("telegram:1002", "private", "Leo", "I failed my chemistry exam, don't tell mum")
    chat("telegram:1003", "private", "Marta", "I'm pregnant! Nobody knows yet, not even the kids")
    d.call("memory.add", {"content": "The family dinner is on Sundays at 7", "type": "fact", "audience": "shared"})
    d.services.episodes.catch_up()
    created = d.call("access.tokens.create", {"name": "leo-bot", "namespaces": ["default"], "hears": leo["audience"]})
    assert created["hears"] == "private:telegram:1002"
    bot = d.connect(created["secret"])
    assert bot.call("auth", {"token": created["secret"]})["hears"] == leo["audience"]

    found = " ".join(h["content"] for h in bot.call("memory.search", {"query": "pregnant exam dinner"})["results"])
    assert "chemistry" in found and "dinner" in found and "pregnant" not in found
    packed = bot.call("context.pack", {"query": "any news? pregnant? exam?", "budget_tokens": 500})["text"]
    assert "chemistry" in packed and "pregnant" not in packed
    turns = bot.call("conversation.search", {"query": "pregnant"})["turns"]
    assert turns == []
    # People: only the chats it may hear, and no one it never heard (not even as a near name).
    user = bot.call("people.get", {"person": "user"})
    assert [c["chat"] for c in user["chats"]] == [] and user["messages"] == 0  # the user said nothing in Leo's chat
    leo_person = bot.call("people.get", {"person": "Leo"})
    assert [c["chat"] for c in leo_person["chats"]] == ["telegram:1002"]
    for name in ("Marta", "Mart"):
        with pytest.raises(RpcCallError) as missing:
            bot.call("people.get", {"person": name})
        assert "Marta" not in missing.value.message.replace(repr(name), "")
    with pytest.raises(RpcCallError) as missing:
        bot.call("conversation.search", {"query": "pregnant", "person": "Mart"})
    assert "did you mean" not in missing.value.message
    err = _refused(bot, "memory.search", {"query": "pregnant", "audience": "private:telegram:1003"})
    assert "hears only 'private:telegram:1002'" in err.message
    _refused(bot, "context.pack", {"query": "news", "budget_tokens": 300, "audience": "user"})
    marta = next(m for m in d.call("memory.list", {"contains": "pregnant"})["items"])
    for method, params in [
        ("memory.get", {"id": marta["id"]}),
        ("memory.list", {}),
        ("persona.get", {}),
        ("identity.graph", {}),
        ("observations.list", {}),
        ("chats.list", {}),
        ("memory.share", {"id": marta["id"], "audience": "shared"}),
        ("memory.add", {"content": "x", "type": "fact"}),
        ("conversation.turns", {"session": leo["sessions"][0]}),
        ("workspace.read", {"path": "USER.md"}),  # the user's own files
        ("workspace.status", {}),
    ]:
        err = _refused(bot, method, params)
        assert "hears only" in err.message and "memory.search, context.pack" in err.message, method
    assert d.call("memory.get", {"id": marta["id"]})["audience"] == "private:telegram:1003"  # nothing changed
    # The names the refusal gives are the methods it lets through.
    methods = build_methods(d.services)
    assert {name for name, m in methods.items() if listens(m.params)} == set(LISTENING_METHODS)
    with pytest.raises(RpcCallError, match="hears: String should match pattern"):  # "shared" is no listener
        d.call("access.tokens.create", {"name": "bad", "namespaces": ["default"], "hears": "shared"})
    # A chat the namespace does not have (mistyped, or a private chat named a group): refused, the
    # nearest named; no token is made.
    for wrong in ("private:telegram:1092", "group:telegram:1002"):
        with pytest.raises(RpcCallError, match="did you mean 'private:telegram:1002'"):
            d.call("access.tokens.create", {"name": "typo", "namespaces": ["default"], "hears": wrong})
    assert "typo" not in {t["name"] for t in d.call("access.tokens.list")["tokens"]}


def test_a_failed_auth_leaves_no_access_until_a_valid_token(in_process):
    d = in_process(fake_embedder=True)
    d.call("memory.add", {"content": "The owner's note.", "type": "fact"})
    secret = d.call("access.tokens.create", {"name": "door", "namespaces": ["door"]})["secret"]
    conn = d.connect()  # the owner's, as every socket connection starts
    assert conn.call("stats", {})["live"] == 1
    with pytest.raises(RpcCallError) as err:
        conn.call("auth", {"token": "amt_not-a-real-token"})
    assert err.value.code == FORBIDDEN and "amt_" not in err.value.message
    # Fails closed: a door that ignored the error does not keep the owner's access.
    refused = _refused(conn, "memory.search", {"query": "note"})
    assert "auth" in refused.message
    _refused(conn, "stats", {})
    assert conn.call("health")["status"] == "ok"
    assert conn.call("auth", {"token": secret}) == {
        "token": "door",
        "namespaces": ["door"],
        "default_namespace": "door",
        "hears": None,  # every audience
    }
    assert conn.call("memory.search", {"query": "note"})["results"] == []


def test_tokens_are_named_once_revoked_for_good_and_validated(in_process):
    d = in_process(fake_embedder=True)
    first = d.call("access.tokens.create", {"name": "door", "namespaces": ["a"]})["secret"]
    with pytest.raises(RpcCallError) as err:
        d.call("access.tokens.create", {"name": "door", "namespaces": ["b"]})
    assert err.value.code == -32002
    for bad in (
        {"name": "door 2", "namespaces": ["a"]},
        {"name": "d2", "namespaces": []},
        {"name": "d2", "namespaces": ["a", "a"]},
        {"name": "d2", "namespaces": ["../x"]},
        {"name": "d2"},
    ):
        with pytest.raises(RpcCallError) as err:
            d.call("access.tokens.create", bad)
        assert err.value.code == -32602, bad
    held = d.connect(first)
    revoked = d.call("access.tokens.revoke", {"name": "door"})
    assert revoked["revoked"] is not None
    with pytest.raises(RpcCallError) as err:
        d.connect(first)
    assert err.value.code == FORBIDDEN
    # A connection authenticated before the revocation is refused from then on too (a door such as
    # the proxy keeps its connections open across requests).
    with pytest.raises(RpcCallError) as err:
        held.call("stats", {})
    assert err.value.code == FORBIDDEN and "was revoked" in err.value.message
    assert held.call("clock.now")  # what any connection may ask, it still may
    with pytest.raises(RpcCallError) as err:
        d.call("access.tokens.revoke", {"name": "door"})
    assert err.value.code == -32001
    every = d.call("access.tokens.create", {"name": "all", "namespaces": None})["secret"]
    assert d.connect(every).call("access.tokens.list")["tokens"][0]["name"] == "door"


def test_tokens_work_over_the_socket_and_the_cli_and_survive_a_restart(spawn):
    d = spawn()
    run = lambda *args: CliRunner().invoke(cli, ["--socket", str(d.socket), *args])  # noqa: E731
    made = run("--json", "token", "create", "alice-mcp", "--namespace", "alice")
    assert made.exit_code == 0, made.output
    secret = json.loads(made.output)["secret"]
    assert run("token", "create", "both", "--namespace", "x", "--all").exit_code == 2
    d.call("memory.add", {"content": "Bob's locker code is 7788.", "type": "fact", "namespace": "bob"})
    with Client(d.socket, token=secret) as alice:
        assert alice.scope["default_namespace"] == "alice"
        # The process's facts (its paths, the store's URL, its doors) are the owner's to see.
        assert alice.call("health").get("process") is None and d.call("health")["process"]["data_dir"]
        alice.call("memory.add", {"content": "Alice likes oat flat whites.", "type": "preference"})
        with pytest.raises(RpcCallError) as err:
            alice.call("memory.search", {"query": "locker", "namespace": "bob"})
        assert err.value.code == FORBIDDEN
    out = run("--token", secret, "search", "locker code")
    assert out.exit_code == 0 and "7788" not in out.output
    refused = run("--token", secret, "stats", "--namespace", "bob")
    assert refused.exit_code == 1 and "may not use namespace 'bob'" in refused.output
    assert run("--token", "amt_wrong", "health").exit_code == 1
    # An empty token (a config's ${TOKEN} that expanded to nothing) gave the owner's access: Bob's code.
    bob = d.call("memory.search", {"query": "locker code", "namespace": "bob"})["results"][0]["id"]
    for empty in (run("--token", "", "memory", "get", bob, "--namespace", "bob"),
                  CliRunner(env={"AGENTMEMD_TOKEN": ""}).invoke(cli, ["--socket", str(d.socket), "memory", "get", bob, "--namespace", "bob"]),
                  run("mcp", "--token", "")):  # fmt: skip
        assert empty.exit_code == 2 and "is empty" in empty.output and "7788" not in empty.output, empty.output
    with pytest.raises(RpcCallError):  # a client handed an empty token fails closed at auth
        Client(d.socket, token="")
    listed = run("token", "list")
    assert "alice-mcp" in listed.output and secret not in listed.output
    d.terminate()
    d.start()
    with Client(d.socket, token=secret) as alice:
        assert [h["content"] for h in alice.call("memory.search", {"query": "flat white"})["results"]] == [
            "Alice likes oat flat whites."
        ]
    assert run("token", "revoke", "alice-mcp").exit_code == 0
    assert run("--token", secret, "health").exit_code == 1
