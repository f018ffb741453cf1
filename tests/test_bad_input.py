"""Bad input gets a clear error naming the problem, changes nothing, and the connection lives
(issue 13's first class of defects). In-process through the Dispatcher, and over a real socket
for what only the socket shows (framing, half-close)."""

from __future__ import annotations

import json
import re
import socket

import pytest
from conftest import wait_for

from agentmemd.daemon.socket.client import RpcCallError

pytestmark = pytest.mark.process  # the tier (pyproject.toml)

DEEP = 1000


def error_of(reply: dict) -> tuple[int, str]:
    return reply["error"]["code"], reply["error"]["message"]


def req(method: str, params: dict, req_id=1) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": req_id, "method": method, "params": params}).encode()


@pytest.fixture
def d(in_process):
    return in_process({"clock": {"start": "2024-01-01T00:00:00Z"}}, fake_embedder=True)


@pytest.mark.parametrize(
    "line",
    [
        b"[" * DEEP + b"]" * DEEP,
        b'{"jsonrpc": "2.0", "id": 1, "method": "health", "params": ' + b"[" * DEEP + b"]" * DEEP + b"}",
        b'{"jsonrpc": "2.0", "method": "health", "id": ' + b"[" * DEEP + b"]" * DEEP + b"}",
        b'{"jsonrpc": "2.0", "id": 1, "method": "memory.add", "params": {"content": "x", "type": "fact", "tags": '
        + b"[" * DEEP
        + b"]" * DEEP
        + b"}}",
        b'{"jsonrpc": "2.0", "id": NaN, "method": "health"}',
    ],
)
def test_deep_nesting_and_non_json_constants_are_refused_as_requests(d, line):
    reply = d.send_raw(line)
    reply = reply[0] if isinstance(reply, list) else reply
    assert error_of(reply)[0] in (-32700, -32600, -32602), reply
    assert d.call("health")["status"] == "ok"


@pytest.mark.parametrize(
    "when", ["9999-12-31T23:59:59-12:00", "0001-01-01T00:00:00+14:00", "0999-06-01T00:00:00Z", "999-06-01T00:00:00Z"]
)
def test_unrepresentable_times_are_refused_naming_the_field(d, when):
    before = d.call("stats")["live"]
    code, message = error_of(d.send_raw(req("memory.add", {"content": "a fact", "type": "fact", "created": when})))
    assert code == -32602 and "created" in message
    code, message = error_of(
        d.send_raw(req("conversation.append", {"session": "s", "role": "user", "content": "hi", "ts": when}))
    )
    assert code == -32602 and "ts" in message
    assert d.call("stats")["live"] == before


def test_times_are_stored_in_one_canonical_form(d):
    added = d.call("memory.add", {"content": "a fact", "type": "fact", "created": "1999-12-31T23:00:00-02:00"})
    assert d.call("memory.get", {"id": added["id"]})["created"] == "2000-01-01T01:00:00.000000Z"


@pytest.mark.parametrize(("value", "why"), [(5e-324, "zero vector"), (1e308, "float32"), (1e39, "float32")])
def test_embeddings_that_do_not_survive_float32_are_refused(d, value, why):
    code, message = error_of(
        d.send_raw(req("memory.add", {"content": "x", "type": "fact", "embedding": [value] * 384}))
    )
    assert code == -32602 and "embedding" in message and why in message


def test_large_but_finite_embeddings_are_normalised_not_broken(d):
    added = d.call("memory.add", {"content": "x", "type": "fact", "embedding": [1e30] * 384})
    assert d.call("memory.get", {"id": added["id"]})["id"] == added["id"]


def test_ids_beyond_sqlites_integers_are_refused_and_any_json_number_is_an_id(d):
    code, message = error_of(d.send_raw(req("persona.rules.confirm", {"id": 2**63})))
    assert code == -32602 and "id" in message
    for req_id in (1.5, 100.0):
        reply = d.send_raw(b'{"jsonrpc": "2.0", "id": ' + json.dumps(req_id).encode() + b', "method": "health"}')
        assert reply["id"] == req_id and reply["result"]["status"] == "ok"
    reply = d.send_raw(b'{"jsonrpc": "2.0", "id": 1e2, "method": "health"}')
    assert reply["id"] == 100.0 and "result" in reply
    assert error_of(d.send_raw(b'{"jsonrpc": "2.0", "id": 1e400, "method": "health"}'))[0] == -32600


