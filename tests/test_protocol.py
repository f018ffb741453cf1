"""JSON-RPC over the real socket: framing, error codes naming the field, nothing half-written."""

from __future__ import annotations

import json
import shutil
import socket
import stat
import tempfile
import threading
from pathlib import Path

import pytest
from conftest import EPOCH, NO_JOBS, DaemonProcess

from agentmemd.daemon.socket.client import RpcCallError

pytestmark = pytest.mark.process  # the tier (pyproject.toml)


def raw(daemon, line: bytes):
    with daemon.client() as c:
        return c.send_raw(line)


@pytest.fixture(scope="module")
def daemon():
    """This file tests the socket itself: a real `agentmemd serve` process."""
    root = Path(tempfile.mkdtemp(prefix="amd", dir="/tmp"))
    d = DaemonProcess(root, {"clock": {"start": EPOCH}, "jobs": NO_JOBS}).start()
    yield d
    d.terminate()
    shutil.rmtree(root, ignore_errors=True)


def test_health_and_socket_mode(daemon):
    result = daemon.call("health")
    assert result["status"] == "ok" and result["version"] and isinstance(result["memories"], int)
    assert stat.S_IMODE(daemon.socket.stat().st_mode) == 0o600


def test_parse_error_and_non_utf8(daemon):
    assert raw(daemon, b'{"jsonrpc": "2.0", "id": 1, "method": ')["error"]["code"] == -32700
    reply = raw(daemon, b'{"jsonrpc":"2.0","id":1,"method":"health","params":{"x":"\xff\xfe"}}')
    assert reply["error"]["code"] == -32700 and "UTF-8" in reply["error"]["message"]


@pytest.mark.parametrize(
    "line", [b"[1]", b'"hello"', b'{"id": 1, "method": "health"}', b'{"jsonrpc": "2.0", "id": 1, "method": 5}', b"[]"]
)
def test_invalid_request(daemon, line):
    reply = raw(daemon, line)
    reply = reply[0] if isinstance(reply, list) else reply
    assert reply["error"]["code"] == -32600


def test_unknown_method(daemon):
    reply = raw(daemon, b'{"jsonrpc": "2.0", "id": 7, "method": "memory.explode"}')
    assert reply["id"] == 7 and reply["error"]["code"] == -32601 and "memory.explode" in reply["error"]["message"]


@pytest.mark.parametrize(
    "method, params, field",
    [
        ("memory.add", {"content": "", "type": "fact"}, "content"),
        ("memory.add", {"content": "   ", "type": "fact"}, "content"),
        ("memory.add", {"content": 42, "type": "fact"}, "content"),
        ("memory.add", {"content": "x", "type": "gossip"}, "type"),
        ("memory.add", {"content": "x", "type": "fact", "priority": 1.5}, "priority"),
        ("memory.add", {"content": "x", "type": "fact", "namespace": "bad ns/"}, "namespace"),
        ("memory.add", {"content": "x", "type": "fact", "created": "last tuesday"}, "created"),
        ("memory.add", {"content": "x", "type": "fact", "embedding": [0.1, 0.2, 0.3]}, "embedding"),
        ("memory.add", {"content": "x", "type": "fact", "colour": "red"}, "colour"),
        ("memory.add", {"content": "\ud800 lone surrogate", "type": "fact"}, "content"),
        ("memory.add", {"type": "fact"}, "content"),
        ("memory.search", {"query": "x", "k": 0}, "k"),
        ("context.pack", {"query": "x", "budget_tokens": 0}, "budget_tokens"),
        ("context.pack", {"query": "x", "budget_tokens": -5}, "budget_tokens"),
        ("memory.reinforce", {"id": "m1", "event": "liked"}, "event"),
        (
            "memory.add_many",
            {"items": [{"content": "ok", "type": "fact"}, {"content": "x", "type": "nope"}]},
            "items.1.type",
        ),
    ],
)
def test_invalid_params_name_the_field(daemon, ns, method, params, field):
    if method.startswith("memory.add") and "namespace" not in params and "items" not in params:
        params = {**params, "namespace": ns}
    with pytest.raises(RpcCallError) as exc:
        daemon.call(method, params)
    assert exc.value.code == -32602
    assert field in exc.value.message, exc.value.message


def test_nan_embedding_is_rejected(daemon, ns):
    # Python's json accepts the NaN literal, so this reaches validation.
    vec = ", ".join(["NaN"] + ["0.1"] * 383)
    line = f'{{"jsonrpc":"2.0","id":1,"method":"memory.add","params":{{"content":"x","type":"fact","namespace":"{ns}","embedding":[{vec}]}}}}'
    reply = raw(daemon, line.encode())
    assert reply["error"]["code"] == -32602 and "embedding" in reply["error"]["message"]


