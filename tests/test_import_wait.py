"""`agentmemd import` returns once what it stored is searchable (their episodes stored, as
``channels.pending`` says), or says why not: a worker that stopped, or --wait-timeout.

A real daemon (the real model) for the import that a search follows at once; an in-process daemon
behind a socket, with an embedder that fails or never returns, for a worker that cannot progress."""

from __future__ import annotations

import json
import threading
import time
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner
from fake_daemon import FakeDaemon
from inprocess import HashEmbedder, InProcessDaemon

from agentmemd.daemon.cli import chats
from agentmemd.daemon.cli.main import cli
from agentmemd.daemon.socket.client import RpcCallError

pytestmark = pytest.mark.process  # the tier (pyproject.toml)

EXPORTS = Path(__file__).parent / "data" / "exports"
QUIET = {  # no Observer runs beside the tests: what is waited on is the episodes alone
    "conversation": {"observer_threshold_tokens": 10**9, "reflector_threshold_tokens": 10**9},
    "channels": {"observe_finished": False},
}


@pytest.fixture(scope="module")
def served():
    from conftest import served_daemon

    with served_daemon(QUIET) as d:
        yield d


def run(socket: Path, *args: str):
    return CliRunner().invoke(cli, ["--socket", str(socket), *args])


def whatsapp_export(path: Path, messages: int, last: str) -> Path:
    """A WhatsApp chat of ``messages`` lines a minute apart, the last one saying ``last``."""
    start = datetime(2024, 5, 1, 8, 0)
    lines = [
        f"{start + timedelta(minutes=i):%d/%m/%Y, %H:%M} - {'Ana' if i % 2 else 'Ben'}: "
        f"note {i}: the tomatoes in bed {i % 7} need water on day {i % 5}"
        for i in range(messages - 1)
    ]
    lines.append(f"{start + timedelta(minutes=messages):%d/%m/%Y, %H:%M} - Ana: {last}")
    path.write_text("\n".join(lines) + "\n")
    return path


def found(d, query: str, words: str, namespace: str) -> bool:
    hits = d.call("memory.search", {"query": query, "k": 5, "namespace": namespace})["results"]
    return any(words in hit["content"] for hit in hits)


# ---- against a real daemon ------------------------------------------------------------------


def test_an_import_returns_once_its_last_message_is_searchable(served, short_tmp):
    """Before, the import said "added" while the episodes were still being made: a search right
    after it did not find the last messages."""
    export = whatsapp_export(short_tmp / "WhatsApp Chat with Ana.txt", 300, "The spare key is under the quokka statue")
    done = run(served.socket, "--json", "import", "whatsapp", str(export), "--tz", "UTC", "--namespace", "wait-1")
    assert done.exit_code == 0, done.output
    assert found(served, "where is the spare key", "quokka statue", "wait-1")
    report = json.loads(done.stdout)
    assert report["added"] == 300 and report["searchable"] and report["not_yet_searchable"] == 0
    assert "indexing for search:" in done.stderr and "searchable: every imported message" in done.stderr


def test_no_wait_returns_once_stored_and_an_import_again_waits_for_the_rest(served, short_tmp):
    export = whatsapp_export(short_tmp / "WhatsApp Chat with Ben.txt", 400, "We moved the meeting to the lighthouse")
    args = ["--json", "import", "whatsapp", str(export), "--tz", "UTC", "--namespace", "wait-2"]
    quick = run(served.socket, *args, "--no-wait")
    assert quick.exit_code == 0, quick.output
    report = json.loads(quick.stdout)
    # 400 episodes take the model seconds; the command asked the moment the last batch was stored.
    assert report["added"] == 400 and not report["searchable"] and report["not_yet_searchable"] > 0
    assert "messages become searchable in the background" in quick.stderr
    again = run(served.socket, *args)  # adds nothing, and waits for what the first one left
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout)["added"] == 0 and json.loads(again.stdout)["searchable"]
    assert found(served, "where is the meeting now", "lighthouse", "wait-2")
    assert served.call("channels.pending", {"namespace": "wait-2"})["pending"] == 0


# ---- channels.pending -----------------------------------------------------------------------


def test_pending_counts_a_namespaces_or_some_sessions_turns_until_their_episodes_are_stored(in_process):
    d = in_process(QUIET, fake_embedder=True)
    held = threading.Event()
    embed = d.services.memories.embedder.embed_passages
    d.services.memories.embedder.embed_passages = lambda texts: held.wait(30) and embed(texts)
    try:
        d.call("conversation.append", {"session": "a", "role": "user", "content": "one", "namespace": "p1"})
        d.call("conversation.append", {"session": "b", "role": "user", "content": "two", "namespace": "p1"})
        d.call("conversation.append", {"session": "a", "role": "user", "content": "three", "namespace": "p2"})
        d.call("conversation.sync", {"session": "c", "turns": [{"role": "user", "content": "x"}], "pending": True})
        assert d.call("channels.pending", {"namespace": "p1"}) == {"pending": 2, "indexing": True, "episodes": True}
        assert d.call("channels.pending", {"namespace": "p1", "sessions": ["a"]})["pending"] == 1
        assert d.call("channels.pending", {"namespace": "p2", "sessions": ["a", "b"]})["pending"] == 1
        assert d.call("channels.pending", {"namespace": "p1", "sessions": []})["pending"] == 0
        # A proxy's turn pending its model's answer gets no episode until confirmed: nothing to wait for.
        assert d.call("channels.pending", {})["pending"] == 0
    finally:
        held.set()
    d.services.episodes.catch_up()
    assert d.call("channels.pending", {"namespace": "p1"})["pending"] == 0