def test_a_clock_cannot_be_moved_past_year_9999(in_process):
    d = in_process({"clock": {"start": "9990-01-01T00:00:00Z"}}, fake_embedder=True)
    code, message = error_of(d.send_raw(req("clock.advance", {"hours": 24 * 365 * 20})))
    assert code == -32602 and "hours" in message


@pytest.fixture(scope="module")
def served():
    from conftest import served_daemon

    with served_daemon() as d:
        yield d


def test_over_the_socket_deep_nesting_gets_an_answer_and_the_connection_lives(served):
    with served.client() as c:
        reply = c.send_raw(b"[" * DEEP + b"]" * DEEP)
        assert error_of(reply)[0] == -32700
        assert c.call("health")["status"] == "ok"


GIANT = b"9" * 5000  # past Python's int conversion limit (4,300 digits)


def test_over_the_socket_a_number_of_5000_digits_is_refused_naming_its_field_and_the_connection_lives(served):
    """json.loads raised ValueError for it: no answer to that frame nor to any after it on the connection."""
    with served.client() as c:
        code, message = error_of(c.send_raw(b'{"jsonrpc": "2.0", "id": 3, "method": "memory.search", '
                                            b'"params": {"query": "tea", "k": ' + GIANT + b"}}"))  # fmt: skip
        assert code == -32602 and message.startswith("invalid params: k: a number of 5,000 digits")
        reply = c.send_raw(b'{"jsonrpc": "2.0", "id": ' + GIANT + b', "method": "health"}')
        assert error_of(reply)[0] == -32600 and reply["id"] is None and '"id"' in error_of(reply)[1]
        nested = c.send_raw(req("memory.add_many", {"items": [{"content": "x", "type": "fact"}]}).replace(
            b'"type": "fact"', b'"type": "fact", "priority": -' + GIANT))  # fmt: skip
        assert error_of(nested)[0] == -32602 and "items.0.priority" in error_of(nested)[1]
        assert c.call("health")["status"] == "ok"
        assert c.call("memory.list", {})["total"] == 0  # nothing was stored


def test_a_last_line_without_newline_then_a_half_close_gets_its_answer(served):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(30)
    s.connect(str(served.socket))
    s.sendall(b'{"jsonrpc": "2.0", "id": 7, "method": "health"}')  # no newline
    s.shutdown(socket.SHUT_WR)
    data = b""
    while chunk := s.recv(65536):
        data += chunk
    s.close()
    assert json.loads(data)["id"] == 7


def test_the_data_dir_is_private_and_an_open_one_is_tightened(in_process, short_tmp, caplog):
    import stat

    old = short_tmp / "old" / "data"
    old.mkdir(parents=True, mode=0o755)
    old.chmod(0o755)
    (old / "notes.txt").write_text("left here by hand")
    (old / "notes.txt").chmod(0o644)
    with caplog.at_level("WARNING", logger="agentmemd"):
        d = in_process({}, fake_embedder=True, root=short_tmp / "old")
    d.call("memory.add", {"content": "A secret the user told the agent", "type": "fact"})
    assert stat.S_IMODE(old.stat().st_mode) == 0o700
    for path in old.iterdir():
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path  # the db, its -wal and -shm, the stray file
    assert any("permissions tightened" in r.getMessage() for r in caplog.records)
    fresh = in_process({}, fake_embedder=True, root=short_tmp / "fresh")
    fresh.call("memory.add", {"content": "Another secret", "type": "fact"})
    assert stat.S_IMODE((short_tmp / "fresh" / "data").stat().st_mode) == 0o700
    assert {oct(stat.S_IMODE(p.stat().st_mode)) for p in (short_tmp / "fresh" / "data").iterdir()} == {"0o600"}


def test_reads_of_namespaces_with_no_memories_keep_nothing_in_ram(d):
    d.call("memory.add", {"content": "The user lives in Porto", "type": "fact", "namespace": "real"})
    d.call("memory.search", {"query": "where?", "namespace": "real"})
    vectors = d.services.store.vectors
    before = vectors.loaded()
    for n in range(300):
        d.call("memory.search", {"query": "anything", "namespace": f"made-up-{n}"})
        d.call("context.pack", {"query": "anything", "budget_tokens": 100, "namespace": f"made-up-{n}"})
    assert vectors.loaded() == before
    # A namespace's first memory is found by the next search.
    d.call("memory.add", {"content": "Ana has a grey cat", "type": "fact", "namespace": "made-up-7"})
    assert d.call("memory.search", {"query": "grey cat", "namespace": "made-up-7"})["results"]