def test_bad_batch_item_writes_nothing(daemon, ns):
    good = {"content": "Caroline went to a pride parade in June.", "type": "fact", "namespace": ns}
    before = daemon.call("stats", {"namespace": ns})["live"]
    for bad in (
        {"content": "y", "type": "fact", "namespace": ns, "embedding": [1.0] * 10},  # store-level check
        {"content": "", "type": "fact", "namespace": ns},
    ):  # schema-level check
        with pytest.raises(RpcCallError) as exc:
            daemon.call("memory.add_many", {"items": [good, bad]})
        assert exc.value.code == -32602 and "items.1" in exc.value.message
    assert daemon.call("stats", {"namespace": ns})["live"] == before == 0


def test_oversized_line_gets_an_error_and_the_connection_lives(daemon):
    with daemon.client() as c:
        big = (
            b'{"jsonrpc":"2.0","id":1,"method":"memory.add","params":{"content":"'
            + b"a" * 1_100_000
            + b'","type":"fact"}}'
        )
        reply = c.send_raw(big)
        assert reply["error"]["code"] == -32600 and "max_line_bytes" in reply["error"]["message"]
        assert c.call("health")["status"] == "ok"


def test_many_requests_per_connection_batch_and_notification(daemon, ns):
    with daemon.client() as c:
        for i in range(20):
            c.call("memory.add", {"content": f"Note number {i} about the garden.", "type": "fact", "namespace": ns})
        # A notification gets no reply: the next line read answers the health call after it.
        c._sock.sendall(b'{"jsonrpc":"2.0","method":"health"}\n')
        assert c.call("health")["status"] == "ok"
        batch = c.send_raw(
            json.dumps(
                [
                    {"jsonrpc": "2.0", "id": "a", "method": "health"},
                    {"jsonrpc": "2.0", "id": "b", "method": "nope"},
                ]
            ).encode()
        )
        assert [r["id"] for r in batch] == ["a", "b"] and batch[1]["error"]["code"] == -32601
    assert daemon.call("stats", {"namespace": ns})["live"] == 20


def test_concurrent_connections(daemon, ns):
    errors: list[Exception] = []
    ids: list[str] = []
    lock = threading.Lock()

    def worker(n: int) -> None:
        try:
            with daemon.client() as c:
                for i in range(10):
                    mid = c.call(
                        "memory.add", {"content": f"Worker {n} remembers item {i}.", "type": "fact", "namespace": ns}
                    )["id"]
                    with lock:
                        ids.append(mid)
                    c.call("memory.search", {"query": f"worker {n}", "namespace": ns})
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(set(ids)) == 80
    assert daemon.call("stats", {"namespace": ns})["live"] == 80


def test_daemon_survives_a_client_that_hangs_up_mid_line(daemon):
    s = socket.socket(socket.AF_UNIX)
    s.connect(str(daemon.socket))
    s.sendall(b'{"jsonrpc":"2.0","id":1,"method":"hea')
    s.close()
    assert daemon.call("health")["status"] == "ok"


def test_not_found_is_an_error_not_a_crash(daemon):
    with pytest.raises(RpcCallError) as exc:
        daemon.call("memory.get", {"id": "does-not-exist"})
    assert exc.value.code == -32001
    assert daemon.call("health")["status"] == "ok"


def test_the_client_sends_utf8_reconnects_after_a_restart_and_says_when_the_daemon_is_away(daemon, tmp_path):
    """The Python client escaped every non-ASCII character (an emoji 12 bytes, not 4), so a text
    within the limits did not fit a line; with no daemon it raised a plain ConnectionError, and after
    a restart every call raised BrokenPipeError for good."""
    from agentmemd.daemon.socket.client import Client, DaemonUnavailable, request_line

    assert request_line({"text": "🚀"}) == '{"text": "🚀"}'.encode()
    assert request_line({"text": "\\ud800"}) == b'{"text": "\\\\ud800"}'  # no UTF-8 carries it: the daemon says why
    with pytest.raises(DaemonUnavailable, match="cannot reach agentmemd"):
        Client(tmp_path / "none.sock")
    with Client(daemon.socket) as client:
        added = client.call("memory.add", {"content": "🚀" * 60_000, "type": "fact"})
        assert client.call("memory.get", {"id": added["id"]})["content"] == "🚀" * 60_000
        client._sock.shutdown(socket.SHUT_RDWR)  # as the daemon closing a kept connection (a restart)
        assert client.call("health")["status"] in ("ok", "starting")


def test_a_history_over_one_request_is_kept_in_steps_and_counted_whole(daemon):
    """sync_history sends a history too big for one line in steps: its answer's `appended` was the
    last step's count, beside `appended_seqs` of every step."""
    from agentmemd.daemon.doors.history import sync_history
    from agentmemd.daemon.socket.client import Client

    turns = [("assistant" if i % 2 else "user", f"turn {i} " + "é🙂" * 40_000) for i in range(9)]
    with Client(daemon.socket) as client:
        done = sync_history(client, "big-history", None, turns, pending=False)
        assert len(done["appended_seqs"]) == 9 and done["appended"] == 9
        assert sync_history(client, "big-history", None, turns, pending=False)["appended"] == 0