def test_pending_refuses_bad_sessions_naming_the_field(in_process):
    d = in_process(fake_embedder=True)
    for sessions in (["no|pipes"], ["s"] * 10_001):
        with pytest.raises(RpcCallError) as err:
            d.call("channels.pending", {"sessions": sessions})
        assert "sessions" in err.value.message


# ---- a worker that cannot progress ----------------------------------------------------------


class FailingEmbedder(HashEmbedder):
    """As when the model failed to load: every batch of the episode worker fails."""

    def embed_passages(self, texts: list[str]):
        raise RuntimeError("the model is gone")


class StalledEmbedder(HashEmbedder):
    """A batch that never ends (until the test lets it)."""

    def __init__(self) -> None:
        self.release = threading.Event()

    def embed_passages(self, texts: list[str]):
        self.release.wait(60)
        return super().embed_passages(texts)


@pytest.fixture
def behind_a_socket(short_tmp, monkeypatch):
    """An in-process daemon with the given embedder, answering on a socket as `serve` does."""
    monkeypatch.setattr(chats, "POLL_SECONDS", 0.05)
    monkeypatch.setattr(chats, "STUCK_SECONDS", 0.5)
    from conftest import NO_JOBS

    made: list[tuple[InProcessDaemon, FakeDaemon]] = []

    def make(embedder) -> tuple[InProcessDaemon, Path]:
        d = InProcessDaemon(short_tmp / "d", {"jobs": NO_JOBS, **QUIET}, embedder=embedder)
        owner = d.connect()

        def answer(method: str, params: dict) -> dict:
            line = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()
            reply = owner.send_raw(line)
            return {key: reply[key] for key in ("result", "error") if key in reply}

        made.append((d, FakeDaemon(short_tmp / "s.sock", answer)))
        return d, short_tmp / "s.sock"

    yield make
    for d, listening in made:
        listening.close()
        d.terminate()


def test_a_worker_that_stopped_ends_the_wait_with_exit_4_saying_so(behind_a_socket):
    d, socket = behind_a_socket(FailingEmbedder())
    path = str(EXPORTS / "whatsapp_android_24h_dmy.txt")
    done = run(socket, "import", "whatsapp", path, "--tz", "UTC", "--namespace", "stuck")
    assert done.exit_code == 4, done.output
    assert "4 messages added" in done.stdout  # stored all the same, and said so
    assert "4 messages are stored but not searchable: the daemon's episode worker stopped" in done.stderr
    assert d.call("channels.pending", {"namespace": "stuck"}) == {"pending": 4, "indexing": False, "episodes": True}


def test_a_wait_past_wait_timeout_ends_with_exit_4_saying_so(behind_a_socket):
    embedder = StalledEmbedder()
    d, socket = behind_a_socket(embedder)
    path = str(EXPORTS / "whatsapp_android_24h_dmy.txt")
    try:
        done = run(socket, "--json", "import", "whatsapp", path, "--tz", "UTC", "--wait-timeout", "0.5")
        assert done.exit_code == 4, done.output
        assert "not yet searchable after 0.5 s (--wait-timeout)" in done.stderr
        report = json.loads(done.stdout)
        assert report["added"] == 4 and not report["searchable"] and report["not_yet_searchable"] == 4
    finally:
        embedder.release.set()


def test_an_imports_finished_sessions_are_observed_after_its_messages_are_searchable(in_process):
    """On a small machine the Observer and the episode worker compete for the same cores: a whole
    finished session an import queued waits while turns are still being made searchable; an
    observation asked for now (conversation.observe) does not wait."""
    d = in_process(fake_embedder=True, config={"clock": {"start": "2024-03-02T00:00:00Z"}})
    worker = d.services.worker
    indexed = threading.Event()
    worker.indexing = lambda: not indexed.is_set()
    for text in ("I moved to Leeds last spring", "The new flat is near the canal", "Work is a short walk away"):
        d.call("conversation.append", {"session": "moved", "role": "user", "content": text})
    worker.request("moved", force=True)  # as an import asks for a finished session
    time.sleep(1.0)
    assert d.call("observations.list", {"session": "moved"})["observations"] == []
    assert worker.run_now("other", force=True).result(timeout=30) is not None  # not held up by the wait
    indexed.set()
    deadline = time.monotonic() + 30
    while not d.call("observations.list", {"session": "moved"})["observations"]:
        assert time.monotonic() < deadline, "the queued observation never ran once indexing was done"
        time.sleep(0.1)