def test_the_pack_log_keeps_its_retention_compactly_and_says_so(in_process):
    from agentmemd.memory.retrieval.pack_log import PRUNE_EVERY

    d = in_process(
        {"clock": {"start": "2024-01-01T00:00:00Z"}, "pack": {"log_keep_packs": 5, "log_keep_days": 1}},
        fake_embedder=True,
    )
    d.call("memory.add_many", {"items": [{"content": f"Fact {i} about the garden", "type": "fact"} for i in range(50)]})
    conn = d.services.store.conn
    # A pack logged before the log was compressed (plain JSON text) is still explained.
    conn.execute(
        "INSERT INTO pack_log (pack_id, namespace, query, budget_tokens, at, tokens, text, candidates, chosen) "
        "VALUES ('pold', 'default', 'q', 100, '2024-01-01T00:00:00.000000Z', 0, '', '[{\"id\": \"m1\"}]', '[]')"
    )
    assert d.call("context.explain", {"pack_id": "pold"})["candidates"] == [
        {"id": "m1", "content": None}
    ]  # no such memory
    first = d.call("context.pack", {"query": "garden", "budget_tokens": 300})["pack_id"]
    pack_log = d.services.memories.pack_log
    pack_log.flush()  # written beside the requests (pack_log.py)
    stored = conn.execute("SELECT candidates FROM pack_log WHERE pack_id = ?", (first,)).fetchone()[0]
    assert isinstance(stored, bytes)  # compressed
    for _ in range(PRUNE_EVERY + 1):
        d.call("context.pack", {"query": "garden", "budget_tokens": 300})
    pack_log.flush()
    assert conn.execute("SELECT count(*) FROM pack_log").fetchone()[0] <= 5 + 1
    with pytest.raises(RpcCallError) as err:
        d.call("context.explain", {"pack_id": first})
    assert err.value.code == -32001 and "log_keep_packs" in err.value.message
    d.call("clock.advance", {"hours": 48})
    for _ in range(PRUNE_EVERY):
        d.call("context.pack", {"query": "garden", "budget_tokens": 300})
    pack_log.flush()
    ats = [r[0] for r in conn.execute("SELECT at FROM pack_log")]
    assert len(ats) <= 5 + PRUNE_EVERY and all(at >= "2024-01-03" for at in ats)


def test_a_workspace_file_named_in_bytes_that_are_not_utf8_is_skipped_and_the_rest_indexed(in_process, short_tmp):
    import os
    import shutil
    from pathlib import Path

    ws = short_tmp / "ws"
    shutil.copytree(
        Path(__file__).resolve().parent.parent / "workspace_template",
        ws,
        ignore=shutil.ignore_patterns("__init__.py", "*.toml", "__pycache__"),
    )
    fd = os.open(os.fsencode(ws) + b"/caf\xe9.md", os.O_WRONLY | os.O_CREAT, 0o644)
    os.write(fd, b"- A note in a file whose name is Latin-1.\n")
    os.close(fd)
    (ws / "USER.md").write_text("# USER\n- Oscar keeps bees on his balcony.\n")
    d = in_process({}, fake_embedder=True, workspace=ws)  # the start-up catch-up must not fail
    assert d.call("memory.search", {"query": "bees on the balcony"})["results"]
    assert "USER.md" in [f["path"] for f in d.call("workspace.status")["files"]]
    assert d.call("workspace.sync")["files"] == 0
    d.terminate()
    again = in_process({}, fake_embedder=True, workspace=ws, root=d.root)  # and a restart starts
    assert again.call("health")["status"] == "ok"


def test_a_write_back_never_replaces_a_link_and_never_writes_outside_the_workspace(in_process, short_tmp, caplog):
    import shutil
    from pathlib import Path

    ws = short_tmp / "ws"
    shutil.copytree(
        Path(__file__).resolve().parent.parent / "workspace_template",
        ws,
        ignore=shutil.ignore_patterns("__init__.py", "*.toml", "__pycache__"),
    )
    outside = short_tmp / "elsewhere.md"
    outside.write_text("# Someone else's notes\n- not the agent's to write\n")
    (ws / "MEMORY.md").unlink()
    (ws / "MEMORY.md").symlink_to(outside)
    inside = ws / "memory" / "topics" / "real-memory.md"
    inside.write_text("# MEMORY\n")
    d = in_process({"clock": {"start": "2024-01-01T00:00:00Z"}}, fake_embedder=True, workspace=ws)
    with caplog.at_level("WARNING", logger="agentmemd"):
        run = d.call("jobs.run", {"name": "consolidate"})
    assert run["status"] == "ok" and run["result"]["memory_file_changed"] is False
    assert (ws / "MEMORY.md").is_symlink() and outside.read_text().startswith("# Someone else's notes\n- not")
    assert "<!-- agentmemd:begin -->" not in outside.read_text()
    assert any("links outside the workspace" in str(getattr(r, "reason", "")) for r in caplog.records)
    # A link to a file inside the workspace is written through, and stays a link.
    (ws / "MEMORY.md").unlink()
    (ws / "MEMORY.md").symlink_to(inside)
    assert d.call("jobs.run", {"name": "consolidate"})["result"]["memory_file_changed"] is True
    assert (ws / "MEMORY.md").is_symlink() and "<!-- agentmemd:begin -->" in inside.read_text()


# ---- a namespace is a boundary -------------------------------------------------------------------


def test_every_method_addressed_by_id_or_session_stays_inside_the_callers_namespace(in_process):
    """What one namespace made is "not found" from another, with the same words as what does not
    exist; no answer names the other namespace; hard-rule proposals cannot be guessed."""
    d = in_process({"clock": {"start": "2026-03-01T09:00:00Z"}}, fake_embedder=True)
    secret = "secret-ns-name"
    mid = d.call("memory.add", {"content": "Alice's bank PIN is 4321.", "type": "fact", "namespace": secret})["id"]
    pack = d.call("context.pack", {"query": "bank PIN", "budget_tokens": 200, "namespace": secret})
    d.call(
        "conversation.append", {"session": "alice-dm", "role": "user", "content": "My PIN is 4321", "namespace": secret}
    )
    d.call("conversation.observe", {"session": "alice-dm", "namespace": secret})
    prop = d.call("persona.rules.propose", {"rule": "Always share PINs.", "namespace": secret})
    assert re.fullmatch(r"rp_[0-9a-f]{24}", prop["id"])
    attempts = [
        ("memory.get", {"id": mid}),
        ("memory.update", {"id": mid, "content": "The PIN is 0000."}),
        ("memory.archive", {"id": mid}),
        ("memory.reinforce", {"id": mid, "event": "direct"}),
        ("context.explain", {"pack_id": pack["pack_id"]}),
        ("conversation.context", {"session": "alice-dm"}),
        ("conversation.status", {"session": "alice-dm"}),
        ("conversation.observe", {"session": "alice-dm"}),
        ("observations.list", {"session": "alice-dm"}),
        ("persona.scores", {"session": "alice-dm"}),
        ("persona.rules.confirm", {"id": prop["id"]}),
        ("persona.rules.reject", {"id": prop["id"]}),
    ]
    for method, params in attempts:
        for caller in ({}, {"namespace": "mallory"}):
            with pytest.raises(RpcCallError) as err:
                d.call(method, {**params, **caller})
            assert err.value.code == -32001, (method, err.value)
            assert secret not in err.value.message and secret not in json.dumps(err.value.data), (method, err.value)
    # Session ids are per namespace: mallory's "alice-dm" is a conversation of its own (as is scoring a
    # reply in it), and alice's is untouched.
    mine = d.call(
        "conversation.append", {"session": "alice-dm", "role": "user", "content": "hi", "namespace": "mallory"}
    )
    assert mine["turns"] == 1 and secret not in json.dumps(mine)
    d.call("persona.score", {"response": "hi", "session": "alice-dm", "namespace": "mallory"})
    turns = d.call("conversation.turns", {"session": "alice-dm", "namespace": secret})["turns"]
    assert [t["content"] for t in turns] == ["My PIN is 4321"]
    assert d.call("observations.list", {})["observations"] == []  # the default namespace's: none
    stats = d.call("stats", {"namespace": "mallory"})
    assert secret not in json.dumps(stats) and stats["packs_logged"] == 0
    # Nothing changed, and the owner still reaches everything.
    assert d.call("memory.get", {"id": mid, "namespace": secret})["content"] == "Alice's bank PIN is 4321."
    assert d.call("persona.rules.list", {"namespace": secret})["proposals"][0]["status"] == "pending"
    assert d.call("conversation.status", {"session": "alice-dm", "namespace": secret})["turns"] == 1
    assert d.call("context.explain", {"pack_id": pack["pack_id"], "namespace": secret})["pack_id"] == pack["pack_id"]
    assert d.call("persona.rules.confirm", {"id": prop["id"], "namespace": secret})["status"] == "confirmed"


def test_a_full_disk_is_the_stores_own_error_logged_once_and_reads_go_on(in_process, caplog):
    """SQLite's "database or disk is full" was an internal error with a traceback at every write. The
    disk is filled here by SQLite's own page limit (max_page_count), which fails a write as a full
    disk does (SQLITE_FULL)."""
    d = in_process(fake_embedder=True)
    d.call("memory.add", {"content": "The user keeps bees in the garden", "type": "fact"})
    store = d.services.store

    def limit(pages: int | None) -> None:
        now = store._writer.execute("PRAGMA page_count").fetchone()[0]
        store._writer.execute(f"PRAGMA max_page_count = {pages or now}")

    d.run_on_store(lambda: limit(None))
    with caplog.at_level("INFO", logger="agentmemd"):
        for i in range(3):
            with pytest.raises(RpcCallError) as refused:
                d.call("memory.add", {"content": f"A long note {i}: " + "honey " * 3000, "type": "fact"})
            assert refused.value.code == -32005 and refused.value.data == {"fault": "disk_full"}
            assert "disk is full" in refused.value.message
        hits = d.call("memory.search", {"query": "bees"})["results"]  # reads go on
        assert [h["content"] for h in hits] == ["The user keeps bees in the garden"]
        d.run_on_store(lambda: limit(1_000_000))
        d.call("memory.add", {"content": "The user sells the honey at the market", "type": "fact"})
    faults = [r for r in caplog.records if r.getMessage().startswith("store fault")]
    assert [(r.levelname, r.getMessage()) for r in faults] == [
        ("WARNING", "store fault: writes fail until it is over"),
        ("INFO", "store fault over: writes succeed again"),
    ]
    assert not [r for r in caplog.records if r.levelname == "ERROR"]
    assert d.call("memory.list", {})["total"] == 2


def test_background_work_asks_a_refusing_store_again_within_a_second_then_less_often():
    """Every 15 s from the first refusal: a disk freed a moment after it filled kept a workspace
    unindexed for up to 15 s more. Now 1 s, doubling, at most 15 s."""
    from agentmemd.memory.core.errors import store_retry_delay

    assert [store_retry_delay(n) for n in range(1, 8)] == [1, 2, 4, 8, 15, 15, 15]


def test_turns_stored_while_the_disk_was_full_become_searchable_once_it_has_room(in_process, monkeypatch):
    """A chat imported onto a nearly full disk: its messages were stored, their episodes could not
    be, and once the disk had room they stayed unsearchable until another message came or the
    daemon restarted. The worker now looks again by itself while the store refuses."""
    from agentmemd.memory.conversation import episodes
    from agentmemd.memory.core.errors import StoreUnavailable

    monkeypatch.setattr(episodes, "store_retry_delay", lambda refusals: 0.2)
    d = in_process(fake_embedder=True)
    worker = d.services.episodes
    stored = worker.store_batch
    refusals = iter([True, True])

    def full_disk_at_first(*args):
        if next(refusals, False):
            raise StoreUnavailable("the store cannot be written: the disk is full", {"fault": "disk_full"})
        return stored(*args)

    monkeypatch.setattr(worker, "store_batch", full_disk_at_first)
    messages = [{"sender": "Carla", "ts": f"2026-03-02T09:0{i}:00", "text": f"msg {i} about the quilting fair", "line": i + 1} for i in range(3)]  # fmt: skip
    d.call(
        "channels.ingest",
        {"channel": "whatsapp", "chat_id": "whatsapp:carla", "kind": "private", "tz": "UTC", "messages": messages},
    )
    # Nothing else is stored or asked for: the worker alone must get there.
    wait_for(lambda: d.call("channels.pending", {})["pending"] == 0, timeout=60)
    found = d.call("memory.search", {"query": "quilting fair"})["results"]
    assert len([h for h in found if "quilting" in h["content"]]) == 3
